"""Element-wise functions of one tensor: exp log sqrt abs sin cos sinh cosh tanh sigmoid relu
clamp hardtanh."""

from __future__ import annotations

from .. import backend as B
from ..autograd.function import Function, apply, apply_or_compute
from ..autograd.zero_grad import ZERO
from ..dtypes import result_type
from ..tensor import Tensor
from . import cpu_loops, formulas
from .compare import where
from .helpers import cast, check_broadcast, float_data, wrap, zeros_gradient
from .registry import export


class Exp(Function):
    name_ = "ExpBackward0"
    zero_passes = (0,)  # torch's kernel keeps sgn's zero gradient (autograd/zero_grad.py)
    saved_fields = {"result": 0}  # grad_fn._saved_<name>: position in _saved
    chain_rule = "∂exp(self)/∂self = exp(self): to self {grad}·result"
    array_backward = True
    saves_result = True

    def forward(self, a):
        return B.exp(float_data(a))

    def backward(self, grad):
        (result,) = self.saved_tensors
        return (grad * result,)


class Log(Function):
    name_ = "LogBackward0"
    zero_passes = (0,)  # torch's kernel keeps sgn's zero gradient (autograd/zero_grad.py)
    saved_fields = {"self": 0}  # grad_fn._saved_<name>: position in _saved
    chain_rule = "∂log(self)/∂self = 1/self: to self {grad}/self"
    array_backward = True

    def forward(self, a):
        self.save(a)
        return B.log(float_data(a))

    def backward(self, grad):
        (a,) = self.saved_tensors
        return (grad / a,)


class Sqrt(Function):
    name_ = "SqrtBackward0"
    zero_passes = (0,)  # torch's kernel keeps sgn's zero gradient (autograd/zero_grad.py)
    saved_fields = {"result": 0}  # grad_fn._saved_<name>: position in _saved
    chain_rule = "∂√self/∂self = 1/(2√self): to self {grad}/(2·result)"
    array_backward = True
    saves_result = True

    def forward(self, a):
        return B.sqrt(float_data(a))

    def backward(self, grad):
        (result,) = self.saved_tensors
        return (grad / (2 * result),)


class Abs(Function):
    name_ = "AbsBackward0"
    zero_passes = (0,)  # torch's kernel keeps sgn's zero gradient (autograd/zero_grad.py)
    saved_fields = {"self": 0}  # grad_fn._saved_<name>: position in _saved
    chain_rule = "∂|self|/∂self = sign(self) (0 at 0): to self {grad}·sign(self)"

    def forward(self, a):
        self.save(a)
        return B.abs(a._data)

    def backward(self, grad):
        (a,) = self.saved_tensors
        return (grad * a.sgn(),)  # subgradient 0 at 0, as torch


class Sign(Function):
    name_ = "SignBackward0"
    chain_rule = "sign is flat everywhere it has a slope: to self 0"

    def forward(self, a):
        if a._dtype.name == "bool":
            return B.copy(a._data)
        out = B.sign(a._data)
        if a._dtype.is_floating_point:  # torch's sign(nan) is 0
            out = B.where(B.isnan(a._data), B.scalar(0, a._dtype.name), out)
        return out

    def backward(self, grad):
        return (zeros_gradient(grad),)  # torch: zeros_like(grad), never -0.0 or nan


class Sgn(Sign):
    name_ = "SgnBackward0"
    chain_rule = "sgn is flat everywhere it has a slope: to self 0"
    zero_passes = (0,)

    def backward(self, grad):
        return (ZERO,)  # torch's efficient zero tensor (autograd/zero_grad.py)


class Sin(Function):
    name_ = "SinBackward0"
    zero_passes = (0,)  # torch's kernel keeps sgn's zero gradient (autograd/zero_grad.py)
    saved_fields = {"self": 0}  # grad_fn._saved_<name>: position in _saved
    chain_rule = "∂sin(self)/∂self = cos(self): to self {grad}·cos(self)"
    array_backward = True

    def forward(self, a):
        self.save(a)
        return B.sin(float_data(a))

    def backward(self, grad):
        (a,) = self.saved_tensors
        return (grad * formulas.cos(a),)


