"""Norms: torch.linalg.vector_norm (the one op, LinalgVectorNormBackward0), and what torch
builds on it: torch.norm / Tensor.norm, torch.linalg.norm and torch.linalg.matrix_norm (the
Frobenius norm, the 1 and inf norms as a max over column or row sums, and the norms made of
singular values, ord 2, -2 and 'nuc', over torch.linalg.svdvals (engine/ops/svd.py))."""

from __future__ import annotations

import math

from .. import backend as B
from ..autograd.function import Function, apply
from ..dtypes import dtype as _dtype_class
from ..tensor import Tensor
from .compare import where
from .helpers import dims_tuple, wrap_dim
from .registry import export
from .svd import svdvals

_TYPE = {"int64": "Long", "bool": "Bool", "float32": "Float", "float64": "Double"}


def _k(value, like):
    return B.scalar(value, B.dtype_name(like))


def _keep(t: Tensor, dims, ndim: int, keepdim: bool) -> Tensor:
    """A reduced Tensor with its reduced dims back (size 1), to broadcast against the input."""
    if keepdim or ndim == 0:
        return t
    if dims is None:
        return t.reshape((1,) * ndim)
    for d in dims:
        t = t.unsqueeze(d)
    return t


class VectorNorm(Function):
    """(Σ |x|^ord)^(1/ord) over dims; ord inf and -inf are the largest and smallest |x|, ord 0
    counts the nonzero elements."""

    name_ = "LinalgVectorNormBackward0"
    zero_passes = (0,)  # torch's kernel keeps sgn's zero gradient (autograd/zero_grad.py)
    chain_rule = ("∂‖self‖/∂self = sign(self)·|self|^(ord−1)/result^(ord−1) (self/result for ord 2; 0 "
                  "where the norm is 0): to self {grad} times that")
    saves_result = True

    def forward(self, a, ord, dims, keepdim, dtype):
        x = a._data if dtype is None else B.astype(a._data, dtype.name)
        self.ord, self.dims, self.keepdim = ord, dims, keepdim
        self.save(a)
        shape = B.shape(x)
        reduced = math.prod(shape[d] for d in (range(len(shape)) if dims is None else dims))
        if reduced == 1 and ord != 0 and (shape or dims is None):
            # one element: torch gives |x| without powers (so 1e30 does not overflow to inf
            # in float32, nor 1e-30 underflow to 0), except for a 0-dim tensor given a dim;
            # a sum of one element is that element
            return B.sum(B.abs(x), dims, keepdim)
        if ord == 2:
            return B.sqrt(B.sum(B.mul(x, x), dims, keepdim))
        ax = B.abs(x)
        if ord == 1:
            return B.sum(ax, dims, keepdim)
        if ord == math.inf:
            return B.amax(ax, dims, keepdim)
        if ord == -math.inf:
            return B.amin(ax, dims, keepdim)
        if ord == 0:
            nonzero = B.astype(B.ne(x, _k(0, x)), B.dtype_name(x))
            return B.sum(nonzero, dims, keepdim)
        powered = B.sum(B.pow(ax, _k(ord, x)), dims, keepdim)
        return B.pow(powered, _k(1.0 / ord, x))

    def backward(self, grad):
        a, norm = self.saved_tensors
        p = self.ord
        if p == 0:
            return (None,)
        nd = a.ndim
        grad = _keep(grad, self.dims, nd, self.keepdim)
        norm = _keep(norm, self.dims, nd, self.keepdim)
        if p == 1:
            out = a.sign() * grad
        elif p == 2:
            out = grad * where(norm == 0, 0.0, a / norm)
        elif math.isinf(p):
            # the gradient of max |x|, split between ties, NaN counting as the max
            a_abs = a.abs()
            mask = (a_abs == norm) | a_abs.isnan()
            dims = list(range(nd)) if self.dims is None else list(self.dims)
            count = mask.sum(dims, keepdim=True) if nd else mask
            out = a.sign() * ((grad / count) * mask)
        elif p < 1:
            scaled = a.sign() * where(a == 0, 0.0, a.abs() ** (p - 1))
            out = scaled * grad * norm ** (1 - p)
        elif p < 2:
            out = a.sign() * a.abs() ** (p - 1) * where(norm == 0, 0.0, grad / norm ** (p - 1))
        else:
            out = a * a.abs() ** (p - 2) * where(norm == 0, 0.0, grad / norm ** (p - 1))
        return (out if out.dtype is a.dtype else out.to(a.dtype),)


def _check_float(input, dtype) -> None:
    dt = dtype or input.dtype
    if not dt.is_floating_point:
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {_TYPE[input.dtype.name]}")


# -- public functions ----------------------------------------------------------------------------

