"""% and // on tensors: remainder (the result takes the divisor's sign, as Python's %), fmod
(the dividend's sign, as C's fmod), floor_divide, and their in-place forms (`%=`, `//=`).

torch differentiates remainder and fmod (grad passes to self unchanged; to a tensor divisor
-grad times the rounded quotient) but not floor_divide, nor a number % tensor: their grad_fn is
torch's `NotImplemented` node, whose backward raises. Integer division by zero raises torch's
"ZeroDivisionError" RuntimeError; float division by zero gives nan (or inf for //)."""

from __future__ import annotations

import math

from .. import backend as B
from ..autograd.function import Function, apply
from ..tensor import Tensor
from . import cpu_loops
from .arithmetic import _binary_prepare, check_int_divisor, div
from .formulas import sum_to
from .helpers import edges_that_require_grad, wrap
from .inplace import run_inplace
from .registry import export


def _compute(node, a, b, kernel, fn):
    """fn on the broadcast, promoted operands, with torch's refusals for bool and for an
    integer zero divisor."""
    x, y, dt = _binary_prepare(node, a, b)
    if dt.name == "bool":
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')
    if not dt.is_floating_point:
        check_int_divisor(x, y)
        return fn(x, y)
    out = fn(x, y)
    if kernel in ("fmod_cpu", "remainder_cpu"):
        out = _vector_fmod_overflow(out, x, y)
    return out


def _vector_fmod_overflow(out, x, y):
    """torch's vectorised fmod (which its remainder uses too) gives NaN where x / y overflows
    to infinity with x finite (fmod(4., 1e-38) in float32), its scalar loop the exact
    remainder; which elements fall in a vectorised block is engine/ops/cpu_loops.py's
    matter."""
    dt = B.dtype_name(out)
    inf = B.scalar(math.inf, dt)
    huge = B.where(B.eq(B.abs(B.div(x, y)), inf), B.lt(B.abs(x), inf), B.lt(inf, inf))
    if not B.numel(huge) or not B.item(B.amax(huge, None, False)):
        return out
    blocks = cpu_loops.vectorised(B.shape(out), (x, y), cpu_loops.block_size(dt))
    return B.where(B.where(huge, blocks, huge), B.scalar(math.nan, dt), out)


class RemainderScalar(Function):
    """tensor % number: one edge, to the tensor."""

    name_ = "RemainderBackward0"
    chain_rule = "∂(self mod n)/∂self = 1 between the jumps: to self {grad}"
    array_backward = True

    def forward(self, a, number):
        return _compute(self, a, wrap(number, a), "remainder_cpu", B.remainder)

    def backward(self, grad):
        return (grad,)


class Remainder(Function):
    name_ = "RemainderBackward1"
    chain_rule = ("self mod other = self − other·floor(self/other): to self {grad}, to other "
                  "−{grad}·floor(self/other)")
    kernel, rounding = "remainder_cpu", "floor"  # torch's kernel name; how the quotient rounds

    def compute(self, x, y):
        return B.remainder(x, y)

    def forward(self, a, b):
        out = _compute(self, a, b, self.kernel, self.compute)
        if self.needs(1):
            self.save(a, b)
        return out

    def backward(self, grad):
        sa, sb = self.shapes
        gb = None
        if self.needs(1):
            a, b = self.saved_tensors
            gb = sum_to(-grad * div(a, b, rounding_mode=self.rounding), sb)
        return sum_to(grad, sa), gb


class FmodScalar(RemainderScalar):
    name_ = "FmodBackward0"
    chain_rule = "∂fmod(self, n)/∂self = 1 between the jumps: to self {grad}"

    def forward(self, a, number):
        return _compute(self, a, wrap(number, a), "fmod_cpu", B.fmod)


class Fmod(Remainder):
    """fmod: remainder's formulas with the quotient truncated instead of floored."""

    name_ = "FmodBackward1"
    chain_rule = ("fmod(self, other) = self − other·trunc(self/other): to self {grad}, to other "
                  "−{grad}·trunc(self/other)")
    kernel, rounding = "fmod_cpu", "trunc"

    def compute(self, x, y):
        return B.fmod(x, y)


def _not_implemented(op):
    raise RuntimeError(f"derivative for aten::{op} is not implemented")


