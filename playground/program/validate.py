"""Checks a parsed program against the language before anything runs: which statements and
expressions may be written, which names exist, loop bounds, literal sizes. The first problem is
reported at its position (docs/program-language.md lists the language)."""

from __future__ import annotations

import ast
import builtins

from ..limits import LimitExceeded, Limits
from .builtin_functions import BUILTIN_NAMES
from .operators import BINOPS, COMPARE, INPLACE, SYMBOL, UNARY, number_op
from .policy import NAMESPACES, SETTABLE_ATTRS, TENSOR_PRIVATE_READABLE
from .records import ProgramError, Source

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
    "FunctionDef": "function definitions (def) are not allowed",
    "AsyncFunctionDef": "function definitions (def) are not allowed",
    "ClassDef": "class definitions are not allowed",
    "Lambda": "lambda is not allowed",
    "ListComp": "comprehensions are not allowed",
    "SetComp": "comprehensions are not allowed",
    "DictComp": "comprehensions are not allowed",
    "GeneratorExp": "generator expressions are not allowed",
    "While": "while loops are not allowed; use `for i in range(N):`",
    "Try": "try/except is not allowed: a failing statement stops the program and shows its error",
    "TryStar": "try/except is not allowed",
    "Raise": "raise is not allowed",
    "Global": "global is not allowed",
    "Nonlocal": "nonlocal is not allowed",
    "JoinedStr": "f-strings are not allowed; use print with several arguments: print('x =', x)",
    "FormattedValue": "f-strings are not allowed",
    "TemplateStr": "template strings are not allowed",
    "Interpolation": "template strings are not allowed",
    "Starred": "starred expressions (*args) are not allowed",
    "NamedExpr": "the walrus operator (:=) is not allowed",
    "Delete": "del is not allowed; use `x.grad = None` to clear a gradient",
    "Assert": "assert is not allowed",
    "Yield": "yield is not allowed",
    "YieldFrom": "yield is not allowed",
    "Await": "await is not allowed",
    "Return": "return is not allowed",
    "If": "if statements are not allowed",
    "IfExp": "conditional expressions (a if c else b) are not allowed",
    "BoolOp": "and/or are not allowed",
    "Dict": "dict literals are not allowed",
    "Set": "set literals are not allowed",
    "AnnAssign": "annotated assignments are not allowed",
    "Match": "match statements are not allowed",
    "AsyncFor": "async for is not allowed",
    "AsyncWith": "async with is not allowed",
    "Break": "break is not allowed",
    "Continue": "continue is not allowed",
    "TypeAlias": "type aliases are not allowed",
}


def _is_dunder(name: str) -> bool:
    return name.startswith("__")


