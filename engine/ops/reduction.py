"""Reductions (sum mean amax amin max min argmax argmin) and softmax/log_softmax."""

from __future__ import annotations

from collections import namedtuple

from .. import backend as B
from ..autograd.function import Function, apply
from ..batched_reads import derived
from ..tensor import Tensor
from . import formulas
from .compare import maximum, minimum, where
from .helpers import dims_tuple, float_data, wrap_dim
from .registry import export

_TYPE = {"int64": "Long", "float32": "Float", "float64": "Double", "bool": "Bool"}


def _restore(grad: Tensor, dims, ndim: int, keepdim: bool) -> Tensor:
    """Give a reduced gradient its reduced dims back (size 1) so it broadcasts to the input."""
    if keepdim or dims is None:
        return grad if dims is not None or keepdim else grad
    for d in dims:
        grad = formulas.unsqueeze(grad, d)
    return grad


def _sum_dtype(t):
    # sum/mean of integer or bool tensors: torch sums bool and int as int64
    return t._data if t._dtype.is_floating_point or t._dtype.name == "int64" else B.astype(
        t._data, "int64")


class Sum(Function):
    name_ = "SumBackward0"
    zero_passes = (0,)  # torch's kernel keeps sgn's zero gradient (autograd/zero_grad.py)
    chain_rule = "∂sum(self)/∂self = 1 for every element: to self {grad} copied to self's shape"
    array_backward = True

    def forward(self, a):
        self.shape = B.shape(a._data)
        return B.sum(_sum_dtype(a), None, False)

    def backward(self, grad):
        return (formulas.expand(grad, self.shape),)


class SumDim(Function):
    name_ = "SumBackward1"
    chain_rule = "∂sum(self, dim)/∂self = 1: to self {grad} copied along the summed dims"
    array_backward = True

    def forward(self, a, dims, keepdim):
        self.shape = B.shape(a._data)
        self.dims, self.keepdim = dims, keepdim
        return B.sum(_sum_dtype(a), dims, keepdim)

    def backward(self, grad):
        g = _restore(grad, self.dims, len(self.shape), self.keepdim)
        return (formulas.expand(g, self.shape),)


class Mean(Function):
    name_ = "MeanBackward0"
    chain_rule = "∂mean(self)/∂self = 1/N: to self {grad}/N copied to self's shape"
    array_backward = True

    def forward(self, a):
        _require_float(a, "mean")
        self.shape = B.shape(a._data)
        self.count = B.numel(a._data)
        return B.mean(a._data, None, False)

    def backward(self, grad):
        return (formulas.expand(grad, self.shape) / self.count,)


class MeanDim(Function):
    name_ = "MeanBackward1"
    chain_rule = "∂mean(self, dim)/∂self = 1/N along dim: to self {grad}/N copied along it"
    array_backward = True

    def forward(self, a, dims, keepdim):
        _require_float(a, "mean")
        self.shape = B.shape(a._data)
        self.dims, self.keepdim = dims, keepdim
        count = 1
        for d in dims:
            count *= self.shape[d]
        self.count = count
        return B.mean(a._data, dims, keepdim)

    def backward(self, grad):
        g = _restore(grad, self.dims, len(self.shape), self.keepdim)
        return (formulas.expand(g, self.shape) / self.count,)


def _require_float(a, name):
    if not a._dtype.is_floating_point:
        raise RuntimeError(
            f"{name}(): could not infer output dtype. Input dtype must be either a floating "
            f"point or complex dtype. Got: {_TORCH_TYPE[a._dtype.name]}"
        )


_TORCH_TYPE = {"int64": "Long", "bool": "Bool", "float32": "Float", "float64": "Double"}


class Amax(Function):
    """amax/amin over dims: ties share the gradient evenly (torch's scale_grad_by_count)."""

    name_ = "AmaxBackward0"
    zero_passes = (0,)  # torch's kernel keeps sgn's zero gradient (autograd/zero_grad.py)
    chain_rule = ("amax passes the gradient to the largest elements (split evenly between ties), 0 "
                  "elsewhere")
    saves_result = True
    reduce = staticmethod(lambda a, dims, keepdim: B.amax(a, dims, keepdim))

    def forward(self, a, dims, keepdim):
        self.save(a)
        self.dims, self.keepdim = dims, keepdim
        return self.reduce(a._data, dims, keepdim)

    def backward(self, grad):
        a, result = self.saved_tensors
        nd = a.ndim
        g = _restore(grad, self.dims, nd, self.keepdim)
        r = _restore(result, self.dims, nd, self.keepdim)
        mask = a == r
        count = mask.sum(self.dims if self.dims is not None else list(range(nd)), keepdim=True)
        return (g * mask / count,)


