"""In-place ops (add_ sub_ mul_ div_ zero_ fill_ copy_ clamp_ and += -= *= /=).

One mechanism for all of them, following torch's rules:
1. a leaf that requires grad (or a view of one) cannot be modified while grad mode is on;
2. the result is written into the tensor's own memory, so views and `.data` see it;
3. the version counter goes up by one (shared with views and detach()), which is how a
   backward that saved this tensor notices it changed;
4. when recorded, the tensor's grad_fn becomes the op's node, whose edge leads to the
   tensor's previous history (so `y.add_(1)` on a non-leaf makes y.grad_fn AddBackward0).
"""

from __future__ import annotations

from .. import backend as B
from .. import errors
from .. import observer as _observer
from ..autograd import grad_mode
from ..autograd.function import Function, apply
from ..autograd.graph import SavedTensor
from ..dtypes import promote_types
from ..tensor import Tensor
from . import arithmetic, unary
from .helpers import wrap
from .registry import export

_CAST_NAME = {"float32": "Float", "float64": "Double", "int64": "Long", "bool": "Bool"}


def _check_target(self: Tensor, others) -> bool:
    """Apply rule 1; return whether the op is to be recorded in the graph."""
    if not grad_mode.state.grad_enabled:
        return False
    if self._requires_grad and self._grad_fn is None:
        if self._base is not None:
            raise RuntimeError(errors.LEAF_VIEW_INPLACE)
        raise RuntimeError(errors.LEAF_INPLACE)
    record = self._requires_grad or any(o._requires_grad for o in others)
    if record and self._base is not None and (self._base._requires_grad or self._requires_grad):
        raise NotImplementedError(
            "gradplay does not yet record in-place operations on views of tensors that "
            "require grad (torch would rewrite the base's history with CopySlices); use an "
            "out-of-place op instead"
        )
    return record


def _alias(self: Tensor) -> Tensor:
    """A second handle on self as it is now (same memory, history and version counter)."""
    t = Tensor._make(self._data, self._dtype, self._requires_grad)
    t._grad_fn = self._grad_fn
    t._grad_acc = self._grad_acc
    t._vc = self._vc
    return t


def run_inplace(self: Tensor, cls, others: tuple, args: tuple, op: str) -> Tensor:
    record = _check_target(self, others)
    before = _alias(self)
    obs_state = _observer.state
    obs = obs_state.observer
    obs_state.observer = None  # the out-of-place result below is internal, not a new tensor
    try:
        out = apply(cls, (before, *others), *args) if record else _unrecorded(cls, before,
                                                                              others, args)
    finally:
        obs_state.observer = obs
    if out._dtype is not self._dtype and promote_types(out._dtype, self._dtype) is not self._dtype:
        raise RuntimeError(
            f"result type {_CAST_NAME[out._dtype.name]} can't be cast to the desired output "
            f"type {_CAST_NAME[self._dtype.name]}"
        )
    oshape, sshape = B.shape(out._data), B.shape(self._data)
    if oshape != sshape:
        raise RuntimeError(
            f"output with shape [{', '.join(map(str, sshape))}] doesn't match the broadcast "
            f"shape [{', '.join(map(str, oshape))}]"
        )
    node = out._grad_fn
    if node is not None:
        # Saved copies of `before` must keep the values from before the write (torch saves
        # the original self for e.g. mul_), and a saved result is self after the write.
        saved = list(node._saved)
        for i, s in enumerate(saved):
            if type(s) is SavedTensor and s.tensor is before:
                snap = _alias(before)
                snap._data = B.copy(before._data)
                snap._vc = [0]
                saved[i] = SavedTensor(snap)
        node._saved = tuple(saved)
    B.assign(self._data, out._data)
    if node is not None:
        node.out_dtype = self._dtype
        self._grad_fn = node
        self._requires_grad = True
        if self._retains_grad:
            node._retains_grad_hooks = self
    self._bump_version(op)
    if node is not None:
        node._saved = tuple(
            SavedTensor(self, node.name()) if type(s) is SavedTensor and s.tensor is out else s
            for s in node._saved
        )
    return self


def _unrecorded(cls, before, others, args):
    with grad_mode.no_grad():
        return apply(cls, (before, *others), *args)