class Cos(Function):
    name_ = "CosBackward0"
    zero_passes = (0,)  # torch's kernel keeps sgn's zero gradient (autograd/zero_grad.py)
    saved_fields = {"self": 0}  # grad_fn._saved_<name>: position in _saved
    chain_rule = "∂cos(self)/∂self = −sin(self): to self −{grad}·sin(self)"
    array_backward = True

    def forward(self, a):
        self.save(a)
        return B.cos(float_data(a))

    def backward(self, grad):
        (a,) = self.saved_tensors
        return (grad * -formulas.sin(a),)


class Sinh(Function):
    name_ = "SinhBackward0"
    saved_fields = {"self": 0}  # grad_fn._saved_<name>: position in _saved
    chain_rule = "∂sinh(self)/∂self = cosh(self): to self {grad}·cosh(self)"
    array_backward = True

    def forward(self, a):
        self.save(a)
        return B.sinh(float_data(a))

    def backward(self, grad):
        (a,) = self.saved_tensors
        return (grad * formulas.cosh(a),)


class Cosh(Function):
    name_ = "CoshBackward0"
    saved_fields = {"self": 0}  # grad_fn._saved_<name>: position in _saved
    chain_rule = "∂cosh(self)/∂self = sinh(self): to self {grad}·sinh(self)"
    array_backward = True

    def forward(self, a):
        self.save(a)
        return B.cosh(float_data(a))

    def backward(self, grad):
        (a,) = self.saved_tensors
        return (grad * formulas.sinh(a),)


class Tanh(Function):
    name_ = "TanhBackward0"
    saved_fields = {"result": 0}  # grad_fn._saved_<name>: position in _saved
    chain_rule = "∂tanh(self)/∂self = 1 − tanh²(self): to self {grad}·(1 − result²)"
    array_backward = True
    saves_result = True

    def forward(self, a):
        return B.tanh(float_data(a))

    def backward(self, grad):
        (result,) = self.saved_tensors
        return (apply_or_compute(TanhGrad, (grad, result)),)


class TanhGrad(Function):
    """torch's tanh_backward(grad, y) = grad * (1 - y^2) as one op, as torch computes it; its
    own derivative is what a second backward through tanh runs."""

    name_ = "TanhBackwardBackward0"
    chain_rule = ("the backward of tanh, differentiated again: grad·(1 − y²) with respect to grad and "
                  "to y")

    def forward(self, grad, y):
        self.save(y if self.needs(0) or self.needs(1) else None,
                  grad if self.needs(1) else None)
        return self.compute(grad._data, y._data)

    @staticmethod
    def compute(g, y):
        return B.mul(g, B.sub(B.scalar(1, B.dtype_name(y)), B.mul(y, y)))

    def backward(self, gg):
        y, grad = self.saved_tensors
        g_grad = apply(TanhGrad, (gg, y)) if self.needs(0) else None
        g_y = gg * (-2 * y * grad) if self.needs(1) else None
        return g_grad, g_y


class Sigmoid(Function):
    name_ = "SigmoidBackward0"
    saved_fields = {"result": 0}  # grad_fn._saved_<name>: position in _saved
    chain_rule = "∂σ(self)/∂self = σ(self)·(1 − σ(self)): to self {grad}·result·(1 − result)"
    array_backward = True
    saves_result = True

    def forward(self, a):
        return B.sigmoid(float_data(a))

    def backward(self, grad):
        (result,) = self.saved_tensors
        return (apply_or_compute(SigmoidGrad, (grad, result)),)


