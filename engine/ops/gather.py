"""Indexing by index tensors along one dim, and by masks: gather, scatter (scatter_), scatter_add
(scatter_add_), index_select, masked_select. The backward formulas are torch's: the
gradient of a gather is a scatter_add of it, of an index_select an index_add, of a
masked_select a masked_scatter; those three are Functions here too, so that create_graph=True
differentiates them again."""

from __future__ import annotations

from .. import backend as B
from .. import batched_reads
from ..autograd.function import Function, apply
from ..batched_reads import warn_unbatched
from ..dtypes import int64
from ..tensor import Tensor
from .formulas import sum_to
from .helpers import check_broadcast, wrap_dim
from .inplace import run_inplace
from .registry import export
from .shape import cat


def _shape_list(shape) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


def _zeros(shape, dtype) -> Tensor:
    return Tensor._make(B.zeros(shape, dtype.name), dtype)


def _grid(shape, dim: int, index):
    """The backend index that picks, for every position of `shape`, the element at the same
    position except along `dim`, where it takes the value of `index` (an int64 array of
    `shape`): what gather reads and scatter writes."""
    nd = len(shape)
    parts = []
    for k, n in enumerate(shape):
        if k == dim:
            parts.append(index)
        else:
            parts.append(B.reshape(B.arange(0, n, 1, "int64"),
                                   tuple(n if j == k else 1 for j in range(nd))))
    return tuple(parts)


def _first_out_of_range(index, size: int):
    """The first value of `index` (in row-major order) outside [0, size), or None."""
    if not B.numel(index):
        return None
    lo, hi = B.item(B.amin(index, None, False)), B.item(B.amax(index, None, False))
    if 0 <= lo and hi < size:
        return None
    flat = B.tolist(B.reshape(B.contiguous(index), (B.numel(index),)))
    return next(v for v in flat if not 0 <= v < size)


def _index_dtype(index, fn: str, what="int32/int64") -> None:
    if not isinstance(index, Tensor):
        raise TypeError(f"{fn}(): argument 'index' (position 3) must be Tensor, not "
                        f"{type(index).__name__}")
    if index._dtype is not int64:
        raise RuntimeError(f"{fn}(): Expected dtype {what} for index")


# -- gather, scatter, scatter_add ----------------------------------------------------------------

def _as_1d(shape) -> tuple:
    """A 0-dim tensor's shape as gather and scatter see it: one element."""
    return shape if shape else (1,)


class Gather(Function):
    name_ = "GatherBackward0"
    chain_rule = ("gather picked self's elements at index along dim: to self zeros with {grad} added "
                  "at those places (repeats add up)")

    def forward(self, a, dim, index):
        self.in_shape, self.dim = B.shape(a._data), dim
        self.save(a, index)  # torch saves both: changing either in place is caught
        ix = index._data
        ishape = B.shape(ix)
        x = B.reshape(a._data, _as_1d(self.in_shape))
        out = B.getitem(x, _grid(_as_1d(ishape), dim, B.reshape(ix, _as_1d(ishape))))
        return B.reshape(out, ishape)

    def backward(self, grad):
        _, index = self.saved_tensors
        zeros = _zeros(self.in_shape, grad._dtype)
        return (apply(ScatterAdd, (zeros, grad), self.dim, index),)


class ScatterAdd(Function):
    """self with src's elements added at index along dim, in index order (so float32 sums
    round as torch's do)."""

    name_ = "ScatterAddBackward0"
    chain_rule = ("scatter_add added src into self at index along dim: to self {grad} unchanged; to src "
                  "{grad} picked at index")

    def forward(self, a, src, dim, index):
        self.dim = dim
        if self.needs(1):  # only src's gradient reads the index (torch saves it only then)
            self.save(index)
        index = index._data
        x = a._data
        shape, ishape = _as_1d(B.shape(x)), _as_1d(B.shape(index))
        if not B.numel(index):
            return B.copy(x)
        part = B.reshape(_src_part(src._data, B.shape(index)), ishape)
        # self's own elements first, then src's, all added into zeros in that order: each
        # element of the result is self's value plus its contributions, left to right
        at = tuple(B.concat([own, hit], 0) for own, hit in
                   zip(_coords(shape, dim), _coords(ishape, dim, B.reshape(index, ishape))))
        values = B.concat([_flat(x), _flat(part)], 0)
        return B.reshape(B.index_add(shape, at, values, a._dtype.name), B.shape(x))

    def backward(self, grad):
        g_src = None
        if self.needs(1):
            (index,) = self.saved_tensors
            g_src = apply(Gather, (grad,), self.dim, index)
        return (grad if self.needs(0) else None, g_src)


