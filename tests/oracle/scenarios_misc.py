"""Oracle scenarios for addcmul/addcdiv, logical_*, unique, the NaN-skipping reductions and
stride()/storage_offset() of views. The rules of tests/oracle/scenarios.py apply; its SCENARIOS
include these."""

from __future__ import annotations

import inspect

NAN = float("nan")


def addcmul_and_addcdiv_values_grads_and_errors(torch, rec):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a = torch.tensor([[4.0, -5.0, 6.5], [0.25, 1.0, -2.0]], requires_grad=True)
    b = torch.tensor([2.0, 1.5, -4.0], requires_grad=True)
    y = torch.addcmul(x, a, b, value=0.3)
    rec.printed("addcmul", y)
    y.sum().backward()
    rec.value("addcmul x.grad", x.grad)
    rec.value("addcmul a.grad", a.grad)
    rec.value("addcmul b.grad", b.grad)
    z = x.addcdiv(a, b, value=-2)
    rec.printed("addcdiv", z)
    rec.graph("graph(addcdiv)", z)
    x.grad = a.grad = b.grad = None
    (z * z).sum().backward()
    rec.value("addcdiv a.grad", a.grad)
    rec.value("addcdiv b.grad", b.grad)
    v = x * 1
    v.addcmul_(a[0], b, value=2)
    rec.graph("graph(addcmul_)", v)
    v.addcdiv_(b, a[1])
    rec.printed("after addcmul_ and addcdiv_", v)
    rec.raises("addcmul_ on a leaf", lambda: x.addcmul_(b, b))
    rec.raises("value positional", lambda: torch.addcmul(x, b, b, 2))
    rec.raises("tensor1 a number", lambda: torch.addcmul(x, 2, b))
    rec.raises("addcdiv of ints", lambda: torch.addcdiv(torch.tensor([1.0, 2.0]),
                                                        torch.tensor([1, 2]),
                                                        torch.tensor([1, 2])))
    rec.raises("addcmul shapes", lambda: torch.addcmul(x, torch.ones(2), torch.ones(3)))
    rec.raises("addcmul_ broadcast", lambda: x.detach().addcmul_(torch.ones(2, 3), b))
    rec.raises("addcmul bool", lambda: torch.addcmul(torch.tensor([True]), torch.tensor([True]),
                                                     torch.tensor([True])))
    rec.value("int value truncated", torch.addcmul(torch.tensor([1, 2]), torch.tensor([1, 2]),
                                                   torch.tensor([1, 2]), value=2.5))
    rec.value("int input, float tensor1", torch.addcmul(torch.tensor([1, 2]),
                                                        torch.tensor([1.5, 2.0]),
                                                        torch.tensor([1, 2])))
    rec.raises("int addcmul_ with float", lambda: torch.tensor([1, 2]).addcmul_(
        torch.tensor([1.5, 2.0]), torch.tensor([1, 2])))
    rec.value("addcdiv by zero", torch.addcdiv(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0]),
                                               torch.tensor([0.0, 2.0]), value=-1))


def addcmul_rounds_once_as_torch_fuses_it(torch, rec):
    # values whose product and sum would round twice if computed apart
    base = [0.1 * k - 1.7 for k in range(40)]
    for dtype in (torch.float32, torch.float64):
        s = torch.tensor(base, dtype=dtype)
        t1 = torch.tensor([v * 1.37 + 0.011 for v in base], dtype=dtype)
        t2 = torch.tensor([3.3 - v * 0.73 for v in base], dtype=dtype)
        rec.value(f"{dtype} addcmul", torch.addcmul(s, t1, t2))
        rec.value(f"{dtype} addcmul value", torch.addcmul(s, t1, t2, value=0.37))
        rec.value(f"{dtype} addcdiv value", torch.addcdiv(s, t1, t2, value=0.37))


