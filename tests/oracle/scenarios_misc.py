"""Oracle scenarios for addcmul/addcdiv, logical_*, unique, the NaN-skipping reductions and
stride()/storage_offset() of views. The rules of tests/oracle/scenarios.py apply; its SCENARIOS
include these."""

from __future__ import annotations

from tests.oracle.recorder import collect_scenarios

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


def autograd_grad_and_backward_argument_edge_cases(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    z = torch.tensor(3.0, requires_grad=True)

    def y():
        return (x * x).sum() * z

    grad = torch.autograd.grad
    rec.raises("grad of no inputs", lambda: grad(y(), []))
    rec.raises("grad of an empty tuple", lambda: grad(y(), ()))
    rec.value("grad(y, [x, x])", grad(y(), [x, x]))
    rec.value("grad(y, [x, z, x])", grad(y(), [x, z, x]))
    rec.raises("a number as input", lambda: grad(y(), [1.0]))
    rec.raises("None as input", lambda: grad(y(), [None]))
    rec.raises("a string as inputs", lambda: grad(y(), "x"))
    rec.raises("None as inputs", lambda: grad(y(), None))
    rec.raises("None as outputs", lambda: grad(None, [x]))
    rec.raises("output without grad", lambda: grad(torch.tensor(1.0), [x]))
    rec.raises("input without grad", lambda: grad(y(), [torch.tensor(1.0)]))
    rec.raises("grad_outputs of another shape", lambda: grad(y(), [x], grad_outputs=torch.ones(3)))
    rec.raises("grad_outputs a number", lambda: grad(y(), [x], grad_outputs=2.0))
    rec.value("extra grad_outputs", grad(y(), [x], grad_outputs=[torch.tensor(2.0),
                                                                 torch.tensor(5.0)]))
    rec.raises("non-scalar output", lambda: grad(x * 2, [x]))
    w = torch.tensor(1.0, requires_grad=True)
    rec.raises("unused input", lambda: grad(y(), [x, w]))
    rec.value("allow_unused", grad(y(), [x, w], allow_unused=True))
    rec.value("materialize_grads", grad(y(), [x, w], materialize_grads=True))
    rec.raises("materialize_grads, allow_unused=False",
               lambda: grad(y(), [x, w], allow_unused=False, materialize_grads=True))
    rec.value("two outputs", grad([y(), y()], [x]))
    rec.value("a None grad_output", grad([y(), y()], [x], grad_outputs=[None, torch.tensor(2.0)]))
    rec.value("a dict of inputs", grad(y(), {"x": x, "z": z}))
    rec.value("a generator of inputs", grad(y(), (t for t in [x])))
    rec.raises("an int output", lambda: grad(torch.tensor(1), [x]))
    rec.value("the output itself", grad(x, x, torch.ones(2)))
    rec.raises("backward(inputs=[])", lambda: y().backward(inputs=[]))
    rec.raises("backward(inputs=[None])", lambda: y().backward(inputs=[None]))
    y().backward(inputs=[x, x])
    rec.value("backward(inputs=[x, x]) x.grad", x.grad)
    rec.value("z.grad untouched", z.grad)
    x.grad = None
    y().backward(inputs={"z": z})
    rec.value("backward(inputs=dict) z.grad", z.grad)
    rec.raises("backward with another shape", lambda: y().backward(torch.ones(2)))
    rec.raises("autograd.backward([])", lambda: torch.autograd.backward([]))
    rec.value("extra grad_tensors ignored",
              torch.autograd.backward([y()], grad_tensors=[None, None]))
    rec.raises("too few grad_tensors",
               lambda: torch.autograd.backward([y(), y()], grad_tensors=[None]))
    rec.raises("autograd.backward without grad", lambda: torch.autograd.backward(torch.tensor(1.0)))
    rec.raises("autograd.backward(inputs=[])", lambda: torch.autograd.backward(y(), inputs=[]))


def circular_padding_and_conv_padding_mode_circular(torch, rec):
    F = torch.nn.functional
    x = torch.arange(6.0).reshape(1, 2, 3).requires_grad_()
    y = F.pad(x, (2, 1), mode="circular")
    rec.printed("pad 1-D", y)
    rec.graph("graph(pad 1-D)", y)
    (y * torch.arange(6.0)).sum().backward()
    rec.value("x.grad", x.grad)
    x2 = torch.arange(12.0).reshape(1, 1, 3, 4).requires_grad_()
    y2 = F.pad(x2, (1, 2, 2, 1), mode="circular")
    rec.printed("pad 2-D", y2)
    (y2 * y2).sum().backward()
    rec.value("x2.grad", x2.grad)
    rec.value("negative pad", F.pad(x, (-1, 1), mode="circular"))
    rec.value("pad the whole size", F.pad(x, (3, 3), mode="circular"))
    rec.raises("wrapping twice", lambda: F.pad(x, (4, 1), mode="circular"))
    rec.raises("an empty dim", lambda: F.pad(x, (-2, -2), mode="circular"))
    rec.value("no batch dim", F.pad(torch.ones(2, 3), (1, 1), mode="circular"))
    rec.raises("1-D input", lambda: F.pad(torch.ones(3), (1, 1), mode="circular"))
    rec.raises("odd length", lambda: F.pad(x, (1,), mode="circular"))
    rec.raises("odd length, reflect", lambda: F.pad(x, (1, 1, 1), mode="reflect"))
    rec.raises("a value", lambda: F.pad(x, (1, 1), mode="circular", value=1))
    rec.value("int", F.pad(torch.arange(6).reshape(1, 2, 3), (1, 1), mode="circular"))
    rec.value("3-D", F.pad(torch.arange(8.0).reshape(1, 1, 2, 2, 2), (1, 1, 1, 0, 0, 1),
                           mode="circular"))
    conv = torch.nn.Conv1d(2, 1, 3, padding=1, padding_mode="circular")
    with torch.no_grad():
        conv.weight.copy_(torch.tensor([[[1.0, -2.0, 0.5], [0.25, 1.0, -1.0]]]))
        conv.bias.fill_(0.5)
    out = conv(x)
    rec.printed("conv circular", out)
    rec.graph("graph(conv circular)", out)
    x.grad = None
    out.sum().backward()
    rec.value("conv circular x.grad", x.grad)
    rec.value("conv circular weight.grad", conv.weight.grad)


def singular_value_norms_and_svdvals(torch, rec):
    A = torch.tensor([[1.0, 2.0, 0.0], [3.0, -1.0, 4.0]], requires_grad=True)
    s = torch.linalg.svdvals(A)
    rec.printed("svdvals", s)
    rec.graph("graph(svdvals)", s)
    for ord in (2, -2, "nuc"):
        r = torch.linalg.matrix_norm(A, ord=ord)
        rec.printed(f"matrix_norm {ord}", r)
        rec.graph(f"graph(matrix_norm {ord})", r)
        A.grad = None
        r.backward()
        rec.value(f"matrix_norm {ord} grad", A.grad)
    rec.printed("norm(p='nuc')", torch.norm(A, p="nuc"))
    rec.printed("linalg.norm(A, 2)", torch.linalg.norm(A, 2))
    k = A.norm(p="nuc", dim=(0, 1), keepdim=True)
    rec.printed("nuc keepdim", k)
    rec.graph("graph(nuc keepdim)", k)
    B = torch.arange(8.0).reshape(2, 2, 2)
    rec.value("batch nuc", torch.linalg.matrix_norm(B, "nuc"))
    rec.value("batch -2 over dims (0, 2)", torch.linalg.matrix_norm(B, -2, dim=(0, 2)))
    rec.value("float64", torch.linalg.matrix_norm(A, 2, dtype=torch.float64))
    rec.value("tall", torch.linalg.svdvals(A.detach().t() * 3))
    # a singular value that is 0 exactly comes out as rounding noise, whose last bits are the
    # linear algebra library's (docs/semantics.md): only that it is tiny is compared
    rank_one = torch.linalg.svdvals(torch.tensor([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]]))
    rec.value("rank one: largest", rank_one[0])
    rec.value("rank one: the other is noise", rank_one[1].abs() < 1e-6)
    rec.raises("svdvals of ints", lambda: torch.linalg.svdvals(torch.tensor([[1, 2], [3, 4]])))
    rec.raises("svdvals of a vector", lambda: torch.linalg.svdvals(torch.tensor([1.0, 2.0])))
    rec.raises("nuc of a vector", lambda: torch.linalg.matrix_norm(torch.tensor([1.0, 2.0]),
                                                                   "nuc"))
    rec.raises("nuc of 3-D without dims", lambda: torch.norm(torch.ones(2, 2, 2), p="nuc"))
    rec.value("nuc of 3-D with dims", torch.norm(torch.ones(2, 2, 2), p="nuc", dim=(1, 2)))
    rec.raises("order 3", lambda: torch.linalg.matrix_norm(A, 3))
    rec.value("empty", torch.linalg.matrix_norm(torch.ones(0, 2), 2))
    A.grad = None
    g, = torch.autograd.grad(torch.linalg.matrix_norm(A, "nuc"), A, create_graph=True)
    rec.graph("graph of the nuc gradient", g)
    (g * torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])).sum().backward()
    rec.value("second derivative", A.grad)


