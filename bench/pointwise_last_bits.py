#!/usr/bin/env python
"""How often the engine's pointwise math differs from torch's in the last bit (needs torch).

torch computes exp, log, sin, tanh, sqrt, ... on the CPU with its vector math (Intel MKL's VML
where torch is built with MKL, SLEEF or its own loops otherwise), which rounds differently from
numpy's and Python's; the result depends on the CPU torch runs on. This prints, for each
function and dtype, the share of 100,000 values (randn * 5, absolute values for the functions
of positive numbers) where the engine's result is not bit-identical to torch's.

    python bench/pointwise_last_bits.py [--n 100000] [--backend numpy|pure]
"""

from __future__ import annotations

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.append(ROOT)

FUNCTIONS = ("exp", "log", "sin", "cos", "tanh", "sigmoid", "sqrt", "log1p", "expm1", "atan",
             "erf", "softmax")
POSITIVE = ("log", "sqrt", "log1p")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--backend", default="numpy")
    args = parser.parse_args()
    import torch

    import engine

    engine.use_backend(args.backend)
    print(f"torch {torch.__version__}, CPU capability {torch.backends.cpu.get_cpu_capability()}, "
          f"engine backend {args.backend}, {args.n:,} values")
    print(f"{'function':10} {'float32':>9} {'float64':>9}")
    torch.manual_seed(0)
    base = torch.randn(args.n) * 5
    for name in FUNCTIONS:
        shares = []
        for tdt, edt in ((torch.float32, engine.float32), (torch.float64, engine.float64)):
            x = base.to(tdt)
            if name in POSITIVE:
                x = x.abs()
            xe = engine.tensor(x.tolist(), dtype=edt)
            if name == "softmax":
                ours = engine.softmax(xe.view(-1, 100), 1).flatten().tolist()
                theirs = torch.softmax(x.view(-1, 100), 1).flatten().tolist()
            else:
                ours = getattr(engine, name)(xe).tolist()
                theirs = getattr(torch, name)(x).tolist()
            differ = sum(a != b for a, b in zip(ours, theirs))
            shares.append(f"{100 * differ / len(ours):8.2f}%")
        print(f"{name:10} {shares[0]:>9} {shares[1]:>9}")


if __name__ == "__main__":
    main()
