"""logical_and, logical_or and logical_xor (bool results: nonzero counts as True), and the
in-place forms of the four logical ops. They have no gradient: torch records nothing for them,
not even in place (the tensor keeps its grad_fn and its values change, its version goes up)."""

from __future__ import annotations

from .. import backend as B
from .. import batched_reads
from ..batched_reads import derived
from ..dtypes import bool_
from ..tensor import Tensor
from .compare import logical_not
from .helpers import check_broadcast
from .inplace import GENERIC_WORDING, INPLACE_WORDING, check_under_vmap
from .registry import export


def _truth(t: Tensor):
    return t._data if t._dtype is bool_ else B.ne(t._data, B.scalar(0, t._dtype.name))


def _logical(name, combine):
    def op(input, other):
        if not isinstance(other, Tensor):
            raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not "
                            f"{type(other).__name__}")
        check_broadcast(B.shape(input._data), B.shape(other._data))
        return derived(Tensor._make(combine(_truth(input), _truth(other)), bool_), input, other)

    op.__name__ = op.__qualname__ = name
    return op


# lambdas: B's functions are looked up per call (engine.use_backend rebinds them)
logical_and = export("logical_and")(_logical("logical_and", lambda a, b: B.mul(a, b)))
logical_or = export("logical_or")(_logical("logical_or", lambda a, b: B.maximum(a, b)))
logical_xor = export("logical_xor")(_logical("logical_xor", lambda a, b: B.ne(a, b)))


def _write(self: Tensor, result, op: str, *operands) -> Tensor:
    """Write result(), computed from self and operands, into self (under torch.func.vmap, once
    torch's rules for in-place ops allow it: ops/inplace.py)."""
    if batched_reads.state.levels:
        check_under_vmap(self, operands, INPLACE_WORDING.get(op, GENERIC_WORDING),
                         lambda: B.broadcast_shapes(*(B.shape(t._data) for t in (self, *operands))))
    result = result()
    shape, out = B.shape(self._data), B.shape(result._data)
    if shape != out:
        raise RuntimeError(f"output with shape [{', '.join(map(str, shape))}] doesn't match the "
                           f"broadcast shape [{', '.join(map(str, out))}]")
    B.assign(self._data, result._data)
    self._bump_version(op)
    return self


@export(function=False)
def logical_not_(self):
    return _write(self, lambda: logical_not(self), "logical_not_")


@export(function=False)
def logical_and_(self, other):
    return _write(self, lambda: logical_and(self, other), "logical_and_", other)


@export(function=False)
def logical_or_(self, other):
    return _write(self, lambda: logical_or(self, other), "logical_or_", other)


@export(function=False)
def logical_xor_(self, other):
    return _write(self, lambda: logical_xor(self, other), "logical_xor_", other)


# &=, |= and ^= on bool tensors write in place, as torch's bitwise_and_/or_/xor_ do (views see
# the change, the version goes up); on other dtypes they raise as & | ^ do here
def _in_place_operator(name, combine):
    def op(self, other):
        return _write(self, lambda: combine(self, other), name, other)

    op.__name__ = op.__qualname__ = name
    return op


export(method=False, function=False, operators=("__iand__",))(
    _in_place_operator("bitwise_and_", lambda a, b: a & b))
export(method=False, function=False, operators=("__ior__",))(
    _in_place_operator("bitwise_or_", lambda a, b: a | b))
export(method=False, function=False, operators=("__ixor__",))(
    _in_place_operator("bitwise_xor_", lambda a, b: a ^ b))
