"""torch.cdist: the p-norm distance between every row of x1 and every row of x2 (batched over
leading dims), on torch 2.13's two CPU paths.

The direct path (`_cdist_forward`, one node CdistBackward0) is torch's kernel: for each pair,
|a - b| mapped and added column by column in the input's dtype, then finished. For p = 2 the
compiled loop adds d*d rounded, except in the last m % 4 (float32) or m % 2 (float64) columns
(the remainder of its unrolled loop), where it fuses the multiply-add; for another p the map is
the C library's `pow` in the dtype and the finish `pow(agg, 1.0 / p)` in double; the inf-norm
takes `std::max`, which skips a NaN. Its gradient is torch's per-p formula added row by row of
the other input; torch's `pow` there is SLEEF's (a vector library), the engine's the C
library's (docs/semantics.md). That gradient has no derivative of its own in torch.

With p = 2 and more than 25 rows in x1 or x2 (or compute_mode='use_mm_for_euclid_dist') torch
takes the matrix-product formula instead, `_euclidean_dist` (EuclideanDistBackward0 under a
ViewBackward0): ‖x‖² + ‖y‖² − 2x·y in one matmul, clamped at 0: values rounded otherwise (the
distance of a row to itself need not be 0), and a gradient made of ordinary ops.
"""

from __future__ import annotations

import math
import struct

from .. import backend as B
from ..autograd import grad_mode
from ..autograd.function import Function, apply
from ..tensor import Tensor
from .formulas import sum_to
from .registry import export
from .shape import cat

_TYPE = {"float32": "Float", "float64": "Double", "int64": "Long", "bool": "Bool"}
_MODES = {None: 0, "use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1,
          "donot_use_mm_for_euclid_dist": 2}


def _f32(v: float) -> float:
    try:
        return struct.unpack("f", struct.pack("f", v))[0]
    except OverflowError:
        return math.copysign(math.inf, v)


def _pow(x: float, y: float) -> float:
    try:
        return math.pow(x, y)
    except OverflowError:
        return math.inf
    except ValueError:
        return math.nan


def _map_pow(a, p: float, dt: str):
    """The C library's pow of every element, rounded to dt (float32: powf)."""
    vals = B.tolist(B.reshape(a, (-1,)))
    return B.reshape(B.array([_pow(v, p) for v in vals], dt), B.shape(a))


def _std_max(a, b):
    """std::max(a, b): a unless a < b (so a NaN b is skipped)."""
    return B.where(B.lt(a, b), b, a)


def _direct(x, y, p: float):
    """torch's run_parallel_cdist on (batch, r, m) arrays."""
    dt = B.dtype_name(x)
    ps = _f32(p) if dt == "float32" else p  # the kernel's scalar_t p
    m = B.shape(x)[-1]
    fused_from = m - m % (4 if dt == "float32" else 2)
    one = B.scalar(1, dt)
    with B.quiet():
        agg = None
        for k in range(m):
            col = (Ellipsis, slice(None), slice(k, k + 1))
            d = B.abs(B.sub(B.getitem(x, col), B.transpose(B.getitem(y, col), -1, -2)))
            if agg is None:
                agg = B.zeros(B.shape(d), dt)
            if p == 2:
                agg = B.fma(d, d, agg) if k >= fused_from else B.add(agg, B.mul(d, d))
            elif p == 1:
                agg = B.add(agg, d)
            elif p == 0:
                agg = B.add(agg, B.minimum(B.ceil(d), one))
            elif p == math.inf:
                agg = _std_max(agg, d)
            else:
                agg = B.add(agg, _map_pow(d, ps, dt))
        if p == 2:
            return B.sqrt(agg)
        if p in (0, 1, math.inf):
            return agg
        return _map_pow(B.astype(agg, "float64"), 1.0 / ps, dt)


def _ksign(v):
    """The kernel's sign: min(max(0, ceil v), 1) + min(max(-1, floor v), 0), NaN for NaN."""
    dt = B.dtype_name(v)
    zero, one = B.scalar(0, dt), B.scalar(1, dt)
    return B.add(B.minimum(B.maximum(zero, B.ceil(v)), one),
                 B.minimum(B.maximum(B.neg(one), B.floor(v)), zero))


