"""Sorting and selection: sort, argsort, msort, topk, median, kthvalue and mode.

Each returns values picked from the input (and their indices), so one Function serves them all:
forward gathers the input at the indices, backward puts each gradient back at its index (torch's
value_selecting_reduction_backward); only the grad_fn name differs. The indices are computed
here on Python lists, exactly as torch's CPU kernels order ties (see cpu_order.py): the gradient
goes to the index torch picks. median() of a whole tensor returns a value only and, like max(),
shares its gradient between every element equal to it."""

from __future__ import annotations

import math
from collections import namedtuple

from .. import backend as B
from ..autograd.function import Function, apply
from ..tensor import Tensor
from . import cpu_order
from .helpers import wrap_dim
from .reduction import _check_nonempty, _scatter_along, _take_along, evenly_distribute
from .registry import export


def _return_type(name):
    """A torch.return_types namedtuple: (values, indices), printed as torch prints it."""
    cls = namedtuple(name, ["values", "indices"])
    cls.__module__ = "torch.return_types"
    cls.__repr__ = lambda self: (f"torch.return_types.{name}(\nvalues={self.values!r},\n"
                                 f"indices={self.indices!r})")
    return cls


return_types_sort = _return_type("sort")
return_types_topk = _return_type("topk")
return_types_median = _return_type("median")
return_types_kthvalue = _return_type("kthvalue")
return_types_mode = _return_type("mode")


def _isnan(v) -> bool:
    return v != v


# comparisons of (value, index) pairs, on the value only, as torch's kernels: NaN is largest
def _ascending(x, y):
    return (not _isnan(x[0]) and _isnan(y[0])) or x[0] < y[0]


def _descending(x, y):
    return (_isnan(x[0]) and not _isnan(y[0])) or x[0] > y[0]


# -- rows: the input as Python lists along one dim, and indices back as an array -----------------

def _rows(data, dim):
    """The values along dim, one list per position of the other dims (C order), and the
    permutation that moved dim last. A 0-dim array is one row of one value."""
    if B.ndim(data) == 0:
        return [[B.item(data)]], None
    nd = B.ndim(data)
    order = tuple(d for d in range(nd) if d != dim) + (dim,)
    moved = B.permute(data, order)
    shape = B.shape(moved)
    n = shape[-1]
    flat = B.tolist(B.reshape(B.copy(moved), (-1,)))
    count = 1
    for s in shape[:-1]:
        count *= s
    return [flat[i * n:(i + 1) * n] for i in range(count)], (order, shape)


def _index_array(rows, layout, width):
    """Rows of indices (each `width` long) as an int64 array in the input's dim order."""
    if layout is None:
        return B.scalar(rows[0][0], "int64")
    order, shape = layout
    flat = [i for row in rows for i in row]
    arr = B.reshape(B.array(flat, "int64"), shape[:-1] + (width,))
    back = [0] * len(order)
    for i, d in enumerate(order):
        back[d] = i
    return B.copy(B.permute(arr, tuple(back)))


# -- the op --------------------------------------------------------------------------------------

class _Selecting(Function):
    """self at `idx` along dim (idx has the keepdim shape); backward scatters the gradient
    back to those positions, zeros elsewhere."""

    def forward(self, a, idx, dim, keepdim):
        shape = B.shape(a._data)
        self.shape, self.indices, self.dim, self.keepdim = shape, idx, dim, keepdim
        if not shape:
            return B.copy(a._data)
        values = _take_along(a._data, idx, dim)
        if not keepdim:
            values = B.reshape(values, shape[:dim] + shape[dim + 1:])
        return values

    def backward(self, grad):
        if not self.shape:
            return (grad,)
        g = grad if self.keepdim else grad.unsqueeze(self.dim)
        return (_scatter_along(g, self.indices, self.dim, self.shape),)


class Sort(_Selecting):
    name_ = "SortBackward0"
    chain_rule = "sort moves elements: each {grad} goes back to where its element came from"


class SortStable(Sort):
    name_ = "SortBackward1"


class Topk(_Selecting):
    name_ = "TopkBackward0"
    chain_rule = "topk picks k elements: each {grad} goes back to its element, 0 to the others"


class MedianDim(_Selecting):
    name_ = "MedianBackward1"
    chain_rule = "median(dim) picks one element per row: {grad} goes to it, 0 to the others"


class Kthvalue(_Selecting):
    name_ = "KthvalueBackward0"
    chain_rule = "kthvalue picks one element per row: {grad} goes to it, 0 to the others"


class Mode(_Selecting):
    name_ = "ModeBackward0"
    chain_rule = "mode picks one element per row: {grad} goes to it, 0 to the others"


