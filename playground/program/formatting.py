"""String formatting a program may use (f-strings, str.format, the % operator), done here so
that a format field can reach only what the program could reach by writing the same expression:
"{0.__class__}".format(x) reads attributes through the interpreter's policy, and widths and
precisions are capped before Python builds the string."""

from __future__ import annotations

import re
import string

from ..limits import LimitExceeded

_SPEC_NUMBERS = re.compile(r"\d+")
_PERCENT = re.compile(r"%(?:\([^)]*\))?[-+ #0]*(\*|\d+)?(?:\.(\*|\d+))?[hlL]?([a-zA-Z%])")
_FIELD_PART = re.compile(r"\.([^.\[]*)|\[([^\]]*)\]")


def check_spec(spec: str, cap: int) -> None:
    """A format spec's width and precision stay below the string cap."""
    for m in _SPEC_NUMBERS.finditer(spec):
        if len(m.group()) > 6 or int(m.group()) > cap:
            raise LimitExceeded("max_string_chars", f"this format would make a string too long "
                                f"(the limit is {cap:,} characters)")


def format_value(value, spec: str, conversion: int | str, cap: int) -> str:
    """One f-string or str.format field: conversion (!r !s !a) then format(value, spec)."""
    if conversion in ("r", ord("r")):
        value = repr(value)
    elif conversion in ("s", ord("s")):
        value = str(value)
    elif conversion in ("a", ord("a")):
        value = ascii(value)
    check_spec(spec, cap)
    return format(value, spec)


def str_format(run, template: str, args: tuple, kwargs: dict) -> str:
    """str.format with every field resolved by the interpreter (run.get_attr/get_item)."""
    cap = run.limits.max_string_chars
    out = []
    auto = 0
    total = 0
    for literal, field, spec, conversion in string.Formatter().parse(template):
        out.append(literal)
        total += len(literal)
        if field is None:
            continue
        head = re.match(r"[^.\[]*", field).group()
        rest = field[len(head):]
        if head == "":
            value = args[auto] if auto < len(args) else _missing_index(auto)
            auto += 1
        elif head.isdigit():
            i = int(head)
            value = args[i] if i < len(args) else _missing_index(i)
        else:
            if head not in kwargs:
                raise KeyError(head)
            value = kwargs[head]
        pos = 0
        for m in _FIELD_PART.finditer(rest):
            if m.start() != pos:
                raise ValueError("Only '.' or '[' may follow ']' in format field specifier")
            pos = m.end()
            attr, key = m.group(1), m.group(2)
            if attr is not None:
                value = run.get_attr(value, attr, run.node)
            else:
                value = run.get_item(value, int(key) if key.isdigit() else key, run.node)
        if spec and "{" in spec:  # nested fields in the spec: "{:{width}}"
            spec = str_format(run, spec, args, kwargs)
        run.check_text(value)
        text = format_value(value, spec or "", conversion, cap)
        total += len(text)
        if total > cap:
            raise LimitExceeded("max_string_chars", f"this string would be too long (the limit "
                                f"is {cap:,} characters)")
        out.append(text)
    return "".join(out)


def _missing_index(i: int):
    raise IndexError(f"Replacement index {i} out of range for positional args tuple")


def percent_format(template: str, values, cap: int) -> str:
    """template % values with widths and precisions capped (no `*` widths)."""
    for m in _PERCENT.finditer(template):
        for part in (m.group(1), m.group(2)):
            if part == "*":
                raise LimitExceeded("max_string_chars", "`*` widths are not supported in the "
                                    "playground")
            if part is not None and (len(part) > 6 or int(part) > cap):
                raise LimitExceeded("max_string_chars", f"this format would make a string too "
                                    f"long (the limit is {cap:,} characters)")
    return template % values
