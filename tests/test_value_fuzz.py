"""Random calls of the public API give torch's values: a differential fuzzer.

Each example (tests/value_fuzz/catalogue.py) is one random but valid call: an op, tensors of
random shapes (0-dim, empty and size-1 dims, broadcasting), dtypes, layouts (transposed, every
other element, expanded) and values (NaN, infinities, -0.0, ties), dims (negative too),
keepdim and the op's options. The engine's outcome must equal torch's: values bit for bit where
the engine claims exactness (a tight tolerance for the last-bit differences docs/semantics.md
lists), dtype, shape, grad_fn name, the gradients of a backward with a random upstream gradient,
and the exception's type and first line when torch raises.

Without torch, the examples and torch's outcomes recorded by scripts/record_value_fuzz.py are
the oracle. With torch 2.13 importable, the recording is also checked against live torch, and
``GRADPLAY_VALUE_FUZZ_EXAMPLES=N`` explores N fresh examples from seed
``GRADPLAY_VALUE_FUZZ_SEED`` (default: a new one each run, printed with any disagreement).
"""

from __future__ import annotations

import json
import os
import random
from collections import defaultdict
from pathlib import Path

import pytest
from live_torch import real_torch

import engine
from tests.value_fuzz.catalogue import ALL, OPS, draw_example
from tests.value_fuzz.outcome import compare, run

FIXTURE = json.loads(
    (Path(__file__).resolve().parent / "fixtures" / "value_fuzz.json").read_text())
CASES = defaultdict(list)
for _case in FIXTURE["cases"]:
    CASES[_case["example"]["op"]].append(_case)


def _disagreements(cases, lib_outcome) -> list:
    lines = []
    for case in cases:
        example = case["example"]
        diffs = compare(example, lib_outcome(example), case["torch"], OPS[example["op"]][1])
        if diffs:
            lines.append(f"seed {example['seed']} {example['call']}: " + "; ".join(diffs[:3]))
    return lines


def test_fixture_holds_the_catalogues_examples():
    """A changed catalogue needs a new recording (scripts/record_value_fuzz.py)."""
    stale = [c["example"]["seed"] for c in FIXTURE["cases"]
             if json.loads(json.dumps(draw_example(c["example"]["seed"],
                                                   c["example"].get("drawn_for"))))
             != c["example"]]
    assert not stale, f"re-record tests/fixtures/value_fuzz.json: seeds {stale[:10]} changed"


def test_every_op_is_recorded():
    assert sorted(CASES) == sorted(OPS)


# Ops with a disagreement this fuzzer found and nobody fixed yet, with the backends it shows on
# (strict: a fixed op must leave the table).
OPEN = {
}


def _open(op: str):
    reason, backends = OPEN[op] if isinstance(OPEN[op], tuple) else (OPEN[op], None)
    return reason if backends is None or engine.backend_name() in backends else None


@pytest.mark.parametrize("op", [pytest.param(op, marks=pytest.mark.xfail(
    reason=_open(op), strict=True)) if op in OPEN and _open(op) else op for op in sorted(OPS)])
def test_engine_gives_torchs_values(op):
    bad = _disagreements(CASES[op], lambda example: run(example, engine))
    assert not bad, "\n".join(bad)


@pytest.mark.live_torch
@pytest.mark.skipif(real_torch is None, reason="needs torch 2.13")
def test_recording_is_live_torchs():
    """The fixture is torch's (a torch upgrade or a catalogue change shows here first)."""
    stale = [c["example"]["seed"] for c in FIXTURE["cases"][:300]
             if compare(c["example"], run(c["example"], real_torch), c["torch"], "exact")]
    assert not stale, f"re-record tests/fixtures/value_fuzz.json: seeds {stale[:10]} differ"


_EXPLORE = int(os.environ.get("GRADPLAY_VALUE_FUZZ_EXAMPLES", "0"))


@pytest.mark.live_torch
@pytest.mark.skipif(real_torch is None or not _EXPLORE,
                    reason="set GRADPLAY_VALUE_FUZZ_EXAMPLES=N (with torch 2.13) to explore")
def test_fresh_examples_give_torchs_values():
    start = int(os.environ.get("GRADPLAY_VALUE_FUZZ_SEED") or random.randrange(10**6, 10**9))
    cases = []
    for seed in range(start, start + _EXPLORE):
        example = draw_example(seed, ALL)
        cases.append({"example": example, "torch": run(example, real_torch)})
    bad = _disagreements(cases, lambda example: run(example, engine))
    assert not bad, (f"{len(bad)} of {_EXPLORE} examples from GRADPLAY_VALUE_FUZZ_SEED={start} "
                     "disagree:\n" + "\n".join(bad))
