"""clamp_min and clamp_max (torch.clamp with one bound, as their own ops: ClampMinBackward0 and
ClampMaxBackward0 for a number bound, ClampMinBackward1 and ClampMaxBackward1 for a tensor
bound), with their in-place forms."""

from __future__ import annotations

from ..autograd.function import apply
from ..tensor import Tensor
from .compare import where
from .helpers import wrap
from .inplace import run_inplace
from .registry import export
from .unary import Clamp, ClampTensor


class ClampMin(Clamp):
    name_ = "ClampMinBackward0"
    chain_rule = "∂clamp_min(self)/∂self = 1 where self >= min, else 0: to self {grad} there"

    def forward(self, a, bound):
        return Clamp.forward(self, a, bound, None)

    def backward(self, grad):
        (a,) = self.saved_tensors
        return (where(a >= self.lo, grad, 0.0),)


class ClampMax(Clamp):
    name_ = "ClampMaxBackward0"
    chain_rule = "∂clamp_max(self)/∂self = 1 where self <= max, else 0: to self {grad} there"

    def forward(self, a, bound):
        return Clamp.forward(self, a, None, bound)

    def backward(self, grad):
        (a,) = self.saved_tensors
        return (where(a <= self.hi, grad, 0.0),)


class ClampMinTensor(ClampTensor):
    name_ = "ClampMinBackward1"


class ClampMaxTensor(ClampTensor):
    name_ = "ClampMaxBackward1"


@export()
def clamp_min(input, min):  # noqa: A002 - torch's name
    if isinstance(min, Tensor):
        return apply(ClampMinTensor, (input, wrap(min, input)), ("min",))
    return apply(ClampMin, (input,), min)


@export()
def clamp_max(input, max):  # noqa: A002 - torch's name
    if isinstance(max, Tensor):
        return apply(ClampMaxTensor, (input, wrap(max, input)), ("max",))
    return apply(ClampMax, (input,), max)


@export(function=False)
def clamp_min_(self, min):  # noqa: A002
    if isinstance(min, Tensor):
        return run_inplace(self, ClampMinTensor, (min,), (("min",),), "clamp_min_")
    return run_inplace(self, ClampMin, (), (min,), "clamp_min_")


@export(function=False)
def clamp_max_(self, max):  # noqa: A002
    if isinstance(max, Tensor):
        return run_inplace(self, ClampMaxTensor, (max,), (("max",),), "clamp_max_")
    return run_inplace(self, ClampMax, (), (max,), "clamp_max_")
