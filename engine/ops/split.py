"""split and chunk: a tensor cut along one dim into consecutive pieces, each a view of it, all
outputs of one node (torch's SplitBackward0 for a piece size, SplitWithSizesBackward0 for a
list of sizes; chunk is split by ceil(size / chunks)). Being views made by a function that
returns several views, the pieces may not be changed in place while they require grad (see
engine/autograd/function.py, `_mark_view`)."""

from __future__ import annotations

from .. import backend as B
from ..autograd.function import Function, apply_multi
from ..tensor import Tensor
from .helpers import wrap_dim
from .registry import export
from .shape import Slice, cat


class Split(Function):
    name_ = "SplitBackward0"
    chain_rule = ("split cut self into pieces: to self the pieces' gradients joined back (zeros for a "
                  "piece none reached)")
    is_view = True
    array_backward = True

    def forward(self, a, dim, bounds):
        self.dim, self.bounds = dim, bounds
        lead = (slice(None),) * dim
        return [B.getitem(a._data, lead + (slice(start, stop),)) for start, stop in bounds]

    def view_step(self, k, dim, bounds):
        """How output k is made from the input, as one step of a view chain."""
        start, stop = bounds[k]
        return Slice, (dim, slice(start, stop, 1))

    def backward(self, grads):
        # torch's split_backward: the pieces' gradients joined, zeros for those with none
        # (Tensors, or backend arrays on the engine's array path, see `array_backward`)
        dtype = self.out_dtype
        if any(isinstance(g, Tensor) for g in grads):
            return (cat([Tensor._make(B.zeros(shape, dtype.name), dtype) if g is None else g
                         for g, shape in zip(grads, self.out_shapes)], self.dim),)
        return (B.concat([B.zeros(shape, dtype.name) if g is None else g
                          for g, shape in zip(grads, self.out_shapes)], self.dim),)

    def joined_grad(self, grads):
        """The gradients of the outputs (Tensors or None) as one tensor, for the observer."""
        dtype = self.out_dtype
        parts = [B.zeros(shape, dtype.name) if g is None else g._data
                 for g, shape in zip(grads, self.out_shapes)]
        return Tensor._make(B.concat(parts, self.dim), dtype)


class SplitWithSizes(Split):
    name_ = "SplitWithSizesBackward0"


def _dim_of(input, dim: int, fn: str) -> int:
    if input.ndim == 0:
        raise RuntimeError(f"{fn} expects at least a 1-dimensional tensor")
    return wrap_dim(dim, input.ndim)


def _by_size(input, size: int, dim: int) -> tuple:
    n = input.shape[dim]
    if size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={size}")
    if size == 0 and n != 0:
        raise RuntimeError("split_size can only be 0 if dimension size is 0, but got dimension "
                           f"size of {n}")
    if n == 0:
        return apply_multi(Split, (input,), dim, ((0, 0),))
    bounds = tuple((start, min(start + size, n)) for start in range(0, n, size))
    return apply_multi(Split, (input,), dim, bounds)


def _by_sizes(input, sizes, dim: int) -> tuple:
    sizes = [int(s) for s in sizes]
    n = input.shape[dim]
    listed = "[" + ", ".join(map(str, sizes)) + "]"
    if any(s < 0 for s in sizes):
        raise RuntimeError("split_with_sizes expects split_sizes have only non-negative entries, "
                           f"but got split_sizes={listed}")
    if sum(sizes) != n:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input "
                           f"tensor's size at dimension {dim}), but got split_sizes={listed}")
    bounds, start = [], 0
    for s in sizes:
        bounds.append((start, start + s))
        start += s
    return apply_multi(SplitWithSizes, (input,), dim, tuple(bounds))


def _split(tensor, sizes, dim):
    d = _dim_of(tensor, dim, "split")
    if isinstance(sizes, (list, tuple)):
        return _by_sizes(tensor, sizes, d)
    return _by_size(tensor, int(sizes), d)


@export(method=False)
def split(tensor, split_size_or_sections, dim=0):
    return _split(tensor, split_size_or_sections, dim)


@export("split", function=False)
def _split_method(self, split_size, dim=0):
    return _split(self, split_size, dim)


@export()
def split_with_sizes(input, split_sizes, dim=0):
    return _by_sizes(input, split_sizes, _dim_of(input, dim, "split"))


@export()
def chunk(input, chunks, dim=0):
    if input.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = wrap_dim(dim, input.ndim)
    n = input.shape[d]
    if n == 0:  # torch gives `chunks` empty pieces (split_with_sizes of zeros)
        return _by_sizes(input, [0] * chunks, d)
    return _by_size(input, -(-n // chunks), d)  # ceil: torch's chunk is split by this size
