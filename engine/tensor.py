"""The Tensor: an array plus the autograd state torch keeps beside it.

This module holds only state, properties and the methods that are not operations. Every
operation (a method such as `add`, an operator such as `__add__`, a property such as `T`) is
defined beside its backward in engine/ops/ and registered there with `export(...)`; the last
line of this module imports engine/ops, which installs them all on the class
(engine/ops/registry.py, `install`). `Tensor.__dict__` therefore names, for each op, the
function in engine/ops/ that implements it.
"""

from __future__ import annotations

import warnings

from . import backend as B
from . import batched_reads as _batched_reads
from . import budget as _budget
from . import errors
from . import observer as _observer
from .autograd.graph import AccumulateGrad, HookHandle
from .dims import wrap_dim as _wrap_dim
from .dtypes import _BY_NAME
from .printing import Size, format_tensor, print_options


def warn(message: str, category=UserWarning, stacklevel: int = 3) -> None:
    """Issue a warning as torch would, and tell the observer."""
    warnings.warn(message, category, stacklevel=stacklevel + 1)
    obs = _observer.state.observer
    if obs is not None:
        obs.warning(message, category)


# the engine dtype of a backend array's `.dtype` (a numpy dtype, or a name on the pure
# backend), filled as dtypes are met: creating a tensor then needs no backend call
_DTYPE_OF: dict = {}


