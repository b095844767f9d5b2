"""Match statements: Python's structural pattern matching over the run's values, with Python
3.11's semantics and errors (what its ceval.c and compile.c do, re-done over the tree).

A mixin of the run (interpret.py's _Run). What a pattern may read stays inside the language:
values and class patterns evaluate their dotted names as expressions (so through the policy),
and every attribute a class pattern reads, by keyword or through `__match_args__`, is read with
`get_attr`, exactly as `subject.name` written out would be (a dunder or an engine internal is
refused there; a missing attribute is no match, as in Python). `__match_args__` itself is read
only off the program's own classes (a class body may assign it) and the engine's classes that
have one as torch's do; the program can never read it back.

The cases are tried in one step (kind `match`): the subject, each pattern in turn and its
guard, until a case matches; then that case's body runs as any block does. The names a pattern
captures are bound when the whole pattern matched, before its guard runs (so they stay bound if
the guard is false), as Python binds them.
"""

from __future__ import annotations

import ast

from .._engine import engine
from ..limits import guard_broadcast
from .builtin_functions import BuiltinFunction, TypeName

# CPython's type flags that make a class pattern's subject a sequence or a mapping (what
# collections.abc.Sequence/Mapping registration sets too); str, bytes and bytearray are not
# sequences for a pattern
_SEQUENCE = 1 << 5  # Py_TPFLAGS_SEQUENCE
_MAPPING = 1 << 6  # Py_TPFLAGS_MAPPING
# builtins whose class pattern's one positional sub-pattern matches the subject itself
# (`case int(n):`), and their subclasses (torch.Size is a tuple)
_MATCH_SELF = (bool, bytearray, bytes, dict, float, frozenset, int, list, set, str, tuple)
# Python's builtins that are classes but which the program holds as our own functions: a class
# pattern over them would match in Python, so here it is refused rather than wrong
_PYTHON_CLASSES = frozenset(("super", "staticmethod", "classmethod", "property", "type", "map",
                             "filter", "zip", "enumerate", "reversed"))
# the engine's classes that are C types in torch, whose name in Python's messages is qualified
_C_TYPE_NAMES = {engine.Size: "torch.Size", engine.dtypes.dtype: "torch.dtype",
                 engine.device: "torch.device", engine.Generator: "torch._C.Generator"}
_LEGACY_TYPE = type(engine.FloatTensor)
_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement, named by __name__
_MISSING = object()


def _is_wildcard(p) -> bool:
    return isinstance(p, ast.MatchAs) and p.name is None and p.pattern is None


def _star_wildcard(p) -> bool:
    return isinstance(p, ast.MatchStar) and p.name is None


def type_name(cls) -> str:
    """The class's name as torch's Python names it in an error (a C type's tp_name)."""
    name = _C_TYPE_NAMES.get(cls)
    if name is not None:
        return name
    if isinstance(cls, _LEGACY_TYPE):
        return f"torch.{cls.__name__}"
    if cls.__module__ == "torch.return_types":
        return f"torch.return_types.{cls.__name__}"
    if not cls.__flags__ & _HEAP_TYPE and cls.__module__ != "builtins":
        return f"{cls.__module__}.{cls.__qualname__}"  # a C type's tp_name: collections.deque
    return cls.__name__


def capture_order(p) -> list:
    """The names a pattern binds, in the order Python's compiler stores them."""
    if isinstance(p, ast.MatchAs):
        inner = capture_order(p.pattern) if p.pattern is not None else []
        return inner + ([p.name] if p.name else [])
    if isinstance(p, ast.MatchStar):
        return [p.name] if p.name else []
    if isinstance(p, ast.MatchOr):
        return capture_order(p.patterns[0])
    if isinstance(p, ast.MatchSequence):
        return [n for sub in p.patterns for n in capture_order(sub)]
    if isinstance(p, ast.MatchMapping):
        return [n for sub in p.patterns for n in capture_order(sub)] + (
            [p.rest] if p.rest else [])
    if isinstance(p, ast.MatchClass):
        return [n for sub in p.patterns + p.kwd_patterns for n in capture_order(sub)]
    return []