def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):  # noqa: A002 - torch's name
    if isinstance(ord, str) or not isinstance(ord, (int, float)):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' (position 2) must be Number, not "
                        f"{type(ord).__name__}")
    if dtype is not None and not isinstance(dtype, _dtype_class):
        raise TypeError(f"linalg_vector_norm(): argument 'dtype' must be torch.dtype, not "
                        f"{type(dtype).__name__}")
    _check_float(x, dtype)
    dims = None if dim is None else dims_tuple(dim, x.ndim)
    if dims == () and x.ndim:
        dims = None
    if (ord < 0 or ord == math.inf) and x.numel() == 0:
        # max and min (and the negative orders, sums of 1/|x|^p) have no identity; torch names
        # the first reduced dim that is empty, as given (its message lacks the space)
        if dims is None:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {ord:g} norm on an empty "
                               "tensor because the operation does not have an identity")
        for given in [dim] if isinstance(dim, int) else list(dim):
            if x.shape[wrap_dim(given, x.ndim)] == 0:
                raise RuntimeError(f"linalg.vector_norm cannot compute the {ord:g} norm on the "
                                   f"dimension {given}because this dimension is empty and the "
                                   "operation does not have an identity")
    return apply(VectorNorm, (x,), float(ord), dims, keepdim, dtype)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):  # noqa: A002
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    if len(dim) != 2:
        raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got "
                           + " ".join(str(d) for d in dim))
    d0, d1 = (wrap_dim(d, A.ndim) for d in dim)
    if isinstance(ord, str):
        if ord == "fro":
            return vector_norm(A, 2, (d0, d1), keepdim, dtype=dtype)
        if ord == "nuc":
            return _singular_value_norm(A, "nuc", d0, d1, keepdim, dtype)
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if abs(ord) == 2:
        return _singular_value_norm(A, ord, d0, d1, keepdim, dtype)
    if abs(ord) not in (1, math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord:g} not supported.")
    if math.isinf(ord):
        d0, d1 = d1, d0  # the inf norm is the largest row sum, the 1 norm the largest column sum
    if not keepdim and d0 < d1:
        d1 -= 1
    sums = vector_norm(A, 1.0, (d0,), keepdim, dtype=dtype)
    if ord > 0 and sums.shape[d1] == 0:
        # the largest of no sums: torch gives 0 (a constant, with no history); the smallest
        # raises amin's error
        shape = [1 if i == d1 else s for i, s in enumerate(sums.shape) if keepdim or i != d1]
        return Tensor._make(B.zeros(tuple(shape), sums.dtype.name), sums.dtype)
    return sums.amax(d1, keepdim) if ord > 0 else sums.amin(d1, keepdim)


def _singular_value_norm(A, ord, d0, d1, keepdim, dtype):
    """torch's linalg_matrix_norm for ord 2, -2 and 'nuc': the two dims moved last (a permute,
    recorded even when they are last already), svdvals, then amax, amin or sum over them."""
    if not (dtype or A.dtype).is_floating_point:
        _check_float(A, dtype)
    A_ = A if dtype is None else A.to(dtype)
    if A.numel() == 0:  # no singular values: torch's norm of an empty matrix is 0
        return vector_norm(A_, 2, (d0, d1), keepdim)
    perm = [d for d in range(A.ndim) if d not in (d0, d1)] + [d0, d1]
    s = svdvals(A_.permute(perm))
    if ord == "nuc":
        result = s.sum(-1, keepdim=keepdim)
    elif ord > 0:
        result = s.amax(-1, keepdim=keepdim)
    else:
        result = s.amin(-1, keepdim=keepdim)
    if keepdim:
        back = [0] * len(perm)
        for i, d in enumerate(perm):
            back[d] = i
        result = result.unsqueeze(-1).permute(back)
    return result


def linalg_norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    if dim is not None:
        dims = [dim] if isinstance(dim, int) else list(dim)
        if len(dims) == 1:
            return vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype)
        return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype)
    if ord is not None:
        if A.ndim == 2 or isinstance(ord, str):
            return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
        if A.ndim != 1:
            raise RuntimeError("linalg.norm: If dim is not specified but ord is, the input must "
                               f"be 1D or 2D. Got {A.ndim}D.")
        return vector_norm(A, ord, None, keepdim, dtype=dtype)
    return vector_norm(A, 2, None, keepdim, dtype=dtype)


@export(palette={"code": "{0}.norm()", "arity": 1, "group": "reduction", "label": "norm(a)"})
def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return vector_norm(input, 2, dim, keepdim, dtype=dtype)
        dims = list(range(input.ndim)) if dim is None else dim
        return matrix_norm(input, p, dims, keepdim, dtype=dtype)
    return vector_norm(input, 2.0 if p is None else p, dim, keepdim, dtype=dtype)
