"""Record torch's subgradients at kinks into ``tests/fixtures/kinks.json``.

Run with the reference torch installed (``torch==2.13.0``)::

    python scripts/record_kinks.py

Each case in ``CASES`` takes a torch-like module ``T`` (real torch, or ``engine``), builds its
leaves, runs one backward and returns ``{"value": ..., "grads": [...]}``. Values go into JSON
as nested lists with NaN and infinities spelled "nan", "inf", "-inf". ``tests/test_kinks.py``
imports ``CASES`` and ``run_case`` from here to rerun each case in the engine (and live in
torch when it imports).
"""

from __future__ import annotations

import json
import math
import sys
import warnings
from pathlib import Path

FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "kinks.json"


def encode(v):
    """A tolist() result with NaN/inf as strings, so the JSON stays standard."""
    if isinstance(v, list):
        return [encode(x) for x in v]
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
    return v


def _leaf(T, values):
    return T.tensor(values, dtype=T.float64, requires_grad=True)


def _grads(leaves):
    return [None if x.grad is None else encode(x.grad.tolist()) for x in leaves]


def _unary(op, values):
    def case(T):
        x = _leaf(T, values)
        y = op(T, x)
        y.sum().backward()
        return {"value": encode(y.tolist()), "grads": _grads([x])}

    return case


def _binary(op, a, b):
    def case(T):
        x, y = _leaf(T, a), _leaf(T, b)
        out = op(T, x, y)
        out.sum().backward()
        return {"value": encode(out.tolist()), "grads": _grads([x, y])}

    return case


def _weighted(op, values, weights):
    """For reductions: weights make it visible which tied element the gradient went to."""

    def case(T):
        x = _leaf(T, values)
        out = op(T, x)
        w = T.tensor(weights, dtype=T.float64)
        (out * w).sum().backward()
        return {"value": encode(out.tolist()), "grads": _grads([x])}

    return case


def _where_sqrt(T):
    # the masked-out branch still backpropagates: 0 * (1 / (2 * sqrt(-1))) is nan
    x = _leaf(T, [-1.0, 4.0])
    y = T.where(x > 0, x.sqrt(), T.zeros_like(x))
    y.sum().backward()
    return {"value": encode(y.tolist()), "grads": _grads([x])}


