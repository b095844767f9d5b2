"""Oracle scenarios for % and // (engine/ops/modulo.py), products and running totals
(engine/ops/cumulative.py), norms (engine/ops/norms.py) and sorting and selection
(engine/ops/sorting.py). The rules of tests/oracle/scenarios.py apply; its SCENARIOS include
these."""

from __future__ import annotations

from tests.oracle.recorder import collect_scenarios


def _grads(torch, rec, tag, y, xs, second=False):
    """Record y, its graph, the gradients of y.sum() and (second) of their squares' sum."""
    rec.value(f"{tag} y", y)
    rec.graph(f"{tag} graph", y)
    grads = torch.autograd.grad(y.sum(), xs, create_graph=second, allow_unused=True)
    rec.value(f"{tag} grads", grads)
    live = [g for g in grads if g is not None and g.requires_grad]
    if second and live:
        total = sum((g * g).sum() for g in live)
        rec.value(f"{tag} second", torch.autograd.grad(total, xs, allow_unused=True))


_A = [5.5, -3.5, 3.5, -5.5, 7.0, -4.0, 0.25, 0.0]
_B = [2.0, 2.0, -2.0, -2.0, 2.5, 2.0, -0.5, 3.0]


# -- % and // ------------------------------------------------------------------------------------

def modulo_values_and_zero_signs(torch, rec):
    a, b = torch.tensor(_A), torch.tensor(_B)
    rec.value("a % b", a % b)
    rec.printed("print(a % b)", a % b)
    rec.value("fmod", torch.fmod(a, b))
    rec.printed("print(fmod)", a.fmod(b))
    rec.value("a // b", a // b)
    rec.printed("print(a // b)", a // b)
    rec.value("a % 2", a % 2)
    rec.value("a % -1.5", a.remainder(-1.5))
    rec.value("7 % b", 7 % b)
    rec.value("7 // b", 7 // b)
    rec.value("a // -2", a // -2)
    rec.value("float64", torch.tensor(_A, dtype=torch.float64) % torch.tensor(
        _B, dtype=torch.float64))
    rec.value("div floor", torch.div(a, b, rounding_mode="floor"))
    rec.value("div trunc", torch.div(a, b, rounding_mode="trunc"))
    rec.value("div trunc by number", a.div(-2, rounding_mode="trunc"))


def modulo_special_values(torch, rec):
    inf, nan = float("inf"), float("nan")
    a = torch.tensor([1.0, -1.0, inf, -inf, nan, 0.0, 1.0, -2.0, 0.0])
    b = torch.tensor([0.0, 0.0, 2.0, 2.0, 2.0, 0.0, inf, inf, -inf])
    rec.value("remainder", a % b)
    rec.value("fmod", a.fmod(b))
    rec.value("floor_divide", a // b)
    rec.value("div trunc", torch.div(a, b, rounding_mode="trunc"))


def modulo_integers_and_dtypes(torch, rec):
    i = torch.tensor([7, -7, 7, -7, 0])
    j = torch.tensor([3, 3, -3, -3, 5])
    rec.value("int %", i % j)
    rec.value("int fmod", i.fmod(j))
    rec.value("int //", i // j)
    rec.value("int div trunc", torch.div(i, j, rounding_mode="trunc"))
    rec.value("int % 2.5", i % 2.5)
    rec.value("int // 2.5", i // 2.5)
    rec.value("5 % int", 5 % j)
    rec.value("bool % 2", torch.tensor([True, False]) % 2)
    rec.value("int % float tensor", i % torch.tensor(2.5))
    rec.value("floor_divide(7, 2)", torch.floor_divide(7, 2))
    rec.raises("int % 0", lambda: i % 0)
    rec.value("int % 0 with nothing to divide", torch.zeros(0, dtype=torch.int64) % 0)
    rec.raises("int // zero tensor", lambda: i // torch.tensor([1, 1, 0, 1, 1]))
    rec.raises("int fmod 0", lambda: i.fmod(0))
    rec.raises("div int floor 0", lambda: torch.div(i, 0, rounding_mode="floor"))
    rec.raises("bool % bool", lambda: torch.tensor([True]) % torch.tensor([True]))
    rec.raises("bool fmod bool", lambda: torch.tensor([True]).fmod(torch.tensor([True])))
    rec.raises("bool // bool", lambda: torch.tensor([True]) // torch.tensor([True]))
    rec.raises("div rounding_mode round", lambda: torch.div(i, j, rounding_mode="round"))
    rec.raises("fmod(number, tensor)", lambda: torch.fmod(5, j))
    rec.raises("broadcast", lambda: torch.tensor([1.0, 2.0]) % torch.tensor([1.0, 2.0, 3.0]))


def modulo_gradients_and_grad_fns(torch, rec):
    for name, fn in (("remainder", lambda a, b: a % b), ("fmod", lambda a, b: a.fmod(b))):
        a = torch.tensor(_A, requires_grad=True)
        b = torch.tensor(_B, requires_grad=True)
        _grads(torch, rec, f"{name} tensors", fn(a, b), (a, b), second=True)
        a = torch.tensor(_A, requires_grad=True)
        _grads(torch, rec, f"{name} number", fn(a, 2.0), (a,))
        a = torch.tensor(_A, requires_grad=True)
        _grads(torch, rec, f"{name} 0-dim tensor", fn(a, torch.tensor(2.0)), (a,))
        a = torch.tensor([[1.5, -2.5], [3.0, 4.5]], requires_grad=True)
        b = torch.tensor([2.0, -1.5], requires_grad=True)
        _grads(torch, rec, f"{name} broadcast", fn(a, b), (a, b))
    a = torch.tensor(_A, requires_grad=True)
    b = torch.tensor(_B, requires_grad=True)
    _grads(torch, rec, "div floor", torch.div(a, b, rounding_mode="floor"), (a, b))
    _grads(torch, rec, "div trunc number", a.div(2, rounding_mode="trunc"), (a,))


def modulo_not_differentiable(torch, rec):
    a = torch.tensor([1.5, -2.0, 3.0], requires_grad=True)
    b = torch.tensor([2.0, 2.0, -2.0], requires_grad=True)
    for label, y in (("a // 2", a // 2), ("a // b", a // b), ("5 // a", 5 // a),
                     ("5 % a", 5 % a), ("floor_divide", torch.floor_divide(a, b))):
        rec.value(label, y)
        rec.graph(f"{label} graph", y)
        rec.raises(f"{label} backward", lambda y=y: y.sum().backward())
    rec.value("a.grad", a.grad)


def modulo_inplace(torch, rec):
    a = torch.tensor(_A, requires_grad=True)
    y = a * 1.0
    y %= 2
    rec.value("y %= 2", y)
    rec.graph("y %= 2 graph", y)
    y.sum().backward()
    rec.value("a.grad", a.grad)
    b = torch.tensor(_B, requires_grad=True)
    z = b * 1.0
    rec.value("fmod_ returns self", z.fmod_(torch.tensor(1.5)) is z)
    rec.graph("fmod_ graph", z)
    z = b * 2.0
    z.remainder_(torch.tensor(_A))
    rec.value("remainder_ tensor", z)
    w = b * 3.0
    w //= 2
    rec.value("w //= 2", w)
    rec.graph("w //= 2 graph", w)
    w2 = b * 1.0
    w2.floor_divide_(torch.tensor(2.0))
    rec.graph("floor_divide_ graph", w2)
    d = b * 1.0
    d.div_(3, rounding_mode="floor")
    rec.value("div_ floor", d)
    rec.graph("div_ floor graph", d)
    i = torch.tensor([7, -7])
    i %= 3
    rec.value("int %= 3", i)
    i //= 2
    rec.value("int //= 2", i)
    rec.raises("int %= 2.5", lambda: i.remainder_(2.5))
    rec.raises("leaf %= 2", lambda: a.remainder_(2))


# -- prod, cumsum, cumprod ----------------------------------------------------------------------

def prod_values_dtypes_and_errors(torch, rec):
    x = torch.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]])
    rec.value("prod", x.prod())
    rec.value("prod(0)", x.prod(0))
    rec.value("prod(-1, keepdim)", torch.prod(x, -1, keepdim=True))
    rec.value("prod dtype float64", x.prod(dtype=torch.float64))
    rec.value("prod(1, dtype)", x.prod(1, dtype=torch.float64))
    rec.value("int prod", torch.tensor([[1, 2], [3, 4]]).prod())
    rec.value("int prod(0)", torch.tensor([[1, 2], [3, 4]]).prod(0))
    rec.value("bool prod", torch.tensor([True, False]).prod())
    rec.value("bool prod(0)", torch.tensor([[True, True]]).prod(1))
    rec.value("0-dim prod(0)", torch.tensor(3.0).prod(0))
    rec.value("empty prod", torch.zeros(0).prod())
    rec.value("empty dim prod", torch.zeros(2, 0).prod(1))
    rec.value("nan and inf", torch.tensor([2.0, float("inf"), 0.0]).prod())
    rec.printed("print", x.prod(1))
    rec.raises("prod dim out of range", lambda: x.prod(2))
    rec.raises("prod tuple dim", lambda: x.prod((0, 1)))


def prod_gradients_with_zeros(torch, rec):
    for tag, data in (("no zero", [2.0, -1.5, 3.0, 0.5]), ("one zero", [2.0, 0.0, 3.0, 4.0]),
                      ("two zeros", [2.0, 0.0, 3.0, 0.0, 5.0]), ("nan", [2.0, float("nan"), 3.0]),
                      ("inf", [2.0, float("inf"), 3.0]), ("all zero", [0.0, 0.0])):
        x = torch.tensor(data, requires_grad=True)
        _grads(torch, rec, f"prod {tag}", x.prod(), (x,), second=True)
    x = torch.tensor([[2.0, 0.0, 3.0], [1.0, 2.0, 3.0], [0.0, 4.0, 0.0]], requires_grad=True)
    _grads(torch, rec, "prod(1) zeros", x.prod(1), (x,), second=True)
    x = torch.tensor([[2.0, 0.0, 3.0], [1.0, 2.0, 3.0], [0.0, 4.0, 0.0]], requires_grad=True)
    _grads(torch, rec, "prod(0, keepdim) zeros", x.prod(0, keepdim=True), (x,), second=True)
    x = torch.tensor([[2.0, 1.5], [-1.0, 3.0]], requires_grad=True)
    _grads(torch, rec, "prod(-1) no zero", x.prod(-1), (x,), second=True)
    x = torch.tensor(2.5, requires_grad=True)
    _grads(torch, rec, "prod 0-dim", x.prod(), (x,), second=True)
    x = torch.tensor(2.5, requires_grad=True)
    _grads(torch, rec, "prod 0-dim dim", x.prod(0), (x,))
    x = torch.tensor([[1.0, 2.0]], requires_grad=True)
    y = x.prod(1)
    y.backward(torch.tensor([3.0]))
    rec.value("prod grad argument", x.grad)


def cumsum_and_cumprod(torch, rec):
    x = torch.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]])
    rec.value("cumsum(0)", x.cumsum(0))
    rec.value("cumsum(1)", torch.cumsum(x, dim=1))
    rec.value("cumsum(-1) float64", x.cumsum(-1, dtype=torch.float64))
    rec.value("cumprod(1)", x.cumprod(1))
    rec.value("cumprod(0)", torch.cumprod(x, 0))
    rec.value("int cumsum", torch.tensor([1, 2, 3]).cumsum(0))
    rec.value("bool cumsum", torch.tensor([True, True, False]).cumsum(0))
    rec.value("int cumprod", torch.tensor([1, -2, 3]).cumprod(0))
    rec.value("0-dim cumsum", torch.tensor(2.5).cumsum(0))
    rec.value("empty cumprod", torch.zeros(0).cumprod(0))
    rec.value("float32 accumulates wide", torch.tensor([1e8, 1.0, 1.0, 1.0, -1e8]).cumsum(0))
    rec.printed("print", x.cumsum(1))
    rec.raises("cumsum dim out of range", lambda: x.cumsum(2))
    rec.raises("cumsum without dim", lambda: x.cumsum())


def cumsum_cumprod_gradients(torch, rec):
    x = torch.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], requires_grad=True)
    _grads(torch, rec, "cumsum(1)", x.cumsum(1) * x, (x,), second=True)
    x = torch.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], requires_grad=True)
    _grads(torch, rec, "cumsum(0)", x.cumsum(0), (x,))
    for tag, data in (("no zero", [[2.0, -1.5, 3.0, 0.5]]),
                      ("zeros", [[2.0, 0.0, 3.0, 4.0], [0.0, 1.5, 0.0, 2.0]]),
                      ("nan", [[2.0, float("nan"), 3.0]])):
        x = torch.tensor(data, requires_grad=True)
        _grads(torch, rec, f"cumprod {tag}", x.cumprod(1), (x,), second=True)
    x = torch.tensor([[2.0, 0.0], [3.0, 4.0], [0.5, 0.0]], requires_grad=True)
    _grads(torch, rec, "cumprod(0) zeros", x.cumprod(0), (x,), second=True)
    x = torch.tensor(2.5, requires_grad=True)
    _grads(torch, rec, "cumprod 0-dim", x.cumprod(0), (x,))


