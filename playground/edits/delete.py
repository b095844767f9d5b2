"""The delete intent: what deleting a variable takes with it (the statements that use it, in
reading order and through loops), and splicing those statements out."""

from __future__ import annotations

import ast

from ..bindings import assigned_names
from .contract import EditError, EditResult
from .source import Doc, Program, child_blocks, finish, stmt_loads, stmt_stores
from .values import target_name

# -- delete ---------------------------------------------------------------------------------------

def _flow(prog: Program, target: str) -> tuple:
    """What deleting target takes with it, following the data in reading order: the statements
    binding target are removed; a statement that reads a removed name is removed, and the names
    it binds count as removed from there on (until a kept statement binds them again). A loop
    body is read again while a reading ends with removed names its start did not have (a use
    can come before the binding in the text, and a chain of them may need several turns); a
    block left with no statements is removed with its header.

    Each statement is read a bounded number of times whatever the nesting: a loop remembers the
    names removed at its start over every reading of the enclosing body, and is read again only
    when that set grows (it can grow at most once per name). So the work is linear in the
    program's size, not exponential in its loop depth.

    Returns (reasons: id(stmt) -> "def" | "uses" | "inside" | "empty", uses: id(stmt) -> names,
    block: id(stmt) -> the statement whose header removed it)."""
    tainted: set = set()
    reasons: dict = {}
    uses: dict = {}
    inside: dict = {}
    loops: dict = {}  # id(loop) -> (names removed at its start so far, names removed after it)

    killed: dict = {}  # id(stmt) -> the names it and the statements inside it bind

    def kill(s, why) -> None:
        tainted.update(killed_names(s, why))

    def killed_names(s, why) -> set:
        # each statement is walked once: a loop re-read kills the same blocks again
        names = killed.get(id(s))
        if names is None:
            names = set(stmt_stores(s))
            for block in child_blocks(s):
                for c in block:
                    reasons.setdefault(id(c), "inside")
                    inside.setdefault(id(c), why)
                    names |= killed_names(c, why)
            killed[id(s)] = names
        return names

    def visit(s) -> None:
        if id(s) in reasons:  # seen on a loop's first reading
            kill(s, s)
            return
        blocks = child_blocks(s)
        used = stmt_loads(s) & tainted
        if blocks:
            if used:
                reasons[id(s)] = "uses"
                uses[id(s)] = sorted(used)
                kill(s, s)
                return
            tainted.difference_update(stmt_stores(s))
            if isinstance(s, (ast.For, ast.AsyncFor, ast.While)):
                read_loop(s, blocks)
            else:
                read(blocks)
            if all(id(c) in reasons for block in blocks for c in block):
                reasons[id(s)] = "empty"
            return
        stores = stmt_stores(s)
        if target in assigned_names(s):
            reasons[id(s)] = "def"
            tainted.update(stores)
        elif used:
            reasons[id(s)] = "uses"
            uses[id(s)] = sorted(used)
            tainted.update(stores)
        else:
            tainted.difference_update(stores)

    def read(blocks) -> None:
        for block in blocks:
            for c in block:
                visit(c)

    def read_loop(s, blocks) -> None:
        bound = set(stmt_stores(s))  # a `for` target is bound afresh on every turn
        seen, after = loops.get(id(s), (set(), set()))
        start = seen | tainted
        if id(s) in loops and start == seen:  # nothing new since the last reading: same outcome
            tainted.clear()
            tainted.update(after)
            return
        while True:
            tainted.clear()
            tainted.update(start)
            read(blocks)
            grown = start | (tainted - bound)
            if grown == start:
                break
            start = grown
        loops[id(s)] = (start, set(tainted))

    for s in prog.tree.body:
        visit(s)
    return reasons, uses, inside


def dependents_of(prog: Program, target: str) -> tuple:
    reasons, uses, inside = _flow(prog, target)
    out, said = [], []
    for s in prog.stmts:
        why = reasons.get(id(s))
        if why not in ("uses", "inside"):
            continue
        stores = assigned_names(s) or stmt_stores(s)
        text = prog.summary(s)
        out.append((stores[0] if stores else None, s.lineno, text))
        if why == "uses":
            said.append(f"{text} (line {s.lineno}) uses {', '.join(uses[id(s)])}")
        else:
            said.append(f"{text} (line {s.lineno}) is inside the block on line "
                        f"{inside[id(s)].lineno}")
    return out, said, reasons


def delete_variable(prog: Program, f: dict) -> EditResult:
    target = target_name(prog, f["target"])
    if target not in prog.assigns:
        raise EditError(f"{target} is a loop variable: delete its loop in the code", "target")
    deps, said, reasons = dependents_of(prog, target)
    if deps and not f.get("cascade", False):
        listed = "; ".join(said[:8]) + ("; ..." if len(said) > 8 else "")
        raise EditError(f"cannot delete {target}: {listed}. Delete with cascade to remove "
                        f"{'it' if len(deps) == 1 else 'them'} too", "target", deps)
    removed = {k for k, why in reasons.items() if why != "uses" or f.get("cascade", False)}
    doc = Doc(prog)
    _remove(prog, doc, removed)
    defs = [s for s in prog.stmts if reasons.get(id(s)) == "def"]
    info = "removed " + ", ".join(f"{prog.summary(s)} (line {s.lineno})" for s in defs)
    if deps:
        info += " and what used it: " + ", ".join(f"{t} (line {ln})" for _n, ln, t in deps)
    return finish(doc, target, info)


def _remove(prog: Program, doc: Doc, removed: set) -> None:
    """Splice out the removed statements: whole lines when they have their lines to themselves,
    else the statement and its `;`; a block of a kept statement left empty becomes `pass`."""
    blocks = [prog.tree.body] + [b for s in prog.stmts if id(s) not in removed
                                 for b in child_blocks(s)]
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