def logical_ops_and_their_in_place_forms(torch, rec):
    b = torch.tensor([True, False, True, False])
    f = torch.tensor([0.0, 2.0, NAN, -0.0])
    i = torch.tensor([[1], [0]])
    for name in ("logical_and", "logical_or", "logical_xor"):
        fn = getattr(torch, name)
        rec.value(f"{name} bool float", fn(b, f))
        rec.value(f"{name} broadcast", fn(i, b))
        rec.raises(f"{name} number", lambda fn=fn: fn(b, 1))
    rec.value("logical_not nan", torch.logical_not(f))
    g = f.clone()
    g.logical_and_(b)
    rec.value("logical_and_ keeps the dtype", g)
    n = torch.tensor([1, 0, 2])
    n.logical_or_(torch.tensor([0.5, 0.0, 0.0]))
    rec.value("logical_or_ int", n)
    rec.value("logical_not_", torch.tensor([1.0, 0.0]).logical_not_())
    rec.raises("logical_or_ broadcast", lambda: torch.tensor([1, 0]).logical_or_(i))
    rec.raises("logical_xor sizes", lambda: torch.logical_xor(torch.tensor([1, 2]),
                                                              torch.tensor([1, 2, 3])))
    w = torch.tensor([1.0, 0.0, 2.0], requires_grad=True)
    y = w * 1
    y.logical_not_()
    rec.printed("non-leaf after logical_not_", y)
    rec.value("its version", y._version)
    rec.value("logical_and of a grad tensor", torch.logical_and(w, w).requires_grad)


def unique_and_unique_consecutive(torch, rec):
    a = torch.tensor([3.0, 1.0, 2.0, 3.0, 1.0, 5.0, NAN, NAN, -0.0, 0.0], requires_grad=True)
    u = torch.unique(a)
    rec.printed("unique", u)
    rec.value("unique sorted=False", torch.unique(a, sorted=False))
    rec.value("return_inverse", torch.unique(a, return_inverse=True)[1])
    rec.value("return_counts", a.unique(return_counts=True)[1])
    rec.raises("backward through unique", lambda: u.sum().backward())
    m = torch.tensor([[1.0, 2.0], [1.0, 2.0], [0.0, 3.0]], requires_grad=True)
    r = torch.unique(m, dim=0, return_inverse=True, return_counts=True)
    rec.printed("unique dim=0", r[0])
    rec.value("dim=0 inverse", r[1])
    rec.value("dim=0 counts", r[2])
    rec.value("unique dim=1", torch.unique(m, dim=1))
    rec.printed("unique_consecutive", torch.unique_consecutive(m))
    rec.printed("unique_consecutive dim=0", torch.unique_consecutive(m, dim=0))
    rows = torch.tensor([[1, 2], [1, 2], [3, 4], [1, 2]])
    r = torch.unique_consecutive(rows, dim=0, return_counts=True, return_inverse=True)
    rec.value("consecutive rows", r[0])
    rec.value("consecutive inverse", r[1])
    rec.value("consecutive counts", r[2])
    run = torch.tensor([1, 1, 2, 2, 3, 1, 1])
    r = torch.unique_consecutive(run, return_inverse=True, return_counts=True)
    rec.value("runs", r[0])
    rec.value("runs inverse", r[1])
    rec.value("runs counts", r[2])
    rec.value("bool", torch.unique(torch.tensor([True, False, True])))
    rec.value("2-D inverse", torch.unique(torch.tensor([[3, 1], [1, 2]]), return_inverse=True)[1])
    s = torch.unique(torch.tensor(5), return_inverse=True, return_counts=True)
    rec.value("0-dim values", s[0])
    rec.value("0-dim inverse", s[1])
    e = torch.unique(torch.tensor([]), return_inverse=True, return_counts=True)
    rec.value("empty", e[0])
    rec.value("empty counts", e[2])
    rec.value("empty rows", torch.unique(torch.zeros(0, 2), dim=0, return_counts=True)[0])
    rec.raises("dim out of range", lambda: torch.unique(torch.tensor([[1, 2]]), dim=2))
    rec.value("positional", torch.unique(torch.tensor([2, 1, 2]), True, True, True, 0)[2])


