"""Programs: parse a safe PyTorch subset with `ast`, check it against an allowlist, and interpret
it statement by statement over the engine (imported by the program as `torch`).

Nothing here evaluates user text with eval/exec/compile: every node is interpreted by this
module, every name comes from the program itself or from an allowlist, and every attribute read
is checked against an allowlist for the kind of object it is read from. The language is
described in docs/program-language.md.

Use:
    result = Interpreter().run(text, on_step=callback)   # -> RunResult, never raises
    for step in Interpreter().steps(text): ...           # the same, one statement at a time
"""

from __future__ import annotations

import ast
import builtins
import importlib
import io
import operator
import re
import types
import warnings
from dataclasses import dataclass, field

import engine
from engine import observer as _observer
from engine.autograd import grad_mode as _grad_mode
from engine.autograd.graph import HookHandle, Node
from engine.dtypes import dtype as _DType
from engine.printing import Size

from .limits import (
    Budget,
    LimitExceeded,
    LimitObserver,
    Limits,
    default_limits,
    guard_broadcast,
    guard_call,
    guard_constructor,
    guard_indexing,
    guard_module_call,
)

__all__ = ["ProgramError", "Program", "Step", "WarningRecord", "RunResult", "Interpreter",
           "parse", "run", "ERROR_KINDS"]

ERROR_KINDS = ("syntax", "not_allowed", "limit", "runtime")


# == errors and records ===========================================================================

class ProgramError(Exception):
    """What a person sees when a program cannot run (further): where and why.

    kind: "syntax" | "not_allowed" | "limit" | "runtime". line/col are 1-based (col counts
    characters). For runtime errors exc_type is the exception's type name as torch would raise it
    ("RuntimeError", "IndexError", ...); for limit errors `limit` names the Limits field."""

    def __init__(self, kind: str, message: str, line: int | None = None, col: int | None = None,
                 end_line: int | None = None, end_col: int | None = None,
                 exc_type: str | None = None, limit: str | None = None):
        super().__init__(message)
        if kind not in ERROR_KINDS:
            raise ValueError(f"unknown ProgramError kind {kind!r}")
        self.kind = kind
        self.message = message
        self.line = line
        self.col = col
        self.end_line = end_line
        self.end_col = end_col
        self.exc_type = exc_type
        self.limit = limit

    def __str__(self) -> str:
        where = f"line {self.line}, col {self.col}: " if self.line is not None else ""
        what = f"{self.exc_type}: " if self.exc_type else ""
        return f"{where}{what}{self.message}"

    def to_dict(self) -> dict:
        return {"kind": self.kind, "message": self.message, "line": self.line, "col": self.col,
                "end_line": self.end_line, "end_col": self.end_col, "exc_type": self.exc_type,
                "limit": self.limit}


@dataclass
class WarningRecord:
    category: str  # the warning class's name, e.g. "UserWarning"
    message: str
    line: int
    col: int


@dataclass
class Step:
    """One executed statement. A loop body's statements make one step per iteration."""

    index: int  # position in execution order, from 0
    stmt_id: int  # the statement's position in the program (pre-order over statements), from 0
    kind: str  # "import" | "assign" | "augassign" | "expr" | "with" | "pass"
    line: int
    col: int
    end_line: int
    end_col: int
    loop: tuple = ()  # the iteration number of each enclosing for loop, outermost first
    grad_enabled: bool = True  # grad mode when the statement started
    assigned: list = field(default_factory=list)  # names the statement bound
    output: str = ""  # text it printed
    warnings: list = field(default_factory=list)  # WarningRecords it raised
    error: ProgramError | None = None  # set on the step that stopped the run


@dataclass
class RunResult:
    text: str
    steps: list
    output: str
    warnings: list
    error: ProgramError | None
    namespace: dict  # the program's variables after the run (engine objects, numbers, ...)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.error is None

    def raise_for_error(self) -> RunResult:
        if self.error is not None:
            raise self.error
        return self


# == positions ====================================================================================

_NEWLINE = re.compile(r"\r\n|\r|\n")


class _Source:
    """Turns ast positions (UTF-8 byte offsets) into 1-based character columns."""

    def __init__(self, text: str):
        self.lines = _NEWLINE.split(text)

    def col(self, lineno: int | None, byte_offset: int | None) -> int | None:
        if lineno is None or byte_offset is None:
            return None
        if 1 <= lineno <= len(self.lines):
            line = self.lines[lineno - 1]
            if not line.isascii():
                return len(line.encode("utf-8")[:byte_offset].decode("utf-8", "replace")) + 1
        return byte_offset + 1

    def error(self, kind: str, message: str, node, **extra) -> ProgramError:
        line = getattr(node, "lineno", None)
        end_line = getattr(node, "end_lineno", None)
        return ProgramError(kind, message, line, self.col(line, getattr(node, "col_offset", None)),
                            end_line, self.col(end_line, getattr(node, "end_col_offset", None)),
                            **extra)


# == the language: what may be written ============================================================

# Python builtins a program may call (our own safe versions, see _Builtins)
BUILTIN_NAMES = ("print", "len", "abs", "float", "int", "bool", "round", "min", "max", "sum",
                 "list", "tuple", "str")

# import paths a program may name, and the engine module each one means
NAMESPACES = {
    "torch": "engine",
    "torch.nn": "engine.nn",
    "torch.nn.functional": "engine.nn.functional",
    "torch.nn.init": "engine.nn.init",
    "torch.optim": "engine.optim",
    "torch.optim.lr_scheduler": "engine.optim.lr_scheduler",
    "torch.autograd": "engine.autograd",
}

