"""Oracle scenarios for the ops added for issue 11's section 3 (the API learners reach for):
exp2, xlogy, heaviside, logspace, meshgrid, cartesian_prod, block_diag, cummax/cummin,
logcumsumexp, aminmax, var_mean/std_mean, diff, cross/linalg.cross, searchsorted/bucketize,
histc and cdist: values, gradients, graphs, printing and torch's errors. The rules of
tests/oracle/scenarios.py apply; its SCENARIOS include these. (meshgrid without `indexing` and
cross without `dim` warn once per process in torch, so they are left out.)"""

from __future__ import annotations

from tests.oracle.recorder import collect_scenarios

NAN = float("nan")
INF = float("inf")


def exp2_xlogy_heaviside(torch, rec):
    t = torch.tensor([0.5, -1.0, 10.0, -INF, NAN], requires_grad=True)
    e = torch.exp2(t)
    rec.value("exp2", e)
    rec.graph("exp2 graph", e)
    rec.value("exp2 grad", torch.autograd.grad(e.sum(), t)[0])
    rec.value("exp2 int", torch.exp2(torch.tensor([1, 2, -1])))
    rec.value("exp2 float64", torch.exp2(torch.tensor([0.5, 3.0], dtype=torch.float64)))
    x = torch.tensor([0.0, 1.0, 2.0, 0.0, 0.0], requires_grad=True)
    y = torch.tensor([2.0, 3.0, -1.0, NAN, 0.0], requires_grad=True)
    r = torch.xlogy(x, y)
    rec.value("xlogy", r)
    rec.graph("xlogy graph", r)
    gx, gy = torch.autograd.grad(r.sum(), [x, y])
    rec.value("xlogy grad x", gx)
    rec.value("xlogy grad y", gy)
    r = torch.xlogy(2, y)
    rec.graph("xlogy(number, t) graph", r)
    rec.value("xlogy(number, t) grad", torch.autograd.grad(r.sum(), y)[0])
    r = torch.xlogy(x, 3.0)
    rec.graph("xlogy(t, number) graph", r)
    rec.value("xlogy(t, number) grad", torch.autograd.grad(r.sum(), x)[0])
    rec.value("xlogy(t, 0)", torch.xlogy(x, 0.0))
    rec.value("xlogy ints", torch.xlogy(torch.tensor([0, 1, 2]), torch.tensor([0, 3, 4])))
    rec.value("x.xlogy(y)", x.xlogy(y))
    h = torch.heaviside(torch.tensor([-1.0, 0.0, 2.0, NAN], requires_grad=True),
                        torch.tensor([0.5]))
    rec.value("heaviside", h)
    rec.graph("heaviside graph", h)
    rec.raises("heaviside backward", lambda: h.sum().backward())
    rec.raises("heaviside dtypes", lambda: torch.heaviside(torch.tensor([1.0]),
                                                          torch.tensor([1])))
    rec.value("heaviside ints", torch.heaviside(torch.tensor([1, 0, -2]), torch.tensor(7)))


def logspace_values(torch, rec):
    rec.value("logspace 0..2 x5", torch.logspace(0, 2, 5))
    rec.value("logspace -1..1.5 x7 base 2", torch.logspace(-1, 1.5, 7, base=2))
    rec.value("logspace float64 x13", torch.logspace(-3.3, 4.1, 13, dtype=torch.float64))
    rec.value("logspace one", torch.logspace(1, 3, 1))
    rec.value("logspace none", torch.logspace(1, 3, 0))
    rec.value("logspace int64", torch.logspace(0, 3, 4, dtype=torch.int64))
    rec.value("logspace base 0.5", torch.logspace(0, 4, 5, base=0.5))
    rec.printed("print logspace", torch.logspace(0, 1, 4))
    rec.raises("logspace negative steps", lambda: torch.logspace(0, 1, -1))