def _backward(grad, x1, x2, dist, p: float):
    """torch's _cdist_backward for x1 on (batch, r, m) arrays: for each row i, from +0, add
    backward(x1ᵢ − x2ⱼ, gradᵢⱼ, distᵢⱼ) for j in order."""
    dt = B.dtype_name(x1)
    ps = _f32(p) if dt == "float32" else p
    res = B.zeros(B.shape(x1), dt)
    if p == 0:
        return res
    zero, one = B.scalar(0, dt), B.scalar(1, dt)
    with B.quiet():
        for j in range(B.shape(x2)[-2]):
            diff = B.sub(x1, B.getitem(x2, (Ellipsis, slice(j, j + 1), slice(None))))
            g = B.getitem(grad, (Ellipsis, slice(j, j + 1)))
            d = B.getitem(dist, (Ellipsis, slice(j, j + 1)))
            if p == 1:
                per = B.mul(g, _ksign(diff))
            elif p == 2:
                per = B.where(B.eq(d, zero), zero, B.div(B.mul(g, diff), d))
            elif p == math.inf:
                near = B.minimum(one, B.ceil(B.abs(B.sub(B.abs(diff), d))))
                per = B.mul(B.mul(g, _ksign(diff)), B.sub(one, near))
            elif p < 2:
                e = B.sub(B.scalar(ps, dt), one)
                per = B.div(B.mul(B.mul(_ksign(diff), B.pow(B.abs(diff), e)), g), B.pow(d, e))
                per = B.where(B.eq(d, zero), zero, per)
                if p < 1:
                    per = B.where(B.eq(diff, zero), zero, per)
            else:
                e2 = B.sub(B.scalar(ps, dt), B.scalar(2, dt))
                e1 = B.sub(B.scalar(ps, dt), one)
                per = B.div(B.mul(B.mul(diff, B.pow(B.abs(diff), e2)), g), B.pow(d, e1))
                per = B.where(B.eq(d, zero), zero, per)
            res = B.add(res, per)
    return res


def _batched(x, batch):
    """x expanded to the broadcast batch, as a contiguous (prod(batch), r, m) array."""
    s = B.shape(x)
    full = tuple(batch) + tuple(s[-2:])
    return B.reshape(B.contiguous(B.expand(x, full)), (math.prod(batch),) + tuple(s[-2:]))


class Cdist(Function):
    name_ = "CdistBackward0"
    chain_rule = ("cdist: to x1 each row's {grad} times ∂‖x1ᵢ − x2ⱼ‖ₚ/∂x1ᵢ summed over x2's rows, "
                  "and the same for x2 with the signs turned")
    saves_result = True

    def forward(self, a, b, p):
        self.p = p
        self.save(a, b)
        x, y = a._data, b._data
        dt = B.dtype_name(x)
        sa, sb = B.shape(x), B.shape(y)
        batch = tuple(B.broadcast_shapes(sa[:-2], sb[:-2]))
        r1, r2, m = sa[-2], sb[-2], sa[-1]
        out_shape = batch + (r1, r2)
        if r1 == 0 or r2 == 0 or math.prod(batch) == 0 or m == 0:
            return B.zeros(out_shape, dt)
        return B.reshape(_direct(_batched(x, batch), _batched(y, batch), p), out_shape)

    def backward(self, grad):
        a, b, result = self.saved_tensors
        recording = grad_mode.state.grad_enabled
        ga = self._grad(grad._data, a, b, result._data, False) if self.needs(0) else None
        gb = self._grad(grad._data, b, a, result._data, True) if self.needs(1) else None
        if recording:  # create_graph=True: torch's _cdist_backward, itself not differentiable
            # (its edges: grad, x1, x2 and the result, transposed and made contiguous for x2)
            ga = None if ga is None else apply(_CdistGrad, (grad, a, b, result), ga)
            if gb is not None:
                gb = apply(_CdistGrad, (grad.transpose(-1, -2).contiguous(), b, a,
                                        result.transpose(-1, -2).contiguous()), gb)
        else:
            ga = None if ga is None else Tensor._make(ga)
            gb = None if gb is None else Tensor._make(gb)
        return ga, gb

    def _grad(self, grad, x1, x2, dist, swap):
        """_cdist_backward(grad, x1, x2, p, dist), for x2 with grad and dist transposed; the
        gradient of the broadcast batch summed back to x1's shape."""
        s1, s2 = B.shape(x1._data), B.shape(x2._data)
        batch = tuple(B.broadcast_shapes(s1[:-2], s2[:-2]))
        full = batch + tuple(s1[-2:])
        if s1[-2] == 0 or s2[-2] == 0 or s1[-1] == 0 or math.prod(batch) == 0:
            return B.zeros(s1, B.dtype_name(x1._data))
        g, d = B.reshape(grad, (-1,) + B.shape(grad)[-2:]), B.reshape(dist, (-1,) + B.shape(dist)[-2:])
        if swap:
            g, d = B.transpose(g, -1, -2), B.transpose(d, -1, -2)
        res = _backward(B.contiguous(g), _batched(x1._data, batch), _batched(x2._data, batch),
                        B.contiguous(d), self.p)
        res = B.reshape(res, full)
        if full != tuple(s1):
            with grad_mode.no_grad():
                res = sum_to(Tensor._make(res), tuple(s1))._data
        return res


