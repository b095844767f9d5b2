"""Masks and tests of values: masked_fill(_), tril, triu, nan_to_num, isinf, isfinite, all, any,
isclose, allclose, equal. The differentiable ones pass the gradient where the value was kept."""

from __future__ import annotations

import math

from .. import backend as B
from .. import batched_reads
from ..autograd.function import Function, apply
from ..batched_reads import derived, warn_unbatched
from ..tensor import Tensor
from .compare import where
from .helpers import dims_tuple
from .inplace import run_inplace
from .registry import export

_TYPE = {"float32": "Float", "float64": "Double", "int64": "Long", "bool": "Bool"}
_C_TYPE = {"float32": "float", "float64": "double", "int64": "long int"}  # c10's type names
_FLOAT_MAX = {"float32": 3.4028234663852886e38, "float64": 1.7976931348623157e308}


def _k(value, like):
    return B.scalar(value, B.dtype_name(like))


def _bool(array) -> Tensor:
    return Tensor._make(array)


class MaskedFill(Function):
    """x with `value` where mask is True; no gradient flows to the filled places."""

    name_ = "MaskedFillBackward0"
    chain_rule = "masked_fill wrote a number where mask is True: to self {grad} with zeros there"

    def forward(self, a, mask, value):
        if mask._dtype.name != "bool":
            raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with "
                               f"dtype {_C_TYPE[mask._dtype.name]}")
        self.save(mask)  # torch saves the mask: a second backward raises, as there
        x = a._data
        return B.where(mask._data, _k(value, x), x)

    def backward(self, grad):
        (mask,) = self.saved_tensors
        return (where(mask, 0.0, grad),)


class MaskedFillTensor(MaskedFill):
    """masked_fill with a 0-dim tensor value (torch's Tensor overload): the value is the node's
    second input (an edge to nothing, since a value that requires grad is refused)."""

    name_ = "MaskedFillBackward1"
    chain_rule = ("masked_fill wrote a 0-dim tensor value where mask is True: to self {grad} with zeros "
                  "there; to value the sum of {grad} there")

    def forward(self, a, value, mask, number):
        return MaskedFill.forward(self, a, mask, number)

    def backward(self, grad):
        return MaskedFill.backward(self, grad) + (None,)


def _fill(value):
    """(op class, value tensors, number) for a value given as a number or a 0-dim tensor."""
    if not isinstance(value, Tensor):
        return MaskedFill, (), value
    if value.dim() != 0:
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.dim()} dimension(s).")
    if value.requires_grad:
        # torch sends the masked gradient's sum to the value; refuse rather than drop it
        raise NotImplementedError("gradplay's masked_fill does not differentiate with respect "
                                  "to a value tensor that requires grad")
    # the value read directly: under torch.func.vmap a per-sample value is what torch batches
    # here, not a Python read of it (Tensor.item would refuse one)
    return MaskedFillTensor, (value,), B.item(value._data)


@export()
def masked_fill(input, mask, value):
    cls, others, number = _fill(value)
    if others:  # torch's vmap has no batching rule for a tensor value
        warn_unbatched("aten::masked_fill.Tensor", input, mask, value)
    return apply(cls, (input, *others), mask, number)


@export(function=False)
def masked_fill_(input, mask, value):
    cls, others, number = _fill(value)  # (under vmap, run_inplace warns as torch does)
    return run_inplace(input, cls, others, (mask, number), "masked_fill_")


# -- tril, triu ---------------------------------------------------------------------------------

def _triangle(shape, diagonal: int, lower: bool):
    """A bool array over the last two dims: j - i <= diagonal (lower) or >= diagonal."""
    rows, cols = shape[-2], shape[-1]
    i = B.reshape(B.arange(0, rows, 1, "int64"), (rows, 1))
    j = B.reshape(B.arange(0, cols, 1, "int64"), (1, cols))
    d = B.sub(j, i)
    k = B.scalar(diagonal, "int64")
    return B.le(d, k) if lower else B.ge(d, k)


class Tril(Function):
    name_ = "TrilBackward0"
    chain_rule = "tril kept the lower triangle: to self {grad} with zeros above the diagonal"
    lower = True

    def forward(self, a, diagonal):
        shape = B.shape(a._data)
        if len(shape) < 2:
            raise RuntimeError(f"{'tril' if self.lower else 'triu'}: input tensor must have at "
                               "least 2 dimensions")
        self.keep = _triangle(shape, diagonal, self.lower)
        x = a._data
        return B.where(self.keep, x, _k(0, x))

    def backward(self, grad):
        return (where(_bool(self.keep), grad, 0.0),)


class Triu(Tril):
    name_ = "TriuBackward0"
    chain_rule = "triu kept the upper triangle: to self {grad} with zeros below the diagonal"
    lower = False


@export()
def tril(input, diagonal=0):
    return apply(Tril, (input,), diagonal)