def grids_meshgrid_cartesian_block_diag(torch, rec):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0, 5.0], requires_grad=True)
    for indexing in ("ij", "xy"):
        g = torch.meshgrid(a, b, indexing=indexing)
        rec.value(f"meshgrid {indexing}", list(g))
        rec.graph(f"meshgrid {indexing} graph", g[0])
        ga, gb = torch.autograd.grad((g[0] * g[1]).sum(), [a, b])
        rec.value(f"meshgrid {indexing} grads", [ga, gb])
    rec.value("meshgrid list", list(torch.meshgrid([a, b], indexing="ij")))
    rec.value("meshgrid one", list(torch.meshgrid(a, indexing="xy")))
    rec.value("meshgrid 0-dim", list(torch.meshgrid(torch.tensor(2.0), b, indexing="ij")))
    rec.raises("meshgrid bad indexing", lambda: torch.meshgrid(a, b, indexing="ji"))
    rec.raises("meshgrid 2-D", lambda: torch.meshgrid(torch.zeros(2, 2), b, indexing="ij"))
    rec.raises("meshgrid dtypes", lambda: torch.meshgrid(a, torch.tensor([1, 2]),
                                                         indexing="ij"))
    c = torch.cartesian_prod(a, b)
    rec.value("cartesian_prod", c)
    rec.graph("cartesian_prod graph", c)
    rec.value("cartesian_prod grad", torch.autograd.grad((c * c).sum(), [a, b]))
    rec.value("cartesian_prod one", torch.cartesian_prod(a))
    rec.value("cartesian_prod three", torch.cartesian_prod(a, b, torch.tensor([7.0])))
    rec.raises("cartesian_prod 2-D", lambda: torch.cartesian_prod(torch.zeros(2, 2), a))
    m = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    bd = torch.block_diag(m, b, torch.tensor(7.0), torch.zeros(0, 2))
    rec.value("block_diag", bd)
    rec.graph("block_diag graph", bd)
    rec.value("block_diag grads", torch.autograd.grad((bd * torch.arange(
        float(bd.numel())).reshape(bd.shape)).sum(), [m, b]))
    rec.value("block_diag ints and floats", torch.block_diag(torch.tensor([[1, 2]]),
                                                             torch.tensor([[0.5]])))
    rec.value("block_diag none", torch.block_diag())
    rec.raises("block_diag 3-D", lambda: torch.block_diag(torch.zeros(1, 1, 1)))


def running_cummax_cummin_logcumsumexp(torch, rec):
    x = torch.tensor([[1.0, 3.0, 3.0, 0.5], [2.0, -1.0, 4.0, 4.0]], requires_grad=True)
    r = torch.cummax(x, 1)
    rec.printed("print cummax", r)
    rec.value("cummax", list(r))
    rec.graph("cummax graph", r.values)
    rec.value("cummax grad", torch.autograd.grad(r.values, x, torch.arange(8.0).reshape(2, 4))[0])
    r = x.cummin(dim=0)
    rec.value("cummin", list(r))
    rec.value("cummin grad", torch.autograd.grad(r[0].sum(), x)[0])
    s = torch.tensor([1.0, NAN, 3.0, INF, -INF])
    rec.value("cummax nan", list(torch.cummax(s, 0)))
    rec.value("cummin nan", list(torch.cummin(s, 0)))
    rec.value("cummax bool", list(torch.cummax(torch.tensor([True, False, True]), 0)))
    rec.value("cummin int", list(torch.cummin(torch.tensor([3, 1, 1, 2]), 0)))
    rec.value("cummax 0-dim", list(torch.cummax(torch.tensor(2.0), 0)))
    rec.value("cummax empty", list(torch.cummax(torch.zeros(2, 0), 1)))
    rec.raises("cummax 0-dim dim 1", lambda: torch.cummax(torch.tensor(2.0), 1))
    rec.raises("cummax dim out of range", lambda: torch.cummax(torch.zeros(2), 1))
    w = torch.tensor([[1.0, -2.0, 0.5, 3.0], [-1.0, 0.0, 2.0, -0.5]])
    lc = torch.logcumsumexp(x, 1)
    rec.value("logcumsumexp", lc)
    rec.graph("logcumsumexp graph", lc)
    (g,) = torch.autograd.grad(lc, x, w, create_graph=True)
    rec.value("logcumsumexp grad", g)
    rec.value("logcumsumexp second", torch.autograd.grad(g.sum(), x)[0])
    rec.value("logcumsumexp infs", torch.logcumsumexp(
        torch.tensor([-INF, -INF, 1.0, INF, INF, NAN, 2.0]), 0))
    x64 = torch.tensor([[0.1, 100.0, -50.0, 3.3]], dtype=torch.float64, requires_grad=True)
    lc = x64.logcumsumexp(-1)
    rec.value("logcumsumexp float64", lc)
    rec.value("logcumsumexp float64 grad", torch.autograd.grad(lc.sum(), x64)[0])
    rec.value("logcumsumexp 0-dim", torch.logcumsumexp(torch.tensor(2.0), 0))
    rec.raises("logcumsumexp int", lambda: torch.logcumsumexp(torch.tensor([1, 2]), 0))


