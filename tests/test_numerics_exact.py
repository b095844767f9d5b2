"""Bit for bit: the values of the scenarios in tests/oracle/scenarios_numerics.py (linspace,
x ** p for the exponents torch computes without pow) must equal torch's recorded values
exactly. The oracle test compares values within a tolerance; these scenarios exist to pin the
last bits, so here every recorded float must be the same double."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import engine
from tests.oracle import scenarios_numerics
from tests.oracle.recorder import run_scenario

FIXTURES = json.loads((Path(__file__).resolve().parent / "oracle" / "fixtures.json").read_text())


def _same(a, b) -> bool:
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float) and a != a:
        return b != b
    return a == b and type(a) is type(b)


@pytest.mark.parametrize("name", sorted(scenarios_numerics.SCENARIOS))
def test_values_equal_torch_bit_for_bit(name):
    expected = FIXTURES["scenarios"][name]["records"]
    got = run_scenario(scenarios_numerics.SCENARIOS[name], engine)["records"]
    assert len(expected) == len(got)
    for e, g in zip(expected, got):
        key = "values" if "values" in e else "value" if "value" in e else "text"
        if key in e:
            assert _same(e[key], g.get(key)), (e["label"], e[key], g.get(key))
