"""Checks a parsed program against the language before anything runs: which statements and
expressions may be written, which names exist, where break/continue/return may stand, literal
sizes, and that no dunder name or attribute is written anywhere. The first problem is reported
at its position (docs/program-language.md lists the language)."""

from __future__ import annotations

import ast
import builtins
import re

from ..limits import Limits
from .builtin_functions import BUILTIN_NAMES
from .functions import ALLOWED_DUNDER_DEFS
from .operators import BINOPS, COMPARE, INPLACE, SYMBOL, UNARY
from .policy import NAMESPACES, PYTHON_MODULES
from .records import Source

# CPython's "Did you mean" for a NameError, as Python/suggestions.c computes it: an edit
# distance where a change of case costs 1 and any other edit 2, at most a third of the
# characters involved; the program's names are searched first, then the builtins.
_MOVE_COST = 2
_CASE_COST = 1
_MAX_STRING_SIZE = 40


def _substitution_cost(a: str, b: str) -> int:
    if a == b:
        return 0
    return _CASE_COST if a.lower() == b.lower() else _MOVE_COST


def _levenshtein(a: str, b: str, max_cost: int) -> int:
    if a == b:
        return 0
    while a and b and a[0] == b[0]:  # common affixes cost nothing
        a, b = a[1:], b[1:]
    while a and b and a[-1] == b[-1]:
        a, b = a[:-1], b[:-1]
    if not a or not b:
        return (len(a) + len(b)) * _MOVE_COST
    if len(a) > _MAX_STRING_SIZE or len(b) > _MAX_STRING_SIZE:
        return max_cost + 1
    if len(b) < len(a):
        a, b = b, a
    if (len(b) - len(a)) * _MOVE_COST > max_cost:
        return max_cost + 1
    row = [(i + 1) * _MOVE_COST for i in range(len(a))]
    result = 0
    for b_index, code in enumerate(b):
        distance = result = b_index * _MOVE_COST
        minimum = None
        for index, char in enumerate(a):
            substitute = distance + _substitution_cost(code, char)
            distance = row[index]
            result = min(min(result, distance) + _MOVE_COST, substitute)
            row[index] = result
            minimum = result if minimum is None else min(minimum, result)
        if minimum > max_cost:
            return max_cost + 1
    return result


def _closest(wrong: str, names) -> str | None:
    # the first of the closest names wins: names in the order Python holds them
    best, best_distance = None, None
    for name in names:
        if name == wrong:
            continue
        max_distance = (len(wrong) + len(name) + 3) * _MOVE_COST // 6
        if best_distance is not None:
            max_distance = min(max_distance, best_distance - 1)
        distance = _levenshtein(wrong, name, max_distance)
        if distance > max_distance:
            continue
        if best is None or distance < best_distance:
            best, best_distance = name, distance
    return best


def suggest_name(wrong: str, names, builtin_names=()) -> str | None:
    """The name Python would suggest for `wrong`: among the program's `names` (in the order the
    program binds them), else the builtins (in the order the builtins module holds them)."""
    return _closest(wrong, names) or _closest(wrong, builtin_names)


_BUILTINS_IN_ORDER = [name for name in vars(builtins) if name in BUILTIN_NAMES]

REJECTED = {
    "AsyncFunctionDef": "async functions are not allowed",
    "TryStar": "except* is not allowed",
    "TemplateStr": "template strings are not allowed",
    "Interpolation": "template strings are not allowed",
    "Yield": "yield is allowed as a statement of its own in a function (`yield value`, `yield "
             "from items`) or as the value of an assignment (`x = yield value`), not inside "
             "another expression",
    "YieldFrom": "yield is allowed as a statement of its own in a function (`yield value`, "
                 "`yield from items`) or as the value of an assignment (`x = yield from g`), "
                 "not inside another expression",
    "Await": "await is not allowed",
    "AsyncFor": "async for is not allowed",
    "AsyncWith": "async with is not allowed",
    "TypeAlias": "type aliases are not allowed",
}

_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


