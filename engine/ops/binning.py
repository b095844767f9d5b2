"""Which bin a value falls in: bucketize and searchsorted (binary search in sorted
boundaries), and histc (a histogram of equal-width bins). None of them is differentiable: the
results are int64 indices, or counts that do not require grad.

searchsorted replays torch's loops (`lower_bound` keeps `!(boundary >= value)` to the left, so
a NaN value lands after every boundary); histc places an element in bin
trunc((x - min) * bins / (max - min)) computed in the input's dtype, with its edges from
linspace, as torch's histogram kernel does.
"""

from __future__ import annotations

import math

from .. import backend as B
from ..batched_reads import derived, warn_unbatched
from ..dtypes import int64
from ..tensor import Tensor
from .registry import export

_TYPE = {"float32": "Float", "float64": "Double", "int64": "Long", "bool": "Bool"}


def _sizes(shape) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


def _search(row, value, right: bool) -> int:
    lo, hi = 0, len(row)
    while lo < hi:
        mid = lo + ((hi - lo) >> 1)
        go_right = not (row[mid] > value) if right else not (row[mid] >= value)
        if go_right:
            lo = mid + 1
        else:
            hi = mid
    return lo


def _as_tensor(x, like: Tensor) -> Tensor:
    if isinstance(x, Tensor):
        return x
    return Tensor._make(B.scalar(x, "float64" if isinstance(x, float) else "int64"))


@export()
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None):
    if out_int32:
        raise NotImplementedError("searchsorted(out_int32=True): the engine has no int32 dtype")
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError("torch.searchsorted(): side can only be 'left' or 'right' but got "
                               f"{side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, "
                               "got side of left while right was True")
        right = side == "right"
    values = _as_tensor(input, sorted_sequence)
    seq_shape, val_shape = tuple(sorted_sequence.shape), tuple(values.shape)
    if not val_shape and len(seq_shape) != 1:
        raise RuntimeError("torch.searchsorted(): input value can be a scalar only when "
                           "boundaries tensor dimension is 1, but we got boundaries tensor dim("
                           f"{len(seq_shape)}) and input value's dim(0) numel(1)")
    if not seq_shape:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive "
                           "dimension, but got 0 dimension")
    if len(seq_shape) > 1 and (len(val_shape) != len(seq_shape)
                               or seq_shape[:-1] != val_shape[:-1]):
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            "dimensions of boundaries tensor and input value tensor must match, but we got "
            f"boundaries tensor {_sizes(seq_shape)} and input value tensor {_sizes(val_shape)}")
    if sorter is not None and tuple(sorter.shape) != seq_shape:
        raise RuntimeError("torch.searchsorted(): boundary and sorter must have the same size, "
                           f"but got boundary tensor {_sizes(seq_shape)}and got sorter tensor "
                           f"{_sizes(tuple(sorter.shape))}")
    seq = B.tolist(sorted_sequence._data)
    if sorter is not None:  # the sequence read through sorter's order
        order = B.tolist(sorter._data)
        seq = ([[r[i] for i in o] for r, o in zip(seq, order)] if len(seq_shape) > 1
               else [seq[i] for i in order])
    flat_vals = B.tolist(B.reshape(values._data, (-1,)))
    if len(seq_shape) == 1:
        out = [_search(seq, v, right) for v in flat_vals]
    else:
        rows = [seq]
        for _ in range(len(seq_shape) - 1):
            rows = [r for block in rows for r in block]
        per_row = val_shape[-1] if val_shape else 1
        out = [_search(rows[i // per_row], v, right) for i, v in enumerate(flat_vals)]
    return derived(Tensor._make(B.reshape(B.array(out, "int64"), val_shape), int64),
                   sorted_sequence, values, sorter)


@export()
def bucketize(input, boundaries, *, out_int32=False, right=False):
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim("
                           f"{boundaries.dim()})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def _g(x: float) -> str:
    """A double as C++'s stream prints it (six significant digits, and a NaN's sign)."""
    if x != x:
        return "-nan" if math.copysign(1.0, x) < 0 else "nan"
    return f"{x:g}"


@export()
def histc(input, bins=100, min=0, max=0):  # noqa: A002 - torch's names
    warn_unbatched("aten::histc", input)  # under vmap torch runs it sample by sample
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"histogram_cpu" not implemented for '
                                  f"'{_TYPE[input.dtype.name]}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    lo, hi = float(min), float(max)
    if lo == hi and input.numel():
        lo = float(B.item(B.amin(input._data, None, False)))
        hi = float(B.item(B.amax(input._data, None, False)))
        if (lo != lo or hi != hi) and input.numel() > 1:
            # torch's min/max of two or more elements give an all-ones NaN: "-nan"
            lo, hi = -abs(lo) if lo != lo else lo, -abs(hi) if hi != hi else hi
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if any(v != v or v in (float("inf"), float("-inf")) for v in (lo, hi)):
        raise RuntimeError(f"torch.histc: range of [{_g(lo)}, {_g(hi)}] is not finite")
    if not lo < hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    dt = input.dtype.name
    edges = B.linspace(lo, hi, bins + 1, dt)  # torch's bin edges, in the input's dtype
    left, right = B.getitem(edges, 0), B.getitem(edges, bins)
    x = B.reshape(input._data, (-1,))
    inside = B.where(B.ge(x, left), B.le(x, right), B.ge(x, left))  # NaN is never inside
    with B.quiet():
        pos = B.div(B.mul(B.sub(x, left), B.scalar(bins, dt)), B.sub(right, left))
    pos = B.astype(B.where(inside, pos, B.scalar(0, dt)), "int64")
    pos = B.where(B.eq(pos, B.scalar(bins, "int64")), B.scalar(bins - 1, "int64"), pos)
    counts = [0] * bins
    for p, keep in zip(B.tolist(pos), B.tolist(inside)):
        if keep:
            counts[p] += 1
    return derived(Tensor._make(B.array([float(c) for c in counts], dt), input.dtype), input)
