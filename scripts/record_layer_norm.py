"""Record torch 2.13's layer_norm values and gradients for tests/test_layer_norm_kernel.py.

Each case is a layer_norm of random float32 or float64 values (a few rows of 1 to 700
normalised elements; near-equal values, where the gradient's terms cancel, among them), with or
without a weight and a bias, and one backward with a random upstream gradient. The values are
drawn with Python's generator from the case's seed, so the engine rebuilds the same inputs. The
fixture keeps, per result, its values as hex floats, or for more than 64 values a SHA-256 of
them and four of them (engine/nn/layer_norm_kernel.py is exact, so a mismatch is a bug).

    python scripts/record_layer_norm.py        # needs torch 2.13 (CPU) installed
"""

from __future__ import annotations

import hashlib
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "layer_norm.json"
SIZES = (1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 33, 64, 100, 127, 128, 129, 255, 256, 257, 700)


def cases() -> list:
    out = []
    for seed in range(120):
        rng = random.Random(seed)
        n = SIZES[seed % len(SIZES)]
        out.append({"seed": seed, "dtype": "float32" if seed % 3 else "float64",
                    "rows": rng.choice((1, 2, 3, 5)), "lead": rng.random() < 0.3, "n": n,
                    "inner": (n // 4, 4) if n % 4 == 0 and rng.random() < 0.3 else (n,),
                    "weight": rng.random() < 0.6, "bias": rng.random() < 0.6,
                    "spread": rng.choice(("normal", "near", "ints", "offset"))})
    return out


def _values(rng, count, spread):
    if spread == "near":  # almost equal: the variance is tiny and the gradient's terms cancel
        return [1.0 + rng.choice((0.0, 1e-4, -1e-4, 3e-7)) for _ in range(count)]
    if spread == "ints":
        return [float(rng.randint(-2, 2)) for _ in range(count)]
    if spread == "offset":
        return [1000.0 + rng.gauss(0, 1) for _ in range(count)]
    return [rng.gauss(0, 2) for _ in range(count)]


def run_case(T, case: dict) -> dict:
    rng = random.Random(case["seed"] + 10_000)
    dt = getattr(T, case["dtype"])
    inner = tuple(case["inner"])
    shape = ((2,) if case["lead"] else ()) + (case["rows"],) + inner
    count = 1
    for s in shape:
        count *= s
    x = T.tensor(_values(rng, count, case["spread"]), dtype=dt).reshape(shape).requires_grad_()
    w = b = None
    leaves = [x]
    if case["weight"]:
        w = T.tensor([round(rng.gauss(1, 0.5), 3) for _ in range(case["n"])], dtype=dt)
        w = w.reshape(inner).requires_grad_()
        leaves.append(w)
    if case["bias"]:
        b = T.tensor([round(rng.gauss(0, 0.5), 3) for _ in range(case["n"])], dtype=dt)
        b = b.reshape(inner).requires_grad_()
        leaves.append(b)
    y = T.nn.functional.layer_norm(x, inner, w, b)
    up = T.tensor([round(rng.gauss(0, 1), 3) for _ in range(count)], dtype=dt).reshape(shape)
    grads = T.autograd.grad(y, leaves, up)
    return {"y": summarize(y), "grads": [summarize(g) for g in grads]}


def summarize(t) -> dict:
    values = [float(v).hex() for v in t.detach().reshape(-1).tolist()]
    if len(values) <= 64:
        return {"values": values}
    return {"sha256": hashlib.sha256(" ".join(values).encode()).hexdigest(),
            "sample": values[:2] + values[-2:]}


def main() -> int:
    from threaded_fixture import record  # scripts/ is first on sys.path when run as a script

    return record(OUT, cases(), run_case)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
