"""torch's random numbers, bit for bit (engine/rng): the same seed gives the same float32,
float64 and int64 values as torch 2.13 on the CPU, on the active backend.

Cases live in scripts/record_rng.py; tests/fixtures/rng.json holds a hash and a few values of
every tensor torch returned. The engine is compared with the fixture always, and the fixture
with live torch when torch imports (which catches a stale fixture).
"""

from __future__ import annotations

import importlib.util
import json
import math
import warnings
from pathlib import Path

import pytest

import engine

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = json.loads((ROOT / "tests" / "fixtures" / "rng.json").read_text())

_spec = importlib.util.spec_from_file_location("record_rng", ROOT / "scripts" / "record_rng.py")
RECORDER = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(RECORDER)
CASES = RECORDER.cases()

try:
    import torch as real_torch

    if not real_torch.__version__.startswith("2.13."):
        real_torch = None
except ImportError:
    real_torch = None


def _check(name, got) -> None:
    expected = FIXTURE["cases"][name]
    assert len(got) == len(expected), name
    for i, (e, g) in enumerate(zip(expected, got)):
        assert (g["dtype"], g["shape"]) == (e["dtype"], e["shape"]), (name, i)
        if g["sha256"] != e["sha256"]:
            assert g["sample"] == e["sample"], (name, i)
            pytest.fail(f"{name}[{i}]: same sampled values, different values elsewhere")


def test_fixture_covers_every_case():
    assert sorted(CASES) == sorted(FIXTURE["cases"])


@pytest.mark.parametrize("name", sorted(CASES))
def test_draws_match_torch_bit_for_bit(name):
    _check(name, [RECORDER.summarize(t) for t in CASES[name](engine)])


@pytest.mark.skipif(real_torch is None, reason="torch 2.13 is not installed")
@pytest.mark.parametrize("name", sorted(CASES))
def test_fixture_matches_live_torch(name):
    _check(name, [RECORDER.summarize(t) for t in CASES[name](real_torch)])


def test_approximate_inits_agree_to_float32_rounding():
    """trunc_normal_ and orthogonal_ draw torch's numbers but finish with erfinv / QR computed
    differently (docs/semantics.md): equal to within a few float32 ulps."""
    for name, case in RECORDER.APPROX_CASES.items():
        for got, expected in zip(case(engine), FIXTURE["approximate"][name]):
            flat_g = got.reshape(-1).tolist()
            flat_e = [v for row in expected for v in row]
            assert len(flat_g) == len(flat_e)
            for a, b in zip(flat_g, flat_e):
                assert math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-6), (name, a, b)


def test_a_fresh_state_is_a_fresh_process():
    """engine.fresh_state(): its own default generator and once-only warnings, so what one
    session seeds or has been warned about never reaches the next."""
    with engine.fresh_state(seed=4):
        engine.manual_seed(123)
        engine.rand(3)
        inside = engine.initial_seed()
    assert inside == 123
    with engine.fresh_state(seed=4):
        assert engine.initial_seed() == 4
        first = engine.rand(3).tolist()
    with engine.fresh_state(seed=4):
        assert engine.rand(3).tolist() == first
    a = engine.EngineState()
    b = engine.EngineState()
    # torch seeds a fresh process's generator from 64 random bits; so does EngineState()
    assert a.default_generator.initial_seed() != b.default_generator.initial_seed()


def test_a_session_state_carries_over_between_its_runs():
    state = engine.EngineState(seed=1)
    with engine.use_state(state):
        engine.rand(2)
    with engine.use_state(state):
        second = engine.rand(2).tolist()
    with engine.fresh_state(seed=1):
        engine.rand(2)
        assert engine.rand(2).tolist() == second


