"""Random-number speed: engine (active backend) against torch, as ratios.

    python bench/bench_rng.py                      # numpy backend
    GRADPLAY_BACKEND=pure python bench/bench_rng.py

Prints, per case, the best of several runs for the engine and for torch and their ratio.
Run from the repository root (or with PYTHONPATH pointing at it), so that this checkout's
engine is measured.
"""

from __future__ import annotations

import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.append(ROOT)

import engine  # noqa: E402

CASES = [
    ("randn(16)", lambda t: t.randn(16)),
    ("randn(1000)", lambda t: t.randn(1000)),
    ("randn(100000)", lambda t: t.randn(100_000)),
    ("randn(100000, float64)", lambda t: t.randn(100_000, dtype=t.float64)),
    ("rand(100000)", lambda t: t.rand(100_000)),
    ("randint(0, 10, (100000,))", lambda t: t.randint(0, 10, (100_000,))),
    ("randperm(10000)", lambda t: t.randperm(10_000)),
    ("nn.Linear(256, 256)", lambda t: t.nn.Linear(256, 256)),
    ("dropout(randn(10000))", lambda t: t.nn.functional.dropout(t.ones(10_000), 0.5)),
]


def best(fn, mod, repeat=5) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(mod)
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    try:
        import torch

        # torch's idle OpenMP threads spin after each op and would slow the engine's turns
        torch.set_num_threads(1)
    except ImportError:
        torch = None
    print(f"backend: {engine.backend_name()}")
    print(f"{'case':28s} {'engine ms':>10s} {'torch ms':>10s} {'ratio':>8s}")
    for name, fn in CASES:
        e = best(fn, engine)
        t = best(fn, torch) if torch is not None else float("nan")
        print(f"{name:28s} {e * 1e3:10.2f} {t * 1e3:10.3f} {e / t:8.1f}")


if __name__ == "__main__":
    main()
