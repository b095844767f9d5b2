#!/usr/bin/env python
"""Benchmark the numpy backend's float32 fused multiply-add against numpy's plain float32 add.

This is a benchmark, not a test: it prints, for each size, the time of `fma(G, alpha, W)` (an
SGD step: G and W float32 arrays, alpha a 0-dim float32, as `param.add_(grad, alpha=-lr)`
calls it), of `fma(G, V, W)` (three arrays, as addcmul) and of `np.add(W, G)`, each the
minimum over samples taken in this process, and the ratio fma / add. The ratio is what to
compare across runs and machines: a shared, loaded machine slows both alike.

    python bench/bench_fma.py                    # sizes 1, 16, 1 000, 100 352, 1 000 000
    python bench/bench_fma.py --sizes 16,100352  # other sizes
    python bench/bench_fma.py --samples 15       # more samples (steadier minimums)

numpy runs on one thread (OMP_NUM_THREADS=1 unless set), as bench_engine.py does.
"""

from __future__ import annotations

import argparse
import os
import sys
import timeit

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

from engine.backend import numpy_backend as B  # noqa: E402

SIZES = (1, 16, 1_000, 100_352, 1_000_000)  # 100 352: the 128 x 784 weight of bench_engine (b)


def best_of(fn, operands: tuple, samples: int, size: int) -> float:
    """Minimum seconds per call of fn(*operands) over `samples` timings of enough calls to last
    about 2 ms each."""
    number = max(1, 2_000_000 // (size * 4 + 500))
    return min(timeit.repeat(lambda: fn(*operands), number=number, repeat=samples)) / number


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default=",".join(map(str, SIZES)), help="comma-separated sizes")
    p.add_argument("--samples", type=int, default=9, help="timings per cell (min is shown)")
    args = p.parse_args(argv)
    rng = np.random.default_rng(0)
    print(f"numpy {np.__version__}, float32, min of {args.samples} samples; "
          "ratio = fma / np.add of the same arrays")
    print(f"{'size':>10}  {'np.add':>10}  {'fma scalar':>11}  {'ratio':>6}  "
          f"{'fma arrays':>11}  {'ratio':>6}")
    for size in (int(s) for s in args.sizes.split(",")):
        w, g, v = (rng.standard_normal(size).astype(np.float32) for _ in range(3))
        alpha = np.array(-0.01, np.float32)
        add = best_of(np.add, (w, g), args.samples, size)
        scalar = best_of(B.fma, (g, alpha, w), args.samples, size)
        arrays = best_of(B.fma, (g, v, w), args.samples, size)
        print(f"{size:>10}  {add * 1e6:>8.2f}us  {scalar * 1e6:>9.2f}us  {scalar / add:>5.1f}x  "
              f"{arrays * 1e6:>9.2f}us  {arrays / add:>5.1f}x")


if __name__ == "__main__":
    main()
