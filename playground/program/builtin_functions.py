"""The Python builtins a program may call: our own bounded versions, each a BuiltinFunction
with no attributes of its own, so a program never holds one of Python's builtins."""

from __future__ import annotations

import operator

from .._engine import engine
from ..limits import LimitExceeded

# Python builtins a program may call (our own safe versions, see Builtins)
BUILTIN_NAMES = ("print", "len", "abs", "float", "int", "bool", "round", "min", "max", "sum",
                 "list", "tuple", "str")


class BuiltinFunction:
    """A Python builtin as a program sees it: our own bounded version, with no attributes."""

    __slots__ = ("name", "fn")

    def __init__(self, name: str, fn):
        self.name = name
        self.fn = fn

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<built-in function {self.name}>"


class Builtins:
    def __init__(self, run):
        self.run = run
        for name in BUILTIN_NAMES:
            setattr(self, name, BuiltinFunction(name, getattr(self, "_" + name)))

    def _text(self, value) -> str:
        if type(value) in (list, tuple):
            self.run.check_nested(value)
        return str(value)

    def _print(self, *args, sep=" ", end="\n", file=None, flush=False):
        if file is not None:
            raise TypeError("print(file=...) is not supported in the playground")
        for name, v in (("sep", sep), ("end", end)):
            if v is not None and not isinstance(v, str):
                raise TypeError(f"{name} must be None or a string, not {type(v).__name__}")
        sep = " " if sep is None else sep
        end = "\n" if end is None else end
        text = sep.join(self._text(a) for a in args) + end
        self.run.write(text)

    def _str(self, value=""):
        return self._text(value)

    def _len(self, value):
        return len(value)

    def _abs(self, value):
        return abs(value)

    def _float(self, value=0.0):
        return float(value)

    def _int(self, value=0):
        if isinstance(value, str) and len(value) > 400:
            raise LimitExceeded("max_int_bits", "this number is too large")
        return int(value)

    def _bool(self, value=False):
        return bool(value)

    def _round(self, number, ndigits=None):
        if ndigits is not None and (not isinstance(ndigits, int) or abs(ndigits) > 400):
            raise ValueError("round() ndigits must be a whole number between -400 and 400 here")
        return round(number) if ndigits is None else round(number, ndigits)

    def _seq(self, value):
        return self.run.iterate(value, self.run.node)

    def _min(self, *args):
        return min(self._seq(args[0]) if len(args) == 1 else args)

    def _max(self, *args):
        return max(self._seq(args[0]) if len(args) == 1 else args)

    def _sum(self, iterable, start=0):
        if not (is_number(start) or isinstance(start, engine.Tensor)):
            raise TypeError("sum() start must be a number or a tensor here")
        total = start
        for item in self._seq(iterable):
            total = self.run.binop(operator.add, total, item, self.run.node)
        return total

    def _list(self, iterable=()):
        return list(self._seq(iterable))

    def _tuple(self, iterable=()):
        return tuple(self._seq(iterable))


def is_number(v) -> bool:
    return type(v) in (int, float, bool)