def convolution_double_backward_is_one_node(torch, rec):
    F = torch.nn.functional
    # float64: float32 sums over a batch differ in the last bit (docs/semantics.md)
    f64 = torch.float64
    x = (torch.arange(36.0, dtype=f64).reshape(1, 4, 3, 3) / 7 - 2).requires_grad_()
    w = (torch.arange(24.0, dtype=f64).reshape(2, 2, 3, 2) / 10 - 1).requires_grad_()
    b = torch.tensor([0.5, -0.25], dtype=f64, requires_grad=True)
    y = F.conv2d(x, w, b, stride=(1, 2), padding=1, groups=2)
    gx, gw, gb = torch.autograd.grad((y * y).sum(), [x, w, b], create_graph=True)
    rec.graph("graph(grad of input)", gx)
    rec.graph("graph(grad of weight)", gw)
    rec.graph("graph(grad of bias)", gb)
    rec.value("grad of input", gx)
    rec.value("grad of weight", gw)
    (gx.pow(2).sum() + (gw * gw.detach()).sum() + gb.sum()).backward()
    rec.value("x.grad", x.grad)
    rec.value("w.grad", w.grad)
    rec.value("b.grad", b.grad)
    v = torch.tensor([1.0, -2.0, 0.5]).reshape(1, 1, 3).requires_grad_()
    k = torch.tensor([[[0.5, 1.0]]], requires_grad=True)
    o = F.conv1d(v, k)
    g, = torch.autograd.grad((o * o * o).sum(), [v], create_graph=True)
    rec.graph("graph(conv1d, input only)", g)
    h, = torch.autograd.grad(g.sum(), [k], create_graph=True)
    rec.value("through the input's gradient to the weight", h)
    h.sum().backward()
    rec.value("third derivative", v.grad)


