"""Record torch 2.13's float sums for tests/test_sum_order.py into tests/fixtures/sum_order.json.

Each case is a small program written against a `torch`-like module (real torch when recording,
the engine when testing): it draws its input with a seeded torch.Generator (the engine draws
torch's numbers bit for bit), sums it one way or another (sum, mean, sum over dims, of views,
losses, the gradients that broadcasting sums back) and returns the results. The fixture keeps,
per result, its dtype, shape and values; for more than 64 values a SHA-256 of their bytes and
four of them, so that a mismatch shows numbers while the file stays small.

torch sums more than 32,768 elements on several threads, and the last bits of a sum of more
than 65,536 then depend on how many (engine/backend/sum_order.py); the recording runs torch
with the engine's model of that count, `sum_order.THREADS`.

    python scripts/record_sum_order.py        # needs torch 2.13 (CPU) installed
"""

from __future__ import annotations

import hashlib
import json
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "sum_order.json"
_FMT = {"float32": "f", "float64": "d"}

# run lengths around every boundary of torch's kernel: its vectors (8 float32, 4 float64), its
# rows of 4 vectors, the cascade's chunks of 16 rows, blocks of 16 chunks and of 16 blocks,
# and the 32,768 elements above which it uses threads
SIZES = tuple(range(1, 41)) + (
    47, 48, 63, 64, 65, 95, 96, 97, 127, 128, 129, 255, 256, 257, 511, 512, 513, 1000, 1023,
    1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097, 8191, 8192, 8193, 16383, 16384, 16385,
    32767, 32768, 32769, 65535, 65536, 65537, 100000)
MATRICES = ((3, 5), (7, 8), (9, 33), (40, 31), (64, 10), (100, 16), (100, 1), (1, 100),
            (17, 64), (33, 96), (5, 200), (200, 5), (513, 3), (70, 70), (16, 40), (300, 33))
BLOCKS = (((4, 5, 6), ((0, 2), (1,), (0, 1), (1, 2), (2,), (0, 1, 2))),
          ((3, 4, 5, 6), ((0, 2, 3), (1, 3), (0, 3), (2,), (0, 1))),
          ((2, 40, 3), ((0, 2), (1,))),
          ((6, 1, 9), ((0, 2), (1,), (0, 1))),
          ((5, 17, 33), ((0, 2), (0,), (1, 2))))


def _draw(torch, shape, dtype, seed, spread=False):
    """Normal numbers, or with spread a mix of magnitudes from 1e-3 to 1e3 around an offset."""
    dt = getattr(torch, dtype)
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, dtype=dt, generator=g)
    if spread:
        scale = torch.randint(0, 3, shape, generator=g).to(dt)
        x = x * (scale * scale * 999.0 + 1.0) * 0.001 + 3.0
    return x


def _full(n, dtype, seed, spread):
    def case(torch):
        x = _draw(torch, (n,), dtype, seed, spread)
        return [x.sum(), x.mean()]
    return case


def _matrix(shape, dtype, seed):
    def case(torch):
        x = _draw(torch, shape, dtype, seed, spread=seed % 2 == 1)
        return [x.sum(0), x.sum(1), x.sum((0, 1)), x.mean(0), x.mean(1, keepdim=True), x.sum()]
    return case


def _block(shape, dims, dtype, seed):
    def case(torch):
        x = _draw(torch, shape, dtype, seed)
        return [x.sum(dims), x.mean(dims, keepdim=True)]
    return case


def _views(dtype, seed):
    """Inputs whose memory is not laid out in C order: torch follows the memory."""
    def case(torch):
        x = _draw(torch, (37, 45), dtype, seed)
        y = _draw(torch, (6, 7, 50), dtype, seed + 1)
        return [x.t().sum(0), x.t().sum(1), x.t().sum(), x.t().contiguous().sum(0),
                x[:, ::2].sum(), x[:, ::2].sum(0), x[::3].sum(1), x[1:, 2:].sum(1),
                x[:, 3].sum(), x[5].sum(), x.diagonal().sum(),
                x[:1].expand(30, 45).sum(0), x[:1].expand(30, 45).sum(),
                x[:, :1].expand(37, 40).sum(1), x.unsqueeze(0).expand(3, 37, 45).sum(0),
                y.permute(2, 0, 1).sum((0, 1)), y.permute(2, 0, 1).sum(), y.transpose(0, 2).sum(1),
                y[:, ::2, 1:].sum((0, 2)), y.transpose(1, 2)[:, :20].sum(2)]
    return case


def _threads(dtype, seed):
    """More than 32,768 elements: torch shares the work between its threads."""
    def case(torch):
        out = []
        for shape, dims in (((12000, 6), (0,)), ((200, 200), (0,)), ((190, 180), (1,)),
                            ((2, 17000), (1,)), ((17000, 2), (1,)), ((7000, 5), (0,)),
                            ((120, 301), None)):
            x = _draw(torch, shape, dtype, seed)
            out.append(x.sum() if dims is None else x.sum(dims))
        z = _draw(torch, (230, 301), dtype, seed)
        out += [z[:, :300].sum(), z[:, 1:].t().sum(), z[::2].sum(), z[:, :7].sum()]
        return out
    return case


