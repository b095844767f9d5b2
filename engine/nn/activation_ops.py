"""The element-wise activations of nn.functional as single graph nodes, as torch records them
(GeluBackward0, SiluBackward0, ...), and prelu.

Each activation is one `_Activation` class: `f` computes it on backend arrays, `df` is its
derivative on arrays, and `d2f` its second derivative written with Tensor operations. Its
backward is one `_ActivationGrad` node (torch's *BackwardBackward0): grad * df(x). That node's
own backward is gg * df(x) for the incoming gradient and gg * grad * d2f(x) for x, so
create_graph=True differentiates again, and d2f's Tensor operations go further still.
"""

from __future__ import annotations

import math

from .. import backend as B
from ..autograd.function import Function, apply, apply_or_compute
from ..creation import zeros_like
from ..ops import cpu_loops
from ..ops.compare import where
from ..ops.helpers import cast
from ..tensor import Tensor

_TYPE = {"float32": "Float", "float64": "Double", "int64": "Long", "bool": "Bool"}

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946
_SQRT1_2 = 0.70710678118654752440
_INV_SQRT_2PI = 0.39894228040143267794  # 1 / sqrt(2 pi), gelu's normal density factor
_GELU_BETA = math.sqrt(2.0) * (2.0 / math.sqrt(math.pi)) * 0.5  # sqrt(2 / pi)
_GELU_KAPPA = 0.044715
# torch's hardsigmoid_backward multiplies by the float32 constant 1.0f / 6.0f in every dtype
_ONE_SIXTH_F32 = 0.16666667163372040


def _k(value, like):
    """A Python number as a backend scalar of array `like`'s dtype (keeps float32 float32)."""
    return B.scalar(value, B.dtype_name(like))


def _pos(x):
    return B.gt(x, _k(0, x))


def _nan_in_blocks(out, g, x, value):
    """`out` with `value` at the NaN elements of `x` that torch's loop over (g, x) computes in
    its AVX512 vectorised blocks (engine/ops/cpu_loops.py): where its scalar and vector code
    disagree at NaN, `out` is the scalar loop's."""
    nan = B.isnan(x)
    if not B.numel(nan) or not B.item(B.amax(nan, None, False)):
        return out
    inside = cpu_loops.vectorised(B.shape(out), (g, x),
                                  cpu_loops.block_size(B.dtype_name(x), cpu_loops.AVX512))
    return B.where(B.where(nan, inside, nan), value, out)


def _between(x, lo, hi):
    """lo < x < hi, element-wise, as a bool array."""
    return B.where(B.gt(x, _k(lo, x)), B.lt(x, _k(hi, x)), B.gt(x, _k(hi, x)))


class _Activation(Function):
    """y = f(x, *params). Subclasses set name_, kernel (torch's kernel name in its dtype
    error), grad_op, and f / df / d2f as staticmethods."""

    array_backward = True
    kernel = ""
    grad_op: type = None
    # torch differentiates silu and mish with ordinary ops when the backward itself records
    # (create_graph=True): composite_grad(grad, x) builds that graph
    composite_grad = None

    def forward(self, x, *params):
        if not x._dtype.is_floating_point:
            raise NotImplementedError(
                f'"{self.kernel}" not implemented for \'{_TYPE[x._dtype.name]}\'')
        self.params = params
        self.save(x)
        return self.f(x._data, *params)

    def backward(self, grad):
        (x,) = self.saved_tensors
        if self.composite_grad is not None and isinstance(grad, Tensor):
            return (self.composite_grad(grad, x),)
        return (apply_or_compute(self.grad_op, (grad, x), self.df, self.d2f, *self.params),)