_TORCH_NAMES = (
    "tensor", "as_tensor", "zeros", "ones", "full", "empty", "zeros_like", "ones_like",
    "full_like", "empty_like", "arange", "linspace", "eye", "rand", "randn", "rand_like",
    "randn_like", "randint", "randint_like", "randperm", "normal", "bernoulli", "multinomial",
    "manual_seed", "initial_seed", "seed", "Generator", "get_rng_state", "set_rng_state",
    "float32", "float64", "int64", "bool", "float", "double", "long", "Size",
    "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled",
    "is_tensor", "numel", "result_type", "get_default_dtype",
    "nn", "optim", "autograd",
)
_AUTOGRAD_NAMES = ("grad", "backward", "no_grad", "enable_grad", "set_grad_enabled")

TENSOR_ATTRS = frozenset((
    "T", "mT", "backward", "bool", "clone", "contiguous", "copy_", "cpu", "data", "detach",
    "detach_", "device", "dim", "double", "dtype", "element_size", "expand", "expand_as", "fill_",
    "float", "grad", "grad_fn", "int", "is_contiguous", "is_cuda", "is_floating_point",
    "is_leaf", "item", "long", "ndim", "nelement", "new_full", "new_ones", "new_tensor",
    "new_zeros", "normal_", "bernoulli_", "exponential_", "random_", "bernoulli",
    "multinomial", "numel", "output_nr", "register_hook", "repeat", "requires_grad",
    "requires_grad_", "retain_grad", "retains_grad", "shape", "size", "to", "tolist", "type_as", "uniform_",
    "view", "view_as", "zero_",
))
NODE_ATTRS = frozenset(("name", "next_functions", "variable", "register_hook",
                        "register_prehook"))
MODULE_METHODS = frozenset((
    "parameters", "named_parameters", "children", "named_children", "modules",
    "named_modules", "zero_grad", "train", "eval", "forward", "requires_grad_", "training",
    "float", "double", "to",
))
OPTIMIZER_ATTRS = frozenset(("step", "zero_grad", "param_groups", "defaults"))
SCHEDULER_ATTRS = frozenset(("step", "get_last_lr", "last_epoch"))
SETTABLE_ATTRS = frozenset(("grad", "requires_grad", "data"))
# the one underscore name a program may read (never assign), and only on a tensor: the in-place
# lessons show the version counter that backward checks
TENSOR_PRIVATE_READABLE = "_version"

_REJECTED = {
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

_BINOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.Pow: operator.pow, ast.MatMult: operator.matmul,
    ast.BitAnd: operator.and_, ast.BitOr: operator.or_,
}
_INPLACE = {
    ast.Add: operator.iadd, ast.Sub: operator.isub, ast.Mult: operator.imul,
    ast.Div: operator.itruediv, ast.Pow: operator.ipow, ast.MatMult: operator.imatmul,
    ast.BitAnd: operator.iand, ast.BitOr: operator.ior,
}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_,
          ast.Invert: operator.invert}
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt,
            ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
            ast.Is: operator.is_, ast.IsNot: operator.is_not}
_OP_SYMBOL = {ast.Mod: "%", ast.FloorDiv: "//", ast.LShift: "<<", ast.RShift: ">>",
              ast.BitXor: "^", ast.In: "in", ast.NotIn: "not in"}

# exception types a statement may raise that are reported as the program's own runtime error
_LIMIT_EXCEPTIONS = (RecursionError, MemoryError)


@dataclass
class Program:
    """A parsed and validated program: its text, its tree and what validation worked out."""

    text: str
    tree: ast.Module
    statement_count: int
    loop_bounds: dict  # id(ast.For) -> range object of its (constant) bound
    stmt_ids: dict  # id(ast.stmt) -> position in the program


def _is_dunder(name: str) -> bool:
    return name.startswith("__")


def _depth(tree, limit: int):
    """Nesting depth of the tree, walked without recursion; returns the first node past limit."""
    stack = [(tree, 1, None)]
    while stack:
        node, d, where = stack.pop()
        if hasattr(node, "lineno"):
            where = node
        if d > limit:
            return where if where is not None else node
        for child in ast.iter_child_nodes(node):
            stack.append((child, d + 1, where))
    return None


class _Validator:
    """Checks a tree against the language, reporting the first problem at its position."""

    def __init__(self, src: _Source, limits: Limits):
        self.src = src
        self.limits = limits
        self.bound: set = set()
        self.loop_bounds: dict = {}

    def fail(self, node, message: str, kind: str = "not_allowed", **extra):
        raise self.src.error(kind, message, node, **extra)

    # -- names bound anywhere in the program (a first pass) ------------------------------------
    def collect_bound(self, tree) -> None:
        for node in ast.walk(tree):
            if isinstance(node, (ast.Name,)) and isinstance(node.ctx, ast.Store):
                self.bound.add(node.id)
            elif isinstance(node, ast.alias):
                name = node.asname or node.name.split(".")[0]
                self.bound.add(name)

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
            if type(node.op) not in _INPLACE:
                self.fail(node, f"the operator {_OP_SYMBOL.get(type(node.op), '?')}= is not allowed")
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
        elif t in _REJECTED:
            self.fail(node, _REJECTED[t])
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
                return _number_op(_BINOPS[type(node.op)], a, b, self.limits)
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
                    self.fail(elt, _REJECTED["Starred"])
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
                self.fail(node, f"name {node.id!r} is not defined")
        elif t is ast.Attribute:
            if node.attr.startswith("_") and node.attr != TENSOR_PRIVATE_READABLE:
                self.fail(node, f"attributes starting with '_' are not allowed (.{node.attr})")
            self.expr(node.value)
        elif t is ast.Call:
            self.expr(node.func)
            for a in node.args:
                if isinstance(a, ast.Starred):
                    self.fail(a, _REJECTED["Starred"])
                self.expr(a)
            for k in node.keywords:
                if k.arg is None:
                    self.fail(k.value, "**keyword arguments are not allowed")
                self.check_name(k, k.arg)
                self.expr(k.value)
        elif t is ast.BinOp:
            if type(node.op) not in _BINOPS:
                self.fail(node, f"the operator {_OP_SYMBOL.get(type(node.op), '?')} is not "
                          "allowed")
            self.expr(node.left)
            self.expr(node.right)
        elif t is ast.UnaryOp:
            if type(node.op) not in _UNARY:
                self.fail(node, "this operator is not allowed")
            self.expr(node.operand)
        elif t is ast.Compare:
            for op in node.ops:
                if type(op) not in _COMPARE:
                    self.fail(node, f"the comparison {_OP_SYMBOL.get(type(op), '?')} is not "
                              "allowed")
            self.expr(node.left)
            for c in node.comparators:
                self.expr(c)
        elif t in (ast.Tuple, ast.List):
            for e in node.elts:
                if isinstance(e, ast.Starred):
                    self.fail(e, _REJECTED["Starred"])
                self.expr(e)
        elif t is ast.Subscript:
            self.expr(node.value)
            self.expr(node.slice)
        elif t is ast.Slice:
            for part in (node.lower, node.upper, node.step):
                if part is not None:
                    self.expr(part)
        elif t.__name__ in _REJECTED:
            self.fail(node, _REJECTED[t.__name__])
        else:
            self.fail(node, f"this kind of expression ({t.__name__}) is not allowed")


