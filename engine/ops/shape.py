"""Shape and indexing ops (views where torch makes views), cat/stack, clone and dtype casts."""

from __future__ import annotations

import math

from .. import backend as B
from .. import batched_reads, errors
from .. import budget as _budget
from ..autograd.function import Function, apply, apply_multi
from ..device import NO_CUDA, check_device, device
from ..dtypes import by_name, result_type
from ..dtypes import dtype as DType
from ..tensor import Tensor, warn
from . import formulas
from .arithmetic import div_scalar
from .helpers import cast, size_args, wrap_dim
from .registry import export


def _infer_shape(shape, numel: int) -> tuple:
    shape = tuple(int(s) for s in shape)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if -1 in shape:
        if known == 0 and numel == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape "
                               f"[{', '.join(map(str, shape))}] because the unspecified "
                               f"dimension size -1 can be any value and is ambiguous")
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of "
                               f"size {numel}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    elif known != numel:
        raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size "
                           f"{numel}")
    return shape


class View(Function):
    name_ = "ViewBackward0"
    zero_passes = (0,)  # torch's kernel keeps sgn's zero gradient (autograd/zero_grad.py)
    chain_rule = "a view only rearranges: to self {grad} reshaped back to self's shape"
    is_view = True
    array_backward = True

    def forward(self, a, shape):
        self.in_shape = B.shape(a._data)
        out = B.view(a._data, shape)
        if out is None:
            raise RuntimeError(errors.VIEW_NOT_COMPATIBLE)
        return out

    def backward(self, grad):
        return (formulas.reshape(grad, self.in_shape),)


class UnsafeView(Function):
    """The reshape that follows a copy (reshape of a non-contiguous tensor, folded matmul)."""

    name_ = "UnsafeViewBackward0"
    chain_rule = "a reshape only rearranges: to self {grad} reshaped back to self's shape"
    array_backward = True

    def forward(self, a, shape):
        self.in_shape = B.shape(a._data)
        return B.reshape(B.contiguous(a._data), shape)

    def backward(self, grad):
        return (formulas.reshape(grad, self.in_shape),)


class ReshapeAlias(View):
    """reshape of a non-contiguous tensor whose strides still allow a view."""

    name_ = "ReshapeAliasBackward0"
    chain_rule = "a reshape only rearranges: to self {grad} reshaped back to self's shape"


class Clone(Function):
    name_ = "CloneBackward0"
    zero_passes = (0,)  # torch's kernel keeps sgn's zero gradient (autograd/zero_grad.py)
    chain_rule = "∂clone(self)/∂self = 1: to self {grad} unchanged"
    array_backward = True

    def forward(self, a):
        return B.copy(a._data)

    def backward(self, grad):
        return (grad,)


class Transpose(Function):
    name_ = "TransposeBackward0"
    chain_rule = "a transpose only rearranges: to self {grad} transposed back"
    is_view = True

    def forward(self, a, d0, d1):
        self.dims = (d0, d1)
        if d0 == d1:  # (also a 0-dim tensor's only choice) a view of the same shape
            return B.view(a._data, B.shape(a._data))
        return B.transpose(a._data, d0, d1)

    def backward(self, grad):
        return (grad.transpose(*self.dims),)


class T(Transpose):
    name_ = "TBackward0"
    chain_rule = "a transpose only rearranges: to self {grad} transposed back"
    array_backward = True

    def backward(self, grad):
        return (formulas.t(grad),)


class Permute(Function):
    name_ = "PermuteBackward0"
    chain_rule = "a permute only rearranges: to self {grad} permuted back"
    is_view = True

    def forward(self, a, dims):
        self.dims = dims
        return B.permute(a._data, dims)

    def backward(self, grad):
        inverse = [0] * len(self.dims)
        for i, d in enumerate(self.dims):
            inverse[d] = i
        return (grad.permute(tuple(inverse)),)  # a tuple: a 0-dim grad permutes by ()


class Alias(Function):
    """The same values as a view, no other change (movedim of a 0-dim tensor)."""

    name_ = "AliasBackward0"
    zero_passes = (0,)  # torch's kernel keeps sgn's zero gradient (autograd/zero_grad.py)
    chain_rule = "an alias is the same tensor: to self {grad}"
    is_view = True

    def forward(self, a):
        return B.reshape(a._data, B.shape(a._data))

    def backward(self, grad):
        return (grad,)


class Squeeze(Function):
    """squeeze(): torch's SqueezeBackward0; the subclasses below are its other overloads."""

    name_ = "SqueezeBackward0"
    zero_passes = (0,)  # torch's kernel keeps sgn's zero gradient (autograd/zero_grad.py)
    chain_rule = "squeeze only drops size-1 dims: to self {grad} with them put back"
    is_view = True

    def forward(self, a, dims):
        self.in_shape = B.shape(a._data)
        shape = tuple(s for i, s in enumerate(self.in_shape) if not (s == 1 and i in dims))
        return B.reshape(a._data, shape)

    def backward(self, grad):
        return (grad.reshape(self.in_shape),)