class _CdistGrad(Function):
    """cdist's gradient recorded under create_graph=True: torch's _cdist_backward has no
    derivative, so reaching this node in backward raises."""

    name_ = "CdistBackwardBackward0"
    chain_rule = "the backward of cdist: torch has no derivative for it, backward stops here"

    def forward(self, grad, a, b, dist, value):
        return value

    def backward(self, grad):
        raise NotImplementedError("the derivative for '_cdist_backward' is not implemented.")


class EuclideanDist(Function):
    """torch's _euclidean_dist: ‖x1ᵢ‖² + ‖x2ⱼ‖² − 2·x1ᵢ·x2ⱼ as one matrix product of padded
    operands, clamped at 0, square-rooted."""

    name_ = "EuclideanDistBackward0"
    chain_rule = ("cdist (matrix-product path): to x1 x1ᵢ·Σⱼ rᵢⱼ − Σⱼ rᵢⱼ·x2ⱼ with r = {grad} / "
                  "dist (0 where dist is 0), and the same for x2")
    saves_result = True

    def forward(self, a, b):
        self.save(a, b)
        with grad_mode.no_grad():
            x1, x2 = a.detach(), b.detach()
            n1 = x1.pow(2).sum(-1, keepdim=True)
            n2 = x2.pow(2).sum(-1, keepdim=True)
            left = cat([x1.mul(-2), n1, n1.new_ones(n1.shape)], -1)
            right = cat([x2, n2.new_ones(n2.shape), n2], -1)
            out = left.matmul(right.transpose(-1, -2)).clamp_min(0).sqrt()
        return out._data

    def backward(self, grad):
        x1, x2, res = self.saved_tensors
        ratio = grad / res
        ratio = ratio.masked_fill(res == 0, 0)
        g1 = x1 * ratio.sum(-1, keepdim=True) - ratio.matmul(x2)
        g2 = x2 * ratio.sum(-2).unsqueeze(-1) - ratio.transpose(-1, -2).matmul(x1)
        return (sum_to(g1, tuple(x1.shape)) if self.needs(0) else None,
                sum_to(g2, tuple(x2.shape)) if self.needs(1) else None)


def _use_mm(p, mode, r1, r2):
    return p == 2 and (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25)))


@export(method=False)
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    if compute_mode not in _MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    mode = _MODES[compute_mode]
    if x1.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    if not x1.dtype.is_floating_point:
        raise RuntimeError(f"cdist only supports floating-point dtypes, X1 got: "
                           f"{_TYPE[x1.dtype.name]}")
    if not x2.dtype.is_floating_point:
        raise RuntimeError(f"cdist only supports floating-point dtypes, X2 got: "
                           f"{_TYPE[x2.dtype.name]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    p = float(p)
    r1, r2, m = x1.shape[-2], x2.shape[-2], x1.shape[-1]
    if x1.numel() == 0 or x2.numel() == 0 or not _use_mm(p, mode, r1, r2):
        return apply(Cdist, (x1, x2), p)
    batch = tuple(B.broadcast_shapes(tuple(x1.shape[:-2]), tuple(x2.shape[:-2])))
    out_shape = batch + (r1, r2)
    if math.prod(batch) == 1:
        dist = apply(EuclideanDist, (x1, x2))
    else:
        a = x1.expand(batch + (r1, m)).contiguous().view((math.prod(batch), r1, m))
        b = x2.expand(batch + (r2, m)).contiguous().view((math.prod(batch), r2, m))
        dist = apply(EuclideanDist, (a, b))
    return dist.view(out_shape)
