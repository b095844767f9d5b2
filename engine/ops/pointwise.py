"""Element-wise math beyond unary.py: rounding (floor ceil round trunc frac), log1p expm1 log2
log10, tan and the inverse trigonometric functions, rsqrt, square, erf, and the two-tensor
atan2, hypot and lerp. Each op's grad_fn name and formula are torch's (derivatives.yaml)."""

from __future__ import annotations

import math

from .. import backend as B
from .. import errors
from ..autograd.function import Function, apply
from ..tensor import Tensor
from . import formulas
from .arithmetic import _binary_prepare
from .formulas import sum_to
from .helpers import check_broadcast, edges_that_require_grad, float_data, wrap, zeros_gradient
from .registry import export

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _k(value, like):
    return B.scalar(value, B.dtype_name(like))


# -- rounding: the gradient is zero everywhere (torch does not use the kinks' subgradients) ------

class _Rounding(Function):
    array_backward = True
    fn = None

    def forward(self, a):
        if not a._dtype.is_floating_point:
            return B.copy(a._data)  # an integer tensor is already rounded: torch copies it
        return type(self).fn(a._data)

    def backward(self, grad):
        # zeros_like(grad), as torch: 0.0 also where grad is negative, NaN or infinite
        return (zeros_gradient(grad),)


class Floor(_Rounding):
    name_ = "FloorBackward0"
    chain_rule = "floor is flat between its steps: to self 0"
    fn = staticmethod(lambda x: B.floor(x))


class Ceil(_Rounding):
    name_ = "CeilBackward0"
    chain_rule = "ceil is flat between its steps: to self 0"
    fn = staticmethod(lambda x: B.ceil(x))


class Round(_Rounding):
    """Half to even, as torch (round(2.5) is 2)."""

    name_ = "RoundBackward0"
    chain_rule = "round is flat between its steps: to self 0"
    fn = staticmethod(lambda x: B.rint(x))


class RoundDecimals(_Rounding):
    name_ = "RoundBackward1"
    chain_rule = "round(decimals) is flat between its steps: to self 0"

    def forward(self, a, decimals):
        x = float_data(a)
        if decimals >= 0:
            scale = _k(10.0**decimals, x)
            return B.div(B.rint(B.mul(x, scale)), scale)
        scale = _k(10.0**-decimals, x)
        return B.mul(B.rint(B.div(x, scale)), scale)


class Trunc(_Rounding):
    name_ = "TruncBackward0"
    chain_rule = "trunc is flat between its steps: to self 0"
    fn = staticmethod(lambda x: B.trunc(x))


class Frac(Function):
    """x - trunc(x); its gradient passes unchanged."""

    name_ = "FracBackward0"
    chain_rule = "∂(self − trunc(self))/∂self = 1: to self {grad}"
    array_backward = True

    def forward(self, a):
        x = float_data(a)
        return B.sub(x, B.trunc(x))

    def backward(self, grad):
        return (grad,)


# -- logarithms and exponentials ----------------------------------------------------------------

class Log1p(Function):
    name_ = "Log1PBackward0"
    chain_rule = "∂log(1 + self)/∂self = 1/(1 + self): to self {grad}/(1 + self)"
    array_backward = True

    def forward(self, a):
        self.save(a)
        return B.log1p(float_data(a))

    def backward(self, grad):
        (a,) = self.saved_tensors
        return (grad / (a + 1),)


class Expm1(Function):
    name_ = "Expm1Backward0"
    chain_rule = "∂(exp(self) − 1)/∂self = exp(self) = result + 1: to self {grad}·(result + 1)"
    array_backward = True
    saves_result = True

    def forward(self, a):
        return B.expm1(float_data(a))

    def backward(self, grad):
        (result,) = self.saved_tensors
        return (grad * (result + 1),)