# -- norms ---------------------------------------------------------------------------------------

_M = [[3.0, -4.0, 0.0], [1.0, 2.0, -2.0]]


def norm_values_and_errors(torch, rec):
    x = torch.tensor(_M)
    inf = float("inf")
    for p in (2, 1, inf, -inf, 0, 3, 0.5, 1.5):
        rec.value(f"x.norm(p={p})", x.norm(p=p))
        rec.value(f"vector_norm(ord={p}, dim=1)", torch.linalg.vector_norm(x, p, dim=1))
    rec.value("norm()", x.norm())
    rec.printed("print(norm)", torch.norm(x))
    rec.value("norm fro", x.norm(p="fro"))
    rec.value("norm fro dim 1", x.norm(p="fro", dim=1))
    rec.value("norm dim 0 keepdim", x.norm(dim=0, keepdim=True))
    rec.value("norm dims (0, 1) keepdim", x.norm(dim=(0, 1), keepdim=True))
    rec.value("norm dtype", x.norm(dtype=torch.float64))
    rec.value("vector_norm dim -1 keepdim", torch.linalg.vector_norm(x, dim=-1, keepdim=True))
    rec.value("vector_norm of nothing", torch.linalg.vector_norm(torch.zeros(0)))
    rec.value("vector_norm 0-dim", torch.linalg.vector_norm(torch.tensor(-3.0)))
    rec.value("linalg.norm", torch.linalg.norm(x))
    for o in (1, -1, inf, -inf, "fro"):
        rec.value(f"linalg.norm(ord={o})", torch.linalg.norm(x, o))
    rec.value("linalg.norm vector ord 3", torch.linalg.norm(x[0], 3))
    rec.value("linalg.norm dim 0 ord 1", torch.linalg.norm(x, 1, dim=0))
    rec.value("linalg.norm dims (1, 0) ord 1", torch.linalg.norm(x, 1, dim=(1, 0)))
    rec.value("linalg.norm ord inf keepdim", torch.linalg.norm(x, inf, keepdim=True))
    rec.value("matrix_norm", torch.linalg.matrix_norm(x))
    rec.value("matrix_norm ord -1", torch.linalg.matrix_norm(x, -1))
    rec.value("float64", torch.linalg.vector_norm(torch.tensor(_M, dtype=torch.float64), 3))
    rec.raises("int norm", lambda: torch.tensor([3, 4]).norm())
    rec.raises("int vector_norm", lambda: torch.linalg.vector_norm(torch.tensor([3, 4])))
    rec.raises("vector_norm ord str", lambda: torch.linalg.vector_norm(x, "fro"))
    rec.raises("inf norm of nothing", lambda: torch.linalg.vector_norm(torch.zeros(0), inf))
    rec.raises("matrix ord 3", lambda: torch.linalg.norm(x, 3))
    rec.raises("matrix_norm of a vector", lambda: torch.linalg.matrix_norm(x[0]))
    rec.raises("linalg.norm 3-D with ord", lambda: torch.linalg.norm(torch.ones(2, 2, 2), 1))
    rec.raises("norm dim out of range", lambda: x.norm(dim=2))


