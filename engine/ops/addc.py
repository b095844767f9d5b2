"""addcmul and addcdiv: input + value * tensor1 * tensor2 (or / tensor2), as one op each, with
their in-place forms (what optimisers write: `v.mul_(b2).addcmul_(g, g, value=1 - b2)`).

torch's CPU kernels compute addcmul as fma(value * tensor1, tensor2, input), one rounding for
the multiply and the add, and addcdiv as input + (value * tensor1) / tensor2; so do these.
Backward formulas are torch's (derivatives.yaml)."""

from __future__ import annotations

from .. import backend as B
from ..autograd.function import Function, apply
from ..dtypes import result_type
from ..tensor import Tensor
from .formulas import sum_to
from .helpers import check_broadcast
from .inplace import run_inplace
from .registry import export

_ADDCDIV_INT = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will "  # noqa: E501 - torch's double space
    "perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be "
    "implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
    "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
    "addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), "
    "for all dtypes.")


def _prepare(node, a, t1, t2, value):
    """The three operands broadcast-checked and cast to their common dtype, value in it too."""
    sa, s1, s2 = (B.shape(t._data) for t in (a, t1, t2))
    # in torch's order: input against tensor1, then that broadcast against tensor2
    check_broadcast(sa, s1)
    check_broadcast(B.broadcast_shapes(sa, s1), s2)
    node.shapes = (sa, s1, s2)
    dt = result_type((a, t1, t2))
    xs = [t._data if t._dtype is dt else B.astype(t._data, dt.name) for t in (a, t1, t2)]
    v = value if dt.is_floating_point else int(value)  # torch casts value to the dtype
    node.value = v
    return xs, B.scalar(v, dt.name), dt


class Addcmul(Function):
    name_ = "AddcmulBackward0"
    zero_passes = (0, 1, 2)  # torch's kernel keeps sgn's zero gradient (autograd/zero_grad.py)
    chain_rule = ("addcmul = self + value·tensor1·tensor2: to self {grad}, to tensor1 "
                  "{grad}·tensor2·value, to tensor2 {grad}·tensor1·value")

    def forward(self, a, t1, t2, value):
        (x, y, z), v, dt = _prepare(self, a, t1, t2, value)
        self.save(t1 if self.needs(2) else None, t2 if self.needs(1) else None)
        scaled = y if value == 1 else B.mul(v, y)
        if dt.is_floating_point:
            return B.fma(scaled, z, x)
        return B.add(x, B.mul(scaled, z))

    def backward(self, grad):
        t1, t2 = self.saved_tensors
        sa, s1, s2 = self.shapes
        v = self.value
        return (sum_to(grad, sa),
                None if t2 is None else sum_to(grad * (t2 * v), s1),
                None if t1 is None else sum_to(grad * (t1 * v), s2))

    @property
    def _saved_value(self):
        return self.value


class Addcdiv(Function):
    name_ = "AddcdivBackward0"
    chain_rule = ("addcdiv = self + value·tensor1/tensor2: to self {grad}, to tensor1 "
                  "{grad}·value/tensor2, to tensor2 −{grad}·value·tensor1/tensor2²")

    def forward(self, a, t1, t2, value):
        (x, y, z), v, _ = _prepare(self, a, t1, t2, value)
        self.save(t1 if self.needs(2) else None, t2)
        scaled = y if value == 1 else B.mul(v, y)
        return B.add(x, B.div(scaled, z))

    def backward(self, grad):
        t1, t2 = self.saved_tensors
        sa, s1, s2 = self.shapes
        v = self.value
        g1 = sum_to(grad * (v / t2), s1) if self.needs(1) else None
        g2 = sum_to(-grad * v * t1 / (t2 * t2), s2) if self.needs(2) else None
        return sum_to(grad, sa), g1, g2

    @property
    def _saved_value(self):
        return self.value


def _check(fn, input, tensor1, tensor2, value):
    for pos, (name, t) in enumerate((("input", input), ("tensor1", tensor1),
                                     ("tensor2", tensor2)), 1):
        if not isinstance(t, Tensor):
            raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be Tensor, not "
                            f"{type(t).__name__}")
    if not isinstance(value, (int, float)):
        raise TypeError(f"{fn}(): argument 'value' must be Number, not {type(value).__name__}")
    if fn.startswith("addcdiv") and not tensor1.dtype.is_floating_point \
            and not tensor2.dtype.is_floating_point:
        raise RuntimeError(_ADDCDIV_INT)
    if fn.startswith("addcmul") and "bool" == result_type((input, tensor1, tensor2)).name:
        raise NotImplementedError("\"addcmul_cpu_out\" not implemented for 'Bool'")


@export()
def addcmul(input, tensor1, tensor2, *, value=1):
    _check("addcmul", input, tensor1, tensor2, value)
    return apply(Addcmul, (input, tensor1, tensor2), value)


@export()
def addcdiv(input, tensor1, tensor2, *, value=1):
    _check("addcdiv", input, tensor1, tensor2, value)
    return apply(Addcdiv, (input, tensor1, tensor2), value)


@export(function=False)
def addcmul_(self, tensor1, tensor2, *, value=1):
    _check("addcmul_", self, tensor1, tensor2, value)
    return run_inplace(self, Addcmul, (tensor1, tensor2), (value,), "addcmul_")


@export(function=False)
def addcdiv_(self, tensor1, tensor2, *, value=1):
    _check("addcdiv_", self, tensor1, tensor2, value)
    return run_inplace(self, Addcdiv, (tensor1, tensor2), (value,), "addcdiv_")
