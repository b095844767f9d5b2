"""+ - * / ** and unary minus, with broadcasting and torch's type promotion."""

from __future__ import annotations

import math

from .. import backend as B
from .. import errors
from ..autograd.function import Function, apply, apply_or_compute
from ..tensor import Tensor
from .compare import where
from .formulas import sum_to
from .helpers import cast, check_broadcast, float_data, promote, wrap, zeros_gradient
from .registry import export


def _binary_prepare(node, a, b):
    """Common forward prologue: broadcast check, result dtype, input shapes for backward."""
    x, y = a._data, b._data
    sa, sb = x.shape, y.shape
    if sa != sb and sa and sb:  # a 0-dim operand broadcasts to any shape
        check_broadcast(sa, sb)
    node.shapes = (sa, sb)
    dt = a._dtype
    if dt is not b._dtype:
        dt = promote(a, b)
        x, y = cast(a, dt), cast(b, dt)
    return x, y, dt


def _plus_scaled(x, y, alpha, dt):
    """x + alpha * y as torch's CPU kernels compute it: for floats one fused multiply-add
    (alpha * y is not rounded before the add; torch's vectorised and scalar loops both fuse)."""
    if alpha == 1:
        return B.add(x, y)
    if dt.is_floating_point:
        return B.fma(y, B.scalar(alpha, dt.name), x)
    return B.add(x, B.mul(y, alpha))


class Add(Function):
    name_ = "AddBackward0"
    zero_passes = (0, 1)  # torch's kernel keeps sgn's zero gradient (autograd/zero_grad.py)
    chain_rule = ("∂(self + α·other)/∂self = 1, ∂/∂other = α: to self {grad}, to other α·{grad} (each "
                  "summed back to its shape)")
    array_backward = True

    def forward(self, a, b, alpha):
        x, y, dt = _binary_prepare(self, a, b)
        self.alpha = alpha
        return _plus_scaled(x, y, alpha, dt)

    def backward(self, grad):
        sa, sb = self.shapes
        gb = grad if self.alpha == 1 else grad * self.alpha
        return sum_to(grad, sa), sum_to(gb, sb)

    @property
    def _saved_alpha(self):
        return self.alpha


class Sub(Function):
    name_ = "SubBackward0"
    zero_passes = (0,)  # torch's kernel keeps sgn's zero gradient (autograd/zero_grad.py)
    chain_rule = ("∂(self − α·other)/∂self = 1, ∂/∂other = −α: to self {grad}, to other −α·{grad} "
                  "(summed back to shape)")
    array_backward = True

    def forward(self, a, b, alpha):
        if a._dtype.name == "bool" and b._dtype.name == "bool":
            raise RuntimeError(errors.BOOL_SUB)
        x, y, dt = _binary_prepare(self, a, b)
        self.alpha = alpha
        if alpha == 1:
            return B.sub(x, y)
        return _plus_scaled(x, y, -alpha, dt)  # torch's sub is add with -alpha

    _saved_alpha = property(lambda self: self.alpha)

    def backward(self, grad):
        sa, sb = self.shapes
        return sum_to(grad, sa), sum_to(-grad if self.alpha == 1 else grad * -self.alpha, sb)


class RsubTensor(Function):
    """torch.rsub(input, other) of two tensors: other - alpha * input, recorded as torch's own
    node (not SubBackward0 with the operands swapped)."""

    name_ = "RsubBackward0"
    chain_rule = ("∂(other − α·self)/∂self = −α, ∂/∂other = 1: to self −α·{grad}, to other {grad} "
                  "(summed back to shape)")
    array_backward = True

    def forward(self, a, b, alpha):
        x, y, dt = _binary_prepare(self, a, b)
        self.alpha = alpha
        if alpha == 1:
            return B.sub(y, x)
        return _plus_scaled(y, x, -alpha, dt)

    _saved_alpha = property(lambda self: self.alpha)

    def backward(self, grad):
        sa, sb = self.shapes
        return sum_to(-grad if self.alpha == 1 else grad * -self.alpha, sa), sum_to(grad, sb)


