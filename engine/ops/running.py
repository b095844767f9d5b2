"""Running extremes and running log-sum-exp along a dim: cummax, cummin, logcumsumexp.

cummax/cummin keep, at each position, the largest (smallest) value so far and where it was
(a later equal value takes over, and a NaN sticks, as torch's loop); their gradient goes back
to those places, added up (torch's scatter_add). logcumsumexp accumulates in double, each step
log1p(exp(min - max)) + max, rounded to the input's dtype at every position, as torch's CPU
loop; its gradient is torch's formula made of logcumsumexp itself, so it differentiates again.
"""

from __future__ import annotations

import math

from .. import backend as B
from ..autograd.function import Function, apply
from ..dtypes import float32
from ..tensor import Tensor
from .compare import where
from .helpers import wrap_dim
from .registry import export
from .sorting import _return_type

_TYPE = {"int64": "Long", "bool": "Bool"}


return_types_cummax = _return_type("cummax")
return_types_cummin = _return_type("cummin")


def _along(a, dim: int, k: int):
    return B.getitem(a, (slice(None),) * dim + (k,))


def _scan_extreme(x, dim: int, larger: bool):
    """(values, indices) of torch's cummax (larger) / cummin loop on array x along dim."""
    shape = B.shape(x)
    if not shape or not B.numel(x):
        return B.copy(x), B.zeros(shape, "int64")
    dt = B.dtype_name(x)
    work = B.astype(x, "int64") if dt == "bool" else x
    floating = dt in ("float32", "float64")
    out = _along(work, dim, 0)
    idx = B.zeros(B.shape(out), "int64")
    values, indices = [], []
    for k in range(shape[dim]):
        cur = _along(work, dim, k)
        better = B.ge(cur, out) if larger else B.le(cur, out)
        if floating:  # a NaN takes over, and nothing takes over from a NaN but a NaN
            cur_nan, out_nan = B.isnan(cur), B.isnan(out)
            better = B.where(cur_nan, cur_nan, B.where(out_nan, cur_nan, better))
        out = B.where(better, cur, out)
        idx = B.where(better, B.scalar(k, "int64"), idx)
        values.append(out)
        indices.append(idx)
    out = B.stack(values, dim)
    return (B.astype(out, "bool") if dt == "bool" else out), B.stack(indices, dim)


class Cummax(Function):
    """values[i] = the largest of input[:i + 1] along dim (the last of equal ones, a NaN once
    met); the gradient of each goes to the position it came from."""

    name_ = "CummaxBackward0"
    chain_rule = ("cummax repeats the running maximum: to each element the {grad} of every "
                  "position where it was the maximum so far, added up")

    def forward(self, a, dim, values, indices):
        self.dim, self.shape, self.indices = dim, B.shape(a._data), indices
        # torch's cummaxmin_backward hands an empty input back as its own gradient
        self.empty_input = a if not B.numel(a._data) else None
        self.keep_for_backward()  # torch saves the indices
        return values

    def backward(self, grad):
        self.check_not_freed()
        if self.empty_input is not None:
            return (self.empty_input,)
        zeros = Tensor._make(B.zeros(self.shape, grad._dtype.name), grad._dtype)
        return (zeros.scatter_add(self.dim, Tensor._make(self.indices), grad),)


class Cummin(Cummax):
    name_ = "CumminBackward0"
    chain_rule = ("cummin repeats the running minimum: to each element the {grad} of every "
                  "position where it was the minimum so far, added up")


def _scan_dim(name, input, dim) -> int:
    if input.ndim == 0 and dim not in (0, -1):
        raise IndexError(f"{name}(): Expected reduction dim -1 or 0 for scalar but got {dim}")
    return wrap_dim(dim, input.ndim)


def _cum_extreme(cls, result_type, input, dim, larger):
    # torch looks at dim only when there is something to scan
    d = 0 if input.ndim and not input.numel() else _scan_dim(cls.name_[:6].lower(), input, dim)
    values, indices = _scan_extreme(input._data, d, larger)
    return result_type(apply(cls, (input,), d, values, indices), Tensor._make(indices))


@export()
def cummax(input, dim):
    return _cum_extreme(Cummax, return_types_cummax, input, dim, True)


@export()
def cummin(input, dim):
    return _cum_extreme(Cummin, return_types_cummin, input, dim, False)


class Logcumsumexp(Function):
    name_ = "LogcumsumexpBackward0"
    chain_rule = ("∂logcumsumexp(self)ⱼ/∂selfₖ = exp(selfₖ − resultⱼ) for k ≤ j: to self the sums "
                  "of {grad}ⱼ·exp(selfₖ − resultⱼ) from each position on")
    saves_result = True

    def forward(self, a, dim):
        self.dim = dim
        self.save(a)
        x = a._data
        dt = B.dtype_name(x)
        shape = B.shape(x)
        if not shape or not B.numel(x):
            return B.copy(x)
        wide = B.astype(x, "float64")
        acc = B.full(B.shape(_along(wide, dim, 0)), -math.inf, "float64")
        inf = B.scalar(math.inf, "float64")
        outs = []
        for k in range(shape[dim]):
            cur = _along(wide, dim, k)
            acc_nan = B.isnan(acc)
            # torch's _log_add_exp_helper (std::min/max keep x when one is NaN)
            lo = B.where(acc_nan, acc, B.where(B.lt(acc, cur), acc, cur))
            hi = B.where(acc_nan, acc, B.where(B.lt(cur, acc), acc, cur))
            with B.quiet():
                blend = B.add(B.log1p(B.exp(B.sub(lo, hi))), hi)
            same_infinite = B.where(B.eq(lo, hi), B.eq(B.abs(lo), inf), B.eq(lo, hi))
            acc = B.where(same_infinite, cur, blend)
            outs.append(acc)
        return B.astype(B.stack(outs, dim), dt)

    def backward(self, grad):
        a, result = self.saved_tensors
        if grad.dim() == 0 or grad.numel() == 0:
            return (grad,)
        dim = self.dim
        lowest = -3.4028234663852886e38 if grad.dtype is float32 else -1.7976931348623157e308

        def reverse_logcumsumexp(t):
            return logcumsumexp(t.flip(dim), dim).flip(dim)

        log_abs = grad.abs().log()
        positive = where(grad > 0, log_abs, lowest)
        negative = where(grad < 0, log_abs, lowest)
        out_pos = (reverse_logcumsumexp(positive - result) + a).exp()
        out_neg = (reverse_logcumsumexp(negative - result) + a).exp()
        return (out_pos - out_neg,)


@export()
def logcumsumexp(input, dim):
    d = wrap_dim(dim, input.ndim)
    if not input.dtype.is_floating_point:
        raise NotImplementedError('"logcumsumexp_out_cpu" not implemented for '
                                  f"'{_TYPE[input.dtype.name]}'")
    return apply(Logcumsumexp, (input,), d)