class _ActivationGrad(Function):
    """grad * df(x): the gradient of an activation as one node."""

    chain_rule = ("the backward of an activation, differentiated again (create_graph=True): grad·f′(x) "
                  "is linear in grad, and f″(x) gives the input's part")

    def forward(self, grad, x, df, d2f, *params):
        self.df, self.d2f, self.params = df, d2f, params
        self.save(grad, x)
        return self.compute(cast(grad, x._dtype), x._data, df, d2f, *params)

    @staticmethod
    def compute(g, x, df, d2f, *params):
        return B.mul(g, df(x, *params))

    def backward(self, gg):
        grad, x = self.saved_tensors
        g_grad = g_x = None
        if self.needs(0):
            g_grad = apply(type(self), (gg, x), self.df, self.d2f, *self.params)
        if self.needs(1):
            second = self.d2f(x, *self.params)
            g_x = zeros_like(x) if second is None else gg * grad * second
        return g_grad, g_x


def _grad_class(name: str, gradient=None) -> type:
    attrs = {"name_": name.replace("Backward", "BackwardBackward")}
    if gradient is not None:
        attrs["compute"] = staticmethod(
            lambda g, x, df, d2f, *params: gradient(g, x, *params))
    return type(name.replace("Backward0", "Grad").replace("Backward1", "Grad1"),
                (_ActivationGrad,), attrs)


def activation(cls):
    """Class decorator: give the activation its gradient node, named after it. An activation
    whose torch kernel writes a constant 0 where the slope is 0 (not grad * 0, which is -0.0
    for a negative grad and NaN for an infinite one) says so with a staticmethod
    ``gradient(g, x, *params)`` computing the whole gradient on arrays."""
    cls.grad_op = _grad_class(cls.name_, getattr(cls, "gradient", None))
    return cls


# -- leaky_relu ---------------------------------------------------------------------------------

@activation
class LeakyRelu(_Activation):
    name_ = "LeakyReluBackward0"
    chain_rule = ("∂leaky_relu(self)/∂self = 1 where self > 0, else negative_slope: to self {grad} "
                  "times that")
    kernel = "leaky_relu_cpu"

    @staticmethod
    def f(x, slope):
        return B.where(_pos(x), x, B.mul(x, _k(slope, x)))

    @staticmethod
    def df(x, slope):
        return B.where(_pos(x), _k(1, x), _k(slope, x))

    @staticmethod
    def d2f(x, slope):
        return None


@activation
class LeakyReluInplace(LeakyRelu):
    """leaky_relu_: torch differentiates it from its result, which has x's sign when the slope
    is not negative (a negative slope is refused at backward time, as torch)."""

    name_ = "LeakyReluBackward1"
    chain_rule = ("in place: ∂leaky_relu/∂self = 1 where the result > 0, else negative_slope (read from "
                  "the result)")

    def backward(self, grad):
        if self.params[0] < 0:
            raise RuntimeError(
                "In-place leakyReLu backward calculation is triggered with a negative slope "
                "which is not supported. This is caused by calling in-place forward function "
                "with a negative slope, please call out-of-place version instead. File an "
                "issue at https://github.com/pytorch/pytorch if you do require supporting "
                "in-place leakRelu backward calculation with negative slope")
        return super().backward(grad)


# -- elu, selu ----------------------------------------------------------------------------------

@activation
class Elu(_Activation):
    """scale * (x if x > 0 else alpha * (exp(x * input_scale) - 1)); selu is elu with
    SELU_ALPHA and SELU_SCALE, as in torch."""

    name_ = "EluBackward0"
    chain_rule = "∂elu(self)/∂self = 1 where self > 0, else α·exp(self): to self {grad} times that"
    kernel = "elu_cpu"

    @staticmethod
    def f(x, alpha, scale, input_scale):
        neg = B.mul(_k(alpha, x), B.expm1(B.mul(x, _k(input_scale, x))))
        return B.mul(B.where(_pos(x), x, neg), _k(scale, x))

    @staticmethod
    def df(x, alpha, scale, input_scale):
        neg = B.mul(_k(input_scale * scale * alpha, x), B.exp(B.mul(x, _k(input_scale, x))))
        return B.where(_pos(x), _k(scale, x), neg)

    @staticmethod
    def gradient(g, x, alpha, scale, input_scale):
        # torch's elu_backward: grad * input_scale * (alpha * scale) * exp(x * input_scale)
        # where x <= 0, else grad * scale, multiplied in that order; a NaN x takes the second
        # branch in the scalar loop and gives NaN in the vectorised blocks
        negcoef = B.mul(_k(alpha, x), _k(scale, x))
        neg = B.mul(B.mul(B.mul(g, _k(input_scale, x)), negcoef),
                    B.exp(B.mul(x, _k(input_scale, x))))
        out = B.where(B.le(x, _k(0, x)), neg, B.mul(g, _k(scale, x)))
        return _nan_in_blocks(out, g, x, _k(math.nan, x))

    @staticmethod
    def d2f(x, alpha, scale, input_scale):
        # strictly below 0, as torch's elu_double_backward (the first derivative takes the
        # negative branch at 0, the second does not)
        return where(x < 0, (x * input_scale).exp() * (input_scale**2 * scale * alpha), 0.0)