@export()
def triu(input, diagonal=0):
    return apply(Triu, (input,), diagonal)


# -- nan_to_num ---------------------------------------------------------------------------------

class NanToNum(Function):
    """nan -> nan (0 by default), inf -> posinf, -inf -> neginf (the dtype's largest finite
    values by default); the gradient passes only where the value was finite."""

    name_ = "NanToNumBackward0"
    chain_rule = ("nan_to_num replaced NaN and ±inf: to self {grad} where self was finite, 0 where it "
                  "was replaced")

    def forward(self, a, nan, posinf, neginf):
        x = a._data
        if not a._dtype.is_floating_point:
            return B.copy(x)
        big = _FLOAT_MAX[a._dtype.name]
        inf = _k(math.inf, x)
        self.finite = B.logical_not(B.where(B.isnan(x), B.isnan(x), B.eq(B.abs(x), inf)))
        out = B.where(B.isnan(x), _k(0.0 if nan is None else nan, x), x)
        out = B.where(B.eq(out, inf), _k(big if posinf is None else posinf, x), out)
        return B.where(B.eq(out, B.neg(inf)), _k(-big if neginf is None else neginf, x), out)

    def backward(self, grad):
        # torch's grad * isfinite(self): -0.0 where a negative grad meets a replaced value
        return (grad * _bool(self.finite),)


@export()
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    return apply(NanToNum, (input,), nan, posinf, neginf)


# -- tests of values (no gradient) ---------------------------------------------------------------

def _is_inf(x):
    if B.dtype_name(x) not in ("float32", "float64"):
        return B.zeros(B.shape(x), "bool")
    return B.eq(B.abs(x), _k(math.inf, x))


@export()
def isinf(input):
    return derived(_bool(_is_inf(input._data)), input)


@export()
def isfinite(input):
    x = input._data
    if not input.dtype.is_floating_point:
        return derived(_bool(B.ones(B.shape(x), "bool")), input)
    return derived(_bool(B.logical_not(B.where(B.isnan(x), B.isnan(x), _is_inf(x)))), input)


def _truth(input):
    x = input._data
    return x if input.dtype.name == "bool" else B.ne(x, _k(0, x))


@export()
def all(input, dim=None, keepdim=False):  # noqa: A001 - torch's name
    t = _truth(input)
    dims = None if dim is None else dims_tuple(dim, input.ndim)
    n_false = B.sum(B.astype(B.logical_not(t), "int64"), dims, keepdim)
    return derived(_bool(B.eq(n_false, B.scalar(0, "int64"))), input)


@export()
def any(input, dim=None, keepdim=False):  # noqa: A001 - torch's name
    t = _truth(input)
    dims = None if dim is None else dims_tuple(dim, input.ndim)
    n_true = B.sum(B.astype(t, "int64"), dims, keepdim)
    return derived(_bool(B.gt(n_true, B.scalar(0, "int64"))), input)


@export()
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    warn_unbatched("aten::isclose", input, other)  # under vmap torch runs it sample by sample
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{_TYPE[input.dtype.name]} did not match {_TYPE[other.dtype.name]}")
    a, b = input._data, other._data
    if input.dtype.name == "bool":
        return derived(_bool(B.eq(a, b)), input, other)
    dt = B.dtype_name(a) if input.dtype.is_floating_point else "float64"
    a, b = B.astype(a, dt), B.astype(b, dt)
    diff = B.abs(B.sub(a, b))
    close = B.le(diff, B.add(_k(atol, diff), B.mul(_k(rtol, diff), B.abs(b))))
    # as torch: only a finite difference can be within the tolerance (|x - inf| <= rtol * inf
    # would say yes); equal values (infinities included) are close; a nan is close to a nan
    # only with equal_nan
    close = B.where(B.eq(diff, _k(math.inf, diff)), B.eq(diff, _k(0, diff)), close)
    close = B.where(B.eq(a, b), B.eq(a, b), close)
    if equal_nan:
        both = B.where(B.isnan(a), B.isnan(b), B.isnan(a))
        close = B.where(both, both, close)
    return derived(_bool(close), input, other)


# torch's vmap refuses allclose and equal of a tensor that holds a sample: the answer is one
# Python bool, not one per sample
ALLCLOSE_UNDER_VMAP = ("vmap over torch.allclose isn't supported yet. Please file an issue at "
                       "https://github.com/pytorch/pytorch/issues if you need this feature.")


@export()
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    batched_reads.refuse(ALLCLOSE_UNDER_VMAP, input, other)
    return bool(all(isclose(input, other, rtol, atol, equal_nan)).item())


@export()
def equal(input, other) -> bool:
    batched_reads.refuse(batched_reads.NO_FALLBACK_ERROR.format(op="aten::equal"), input, other)
    if tuple(input.shape) != tuple(other.shape):
        return False
    return bool(all(input == other).item())
