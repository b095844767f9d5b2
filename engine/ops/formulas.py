"""What backward formulas are written with, besides + - * / and unary -: each function takes
Tensors (and records, so that create_graph=True can differentiate the formula again) or backend
arrays (the engine's path when nothing records, see `array_backward` in autograd/function.py),
and computes the same thing with the same backend operation either way."""

from __future__ import annotations

from .. import backend as B
from ..autograd.function import apply_or_compute  # noqa: F401 - re-exported for the ops
from ..tensor import Tensor


def sum_to(grad, shape: tuple):
    """Sum grad over the dimensions that broadcasting added or stretched, back to `shape`.
    grad is a Tensor, or a backend array (see ops/formulas.py); the result is of the same kind."""
    is_tensor = isinstance(grad, Tensor)
    gshape = B.shape(grad._data if is_tensor else grad)
    if gshape == shape:
        return grad
    lead = len(gshape) - len(shape)
    dims = list(range(lead))
    for i, s in enumerate(shape):
        if s == 1 and gshape[lead + i] != 1:
            dims.append(lead + i)
    if not is_tensor:
        out = B.sum(grad, tuple(dims), True) if dims else grad
        return out if B.shape(out) == shape else B.reshape(out, shape)
    out = grad.sum(dims, keepdim=True) if dims else grad
    if lead:
        out = out.reshape(shape)
    elif B.shape(out._data) != shape:
        out = out.reshape(shape)
    return out


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
    if isinstance(x, Tensor):
        return x.sum(dim, keepdim=True)
    return B.sum(x, (dim,), True) if B.ndim(x) else x


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


def sinh(x):
    return x.sinh() if isinstance(x, Tensor) else B.sinh(x)


def cosh(x):
    return x.cosh() if isinstance(x, Tensor) else B.cosh(x)


def reciprocal_or_zero(x):
    """1 / x, and 0 where x is 0 (torch's atan2 backward: no inf from a zero denominator)."""
    if isinstance(x, Tensor):
        from .compare import where

        return where(x == 0, 0.0, 1 / x)
    dt = B.dtype_name(x)
    with B.quiet():
        return B.where(B.eq(x, B.scalar(0, dt)), B.scalar(0, dt), B.div(B.scalar(1, dt), x))