@activation
class EluInplace(Elu):
    name_ = "EluBackward1"
    chain_rule = ("in place: ∂elu/∂self = 1 where the result > 0, else result + α (read from the "
                  "result)")


class Celu(Elu):
    """celu is elu with input_scale 1 / alpha; its gradient node is elu's, as in torch."""

    name_ = "CeluBackward0"
    chain_rule = "∂celu(self)/∂self = 1 where self > 0, else exp(self/α): to self {grad} times that"


class CeluInplace(EluInplace):
    name_ = "CeluBackward1"
    chain_rule = ("in place: ∂celu/∂self = 1 where the result > 0, else result/α + 1 (read from the "
                  "result)")


# -- gelu ---------------------------------------------------------------------------------------

@activation
class Gelu(_Activation):
    """x * Phi(x) with Phi the normal CDF ("none"), or torch's tanh approximation ("tanh")."""

    name_ = "GeluBackward0"
    chain_rule = ("∂gelu(self)/∂self = Φ(self) + self·φ(self), Φ and φ the normal CDF and density "
                  "(their tanh approximation when asked)")
    kernel = "GeluKernelImpl"

    @staticmethod
    def f(x, approximate):
        half = _k(0.5, x)
        if approximate == "tanh":
            inner = B.mul(_k(_GELU_BETA, x), B.add(x, B.mul(_k(_GELU_KAPPA, x),
                                                            B.mul(B.mul(x, x), x))))
            return B.mul(B.mul(half, x), B.add(_k(1, x), B.tanh(inner)))
        return B.mul(B.mul(x, half), B.add(_k(1, x), B.erf(B.mul(x, _k(_SQRT1_2, x)))))

    @staticmethod
    def df(x, approximate):
        half, one = _k(0.5, x), _k(1, x)
        if approximate == "tanh":
            x_sq = B.mul(x, x)
            inner = B.mul(_k(_GELU_BETA, x), B.add(x, B.mul(_k(_GELU_KAPPA, x), B.mul(x_sq, x))))
            t = B.tanh(inner)
            left_derivative = B.mul(half, B.add(one, t))
            inner_derivative = B.mul(_k(_GELU_BETA, x),
                                     B.add(one, B.mul(_k(3 * _GELU_KAPPA, x), x_sq)))
            right_derivative = B.mul(B.mul(B.mul(half, x), B.sub(one, B.mul(t, t))),
                                     inner_derivative)
            return B.add(left_derivative, right_derivative)
        cdf = B.mul(half, B.add(one, B.erf(B.mul(x, _k(_SQRT1_2, x)))))
        pdf = B.mul(_k(_INV_SQRT_2PI, x), B.exp(B.mul(_k(-0.5, x), B.mul(x, x))))
        return B.add(cdf, B.mul(x, pdf))

    @staticmethod
    def d2f(x, approximate):
        if approximate == "tanh":
            x_sq = x * x
            t = ((x + x_sq * x * _GELU_KAPPA) * _GELU_BETA).tanh()
            u = (x_sq * (3 * _GELU_KAPPA) + 1) * _GELU_BETA
            du = x * (6 * _GELU_KAPPA * _GELU_BETA)
            return (1 - t * t) * (u + x * 0.5 * (du - t * 2 * u * u))
        pdf = (x * x * -0.5).exp() * _INV_SQRT_2PI
        return pdf * (2 - x * x)