def _flat(x):
    return B.reshape(B.contiguous(x), (B.numel(x),))


def _coords(shape, dim: int, index=None) -> list:
    """Every position's coordinates, one flat int64 array per dim in row-major order; along
    dim, the values of `index` (of `shape`) instead when it is given."""
    out = []
    for k, n in enumerate(shape):
        if k == dim and index is not None:
            out.append(_flat(index))
            continue
        line = B.reshape(B.arange(0, n, 1, "int64"),
                         tuple(n if j == k else 1 for j in range(len(shape))))
        out.append(_flat(B.copy(B.expand(line, shape))))
    return out


def _src_part(src, ishape):
    """The leading block of src that has index's shape (src may be larger)."""
    if B.shape(src) == ishape:
        return src
    if not ishape:
        return B.reshape(src, ())
    return B.getitem(src, tuple(slice(0, n) for n in ishape))


class Scatter(Function):
    name_ = "ScatterBackward0"
    chain_rule = ("scatter wrote src into self at index along dim: to self {grad} with zeros where src "
                  "was written; to src {grad} picked at index")

    def forward(self, a, src, dim, index):
        self.dim = dim
        self.save(index)
        index = index._data
        out = B.copy(a._data)
        shape, ishape = B.shape(out), B.shape(index)
        if B.numel(index):
            target = B.reshape(out, _as_1d(shape))
            B.setitem(target, _grid(_as_1d(ishape), dim, B.reshape(index, _as_1d(ishape))),
                      B.reshape(B.astype(_src_part(src._data, ishape), B.dtype_name(out)),
                                _as_1d(ishape)))
        return out

    def backward(self, grad):
        (index,) = self.saved_tensors
        g_self = apply(ScatterValue, (grad,), self.dim, index, 0) if self.needs(0) else None
        g_src = apply(Gather, (grad,), self.dim, index) if self.needs(1) else None
        return g_self, g_src


class ScatterValue(Function):
    name_ = "ScatterBackward1"
    chain_rule = "scatter wrote a number into self at index along dim: to self {grad} with zeros there"

    def forward(self, a, dim, index, value):
        self.dim = dim
        self.save(index)
        index = index._data
        out = B.copy(a._data)
        shape, ishape = B.shape(out), B.shape(index)
        if B.numel(index):
            target = B.reshape(out, _as_1d(shape))
            B.setitem(target, _grid(_as_1d(ishape), dim, B.reshape(index, _as_1d(ishape))),
                      B.scalar(value, B.dtype_name(out)))
        return out

    def backward(self, grad):
        (index,) = self.saved_tensors
        return (apply(ScatterValue, (grad,), self.dim, index, 0),)


def _check_index(input, dim: int, index, others=(), fn="gather") -> None:
    """torch's shape and bounds checks of gather's and scatter's index: as many dims as self
    (and src), no larger than self apart from dim (and no larger than src), values in range."""
    nd, ind = input.ndim, index.ndim
    if max(ind, 1) != max(nd, 1):
        what = "input" if fn == "gather" else "self"
        raise RuntimeError(f"Index tensor must have the same number of dimensions as {what} "
                           "tensor")
    for src in others:
        if max(src.ndim, 1) != max(ind, 1):
            raise RuntimeError("Index tensor must have the same number of dimensions as src "
                               "tensor")
    shape, ishape = _as_1d(tuple(input.shape)), _as_1d(tuple(index.shape))
    if B.numel(index._data):
        bad = any(ishape[d] > shape[d] for d in range(len(shape)) if d != dim)
        src_bad = any(any(i > s for i, s in zip(ishape, _as_1d(tuple(src.shape))))
                      for src in others)
        if fn == "gather" and bad:
            d = next(d for d in range(len(shape)) if d != dim and ishape[d] > shape[d])
            raise RuntimeError(
                f"Size does not match at dimension {d} expected index "
                f"{_shape_list(index.shape)} to be no larger than self "
                f"{_shape_list(input.shape)} apart from dimension {dim}")
        if fn != "gather" and (bad or src_bad):
            msg = (f"Expected index {_shape_list(index.shape)} to be no larger than self "
                   f"{_shape_list(input.shape)} apart from dimension {dim}")
            if others:
                msg += (" and to be no larger size than src "
                        f"{_shape_list(others[0].shape)}")
            raise RuntimeError(msg)
    bad_value = _first_out_of_range(index._data, shape[dim])
    if bad_value is not None:
        raise RuntimeError(f"index {bad_value} is out of bounds for dimension {dim} with size "
                           f"{shape[dim]}")


