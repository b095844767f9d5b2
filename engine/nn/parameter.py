"""nn.Parameter: a leaf Tensor that a Module registers as one of its parameters."""

from __future__ import annotations

from .. import backend as B
from .. import errors
from ..creation import empty
from ..printing import format_parameter
from ..tensor import Tensor


class Parameter(Tensor):
    """Shares memory and the version counter with `data`, as torch's _make_subclass does with
    data.detach(); results of operations on a Parameter are plain Tensors."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = empty(0)
        if requires_grad and not data._dtype.is_floating_point:
            raise RuntimeError(errors.REQUIRES_GRAD_DTYPE_CTOR)
        p = cls._make(data._data, data._dtype, bool(requires_grad))
        p._vc = data._vc
        return p

    def __init__(self, data=None, requires_grad=True):
        pass  # everything happens in __new__; Tensor.__init__ would rebuild from data

    def __repr__(self) -> str:
        return format_parameter(B.tolist(self._data), B.shape(self._data), self._dtype.name,
                                requires_grad=self._requires_grad)

    __str__ = __repr__

    def __reduce_ex__(self, proto):
        return (_rebuild, (Tensor._make(B.copy(self._data), self._dtype), self._requires_grad))

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        p = type(self)(Tensor._make(B.copy(self._data), self._dtype), self._requires_grad)
        if self._grad is not None:
            p._grad = Tensor._make(B.copy(self._grad._data), self._grad._dtype)
        memo[id(self)] = p
        return p


def _rebuild(data, requires_grad):
    return Parameter(data, requires_grad)


def clear_grads(params, set_to_none: bool = True) -> None:
    """What Module.zero_grad and Optimizer.zero_grad do to each parameter, as torch does it:
    drop the .grad (the default), or zero it in place after cutting it from any graph."""
    for p in params:
        if p.grad is None:
            continue
        if set_to_none:
            p.grad = None
        else:
            if p.grad.grad_fn is not None:
                p.grad.detach_()
            else:
                p.grad.requires_grad_(False)
            p.grad.zero_()