class Matching:
    """The run's half that executes match statements."""

    def exec_match(self, stmt):
        case = yield from self.statement(stmt, self.choose_case, "match")
        if case is not None:
            yield from self.block(case.body)

    def choose_case(self, stmt):
        """The case whose pattern matches the subject and whose guard is true, or None; binds
        what each matching pattern captured."""
        subject = self.eval(stmt.subject)
        for case in stmt.cases:
            captured: dict = {}
            if self.match(case.pattern, subject, captured):
                for name, value in captured.items():
                    self.bind(name, value)
                if case.guard is None or self.truth(self.eval(case.guard)):
                    return case
        return None

    def match(self, p, subject, captured: dict) -> bool:
        return _MATCH[type(p)](self, p, subject, captured)

    def match_value(self, p, subject, captured) -> bool:
        value = self.eval(p.value)
        self.node = p
        if isinstance(subject, engine.Tensor) and isinstance(value, engine.Tensor):
            guard_broadcast([subject, value], self.limits)
        return self.truth(subject == value)

    def match_singleton(self, p, subject, captured) -> bool:
        return subject is p.value

    def match_as(self, p, subject, captured) -> bool:
        if p.pattern is not None and not self.match(p.pattern, subject, captured):
            return False
        if p.name is not None:
            captured[p.name] = subject
        return True

    def match_or(self, p, subject, captured) -> bool:
        for alt in p.patterns:
            trial: dict = {}
            if self.match(alt, subject, trial):
                # every alternative binds the same names (validate.py), stored in the order
                # the first alternative binds them
                for name in capture_order(p.patterns[0]):
                    captured[name] = trial[name]
                return True
        return False

    def match_sequence(self, p, subject, captured) -> bool:
        if not type(subject).__flags__ & _SEQUENCE:
            return False
        patterns = p.patterns
        n = len(patterns)
        star = next((i for i, sub in enumerate(patterns) if isinstance(sub, ast.MatchStar)), -1)
        self.node = p
        if star < 0:
            if len(subject) != n:
                return False
        elif n > 1 and len(subject) < n - 1:
            return False
        if all(_is_wildcard(sub) or _star_wildcard(sub) for sub in patterns):
            return True
        if star >= 0 and _star_wildcard(patterns[star]):
            # [a, *_, b]: Python indexes the items it needs instead of unpacking them all
            for i, sub in enumerate(patterns):
                if i == star or _is_wildcard(sub):
                    continue
                self.node = p
                item = subject[i] if i < star else subject[len(subject) - (n - i)]
                if not self.match(sub, item, captured):
                    return False
            return True
        items = self.iterate(subject, p)  # unpacked in full, as Python does (bounded here)
        if star >= 0:
            after = n - star - 1
            items = items[:star] + [items[star:len(items) - after]] + items[len(items) - after:]
        for sub, item in zip(patterns, items):
            if isinstance(sub, ast.MatchStar):
                captured[sub.name] = item
            elif not self.match(sub, item, captured):
                return False
        return True

    def match_mapping(self, p, subject, captured) -> bool:
        if not type(subject).__flags__ & _MAPPING:
            return False
        if not p.keys and p.rest is None:
            return True
        self.node = p
        if p.keys and len(subject) < len(p.keys):
            return False
        keys = [self.eval(k) for k in p.keys]
        self.node = p
        seen: set = set()
        values = []
        get = subject.get  # as Python looks keys up: no __missing__, no new key
        for key in keys:
            if key in seen:
                raise ValueError(f"mapping pattern checks duplicate key ({self.repr_of(key)})")
            seen.add(key)
            value = get(key, _MISSING)
            if value is _MISSING:
                return False
            values.append(value)
        for sub, value in zip(p.patterns, values):
            if not self.match(sub, value, captured):
                return False
        if p.rest is not None:
            rest = dict(subject)
            for key in keys:
                del rest[key]
            captured[p.rest] = rest
        return True

    def repr_of(self, value) -> str:
        return self.builtins.get("repr")(value)

    def match_class(self, p, subject, captured) -> bool:
        cls = self.pattern_class(self.eval(p.cls), p)
        self.node = p
        if not isinstance(subject, cls):
            return False
        name = type_name(cls)
        seen: set = set()
        attrs = []
        nargs = len(p.patterns)
        if nargs:
            match_args, match_self = self.match_args(cls)
            allowed = 1 if match_self else len(match_args)
            if allowed < nargs:
                raise TypeError(f"{name}() accepts {allowed} positional sub-pattern"
                                f"{'' if allowed == 1 else 's'} ({nargs} given)")
            if match_self:
                attrs.append(subject)
            else:
                for attr in match_args[:nargs]:
                    if type(attr) is not str:
                        raise TypeError(f"__match_args__ elements must be strings (got "
                                        f"{self.python_type_name(attr)})")
                    value = self.class_attr(subject, name, attr, seen, p)
                    if value is _MISSING:
                        return False
                    attrs.append(value)
        for attr in p.kwd_attrs:
            value = self.class_attr(subject, name, attr, seen, p)
            if value is _MISSING:
                return False
            attrs.append(value)
        for sub, value in zip(p.patterns + p.kwd_patterns, attrs):
            if not _is_wildcard(sub) and not self.match(sub, value, captured):
                return False
        return True

    def pattern_class(self, value, p):
        """The Python class a class pattern names: the program's `int`, `list`, ... are our own
        functions standing for Python's types."""
        self.node = p.cls
        if isinstance(value, BuiltinFunction):
            if value.type is not None:
                return value.type
            if value.name in _PYTHON_CLASSES:
                raise self.not_allowed(p.cls, f"class patterns of {value.name} are not "
                                       "available in the playground")
        if isinstance(value, TypeName):
            raise self.not_allowed(p.cls, f"class patterns of {value!r} are not available in "
                                   "the playground")
        if not isinstance(value, type):
            raise TypeError("called match pattern must be a type")
        return value

    def match_args(self, cls):
        """(cls.__match_args__, False), or ((), whether the subject itself is the one
        positional sub-pattern's) when the class has none; TypeError when it is not a tuple.
        Read by the interpreter (the program never reads it): off the program's own classes,
        which may assign it, and the engine's, which have torch's (return types' fields)."""
        try:
            match_args = cls.__match_args__
        except AttributeError:
            return (), issubclass(cls, _MATCH_SELF)
        if type(match_args) is not tuple:
            raise TypeError(f"{type_name(cls)}.__match_args__ must be a tuple (got "
                            f"{self.python_type_name(match_args)})")
        return match_args, False

    def python_type_name(self, value) -> str:
        """type(value).__name__ as Python would say it (our stand-ins keep Python's names)."""
        t = self.builtins.type_of(value)
        return t.name if isinstance(t, (TypeName, BuiltinFunction)) else t.__name__

    def class_attr(self, subject, type_name_: str, attr: str, seen: set, p):
        """subject.attr for a class pattern, read as the program would read it; _MISSING when
        it has no such attribute (the pattern does not match)."""
        if attr in seen:
            raise TypeError(f"{type_name_}() got multiple sub-patterns for attribute {attr!r}")
        seen.add(attr)
        try:
            return self.get_attr(subject, attr, p)
        except AttributeError:
            return _MISSING


_MATCH = {
    ast.MatchValue: Matching.match_value, ast.MatchSingleton: Matching.match_singleton,
    ast.MatchSequence: Matching.match_sequence, ast.MatchMapping: Matching.match_mapping,
    ast.MatchClass: Matching.match_class, ast.MatchAs: Matching.match_as,
    ast.MatchOr: Matching.match_or,
}
