"""What backward formulas are written with, besides + - * / and unary -: each function takes
Tensors (and records, so that create_graph=True can differentiate the formula again) or backend
arrays (the engine's path when nothing records, see `array_backward` in autograd/function.py),
and computes the same thing with the same backend operation either way."""

from __future__ import annotations

from .. import backend as B
from ..autograd.function import apply_or_compute  # noqa: F401 - re-exported for the ops
from ..tensor import Tensor
from .reduction import sum_to  # noqa: F401 - re-exported for the ops


def expand(x, shape):
    return x.expand(shape) if isinstance(x, Tensor) else B.expand(x, shape)


def reshape(x, shape):
    return x.reshape(shape) if isinstance(x, Tensor) else B.reshape(x, shape)


def unsqueeze(x, dim: int):
    if isinstance(x, Tensor):
        return x.unsqueeze(dim)
    shape = B.shape(x)
    return B.reshape(x, shape[:dim] + (1,) + shape[dim:])


def sum_keepdim(x, dim: int):
    """x.sum(dim, keepdim=True) for a dim in range (not negative)."""
    return x.sum(dim, keepdim=True) if isinstance(x, Tensor) else B.sum(x, (dim,), True)


def t(x):
    """x.t(): the transpose of a matrix; a vector or a number stays as it is."""
    if isinstance(x, Tensor):
        return x.t()
    return B.transpose(x, 0, 1) if B.ndim(x) == 2 else x


def mm(a, b):
    return a.mm(b) if isinstance(a, Tensor) else B.matmul(a, b)


def exp(x):
    return x.exp() if isinstance(x, Tensor) else B.exp(x)


def sin(x):
    return x.sin() if isinstance(x, Tensor) else B.sin(x)


def cos(x):
    return x.cos() if isinstance(x, Tensor) else B.cos(x)


def stack_filled(xs, dim: int, shape, dtype):
    """stack(xs, dim) with zeros of `shape` in place of each None."""
    if any(isinstance(x, Tensor) for x in xs):
        from .shape import stack

        zeros = Tensor._make(B.zeros(shape, dtype.name), dtype)
        return stack([zeros if x is None else x for x in xs], dim)
    zeros = B.zeros(shape, dtype.name)
    return B.stack([zeros if x is None else x for x in xs], dim)
