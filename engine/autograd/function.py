"""Function: the base of every differentiable op, and `apply`, which records it in the graph.

An op subclasses Function and writes
- `name_`: torch's grad_fn class name (e.g. "MulBackward0"),
- `forward(self, *tensors, *args) -> array`: computes on backend arrays and may call
  `self.save(...)` with the tensors its backward needs (only when `self.needs(i)` says so,
  as torch saves only what the inputs that require grad need),
- `backward(self, grad) -> tuple`: one gradient (a Tensor, or None) per tensor input, written
  with engine operations so that create_graph=True can differentiate it again.
Flags: `saves_result` (backward needs the output), `is_view` (output shares the input's memory),
`array_backward` (see below).
Metadata for the playground sits on the class too, so that it is written once, next to the
formula it describes: `chain_rule` (see below). More per-grad_fn metadata goes there as well.

An op with several outputs (unbind) is run by `apply_multi`: its forward returns a list of
arrays, one node is shared by all the outputs, and each output has its own `output_nr`, the
input_nr of the edges that lead to it. Its backward gets a list with one gradient per output
(None for an output no gradient reached) and `joined_grad(grads)` gives them as the one tensor
the observer reports. Such a node has `out_shape` None and `out_shapes`, one per output.

An op whose backward uses only + - * / and unary - on its values, Python numbers, and the
functions of engine/ops/formulas.py sets `array_backward = True`. When nothing records (no
create_graph, hooks, retained grads, `inputs` or observer), the engine then runs that same
formula on backend arrays: `grad` is an array, `self.saved_tensors` gives arrays, and no Tensor
or node is made for the arithmetic inside the formula. This is only done when the saved tensors
have the gradient's dtype, where the arrays' own type promotion agrees with torch's.
"""

from __future__ import annotations

import weakref

from .. import backend as B
from .. import budget as _budget
from .. import errors
from .. import observer as _observer
from ..tensor import Tensor
from . import grad_mode
from .graph import KEPT, Node, SavedTensor, _sequence, save, saved_hooks


class Function(Node):
    __slots__ = ()
    saves_result = False
    is_view = False
    array_backward = False
    # How the playground explains this node's backward to a learner: a template in plain
    # words over {grad} (the gradient arriving at the output) and the names of the inputs,
    # e.g. "grad * cos(x)". None: the UI shows no explanation for this grad_fn. Read it from
    # the node (`type(node).chain_rule`), so an op subclass inherits or overrides it.
    chain_rule = None
    # The inputs (by index) to which torch's formula passes on sgn's zero gradient unchanged,
    # where it arrives in place of a gradient (autograd/zero_grad.py).
    zero_passes = ()

    def forward(self, *args):  # pragma: no cover - every op defines it
        raise NotImplementedError

    def backward(self, grad):  # pragma: no cover
        raise NotImplementedError

    # helpers for forward
    def needs(self, i: int) -> bool:
        """Whether input i requires grad (False when nothing is being recorded)."""
        n = self._needs
        return n is not None and n[i]

    def save(self, *tensors) -> None:
        if self._needs is None:
            return
        # wrapped Python numbers (x * 2) are kept as they are: never checked for in-place
        # changes, but freed with the rest (torch saves them too: a second backward raises)
        saved = []
        hooked = saved_hooks.stack  # saved_tensors_hooks: each save goes through its pack hook
        for t in tensors:
            if t is not None and t._inference:
                raise RuntimeError(errors.INFERENCE_SAVE)
            saved.append(t if t is None or t._wrapped else save(t) if hooked else SavedTensor(t))
        self._saved = tuple(saved)

    def keep_for_backward(self) -> None:
        """Mark that backward uses values forward kept on the node (indices) which torch keeps
        as saved tensors: a backward without retain_graph frees them, and running this node
        again raises torch's "backward through the graph a second time" error."""
        if self._needs is not None:
            self._saved = self._saved + (KEPT,)

    def check_not_freed(self) -> None:
        if self._freed:
            raise RuntimeError(errors.BACKWARD_TWICE)

    @property
    def saved_tensors(self):
        saved = self._saved
        if type(saved) is list:  # backward_arrays put the checked arrays there
            return saved
        return self._unpack_saved()

    def backward_arrays(self, grad, dtype):
        """Run backward on `grad`, a backend array of `dtype` (the engine's path when nothing
        records, for ops with `array_backward`). Returns None, without running anything, when a
        saved tensor has another dtype: the caller then runs backward on Tensors."""
        saved = self._saved
        if not saved and not self._freed:  # nothing to check (AddBackward0)
            return self.backward(grad)
        arrays = self._unpack_saved(dtype)  # raises as backward() would (freed, modified)
        if arrays is None:
            return None
        # while the formula runs, saved_tensors hands out these (a list: `_saved` is otherwise
        # always a tuple)
        self._saved = arrays
        try:
            return self.backward(grad)
        finally:
            self._saved = saved