class SqueezeDim(Squeeze):
    name_ = "SqueezeBackward1"


class SqueezeDims(Squeeze):
    name_ = "SqueezeBackward2"


class SqueezeMatmul(Squeeze):
    """The squeeze inside a 1-D @ 2-D matmul: torch's squeeze_ of the mm's result, in place,
    so the result is no view (an in-place op on it records its own node, not CopySlices)."""

    name_ = "SqueezeBackward4"
    is_view = False


class Unsqueeze(Function):
    name_ = "UnsqueezeBackward0"
    zero_passes = (0,)  # torch's kernel keeps sgn's zero gradient (autograd/zero_grad.py)
    chain_rule = "unsqueeze only adds a size-1 dim: to self {grad} with it removed"
    is_view = True

    def forward(self, a, dim):
        self.dim = dim
        shape = B.shape(a._data)
        return B.reshape(a._data, shape[:dim] + (1,) + shape[dim:])

    def backward(self, grad):
        return (grad.squeeze(self.dim),)


class Expand(Function):
    name_ = "ExpandBackward0"
    chain_rule = "each element of self was copied: to self {grad} summed over the copies"
    is_view = True
    array_backward = True

    def forward(self, a, shape):
        self.in_shape = B.shape(a._data)
        return B.expand(a._data, shape)

    def backward(self, grad):
        return (formulas.sum_to(grad, self.in_shape),)


def _stack_filled(xs, dim: int, shape, dtype):
    """stack(xs, dim) with zeros of `shape` in place of each None."""
    if any(isinstance(x, Tensor) for x in xs):
        zeros = Tensor._make(B.zeros(shape, dtype.name), dtype)
        return stack([zeros if x is None else x for x in xs], dim)
    zeros = B.zeros(shape, dtype.name)
    return B.stack([zeros if x is None else x for x in xs], dim)


class Select(Function):
    name_ = "SelectBackward0"
    chain_rule = "self[index] picked one slice: to self zeros with {grad} in that slice"
    is_view = True

    def forward(self, a, dim, index):
        shape = B.shape(a._data)
        size = shape[dim]
        if not -size <= index < size:
            raise IndexError(
                f"index {index} is out of bounds for dimension {dim} with size {size}"
            )
        self.in_shape, self.dim, self.index = shape, dim, index
        return B.getitem(a._data, (slice(None),) * dim + (index, Ellipsis))

    def backward(self, grad):
        return (apply(SelectScatter, (grad,), self.in_shape, self.dim, self.index),)


class SelectScatter(Function):
    """Backward of select: the gradient placed into zeros of the input's shape."""

    name_ = "SelectBackwardBackward0"
    chain_rule = "the backward of select, differentiated again: picks the same slice of grad"

    def forward(self, g, shape, dim, index):
        self.dim, self.index = dim, index
        out = B.zeros(shape, g._dtype.name)
        B.setitem(out, (slice(None),) * dim + (index,), g._data)
        return out

    def backward(self, grad):
        return (grad.select(self.dim, self.index),)


class Unbind(Function):
    """unbind(dim), and iterating a tensor: one view per index along dim, all of them outputs
    of one node (output k is x.select(dim, k))."""

    name_ = "UnbindBackward0"
    chain_rule = ("unbind split self into slices: to self the slices' gradients stacked back (zeros for "
                  "a slice none reached)")
    is_view = True
    array_backward = True

    def forward(self, a, dim):
        self.dim = dim
        lead = (slice(None),) * dim
        return [B.getitem(a._data, lead + (k, Ellipsis)) for k in range(B.shape(a._data)[dim])]

    def view_step(self, k, dim):
        """How output k is made from the input, as one step of a view chain."""
        return Select, (dim, k)

    def backward(self, grads):
        # torch's unbind_backward: the outputs' gradients stacked, zeros for those with none
        return (_stack_filled(grads, self.dim, self.out_shapes[0], self.out_dtype),)

    def joined_grad(self, grads):
        """The gradients of the outputs (Tensors or None) as one tensor, for the observer."""
        zeros = B.zeros(self.out_shapes[0], self.out_dtype.name)
        return Tensor._make(B.stack([zeros if g is None else g._data for g in grads], self.dim),
                            self.out_dtype)


class Slice(Function):
    name_ = "SliceBackward0"
    chain_rule = "a slice picked part of self: to self zeros with {grad} in that part"
    is_view = True

    def forward(self, a, dim, sl):
        self.in_shape, self.dim, self.sl = B.shape(a._data), dim, sl
        return B.getitem(a._data, (slice(None),) * dim + (sl,))

    def backward(self, grad):
        return (apply(SliceScatter, (grad,), self.in_shape, self.dim, self.sl),)