def extremes_aminmax(torch, rec):
    x = torch.tensor([[1.0, 3.0, 3.0], [0.5, 3.0, 0.5]], requires_grad=True)
    r = torch.aminmax(x, dim=1)
    rec.printed("print aminmax", r)
    rec.value("aminmax dim", list(r))
    rec.graph("aminmax graph", r.max)
    (r.min * 2 + r.max * 3).sum().backward()
    rec.value("aminmax ties grad", x.grad)
    r = torch.aminmax(x)
    rec.value("aminmax all", list(r))
    rec.value("aminmax all grad", torch.autograd.grad(r.min * 2 + r.max * 3, x)[0])
    r = torch.aminmax(x, dim=0, keepdim=True)
    rec.value("aminmax keepdim", list(r))
    rec.value("aminmax keepdim grad", torch.autograd.grad(r.min, x, torch.tensor(
        [[-1.0, -2.0, 3.0]]))[0])
    rec.value("aminmax bool", list(torch.aminmax(torch.tensor([True, False]))))
    rec.value("aminmax 0-dim", list(torch.aminmax(torch.tensor(3.0), dim=0)))
    rec.value("aminmax empty dim 0", list(torch.aminmax(torch.zeros(2, 0), dim=0)))
    rec.raises("aminmax empty", lambda: torch.aminmax(torch.zeros(0)))
    rec.raises("aminmax empty dim", lambda: torch.aminmax(torch.zeros(2, 0), dim=1))
    rec.raises("aminmax dim out of range", lambda: torch.aminmax(torch.zeros(2), dim=3))
    rec.value("x.aminmax", list(x.aminmax(dim=-1)))


def statistics_var_mean_std_mean(torch, rec):
    x = torch.tensor([[1.0, 3.0, 2.0], [0.5, -1.0, 4.0]], requires_grad=True)
    for name in ("var_mean", "std_mean"):
        f = getattr(torch, name)
        r = f(x)
        rec.printed(f"print {name}", r)
        rec.graph(f"{name} graph", r[0])
        rec.value(f"{name} grad", torch.autograd.grad(r, x, (torch.tensor(2.0),
                                                             torch.tensor(-3.0)))[0])
        r = f(x, 1, keepdim=True)
        rec.value(f"{name} dim keepdim", list(r))
        (g,) = torch.autograd.grad(r[0], x, torch.tensor([[2.0], [-1.0]]), create_graph=True)
        rec.value(f"{name} dim grad", g)
        rec.value(f"{name} second", torch.autograd.grad((g * g).sum(), x)[0])
        rec.value(f"{name} mean grad", torch.autograd.grad(f(x, 0)[1], x, torch.tensor(
            [1.0, 2.0, 3.0]))[0])
        rec.value(f"{name} correction 0", list(f(x, (0, 1), correction=0)))
        rec.value(f"{name} unbiased False", list(f(x, unbiased=False)))
        c = torch.tensor([[5.0, 5.0, 5.0]], requires_grad=True)
        r = f(c, 1)
        rec.value(f"{name} constant", list(r))
        rec.value(f"{name} constant grad", torch.autograd.grad(r[0], c, torch.tensor([1.0]))[0])
        rec.raises(f"{name} int", lambda f=f: f(torch.tensor([1, 2, 4])))
    rec.value("var_mean empty", list(torch.var_mean(torch.zeros(0))))
    rec.value("std_mean 0-dim", list(torch.std_mean(torch.tensor(3.0))))
    rec.value("var_mean correction 2 of 2", list(torch.var_mean(torch.tensor([1.0, 2.0]),
                                                                correction=2)))
    rec.raises("var int", lambda: torch.var(torch.tensor([1, 2, 4])))


