"""Record torch's own ``repr`` of many tensors into ``tests/fixtures/printing.json``.

Run once with the reference torch installed (``torch==2.13.0``)::

    python scripts/record_printing.py

Each case is described by build instructions (flat input values, shape, dtype, how
to obtain the grad_fn, whether to wrap it in ``nn.Parameter``).  The script builds
the tensor in real torch and stores what the tensor really is (``tolist()``, shape,
dtype, requires_grad, grad_fn name) next to ``repr(t)``.  Cases are generated
deterministically: a hand-written table plus seeded ``random.Random`` tensors.

``tests/test_printing.py`` imports ``build_torch`` / ``describe`` from here to
rebuild the cases live when torch is importable.
"""

from __future__ import annotations

import json
import math
import random
import sys
from pathlib import Path

FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "printing.json"
SEED = 20130213
NAN, INF = math.nan, math.inf

# op name -> how to derive the printed tensor from the requires_grad leaf
OPS = {
    "leaf": lambda t: t,
    "mul1": lambda t: t * 1,
    "div1": lambda t: t / 1,
    "add_neg0": lambda t: t + (-0.0),  # keeps -0.0 intact, unlike t + 0
    "sub0": lambda t: t - 0.0,
    "clone": lambda t: t.clone(),
    "view": lambda t: t.view(t.shape),
    "negneg": lambda t: -(-t),  # noqa: B002 - negation applied twice, on purpose
    "sum": lambda t: t.sum(),
    "mean": lambda t: t.mean(),
    "self_add": lambda t: t + t,
    "square": lambda t: t * t,
    "unsqueeze": lambda t: t.unsqueeze(0),
    "to64": lambda t: t.to(__import__("torch").float64),
    "to32": lambda t: t.to(__import__("torch").float32),
    "exp": lambda t: t.exp(),
}
VALUE_PRESERVING_OPS = ["mul1", "div1", "add_neg0", "sub0", "clone", "view", "negneg"]


# ---------------------------------------------------------------- torch side
def build_torch(build: dict):
    """Create the torch tensor (or Parameter) described by a case's ``build``."""
    import torch

    dtype = getattr(torch, build["dtype"])
    base = torch.tensor(build["flat"], dtype=dtype).reshape(build["shape"])
    if build.get("parameter"):
        return torch.nn.Parameter(base, requires_grad=build.get("requires_grad", True))
    op = build.get("op")
    if op is None:
        return base
    leaf = base.requires_grad_(True)
    return OPS[op](leaf)


def grad_fn_name(t):
    fn = t.grad_fn
    if fn is None:
        return None
    name = type(fn).__name__
    if name == "CppFunction":
        name = fn.name().rsplit("::", 1)[-1]
    return name


def describe(t) -> dict:
    """What a backend would hand to ``format_tensor`` for this tensor."""
    import torch

    return {
        "values": t.detach().tolist(),
        "shape": list(t.shape),
        "dtype": str(t.dtype).removeprefix("torch."),
        "requires_grad": bool(t.requires_grad),
        "grad_fn": grad_fn_name(t),
        "parameter": isinstance(t, torch.nn.Parameter),
    }


# ------------------------------------------------------------ case builders
def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def case(name, flat, shape, dtype="float32", op=None, parameter=False, requires_grad=True):
    shape = list(shape)
    if not isinstance(flat, list):
        flat = [flat]
    assert len(flat) == _numel(shape), (name, len(flat), shape)
    build = {"flat": flat, "shape": shape, "dtype": dtype, "op": op}
    if parameter:
        build.update(parameter=True, requires_grad=requires_grad)
    return {"name": name, "build": build}


def seq(n, f):
    return [f(i) for i in range(n)]