class SliceScatter(Function):
    name_ = "SliceBackwardBackward0"
    chain_rule = "the backward of slicing, differentiated again: picks the same part of grad"

    def forward(self, g, shape, dim, sl):
        self.dim, self.sl = dim, sl
        out = B.zeros(shape, g._dtype.name)
        B.setitem(out, (slice(None),) * dim + (sl,), g._data)
        return out

    def backward(self, grad):
        return (apply(Slice, (grad,), self.dim, self.sl),)


class Index(Function):
    """Advanced indexing (integer lists/tensors, boolean masks): a copy, not a view. `index`
    is a backend index (an array, or a tuple of arrays and slices), already checked."""

    name_ = "IndexBackward0"
    chain_rule = ("self[indices] picked elements: to self zeros with {grad} added at those indices "
                  "(repeats add up)")

    def forward(self, a, index):
        self.in_shape, self.dtype, self.index = B.shape(a._data), a._dtype, index
        self.keep_for_backward()  # torch saves the index tensors
        return B.getitem(a._data, index)

    def backward(self, grad):
        self.check_not_freed()
        zeros = Tensor._make(B.zeros(self.in_shape, self.dtype.name), self.dtype)
        return (apply(IndexPutImpl, (zeros, grad), self.index, True),)


class IndexPut(Function):
    """index_put(a, index, values, accumulate): a copy of a with values written (or, with
    accumulate, added) at the index; what `y[idx] = v` records. The values broadcast to the
    indexing result. When the index repeats a position, the last value written wins (torch
    leaves that order undefined; on the CPU it is the last too), and with accumulate all add."""

    name_ = "IndexPutBackward0"
    chain_rule = ("self[indices] = values: to self {grad} with zeros where values were written; to "
                  "values {grad} at those indices")

    def forward(self, a, values, index, accumulate):
        self.index, self.accumulate = index, accumulate
        self.values_meta = (B.shape(values._data), values._dtype)
        out = B.copy(a._data)
        if accumulate:
            return B.add(out, B.index_add(B.shape(out), index, values._data, a._dtype.name))
        B.setitem(out, index, values._data)
        return out

    def backward(self, grad):
        # derivatives.yaml: self: accumulate ? grad : grad.index_put(indices, zeros_like(values))
        #                   values: grad.index(indices)  (summed to the values' shape)
        g_self = g_values = None
        if self.needs(0):
            g_self = grad
            if not self.accumulate:
                shape, dtype = self.values_meta
                zeros = Tensor._make(B.zeros(shape, dtype.name), dtype)
                g_self = apply(IndexPut, (grad, zeros), self.index, False)
        if self.needs(1):
            g_values = apply(Index, (grad,), self.index)
        return g_self, g_values


class IndexPutImpl(IndexPut):
    """Index's backward: the gradient added into zeros at the index (torch's
    _index_put_impl_ with accumulate=True, so repeated positions add up)."""

    name_ = "IndexPutImplBackward0"
    chain_rule = ("self[indices] = values: to self {grad} with zeros where values were written; to "
                  "values {grad} at those indices")


class Cat(Function):
    name_ = "CatBackward0"
    zero_passes = range(1 << 16)  # every input: torch's kernel keeps sgn's zero gradient
    chain_rule = "cat joined the tensors: to each input its own part of {grad}"

    def forward(self, *args):
        *tensors, dim = args
        # torch's legacy rule: a 1-D empty tensor is skipped when others have another rank
        ranks = {len(B.shape(t._data)) for t in tensors if B.shape(t._data) != (0,)}
        self.skipped = [B.shape(t._data) == (0,) and ranks not in (set(), {1})
                        for t in tensors]
        kept = [t for t, skip in zip(tensors, self.skipped) if not skip]
        first = B.shape(kept[0]._data)
        for i, t in enumerate(kept[1:], 1):
            s = B.shape(t._data)
            if len(s) != len(first):
                raise RuntimeError(
                    f"Tensors must have same number of dimensions: got {len(first)} and {len(s)}"
                )
            for d, (p, q) in enumerate(zip(first, s)):
                if d != dim and p != q:
                    raise RuntimeError(
                        f"Sizes of tensors must match except in dimension {dim}. Expected size "
                        f"{p} but got size {q} for tensor number {i} in the list."
                    )
        self.dim = dim
        self.sizes = [0 if skip else B.shape(t._data)[dim]
                      for t, skip in zip(tensors, self.skipped)]
        dt = result_type([t for t in tensors])
        return B.concat([cast(t, dt) for t in kept], dim)

    def backward(self, grad):
        out, start = [], 0
        for n, skip in zip(self.sizes, self.skipped):
            if skip:
                out.append(Tensor._make(B.zeros((0,), grad._dtype.name), grad._dtype))
                continue
            out.append(grad.narrow(self.dim, start, n))
            start += n
        return tuple(out)


