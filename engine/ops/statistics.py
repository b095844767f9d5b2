"""Reductions that summarise spread: var and std (with torch's `correction` / `unbiased`), and
logsumexp. Backward formulas are torch's (derivatives.yaml), written with Tensor operations."""

from __future__ import annotations

import warnings

from .. import backend as B
from ..autograd.function import Function, apply
from ..dtypes import float32
from .compare import where
from .helpers import dims_tuple, float_data
from .registry import export


def _k(value, like):
    return B.scalar(value, B.dtype_name(like))


def _count(shape, dims) -> int:
    n = 1
    for d in (range(len(shape)) if dims is None else dims):
        n *= shape[d]
    return n


def _keep(t, dims, ndim, keepdim):
    """A reduced Tensor with its reduced dims back (size 1), to broadcast against the input."""
    if keepdim:
        return t
    if dims is None:
        return t.reshape((1,) * ndim) if ndim else t
    for d in dims:
        t = t.unsqueeze(d)
    return t


class Var(Function):
    """sum((x - mean)^2) / (N - correction) over dims."""

    name_ = "VarBackward0"
    root = False
    chain_rule = "∂var(self)/∂self = 2·(self − mean)/(N − correction): to self {grad} times that"

    def forward(self, a, dims, correction, keepdim):
        x = float_data(a)
        self.dims, self.correction, self.keepdim = dims, correction, keepdim
        self.save(a)
        shape = B.shape(x)
        all_dims = tuple(range(len(shape))) if dims is None else dims
        n = _count(shape, dims)
        self.dof = n - correction
        if self.dof <= 0:
            warnings.warn("var(): degrees of freedom is <= 0. Correction should be strictly less "
                          "than the reduction factor (input numel divided by output numel).",
                          UserWarning, stacklevel=4)
        wide = B.dtype_name(x) == "float32"
        if wide:  # torch accumulates a float32 var in double (no overflow of 1e30 squared)
            x = B.astype(x, "float64")
        d = B.sub(x, B.mean(x, all_dims, True))
        total = B.sum(B.mul(d, d), all_dims, keepdim)
        out = B.div(total, _k(max(self.dof, 0), total))
        if self.root:  # std: the square root too before rounding to float32
            out = B.sqrt(out)
        return B.astype(out, "float32") if wide else out

    def backward(self, grad):
        return (self.var_grad(self.saved_tensors[0], grad),)

    def var_grad(self, a, grad):
        all_dims = tuple(range(a.dim())) if self.dims is None else self.dims
        g = _keep(grad, self.dims, a.dim(), self.keepdim)
        # torch's var_backward, in its order: (2 / (N - correction)) * grad * (x - mean); over
        # every dim (or of a 0-dim tensor) the divisor is max(0, N - correction), along dims it
        # may be negative. Zero degrees of freedom give inf (and NaN where x is the mean)
        dof = max(self.dof, 0) if self.dims is None or a.dim() == 0 else self.dof
        factor = 2.0 / dof if dof else float("inf")
        return (g * factor) * (a - a.mean(all_dims, keepdim=True))


class Std(Var):
    """sqrt(var); its gradient is 0 where the std is 0, as torch's std_backward."""

    name_ = "StdBackward0"
    chain_rule = ("∂std(self)/∂self = (self − mean)/((N − correction)·result): to self {grad} times "
                  "that")
    saves_result = True

    root = True

    def backward(self, grad):
        a, result = self.saved_tensors
        return (self.var_grad(a, where(result == 0, 0.0, grad / (result * 2))),)


def _var_args(input, dim, unbiased, keepdim, correction):
    """torch's overloads: var(x, unbiased), var(x, dim, unbiased, keepdim), var(x, dim, *,
    correction, keepdim)."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    if correction is not None and unbiased is not None:
        raise RuntimeError("Cannot specify both unbiased and correction")
    if correction is None:
        correction = 0 if unbiased is False else 1
    dims = None if dim is None else dims_tuple(dim, input.ndim)
    if dims == ():
        dims = None
    return dims, correction, keepdim


@export()
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return apply(Var, (input,), *_var_args(input, dim, unbiased, keepdim, correction))


@export()
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return apply(Std, (input,), *_var_args(input, dim, unbiased, keepdim, correction))


class Logsumexp(Function):
    """log(sum(exp(x))) over dims, computed as m + log(sum(exp(x - m))) with m the max (0
    where the max is infinite), so large inputs do not overflow."""

    name_ = "LogsumexpBackward0"
    chain_rule = ("∂logsumexp(self)/∂self = exp(self − result) = softmax(self) along dim: to self "
                  "{grad} times that")
    saves_result = True

    def forward(self, a, dims, keepdim):
        x = float_data(a)
        self.dims, self.keepdim = dims, keepdim
        self.save(a)
        shape = B.shape(x)
        if any(shape[d] == 0 for d in dims):  # nothing to add: log(0) = -inf, as torch
            m = B.zeros(tuple(1 if i in dims else s for i, s in enumerate(shape)),
                        B.dtype_name(x))
        else:
            m = B.amax(x, dims, True)
        inf = _k(float("inf"), m)
        m = B.where(B.eq(B.abs(m), inf), _k(0, m), m)
        out = B.add(B.log(B.sum(B.exp(B.sub(x, m)), dims, True)), m)
        if not keepdim:
            out = B.reshape(out, tuple(s for i, s in enumerate(B.shape(x)) if i not in dims))
        return out

    def backward(self, grad):
        a, result = self.saved_tensors
        g = _keep(grad, self.dims, a.dim(), self.keepdim)
        r = _keep(result, self.dims, a.dim(), self.keepdim)
        return (g * (a - r).exp(),)


@export()
def logsumexp(input, dim, keepdim=False):
    dims = dims_tuple(dim, input.ndim)
    if input.ndim == 0:
        dims = ()
    elif dims == ():
        # torch 2.13 reduces over every dim for dim=() (an empty list means all), and without
        # keepdim its out= path then refuses the [1, ...] result it made, unless the input is
        # empty
        dims = tuple(range(input.ndim))
        if not keepdim and input.numel():
            raise RuntimeError("output with shape [] doesn't match the broadcast shape "
                               f"[{', '.join(['1'] * input.ndim)}]")
    if not input.dtype.is_floating_point:
        input = input.to(float32)  # torch reduces integers in the default float dtype
    return apply(Logsumexp, (input,), dims, keepdim)

