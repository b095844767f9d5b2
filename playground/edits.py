"""Edits: apply the UI's edit intents to a program's text, changing nothing else in it.

Every other character of the program (lines, comments, layout) stays as the user wrote it.
Python is the single source of truth for programs: the UI only sends intents such as
`{"op": "add_op", "op_name": "mul", "inputs": ["x", "y"]}`, and this module turns them into
splices of the text, located with `ast` positions (never with regular expressions over the
text, so strings and comments are never touched). The contract is docs/edits.md (EDIT_VERSION).

    result = apply_edit(text, intent)       # -> EditResult(program, changed_lines, name, info)
    dependents(text, "y")                    # -> [(name or None, line, text), ...]
    bound_names(text)                        # -> ["x", "y", ...]

Every problem with an intent, or a program that does not parse, raises EditError (a ValueError);
nothing else escapes.
"""

from __future__ import annotations

import ast
import bisect
import keyword
import math
import re
import unicodedata
import warnings
from dataclasses import dataclass, field

from ._engine import engine
from .program import BUILTIN_NAMES

PALETTE = engine.ops.registry.PALETTE  # filled when the engine registers its ops, on import

__all__ = ["EDIT_VERSION", "INTENTS", "EditError", "EditResult", "apply_edit", "bound_names",
           "dependents"]

EDIT_VERSION = 1

# The intents: for each op its required and optional fields and their kinds. Kinds: "name" (a
# new variable name), "target" (a variable the program binds), "literal" (number / nested list
# text, or a JSON number), "args" (call-argument text of literals), "bool", "int", "dtype",
# "method", "op_name", "inputs" (list of variable names or numbers), "params" (object).
# Every intent may also carry "version" (EDIT_VERSION).
INTENTS = {
    "add_leaf": {"required": {"value": "literal", "requires_grad": "bool"},
                 "optional": {"name": "name", "dtype": "dtype"}},
    "add_op": {"required": {"op_name": "op_name", "inputs": "inputs"},
               "optional": {"params": "params", "name": "name"}},
    "set_value": {"required": {"target": "target", "value": "literal"},
                  "optional": {"line": "int"}},
    "set_requires_grad": {"required": {"target": "target", "value": "bool"},
                          "optional": {"line": "int"}},
    "rename": {"required": {"target": "target", "new_name": "name"}, "optional": {}},
    "delete": {"required": {"target": "target"}, "optional": {"cascade": "bool"}},
    "backward": {"required": {"target": "target"},
                 "optional": {"gradient": "literal", "retain_graph": "bool"}},
    "retain_grad": {"required": {"target": "target"}, "optional": {"line": "int"}},
    "detach": {"required": {"target": "target"}, "optional": {"name": "name"}},
    "zero_grad": {"required": {"target": "target"}, "optional": {}},
    "grad_none": {"required": {"target": "target"}, "optional": {}},
    "no_grad": {"required": {"start_line": "int", "end_line": "int"}, "optional": {}},
    "inplace": {"required": {"target": "target", "method": "method"},
                "optional": {"args": "args"}},
}

DTYPES = ("float32", "float64", "int64", "bool")
# in-place methods: (fewest positional args, most positional args, keywords allowed)
INPLACE_METHODS = {
    "add_": (1, 1, ("alpha",)), "sub_": (1, 1, ("alpha",)), "mul_": (1, 1, ()),
    "div_": (1, 1, ()), "zero_": (0, 0, ()), "fill_": (1, 1, ()), "clamp_": (0, 2, ("min", "max")),
}

_FIELD_TYPES = {"literal": "text or a number", "name": "text", "target": "text", "args": "text",
                "dtype": "text", "method": "text", "op_name": "text", "bool": "true or false",
                "int": "a whole number", "inputs": "a list", "params": "an object"}

# names a new variable may not take: the namespaces programs import by convention, and the
# builtins the playground offers (shadowing `print` would break every later print)
_RESERVED = frozenset(("torch", "nn", "F", "optim", "range", *BUILTIN_NAMES))
_FACTORIES = frozenset((
    "tensor", "as_tensor", "zeros", "ones", "full", "empty", "rand", "randn", "randint",
    "arange", "linspace", "eye", "zeros_like", "ones_like", "full_like", "empty_like",
    "rand_like", "randn_like",
))
_FLOAT_DTYPES = frozenset(("float32", "float64", "float", "double", "float16", "half",
                           "bfloat16"))
_NON_FLOAT_DTYPES = frozenset(("int64", "long", "int32", "int", "int16", "int8", "uint8",
                               "bool"))
# string nodes whose text may span lines (t-strings are Python 3.14's)
_FORMATTED = tuple(t for t in (ast.JoinedStr, getattr(ast, "TemplateStr", None)) if t)
_MAX_NAME = 64
_MAX_LITERAL = 10_000  # characters of one value the user typed
_MAX_LITERAL_DEPTH = 32  # list nesting, as the program language's max_sequence_depth
_NEWLINE = re.compile(r"\r\n|\r|\n")  # the line breaks Python's tokenizer knows (no \f, \v)


class EditError(ValueError):
    """An intent that cannot be applied: `message` says why, `field` names the intent's field at
    fault (None when it is the intent or the program as a whole), `dependents` lists
    (name or None, line, text) of the statements that stop a delete without cascade."""

    def __init__(self, message: str, field: str | None = None, dependents=()):
        super().__init__(message)
        self.message = message
        self.field = field
        self.dependents = list(dependents)

    def to_dict(self) -> dict:
        return {"message": self.message, "field": self.field,
                "dependents": [list(d) for d in self.dependents]}


@dataclass
class EditResult:
    program: str  # the new program text
    changed_lines: list = field(default_factory=list)  # 1-based lines of `program` added/changed
    name: str | None = None  # the name the edit created or targeted
    info: str | None = None  # a sentence for the user (what a delete removed, ...)

    def to_dict(self) -> dict:
        return {"program": self.program, "changed_lines": list(self.changed_lines),
                "name": self.name, "info": self.info}


# == the program: positions and what it binds ====================================================