class SigmoidGrad(Function):
    """torch's sigmoid_backward(grad, y) = grad * y * (1 - y) as one op."""

    name_ = "SigmoidBackwardBackward0"
    chain_rule = ("the backward of sigmoid, differentiated again: grad·y·(1 − y) with respect to grad "
                  "and to y")

    def forward(self, grad, y):
        self.save(y if self.needs(0) or self.needs(1) else None,
                  grad if self.needs(1) else None)
        return self.compute(grad._data, y._data)

    @staticmethod
    def compute(g, y):
        return B.mul(g, B.mul(y, B.sub(B.scalar(1, B.dtype_name(y)), y)))

    def backward(self, gg):
        y, grad = self.saved_tensors
        g_grad = apply(SigmoidGrad, (gg, y)) if self.needs(0) else None
        g_y = gg * grad * (1 - 2 * y) if self.needs(1) else None
        return g_grad, g_y


_zeros_like = zeros_gradient


class Relu(Function):
    name_ = "ReluBackward0"
    saved_fields = {"result": 0}  # grad_fn._saved_<name>: position in _saved
    chain_rule = ("∂relu(self)/∂self = 1 where self > 0, else 0: to self {grad} where self > 0, else 0")
    array_backward = True
    saves_result = True

    def forward(self, a):
        # 0 where x < 0, else x: so relu(-0.0) is -0.0 and relu(nan) nan, as torch's kernel
        # (numpy's maximum(-0.0, 0) gives 0.0)
        zero = B.scalar(0, a._dtype.name)
        return B.where(B.lt(a._data, zero), zero, a._data)

    def backward(self, grad):
        (result,) = self.saved_tensors
        return (apply_or_compute(ThresholdGrad, (grad, result)),)


class ThresholdGrad(Function):
    """torch's threshold_backward(grad, y, 0): 0 where y <= 0, else grad (so the subgradient at
    0 is 0), as one op."""

    name_ = "ThresholdBackwardBackward0"
    chain_rule = ("the backward of relu, differentiated again: passes grad where the input was > 0, "
                  "else 0")

    def forward(self, grad, y):
        self.save(y)
        return self.compute(grad._data, y._data)

    @staticmethod
    def compute(g, y):
        # zero where y <= 0, so a NaN output (relu(nan)) passes the gradient, as in torch
        return B.where(B.le(y, B.scalar(0, B.dtype_name(y))), B.scalar(0, B.dtype_name(g)), g)

    def backward(self, gg):
        # d/dgrad is the same mask; the mask itself has no gradient, and torch sends zeros
        # (not nothing) to y, so y's .grad becomes zeros rather than staying None
        (y,) = self.saved_tensors
        return apply(ThresholdGrad, (gg, y.detach())), _zeros_like(gg)


def _clamp_numbers(x, lo, hi):
    """torch's clamp by numbers, std::min(std::max(x, lo), hi): x itself where it equals a
    bound (so -0.0 stays -0.0 at a bound of 0), NaN stays NaN."""
    dt = B.dtype_name(x)
    if lo is not None:
        b = B.scalar(lo, dt)
        x = B.where(B.lt(x, b), b, x)
    if hi is not None:
        b = B.scalar(hi, dt)
        x = B.where(B.lt(b, x), b, x)
    return x if lo is not None or hi is not None else B.copy(x)


class Clamp(Function):
    """clamp with number bounds; the gradient passes where min <= x <= max (bounds included)."""

    name_ = "ClampBackward1"
    saved_fields = {"self": 0}  # grad_fn._saved_<name>: position in _saved
    _saved_min = property(lambda self: self.lo)
    _saved_max = property(lambda self: self.hi)
    chain_rule = ("∂clamp(self)/∂self = 1 between min and max (bounds included), else 0: to self {grad} "
                  "there, else 0")

    def forward(self, a, lo, hi):
        self.save(a)
        self.lo, self.hi = lo, hi
        x = a._data
        if not a._dtype.is_floating_point and (isinstance(lo, float) or isinstance(hi, float)):
            x = B.astype(x, "float32")
        return _clamp_numbers(x, lo, hi)

    def backward(self, grad):
        (a,) = self.saved_tensors
        mask = None
        if self.lo is not None:
            mask = a >= self.lo
        if self.hi is not None:
            upper = a <= self.hi
            mask = upper if mask is None else mask & upper
        return (where(mask, grad, 0.0),)  # torch's clamp_backward: +0.0 outside, never NaN