def norm_gradients(torch, rec):
    inf = float("inf")
    data = [[3.0, -4.0, 0.0], [0.0, 0.0, 0.0], [1.0, 1.0, -1.0]]
    for p in (2, 1, inf, -inf, 3, 0.5, 1.5):
        x = torch.tensor(data, requires_grad=True)
        _grads(torch, rec, f"vector_norm {p} dim 1", torch.linalg.vector_norm(x, p, dim=1), (x,),
               second=p == 2)
    x = torch.tensor(data, requires_grad=True)
    rec.raises("ord 0 has no gradient", lambda: torch.autograd.grad(x.norm(p=0), x))
    rec.value("ord 0 allow_unused", torch.autograd.grad(x.norm(p=0), x, allow_unused=True))
    x = torch.tensor(_M, requires_grad=True)
    _grads(torch, rec, "norm()", x.norm(), (x,), second=True)
    x = torch.tensor(_M, requires_grad=True)
    _grads(torch, rec, "norm keepdim", x.norm(dim=0, keepdim=True), (x,), second=True)
    x = torch.tensor([[0.0, 0.0], [0.0, 0.0]], requires_grad=True)
    _grads(torch, rec, "norm of zeros", x.norm(), (x,))
    x = torch.tensor([1.0, float("nan"), -2.0], requires_grad=True)
    _grads(torch, rec, "norm with nan", x.norm(), (x,))
    x = torch.tensor([1.0, float("nan"), -2.0], requires_grad=True)
    _grads(torch, rec, "inf norm with nan", x.norm(p=inf), (x,))
    x = torch.tensor([[2.0, -2.0, 1.0], [-2.0, 0.5, 2.0]], requires_grad=True)
    _grads(torch, rec, "inf norm ties", x.norm(p=inf), (x,))
    for o in (1, -1, inf, "fro"):
        x = torch.tensor(_M, requires_grad=True)
        _grads(torch, rec, f"linalg.norm ord {o}", torch.linalg.norm(x, o), (x,))
    x = torch.tensor(_M, requires_grad=True)
    _grads(torch, rec, "norm dtype float64", x.norm(dtype=torch.float64), (x,))