def _parse(text: str, mode: str = "exec"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarnings ("\d" in a string) are not ours to show
        return ast.parse(text, "<edit>", mode)


def _blocks(node) -> list:
    """The statement lists directly inside a compound statement (body, orelse, handlers, ...)."""
    out = []
    for _name, value in ast.iter_fields(node):
        if isinstance(value, list) and value:
            if all(isinstance(v, ast.stmt) for v in value):
                out.append(value)
            else:
                out.extend(v.body for v in value if isinstance(v, (ast.excepthandler,
                                                                   ast.match_case)))
    return out


def _header_nodes(node) -> list:
    """The expression parts of a statement outside its nested statement lists."""
    out = []
    for _name, value in ast.iter_fields(node):
        values = value if isinstance(value, list) else [value]
        for v in values:
            if isinstance(v, ast.stmt):
                continue
            if isinstance(v, ast.excepthandler):
                if v.type is not None:
                    out.append(v.type)
            elif isinstance(v, ast.match_case):
                out.append(v.pattern)
                if v.guard is not None:
                    out.append(v.guard)
            elif isinstance(v, ast.AST):
                out.append(v)
    return out


def _names(nodes, ctx) -> set:
    found = set()
    for n in nodes:
        for sub in ast.walk(n):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ctx):
                found.add(sub.id)
    return found


def _stmt_loads(s) -> set:
    parts = _header_nodes(s) if _blocks(s) else [s]
    used = _names(parts, (ast.Load, ast.Del))
    if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name):
        used.add(s.target.id)  # `w += y` reads w as well as writing it
    return used


def _stmt_stores(s) -> list:
    """Names a statement binds (a compound statement: its header only), in writing order."""
    parts = _header_nodes(s) if _blocks(s) else [s]
    out = []
    for p in parts:
        for sub in ast.walk(p):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store) and sub.id not in out:
                out.append(sub.id)
    if isinstance(s, (ast.Import, ast.ImportFrom)):
        for a in s.names:
            out.append(a.asname or a.name.split(".")[0])
    return out


def _assigned_names(s) -> list:
    """Names bound by an assignment statement's targets (not loops, imports or walrus)."""
    if isinstance(s, ast.Assign):
        targets = s.targets
    elif isinstance(s, (ast.AugAssign, ast.AnnAssign)):
        targets = [s.target]
    else:
        return []
    out = []
    for t in targets:
        for sub in ast.walk(t):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store) and sub.id not in out:
                out.append(sub.id)
    return out


