"""A misspelt name is Python's NameError with Python's own "Did you mean" suggestion.

The oracle is the running interpreter: the same program executed by CPython, its traceback's
last line printed by the default excepthook (which computes the suggestion).
"""

from __future__ import annotations

import contextlib
import io
import re
import sys

import pytest

from playground.program import run

CASES = [
    (["weight", "bias"], "wieght"),
    (["weight"], "Weight"),
    (["x", "y"], "z"),
    (["loss", "lr"], "los"),
    (["optimizer"], "optimiser"),
    (["a", "b", "ab"], "ac"),
    (["x1", "x2"], "x3"),
    (["W1", "xx", "w1", "x_1"], "x_"),
    (["grad"], "gard"),
    (["hidden"], "pritn"),
]


def python_suggests(bound: list[str], wrong: str) -> str | None:
    namespace = {name: 1 for name in bound}
    try:
        exec(f"{wrong}\n", namespace)  # noqa: S102 (the oracle: CPython itself on a fixed name)
    except NameError as e:
        out = io.StringIO()
        with contextlib.redirect_stderr(out):
            sys.__excepthook__(type(e), e, e.__traceback__)
        found = re.search(r"Did you mean: '([^']+)'\?", out.getvalue())
        return found.group(1) if found else None
    raise AssertionError("no NameError")


@pytest.mark.parametrize(("bound", "wrong"), CASES)
def test_a_misspelt_name_is_a_name_error_with_pythons_suggestion(bound, wrong):
    program = "".join(f"{name} = 1\n" for name in bound) + f"y2 = {wrong}\n"
    err = run(program).error
    assert err.exc_type == "NameError"
    expected = python_suggests(bound + ["y2"], wrong)
    hint = f". Did you mean: {expected!r}?" if expected else ""
    assert err.message == f"name {wrong!r} is not defined{hint}"
