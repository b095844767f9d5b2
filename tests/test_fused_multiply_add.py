"""Rule 41 (docs/semantics.md): a multiply and an add in one op round once, as torch's CPU
kernels do (add/sub/rsub with alpha, lerp, addcmul), so an optimizer step lands on torch's
values bit for bit.

Every case is checked against torch 2.13's values, recorded in
tests/fixtures/fused_multiply_add.json by scripts/record_fused_multiply_add.py, and against live
torch when it imports. Each case also has to tell the two roundings apart: rounding the product
first must give other values (else the case could not fail).
"""

from __future__ import annotations

import json
import math
import struct
from fractions import Fraction
from pathlib import Path

import pytest

import engine

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "fused_multiply_add.json"
N = 256  # whole 16-wide blocks: torch fuses every element of these (see docs/semantics.md)


def _values(T, salt: float, dtype):
    return T.tensor([math.sin(i * 1.7 + salt) * 3 for i in range(N)], dtype=dtype)


def _sgd_steps(T, dtype, **options):
    w = _values(T, 0.5, dtype).requires_grad_()
    opt = T.optim.SGD([w], **options)
    for _ in range(4):
        opt.zero_grad()
        (w * w * 0.37 + w * 0.1).sum().backward()
        opt.step()
    return w.detach()


def _inplace(T, dtype):
    a, b = _values(T, 0.0, dtype), _values(T, 1.0, dtype)
    a.add_(b, alpha=-0.013)
    a.sub_(b, alpha=0.37)
    a.lerp_(b, 0.3)
    return a


CASES = {
    "add_alpha": lambda T, dt: T.add(_values(T, 0.0, dt), _values(T, 1.0, dt), alpha=0.0123),
    "sub_alpha": lambda T, dt: _values(T, 0.0, dt).sub(_values(T, 1.0, dt), alpha=0.37),
    "rsub_alpha": lambda T, dt: T.rsub(_values(T, 0.0, dt), _values(T, 1.0, dt), alpha=0.3),
    "add_number_alpha": lambda T, dt: _values(T, 0.0, dt).add(2.5, alpha=0.3),
    "lerp_near_start": lambda T, dt: T.lerp(_values(T, 0.0, dt), _values(T, 1.0, dt), 0.3),
    "lerp_near_end": lambda T, dt: T.lerp(_values(T, 0.0, dt), _values(T, 1.0, dt), 0.7),
    "lerp_tensor_weight": lambda T, dt: T.lerp(_values(T, 0.0, dt), _values(T, 1.0, dt),
                                               _values(T, 2.0, dt) / 4 + 0.5),
    "addcmul": lambda T, dt: T.addcmul(_values(T, 0.0, dt), _values(T, 1.0, dt),
                                       _values(T, 2.0, dt), value=0.3),
    "in_place": _inplace,
    "sgd": lambda T, dt: _sgd_steps(T, dt, lr=0.013),
    "sgd_momentum_decay": lambda T, dt: _sgd_steps(T, dt, lr=0.013, momentum=0.9,
                                                   weight_decay=0.01, dampening=0.1),
    "sgd_nesterov": lambda T, dt: _sgd_steps(T, dt, lr=0.013, momentum=0.9, nesterov=True),
}
DTYPES = ("float32", "float64")
IDS = [f"{name}-{dt}" for name in CASES for dt in DTYPES]


def run_case(T, case_id: str) -> list:
    name, dt = case_id.rsplit("-", 1)
    return [float(v) for v in CASES[name](T, getattr(T, dt)).tolist()]


def _recorded() -> dict:
    return json.loads(FIXTURE.read_text())


@pytest.mark.parametrize("case_id", IDS)
def test_engine_rounds_once_as_torch(case_id):
    want = [float.fromhex(v) for v in _recorded()[case_id]]
    got = run_case(engine, case_id)
    differ = sum(g != w and not (g != g and w != w) for g, w in zip(got, want))
    assert differ == 0, f"{case_id}: {differ} of {len(want)} values differ from torch's"


