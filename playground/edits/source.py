"""The program an edit applies to: its statements with character positions and the names they
bind and read (`Program`), and the splices of its text that make the edit (`Doc`)."""

from __future__ import annotations

import ast
import bisect
import re
import warnings

from ..bindings import assigned_names
from ..program import BUILTIN_NAMES
from .contract import EditError, EditResult

# names a new variable may not take: the namespaces programs import by convention, and the
# builtins the playground offers (shadowing `print` would break every later print)
RESERVED = frozenset(("torch", "nn", "F", "optim", "range", *BUILTIN_NAMES))
FACTORIES = frozenset((
    "tensor", "as_tensor", "zeros", "ones", "full", "empty", "rand", "randn", "randint",
    "arange", "linspace", "eye", "zeros_like", "ones_like", "full_like", "empty_like",
    "rand_like", "randn_like",
))
NEWLINE = re.compile(r"\r\n|\r|\n")  # the line breaks Python's tokenizer knows (no \f, \v)


# == the program: positions and what it binds ====================================================

def parse_text(text: str, mode: str = "exec"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarnings ("\d" in a string) are not ours to show
        return ast.parse(text, "<edit>", mode)


def child_blocks(node) -> list:
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


def header_nodes(node) -> list:
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


def names_in(nodes, ctx) -> set:
    found = set()
    for n in nodes:
        for sub in ast.walk(n):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ctx):
                found.add(sub.id)
    return found


def stmt_loads(s) -> set:
    parts = header_nodes(s) if child_blocks(s) else [s]
    used = names_in(parts, (ast.Load, ast.Del))
    if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name):
        used.add(s.target.id)  # `w += y` reads w as well as writing it
    return used


def stmt_stores(s) -> list:
    """Names a statement binds (a compound statement: its header only), in writing order."""
    parts = header_nodes(s) if child_blocks(s) else [s]
    out = []
    for p in parts:
        for sub in ast.walk(p):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store) and sub.id not in out:
                out.append(sub.id)
    if isinstance(s, (ast.Import, ast.ImportFrom)):
        for a in s.names:
            out.append(a.asname or a.name.split(".")[0])
    return out



class Program:
    """A parsed program with character positions for its nodes and the names it binds."""

    def __init__(self, text):
        if not isinstance(text, str):
            raise EditError("the program must be text")
        self.text = text
        try:
            self.tree = parse_text(text)
        except SyntaxError as e:
            raise EditError(f"fix the syntax error on line {e.lineno or 1} first "
                            f"({e.msg or 'invalid syntax'})") from None
        except (ValueError, RecursionError, MemoryError, OverflowError):
            raise EditError("fix the program first: Python cannot read it") from None
        self.starts = [0] + [m.end() for m in NEWLINE.finditer(text)]
        first = NEWLINE.search(text)
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
            for block in reversed(child_blocks(s)):
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
            for name in assigned_names(s):
                self.assigns.setdefault(name, []).append(s)
            loop = [s.target] if isinstance(s, (ast.For, ast.AsyncFor)) else []
            for name in assigned_names(s) + sorted(names_in(loop, ast.Store)):
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
        return NEWLINE.sub("", self.text[start:end])

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
        """A statement's text for messages: a compound statement's first line, a long one cut.
        Only the first line is read (a loop's whole text can be most of the program)."""
        start = self.offset(s.lineno, s.col_offset)
        if s.end_lineno == s.lineno:
            return self.text[start:self.offset(s.lineno, s.end_col_offset)]
        first = self.text[start:self.line_end(s.lineno)].rstrip()
        return first if child_blocks(s) else first + " ..."

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
        if path and path.startswith("torch.") and path[6:] in FACTORIES:
            return path[6:]
        return None

    def is_parameter(self, node) -> bool:
        return isinstance(node, ast.Call) and self.dotted(node.func) == "torch.nn.Parameter"

    def is_leaf_statement(self, s) -> bool:
        return (isinstance(s, ast.Assign) and self.parent[id(s)] is None
                and (self.factory(s.value) is not None or self.is_parameter(s.value)))

    def taken(self) -> set:
        return self.used | RESERVED


# == the edit itself: splices of the original text ===============================================

class Doc:
    """Splices of the original text, applied at once; knows which new lines they touched."""

    def __init__(self, prog: Program):
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
            for m in NEWLINE.finditer(new):
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
        starts = [0] + [m.end() for m in NEWLINE.finditer(new_text)]
        lines = sorted({bisect.bisect_right(starts, m) for m in marks})
        return new_text, lines



def finish(doc: Doc, name, info) -> EditResult:
    text, lines = doc.result()
    try:
        parse_text(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError) as e:
        # a guard, not a path: every edit is built to parse
        raise EditError(f"this edit would break the program ({getattr(e, 'msg', e)})") from None
    return EditResult(text, lines, name, info)