def _number_op(fn, a, b, limits: Limits):
    """a <op> b on Python numbers, refusing results too large to compute quickly."""
    ints = type(a) is int and type(b) is int
    bits = limits.max_int_bits
    if fn is operator.pow and ints and b > 0 and abs(a) > 1:
        if b > bits or (abs(a).bit_length() - 1) * b > bits:
            raise LimitExceeded("max_int_bits", f"this power is too large (more than {bits} bits)")
    if fn is operator.pow and type(a) is int and isinstance(b, float) and abs(a) > 1:
        pass  # a float result: overflows with OverflowError, quickly
    if fn is operator.mul and ints and a.bit_length() + b.bit_length() > bits + 1:
        raise LimitExceeded("max_int_bits", f"this number is too large (more than {bits} bits)")
    result = fn(a, b)
    if type(result) is int and result.bit_length() > bits:
        raise LimitExceeded("max_int_bits", f"this number is too large (more than {bits} bits)")
    return result


def parse(text: str, limits: Limits | None = None) -> Program:
    """Parse and validate a program; raise ProgramError (syntax, not_allowed or limit)."""
    limits = limits or default_limits()
    if not isinstance(text, str):
        raise ProgramError("syntax", "a program must be text")
    if len(text) > limits.max_program_chars:
        raise ProgramError("limit", f"the program is too long: {len(text):,} characters (the "
                           f"limit is {limits.max_program_chars:,})", 1, 1,
                           limit="max_program_chars")
    src = _Source(text)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. SyntaxWarning for "\d" in strings
            tree = ast.parse(text, "<program>", "exec")
    except SyntaxError as e:
        msg = e.msg or "invalid syntax"
        if "too many nested" in msg:  # the tokenizer's own nesting limit (200 brackets)
            raise ProgramError("limit", f"the program nests too deeply ({msg})", e.lineno or 1,
                               e.offset or 1, limit="max_depth") from None
        line = e.lineno if e.lineno is not None else 1
        col = e.offset if e.offset else 1
        end_line = getattr(e, "end_lineno", None)
        end_col = getattr(e, "end_offset", None)
        raise ProgramError("syntax", msg, line, col, end_line, end_col,
                           exc_type=type(e).__name__) from None
    except ValueError as e:  # null bytes (3.11; 3.12+ raises SyntaxError)
        raise ProgramError("syntax", str(e), 1, 1, exc_type="SyntaxError") from None
    except (RecursionError, MemoryError):
        raise ProgramError("limit", f"the program nests too deeply (the limit is "
                           f"{limits.max_depth} levels)", 1, 1, limit="max_depth") from None
    deep = _depth(tree, limits.max_depth)
    if deep is not None:
        raise src.error("limit", f"the program nests too deeply (the limit is "
                        f"{limits.max_depth} levels)", deep, limit="max_depth")
    # statements numbered in reading order (ast.walk is breadth-first)
    stmts = sorted((n for n in ast.walk(tree) if isinstance(n, ast.stmt)),
                   key=lambda n: (n.lineno, n.col_offset))
    if len(stmts) > limits.max_statements:
        raise src.error("limit", f"the program has too many statements: {len(stmts):,} (the "
                        f"limit is {limits.max_statements:,})", stmts[limits.max_statements],
                        limit="max_statements")
    stmt_ids = {id(n): i for i, n in enumerate(stmts)}
    v = _Validator(src, limits)
    v.collect_bound(tree)
    v.body(tree.body)
    return Program(text, tree, len(stmt_ids), v.loop_bounds, stmt_ids)


# == run time =====================================================================================

def _optional(module_name: str):
    try:
        return importlib.import_module(module_name)
    except ImportError:
        return None