def handwritten_cases():
    c = []
    # --- scalars
    c += [
        case("scalar float", 7.0, []),
        case("scalar float frac", 3.14159, []),
        case("scalar grad_fn add", [3.0, 4.0], [2], op="sum"),
        case("scalar add grad_fn", 3.5, [], op="self_add"),
        case("scalar float64", 2.5, [], "float64"),
        case("scalar int", 42, [], "int64"),
        case("scalar negative int", -7, [], "int64"),
        case("scalar bool", True, [], "bool"),
        case("scalar bool false", False, [], "bool"),
        case("scalar nan", NAN, []),
        case("scalar -inf", -INF, []),
        case("scalar neg zero", -0.0, []),
        case("scalar zero", 0.0, []),
        case("scalar tiny", 1e-5, []),
        case("scalar huge", 1e10, []),
        case("scalar requires_grad", 1.5, [], op="leaf"),
        case("scalar float64 grad_fn", [1.5, 2.25], [2], "float64", op="mean"),
        case("scalar 1e8 int mode", 1e8, []),
        case("scalar exp", 0.0, [], op="exp"),
        case("scalar square", 1.1, [], op="square"),
    ]
    # --- 1-D basics
    c += [
        case("vec simple", [4.0, 6.0], [2]),
        case("vec frac", [1.5, 2.0, 3.0, 4.0], [4]),
        case("vec float64", [1.0, 2.0], [2], "float64"),
        case("vec float64 frac", [0.1, 0.2, 0.3], [3], "float64"),
        case("vec int", [1, 2], [2], "int64"),
        case("vec int neg widths", [-100, 5, 12345, 0], [4], "int64"),
        case("vec int big", [2**62, -(2**63), 7], [3], "int64"),
        case("vec bool", [True, False], [2], "bool"),
        case("vec bool all true", [True, True, True], [3], "bool"),
        case("vec nan inf", [NAN, INF, -INF], [3]),
        case("vec all nan", [NAN, NAN], [2]),
        case("vec nan and frac", [NAN, 1.5, -2.25], [3]),
        case("vec inf and frac", [1.5, INF], [2]),
        case("vec inf and ints", [INF, 1.0, -3.0], [3]),
        case("vec sci", [1e-5, 1e5], [2]),
        case("vec sci ratio", [1.0, 1001.0], [2]),
        case("vec ratio exactly 1000", [1.0, 1000.0], [2]),
        case("vec ratio 1000 frac", [0.5, 500.0, 250.25], [3]),
        case("vec int-valued", [1.0, 100.0], [2]),
        case("vec int-valued neg", [-1.0, 100.0, 0.0], [3]),
        case("vec neg zero int mode", [-0.0, 1.0], [2]),
        case("vec neg zero frac", [-0.0, 1.5], [2]),
        case("vec neg zero sci", [-0.0, 1e-7], [2]),
        case("vec all zeros", [0.0, 0.0, 0.0], [3]),
        case("vec zeros and neg zero", [0.0, -0.0], [2]),
        case("vec 1e-4 float32", [1e-4, 1.0], [2]),
        case("vec 1e-4 float64", [1e-4, 0.001], [2], "float64"),
        case("vec 1e8 boundary", [1e8, 2.0], [2]),
        case("vec above 1e8", [1e8 + 8, 2e8], [2]),
        case("vec float32 max", [3.4028234663852886e38, -1.0], [2]),
        case("vec float32 tiny", [1e-45, 1e-38], [2]),
        case("vec float64 huge", [1e300, -1e-300], [2], "float64"),
        case("vec float64 subnormal", [5e-324, 1.0], [2], "float64"),
        case("vec float64 e100", [1e100, 1.5], [2], "float64"),
        case("vec float32 rounding", [0.1, 0.7, 1 / 3], [3]),
        case("vec rounding half", [0.00005, 0.00015, 1.00005], [3], "float64"),
        case("vec large ints in float", [123456789.0, 1.0], [2], "float64"),
        case("vec 1e7 ints", [10000000.0, 1.0, 2.0], [3]),
        case("vec big frac no sci", [12345.678, 99.5], [2], "float64"),
        case("vec negative frac", [-1.25, -0.5, 3.75], [3]),
        case("vec sci with nan", [NAN, 1e-6, 2.0], [3]),
        case("vec sci negative", [-1e-6, 2.5e3], [2]),
        case("vec to64 grad", [0.1, 0.2], [2], op="to64"),
        case("vec to32 grad", [0.1, 1e-300], [2], "float64", op="to32"),
        case("vec single", [5.0], [1]),
        case("vec single int", [5], [1], "int64"),
    ]
    # --- wrapping and suffix wrapping
    c += [
        case("wrap 1-D floats", seq(30, lambda i: i * 1.25 - 7), [30]),
        case("wrap 1-D ints", seq(50, lambda i: i * 37 - 500), [50], "int64"),
        case("wrap 1-D bools", seq(40, lambda i: i % 3 == 0), [40], "bool"),
        case("wrap 1-D sci", seq(20, lambda i: (i + 1) * 10.0 ** (i % 9 - 4)), [20]),
        case("wrap 1-D grad", seq(25, lambda i: i / 7), [25], op="mul1"),
        case("wrap 1-D float64 grad", seq(25, lambda i: i / 7), [25], "float64", op="mul1"),
        case("suffix wraps requires_grad", seq(9, lambda i: i + 0.5), [9], op="leaf"),
        case("suffix wraps grad_fn", seq(9, lambda i: i + 0.5), [9], op="mul1"),
        case("suffix fits", seq(8, lambda i: i + 0.5), [8], op="leaf"),
        case("suffix dtype wraps", seq(9, lambda i: i + 0.5), [9], "float64"),
        case("suffix both wrap", seq(9, lambda i: i + 0.5), [9], "float64", op="leaf"),
        case("suffix 2 lines", seq(10, lambda i: i + 0.5), [10], "float64", op="mul1"),
        case("wrap 2-D rows", seq(40, lambda i: i * 1.5), [2, 20]),
        case("wrap 3-D rows", seq(60, lambda i: i * 1.5), [2, 2, 15], op="clone"),
        case("wrap width 1", seq(100, lambda i: i % 10), [100], "int64"),
    ]
    # --- multi-dim
    c += [
        case("2-D frac requires_grad", [1.5, 2.0, 3.0, 4.0], [2, 2], op="leaf"),
        case("2-D ints", seq(6, lambda i: i * 11), [2, 3], "int64"),
        case("2-D bool", [True, False, False, True], [2, 2], "bool"),
        case("2-D float64 grad_fn", seq(6, lambda i: i / 3), [3, 2], "float64", op="self_add"),
        case("3-D floats", seq(24, lambda i: i - 12.5), [2, 3, 4]),
        case("3-D ints", seq(8, lambda i: i), [2, 2, 2], "int64"),
        case("4-D floats", seq(16, lambda i: i * 0.25), [2, 2, 2, 2]),
        case("5-D ints", seq(32, lambda i: i), [2, 2, 2, 2, 2], "int64"),
        case("shape 1x1x1", [3.0], [1, 1, 1]),
        case("shape 2x1x3", seq(6, lambda i: i * 1e-5), [2, 1, 3]),
        case("column", [1.0, -2.0, 3.5], [3, 1]),
        case("2-D nan row", [NAN, NAN, 1.0, 2.0], [2, 2]),
        case("2-D unsqueeze grad", [1.0, 2.0], [2], op="unsqueeze"),
        case("3-D sci grad", seq(8, lambda i: 10.0 ** (i - 4)), [2, 2, 2], op="view"),
    ]
    # --- empty
    c += [
        case("empty float", [], [0]),
        case("empty 0x3", [], [0, 3]),
        case("empty 3x0", [], [3, 0]),
        case("empty 2x0x4", [], [2, 0, 4]),
        case("empty int", [], [0], "int64"),
        case("empty int 2-D", [], [0, 3], "int64"),
        case("empty bool", [], [0], "bool"),
        case("empty float64", [], [0], "float64"),
        case("empty requires_grad", [], [0], op="leaf"),
        case("empty float64 2-D requires_grad", [], [0, 2], "float64", op="leaf"),
        case("empty grad_fn", [], [2, 0], op="mul1"),
    ]
    # --- summarisation (numel > 1000)
    c += [
        case("summary 1-D 1001", seq(1001, float), [1001]),
        case("summary 1-D 1000 not summarised", seq(1000, lambda i: i * 0.5), [1000]),
        case("summary 1-D int", seq(2000, lambda i: i * 3 - 1000), [2000], "int64"),
        case("summary 1-D bool", seq(1500, lambda i: i % 2 == 0), [1500], "bool"),
        case("summary 2-D", seq(1200, lambda i: (i % 97) / 7), [40, 30]),
        case("summary 2-D narrow", seq(2002, lambda i: i * 1.0), [2, 1001]),
        case("summary 2-D tall", seq(2002, lambda i: i * 1.0), [1001, 2]),
        case("summary 3-D", seq(1100, lambda i: i * 0.001), [11, 10, 10], op="mul1"),
        case("summary 3-D float64", seq(1331, lambda i: (i - 600) * 1.5), [11, 11, 11], "float64"),
        case("summary 4-D", seq(1296, lambda i: i % 13), [6, 6, 6, 6], "int64"),
        case("summary 4-D big", seq(2401, lambda i: i * 1.0), [7, 7, 7, 7]),
        # the middle value is huge but hidden, so it must not influence the format
        case("summary hidden huge", [1.5] * 500 + [1e20] + [2.5] * 500, [1001]),
        case("summary hidden nan", [1.0] * 3 + [NAN] * 995 + [2.0] * 3, [1001]),
        case("summary sci visible", seq(1200, lambda i: 10.0 ** (i % 11 - 5)), [1200]),
    ]
    # --- parameters
    c += [
        case("param 1-D", [1.0, 2.0], [2], parameter=True),
        case("param 2-D frac", seq(6, lambda i: i / 4), [2, 3], parameter=True),
        case("param float64", [0.5, -1.5], [2], "float64", parameter=True),
        case("param no grad", [1.0, 2.0], [2], parameter=True, requires_grad=False),
        case("param scalar", 3.25, [], parameter=True),
        case("param empty", [], [0, 4], parameter=True),
        case("param suffix wrap", seq(9, lambda i: i + 0.5), [9], parameter=True),
    ]
    return c


