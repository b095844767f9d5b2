"""Size arguments read exactly as torch's argument parser reads them, before anything is made.

A size is a list of ints. torch accepts `f(2, 3)`, `f((2, 3))`, `f([2, 3])`, and as an item any
int or one-element integer tensor; it refuses floats, and tensors of floats, with a TypeError
whose text depends on where the bad item is:
- the first item decides whether the positional arguments are read as the size (`f(2, 3.0)`)
  or as one argument too many (`f(2.0, 3)`: "takes 1 positional argument but 2 were given");
- a bad later item "failed to unpack the object at pos N" (counted from 1);
- a bad first item of a list "found element of type float at pos 0" (counted from 0);
- a bool is no size on its own (`zeros(True)`) but passes as a later item (`zeros(3, True)`).
Functions with several overloads (rand, randn, view) say "received an invalid combination of
arguments" where the others name the argument; only torch's first line is reproduced.

The element count of what a factory will allocate is checked against the run's budget here,
once the size is known to be ints (engine/budget.py).
"""

from __future__ import annotations

from . import budget as _budget

__all__ = ["size_from_varargs", "size_from_value", "int_arg", "numel", "check_alloc"]

_INT64 = 2**63


def _type(v) -> str:
    return type(v).__name__


def _is_index(v) -> bool:
    """What torch takes as an int where it reads a size's first item (THPUtils_checkIndex)."""
    if isinstance(v, bool):
        return False
    if isinstance(v, int):
        return True
    return _int_tensor(v)


def _int_tensor(v) -> bool:
    from .tensor import Tensor  # sizes are read by tensor.py's own ops: import when used
    return (isinstance(v, Tensor) and not v._dtype.is_floating_point
            and v._dtype.name != "bool" and v.numel() == 1)


def _invalid(fn: str, args, kwargs=None) -> TypeError:
    got = [_type(a) for a in args] + [f"{k}={_type(v)}" for k, v in (kwargs or {}).items()]
    return TypeError(f"{fn}() received an invalid combination of arguments - got "
                     f"({', '.join(got)}), but expected one of:")


def _unpack(fn: str, name: str, items) -> tuple:
    out = []
    for i, v in enumerate(items):
        if isinstance(v, int) or _int_tensor(v):
            v = int(v)
            if not -_INT64 <= v < _INT64:
                raise TypeError(f"{fn}(): argument '{name}' failed to unpack the object at pos "
                                f"{i + 1} with error \"Overflow when unpacking long long")
            out.append(v)
        else:
            raise TypeError(f"{fn}(): argument '{name}' failed to unpack the object at pos "
                            f"{i + 1} with error \"type must be tuple of ints,but got {_type(v)}\"")
    return tuple(out)


def size_from_varargs(fn: str, args: tuple, name: str = "size", *,
                      overloaded: tuple = ()) -> tuple:
    """The size of `fn(*args)` for a function whose one positional argument is a size, which
    torch also lets be spread (`zeros(2, 3)`). overloaded: where torch reports "invalid
    combination" instead of naming the argument: "none" (no argument), "many" (several
    arguments, the first no int), "one" (one argument of the wrong type)."""
    n = len(args)
    if n == 0:
        if "none" in overloaded:
            raise _invalid(fn, args)
        raise TypeError(f'{fn}() missing 1 required positional arguments: "{name}"')
    first = args[0]
    if n > 1:
        if _is_index(first):
            return _unpack(fn, name, args)
        if "many" in overloaded:
            raise _invalid(fn, args)
        raise TypeError(f"{fn}() takes 1 positional argument but {n} were given")
    if "one" in overloaded and not (_is_index(first) or _sequence_of_ints(first)):
        raise _invalid(fn, args)
    return size_from_value(fn, first, name)


def _sequence_of_ints(v) -> bool:
    return isinstance(v, (tuple, list)) and (not v or _is_index(v[0]))


def size_from_value(fn: str, value, name: str = "size", position: int | None = 1, *,
                    single_int: bool = True) -> tuple:
    """A size given as one argument (`full((2, 3), ...)`, `zeros(size=...)`): position None
    when it was given by keyword. single_int: a lone int is a 1-d size (False for `full`)."""
    where = f"'{name}'" if position is None else f"'{name}' (position {position})"
    if isinstance(value, (tuple, list)):
        if value and not _is_index(value[0]):
            if position is None:
                raise TypeError(f"{fn}(): argument {where} must be tuple of ints, not "
                                f"{_type(value)}")
            raise TypeError(f"{fn}(): argument {where} must be tuple of ints, but found element "
                            f"of type {_type(value[0])} at pos 0")
        return _unpack(fn, name, value)
    if single_int and _is_index(value):
        return _unpack(fn, name, (value,))
    raise TypeError(f"{fn}(): argument {where} must be tuple of ints, not {_type(value)}")


def int_arg(fn: str, value, name: str, position: int) -> int:
    """An argument torch reads as one int (eye's n, randperm's n)."""
    if _is_index(value):
        return int(value)
    raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be int, not "
                    f"{_type(value)}")


def numel(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def check_alloc(shape, what: str = "this size") -> None:
    """Refuse, under a run's budget, to allocate a tensor of `shape` (ints) that is too large."""
    b = _budget.state.budget
    if b is not None:
        b.elements(numel(max(d, 0) for d in shape), what)