def _long_runs(dtype, seed):
    """Runs long enough for the cascade's last level (4,096 rows) without threads: a strided
    run (rows of 4 values) and columns (rows of 1)."""
    def case(torch):
        x = _draw(torch, (40000,), dtype, seed)
        y = _draw(torch, (4100, 8), dtype, seed + 1)
        return [x[::2].sum(), x[1::3].sum(), y[:, ::2].sum(0), y[:, 1::2].t().sum(1)]
    return case


def _specials(dtype):
    def case(torch):
        dt = getattr(torch, dtype)
        big = 3e38 if dtype == "float32" else 1.7e308
        zeros = torch.tensor([-0.0] * 40, dtype=dt)
        inf = torch.tensor([1.0, float("inf"), 2.0] * 20, dtype=dt)
        both = torch.tensor([1.0, float("inf"), 2.0, float("-inf")] * 12, dtype=dt)
        over = torch.tensor([big, big, -big, -big] * 10, dtype=dt)
        return [zeros.sum(), zeros.reshape(8, 5).sum(0), zeros[:1].sum(), inf.sum(),
                both.sum(), over.sum(), over.reshape(20, 2).sum(0), over.reshape(5, 8).sum(1),
                torch.tensor(-0.0, dtype=dt).sum(), torch.zeros(0, 3, dtype=dt).sum(0)]
    return case


def _nn(dtype, seed):
    """What learners' programs sum without writing sum: losses, the bias gradient of a linear
    layer, a broadcast operand's gradient, a float32 sum asked for in float64."""
    def case(torch):
        f = torch.nn.functional
        x = _draw(torch, (100, 16), dtype, seed)
        y = _draw(torch, (100, 16), dtype, seed + 1)
        out = [f.mse_loss(x, y), f.mse_loss(x, y, reduction="sum"), f.l1_loss(x, y),
               f.l1_loss(x[:, :1], y[:, :1])]
        w = _draw(torch, (3, 16), dtype, seed + 2)
        b = torch.zeros(3, dtype=x.dtype, requires_grad=True)
        f.linear(x, w, b).backward(_draw(torch, (100, 3), dtype, seed + 3))
        out.append(b.grad)
        for shape in ((16,), (100, 1), (1, 16), ()):
            c = torch.zeros(shape, dtype=x.dtype, requires_grad=True)
            (x + c).backward(y)
            out.append(c.grad)
        if dtype == "float32":
            out.append(x.sum(dtype=torch.float64))
            out.append(x.sum(0, dtype=torch.float64))
        return out
    return case


def cases() -> dict:
    out = {}
    for dtype in ("float32", "float64"):
        for i, n in enumerate(SIZES):
            out[f"full-{dtype}-{n}"] = _full(n, dtype, 1000 + n, spread=i % 3 == 2)
        for shape in MATRICES:
            out[f"matrix-{dtype}-{shape[0]}x{shape[1]}"] = _matrix(shape, dtype, sum(shape))
        for shape, dim_sets in BLOCKS:
            for dims in dim_sets:
                name = "x".join(map(str, shape)) + "-" + "".join(map(str, dims))
                out[f"block-{dtype}-{name}"] = _block(shape, dims, dtype, len(name))
        out[f"views-{dtype}"] = _views(dtype, 7)
        out[f"threads-{dtype}"] = _threads(dtype, 11)
        out[f"long-{dtype}"] = _long_runs(dtype, 17)
        out[f"specials-{dtype}"] = _specials(dtype)
        out[f"nn-{dtype}"] = _nn(dtype, 13)
    return out


def summarize(tensor) -> dict:
    """dtype, shape and values (or a SHA-256 and four of them) of a torch or engine tensor."""
    dtype = str(tensor.dtype).replace("torch.", "")
    flat = tensor.detach().reshape(-1).tolist()
    out = {"dtype": dtype, "shape": list(tensor.shape)}
    if len(flat) <= 64:
        out["values"] = [_text(v) for v in flat]
        return out
    data = struct.pack(f"<{len(flat)}{_FMT[dtype]}", *flat)
    n = len(flat)
    out["sha256"] = hashlib.sha256(data).hexdigest()[:32]
    out["sample"] = {str(i): _text(flat[i]) for i in sorted({0, n // 3, 2 * n // 3, n - 1})}
    return out


def _text(v: float) -> str:
    """A float exactly, as text JSON can hold (inf and nan included; -0.0 keeps its sign)."""
    return v.hex()


def main() -> None:
    import torch

    sys.path.insert(0, str(ROOT))
    from engine.backend import sum_order

    assert torch.__version__.startswith("2.13."), torch.__version__
    torch.set_num_threads(sum_order.THREADS)
    recorded = {name: [summarize(t) for t in case(torch)] for name, case in cases().items()}
    lines = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in sorted(recorded.items())]
    OUT.write_text(
        f'{{"torch": {json.dumps(torch.__version__)}, "threads": {sum_order.THREADS},\n'
        '"cases": {\n' + ",\n".join(lines) + "\n}}\n")
    print(f"wrote {len(recorded)} cases to {OUT}")


if __name__ == "__main__":
    main()