def _random_value(rng: random.Random, style: str, dtype: str):
    if dtype == "bool":
        return rng.random() < 0.5
    if dtype == "int64":
        scale = rng.choice([1, 10, 1000, 10**6, 10**12, 2**62])
        return rng.randint(-scale, scale)
    special = rng.random()
    if style != "plain" and special < 0.08:
        return rng.choice([NAN, INF, -INF, -0.0, 0.0])
    if style == "ints":
        return float(rng.randint(-1000, 1000))
    if style == "unit":
        return rng.uniform(-10, 10)
    if style == "tiny":
        return rng.uniform(-1, 1) * 10.0 ** rng.randint(-40 if dtype == "float32" else -310, -4)
    if style == "huge":
        return rng.uniform(-1, 1) * 10.0 ** rng.randint(5, 38 if dtype == "float32" else 300)
    if style == "mixed":
        return rng.uniform(-1, 1) * 10.0 ** rng.randint(-8, 9)
    if style == "narrow":
        return rng.choice([1.0, 1.5, 999.0, 1000.0, 1e-4, 1e8, 0.25, 12.5])
    return round(rng.uniform(-100, 100), rng.randint(0, 3))  # "plain"


def random_cases(count=160):
    rng = random.Random(SEED)
    dims_pool = [0, 1, 1, 2, 2, 3, 3, 4, 5, 6, 7, 9, 12]
    out = []
    for k in range(count):
        ndim = rng.choice([0, 1, 1, 2, 2, 3])
        shape = [rng.choice(dims_pool) for _ in range(ndim)]
        if k % 40 == 39:  # a few summarised ones
            shape = [rng.randint(9, 13) for _ in range(3)]
        dtype = rng.choice(["float32", "float64", "int64", "bool"])
        style = rng.choice(["plain", "ints", "unit", "tiny", "huge", "mixed", "narrow"])
        flat = [_random_value(rng, style, dtype) for _ in range(_numel(shape))]
        op = None
        if dtype.startswith("float") and rng.random() < 0.5:
            op = rng.choice(["leaf"] + VALUE_PRESERVING_OPS)
        out.append(case(f"random {k} {dtype} {style} {shape} {op}", flat, shape, dtype, op=op))
    return out


def all_cases():
    return handwritten_cases() + random_cases()


def main():
    import torch

    if not torch.__version__.startswith("2.13."):
        sys.exit(f"expected torch 2.13, found {torch.__version__}")
    records = []
    for c in all_cases():
        t = build_torch(c["build"])
        text = repr(t)
        assert str(t) == text, c["name"]
        records.append({**c, **describe(t), "repr": text})
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    payload = {"torch_version": torch.__version__, "seed": SEED, "cases": records}
    # one case per line keeps the file reviewable and reasonably small
    lines = [json.dumps(r, separators=(",", ":")) for r in records]
    head = json.dumps({k: v for k, v in payload.items() if k != "cases"})[:-1]
    FIXTURE.write_text(head + ', "cases": [\n' + ",\n".join(lines) + "\n]}\n")
    print(f"recorded {len(records)} cases into {FIXTURE}")


if __name__ == "__main__":
    main()
