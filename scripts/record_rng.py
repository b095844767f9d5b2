"""Record torch 2.13's random numbers for tests/test_rng.py into tests/fixtures/rng.json.

Each case is a small program written against a `torch`-like module (real torch when recording,
the engine when testing): it seeds, draws, and returns a list of tensors. The fixture keeps, per
returned tensor, its dtype, shape, a SHA-256 of its values' bytes (little-endian float32,
float64 or int64; 128 bits kept) and four of its values (first, last, two between), so that a
mismatch shows numbers while the file stays small.

    python scripts/record_rng.py        # needs torch 2.13 (CPU) installed
"""

from __future__ import annotations

import hashlib
import json
import math
import struct
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "rng.json"

SEEDS = (0, 1, 2**32 + 7)
MORE_SEEDS = (42, 18446744073709551557)  # on a smaller grid
SIZES = (1, 2, 3, 7, 15, 16, 17, 31, 32, 33, 100, 1000, 4099)
BIG = 100_000


def _seeded(torch, seed):
    """One case's generator: the default one (reseeded) or a torch.Generator, by seed parity."""
    if seed % 2:
        torch.manual_seed(seed)
        return None
    return torch.Generator().manual_seed(seed)


def _draws(seed, size, dtype_name, kind):
    def case(torch):
        dt = getattr(torch, dtype_name)
        g = _seeded(torch, seed)
        if kind == "rand":
            return [torch.rand(size, dtype=dt, generator=g), torch.rand(size, dtype=dt, generator=g)]
        if kind == "randn":
            # twice: the scalar path keeps a cached normal across calls
            return [torch.randn(size, dtype=dt, generator=g), torch.randn(size, dtype=dt, generator=g)]
        if kind == "normal_":
            return [torch.empty(size, dtype=dt).normal_(0.25, 1.5, generator=g)]
        if kind == "uniform_":
            return [torch.empty(size, dtype=dt).uniform_(-0.3, 0.7, generator=g)]
        raise ValueError(kind)
    return case


def _ints(seed, size, low, high):
    def case(torch):
        g = _seeded(torch, seed)
        return [torch.randint(low, high, (size,), generator=g)]
    return case


def _perm(seed, n):
    def case(torch):
        g = _seeded(torch, seed)
        return [torch.randperm(n, generator=g)]
    return case


def _program(fn):
    return fn


@_program
def default_generator_seed(torch):
    g = torch.Generator()
    return [torch.tensor([g.initial_seed()]), torch.rand(5, generator=g),
            torch.randn(20, generator=g)]


@_program
def interleaved(torch):
    torch.manual_seed(7)
    out = [torch.randn(3), torch.rand(2), torch.randn(1), torch.randn(17), torch.randn(1),
           torch.rand(3, dtype=torch.float64), torch.randn(5, dtype=torch.float64),
           torch.randint(3, (4,)), torch.randn(2)]
    torch.manual_seed(7)  # reseeding drops the cached normal
    out.append(torch.randn(3))
    return out


@_program
def rng_state_round_trip(torch):
    torch.manual_seed(3)
    torch.randn(3)  # leaves a cached normal, which the state carries
    state = torch.get_rng_state()
    a = torch.randn(5)
    torch.rand(100)
    torch.set_rng_state(state)
    b = torch.randn(5)
    return [state.long(), a, b]


@_program
def likes(torch):
    torch.manual_seed(11)
    x = torch.zeros(4, 5, dtype=torch.float64)
    return [torch.rand_like(x), torch.randn_like(x), torch.randint_like(x, 10),
            torch.randint_like(x, -3, 3), torch.rand_like(x, dtype=torch.float32)]


@_program
def normal_overloads(torch):
    torch.manual_seed(5)
    m = torch.tensor([i / 8 - 1.25 for i in range(20)])
    s = torch.tensor([0.125 * (i + 1) for i in range(20)])
    return [torch.normal(2.0, 3.0, (4, 5)), torch.normal(m, 0.5), torch.normal(1.0, s),
            torch.normal(m, s), torch.normal(m[:3], s[:3])]


@_program
def bernoulli_cases(torch):
    torch.manual_seed(9)
    p32 = torch.rand(50)
    p64 = torch.rand(50, dtype=torch.float64)
    return [torch.bernoulli(p32), torch.bernoulli(p64), torch.empty(40).bernoulli_(0.3),
            torch.empty(40, dtype=torch.float64).bernoulli_(0.7),
            torch.empty(30).bernoulli_(torch.full((30,), 0.4)),
            torch.bernoulli(torch.full((6,), 0.5), 0.9)]


@_program
def multinomial_cases(torch):
    torch.manual_seed(21)
    w = torch.tensor([0.1, 2.0, 0.5, 0.0, 1.5, 3.0])
    rows = torch.rand(3, 8)
    return [torch.multinomial(w, 1), torch.multinomial(w, 4), torch.multinomial(w, 10, True),
            torch.multinomial(rows, 5), torch.multinomial(rows, 12, replacement=True),
            torch.multinomial(w.double(), 3)]


