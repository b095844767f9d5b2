"""At kinks there is no derivative, only a convention: the engine must pick torch's.

Cases (relu/abs at 0, clamp at its bounds, max/min/amax/amin and maximum/minimum with ties,
sqrt/log/pow/division at 0, saturated and infinite inputs) live in scripts/record_kinks.py;
tests/fixtures/kinks.json holds what torch 2.13 returned. The engine is compared with the
fixture always, and the fixture with live torch when torch imports (catches a stale fixture).
"""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import pytest
from live_torch import real_torch

import engine

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = json.loads((ROOT / "tests" / "fixtures" / "kinks.json").read_text())["cases"]

_spec = importlib.util.spec_from_file_location("record_kinks", ROOT / "scripts" / "record_kinks.py")
RECORDER = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(RECORDER)


def _same(expected, got, path="") -> None:
    if isinstance(expected, dict):
        assert isinstance(got, dict) and sorted(expected) == sorted(got), f"{path}: keys differ"
        for k in expected:
            _same(expected[k], got[k], f"{path}.{k}")
    elif isinstance(expected, list):
        assert isinstance(got, list) and len(expected) == len(got), (
            f"{path}: expected {expected!r}, got {got!r}")
        for i, (e, g) in enumerate(zip(expected, got)):
            _same(e, g, f"{path}[{i}]")
    elif isinstance(expected, float) and isinstance(got, float):
        assert math.isclose(expected, got, rel_tol=1e-12, abs_tol=1e-15), (
            f"{path}: expected {expected!r}, got {got!r}")
    else:  # None, ints, strings ("nan", "inf", error texts): exactly
        assert type(expected) is type(got) and expected == got, (
            f"{path}: expected {expected!r}, got {got!r}")


def test_fixture_covers_every_case():
    assert sorted(FIXTURE) == sorted(RECORDER.CASES)


@pytest.mark.live_torch
@pytest.mark.parametrize("name", sorted(RECORDER.CASES))
def test_subgradient_matches_torch(name):
    expected = FIXTURE[name]
    if real_torch is not None:
        _same(expected, RECORDER.run_case(name, real_torch), f"{name} [live torch vs fixture]")
    _same(expected, RECORDER.run_case(name, engine), f"{name} [engine vs fixture]")


def test_known_conventions_spelled_out():
    """The fixture says what the docs say (a reader's check that it recorded the right thing)."""
    assert FIXTURE["relu_at_zero"]["grads"] == [[0.0, 0.0, 1.0]]
    assert FIXTURE["abs_at_zero"]["grads"] == [[-1.0, 0.0, 1.0]]
    assert FIXTURE["clamp_at_min_and_max"]["grads"] == [[0.0, 1.0, 1.0, 1.0, 0.0]]
    assert FIXTURE["max_full_ties"]["grads"] == [[0.0, 0.5, 0.5, 0.0]]
    assert FIXTURE["maximum_ties"]["grads"] == [[0.5, 1.0, 0.5], [0.5, 0.0, 0.5]]
    assert FIXTURE["sqrt_at_zero"]["grads"] == [["inf", 0.25]]
