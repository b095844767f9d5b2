"""Oracle scenarios for values torch computes in its own way, bit for bit: linspace (two
halves, each point one fused multiply-add) and x ** p for the exponents torch computes without
pow (0.5, -0.5, -1, 2, 3, -2), with their gradients at -inf, -0.0 and nan. The rules of
tests/oracle/scenarios.py apply; its SCENARIOS include these."""

from __future__ import annotations

from tests.oracle.recorder import collect_scenarios


def linspace_last_bits(torch, rec):
    for dtype in (torch.float32, torch.float64):
        name = str(dtype)
        rec.value(f"{name} -1..1 x20", torch.linspace(-1, 1, 20, dtype=dtype))
        rec.value(f"{name} 0..1 x100", torch.linspace(0, 1, 100, dtype=dtype))
        rec.value(f"{name} 0.1..7.3 x37", torch.linspace(0.1, 7.3, 37, dtype=dtype))
        rec.value(f"{name} -3.3..1000 x1000", torch.linspace(-3.3, 1000.0, 1000, dtype=dtype))
        rec.value(f"{name} 2..-7.1 x33", torch.linspace(2, -7.1, 33, dtype=dtype))
        rec.value(f"{name} one point", torch.linspace(2.5, 9, 1, dtype=dtype))
        rec.value(f"{name} no points", torch.linspace(2.5, 9, 0, dtype=dtype))
        rec.value(f"{name} -inf..1", torch.linspace(float("-inf"), 1, 5, dtype=dtype))
    rec.printed("print", torch.linspace(-1, 1, 20))
    rec.value("int64 25.8..-24.1 x25", torch.linspace(25.8, -24.1, 25, dtype=torch.int64))
    rec.value("int64 33..-5 x32", torch.linspace(32.98, -5, 32, dtype=torch.int64))
    rec.raises("int64 inf", lambda: torch.linspace(float("inf"), 1, 3, dtype=torch.int64))


def pow_by_a_number_as_torch_computes_it(torch, rec):
    specials = [float("-inf"), -2.0, -0.0, 0.0, float("inf"), float("nan"), 0.7, 3.3]
    for p in (0.5, -0.5, -1, 2, 3, -2, 1.5, 2.5, 0, 1):
        x = torch.tensor(specials, requires_grad=True)
        y = x ** p
        y.sum().backward()
        rec.value(f"x ** {p}", y)
        rec.value(f"x ** {p} grad", x.grad)
    ramp = torch.tensor([0.1 * k - 1.55 for k in range(31)], dtype=torch.float32)
    # not 0.5: torch takes sqrt from its vectorised library, which is not always correctly
    # rounded (a known difference, docs/semantics.md)
    for p in (-0.5, 3, -2, 1.5, 1 / 3, 10):
        rec.value(f"ramp ** {p}", ramp.abs() ** p)
    rec.value("float64 ramp ** 3", ramp.double() ** 3)
    rec.value("float64 ramp ** -0.5", ramp.double().abs() ** -0.5)


def sgn_sends_torchs_zero_gradient(torch, rec):
    """sgn's gradient is torch's efficient zero: mul, div, exp, sum, views, cat... pass it on
    as exact +0 (no nan from an inf factor, no -0.0); neg, tanh, expand, mean... read it as
    zeros; added to another gradient it leaves that one unchanged. sign's is zeros_like."""
    inf = float("inf")
    w = torch.tensor([-2.0, inf, 3.0, -1.0])
    chains = {
        "mul": lambda a: a.sgn(), "exp": lambda a: a.exp().sgn(), "log": lambda a: a.log().sgn(),
        "sum": lambda a: a.sum().sgn(), "reshape": lambda a: a.reshape(2, 2).sgn(),
        "cat": lambda a: torch.cat([a, a]).sgn(), "pow": lambda a: (a ** 2).sgn(),
        "neg": lambda a: (-a).sgn(), "tanh": lambda a: a.tanh().sgn(),
        "expand": lambda a: a.expand(2, 4).sgn(), "mean": lambda a: a.mean().sgn(),
        "slice": lambda a: a[1:].sgn(), "sign": lambda a: a.sign(),
        "sign mul": lambda a: (a * 2).sign(),
    }
    for name, f in chains.items():
        x = torch.tensor([0.5, 1.5, 2.0, 0.25], requires_grad=True)
        y = f(x * w)
        (g,) = torch.autograd.grad(y, x, torch.full(y.shape, -1.0))
        rec.value(f"{name}: grad", g.clone())
    x = torch.tensor([0.5, 1.5, 2.0, 0.25], requires_grad=True)
    (x * w).sgn().sum().backward()
    rec.value("backward into a leaf", x.grad.clone())
    x = torch.tensor([1.0, -2.0, 0.0], requires_grad=True)
    y = x * torch.tensor([-1.0, 2.0, 3.0])
    z = (y * 0.0).sum() + y.sgn().sum()
    (g,) = torch.autograd.grad(z, x)
    rec.value("sgn's zero added to -0.0", g.clone())
    x = torch.tensor([0.5, -0.0, 0.0, -1.0], requires_grad=True)
    y = torch.nn.functional.softsign(x)
    (g,) = torch.autograd.grad(y, x, torch.tensor([-1.0, -1.0, 1.0, 2.0]), create_graph=True)
    (gg,) = torch.autograd.grad(g, x, torch.tensor([-1.0, 1.0, -1.0, 1.0]))
    rec.value("softsign second derivative", gg)


SCENARIOS = collect_scenarios(globals(), __name__)
