#!/usr/bin/env python
"""How close to torch can bench_engine.py's workload (b) get, given the kernels it must call?

This is a benchmark, not a test. It runs one (b) step (the 64x784-128-10 MLP: forward,
cross-entropy, backward, SGD) on the engine and records the backend's matrix products and
float32 multiply-adds, with the very operands (shapes, dtypes, strides) the engine hands to
numpy. It then times, in this process and with the minimum of samples:

- each recorded call on numpy, as the engine makes it (OpenBLAS for the products; the exact
  float32 multiply-add that gives torch's bits for `param.add_(grad, alpha=-lr)`), and
- the same call on torch: `torch.matmul` of the same arrays, and `add_(grad, alpha=...)` in
  place, which is what torch's SGD step runs;
- torch's whole (b) step.

The difference between the two kernel columns is time the engine spends whatever its Python
does, so `(torch step + difference) / torch step` is the best ratio to torch that (b) can
reach on numpy. The script prints it.

    python bench/bench_kernel_floor.py            # needs torch (2.13 CPU) and numpy
    python bench/bench_kernel_floor.py --samples 15

Threads: one, as bench_engine.py (OMP_NUM_THREADS and torch.set_num_threads).
"""

from __future__ import annotations

import argparse
import os
import sys
import timeit

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")  # before numpy and torch are imported
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import bench_engine  # noqa: E402
import numpy as np  # noqa: E402

import engine  # noqa: E402
from engine import backend as B  # noqa: E402


def record_backend_calls(step) -> list:
    """Run `step` once with engine.backend's matmul and fma wrapped; return (name, operands)
    of each call, the operands copied with their strides kept."""
    calls = []
    originals = {name: getattr(B, name) for name in ("matmul", "fma")}

    def wrapper(name):
        def call(*args):
            calls.append((name, tuple(_keep_layout(a) for a in args)))
            return originals[name](*args)

        return call

    for name in originals:
        setattr(B, name, wrapper(name))
    try:
        step()
    finally:
        for name, fn in originals.items():
            setattr(B, name, fn)
    return calls


def _keep_layout(a):
    """A copy of array a with the same strides (a transposed operand stays transposed)."""
    a = np.asarray(a)
    if a.ndim == 2 and not a.flags.c_contiguous and a.T.flags.c_contiguous:
        return a.T.copy().T
    return a.copy()


def best(fn, samples: int) -> float:
    """Minimum seconds per call over `samples` timings of calls lasting about 2 ms in all."""
    once = min(timeit.repeat(fn, number=1, repeat=3))
    number = max(1, int(0.002 / max(once, 1e-7)))
    return min(timeit.repeat(fn, number=number, repeat=samples)) / number


def torch_twin(torch, name, args):
    """The torch call that does what the engine's backend call does."""
    ts = [torch.from_numpy(np.ascontiguousarray(a) if a.ndim < 2 else a) for a in args]
    if name == "matmul":
        a, b = ts
        return lambda: torch.matmul(a, b)
    grad, alpha, param = ts  # fma(grad, alpha, param) is param + alpha * grad
    scale = float(alpha)
    return lambda: param.add_(grad, alpha=scale)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--samples", type=int, default=9, help="timings per cell (min is kept)")
    args = p.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    data = bench_engine.make_data(False)
    mode = bench_engine.detect_mode(engine)
    step = bench_engine.setup_mlp_b(engine, data, mode)
    step()  # a first step makes the optimizer's state; record the second, as timed
    calls = record_backend_calls(step)
    rows = []
    for name, operands in calls:
        np_time = best(lambda n=name, o=operands: getattr(B, n)(*o), args.samples)
        torch_time = best(torch_twin(torch, name, operands), args.samples)
        shapes = " ".join("x".join(map(str, a.shape)) or "()" for a in operands)
        rows.append((name, shapes, np_time, torch_time))
    torch_step = best(bench_engine.setup_mlp_b(torch, data, mode), args.samples)
    engine_step = best(step, args.samples)

    print(f"numpy {np.__version__}, torch {torch.__version__}, one thread, "
          f"min of {args.samples} samples")
    print(f"{'call':<7} {'operands':<26} {'numpy':>10} {'torch':>10} {'extra':>10}")
    extra = 0.0
    for name, shapes, np_time, torch_time in rows:
        extra += np_time - torch_time
        print(f"{name:<7} {shapes:<26} {np_time * 1e6:>8.1f}us {torch_time * 1e6:>8.1f}us "
              f"{(np_time - torch_time) * 1e6:>8.1f}us")
    print(f"kernels the engine must call take {extra * 1e6:.1f} us more than torch's")
    print(f"torch's whole step: {torch_step * 1e6:.1f} us; the engine's: {engine_step * 1e6:.1f} us "
          f"({engine_step / torch_step:.2f}x)")
    print(f"best reachable on numpy: (torch step + extra) / torch step = "
          f"{(torch_step + extra) / torch_step:.2f}x")


if __name__ == "__main__":
    main()