class Rsub(Function):
    """`number - tensor`: torch records rsub(tensor, number), with one edge only."""

    name_ = "RsubBackward1"
    chain_rule = "∂(number − self)/∂self = −1: to self −{grad}"
    array_backward = True

    def forward(self, a, number):
        b = wrap(number, a)
        x, y, _ = _binary_prepare(self, a, b)
        return B.sub(y, x)

    def backward(self, grad):
        return (-grad,)


class Mul(Function):
    name_ = "MulBackward0"
    zero_passes = (0, 1)  # torch's kernel keeps sgn's zero gradient (autograd/zero_grad.py)
    saved_fields = {"other": 0, "self": 1}  # grad_fn._saved_<name>: position in _saved
    chain_rule = ("∂(self·other)/∂self = other, ∂/∂other = self: to self {grad}·other, to other "
                  "{grad}·self")
    array_backward = True

    def forward(self, a, b):
        x, y, _ = _binary_prepare(self, a, b)
        # like torch, keep only what the inputs that require grad will need
        self.save(b if self.needs(0) else None, a if self.needs(1) else None)
        return B.mul(x, y)

    def backward(self, grad):
        b, a = self.saved_tensors
        sa, sb = self.shapes
        ga = sum_to(grad * b, sa) if self.needs(0) else None
        gb = sum_to(grad * a, sb) if self.needs(1) else None
        return ga, gb


class Div(Function):
    name_ = "DivBackward0"
    zero_passes = (0,)  # torch's kernel keeps sgn's zero gradient (autograd/zero_grad.py)
    saved_fields = {"self": 0, "other": 1}  # grad_fn._saved_<name>: position in _saved
    chain_rule = ("∂(self/other)/∂self = 1/other, ∂/∂other = −self/other²: to self {grad}/other, to "
                  "other −{grad}·self/other²")
    array_backward = True

    def forward(self, a, b):
        x, y, dt = _binary_prepare(self, a, b)
        if not dt.is_floating_point:  # true division of integers gives the default float
            x, y = B.astype(x, "float32"), B.astype(y, "float32")
        self.save(a if self.needs(1) else None, b)
        return B.div(x, y)

    def backward(self, grad):
        a, b = self.saved_tensors
        sa, sb = self.shapes
        ga = sum_to(grad / b, sa) if self.needs(0) else None
        # torch's div_tensor_other_backward, in its order: -grad * ((self / other) / other)
        gb = sum_to(-grad * ((a / b) / b), sb) if self.needs(1) else None
        return ga, gb


# one node name, two rounding modes: the rule table is keyed by the name
_DIV_MODE_RULE = ("div(self, other, rounding_mode=...): None is true division (to self "
                  "{grad}/other, to other −{grad}·self/other²); 'floor' and 'trunc' are flat "
                  "between their steps (to self and to other 0)")


class DivTrueMode(Div):
    """div(a, b, rounding_mode=None) spelled out: torch's div.Tensor_mode overload, true division
    with its own node name."""

    name_ = "DivBackward2"
    chain_rule = _DIV_MODE_RULE


class DivMode(Function):
    """div with rounding_mode "floor" or "trunc": a step function, so no gradient flows."""

    name_ = "DivBackward2"
    chain_rule = _DIV_MODE_RULE

    def forward(self, a, b, mode):
        x, y, dt = _binary_prepare(self, a, b)
        if dt.name == "bool":
            raise NotImplementedError(f'"div_{mode}_cpu" not implemented for \'Bool\'')
        if not dt.is_floating_point:
            check_int_divisor(x, y)
            if mode == "floor":
                return B.floor_divide(x, y)
            return B.floor_divide(B.sub(x, B.fmod(x, y)), y)  # exact: x - fmod(x, y) divides
        if mode == "floor":
            return B.floor_divide(x, y)
        return B.trunc(B.div(x, y))

    def backward(self, grad):
        sa, sb = self.shapes
        dt = grad._dtype.name
        return Tensor._make(B.zeros(sa, dt)), Tensor._make(B.zeros(sb, dt))


def check_int_divisor(x, y) -> None:
    """Integer division by zero: torch's CPU kernels raise (float division gives inf or nan),
    when there is anything to divide."""
    out_size = 1
    for s in B.broadcast_shapes(B.shape(x), B.shape(y)):
        out_size *= s
    if out_size and B.item(B.sum(B.eq(y, B.scalar(0, B.dtype_name(y))), None, False)):
        raise RuntimeError("ZeroDivisionError")