@pytest.mark.parametrize("case_id", IDS)
def test_the_case_tells_the_roundings_apart(case_id, monkeypatch):
    """Rounding the product first (what the engine did before) must miss torch's values."""
    from engine import backend as B

    def twice(a, b, c):
        return B.add(B.mul(a, b), c)

    monkeypatch.setattr(B, "fma", twice)
    want = [float.fromhex(v) for v in _recorded()[case_id]]
    assert run_case(engine, case_id) != want


@pytest.mark.parametrize("case_id", IDS)
def test_recorded_values_are_torchs(case_id):
    torch = pytest.importorskip("torch")
    want = [float.fromhex(v) for v in _recorded()[case_id]]
    assert run_case(torch, case_id) == want


# -- the hard cases of the float32 multiply-add, against exact arithmetic ----------------------
# Both backends compute a float32 a * b + c as the float64 product (exact) plus c, rounded to
# float64 and then to float32. That second rounding is wrong only when the float64 sum lands
# exactly half-way between two float32 values while the exact sum does not: in the normal range,
# among the subnormals below 2**-126 (a coarser grid), at 2**-126 itself, and half-way between
# the largest float32 and 2**128 (which rounds to infinity). Each case below is built to land
# there, a little above or below the tie, so a backend that skips any of the checks fails.

_F32_MAX = float.fromhex("0x1.fffffep127")


def _float32(x: float) -> float:
    """x rounded to float32 (as the hardware's conversion, infinity past the top)."""
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def _exact_float32(a: float, b: float, c: float) -> float:
    """a * b + c rounded once to float32 (ties to even), with exact rational arithmetic."""
    q = Fraction(a) * Fraction(b) + Fraction(c)
    if q == 0:
        return a * b + c  # an exact zero: float arithmetic gives IEEE's sign
    mag = abs(q)
    e = mag.numerator.bit_length() - mag.denominator.bit_length()
    if Fraction(2) ** e > mag:
        e -= 1
    quantum = Fraction(2) ** (max(e, -126) - 23)  # float32's spacing there (subnormals: 2**-149)
    n, rem = divmod(mag / quantum, 1)
    if rem > Fraction(1, 2) or rem == Fraction(1, 2) and n % 2 == 1:
        n += 1
    v = n * quantum
    return math.copysign(math.inf if v >= 2 ** 128 else float(v), q)


# (c, t): c plus the tie step t lands half-way between two float32 values
_TIES = {
    "normal": [(1.5, 2.0 ** -24), (-3.0, 2.0 ** -23), (_float32(0.1), 2.0 ** -28)],
    "subnormal": [(2.0 ** -130 + 2.0 ** -149, 2.0 ** -150), (2.0 ** -140, -(2.0 ** -150))],
    "below 2**-126": [(2.0 ** -126, -(2.0 ** -150)), (2.0 ** -126 - 2.0 ** -149, 2.0 ** -150)],
    "overflow": [(_F32_MAX, 2.0 ** 103), (-_F32_MAX, -(2.0 ** 103))],
}


def _tie_cases(c: float, t: float) -> list:
    """(a, b, c) float32 triples with a * b = t * (1 -/+ k**2 * 2**-46): the float64 sum
    rounds onto the tie, the exact one lies just short of it or just past it."""
    cases = []
    half = math.frexp(t)[1] // 2  # a and b share t's size: both stay normal float32 values
    for k in (1, 3):
        for sign in (1, -1):
            for scale in (half, half + 10):
                a = math.ldexp(1 + sign * k * 2.0 ** -23, scale)
                b = math.ldexp(t, -scale) * (1 - sign * k * 2.0 ** -23)
                if _float32(a) == a and _float32(b) == b:
                    cases += [(a, b, c), (-a, -b, c), (a, -b, -c), (-a, b, -c)]
    return cases


