"""layer_norm gives torch's values and gradients bit for bit (engine/nn/layer_norm_kernel.py),
also where the gradient's terms cancel (near-equal inputs), for 1 to 700 normalised elements,
float32 and float64, with and without weight and bias. Cases and recording:
scripts/record_layer_norm.py; the recording is checked against live torch when it imports."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from live_torch import real_torch

import engine
from engine.backend import sum_order

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = json.loads((ROOT / "tests" / "fixtures" / "layer_norm.json").read_text())

_spec = importlib.util.spec_from_file_location("record_layer_norm",
                                               ROOT / "scripts" / "record_layer_norm.py")
RECORDER = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(RECORDER)
CASES = RECORDER.cases()


def test_fixture_covers_every_case():
    assert len(FIXTURE["cases"]) == len(CASES)
    assert FIXTURE["threads"] == sum_order.THREADS


@pytest.mark.parametrize("i", range(len(CASES)),
                         ids=[f"{c['dtype']}-{c['n']}-{c['spread']}-{c['seed']}" for c in CASES])
def test_layer_norm_is_torchs_bit_for_bit(i):
    assert RECORDER.run_case(engine, CASES[i]) == FIXTURE["cases"][i]


@pytest.mark.live_torch
@pytest.mark.skipif(real_torch is None, reason="torch 2.13 is not installed")
def test_fixture_is_live_torchs():
    before = real_torch.get_num_threads()
    real_torch.set_num_threads(sum_order.THREADS)
    try:
        stale = [c["seed"] for i, c in enumerate(CASES)
                 if RECORDER.run_case(real_torch, c) != FIXTURE["cases"][i]]
    finally:
        real_torch.set_num_threads(before)
    assert not stale, f"re-record with scripts/record_layer_norm.py: seeds {stale[:5]}"
