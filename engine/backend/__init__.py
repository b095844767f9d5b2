"""Selects the array backend: numpy when it imports, else pure Python.

Set GRADPLAY_BACKEND=numpy|pure to choose explicitly, or call engine.use_backend(name) before
creating tensors. Engine modules call `B.<function>` on this module, whose functions are the
selected backend's, so switching rebinds one namespace and nothing else changes. What a backend
must define, and what each function means, is listed in contract.py; a backend module is
checked against that list when it is selected.
"""

from __future__ import annotations

import importlib
import os

from . import contract

NAME = None
_EXPORTS: list[str] = []


def _load(name: str):
    if name == "numpy":
        return importlib.import_module(".numpy_backend", __name__)
    if name == "pure":
        return importlib.import_module(".pure_backend", __name__)
    raise ValueError(f"unknown backend {name!r}: expected 'numpy' or 'pure'")


def use(name: str) -> None:
    """Make `name` the backend for everything created from now on."""
    global NAME
    impl = _load(name)
    contract.check(impl)
    g = globals()
    for k in _EXPORTS:
        g.pop(k, None)
    _EXPORTS.clear()
    for k in contract.NAMES:
        g[k] = getattr(impl, k)
        _EXPORTS.append(k)
    NAME = impl.NAME


def _initial() -> str:
    chosen = os.environ.get("GRADPLAY_BACKEND", "").strip().lower()
    if chosen:
        return chosen
    try:
        import numpy  # noqa: F401
    except ImportError:
        return "pure"
    return "numpy"


use(_initial())
