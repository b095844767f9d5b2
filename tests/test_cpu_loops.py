"""torch's vectorised blocks, replayed (engine/ops/cpu_loops.py): at a NaN input, hardtanh's,
relu6's, elu's, selu's and hardswish's gradients are torch's in every element, for inputs and
upstream gradients of many shapes, dtypes and memory layouts, including the ones torch shares
between two threads. Cases and recording: scripts/record_cpu_loops.py; compared with the
recording always, and the recording with live torch when torch 2.13 imports."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from live_torch import real_torch

import engine
from engine.backend import sum_order

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = json.loads((ROOT / "tests" / "fixtures" / "cpu_loops.json").read_text())

_spec = importlib.util.spec_from_file_location("record_cpu_loops",
                                               ROOT / "scripts" / "record_cpu_loops.py")
RECORDER = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(RECORDER)
CASES = RECORDER.cases()
IDS = [f"{c['kernel']}-{c['dtype']}-{'x'.join(map(str, c['shape']))}-{c['x']}-{c['grad']}"
       for c in CASES]


def test_fixture_covers_every_case():
    assert len(FIXTURE["cases"]) == len(CASES)
    assert FIXTURE["threads"] == sum_order.THREADS


@pytest.mark.parametrize("i", range(len(CASES)), ids=IDS)
def test_blocks_are_torchs(i):
    assert RECORDER.run_case(engine, CASES[i]) == FIXTURE["cases"][i]


@pytest.mark.live_torch
@pytest.mark.skipif(real_torch is None, reason="torch 2.13 is not installed")
def test_fixture_is_live_torchs():
    before = real_torch.get_num_threads()
    real_torch.set_num_threads(sum_order.THREADS)
    try:
        stale = [IDS[i] for i, c in enumerate(CASES)
                 if RECORDER.run_case(real_torch, c) != FIXTURE["cases"][i]]
    finally:
        real_torch.set_num_threads(before)
    assert not stale, f"re-record with scripts/record_cpu_loops.py: {stale[:5]}"