class Reciprocal(Function):
    name_ = "ReciprocalBackward0"
    saved_fields = {"result": 0}  # grad_fn._saved_<name>: position in _saved
    chain_rule = "∂(1/self)/∂self = −1/self²: to self −{grad}/self²"
    array_backward = True
    saves_result = True

    def forward(self, a):
        x = float_data(a)
        return B.div(B.scalar(1, B.dtype_name(x)), x)

    def backward(self, grad):
        (result,) = self.saved_tensors
        return (-grad * (result * result),)


class Neg(Function):
    name_ = "NegBackward0"
    chain_rule = "∂(−self)/∂self = −1: to self −{grad}"
    array_backward = True

    def forward(self, a):
        if a._dtype.name == "bool":
            raise RuntimeError(
                "Negation, the `-` operator, on a bool tensor is not supported. If you are "
                "trying to invert a mask, use the `~` or `logical_not()` operator instead."
            )
        return B.neg(a._data)

    def backward(self, grad):
        return (-grad,)


def _one(x):
    return B.scalar(1, B.dtype_name(x))


class PowScalar(Function):
    """tensor ** number"""

    name_ = "PowBackward0"
    zero_passes = (0,)  # torch's kernel keeps sgn's zero gradient (autograd/zero_grad.py)
    saved_fields = {"self": 0}  # grad_fn._saved_<name>: position in _saved
    _saved_exponent = property(lambda self: self.exponent)
    chain_rule = "∂(self^n)/∂self = n·self^(n−1): to self {grad}·n·self^(n−1)"
    array_backward = True

    def forward(self, a, exponent):
        self.exponent = exponent
        self.save(a)
        x = a._data
        if not a._dtype.is_floating_point:
            if isinstance(exponent, float):
                x = B.astype(x, "float32")
            elif exponent < 0:
                raise RuntimeError("Integers to negative integer powers are not allowed.")
            elif a._dtype.name == "bool":
                x = B.astype(x, "int64")  # bool ** int is an int64 tensor in torch
        dt = B.dtype_name(x)
        if dt in ("float32", "float64"):
            return _float_pow(x, exponent, dt)
        return B.pow(x, B.scalar(exponent, dt))

    def backward(self, grad):
        (a,) = self.saved_tensors
        e = self.exponent
        if e == 0:
            return (zeros_gradient(grad),)  # torch: zeros_like(self), also at 0 ** 0
        power = apply_or_compute(PowScalar, (a,), e - 1)
        if isinstance(power, Tensor):  # create_graph: torch's exponent is a Scalar argument
            from ..nn.loss_ops import mul_scalar

            return (grad * mul_scalar(power, e),)
        return (grad * (e * power),)

    @staticmethod
    def compute(x, exponent):
        """x ** exponent on the array path: x is a float array (of the gradient's dtype)."""
        return _float_pow(x, exponent, B.dtype_name(x))


def _float_pow(x, exponent, dt):
    """torch's CPU pow of a float tensor by a number: the exponents it computes another way
    (1: a copy, 0.5: sqrt, -0.5: 1/sqrt, -1: 1/x, 2: x*x, 3: x*x*x, -2: 1/(x*x)), which differ
    from pow in the last bit and at -0.0 and -inf; other exponents with pow in float64, rounded once
    (torch's own pow for the elements outside its vectorised blocks, see docs/semantics.md)."""
    one = B.scalar(1, dt)
    if exponent == 1:
        return B.copy(x)  # torch copies (pow_Tensor_Scalar_out): backward's x ** (2 - 1)
    if exponent == 0.5:
        return B.sqrt(x)
    if exponent == -0.5:
        return B.div(one, B.sqrt(x))
    if exponent == -1:
        return B.div(one, x)
    if exponent == 2:
        return B.mul(x, x)
    if exponent == 3:
        return B.mul(B.mul(x, x), x)
    if exponent == -2:
        return B.div(one, B.mul(x, x))
    if dt == "float32":
        return B.astype(B.pow(B.astype(x, "float64"), B.scalar(exponent, "float64")), dt)
    return B.pow(x, B.scalar(exponent, dt))


