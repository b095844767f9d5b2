"""The positions of nonzero elements: nonzero (as_tuple), argwhere, and what one-argument
torch.where returns (engine/ops/compare.py calls nonzero). Integer results, no gradient."""

from __future__ import annotations

from .. import backend as B
from .. import batched_reads
from ..batched_reads import warn_unbatched
from ..dtypes import int64
from ..tensor import Tensor
from .registry import export


def _nonzero_positions(input):
    """The coordinates of the nonzero elements, in row-major order: a list per dim."""
    x = input._data
    shape = B.shape(x)
    truth = x if input._dtype.name == "bool" else B.ne(x, B.scalar(0, B.dtype_name(x)))
    flat = B.tolist(B.reshape(B.contiguous(truth), (B.numel(truth),)))
    coords = [[] for _ in shape]
    for k, keep in enumerate(flat):
        if not keep:
            continue
        for d in range(len(shape) - 1, -1, -1):
            coords[d].append(k % shape[d])
            k //= shape[d]
    return coords, len([v for v in flat if v])


@export()
def nonzero(input, *, as_tuple=False):
    # under vmap: the number of rows depends on each sample's values, and torch refuses
    if as_tuple:
        batched_reads.refuse(batched_reads.NO_FALLBACK_ERROR.format(op="aten::nonzero_numpy"),
                             input)
    else:
        batched_reads.refuse(batched_reads.DYNAMIC_SHAPE_ERROR.format(op="aten::nonzero"), input)
    return _nonzero(input, as_tuple)


def _nonzero(input, as_tuple):
    coords, count = _nonzero_positions(input)
    if as_tuple:
        if input.ndim == 0:  # torch treats a 0-dim tensor as one element here
            return (Tensor._make(B.array([0] * count, "int64"), int64),)
        return tuple(Tensor._make(B.array(c, "int64"), int64) for c in coords)
    nd = input.ndim
    rows = [[c[i] for c in coords] for i in range(count)]
    data = B.array(rows, "int64") if rows and nd else B.zeros((count, nd), "int64")
    return Tensor._make(data, int64)


@export()
def argwhere(input):
    # torch's vmap has no batching rule for argwhere: it runs it sample by sample, and then
    # stacks the results (which fails when the samples have different counts)
    warn_unbatched("aten::argwhere", input)
    return _nonzero(input, False)