class _Program:
    """A parsed program with character positions for its nodes and the names it binds."""

    def __init__(self, text):
        if not isinstance(text, str):
            raise EditError("the program must be text")
        self.text = text
        try:
            self.tree = _parse(text)
        except SyntaxError as e:
            raise EditError(f"fix the syntax error on line {e.lineno or 1} first "
                            f"({e.msg or 'invalid syntax'})") from None
        except (ValueError, RecursionError, MemoryError, OverflowError):
            raise EditError("fix the program first: Python cannot read it") from None
        self.starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]
        first = _NEWLINE.search(text)
        self.newline = first.group() if first else "\n"
        self.stmts = []  # every statement in reading order
        self.parent = {}  # id(stmt) -> the compound statement it is in (None at top level)
        self.top = {}  # id(stmt) -> its top-level ancestor (itself at top level)
        stack = [(s, None, s) for s in reversed(self.tree.body)]
        while stack:
            s, parent, top = stack.pop()
            self.stmts.append(s)
            self.parent[id(s)] = parent
            self.top[id(s)] = top
            for block in reversed(_blocks(s)):
                stack.extend((c, s, top) for c in reversed(block))
        self.imported = {}  # name bound by an import -> the dotted path it means
        self.assigns = {}  # name -> assignment statements binding it, reading order
        self.variables = []  # names bound by assignments and loops, in order of first binding
        for s in self.stmts:
            if isinstance(s, ast.Import):
                for a in s.names:
                    if a.asname:
                        self.imported[a.asname] = a.name
                    else:
                        top_name = a.name.split(".")[0]
                        self.imported[top_name] = top_name
            elif isinstance(s, ast.ImportFrom):
                for a in s.names:
                    self.imported[a.asname or a.name] = f"{s.module or ''}.{a.name}"
            for name in _assigned_names(s):
                self.assigns.setdefault(name, []).append(s)
            loop = [s.target] if isinstance(s, (ast.For, ast.AsyncFor)) else []
            for name in _assigned_names(s) + sorted(_names(loop, ast.Store)):
                if name not in self.variables:
                    self.variables.append(name)
        self.used = set()  # every identifier the program mentions
        for sub in ast.walk(self.tree):
            if isinstance(sub, ast.Name):
                self.used.add(sub.id)
            elif isinstance(sub, ast.arg):
                self.used.add(sub.arg)
        self.used.update(self.imported)
        self.torch_aliases = [n for n, path in self.imported.items() if path == "torch"]

    # -- positions ------------------------------------------------------------------------------
    def line_count(self) -> int:
        n = len(self.starts)
        return n - 1 if self.text.endswith(("\n", "\r")) or not self.text else n

    def line(self, lineno: int) -> str:
        start = self.starts[lineno - 1]
        end = self.starts[lineno] if lineno < len(self.starts) else len(self.text)
        return _NEWLINE.sub("", self.text[start:end])

    def offset(self, lineno: int, col_bytes: int) -> int:
        """A character offset in the text from an ast position (col_offset counts UTF-8 bytes)."""
        line = self.line(lineno)
        if not line.isascii():
            col_bytes = len(line.encode("utf-8")[:col_bytes].decode("utf-8", "ignore"))
        return self.starts[lineno - 1] + col_bytes

    def span(self, node) -> tuple:
        return (self.offset(node.lineno, node.col_offset),
                self.offset(node.end_lineno, node.end_col_offset))

    def source(self, node) -> str:
        start, end = self.span(node)
        return self.text[start:end]

    def line_end(self, lineno: int) -> int:
        return self.starts[lineno - 1] + len(self.line(lineno))

    def indent(self, lineno: int) -> str:
        line = self.line(lineno)
        return line[:len(line) - len(line.lstrip(" \t\f"))]

    def starts_line(self, s) -> bool:
        start = self.span(s)[0]
        return self.text[self.starts[s.lineno - 1]:start].strip(" \t\f") == ""

    def ends_line(self, s) -> bool:
        """Nothing but a `;`, blanks or a comment follows the statement on its last line."""
        rest = self.text[self.span(s)[1]:self.line_end(s.end_lineno)].lstrip(" \t\f")
        if rest.startswith(";"):
            rest = rest[1:].lstrip(" \t\f")
        return rest == "" or rest.startswith("#")

    def summary(self, s) -> str:
        """A statement's text for messages: a compound statement's first line, a long one cut."""
        text = self.source(s)
        first = _NEWLINE.split(text)[0].rstrip()
        if _blocks(s) or first != text:
            text = first if _blocks(s) else first + " ..."
        return text

    # -- names ----------------------------------------------------------------------------------
    def dotted(self, node) -> str | None:
        """`torch.nn.Parameter` for `nn.Parameter` when nn is `torch.nn`, and so on."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in self.imported:
            return None
        return ".".join([self.imported[node.id], *reversed(parts)])

    def factory(self, node) -> str | None:
        """The torch factory a call makes its tensor with (`tensor`, `ones`, ...), or None."""
        if not isinstance(node, ast.Call):
            return None
        path = self.dotted(node.func)
        if path and path.startswith("torch.") and path[6:] in _FACTORIES:
            return path[6:]
        return None

    def is_parameter(self, node) -> bool:
        return isinstance(node, ast.Call) and self.dotted(node.func) == "torch.nn.Parameter"

    def is_leaf_statement(self, s) -> bool:
        return (isinstance(s, ast.Assign) and self.parent[id(s)] is None
                and (self.factory(s.value) is not None or self.is_parameter(s.value)))

    def taken(self) -> set:
        return self.used | _RESERVED


# == the edit itself: splices of the original text ===============================================

class _Doc:
    """Splices of the original text, applied at once; knows which new lines they touched."""

    def __init__(self, prog: _Program):
        self.prog = prog
        self.splices = []  # (start, end, text, order, mark)

    def replace(self, start: int, end: int, text: str, mark: bool = True) -> None:
        self.splices.append((start, end, text, len(self.splices), mark))

    def insert(self, pos: int, text: str) -> None:
        self.replace(pos, pos, text)

    def insert_lines_at(self, lineno: int, lines: list) -> None:
        """Whole lines before line `lineno` (1-based)."""
        nl = self.prog.newline
        self.insert(self.prog.starts[lineno - 1], "".join(ln + nl for ln in lines))

    def insert_lines_after(self, lineno: int, lines: list) -> None:
        nl, prog = self.prog.newline, self.prog
        if lineno < len(prog.starts):
            self.insert(prog.starts[lineno], "".join(ln + nl for ln in lines))
        else:  # the last line, with no line break after it
            self.insert(len(prog.text), nl + nl.join(lines))

    def append(self, lines: list) -> None:
        text, nl = self.prog.text, self.prog.newline
        if text == "" or text.endswith(("\n", "\r")):
            self.insert(len(text), "".join(ln + nl for ln in lines))
        else:
            self.insert(len(text), nl + nl.join(lines))

    def delete_lines(self, first: int, last: int) -> None:
        prog = self.prog
        end = prog.starts[last] if last < len(prog.starts) else len(prog.text)
        self.replace(prog.starts[first - 1], end, "", mark=False)

    def result(self) -> tuple:
        text = self.prog.text
        out, marks, pos, new_pos = [], [], 0, 0
        for start, end, new, _order, mark in sorted(self.splices, key=lambda s: (s[0], s[3])):
            if start < pos:  # overlapping splices would garble the program: a bug here
                raise EditError("this edit could not be applied (overlapping changes)")
            out.append(text[pos:start])
            new_pos += start - pos
            seg = 0
            for m in _NEWLINE.finditer(new):
                if m.start() > seg:
                    marks.append(new_pos + seg)
                seg = m.end()
            if seg < len(new) or (mark and new == ""):
                marks.append(new_pos + seg)
            out.append(new)
            new_pos += len(new)
            pos = end
        out.append(text[pos:])
        new_text = "".join(out)
        starts = [0] + [m.end() for m in _NEWLINE.finditer(new_text)]
        lines = sorted({bisect.bisect_right(starts, m) for m in marks})
        return new_text, lines


# == checking intents ============================================================================

def _check_shape(intent) -> tuple:
    if not isinstance(intent, dict):
        raise EditError("an edit must be an object with an `op` field")
    op = intent.get("op")
    if not isinstance(op, str) or op not in INTENTS:
        known = ", ".join(INTENTS)
        if op is None:
            raise EditError(f"the edit has no `op`; it is one of: {known}", "op")
        raise EditError(f"unknown edit op {_short(op)}; it is one of: {known}", "op")
    spec = INTENTS[op]
    version = intent.get("version", EDIT_VERSION)
    if type(version) is not int or version != EDIT_VERSION:
        raise EditError(f"this host applies edits of version {EDIT_VERSION}, not "
                        f"{_short(version)}", "version")
    for key in intent:
        if key not in ("op", "version") and key not in spec["required"] and (
                key not in spec["optional"]):
            fields = ", ".join([*spec["required"], *spec["optional"]]) or "none"
            raise EditError(f"{op} has no field {_short(key)} (its fields: {fields})",
                            key if isinstance(key, str) else None)
    for key in spec["required"]:
        if key not in intent:
            raise EditError(f"{op} needs the field `{key}`", key)
    fields = {}
    for key, kind in {**spec["required"], **spec["optional"]}.items():
        if key not in intent:
            continue
        value = intent[key]
        if kind in ("name", "target", "args", "dtype", "method", "op_name"):
            ok = isinstance(value, str)
        elif kind == "literal":
            ok = isinstance(value, str) or (type(value) in (int, float))
        elif kind == "bool":
            ok = type(value) is bool
        elif kind == "int":
            ok = type(value) is int
        elif kind == "inputs":
            ok = isinstance(value, list)
        else:  # params
            ok = isinstance(value, dict)
        if not ok:
            raise EditError(f"`{key}` must be {_FIELD_TYPES[kind]}, not {_short(value)}", key)
        fields[key] = value
    return op, fields


def _short(value) -> str:
    try:
        text = repr(value)
    except (RecursionError, ValueError, MemoryError):  # a deeply nested list, a huge int
        text = f"a {type(value).__name__}"
    return text if len(text) <= 40 else text[:37] + "..."


def _number_text(value, field_name: str) -> str:
    """A JSON number as Python source."""
    if type(value) is int:
        if value.bit_length() > 1024:
            raise EditError(f"`{field_name}` holds a number that is too large", field_name)
    elif not math.isfinite(value):
        raise EditError(f"`{field_name}` must be a finite number", field_name)
    return repr(value)


def _check_identifier(name: str, field_name: str) -> None:
    if not name:
        raise EditError(f"`{field_name}` is empty: give a name such as x", field_name)
    if len(name) > _MAX_NAME:
        raise EditError(f"the name is too long (more than {_MAX_NAME} characters)", field_name)
    if not name.isidentifier():
        raise EditError(f"{_short(name)} is not a valid name: use letters, digits and _, "
                        "not starting with a digit", field_name)
    if keyword.iskeyword(name):
        raise EditError(f"{name} is a Python keyword and cannot be a name", field_name)
    if name.startswith("_"):
        raise EditError(f"names starting with _ are not allowed ({name})", field_name)
    normal = unicodedata.normalize("NFKC", name)
    if normal != name:  # Python reads the name as its NFKC form: write that one
        raise EditError(f"write this name as {normal}", field_name)


def _new_name(prog: _Program, name: str, field_name: str) -> str:
    _check_identifier(name, field_name)
    if name in ("torch", "nn", "F", "optim"):
        raise EditError(f"{name} would shadow the `{name}` namespace; choose another name",
                        field_name)
    if name in _RESERVED:
        raise EditError(f"{name} would shadow the builtin {name}(); choose another name",
                        field_name)
    if name in prog.taken():
        raise EditError(f"{name} is already used in the program; choose another name",
                        field_name)
    return name


def _free_name(prog: _Program) -> str:
    taken = prog.taken()
    n = 0
    while True:
        for letter in "abcdefghijkmnopqrstuvwxyz":  # no l: it reads as 1
            name = letter if n == 0 else f"{letter}{n}"
            if name not in taken:
                return name
        n += 1


def _target(prog: _Program, name: str, field_name: str = "target") -> str:
    _check_identifier(name, field_name)
    if name in prog.imported and name not in prog.variables:
        raise EditError(f"{name} is an import, not a variable", field_name)
    if name not in prog.variables:
        raise EditError(f"there is no variable {name} in the program", field_name)
    return name


@dataclass
class _Literal:
    text: str  # what to write (stripped; a bare tuple put in parentheses)
    node: ast.AST
    has_float: bool
    suggestion: str  # the same with ints and bools written as floats


def _literal(value, field_name: str, *, allow_none: bool = False) -> _Literal:
    """Check literal text (a number, or nested lists/tuples of numbers and bools) without
    evaluating it."""
    if type(value) in (int, float):  # a JSON number instead of text
        value = _number_text(value, field_name)
    text = value.strip()
    if not text:
        raise EditError(f"`{field_name}` is empty: write a number or a list such as [2.0, 3.0]",
                        field_name)
    if len(text) > _MAX_LITERAL:
        raise EditError(f"`{field_name}` is too long (more than {_MAX_LITERAL:,} characters)",
                        field_name)
    if "#" in text or _NEWLINE.search(text) or "\\" in text:
        raise EditError(f"write `{field_name}` on one line, without comments", field_name)
    try:
        node = _parse(text, "eval").body
    except SyntaxError as e:
        raise EditError(f"`{field_name}` is not a number or a list of numbers "
                        f"({e.msg or 'invalid syntax'})", field_name) from None
    except (ValueError, RecursionError, MemoryError, OverflowError):
        raise EditError(f"`{field_name}` is not a number or a list of numbers", field_name) from None
    has_float = False
    edits = []  # (start, end, float text) for the suggestion
    stack = [(node, 0)]
    while stack:
        n, depth = stack.pop()
        if depth > _MAX_LITERAL_DEPTH:
            raise EditError(f"`{field_name}` nests too deeply (more than {_MAX_LITERAL_DEPTH} "
                            "levels)", field_name)
        if isinstance(n, (ast.List, ast.Tuple)):
            stack.extend((e, depth + 1) for e in n.elts)
            continue
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)) and (
                isinstance(n.operand, ast.UnaryOp) or (isinstance(n.operand, ast.Constant)
                                                       and type(n.operand.value) in (int, float))):
            stack.append((n.operand, depth))
            continue
        if isinstance(n, ast.Constant) and type(n.value) in (int, float, bool):
            if type(n.value) is float:
                has_float = True
            else:
                start, end = _col(text, n.col_offset), _col(text, n.end_col_offset)
                written = text[start:end]
                if type(n.value) is bool:
                    as_float = "1.0" if n.value else "0.0"
                elif written.isdigit():
                    as_float = written + ".0"
                else:
                    try:
                        as_float = repr(float(n.value))
                    except OverflowError:
                        as_float = "1.0"
                edits.append((start, end, as_float))
            continue
        if allow_none and isinstance(n, ast.Constant) and n.value is None:
            continue
        raise EditError(f"`{field_name}` must be a number or a list of numbers, like "
                        f"[2.0, 3.0] (not {_short(text)})", field_name)
    if isinstance(node, ast.Tuple) and not _parenthesised(text):
        text = f"({text})"
        edits = [(s + 1, e + 1, t) for s, e, t in edits]
    if not allow_none and _shape(node) is None:
        raise EditError(f"`{field_name}`: the rows have different lengths", field_name)
    suggestion = text
    for start, end, new in sorted(edits, reverse=True):
        suggestion = suggestion[:start] + new + suggestion[end:]
    return _Literal(text, node, has_float, suggestion)


def _col(text: str, col_bytes: int) -> int:
    if text.isascii():
        return col_bytes
    return len(text.encode("utf-8")[:col_bytes].decode("utf-8", "ignore"))


def _parenthesised(text: str) -> bool:
    """Whether literal text is one bracketed group: `(2, 3)`, not `(2), 3`. Literals hold no
    strings, so counting brackets is exact."""
    if not text.startswith("("):
        return False
    depth = 0
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
            if depth == 0:
                return i == len(text) - 1
    return False


def _shape(node):
    """The shape nested lists describe, or None when they are ragged (torch refuses those)."""
    if isinstance(node, (ast.List, ast.Tuple)):
        inner = [_shape(e) for e in node.elts]
        if any(s is None for s in inner) or len(set(inner)) > 1:
            return None
        return (len(node.elts), *(inner[0] if inner else ()))
    return ()


def _require_float(lit: _Literal, dtype: str | None, field_name: str) -> None:
    """torch refuses requires_grad on integer and bool tensors: say so before the run does."""
    if dtype in _NON_FLOAT_DTYPES:
        raise EditError(f"only floating point tensors can require gradients (not {dtype})",
                        "dtype")
    if dtype in _FLOAT_DTYPES or lit.has_float or lit.suggestion == lit.text:
        return  # no ints or bools at all: [] is float32 in torch
    hint = lit.suggestion if len(lit.suggestion) <= 60 else "the numbers as floats, e.g. 2.0"
    raise EditError(f"only floating point tensors can require gradients; write {hint}",
                    field_name)


def _args(text: str, method: str) -> str:
    """Check call-argument text (`1.0`, `min=0.0, max=1.0`) for an in-place method."""
    text = text.strip()
    fewest, most, keywords = INPLACE_METHODS[method]
    if text:
        if len(text) > _MAX_LITERAL or "#" in text or _NEWLINE.search(text) or "\\" in text:
            raise EditError("write the arguments on one line, without comments", "args")
        try:
            call = _parse(f"f({text})", "eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            raise EditError(f"the arguments {_short(text)} are not valid", "args") from None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and call.func.id == "f" and call.func.col_offset == 0):
            raise EditError(f"the arguments {_short(text)} are not valid", "args")
        values = list(call.args)
        for k in call.keywords:
            if k.arg is None or k.arg not in keywords:
                allowed = ", ".join(keywords) or "none"
                raise EditError(f"{method} takes no argument {k.arg or '**'} (keywords: "
                                f"{allowed})", "args")
            values.append(k.value)
        src = f"f({text})"
        for v in values:
            if isinstance(v, ast.Starred):
                raise EditError("*arguments are not allowed", "args")
            _literal(src[_col(src, v.col_offset):_col(src, v.end_col_offset)], "args",
                     allow_none=True)
        n_pos, n_kw = len(call.args), len(call.keywords)
    else:
        n_pos = n_kw = 0
    if not fewest <= n_pos <= most or (method == "clamp_" and n_pos + n_kw == 0):
        need = {0: "no arguments", 1: "one value, e.g. 1.0"}.get(most, "min and/or max")
        raise EditError(f"{method} takes {need}", "args")
    return text


# == where new statements go =====================================================================

def _torch_alias(prog: _Program, doc: _Doc, place: bool = True) -> tuple:
    """The name the program imports torch as; `import torch` is added at the top when there is
    none (before the first statement, after any opening comments)."""
    if "torch" in prog.torch_aliases:
        return "torch", None
    if prog.torch_aliases:
        return prog.torch_aliases[0], None
    if place and prog.tree.body:
        doc.insert_lines_at(prog.tree.body[0].lineno, ["import torch"])
    return "torch", "import torch"


def _last_line_of(prog: _Program, top_stmt) -> int:
    """The last line of a top-level statement, and of any statement sharing it after a `;`."""
    end = top_stmt.end_lineno
    for s in prog.tree.body:
        if s.lineno <= end:
            end = max(end, s.end_lineno)
    return end


def _insert_after_in_block(prog: _Program, doc: _Doc, s, code: str) -> None:
    """Right after statement s, in its own block: a line of its own at its indentation, or
    `; code` on the same line when s shares its line (`a = 1; y = 2`, `for ...: y = 2`)."""
    if prog.starts_line(s) and prog.ends_line(s):
        doc.insert_lines_after(s.end_lineno, [prog.indent(s.lineno) + code])
    else:
        doc.insert(prog.span(s)[1], "; " + code)


def _binding(prog: _Program, target: str, line, want, what: str):
    """The statement binding target that `want` accepts: the one covering `line`, else the
    last."""
    candidates = [s for s in prog.assigns.get(target, []) if want(s)]
    if line is not None:
        for s in candidates:
            if s.lineno <= line <= s.end_lineno:
                return s
        raise EditError(f"line {line} does not {what} {target}", "line")
    if not candidates:
        return None
    return candidates[-1]


# == the intents =================================================================================

def _add_leaf(prog: _Program, f: dict) -> EditResult:
    lit = _literal(f["value"], "value")
    dtype = f.get("dtype")
    if dtype is not None and dtype not in DTYPES:
        raise EditError(f"dtype is one of {', '.join(DTYPES)} (not {_short(dtype)})", "dtype")
    if f["requires_grad"]:
        _require_float(lit, dtype, "value")
    name = _new_name(prog, f["name"], "name") if "name" in f else _free_name(prog)
    doc = _Doc(prog)
    leaves = [s for s in prog.tree.body if prog.is_leaf_statement(s)]
    imports = [s for s in prog.tree.body if isinstance(s, (ast.Import, ast.ImportFrom))]
    anchor = (leaves or imports or [None])[-1]
    torch, added = _torch_alias(prog, doc, place=anchor is not None)
    args = [lit.text]
    if dtype is not None:
        args.append(f"dtype={torch}.{dtype}")
    if f["requires_grad"]:
        args.append("requires_grad=True")
    line = f"{name} = {torch}.tensor({', '.join(args)})"
    if anchor is not None:
        doc.insert_lines_after(_last_line_of(prog, anchor), [line])
    elif prog.tree.body:  # no imports and no leaves: the import and the leaf open the program
        doc.insert_lines_at(prog.tree.body[0].lineno, [added, line])
    else:
        doc.append([added, line])
    return _finish(doc, name, "added `import torch`" if added else None)


def _palette_entry(name: str) -> dict:
    for entry in PALETTE:
        if entry.get("name") == name:
            return entry
    known = ", ".join(e.get("name", "?") for e in PALETTE)
    raise EditError(f"there is no op {_short(name)} in the palette (ops: {known})", "op_name")


def _param_text(value, key: str) -> str:
    if type(value) is bool:
        return "True" if value else "False"
    if type(value) in (int, float):
        return _number_text(value, "params")
    if isinstance(value, str):
        return _literal(value, "params", allow_none=True).text
    raise EditError(f"parameter {key} must be a number or literal text, not {_short(value)}",
                    "params")


def _add_op(prog: _Program, f: dict) -> EditResult:
    entry = _palette_entry(f["op_name"])
    code, arity = entry.get("code", ""), entry.get("arity", 0)
    inputs = f["inputs"]
    if len(inputs) != arity:
        raise EditError(f"{entry['name']} takes {arity} input{'s' if arity != 1 else ''}, not "
                        f"{len(inputs)}", "inputs")
    texts, names = [], []
    for i, value in enumerate(inputs):
        if isinstance(value, str):
            texts.append(_target(prog, value, "inputs"))
            names.append(value)
        elif type(value) in (int, float):
            # a number works as an operand of an operator (2 * y), not as a method's receiver
            if f"{{{i}}}." in code or code.startswith("torch."):
                raise EditError(f"input {i + 1} of {entry['name']} must be a variable",
                                "inputs")
            number = _number_text(value, "inputs")
            texts.append(f"({number})" if value < 0 else number)
        else:
            raise EditError(f"inputs are variable names or numbers, not {_short(value)}",
                            "inputs")
    if not names:
        raise EditError(f"{entry['name']} needs at least one variable as input", "inputs")
    defaults = entry.get("params") or {}
    params = {}
    for key, default in defaults.items():
        params[key] = default if isinstance(default, str) else _param_text(default, key)
    for key, value in f.get("params", {}).items():
        if key not in defaults:
            allowed = ", ".join(defaults) or "none"
            raise EditError(f"{entry['name']} has no parameter {_short(key)} (parameters: "
                            f"{allowed})", "params")
        params[key] = _param_text(value, key)
    try:
        expr = code.format(*texts, **params)
    except (IndexError, KeyError, ValueError):
        raise EditError(f"the palette entry {entry['name']} cannot be written", "op_name") from None
    name = _new_name(prog, f["name"], "name") if "name" in f else _free_name(prog)
    last = max((s for n in names for s in prog.stmts if n in _stmt_stores(s)),
               key=lambda s: (s.lineno, s.col_offset), default=None)
    doc = _Doc(prog)
    line = f"{name} = {expr}"
    if last is None:  # cannot happen: the inputs are bound
        doc.append([line])
    else:
        doc.insert_lines_after(_last_line_of(prog, prog.top[id(last)]), [line])
    return _finish(doc, name, None)


def _creating_call(prog: _Program, s):
    """(call that holds the data, outer call that takes requires_grad, default requires_grad)
    for a leaf statement; None when s does not make its tensor with a factory."""
    value = s.value
    if prog.factory(value) is not None:
        return value, value, False
    if prog.is_parameter(value):
        inner = value.args[0] if value.args else None
        return (inner if prog.factory(inner) is not None else None), value, True
    return None


def _leaf_binding(prog: _Program, target: str, f: dict):
    s = _binding(prog, target, f.get("line"),
                 lambda s: isinstance(s, ast.Assign) and _creating_call(prog, s) is not None,
                 "create")
    if s is None:
        where = prog.assigns.get(target) or []
        said = f" (line {where[-1].lineno}: {prog.summary(where[-1])})" if where else ""
        raise EditError(f"{target} is not made by torch.tensor(...) or another factory{said}",
                        "target")
    return s


def _keyword(call, name: str):
    for k in call.keywords:
        if k.arg == name:
            return k
    return None


def _call_dtype(call) -> str | None:
    k = _keyword(call, "dtype")
    if k is not None and isinstance(k.value, ast.Attribute):
        return k.value.attr
    return None


def _set_value(prog: _Program, f: dict) -> EditResult:
    target = _target(prog, f["target"])
    lit = _literal(f["value"], "value")
    s = _leaf_binding(prog, target, f)
    data_call, rg_call, rg_default = _creating_call(prog, s)
    if data_call is None:
        raise EditError(f"{target} wraps a tensor that is not made by a factory", "target")
    rg = _keyword(rg_call, "requires_grad")
    requires = rg_default if rg is None else (
        isinstance(rg.value, ast.Constant) and rg.value.value is True)
    if requires:
        _require_float(lit, _call_dtype(data_call), "value")
    doc = _Doc(prog)
    kind = prog.factory(data_call)
    data = data_call.args[0] if data_call.args else getattr(_keyword(data_call, "data"), "value",
                                                            None)
    if kind in ("tensor", "as_tensor") and data is not None:
        start, end = prog.span(data)
        doc.replace(start, end, lit.text)
    else:  # torch.ones(2, requires_grad=True) -> torch.tensor(value, requires_grad=True)
        func = data_call.func
        if isinstance(func, ast.Attribute):
            maker = prog.source(func.value) + ".tensor"
        else:
            maker = _torch_alias(prog, doc)[0] + ".tensor"
        kept = [prog.source(k) for k in data_call.keywords if k.arg in ("dtype", "requires_grad")]
        start, end = prog.span(data_call)
        doc.replace(start, end, f"{maker}({', '.join([lit.text, *kept])})")
    return _finish(doc, target, None)


def _argument_list(call) -> list:
    return sorted([*call.args, *call.keywords], key=lambda n: (n.lineno, n.col_offset))


def _set_requires_grad(prog: _Program, f: dict) -> EditResult:
    target = _target(prog, f["target"])
    want = f["value"]
    s = _leaf_binding(prog, target, f)
    data_call, call, default = _creating_call(prog, s)
    if want and data_call is not None:
        kind = prog.factory(data_call)
        dtype = _call_dtype(data_call)
        data = data_call.args[0] if data_call.args else None
        if kind in ("tensor", "as_tensor") and data is not None:
            try:
                lit = _literal(prog.source(data), "value")
            except EditError:
                lit = None  # not a literal (a variable, ...): torch will tell at run time
            if lit is not None:
                _require_float(lit, dtype, "value")
        elif kind in ("arange", "randint") and dtype not in _FLOAT_DTYPES and (
                kind == "randint" or all(isinstance(a, ast.Constant) and type(a.value) is int
                                         for a in data_call.args)):
            raise EditError("only floating point tensors can require gradients; this "
                            f"torch.{kind}(...) makes integers (add dtype=torch.float32)",
                            "value")
    doc = _Doc(prog)
    k = _keyword(call, "requires_grad")
    elems = _argument_list(call)
    if want == default:  # the default: drop the keyword rather than spell it out
        if k is None:
            return _finish(doc, target, f"{target} already has requires_grad={want}")
        i = elems.index(k)
        if i > 0:
            prev_end = prog.span(elems[i - 1])[1]
            k_start, k_end = prog.span(k)
            between = prog.text[prev_end:k_start]
            if "#" in between:  # keep a comment after the previous argument: drop only the comma
                comma = prev_end + between.index(",")
                doc.replace(comma, comma + 1, "")
                doc.replace(k_start, k_end, "")
            else:
                doc.replace(prev_end, k_end, "")
        elif len(elems) > 1:
            doc.replace(prog.span(k)[0], prog.span(elems[1])[0], "")
        else:
            doc.replace(prog.span(k)[0], prog.span(call)[1] - 1, "")
    else:
        value = "True" if want else "False"
        if k is not None:
            start, end = prog.span(k.value)
            if prog.text[start:end] == value:
                return _finish(doc, target, f"{target} already has requires_grad={want}")
            doc.replace(start, end, value)
        elif elems:
            doc.insert(prog.span(elems[-1])[1], f", requires_grad={value}")
        else:
            doc.insert(prog.span(call)[1] - 1, f"requires_grad={value}")
    return _finish(doc, target, None)


def _rename(prog: _Program, f: dict) -> EditResult:
    target = _target(prog, f["target"])
    new = _new_name(prog, f["new_name"], "new_name")
    doc = _Doc(prog)
    for node in ast.walk(prog.tree):
        if isinstance(node, ast.Name) and node.id == target:
            start, end = prog.span(node)
            if unicodedata.normalize("NFKC", prog.text[start:end]) != target:
                # an ast position that does not point at the name (old f-string positions)
                raise EditError(f"cannot rename {target} on line {node.lineno}: its position "
                                "is unknown", "target")
            doc.replace(start, end, new)
    return _finish(doc, new, None)


# -- delete ---------------------------------------------------------------------------------------

def _flow(prog: _Program, target: str) -> tuple:
    """What deleting target takes with it, following the data in reading order: the statements
    binding target are removed; a statement that reads a removed name is removed, and the names
    it binds count as removed from there on (until a kept statement binds them again). A loop
    body is read twice (a use can come before the binding in the text); a block left with no
    statements is removed with its header.

    Returns (reasons: id(stmt) -> "def" | "uses" | "inside" | "empty", uses: id(stmt) -> names,
    block: id(stmt) -> the statement whose header removed it)."""
    tainted: set = set()
    reasons: dict = {}
    uses: dict = {}
    inside: dict = {}

    def kill(s, why) -> None:
        for sub in ast.walk(s):
            if isinstance(sub, ast.stmt):
                if sub is not s:
                    reasons.setdefault(id(sub), "inside")
                    inside.setdefault(id(sub), why)
                tainted.update(_stmt_stores(sub))

    def visit(s) -> None:
        if id(s) in reasons:  # seen on a loop's first reading
            kill(s, s)
            return
        blocks = _blocks(s)
        used = _stmt_loads(s) & tainted
        if blocks:
            if used:
                reasons[id(s)] = "uses"
                uses[id(s)] = sorted(used)
                kill(s, s)
                return
            tainted.difference_update(_stmt_stores(s))
            for _ in range(2 if isinstance(s, (ast.For, ast.AsyncFor, ast.While)) else 1):
                for block in blocks:
                    for c in block:
                        visit(c)
            if all(id(c) in reasons for block in blocks for c in block):
                reasons[id(s)] = "empty"
            return
        stores = _stmt_stores(s)
        if target in _assigned_names(s):
            reasons[id(s)] = "def"
            tainted.update(stores)
        elif used:
            reasons[id(s)] = "uses"
            uses[id(s)] = sorted(used)
            tainted.update(stores)
        else:
            tainted.difference_update(stores)

    for s in prog.tree.body:
        visit(s)
    return reasons, uses, inside


def _dependents(prog: _Program, target: str) -> tuple:
    reasons, uses, inside = _flow(prog, target)
    out, said = [], []
    for s in prog.stmts:
        why = reasons.get(id(s))
        if why not in ("uses", "inside"):
            continue
        stores = _assigned_names(s) or _stmt_stores(s)
        text = prog.summary(s)
        out.append((stores[0] if stores else None, s.lineno, text))
        if why == "uses":
            said.append(f"{text} (line {s.lineno}) uses {', '.join(uses[id(s)])}")
        else:
            said.append(f"{text} (line {s.lineno}) is inside the block on line "
                        f"{inside[id(s)].lineno}")
    return out, said, reasons


def _delete(prog: _Program, f: dict) -> EditResult:
    target = _target(prog, f["target"])
    if target not in prog.assigns:
        raise EditError(f"{target} is a loop variable: delete its loop in the code", "target")
    deps, said, reasons = _dependents(prog, target)
    if deps and not f.get("cascade", False):
        listed = "; ".join(said[:8]) + ("; ..." if len(said) > 8 else "")
        raise EditError(f"cannot delete {target}: {listed}. Delete with cascade to remove "
                        f"{'it' if len(deps) == 1 else 'them'} too", "target", deps)
    removed = {k for k, why in reasons.items() if why != "uses" or f.get("cascade", False)}
    doc = _Doc(prog)
    _remove(prog, doc, removed)
    defs = [s for s in prog.stmts if reasons.get(id(s)) == "def"]
    info = "removed " + ", ".join(f"{prog.summary(s)} (line {s.lineno})" for s in defs)
    if deps:
        info += " and what used it: " + ", ".join(f"{t} (line {ln})" for _n, ln, t in deps)
    return _finish(doc, target, info)


def _remove(prog: _Program, doc: _Doc, removed: set) -> None:
    """Splice out the removed statements: whole lines when they have their lines to themselves,
    else the statement and its `;`; a block of a kept statement left empty becomes `pass`."""
    blocks = [prog.tree.body] + [b for s in prog.stmts if id(s) not in removed
                                 for b in _blocks(s)]
    for block in blocks:
        if not any(id(s) in removed for s in block):
            continue
        if block is not prog.tree.body and all(id(s) in removed for s in block):
            doc.replace(prog.span(block[0])[0], prog.span(block[-1])[1], "pass")
            continue
        groups, group = [], [block[0]]
        for s in block[1:]:
            if s.lineno == group[-1].end_lineno:  # shares a line with the previous: `a; b`
                group.append(s)
            else:
                groups.append(group)
                group = [s]
        groups.append(group)
        for g in groups:
            gone = [i for i, s in enumerate(g) if id(s) in removed]
            if not gone:
                continue
            if len(gone) == len(g):
                if prog.starts_line(g[0]) and prog.ends_line(g[-1]):
                    doc.delete_lines(g[0].lineno, g[-1].end_lineno)
                else:  # shares its line with something that stays: keep the line valid
                    doc.replace(prog.span(g[0])[0], prog.span(g[-1])[1], "pass")
                continue
            spans = []
            for i in gone:
                if i + 1 < len(g):  # the statement and the `; ` up to the next one
                    spans.append((prog.span(g[i])[0], prog.span(g[i + 1])[0]))
                else:  # the last on its line: from the end of the last kept one before it
                    kept = max(j for j in range(i) if j not in gone)
                    spans.append((prog.span(g[kept])[1], prog.span(g[i])[1]))
            spans.sort()
            merged = [list(spans[0])]
            for start, end in spans[1:]:
                if start <= merged[-1][1]:
                    merged[-1][1] = max(merged[-1][1], end)
                else:
                    merged.append([start, end])
            for start, end in merged:
                doc.replace(start, end, "")


# -- statements that use a variable ----------------------------------------------------------------

def _backward(prog: _Program, f: dict) -> EditResult:
    target = _target(prog, f["target"])
    doc = _Doc(prog)
    args = []
    if "gradient" in f:
        lit = _literal(f["gradient"], "gradient")
        torch = _torch_alias(prog, doc)[0]
        args.append(f"gradient={torch}.tensor({lit.text})")
    if f.get("retain_graph"):
        args.append("retain_graph=True")
    doc.append([f"{target}.backward({', '.join(args)})"])
    return _finish(doc, target, None)


def _retain_grad(prog: _Program, f: dict) -> EditResult:
    target = _target(prog, f["target"])
    s = _binding(prog, target, f.get("line"), lambda s: True, "bind")
    if s is None:
        raise EditError(f"{target} is only bound by a loop; retain_grad needs an assignment",
                        "target")
    doc = _Doc(prog)
    nxt = _next_sibling(prog, s)
    if nxt is not None and _is_call_on(nxt, target, "retain_grad"):
        return _finish(doc, target, f"{target}.retain_grad() is already on line {nxt.lineno}")
    _insert_after_in_block(prog, doc, s, f"{target}.retain_grad()")
    return _finish(doc, target, None)


def _next_sibling(prog: _Program, s):
    parent = prog.parent[id(s)]
    for block in _blocks(parent) if parent is not None else [prog.tree.body]:
        for i, c in enumerate(block):
            if c is s:
                return block[i + 1] if i + 1 < len(block) else None
    return None


def _is_call_on(s, name: str, method: str) -> bool:
    v = getattr(s, "value", None)
    return (isinstance(s, ast.Expr) and isinstance(v, ast.Call) and not v.args
            and not v.keywords and isinstance(v.func, ast.Attribute) and v.func.attr == method
            and isinstance(v.func.value, ast.Name) and v.func.value.id == name)


def _detach(prog: _Program, f: dict) -> EditResult:
    target = _target(prog, f["target"])
    if "name" in f:
        name = _new_name(prog, f["name"], "name")
    else:
        taken, n = prog.taken(), 1
        name = f"{target}_d"
        while name in taken:
            n += 1
            name = f"{target}_d{n}"
    last = max((s for s in prog.stmts if target in _stmt_stores(s)),
               key=lambda s: (s.lineno, s.col_offset))
    doc = _Doc(prog)
    doc.insert_lines_after(_last_line_of(prog, prog.top[id(last)]),
                           [f"{name} = {target}.detach()"])
    return _finish(doc, name, None)


def _append_line(code_of):
    def handler(prog: _Program, f: dict) -> EditResult:
        target = _target(prog, f["target"])
        doc = _Doc(prog)
        doc.append([code_of(target, f)])
        return _finish(doc, target, None)
    return handler


def _inplace_code(target: str, f: dict) -> str:
    method = f["method"]
    if method not in INPLACE_METHODS:
        raise EditError(f"method is one of {', '.join(INPLACE_METHODS)} (not {_short(method)})",
                        "method")
    return f"{target}.{method}({_args(f.get('args', ''), method)})"


# -- no_grad ----------------------------------------------------------------------------------------

def _indent_unit(prog: _Program, stmts) -> str:
    """The program's indentation step: from a block among `stmts` if any, else anywhere; four
    spaces when nothing is indented."""
    for group in (stmts, prog.stmts):
        for s in group:
            for sub in ast.walk(s):
                blocks = _blocks(sub) if isinstance(sub, ast.stmt) else []
                for block in blocks:
                    if block[0].lineno == sub.lineno:
                        continue  # a one-line body says nothing about indentation
                    outer, inner = prog.indent(sub.lineno), prog.indent(block[0].lineno)
                    if inner.startswith(outer) and len(inner) > len(outer):
                        return inner[len(outer):]
    return "    "


def _no_grad(prog: _Program, f: dict) -> EditResult:
    first, last = f["start_line"], f["end_line"]
    count = prog.line_count()
    if not 1 <= first <= last <= count:
        raise EditError(f"lines {first}-{last} are not lines of the program (1-{count})",
                        "start_line" if not 1 <= first <= count else "end_line")
    while first <= last and not prog.line(first).strip():
        first += 1
    while last >= first and not prog.line(last).strip():
        last -= 1
    inside = [s for s in prog.tree.body if s.end_lineno >= first and s.lineno <= last]
    for s in inside:
        if s.lineno < first or s.end_lineno > last:
            raise EditError(f"lines {f['start_line']}-{f['end_line']} cut the statement on "
                            f"lines {s.lineno}-{s.end_lineno}; select whole statements",
                            "start_line" if s.lineno < first else "end_line")
    if not inside:
        raise EditError(f"lines {first}-{last} hold no statements", "start_line")
    if any(isinstance(s, (ast.Import, ast.ImportFrom)) for s in inside):
        raise EditError("imports stay outside a no_grad block", "start_line")
    in_strings = set()  # lines that begin inside a multi-line string: indenting changes the text
    for s in inside:
        for sub in ast.walk(s):
            if (isinstance(sub, _FORMATTED) or (isinstance(sub, ast.Constant)
                                                and isinstance(sub.value, (str, bytes)))) and (
                    sub.end_lineno > sub.lineno):
                in_strings.update(range(sub.lineno + 1, sub.end_lineno + 1))
    doc = _Doc(prog)
    torch = _torch_alias(prog, doc)[0]
    unit = _indent_unit(prog, inside)
    doc.insert(prog.starts[first - 1], f"with {torch}.no_grad():{prog.newline}")
    for n in range(first, last + 1):
        if n not in in_strings and prog.line(n).strip(" \t\f"):
            doc.insert(prog.starts[n - 1], unit)
    return _finish(doc, None, None)


_HANDLERS = {
    "add_leaf": _add_leaf,
    "add_op": _add_op,
    "set_value": _set_value,
    "set_requires_grad": _set_requires_grad,
    "rename": _rename,
    "delete": _delete,
    "backward": _backward,
    "retain_grad": _retain_grad,
    "detach": _detach,
    "zero_grad": _append_line(lambda t, f: f"{t}.grad.zero_()"),
    "grad_none": _append_line(lambda t, f: f"{t}.grad = None"),
    "no_grad": _no_grad,
    "inplace": _append_line(_inplace_code),
}


def _finish(doc: _Doc, name, info) -> EditResult:
    text, lines = doc.result()
    try:
        _parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError) as e:
        # a guard, not a path: every edit is built to parse
        raise EditError(f"this edit would break the program ({getattr(e, 'msg', e)})") from None
    return EditResult(text, lines, name, info)


# == the API ======================================================================================

def apply_edit(program_text: str, intent: dict) -> EditResult:
    """Apply one edit intent (docs/edits.md) to a program; raise EditError if it cannot be."""
    op, fields = _check_shape(intent)
    prog = _Program(program_text)
    return _HANDLERS[op](prog, fields)


def dependents(program_text: str, name: str) -> list:
    """The statements that (transitively) use variable `name` and would go with it in a cascading
    delete: [(the name a statement binds or None, line, statement text), ...] in reading order."""
    prog = _Program(program_text)
    if not isinstance(name, str):
        raise EditError("the name must be text", "target")
    return _dependents(prog, _target(prog, name))[0]


def bound_names(program_text: str) -> list:
    """The variables a program binds (assignments and loops; not imports), in order of first
    binding."""
    return list(_Program(program_text).variables)