# -- sort, topk, median, kthvalue, mode ---------------------------------------------------------

_TIES = [2.0, 1.0, 2.0, 1.0, 2.0, 0.0, 3.0, 1.0, 2.0, 0.0, 1.0, 2.0, 3.0, 3.0, 1.0, 2.0, 0.0,
         1.0, 2.0, 2.0, 1.0, 0.0, 3.0]


def sort_values_indices_and_ties(torch, rec):
    x = torch.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
    rec.value("sort", x.sort())
    rec.printed("print(sort)", x.sort())
    rec.value("sort dim 0 descending", torch.sort(x, 0, descending=True))
    rec.value("sort stable", torch.sort(x, stable=True, dim=0))
    rec.value("argsort", x.argsort(dim=0, descending=True))
    rec.value("argsort stable", torch.argsort(torch.tensor(_TIES), stable=True))
    rec.value("msort", torch.msort(x))
    t = torch.tensor(_TIES)
    rec.value("ties (std::sort)", t.sort())
    rec.value("ties descending", t.sort(descending=True))
    rec.value("ties stable descending", t.sort(descending=True, stable=True))
    rec.value("nan", torch.tensor([2.0, float("nan"), 1.0, float("nan"), 0.0]).sort())
    rec.value("nan descending", torch.tensor([2.0, float("nan"), 1.0]).sort(descending=True))
    rec.value("int", torch.tensor([3, 1, 2, 1]).sort())
    rec.value("bool", torch.tensor([True, False, True]).sort())
    rec.value("0-dim", torch.tensor(2.0).sort())
    rec.value("empty", torch.zeros(0).sort())
    r = x.sort()
    values, indices = r
    rec.value("unpacked", (values, indices))
    rec.value("by name", (r.values, r.indices))
    rec.value("r[1]", r[1])
    rec.raises("sort dim out of range", lambda: x.sort(2))