class NotDifferentiable(Function):
    """An op torch records without a derivative (grad_fn `NotImplemented`): reaching it in
    backward raises. One edge: the tensor of `tensor // number`, `number // tensor` and
    `number % tensor`."""

    name_ = "torch::autograd::NotImplemented"
    chain_rule = "torch has no derivative for this op: backward stops here with an error"

    def forward(self, a, number, op, kernel, fn, reverse):
        # (number is a tensor for floor_divide_(tensor), whose node has one edge too)
        self.op = op
        n = wrap(number, a)
        return _compute(self, n, a, kernel, fn) if reverse else _compute(self, a, n, kernel, fn)

    def backward(self, grad):
        _not_implemented(self.op)


class NotDifferentiable2(Function):
    """NotDifferentiable with two tensor operands: an edge for each that requires grad."""

    name_ = "torch::autograd::NotImplemented"
    chain_rule = NotDifferentiable.chain_rule

    def forward(self, a, b, op, kernel, fn):
        self.op = op
        edges_that_require_grad(self)
        return _compute(self, a, b, kernel, fn)

    def backward(self, grad):
        _not_implemented(self.op)


# -- public functions --------------------------------------------------------------------------

def _is_number(x) -> bool:
    return isinstance(x, (bool, int, float))


def _operand(x):
    if not isinstance(x, Tensor) and not _is_number(x):
        raise TypeError(f"unsupported operand type: expected a Tensor or a number, got "
                        f"{type(x).__name__}")
    return x


@export(operators=("__mod__",),
        palette={"code": "{0} % {1}", "arity": 2, "group": "arithmetic", "label": "a % b"})
def remainder(input, other):
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError(f"remainder() received an invalid combination of arguments - got "
                        f"({type(input).__name__}, {type(other).__name__}), but expected one "
                        "of:\n * (Tensor input, Tensor other)\n * (Tensor input, Number other)\n"
                        " * (Number self, Tensor other)")
    if not isinstance(input, Tensor):
        return apply(NotDifferentiable, (other,), _operand(input), "remainder", "remainder_cpu",
                     B.remainder, True)
    if isinstance(other, Tensor):
        return apply(Remainder, (input, other))
    return apply(RemainderScalar, (input,), _operand(other))


@export()
def fmod(input, other):
    if not isinstance(input, Tensor):
        raise TypeError(f"fmod() received an invalid combination of arguments - got "
                        f"({type(input).__name__}, {type(other).__name__}), but expected one "
                        "of:\n * (Tensor input, Tensor other)\n * (Tensor input, Number other)")
    if isinstance(other, Tensor):
        return apply(Fmod, (input, other))
    return apply(FmodScalar, (input,), _operand(other))


@export(operators=("__floordiv__",),
        palette={"code": "{0} // {1}", "arity": 2, "group": "arithmetic", "label": "a // b"})
def floor_divide(input, other):
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        input = Tensor._make(B.scalar(input, "float32" if isinstance(input, float) else "int64"))
    if not isinstance(input, Tensor):
        return apply(NotDifferentiable, (other,), _operand(input), "floor_divide",
                     "div_floor_cpu", B.floor_divide, True)
    if isinstance(other, Tensor):
        return apply(NotDifferentiable2, (input, other), "floor_divide", "div_floor_cpu",
                     B.floor_divide)
    return apply(NotDifferentiable, (input,), _operand(other), "floor_divide",
                 "div_floor_cpu", B.floor_divide, False)


@export(method=False, function=False, operators=("__rmod__",))
def _rmod(self, other):
    return remainder(other, self)


@export(method=False, function=False, operators=("__rfloordiv__",))
def _rfloordiv(self, other):
    return floor_divide(other, self)


@export(function=False, operators=("__imod__",))
def remainder_(self, other):
    if isinstance(other, Tensor):
        return run_inplace(self, Remainder, (other,), (), "remainder_")
    return run_inplace(self, RemainderScalar, (), (_operand(other),), "remainder_")


@export(function=False)
def fmod_(self, other):
    if isinstance(other, Tensor):
        return run_inplace(self, Fmod, (other,), (), "fmod_")
    return run_inplace(self, FmodScalar, (), (_operand(other),), "fmod_")


@export(function=False, operators=("__ifloordiv__",))
def floor_divide_(self, other):
    # torch's in-place node has one edge, to self, even when other is a tensor
    return run_inplace(self, NotDifferentiable, (), (_operand(other), "floor_divide",
                       "div_floor_cpu", B.floor_divide, False), "floor_divide_")
