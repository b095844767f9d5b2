"""The Python builtins a program may call: our own bounded versions, each a BuiltinFunction
with no attributes of its own, so a program never holds one of Python's builtins. Builtins that
call a function the program passes (map, filter, sorted's key) check it is one the program may
call; builtins that make containers count their items."""

from __future__ import annotations

import operator
import re

from .._engine import engine
from ..limits import LimitExceeded, guard_loader
from .functions import defines
from .generators import LAZY_ITERATORS, ProgramIterator, lazy_iterator
from .policy import EXCEPTIONS

# Python builtins a program may call (our own safe versions, see Builtins), then the exception
# types it may name
_FUNCTIONS = ("print", "len", "abs", "float", "int", "bool", "round", "min", "max", "sum",
              "list", "tuple", "str", "range", "isinstance", "issubclass", "sorted", "any",
              "all", "map", "filter", "zip", "enumerate", "reversed", "dict", "set", "repr", "super",
              "staticmethod", "classmethod", "property", "iter", "next", "divmod", "chr", "ord",
              "callable", "pow", "hash", "format", "object", "type", "getattr", "hasattr",
              "setattr", "delattr")
BUILTIN_NAMES = _FUNCTIONS + tuple(EXCEPTIONS)

# the Python type each conversion builtin stands for (isinstance(x, int) works)
_TYPES = {"float": float, "int": int, "bool": bool, "list": list, "tuple": tuple, "str": str,
          "dict": dict, "set": set, "range": range, "object": object}