class Tensor:
    # Fields every tensor sets live in slots; the rest are class-level defaults that an
    # instance overrides in its __dict__ only when it needs to (most tensors never do), which
    # keeps creating a tensor, the engine's most frequent act, cheap.
    __slots__ = (
        "_data",  # backend array (shared with views and with .data/.detach() results)
        "_dtype",
        "_requires_grad",
        "_grad_fn",  # the Node that produced this tensor; None for leaves
        "_vc",  # version counter: a one-element list shared by views of the same memory
        "__weakref__",
        "__dict__",
    )
    _grad = None
    _retains_grad = False
    _hooks = None  # tensor hooks of a leaf (non-leaf hooks live on the grad_fn)
    _post_accumulate_hooks = None  # run with the leaf after its .grad changed
    _base = None  # the tensor this one is a view of
    _grad_acc = None  # cached AccumulateGrad node of a leaf that requires grad
    _wrapped = False  # a Python number turned into a tensor for an operation
    _view_chain = None  # for a view: the (op, args) steps that make it from its base
    _output_nr = 0  # which output of its grad_fn this is (unbind's node has several)
    # torch's CreationMeta of a view: "default" (made with grad mode on: its grad_fn is made
    # again from its base's history when the base or another view of it changed in place),
    # "multi" (an output of a function that returns several views, or a view of one) and
    # "no_grad" (made with grad mode off) and "custom" (returned by a custom autograd
    # Function, or a view of one), which may not be changed in place; None for a tensor that
    # is not a view. `_view_version` is the version its grad_fn was made at.
    _creation = None
    _view_version = 0
    _views = None  # views of this tensor made while it did not require grad (a WeakSet)
    _detached = False  # detach_() cut its history
    _inference = False  # made inside torch.inference_mode() (autograd/grad_mode.py)

    # -- construction (internal; users call engine.tensor and the factories) ------------------
    @classmethod
    def _make(cls, data, dtype=None, requires_grad=False):
        t = object.__new__(cls)
        t._data = data
        if dtype is None:
            dtype = _DTYPE_OF.get(data.dtype)
            if dtype is None:
                dtype = _DTYPE_OF[data.dtype] = _BY_NAME[B.dtype_name(data)]
        t._dtype = dtype
        t._requires_grad = requires_grad
        t._grad_fn = None
        t._vc = [0]
        if _grad_state.inference:
            t._inference = True
        return t

    def __new__(cls, *args, **kwargs):
        # `torch.Tensor(...)` as a constructor is legacy: a float32 tensor from data or a size
        # (engine/legacy.py). The engine makes its own tensors with _make.
        from .legacy import legacy_new

        return legacy_new(_BY_NAME["float32"], args, kwargs)

    # -- basic properties ---------------------------------------------------------------------
    @property
    def dtype(self):
        return self._dtype

    @property
    def shape(self) -> Size:
        return Size(B.shape(self._data))

    def size(self, dim: int | None = None):
        shape = B.shape(self._data)
        if dim is None:
            return Size(shape)
        if not shape:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        return shape[_wrap_dim(dim, len(shape))]

    def dim(self) -> int:
        return B.ndim(self._data)

    @property
    def ndim(self) -> int:
        return B.ndim(self._data)

    def numel(self) -> int:
        return B.numel(self._data)

    def nelement(self) -> int:
        return B.numel(self._data)

    def is_floating_point(self) -> bool:
        return self._dtype.is_floating_point

    def element_size(self) -> int:
        return self._dtype.itemsize

    @property
    def device(self):
        from .device import CPU

        return CPU

    @property
    def is_cuda(self) -> bool:
        return False

    def is_contiguous(self) -> bool:
        return B.is_contiguous(self._data)

    # -- autograd state -----------------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        self._set_requires_grad(bool(value), setter=True)

    def requires_grad_(self, requires_grad: bool = True):
        from .func import REQUIRES_GRAD_INSIDE, inside_transform

        if inside_transform():
            raise RuntimeError(REQUIRES_GRAD_INSIDE)
        self._set_requires_grad(bool(requires_grad), setter=False)
        return self

    def is_inference(self) -> bool:
        return self._inference

    def _set_requires_grad(self, value: bool, setter: bool) -> None:
        if value and self._inference and not _grad_state.inference:
            raise RuntimeError(errors.INFERENCE_REQUIRES_GRAD)
        if self._grad_fn is not None:
            raise RuntimeError(
                errors.REQUIRES_GRAD_NONLEAF if value else errors.REQUIRES_GRAD_NONLEAF_OFF
            )
        if value and not self._dtype.is_floating_point:
            raise RuntimeError(
                errors.REQUIRES_GRAD_DTYPE_SETTER if setter else errors.REQUIRES_GRAD_DTYPE
            )
        self._requires_grad = value

    @property
    def grad_fn(self):
        if self._creation is not None:
            self._check_view()
        return self._grad_fn

    @property
    def is_leaf(self) -> bool:
        if self._creation is not None:
            self._check_view()
        return self._grad_fn is None

    @property
    def output_nr(self) -> int:
        return self._output_nr

    def _check_view(self) -> None:
        """torch reads a view's grad_fn only after checking that neither the view nor its base
        changed in place since the grad_fn was made. If one did, an ordinary view gets a new
        grad_fn (AsStridedBackward0 over the base's current history, so the gradient is that
        of the view's values now); for the views that may not be changed in place (see
        `_creation`) a change is an error, raised wherever the grad_fn is needed."""
        if self._vc[0] == self._view_version:
            return
        if self._creation == "default":
            _ops.inplace.regenerate_view_grad_fn(self)
        elif self._grad_fn is not None or self._base._requires_grad:
            raise RuntimeError(errors.view_inplace(self, self._grad_fn, indirect=True))

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    @property
    def _version(self) -> int:
        return self._vc[0]

    @property
    def grad(self):
        if self._grad is None and self._grad_fn is not None and not self._retains_grad:
            warn(errors.NON_LEAF_GRAD_WARNING, UserWarning)
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    f"assigned grad expected to be a Tensor or None but got grad of "
                    f"{type(value).__name__}"
                )
            if value._dtype is not self._dtype:
                raise RuntimeError(errors.grad_dtype_mismatch(value._dtype, self._dtype))
            if B.shape(value._data) != B.shape(self._data):
                raise RuntimeError(
                    errors.grad_size_mismatch(B.shape(value._data), B.shape(self._data))
                )
        before = self._grad
        self._grad = value
        obs = _observer.state.observer
        if obs is not None:
            obs.grad_assigned(self, before, value)

    @grad.deleter
    def grad(self) -> None:
        self.grad = None

    @property
    def data(self):
        # Shares memory but not the version counter: torch's documented difference between
        # `.data` (unchecked) and `.detach()` (checked).
        return Tensor._make(self._data, self._dtype)

    @data.setter
    def data(self, value) -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be a Tensor, not {type(value).__name__}")
        self._data = value._data
        self._dtype = value._dtype

    def _grad_accumulator(self):
        acc = self._grad_acc
        if acc is None:
            acc = self._grad_acc = AccumulateGrad(self)
        return acc

    def retain_grad(self) -> None:
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        node = self.grad_fn
        if node is None:  # leaves keep their grad anyway
            return
        self._retains_grad = True
        if node.out_shape is None:  # a node with several outputs keeps one entry per output
            kept = node._retains_grad_hooks
            if kept is None:
                kept = node._retains_grad_hooks = [None] * len(node.out_shapes)
            kept[self._output_nr] = self
        else:
            node._retains_grad_hooks = self

    def register_hook(self, hook):
        """Run hook(grad) when this tensor's gradient is computed; it may return a new one."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        node = self.grad_fn
        if node is None:
            if self._hooks is None:
                self._hooks = []
            return HookHandle(self._hooks, (hook, self))
        if node._tensor_pre_hooks is None:
            node._tensor_pre_hooks = []
        return HookHandle(node._tensor_pre_hooks, (hook, self))

    def register_post_accumulate_grad_hook(self, hook):
        """Run hook(tensor) after backward has added into this leaf's .grad (not in
        autograd.grad, which accumulates nothing); it must return None."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf "
                               "tensors")
        if self._post_accumulate_hooks is None:
            self._post_accumulate_hooks = []
        return HookHandle(self._post_accumulate_hooks, hook)

    def detach(self):
        t = Tensor._make(self._data, self._dtype)
        t._vc = self._vc  # detach shares the version counter: in-place on it is still checked
        if self._inference:  # it shares an inference tensor's memory: it is one too
            t._inference = True
        obs = _observer.state.observer
        if obs is not None:  # the cut is drawn: the result came from self, with no grad_fn
            obs.tensor_created(t, None, "detach", (self,))
        return t

    def detach_(self):
        if self._base is not None and self._base._requires_grad:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is "
                "set as True, gradients are views of DDP buckets, and hence detach_() cannot "
                "be called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
            )
        if self._grad_fn is not None:
            self._detached = True  # a graph that saved it as an input refuses it (graph.py)
        self._grad_fn = None
        self._requires_grad = False
        return self

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        from .autograd.api import backward

        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    # -- conversion to Python -----------------------------------------------------------------
    def item(self):
        if _batched_reads.state.levels:  # inside torch.func.vmap
            _batched_reads.refuse_read(self, _batched_reads.ITEM_ERROR)
        n = B.numel(self._data)
        if n != 1:
            raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
        return B.item(B.reshape(self._data, ()))

    def tolist(self):
        if _batched_reads.state.levels:  # inside torch.func.vmap
            _batched_reads.refuse(_batched_reads.NO_STORAGE_ERROR, self)
        return B.tolist(self._data)

    def numpy(self, *, force: bool = False):
        if self._requires_grad and not force:
            raise RuntimeError(errors.NUMPY_REQUIRES_GRAD)
        if _batched_reads.state.levels:
            _batched_reads.refuse(_batched_reads.NO_STORAGE_ERROR, self)
        return B.to_numpy(self._data)

    def __array__(self, dtype=None, copy=None):
        # (not refused under vmap as .numpy() is: the engine's own numpy conversions use it)
        a = B.to_numpy(self._data)
        return a if dtype is None else a.astype(dtype)

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self._dtype.is_floating_point:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __bool__(self):
        if _batched_reads.state.levels:  # inside torch.func.vmap
            _batched_reads.refuse_read(self, _batched_reads.CONTROL_FLOW_ERROR)
        if B.numel(self._data) != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def __len__(self):
        shape = B.shape(self._data)
        if not shape:
            raise TypeError("len() of a 0-d tensor")
        return shape[0]

    def __iter__(self):
        if B.ndim(self._data) == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    __hash__ = object.__hash__

    # -- printing -----------------------------------------------------------------------------
    def __repr__(self) -> str:
        # printing a container prints every tensor in it: one statement, any number of tensors
        _budget.tick()
        invalid = False
        if self._creation is not None:
            try:
                self._check_view()
            except RuntimeError:
                invalid = True  # torch prints "Invalid" where reading grad_fn would raise
        fn = self._grad_fn
        name = "Invalid" if invalid else fn.class_name() if fn is not None else None
        shape = B.shape(self._data)
        return format_tensor(
            _printed_values(self._data, shape),
            shape,
            self._dtype.name,
            requires_grad=self._requires_grad and fn is None,
            grad_fn=name,
        )

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        # torch formats a 0-dim tensor as its Python number: f"{x.grad}" prints 3.0
        if B.ndim(self._data) == 0 and type(self) is Tensor:
            return format(self.item(), spec)
        return object.__format__(self, spec)

    # -- version counting (used by in-place ops) ----------------------------------------------
    def _bump_version(self, op: str) -> None:
        self._vc[0] += 1
        obs = _observer.state.observer
        if obs is not None:
            obs.inplace(self, op, self._vc[0])