class Median(Function):
    """median() of everything: the lower of the two middle values (NaN if any is NaN)."""

    name_ = "MedianBackward0"
    chain_rule = ("median() passes the gradient to the elements equal to the median (split evenly "
                  "between them), 0 elsewhere")
    saves_result = True

    def forward(self, a):
        self.save(a)
        values = B.tolist(B.reshape(a._data, (-1,)))
        if not values or any(_isnan(v) for v in values):
            # nan in the tensor's dtype (an empty int tensor's median is int64's minimum)
            return B.astype(B.scalar(math.nan, "float64"), a._dtype.name)
        if a._dtype.name == "bool":
            raise NotImplementedError('"median_cpu" not implemented for \'Bool\'')
        return B.scalar(sorted(values)[(len(values) - 1) // 2], a._dtype.name)

    def backward(self, grad):
        a, result = self.saved_tensors
        return (evenly_distribute(grad, a, result),)


def _select(cls, result_type, input, rows_fn, dim, keepdim, width):
    rows, layout = _rows(input._data, dim)
    idx = _index_array([rows_fn(row) for row in rows], layout, width)
    values = apply(cls, (input,), idx, dim, keepdim)
    if not keepdim and layout is not None:
        shape = B.shape(input._data)
        idx = B.reshape(idx, shape[:dim] + shape[dim + 1:])
    elif layout is None:
        idx = B.reshape(idx, ())
    return result_type(values, Tensor._make(idx))


# -- the orderings, row by row -------------------------------------------------------------------

def _stable_order(row, descending):
    return sorted(range(len(row)), key=lambda i: (_isnan(row[i]), row[i]), reverse=descending)


def _std_sort_order(row, descending):
    pairs = [(v, i) for i, v in enumerate(row)]
    cpu_order.sort(pairs, 0, len(pairs), _descending if descending else _ascending)
    return [i for _, i in pairs]


def _topk_order(row, k, largest, sorted_):
    """torch's topk: partial_sort when k is small next to the row, else nth_element and a sort
    of the first k - 1."""
    n = len(row)
    if k == 0:
        return []
    pairs = [(v, i) for i, v in enumerate(row)]
    less = _descending if largest else _ascending
    if k * 64 <= n:
        cpu_order.partial_sort(pairs, 0, k, n, less)
    else:
        cpu_order.nth_element(pairs, 0, k - 1, n, less)
        if sorted_:
            cpu_order.sort(pairs, 0, k - 1, less)
    return [i for _, i in pairs[:k]]


def _median_index(row):
    """The first NaN, else the middle of the values ordered by (value, index)."""
    for i, v in enumerate(row):
        if _isnan(v):
            return [i]
    order = sorted(range(len(row)), key=lambda i: (row[i], i))
    return [order[(len(row) - 1) // 2]]


def _kth_index(row, k):
    pairs = [(v, i) for i, v in enumerate(row)]
    cpu_order.quick_select(pairs, k - 1, _descending)
    return [pairs[k - 1][1]]


def _mode_index(row):
    """The most frequent value (the smallest of equally frequent ones); its index is the last
    of its run after torch's std::sort of (value, index) pairs by value."""
    pairs = [(v, i) for i, v in enumerate(row)]
    try:
        cpu_order.sort(pairs, 0, len(pairs), lambda x, y: x[0] < y[0])
    except IndexError:  # NaN breaks std::sort's ordering (undefined in C++); keep it defined
        pairs.sort(key=lambda p: (_isnan(p[0]), p[0]))
    best, run, most = 0, 0, 0
    for j in range(len(pairs)):
        run += 1
        if j == len(pairs) - 1 or pairs[j][0] != pairs[j + 1][0]:
            if run > most:
                best, most = pairs[j][1], run
            run = 0
    return [best]


# -- public functions ----------------------------------------------------------------------------

def _no_bool(input, kernel) -> None:
    if input.dtype.name == "bool":
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


@export(palette={"code": "{0}.sort().values", "arity": 1, "group": "reduction",
                 "label": "sort(a)"})
def sort(input, dim=-1, descending=False, *, stable=None):
    d = wrap_dim(dim, input.ndim)
    if stable:
        order = lambda row: _stable_order(row, descending)  # noqa: E731
    else:
        order = lambda row: _std_sort_order(row, descending)  # noqa: E731
    width = input.shape[d] if input.ndim else 1
    cls = Sort if stable is None else SortStable
    return _select(cls, return_types_sort, input, order, d, True, width)


@export()
def argsort(input, dim=-1, descending=False, *, stable=False):
    return sort(input, dim, descending, stable=stable).indices


@export()
def msort(input):
    return sort(input, 0).values


@export()
def topk(input, k, dim=-1, largest=True, sorted=True):  # noqa: A002 - torch's name
    d = wrap_dim(dim, input.ndim)
    n = input.shape[d] if input.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    if input.dtype.name == "bool":
        raise RuntimeError("topk does not support bool dtypes on CPU")
    if input.ndim == 0:
        k = 1  # torch returns the one element even for k=0
    return _select(Topk, return_types_topk, input,
                   lambda row: _topk_order(row, k, largest, sorted), d, True, k)


@export()
def median(input, dim=None, keepdim=False):
    if dim is None:
        return apply(Median, (input,))
    d = wrap_dim(dim, input.ndim)
    _check_nonempty("median", input, d, (d,))
    _no_bool(input, "median_out")
    return _select(MedianDim, return_types_median, input, _median_index, d, keepdim, 1)


@export()
def kthvalue(input, k, dim=-1, keepdim=False):
    d = wrap_dim(dim, input.ndim)
    _check_nonempty("kthvalue", input, d, (d,))
    n = input.shape[d] if input.ndim else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    _no_bool(input, "kthvalue_cpu")
    return _select(Kthvalue, return_types_kthvalue, input, lambda row: _kth_index(row, k), d,
                   keepdim, 1)


@export()
def mode(input, dim=-1, keepdim=False):
    d = wrap_dim(dim, input.ndim)
    _check_nonempty("mode", input, d, (d,))
    return _select(Mode, return_types_mode, input, _mode_index, d, keepdim, 1)