@export()
def gather(input, dim, index, *, sparse_grad=False):
    if sparse_grad:
        raise NotImplementedError("gradplay has no sparse gradients (sparse_grad=True)")
    dim = wrap_dim(dim, input.ndim)
    _index_dtype(index, "gather")
    _check_index(input, dim, index)
    return apply(Gather, (input,), dim, index)


def _scatter_args(input, dim, index, src, value, reduce, fn: str):
    if reduce is not None:
        if reduce not in ("add", "multiply"):
            raise RuntimeError("reduce argument must be either add or multiply.")
        raise NotImplementedError(f"gradplay's {fn} does not take reduce= (torch gives it no "
                                  "gradient)")
    if src is not None and value is not None:
        raise TypeError(f"{fn}() got both src and value")
    dim = wrap_dim(dim, input.ndim)
    _index_dtype(index, "scatter")
    if isinstance(src, Tensor):
        if src._dtype is not input._dtype:
            raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
        _check_index(input, dim, index, (src,), fn="scatter")
        return Scatter, (src,), (dim, index)
    number = value if src is None else src
    if number is None:
        raise TypeError(f"{fn}() missing 1 required positional argument: \"src\"")
    _check_index(input, dim, index, fn="scatter")
    return ScatterValue, (), (dim, index, number)


@export()
def scatter(input, dim, index, src=None, *, value=None, reduce=None):
    cls, others, args = _scatter_args(input, dim, index, src, value, reduce, "scatter")
    return apply(cls, (input, *others), *args)


@export(function=False)
def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
    cls, others, args = _scatter_args(self, dim, index, src, value, reduce, "scatter_")
    return run_inplace(self, cls, others, args, "scatter_")


def _scatter_add_args(input, dim, index, src, fn: str):
    if not isinstance(src, Tensor):
        raise TypeError(f"{fn}(): argument 'src' (position 3) must be Tensor, not "
                        f"{type(src).__name__}")
    dim = wrap_dim(dim, input.ndim)
    _index_dtype(index, "scatter")
    if src._dtype is not input._dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    _check_index(input, dim, index, (src,), fn="scatter")
    return dim, index


@export()
def scatter_add(input, dim, index, src):
    dim, idx = _scatter_add_args(input, dim, index, src, "scatter_add")
    return apply(ScatterAdd, (input, src), dim, idx)


@export(function=False)
def scatter_add_(self, dim, index, src):
    dim, idx = _scatter_add_args(self, dim, index, src, "scatter_add_")
    return run_inplace(self, ScatterAdd, (src,), (dim, idx), "scatter_add_")


# -- index_select --------------------------------------------------------------------------------

def _along(dim: int, index) -> tuple:
    """The backend index of index_select's 0-dim or 1-D index tensor along dim."""
    return (slice(None),) * dim + (B.reshape(index._data, (B.numel(index._data),)),)


class IndexSelect(Function):
    name_ = "IndexSelectBackward0"
    chain_rule = ("index_select picked slices of self along dim: to self zeros with {grad} added at "
                  "those slices (repeats add up)")

    def forward(self, a, dim, index):
        x = a._data
        self.in_shape, self.dim = B.shape(x), dim
        self.save(index)
        if not self.in_shape:
            return B.copy(x)
        return B.getitem(x, _along(dim, index))

    def backward(self, grad):
        (index,) = self.saved_tensors
        zeros = _zeros(self.in_shape, grad._dtype)
        return (apply(IndexAdd, (zeros, grad), self.dim, index),)


class IndexAdd(Function):
    """self with source's slices added at index along dim (index_select's backward)."""

    name_ = "IndexAddBackward0"
    chain_rule = ("index_add added source's slices into self along dim: to self {grad} unchanged; to "
                  "source {grad} picked at those slices")

    def forward(self, a, source, dim, index):
        self.dim = dim
        if self.needs(1):  # only source's gradient reads the index (torch saves it only then)
            self.save(index)
        x = a._data
        shape = B.shape(x)
        if not shape:
            return B.add(x, B.reshape(source._data, ()))
        added = B.index_add(shape, _along(dim, index), source._data, a._dtype.name)
        return B.add(x, added)

    def backward(self, grad):
        g_src = None
        if self.needs(1):
            (index,) = self.saved_tensors
            g_src = apply(IndexSelect, (grad,), self.dim, index)
        return (grad if self.needs(0) else None, g_src)


