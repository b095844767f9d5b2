"""Reductions that summarise spread: var and std (with torch's `correction` / `unbiased`), and
logsumexp. Backward formulas are torch's (derivatives.yaml), written with Tensor operations."""

from __future__ import annotations

import warnings

from .. import backend as B
from ..autograd.function import Function, apply, apply_multi
from ..autograd.graph import save
from ..dtypes import float32
from ..tensor import Tensor
from . import spread
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
    public = "var"
    chain_rule = "∂var(self)/∂self = 2·(self − mean)/(N − correction): to self {grad} times that"

    def forward(self, a, dims, correction, keepdim):
        if not a._dtype.is_floating_point:
            raise RuntimeError("std and var only support floating point and complex dtypes")
        x = a._data
        self.dims, self.correction, self.keepdim = dims, correction, keepdim
        self.save(a)
        shape = B.shape(x)
        all_dims = tuple(range(len(shape))) if dims is None else dims
        n = _count(shape, dims)
        self.dof = n - correction
        if self.dof <= 0:
            warnings.warn(f"{self.public}(): degrees of freedom is <= 0. Correction should be "
                          "strictly less than the reduction factor (input numel divided by "
                          "output numel).", UserWarning, stacklevel=4)
        if not B.numel(x):  # torch fills an empty reduction's result with NaN
            out_shape = tuple(1 if d in all_dims else s for d, s in enumerate(shape)) \
                if keepdim else tuple(s for d, s in enumerate(shape) if d not in all_dims)
            return B.full(out_shape, float("nan"), B.dtype_name(x))
        return spread.var(x, all_dims, correction, keepdim, self.root)

    def backward(self, grad):
        return (self.var_grad(self.saved_tensors[0], grad),)

    def var_grad(self, a, grad):
        all_dims = tuple(range(a.dim())) if self.dims is None else self.dims
        g = _keep(grad, self.dims, a.dim(), self.keepdim)
        # torch's var_backward, in its order: (2 / (N - correction)) * grad * (x - mean); along
        # dims the divisor may be 0 (inf) or negative
        if self.dims is None or a.dim() == 0:
            mean = a.mean()
            if self.dof <= 0:  # over every dim, torch gives inf times grad (NaN at the mean)
                return g * where(a == mean, float("nan"), float("inf"))
            return (g * (2.0 / self.dof)) * (a - mean)
        factor = 2.0 / self.dof if self.dof else float("inf")
        return (g * factor) * (a - a.mean(all_dims, keepdim=True))


class Std(Var):
    """sqrt(var); its gradient is 0 where the std is 0, as torch's std_backward."""

    name_ = "StdBackward0"
    chain_rule = ("∂std(self)/∂self = (self − mean)/((N − correction)·result): to self {grad} times "
                  "that")
    saves_result = True
    public = "std"

    root = True

    def backward(self, grad):
        a, result = self.saved_tensors
        return (self.var_grad(a, where(result == 0, 0.0, grad / (result * 2))),)


class VarMean(Var):
    """(var, mean) over dims from one Welford pass: one node with two outputs, whose gradient
    is var's for the first and mean's (grad / N, spread back) for the second, added."""

    name_ = "VarMeanBackward0"
    public = "var_mean"
    chain_rule = ("var_mean: to self 2·(self − mean)/(N − correction) times the var's {grad}, plus "
                  "the mean's gradient / N")

    def forward(self, a, dims, correction, keepdim):
        if not a._dtype.is_floating_point:
            raise RuntimeError(f"{self.public} only support floating point and complex dtypes")
        x = a._data
        self.dims, self.correction, self.keepdim = dims, correction, keepdim
        self.save(a)
        shape = B.shape(x)
        all_dims = tuple(range(len(shape))) if dims is None else dims
        self.count = _count(shape, dims)
        self.dof = self.count - correction
        if self.dof <= 0:
            warnings.warn(f"{self.public}(): degrees of freedom is <= 0. Correction should be "
                          "strictly less than the reduction factor (input numel divided by "
                          "output numel).", UserWarning, stacklevel=4)
        if not B.numel(x):
            out_shape = tuple(1 if d in all_dims else s for d, s in enumerate(shape)) \
                if keepdim else tuple(s for d, s in enumerate(shape) if d not in all_dims)
            nan = B.full(out_shape, float("nan"), B.dtype_name(x))
            return [nan, B.copy(nan)]
        out, mean = spread.var_mean(x, all_dims, correction, keepdim, self.root)
        self.results = (out,)
        return [out, mean]

    def backward(self, grads):
        a = self.saved_tensors[0]
        g_var, g_mean = grads
        out = None
        if g_var is not None:
            out = self.var_grad(a, self.first_grad(g_var))
        if g_mean is not None:
            g = _keep(g_mean, self.dims, a.dim(), self.keepdim)
            term = g.expand(a.shape) / self.count if a.dim() else g / self.count
            out = term if out is None else out + term
        return (out,)

    def first_grad(self, g):
        return g

    def joined_grad(self, grads):
        """The outputs' gradients as one tensor, for the observer: stacked (zeros where none)."""
        shape = B.shape(self.results[0])
        parts = [B.zeros(shape, B.dtype_name(self.results[0])) if g is None else g._data
                 for g in grads]
        return Tensor._make(B.stack(parts, 0))


class StdMean(VarMean):
    name_ = "StdMeanBackward0"
    public = "std_mean"
    chain_rule = ("std_mean: to self (self − mean)/((N − correction)·std) times the std's {grad}, "
                  "plus the mean's gradient / N")
    root = True

    def first_grad(self, g):
        # torch's std_backward: grad / (2 std), 0 where the std is 0; the std is the node's
        # saved output (so a second derivative sees it depend on self)
        std = self.saved_tensors[1]
        return where(std == 0, 0.0, g / (std * 2))


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



@export()
def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return apply_multi(VarMean, (input,), *_var_args(input, dim, unbiased, keepdim, correction))


@export()
def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    outs = apply_multi(StdMean, (input,), *_var_args(input, dim, unbiased, keepdim, correction))
    node = outs[0]._grad_fn
    if node is not None:  # the std saved as an output of the node, for its backward
        node._saved = node._saved + (save(outs[0], StdMean.name_),)
    return outs
