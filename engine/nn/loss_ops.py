"""The losses torch computes as one graph node (SmoothL1LossBackward0, HuberLossBackward0,
BinaryCrossEntropyBackward0, BinaryCrossEntropyWithLogitsBackward0), the scalar ops torch's
composite losses record, and the 2-norm along a dim they take from engine/ops/norms.py.

Each loss takes input and target already broadcast to one shape. Backward formulas are written
with Tensor operations, so create_graph=True differentiates them again (the second-order
graph is made of ordinary nodes where torch has one *BackwardBackward0 node; the values agree).
"""

from __future__ import annotations

from .. import backend as B
from ..autograd.function import Function, apply
from ..ops.clamp_bounds import ClampMin
from ..ops.compare import where
from ..ops.helpers import promote
from ..ops.inplace import run_inplace
from ..ops.masking import MaskedFill
from ..ops.norms import vector_norm
from ..ops.pointwise import xlogy  # noqa: F401 - kl_div's, re-exported for functional.py
from ..tensor import Tensor
from .activation_ops import LogSigmoid

_TYPE = {"float32": "Float", "float64": "Double", "int64": "Long", "bool": "Bool"}


def _reduce(data, reduction):
    if reduction == "mean":
        return B.mean(data, None, False)
    if reduction == "sum":
        return B.sum(data, None, False)
    return data


def _norm(reduction: str, numel: int) -> float:
    return 1.0 / numel if reduction == "mean" and numel else 1.0


def _float_pair(node, input, target, kernel):
    dt = promote(input, target)
    if not dt.is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_TYPE[dt.name]}\'')
    return B.astype(input._data, dt.name), B.astype(target._data, dt.name)


# -- smooth_l1_loss, huber_loss -----------------------------------------------------------------

