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

The package: `contract` (the intents, EditError, EditResult), `source` (the program's positions
and the splices of its text), `values` (checking names and literals), `intents` and `delete`
(one function per intent).
"""

from __future__ import annotations

from .contract import EDIT_VERSION, INPLACE_METHODS, INTENTS, EditError, EditResult, check_intent
from .delete import delete_variable, dependents_of
from .intents import (
    add_leaf,
    add_op,
    append_line,
    backward,
    detach,
    inplace_code,
    no_grad,
    rename,
    retain_grad,
    set_requires_grad,
    set_value,
)
from .source import Program
from .values import target_name

__all__ = ["EDIT_VERSION", "INPLACE_METHODS", "INTENTS", "EditError", "EditResult", "apply_edit",
           "bound_names", "dependents"]

_HANDLERS = {
    "add_leaf": add_leaf,
    "add_op": add_op,
    "set_value": set_value,
    "set_requires_grad": set_requires_grad,
    "rename": rename,
    "delete": delete_variable,
    "backward": backward,
    "retain_grad": retain_grad,
    "detach": detach,
    "zero_grad": append_line(lambda t, f: f"{t}.grad.zero_()"),
    "grad_none": append_line(lambda t, f: f"{t}.grad = None"),
    "no_grad": no_grad,
    "inplace": append_line(inplace_code),
}


# == the API ======================================================================================

def apply_edit(program_text: str, intent: dict) -> EditResult:
    """Apply one edit intent (docs/edits.md) to a program; raise EditError if it cannot be."""
    op, fields = check_intent(intent)
    prog = Program(program_text)
    return _HANDLERS[op](prog, fields)


def dependents(program_text: str, name: str) -> list:
    """The statements that (transitively) use variable `name` and would go with it in a cascading
    delete: [(the name a statement binds or None, line, statement text), ...] in reading order."""
    prog = Program(program_text)
    if not isinstance(name, str):
        raise EditError("the name must be text", "target")
    return dependents_of(prog, target_name(prog, name))[0]


def bound_names(program_text: str) -> list:
    """The variables a program binds (assignments and loops; not imports), in order of first
    binding."""
    return list(Program(program_text).variables)