def topk_kthvalue_median_mode(torch, rec):
    x = torch.tensor([[3.0, 1.0, 2.0, 2.0], [0.0, 5.0, 4.0, 5.0]])
    rec.value("topk 2", x.topk(2))
    rec.printed("print(topk)", x.topk(2))
    rec.value("topk smallest dim 0", torch.topk(x, 1, dim=0, largest=False))
    rec.value("topk unsorted", x.topk(3, sorted=False))
    rec.value("topk 0", x.topk(0))
    t = torch.tensor(_TIES)
    for k in (1, 3, 7, 23):
        rec.value(f"ties topk {k}", t.topk(k))
        rec.value(f"ties topk {k} smallest", t.topk(k, largest=False))
    big = torch.tensor([float(v % 7) for v in range(150)])
    rec.value("partial_sort path", big.topk(2))
    rec.value("topk nan", torch.tensor([1.0, float("nan"), 3.0]).topk(2))
    rec.value("median", x.median())
    rec.printed("print(median)", x.median())
    rec.value("median dim 1", x.median(1))
    rec.printed("print(median dim)", x.median(1))
    rec.value("median dim 0 keepdim", x.median(0, keepdim=True))
    rec.value("median ties", t.median(0))
    rec.value("median nan", torch.tensor([2.0, 1.0, float("nan"), 0.0]).median(0))
    rec.value("median all nan", torch.tensor([2.0, float("nan")]).median())
    rec.value("median of nothing", torch.zeros(0).median())
    rec.value("median int", torch.tensor([3, 1, 2, 4]).median())
    rec.value("kthvalue", x.kthvalue(2))
    rec.value("kthvalue dim 0 keepdim", x.kthvalue(1, 0, keepdim=True))
    for k in (1, 2, 5, 12, 23):
        rec.value(f"ties kthvalue {k}", t.kthvalue(k))
    rec.value("kthvalue nan", torch.tensor([1.0, float("nan"), 0.0]).kthvalue(3))
    rec.value("mode", x.mode())
    rec.value("mode dim 0", x.mode(0))
    rec.value("ties mode", t.mode())
    rec.value("mode int", torch.tensor([[1, 2, 2, 1, 3]]).mode(1, keepdim=True))
    rec.value("0-dim", (torch.tensor(2.0).topk(1), torch.tensor(2.0).median(0),
                        torch.tensor(2.0).kthvalue(1), torch.tensor(2.0).mode()))
    rec.raises("topk k too big", lambda: x.topk(5))
    rec.raises("topk k negative", lambda: x.topk(-1))
    rec.raises("kthvalue 0", lambda: x.kthvalue(0))
    rec.raises("kthvalue too big dim 0", lambda: x.kthvalue(3, 0))
    rec.raises("median of an empty dim", lambda: torch.zeros(2, 0).median(1))
    rec.value("median of no ints", torch.zeros(0, dtype=torch.int64).median())
    rec.raises("median bool", lambda: torch.tensor([True, False]).median())
    rec.raises("median bool dim", lambda: torch.tensor([True, False]).median(0))
    rec.raises("topk bool", lambda: torch.tensor([True, False]).topk(1))
    rec.raises("kthvalue bool", lambda: torch.tensor([True, False]).kthvalue(1))
    rec.raises("mode of an empty dim", lambda: torch.zeros(2, 0).mode())
    rec.raises("kthvalue of an empty dim", lambda: torch.zeros(0).kthvalue(1))
    rec.value("0-dim topk 0", torch.tensor(1.5).topk(0))
    rec.value("mode bool", torch.tensor([True, False]).mode())


