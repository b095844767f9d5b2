"""What the program's operators mean (the operator module's functions, never the program's own
text) and the guard that keeps arithmetic on Python numbers small."""

from __future__ import annotations

import ast
import operator

from ..limits import LimitExceeded, Limits

BINOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.Pow: operator.pow, ast.MatMult: operator.matmul,
    ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.Mod: operator.mod,
    ast.FloorDiv: operator.floordiv, ast.BitXor: operator.xor, ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
}
INPLACE = {
    ast.Add: operator.iadd, ast.Sub: operator.isub, ast.Mult: operator.imul,
    ast.Div: operator.itruediv, ast.Pow: operator.ipow, ast.MatMult: operator.imatmul,
    ast.BitAnd: operator.iand, ast.BitOr: operator.ior, ast.Mod: operator.imod,
    ast.FloorDiv: operator.ifloordiv, ast.BitXor: operator.ixor, ast.LShift: operator.ilshift,
    ast.RShift: operator.irshift,
}
# `a += b` on a number or a list makes a new value (in place only on tensors)
PLAIN = {INPLACE[k]: BINOPS[k] for k in INPLACE}
UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_,
         ast.Invert: operator.invert}
COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt,
           ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
           ast.Is: operator.is_, ast.IsNot: operator.is_not,
           ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}
SYMBOL = {ast.Mod: "%", ast.FloorDiv: "//", ast.LShift: "<<", ast.RShift: ">>",
          ast.BitXor: "^", ast.In: "in", ast.NotIn: "not in"}


def number_op(fn, a, b, limits: Limits):
    """a <op> b on Python numbers, refusing results too large to compute quickly."""
    ints = type(a) is int and type(b) is int
    bits = limits.max_int_bits
    if fn is operator.pow and ints and b > 0 and abs(a) > 1:
        if b > bits or (abs(a).bit_length() - 1) * b > bits:
            raise LimitExceeded("max_int_bits", f"this power is too large (more than {bits} bits)")
    if fn in (operator.lshift, operator.ilshift) and ints and b > 0 \
            and a.bit_length() + b > bits:
        raise LimitExceeded("max_int_bits", f"this number is too large (more than {bits} bits)")
    if fn is operator.mul and ints and a.bit_length() + b.bit_length() > bits + 1:
        raise LimitExceeded("max_int_bits", f"this number is too large (more than {bits} bits)")
    result = fn(a, b)
    if type(result) is int and result.bit_length() > bits:
        raise LimitExceeded("max_int_bits", f"this number is too large (more than {bits} bits)")
    return result