class Stack(Function):
    name_ = "StackBackward0"
    zero_passes = range(1 << 16)  # every input: torch's kernel keeps sgn's zero gradient
    chain_rule = "stack joined the tensors along a new dim: to each input its own slice of {grad}"

    def forward(self, *args):
        *tensors, dim = args
        self.dim = dim
        shapes = {B.shape(t._data) for t in tensors}
        if len(shapes) > 1:
            s = [B.shape(t._data) for t in tensors]
            first = s[0]
            bad = next(i for i, x in enumerate(s) if x != first)
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got "
                f"[{', '.join(map(str, first))}] at entry 0 and "
                f"[{', '.join(map(str, s[bad]))}] at entry {bad}"
            )
        dt = result_type(list(tensors))  # torch promotes as cat does (numpy would too far)
        return B.stack([cast(t, dt) for t in tensors], dim)

    def backward(self, grad):
        return tuple(grad.select(self.dim, i) for i in range(grad.shape[self.dim]))


class ToCopy(Function):
    name_ = "ToCopyBackward0"
    chain_rule = "a copy in another dtype: to self {grad} converted back to self's dtype"

    def forward(self, a, dt):
        self.src = a._dtype
        return B.astype(a._data, dt.name)

    def backward(self, grad):
        return (grad.to(self.src),)


# -- public functions --------------------------------------------------------------------------

@export(function=False)
def view(input, *shape):
    if len(shape) == 1 and isinstance(shape[0], DType):
        raise NotImplementedError("view(dtype) is not supported")
    shape = _infer_shape(size_args(shape, "view", overloaded=("none", "many", "one")),
                         input.numel())
    return apply(View, (input,), shape)


@export(palette={"code": "{0}.reshape({shape})", "arity": 1, "group": "shape",
                 "label": "reshape(a)", "params": {"shape": "-1"}})
def reshape(input, *shape):
    shape = _infer_shape(size_args(shape, "reshape", "shape"), input.numel())
    if B.view(input._data, shape) is not None:
        return apply(View if B.is_contiguous(input._data) else ReshapeAlias, (input,), shape)
    return apply(UnsafeView, (apply(Clone, (input,)),), shape)


@export(palette={"code": "{0}.flatten()", "arity": 1, "group": "shape", "label": "flatten(a)"})
def flatten(input, start_dim=0, end_dim=-1):
    nd = input.ndim
    s, e = wrap_dim(start_dim, nd), wrap_dim(end_dim, nd)
    if nd == 0:
        return input.reshape(1)
    if s == e:
        return input
    shape = input.shape
    n = 1
    for d in shape[s:e + 1]:
        n *= d
    return input.reshape(tuple(shape[:s]) + (n,) + tuple(shape[e + 1:]))


@export(palette={"code": "{0}.transpose(0, 1)", "arity": 1, "group": "shape",
                 "label": "transpose(a)"})
def transpose(input, dim0, dim1):
    nd = input.ndim
    return apply(Transpose, (input,), wrap_dim(dim0, nd), wrap_dim(dim1, nd))


swapaxes = export("swapaxes")(transpose)


@export(palette={"code": "{0}.t()", "arity": 1, "group": "shape", "label": "t(a)"})
def t(input):
    nd = input.ndim
    if nd > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {nd}D")
    if nd < 2:
        return apply(T, (input,), 0, 0)
    return apply(T, (input,), 0, 1)


@export()
def permute(input, *dims):
    if not dims:
        raise TypeError('permute() missing 1 required positional arguments: "dims"')
    dims = size_args(dims, "permute", "dims")
    nd = input.ndim
    if len(dims) != nd:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the "
            "length of the desired ordering of dimensions i.e. input.dim() = "
            f"{nd} is not equal to len(dims) = {len(dims)}")
    dims = tuple(wrap_dim(d, nd) for d in dims)
    if len(set(dims)) != nd:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return apply(Permute, (input,), dims)


@export("T", function=False, as_property=True)
def _T(self):
    nd = self.ndim
    if nd != 2:
        warn(
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
            "deprecated and it will throw an error in a future release. Consider `x.mT` to "
            "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` "
            "to reverse the dimensions of a tensor. (Triggered internally at "
            "/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4314.)",
            UserWarning,
        )
    return permute(self, *range(nd - 1, -1, -1))


@export("mT", function=False, as_property=True)
def _mT(self):
    return self.transpose(-2, -1)