READABLE_DUNDERS = ("__name__", "__class__", "__version__")
MATCH_ARGS = "__match_args__"  # a class body may assign it (class patterns read it)
FUTURE_FEATURES = frozenset(("nested_scopes", "generators", "division", "absolute_import",
                             "with_statement", "print_function", "unicode_literals",
                             "barry_as_FLUFL", "generator_stop", "annotations"))


def _is_dunder(name: str) -> bool:
    return name.startswith("__")


class _PatternContext:
    """What the compiler tracks while it checks one case's pattern."""

    __slots__ = ("allow_irrefutable", "stores")

    def __init__(self, allow_irrefutable: bool):
        self.allow_irrefutable = allow_irrefutable
        self.stores: list = []  # the names captured so far, in order


def _is_wildcard(p) -> bool:
    """`_` (a capture pattern without a name)."""
    return isinstance(p, ast.MatchAs) and p.name is None


def _defines_match_args(stmt) -> bool:
    return isinstance(stmt, ast.Assign) and all(
        isinstance(t, ast.Name) and t.id == MATCH_ARGS for t in stmt.targets)


def _folded(key):
    """A mapping pattern's key as the compiler sees it after folding constants (`-1`)."""
    if (isinstance(key, ast.UnaryOp) and isinstance(key.op, ast.USub)
            and isinstance(key.operand, ast.Constant)
            and type(key.operand.value) in (int, float, complex)):
        return ast.Constant(-key.operand.value)
    return key