class Log2(Function):
    name_ = "Log2Backward0"
    chain_rule = "∂log2(self)/∂self = 1/(self·ln 2): to self {grad}/(self·ln 2)"
    array_backward = True

    def forward(self, a):
        self.save(a)
        return B.log2(float_data(a))

    def backward(self, grad):
        (a,) = self.saved_tensors
        return (grad / (a * _LN2),)


class Log10(Log2):
    name_ = "Log10Backward0"
    chain_rule = "∂log10(self)/∂self = 1/(self·ln 10): to self {grad}/(self·ln 10)"

    def forward(self, a):
        self.save(a)
        return B.log10(float_data(a))

    def backward(self, grad):
        (a,) = self.saved_tensors
        return (grad / (a * _LN10),)


class Erf(Function):
    name_ = "ErfBackward0"
    chain_rule = "∂erf(self)/∂self = 2/√π·exp(−self²): to self {grad} times that"

    def forward(self, a):
        self.save(a)
        return B.erf(float_data(a))

    def backward(self, grad):
        (a,) = self.saved_tensors
        return ((-(a * a)).exp() * _TWO_OVER_SQRT_PI * grad,)


class Rsqrt(Function):
    name_ = "RsqrtBackward0"
    chain_rule = "∂(1/√self)/∂self = −1/(2·self^(3/2)): to self −{grad}·result³/2"
    array_backward = True
    saves_result = True

    def forward(self, a):
        x = float_data(a)
        return B.div(_k(1, x), B.sqrt(x))

    def backward(self, grad):
        (result,) = self.saved_tensors
        return (-0.5 * grad * result * result * result,)


# -- trigonometry -------------------------------------------------------------------------------

class Tan(Function):
    name_ = "TanBackward0"
    chain_rule = "∂tan(self)/∂self = 1 + tan²(self): to self {grad}·(1 + result²)"
    array_backward = True
    saves_result = True

    def forward(self, a):
        return B.tan(float_data(a))

    def backward(self, grad):
        (result,) = self.saved_tensors
        return (grad * (1 + result * result),)


class Asin(Function):
    name_ = "AsinBackward0"
    chain_rule = "∂asin(self)/∂self = 1/√(1 − self²): to self {grad} times that"

    def forward(self, a):
        self.save(a)
        return B.arcsin(float_data(a))

    def backward(self, grad):
        (a,) = self.saved_tensors
        return (grad * rsqrt(-a * a + 1),)


class Acos(Asin):
    name_ = "AcosBackward0"
    chain_rule = "∂acos(self)/∂self = −1/√(1 − self²): to self {grad} times that"

    def forward(self, a):
        self.save(a)
        return B.arccos(float_data(a))

    def backward(self, grad):
        (a,) = self.saved_tensors
        return (grad * -rsqrt(-a * a + 1),)


class Atan(Function):
    name_ = "AtanBackward0"
    chain_rule = "∂atan(self)/∂self = 1/(1 + self²): to self {grad} times that"
    array_backward = True

    def forward(self, a):
        self.save(a)
        return B.arctan(float_data(a))

    def backward(self, grad):
        (a,) = self.saved_tensors
        return (grad / (a * a + 1),)


class Atan2(Function):
    """The angle of the point (other, input)."""

    name_ = "Atan2Backward0"
    zero_passes = (0, 1)  # torch's kernel keeps sgn's zero gradient (autograd/zero_grad.py)
    chain_rule = ("∂atan2(self, other)/∂self = other/(self² + other²), ∂/∂other = −self/(self² + "
                  "other²)")
    array_backward = True

    def forward(self, a, b):
        x, y, dt = _binary_prepare(self, a, b)
        if not dt.is_floating_point:
            x, y = B.astype(x, "float32"), B.astype(y, "float32")
        self.save(a, b)
        return B.arctan2(x, y)

    def backward(self, grad):
        a, b = self.saved_tensors
        sa, sb = self.shapes
        # torch's atan2_backward: 0, not inf, where self² + other² is 0 (so the gradient at
        # the origin is 0 and -0.0, not nan)
        recip = formulas.reciprocal_or_zero(a * a + b * b)
        return sum_to(grad * b * recip, sa), sum_to(grad * -a * recip, sb)


