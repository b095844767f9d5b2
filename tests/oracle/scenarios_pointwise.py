"""Oracle scenarios for the element-wise math of engine/ops/pointwise.py, the reductions of
engine/ops/statistics.py and the masks of engine/ops/masking.py (the rules of
tests/oracle/scenarios.py apply; its SCENARIOS include these)."""

from __future__ import annotations

from tests.oracle.recorder import collect_scenarios


def _values_grads_graph(torch, rec, tag, fn, *data, dtype=None, second=True):
    xs = [torch.tensor(d, dtype=dtype, requires_grad=True) for d in data]
    y = fn(*xs)
    rec.value(f"{tag} y", y)
    rec.graph(f"{tag} graph", y)
    grads = torch.autograd.grad(y.sum(), xs, create_graph=second)
    rec.value(f"{tag} grads", grads)
    if second and any(g.requires_grad for g in grads):
        total = sum((g * g).sum() for g in grads if g.requires_grad)
        rec.value(f"{tag} second", torch.autograd.grad(total, xs, allow_unused=True))


_X = [1.5, -2.3, 0.7, 2.5, -0.5, 0.0, -3.5]
_U = [0.5, -0.3, 0.9, 0.1, -0.95, 0.0, 0.25]
_Y = [0.5, 1.2, -0.4, 2.0, -1.0, 3.0, -0.25]


def op_rounding_functions(torch, rec):
    for name in ("floor", "ceil", "round", "trunc", "frac"):
        _values_grads_graph(torch, rec, name, lambda x, n=name: getattr(x, n)(), _X,
                            second=False)
        rec.value(f"torch.{name} float64", getattr(torch, name)(
            torch.tensor(_X, dtype=torch.float64)))
    rec.value("round half to even", torch.tensor([0.5, 1.5, 2.5, -0.5, -1.5]).round())
    rec.value("round decimals=1", torch.tensor([1.25, -2.349, 0.05]).round(decimals=1))
    x = torch.tensor([1234.5, -987.0], requires_grad=True)
    y = x.round(decimals=-2)
    rec.value("round decimals=-2", y)
    rec.graph("round decimals graph", y)
    rec.value("floor of integers", torch.tensor([3, -4]).floor())
    rec.value("inf and nan", torch.tensor([float("inf"), float("-inf"), float("nan")]).floor())


def op_logs_exponentials_and_erf(torch, rec):
    _values_grads_graph(torch, rec, "log1p", lambda u: u.log1p(), _U)
    _values_grads_graph(torch, rec, "expm1", lambda x: x.expm1(), _X)
    _values_grads_graph(torch, rec, "log2", lambda y: y.abs().log2(), _Y)
    _values_grads_graph(torch, rec, "log10", lambda y: y.abs().log10(), _Y)
    _values_grads_graph(torch, rec, "rsqrt", lambda y: y.abs().rsqrt(), _Y)
    _values_grads_graph(torch, rec, "erf", lambda x: x.erf(), _X)
    _values_grads_graph(torch, rec, "erf float64", lambda x: torch.erf(x), _X,
                        dtype=torch.float64)
    _values_grads_graph(torch, rec, "square", lambda x: x.square(), _X)
    rec.value("log1p small", torch.tensor([1e-10, -1.0, -2.0]).log1p())
    rec.value("expm1 small", torch.tensor([1e-10, 100.0]).expm1())
    rec.value("log2 of ints", torch.tensor([1, 8, 0]).log2())
    rec.value("rsqrt at 0 and below", torch.tensor([0.0, -1.0, 4.0]).rsqrt())


def op_trigonometry(torch, rec):
    _values_grads_graph(torch, rec, "tan", lambda x: x.tan(), _U)
    _values_grads_graph(torch, rec, "asin", lambda u: u.asin(), _U)
    _values_grads_graph(torch, rec, "acos", lambda u: torch.acos(u), _U)
    _values_grads_graph(torch, rec, "atan", lambda x: x.atan(), _X)
    _values_grads_graph(torch, rec, "arcsin alias", lambda u: torch.arcsin(u), _U, second=False)
    _values_grads_graph(torch, rec, "atan2", lambda x, y: x.atan2(y), _X, _Y)
    _values_grads_graph(torch, rec, "atan2 broadcast", lambda x, y: torch.atan2(x, y),
                        [[1.0], [-2.0]], [0.5, -0.5, 0.0])
    rec.value("asin out of range", torch.tensor([1.5, -1.0]).asin())
    rec.value("atan2 of ints", torch.atan2(torch.tensor([1, -1]), torch.tensor([0, 0])))
    rec.value("atan2 zeros", torch.atan2(torch.tensor([0.0, -0.0]), torch.tensor([-1.0, -1.0])))


def op_hypot_and_lerp(torch, rec):
    # (d/dx)^2 + (d/dy)^2 of hypot is 1 everywhere: its second derivative would be rounding noise
    _values_grads_graph(torch, rec, "hypot", lambda x, y: x.hypot(y), _X, _Y, second=False)
    _values_grads_graph(torch, rec, "hypot broadcast", lambda x, y: torch.hypot(x, y),
                        [[3.0], [-5.0]], [4.0, 12.0])
    rec.value("hypot large", torch.hypot(torch.tensor([3e30, 1e-30]), torch.tensor([4e30, 0.0])))
    rec.value("hypot inf nan", torch.hypot(torch.tensor([float("inf")]),
                                           torch.tensor([float("nan")])))
    rec.raises("hypot of ints", lambda: torch.hypot(torch.tensor([3]), torch.tensor([4])))
    for w in (0.0, 0.3, 0.5, 1.0, 1.7):
        _values_grads_graph(torch, rec, f"lerp {w}", lambda x, y, w=w: x.lerp(y, w), _X, _Y)
    _values_grads_graph(torch, rec, "lerp tensor weight", lambda x, y, u: torch.lerp(x, y, u),
                        _X, _Y, _U)
    _values_grads_graph(torch, rec, "lerp broadcast weight",
                        lambda x, y, w: torch.lerp(x, y, w), [[1.0, 2.0], [3.0, 4.0]],
                        [[0.0, -1.0], [5.0, 0.0]], [0.25, 0.75])


