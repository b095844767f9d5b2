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



SCENARIOS = collect_scenarios(globals(), __name__)