# -- ops with no out-of-place counterpart in the public API -----------------------------------

class Zero(Function):
    name_ = "ZeroBackward0"

    def forward(self, a):
        return B.zeros(B.shape(a._data), a._dtype.name)

    def backward(self, grad):
        return (grad * 0,)


class Fill(Function):
    name_ = "FillBackward2"

    def forward(self, a, value):
        return B.full(B.shape(a._data), value, a._dtype.name)

    def backward(self, grad):
        return (grad * 0,)


class Copy(Function):
    name_ = "torch::autograd::CopyBackwards"

    def forward(self, a, src):
        from .helpers import check_broadcast

        check_broadcast(B.shape(a._data), B.shape(src._data))
        self.src_shape = B.shape(src._data)
        self.src_dtype = src._dtype
        return B.astype(B.expand(src._data, B.shape(a._data)), a._dtype.name)

    def backward(self, grad):
        from .reduction import sum_to

        g_src = sum_to(grad, self.src_shape)
        if g_src._dtype is not self.src_dtype:
            g_src = g_src.to(self.src_dtype)
        return (grad * 0, g_src)


# -- public in-place methods -------------------------------------------------------------------

@export(function=False)
def add_(self, other, *, alpha=1):
    return run_inplace(self, arithmetic.Add, (wrap(other, self),), (alpha,), "add_")


@export(function=False)
def sub_(self, other, *, alpha=1):
    return run_inplace(self, arithmetic.Sub, (wrap(other, self),), (alpha,), "sub_")


@export(function=False)
def mul_(self, other):
    return run_inplace(self, arithmetic.Mul, (wrap(other, self),), (), "mul_")


@export(function=False)
def div_(self, other):
    return run_inplace(self, arithmetic.Div, (wrap(other, self),), (), "div_")


@export(function=False)
def clamp_(self, min=None, max=None):  # noqa: A002
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    return run_inplace(self, unary.Clamp, (), (min, max), "clamp_")


clip_ = export("clip_", function=False)(clamp_)


@export(function=False, palette={"code": "{0}.zero_()", "arity": 1, "group": "in-place",
                                 "label": "zero_()"})
def zero_(self):
    return run_inplace(self, Zero, (), (), "zero_")


@export(function=False)
def fill_(self, value):
    if isinstance(value, Tensor):
        value = value.item()
    return run_inplace(self, Fill, (), (value,), "fill_")


@export(function=False)
def copy_(self, src, non_blocking=False):
    if not isinstance(src, Tensor):
        src = wrap(src, self)
    return run_inplace(self, Copy, (src,), (), "copy_")


@export(function=False)
def requires_grad_(self, requires_grad=True):
    return Tensor.requires_grad_(self, requires_grad)


Tensor.__iadd__ = lambda self, other: add_(self, other)
Tensor.__isub__ = lambda self, other: sub_(self, other)
Tensor.__imul__ = lambda self, other: mul_(self, other)
Tensor.__itruediv__ = lambda self, other: div_(self, other)


def setitem(self, index, value):
    """x[index] = value: an in-place copy into the indexed view."""
    with grad_mode.no_grad():
        target = self[index]
    if grad_mode.state.grad_enabled and (self._requires_grad or (
            isinstance(value, Tensor) and value._requires_grad)):
        if self._requires_grad and self._grad_fn is None:
            raise RuntimeError(errors.LEAF_INPLACE)
        raise NotImplementedError(
            "gradplay does not yet record index assignment into tensors that require grad "
            "(torch's CopySlices); build the tensor with torch.cat/torch.where instead"
        )
    src = value._data if isinstance(value, Tensor) else B.scalar(value, self._dtype.name)
    if B.shape(target._data) == B.shape(self._data) and target._data is self._data:
        B.assign(self._data, src)
    elif target._base is not None:
        B.assign(target._data, src)
    else:  # advanced index: write through the index itself
        from .shape import getitem  # noqa: F401

        B.setitem(self._data, _plain_index(index), src)
    self._bump_version("__setitem__")


def _plain_index(index):
    if isinstance(index, tuple):
        return tuple(_plain_index(i) for i in index)
    if isinstance(index, Tensor):
        return index._data
    return index


Tensor.__setitem__ = setitem