class Hypot(Function):
    """sqrt(a^2 + b^2), scaled by the larger magnitude so that it overflows only when the
    result does."""

    name_ = "HypotBackward0"
    chain_rule = "∂√(self² + other²)/∂self = self/result, ∂/∂other = other/result"
    array_backward = True
    saves_result = True

    def forward(self, a, b):
        x, y, dt = _binary_prepare(self, a, b)
        if not dt.is_floating_point:
            raise NotImplementedError(f'"hypot_cpu" not implemented for '
                                      f"'{_TYPE[dt.name]}'")
        self.save(a, b)
        ax, ay = B.abs(x), B.abs(y)
        big = B.maximum(ax, ay)
        small = B.minimum(ax, ay)
        zero = _k(0, big)
        safe = B.where(B.eq(big, zero), _k(1, big), big)
        ratio = B.div(small, safe)
        out = B.mul(big, B.sqrt(B.add(_k(1, big), B.mul(ratio, ratio))))
        # an infinite side gives inf even when the other is nan, as C's hypot
        inf = _k(math.inf, big)
        return B.where(B.eq(ax, inf), inf, B.where(B.eq(ay, inf), inf, out))

    def backward(self, grad):
        a, b, result = self.saved_tensors
        sa, sb = self.shapes
        return sum_to(grad * a / result, sa), sum_to(grad * b / result, sb)


_TYPE = {"float32": "Float", "float64": "Double", "int64": "Long", "bool": "Bool"}


def _lerp(x, y, w, small):
    """torch's CPU lerp: from the nearer end, as one fused multiply-add each (its vectorised
    and scalar loops agree): fma(w, end - start, start) where |w| < 0.5, else
    fma(w - 1, end - start, end), so weight 1 gives exactly end. w - 1 is rounded in the
    tensor's dtype first, as torch's kernel does."""
    d = B.sub(y, x)
    if small is True:
        return B.fma(w, d, x)
    far = B.fma(B.sub(w, _k(1, w)), d, y)
    return far if small is False else B.where(small, B.fma(w, d, x), far)


class Lerp(Function):
    """input + weight * (end - input), computed from whichever end is nearer, as torch, so
    weight 1 gives exactly end. A number weight: LerpBackward0; a tensor: LerpBackward1."""

    name_ = "LerpBackward0"
    zero_passes = (0, 1)  # torch's kernel keeps sgn's zero gradient (autograd/zero_grad.py)
    chain_rule = ("lerp = self + weight·(end − self) with a number weight: to self {grad}·(1 − weight), "
                  "to end {grad}·weight")
    array_backward = True

    def forward(self, a, b, weight):
        x, y, _ = _binary_prepare(self, a, b)
        self.weight = weight
        w = _k(weight, x)
        # torch's is_lerp_weight_small, on the weight in the tensor's dtype: -1 takes the far
        # end's formula
        return _lerp(x, y, w, bool(abs(B.item(w)) < 0.5))

    def backward(self, grad):
        sa, sb = self.shapes
        w = self.weight
        return sum_to(grad * (1 - w), sa), sum_to(grad * w, sb)


class LerpTensor(Function):
    name_ = "LerpBackward1"
    zero_passes = (0, 1, 2)  # torch's kernel keeps sgn's zero gradient (autograd/zero_grad.py)
    chain_rule = ("lerp = self + weight·(end − self): to self {grad}·(1 − weight), to end "
                  "{grad}·weight, to weight {grad}·(end − self)")
    array_backward = True

    def forward(self, a, b, w):
        x, y, _ = _binary_prepare(self, a, b)
        self.w_shape = B.shape(w._data)
        # torch broadcasts the weight last: its error names the shape so far as tensor a
        check_broadcast(B.broadcast_shapes(B.shape(x), B.shape(y)), self.w_shape)
        self.save(a, b, w)
        wd = B.astype(w._data, B.dtype_name(x))
        return _lerp(x, y, wd, B.lt(B.abs(wd), _k(0.5, wd)))

    def backward(self, grad):
        a, b, w = self.saved_tensors
        sa, sb = self.shapes
        return (sum_to(grad * (1 - w), sa), sum_to(grad * w, sb),
                sum_to(grad * (b - a), self.w_shape))


