"""Record which elements torch 2.13 computes in its vectorised blocks, for tests/test_cpu_loops.py.

A few of torch's element-wise CPU kernels give another value at NaN in their vectorised blocks
than in their scalar loop (engine/ops/cpu_loops.py): `hardtanh_backward` (hardtanh, relu6)
writes 0 in a block and passes the gradient in the loop, `elu_backward` (elu, selu, celu) and
`hardswish_backward` give NaN in a block and a number in the loop. Each case here runs one of
them with an input that is NaN everywhere, of some shape, dtype and memory layout (contiguous,
transposed, every other element, expanded, permuted) and an upstream gradient of some layout
(contiguous, expanded from one number as `sum()` sends it, transposed); the gradient then shows
the blocks. The fixture keeps, per case, the blocks as runs: [first flag, run length, ...] over
the elements in row-major order.

torch uses two threads from 32,768 elements on, which moves the blocks of the second half; the
recording runs torch with the engine's model of the thread count (`sum_order.THREADS`).

    python scripts/record_cpu_loops.py        # needs torch 2.13 (CPU) installed
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "cpu_loops.json"

KERNELS = ("relu6", "hardtanh", "elu", "selu", "hardswish")


def _x(T, shape, dtype, layout):
    """A NaN tensor of `shape` laid out as `layout`, requiring grad (its base is the leaf)."""
    dt = getattr(T, dtype)
    nd = len(shape)
    if layout == "transposed":
        base = T.full(shape[:-2] + (shape[-1], shape[-2]), math.nan, dtype=dt)
        leaf = base.requires_grad_()
        return leaf, leaf.transpose(-1, -2)
    if layout == "sliced":
        base = T.full(shape[:-1] + (2 * shape[-1],), math.nan, dtype=dt)
        leaf = base.requires_grad_()
        return leaf, leaf[..., ::2]
    if layout.startswith("expanded"):  # "expanded:0" keeps dim 0 of size 1
        kept = int(layout.split(":")[1])
        small = tuple(1 if d == kept else s for d, s in enumerate(shape))
        leaf = T.full(small, math.nan, dtype=dt).requires_grad_()
        return leaf, leaf.expand(*shape)
    if layout == "permuted":  # memory order (last, first, middle...)
        order = (nd - 1,) + tuple(range(nd - 1))
        base = T.full(tuple(shape[d] for d in order), math.nan, dtype=dt)
        leaf = base.requires_grad_()
        return leaf, leaf.permute(*[order.index(d) for d in range(nd)])
    leaf = T.full(shape, math.nan, dtype=dt).requires_grad_()
    return leaf, leaf


def _grad(T, shape, dtype, layout):
    dt = getattr(T, dtype)
    if layout == "expanded":
        return T.tensor(-2.0, dtype=dt).expand(*shape)
    if layout == "transposed":
        return T.full(shape[:-2] + (shape[-1], shape[-2]), -2.0, dtype=dt).transpose(-1, -2)
    return T.full(shape, -2.0, dtype=dt)


def _apply(T, kernel, x):
    F = T.nn.functional
    return {"relu6": F.relu6, "hardtanh": F.hardtanh, "elu": F.elu, "selu": F.selu,
            "hardswish": F.hardswish}[kernel](x)


def run_case(T, case: dict) -> list:
    """The case's blocks as runs: where the gradient is the vectorised loop's value."""
    shape = tuple(case["shape"])
    leaf, x = _x(T, shape, case["dtype"], case["x"])
    (g,) = T.autograd.grad(_apply(T, case["kernel"], x), x,
                           _grad(T, shape, case["dtype"], case["grad"]))
    flat = g.reshape(-1).tolist()
    if case["kernel"] in ("relu6", "hardtanh"):
        flags = [v == 0 for v in flat]
    else:
        flags = [v != v for v in flat]
    runs = [flags[0] if flags else False]
    count, prev = 0, runs[0]
    for f in flags:
        if f == prev:
            count += 1
        else:
            runs.append(count)
            count, prev = 1, f
    runs.append(count)
    return runs


def cases() -> list:
    out = []
    for kernel in KERNELS:
        for dtype in ("float32", "float64"):
            for n in (1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 48, 100):
                out.append({"kernel": kernel, "dtype": dtype, "shape": [n], "x": "contiguous",
                            "grad": "contiguous"})
            if kernel in ("hardtanh", "selu"):  # relu6's and elu's kernels: sizes only
                continue
            out.append({"kernel": kernel, "dtype": dtype, "shape": [100], "x": "sliced",
                        "grad": "contiguous"})
            out.append({"kernel": kernel, "dtype": dtype, "shape": [100], "x": "contiguous",
                        "grad": "expanded"})
            for shape in ((5, 40), (40, 5), (17, 33), (3, 17, 33), (2, 3, 40)):
                for x in ("contiguous", "transposed", "sliced", "expanded:0",
                          f"expanded:{len(shape) - 1}", "permuted"):
                    for grad in ("contiguous", "expanded", "transposed"):
                        out.append({"kernel": kernel, "dtype": dtype, "shape": list(shape),
                                    "x": x, "grad": grad})
            for shape in ((190, 190), (300, 250)):  # two threads: the second half's blocks
                for x, grad in (("contiguous", "contiguous"), ("expanded:0", "expanded")):
                    out.append({"kernel": kernel, "dtype": dtype, "shape": list(shape),
                                "x": x, "grad": grad})
    return out


def main() -> int:
    from threaded_fixture import record  # scripts/ is first on sys.path when run as a script

    return record(OUT, cases(), run_case)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
