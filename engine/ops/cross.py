"""The cross product of 3-vectors along a dim: torch.linalg.cross and torch.cross.

Each component is a*b - c*d with the first product fused into the subtraction, as torch's CPU
kernel is compiled (fma(a, b, -(c * d)): rounding the first product too differs in the last
bit). Both are one node, LinalgCrossBackward0, whose gradients are cross products again.
"""

from __future__ import annotations

from .. import backend as B
from ..autograd.function import Function, apply
from ..state import current as _current_state
from ..tensor import warn
from .formulas import sum_to
from .helpers import check_broadcast, promote, wrap_dim
from .registry import export

_TYPE = {"float32": "Float", "float64": "Double", "int64": "Long", "bool": "Bool"}


def _component(x, y, i, j, p, q, dim, floating):
    def at(a, k):
        return B.getitem(a, (slice(None),) * dim + (slice(k, k + 1),))
    if floating:
        return B.fma(at(x, i), at(y, j), B.neg(B.mul(at(x, p), at(y, q))))
    return B.sub(B.mul(at(x, i), at(y, j)), B.mul(at(x, p), at(y, q)))


class LinalgCross(Function):
    name_ = "LinalgCrossBackward0"
    chain_rule = ("∂(self × other): to self other × {grad}, to other {grad} × self")

    def forward(self, a, b, dim):
        self.dim = dim
        self.shapes = (B.shape(a._data), B.shape(b._data))
        self.save(b if self.needs(0) else None, a if self.needs(1) else None)
        x, y = a._data, b._data
        shape = tuple(B.broadcast_shapes(B.shape(x), B.shape(y)))
        x, y = B.expand(x, shape), B.expand(y, shape)
        floating = B.dtype_name(x) in ("float32", "float64")
        parts = [_component(x, y, i, j, p, q, dim, floating)
                 for i, j, p, q in ((1, 2, 2, 1), (2, 0, 0, 2), (0, 1, 1, 0))]
        return B.concat(parts, dim)

    def backward(self, grad):
        b, a = self.saved_tensors
        sa, sb = self.shapes
        ga = sum_to(linalg_cross(b, grad, dim=self.dim), sa) if self.needs(0) else None
        gb = sum_to(linalg_cross(grad, a, dim=self.dim), sb) if self.needs(1) else None
        return ga, gb


def linalg_cross(input, other, *, dim=-1):
    """torch.linalg.cross (in engine.linalg)."""
    if input.dim() != other.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = wrap_dim(dim, input.dim())
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{input.shape[d]} and {other.shape[d]}")
    if input.dtype is not other.dtype:
        raise RuntimeError(f"expected scalar type {_TYPE[input.dtype.name]} but found "
                           f"{_TYPE[other.dtype.name]}")
    check_broadcast(tuple(input.shape), tuple(other.shape))
    promote(input, other)
    return apply(LinalgCross, (input, other), d)


@export()
def cross(input, other, dim=None):
    """torch.cross: linalg.cross along `dim`, or (deprecated) along the first dim of size 3."""
    if dim is None:
        if _current_state().first_warning("cross without dim"):
            warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either "
                 "pass the dim explicitly or simply use torch.linalg.cross.\nThe default value of "
                 "dim will change to agree with that of linalg.cross in a future release.",
                 UserWarning, stacklevel=2)
        shape = tuple(B.broadcast_shapes(tuple(input.shape), tuple(other.shape))) \
            if input.dim() == other.dim() else tuple(input.shape)
        dim = next((i for i, s in enumerate(shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return linalg_cross(input, other, dim=dim)