@export(palette={"code": "{0}.squeeze()", "arity": 1, "group": "shape", "label": "squeeze(a)"})
def squeeze(input, dim=None):
    nd = input.ndim
    if dim is None:
        return apply(Squeeze, (input,), tuple(range(nd)))
    if isinstance(dim, (tuple, list)):
        return apply(SqueezeDims, (input,), tuple(wrap_dim(d, nd) for d in dim))
    return apply(SqueezeDim, (input,), (wrap_dim(dim, nd),))


@export(palette={"code": "{0}.unsqueeze(0)", "arity": 1, "group": "shape",
                 "label": "unsqueeze(a)"})
def unsqueeze(input, dim):
    return apply(Unsqueeze, (input,), wrap_dim(dim, input.ndim + 1))


@export(function=False)
def expand(input, *sizes):
    sizes = size_args(sizes, "expand")
    shape = B.shape(input._data)
    if len(sizes) < len(shape):
        raise RuntimeError(
            f"expand(torch.FloatTensor{{[{', '.join(map(str, shape))}]}}, size=["
            f"{', '.join(map(str, sizes))}]): the number of sizes provided ({len(sizes)}) must be "
            f"greater or equal to the number of dimensions in the tensor ({len(shape)})"
        )
    lead = len(sizes) - len(shape)
    out = []
    for i, s in enumerate(sizes):
        if i < lead:
            out.append(s)
            continue
        cur = shape[i - lead]
        if s == -1:
            out.append(cur)
        elif cur != 1 and cur != s:
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({cur}) at "
                f"non-singleton dimension {i}.  Target sizes: [{', '.join(map(str, sizes))}].  "
                f"Tensor sizes: [{', '.join(map(str, shape))}]"
            )
        else:
            out.append(s)
    out = tuple(out)
    return apply(Expand, (input,), out)


@export(function=False)
def expand_as(input, other):
    return expand(input, *other.shape)


@export()
def select(input, dim, index):
    if input.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, input.ndim)
    size = input.shape[d]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"[{', '.join(map(str, input.shape))}] at dimension {d}")
    return apply(Select, (input,), wrap_dim(dim, input.ndim), index)


@export()
def narrow(input, dim, start, length):
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    dim = wrap_dim(dim, input.ndim)
    size = input.shape[dim]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start})")
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({size}).")
    return apply(Slice, (input,), dim, slice(start, start + length, 1))


@export()
def unbind(input, dim=0):
    dim = wrap_dim(dim, input.ndim)
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    # one tensor per row, made in Python: iterating a tensor, torch.Size(t), stack(t) and cat(t)
    # all come here, so this is where a run's budget bounds them
    _budget.rows(input.shape[dim], "this call (unbind, or iterating over a tensor)")
    return apply_multi(Unbind, (input,), dim)


def _is_advanced(ix) -> bool:
    return isinstance(ix, (list, Tensor)) or B.is_array(ix)


def _shape_list(shape) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


def _flat(v) -> list:
    if not isinstance(v, list):
        return [v]
    out = []
    for x in v:
        out.extend(_flat(x))
    return out