class Validator:
    """Checks a tree against the language, reporting the first problem at its position."""

    def __init__(self, src: Source, limits: Limits):
        self.src = src
        self.limits = limits
        self.bound: set = set()
        self.in_function = 0
        self.in_loop = 0
        self.in_class = 0
        self.pattern_loc = None  # the pattern the compiler would be at (stmt_Match)
        self.future_imports: set = set()  # ids of the `from __future__` imports Python allows

    def fail(self, node, message: str, kind: str = "not_allowed", **extra):
        raise self.src.error(kind, message, node, **extra)

    # -- names bound anywhere in the program (a first pass) ------------------------------------
    def collect_future_imports(self, tree) -> None:
        """The `from __future__` imports Python accepts: those before any other statement
        (a docstring may come first)."""
        body = tree.body
        start = 1 if body and isinstance(body[0], ast.Expr) and isinstance(
            body[0].value, ast.Constant) and isinstance(body[0].value.value, str) else 0
        for stmt in body[start:]:
            if not (isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__"
                    and not stmt.level):
                break
            self.future_imports.add(id(stmt))

    def collect_bound(self, tree) -> None:
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                self.bound.add(node.id)
            elif isinstance(node, ast.alias):
                self.bound.add(node.asname or node.name.split(".")[0])
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                self.bound.add(node.name)
            elif isinstance(node, ast.arg):
                self.bound.add(node.arg)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                self.bound.add(node.name)
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                self.bound.update(node.names)
            elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
                self.bound.add(node.name)
            elif isinstance(node, ast.MatchMapping) and node.rest:
                self.bound.add(node.rest)

    # -- statements ------------------------------------------------------------------------------
    def stmt(self, node) -> None:
        t = type(node).__name__
        method = getattr(self, "stmt_" + t, None)
        if method is not None:
            method(node)
        elif t in REJECTED:
            self.fail(node, REJECTED[t])
        else:
            self.fail(node, f"this kind of statement ({t}) is not allowed")

    def body(self, stmts) -> None:
        for s in stmts:
            self.stmt(s)

    def stmt_Import(self, node) -> None:
        for alias in node.names:
            self.check_import_path(node, alias.name)
            if alias.asname is not None:
                self.check_name(node, alias.asname)

    def stmt_ImportFrom(self, node) -> None:
        if node.module == "__future__" and not node.level:
            self.future_import(node)
            return
        if node.level:
            self.fail(node, "relative imports are not allowed")
        self.check_import_path(node, node.module or "")
        for alias in node.names:
            if alias.name == "*":
                self.fail(node, "`from ... import *` is not allowed; name what you import")
            self.check_name(node, alias.name)
            if alias.asname is not None:
                self.check_name(node, alias.asname)

    def future_import(self, node) -> None:
        """`from __future__ import annotations`: Python's compile-time rules (first in the
        file, known features); each feature is a no-op here (annotations are never
        evaluated), bound to its name as Python binds it."""
        if id(node) not in self.future_imports:
            self.fail(node, "from __future__ imports must occur at the beginning of the file",
                      kind="syntax", exc_type="SyntaxError")
        for alias in node.names:
            if alias.name == "braces":
                self.fail(node, "not a chance", kind="syntax", exc_type="SyntaxError")
            if alias.name not in FUTURE_FEATURES:
                self.fail(node, f"future feature {alias.name} is not defined", kind="syntax",
                          exc_type="SyntaxError")
            if alias.name == "barry_as_FLUFL":
                self.fail(node, "from __future__ import barry_as_FLUFL is not allowed")
            if alias.asname is not None:
                self.check_name(node, alias.asname)

    def stmt_Assign(self, node) -> None:
        for target in node.targets:
            self.target(target)
        if isinstance(node.value, (ast.Yield, ast.YieldFrom)):
            self.yield_statement(node)  # x = yield value: what send() passes in
        else:
            self.expr(node.value)

    def stmt_AnnAssign(self, node) -> None:
        # the annotation is never evaluated (as in a function body); it is still checked
        self.target(node.target)
        self.expr(node.annotation)
        if node.value is not None:
            self.expr(node.value)

    def stmt_AugAssign(self, node) -> None:
        if type(node.op) not in INPLACE and type(node.op) not in BINOPS:
            self.fail(node, f"the operator {SYMBOL.get(type(node.op), '?')}= is not allowed")
        if isinstance(node.target, (ast.Tuple, ast.List)):
            self.fail(node.target, "augmented assignment needs a single target")
        self.target(node.target)
        self.expr(node.value)

    def stmt_Expr(self, node) -> None:
        if isinstance(node.value, (ast.Yield, ast.YieldFrom)):
            self.yield_statement(node)
            return
        self.expr(node.value)

    def yield_statement(self, node) -> None:
        """A generator function's yield: a statement of its own or an assignment's value
        (generators.py runs them)."""
        value = node.value
        if not self.in_function or self.in_class:
            self.fail(value, f"'{'yield' if isinstance(value, ast.Yield) else 'yield from'}'"
                      " outside function", kind="syntax", exc_type="SyntaxError")
        if value.value is not None:
            self.expr(value.value)

    def stmt_Pass(self, node) -> None:
        pass

    def stmt_Break(self, node) -> None:
        if not self.in_loop:
            self.fail(node, "'break' outside loop", kind="syntax", exc_type="SyntaxError")

    def stmt_Continue(self, node) -> None:
        if not self.in_loop:
            self.fail(node, "'continue' not properly in loop", kind="syntax",
                      exc_type="SyntaxError")

    def stmt_Return(self, node) -> None:
        if not self.in_function:
            self.fail(node, "'return' outside function", kind="syntax", exc_type="SyntaxError")
        if node.value is not None:
            self.expr(node.value)

    def stmt_Global(self, node) -> None:
        for name in node.names:
            self.check_name(node, name)

    stmt_Nonlocal = stmt_Global

    def stmt_Delete(self, node) -> None:
        for target in node.targets:
            self.target(target)

    def stmt_Assert(self, node) -> None:
        self.expr(node.test)
        if node.msg is not None:
            self.expr(node.msg)

    def stmt_Raise(self, node) -> None:
        if node.exc is not None:
            self.expr(node.exc)
        if node.cause is not None:
            self.expr(node.cause)

    def stmt_If(self, node) -> None:
        self.expr(node.test)
        self.body(node.body)
        self.body(node.orelse)

    def stmt_While(self, node) -> None:
        self.expr(node.test)
        self.loop_body(node.body)
        self.body(node.orelse)

    def stmt_For(self, node) -> None:
        self.target(node.target)
        self.expr(node.iter)
        self.loop_body(node.body)
        self.body(node.orelse)

    def loop_body(self, stmts) -> None:
        self.in_loop += 1
        try:
            self.body(stmts)
        finally:
            self.in_loop -= 1

    def stmt_With(self, node) -> None:
        # what the managers are is known when the statement runs (statements.exec_with)
        for item in node.items:
            self.expr(item.context_expr)
            if item.optional_vars is not None:
                self.target(item.optional_vars)
        self.body(node.body)

    def stmt_Try(self, node) -> None:
        self.body(node.body)
        for h in node.handlers:
            if h.type is not None:
                self.expr(h.type)
            if h.name is not None:
                self.check_name(h, h.name)
            self.body(h.body)
        self.body(node.orelse)
        self.body(node.finalbody)

    # -- match statements: what Python's compiler checks in patterns (3.11's compile.c) -----------
    def stmt_Match(self, node) -> None:
        self.expr(node.subject)
        cases = node.cases
        # a last `case _:` is not compiled as a pattern (nothing in it to check)
        has_default = _is_wildcard(cases[-1].pattern) and len(cases) > 1
        for i, case in enumerate(cases):
            if i < len(cases) - has_default:
                # an irrefutable case must be guarded, last, or both
                self.pattern(case.pattern, _PatternContext(case.guard is not None
                                                           or i == len(cases) - 1))
            if case.guard is not None:
                self.expr(case.guard)
            self.body(case.body)

    def pattern(self, p, pc) -> None:
        # the compiler reports a pattern's errors at the pattern it visited last (it sets its
        # position on entering each pattern and does not restore it): so does this
        self.pattern_loc = p
        _PATTERNS[type(p)](self, p, pc)

    def subpattern(self, p, pc) -> None:
        allow = pc.allow_irrefutable
        pc.allow_irrefutable = True
        self.pattern(p, pc)
        pc.allow_irrefutable = allow

    def pattern_fail(self, message: str) -> None:
        self.fail(self.pattern_loc, message, kind="syntax", exc_type="SyntaxError")

    def store_name(self, name, pc) -> None:
        if name is None:
            return
        self.check_name(self.pattern_loc, name)
        if name in pc.stores:
            self.pattern_fail(f"multiple assignments to name {name!r} in pattern")
        pc.stores.append(name)

    def pattern_value(self, p, pc) -> None:
        self.expr(p.value)  # the parser lets only literals and dotted names through

    def pattern_singleton(self, p, pc) -> None:
        pass

    def pattern_sequence(self, p, pc) -> None:
        stars = [i for i, sub in enumerate(p.patterns) if isinstance(sub, ast.MatchStar)]
        if len(stars) > 1:
            self.pattern_fail("multiple starred names in sequence pattern")
        star_wildcard = bool(stars) and p.patterns[stars[0]].name is None
        if all(_is_wildcard(sub) or (isinstance(sub, ast.MatchStar) and sub.name is None)
               for sub in p.patterns):
            return  # [_, *_] and the like: nothing is compiled
        for i, sub in enumerate(p.patterns):
            if star_wildcard and (_is_wildcard(sub) or i == stars[0]):
                continue  # items are indexed (not unpacked) and wildcards skipped
            self.subpattern(sub, pc)

    def pattern_star(self, p, pc) -> None:
        self.store_name(p.name, pc)

    def pattern_mapping(self, p, pc) -> None:
        if not p.keys and p.rest is None:
            return
        seen: set = set()
        for key in p.keys:
            value = _folded(key)
            if isinstance(value, ast.Constant):
                if value.value in seen:
                    self.pattern_fail(f"mapping pattern checks duplicate key ({value.value!r})")
                seen.add(value.value)
            elif not isinstance(key, ast.Attribute):
                self.pattern_fail("mapping pattern keys may only match literals and attribute "
                                  "lookups")
            self.expr(key)
        for sub in p.patterns:
            self.subpattern(sub, pc)
        self.store_name(p.rest, pc)

    def pattern_class(self, p, pc) -> None:
        if p.kwd_attrs:
            for i, attr in enumerate(p.kwd_attrs):
                self.pattern_loc = p.kwd_patterns[i]
                self.check_name(self.pattern_loc, attr)
                for j in range(i + 1, len(p.kwd_attrs)):
                    if p.kwd_attrs[j] == attr:
                        self.pattern_loc = p.kwd_patterns[j]
                        self.pattern_fail(f"attribute name repeated in class pattern: {attr}")
            self.pattern_loc = p
        self.expr(p.cls)
        for sub in p.patterns + p.kwd_patterns:
            if not _is_wildcard(sub):
                self.subpattern(sub, pc)

    def pattern_as(self, p, pc) -> None:
        if p.pattern is None:
            if not pc.allow_irrefutable:
                if p.name is not None:
                    self.pattern_fail(f"name capture {p.name!r} makes remaining patterns "
                                      "unreachable")
                self.pattern_fail("wildcard makes remaining patterns unreachable")
            self.store_name(p.name, pc)
            return
        self.pattern(p.pattern, pc)
        self.store_name(p.name, pc)

    def pattern_or(self, p, pc) -> None:
        allow, stores = pc.allow_irrefutable, pc.stores
        control = None
        for i, alt in enumerate(p.patterns):
            pc.stores = []
            # an irrefutable alternative must be last, if it is allowed at all
            pc.allow_irrefutable = i == len(p.patterns) - 1 and allow
            self.pattern(alt, pc)
            if control is None:
                control = pc.stores
            elif len(pc.stores) != len(control) or set(pc.stores) != set(control):
                self.pattern_fail("alternative patterns bind different names")
        pc.allow_irrefutable, pc.stores = allow, stores
        for name in control:
            if name in pc.stores:
                self.pattern_fail(f"multiple assignments to name {name!r} in pattern")
            pc.stores.append(name)

    def stmt_FunctionDef(self, node) -> None:
        if _is_dunder(node.name) and not (self.in_class and node.name in ALLOWED_DUNDER_DEFS):
            self.fail(node, f"names starting with '__' are not allowed ({node.name}); a class "
                      f"may define {', '.join(sorted(ALLOWED_DUNDER_DEFS))} only")
        if getattr(node, "type_params", None):
            self.fail(node, "type parameters are not allowed")
        for d in node.decorator_list:
            self.expr(d)
        self.arguments(node.args)
        if node.returns is not None:
            self.expr(node.returns)
        outer_loop, outer_class = self.in_loop, self.in_class
        self.in_function += 1
        self.in_loop = self.in_class = 0
        try:
            self.body(node.body)
        finally:
            self.in_function -= 1
            self.in_loop, self.in_class = outer_loop, outer_class

    def stmt_ClassDef(self, node) -> None:
        self.check_name(node, node.name)
        if node.keywords:
            self.fail(node.keywords[0].value, "class keywords (metaclass=...) are not allowed")
        if getattr(node, "type_params", None):
            self.fail(node, "type parameters are not allowed")
        for d in node.decorator_list:
            self.fail(d, "class decorators are not allowed")
        for b in node.bases:
            if isinstance(b, ast.Starred):
                self.fail(b, "starred base classes are not allowed")
            self.expr(b)
        for s in node.body:
            if not isinstance(s, (ast.FunctionDef, ast.Assign, ast.AnnAssign, ast.Pass,
                                  ast.Expr)):
                self.fail(s, "a class body may hold methods, attributes and a docstring only")
        outer_loop = self.in_loop
        self.in_class += 1
        self.in_loop = 0
        try:
            for s in node.body:
                if _defines_match_args(s):
                    # the one dunder attribute a class body may set: what a class pattern's
                    # positional sub-patterns read (each read goes through the attribute
                    # policy when a match runs, like `obj.name` written out)
                    self.expr(s.value)
                else:
                    self.stmt(s)
        finally:
            self.in_class -= 1
            self.in_loop = outer_loop

    def arguments(self, args: ast.arguments) -> None:
        for a in args.posonlyargs + args.args + args.kwonlyargs + [
                x for x in (args.vararg, args.kwarg) if x is not None]:
            self.check_name(a, a.arg)
            if a.annotation is not None:
                self.expr(a.annotation)
        for d in args.defaults + [d for d in args.kw_defaults if d is not None]:
            self.expr(d)

    def check_import_path(self, node, path: str) -> None:
        if path not in NAMESPACES and path not in PYTHON_MODULES:
            self.fail(node, f"only torch and its namespaces, math, random, collections and typing can "
                      f"be imported (not {path!r})")

    def check_name(self, node, name: str) -> None:
        if _is_dunder(name):
            self.fail(node, f"names starting with '__' are not allowed ({name})")

    # -- assignment targets ----------------------------------------------------------------------
    def target(self, node) -> None:
        if isinstance(node, ast.Name):
            self.check_name(node, node.id)
        elif isinstance(node, (ast.Tuple, ast.List)):
            starred = 0
            for elt in node.elts:
                if isinstance(elt, ast.Starred):
                    starred += 1
                    if starred > 1:
                        self.fail(elt, "multiple starred expressions in assignment",
                                  kind="syntax", exc_type="SyntaxError")
                    self.target(elt.value)
                else:
                    self.target(elt)
        elif isinstance(node, ast.Attribute):
            self.check_attr(node)
            self.expr(node.value)
        elif isinstance(node, ast.Subscript):
            self.expr(node.value)
            self.expr(node.slice)
        else:
            self.fail(node, "this cannot be assigned to")

    def check_attr(self, node) -> None:
        if _is_dunder(node.attr):
            # the one dunder a program writes: super().__init__(...) (both spellings)
            if (node.attr == "__init__" and isinstance(node.value, ast.Call)
                    and isinstance(node.value.func, ast.Name) and node.value.func.id == "super"
                    and isinstance(node.ctx, ast.Load)):
                return
            # three a program may read: what a class or function is called, an object's class
            # (the interpreter answers both itself, as type() does) and torch.__version__
            if node.attr in READABLE_DUNDERS and isinstance(node.ctx, ast.Load):
                return
            self.fail(node, f"attributes starting with '__' are not allowed (.{node.attr})")

    # -- expressions -----------------------------------------------------------------------------
    def expr(self, node) -> None:
        t = type(node)
        method = _EXPR.get(t)
        if method is not None:
            method(self, node)
        elif t.__name__ in REJECTED:
            self.fail(node, REJECTED[t.__name__])
        else:
            self.fail(node, f"this kind of expression ({t.__name__}) is not allowed")

    def exprs(self, nodes) -> None:
        for n in nodes:
            if n is not None:
                self.expr(n)

    def expr_constant(self, node) -> None:
        v = node.value
        if v is Ellipsis or v is None or type(v) in (bool, int, float, str):
            if type(v) is int and v.bit_length() > self.limits.max_int_bits:
                self.fail(node, f"this number is too large (more than "
                          f"{self.limits.max_int_bits} bits)", kind="limit",
                          limit="max_int_bits")
            if type(v) is str and len(v) > self.limits.max_string_chars:
                self.fail(node, f"this string is too long ({len(v):,} characters; the limit "
                          f"is {self.limits.max_string_chars:,})", kind="limit",
                          limit="max_string_chars")
            return
        self.fail(node, f"{type(v).__name__} literals are not allowed")

    def expr_name(self, node) -> None:
        self.check_name(node, node.id)
        if node.id not in self.bound and node.id not in BUILTIN_NAMES:
            if node.id == "torch":
                self.fail(node, "name 'torch' is not defined; start with `import torch`")
            if hasattr(builtins, node.id):
                self.fail(node, f"{node.id!r} is not available in the playground")
            # Python's own message and suggestion (what its traceback's last line says), the
            # program's names in the order it first writes them, as Python's namespace holds them
            text = "\n".join(self.src.lines)
            first = {n: (m.start() if (m := re.search(rf"\b{re.escape(n)}\b", text)) else len(text))
                     for n in self.bound}
            suggestion = suggest_name(node.id, sorted(self.bound, key=first.__getitem__), _BUILTINS_IN_ORDER)
            hint = f". Did you mean: {suggestion!r}?" if suggestion else ""
            self.fail(node, f"name {node.id!r} is not defined{hint}", exc_type="NameError")

    def expr_attribute(self, node) -> None:
        self.check_attr(node)
        self.expr(node.value)

    def expr_call(self, node) -> None:
        self.expr(node.func)
        for a in node.args:
            self.expr(a.value if isinstance(a, ast.Starred) else a)
        for k in node.keywords:
            if k.arg is not None:
                self.check_name(k, k.arg)
            self.expr(k.value)

    def expr_binop(self, node) -> None:
        if type(node.op) not in BINOPS:
            self.fail(node, f"the operator {SYMBOL.get(type(node.op), '?')} is not allowed")
        self.expr(node.left)
        self.expr(node.right)

    def expr_unaryop(self, node) -> None:
        if type(node.op) not in UNARY:
            self.fail(node, "this operator is not allowed")
        self.expr(node.operand)

    def expr_boolop(self, node) -> None:
        self.exprs(node.values)

    def expr_compare(self, node) -> None:
        for op in node.ops:
            if type(op) not in COMPARE:
                self.fail(node, f"the comparison {SYMBOL.get(type(op), '?')} is not allowed")
        self.expr(node.left)
        self.exprs(node.comparators)

    def expr_sequence(self, node) -> None:
        for e in node.elts:
            self.expr(e.value if isinstance(e, ast.Starred) else e)

    def expr_dict(self, node) -> None:
        self.exprs(node.keys)  # a None key is a **mapping
        self.exprs(node.values)

    def expr_subscript(self, node) -> None:
        self.expr(node.value)
        self.expr(node.slice)

    def expr_slice(self, node) -> None:
        self.exprs((node.lower, node.upper, node.step))

    def expr_ifexp(self, node) -> None:
        self.exprs((node.test, node.body, node.orelse))

    def expr_joinedstr(self, node) -> None:
        self.exprs(node.values)

    def expr_formatted(self, node) -> None:
        self.expr(node.value)
        if node.format_spec is not None:
            self.expr(node.format_spec)

    def expr_namedexpr(self, node) -> None:
        # Python's parser allows a plain name only as the target of :=
        self.check_name(node.target, node.target.id)
        self.expr(node.value)

    def expr_lambda(self, node) -> None:
        self.arguments(node.args)
        outer_loop = self.in_loop
        self.in_loop = 0
        try:
            self.expr(node.body)
        finally:
            self.in_loop = outer_loop

    def expr_comprehension(self, node) -> None:
        for gen in node.generators:
            if gen.is_async:
                self.fail(node, "async comprehensions are not allowed")
            self.target(gen.target)
            self.expr(gen.iter)
            self.exprs(gen.ifs)
        if isinstance(node, ast.DictComp):
            self.expr(node.key)
            self.expr(node.value)
        else:
            self.expr(node.elt)