# -- softplus, logsigmoid -----------------------------------------------------------------------

@activation
class Softplus(_Activation):
    """log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold."""

    name_ = "SoftplusBackward0"
    chain_rule = ("∂softplus(self)/∂self = σ(β·self) (1 where β·self > threshold): to self {grad} times "
                  "that")
    kernel = "softplus_cpu"

    @staticmethod
    def f(x, beta, threshold):
        bx = B.mul(x, _k(beta, x))
        soft = B.div(B.log1p(B.exp(bx)), _k(beta, x))
        return B.where(B.gt(bx, _k(threshold, x)), x, soft)

    @staticmethod
    def df(x, beta, threshold):
        bx = B.mul(x, _k(beta, x))
        z = B.exp(bx)
        return B.where(B.gt(bx, _k(threshold, x)), _k(1, x), B.div(z, B.add(z, _k(1, x))))

    @staticmethod
    def d2f(x, beta, threshold):
        s = (x * beta).sigmoid()
        return where(x * beta > threshold, 0.0, s * (1 - s) * beta)


@activation
class LogSigmoid(_Activation):
    """log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), which never overflows."""

    name_ = "LogSigmoidBackward0"
    chain_rule = "∂log σ(self)/∂self = 1 − σ(self): to self {grad}·σ(−self)"
    kernel = "log_sigmoid_cpu"

    @staticmethod
    def f(x):
        return B.sub(B.minimum(x, _k(0, x)), B.log1p(B.exp(B.neg(B.abs(x)))))

    @staticmethod
    def df(x):
        return B.sigmoid(B.neg(x))

    @staticmethod
    def d2f(x):
        s = x.sigmoid()
        return s * (s - 1)


# -- silu, mish ---------------------------------------------------------------------------------

@activation
class Silu(_Activation):
    name_ = "SiluBackward0"
    chain_rule = ("∂(self·σ(self))/∂self = σ(self)·(1 + self·(1 − σ(self))): to self {grad} times that")
    kernel = "silu_cpu"

    @staticmethod
    def f(x):
        return B.mul(x, B.sigmoid(x))

    @staticmethod
    def df(x):
        s = B.sigmoid(x)
        one = _k(1, x)
        return B.mul(s, B.add(one, B.mul(x, B.sub(one, s))))

    @staticmethod
    def d2f(x):
        s = x.sigmoid()
        return s * (1 - s) * (2 + x * (1 - 2 * s))

    @staticmethod
    def composite_grad(grad, x):
        s = x.sigmoid()
        return grad * s * (1.0 + x * (1.0 - s))


@activation
class Mish(_Activation):
    """x * tanh(softplus(x))."""

    name_ = "MishBackward0"
    chain_rule = ("∂(self·tanh(sp))/∂self = tanh(sp) + self·σ(self)·(1 − tanh²(sp)), with sp = "
                  "softplus(self)")
    kernel = "mish_cpu"

    @staticmethod
    def f(x):
        return B.mul(x, B.tanh(B.log1p(B.exp(x))))

    @staticmethod
    def df(x):
        s = B.sigmoid(x)
        t = B.tanh(B.log1p(B.exp(x)))
        return B.add(t, B.mul(B.mul(x, s), B.sub(_k(1, x), B.mul(t, t))))

    @staticmethod
    def d2f(x):
        s = x.sigmoid()
        t = (x.exp() + 1).log().tanh()
        sech2 = 1 - t * t
        return sech2 * s * (2 + x * (1 - s) - 2 * x * s * t)

    @staticmethod
    def composite_grad(grad, x):
        s = x.sigmoid()
        t = apply(Softplus, (x,), 1.0, 20.0).tanh()
        return grad * (t + x * s * (1.0 - t * t))


# -- hardsigmoid, hardswish ---------------------------------------------------------------------