def differences_diff(torch, rec):
    x = torch.tensor([[1.0, 3.0, 2.0, 7.0], [0.5, -1.0, 4.0, 4.0]], requires_grad=True)
    for label, kw in (("default", {}), ("n=2", {"n": 2}), ("n=5", {"n": 5}),
                      ("dim=0", {"dim": 0}), ("n=0", {"n": 0}),
                      ("prepend", {"prepend": torch.tensor([[10.0], [20.0]])}),
                      ("append n=2", {"append": torch.zeros(2, 2), "n": 2}),
                      ("dim 0 both", {"dim": 0, "prepend": torch.ones(1, 4),
                                      "append": torch.ones(3, 4)})):
        y = torch.diff(x, **kw)
        rec.value(f"diff {label}", y)
        rec.graph(f"diff {label} graph", y)
        if y.numel():
            rec.value(f"diff {label} grad", torch.autograd.grad((y * y).sum(), x)[0])
    rec.value("diff bool", torch.diff(torch.tensor([True, False, False, True])))
    rec.value("diff int n=2", torch.diff(torch.tensor([1, 5, 2]), n=2))
    rec.value("x.diff()", x.diff())
    rec.raises("diff 0-dim", lambda: torch.diff(torch.tensor(1.0)))
    rec.raises("diff n=-1", lambda: torch.diff(x, n=-1))
    rec.raises("diff prepend rank", lambda: torch.diff(x, prepend=torch.zeros(3)))
    rec.raises("diff prepend shape", lambda: torch.diff(x, prepend=torch.zeros(3, 1)))
    rec.raises("diff dim", lambda: torch.diff(x, dim=2))


def cross_products(torch, rec):
    a = torch.tensor([[1.0, 2.0, 3.0], [-0.5, 0.25, 4.0]], requires_grad=True)
    b = torch.tensor([[0.3, -1.0, 2.0]], requires_grad=True)
    c = torch.linalg.cross(a, b)
    rec.value("linalg.cross", c)
    rec.graph("linalg.cross graph", c)
    rec.value("linalg.cross grads", torch.autograd.grad(c, [a, b], torch.tensor(
        [[1.0, -2.0, 0.5], [2.0, 1.0, -1.0]])))
    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])
    rec.value("cross dim 0", torch.cross(x, torch.eye(3), dim=0))
    rec.value("x.cross dim 1", x.cross(torch.eye(3), dim=1))
    rec.value("linalg.cross ints", torch.linalg.cross(torch.tensor([1, 2, 3]),
                                                      torch.tensor([4, 5, 6])))
    rec.raises("linalg.cross dtypes", lambda: torch.linalg.cross(
        torch.zeros(3), torch.zeros(3, dtype=torch.float64)))
    rec.raises("linalg.cross broadcast", lambda: torch.linalg.cross(torch.zeros(2, 3),
                                                                    torch.zeros(4, 3)))
    rec.raises("linalg.cross dim", lambda: torch.linalg.cross(torch.zeros(3), torch.zeros(3),
                                                              dim=1))
    rec.raises("linalg.cross size 2", lambda: torch.linalg.cross(torch.zeros(2, 2),
                                                                 torch.zeros(2, 2)))
    rec.raises("linalg.cross ranks", lambda: torch.linalg.cross(torch.zeros(2, 1, 3),
                                                                torch.zeros(4, 3)))