def _int_pow(x, y):
    """int64 ** int64 as torch computes it: a negative exponent gives 1 for 1, +-1 for -1 and
    0 for any other base (numpy refuses negative integer powers)."""
    zero = B.scalar(0, "int64")
    negative = B.lt(y, zero)
    out = B.pow(x, B.where(negative, zero, y))
    one, two = B.scalar(1, "int64"), B.scalar(2, "int64")
    parity = B.sub(y, B.mul(B.astype(B.div(y, two), "int64"), two))  # -1, 0 or 1
    minus_one = B.where(B.eq(parity, zero), one, B.neg(one))
    small = B.where(B.eq(x, one), one, B.where(B.eq(x, B.neg(one)), minus_one, zero))
    return B.where(negative, small, out)


class PowTensor(Function):
    """tensor ** tensor"""

    name_ = "PowBackward1"
    zero_passes = (1,)  # torch's kernel keeps sgn's zero gradient (autograd/zero_grad.py)
    saved_fields = {"self": 0, "exponent": 1, "result": 2}  # grad_fn._saved_<name>: position in _saved
    chain_rule = ("∂(self^exponent)/∂self = exponent·self^(exponent−1), ∂/∂exponent = "
                  "self^exponent·ln(self)")
    saves_result = True

    def forward(self, a, b):
        x, y, dt = _binary_prepare(self, a, b)
        self.save(a, b)
        if dt.name == "int64":
            return _int_pow(x, y)
        return B.pow(x, y)

    def backward(self, grad):
        a, b, result = self.saved_tensors
        sa, sb = self.shapes
        ga = gb = None
        if self.needs(0):
            # d/da a^b = b * a^(b-1), defined as 0 where b == 0 (torch's pow_backward_self)
            ga = sum_to(where_(b == 0, 0.0, grad * (b * a ** (b - 1))), sa)
        if self.needs(1):
            # d/db a^b = a^b * log(a), defined as 0 where a == 0 and b >= 0
            # log of the base in the operands' common dtype, as torch's pow_backward_exponent
            # (a float32 base of a float64 power too; in place, the result keeps self's dtype)
            dt = promote(a, b)
            log_a = (a if a.dtype == dt else a.to(dt)).log()
            gb = sum_to(where_((a == 0) & (b >= 0), 0.0, grad * (result * log_a)), sb)
        return ga, gb


class RPow(Function):
    """number ** tensor: one edge, to the exponent."""

    name_ = "PowBackward2"
    saved_fields = {"exponent": 0, "result": 1}  # grad_fn._saved_<name>: position in _saved
    _saved_self = property(lambda self: self.base)
    chain_rule = "∂(base^self)/∂self = base^self·ln(base): to self {grad}·result·ln(base)"
    saves_result = True

    def forward(self, a, base):
        self.base = base
        self.save(a)
        x, y, dt = _binary_prepare(self, wrap(base, a), a)
        if dt.name == "int64":
            return _int_pow(x, y)  # a negative exponent as torch (numpy refuses it)
        return B.pow(x, y)

    def backward(self, grad):
        exponent, result = self.saved_tensors
        if self.base == 0:
            # torch's pow_backward_exponent: 0 where the exponent is >= 0, else
            # result * log(0) = result * -inf
            return (grad * where_(exponent >= 0, 0.0, result * -math.inf),)
        return (grad * (result * _log_number(self.base)),)


def _log_number(b) -> float:
    """log of a Python number as torch's (C's) log: nan below 0 (math.log raises)."""
    if b != b or b < 0:
        return math.nan
    return math.log(b) if b != math.inf else math.inf


# -- div by a C++ scalar (torch's div.Scalar, used inside composite losses) -----------------

class DivScalar(Function):
    name_ = "DivBackward1"
    chain_rule = "∂(self/number)/∂self = 1/number: to self {grad}/number"
    array_backward = True

    def forward(self, a, other):
        self.other = other
        return B.div(a._data, B.scalar(other, a._dtype.name))

    def backward(self, grad):
        return (grad / self.other,)


def div_scalar(input, other):
    return apply(DivScalar, (input,), other)


def where_(cond, a, b):
    return where(cond, a, b)


# -- public functions --------------------------------------------------------------------------

@export(operators=("__add__", "__radd__"),
        palette={"code": "{0} + {1}", "arity": 2, "group": "arithmetic", "label": "a + b"})