class _Policy:
    """What a program may reach: namespaces with their allowed names, constructor classes, and
    the engine classes whose instances have attribute allowlists. Built from the engine as it
    is (nn and optim are picked up when they exist)."""

    def __init__(self):
        self.modules: dict = {}  # import path -> module object
        self.allowed: dict = {}  # id(module) -> frozenset of names
        nn = _optional("engine.nn")
        optim = _optional("engine.optim")
        self.Module = getattr(nn, "Module", None) if nn else None
        self.Optimizer = getattr(optim, "Optimizer", None) if optim else None
        sched = _optional("engine.optim.lr_scheduler") if optim else None
        self.Scheduler = None
        if sched is not None:
            self.Scheduler = getattr(sched, "LRScheduler", None) or getattr(
                sched, "_LRScheduler", None)
        torch_names = set(_TORCH_NAMES) | set(engine.ops.FUNCTIONS)
        self._add("torch", engine, torch_names)
        self._add("torch.autograd", engine.autograd, _AUTOGRAD_NAMES)
        if nn is not None:
            names = {"functional", "init", "Parameter"}
            names |= {n for n, v in vars(nn).items()
                      if isinstance(v, type) and self.Module and issubclass(v, self.Module)
                      and not n.startswith("_") and n != "Module"}
            self._add("torch.nn", nn, names)
            for path, mod in (("torch.nn.functional", _optional("engine.nn.functional")),
                              ("torch.nn.init", _optional("engine.nn.init"))):
                if mod is not None:
                    self._add(path, mod, self._engine_functions(mod))
        if optim is not None:
            names = {n for n, v in vars(optim).items()
                     if isinstance(v, type) and self.Optimizer and issubclass(v, self.Optimizer)
                     and not n.startswith("_") and n != "Optimizer"}
            if sched is not None:
                names.add("lr_scheduler")
                base = self.Scheduler
                self._add("torch.optim.lr_scheduler", sched, {
                    n for n, v in vars(sched).items()
                    if isinstance(v, type) and base is not None and issubclass(v, base)
                    and not n.startswith("_") and v is not base})
            self._add("torch.optim", optim, names)
        # every callable a program can reach through a namespace
        self.callables: set = set()
        self.classes: set = set()
        for mod in self.modules.values():
            for name in self.allowed[id(mod)]:
                value = getattr(mod, name, None)
                if isinstance(value, type):
                    self.classes.add(value)
                elif callable(value) and not isinstance(value, types.ModuleType):
                    self.callables.add(id(value))
        self.layer_classes = {c for c in self.classes
                              if self.Module is not None and issubclass(c, self.Module)}

    @staticmethod
    def _engine_functions(mod) -> set:
        return {n for n, v in vars(mod).items()
                if not n.startswith("_") and isinstance(v, types.FunctionType)
                and (v.__module__ or "").startswith("engine")}

    def _add(self, path: str, module, names) -> None:
        self.modules[path] = module
        self.allowed[id(module)] = frozenset(n for n in names if hasattr(module, n))

    def namespace_path(self, module) -> str:
        for path, mod in self.modules.items():
            if mod is module:
                return path
        return "module"

    # -- attribute allowlists by kind of object --------------------------------------------------
    def attr_allowed(self, obj, name: str) -> bool:
        if isinstance(obj, types.ModuleType):
            return name in self.allowed.get(id(obj), ())
        if isinstance(obj, engine.Tensor):
            return (name in TENSOR_ATTRS or name in engine.ops.METHODS
                    or name == TENSOR_PRIVATE_READABLE)
        if isinstance(obj, Node):
            return name in NODE_ATTRS
        if isinstance(obj, HookHandle):
            return name == "remove"
        if isinstance(obj, Size):
            return name == "numel"
        if isinstance(obj, _DType):
            return name in ("is_floating_point", "is_complex", "is_signed", "itemsize")
        if isinstance(obj, engine.Generator):
            return name in ("manual_seed", "initial_seed", "seed", "get_state", "set_state",
                            "device")
        if self.Module is not None and isinstance(obj, self.Module):
            return name in MODULE_METHODS or name in self.module_members(obj)
        if self.Optimizer is not None and isinstance(obj, self.Optimizer):
            return name in OPTIMIZER_ATTRS
        if self.Scheduler is not None and isinstance(obj, self.Scheduler):
            return name in SCHEDULER_ATTRS
        return False

    @staticmethod
    def module_members(obj) -> set:
        """A layer's own public names: its submodules, parameters, buffers and settings."""
        d = getattr(obj, "__dict__", {})
        names = {n for n in d if not n.startswith("_")}
        for key in ("_modules", "_parameters", "_buffers"):
            sub = d.get(key)
            if isinstance(sub, dict):
                names |= {n for n in sub if isinstance(n, str) and not n.startswith("_")}
        return names

    def member_value_ok(self, value) -> bool:
        """A layer's member may be read if it is data (not, say, a function it stores)."""
        if value is None or type(value) in (bool, int, float, str):
            return True
        if isinstance(value, (engine.Tensor, _DType, Size)):
            return True
        if self.Module is not None and isinstance(value, self.Module):
            return True
        if type(value) in (tuple, list) and len(value) <= 64:
            return all(self.member_value_ok(v) for v in value)
        return False

    def is_engine_object(self, obj) -> bool:
        return isinstance(obj, (engine.Tensor, Node, HookHandle, engine.Generator, Size,
                                _DType)) or (
            self.Module is not None and isinstance(obj, self.Module)) or (
            self.Optimizer is not None and isinstance(obj, self.Optimizer)) or (
            self.Scheduler is not None and isinstance(obj, self.Scheduler))


class _Stop(Exception):
    """Internal: a statement failed; carries the ProgramError."""

    def __init__(self, error: ProgramError):
        self.error = error


_GRAD_CONTEXTS = (engine.no_grad, engine.enable_grad, engine.set_grad_enabled)


class Interpreter:
    """Runs programs. One Interpreter can run many programs; each run starts from nothing.

    observer: an engine observer (engine.observer.Observer) that receives every engine event
    of the run, statement by statement (the session passes its recorder here). The run's own
    limit observer is installed around each statement and forwards to it."""

    def __init__(self, limits: Limits | None = None, observer=None):
        self.limits = limits or default_limits()
        self.observer = observer
        self.policy = _Policy()

    def run(self, text: str, on_step=None, before_step=None) -> RunResult:
        """Run a program to its end or its first error; never raises ProgramError.

        before_step(step) is called before each statement runs (its output and error are not
        known yet), on_step(step) after it ran."""
        run = _Run(self, text, before_step)
        for step in run.steps():
            if on_step is not None:
                on_step(step)
        return run.result()

    def steps(self, text: str, before_step=None):
        """Iterate over the executed statements as they run; after the last one the generator
        returns the RunResult (also at .result of StopIteration)."""
        run = _Run(self, text, before_step)
        yield from run.steps()
        return run.result()


def run(text: str, limits: Limits | None = None, observer=None, on_step=None) -> RunResult:
    """Run a program with a fresh Interpreter."""
    return Interpreter(limits, observer).run(text, on_step=on_step)