class TypeName:
    """What type() gives for a value whose class a program may not hold (a function, None, a
    class of its own): a name that prints and compares as Python's class does, and nothing
    else (it cannot be called and has no attributes)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"<class '{self.name}'>"

    def __eq__(self, other) -> bool:
        return isinstance(other, TypeName) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)


class BuiltinFunction:
    """A Python builtin as a program sees it: our own bounded version, with no attributes."""

    __slots__ = ("name", "fn")

    def __init__(self, name: str, fn):
        self.name = name
        self.fn = fn

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        if self.name in _TYPES:
            return f"<class '{self.name}'>"
        return f"<built-in function {self.name}>"

    @property
    def type(self):
        return _TYPES.get(self.name)


# A module's repr names the file it was loaded from: a path on the host, which a program must
# not learn. Printed, a module shows its torch name only (torch's own repr, without the file).
_MODULE_REPR = re.compile(r"<module '([\w.]+)' from '[^']*'>")


def _module_text(match) -> str:
    name, ours = match.group(1), engine.__name__
    if name == ours or name.startswith(ours + "."):
        name = "torch" + name[len(ours):]
    return f"<module '{name}'>"


class Builtins:
    def __init__(self, run):
        self.run = run
        self.table = {name: BuiltinFunction(name, getattr(self, "_" + name))
                      for name in _FUNCTIONS}
        self.table.update(EXCEPTIONS)

    def get(self, name: str):
        return self.table[name]

    # -- helpers -----------------------------------------------------------------------------
    def _text(self, value) -> str:
        self.run.check_text(value)
        text = str(value)
        return _MODULE_REPR.sub(_module_text, text) if "<module '" in text else text

    def _seq(self, value):
        return self.run.iterate(value, self.run.node)

    def _fn(self, fn):
        """A function the program passes to a builtin: one it may call itself."""
        if fn is not None:
            self.run.check_callable(fn, self.run.node)
        return fn

    def _made(self, value):
        self.run.check_value(value)
        return value

    # -- the builtins ------------------------------------------------------------------------
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
        return self._made(self._text(value))

    def _repr(self, value):
        self.run.check_text(value)
        return self._made(repr(value))

    def _format(self, value, spec=""):
        from .formatting import format_value
        self.run.check_text(value)
        return format_value(value, spec, -1, self.run.limits.max_string_chars)

    def _len(self, value):
        return len(value)

    def _abs(self, value):
        return abs(value)

    def _float(self, value=0.0):
        return float(value)

    def _int(self, value=0, *base):
        if isinstance(value, str) and len(value) > 400:
            raise LimitExceeded("max_int_bits", "this number is too large")
        return self._made(int(value, *base))

    def _bool(self, value=False):
        return bool(value)

    def _round(self, number, ndigits=None):
        if ndigits is not None and (not isinstance(ndigits, int) or abs(ndigits) > 400):
            raise ValueError("round() ndigits must be a whole number between -400 and 400 here")
        return round(number) if ndigits is None else round(number, ndigits)

    def _min(self, *args, key=None, **default):
        return self._extreme(min, args, key, default)

    def _max(self, *args, key=None, **default):
        return self._extreme(max, args, key, default)

    def _extreme(self, fn, args, key, default):
        if set(default) - {"default"}:
            raise TypeError(f"{fn.__name__}() got an unexpected keyword argument")
        items = self._seq(args[0]) if len(args) == 1 else list(args)
        return fn(items, key=self._fn(key), **default)

    def _sum(self, iterable, start=0):
        if isinstance(start, str):
            raise TypeError("sum() can't sum strings [use ''.join(seq) instead]")
        total = start  # any value `+` takes (numbers, tensors, lists: sum(rows, []))
        for item in self._seq(iterable):
            total = self.run.binop(operator.add, total, item, self.run.node)
        return total

    def _list(self, iterable=()):
        return self._made(list(self._seq(iterable)))

    def _tuple(self, iterable=()):
        return self._made(tuple(self._seq(iterable)))

    def _set(self, iterable=()):
        return self._made(set(self._seq(iterable)))

    def _dict(self, *args, **kwargs):
        if len(args) > 1:
            raise TypeError(f"dict expected at most 1 argument, got {len(args)}")
        out = {}
        if args:
            src = args[0]
            if isinstance(src, dict):
                out.update(src)
            else:
                for pair in self._seq(src):
                    k, v = self.run.unpack(pair, 2, self.run.node)
                    out[k] = v
        out.update(kwargs)
        return self._made(out)

    def _range(self, *args):
        for a in args:
            if isinstance(a, bool) or not isinstance(a, int):
                raise TypeError(f"'{type(a).__name__}' object cannot be interpreted as an "
                                "integer")
        return range(*args)

    def _isinstance(self, obj, classinfo):
        return isinstance(obj, self._classes(classinfo))

    def _issubclass(self, cls, classinfo):
        if isinstance(cls, BuiltinFunction) and cls.type is not None:
            cls = cls.type
        if not isinstance(cls, type):
            raise TypeError("issubclass() arg 1 must be a class")
        return issubclass(cls, self._classes(classinfo))

    def _classes(self, classinfo):
        if isinstance(classinfo, tuple):
            return tuple(c for info in classinfo for c in self._flat(self._classes(info)))
        if isinstance(classinfo, BuiltinFunction) and classinfo.type is not None:
            return classinfo.type
        if isinstance(classinfo, type):
            return classinfo
        raise TypeError("isinstance() arg 2 must be a type, a tuple of types, or a union")

    @staticmethod
    def _flat(c):
        return c if isinstance(c, tuple) else (c,)

    def _sorted(self, iterable, *, key=None, reverse=False):
        return sorted(self._seq(iterable), key=self._fn(key), reverse=reverse)

    def _any(self, iterable):
        return any(self._seq(iterable))

    def _all(self, iterable):
        return all(self._seq(iterable))

    def _lazy(self, kind: str, items, iterables):
        """Python's lazy iterator over the program's generators and iterables, so their code
        runs as the loop asks for items (generators.py); over anything else, the items as they
        are."""
        return ProgramIterator(items, kind) if any(
            isinstance(i, LAZY_ITERATORS) or defines(i, "__iter__") for i in iterables) else items

    def _items(self, iterable):
        lazy = lazy_iterator(iterable)
        return lazy if lazy is not None else self._seq(iterable)

    def _map(self, fn, *iterables):
        self._fn(fn)
        return self._lazy("map", map(fn, *[self._items(i) for i in iterables]), iterables)

    def _filter(self, fn, iterable):
        self._fn(fn)
        return self._lazy("filter", filter(fn, self._items(iterable)), (iterable,))

    def _zip(self, *iterables, strict=False):
        return self._lazy("zip", zip(*[self._items(i) for i in iterables], strict=strict),
                          iterables)

    def _enumerate(self, iterable, start=0):
        return self._lazy("enumerate", enumerate(self._items(iterable), start), (iterable,))

    def _reversed(self, seq):
        return reversed(self._seq(seq))

    def _iter(self, iterable):
        if isinstance(iterable, LAZY_ITERATORS):
            return iterable  # a generator is its own iterator
        if defines(iterable, "__iter__"):
            return iter(iterable)  # what the program's __iter__ returns
        if isinstance(iterable, engine.utils.data.DataLoader):
            guard_loader(iterable, self.run.limits)
            return iter(iterable)  # batches load one at a time, as next() asks (torch's order)
        return iter(self._seq(iterable))

    def _next(self, iterator, *default):
        from .statements import _ITERATOR_TYPES  # the iterators a program can hold
        if not isinstance(iterator, _ITERATOR_TYPES + (engine.utils.data.LoaderIterator,)) \
                and not defines(iterator, "__next__"):
            raise TypeError(f"'{type(iterator).__name__}' object is not an iterator")
        return next(iterator, *default)

    def _divmod(self, a, b):
        return divmod(a, b)

    def _pow(self, base, exp, mod=None):
        if mod is None:
            return self.run.binop(operator.pow, base, exp, self.run.node)
        return pow(base, exp, mod)

    def _chr(self, i):
        return chr(i)

    def _ord(self, c):
        return ord(c)

    def _callable(self, obj):
        return callable(obj)

    def _hash(self, obj):
        return hash(obj)

    def _object(self):
        return object()

    # getattr and friends go through the interpreter's own attribute rules, exactly as
    # `obj.name` written out would (the name is only known when the call runs)
    @staticmethod
    def _attr_name(name, fn: str) -> str:
        if not isinstance(name, str):
            raise TypeError(f"{fn}(): attribute name must be string, not "
                            f"'{type(name).__name__}'")
        return name

    def _getattr(self, obj, name, *default):
        if len(default) > 1:
            raise TypeError(f"getattr expected at most 3 arguments, got {2 + len(default)}")
        name = self._attr_name(name, "getattr")
        try:
            return self.run.get_attr(obj, name, self.run.node)
        except AttributeError:
            if default:
                return default[0]
            raise

    def _hasattr(self, obj, name):
        name = self._attr_name(name, "hasattr")
        try:
            self.run.get_attr(obj, name, self.run.node)
        except AttributeError:
            return False
        return True

    def _setattr(self, obj, name, value):
        name = self._attr_name(name, "setattr")
        if name.startswith("__"):
            raise self.run.not_allowed(self.run.node, f"attributes starting with '__' are not "
                                       f"allowed (.{name})")
        self.run.set_attr(obj, name, value, self.run.node)

    def _delattr(self, obj, name):
        name = self._attr_name(name, "delattr")
        if name.startswith("__"):
            raise self.run.not_allowed(self.run.node, f"attributes starting with '__' are not "
                                       f"allowed (.{name})")
        self.run.set_attr(obj, name, None, self.run.node, delete=True)

    def _type(self, obj, *more):
        if more:
            raise TypeError("type() with three arguments makes a class: write a class "
                            "statement instead") if len(more) == 2 else TypeError(
                "type() takes 1 or 3 arguments")
        return self.type_of(obj)

    def type_of(self, obj):
        """type(obj) as a program may hold it: the class itself when the program can name it
        (torch.Tensor, nn.Linear, its own classes, exception types), the program's `int`, `list`
        ... for Python's values (so `type(3) == int`), else a TypeName that only prints."""
        from .functions import is_user_class
        cls = type(obj)
        for name, py in _TYPES.items():
            if cls is py:
                return self.table[name]
        policy = self.run.policy
        if (is_user_class(cls) or cls in EXCEPTIONS.values() or policy.is_engine_object(obj)
                or cls in policy.classes):
            return cls
        if isinstance(obj, (type, TypeName)) or (isinstance(obj, BuiltinFunction)
                                                 and obj.type is not None):
            return TypeName("type")
        if isinstance(obj, BuiltinFunction):
            return TypeName("builtin_function_or_method")
        return TypeName({"UserFunction": "function", "ProgramGenerator": "generator"}.get(
            cls.__name__, getattr(obj, "kind", cls.__name__) if isinstance(
                obj, ProgramIterator) else cls.__name__))

    def _super(self, *args):
        from .expressions import SuperProxy
        run = self.run
        if args:
            if len(args) != 2:
                raise TypeError("super() takes the class and the instance here")
            cls, obj = args
        else:
            frame = run.frame
            fn = frame.function
            if fn is None or fn.owner is None or not frame.args:
                raise RuntimeError("super(): no arguments")
            cls, obj = fn.owner, frame.args[0]
        if not isinstance(cls, type) or not isinstance(obj, cls):
            raise TypeError("super(type, obj): obj must be an instance or subtype of type")
        return SuperProxy(cls, obj)

    def _staticmethod(self, fn):
        return staticmethod(self._fn(fn))

    def _classmethod(self, fn):
        return classmethod(self._fn(fn))

    def _property(self, fget=None):
        return property(self._fn(fget))

    def program_function(self, fn):
        """A function the program passes to property's setter/getter/deleter: its own."""
        from .functions import UserFunction
        if not isinstance(fn, UserFunction):
            raise TypeError("a property's setter, getter or deleter is one of the program's "
                            "own functions here")
        return fn


def is_number(v) -> bool:
    return type(v) in (int, float, bool)