# -- the public functions -----------------------------------------------------------------------

# -- exp2, xlogy, heaviside ----------------------------------------------------------------------

class Exp2(Function):
    name_ = "Exp2Backward0"
    saved_fields = {"result": 0}  # grad_fn._saved_<name>: position in _saved
    chain_rule = "∂2^self/∂self = 2^self·ln 2: to self {grad}·result·ln 2"
    array_backward = True
    saves_result = True

    def forward(self, a):
        x = float_data(a)
        return B.pow(_k(2, x), x)

    def backward(self, grad):
        (result,) = self.saved_tensors
        return (grad * result * _LN2,)


def _xlogy(x, y):
    """x * log(y), 0 where x is 0 unless y is NaN (torch's kernel), on arrays."""
    zero = _k(0, x)
    out = B.mul(x, B.log(y))
    return B.where(B.isnan(y), out, B.where(B.eq(x, zero), zero, out))


def _xlogy_self_grad(grad, x, y):
    """torch's formula: xlogy(grad, other) (so log(other) in the gradient's dtype, and 0 where
    the gradient is 0), then 0 where self is 0 and other <= 0; other a tensor or a number."""
    if not isinstance(y, Tensor):  # torch masks only for a number other <= 0
        return xlogy(grad, y) if y > 0 else xlogy(grad, y).masked_fill(x == 0, 0.0)
    return xlogy(grad, y).masked_fill((x == 0) & (y <= 0), 0.0)


class Xlogy(Function):
    """self * log(other), and 0 where self is 0 (unless other is NaN)."""

    name_ = "XlogyBackward0"
    chain_rule = "∂(self·log(other))/∂self = log(other), ∂/∂other = self/other: to self {grad}·log(other), to other {grad}·self/other"

    def forward(self, a, b):
        x, y, dt = _binary_prepare(self, a, b)
        if not dt.is_floating_point:
            x, y = B.astype(x, "float32"), B.astype(y, "float32")
        self.save(a, b)
        return _xlogy(x, y)

    def backward(self, grad):
        a, b = self.saved_tensors
        sa, sb = self.shapes
        ga = sum_to(_xlogy_self_grad(grad, a, b), sa) if self.needs(0) else None
        gb = sum_to(grad * a / b, sb) if self.needs(1) else None
        return ga, gb


class XlogyNumberSelf(Function):
    """number * log(tensor): one edge, to the tensor."""

    name_ = "XlogyBackward1"
    chain_rule = "∂(n·log(other))/∂other = n/other: to other {grad}·n/other"

    def forward(self, b, number):
        self.number = number
        self.save(b)
        x, y, dt = _binary_prepare(self, wrap(number, b), b)
        if not dt.is_floating_point:
            x, y = B.astype(x, "float32"), B.astype(y, "float32")
        return _xlogy(x, y)

    def backward(self, grad):
        (b,) = self.saved_tensors
        return (grad * self.number / b,)


class XlogyNumberOther(Function):
    """tensor * log(number): one edge, to the tensor."""

    name_ = "XlogyBackward2"
    chain_rule = "∂(self·log(n))/∂self = log(n): to self {grad}·log(n)"

    def forward(self, a, number):
        self.number = number
        self.save(a)
        x, y, dt = _binary_prepare(self, a, wrap(number, a))
        if not dt.is_floating_point:
            x, y = B.astype(x, "float32"), B.astype(y, "float32")
        return _xlogy(x, y)

    def backward(self, grad):
        (a,) = self.saved_tensors
        return (_xlogy_self_grad(grad, a, self.number),)


