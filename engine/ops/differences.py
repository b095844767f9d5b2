"""diff: differences of neighbours along a dim, n times, as torch composes it (narrow and
subtract, or logical_xor for bool), after joining `prepend` and `append` with cat."""

from __future__ import annotations

from ..tensor import Tensor
from .helpers import wrap_dim
from .logical import logical_xor
from .registry import export
from .shape import cat


def _check_other(input, other, dim: int) -> None:
    if other is None:
        return
    if other.dim() != input.dim():
        raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    for i in range(other.dim()):
        if i != dim and other.shape[i] != input.shape[i]:
            raise RuntimeError(
                "diff expects the shape of tensor to prepend or append to match that of input "
                f"except along the differencing dimension; input.size({i}) = {input.shape[i]}, "
                f"but got tensor.size({i}) = {other.shape[i]}")


@export()
def diff(input, n=1, dim=-1, prepend=None, append=None):
    if input.dim() < 1:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    if prepend is not None or append is not None:
        d = wrap_dim(dim, input.dim())
        _check_other(input, prepend, d)
        _check_other(input, append, d)
    if n == 0:  # torch copies self (prepend and append only checked), dim unchecked
        out = Tensor._make(input._data, input._dtype).new_zeros(tuple(input.shape))
        return out.copy_(input)  # torch's zeros_like(self).copy_(self)
    d = wrap_dim(dim, input.dim())
    if prepend is not None or append is not None:
        input = cat([t for t in (prepend, input, append) if t is not None], d)
    length = input.shape[d] - 1
    result = input
    for _ in range(min(n, input.shape[d])):
        upper, lower = result.narrow(d, 1, length), result.narrow(d, 0, length)
        result = logical_xor(upper, lower) if input.dtype.name == "bool" else upper - lower
        length -= 1
    return result