def add(input, other, *, alpha=1):
    if not isinstance(input, Tensor):
        input, other = other, input
    return apply(Add, (input, wrap(other, input)), alpha)


@export(operators=("__sub__",),
        palette={"code": "{0} - {1}", "arity": 2, "group": "arithmetic", "label": "a - b"})
def sub(input, other, *, alpha=1):
    if not isinstance(input, Tensor):
        return rsub(other, input)
    other = wrap(other, input)
    _no_bool_sub(input, other)
    return apply(Sub, (input, other), alpha)


def _no_bool_sub(a, b) -> None:
    if a._dtype.name == "bool" and b._dtype.name == "bool":
        raise RuntimeError(errors.BOOL_SUB)
    if a._dtype.name == "bool" or b._dtype.name == "bool":
        raise RuntimeError(errors.BOOL_SUB_MIXED)


subtract = export("subtract")(sub)


@export(operators=("__rsub__",))
def rsub(input, other, *, alpha=1):
    if isinstance(other, Tensor):
        _no_bool_sub(input, other)
        return apply(RsubTensor, (input, other), alpha)
    if input._dtype.name == "bool" or isinstance(other, bool):
        raise RuntimeError(errors.BOOL_SUB_MIXED)
    if alpha != 1:
        raise NotImplementedError("rsub of a tensor and a number with alpha != 1 is not supported")
    return apply(Rsub, (input,), other)


@export(operators=("__mul__", "__rmul__"),
        palette={"code": "{0} * {1}", "arity": 2, "group": "arithmetic", "label": "a * b"})
def mul(input, other):
    if not isinstance(input, Tensor):
        input, other = other, input
    return apply(Mul, (input, wrap(other, input)))


multiply = export("multiply")(mul)


_NO_MODE = "no rounding_mode given"  # torch picks another overload for rounding_mode=None


@export(operators=("__truediv__",),
        palette={"code": "{0} / {1}", "arity": 2, "group": "arithmetic", "label": "a / b"})
def div(input, other, *, rounding_mode=_NO_MODE):
    if rounding_mode is None and isinstance(input, Tensor):
        return apply(DivTrueMode, (input, wrap(other, input)))
    if rounding_mode is not _NO_MODE and rounding_mode is not None:
        if rounding_mode not in ("trunc", "floor"):
            raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or "
                               f"'floor' but found '{rounding_mode}'")
        if not isinstance(input, Tensor):
            input = wrap(input, other)
        return apply(DivMode, (input, wrap(other, input)), rounding_mode)
    if not isinstance(input, Tensor):
        # number / tensor: torch computes reciprocal(tensor) * number
        return mul(reciprocal(other), input)
    return apply(Div, (input, wrap(other, input)))


divide = export("divide")(div)
true_divide = export("true_divide")(div)


@export()
def reciprocal(input):
    return apply(Reciprocal, (input,))


@export(operators=("__neg__",),
        palette={"code": "-{0}", "arity": 1, "group": "arithmetic", "label": "-a"})
def neg(input):
    if input._dtype.name == "bool":
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    return apply(Neg, (input,))


negative = export("negative")(neg)


@export(operators=("__pow__",),
        palette={"code": "{0} ** {exponent}", "arity": 1, "group": "arithmetic",
                 "label": "a ** n", "params": {"exponent": 2}})
def pow(input, exponent):  # noqa: A001
    if not isinstance(input, Tensor):
        return apply(RPow, (exponent,), input)
    if isinstance(exponent, Tensor):
        if input._dtype.name == "bool" and exponent._dtype.name == "bool":
            check_broadcast(input.shape, exponent.shape)
            raise NotImplementedError('"pow" not implemented for \'Bool\'')
        return apply(PowTensor, (input, exponent))
    return apply(PowScalar, (input,), exponent)


# Python operators that are not a public function ---------------------------------------------

@export(method=False, function=False, operators=("__rtruediv__",))
def _rdiv(self, other):
    # number / tensor: torch computes reciprocal(tensor) * number
    return mul(reciprocal(self), other)


@export(method=False, function=False, operators=("__rpow__",))
def _rpow(self, other):
    return pow(other, self)


@export(method=False, function=False, operators=("__pos__",))
def _pos(self):
    return self