@export()
def index_select(input, dim, index):
    if not isinstance(index, Tensor):
        raise TypeError("index_select(): argument 'index' (position 2) must be Tensor, not "
                        f"{type(index).__name__}")
    dim = wrap_dim(dim, input.ndim)
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if index._dtype is not int64:
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    size = input.shape[dim] if input.ndim else 1
    if input.ndim == 0 and index.numel() != 1:
        raise RuntimeError("index_select(): Index to scalar can have only 1 value, got "
                           f"{index.numel()} value(s)")
    bad = _first_out_of_range(index._data, size)
    if bad is not None:
        if input.ndim >= 2 and dim == 1:  # torch checks along dim 1 in another kernel
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} "
                               f"axis_dim={size}")
        raise IndexError("index out of range in self")
    return apply(IndexSelect, (input,), dim, index)


# -- masked_select -------------------------------------------------------------------------------

class MaskedSelect(Function):
    """The elements of self (broadcast with mask) where mask is True, as a 1-D tensor."""

    name_ = "MaskedSelectBackward0"
    chain_rule = ("masked_select picked self's elements where mask is True: to self zeros with {grad} "
                  "put back at those places")

    def forward(self, a, mask):
        x, m = a._data, mask._data
        shape = tuple(B.broadcast_shapes(B.shape(x), B.shape(m)))
        self.in_shape = B.shape(x)
        self.save(a, mask)  # torch saves both: changing either in place is caught
        if not shape:  # a 0-dim mask selects like a one-element one (arrays may refuse it)
            shape = (1,)
        return B.getitem(B.expand(x, shape), B.expand(m, shape))

    def backward(self, grad):
        a, mask = self.saved_tensors
        # under vmap(grad(...)) torch's gradient holds the samples, and masked_scatter has no
        # batching rule: torch runs it sample by sample and warns
        warn_unbatched("aten::masked_scatter", a)
        shape = tuple(B.broadcast_shapes(self.in_shape, B.shape(mask._data)))
        zeros = _zeros(shape, grad._dtype)
        return (sum_to(apply(MaskedScatter, (zeros, grad), mask), self.in_shape),)


class MaskedScatter(Function):
    """self with source's leading elements written, in order, where mask is True
    (masked_select's backward)."""

    name_ = "MaskedScatterBackward0"
    chain_rule = ("masked_scatter wrote source's elements where mask is True: to self {grad} with zeros "
                  "there; to source {grad} at those places, in order")

    def forward(self, a, source, mask):
        self.source_shape = B.shape(source._data)
        self.save(mask)
        out = B.copy(a._data)
        if not B.shape(out):  # as masked_select: a 0-dim mask as a one-element one
            return B.reshape(self.forward(Tensor._make(B.reshape(out, (1,)), a._dtype), source,
                                          mask), ())
        m = B.expand(mask._data, B.shape(out))
        count = int(B.item(B.sum(B.astype(m, "int64"), None, False)))
        flat = B.reshape(B.contiguous(source._data), (B.numel(source._data),))
        B.setitem(out, m, B.getitem(flat, slice(0, count)))
        return out

    def backward(self, grad):
        (mask,) = self.saved_tensors
        g_self = g_src = None
        if self.needs(0):
            g_self = grad.masked_fill(mask, 0.0)
        if self.needs(1):
            picked = apply(MaskedSelect, (grad,), mask)
            n = 1
            for s in self.source_shape:
                n *= s
            if picked.numel() < n:  # source elements past the mask's count got nothing
                picked = cat([picked, _zeros((n - picked.numel(),), grad._dtype)])
            g_src = picked.reshape(self.source_shape)
        return g_self, g_src


@export()
def masked_select(input, mask):
    if mask._dtype.name != "bool":
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    # under vmap, a mask that holds a sample selects a different count from each
    batched_reads.refuse(batched_reads.MASKED_SELECT_ERROR, mask)
    check_broadcast(B.shape(mask._data), B.shape(input._data))
    return apply(MaskedSelect, (input,), mask)