@activation
class Hardsigmoid(_Activation):
    """min(max(x + 3, 0), 6) / 6."""

    name_ = "HardsigmoidBackward0"
    chain_rule = "∂hardsigmoid(self)/∂self = 1/6 strictly between −3 and 3, else 0"
    kernel = "hardsigmoid_cpu"

    @staticmethod
    def f(x):
        return B.div(B.clip(B.add(x, _k(3, x)), _k(0, x), _k(6, x)), _k(6, x))

    @staticmethod
    def df(x):
        return B.where(_between(x, -3, 3), _k(_ONE_SIXTH_F32, x), _k(0, x))

    @staticmethod
    def gradient(g, x):
        # torch's hardsigmoid_backward: grad * (1/6) strictly inside (-3, 3), else a constant 0
        return B.where(_between(x, -3, 3), B.mul(g, _k(_ONE_SIXTH_F32, g)), _k(0, g))

    @staticmethod
    def d2f(x):
        raise RuntimeError("derivative for aten::hardsigmoid_backward is not implemented")


@activation
class Hardswish(_Activation):
    """x * min(max(x + 3, 0), 6) / 6."""

    name_ = "HardswishBackward0"
    chain_rule = "∂hardswish(self)/∂self = 0 up to −3, (2·self + 3)/6 below 3, 1 from 3 on"
    kernel = "hardswish_cpu"

    @staticmethod
    def f(x):
        clipped = B.clip(B.add(x, _k(3, x)), _k(0, x), _k(6, x))
        return B.div(B.mul(x, clipped), _k(6, x))

    @staticmethod
    def df(x):
        mid = B.add(B.div(x, _k(3, x)), _k(0.5, x))
        upper = B.where(B.lt(x, _k(3, x)), mid, _k(1, x))
        return B.where(B.le(x, _k(-3, x)), _k(0, x), upper)

    @staticmethod
    def gradient(g, x):
        # torch 2.13's hardswish_backward: a constant 0 for x <= -3, grad * (x / 3 + 1/2)
        # below 3, grad from 3 on; a NaN x passes grad in the scalar loop and gives NaN in the
        # vectorised blocks
        mid = B.mul(g, B.add(B.div(x, _k(3, x)), _k(0.5, x)))
        upper = B.where(B.lt(x, _k(3, x)), mid, g)
        out = B.where(B.le(x, _k(-3, x)), _k(0, x), B.where(B.isnan(x), g, upper))
        return _nan_in_blocks(out, g, x, _k(math.nan, x))

    @staticmethod
    def d2f(x):
        d = x._data
        return Tensor._make(B.where(_between(d, -3, 3), _k(1 / 3, d), _k(0, d)))


# -- prelu ----------------------------------------------------------------------------------------

class PreluKernel(Function):
    """x if x > 0 else weight * x, with weight already shaped to broadcast against x."""

    name_ = "PreluKernelBackward0"
    chain_rule = ("∂prelu/∂self = 1 where self > 0, else weight; ∂/∂weight = self where self ≤ 0, else "
                  "0 (summed per channel)")

    def forward(self, x, weight):
        if x._dtype is not weight._dtype:
            raise RuntimeError(f"expected scalar type {_TYPE[x._dtype.name]} but found "
                               f"{_TYPE[weight._dtype.name]}")
        self.save(x, weight)
        d = x._data
        return B.where(_pos(d), d, B.mul(weight._data, d))

    def backward(self, grad):
        x, weight = self.saved_tensors
        pos = Tensor._make(_pos(x._data))
        g_x = where(pos, grad, weight * grad) if self.needs(0) else None
        g_w = where(pos, 0.0, x * grad) if self.needs(1) else None
        return g_x, g_w


def prelu(input, weight):
    if weight.dim() != 1 and weight.dim() != 0:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.dim()}")
    if input.dim() == 0 and weight.numel() != 1:
        raise RuntimeError("Not allow zero-dim input tensor.")
    channels = input.shape[1] if input.dim() >= 2 else 1
    if weight.numel() != 1 and weight.numel() != channels:
        raise RuntimeError(
            f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
            f"{weight.numel()} and channel size = {channels}.")
    if input.dim() >= 2:
        # torch views the weight as (1, C, 1, ...) so it broadcasts over the channel dim
        dims = [1] * input.dim()
        dims[1] = weight.numel()
        weight = weight.view(*dims)
    return apply(PreluKernel, (input, weight))
