#!/usr/bin/env python
"""Run every gallery program in real PyTorch and write tests/fixtures/gallery.json.

Usage: python scripts/record_gallery.py [--check]

--check  re-record in memory and report which examples drifted, without writing; exits 1 if
         the fixture file is stale.

For each example the fixture holds the program text it was recorded from, what the program
printed, the error it ended in (type, first line of the message, line number) and, after the
run, the value and `.grad` of every named tensor: names bound by the program, the parameters
of a bound module (`model.0.weight`) and the items of a bound list (`params[0]`), the way the
timeline names them. tests/test_gallery.py compares the playground with this (and with live
torch when it imports).

User programs are never executed: the playground interprets them from an allowlist. The
programs run here are the project's own gallery, executed in real PyTorch to record the truth.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import re
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from playground.examples import EXAMPLES  # noqa: E402

FIXTURE = ROOT / "tests" / "fixtures" / "gallery.json"
FILENAME = "<gallery>"

# build-specific provenance PyTorch appends to some C++ messages
_TRIGGERED = re.compile(r"\s*\(Triggered internally at [^)]*\)\s*$")


def plain(values):
    """tolist() output as JSON: non-finite floats become "nan", "inf", "-inf" (as in a
    timeline), so the fixture never needs a NaN literal."""
    if isinstance(values, list):
        return [plain(v) for v in values]
    if isinstance(values, float) and not math.isfinite(values):
        return "nan" if values != values else ("inf" if values > 0 else "-inf")
    return values


def _is_tensor(obj) -> bool:
    return hasattr(obj, "grad_fn") and hasattr(obj, "tolist") and hasattr(obj, "detach")


def _is_module(obj) -> bool:
    return hasattr(obj, "named_parameters") and hasattr(obj, "forward")


def tensor_record(t) -> dict:
    grad = t.grad
    return {
        "shape": list(t.shape),
        "dtype": str(t.dtype).replace("torch.", ""),
        "value": plain(t.detach().tolist()),
        "grad": None if grad is None else plain(grad.detach().tolist()),
    }


def named_tensors(namespace: dict) -> dict:
    """Every tensor the program can name at its end, under the timeline's names."""
    out = {}
    for name, value in namespace.items():
        if name.startswith("__"):
            continue
        if _is_tensor(value):
            out[name] = tensor_record(value)
        elif _is_module(value):
            for pname, p in value.named_parameters():
                out[f"{name}.{pname}"] = tensor_record(p)
        elif isinstance(value, (list, tuple)):
            for i, item in enumerate(value):
                if _is_tensor(item):
                    out[f"{name}[{i}]"] = tensor_record(item)
    return out


def _error_line(tb) -> int | None:
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == FILENAME:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def run_in_torch(program: str) -> dict:
    """Run one gallery program in real PyTorch (its `import torch` imports it) and record
    what it printed, how it ended and its named tensors."""
    namespace: dict = {"__name__": "__gallery__"}
    out = io.StringIO()
    error = None
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # warnings are the timeline's, not part of the output
        try:
            exec(compile(program, FILENAME, "exec"), namespace)  # our own gallery, see above
        except Exception as exc:  # noqa: BLE001 - an example may end in an error on purpose
            lines = str(exc).splitlines()
            error = {"type": type(exc).__name__,
                     "message": _TRIGGERED.sub("", lines[0] if lines else ""),
                     "line": _error_line(exc.__traceback__)}
        # (reading a non-leaf's .grad warns; the warning is not what is recorded)
        tensors = named_tensors(namespace)
    return {"console": out.getvalue(), "error": error, "tensors": tensors}


def record() -> dict:
    import torch

    examples = {}
    for ex in EXAMPLES:
        result = run_in_torch(ex.program)
        examples[ex.id] = {"program": ex.program, **result}
    return {"header": {"torch_version": torch.__version__}, "examples": examples}


def dumps(data) -> str:
    return json.dumps(data, indent=1, sort_keys=True, allow_nan=False) + "\n"


def drift(old: dict, new: dict) -> list[str]:
    """What differs between two recordings, one line per example."""
    lines = []
    old_ex, new_ex = old.get("examples", {}), new["examples"]
    for key in sorted(set(old_ex) | set(new_ex)):
        if key not in old_ex:
            lines.append(f"{key}: not in the fixture")
        elif key not in new_ex:
            lines.append(f"{key}: in the fixture but no longer in the gallery")
        elif old_ex[key] != new_ex[key]:
            parts = [k for k in new_ex[key] if old_ex[key].get(k) != new_ex[key][k]]
            lines.append(f"{key}: {', '.join(parts)} changed")
    if old.get("header") != new["header"]:
        lines.append(f"header: {old.get('header')} -> {new['header']}")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true",
                        help="report drift from the fixture file without writing it")
    args = parser.parse_args(argv)
    data = record()
    unexpected = [f"{ex.id}: {data['examples'][ex.id]['error']}" for ex in EXAMPLES
                  if (data["examples"][ex.id]["error"] or {}).get("type") != ex.expect_error]
    for line in unexpected:
        print(f"unexpected ending in torch: {line}", file=sys.stderr)
    if args.check:
        old = json.loads(FIXTURE.read_text()) if FIXTURE.exists() else {}
        changes = drift(old, data)
        for line in changes:
            print(f"drift: {line}")
        print("gallery fixture is stale" if changes else "gallery fixture is up to date")
        return 1 if changes or unexpected else 0
    FIXTURE.write_text(dumps(data))
    print(f"wrote {len(data['examples'])} examples to {FIXTURE.relative_to(ROOT)} "
          f"(torch {data['header']['torch_version']})")
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