class SmoothL1Loss(Function):
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta; d = input - target."""

    name_ = "SmoothL1LossBackward0"
    chain_rule = ("∂smooth_l1/∂input = (input − target)/β where |input − target| < β, else sign(input − "
                  "target) (/N for 'mean'); target gets the opposite")

    def forward(self, input, target, reduction, beta):
        self.reduction, self.beta = reduction, beta
        self.save(input, target)
        x, t = _float_pair(self, input, target, "smooth_l1_cpu")
        z = B.abs(B.sub(x, t))
        k = lambda v: B.scalar(v, B.dtype_name(z))  # noqa: E731
        quad = B.div(B.mul(B.mul(k(0.5), z), z), k(beta))
        return _reduce(B.where(B.lt(z, k(beta)), quad, B.sub(z, k(0.5 * beta))), reduction)

    def backward(self, grad):
        input, target = self.saved_tensors
        d = input - target
        beta = self.beta
        slope = where(d < -beta, -1.0, where(d > beta, 1.0, d / beta))
        g = slope * grad * _norm(self.reduction, input.numel())
        return (g if self.needs(0) else None), (-g if self.needs(1) else None)


class HuberLoss(Function):
    """0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta); d = input - target."""

    name_ = "HuberLossBackward0"
    chain_rule = ("∂huber/∂input = input − target where |input − target| ≤ δ, else δ·sign(input − "
                  "target) (/N for 'mean'); target gets the opposite")

    def forward(self, input, target, reduction, delta):
        self.reduction, self.delta = reduction, delta
        self.save(input, target)
        x, t = _float_pair(self, input, target, "huber_cpu")
        z = B.abs(B.sub(x, t))
        k = lambda v: B.scalar(v, B.dtype_name(z))  # noqa: E731
        quad = B.mul(B.mul(k(0.5), z), z)
        lin = B.mul(k(delta), B.sub(z, k(0.5 * delta)))
        return _reduce(B.where(B.lt(z, k(delta)), quad, lin), reduction)

    def backward(self, grad):
        input, target = self.saved_tensors
        d = input - target
        delta = self.delta
        slope = where(d < -delta, -delta, where(d > delta, delta, d))
        g = slope * grad * _norm(self.reduction, input.numel())
        return (g if self.needs(0) else None), (-g if self.needs(1) else None)


# -- binary cross entropy -------------------------------------------------------------------------

_BCE_EPSILON = 1e-12  # torch's floor under x (1 - x) in the gradient


class BinaryCrossEntropy(Function):
    """-w (t log x + (1 - t) log(1 - x)), each log clamped at -100 as torch does, so x = 0 or
    x = 1 give a finite loss."""

    name_ = "BinaryCrossEntropyBackward0"
    chain_rule = "∂bce/∂input = weight·(input − target)/(input·(1 − input)) (/N for 'mean')"

    def forward(self, input, target, weight, reduction):
        self.reduction, self.weight = reduction, weight
        self.save(input, target)
        x, t = input._data, target._data
        if B.numel(x) and not (B.item(B.amin(x, None, False)) >= 0
                               and B.item(B.amax(x, None, False)) <= 1):
            raise RuntimeError("all elements of input should be between 0 and 1")
        dt = B.dtype_name(x)
        k = lambda v: B.scalar(v, dt)  # noqa: E731
        log_x = B.maximum(B.log(x), k(-100))
        log_1mx = B.maximum(B.log(B.sub(k(1), x)), k(-100))
        loss = B.neg(B.add(B.mul(t, log_x), B.mul(B.sub(k(1), t), log_1mx)))
        if weight is not None:
            loss = B.mul(loss, weight._data)
        return _reduce(loss, reduction)

    def backward(self, grad):
        input, target = self.saved_tensors
        norm = _norm(self.reduction, input.numel())
        w = self.weight
        g_in = g_t = None
        if self.needs(0):
            denom = ((1 - input) * input).clamp(min=_BCE_EPSILON)
            g_in = (input - target) / denom * grad
            g_in = (g_in * w if w is not None else g_in) * norm
        if self.needs(1):
            # unlike the loss, this gradient is not clamped: it is infinite at x = 0 or 1
            g_t = -(input / (1 - input)).log() * grad  # -logit(x), as torch
            g_t = (g_t * w if w is not None else g_t) * norm
        return g_in, g_t


class BinaryCrossEntropyWithLogits(Function):
    """(1 - t) x - lw * log(sigmoid(x)), lw = 1 + (pos_weight - 1) t, times weight: the
    stable form torch computes, with log(sigmoid(x)) never overflowing."""

    name_ = "BinaryCrossEntropyWithLogitsBackward0"
    chain_rule = ("∂bce_with_logits/∂input = weight·(σ(input) − target), pos_weight scaling the "
                  "target's term (/N for 'mean')")

    def forward(self, input, target, weight, pos_weight, reduction):
        self.reduction, self.weight, self.pos_weight = reduction, weight, pos_weight
        self.save(input, target)
        x, t = input._data, target._data
        dt = B.dtype_name(x)
        k = lambda v: B.scalar(v, dt)  # noqa: E731
        log_sig = B.sub(B.minimum(x, k(0)), B.log1p(B.exp(B.neg(B.abs(x)))))
        if pos_weight is not None:
            log_weight = B.add(B.mul(B.sub(pos_weight._data, k(1)), t), k(1))
            log_sig = B.mul(log_sig, log_weight)
        loss = B.sub(B.mul(B.sub(k(1), t), x), log_sig)
        if weight is not None:
            loss = B.mul(loss, weight._data)
        return _reduce(loss, reduction)

    def backward(self, grad):
        input, target = self.saved_tensors
        norm = _norm(self.reduction, input.numel())
        w, pw = self.weight, self.pos_weight
        g_in = g_t = None
        if self.needs(0):
            if pw is not None:
                pt = pw * target
                g_in = (pt + 1 - target) * input.sigmoid() - pt
            else:
                g_in = input.sigmoid() - target
            g_in = g_in * grad
            g_in = (g_in * w if w is not None else g_in) * norm
        if self.needs(1):
            if pw is not None:
                g_t = _log_sigmoid(-input) - _log_sigmoid(input) * pw
            else:
                g_t = -input
            g_t = g_t * grad
            g_t = (g_t * w if w is not None else g_t) * norm
        return g_in, g_t


def _log_sigmoid(x: Tensor) -> Tensor:
    return apply(LogSigmoid, (x,))


# -- small ops of torch's composite losses ---------------------------------------------------------
# A number combined with a tensor inside torch's C++ is a Scalar argument, recorded as the
# op's Scalar overload (AddBackward1, SubBackward1, MulBackward1), unlike a Python number,
# which torch wraps into a tensor (AddBackward0).

class AddScalar(Function):
    name_ = "AddBackward1"
    chain_rule = "∂(self + number)/∂self = 1: to self {grad}"

    def forward(self, a, other):
        return B.add(a._data, B.scalar(other, a._dtype.name))

    def backward(self, grad):
        return (grad,)


class SubScalar(AddScalar):
    name_ = "SubBackward1"
    chain_rule = "∂(self − number)/∂self = 1: to self {grad}"


class MulScalar(Function):
    name_ = "MulBackward1"
    chain_rule = "∂(self·number)/∂self = number: to self {grad}·number"

    def forward(self, a, other):
        self.other = other
        return B.mul(a._data, B.scalar(other, a._dtype.name))

    def backward(self, grad):
        return (grad * self.other,)


def add_scalar(t: Tensor, other: float) -> Tensor:
    return apply(AddScalar, (t,), other)


def sub_scalar(t: Tensor, other: float) -> Tensor:
    return apply(SubScalar, (t,), -other)


def mul_scalar(t: Tensor, other: float) -> Tensor:
    return apply(MulScalar, (t,), other)


def clamp_min_(t: Tensor, lo: float) -> Tensor:
    return run_inplace(t, ClampMin, (), (lo,), "clamp_min_")


def masked_fill_(t: Tensor, mask: Tensor, value: float) -> Tensor:
    return run_inplace(t, MaskedFill, (), (mask, value), "masked_fill_")


def vector_norm2(x: Tensor, dim: int, keepdim: bool) -> Tensor:
    return vector_norm(x, 2, dim, keepdim)