def clamp_in_place_with_tensor_bounds(torch, rec):
    """clamp_ and clip_ with tensor bounds record ClampBackward0 with edges to the bounds, as
    clamp does: the gradient reaches a bound where it is in force."""
    x = torch.tensor([1.5, -2.0, 0.25, -0.5, 3.0], requires_grad=True)
    low = torch.tensor([0.0, -1.0, 0.5, -1.0, 0.0], requires_grad=True)
    high = torch.tensor([1.0, 1.0, 1.0, 0.0, 2.5], requires_grad=True)
    y = x * 1.0
    y.clamp_(min=low)
    rec.value("clamp_ min", y)
    (y * torch.arange(1.0, 6.0)).sum().backward()
    rec.value("x.grad, min", x.grad)
    rec.value("low.grad, min", low.grad)
    x.grad = low.grad = None
    z = (x * 2).clip_(low, high)
    rec.value("clip_ both", z)
    z.sum().backward()
    for name, t in (("x", x), ("low", low), ("high", high)):
        rec.value(f"{name}.grad, both", t.grad)
    w = x.detach().clone()
    w.clamp_(max=torch.tensor(0.3))
    rec.value("clamp_ by a 0-dim bound", w)

def in_place_power_and_bool_operators(torch, rec):
    """**=, pow_, &=, |= and ^= change the tensor itself: its views see it, its version goes
    up, a leaf that requires grad refuses, and the graph records PowBackward0/1."""
    w = torch.tensor([1.5, -2.0, 0.5], requires_grad=True)
    rec.raises("**= on a leaf", lambda: w.__ipow__(2))
    h = w * 1.0
    alias = h
    h **= 2
    rec.value("same object", alias is h)
    rec.value("**= by a number", h)
    rec.value("version", h._version)
    e = torch.tensor([2.0, 1.0, 3.0], requires_grad=True)
    h.pow_(e)
    (h * torch.tensor([1.0, 0.5, 2.0])).sum().backward()
    rec.value("w.grad", w.grad)
    rec.value("e.grad", e.grad)
    base = torch.tensor([2.0, 3.0, 4.0])
    view = base[1:]
    base **= 0.5
    rec.value("a view sees **=", view)
    counts = torch.tensor([2, 3])
    counts **= 2
    rec.value("int **= int", counts)
    rec.raises("int **= float", lambda: counts.__ipow__(0.5))
    mask = torch.tensor([True, False, True, False])
    seen = mask.view(2, 2)
    mask &= torch.tensor([True, True, False, False])
    rec.value("&=", seen)
    mask |= torch.tensor([False, True, False, True])
    rec.value("|=", seen)
    mask ^= torch.tensor([True, True, True, False])
    rec.value("^=", seen)
    rec.value("version after three", mask._version)
    rec.value("^", torch.tensor([True, False]) ^ torch.tensor([True, True]))

