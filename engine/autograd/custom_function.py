"""torch.autograd.Function for users: a class with static `forward(ctx, ...)` and
`backward(ctx, ...)` whose `apply` records one graph node that calls the class's own backward.

This is torch's contract, kept as torch keeps it (torch/autograd/function.py, 2.13):
- `MyFn.apply(*args, **kwargs)` runs `MyFn.forward(ctx, *args, **kwargs)` with grad mode off.
  When grad mode is on and a tensor argument requires grad, the tensors forward returns get one
  shared node, an instance of `MyFnBackward` (made once per class), with one edge per tensor
  argument. That node is also the `ctx` forward was given: `y.grad_fn is ctx`, and what forward
  stored on ctx (`ctx.alpha = 2`) is there when backward runs.
- When backward reaches the node, `MyFn.backward(ctx, *grads)` runs with one gradient per
  output (zeros for outputs no gradient reached, unless `ctx.set_materialize_grads(False)`)
  and must return one gradient per forward argument: a Tensor or None, and None for every
  argument that was not a tensor. The engine then checks shapes and dtypes as for every node.
- `ctx.save_for_backward(*tensors)` keeps tensors with their version, so `ctx.saved_tensors`
  raises torch's errors after an in-place change or once backward freed them.
- `ctx.mark_non_differentiable(*outputs)`: those outputs never require grad.
- `ctx.mark_dirty(*inputs)`: forward changed those inputs in place and returns them: the
  output is the input tensor itself (not a new tensor sharing its memory), its version goes up
  once more (as soon as forward returns), and when recorded its grad_fn becomes the node, as
  after any in-place op (a leaf that requires grad is refused, after forward wrote into it).
  A view is rebased as after an in-place op on it: its base's grad_fn becomes CopySlices, with
  the node inside (whose first input's gradient fills the view's region of the base's), the
  view's an AsStridedBackward0; only as the only output, and only where an in-place op on the
  view would be allowed (torch's errors otherwise). Every tensor marked dirty must be returned.
- An input returned as it is (not dirty) comes back as a view of it (recorded: with the node as
  its grad_fn) or a detached alias; a view a Function returns may not be changed in place
  (torch's "created inside a custom Function" error).
- `once_differentiable`: the decorated backward runs with grad mode off; when a higher-order
  graph was asked for, its results get an `Error` node that refuses to be differentiated.

The callables forward and backward may be anything Python can call (the playground passes its
interpreted functions), so the engine knows nothing of where they come from.
"""

from __future__ import annotations

import warnings
import weakref

from .. import backend as B
from .. import errors
from .. import observer as _observer
from ..tensor import Tensor
from . import grad_mode
from .function import Function as _Op
from .function import _record_edges, apply
from .graph import Node, save

_NOT_DIFFERENTIABLE_TWICE = ("trying to differentiate twice a function that was marked with "
                             "@once_differentiable")


class FunctionCtx:
    """What forward and backward are given as `ctx` (torch's FunctionCtx): the methods below
    and any attribute the user stores. The ctx is the graph node itself (BackwardCFunction)."""

    __slots__ = ()

    def save_for_backward(self, *tensors) -> None:
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(f"save_for_backward can only save variables, but argument {i} "
                                f"is of type {type(t).__name__}")
        self._to_save = tensors

    def mark_non_differentiable(self, *tensors) -> None:
        for t in tensors:
            if not isinstance(t, Tensor):
                raise TypeError("mark_non_differentiable only accepts Tensors, but got "
                                f"{type(t).__name__}")
        self._non_differentiable = tuple(tensors)

    def mark_dirty(self, *tensors) -> None:
        self._dirty = tuple(tensors)  # checked (and their versions bumped) after forward

    def set_materialize_grads(self, value: bool) -> None:
        self._materialize_grads = bool(value)

    @property
    def needs_input_grad(self) -> tuple:
        return self._needs_input_grad

    @property
    def saved_tensors(self) -> tuple:
        return tuple(self._unpack_saved())