class Amin(Amax):
    name_ = "AminBackward0"
    chain_rule = ("amin passes the gradient to the smallest elements (split evenly between ties), 0 "
                  "elsewhere")
    reduce = staticmethod(lambda a, dims, keepdim: B.amin(a, dims, keepdim))


class MaxAll(Function):
    """max()/min() of the whole tensor: ties share the gradient evenly."""

    name_ = "MaxBackward1"
    chain_rule = ("max() passes the gradient to the largest element (split evenly between ties), 0 "
                  "elsewhere")
    saves_result = True
    reduce = staticmethod(lambda a: B.amax(a, None, False))

    def forward(self, a):
        if B.numel(a._data) == 0:
            raise RuntimeError(
                f"{self.name_[:3].lower()}(): Expected reduction dim to be specified for "
                "input.numel() == 0. Specify the reduction dim with the 'dim' argument."
            )
        self.save(a)
        return self.reduce(a._data)

    def backward(self, grad):
        a, result = self.saved_tensors
        return (evenly_distribute(grad, a, result),)


def evenly_distribute(grad, a, result):
    """torch's evenly_distribute_backward (max(), min(), median()): grad shared among the
    elements equal to the result (the NaN ones when it is NaN), written into zeros (+0.0
    elsewhere, never grad * 0)."""
    mask = (a == result) | (a.isnan() & result.isnan())
    return where(mask, grad / mask.sum(), 0.0)


class MinAll(MaxAll):
    name_ = "MinBackward1"
    chain_rule = ("min() passes the gradient to the smallest element (split evenly between ties), 0 "
                  "elsewhere")
    reduce = staticmethod(lambda a: B.amin(a, None, False))


class MaxDim(Function):
    """max(dim)/min(dim): the gradient goes to the one index returned (the first extreme)."""

    name_ = "MaxBackward0"
    chain_rule = "max(dim) passes each gradient to the element its index points at, 0 elsewhere"
    find = staticmethod(lambda a, dim: B.argmax(a, dim, True))

    def forward(self, a, dim, keepdim):
        self.shape = B.shape(a._data)
        self.dim, self.keepdim = dim, keepdim
        idx = self.find(a._data, dim)
        self.indices = idx
        self.keep_for_backward()  # torch saves the indices
        values = B.take_along(a._data, idx, dim) if hasattr(B, "take_along") else None
        if values is None:
            values = _take_along(a._data, idx, dim)
        if not keepdim:
            values = B.reshape(values, _drop(self.shape, dim))
        return values

    def backward(self, grad):
        self.check_not_freed()
        g = grad if self.keepdim else grad.unsqueeze(self.dim)
        return (_scatter_along(g, self.indices, self.dim, self.shape),)


class MinDim(MaxDim):
    name_ = "MinBackward0"
    chain_rule = "min(dim) passes each gradient to the element its index points at, 0 elsewhere"
    find = staticmethod(lambda a, dim: B.argmin(a, dim, True))


def _drop(shape, dim):
    return shape[:dim] + shape[dim + 1:]


def _index_grid(idx_shape, dim, idx):
    """An advanced index selecting, along dim, the positions in idx (keepdim shape)."""
    index = []
    nd = len(idx_shape)
    for d in range(nd):
        if d == dim:
            index.append(idx)
        else:
            shape = [1] * nd
            shape[d] = idx_shape[d]
            index.append(B.reshape(B.arange(0, idx_shape[d], 1, "int64"), tuple(shape)))
    return tuple(index)


def _take_along(a, idx, dim):
    if B.ndim(a) == 0:
        return a
    return B.getitem(a, _index_grid(B.shape(idx), dim, idx))


def _scatter_along(g: Tensor, idx, dim, shape) -> Tensor:
    """A tensor of `shape` holding g at idx along dim and zeros elsewhere (differentiable)."""
    return apply(ScatterAlong, (g,), idx, dim, shape)


