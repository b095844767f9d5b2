"""What an assignment binds: one answer for every module that reads program text (the session's
stable statement ids, the edits)."""

from __future__ import annotations

import ast

__all__ = ["assigned_names"]


def assigned_names(stmt, *, loops: bool = False, written: bool = False) -> list:
    """The names an assignment's targets bind, in writing order, each once (`a, b = ...` gives
    [a, b]; `w += y` gives [w]).

    loops: count a `for` loop's target too. written: count also the names a target writes into
    without binding them (`x` and `i` in `x[i] = v`, `x` in `x.grad = None`): the variables a
    reader takes the statement to be about."""
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
    elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)) or (
            loops and isinstance(stmt, (ast.For, ast.AsyncFor))):
        targets = [stmt.target]
    else:
        return []
    out = []
    for t in targets:
        for sub in ast.walk(t):
            if isinstance(sub, ast.Name) and (written or isinstance(sub.ctx, ast.Store)) and (
                    sub.id not in out):
                out.append(sub.id)
    return out