def edge_to(t: Tensor):
    """The (node, input_nr) pair through which a gradient reaches tensor t."""
    if t._creation is not None:
        return _view_edge(t)
    if t._grad_fn is not None:
        return (t._grad_fn, t._output_nr)
    if t._requires_grad:
        return (t._grad_accumulator(), 0)
    return (None, 0)


def _view_edge(t: Tensor):
    """The edge to a view (see Tensor._creation): reading its grad_fn is checked (and may make
    it again), and an output of a node with several outputs has its own input_nr."""
    t._check_view()
    if t._grad_fn is None:  # a view of a leaf made with grad mode off
        return (t._grad_accumulator(), 0) if t._requires_grad else _NO_EDGE
    return (t._grad_fn, t._output_nr)


_NO_EDGE = (None, 0)
_budget_state = _budget.state  # read at every apply(): one attribute lookup fewer


def apply_or_compute(cls, inputs: tuple, *args):
    """For backward formulas (see `array_backward`): op `cls` on Tensors, recorded by apply();
    on backend arrays, the op's array function `cls.compute(*inputs, *args)`, which is what its
    forward computes with."""
    if isinstance(inputs[0], Tensor):
        return apply(cls, inputs, *args)
    return cls.compute(*inputs, *args)


def apply(cls, inputs: tuple, *args) -> Tensor:
    """Run op `cls` forward on `inputs` (Tensors) with extra non-tensor `args`, and record
    it in the graph when grad mode is on and some input requires grad.

    This is the engine's hottest function: it is written for speed (one pass over the
    inputs, no helper calls on the path that records nothing). It is also where a run's
    deadline is checked (engine/budget.py): one statement of a program may make any number of
    ops."""
    budget = _budget_state.budget
    if budget is not None:
        budget.tick()
    node = cls.__new__(cls)
    record = False
    if grad_mode.state.grad_enabled:
        for t in inputs:
            if t._requires_grad:
                record = True
                break
    if record:
        _record_edges(node, inputs)
    else:
        node._needs = None
    data = node.forward(*inputs, *args) if args else node.forward(*inputs)
    out = Tensor._make(data, None, record)
    if cls.is_view:
        _mark_view(out, inputs[0], cls, args)
    if record:
        if not out._dtype.is_floating_point:
            out._requires_grad = False  # integer and bool results never require grad
            record = False
        else:
            node.out_shape = data.shape
            node.out_dtype = out._dtype
            out._grad_fn = node
            if cls.saves_result:
                node._saved = node._saved + (
                    save(out, cls.name_) if saved_hooks.stack else SavedTensor(out, cls.name_),)
    obs = _observer.state.observer
    if obs is not None:
        obs.tensor_created(out, node if record else None, cls.name_, inputs)
    return out