def _create_graph_warnings() -> int:
    x = engine.tensor([1.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (x * x).sum().backward(create_graph=True)
    return sum("reference cycle" in str(w.message) for w in caught)


def test_once_only_warnings_are_once_per_state():
    with engine.fresh_state():
        assert _create_graph_warnings() == 1
        assert _create_graph_warnings() == 0
    with engine.fresh_state():
        assert _create_graph_warnings() == 1


def test_default_generator_follows_the_state():
    with engine.fresh_state(seed=9) as state:
        assert engine.default_generator is state.default_generator
        assert engine.default_generator.initial_seed() == 9


def test_generator_object_starts_from_torchs_default_seed():
    assert engine.Generator().initial_seed() == 67280421310721


@pytest.mark.parametrize("src, kind, first_line", [
    ("torch.rand(2, dtype=torch.int64)", NotImplementedError,
     "\"check_uniform_bounds\" not implemented for 'Long'"),
    ("torch.randn(2, dtype=torch.int64)", NotImplementedError,
     "\"normal_kernel_cpu\" not implemented for 'Long'"),
    ("torch.randint(5, 3, (2,))", RuntimeError,
     "random_ expects 'from' to be less than 'to', but got from=5 >= to=3"),
    ("torch.randperm(-1)", RuntimeError, "Trying to create tensor with negative dimension -1: [-1]"),
    ("torch.multinomial(torch.tensor([0.5, 0.5]), 3)", RuntimeError,
     "cannot sample n_sample > prob_dist.size(-1) samples without replacement"),
    ("torch.empty(2).bernoulli_(1.5)", RuntimeError,
     "bernoulli_ expects p to be in [0, 1], but got p=1.5"),
    ("torch.empty(2).normal_(0, -1)", RuntimeError, "normal expects std >= 0.0, but found std -1"),
    ("torch.empty(2).uniform_(1, 0)", RuntimeError,
     "uniform_ expects to return a [from, to) range, but found from=1 > to=0"),
    ("torch.manual_seed(2**64)", ValueError, "Overflow when unpacking long long"),
    ("torch.ones(2, requires_grad=True).uniform_()", RuntimeError,
     "a leaf Variable that requires grad is being used in an in-place operation."),
])
def test_errors_match_torch(src, kind, first_line):
    for mod in [engine] + ([real_torch] if real_torch is not None else []):
        with pytest.raises(kind) as info:
            eval(src, {"torch": mod})  # test code, not user input
        assert str(info.value).splitlines()[0] == first_line, mod


def test_in_place_draws_take_torchs_grad_fn_names():
    names = {}
    for mod in [engine] + ([real_torch] if real_torch is not None else []):
        x = mod.ones(3, requires_grad=True)
        got = []
        half = mod.full((3,), 0.5)
        for name, args in (("uniform_", ()), ("normal_", ()), ("bernoulli_", (0.5,)),
                           ("bernoulli_", (half,)), ("exponential_", ()), ("random_", (0, 5))):
            got.append(type(getattr(x * 2, name)(*args).grad_fn).__name__)
        got.append(type(mod.normal(x, 1.0).grad_fn).__name__)
        got.append(type(mod.bernoulli(x * 0.5).grad_fn).__name__)
        names[mod.__name__] = got
    assert names["engine"] == ["UniformBackward0", "NormalBackward0", "BernoulliBackward2",
                               "BernoulliBackward1", "ExponentialBackward0", "RandomBackward0",
                               "NormalBackward1", "BernoulliBackward0"]
    if real_torch is not None:
        assert names["torch"] == names["engine"]


def test_the_browser_says_when_its_float64_normals_may_differ_in_the_last_bit(monkeypatch):
    """In Pyodide the C library's log/sin/cos round differently from glibc's: a run drawing
    float64 normals there is told so once (a PlaygroundNote); float32 draws and other hosts
    are not."""
    from engine.rng import sampling
    from playground import run

    program = ("import torch\nx = torch.randn(20, dtype=torch.float64)\n"
               "y = torch.randn(3, dtype=torch.float64)\nz = torch.randn(40)\n")
    assert run(program).warnings == []
    monkeypatch.setattr(sampling, "_LAST_BIT_MAY_DIFFER", True)
    notes = run(program).warnings
    assert [(w.category, w.line) for w in notes] == [("PlaygroundNote", 2)]
    assert "differ from PyTorch's in the last digit" in notes[0].message
    assert run("import torch\nz = torch.randn(40)\n").warnings == []


def test_random_without_bounds_draws_over_the_dtypes_whole_range():
    """x.random_() (DataLoader draws its seeds this way): one random64() per int64/float64
    element, one word per float32/bool element, reduced modulo the dtype's range. Values
    recorded from torch 2.13 after manual_seed(0)."""
    torch = engine
    torch.manual_seed(0)
    assert torch.empty((), dtype=torch.int64).random_().item() == 900450186894289455
    g = torch.Generator()
    g.manual_seed(5)
    assert torch.empty((), dtype=torch.int64).random_(generator=g).item() == 4095051218741643470
    assert torch.empty(3).random_().tolist() == [1484222.0, 2214888.0, 5157545.0]
    assert torch.empty(3, dtype=torch.float64).random_().tolist() == [
        654190283943910.0, 1545258038238530.0, 526475570269208.0]
    assert torch.empty(5, dtype=torch.bool).random_().tolist() == [False, False, True, False,
                                                                  False]
    assert torch.empty(300, dtype=torch.int64).random_().sum().item() % 1000 == 769
    assert torch.empty(4).random_(10).tolist() == [1.0, 4.0, 6.0, 3.0]
    assert torch.empty(2, dtype=torch.int64).random_(3, 9).tolist() == [8, 8]


def test_a_shuffled_loader_draws_an_unused_permutation_when_a_pass_ends():
    """torch's RandomSampler, asked past the end of a pass's permutation, draws one more (and
    uses none of it), so with a generator of its own a loader's second pass, and whatever the
    generator draws after the loop, depend on it. Recorded from torch 2.13: three passes over 6
    samples, then three draws from the loader's generator."""
    from engine.utils.data import DataLoader
    want_after = [773, 800, 62]
    cases = {
        (2, False): [[[1, 3], [2, 0], [4, 5]], [[0, 5], [1, 3], [4, 2]], [[5, 0], [4, 1], [2, 3]]],
        (4, False): [[[1, 3, 2, 0], [4, 5]], [[0, 5, 1, 3], [4, 2]], [[5, 0, 4, 1], [2, 3]]],
        (4, True): [[[1, 3, 2, 0]], [[0, 5, 1, 3]], [[5, 0, 4, 1]]],
        (None, False): [[1, 3, 2, 0, 4, 5], [0, 5, 1, 3, 4, 2], [5, 0, 4, 1, 2, 3]],
    }
    for (batch_size, drop_last), want in cases.items():
        g = engine.Generator().manual_seed(3)
        loader = DataLoader(list(range(6)), batch_size=batch_size, shuffle=True,
                            drop_last=drop_last, generator=g)
        passes = [[b.tolist() if isinstance(b, engine.Tensor) else b for b in loader]
                  for _ in range(3)]
        assert passes == want, (batch_size, drop_last)
        assert engine.randint(0, 1000, (3,), generator=g).tolist() == want_after
