"""Compare the engine against PyTorch fixtures recorded by scripts/record_oracle.py.

For every scenario in tests/oracle/fixtures.json:
* when real PyTorch is importable, the scenario is re-run live in torch and must
  still equal the fixture (catches stale fixtures);
* the scenario is run with ``import engine`` as the torch module and must equal
  the fixture record by record.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest
from live_torch import real_torch as _real_torch

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.oracle.recorder import run_scenario  # noqa: E402
from tests.oracle.scenarios import SCENARIOS  # noqa: E402

FIXTURES_PATH = ROOT / "tests" / "oracle" / "fixtures.json"
FIXTURES = json.loads(FIXTURES_PATH.read_text())
NAMES = sorted(FIXTURES["scenarios"])

# (rtol, atol) per dtype; integer and bool dtypes compare exactly.
FLOAT_TOLERANCES = {
    "torch.float32": (1e-5, 1e-6),
    "float32": (1e-5, 1e-6),
    "torch.float64": (1e-9, 1e-12),
    "float64": (1e-9, 1e-12),
}
DEFAULT_FLOAT_TOL = (1e-5, 1e-6)  # plain Python floats (e.g. from .item())


def _close(expected, got, tol) -> bool:
    if isinstance(expected, bool) or isinstance(got, bool):
        return expected is got
    if tol is None or (isinstance(expected, int) and isinstance(got, int)):
        return type(expected) is type(got) and expected == got
    if not isinstance(expected, (int, float)) or not isinstance(got, (int, float)):
        return False
    if isinstance(expected, float) != isinstance(got, float):
        return False
    e, g = float(expected), float(got)
    if math.isnan(e) or math.isnan(g):
        return math.isnan(e) and math.isnan(g)
    if math.isinf(e) or math.isinf(g):
        return e == g
    rtol, atol = tol
    return abs(e - g) <= atol + rtol * abs(e)


def _values_match(expected, got, tol) -> bool:
    if isinstance(expected, list) or isinstance(got, list):
        if not (isinstance(expected, list) and isinstance(got, list)):
            return False
        if len(expected) != len(got):
            return False
        return all(_values_match(e, g, tol) for e, g in zip(expected, got))
    return _close(expected, got, tol)


def _fail(where, label, field, expected, got):
    raise AssertionError(
        f"{where}: record {label!r}: {field} differs\n"
        f"  expected: {expected!r}\n"
        f"  got:      {got!r}"
    )


def _compare_value(where, label, expected, got, path=""):
    """Compare two normalised values (recorder.normalise output)."""
    field = f"value{path}"
    if expected.get("kind") != got.get("kind"):
        _fail(where, label, f"{field}.kind", expected, got)
    kind = expected["kind"]
    if kind == "tensor":
        for key in ("dtype", "shape", "requires_grad", "is_leaf", "grad_fn"):
            if expected[key] != got.get(key):
                _fail(where, label, f"{field}.{key}", expected[key], got.get(key))
        tol = FLOAT_TOLERANCES.get(expected["dtype"])
        if not _values_match(expected["values"], got.get("values"), tol):
            _fail(where, label, f"{field}.values", expected["values"], got.get("values"))
        if expected["repr"] != got.get("repr"):
            _fail(where, label, f"{field}.repr", expected["repr"], got.get("repr"))
    elif kind == "ndarray":
        for key in ("dtype", "shape"):
            if expected[key] != got.get(key):
                _fail(where, label, f"{field}.{key}", expected[key], got.get(key))
        tol = FLOAT_TOLERANCES.get(expected["dtype"])
        if not _values_match(expected["value"], got.get("value"), tol):
            _fail(where, label, f"{field}.value", expected["value"], got.get("value"))
    elif kind == "float":
        if not _close(expected["value"], got.get("value"), DEFAULT_FLOAT_TOL):
            _fail(where, label, field, expected["value"], got.get("value"))
    elif kind in ("tuple", "list"):
        e_items, g_items = expected["items"], got.get("items")
        if len(e_items) != len(g_items):
            _fail(where, label, f"{field} length", len(e_items), len(g_items))
        for i, (e, g) in enumerate(zip(e_items, g_items)):
            _compare_value(where, label, e, g, f"{path}[{i}]")
    elif kind == "dict":
        e_items, g_items = expected["items"], got.get("items")
        if sorted(e_items) != sorted(g_items):
            _fail(where, label, f"{field} keys", sorted(e_items), sorted(g_items))
        for k in e_items:
            _compare_value(where, label, e_items[k], g_items[k], f"{path}[{k!r}]")
    else:  # none, bool, int, str, dtype, size: exact
        if expected != got:
            _fail(where, label, field, expected, got)


def assert_run_matches(expected: dict, got: dict, where: str) -> None:
    """Assert that a scenario run ``got`` equals the fixture ``expected``.

    ``where`` names the scenario and the framework under test for the message.
    """
    if expected["error"] != got["error"]:
        raise AssertionError(
            f"{where}: scenario-level error differs\n"
            f"  expected: {expected['error']!r}\n  got:      {got['error']!r}\n"
            f"  (records before the error: {len(got['records'])})"
        )
    e_records, g_records = expected["records"], got["records"]
    for i, (e, g) in enumerate(zip(e_records, g_records)):
        label = e["label"]
        if e["label"] != g["label"]:
            _fail(where, f"#{i}", "label", e["label"], g["label"])
        if e["kind"] != g["kind"]:
            _fail(where, label, "kind", e, g)
        kind = e["kind"]
        if kind == "printed":
            if e["text"] != g["text"]:
                _fail(where, label, "printed text", e["text"], g["text"])
        elif kind == "raises":
            if (e["type"], e["first_line"]) != (g["type"], g["first_line"]):
                _fail(where, label, "exception (type, first_line)",
                      (e["type"], e["first_line"]), (g["type"], g["first_line"]))
        elif kind == "graph":
            if e["graph"] != g["graph"]:
                _fail(where, label, "autograd graph", e["graph"], g["graph"])
        else:
            e_val = {k: v for k, v in e.items() if k != "label"}
            g_val = {k: v for k, v in g.items() if k != "label"}
            _compare_value(where, label, e_val, g_val)
    if len(e_records) != len(g_records):
        raise AssertionError(
            f"{where}: number of records differs: expected {len(e_records)}, got {len(g_records)}\n"
            f"  expected labels: {[r['label'] for r in e_records]}\n"
            f"  got labels:      {[r['label'] for r in g_records]}"
        )
    if expected["warnings"] != got["warnings"]:
        raise AssertionError(
            f"{where}: warnings differ\n"
            f"  expected: {expected['warnings']!r}\n  got:      {got['warnings']!r}"
        )


@pytest.mark.live_torch
@pytest.mark.parametrize("name", NAMES)
def test_scenario_matches_oracle(name):
    expected = FIXTURES["scenarios"][name]
    fn = SCENARIOS[name]
    if _real_torch is not None:
        live = run_scenario(fn, _real_torch)
        assert_run_matches(expected, live, f"{name} [live torch {_real_torch.__version__} vs fixture]")
    import engine

    got = run_scenario(fn, engine)
    assert_run_matches(expected, got, f"{name} [engine vs fixture]")