def _record_edges(node, inputs) -> None:
    """Make `node` a graph node with one edge per input."""
    needs = []
    edges = []
    for t in inputs:
        fn = t._grad_fn
        if fn is not None:
            needs.append(True)
            # _output_nr: which output of a node with several (svd's U, S, Vh) t is
            edges.append((fn, t._output_nr) if t._creation is None else _view_edge(t))
        elif t._requires_grad:
            needs.append(True)
            if t._creation is not None:  # a view whose base came to require grad in place
                edges.append(_view_edge(t))
                continue
            acc = t._grad_acc
            edges.append((acc if acc is not None else t._grad_accumulator(), 0))
        else:
            needs.append(False)
            edges.append(_NO_EDGE)
    node._needs = needs
    node.next_functions = tuple(edges)
    node._seq = next(_sequence)
    node._saved = ()
    node._freed = False
    node._tensor_pre_hooks = node._retains_grad_hooks = node._hooks = node._pre_hooks = None


def apply_multi(cls, inputs: tuple, *args) -> tuple:
    """apply() for an op with several outputs: one node shared by all of them, output k
    reached through input_nr k. Returns the outputs as a tuple."""
    _budget.tick()
    node = cls.__new__(cls)
    record = grad_mode.state.grad_enabled and any(t._requires_grad for t in inputs)
    if record:
        _record_edges(node, inputs)
    else:
        node._needs = None
    datas = node.forward(*inputs, *args)
    outs = tuple(Tensor._make(d, None, record) for d in datas)
    if record and outs and not outs[0]._dtype.is_floating_point:
        for out in outs:
            out._requires_grad = False  # integer and bool results never require grad
        record = False
    if record:
        node.out_shape = None  # see the module docstring: one shape per output instead
        node.out_shapes = tuple(B.shape(d) for d in datas)
        node.out_dtype = outs[0]._dtype if outs else None
        for k, out in enumerate(outs):
            out._grad_fn = node
            if k:
                out._output_nr = k
    obs = _observer.state.observer
    for k, out in enumerate(outs):
        if cls.is_view:
            step_cls, step_args = node.view_step(k, *args)
            _mark_view(out, inputs[0], step_cls, step_args, "multi")
        if obs is not None:
            obs.tensor_created(out, node if record else None, cls.name_, inputs)
    return outs


def _mark_view(out: Tensor, src: Tensor, cls, args, creation=None) -> None:
    """Views share memory and the version counter with their base, and remember how they
    were made from it (in-place ops on views replay that, see ops/inplace.py). A view made
    with grad mode off, or by a function that returns several views, or a view of one of
    those, may not be changed in place (torch's CreationMeta, see Tensor._creation)."""
    out._vc = src._vc
    if src._inference:  # a view of an inference tensor is one too
        out._inference = True
    if src._base is not None:
        out._base = src._base
        out._view_chain = src._view_chain + ((cls, args),)
    else:
        out._base = src
        out._view_chain = ((cls, args),)
    if not grad_mode.state.grad_enabled:
        creation = "no_grad"
    elif creation is None:
        creation = src._creation or "default"
    out._creation = creation
    out._view_version = src._vc[0]
    if creation == "default" and not out._base._requires_grad:
        # torch counts a view as requiring grad once its base does: an in-place op that makes
        # the base require grad tells the views it knows (ops/inplace.py, _base_now_requires_grad)
        views = out._base.__dict__.get("_views")
        if views is None:
            views = out._base._views = weakref.WeakSet()
        views.add(out)


def chain_rules() -> dict:
    """Every grad_fn name with its `chain_rule` (the playground sends this table to the UI)."""
    from .graph import AccumulateGrad

    table = {AccumulateGrad.name_: AccumulateGrad.chain_rule}
    pending = [Function]
    while pending:
        cls = pending.pop()
        for sub in cls.__subclasses__():
            if "name_" in sub.__dict__:  # a shared base (no grad_fn of its own) is not listed
                table[sub.name_] = sub.chain_rule
            pending.append(sub)
    return dict(sorted(table.items()))