class Advanced:
    """The integer and boolean index tensors of an index, checked as torch checks them against
    `shape` (the indexed tensor's, after the basic part of the index): `index` is the backend
    index, `result_shape` the shape of what it selects. The bounds are checked separately
    (`check_bounds`), because setitem checks the value in between."""

    def __init__(self, shape, parts):
        """parts: (dim, array, how many dims it consumes, whether it is a mask), in order."""
        comp_shapes = []  # one per index tensor, a mask counting as one per dim it consumes
        self.ints = []  # (position among comp_shapes, array, size of the dim it indexes)
        for d, arr, width, is_mask in parts:
            if is_mask:
                mshape = B.shape(arr)
                for j in range(width):
                    if mshape[j] != shape[d + j]:
                        raise IndexError(
                            f"The shape of the mask {_shape_list(mshape)} at index {j} does not "
                            f"match the shape of the indexed tensor {_shape_list(shape)} at "
                            f"index {d + j}")
                count = int(B.item(B.sum(B.astype(arr, "int64"), None, False)))
                comp_shapes.extend([(count,)] * max(width, 1))
            else:
                self.ints.append((len(comp_shapes), arr, shape[d]))
                comp_shapes.append(B.shape(arr))
        try:
            self.broadcast = tuple(B.broadcast_shapes(*comp_shapes))
        except ValueError:
            raise IndexError("shape mismatch: indexing tensors could not be broadcast together "
                             "with shapes " + ", ".join(map(_shape_list, comp_shapes))) from None
        # numpy's rule, which torch follows: the indexed dims are replaced by the broadcast
        # shape in place when they are adjacent, else it goes first
        first, end = parts[0][0], parts[-1][0] + parts[-1][2]
        adjacent = all(p[0] == q[0] + q[2] for q, p in zip(parts, parts[1:]))
        if adjacent:
            self.result_shape = tuple(shape[:first]) + self.broadcast + tuple(shape[end:])
        else:
            used = {d + j for d, _, width, _ in parts for j in range(width)}
            self.result_shape = self.broadcast + tuple(
                s for i, s in enumerate(shape) if i not in used)
        full, d = [], 0
        for at, arr, width, _ in parts:
            full.extend([slice(None)] * (at - d))
            full.append(arr)
            d = at + width
        # a single index stays a bare array (so a single mask stays a mask index)
        self.index = tuple(full) if len(full) != 1 else full[0]

    def check_bounds(self) -> None:
        """torch's error for the first position (in broadcast order) whose index is out of
        range, naming the index tensor's position among them as the dimension. torch checks
        nothing else when the result has no elements, and names no index or dimension for a
        dim of size 0 indexed by a non-empty index."""
        for _, arr, size in self.ints:
            if not size and B.numel(arr):
                raise IndexError("index is out of bounds for dimension with size 0")
        if not math.prod(self.result_shape):
            # nothing is read: any index will do (numpy would still check this one's bounds)
            ints = {id(arr) for _, arr, _ in self.ints}

            def safe(ix):
                return B.zeros(B.shape(ix), "int64") if id(ix) in ints else ix
            self.index = (tuple(safe(ix) for ix in self.index) if isinstance(self.index, tuple)
                          else safe(self.index))
            return
        bad = False
        for _, arr, size in self.ints:
            if B.numel(arr) and not (-size <= B.item(B.amin(arr, None, False))
                                     and B.item(B.amax(arr, None, False)) < size):
                bad = True
        if not bad:
            return
        flat = [(k, _flat(B.tolist(B.expand(arr, self.broadcast))), size)
                for k, arr, size in self.ints]
        for pos in range(len(flat[0][1])):
            for k, values, size in flat:
                v = values[pos]
                if not -size <= v < size:
                    raise IndexError(
                        f"index {v} is out of bounds for dimension {k} with size {size}")


def _index_array(ix):
    """An integer or boolean index (a Tensor or a list) as a backend array, and whether it is
    a mask."""
    if isinstance(ix, Tensor):
        if ix._dtype.is_floating_point:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        return ix._data, ix._dtype.name == "bool"
    if B.is_array(ix):
        return ix, B.dtype_name(ix) == "bool"
    return B.array(ix, "int64"), False


@export(method=False, function=False, operators=("__getitem__",))
def getitem(self, index):
    """torch's indexing: ints select, slices slice (skipping ':' of the whole dim), None adds a
    dim, ... stands for the rest; integer/boolean tensors and lists index (a copy)."""
    out, advanced = index_parts(self, index)
    if advanced is None:
        # an index that changes nothing (x[...], x[:, :], x[()]) makes an alias, as in torch
        return out if out is not self else apply(Alias, (self,))
    advanced.check_bounds()
    return apply(Index, (out,), advanced.index)


def index_parts(self, index, setitem=False):
    """Apply the basic part of an index (select, slice, unsqueeze: views) and check the rest
    (integer and boolean index tensors): (view, Advanced or None). A bare slice `x[a:b]`
    records a Slice even over the whole dim, except in setitem (as in torch)."""
    bare_slice = isinstance(index, slice) and not setitem
    if not isinstance(index, tuple):
        index = (index,)
    n_real = sum(1 for ix in index if ix is not None and ix is not Ellipsis and not (
        isinstance(ix, Tensor) and ix._dtype.name == "bool"))
    n_real += sum(ix.ndim for ix in index if isinstance(ix, Tensor) and ix._dtype.name == "bool")
    nd = self.ndim
    if n_real > nd:
        if nd == 0:
            raise IndexError(
                "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
            )
        raise IndexError(f"too many indices for tensor of dimension {nd}")
    out = self
    dim = 0  # position in the result so far
    advanced = []  # (dim in the result, index array, how many dims it consumes, is a mask)
    for position, ix in enumerate(index):
        if ix is Ellipsis:
            dim += nd - n_real
            continue
        if ix is None:
            out = apply(Unsqueeze, (out,), dim)
            dim += 1
            continue
        if isinstance(ix, bool):
            raise NotImplementedError("indexing with a Python bool is not supported")
        if isinstance(ix, int) or (isinstance(ix, Tensor) and ix.ndim == 0 and
                                    ix._dtype.name == "int64" and not (
                                        batched_reads.state.levels
                                        and batched_reads.indexes_as_tensor(ix))):
            i, size = int(ix), out.shape[dim]
            if not -size <= i < size:  # torch names the item's place in the index
                raise IndexError(
                    f"index {i} is out of bounds for dimension {position} with size {size}"
                )
            out = apply(Select, (out,), dim, i)
            continue
        if isinstance(ix, slice):
            size = out.shape[dim]
            start, stop, step = ix.indices(size)
            if step <= 0:
                raise ValueError("step must be greater than zero")
            # torch skips a slice of the whole dim as written (x[0:], x[:9] of 3 rows, not
            # x[-3:]), before it wraps negative bounds
            whole = ((ix.start is None or ix.start == 0) and step == 1
                     and (ix.stop is None or ix.stop >= size))
            if bare_slice or not whole:
                out = apply(Slice, (out,), dim, slice(start, max(stop, start), step))
            dim += 1
            continue
        if _is_advanced(ix):
            arr, is_mask = _index_array(ix)
            if is_mask and batched_reads.state.levels:  # each sample would select another count
                batched_reads.refuse(batched_reads.BOOLEAN_MASK_ERROR, ix)
            # a boolean mask consumes as many dims as it has; an integer index one
            width = B.ndim(arr) if is_mask else 1
            advanced.append((dim, arr, width, is_mask))
            dim += width
            continue
        raise IndexError(
            "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
            "are valid indices (got " + type(ix).__name__ + ")"
        )
    if not advanced:
        return out, None
    return out, Advanced(B.shape(out._data), advanced)