def in_place_ops_with_operands_of_another_dtype(torch, rec):
    """An in-place op computes in the operands' common dtype and writes the result in self's
    dtype (a float64 operand into float32 self); a float result into an integer tensor, or a
    number into a bool one, is refused. lerp takes no promotion at all."""
    a = torch.tensor([0.1, 2.7, -1.3], requires_grad=True)
    o = torch.tensor([0.7, 1.9, -2.2], dtype=torch.float64, requires_grad=True)
    weights = torch.tensor([1.0, 2.0, 3.0])
    for name, change in (("mul_", lambda t: t.mul_(o)), ("add_", lambda t: t.add_(o, alpha=0.3)),
                         ("div_", lambda t: t.div_(o + 3)), ("clamp_", lambda t: t.clamp_(max=o)),
                         ("pow_", lambda t: t.pow_(o.abs() + 1))):
        t = a * 1.0
        change(t)
        rec.value(f"{name} value", t)
        (t * weights).sum().backward()
        rec.value(f"{name} self's grad", a.grad)
        rec.value(f"{name} operand's grad", o.grad)
        a.grad = o.grad = None
    c = torch.tensor([0.0, 2.0, 5.0])
    c.clamp_(max=torch.tensor([1, 1, 1]))
    rec.value("clamp_ by int64 bounds", c)
    rec.value("clamp by int64 bounds", torch.clamp(torch.tensor([0.0, 2.0, 5.0]),
                                                   min=torch.tensor([1, 1, 1])))
    counts = torch.tensor([1, 2, 3])
    rec.raises("float into int64", lambda: counts.mul_(torch.tensor([1.5, 2.0, 2.0])))
    rec.raises("int64 into bool", lambda: torch.tensor([True, False]).add_(torch.tensor([1, 2])))
    rec.raises("lerp end of another dtype", lambda: torch.lerp(
        torch.ones(2), torch.ones(2, dtype=torch.float64), 0.5))
    rec.raises("lerp_ weight of another dtype", lambda: torch.ones(2).lerp_(
        torch.ones(2), torch.ones(2, dtype=torch.float64)))

def clamp_min_max_angles_new_tensors_and_triangle_indices(torch, rec):
    x = torch.tensor([[-1.5, 0.0, 2.0], [3.0, -0.5, float("nan")]], requires_grad=True)
    for name, out in (("clamp_min", torch.clamp_min(x, 0.5)), ("clamp_max", x.clamp_max(1)),
                      ("clamp_min tensor", x.clamp_min(torch.tensor([0.0, 1.0, 2.0]))),
                      ("clamp_max tensor", torch.clamp_max(x, torch.tensor(0.0))),
                      ("rad2deg", torch.rad2deg(x)), ("deg2rad", x.deg2rad())):
        rec.printed(name, out)
        x.grad = None
        out.backward(torch.ones(2, 3))
        rec.value(f"{name} grad", x.grad)
    rec.value("rad2deg of ints", torch.rad2deg(torch.tensor([1, 2])))
    rec.value("deg2rad float64", torch.deg2rad(torch.tensor([1.0, 90.0, 1e-3],
                                                            dtype=torch.float64)))
    y = x * 1
    y.clamp_min_(0.0)
    rec.graph("graph(clamp_min_)", y)
    y.clamp_max_(torch.tensor(1.0))
    rec.printed("after clamp_max_", y)
    rec.raises("clamp_min_ of a leaf", lambda: x.clamp_min_(0))
    rec.printed("view_as", x.view_as(torch.zeros(3, 2)))
    rec.printed("broadcast_to", torch.broadcast_to(torch.tensor([1.0, 2.0, 3.0],
                                                                requires_grad=True), (2, 3)))
    rec.raises("broadcast_to a bad shape", lambda: torch.tensor([1.0, 2.0]).broadcast_to((3,)))
    i = torch.tensor([1, 2])
    rec.value("new_zeros", x.new_zeros(2, 2))
    rec.value("new_ones int", i.new_ones((1, 2)))
    rec.value("new_full", x.new_full((2,), 7))
    rec.value("new_tensor", x.new_tensor([1, 2]))
    rec.value("new_tensor dtype", x.new_tensor([1, 2], dtype=torch.int64))
    rec.value("new_zeros requires_grad", x.new_zeros(2, requires_grad=True).requires_grad)
    rec.value("new_empty shape", x.new_empty(0, 3).shape)
    rec.value("triu_indices", torch.triu_indices(3, 3))
    rec.value("triu_indices offset", torch.triu_indices(3, 4, 1))
    rec.value("tril_indices", torch.tril_indices(3, 2, -1))
    rec.value("tril_indices empty", torch.tril_indices(0, 2))
    rec.value("count_nonzero", torch.count_nonzero(x))
    rec.value("count_nonzero dim", x.count_nonzero(dim=1))
    rec.value("count_nonzero dims", torch.count_nonzero(torch.tensor([[0, 1], [2, 0]]), (0, 1)))



SCENARIOS = collect_scenarios(globals(), __name__)
