"""Stable ids: each statement of a program gets a key (a hash of its normalised text) and a
base for the ids of what it makes, carried over from the previous timeline so that an edit keeps
the ids of everything it did not change (docs/timeline.md, "ids")."""

from __future__ import annotations

import ast
import re
import zlib

from .bindings import assigned_names
from .recorder import FORMAT_VERSION

__all__ = ["assign_bases", "numbered_statements"]

# == statements and stable ids ====================================================================

_BASE_RE = re.compile(r"^[0-9a-f]{6}(\.[0-9]+)?(~[0-9]+)?$")


def _hash6(text: str) -> str:
    return format(zlib.crc32(text.encode("utf-8")) & 0xFFFFFF, "06x")


def _normalised(stmt) -> str:
    """The statement's text without layout or comments (compound statements: the header)."""
    if isinstance(stmt, ast.For):
        return f"for {ast.unparse(stmt.target)} in {ast.unparse(stmt.iter)}:"
    if isinstance(stmt, ast.With):
        return "with " + ", ".join(ast.unparse(i) for i in stmt.items) + ":"
    return ast.unparse(stmt)


class _Statement:
    __slots__ = ("index", "key", "base", "line", "col", "end_line", "kind", "text", "targets",
                 "names")

    def to_dict(self) -> dict:
        return {"index": self.index, "key": self.key, "base": self.base, "line": self.line,
                "col": self.col, "end_line": self.end_line, "kind": self.kind,
                "text": self.text, "targets": list(self.targets)}


def numbered_statements(stmts: list) -> list:
    """Every statement in reading order (the parser's numbering, the interpreter's stmt_id), with
    its key: a hash of its normalised text plus its occurrence among statements with that hash."""
    seen: dict = {}
    out = []
    for i, node in enumerate(stmts):
        s = _Statement()
        s.index = i
        h = _hash6(_normalised(node))
        occ = seen.get(h, 0)
        seen[h] = occ + 1
        s.key = h if occ == 0 else f"{h}.{occ}"
        s.base = None
        s.line = node.lineno
        s.col = node.col_offset + 1
        s.end_line = node.end_lineno
        s.kind = type(node).__name__.lower()
        s.text = _normalised(node)
        s.targets = assigned_names(node, loops=True, written=True)
        if isinstance(node, (ast.For, ast.With)):
            header = node.iter if isinstance(node, ast.For) else node.items
            walk = [sub for h_ in (header if isinstance(header, list) else [header])
                    for sub in ast.walk(h_)]
        else:
            walk = ast.walk(node)
        s.names = {sub.id for sub in walk if isinstance(sub, ast.Name)}
        out.append(s)
    return out


def _previous_statements(previous) -> list:
    if not isinstance(previous, dict) or previous.get("version") != FORMAT_VERSION:
        return []
    prev = previous.get("statements")
    if not isinstance(prev, list):
        return []
    out = []
    for p in prev:
        if (isinstance(p, dict) and isinstance(p.get("key"), str)
                and isinstance(p.get("base"), str) and _BASE_RE.match(p["base"])
                and isinstance(p.get("targets"), list)):
            out.append(p)
    return out


def assign_bases(stmts: list, previous) -> None:
    """Each statement's id base: the previous timeline's base for the same key; else, for an
    edited statement binding the same names as a statement that disappeared, that statement's
    base (a changed value keeps its nodes); else its own key."""
    prev = _previous_statements(previous)
    by_key = {}
    for p in prev:
        by_key.setdefault(p["key"], p)
    new_keys = {s.key for s in stmts}
    used: set = set()
    for s in stmts:
        p = by_key.get(s.key)
        if p is not None and p["base"] not in used:
            s.base = p["base"]
            used.add(s.base)
    vanished = [p for p in prev if p["key"] not in new_keys]
    for s in stmts:
        if s.base is None and s.targets:
            for p in vanished:
                if p["targets"] == s.targets and p["base"] not in used:
                    s.base = p["base"]
                    used.add(s.base)
                    break
    for s in stmts:
        if s.base is None:
            base, n = s.key, 1
            while base in used:
                base, n = f"{s.key}~{n}", n + 1
            s.base = base
            used.add(base)