class Hardtanh(Function):
    """hardtanh: clamp to [min_val, max_val] with number bounds. Unlike clamp, the gradient
    is 0 at the bounds themselves: it passes only where min_val < x < max_val."""

    name_ = "HardtanhBackward0"
    chain_rule = "∂hardtanh(self)/∂self = 1 strictly between min_val and max_val, else 0"

    def forward(self, a, lo, hi):
        # the input, not the result, is saved (hardtanh_ gets a copy of the original, as torch)
        self.save(a)
        self.lo, self.hi = lo, hi
        return _clamp_numbers(a._data, lo, hi)

    def backward(self, grad):
        (a,) = self.saved_tensors
        return (apply(HardtanhGrad, (grad, a), self.lo, self.hi),)


class HardtanhGrad(Function):
    """torch's hardtanh_backward(grad, x, min_val, max_val) as one op: grad where
    min_val < x < max_val, else 0. At a NaN x torch's scalar loop passes the gradient and its
    vectorised blocks write 0 (engine/ops/cpu_loops.py says which elements are which)."""

    name_ = "HardtanhBackwardBackward0"
    chain_rule = ("the backward of hardtanh, differentiated again: passes grad strictly between the "
                  "bounds, else 0")

    def forward(self, grad, x, lo, hi):
        self.save(x)
        self.lo, self.hi = lo, hi
        xd, g = x._data, grad._data
        dx, dg = B.dtype_name(xd), B.dtype_name(g)
        zero = B.scalar(0, dg)
        inside = B.where(B.ge(xd, B.scalar(hi, dx)), zero, g)
        out = B.where(B.le(xd, B.scalar(lo, dx)), zero, inside)
        nan = B.isnan(xd)
        if B.numel(nan) and B.item(B.amax(nan, None, False)):
            block = cpu_loops.block_size(dg)
            out = B.where(B.where(nan, cpu_loops.vectorised(B.shape(out), (g, xd), block), nan),
                          zero, out)
        return out

    def backward(self, gg):
        # as ThresholdGrad: the mask has no gradient, x gets zeros
        (x,) = self.saved_tensors
        return apply(HardtanhGrad, (gg, x.detach()), self.lo, self.hi), _zeros_like(gg)


def _in_place_shape(s1, s2, s3, s4) -> None:
    """torch's clamp_backward_min_max joins its two masks in place (`m1.logical_and_(m2)`), m1
    of shape broadcast(s1, s2), m2 of broadcast(s3, s4): when m2 is bigger, torch raises."""
    first = tuple(B.broadcast_shapes(s1, s2))
    both = tuple(B.broadcast_shapes(first, s3, s4))
    if both != first:
        raise RuntimeError(f"output with shape [{', '.join(map(str, first))}] doesn't match the "
                           f"broadcast shape [{', '.join(map(str, both))}]")


