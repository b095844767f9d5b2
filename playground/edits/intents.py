"""The intents that add or change statements (every intent but delete), and where their new
statements go."""

from __future__ import annotations

import ast
import unicodedata

from .._engine import engine
from .contract import DTYPES, INPLACE_METHODS, EditError, EditResult, short
from .source import Doc, Program, child_blocks, finish, stmt_stores
from .values import (
    FLOAT_DTYPES,
    call_args,
    free_name,
    literal,
    new_name,
    number_text,
    require_float,
    target_name,
)

PALETTE = engine.ops.registry.PALETTE  # filled when the engine registers its ops, on import
# string nodes whose text may span lines (t-strings are Python 3.14's)
_FORMATTED = tuple(t for t in (ast.JoinedStr, getattr(ast, "TemplateStr", None)) if t)


# == where new statements go =====================================================================

def torch_alias(prog: Program, doc: Doc, place: bool = True) -> tuple:
    """The name the program imports torch as; `import torch` is added at the top when there is
    none (before the first statement, after any opening comments)."""
    if "torch" in prog.torch_aliases:
        return "torch", None
    if prog.torch_aliases:
        return prog.torch_aliases[0], None
    if place and prog.tree.body:
        doc.insert_lines_at(prog.tree.body[0].lineno, ["import torch"])
    return "torch", "import torch"


def _last_line_of(prog: Program, top_stmt) -> int:
    """The last line of a top-level statement, and of any statement sharing it after a `;`."""
    end = top_stmt.end_lineno
    for s in prog.tree.body:
        if s.lineno <= end:
            end = max(end, s.end_lineno)
    return end


def _insert_after_in_block(prog: Program, doc: Doc, s, code: str) -> None:
    """Right after statement s, in its own block: a line of its own at its indentation, or
    `; code` on the same line when s shares its line (`a = 1; y = 2`, `for ...: y = 2`)."""
    if prog.starts_line(s) and prog.ends_line(s):
        doc.insert_lines_after(s.end_lineno, [prog.indent(s.lineno) + code])
    else:
        doc.insert(prog.span(s)[1], "; " + code)


def _binding(prog: Program, target: str, line, want, what: str):
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

def add_leaf(prog: Program, f: dict) -> EditResult:
    lit = literal(f["value"], "value")
    dtype = f.get("dtype")
    if dtype is not None and dtype not in DTYPES:
        raise EditError(f"dtype is one of {', '.join(DTYPES)} (not {short(dtype)})", "dtype")
    if f["requires_grad"]:
        require_float(lit, dtype, "value")
    name = new_name(prog, f["name"], "name") if "name" in f else free_name(prog)
    doc = Doc(prog)
    leaves = [s for s in prog.tree.body if prog.is_leaf_statement(s)]
    imports = [s for s in prog.tree.body if isinstance(s, (ast.Import, ast.ImportFrom))]
    anchor = (leaves or imports or [None])[-1]
    torch, added = torch_alias(prog, doc, place=anchor is not None)
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
    return finish(doc, name, "added `import torch`" if added else None)


def _palette_entry(name: str) -> dict:
    for entry in PALETTE:
        if entry.get("name") == name:
            return entry
    known = ", ".join(e.get("name", "?") for e in PALETTE)
    raise EditError(f"there is no op {short(name)} in the palette (ops: {known})", "op_name")


def _param_text(value, key: str) -> str:
    if type(value) is bool:
        return "True" if value else "False"
    if type(value) in (int, float):
        return number_text(value, "params")
    if isinstance(value, str):
        return literal(value, "params", allow_none=True).text
    raise EditError(f"parameter {key} must be a number or literal text, not {short(value)}",
                    "params")