def binning_searchsorted_bucketize_histc(torch, rec):
    T = torch.tensor
    bnd = T([1.0, 2.0, 2.0, 4.0])
    x = T([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
    rec.value("bucketize", torch.bucketize(x, bnd))
    rec.value("bucketize right", torch.bucketize(x, bnd, right=True))
    rec.value("bucketize nan inf", torch.bucketize(T([NAN, INF, -INF]), bnd))
    rec.value("bucketize number", torch.bucketize(3.0, bnd))
    rec.value("bucketize int32", torch.bucketize(x, bnd, out_int32=False).dtype)
    rec.value("searchsorted", torch.searchsorted(bnd, x))
    rec.value("searchsorted side right", torch.searchsorted(bnd, x, side="right"))
    rec.value("searchsorted number", torch.searchsorted(bnd, 3))
    seq = T([[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]])
    rec.value("searchsorted rows", torch.searchsorted(seq, T([[3.0, 6.0], [1.0, 7.0]])))
    rec.value("searchsorted rows right", torch.searchsorted(seq, T([[3.0, 6.0], [1.0, 7.0]]),
                                                            right=True))
    rec.value("searchsorted sorter", torch.searchsorted(T([5.0, 1.0, 3.0]), T([2.0, 4.0]),
                                                        sorter=T([1, 2, 0])))
    rec.raises("bucketize 2-D boundaries", lambda: torch.bucketize(x, T([[1.0]])))
    rec.raises("searchsorted side and right", lambda: torch.searchsorted(
        bnd, x, side="left", right=True))
    rec.raises("searchsorted bad side", lambda: torch.searchsorted(bnd, x, side="bad"))
    rec.raises("searchsorted rows vs 1-D", lambda: torch.searchsorted(seq, T([1.0])))
    rec.raises("searchsorted rows mismatch", lambda: torch.searchsorted(
        seq, T([[1.0], [2.0], [3.0]])))
    rec.raises("searchsorted 0-dim sequence", lambda: torch.searchsorted(T(1.0), x))
    rec.raises("searchsorted sorter size", lambda: torch.searchsorted(bnd, x,
                                                                      sorter=T([0, 1])))
    rec.value("histc", torch.histc(T([1.0, 2.0, 1.0, 4.0, 2.5, 3.0]), bins=4))
    rec.value("histc range nan", torch.histc(T([1.0, 2.0, 1.0, 5.0]), bins=4, min=0, max=3))
    rec.value("histc equal", torch.histc(T([2.0, 2.0]), bins=3))
    rec.value("histc edges", torch.histc(T([0.0, 1.0, 2.0, 3.0, 3.0]), bins=3, min=0, max=3))
    rec.value("histc float64", torch.histc(T([0.1, 0.2, 0.7], dtype=torch.float64), bins=5,
                                           min=0, max=1))
    rec.raises("histc int", lambda: torch.histc(T([1, 2]), bins=2))
    rec.raises("histc min > max", lambda: torch.histc(T([1.0]), bins=2, min=3, max=1))
    rec.raises("histc bins 0", lambda: torch.histc(T([1.0]), bins=0))
    rec.raises("histc nan", lambda: torch.histc(T([1.0, NAN]), bins=2))
    h = torch.histc(T([1.0, 2.0], requires_grad=True), bins=2)
    rec.raises("histc backward", lambda: h.sum().backward())


def cdist_both_paths(torch, rec):
    """cdist: the direct kernel (p = 0, 1, 2, inf bit for bit, with its fused last columns) and,
    for p = 2 with more than 25 rows, the matrix-product path (EuclideanDistBackward0)."""
    x1 = torch.tensor([[0.0, 1.0, 0.3], [2.0, 3.0, -1.5], [1.0, 1.0, 0.0]], requires_grad=True)
    x2 = torch.tensor([[1.0, 0.0, 0.7], [2.0, 3.0, -1.5]], requires_grad=True)
    w = torch.tensor([[1.0, -2.0], [0.5, 1.0], [2.0, 1.0]])
    for p in (2.0, 1.0, 0.0, INF):
        d = torch.cdist(x1, x2, p=p)
        rec.value(f"cdist p={p}", d)
        rec.graph(f"cdist p={p} graph", d)
        rec.value(f"cdist p={p} grads", torch.autograd.grad(d, [x1, x2], w))
    ramp = torch.tensor([[0.1 * k - 1.3 + 0.37 * r for k in range(7)] for r in range(5)])
    ramp2 = torch.tensor([[0.23 * k - 0.4 * r for k in range(7)] for r in range(4)])
    for m in (1, 2, 3, 5, 6, 7):
        a, b = ramp[:, :m], ramp2[:, :m]
        rec.value(f"cdist float32 m={m}", torch.cdist(a, b))
        rec.value(f"cdist float64 m={m}", torch.cdist(a.double(), b.double()))
    n = torch.tensor([[NAN, 1.0], [INF, 0.0]], requires_grad=True)
    z = torch.tensor([[0.0, 0.0], [1.0, 1.0]])
    for p in (1.0, 2.0, INF):
        d = torch.cdist(n, z, p=p)
        rec.value(f"cdist nan inf p={p}", d)
        rec.value(f"cdist nan inf p={p} grad", torch.autograd.grad(d.sum(), n)[0])
    same = torch.tensor([[1.0, 2.0], [1.0, 2.0]], requires_grad=True)
    d = torch.cdist(same, same)
    rec.value("cdist zero distance grad", torch.autograd.grad(d.sum(), same)[0])
    rec.value("cdist batch broadcast", torch.cdist(torch.zeros(2, 3, 2), torch.ones(1, 4, 2)))
    rec.value("cdist empty", torch.cdist(torch.zeros(0, 2), torch.ones(3, 2)))
    rec.value("cdist no columns", torch.cdist(torch.zeros(2, 0), torch.ones(3, 0)))
    big = torch.tensor([[float(k % 7) - 0.5 * (k % 3), 0.25 * k] for k in range(30)],
                       requires_grad=True)
    d = torch.cdist(big, big)
    rec.graph("cdist 30 rows graph", d)
    rec.value("cdist 30 rows diagonal", d.diagonal())
    d = torch.cdist(x1, x2, compute_mode="use_mm_for_euclid_dist")
    rec.graph("cdist mm graph", d)
    d = torch.cdist(x1.unsqueeze(0).expand(2, 3, 3), x2, compute_mode="use_mm_for_euclid_dist")
    rec.graph("cdist mm batch graph", d)
    rec.value("cdist donot_use_mm grad_fn", torch.cdist(
        big, big, compute_mode="donot_use_mm_for_euclid_dist").grad_fn.name())
    (g,) = torch.autograd.grad(torch.cdist(x1, x2).sum(), x1, create_graph=True)
    rec.graph("cdist create_graph", g)
    rec.raises("cdist second derivative", lambda: g.sum().backward())
    rec.raises("cdist 1-D", lambda: torch.cdist(torch.zeros(3), torch.zeros(3)))
    rec.raises("cdist columns", lambda: torch.cdist(torch.zeros(2, 3), torch.zeros(2, 2)))
    rec.raises("cdist negative p", lambda: torch.cdist(x1, x2, p=-1))
    rec.raises("cdist ints", lambda: torch.cdist(torch.zeros(2, 2, dtype=torch.long),
                                                 torch.zeros(2, 2, dtype=torch.long)))
    rec.raises("cdist compute_mode", lambda: torch.cdist(x1, x2, compute_mode="fast"))


SCENARIOS = collect_scenarios(globals(), __name__)
