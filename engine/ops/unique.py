"""unique and unique_consecutive: the distinct values (or slices along `dim`) of a tensor, with
the inverse indices and counts when asked. Computed on Python lists, as torch's CPU kernels
order them: sorted ascending with NaN last, each NaN distinct (NaN != NaN); -0.0 equals 0.0 and
the first in sorted order is kept. The values carry a grad_fn when the input requires grad, but
torch has no derivative for them: backward through one raises torch's error."""

from __future__ import annotations

from .. import backend as B
from .. import batched_reads
from ..autograd.function import Function, apply
from ..dtypes import int64
from ..tensor import Tensor
from .helpers import wrap_dim
from .registry import export


def _nan(v) -> bool:
    return v != v


def _same(x, y) -> bool:
    """Equal as torch's unique compares: element by element, NaN never equal."""
    if isinstance(x, tuple):
        return all(a == b for a, b in zip(x, y))
    return x == y


def _key(v):
    if isinstance(v, tuple):
        return tuple((_nan(x), 0.0 if _nan(x) else x) for x in v)
    return (_nan(v), 0.0 if _nan(v) else v)


def _groups(items: list, sort: bool):
    """(representative positions, inverse, counts) of `items` grouped into runs of equal ones,
    after a stable sort when `sort`."""
    order = sorted(range(len(items)), key=lambda i: _key(items[i])) if sort \
        else list(range(len(items)))
    reps, counts = [], []
    inverse = [0] * len(items)
    for i in order:
        if not reps or not _same(items[reps[-1]], items[i]):
            reps.append(i)
            counts.append(0)
        counts[-1] += 1
        inverse[i] = len(reps) - 1
    return reps, inverse, counts


class _NoDerivative(Function):
    """The values picked by unique: forward hands back what was computed; backward raises."""

    op_name = ""
    chain_rule = "torch has no derivative for this op: backward stops here with an error"

    def forward(self, a, values):
        return values

    def backward(self, grad):
        raise NotImplementedError(f"the derivative for '{self.op_name}' is not implemented.")


class Unique(_NoDerivative):
    name_ = "Unique2Backward0"
    op_name = "_unique2"


class UniqueDim(_NoDerivative):
    name_ = "UniqueDimBackward0"
    op_name = "unique_dim"


class UniqueConsecutive(_NoDerivative):
    name_ = "UniqueConsecutiveBackward0"
    op_name = "unique_consecutive"


def _run(cls, input, sort, return_inverse, return_counts, dim):
    if dim is not None and cls is Unique:
        cls = UniqueDim
    # under vmap: how many values there are depends on each sample, and torch refuses
    batched_reads.refuse(batched_reads.DYNAMIC_SHAPE_ERROR.format(op=f"aten::{cls.op_name}"),
                         input)
    data = input._data
    if dim is None:
        items = B.tolist(B.reshape(data, (-1,)))
        reps, inverse, counts = _groups(items, sort)
        values = B.array([items[i] for i in reps], input.dtype.name)
        inv_shape = B.shape(data)
    else:
        d = wrap_dim(dim, input.ndim)
        moved = B.permute(data, (d,) + tuple(i for i in range(input.ndim) if i != d))
        n, width = B.shape(moved)[0], B.numel(moved) // max(B.shape(moved)[0], 1)
        rows = B.tolist(B.reshape(B.copy(moved), (n, width)))
        reps, inverse, counts = _groups([tuple(r) for r in rows], sort)
        index = (slice(None),) * d + (B.array(reps, "int64"),)
        values = B.copy(B.getitem(data, index))
        inv_shape = (n,)
    out = apply(cls, (input,), values)
    extra = []
    if return_inverse:
        extra.append(Tensor._make(B.reshape(B.array(inverse, "int64"), inv_shape), int64))
    if return_counts:
        extra.append(Tensor._make(B.array(counts, "int64"), int64))
    return (out, *extra) if extra else out


@export()
def unique(input, sorted=True, return_inverse=False, return_counts=False,  # noqa: A002
           dim=None):
    # torch's CPU kernel sorts whatever `sorted` says
    return _run(Unique, input, True, return_inverse, return_counts, dim)


@export()
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    return _run(UniqueConsecutive, input, False, return_inverse, return_counts, dim)