def add_op(prog: Program, f: dict) -> EditResult:
    entry = _palette_entry(f["op_name"])
    code, arity = entry.get("code", ""), entry.get("arity", 0)
    inputs = f["inputs"]
    if len(inputs) != arity:
        raise EditError(f"{entry['name']} takes {arity} input{'s' if arity != 1 else ''}, not "
                        f"{len(inputs)}", "inputs")
    texts, names = [], []
    for i, value in enumerate(inputs):
        if isinstance(value, str):
            texts.append(target_name(prog, value, "inputs"))
            names.append(value)
        elif type(value) in (int, float):
            # a number works as an operand of an operator (2 * y), not as a method's receiver
            if f"{{{i}}}." in code or code.startswith("torch."):
                raise EditError(f"input {i + 1} of {entry['name']} must be a variable",
                                "inputs")
            number = number_text(value, "inputs")
            texts.append(f"({number})" if value < 0 else number)
        else:
            raise EditError(f"inputs are variable names or numbers, not {short(value)}",
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
            raise EditError(f"{entry['name']} has no parameter {short(key)} (parameters: "
                            f"{allowed})", "params")
        params[key] = _param_text(value, key)
    try:
        expr = code.format(*texts, **params)
    except (IndexError, KeyError, ValueError):
        raise EditError(f"the palette entry {entry['name']} cannot be written", "op_name") from None
    name = new_name(prog, f["name"], "name") if "name" in f else free_name(prog)
    last = max((s for n in names for s in prog.stmts if n in stmt_stores(s)),
               key=lambda s: (s.lineno, s.col_offset), default=None)
    doc = Doc(prog)
    line = f"{name} = {expr}"
    if last is None:  # cannot happen: the inputs are bound
        doc.append([line])
    else:
        doc.insert_lines_after(_last_line_of(prog, prog.top[id(last)]), [line])
    return finish(doc, name, None)


def _creating_call(prog: Program, s):
    """(call that holds the data, outer call that takes requires_grad, default requires_grad)
    for a leaf statement; None when s does not make its tensor with a factory."""
    value = s.value
    if prog.factory(value) is not None:
        return value, value, False
    if prog.is_parameter(value):
        inner = value.args[0] if value.args else None
        return (inner if prog.factory(inner) is not None else None), value, True
    return None


def _leaf_binding(prog: Program, target: str, f: dict):
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


def set_value(prog: Program, f: dict) -> EditResult:
    target = target_name(prog, f["target"])
    lit = literal(f["value"], "value")
    s = _leaf_binding(prog, target, f)
    data_call, rg_call, rg_default = _creating_call(prog, s)
    if data_call is None:
        raise EditError(f"{target} wraps a tensor that is not made by a factory", "target")
    rg = _keyword(rg_call, "requires_grad")
    requires = rg_default if rg is None else (
        isinstance(rg.value, ast.Constant) and rg.value.value is True)
    if requires:
        require_float(lit, _call_dtype(data_call), "value")
    doc = Doc(prog)
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
            maker = torch_alias(prog, doc)[0] + ".tensor"
        kept = [prog.source(k) for k in data_call.keywords if k.arg in ("dtype", "requires_grad")]
        start, end = prog.span(data_call)
        doc.replace(start, end, f"{maker}({', '.join([lit.text, *kept])})")
    return finish(doc, target, None)


def _argument_list(call) -> list:
    return sorted([*call.args, *call.keywords], key=lambda n: (n.lineno, n.col_offset))


def set_requires_grad(prog: Program, f: dict) -> EditResult:
    target = target_name(prog, f["target"])
    want = f["value"]
    s = _leaf_binding(prog, target, f)
    data_call, call, default = _creating_call(prog, s)
    if want and data_call is not None:
        kind = prog.factory(data_call)
        dtype = _call_dtype(data_call)
        data = data_call.args[0] if data_call.args else None
        if kind in ("tensor", "as_tensor") and data is not None:
            try:
                lit = literal(prog.source(data), "value")
            except EditError:
                lit = None  # not a literal (a variable, ...): torch will tell at run time
            if lit is not None:
                require_float(lit, dtype, "value")
        elif kind in ("arange", "randint") and dtype not in FLOAT_DTYPES and (
                kind == "randint" or all(isinstance(a, ast.Constant) and type(a.value) is int
                                         for a in data_call.args)):
            raise EditError("only floating point tensors can require gradients; this "
                            f"torch.{kind}(...) makes integers (add dtype=torch.float32)",
                            "value")
    doc = Doc(prog)
    k = _keyword(call, "requires_grad")
    elems = _argument_list(call)
    if want == default:  # the default: drop the keyword rather than spell it out
        if k is None:
            return finish(doc, target, f"{target} already has requires_grad={want}")
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
                return finish(doc, target, f"{target} already has requires_grad={want}")
            doc.replace(start, end, value)
        elif elems:
            doc.insert(prog.span(elems[-1])[1], f", requires_grad={value}")
        else:
            doc.insert(prog.span(call)[1] - 1, f"requires_grad={value}")
    return finish(doc, target, None)


def rename(prog: Program, f: dict) -> EditResult:
    target = target_name(prog, f["target"])
    new = new_name(prog, f["new_name"], "new_name")
    doc = Doc(prog)
    for node in ast.walk(prog.tree):
        if isinstance(node, ast.Name) and node.id == target:
            start, end = prog.span(node)
            if unicodedata.normalize("NFKC", prog.text[start:end]) != target:
                # an ast position that does not point at the name (old f-string positions)
                raise EditError(f"cannot rename {target} on line {node.lineno}: its position "
                                "is unknown", "target")
            doc.replace(start, end, new)
    return finish(doc, new, None)



# -- statements that use a variable ----------------------------------------------------------------

def backward(prog: Program, f: dict) -> EditResult:
    target = target_name(prog, f["target"])
    doc = Doc(prog)
    args = []
    if "gradient" in f:
        lit = literal(f["gradient"], "gradient")
        torch = torch_alias(prog, doc)[0]
        args.append(f"gradient={torch}.tensor({lit.text})")
    if f.get("retain_graph"):
        args.append("retain_graph=True")
    doc.append([f"{target}.backward({', '.join(args)})"])
    return finish(doc, target, None)


def retain_grad(prog: Program, f: dict) -> EditResult:
    target = target_name(prog, f["target"])
    s = _binding(prog, target, f.get("line"), lambda s: True, "bind")
    if s is None:
        raise EditError(f"{target} is only bound by a loop; retain_grad needs an assignment",
                        "target")
    doc = Doc(prog)
    nxt = _next_sibling(prog, s)
    if nxt is not None and _is_call_on(nxt, target, "retain_grad"):
        return finish(doc, target, f"{target}.retain_grad() is already on line {nxt.lineno}")
    _insert_after_in_block(prog, doc, s, f"{target}.retain_grad()")
    return finish(doc, target, None)


def _next_sibling(prog: Program, s):
    parent = prog.parent[id(s)]
    for block in child_blocks(parent) if parent is not None else [prog.tree.body]:
        for i, c in enumerate(block):
            if c is s:
                return block[i + 1] if i + 1 < len(block) else None
    return None


def _is_call_on(s, name: str, method: str) -> bool:
    v = getattr(s, "value", None)
    return (isinstance(s, ast.Expr) and isinstance(v, ast.Call) and not v.args
            and not v.keywords and isinstance(v.func, ast.Attribute) and v.func.attr == method
            and isinstance(v.func.value, ast.Name) and v.func.value.id == name)


def detach(prog: Program, f: dict) -> EditResult:
    target = target_name(prog, f["target"])
    if "name" in f:
        name = new_name(prog, f["name"], "name")
    else:
        taken, n = prog.taken(), 1
        name = f"{target}_d"
        while name in taken:
            n += 1
            name = f"{target}_d{n}"
    last = max((s for s in prog.stmts if target in stmt_stores(s)),
               key=lambda s: (s.lineno, s.col_offset))
    doc = Doc(prog)
    doc.insert_lines_after(_last_line_of(prog, prog.top[id(last)]),
                           [f"{name} = {target}.detach()"])
    return finish(doc, name, None)


def append_line(code_of):
    def handler(prog: Program, f: dict) -> EditResult:
        target = target_name(prog, f["target"])
        doc = Doc(prog)
        doc.append([code_of(target, f)])
        return finish(doc, target, None)
    return handler


def inplace_code(target: str, f: dict) -> str:
    method = f["method"]
    if method not in INPLACE_METHODS:
        raise EditError(f"method is one of {', '.join(INPLACE_METHODS)} (not {short(method)})",
                        "method")
    return f"{target}.{method}({call_args(f.get('args', ''), method)})"


# -- no_grad ----------------------------------------------------------------------------------------

def _indent_unit(prog: Program, stmts) -> str:
    """The program's indentation step: from a block among `stmts` if any, else anywhere; four
    spaces when nothing is indented. Walking each top-level statement once finds what walking
    every nested statement again would (a nested match is inside its top-level statement)."""
    for group in (stmts, prog.tree.body):
        for s in group:
            for sub in ast.walk(s):
                blocks = child_blocks(sub) if isinstance(sub, ast.stmt) else []
                for block in blocks:
                    if block[0].lineno == sub.lineno:
                        continue  # a one-line body says nothing about indentation
                    outer, inner = prog.indent(sub.lineno), prog.indent(block[0].lineno)
                    if inner.startswith(outer) and len(inner) > len(outer):
                        return inner[len(outer):]
    return "    "


def no_grad(prog: Program, f: dict) -> EditResult:
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
    doc = Doc(prog)
    torch = torch_alias(prog, doc)[0]
    unit = _indent_unit(prog, inside)
    doc.insert(prog.starts[first - 1], f"with {torch}.no_grad():{prog.newline}")
    for n in range(first, last + 1):
        if n not in in_strings and prog.line(n).strip(" \t\f"):
            doc.insert(prog.starts[n - 1], unit)
    return finish(doc, None, None)