class Heaviside(Function):
    """input > 0 as 0/1, and `values` where input is 0; torch has no derivative for it."""

    name_ = "torch::autograd::NotImplemented"
    chain_rule = "torch has no derivative for heaviside: backward stops here with an error"

    def forward(self, a, v):
        if a._dtype is not v._dtype:
            raise RuntimeError("heaviside is not yet implemented for tensors with different "
                               "dtypes.")
        check_broadcast(B.shape(a._data), B.shape(v._data))
        edges_that_require_grad(self)
        x, vals = a._data, v._data
        dt = B.dtype_name(x)
        positive = B.astype(B.gt(x, B.scalar(0, dt)), dt)
        return B.where(B.eq(x, B.scalar(0, dt)), vals, positive)

    def backward(self, grad):
        raise RuntimeError("derivative for aten::heaviside is not implemented")


def _unary(cls, name):
    def fn(input):
        return apply(cls, (input,))

    fn.__name__ = name
    fn.__doc__ = f"torch.{name}"
    return export(name)(fn)


floor = _unary(Floor, "floor")
ceil = _unary(Ceil, "ceil")
trunc = _unary(Trunc, "trunc")
frac = _unary(Frac, "frac")
log1p = _unary(Log1p, "log1p")
expm1 = _unary(Expm1, "expm1")
log2 = _unary(Log2, "log2")
log10 = _unary(Log10, "log10")
erf = _unary(Erf, "erf")
rsqrt = _unary(Rsqrt, "rsqrt")
tan = _unary(Tan, "tan")
asin = _unary(Asin, "asin")
acos = _unary(Acos, "acos")
atan = _unary(Atan, "atan")
arcsin = export("arcsin")(lambda input: asin(input))
arccos = export("arccos")(lambda input: acos(input))
arctan = export("arctan")(lambda input: atan(input))


@export()
def round(input, *, decimals=0):  # noqa: A001 - torch's name
    if decimals == 0:
        return apply(Round, (input,))
    return apply(RoundDecimals, (input,), decimals)


@export()
def square(input):
    return input.pow(2)


def _tensor_pair(input, other):
    if not isinstance(other, Tensor):
        other = wrap(other, input)
    return input, other


@export()
def atan2(input, other):
    return apply(Atan2, _tensor_pair(input, other))


export("arctan2")(atan2)


@export()
def exp2(input):
    return apply(Exp2, (input,))


@export()
def xlogy(input, other):
    if not isinstance(input, Tensor):
        return apply(XlogyNumberSelf, (other,), input)
    if not isinstance(other, Tensor):
        return apply(XlogyNumberOther, (input,), other)
    return apply(Xlogy, (input, other))


@export()
def heaviside(input, values):
    return apply(Heaviside, (input, values))


@export()
def hypot(input, other):
    return apply(Hypot, _tensor_pair(input, other))


def _check_lerp_dtypes(input, end, weight) -> None:
    """torch's lerp takes no type promotion: end (and a tensor weight) have input's dtype."""
    for what, t in (("end", end), ("weight", weight)):
        if isinstance(t, Tensor) and t._dtype is not input._dtype:
            raise RuntimeError(errors.dtype_expected(what, input._dtype, t._dtype))


@export()
def lerp(input, end, weight):
    _check_lerp_dtypes(input, end, weight)
    if isinstance(weight, Tensor):
        return apply(LerpTensor, (input, end, weight))
    return apply(Lerp, (input, end), float(weight))


@export(function=False)
def lerp_(self, end, weight):
    """In place (what torch's Adam does to its running mean: `exp_avg.lerp_(grad, 1 - beta1)`)."""
    from .inplace import run_inplace  # inplace imports this module's ops

    _check_lerp_dtypes(self, end, weight)
    if isinstance(weight, Tensor):
        return run_inplace(self, LerpTensor, (end, weight), (), "lerp_")
    return run_inplace(self, Lerp, (end,), (float(weight),), "lerp_")