class _Run:
    """The state of one run: the program's names, its budget, its output and its steps."""

    def __init__(self, interp: Interpreter, text: str, before_step):
        self.interp = interp
        self.limits = interp.limits
        self.policy = interp.policy
        self.text = text
        self.before_step = before_step
        self.names: dict = {}
        self.steps_done: list = []
        self.output = io.StringIO()
        self.output_chars = 0
        self.warnings: list = []
        self.warning_count = 0
        self.error: ProgramError | None = None
        self.budget = Budget(self.limits)
        self.observer = LimitObserver(self.budget, interp.observer)
        self.grad_enabled = True  # the program's own grad mode, kept apart from the host's
        self.loop: tuple = ()
        self.node = None  # the node being evaluated (for error positions)
        self.step: Step | None = None
        self.src = _Source(text if isinstance(text, str) else "")
        self.builtins = _Builtins(self)
        self.program: Program | None = None
        # optional program-level hooks of the observer (the session's recorder uses them):
        # program_bind(name, value) when a name is bound, program_output(text) on each print
        self.on_bind = getattr(interp.observer, "program_bind", None)
        self.on_output = getattr(interp.observer, "program_output", None)

    def result(self) -> RunResult:
        return RunResult(self.text, self.steps_done, self.output.getvalue(), self.warnings,
                         self.error, dict(self.names), self.budget.elapsed())

    # -- driving ---------------------------------------------------------------------------------
    def steps(self):
        try:
            self.program = parse(self.text, self.limits)
        except ProgramError as e:
            self.error = e
            return
        try:
            yield from self.block(self.program.tree.body)
        except _Stop as stop:
            self.error = stop.error

    def block(self, stmts):
        for stmt in stmts:
            if isinstance(stmt, ast.For):
                yield from self.for_loop(stmt)
            elif isinstance(stmt, ast.With):
                yield from self.with_block(stmt)
            else:
                step = self.simple(stmt, self.exec_simple)
                yield step
                if step.error is not None:
                    raise _Stop(step.error)

    def for_loop(self, stmt):
        bound = self.program.loop_bounds[id(stmt)]
        outer = self.loop
        try:
            for n, i in enumerate(bound):
                self.loop = outer + (n,)
                self.names[stmt.target.id] = i
                yield from self.block(stmt.body)
        finally:
            self.loop = outer

    def with_block(self, stmt):
        managers = []

        def enter(_stmt):
            for item in stmt.items:
                self.node = item.context_expr
                cm = self.eval(item.context_expr)
                if not isinstance(cm, _GRAD_CONTEXTS):
                    raise self.not_allowed(item.context_expr, "a with statement takes "
                                           "torch.no_grad(), torch.enable_grad() or "
                                           "torch.set_grad_enabled(flag)")
                cm.__enter__()
                managers.append(cm)

        step = self.simple(stmt, enter, kind="with")
        yield step
        try:
            if step.error is not None:
                raise _Stop(step.error)
            yield from self.block(stmt.body)
        finally:
            # leave in reverse order, inside the program's grad state
            prev = _grad_mode.state.grad_enabled
            _grad_mode.state.grad_enabled = self.grad_enabled
            try:
                for cm in reversed(managers):
                    cm.__exit__(None, None, None)
            finally:
                self.grad_enabled = _grad_mode.state.grad_enabled
                _grad_mode.state.grad_enabled = prev

    def simple(self, stmt, fn, kind: str | None = None) -> Step:
        """Run one statement with the program's grad mode, the limit observer and a warnings
        recorder in place; turn whatever it raises into the step's ProgramError."""
        src = self.src
        step = Step(
            index=len(self.steps_done), stmt_id=self.program.stmt_ids.get(id(stmt), -1),
            kind=kind or _STMT_KIND.get(type(stmt), "expr"), line=stmt.lineno,
            col=src.col(stmt.lineno, stmt.col_offset), end_line=stmt.end_lineno,
            end_col=src.col(stmt.end_lineno, stmt.end_col_offset), loop=self.loop,
            grad_enabled=self.grad_enabled,
        )
        self.step = step
        self.node = stmt
        error = None
        try:
            self.budget.count_statement()
        except LimitExceeded as e:
            error = src.error("limit", e.message, stmt, limit=e.limit)
        if error is None and self.before_step is not None:
            self.before_step(step)
        out_start = self.output.tell()
        if error is None:
            prev_grad = _grad_mode.state.grad_enabled
            prev_obs = _observer.state.observer
            _grad_mode.state.grad_enabled = self.grad_enabled
            _observer.state.observer = self.observer
            try:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    try:
                        fn(stmt)
                    finally:
                        self.record_warnings(caught, step)
            except ProgramError as e:
                error = e
            except LimitExceeded as e:
                error = src.error("limit", e.message, self.node, limit=e.limit)
            except RecursionError:
                error = src.error("limit", "the program recursed too deeply", self.node,
                                  limit="max_depth")
            except MemoryError:
                error = src.error("limit", "the program ran out of memory", self.node,
                                  limit="max_total_elements")
            except Exception as e:  # an engine error: reported as torch reports it
                error = src.error("runtime", _message(e), self.node, exc_type=type(e).__name__)
            finally:
                self.grad_enabled = _grad_mode.state.grad_enabled
                _grad_mode.state.grad_enabled = prev_grad
                _observer.state.observer = prev_obs
        step.output = self.output.getvalue()[out_start:]
        step.error = error
        self.steps_done.append(step)
        if error is not None:
            if error.line is None:
                error.line, error.col = step.line, step.col
            self.error = error
        return step

    def record_warnings(self, caught, step: Step) -> None:
        for w in caught:
            self.warning_count += 1
            if len(self.warnings) >= self.limits.max_warnings:
                continue
            rec = WarningRecord(w.category.__name__, str(w.message), step.line, step.col)
            self.warnings.append(rec)
            step.warnings.append(rec)

    # -- statements ------------------------------------------------------------------------------
    def exec_simple(self, stmt) -> None:
        t = type(stmt)
        if t is ast.Expr:
            self.eval(stmt.value)
        elif t is ast.Assign:
            value = self.eval(stmt.value)
            for target in stmt.targets:
                self.assign(target, value)
        elif t is ast.AugAssign:
            self.aug_assign(stmt)
        elif t is ast.Import:
            for alias in stmt.names:
                if alias.asname:
                    self.bind(alias.asname, self.import_module(stmt, alias.name))
                else:  # `import torch.nn` binds torch, as Python does
                    self.import_module(stmt, alias.name)
                    top = alias.name.split(".")[0]
                    self.bind(top, self.import_module(stmt, top))
        elif t is ast.ImportFrom:
            module = self.import_module(stmt, stmt.module)
            for alias in stmt.names:
                sub_path = f"{stmt.module}.{alias.name}"
                if sub_path in NAMESPACES and self.policy.modules.get(sub_path) is not None:
                    value = self.policy.modules[sub_path]
                else:
                    value = self.get_attr(module, alias.name, stmt)
                self.bind(alias.asname or alias.name, value)
        elif t is ast.Pass:
            pass
        else:  # the validator let only the kinds above through
            raise self.not_allowed(stmt, "this statement is not allowed")

    def import_module(self, node, path: str):
        module = self.policy.modules.get(path)
        if module is None:
            raise self.not_allowed(node, f"{path} is not available in this playground yet")
        return module

    def bind(self, name: str, value) -> None:
        self.names[name] = value
        if self.step is not None:
            self.step.assigned.append(name)
        if self.on_bind is not None:
            self.on_bind(name, value)

    def assign(self, target, value) -> None:
        t = type(target)
        if t is ast.Name:
            self.bind(target.id, value)
        elif t in (ast.Tuple, ast.List):
            items = self.unpack(value, len(target.elts), target)
            for sub, item in zip(target.elts, items):
                self.assign(sub, item)
        elif t is ast.Attribute:
            obj = self.eval(target.value)
            self.set_attr(obj, target.attr, value, target)
        elif t is ast.Subscript:
            obj = self.eval(target.value)
            index = self.eval(target.slice)
            self.set_item(obj, index, value, target)
        else:
            raise self.not_allowed(target, "this cannot be assigned to")

    def unpack(self, value, n: int, node) -> list:
        items = self.iterate(value, node)
        if len(items) < n:
            raise ValueError(f"not enough values to unpack (expected {n}, got {len(items)})")
        if len(items) > n:
            raise ValueError(f"too many values to unpack (expected {n})")
        return items

    def iterate(self, value, node) -> list:
        """list(value) for what a program may iterate, bounded."""
        cap = self.limits.max_sequence_items
        if isinstance(value, engine.Tensor):
            if value.dim() > 0 and value.shape[0] > min(cap, 10_000):
                raise LimitExceeded("max_sequence_items", f"iterating over a tensor with "
                                    f"{value.shape[0]:,} rows is too slow here (the limit is "
                                    f"{min(cap, 10_000):,})")
        elif isinstance(value, (str, list, tuple)):
            pass
        elif isinstance(value, types.GeneratorType) or self.policy.is_engine_object(value):
            pass  # engine iterables (model.parameters(), nn.Sequential) are bounded by the model
        else:
            raise TypeError(f"cannot unpack non-iterable {type(value).__name__} object")
        self.node = node
        items = []
        for item in value:
            items.append(item)
            if len(items) > cap:
                raise LimitExceeded("max_sequence_items", f"too many items (the limit is "
                                    f"{cap:,})")
        return items

    def aug_assign(self, stmt) -> None:
        op = _INPLACE[type(stmt.op)]
        target = stmt.target
        rhs_node = stmt.value
        if isinstance(target, ast.Name):
            old = self.lookup(target)
            rhs = self.eval(rhs_node)
            self.bind(target.id, self.binop(op, old, rhs, stmt))
        elif isinstance(target, ast.Attribute):
            obj = self.eval(target.value)
            old = self.get_attr(obj, target.attr, target)
            rhs = self.eval(rhs_node)
            self.set_attr(obj, target.attr, self.binop(op, old, rhs, stmt), target)
        else:
            obj = self.eval(target.value)
            index = self.eval(target.slice)
            old = self.get_item(obj, index, target)
            rhs = self.eval(rhs_node)
            self.set_item(obj, index, self.binop(op, old, rhs, stmt), target)

    def set_attr(self, obj, name: str, value, node) -> None:
        if not isinstance(obj, engine.Tensor) or name not in SETTABLE_ATTRS:
            raise self.not_allowed(node, f"only .grad, .requires_grad and .data of a tensor can "
                                   f"be assigned (not .{name} of {_kind_name(obj)})")
        self.node = node
        setattr(obj, name, value)

    def set_item(self, obj, index, value, node) -> None:
        if not isinstance(obj, engine.Tensor):
            raise self.not_allowed(node, f"only tensor elements can be assigned "
                                   f"(not items of {_kind_name(obj)})")
        self.check_index(index, node)
        self.node = node
        if isinstance(value, engine.Tensor):
            guard_broadcast([obj, value], self.limits)
        obj[index] = value

    # -- expressions -----------------------------------------------------------------------------
    def eval(self, node):
        method = _EVAL.get(type(node))
        if method is None:
            raise self.not_allowed(node, f"this kind of expression ({type(node).__name__}) is "
                                   "not allowed")
        return method(self, node)

    def eval_constant(self, node):
        return node.value

    def lookup(self, node):
        name = node.id
        if name in self.names:
            return self.names[name]
        if name in BUILTIN_NAMES:
            return getattr(self.builtins, name)
        self.node = node
        raise NameError(f"name {name!r} is not defined")

    def eval_attribute(self, node):
        obj = self.eval(node.value)
        return self.get_attr(obj, node.attr, node)

    def get_attr(self, obj, name: str, node):
        policy = self.policy
        private = name.startswith("_") and name != TENSOR_PRIVATE_READABLE
        if private or not policy.attr_allowed(obj, name):
            if isinstance(obj, types.ModuleType):
                where = policy.namespace_path(obj)
                if hasattr(obj, name) or name in ("nn", "optim") or name.startswith("_"):
                    raise self.not_allowed(node, f"{where}.{name} is not available in the "
                                           "playground")
                self.node = node
                raise AttributeError(f"module '{where}' has no attribute '{name}'")
            if not name.startswith("_") and not _has_attr(obj, name):
                self.node = node
                raise AttributeError(f"'{type(obj).__name__}' object has no attribute '{name}'")
            raise self.not_allowed(node, f".{name} of {_kind_name(obj)} is not available in the "
                                   "playground")
        self.node = node
        value = getattr(obj, name)
        if policy.Module is not None and isinstance(obj, policy.Module) \
                and name not in MODULE_METHODS and not policy.member_value_ok(value):
            raise self.not_allowed(node, f".{name} of {_kind_name(obj)} is not available in the "
                                   "playground")
        return value

    def eval_call(self, node):
        func_node = node.func
        self_obj = None
        if isinstance(func_node, ast.Attribute):
            self_obj = self.eval(func_node.value)
            fn = self.get_attr(self_obj, func_node.attr, func_node)
        else:
            fn = self.eval(func_node)
        args = [self.eval(a) for a in node.args]
        kwargs = {k.arg: self.eval(k.value) for k in node.keywords}
        self.node = node
        self.check_callable(fn, node)
        policy = self.policy
        if policy.Module is not None and isinstance(fn, policy.Module):
            guard_module_call(fn, tuple(args), self.limits)
        elif isinstance(fn, type) and fn in policy.layer_classes:
            guard_constructor(tuple(args), kwargs, self.limits)
        else:
            guard_call(fn, tuple(args), kwargs, self.limits,
                       self_obj if isinstance(self_obj, engine.Tensor) else None)
        result = fn(*args, **kwargs)
        self.node = node
        self.check_value(result)
        return result

    def check_callable(self, fn, node) -> None:
        policy = self.policy
        if isinstance(fn, _BuiltinFunction):
            return
        if isinstance(fn, type):
            if fn in policy.classes:
                return
        elif id(fn) in policy.callables and not isinstance(fn, types.MethodType):
            return
        elif isinstance(fn, types.MethodType):
            # reachable only through an allowed attribute of an engine object
            if policy.is_engine_object(fn.__self__):
                return
        elif policy.Module is not None and isinstance(fn, policy.Module):
            return
        raise self.not_allowed(node, f"{_kind_name(fn)} cannot be called here")

    def eval_binop(self, node):
        a = self.eval(node.left)
        b = self.eval(node.right)
        return self.binop(_BINOPS[type(node.op)], a, b, node)

    def binop(self, fn, a, b, node):
        self.node = node
        limits = self.limits
        ta, tb = isinstance(a, engine.Tensor), isinstance(b, engine.Tensor)
        if not ta:
            # in place only on tensors; `a += b` on numbers and lists makes a new value
            fn = _PLAIN.get(fn, fn)
        if _is_number(a) and _is_number(b):
            return _number_op(fn, a, b, limits)
        if ta and tb:
            if fn in (operator.matmul, operator.imatmul):
                guard_call(engine.matmul, (a, b), {}, limits)
            else:
                guard_broadcast([a, b], limits)
        elif not ta and not tb:
            self.check_sequence_op(fn, a, b)
        result = fn(a, b)
        self.check_value(result)
        return result

    def check_sequence_op(self, fn, a, b) -> None:
        """str/list/tuple + and * grow values: check the size before computing it."""
        seqs = (str, list, tuple)
        if fn in (operator.mul, operator.imul):
            seq, times = (a, b) if isinstance(a, seqs) else (b, a)
            if isinstance(seq, seqs) and type(times) in (int, bool):
                self.check_size(seq, len(seq) * max(times, 0))
        elif fn in (operator.add, operator.iadd):
            if isinstance(a, seqs) and isinstance(b, seqs):
                self.check_size(a, len(a) + len(b))

    def check_size(self, like, n: int) -> None:
        if isinstance(like, str):
            if n > self.limits.max_string_chars:
                raise LimitExceeded("max_string_chars", f"this string would be too long: {n:,} "
                                    f"characters (the limit is "
                                    f"{self.limits.max_string_chars:,})")
        elif n > self.limits.max_sequence_items:
            raise LimitExceeded("max_sequence_items", f"this list would be too long: {n:,} items "
                                f"(the limit is {self.limits.max_sequence_items:,})")

    def check_value(self, value) -> None:
        """Every Python value a program makes stays small."""
        t = type(value)
        if t is int:
            if value.bit_length() > self.limits.max_int_bits:
                raise LimitExceeded("max_int_bits", f"this number is too large (more than "
                                    f"{self.limits.max_int_bits} bits)")
        elif t is str:
            self.check_size(value, len(value))
        elif t in (list, tuple):
            self.check_nested(value)

    def check_nested(self, value) -> None:
        """Count the items of nested lists/tuples (shared ones each time they appear)."""
        cap, max_depth = self.limits.max_sequence_items, self.limits.max_sequence_depth
        stack = [(value, 1)]
        count = 0
        while stack:
            v, d = stack.pop()
            if d > max_depth:
                raise LimitExceeded("max_sequence_depth", f"lists nest too deeply (the limit is "
                                    f"{max_depth} levels)")
            count += len(v)
            if count > cap:
                raise LimitExceeded("max_sequence_items", f"this list would be too long: more "
                                    f"than {cap:,} items (the limit is {cap:,})")
            for item in v:
                if type(item) in (list, tuple):
                    stack.append((item, d + 1))
                elif type(item) is str and len(item) > self.limits.max_string_chars:
                    self.check_size(item, len(item))

    def eval_unaryop(self, node):
        v = self.eval(node.operand)
        self.node = node
        result = _UNARY[type(node.op)](v)
        self.check_value(result)
        return result

    def eval_compare(self, node):
        left = self.eval(node.left)
        result = True
        for op, right_node in zip(node.ops, node.comparators):
            right = self.eval(right_node)
            self.node = node
            fn = _COMPARE[type(op)]
            if isinstance(left, engine.Tensor) and isinstance(right, engine.Tensor):
                guard_broadcast([left, right], self.limits)
            result = fn(left, right)
            if len(node.ops) > 1 and not result:  # a chain stops at the first false link
                return result
            left = right
        return result

    def eval_tuple(self, node):
        value = tuple(self.eval(e) for e in node.elts)
        self.check_nested(value)
        return value

    def eval_list(self, node):
        value = [self.eval(e) for e in node.elts]
        self.check_nested(value)
        return value

    def eval_slice(self, node):
        parts = [None if p is None else self.eval(p) for p in (node.lower, node.upper, node.step)]
        return slice(*parts)

    def eval_subscript(self, node):
        obj = self.eval(node.value)
        index = self.eval(node.slice)
        return self.get_item(obj, index, node)

    def get_item(self, obj, index, node):
        self.node = node
        policy = self.policy
        if isinstance(obj, engine.Tensor):
            self.check_index(index, node)
            guard_indexing(obj, index, self.limits)
        elif isinstance(obj, (list, tuple, str)):
            if not isinstance(index, (int, slice)) and not (
                    isinstance(index, engine.Tensor) and index.numel() == 1):
                raise TypeError(f"{type(obj).__name__} indices must be integers or slices, not "
                                f"{type(index).__name__}")
        elif isinstance(obj, dict):
            if not isinstance(index, (str, int)):
                raise self.not_allowed(node, "a dict can only be read with a string key")
        elif policy.Module is not None and isinstance(obj, policy.Module):
            if not isinstance(index, (int, slice)) or not hasattr(type(obj), "__getitem__"):
                raise self.not_allowed(node, f"{_kind_name(obj)} cannot be indexed like this")
        else:
            raise self.not_allowed(node, f"{_kind_name(obj)} cannot be indexed")
        result = obj[index]
        self.node = node
        self.check_value(result)
        return result

    def check_index(self, index, node) -> None:
        items = index if isinstance(index, tuple) else (index,)
        for ix in items:
            if ix is None or ix is Ellipsis or type(ix) in (int, bool, slice):
                continue
            if isinstance(ix, engine.Tensor):
                continue
            if type(ix) is list:
                continue
            raise self.not_allowed(node, f"{_kind_name(ix)} cannot be used as an index")

    def eval_name(self, node):
        return self.lookup(node)

    # -- helpers ---------------------------------------------------------------------------------
    def not_allowed(self, node, message: str) -> ProgramError:
        return self.src.error("not_allowed", message, node)

    def write(self, text: str) -> None:
        self.output_chars += len(text)
        if self.output_chars > self.limits.max_output_chars:
            raise LimitExceeded("max_output_chars", f"the program printed too much (the limit "
                                f"is {self.limits.max_output_chars:,} characters)")
        self.output.write(text)
        if self.on_output is not None:
            self.on_output(text)


