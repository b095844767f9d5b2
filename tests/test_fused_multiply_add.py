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