class ScatterAlong(Function):
    """Backward of max(dim) and of the other ops that pick elements (sort, topk, median...): the
    gradient written into zeros at the picked indices."""

    # torch 2.13 computes this gradient as zeros.scatter(dim, indices, grad)
    name_ = "ScatterBackward0"
    chain_rule = ("scatter wrote src into self at index along dim: to self {grad} with zeros where src "
                  "was written; to src {grad} picked at index")

    def forward(self, g, idx, dim, shape):
        self.idx, self.dim = idx, dim
        if len(shape) == 0:
            return B.copy(g._data)
        index = _index_grid(B.shape(idx), dim, idx)
        return B.index_add(shape, index, g._data, g._dtype.name)

    def backward(self, grad):
        if grad.ndim == 0:
            return (grad,)
        return (Tensor._make(_take_along(grad._data, self.idx, self.dim)),)


def _along(fn, data, dim):
    """fn(data, dim); a 0-dim tensor counts as one element along its dim 0, as in torch."""
    if B.numel(data) == 0:
        return B.copy(data)
    if B.ndim(data):
        return fn(data, dim)
    return B.reshape(fn(B.reshape(data, (1,)), 0), ())


class Softmax(Function):
    name_ = "SoftmaxBackward0"
    chain_rule = "∂softmax: to self y·({grad} − sum(grad·y)) along dim, where y is the result"
    array_backward = True
    saves_result = True

    def forward(self, a, dim):
        self.dim = dim
        return _along(B.softmax, float_data(a), dim)

    def backward(self, grad):
        (y,) = self.saved_tensors
        return (y * (grad - formulas.sum_keepdim(grad * y, self.dim)),)


class LogSoftmax(Function):
    name_ = "LogSoftmaxBackward0"
    chain_rule = "∂log_softmax: to self {grad} − softmax(self)·sum(grad) along dim"
    array_backward = True
    saves_result = True

    def forward(self, a, dim):
        self.dim = dim
        return _along(B.log_softmax, float_data(a), dim)

    def backward(self, grad):
        (y,) = self.saved_tensors
        return (grad - formulas.exp(y) * formulas.sum_keepdim(grad, self.dim),)


# -- public functions --------------------------------------------------------------------------

return_types_max = namedtuple("max", ["values", "indices"])
return_types_min = namedtuple("min", ["values", "indices"])
for _nt in (return_types_max, return_types_min):
    _nt.__module__ = "torch.return_types"
    _nt.__repr__ = lambda self: (
        f"torch.return_types.{type(self).__name__}(\nvalues={self.values!r},\n"
        f"indices={self.indices!r})"
    )


@export(palette={"code": "{0}.sum()", "arity": 1, "group": "reduction", "label": "sum(a)"})
def sum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A001
    if dtype is not None:
        input = input.to(dtype)
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        if dim is None:
            return apply(Sum, (input,))
    dims = dims_tuple(dim, input.ndim) if dim != () and dim != [] else tuple(range(input.ndim))
    return apply(SumDim, (input,), dims, keepdim)


@export(palette={"code": "{0}.mean()", "arity": 1, "group": "reduction", "label": "mean(a)"})
def mean(input, dim=None, keepdim=False, *, dtype=None):
    if dtype is not None:
        input = input.to(dtype)
    if not input._dtype.is_floating_point:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {_TYPE[input._dtype.name]}")
    if dim is None:
        return apply(Mean, (input,))
    # an empty dim list means every dim (torch's MeanBackward1, as sum's)
    dims = dims_tuple(dim, input.ndim) if dim != () and dim != [] else tuple(range(input.ndim))
    return apply(MeanDim, (input,), dims, keepdim)


@export()
def amax(input, dim=(), keepdim=False):
    dims = None if dim == () or dim == [] else dims_tuple(dim, input.ndim)
    _check_nonempty("amax", input, dim, dims)
    return apply(Amax, (input,), dims, keepdim)


@export()
def amin(input, dim=(), keepdim=False):
    dims = None if dim == () or dim == [] else dims_tuple(dim, input.ndim)
    _check_nonempty("amin", input, dim, dims)
    return apply(Amin, (input,), dims, keepdim)