PM = [-1.0, 0.0, 2.0]
CASES = {
    "relu_at_zero": _unary(lambda T, x: x.relu(), PM),
    "abs_at_zero": _unary(lambda T, x: x.abs(), PM),
    "clamp_at_min_and_max": _unary(lambda T, x: x.clamp(-1.0, 1.0), [-2.0, -1.0, 0.0, 1.0, 2.0]),
    "clamp_min_only_at_bound": _unary(lambda T, x: x.clamp(min=0.0), PM),
    "clamp_max_only_at_bound": _unary(lambda T, x: x.clamp(max=0.0), PM),
    "clamp_tensor_bounds_at_bounds": _binary(
        lambda T, x, lo: T.clamp(x, min=lo, max=lo + 1.0), [0.0, 1.0, -1.0, 3.0],
        [0.0, 0.0, 0.0, 0.0]),
    "clamp_tensor_min_at_bound": _binary(
        lambda T, x, lo: T.clamp(x, min=lo), [0.0, 1.0, -1.0], [0.0, 0.0, 0.0]),
    "clamp_tensor_max_at_bound": _binary(
        lambda T, x, hi: T.clamp(x, max=hi), [0.0, 1.0, -1.0], [0.0, 0.0, 0.0]),
    "max_full_ties": _unary(lambda T, x: x.max(), [1.0, 3.0, 3.0, 2.0]),
    "min_full_ties": _unary(lambda T, x: x.min(), [1.0, 3.0, 1.0, 2.0]),
    "amax_full_ties": _unary(lambda T, x: x.amax(), [[3.0, 1.0], [3.0, 3.0]]),
    "amin_full_ties": _unary(lambda T, x: x.amin(), [[0.0, 1.0], [0.0, 2.0]]),
    "max_dim_ties": _weighted(lambda T, x: x.max(1).values, [[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]],
                              [1.0, 10.0]),
    "min_dim_ties": _weighted(lambda T, x: x.min(0).values, [[1.0, 0.0, 5.0], [1.0, 0.0, 4.0]],
                              [1.0, 10.0, 100.0]),
    "max_dim_keepdim_ties": _weighted(lambda T, x: x.max(0, keepdim=True)[0],
                                      [[2.0, 1.0], [2.0, 1.0]], [[1.0, 10.0]]),
    "max_dim_indices_ties": lambda T: {
        "value": encode(T.tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]]).max(1).indices.tolist()),
        "grads": []},
    "amax_dim_ties": _weighted(lambda T, x: x.amax(1), [[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]],
                               [1.0, 10.0]),
    "amin_dim_ties": _weighted(lambda T, x: x.amin(0), [[1.0, 0.0], [1.0, 2.0]], [1.0, 10.0]),
    "maximum_ties": _binary(lambda T, x, y: T.maximum(x, y), [1.0, 2.0, 3.0], [1.0, 0.0, 3.0]),
    "minimum_ties": _binary(lambda T, x, y: T.minimum(x, y), [1.0, 2.0, 3.0], [1.0, 0.0, 3.0]),
    "maximum_broadcast_ties": _binary(lambda T, x, y: T.maximum(x, y), [[1.0, 2.0], [1.0, 0.0]],
                                      [1.0]),
    "sqrt_at_zero": _unary(lambda T, x: x.sqrt(), [0.0, 4.0]),
    "pow_zero_exponent_at_zero": _unary(lambda T, x: x ** 0, [0.0, 2.0]),
    "pow_square_at_zero": _unary(lambda T, x: x ** 2, [0.0, -1.0]),
    "pow_half_at_zero": _unary(lambda T, x: x ** 0.5, [0.0, 1.0]),
    "pow_negative_at_zero": _unary(lambda T, x: x ** -1.0, [0.0, 2.0]),
    "pow_tensor_at_zero_base": _binary(lambda T, x, y: x ** y, [0.0, 0.0, 0.0, 2.0],
                                       [0.0, 2.0, -1.0, 0.0]),
    "pow_number_base_zero": _unary(lambda T, x: 0.0 ** x, [-1.0, 0.0, 2.0]),
    "log_at_zero": _unary(lambda T, x: x.log(), [0.0, 1.0]),
    "zero_over_zero": _binary(lambda T, x, y: x / y, [0.0, 1.0], [0.0, 0.0]),
    "where_masks_nan_branch": _where_sqrt,
    "exp_overflow": _unary(lambda T, x: x.exp(), [1000.0, 0.0]),
    "sigmoid_saturated": _unary(lambda T, x: x.sigmoid(), [-1000.0, 1000.0]),
    "tanh_saturated": _unary(lambda T, x: x.tanh(), [-1000.0, 1000.0]),
    "softmax_with_inf": _weighted(lambda T, x: x.softmax(0), [float("-inf"), 0.0, 1.0],
                                  [1.0, 2.0, 3.0]),
    "log_softmax_with_inf": _weighted(lambda T, x: x.log_softmax(0), [float("-inf"), 0.0, 1.0],
                                      [1.0, 2.0, 3.0]),
}


def run_case(name, T):
    """Run one case; an exception becomes {"error": [type name, first line]}."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = CASES[name](T)
        except Exception as e:  # noqa: BLE001 - the exception is what gets recorded
            out = {"error": [type(e).__name__, str(e).splitlines()[0] if str(e) else ""]}
    out["warnings"] = [f"{w.category.__name__}: {str(w.message).splitlines()[0]}"
                       for w in caught]
    return out


def main() -> int:
    import torch

    if not torch.__version__.startswith("2.13."):
        print(f"expected torch 2.13, found {torch.__version__}", file=sys.stderr)
        return 1
    data = {"torch": torch.__version__, "cases": {n: run_case(n, torch) for n in CASES}}
    FIXTURE.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(CASES)} cases to {FIXTURE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