def nansum_nanmean_nanmedian(torch, rec):
    x = torch.tensor([[NAN, NAN, NAN], [2.0, 1.0, 2.0], [3.0, NAN, 3.0], [1.0, 1.0, 1.0]],
                     requires_grad=True)
    rec.printed("nansum", torch.nansum(x))
    rec.value("nansum dims", torch.nansum(x, (0, 1)))
    rec.value("nansum float64", torch.nansum(x, 1, dtype=torch.float64))
    rec.value("nansum int", torch.nansum(torch.tensor([1, 2, 3])))
    rec.value("nansum bool", torch.nansum(torch.tensor([True, True])))
    mean = torch.nanmean(x, 1, keepdim=True)
    rec.printed("nanmean dim", mean)
    rec.graph("graph(nanmean)", torch.nanmean(x))
    rec.raises("nanmean int", lambda: torch.nanmean(torch.tensor([1, 2, 3])))
    rec.value("nanmean all nan", torch.nanmean(torch.tensor([NAN, NAN])))
    rec.printed("nanmedian dim 1", torch.nanmedian(x, 1))
    rec.value("nanmedian dim 0 keepdim", torch.nanmedian(x, 0, keepdim=True).indices)
    ties = torch.tensor([[2.0, 1.0, 2.0, 1.0, NAN, 1.0, 2.0]])
    rec.value("nanmedian ties", torch.nanmedian(ties, 1).indices)
    rec.value("nanmedian lone value", torch.nanmedian(torch.tensor([NAN, 5.0, NAN]), 0).indices)
    rec.value("nanmedian int", torch.nanmedian(torch.tensor([1, 2, 3])))
    rec.value("nanmedian all nan", torch.nanmedian(torch.tensor([NAN, NAN])))
    rec.raises("nanmedian empty dim", lambda: torch.nanmedian(torch.zeros(0, 3), 0))
    y = torch.nanmedian(x)
    rec.graph("graph(nanmedian)", y)
    y.backward()
    rec.value("nanmedian grad", x.grad)
    x.grad = None
    torch.nanmedian(x, 1).values.sum().backward()
    rec.value("nanmedian dim grad", x.grad)
    x.grad = None
    torch.nanmean(x, 1).sum().backward()
    rec.value("nanmean grad", x.grad)
    x.grad = None
    torch.nansum(x, 0).sum().backward()
    rec.value("nansum grad", x.grad)


def strides_and_offsets_of_views(torch, rec):
    t = torch.arange(12.0).reshape(3, 4)
    views = {
        "t": t, "t.t()": t.t(), "t[1:, ::2]": t[1:, ::2], "t[:, 1]": t[:, 1],
        "expand": t[0:1].expand(5, 4), "unsqueeze(1)": t.unsqueeze(1), "t[None]": t[None],
        "t[..., None]": t[..., None], "contiguous": t.t().contiguous(),
        "ones expand": torch.ones(3, 1).expand(3, 4), "t[1:2]": t[1:2], "t[1]": t[1],
        "diagonal": t.diagonal(), "permute": t.reshape(2, 3, 2).permute(2, 0, 1),
        "view": t.view(2, 6), "narrow": t.narrow(1, 1, 2), "select": t.select(1, 2),
        "t.t()[1:3]": t.t()[1:3], "squeeze": torch.zeros(3, 1, 2).squeeze(1),
        "chunk": t.chunk(2, 1)[1], "unbind": t.unbind(1)[3], "0-dim": torch.tensor(3.0),
        "t[1, 2]": t[1, 2], "empty": torch.zeros(0, 3), "mT": t.mT,
        "movedim": t.reshape(2, 3, 2).movedim(0, 2), "step 3": t.reshape(12)[::3],
    }
    for name, v in views.items():
        rec.value(f"{name} stride", v.stride())
        rec.value(f"{name} offset", v.storage_offset())
        rec.value(f"{name} contiguous", v.is_contiguous())
    rec.value("stride(dim)", t.t().stride(0))
    rec.value("stride(-1)", t[:, ::2].stride(-1))
    rec.raises("stride(dim) out of range", lambda: t.stride(2))


def _collect():
    here = __name__
    return {name: obj for name, obj in list(globals().items())
            if not name.startswith("_") and inspect.isfunction(obj) and obj.__module__ == here
            and list(inspect.signature(obj).parameters) == ["torch", "rec"]}


SCENARIOS = _collect()
