"""Registry of public ops: which names become torch-level functions, Tensor methods, and
entries of the playground's op palette (display name, arity, code template, parameters)."""

from __future__ import annotations

FUNCTIONS: dict = {}
METHODS: dict = {}
PALETTE: list = []


def export(name=None, *, method=True, function=True, palette=None):
    """Register a public op function.

    palette: dict for the UI with `code` (a template over input names {0}, {1}, ... and
    parameters {dim} ...), `arity`, `group`, and optional `params` (name -> default).
    """

    def deco(fn):
        n = name or fn.__name__
        if method:
            METHODS[n] = fn
        if function:
            FUNCTIONS[n] = fn
        if palette is not None:
            entry = {"name": n, "params": {}, **palette}
            PALETTE.append(entry)
        return fn

    return deco
