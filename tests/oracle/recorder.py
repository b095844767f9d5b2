"""Framework-agnostic recorder for the PyTorch oracle.

Every scenario in :mod:`tests.oracle.scenarios` is a function ``name(torch, rec)``.
``torch`` is either real PyTorch or the ``engine`` package; ``rec`` is a
:class:`Recorder`.  Nothing here imports torch: tensors are recognised by duck
typing so the very same code records real PyTorch (to write the fixtures) and
the engine (to compare against them).
"""

from __future__ import annotations

import re
import warnings

GRAPH_DEPTH_LIMIT = 30

# PyTorch appends build-specific provenance to some C++ messages, e.g.
# "... (Triggered internally at /__w/pytorch/.../TensorBody.h:493.)".
# It depends on the build machine, so it is stripped from every recorded text.
_TRIGGERED_RE = re.compile(r"\s*\(Triggered internally at [^)]*\)\s*$")


def collect_scenarios(namespace: dict, module: str) -> dict:
    """The scenarios a module defines, in definition order: its public functions of
    `(torch, rec)`."""
    import inspect

    return {name: obj for name, obj in list(namespace.items())
            if not name.startswith("_") and inspect.isfunction(obj) and obj.__module__ == module
            and list(inspect.signature(obj).parameters) == ["torch", "rec"]}


def first_line(text) -> str:
    """First line of ``text`` with the build-specific provenance suffix removed."""
    lines = str(text).splitlines()
    line = lines[0] if lines else ""
    return _TRIGGERED_RE.sub("", line)


def _is_tensor(obj) -> bool:
    return hasattr(obj, "grad_fn") and hasattr(obj, "tolist")


def _is_size(obj) -> bool:
    return isinstance(obj, tuple) and type(obj).__name__ == "Size"


def _is_dtype(obj) -> bool:
    return type(obj).__name__ == "dtype" and str(obj).startswith("torch.")


def _is_ndarray(obj) -> bool:
    return type(obj).__name__ == "ndarray" and hasattr(obj, "tolist") and hasattr(obj, "dtype")


def _grad_fn_name(t):
    fn = t.grad_fn
    return None if fn is None else fn.name()


def normalise(obj):
    """Turn ``obj`` into plain JSON-able data (see module docstring)."""
    if obj is None:
        return {"kind": "none"}
    if _is_tensor(obj):
        return {
            "kind": "tensor",
            "repr": repr(obj),
            "shape": list(obj.shape),
            "dtype": str(obj.dtype),
            "values": obj.detach().tolist(),
            "requires_grad": bool(obj.requires_grad),
            "is_leaf": bool(obj.is_leaf),
            "grad_fn": _grad_fn_name(obj),
        }
    if _is_dtype(obj):
        return {"kind": "dtype", "value": str(obj)}
    if _is_size(obj):
        return {"kind": "size", "value": [int(v) for v in obj], "repr": repr(obj)}
    if _is_ndarray(obj):
        return {
            "kind": "ndarray",
            "dtype": str(obj.dtype),
            "shape": list(obj.shape),
            "value": obj.tolist(),
        }
    if isinstance(obj, bool):
        return {"kind": "bool", "value": obj}
    if isinstance(obj, int):
        return {"kind": "int", "value": int(obj)}
    if isinstance(obj, float):
        return {"kind": "float", "value": float(obj)}
    if isinstance(obj, str):
        return {"kind": "str", "value": obj}
    if isinstance(obj, tuple):
        return {"kind": "tuple", "items": [normalise(v) for v in obj]}
    if isinstance(obj, list):
        return {"kind": "list", "items": [normalise(v) for v in obj]}
    if isinstance(obj, dict):
        return {"kind": "dict", "items": {str(k): normalise(v) for k, v in obj.items()}}
    raise TypeError(f"Recorder cannot normalise object of type {type(obj).__name__}")


def graph_of(node, depth=0):
    """Nested dict for the autograd graph below ``node`` (a grad_fn or None)."""
    if node is None:
        return None
    out = {"name": node.name()}
    if depth >= GRAPH_DEPTH_LIMIT:
        out["truncated"] = True
        return out
    nxt = []
    for child, input_nr in node.next_functions:
        if child is None:
            nxt.append(None)
        else:
            sub = graph_of(child, depth + 1)
            sub["input_nr"] = int(input_nr)
            nxt.append(sub)
    out["next"] = nxt
    return out


class Recorder:
    """Collects labelled observations, in call order."""

    def __init__(self):
        self.records = []

    def _add(self, label, kind, **payload):
        if not isinstance(label, str):
            raise TypeError("record labels must be strings")
        entry = {"label": label, "kind": kind}
        entry.update(payload)
        self.records.append(entry)
        return entry

    def value(self, label, obj):
        norm = normalise(obj)
        entry = {"label": label}
        entry.update(norm)
        self.records.append(entry)
        return obj

    def printed(self, label, obj):
        self._add(label, "printed", text=str(obj))
        return obj

    def raises(self, label, fn):
        try:
            fn()
        except Exception as exc:  # noqa: BLE001 - recording is the point
            self._add(label, "raises", type=type(exc).__name__, first_line=first_line(exc))
            return exc
        self._add(label, "raises", type=None, first_line=None)
        return None

    def graph(self, label, tensor):
        self._add(label, "graph", graph=graph_of(tensor.grad_fn))
        return tensor


def run_scenario(fn, torch_module) -> dict:
    """Run one scenario against ``torch_module`` and return its record."""
    rec = Recorder()
    error = None
    grad_was_enabled = torch_module.is_grad_enabled()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            torch_module.manual_seed(0)
            fn(torch_module, rec)
        except Exception as exc:  # noqa: BLE001
            error = {"type": type(exc).__name__, "first_line": first_line(exc)}
        finally:
            torch_module.set_grad_enabled(grad_was_enabled)
    return {
        "records": rec.records,
        "warnings": [
            {"category": w.category.__name__, "first_line": first_line(w.message)} for w in caught
        ],
        "error": error,
    }
