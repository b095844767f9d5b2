"""Parsing: program text -> a validated Program whose statements are numbered in reading order.

The numbering is the one contract every later stage shares: a Step's stmt_id and the session's
statement ids are positions in Program.statements, so nothing parses the text a second time."""

from __future__ import annotations

import ast
import warnings
from dataclasses import dataclass

from ..limits import Limits, default_limits
from .records import ProgramError, Source
from .validate import Validator


@dataclass
class Program:
    """A parsed and validated program: its text, its tree and what validation worked out."""

    text: str
    tree: ast.Module
    statements: list  # every ast.stmt in reading order (line, then column)
    stmt_ids: dict  # id(ast.stmt) -> position in statements

    @property
    def statement_count(self) -> int:
        return len(self.statements)


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


def parse(text: str, limits: Limits | None = None) -> Program:
    """Parse and validate a program; raise ProgramError (syntax, not_allowed or limit)."""
    limits = limits or default_limits()
    if not isinstance(text, str):
        raise ProgramError("syntax", "a program must be text")
    if len(text) > limits.max_program_chars:
        raise ProgramError("limit", f"the program is too long: {len(text):,} characters (the "
                           f"limit is {limits.max_program_chars:,})", 1, 1,
                           limit="max_program_chars")
    src = Source(text)
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
    v = Validator(src, limits)
    v.collect_future_imports(tree)
    v.collect_bound(tree)
    v.body(tree.body)
    return Program(text, tree, stmts, {id(n): i for i, n in enumerate(stmts)})