def _check_nonempty(fn: str, input, dim, dims, full_error=RuntimeError) -> None:
    """torch's errors for a max-like reduction of nothing: of a whole empty tensor, or along
    a dim of size 0 (named as the caller wrote it)."""
    if dims is None:
        if input.numel() == 0:
            more = (" Specify the reduction dim with the 'dim' argument."
                    if full_error is RuntimeError else "")
            raise full_error(f"{fn}(): Expected reduction dim to be specified for "
                             f"input.numel() == 0.{more}")
        return
    shape = input.shape
    given = [dim] if isinstance(dim, int) else list(dim)
    for g in given if len(dims) == len(given) else []:  # in the order written, as torch
        d = wrap_dim(g, len(shape))
        if shape and shape[d] == 0:
            raise IndexError(f"{fn}(): Expected reduction dim {g} to have non-zero size.")


def _extreme(full_cls, dim_cls, result_type, input, dim, keepdim, other):
    if other is not None:
        return (maximum if full_cls is MaxAll else minimum)(input, other)
    if dim is None:
        return apply(full_cls, (input,))
    if isinstance(dim, Tensor):
        return (maximum if full_cls is MaxAll else minimum)(input, dim)
    d = wrap_dim(dim, input.ndim)
    _check_nonempty("max" if full_cls is MaxAll else "min", input, d, (d,))
    values = apply(dim_cls, (input,), d, keepdim)
    node = values._grad_fn if values._grad_fn is not None else None
    idx_arr = node.indices if node is not None else None
    if idx_arr is None:
        idx_arr = (B.argmax if full_cls is MaxAll else B.argmin)(input._data, d, True)
    if not keepdim:
        idx_arr = B.reshape(idx_arr, _drop(B.shape(input._data), d))
    return result_type(values, Tensor._make(idx_arr))


@export(palette={"code": "{0}.max()", "arity": 1, "group": "reduction", "label": "max(a)"})
def max(input, dim=None, keepdim=False, *, other=None):  # noqa: A001
    return _extreme(MaxAll, MaxDim, return_types_max, input, dim, keepdim, other)


@export(palette={"code": "{0}.min()", "arity": 1, "group": "reduction", "label": "min(a)"})
def min(input, dim=None, keepdim=False, *, other=None):  # noqa: A001
    return _extreme(MinAll, MinDim, return_types_min, input, dim, keepdim, other)


@export()
def argmax(input, dim=None, keepdim=False):
    if input._dtype.name == "bool":
        raise RuntimeError("argmax(): does not support bool input")
    wrapped = None if dim is None else wrap_dim(dim, input.ndim)
    _check_nonempty("argmax", input, wrapped, None if dim is None else (wrapped,), IndexError)
    if dim is None:
        flat = B.reshape(input._data, (-1,))
        return derived(Tensor._make(B.reshape(B.argmax(flat, 0, False), ())), input)
    return derived(Tensor._make(B.argmax(input._data, wrap_dim(dim, input.ndim), keepdim)), input)


@export()
def argmin(input, dim=None, keepdim=False):
    if input._dtype.name == "bool":
        raise RuntimeError("argmin(): does not support bool input")
    wrapped = None if dim is None else wrap_dim(dim, input.ndim)
    _check_nonempty("argmin", input, wrapped, None if dim is None else (wrapped,), IndexError)
    if dim is None:
        flat = B.reshape(input._data, (-1,))
        return derived(Tensor._make(B.reshape(B.argmin(flat, 0, False), ())), input)
    return derived(Tensor._make(B.argmin(input._data, wrap_dim(dim, input.ndim), keepdim)), input)


@export(palette={"code": "{0}.softmax(dim={dim})", "arity": 1, "group": "reduction",
                 "label": "softmax(a)", "params": {"dim": -1}})
def softmax(input, dim, dtype=None):
    if dtype is not None:
        input = input.to(dtype)
    dim = wrap_dim(dim, input.ndim)
    if not input._dtype.is_floating_point and input.numel():
        kernel = "softmax_lastdim_kernel_impl" if dim >= input.ndim - 1 else "softmax_kernel_impl"
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_TYPE[input._dtype.name]}'")
    return apply(Softmax, (input,), dim)


@export(palette={"code": "{0}.log_softmax(dim={dim})", "arity": 1, "group": "reduction",
                 "label": "log_softmax(a)", "params": {"dim": -1}})
def log_softmax(input, dim, dtype=None):
    if dtype is not None:
        input = input.to(dtype)
    dim = wrap_dim(dim, input.ndim)
    if not input._dtype.is_floating_point and input.numel():
        kernel = "log_softmax_lastdim_kernel_impl" if dim >= input.ndim - 1 else "log_softmax_kernel_impl"
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_TYPE[input._dtype.name]}'")
    return apply(LogSoftmax, (input,), dim)
