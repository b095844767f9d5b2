"""How a tensor lies in memory, as torch reports it: stride() and storage_offset().

Strides count elements, as torch's do; a view (transpose, slice, expand, diagonal) has the
strides and offset of the memory it shares with its base."""

from __future__ import annotations

from .. import backend as B
from .helpers import wrap_dim
from .registry import export


def _strides(t) -> tuple:
    """torch's strides of t: the backend's, except along size-1 dims, where numpy and torch
    choose differently (no step is ever taken there) and torch's rule is the size times the
    stride of the next dim (1 for the last)."""
    shape, st = B.shape(t._data), list(B.strides(t._data))
    if 0 in shape:  # nothing in memory: torch reports the row-major strides
        st = [1] * len(shape)
        for d in range(len(shape) - 2, -1, -1):
            st[d] = st[d + 1] * max(shape[d + 1], 1)
        return tuple(st)
    for d in range(len(shape) - 1, -1, -1):
        if shape[d] == 1:
            st[d] = 1 if d == len(shape) - 1 else max(shape[d + 1] * st[d + 1], 1)
    return tuple(st)


@export(function=False)
def stride(self, dim=None):
    st = _strides(self)
    if dim is None:
        return st
    return st[wrap_dim(dim, self.ndim)]


@export(function=False)
def storage_offset(self):
    return B.offset(self._data)
