"""Comparisons (no gradient), where, maximum and minimum."""

from __future__ import annotations

from .. import backend as B
from .. import batched_reads
from ..autograd.function import Function, apply
from ..batched_reads import derived
from ..dtypes import bool_
from ..tensor import Tensor
from . import cpu_loops
from .formulas import sum_to
from .helpers import cast, check_broadcast, promote, wrap
from .nonzero import nonzero
from .registry import export


def _compare(name):
    def op(input, other):
        other = wrap(other, input)
        check_broadcast(B.shape(input._data), B.shape(other._data))
        dt = promote(input, other)
        # looked up per call: engine.use_backend() rebinds B's functions
        out = Tensor._make(getattr(B, name)(cast(input, dt), cast(other, dt)), bool_)
        return derived(out, input, other)

    return op


eq = export("eq", operators=("__eq__",))(_compare("eq"))
ne = export("ne", operators=("__ne__",))(_compare("ne"))
lt = export("lt", operators=("__lt__",))(_compare("lt"))
le = export("le", operators=("__le__",))(_compare("le"))
gt = export("gt", operators=("__gt__",))(_compare("gt"))
ge = export("ge", operators=("__ge__",))(_compare("ge"))


def _logical(fn):
    def op(input, other):
        other = wrap(other, input)
        if input._dtype is bool_ and other._dtype is bool_:
            return derived(Tensor._make(fn(input._data, other._data), bool_), input, other)
        raise TypeError("bitwise and logical operators here take bool tensors")

    return op


_and = export(method=False, function=False, operators=("__and__",))(
    _logical(lambda a, b: B.mul(a, b)))
_or = export(method=False, function=False, operators=("__or__",))(
    _logical(lambda a, b: B.maximum(a, b)))
_xor = export(method=False, function=False, operators=("__xor__",))(
    _logical(lambda a, b: B.ne(a, b)))


@export(operators=("__invert__",))
def logical_not(input):
    return derived(Tensor._make(B.logical_not(input._data), bool_), input)


@export()
def isnan(input):
    return derived(Tensor._make(B.isnan(input._data), bool_), input)


class Where(Function):
    name_ = "WhereBackward0"
    chain_rule = ("to self: {grad} where condition is True, else 0; to other: {grad} where it is False, "
                  "else 0")

    def forward(self, cond, a, b):
        sa, sb, sc = B.shape(a._data), B.shape(b._data), B.shape(cond._data)
        # torch broadcasts condition, input, other in that order (TensorIterator)
        check_broadcast(sc, sa)
        check_broadcast(B.broadcast_shapes(sc, sa), sb)
        self.shapes = (sa, sb)
        self.save(cond)  # torch saves the condition: a second backward raises, as there
        dt = promote(a, b)
        return B.where(cond._data, cast(a, dt), cast(b, dt))

    def backward(self, grad):
        sa, sb = self.shapes
        (cond,) = self.saved_tensors
        # torch's where(condition, grad, 0): +0.0 on the side not taken, whatever grad is
        return (None,
                sum_to(where(cond, grad, 0.0), sa) if self.needs(1) else None,
                sum_to(where(cond, 0.0, grad), sb) if self.needs(2) else None)


@export(palette={"code": "torch.where({0} > 0, {0}, {1})", "arity": 2, "group": "select",
                 "label": "where(c, a, b)"})
def where(condition, input=None, other=None):
    if input is None and other is None:  # torch.where(condition): nonzero(as_tuple=True)
        batched_reads.refuse(batched_reads.DYNAMIC_SHAPE_ERROR.format(op="aten::where"),
                             condition)
        return nonzero(condition, as_tuple=True)
    if input is None or other is None:
        raise TypeError("where() received an invalid combination of arguments - got (Tensor, "
                        "Tensor), but expected one of:")
    if not isinstance(input, Tensor):
        if not isinstance(other, Tensor):
            input = Tensor._make(B.scalar(input, "float32" if isinstance(input, float) else
                                          "int64"))
        else:
            input = wrap(input, other)
    other = wrap(other, input)
    out = apply(Where, (condition, input, other))
    return out


def _zero_ties(out, x, y):
    """Where x and y are both zeros, torch's maximum/minimum give x (std::max/min) in its scalar
    loop and y (the vector instruction) in its vectorised blocks: 0.0 or -0.0 by the element's
    place (engine/ops/cpu_loops.py)."""
    dt = B.dtype_name(out)
    zero = B.scalar(0, dt)
    x_zero = B.eq(x, zero)
    tie = B.where(x_zero, B.eq(y, zero), x_zero)  # x == 0 and y == 0
    if not B.numel(tie) or not B.item(B.amax(tie, None, False)):
        return out
    shape = B.shape(out)
    blocks = cpu_loops.vectorised(shape, (x, y), cpu_loops.block_size(dt))
    return B.where(tie, B.where(blocks, B.expand(y, shape), B.expand(x, shape)), out)


class Maximum(Function):
    """Ties send half the gradient to each side (torch's maximum/minimum backward)."""

    name_ = "MaximumBackward0"
    chain_rule = ("to self: {grad} where self > other, to other where other > self (a tie splits it in "
                  "half)")
    pick = staticmethod(lambda a, b: B.maximum(a, b))
    sign = 1

    def forward(self, a, b):
        sa, sb = B.shape(a._data), B.shape(b._data)
        check_broadcast(sa, sb)
        self.shapes = (sa, sb)
        self.save(a, b)
        dt = promote(a, b)
        x, y = cast(a, dt), cast(b, dt)
        out = type(self).pick(x, y)
        if dt.is_floating_point:
            out = _zero_ties(out, x, y)
        return out

    def backward(self, grad):
        a, b = self.saved_tensors
        sa, sb = self.shapes
        # torch: where(a == b, grad / 2, grad), zeroed where the other side wins; a NaN on
        # either side wins for neither, so both sides get the whole gradient there
        a_loses = a < b if self.sign > 0 else a > b
        b_loses = b < a if self.sign > 0 else b > a
        shared = where(a == b, grad / 2, grad)
        ga = where(a_loses, 0.0, shared)  # masked_fill_(..., 0): +0.0 whatever grad is
        gb = where(b_loses, 0.0, shared)
        return sum_to(ga, sa), sum_to(gb, sb)


class Minimum(Maximum):
    name_ = "MinimumBackward0"
    chain_rule = ("to self: {grad} where self < other, to other where other < self (a tie splits it in "
                  "half)")
    pick = staticmethod(lambda a, b: B.minimum(a, b))
    sign = -1


@export(palette={"code": "torch.maximum({0}, {1})", "arity": 2, "group": "select",
                 "label": "maximum(a, b)"})
def maximum(input, other):
    return apply(Maximum, (input, other))


@export(palette={"code": "torch.minimum({0}, {1})", "arity": 2, "group": "select",
                 "label": "minimum(a, b)"})
def minimum(input, other):
    return apply(Minimum, (input, other))