_PATTERNS = {
    ast.MatchValue: Validator.pattern_value, ast.MatchSingleton: Validator.pattern_singleton,
    ast.MatchSequence: Validator.pattern_sequence, ast.MatchStar: Validator.pattern_star,
    ast.MatchMapping: Validator.pattern_mapping, ast.MatchClass: Validator.pattern_class,
    ast.MatchAs: Validator.pattern_as, ast.MatchOr: Validator.pattern_or,
}

_EXPR = {
    ast.Constant: Validator.expr_constant, ast.Name: Validator.expr_name,
    ast.Attribute: Validator.expr_attribute, ast.Call: Validator.expr_call,
    ast.BinOp: Validator.expr_binop, ast.UnaryOp: Validator.expr_unaryop,
    ast.BoolOp: Validator.expr_boolop, ast.Compare: Validator.expr_compare,
    ast.Tuple: Validator.expr_sequence, ast.List: Validator.expr_sequence,
    ast.Set: Validator.expr_sequence, ast.Dict: Validator.expr_dict,
    ast.Subscript: Validator.expr_subscript, ast.Slice: Validator.expr_slice,
    ast.IfExp: Validator.expr_ifexp, ast.JoinedStr: Validator.expr_joinedstr,
    ast.FormattedValue: Validator.expr_formatted, ast.Lambda: Validator.expr_lambda,
    ast.NamedExpr: Validator.expr_namedexpr,
    ast.ListComp: Validator.expr_comprehension, ast.SetComp: Validator.expr_comprehension,
    ast.DictComp: Validator.expr_comprehension, ast.GeneratorExp: Validator.expr_comprehension,
    ast.Starred: lambda self, node: self.fail(node, "a starred expression is not allowed here"),
}
