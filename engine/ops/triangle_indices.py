"""triu_indices and tril_indices: the (row, column) positions of a matrix's upper or lower
triangle, row by row, as a 2 x N int64 tensor; and count_nonzero."""

from __future__ import annotations

from .. import backend as B
from ..dtypes import int64
from ..tensor import Tensor
from .registry import export


def _positions(row, col, offset, upper):
    rows, cols = [], []
    for i in range(row):
        for j in range(col):
            if (j - i >= offset) if upper else (j - i <= offset):
                rows.append(i)
                cols.append(j)
    return Tensor._make(B.reshape(B.array(rows + cols, "int64"), (2, len(rows))), int64)


@export()
def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    return _positions(row, col, offset, True)


@export()
def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    return _positions(row, col, offset, False)


@export()
def count_nonzero(input, dim=None):
    return (input != 0).sum(() if dim is None else dim)