@export(method=False)
def index_put(input, indices, values, accumulate=False):
    advanced = index_put_args(input, indices, values, "index_put", method=False)
    return apply(IndexPut, (input, values), advanced.index, bool(accumulate))


@export("index_put", function=False)
def _index_put_method(self, indices, values, accumulate=False):
    advanced = index_put_args(self, indices, values, "index_put", method=True)
    return apply(IndexPut, (self, values), advanced.index, bool(accumulate))


def index_put_args(input, indices, values, fn: str, method: bool) -> Advanced:
    """Check index_put's arguments as torch does (argument positions count `self` only in the
    function); the index tensors index dims 0, 1, ..."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"{fn}(): argument 'indices' (position {1 if method else 2}) must be "
                        f"tuple of Tensors, not {type(indices).__name__}")
    if not isinstance(values, Tensor):
        raise TypeError(f"{fn}(): argument 'values' (position {2 if method else 3}) must be "
                        f"Tensor, not {type(values).__name__}")
    parts, dim = [], 0
    for i, ix in enumerate(indices):
        if not isinstance(ix, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument {0 if method else 1}, "
                            f"but got {type(ix).__name__}")
        arr, is_mask = _index_array(ix)
        if is_mask and batched_reads.state.levels:  # each sample would select another count
            batched_reads.refuse(batched_reads.BOOLEAN_MASK_ERROR, ix)
        width = B.ndim(arr) if is_mask else 1
        parts.append((dim, arr, width, is_mask))
        dim += width
    if not parts:
        raise RuntimeError("sym_strides() called on an undefined Tensor")  # sic, torch 2.13
    if dim > input.ndim:
        raise IndexError(f"too many indices for tensor of dimension {input.ndim} (got {dim})")
    advanced = Advanced(B.shape(input._data), parts)
    check_index_put_values(input, advanced, values)
    advanced.check_bounds()
    return advanced


def check_index_put_values(target, advanced, values) -> None:
    """torch's checks of index_put's values: their shape, then their dtype."""
    vshape, rshape = B.shape(values._data), advanced.result_shape
    try:
        ok = tuple(B.broadcast_shapes(vshape, rshape)) == rshape
    except ValueError:
        ok = False
    if not ok:
        raise RuntimeError(f"shape mismatch: value tensor of shape {_shape_list(vshape)} cannot "
                           f"be broadcast to indexing result of shape {_shape_list(rshape)}")
    if values._dtype is not target._dtype:
        raise RuntimeError(errors.index_put_dtypes(target._dtype, values._dtype))


@export(palette={"code": "torch.cat([{0}, {1}])", "arity": 2, "group": "shape",
                 "label": "cat([a, b])"})
def cat(tensors, dim=0):
    tensors = _tensor_list(tensors, "cat")
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if t.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    ref = next((t for t in tensors if t.shape != (0,)), None)
    # only 1-D empty tensors: torch checks no dim and joins them along their one dim
    dim = 0 if ref is None else wrap_dim(dim, ref.ndim)
    return apply(Cat, tuple(tensors), dim)


def _tensor_list(tensors, fn: str) -> list:
    """cat's and stack's first argument: a list or tuple of Tensors, as torch checks it."""
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{fn}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        f"not {type(tensors).__name__}")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(t).__name__}")
    return list(tensors)


concat = export("concat", method=False)(cat)


@export(palette={"code": "torch.stack([{0}, {1}])", "arity": 2, "group": "shape",
                 "label": "stack([a, b])"})
def stack(tensors, dim=0):
    tensors = _tensor_list(tensors, "stack")
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    dim = wrap_dim(dim, tensors[0].ndim + 1)
    return apply(Stack, tuple(tensors), dim)


@export(palette={"code": "{0}.clone()", "arity": 1, "group": "graph", "label": "clone(a)"})
def clone(input):
    return apply(Clone, (input,))


@export(function=False)
def contiguous(input):
    if B.is_contiguous(input._data):
        return input
    return apply(Clone, (input,))


@export("to", function=False)
def _to(self, *args, **kwargs):
    dt = kwargs.get("dtype")
    for a in args:
        if isinstance(a, DType):
            dt = a
        elif isinstance(a, Tensor):
            dt = a._dtype
        elif isinstance(a, (str, device)):
            check_device(a)
    check_device(kwargs.get("device"))
    if dt is None or dt is self._dtype:
        return self
    return apply(ToCopy, (self,), dt)


@export("float", function=False)
def _float(self):
    return _to(self, by_name("float32"))


@export("double", function=False)
def _double(self):
    return _to(self, by_name("float64"))


@export("long", function=False)
def _long(self):
    return _to(self, by_name("int64"))


@export("bool", function=False)
def _bool(self):
    return _to(self, by_name("bool"))


@export("type_as", function=False)
def _type_as(self, other):
    return _to(self, other._dtype)


# Tensor.type()'s names for each dtype (the legacy tensor classes' names)
_TYPE_NAMES = {"float32": "torch.FloatTensor", "float64": "torch.DoubleTensor",
               "int64": "torch.LongTensor", "bool": "torch.BoolTensor"}


@export("type", function=False)
def _type(self, dtype=None, non_blocking=False, **kwargs):
    """x.type(): the legacy type name; x.type(dtype or name): x converted, as x.to(dtype)."""
    if dtype is None:
        return _TYPE_NAMES[self._dtype.name]
    if isinstance(dtype, str):
        names = {v: k for k, v in _TYPE_NAMES.items()}
        if dtype not in names:
            raise ValueError(f"invalid type: {dtype!r}")
        dtype = by_name(names[dtype])
    elif isinstance(dtype, type) and isinstance(getattr(dtype, "dtype", None), DType):
        dtype = dtype.dtype  # a legacy type: torch.LongTensor (engine/legacy.py)
    if not isinstance(dtype, DType):
        raise TypeError("dtype must be a type, str, or dtype object")
    return _to(self, dtype)


@export("cpu", function=False)
def _cpu(self):
    return self


@export("cuda", function=False)
def _cuda(self, device=None, non_blocking=False):
    raise AssertionError(NO_CUDA)


@export(method=False)
def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """torch.gradient: estimated derivatives along each dim (central differences inside,
    one-sided at the two ends), one tensor per dim, built from the ops torch records: slices,
    sub, division by the spacing, cat. Gap, declared: number spacings only (no coordinate
    tensors) and edge_order=1 only."""
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    if edge_order == 2:
        raise NotImplementedError("gradplay's torch.gradient supports edge_order=1 only")
    dims = list(range(input.ndim)) if dim is None else (
        [dim] if isinstance(dim, int) else list(dim))
    dims = [wrap_dim(d, input.ndim) for d in dims]
    if isinstance(spacing, (list, tuple)):
        if any(isinstance(s, Tensor) for s in spacing):
            raise NotImplementedError("gradplay's torch.gradient supports number spacings only")
        if len(spacing) != len(dims):
            if dim is None:
                raise RuntimeError(
                    "torch.gradient expected spacing to be unspecified, a scalar, or a list of "
                    f"length equal to 'self.dim() = {input.ndim}', since dim argument was not "
                    f"given, but got a list of length {len(spacing)}")
            raise RuntimeError(
                "torch.gradient expected spacing to be unspecified, a scalar or it's spacing "
                "and dim arguments to have the same length, but got a spacing argument of "
                f"length {len(spacing)} and a dim argument of length {len(dims)}.")
        steps = list(spacing)
    elif isinstance(spacing, Tensor):
        raise NotImplementedError("gradplay's torch.gradient supports number spacings only")
    else:
        steps = [spacing] * len(dims)
    if any(input.shape[d] < edge_order + 1 for d in dims):
        raise RuntimeError(
            "torch.gradient expected each dimension size to be at least edge_order+1")
    if not input.dtype.is_floating_point:
        input = input.float()  # torch divides an integer difference into the default float

    def part(d, start, stop):
        return narrow(input, d, start, stop - start)

    out = []
    for d, h in zip(dims, steps):
        n = input.shape[d]
        center = div_scalar(part(d, 2, n) - part(d, 0, n - 2), h)
        first = div_scalar(part(d, 1, 2) - part(d, 0, 1), h)
        last = div_scalar(part(d, n - 1, n) - part(d, n - 2, n - 1), h)
        out.append(cat([first, div_scalar(center, 2), last], d))
    return tuple(out)