def sort_selection_gradients(torch, rec):
    data = [[3.0, 1.0, 2.0, 2.0], [0.0, 5.0, 4.0, 5.0]]
    cases = (("sort", lambda x: x.sort().values), ("sort desc dim 0",
             lambda x: x.sort(0, descending=True).values),
             ("sort stable", lambda x: x.sort(stable=True).values),
             ("topk", lambda x: x.topk(2).values), ("topk smallest",
             lambda x: x.topk(2, largest=False).values),
             ("median", lambda x: x.median()), ("median dim", lambda x: x.median(1).values),
             ("median keepdim", lambda x: x.median(0, keepdim=True)[0]),
             ("kthvalue", lambda x: x.kthvalue(2).values), ("mode", lambda x: x.mode().values))
    for tag, fn in cases:
        x = torch.tensor(data, requires_grad=True)
        y = fn(x)
        # (median()'s gradient, differentiated again, is MaskedFillBackward1 in torch)
        _grads(torch, rec, tag, y * y, (x,), second=tag != "median")
    t = torch.tensor(_TIES, requires_grad=True)
    rec.value("ties topk grad", torch.autograd.grad(t.topk(5).values.sum(), t))
    rec.value("ties kthvalue grad", torch.autograd.grad(t.kthvalue(6).values, t))
    rec.value("ties mode grad", torch.autograd.grad(t.mode().values, t))
    rec.value("ties median grad", torch.autograd.grad(t.median(), t))
    rec.value("ties median dim grad", torch.autograd.grad(t.median(0).values, t))
    n = torch.tensor([1.0, float("nan"), 2.0, float("nan")], requires_grad=True)
    rec.value("median nan grad", torch.autograd.grad(n.median(), n))
    rec.value("sort nan grad", torch.autograd.grad((n.sort().values * torch.tensor(
        [1.0, 2.0, 3.0, 4.0])).sum(), n))
    x = torch.tensor(data, requires_grad=True)
    v, i = x.topk(2)
    v.backward(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    rec.value("topk grad argument", x.grad)
    rec.graph("topk graph", v)



SCENARIOS = collect_scenarios(globals(), __name__)