_EVAL = {
    ast.Constant: _Run.eval_constant, ast.Name: _Run.eval_name,
    ast.Attribute: _Run.eval_attribute, ast.Call: _Run.eval_call, ast.BinOp: _Run.eval_binop,
    ast.UnaryOp: _Run.eval_unaryop, ast.Compare: _Run.eval_compare, ast.Tuple: _Run.eval_tuple,
    ast.List: _Run.eval_list, ast.Slice: _Run.eval_slice, ast.Subscript: _Run.eval_subscript,
}
_PLAIN = {_INPLACE[k]: _BINOPS[k] for k in _INPLACE}
_STMT_KIND = {ast.Import: "import", ast.ImportFrom: "import", ast.Assign: "assign",
              ast.AugAssign: "augassign", ast.Expr: "expr", ast.Pass: "pass"}


def _has_attr(obj, name: str) -> bool:
    try:
        return hasattr(obj, name)
    except Exception:  # a property that raises
        return True


def _is_number(v) -> bool:
    return type(v) in (int, float, bool)


def _kind_name(obj) -> str:
    if isinstance(obj, types.ModuleType):
        return "a module"
    if isinstance(obj, engine.Tensor):
        return "a tensor"
    if isinstance(obj, Node):
        return "a grad_fn node"
    if isinstance(obj, _BuiltinFunction):
        return f"{obj.name}()"
    if isinstance(obj, (types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
        return f"the function {getattr(obj, '__name__', '?')}"
    if isinstance(obj, type):
        return f"the class {obj.__name__}"
    return f"a {type(obj).__name__} object"


def _message(e: BaseException) -> str:
    if isinstance(e, KeyError) and len(e.args) == 1:
        return repr(e.args[0])
    return str(e)


# == builtins =====================================================================================

class _BuiltinFunction:
    """A Python builtin as a program sees it: our own bounded version, with no attributes."""

    __slots__ = ("name", "fn")

    def __init__(self, name: str, fn):
        self.name = name
        self.fn = fn

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<built-in function {self.name}>"


class _Builtins:
    def __init__(self, run: _Run):
        self.run = run
        for name in BUILTIN_NAMES:
            setattr(self, name, _BuiltinFunction(name, getattr(self, "_" + name)))

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
        if not (_is_number(start) or isinstance(start, engine.Tensor)):
            raise TypeError("sum() start must be a number or a tensor here")
        total = start
        for item in self._seq(iterable):
            total = self.run.binop(operator.add, total, item, self.run.node)
        return total

    def _list(self, iterable=()):
        return list(self._seq(iterable))

    def _tuple(self, iterable=()):
        return tuple(self._seq(iterable))

