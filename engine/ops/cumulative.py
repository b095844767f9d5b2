"""Products and running totals: prod (of everything, or along one dim), cumsum and cumprod.

Their backward formulas are torch's (derivatives.yaml, FunctionsManual.cpp), written with engine
operations so that they can be differentiated again. A product's gradient divides the product by
each element where no element is zero; where some are, it multiplies the products of the
elements before and after each one instead, so that one zero gets the product of the others and
two zeros give zeros everywhere, exactly as in torch."""

from __future__ import annotations

from .. import backend as B
from ..autograd import grad_mode
from ..autograd.function import Function, apply
from ..tensor import Tensor
from .compare import where
from .helpers import wrap_dim
from .registry import export
from .shape import cat


def _wide_data(a):
    """Bool tensors multiply and add up as int64, as in torch."""
    return B.astype(a._data, "int64") if a._dtype.name == "bool" else a._data


def _count_zeros(t: Tensor) -> int:
    d = t._data
    return int(B.item(B.sum(B.eq(d, B.scalar(0, B.dtype_name(d))), None, False))) if \
        B.numel(d) else 0


def _reversed(t: Tensor, dim: int) -> Tensor:
    return t.flip(dim)


def _reversed_cumsum(t: Tensor, dim: int) -> Tensor:
    return _reversed(_reversed(t, dim).cumsum(dim), dim)


def _prod_safe_zeros(grad: Tensor, inp: Tensor, dim: int) -> Tensor:
    """grad times, for each element, the product of all the others along dim: the product of
    those before it (an exclusive running product) times the product of those after it."""
    if inp.numel() == 0:
        return grad.expand(inp.shape)
    n = inp.shape[dim]
    ones_shape = list(inp.shape)
    ones_shape[dim] = 1
    ones = Tensor._make(B.ones(tuple(ones_shape), inp._dtype.name))
    before = cat([ones, inp.narrow(dim, 0, n - 1)], dim).cumprod(dim)
    after = _reversed(cat([ones, _reversed(inp.narrow(dim, 1, n - 1), dim)], dim).cumprod(dim),
                      dim)
    return grad * (before * after)


class Prod(Function):
    name_ = "ProdBackward0"
    zero_passes = (0,)  # torch's kernel keeps sgn's zero gradient (autograd/zero_grad.py)
    chain_rule = ("∂prod(self)/∂self = the product of all the other elements: to self {grad}·that "
                  "(result/self when no element is 0)")
    saves_result = True

    def forward(self, a):
        self.save(a)
        return B.prod(_wide_data(a), None, False)

    def backward(self, grad):
        a, result = self.saved_tensors
        if a.ndim == 0:
            return (grad,)
        zeros = _count_zeros(a)
        if zeros == 0:
            return (grad * (result / a),)
        if zeros > 1 and not grad_mode.state.grad_enabled:
            return (Tensor._make(B.zeros(a.shape, a._dtype.name)),)
        return (_prod_safe_zeros(grad, a.reshape(-1), 0).reshape(a.shape),)


class ProdDim(Function):
    name_ = "ProdBackward1"
    chain_rule = ("∂prod(self, dim)/∂self = the product of the other elements along dim: to self "
                  "{grad}·that")
    saves_result = True

    def forward(self, a, dim, keepdim):
        self.save(a)
        self.dim, self.keepdim = dim, keepdim
        dims = (dim,) if B.ndim(a._data) else ()
        return B.prod(_wide_data(a), dims, keepdim)

    def backward(self, grad):
        a, result = self.saved_tensors
        if a.ndim == 0:
            return (grad,)
        if not self.keepdim:
            grad, result = grad.unsqueeze(self.dim), result.unsqueeze(self.dim)
        if _count_zeros(a) == 0:
            return (grad * (result / a),)
        return (_prod_safe_zeros(grad, a, self.dim),)


class Cumsum(Function):
    name_ = "CumsumBackward0"
    chain_rule = ("∂cumsum(self)ⱼ/∂selfₖ = 1 for j ≥ k: to self the sums of {grad} from each "
                  "position to the end along dim")

    def forward(self, a, dim):
        self.dim = dim
        out = B.cumsum(a._data, dim)
        dt = B.dtype_name(out)
        if dt in ("float32", "float64"):  # torch's running total starts at 0: -0.0 + 0 is +0.0
            out = B.add(out, B.scalar(0, dt))
        return out

    def backward(self, grad):
        if grad.numel() <= 1 or grad.shape[self.dim] == 1:
            return (grad,)
        return (_reversed_cumsum(grad, self.dim),)


