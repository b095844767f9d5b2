"""Checking what an intent carries from the user: names, literal values, call arguments. Values
are read with `ast`, never evaluated."""

from __future__ import annotations

import ast
import keyword
import math
import unicodedata
from dataclasses import dataclass

from .contract import INPLACE_METHODS, EditError, short
from .source import NEWLINE, RESERVED, Program, parse_text

FLOAT_DTYPES = frozenset(("float32", "float64", "float", "double", "float16", "half",
                           "bfloat16"))
NON_FLOAT_DTYPES = frozenset(("int64", "long", "int32", "int", "int16", "int8", "uint8",
                               "bool"))
_MAX_NAME = 64
MAX_LITERAL = 10_000  # characters of one value the user typed
_MAX_LITERAL_DEPTH = 32  # list nesting, as the program language's max_sequence_depth


def number_text(value, field_name: str) -> str:
    """A JSON number as Python source."""
    if type(value) is int:
        if value.bit_length() > 1024:
            raise EditError(f"`{field_name}` holds a number that is too large", field_name)
    elif not math.isfinite(value):
        raise EditError(f"`{field_name}` must be a finite number", field_name)
    return repr(value)


def check_identifier(name: str, field_name: str) -> None:
    if not name:
        raise EditError(f"`{field_name}` is empty: give a name such as x", field_name)
    if len(name) > _MAX_NAME:
        raise EditError(f"the name is too long (more than {_MAX_NAME} characters)", field_name)
    if not name.isidentifier():
        raise EditError(f"{short(name)} is not a valid name: use letters, digits and _, "
                        "not starting with a digit", field_name)
    if keyword.iskeyword(name):
        raise EditError(f"{name} is a Python keyword and cannot be a name", field_name)
    if name.startswith("_"):
        raise EditError(f"names starting with _ are not allowed ({name})", field_name)
    normal = unicodedata.normalize("NFKC", name)
    if normal != name:  # Python reads the name as its NFKC form: write that one
        raise EditError(f"write this name as {normal}", field_name)


def new_name(prog: Program, name: str, field_name: str) -> str:
    check_identifier(name, field_name)
    if name in ("torch", "nn", "F", "optim"):
        raise EditError(f"{name} would shadow the `{name}` namespace; choose another name",
                        field_name)
    if name in RESERVED:
        raise EditError(f"{name} would shadow the builtin {name}(); choose another name",
                        field_name)
    if name in prog.taken():
        raise EditError(f"{name} is already used in the program; choose another name",
                        field_name)
    return name


def free_name(prog: Program) -> str:
    taken = prog.taken()
    n = 0
    while True:
        for letter in "abcdefghijkmnopqrstuvwxyz":  # no l: it reads as 1
            name = letter if n == 0 else f"{letter}{n}"
            if name not in taken:
                return name
        n += 1


def target_name(prog: Program, name: str, field_name: str = "target") -> str:
    check_identifier(name, field_name)
    if name in prog.imported and name not in prog.variables:
        raise EditError(f"{name} is an import, not a variable", field_name)
    if name not in prog.variables:
        raise EditError(f"there is no variable {name} in the program", field_name)
    return name


@dataclass
class Literal:
    text: str  # what to write (stripped; a bare tuple put in parentheses)
    node: ast.AST
    has_float: bool
    suggestion: str  # the same with ints and bools written as floats


def literal(value, field_name: str, *, allow_none: bool = False) -> Literal:
    """Check literal text (a number, or nested lists/tuples of numbers and bools) without
    evaluating it."""
    if type(value) in (int, float):  # a JSON number instead of text
        value = number_text(value, field_name)
    text = value.strip()
    if not text:
        raise EditError(f"`{field_name}` is empty: write a number or a list such as [2.0, 3.0]",
                        field_name)
    if len(text) > MAX_LITERAL:
        raise EditError(f"`{field_name}` is too long (more than {MAX_LITERAL:,} characters)",
                        field_name)
    if "#" in text or NEWLINE.search(text) or "\\" in text:
        raise EditError(f"write `{field_name}` on one line, without comments", field_name)
    try:
        node = parse_text(text, "eval").body
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
                start, end = col(text, n.col_offset), col(text, n.end_col_offset)
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
                        f"[2.0, 3.0] (not {short(text)})", field_name)
    if isinstance(node, ast.Tuple) and not _parenthesised(text):
        text = f"({text})"
        edits = [(s + 1, e + 1, t) for s, e, t in edits]
    if not allow_none and literal_shape(node) is None:
        raise EditError(f"`{field_name}`: the rows have different lengths", field_name)
    suggestion = text
    for start, end, new in sorted(edits, reverse=True):
        suggestion = suggestion[:start] + new + suggestion[end:]
    return Literal(text, node, has_float, suggestion)


def col(text: str, col_bytes: int) -> int:
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


def literal_shape(node):
    """The shape nested lists describe, or None when they are ragged (torch refuses those)."""
    if isinstance(node, (ast.List, ast.Tuple)):
        inner = [literal_shape(e) for e in node.elts]
        if any(s is None for s in inner) or len(set(inner)) > 1:
            return None
        return (len(node.elts), *(inner[0] if inner else ()))
    return ()


def require_float(lit: Literal, dtype: str | None, field_name: str) -> None:
    """torch refuses requires_grad on integer and bool tensors: say so before the run does."""
    if dtype in NON_FLOAT_DTYPES:
        raise EditError(f"only floating point tensors can require gradients (not {dtype})",
                        "dtype")
    if dtype in FLOAT_DTYPES or lit.has_float or lit.suggestion == lit.text:
        return  # no ints or bools at all: [] is float32 in torch
    hint = lit.suggestion if len(lit.suggestion) <= 60 else "the numbers as floats, e.g. 2.0"
    raise EditError(f"only floating point tensors can require gradients; write {hint}",
                    field_name)


def call_args(text: str, method: str) -> str:
    """Check call-argument text (`1.0`, `min=0.0, max=1.0`) for an in-place method."""
    text = text.strip()
    fewest, most, keywords, _example = INPLACE_METHODS[method]
    if text:
        if len(text) > MAX_LITERAL or "#" in text or NEWLINE.search(text) or "\\" in text:
            raise EditError("write the arguments on one line, without comments", "args")
        try:
            call = parse_text(f"f({text})", "eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            raise EditError(f"the arguments {short(text)} are not valid", "args") from None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and call.func.id == "f" and call.func.col_offset == 0):
            raise EditError(f"the arguments {short(text)} are not valid", "args")
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
            literal(src[col(src, v.col_offset):col(src, v.end_col_offset)], "args",
                     allow_none=True)
        n_pos, n_kw = len(call.args), len(call.keywords)
    else:
        n_pos = n_kw = 0
    if not fewest <= n_pos <= most or (method == "clamp_" and n_pos + n_kw == 0):
        need = {0: "no arguments", 1: "one value, e.g. 1.0"}.get(most, "min and/or max")
        raise EditError(f"{method} takes {need}", "args")
    return text