class BackwardCFunction(FunctionCtx, Node):
    """The node type of every user Function; each Function class gets its own subclass, named
    `<Function>Backward` in the module torch prints (torch.autograd.function)."""

    # The engine's array path (function.py) hands gradients over as backend arrays:
    # backward_arrays turns them into Tensors, as the program's backward expects.
    array_backward = True
    _forward_cls = None
    chain_rule = "the program's own backward turns {grad} into the inputs' gradients"

    def __repr__(self) -> str:
        return f"<torch.autograd.function.{self.class_name()} object at {hex(id(self))}>"

    def backward(self, grad):
        """Called by the engine: `grad` is one Tensor (one output) or a list with one Tensor
        or None per output. Returns one gradient per edge (the tensor arguments)."""
        grads = [grad] if self.out_shape is not None else list(grad)
        if self._materialize_grads:
            grads = [_zeros(shape, dtype) if g is None else g
                     for g, (shape, dtype) in zip(grads, self._out_meta)]
        result = self._forward_cls.backward(self, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        name = self.name()
        is_tensor = self._arg_is_tensor
        if len(result) != len(is_tensor):
            if len(result) > len(is_tensor) and all(g is None for g in result[len(is_tensor):]):
                result = result[:len(is_tensor)]  # torch drops trailing Nones
            else:
                raise RuntimeError(f"function {name} returned an incorrect number of gradients "
                                   f"(expected {len(is_tensor)}, got {len(result)})")
        out = []
        for i, (g, tensor_arg) in enumerate(zip(result, is_tensor)):
            if not tensor_arg:
                if g is not None:
                    raise RuntimeError(f"function {name} returned a gradient different than "
                                       f"None at position {i + 1}, but the corresponding "
                                       "forward input was not a Variable")
                continue
            if g is not None and not isinstance(g, Tensor):
                raise TypeError(f"expected Tensor or None (got {type(g).__name__})")
            out.append(g)
        return tuple(out)

    def backward_arrays(self, grad, dtype):
        if self.out_shape is not None:
            return self.backward(Tensor._make(grad, dtype))
        return self.backward([None if g is None else Tensor._make(g, dtype) for g in grad])

    def joined_grad(self, grads):
        """For the observer, which shows one gradient per node: the first output's."""
        for g in grads:
            if g is not None:
                return g
        return None


def _zeros(shape, dtype) -> Tensor:
    return Tensor._make(B.zeros(shape, dtype.name), dtype)


# each Function class -> its node class (weakly: a class goes when nothing uses it)
NODE_CLASSES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class Function:
    """torch.autograd.Function: subclass it with static forward and backward, call `apply`."""

    def __init_subclass__(cls, **kwargs):
        # every Function class gets its own node class, `<name>Backward`, as torch's metaclass
        # gives it; kept outside the class, whose attributes are the subclass author's
        super().__init_subclass__(**kwargs)
        node_cls = type(f"{cls.__name__}Backward", (BackwardCFunction,),
                        {"name_": f"{cls.__name__}Backward", "_forward_cls": cls,
                         "__slots__": ()})
        # torch makes these classes in Python, in this module: they print as
        # <class 'torch.autograd.function.MyFnBackward'> (Node names its own classes builtins)
        node_cls.__module__ = "torch.autograd.function"
        NODE_CLASSES[cls] = node_cls

    def __init__(self, *args, **kwargs):
        warnings.warn(f"{type(self)} should not be instantiated. Methods on autograd functions "
                      "are all static, so you should invoke them on the class itself. "
                      "Instantiating an autograd function will raise an error in a future "
                      "version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use "
            "new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode "
                                  "AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        return _apply(cls, args, kwargs)


def _apply(cls, args: tuple, kwargs: dict):
    node_cls = NODE_CLASSES[cls]
    ctx = node_cls.__new__(node_cls)
    tensors = [a for a in args if isinstance(a, Tensor)]
    ctx._arg_is_tensor = tuple(isinstance(a, Tensor) for a in args)
    ctx._needs_input_grad = tuple(isinstance(a, Tensor) and _requires_grad(a) for a in args)
    ctx._to_save = ()
    ctx._non_differentiable = ()
    ctx._dirty = ()
    ctx._materialize_grads = True
    record = grad_mode.state.grad_enabled and any(ctx._needs_input_grad)
    if record:
        _record_edges(ctx, tensors)
    else:
        ctx._needs = None
        ctx.next_functions = ()
        ctx._saved = ()
        ctx._freed = False
        ctx._seq = 0
        ctx._tensor_pre_hooks = ctx._retains_grad_hooks = ctx._hooks = ctx._pre_hooks = None
    prev = grad_mode.state.grad_enabled
    grad_mode.state.grad_enabled = False
    try:
        result = cls.forward(ctx, *args, **kwargs)
    finally:
        grad_mode.state.grad_enabled = prev
    single = not isinstance(result, tuple)
    outputs = [result] if single else list(result)
    _mark_dirty(ctx)
    differentiable = _wrap_outputs(ctx, outputs, tensors, record)
    _link_outputs(ctx, outputs, tensors, record, single, differentiable)
    return outputs[0] if single else tuple(outputs)


def _mark_dirty(ctx) -> None:
    """torch's _mark_dirty, right after forward: each tensor marked dirty gets one more
    version, whatever happens next (the observer hears of it once the tensor's new grad_fn is
    set, _link_outputs)."""
    for t in ctx._dirty:
        if not isinstance(t, Tensor):
            # torch's message, cut short as torch 2.13 prints it
            raise RuntimeError("mark_dirty can only accept variables, but argument ")
        t._vc[0] += 1


def _requires_grad(t: Tensor) -> bool:
    """torch's requires_grad(), which a view made with grad mode off takes from its base."""
    return t._requires_grad or (t._base is not None and t._base._requires_grad)


def _wrap_outputs(ctx, outputs: list, inputs: list, record: bool) -> list:
    """torch's set_history for each output in order (custom_function.cpp): an input forward
    returns is the input itself when forward changed it in place and marked it dirty (checked
    here as torch checks an in-place change), else a view of it when the node is recorded and
    a detached alias or a view of it otherwise; a view a Function returns may not be changed in
    place ("custom", or "multi" when it returns several differentiable tensors). Then every
    dirty tensor must have been returned."""
    input_ids = {id(t) for t in inputs}
    dirty_ids = {id(t) for t in ctx._dirty}
    non_diff = {id(t) for t in ctx._non_differentiable}
    returned = set()
    flags = [False] * len(outputs)
    for k, out in enumerate(outputs):
        if not isinstance(out, Tensor):
            continue
        returned.add(id(out))
        is_input = id(out) in input_ids
        modified = id(out) in dirty_ids
        differentiable = record and id(out) not in non_diff and out._dtype.is_floating_point
        if not differentiable:
            if not _requires_grad(out):
                if is_input and not modified:
                    outputs[k] = out = _view_of_self(out)
            elif is_input:
                outputs[k] = out = _detached(out)
            elif out._base is None:
                out._requires_grad = False
        elif modified:
            _check_dirty(out, len(outputs))
        elif is_input:
            outputs[k] = out = _view_of_self(out)
        if out._base is not None and not (is_input and modified):
            out._creation = "custom"
        flags[k] = differentiable
    if sum(flags) > 1:
        for out in outputs:
            if isinstance(out, Tensor) and out._base is not None:
                out._creation = "multi"
    for t in ctx._dirty:
        if id(t) not in returned:
            raise RuntimeError("Some elements marked as dirty during the forward method were not "
                               "returned as output. The inputs that are modified inplace must "
                               "all be outputs of the Function.")
    return flags


def _detached(t: Tensor) -> Tensor:
    """t.detach() (same memory and version counter, no history); the observer hears of it as
    the Function's output (_link_outputs)."""
    alias = Tensor._make(t._data, t._dtype)
    alias._vc = t._vc
    alias._inference = t._inference
    return alias


def _view_of_self(t: Tensor) -> Tensor:
    """torch's x.view_as(x) with grad mode off: what a Function gives for an input it returns
    as it is (the same memory, version counter and base)."""
    from ..ops.shape import View
    from .function import _mark_view
    shape = B.shape(t._data)
    alias = Tensor._make(B.view(t._data, shape), t._dtype)
    _mark_view(alias, t, View, (shape,))
    return alias


def _check_dirty(t: Tensor, n_outputs: int) -> None:
    """torch's checks on an input forward changed in place and marked dirty, when the node is
    recorded: a leaf that requires grad is refused; a view is rebased (its base gets
    CopySlices, _link_outputs) only as the only output, and only where an in-place op on it
    would be allowed."""
    if t._grad_fn is None and _requires_grad(t):
        raise RuntimeError("a leaf Variable that requires grad has been used in an in-place "
                           "operation.")
    base = t._base
    if base is None:
        return
    if n_outputs > 1:
        raise RuntimeError(errors.DIRTY_VIEW_MANY_OUTPUTS)
    if t._creation not in (None, "default"):
        raise RuntimeError(errors.view_inplace(t, t._grad_fn, indirect=False))
    if base._grad_fn is None and (t._requires_grad or base._requires_grad):
        raise RuntimeError(errors.LEAF_VIEW_INPLACE)


def _link_outputs(ctx, outputs: list, inputs: list, record: bool, single: bool,
                  differentiable: list) -> None:
    """Make the node the grad_fn of the differentiable outputs, save what forward asked for,
    and tell the observer about each output tensor."""
    tensor_outputs = [o for o in outputs if isinstance(o, Tensor)]
    dirty = ctx._dirty
    dirty_ids = {id(t) for t in dirty}
    output_ids = {id(o) for o in tensor_outputs}
    ctx._out_meta = [(B.shape(o._data), o._dtype) if isinstance(o, Tensor) else ((), None)
                     for o in outputs]
    if record:
        if single and isinstance(outputs[0], Tensor):
            ctx.out_shape, ctx.out_dtype = ctx._out_meta[0]
        else:
            ctx.out_shape = None  # one shape per output, as apply_multi's nodes
            ctx.out_shapes = tuple(meta[0] for meta in ctx._out_meta)
            # the engine checks every output's gradient against one dtype: the first
            # floating output's (the others are rarely of another floating dtype)
            ctx.out_dtype = next((m[1] for m in ctx._out_meta
                                  if m[1] is not None and m[1].is_floating_point), None)
        for k, out in enumerate(outputs):
            if not isinstance(out, Tensor):
                continue
            if not differentiable[k]:
                out._requires_grad = False
                continue
            if id(out) in dirty_ids:  # an in-place change: the input's new history
                from ..ops.inplace import _base_now_requires_grad, _move_retained_grad, _rebase_view
                if out._base is not None:
                    # a view: as after an in-place op on it, its base gets CopySlices (with
                    # this node inside) and the view an AsStridedBackward0 reading it
                    _rebase_view(out, ctx)
                    out._view_version = out._vc[0]
                    continue
                if not out._requires_grad:
                    _base_now_requires_grad(out)
                _move_retained_grad(out, ctx)
            out._requires_grad = True
            out._grad_fn = ctx
            out._output_nr = k
        _announce_dirty(ctx)  # after the grad_fn is set: the observer's in-place event shows it
        saved = []
        for t in ctx._to_save:
            if t is None:
                saved.append(None)
            elif id(t) in output_ids:
                saved.append(save(t, ctx.name_))
            else:
                saved.append(save(t))
        ctx._saved = tuple(saved)
    else:
        _announce_dirty(ctx)
        ctx._saved = tuple(ctx._to_save)
    obs = _observer.state.observer
    if obs is not None:
        for out in tensor_outputs:
            if id(out) not in dirty_ids:  # a dirty one was announced as in place
                obs.tensor_created(out, ctx if out._grad_fn is ctx else None, ctx.name_,
                                   inputs)


def _announce_dirty(ctx) -> None:
    """The observer's in-place event for each dirty tensor (its version went up in
    _mark_dirty)."""
    obs = _observer.state.observer
    if obs is not None:
        for t in ctx._dirty:
            obs.inplace(t, ctx.name_, t._vc[0])


# -- once_differentiable ---------------------------------------------------------------------

class DelayedError(_Op):
    """What a once_differentiable backward's results get when a graph of them was asked for:
    differentiating them again raises."""

    name_ = "torch::autograd::Error"
    chain_rule = "a backward marked @once_differentiable cannot be differentiated again"

    def forward(self, x):
        return B.copy(x._data)

    def backward(self, grad):
        raise RuntimeError(_NOT_DIFFERENTIABLE_TWICE)


def _fake_leaf(t: Tensor) -> Tensor:
    """A leaf that requires grad, so that the Error node is recorded (torch does the same)."""
    leaf = t.detach()
    leaf._requires_grad = True
    return leaf


class OnceDifferentiable:
    """A backward decorated with @once_differentiable: it runs with grad mode off; when a graph
    of its results was asked for (create_graph), they get an Error node instead."""

    __slots__ = ("wrapped",)

    def __init__(self, fn):
        self.wrapped = fn

    def __call__(self, ctx, *args):
        with grad_mode.no_grad():
            outputs = self.wrapped(ctx, *args)
        if not grad_mode.state.grad_enabled:
            return outputs
        if not any(isinstance(a, Tensor) and a._requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        wrapped = tuple(apply(DelayedError, (_fake_leaf(o),)) if isinstance(o, Tensor) else o
                        for o in outs)
        return wrapped[0] if single else wrapped


def once_differentiable(fn):
    """torch.autograd.function.once_differentiable (see OnceDifferentiable)."""
    return OnceDifferentiable(fn)
