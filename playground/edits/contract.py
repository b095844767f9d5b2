"""The edit-intent contract (docs/edits.md, EDIT_VERSION): which intents exist with which fields,
their result, their error, and the check of an intent's shape before anything reads it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

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


class InplaceMethod(NamedTuple):
    fewest: int  # positional arguments at least
    most: int  # and at most
    keywords: tuple  # the keyword arguments allowed
    example: str  # arguments the UI offers first


# The in-place methods the `inplace` intent writes, in the UI's menu order (the UI's copy of this
# table is generated from it: scripts/write_js_tables.py).
INPLACE_METHODS = {
    "add_": InplaceMethod(1, 1, ("alpha",), "1.0"),
    "mul_": InplaceMethod(1, 1, (), "2.0"),
    "sub_": InplaceMethod(1, 1, ("alpha",), "1.0"),
    "div_": InplaceMethod(1, 1, (), "2.0"),
    "zero_": InplaceMethod(0, 0, (), ""),
    "fill_": InplaceMethod(1, 1, (), "0.0"),
    "clamp_": InplaceMethod(0, 2, ("min", "max"), "min=0.0"),
}

FIELD_TYPES = {"literal": "text or a number", "name": "text", "target": "text", "args": "text",
                "dtype": "text", "method": "text", "op_name": "text", "bool": "true or false",
                "int": "a whole number", "inputs": "a list", "params": "an object"}


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


# == checking intents ============================================================================

def check_intent(intent) -> tuple:
    if not isinstance(intent, dict):
        raise EditError("an edit must be an object with an `op` field")
    op = intent.get("op")
    if not isinstance(op, str) or op not in INTENTS:
        known = ", ".join(INTENTS)
        if op is None:
            raise EditError(f"the edit has no `op`; it is one of: {known}", "op")
        raise EditError(f"unknown edit op {short(op)}; it is one of: {known}", "op")
    spec = INTENTS[op]
    version = intent.get("version", EDIT_VERSION)
    if type(version) is not int or version != EDIT_VERSION:
        raise EditError(f"this host applies edits of version {EDIT_VERSION}, not "
                        f"{short(version)}", "version")
    for key in intent:
        if key not in ("op", "version") and key not in spec["required"] and (
                key not in spec["optional"]):
            fields = ", ".join([*spec["required"], *spec["optional"]]) or "none"
            raise EditError(f"{op} has no field {short(key)} (its fields: {fields})",
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
            raise EditError(f"`{key}` must be {FIELD_TYPES[kind]}, not {short(value)}", key)
        fields[key] = value
    return op, fields


def short(value) -> str:
    try:
        text = repr(value)
    except (RecursionError, ValueError, MemoryError):  # a deeply nested list, a huge int
        text = f"a {type(value).__name__}"
    return text if len(text) <= 40 else text[:37] + "..."