class Validator:
    """Checks a tree against the language, reporting the first problem at its position."""

    def __init__(self, src: Source, limits: Limits):
        self.src = src
        self.limits = limits
        self.bound: set = set()
        self.first_bound: dict = {}  # name -> (line, col) of its first binding, for suggestions
        self.loop_bounds: dict = {}

    def fail(self, node, message: str, kind: str = "not_allowed", **extra):
        raise self.src.error(kind, message, node, **extra)

    # -- names bound anywhere in the program (a first pass) ------------------------------------
    def collect_bound(self, tree) -> None:
        for node in ast.walk(tree):
            if isinstance(node, (ast.Name,)) and isinstance(node.ctx, ast.Store):
                name = node.id
            elif isinstance(node, ast.alias):
                name = node.asname or node.name.split(".")[0]
            else:
                continue
            self.bound.add(name)
            where = (node.lineno, node.col_offset)
            self.first_bound[name] = min(where, self.first_bound.get(name, where))

    # -- statements ------------------------------------------------------------------------------
    def stmt(self, node) -> None:
        t = type(node).__name__
        if isinstance(node, ast.Import):
            for alias in node.names:
                self.check_import_path(node, alias.name)
                if alias.asname is not None:
                    self.check_name(node, alias.asname)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                self.fail(node, "relative imports are not allowed")
            self.check_import_path(node, node.module or "")
            for alias in node.names:
                if alias.name == "*":
                    self.fail(node, "`from ... import *` is not allowed; name what you import")
                self.check_name(node, alias.name)
                if alias.asname is not None:
                    self.check_name(node, alias.asname)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                self.target(target)
            self.expr(node.value)
        elif isinstance(node, ast.AugAssign):
            if type(node.op) not in INPLACE:
                self.fail(node, f"the operator {SYMBOL.get(type(node.op), '?')}= is not allowed")
            if isinstance(node.target, (ast.Tuple, ast.List)):
                self.fail(node.target, "augmented assignment needs a single target")
            self.target(node.target)
            self.expr(node.value)
        elif isinstance(node, ast.Expr):
            self.expr(node.value)
        elif isinstance(node, ast.Pass):
            pass
        elif isinstance(node, ast.For):
            self.for_loop(node)
        elif isinstance(node, ast.With):
            for item in node.items:
                if item.optional_vars is not None:
                    self.fail(item.optional_vars, "`with ... as name` is not allowed")
                if not isinstance(item.context_expr, ast.Call):
                    self.fail(item.context_expr, "a with statement takes torch.no_grad(), "
                              "torch.enable_grad() or torch.set_grad_enabled(flag)")
                self.expr(item.context_expr)
            self.body(node.body)
        elif t in REJECTED:
            self.fail(node, REJECTED[t])
        else:
            self.fail(node, f"this kind of statement ({t}) is not allowed")

    def body(self, stmts) -> None:
        for s in stmts:
            self.stmt(s)

    def check_import_path(self, node, path: str) -> None:
        if path not in NAMESPACES:
            self.fail(node, f"only torch and its namespaces can be imported (not {path!r})")

    def check_name(self, node, name: str) -> None:
        if _is_dunder(name):
            self.fail(node, f"names starting with '__' are not allowed ({name})")

    def for_loop(self, node) -> None:
        if not isinstance(node.target, ast.Name):
            self.fail(node.target, "a for loop needs a single name: `for i in range(N):`")
        self.check_name(node.target, node.target.id)
        it = node.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name)
                and it.func.id == "range" and not it.keywords and 1 <= len(it.args) <= 3):
            self.fail(it, "a for loop can only run over range(N) with a constant N")
        if node.orelse:
            self.fail(node.orelse[0], "for ... else is not allowed")
        try:
            args = [self.constant(a) for a in it.args]
        except ProgramError:
            raise
        for a, arg_node in zip(args, it.args):
            if isinstance(a, bool) or not isinstance(a, int):
                self.fail(arg_node, "range() takes whole numbers")
        if len(args) == 3 and args[2] == 0:
            self.fail(it, "range() step must not be zero")
        bound = range(*args)
        if len(bound) > self.limits.max_loop_iterations:
            self.fail(it, f"this loop would run {len(bound):,} times (the limit is "
                      f"{self.limits.max_loop_iterations:,})", kind="limit",
                      limit="max_loop_iterations")
        self.loop_bounds[id(node)] = bound
        self.body(node.body)

    def constant(self, node):
        """Fold a constant expression (a loop bound) with the run-time number guards."""
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return node.value
        if isinstance(node, ast.UnaryOp) and type(node.op) in (ast.USub, ast.UAdd):
            v = self.constant(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, ast.BinOp) and type(node.op) in (ast.Add, ast.Sub, ast.Mult,
                                                             ast.Pow, ast.FloorDiv):
            a, b = self.constant(node.left), self.constant(node.right)
            if isinstance(node.op, ast.FloorDiv):
                if b == 0:
                    self.fail(node, "division by zero in a loop bound")
                return a // b
            try:
                return number_op(BINOPS[type(node.op)], a, b, self.limits)
            except LimitExceeded as e:
                self.fail(node, e.message, kind="limit", limit=e.limit)
            except (OverflowError, ZeroDivisionError) as e:
                self.fail(node, str(e))
        self.fail(node, "a loop bound must be a constant whole number, e.g. range(10)")

    # -- assignment targets ----------------------------------------------------------------------
    def target(self, node) -> None:
        if isinstance(node, ast.Name):
            self.check_name(node, node.id)
        elif isinstance(node, (ast.Tuple, ast.List)):
            for elt in node.elts:
                if isinstance(elt, ast.Starred):
                    self.fail(elt, REJECTED["Starred"])
                self.target(elt)
        elif isinstance(node, ast.Attribute):
            if node.attr not in SETTABLE_ATTRS:
                self.fail(node, f"only .grad, .requires_grad and .data can be assigned "
                          f"(not .{node.attr})")
            self.expr(node.value)
        elif isinstance(node, ast.Subscript):
            self.expr(node.value)
            self.expr(node.slice)
        else:
            self.fail(node, "this cannot be assigned to")

    # -- expressions -----------------------------------------------------------------------------
    def expr(self, node) -> None:
        t = type(node)
        if t is ast.Constant:
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
        elif t is ast.Name:
            self.check_name(node, node.id)
            if node.id == "range":
                self.fail(node, "range() can only be the bound of a for loop: "
                          "`for i in range(10):`")
            if node.id not in self.bound and node.id not in BUILTIN_NAMES:
                if node.id == "torch":
                    self.fail(node, "name 'torch' is not defined; start with `import torch`")
                if hasattr(builtins, node.id):
                    self.fail(node, f"{node.id!r} is not available in the playground")
                # Python's own message and suggestion (what its traceback's last line says)
                in_order = sorted(self.bound, key=self.first_bound.__getitem__)
                suggestion = suggest_name(node.id, in_order, _BUILTINS_IN_ORDER)
                hint = f". Did you mean: {suggestion!r}?" if suggestion else ""
                self.fail(node, f"name {node.id!r} is not defined{hint}", exc_type="NameError")
        elif t is ast.Attribute:
            if node.attr.startswith("_") and node.attr != TENSOR_PRIVATE_READABLE:
                self.fail(node, f"attributes starting with '_' are not allowed (.{node.attr})")
            self.expr(node.value)
        elif t is ast.Call:
            self.expr(node.func)
            for a in node.args:
                if isinstance(a, ast.Starred):
                    self.fail(a, REJECTED["Starred"])
                self.expr(a)
            for k in node.keywords:
                if k.arg is None:
                    self.fail(k.value, "**keyword arguments are not allowed")
                self.check_name(k, k.arg)
                self.expr(k.value)
        elif t is ast.BinOp:
            if type(node.op) not in BINOPS:
                self.fail(node, f"the operator {SYMBOL.get(type(node.op), '?')} is not "
                          "allowed")
            self.expr(node.left)
            self.expr(node.right)
        elif t is ast.UnaryOp:
            if type(node.op) not in UNARY:
                self.fail(node, "this operator is not allowed")
            self.expr(node.operand)
        elif t is ast.Compare:
            for op in node.ops:
                if type(op) not in COMPARE:
                    self.fail(node, f"the comparison {SYMBOL.get(type(op), '?')} is not "
                              "allowed")
            self.expr(node.left)
            for c in node.comparators:
                self.expr(c)
        elif t in (ast.Tuple, ast.List):
            for e in node.elts:
                if isinstance(e, ast.Starred):
                    self.fail(e, REJECTED["Starred"])
                self.expr(e)
        elif t is ast.Subscript:
            self.expr(node.value)
            self.expr(node.slice)
        elif t is ast.Slice:
            for part in (node.lower, node.upper, node.step):
                if part is not None:
                    self.expr(part)
        elif t.__name__ in REJECTED:
            self.fail(node, REJECTED[t.__name__])
        else:
            self.fail(node, f"this kind of expression ({t.__name__}) is not allowed")
