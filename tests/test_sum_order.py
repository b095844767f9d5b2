"""Float sums in torch's order, bit for bit (engine/backend/sum_order.py), on the active backend.

torch 2.13 adds a float sum in its own vectorised cascade order; a different order (numpy's
pairwise one, or one by one) changes the last bits, which a training loop prints. Cases live in
scripts/record_sum_order.py: full sums of lengths around every boundary of torch's kernel, sums
over dims, of transposed, strided and expanded views, sums torch shares between its threads,
means, losses and the gradients broadcasting sums back. The engine is compared with the
recorded values always, and the recording with live torch when torch 2.13 imports (which
catches a stale fixture); with torch, random layouts are compared live as well.
"""

from __future__ import annotations

import importlib.util
import json
import random
import struct
from pathlib import Path

import pytest

import engine
from engine import backend as B
from engine.backend import sum_order

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = json.loads((ROOT / "tests" / "fixtures" / "sum_order.json").read_text())

_spec = importlib.util.spec_from_file_location("record_sum_order",
                                               ROOT / "scripts" / "record_sum_order.py")
RECORDER = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(RECORDER)
CASES = RECORDER.cases()

try:
    import torch as real_torch

    if not real_torch.__version__.startswith("2.13."):
        real_torch = None
except ImportError:
    real_torch = None


@pytest.fixture
def torch_threads():
    """Live torch with the thread count the engine models (torch's default is the number of
    cores, and sums of more than 65,536 elements depend on it)."""
    before = real_torch.get_num_threads()
    real_torch.set_num_threads(sum_order.THREADS)
    yield
    real_torch.set_num_threads(before)


def _check(name, got) -> None:
    expected = FIXTURE["cases"][name]
    assert len(got) == len(expected), name
    for i, (e, g) in enumerate(zip(expected, got)):
        assert (g["dtype"], g["shape"]) == (e["dtype"], e["shape"]), (name, i)
        if "values" in e:
            assert g["values"] == e["values"], (name, i, [
                (k, float.fromhex(a), float.fromhex(b))
                for k, (a, b) in enumerate(zip(g["values"], e["values"])) if a != b][:5])
        elif g["sha256"] != e["sha256"]:
            assert g["sample"] == e["sample"], (name, i)
            pytest.fail(f"{name}[{i}]: same sampled values, different values elsewhere")


def test_fixture_covers_every_case():
    assert sorted(CASES) == sorted(FIXTURE["cases"])
    assert FIXTURE["threads"] == sum_order.THREADS


@pytest.mark.parametrize("name", sorted(CASES))
def test_sums_match_torch_bit_for_bit(name):
    _check(name, [RECORDER.summarize(t) for t in CASES[name](engine)])


@pytest.mark.skipif(real_torch is None, reason="torch 2.13 is not installed")
@pytest.mark.parametrize("name", sorted(CASES))
def test_fixture_matches_live_torch(name, torch_threads):
    _check(name, [RECORDER.summarize(t) for t in CASES[name](real_torch)])


def _f32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


def test_the_cases_tell_orders_apart():
    """The fixture can fail an engine that adds in another order: most float32 sums of 10 or
    more values differ from the same values added one by one."""
    differ = total = 0
    for name, case in CASES.items():
        if not name.startswith("full-float32-") or int(name.rsplit("-", 1)[1]) < 10:
            continue
        n = int(name.rsplit("-", 1)[1])
        if n > 5000:
            continue
        x = case(engine)[0]  # the sum
        values = RECORDER._draw(engine, (n,), "float32", 1000 + n,
                                RECORDER.SIZES.index(n) % 3 == 2).tolist()
        acc = 0.0
        for v in values:
            acc = _f32(acc + v)
        total += 1
        differ += acc != x.item()
    assert total > 40 and differ > total // 3, (differ, total)


def test_plan_follows_torch_iterator_layout():
    """A few layouts worked out by hand from torch's TensorIterator and cascade_sum."""
    # all of a contiguous tensor: one run in memory order, torch's vectorised method
    p = sum_order.plan((6, 7), (7, 1), 1, None, False, 8)
    assert (p.size0, p.size1, p.columns, p.fold) == (42, 1, ((0, 1, "vec"),), False)
    # sum(0) of a matrix: each column summed down the rows; 4 vectors of columns at a time get
    # a plain cascade, the rest torch's row_sum
    p = sum_order.plan((50, 70), (70, 1), 1, (0,), False, 8)
    assert (p.size0, p.size1, p.columns) == (50, 70, ((0, 64, "casc"), (64, 70, "ilp")))
    # sum(1) of a transposed matrix is the same loop as sum(0) of the original
    q = sum_order.plan((70, 50), (1, 70), 1, (1,), False, 8)
    assert (q.perm, q.size0, q.size1, q.columns) == ((0, 1), 50, 70, p.columns)
    # two reduced dims that cannot merge: the runs of dim 2, added one by one over dim 0
    p = sum_order.plan((4, 5, 6), (30, 6, 1), 1, (0, 2), False, 8)
    assert (p.size0, p.size1, p.fold, p.kept) == (6, 4, True, (5,))
    # a transposed tensor's full sum follows its memory, not its shape
    p = sum_order.plan((5, 3), (1, 5), 1, None, False, 8)
    assert (p.sizes, p.perm) == ((15,), (1, 0))
    # above 32,768 elements a sum to one element is cut into one piece per thread
    p = sum_order.plan((70000,), (1,), 1, None, False, 8)
    assert [calls[0][:3] for calls in p.pieces] == [(0, 35000, 1), (35000, 35000, 1)]


def test_a_size_one_reduction_adds_nothing_but_zero():
    x = engine.tensor([[-0.0, 2.5]])
    assert x.sum(0).tolist() == [0.0, 2.5]  # 0.0 + -0.0: torch's output starts at 0.0
    assert str(x.sum(0)) == "tensor([0.0000, 2.5000])"


@pytest.mark.skipif(real_torch is None, reason="torch 2.13 is not installed")
def test_random_layouts_match_live_torch(torch_threads):
    """Random shapes, dims, views (transposes, steps, offsets, expands) and dtypes."""
    rng = random.Random(5)
    tried = 0
    for trial in range(150 if B.NAME == "numpy" else 60):
        dtype = "float32" if trial % 3 else "float64"
        nd = rng.randint(1, 4)
        shape = [rng.randint(1, 9 if nd > 2 else 60) for _ in range(nd)]
        seed = 100 + trial
        pair = []
        for t in (engine, real_torch):
            x = RECORDER._draw(t, tuple(shape), dtype, seed)
            kind = trial % 4
            if kind == 1 and nd > 1:
                x = x.transpose(0, nd - 1)
            elif kind == 2:
                x = x[tuple(slice(trial % 2, None, 1 + (trial + d) % 2) for d in range(nd))]
            elif kind == 3:
                x = x.narrow(nd - 1, 0, 1).expand(*x.shape[:-1], 1 + trial % 11)
            pair.append(x)
        nd_now = pair[0].dim()
        dims = sorted({rng.randrange(nd_now) for _ in range(rng.randint(1, nd_now))})
        if trial % 5 == 0:
            outs = [x.sum() for x in pair]
        else:
            keep = trial % 2 == 0
            outs = [x.sum(dims, keepdim=keep) for x in pair]
        got, want = (RECORDER.summarize(o) for o in outs)
        assert got == want, (trial, tuple(pair[1].shape), pair[1].stride(), dims)
        tried += 1
    assert tried >= 60