class ClampTensor(Function):
    """clamp with tensor bounds: the gradient goes to whichever of x, min, max was chosen.
    Inputs are (x, min) , (x, max) or (x, min, max): torch has no edge for an absent bound."""

    name_ = "ClampBackward0"
    chain_rule = ("∂clamp(self, min, max)/∂self = 1 where self is between the bounds, else the gradient "
                  "goes to the bound in force")

    def forward(self, a, *rest):
        *bounds, which = rest
        shape = B.shape(a._data)
        for b in bounds:  # torch's broadcast error, operand by operand
            check_broadcast(shape, B.shape(b._data))
            shape = tuple(B.broadcast_shapes(shape, B.shape(b._data)))
        self.which = which
        self.save(a, *bounds)
        dt = result_type((a, *bounds))  # torch's promotion (an int bound leaves float32 as is)
        out = cast(a, dt)
        for kind, b in zip(which, bounds):
            out = B.maximum(out, cast(b, dt)) if kind == "min" else B.minimum(out, cast(b, dt))
        return out

    def backward(self, grad):
        a, *bounds = self.saved_tensors
        if len(bounds) == 2:
            # torch's clamp_backward_min_max: where min > max the result is max, so max gets
            # the gradient there and min none
            lo, hi = bounds
            sa, sl, sh = (B.shape(t._data) for t in (a, lo, hi))
            out = [None, None, None]
            if self.needs(0):
                _in_place_shape(sa, sl, sa, sh)
                out[0] = where((a >= lo) & (a <= hi), grad, 0.0)
            if self.needs(1):
                _in_place_shape(sa, sl, sl, sh)
                out[1] = where((a < lo) & (lo < hi), grad, 0.0)
            if self.needs(2):
                _in_place_shape(sa, sh, sh, sl)
                out[2] = where((a > hi) | (hi < lo), grad, 0.0)
            return tuple(out)
        keep = None
        grads = []
        for kind, b in zip(self.which, bounds):
            inside = a >= b if kind == "min" else a <= b
            # torch: where(self < min, grad, 0) for the bound (a NaN bound gets nothing)
            grads.append(where(a < b if kind == "min" else a > b, grad, 0.0))
            keep = inside if keep is None else keep & inside
        return (where(keep, grad, 0.0), *grads)


# torch's errors for a bool input to these functions
_BOOL_ERRORS = {
    "abs": (NotImplementedError, '"abs_cpu" not implemented for \'Bool\''),
    "relu": (RuntimeError, "Boolean inputs not supported for relu"),
}


def _unary(cls, name, label=None, operators=()):
    bool_error = _BOOL_ERRORS.get(name)

    def fn(input):
        if bool_error is not None and input._dtype.name == "bool":
            raise bool_error[0](bool_error[1])
        return apply(cls, (input,))

    fn.__name__ = name
    fn.__doc__ = f"torch.{name}"
    return export(name, operators=operators, palette={"code": f"{{0}}.{name}()", "arity": 1, "group": "unary",
                                 "label": label or f"{name}(a)"})(fn)


exp = _unary(Exp, "exp")
log = _unary(Log, "log")
sqrt = _unary(Sqrt, "sqrt")
abs = _unary(Abs, "abs", operators=("__abs__",))  # noqa: A001
sin = _unary(Sin, "sin")
cos = _unary(Cos, "cos")
sinh = _unary(Sinh, "sinh")
cosh = _unary(Cosh, "cosh")
tanh = _unary(Tanh, "tanh")
sigmoid = _unary(Sigmoid, "sigmoid")
relu = _unary(Relu, "relu")


@export()
def sign(input):
    return apply(Sign, (input,))


@export()
def sgn(input):
    return apply(Sgn, (input,))


@export(palette={"code": "{0}.clamp(min={min}, max={max})", "arity": 1, "group": "unary",
                 "label": "clamp(a)", "params": {"min": 0.0, "max": 1.0}})
def clamp(input, min=None, max=None):  # noqa: A002
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        which = tuple(k for k, v in (("min", min), ("max", max)) if v is not None)
        bounds = tuple(wrap(v, input) for v in (min, max) if v is not None)
        return apply(ClampTensor, (input, *bounds), which)
    return apply(Clamp, (input,), min, max)


def hardtanh(input, min_val=-1.0, max_val=1.0):
    # not exported: torch has it only as nn.functional.hardtanh (engine/nn/functional.py)
    return apply(Hardtanh, (input,), min_val, max_val)


clip = export("clip")(clamp)