_M = [[1.0, 2.0, 4.0, -1.5], [0.0, -1.0, 3.0, 2.5], [0.5, 0.5, -2.0, 1.0]]


def op_var_std_and_logsumexp(torch, rec):
    for tag, fn in (("var", lambda m: m.var()),
                    ("var dim 0", lambda m: m.var(0)),
                    ("var dim 1 keepdim", lambda m: torch.var(m, 1, keepdim=True)),
                    ("var unbiased=False", lambda m: m.var(False)),
                    ("var correction=0 two dims", lambda m: m.var(dim=(0, 1), correction=0)),
                    ("std", lambda m: m.std()),
                    ("std dim 1", lambda m: m.std(1)),
                    ("std correction=2", lambda m: m.std(dim=0, correction=2, keepdim=True)),
                    ("logsumexp dim 1", lambda m: m.logsumexp(1)),
                    ("logsumexp keepdim", lambda m: torch.logsumexp(m, 0, keepdim=True)),
                    ("logsumexp two dims", lambda m: m.logsumexp((0, 1)))):
        # the squared gradient of std is scale-free: its derivative is rounding noise
        _values_grads_graph(torch, rec, tag, fn, _M, second=not tag.startswith("std"))
    _values_grads_graph(torch, rec, "std float64", lambda m: m.std(1), _M, dtype=torch.float64,
                        second=False)
    rec.value("var of one value", torch.tensor([3.0]).var())
    rec.value("std of equal values", torch.tensor([2.0, 2.0]).std())
    x = torch.tensor([2.0, 2.0], requires_grad=True)
    x.std().backward()
    rec.value("std grad at zero spread", x.grad)
    rec.value("logsumexp large", torch.tensor([1000.0, 1000.0]).logsumexp(0))
    rec.value("logsumexp -inf", torch.tensor([-float("inf"), -float("inf")]).logsumexp(0))
    rec.value("logsumexp of ints", torch.tensor([1, 2]).logsumexp(0))


def op_masks_triangles_and_value_tests(torch, rec):
    _values_grads_graph(torch, rec, "masked_fill", lambda m: m.masked_fill(m > 1, -7.0), _M)
    _values_grads_graph(torch, rec, "tril", lambda m: m.tril(), _M)
    _values_grads_graph(torch, rec, "triu 1", lambda m: m.triu(1), _M)
    _values_grads_graph(torch, rec, "tril -1", lambda m: torch.tril(m, -1), _M)
    _values_grads_graph(torch, rec, "nan_to_num", lambda m: (m / torch.tensor(
        [0.0, 1.0, -0.0, 2.0])).nan_to_num(), _M)
    _values_grads_graph(torch, rec, "nan_to_num values", lambda m: torch.nan_to_num(
        m / torch.tensor([0.0, 1.0, -0.0, 2.0]), 1.0, 5.0, -5.0), _M)
    y = torch.tensor(_M) * 1
    y.masked_fill_(y < 0, 0.5)
    rec.value("masked_fill_", y)
    z = torch.tensor(_M, requires_grad=True) * 2
    z.masked_fill_(torch.tensor([True, False, False, True]), torch.tensor(9.0))
    rec.value("masked_fill_ broadcast mask, tensor value", z)
    rec.graph("masked_fill_ graph", z)
    rec.raises("masked_fill int mask", lambda: torch.ones(2).masked_fill(torch.tensor([1, 0]), 0.0))
    rec.raises("tril of a vector", lambda: torch.ones(3).tril())
    v = torch.tensor([[1.0, float("nan"), float("inf")], [0.0, -float("inf"), 2.0]])
    rec.value("isinf", v.isinf())
    rec.value("isfinite", torch.isfinite(v))
    rec.value("isinf of ints", torch.tensor([1, 2]).isinf())
    rec.value("isclose", torch.isclose(v, v))
    rec.value("isclose equal_nan", torch.isclose(v, v, equal_nan=True))
    rec.value("isclose tolerances", torch.isclose(torch.tensor([1.0, 1.1, 100.0]),
                                                  torch.tensor([1.0 + 1e-6, 1.0, 100.001]),
                                                  rtol=1e-4, atol=0.0))
    rec.value("allclose", (torch.allclose(v[:, 0], v[:, 0] + 1e-9), torch.allclose(v, v)))
    rec.value("equal", (torch.equal(v[:, 0], v[:, 0]), torch.equal(v, v),
                        torch.equal(torch.ones(2), torch.ones(3))))
    rec.value("all, any", (v.all(), v.any(1), torch.all(v != 0, 0), torch.tensor([0, 0]).any(),
                           torch.ones(2, 3).all(dim=1, keepdim=True)))
    rec.raises("isclose dtypes", lambda: torch.isclose(torch.ones(2), torch.ones(2).double()))



SCENARIOS = collect_scenarios(globals(), __name__)
