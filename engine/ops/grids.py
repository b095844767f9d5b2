"""Grids of coordinates and matrices made of blocks: meshgrid, cartesian_prod, block_diag.

meshgrid and cartesian_prod are torch's compositions of views and stack, so their graphs are
the nodes of those ops (ExpandBackward0 over ViewBackward0, StackBackward0); block_diag is one
node, BlockDiagBackward0, whose backward hands each input its block of the gradient.
"""

from __future__ import annotations

from .. import backend as B
from ..autograd.function import Function, apply
from ..dtypes import result_type
from ..state import current as _current_state
from ..tensor import Tensor, warn
from .cpp_print import cpp_str
from .helpers import cast
from .registry import export
from .shape import stack


def _tensors(args, fn: str) -> list:
    """meshgrid(a, b) and meshgrid([a, b]) alike, as torch's Python wrapper takes them."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    for t in args:
        if not isinstance(t, Tensor):
            raise TypeError(f"{fn}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                            f"not {type(t).__name__}")
    return list(args)


@export(method=False)
def meshgrid(*tensors, indexing=None):
    """One grid per input: input i varies along dim i (along dims 1 and 0 for the first two
    with indexing="xy"), expanded over the others."""
    tensors = _tensors(tensors, "meshgrid")
    if indexing is None:
        if _current_state().first_warning("meshgrid indexing"):
            warn("torch.meshgrid: in an upcoming release, it will be required to pass the "
                 "indexing argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for a, b in zip(tensors, tensors[1:]):
        if a.dtype is not b.dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    swap = indexing == "xy" and len(tensors) >= 2
    if indexing not in ("xy", "ij"):
        raise RuntimeError('torch.meshgrid: indexing must be one of "xy" or "ij", but received: '
                           f"{indexing}")
    if swap:
        tensors[0], tensors[1] = tensors[1], tensors[0]
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got: {cpp_str(t)}")
    shape = [t.numel() for t in tensors]
    grids = []
    for i, t in enumerate(tensors):
        view_shape = [1] * len(tensors)
        view_shape[i] = -1
        grids.append(t.view(*view_shape).expand(*shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


@export(method=False)
def cartesian_prod(*tensors):
    """Every combination of one element from each 1-D input, one row each (the last input
    varying fastest)."""
    tensors = _tensors(tensors, "cartesian_prod")
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape [{', '.join(map(str, t.shape))}]")
    if len(tensors) == 1:
        return tensors[0]  # torch hands the input back itself
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.flatten() for g in grids], 1)


class BlockDiag(Function):
    """The inputs (as 2-D blocks) along the diagonal of a matrix of zeros."""

    name_ = "BlockDiagBackward0"
    chain_rule = "block_diag placed each input on the diagonal: to each input its block of {grad}"

    def forward(self, *args):
        *tensors, dt = args
        self.shapes = [B.shape(t._data) for t in tensors]
        self.dtypes = [t._dtype for t in tensors]
        blocks = []
        for t, s in zip(tensors, self.shapes):
            data = cast(t, dt)
            blocks.append(B.reshape(data, s if len(s) == 2 else (1, s[0] if s else 1)))
        rows = sum(B.shape(b)[0] for b in blocks)
        cols = sum(B.shape(b)[1] for b in blocks)
        out = B.zeros((rows, cols), dt.name)
        r = c = 0
        for b in blocks:
            h, w = B.shape(b)
            B.setitem(out, (slice(r, r + h), slice(c, c + w)), b)
            r, c = r + h, c + w
        return out

    def backward(self, grad):
        out, r, c = [], 0, 0
        for s, dt in zip(self.shapes, self.dtypes):
            if len(s) == 1 and s[0] == 0:
                # torch's block_diag_backward skips an empty 1-D input without moving down
                # the row it took in forward: the next blocks read their gradient one row up
                out.append(Tensor._make(B.zeros((0,), grad._dtype.name), grad._dtype).to(dt))
                continue
            h, w = s if len(s) == 2 else (1, s[0] if s else 1)
            block = grad[r:r + h, c:c + w]
            if len(s) != 2:
                block = block.reshape(s)
            out.append(block if block.dtype is dt else block.to(dt))
            r, c = r + h, c + w
        return tuple(out)


@export(method=False)
def block_diag(*tensors):
    tensors = _tensors(tensors, "block_diag")
    if not tensors:
        return Tensor._make(B.zeros((1, 0), "float32"))
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. "
                               f"Input {i} has {t.dim()} dimensions")
    return apply(BlockDiag, tuple(tensors), result_type(tensors))