def _printed_values(data, shape):
    """tolist() of what a print shows. A tensor over the print threshold shows only the first
    and last `edgeitems` along every dim: only those are read (None stands for the rest), so
    printing a big tensor costs what is printed, not its size."""
    options = print_options()
    if B.numel(data) <= options["threshold"]:
        _budget.printing(B.numel(data))
        return B.tolist(data)
    edge = options["edgeitems"]

    def shown(a, dims):
        n = dims[0]
        if n <= 2 * edge:
            kept = range(n)
        else:
            kept = (*range(edge), *range(n - edge, n))
        if len(dims) == 1:
            if n <= 2 * edge:
                return B.tolist(a)
            row = [None] * n
            row[:edge] = B.tolist(B.getitem(a, slice(0, edge)))
            row[n - edge:] = B.tolist(B.getitem(a, slice(n - edge, n)))
            return row
        out = [None] * n
        for i in kept:
            out[i] = shown(B.getitem(a, i), dims[1:])
        return out

    return shown(data, shape)


# The ops need the class above and the class needs the ops: this is the one import cycle
# between them, closed here, after the class exists (see the module docstring).
from . import ops as _ops  # noqa: E402,F401

# read on every tensor made (inference tensors); imported last, as the ops above, because the
# autograd package imports this module
from .autograd.grad_mode import state as _grad_state  # noqa: E402
