"""Diagonals: diagonal (a view), diag (a vector to a matrix and back, copies), trace, and outer
(ger), which torch writes as a reshape and a product."""

from __future__ import annotations

from .. import backend as B
from .. import budget as _budget
from ..autograd.function import Function, apply
from ..dtypes import float64, int64
from ..tensor import Tensor
from .arithmetic import mul
from .gather import IndexSelect
from .helpers import wrap_dim
from .registry import export


class Diagonal(Function):
    name_ = "DiagonalBackward0"
    chain_rule = "diagonal picked self's diagonal: to self zeros with {grad} on that diagonal"
    is_view = True

    def forward(self, a, offset, d1, d2):
        self.in_shape, self.args = B.shape(a._data), (offset, d1, d2)
        return B.diagonal(a._data, offset, d1, d2)

    def backward(self, grad):
        return (apply(DiagonalScatter, (grad,), self.in_shape, *self.args),)


class DiagonalCopy(Diagonal):
    """torch.diag of a matrix: the diagonal as a new vector (torch records diagonal_copy)."""

    name_ = "DiagonalBackward0_copy"
    is_view = False

    def forward(self, a, offset, d1, d2):
        return B.copy(Diagonal.forward(self, a, offset, d1, d2))


class DiagonalScatter(Function):
    """diagonal's backward: the gradient placed on the diagonal of zeros of the input's
    shape."""

    name_ = "DiagonalBackwardBackward0"
    chain_rule = ("the backward of diagonal, differentiated again: picks the same diagonal of "
                  "{grad}")

    def forward(self, g, shape, offset, d1, d2):
        self.args = (offset, d1, d2)
        out = B.zeros(shape, g._dtype.name)
        B.assign(B.diagonal(out, offset, d1, d2), g._data)
        return out

    def backward(self, grad):
        return (apply(Diagonal, (grad,), *self.args),)


class DiagEmbed(Function):
    """torch.diag of a vector: a square matrix with the vector on diagonal `offset`."""

    name_ = "DiagEmbedBackward0"
    chain_rule = "diag put self on a diagonal of zeros: to self the same diagonal of {grad}"

    def forward(self, a, offset):
        self.offset = offset
        x = a._data
        n = B.shape(x)[0] + abs(offset)
        _budget.elements(n * n)  # a vector of n makes n * n: refused before it is allocated
        out = B.zeros((n, n), B.dtype_name(x))
        B.assign(B.diagonal(out, offset, 0, 1), x)
        return out

    def backward(self, grad):
        return (apply(Diagonal, (grad,), self.offset, 0, 1),)


@export()
def diagonal(input, offset=0, dim1=0, dim2=1):
    nd = input.ndim
    d1, d2 = wrap_dim(dim1, nd), wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return apply(Diagonal, (input,), int(offset), d1, d2)


@export()
def diag(input, diagonal=0):
    nd = input.ndim
    if nd == 1:
        return apply(DiagEmbed, (input,), int(diagonal))
    if nd == 2:
        return apply(DiagonalCopy, (input,), int(diagonal), 0, 1)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {nd}D")


# -- trace ---------------------------------------------------------------------------------------

class Trace(Function):
    name_ = "TraceBackward0"
    chain_rule = "trace summed self's diagonal: to self zeros with {grad} on the diagonal"

    def forward(self, a):
        x = a._data
        self.in_shape = B.shape(x)
        d = B.diagonal(x, 0, 0, 1)
        if a._dtype is float64 or not a._dtype.is_floating_point:
            return B.sum(d, None, False)
        # torch's CPU trace adds float32 in double and rounds once
        return B.astype(B.sum(B.astype(d, "float64"), None, False), a._dtype.name)

    def backward(self, grad):
        # torch's trace_backward: grad written at every (cols + 1)-th element of flat zeros,
        # min(rows, cols) of them (more would run past the diagonal of a tall matrix)
        rows, cols = self.in_shape
        zeros = Tensor._make(B.zeros((rows * cols,), grad._dtype.name), grad._dtype)
        index = Tensor._make(B.arange(0, min(rows, cols) * (cols + 1), cols + 1, "int64"), int64)
        return (apply(IndexFill, (zeros, grad), index).view(rows, cols),)


class IndexFill(Function):
    """self with the 0-dim tensor `value` written at `index` (an int64 tensor) along dim 0
    (trace's backward, which makes the index itself: nothing else can change it)."""

    name_ = "IndexFillBackward1"
    chain_rule = ("index_fill wrote value at index: to self {grad} with zeros there; to value the sum "
                  "of {grad} there")

    def forward(self, a, value, index):
        self.index = index
        out = B.copy(a._data)
        B.setitem(out, index._data, value._data)
        return out

    def backward(self, grad):
        # self is the zeros trace's backward makes, which never requires grad
        g_value = apply(IndexSelect, (grad,), 0, self.index).sum() if self.needs(1) else None
        return None, g_value


@export(palette={"code": "{0}.trace()", "arity": 1, "group": "linear algebra",
                 "label": "trace(a)"})
def trace(input):
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    if input.dtype.name == "bool":
        raise NotImplementedError('"trace" not implemented for \'Bool\'')
    out = apply(Trace, (input,))
    if not input.dtype.is_floating_point and out._dtype is not int64:
        out = Tensor._make(B.astype(out._data, "int64"), int64)
    return out


# -- outer ---------------------------------------------------------------------------------------

@export()
def outer(input, vec2):
    for name, t in (("self", input), ("vec2", vec2)):
        if t.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.ndim}-D")
    # torch's outer: self.reshape({n, 1}) * vec2
    return mul(input.reshape(input.shape[0], 1), vec2)


ger = export("ger")(outer)