@pytest.mark.parametrize("kind", list(_TIES))
def test_float32_fma_settles_every_kind_of_tie(kind):
    from engine import backend as B
    cases = [abc for c, t in _TIES[kind] for abc in _tie_cases(c, t)]
    want = [_exact_float32(*abc) for abc in cases]
    rounded_twice = [_float32(a * b + c) for a, b, c in cases]
    assert sum(w != r for w, r in zip(want, rounded_twice)) >= len(cases) // 4  # can fail
    # a small array (numpy: one pass) and a big one (numpy works in chunks of 32768)
    for reps in (1, 40000 // len(cases) + 1):
        cols = [B.array([v[i] for v in cases] * reps, "float32") for i in range(3)]
        got = B.tolist(B.fma(*cols))
        bad = [(cases[i % len(cases)], g, want[i % len(cases)])
               for i, g in enumerate(got) if g != want[i % len(cases)]]
        assert not bad, f"{len(bad)} of {len(got)} wrong, e.g. {bad[:3]}"


@pytest.mark.parametrize("kind", list(_TIES))
def test_float32_fma_settles_ties_with_one_value_operands(kind):
    """An optimizer's step multiplies by one number (the learning rate): big arrays with a
    0-dim or 1-element operand go through numpy's chunked path, which widens operands its own
    way, and settle the same ties."""
    from engine import backend as B
    n = 33000  # more than one chunk of 32768
    cases = [abc for c, t in _TIES[kind] for abc in _tie_cases(c, t)][::3]
    for a, b, c in cases:
        want = _exact_float32(a, b, c)
        for one in ((1,), (0,), (1, 2), (0, 2)):  # which operands are one value
            cols = [B.array(v, "float32") if i in one else B.array([v] * n, "float32")
                    for i, v in enumerate((a, b, c))]
            if one == (0, 2):
                cols[0] = B.array([a], "float32")  # a 1-element array broadcasts too
            got = B.tolist(B.fma(*cols))
            assert got == [want] * n, ((a, b, c), one, sorted(set(got)), want)


@pytest.mark.parametrize("kind", list(_TIES))
def test_torch_rounds_these_ties_once(kind):
    """The exact rounding above is what torch computes (addcmul of three float32 tensors of a
    whole number of 16-wide blocks is fused everywhere)."""
    torch = pytest.importorskip("torch")
    cases = [abc for c, t in _TIES[kind] for abc in _tie_cases(c, t)]
    cases = (cases * 16)[:len(cases) // 16 * 16 + 16]
    a, b, c = (torch.tensor([v[i] for v in cases], dtype=torch.float32) for i in range(3))
    assert torch.addcmul(c, a, b).tolist() == [_exact_float32(*abc) for abc in cases]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fma_gives_ieee_zero_signs(dtype):
    """a * b + c that is exactly zero: -0.0 when the product and c are both -0.0 (the sign
    rule of an exact sum), +0.0 otherwise (found by the value fuzzer: linalg.cross of -0.0)."""
    B = engine.backend
    cases = [(2.3, -0.0, -0.0, -0.0), (0.0, -1.0, -0.0, -0.0), (-0.0, 0.0, -0.0, -0.0),
             (1.0, 0.0, -0.0, 0.0), (0.0, 0.0, 0.0, 0.0), (3.0, 2.0, -6.0, 0.0),
             (-0.0, 5.0, 0.0, 0.0), (-3.0, 2.0, 6.0, 0.0), (0.1, 0.1, -0.1 * 0.1, None)]
    a, b, c = (B.array([v[i] for v in cases], dtype) for i in range(3))
    got = B.tolist(B.fma(a, b, c))
    for (x, y, z, want), g in zip(cases, got):
        if want is not None:
            assert math.copysign(1.0, g) == math.copysign(1.0, want) and g == want, (x, y, z, g)