@_program
def dropout_cases(torch):
    torch.manual_seed(13)
    F = torch.nn.functional
    x = torch.randn(64)
    y = torch.randn(5, 7, dtype=torch.float64)
    return [F.dropout(x, 0.5), F.dropout(x, 0.1), F.dropout(x, 0.9), F.dropout(y, 0.25),
            F.dropout(x, 0.5, training=False), F.dropout(x[:3], 0.5), F.dropout(x, 1.0)]


@_program
def layer_init(torch):
    torch.manual_seed(17)
    nn = torch.nn
    a, b, c = nn.Linear(3, 4), nn.Linear(10, 1, bias=False), nn.Linear(300, 200)
    return [a.weight, a.bias, b.weight, c.weight, c.bias]


@_program
def init_functions(torch):
    torch.manual_seed(19)
    init = torch.nn.init
    w = torch.empty(30, 20)
    out = []
    for fn, kw in [(init.uniform_, {"a": -2.0, "b": 3.0}), (init.normal_, {"std": 0.02}),
                   (init.kaiming_uniform_, {}), (init.kaiming_uniform_, {"mode": "fan_out"}),
                   (init.kaiming_normal_, {"nonlinearity": "relu"}),
                   (init.xavier_uniform_, {"gain": 2.0}), (init.xavier_normal_, {}),
                   (init.kaiming_uniform_, {"a": math.sqrt(5)})]:
        out.append(fn(w, **kw).clone())
    small = torch.empty(3, 2)
    out.append(init.kaiming_normal_(small).clone())
    out.append(init.trunc_normal_(torch.empty(40, 30)).clone())
    out.append(init.trunc_normal_(torch.empty(7), mean=0.5, std=0.02, a=0.48, b=0.53).clone())
    return out


def _approx_init(torch):
    torch.manual_seed(23)
    init = torch.nn.init
    # trunc_normal_ with narrow bounds compares float32 logs (rejection by density)
    return [init.trunc_normal_(torch.empty(8, 6), a=0.5, b=0.9), init.orthogonal_(torch.empty(5, 3)),
            init.orthogonal_(torch.empty(3, 7), gain=2.0)]


def cases() -> dict:
    out = {}
    for seed in SEEDS:
        for dt in ("float32", "float64"):
            for kind in ("rand", "randn", "normal_", "uniform_"):
                for size in SIZES:
                    out[f"{kind}-{dt}-{size}-seed{seed}"] = _draws(seed, size, dt, kind)
        for low, high in ((0, 10), (-5, 3), (0, 2**28), (7, 2**40)):
            for size in (1, 17, 1000):
                out[f"randint-{low}-{high}-{size}-seed{seed}"] = _ints(seed, size, low, high)
        for n in (0, 1, 2, 5, 100, 1000):
            out[f"randperm-{n}-seed{seed}"] = _perm(seed, n)
    for seed in MORE_SEEDS:
        for dt in ("float32", "float64"):
            for kind in ("rand", "randn"):
                for size in (3, 16, 33):
                    out[f"{kind}-{dt}-{size}-seed{seed}"] = _draws(seed, size, dt, kind)
    for dt in ("float32", "float64"):
        for kind in ("rand", "randn"):
            out[f"{kind}-{dt}-{BIG}-big"] = _draws(1, BIG, dt, kind)
            out[f"{kind}-{dt}-{BIG - 1}-big"] = _draws(42, BIG - 1, dt, kind)
    out[f"randperm-{BIG}-big"] = _perm(3, BIG)
    for fn in (default_generator_seed, interleaved, rng_state_round_trip, likes,
               normal_overloads, bernoulli_cases, multinomial_cases, dropout_cases, layer_init,
               init_functions):
        out[fn.__name__] = fn
    return out


# values torch computes with kernels the engine does not mirror bit for bit (docs/semantics.md)
APPROX_CASES = {"approximate_init": _approx_init}

_FMT = {"float32": "f", "float64": "d", "int64": "q"}


def summarize(tensor) -> dict:
    """dtype, shape, SHA-256 of the values and a few of them, from a torch or engine tensor."""
    dtype = str(tensor.dtype).replace("torch.", "")
    flat = tensor.detach().reshape(-1).tolist()
    data = struct.pack(f"<{len(flat)}{_FMT[dtype]}", *flat)
    n = len(flat)
    picks = sorted({0, n // 3, 2 * n // 3, n - 1} if n else ())
    return {"dtype": dtype, "shape": list(tensor.shape),
            "sha256": hashlib.sha256(data).hexdigest()[:32],
            "sample": {str(i): flat[i] for i in picks}}


def main() -> None:
    import torch

    assert torch.__version__.startswith("2.13."), torch.__version__
    recorded = {name: [summarize(t) for t in case(torch)] for name, case in cases().items()}
    approx = {name: [t.detach().tolist() for t in case(torch)]
              for name, case in APPROX_CASES.items()}
    lines = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in sorted(recorded.items())]
    OUT.write_text(
        f'{{"torch": {json.dumps(torch.__version__)},\n"approximate": {json.dumps(approx)},\n'
        '"cases": {\n' + ",\n".join(lines) + "\n}}\n")
    print(f"wrote {len(recorded)} cases to {OUT}")


if __name__ == "__main__":
    main()