class Cumprod(Function):
    name_ = "CumprodBackward0"
    chain_rule = ("∂cumprod(self)ⱼ/∂selfₖ = the product of self up to j without selfₖ, for j ≥ k: "
                  "to self the sum over j of {grad}ⱼ·that")
    saves_result = True

    def forward(self, a, dim):
        self.dim = dim
        self.save(a)
        return B.cumprod(a._data, dim)

    def backward(self, grad):
        a, result = self.saved_tensors
        dim = self.dim
        if a.numel() <= 1 or a.shape[dim] == 1:
            return (grad,)
        if _count_zeros(a) == 0:
            return (_reversed_cumsum(result * grad, dim) / a,)
        if not grad_mode.state.grad_enabled:
            return (_cumprod_grad_first_order(grad, a, result, dim),)
        return (_cumprod_grad_with_zeros(grad, a, dim),)


def _cumprod_grad_first_order(grad: Tensor, a: Tensor, result: Tensor, dim: int) -> Tensor:
    """The same gradient in O(n) when it need not be differentiable, as torch computes it
    (its cumprod_backward, operation for operation): before a row's first zero z,
    reversed_cumsum(result·grad)/a; at z, the running products of the elements after z (up to
    the next zero) times grad, summed, times the product of the elements before z; after z,
    0."""
    is_zero = a == 0
    zeros_so_far = is_zero.cumsum(dim)
    before = zeros_so_far == 0
    w = where(before, result * grad, 0.0)
    out = where(before, _reversed_cumsum(w, dim) / a, 0.0)
    one_zero = zeros_so_far == 1
    z = one_zero.max(dim, keepdim=True).indices  # the first zero (0 in a row without one)
    first_zero = one_zero & (z == _positions(a, dim))
    after = one_zero & ~first_zero
    running = where(after, a, 1.0).cumprod(dim)
    total = (running * where(one_zero, grad, 0.0)).sum(dim, keepdim=True)
    prior = where(z == 0, 1.0, result.gather(dim, (z - 1).clamp(min=0)))
    return where(first_zero, total * prior, out)


def _positions(a: Tensor, dim: int) -> Tensor:
    """Each element's index along dim, shaped to broadcast against a."""
    shape = [1] * a.dim()
    shape[dim] = a.shape[dim]
    return Tensor._make(B.reshape(B.arange(0, a.shape[dim], 1, "int64"), tuple(shape)))


def _cumprod_grad_with_zeros(grad: Tensor, a: Tensor, dim: int) -> Tensor:
    """Σ_{j ≥ k} grad_j · Π_{i ≤ j, i ≠ k} a_i with no division, one position k at a time
    (torch's twice-differentiable loop; its result is written into zeros, so CopySlices)."""
    n = a.shape[dim]
    out = Tensor._make(B.zeros(a.shape, grad._dtype.name))
    ones_shape = list(a.shape)
    ones_shape[dim] = 1
    ones = Tensor._make(B.ones(tuple(ones_shape), grad._dtype.name))
    for k in range(n):
        if k == 0:
            omitted = cat([ones, a.narrow(dim, 1, n - 1).cumprod(dim)], dim)
        elif k == n - 1:
            omitted = a.narrow(dim, 0, k).prod(dim, keepdim=True)
        else:
            until_k = a.narrow(dim, 0, k).prod(dim, keepdim=True)
            from_k_plus_1 = a.narrow(dim, k + 1, n - k - 1).cumprod(dim)
            omitted = cat([until_k, until_k.expand(from_k_plus_1.shape) * from_k_plus_1], dim)
        out.select(dim, k).copy_((grad.narrow(dim, k, n - k) * omitted).sum(dim))
    return out


# -- public functions --------------------------------------------------------------------------

def _int_dim(fn: str, dim) -> None:
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError(f"{fn}() received an invalid combination of arguments - got "
                        f"({type(dim).__name__}), but expected one of:\n * (*, torch.dtype dtype)\n"
                        " * (int dim, bool keepdim, *, torch.dtype dtype)")


@export(palette={"code": "{0}.prod()", "arity": 1, "group": "reduction", "label": "prod(a)"})
def prod(input, dim=None, keepdim=False, *, dtype=None):
    if dtype is not None:
        input = input.to(dtype)
    if dim is None:
        return apply(Prod, (input,))
    _int_dim("prod", dim)
    return apply(ProdDim, (input,), wrap_dim(dim, input.ndim), keepdim)


_NO_DIM = object()


def _scan(cls, input, dim, dtype):
    if dim is _NO_DIM:
        raise TypeError(f'{cls.__name__[:-9].lower()}() missing 1 required positional arguments: '
                        '"dim"')
    wrap_dim(dim, input.ndim)
    if dtype is not None:
        input = input.to(dtype)
    return apply(cls, (input,), wrap_dim(dim, input.ndim) if input.ndim else 0)


@export(palette={"code": "{0}.cumsum(dim={dim})", "arity": 1, "group": "reduction",
                 "label": "cumsum(a)", "params": {"dim": 0}})
def cumsum(input, dim=_NO_DIM, *, dtype=None):
    return _scan(Cumsum, input, dim, dtype)


@export()
def cumprod(input, dim=_NO_DIM, *, dtype=None):
    return _scan(Cumprod, input, dim, dtype)
