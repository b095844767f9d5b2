"""Reductions that skip NaN: nansum, nanmean (torch's composite: nansum / the count of non-NaN
elements, so its grad_fn is DivBackward0 over NansumBackward0) and nanmedian (the median of the
non-NaN values; NaN when there are none)."""

from __future__ import annotations

import math

from .. import backend as B
from ..autograd.function import Function, apply
from . import formulas
from .helpers import dims_tuple, wrap_dim
from .reduction import _check_nonempty, _restore, _sum_dtype, evenly_distribute
from .registry import export
from .sorting import _isnan, _no_bool, _return_type, _select, _Selecting

return_types_nanmedian = _return_type("nanmedian")

_TYPE = {"int64": "Long", "bool": "Bool", "float32": "Float", "float64": "Double"}


class Nansum(Function):
    """The sum with NaN counted as 0 (in sum's order: torch's nansum is its cascade sum)."""

    name_ = "NansumBackward0"
    chain_rule = "∂nansum(self)/∂self = 1 where self is not NaN, else 0: to self {grad} times that"

    def forward(self, a, dims, keepdim):
        self.shape, self.dims, self.keepdim = B.shape(a._data), dims, keepdim
        self.save(a)
        x = _sum_dtype(a)
        if a._dtype.is_floating_point:
            x = B.where(B.isnan(x), B.scalar(0, B.dtype_name(x)), x)
        return B.sum(x, dims, keepdim)

    def backward(self, grad):
        (a,) = self.saved_tensors
        g = _restore(grad, self.dims, len(self.shape), self.keepdim)
        return (formulas.expand(g, self.shape) * a.isnan().logical_not(),)


def _dims(input, dim):
    if dim is None:
        return None
    dims = dims_tuple(dim, input.ndim)
    return None if dims == () else dims


@export()
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    if dtype is not None:
        input = input.to(dtype)
    return apply(Nansum, (input,), _dims(input, dim), keepdim)


@export()
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    if not (dtype or input.dtype).is_floating_point:
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype "
                           f"but got {_TYPE[input.dtype.name]}")
    count = input.isnan().logical_not().sum(dim if dim is not None else (), keepdim)
    return nansum(input, dim, keepdim, dtype=dtype).div(count)


class Nanmedian(Function):
    """nanmedian() of everything: the lower middle of the sorted non-NaN values."""

    name_ = "NanmedianBackward0"
    chain_rule = ("nanmedian() passes the gradient to the elements equal to the result (split "
                  "evenly between them), 0 elsewhere")
    saves_result = True

    def forward(self, a):
        self.save(a)
        values = [v for v in B.tolist(B.reshape(a._data, (-1,))) if not _isnan(v)]
        if not values:
            return B.astype(B.scalar(math.nan, "float64"), a._dtype.name)
        return B.scalar(sorted(values)[(len(values) - 1) // 2], a._dtype.name)

    def backward(self, grad):
        a, result = self.saved_tensors
        return (evenly_distribute(grad, a, result),)


class NanmedianDim(_Selecting):
    name_ = "NanmedianBackward1"
    chain_rule = "nanmedian(dim) picks one element per row: {grad} goes to it, 0 to the others"


def _nanmedian_index(row):
    """The middle of the non-NaN values ordered by (value, index); the first element when all
    are NaN."""
    order = sorted((i for i, v in enumerate(row) if not _isnan(v)), key=lambda i: (row[i], i))
    if not order:
        return [0]
    return [order[(len(order) - 1) // 2]]


@export()
def nanmedian(input, dim=None, keepdim=False):
    if dim is None:
        _no_bool(input, "nanmedian_cpu")
        return apply(Nanmedian, (input,))
    d = wrap_dim(dim, input.ndim)
    _check_nonempty("median", input, d, (d,))
    _no_bool(input, "median_out")
    return _select(NanmedianDim, return_types_nanmedian, input, _nanmedian_index, d, keepdim, 1)
