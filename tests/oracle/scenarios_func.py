"""Oracle scenarios for torch.func (grad, grad_and_value, vjp, vmap, jacrev, jacfwd, jvp) and
torch.autograd.graph.saved_tensors_hooks. The rules of tests/oracle/scenarios.py apply; its
SCENARIOS include these. vmap's scenarios use only what the engine's vmap accepts (engine/func.py)."""

from __future__ import annotations

import warnings
from contextlib import contextmanager

from tests.oracle.recorder import collect_scenarios


def _v(torch, **kw):
    return torch.tensor([0.5, -1.25, 2.0], **kw)


def _rec_tree(rec, tag, value):
    """Record a tensor, or every tensor of a nest of tuples and dicts, with its place."""
    if isinstance(value, (tuple, list)):
        for i, item in enumerate(value):
            _rec_tree(rec, f"{tag}[{i}]", item)
    elif isinstance(value, dict):
        for k, item in value.items():
            _rec_tree(rec, f"{tag}[{k!r}]", item)
    else:
        rec.value(tag, value)


def func_grad_values(torch, rec):
    F = torch.func
    _rec_tree(rec, "grad pow", F.grad(lambda x: (x ** 3).sum())(_v(torch)))
    _rec_tree(rec, "grad float64", F.grad(lambda x: (x.exp() * x).sum())(
        _v(torch, dtype=torch.float64)))
    _rec_tree(rec, "grad of grad", F.grad(F.grad(lambda x: x ** 4 - x.sin()))(torch.tensor(0.7)))
    _rec_tree(rec, "third derivative", F.grad(F.grad(F.grad(lambda x: x.sin() * x)))(
        torch.tensor(1.3)))
    _rec_tree(rec, "argnums tuple", F.grad(lambda a, b: (a * b.tanh()).sum(), argnums=(0, 1))(
        _v(torch), _v(torch) * 2))
    _rec_tree(rec, "argnums negative", F.grad(lambda a, b: (a * b).sum(), argnums=-1)(
        _v(torch), _v(torch) + 1))
    _rec_tree(rec, "has_aux", F.grad(lambda x: ((x * x).sum(), {"double": x * 2}), has_aux=True)(
        _v(torch)))
    _rec_tree(rec, "dict input", F.grad(lambda d: (d["w"] * d["b"]).sum())(
        {"w": _v(torch), "b": _v(torch) - 3}))
    _rec_tree(rec, "unused input", F.grad(lambda x: torch.tensor(3.0))(_v(torch)))
    _rec_tree(rec, "value and grad", F.grad_and_value(lambda x: (x ** 2).mean())(_v(torch)))
    # the partial derivative through the argument, not through the closure (torch's levels)
    _rec_tree(rec, "closure over the input", F.grad(
        lambda x: F.grad(lambda y: (x * y * y))(x))(torch.tensor(1.5)))


def func_grad_graphs(torch, rec):
    F = torch.func
    x = _v(torch, requires_grad=True)
    g = F.grad(lambda a: (a ** 2).sum())(x)
    rec.value("input requires grad", g)
    rec.graph("input requires grad graph", g)
    (gg,) = torch.autograd.grad(g.sum(), x)
    rec.value("gradient of the gradient", gg)
    rec.value("constant gradient", F.grad(lambda a: (a * 3).sum())(x))
    w = _v(torch, requires_grad=True)
    g = F.grad(lambda a: (a * w).sum())(_v(torch))
    rec.value("closure requires grad", g)
    rec.graph("closure requires grad graph", g)
    g, value = F.grad_and_value(lambda a: (a.sin() * a).sum())(x)
    rec.value("grad_and_value grad", g)
    rec.value("grad_and_value value", value)
    rec.graph("grad_and_value value graph", value)
    with torch.no_grad():
        rec.value("under no_grad", F.grad(lambda a: (a ** 2).sum())(x))

    def no_grad_inside(a):
        with torch.no_grad():
            return (a ** 2).sum()

    rec.value("no_grad inside", F.grad(no_grad_inside)(_v(torch)))


def func_grad_errors(torch, rec):
    F = torch.func
    rec.raises("not a scalar", lambda: F.grad(lambda x: x * 2)(_v(torch)))
    rec.raises("not a tensor", lambda: F.grad(lambda x: 2.0)(_v(torch)))
    rec.raises("argnum out of range", lambda: F.grad(lambda x: x.sum(), argnums=1)(_v(torch)))
    rec.raises("argnums empty", lambda: F.grad(lambda x: x.sum(), argnums=())(_v(torch)))
    rec.raises("argnums repeated", lambda: F.grad(lambda x, y: x.sum(), argnums=(0, 0))(
        _v(torch), _v(torch)))
    rec.raises("argnums float", lambda: F.grad(lambda x: x.sum(), argnums=0.5)(_v(torch)))
    rec.raises("has_aux not a pair", lambda: F.grad(lambda x: (x.sum(),), has_aux=True)(
        _v(torch)))
    rec.raises("number input", lambda: F.grad(lambda x: x * 2)(2.0))
    rec.raises("integer input", lambda: F.grad(lambda x: x.sum())(torch.tensor([1, 2])))


def func_vjp(torch, rec):
    F = torch.func
    out, back = F.vjp(lambda a: a.exp() * a, _v(torch))
    rec.value("vjp out", out)
    _rec_tree(rec, "vjp", back(torch.tensor([1.0, 2.0, -1.0])))
    out, back = F.vjp(lambda a, b: (a * b, a - b.cos()), _v(torch), _v(torch) / 2)
    _rec_tree(rec, "vjp two outputs", out)
    _rec_tree(rec, "vjp two outputs back", back((torch.ones(3), _v(torch))))
    out, back, aux = F.vjp(lambda a: (a ** 2, a.sum()), _v(torch), has_aux=True)
    rec.value("vjp aux", aux)
    _rec_tree(rec, "vjp aux back", back(torch.ones(3)))
    x = _v(torch, requires_grad=True)
    out, back = F.vjp(lambda a: a ** 2, x)
    rec.value("vjp input requires grad out", out)
    _rec_tree(rec, "vjp input requires grad", back(torch.ones(3)))
    # one primal requires grad, the other does not; then a closure that requires grad
    out, back = F.vjp(lambda a, b: a * b, x, _v(torch) + 4)
    rec.value("vjp mixed primals out", out)
    rec.graph("vjp mixed primals graph", out)
    _rec_tree(rec, "vjp mixed primals", back(torch.ones(3)))
    _rec_tree(rec, "vjp mixed primals again", back(torch.tensor([1.0, -1.0, 0.5])))
    w = torch.tensor([1.0, 1.0, 2.0], requires_grad=True)
    out, back = F.vjp(lambda b: (w * b) ** 2, _v(torch))
    rec.graph("vjp closure graph", out)
    _rec_tree(rec, "vjp closure", back(torch.ones(3)))
    rec.raises("vjp cotangent structure", lambda: F.vjp(lambda a: a * 2, _v(torch))[1](
        (torch.ones(3),)))
    rec.raises("vjp cotangent dict", lambda: F.vjp(lambda a: {"k": a * 2}, _v(torch))[1](
        [torch.ones(3)]))
    rec.raises("vjp cotangent shape", lambda: F.vjp(lambda a: a * 2, _v(torch))[1](
        torch.ones(2)))
    rec.raises("vjp bool output", lambda: F.vjp(lambda a: a > 0, _v(torch)))
    rec.raises("vjp None output", lambda: F.vjp(lambda a: None, _v(torch)))
    rec.raises("vjp number output", lambda: F.vjp(lambda a: 2.0, _v(torch)))
    rec.raises("vjp number input", lambda: F.vjp(lambda a: a, 2.0))


@contextmanager
def _quiet_torch_internals():
    """Warnings from torch's own machinery, not behaviour to record: its forward-mode transforms
    import a module that warns that torch.jit.script is deprecated (the first time only in a
    process), and linearize's tracer warns about the constants it folds."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="`torch.jit.script` is deprecated")
        warnings.filterwarnings("ignore", message="Attempted to insert a get_attr Node")
        yield


def func_jacobians(torch, rec):
    with _quiet_torch_internals():
        _jacobians(torch, rec)


def func_jacobian_errors(torch, rec):
    with _quiet_torch_internals():
        _jacobian_errors(torch, rec)


def _jacobians(torch, rec):
    F = torch.func
    x = _v(torch)
    _rec_tree(rec, "jacrev", F.jacrev(lambda a: a.sin() * a)(x))
    _rec_tree(rec, "jacrev scalar output", F.jacrev(lambda a: (a ** 2).sum())(x))
    _rec_tree(rec, "jacrev 0-dim", F.jacrev(lambda a: a * a * a)(torch.tensor(1.5)))
    _rec_tree(rec, "jacrev matrix", F.jacrev(lambda a: (a.T * 2 - 1).relu())(_batch(torch, 2, 3)))
    _rec_tree(rec, "jacrev argnums tuple", F.jacrev(lambda a, b: a.sum() * b.exp(),
                                                    argnums=(0, 1))(x, x[:2]))
    _rec_tree(rec, "jacrev argnums 1", F.jacrev(lambda a, b: a * b, argnums=1)(x, x + 1))
    _rec_tree(rec, "jacrev two outputs", F.jacrev(lambda a: (a * 2, a.mean()))(x))
    _rec_tree(rec, "jacrev dicts", F.jacrev(lambda d: {"p": d["w"] * d["b"]})(
        {"w": x, "b": x - 3}))
    _rec_tree(rec, "jacrev has_aux", F.jacrev(lambda a: (a.exp(), {"s": a.sum()}),
                                              has_aux=True)(x))
    _rec_tree(rec, "jacrev chunk_size", F.jacrev(lambda a: a.tanh(), chunk_size=1)(x))
    _rec_tree(rec, "jacrev float64", F.jacrev(lambda a: a.sqrt() / 3)(x.abs().double()))
    _rec_tree(rec, "jacrev unused", F.jacrev(lambda a: torch.ones(2))(x))
    _rec_tree(rec, "jacrev input requires grad, linear", F.jacrev(lambda a: a * 2)(
        _v(torch, requires_grad=True)))
    _rec_tree(rec, "vmap of jacrev", F.vmap(F.jacrev(lambda a: a * a - a))(_batch(torch, 4, 3)))
    _rec_tree(rec, "jacfwd", F.jacfwd(lambda a: a.sin() * a)(x))
    _rec_tree(rec, "jacfwd matrix", F.jacfwd(lambda a: (a.T * 2 - 1).relu())(_batch(torch, 2, 3)))
    _rec_tree(rec, "jacfwd argnums tuple", F.jacfwd(lambda a, b: a[:2] * b.exp(),
                                                    argnums=(0, 1))(x, x[:2]))
    _rec_tree(rec, "jacfwd two outputs", F.jacfwd(lambda a: (a * 2, a.cos()))(x))
    _rec_tree(rec, "jacfwd has_aux", F.jacfwd(lambda a: (a.exp(), a * 3), has_aux=True)(x))
    _rec_tree(rec, "jacfwd integer output", F.jacfwd(lambda a: (a * 2).long())(x))
    _rec_tree(rec, "jacfwd 0-dim", F.jacfwd(lambda a: a * a * a)(torch.tensor(1.5)))
    _rec_tree(rec, "jvp", F.jvp(lambda a: a.sin() * a, (x,), (torch.tensor([1.0, 0.0, -2.0]),)))
    _rec_tree(rec, "jvp two primals", F.jvp(lambda a, b: a * b - b, (x, x + 1),
                                            (torch.ones(3), x)))
    _rec_tree(rec, "jvp dict primal", F.jvp(lambda d: d["a"].exp(), ({"a": x},),
                                            ({"a": torch.ones(3)},)))
    _rec_tree(rec, "jvp has_aux", F.jvp(lambda a: (a.tanh(), a * 2), (x,), (torch.ones(3),),
                                        has_aux=True))
    _rec_tree(rec, "jvp independent output", F.jvp(lambda a: torch.ones(2), (x,),
                                                   (torch.ones(3),)))
    out, jvp_fn = F.linearize(lambda a, b: (a.exp() * b, a - b), x, x * 2)
    _rec_tree(rec, "linearize output", out)
    _rec_tree(rec, "linearize", jvp_fn(torch.ones(3), x))
    _rec_tree(rec, "linearize again", jvp_fn(x, torch.tensor([0.0, -1.0, 2.0])))
    _rec_tree(rec, "jvp matrix product", F.jvp(lambda a: a @ _batch(torch, 3, 2), (x,),
                                               (torch.ones(3),)))


def _jacobian_errors(torch, rec):
    F = torch.func
    x = _v(torch)
    rec.raises("jacrev number output", lambda: F.jacrev(lambda a: 2.0)(x))
    rec.raises("jacrev None output", lambda: F.jacrev(lambda a: None)(x))
    rec.raises("jacrev integer output", lambda: F.jacrev(lambda a: a.long())(x))
    rec.raises("jacrev integer input", lambda: F.jacrev(lambda a: a * 2)(torch.tensor([1, 2])))
    rec.raises("jacrev number input", lambda: F.jacrev(lambda a: a * 2)(2.0))
    rec.raises("jacrev argnum out of range", lambda: F.jacrev(lambda a: a, argnums=1)(x))
    rec.raises("jacrev argnums empty", lambda: F.jacrev(lambda a: a, argnums=())(x))
    rec.raises("jacrev no inputs", lambda: F.jacrev(lambda: x)())
    rec.raises("jacrev has_aux not a pair", lambda: F.jacrev(lambda a: a, has_aux=True)(x))
    rec.raises("jacrev chunk_size 0", lambda: F.jacrev(lambda a: a, chunk_size=0))
    rec.raises("jacfwd number output", lambda: F.jacfwd(lambda a: 2.0)(x))
    rec.raises("jacfwd integer input", lambda: F.jacfwd(lambda a: a * 2)(torch.tensor([1, 2])))
    rec.raises("jacfwd number input", lambda: F.jacfwd(lambda a: a * 2)(2.0))
    rec.value("jacfwd empty input", F.jacfwd(lambda a: a * 2)(torch.ones(0)))
    rec.raises("jacfwd has_aux not a pair", lambda: F.jacfwd(lambda a: a, has_aux=True)(x))
    rec.raises("jacfwd randomness", lambda: F.jacfwd(lambda a: a, randomness="no")(x))
    rec.raises("jacfwd random inside", lambda: F.jacfwd(lambda a: a * torch.rand(3))(x))
    rec.raises("jvp primals not a tuple", lambda: F.jvp(lambda a: a, x, torch.ones(3)))
    rec.raises("jvp structures differ", lambda: F.jvp(lambda a: a, (x,), (x, x)))
    rec.raises("jvp tangent shape", lambda: F.jvp(lambda a: a * 2, (x,), (torch.ones(2),)))
    rec.raises("jvp integer primal", lambda: F.jvp(lambda a: a, (torch.tensor([1]),),
                                                   (torch.tensor([1]),)))
    rec.raises("jvp number primal", lambda: F.jvp(lambda a: a, (2.0,), (1.0,)))
    rec.raises("jvp no primals", lambda: F.jvp(lambda: x, (), ()))
    rec.raises("jvp number output", lambda: F.jvp(lambda a: 2.0, (x,), (x,)))
    rec.raises("jvp strict", lambda: F.jvp(lambda a: torch.ones(2), (x,), (x,), strict=True))
    _, jvp_fn = F.linearize(lambda a: a * a, x)
    rec.raises("linearize tangents structure", lambda: jvp_fn(x, x))
    rec.raises("linearize tangent shape", lambda: jvp_fn(torch.ones(2)))
    rec.raises("linearize tangent dtype", lambda: jvp_fn(x.double()))
    rec.raises("linearize number primal", lambda: F.linearize(lambda a: a, 2.0))
    rec.raises("linearize integer primal", lambda: F.linearize(lambda a: a, torch.tensor([1])))


def _batch(torch, rows, cols, dtype=None):
    values = [[((i * 7 + j * 3) % 11 - 5) / 4 for j in range(cols)] for i in range(rows)]
    return torch.tensor(values, dtype=dtype or torch.float32)


def func_vmap(torch, rec):
    F = torch.func
    b = _batch(torch, 4, 5)
    rec.value("pointwise", F.vmap(lambda r: (r * 2 + 1).sin() * r.exp())(b))
    rec.value("in_dims 1", F.vmap(lambda c: c.tanh() - c, in_dims=1)(b))
    rec.value("out_dims 1", F.vmap(lambda r: r.abs() ** 1.5, out_dims=1)(b))
    rec.value("row sums", F.vmap(lambda r: r.sum())(b))
    rec.value("row means float64", F.vmap(lambda r: r.mean())(_batch(torch, 4, 5, torch.float64)))
    rec.value("broadcast None", F.vmap(lambda r, w: r * w - w, in_dims=(0, None))(
        b, _batch(torch, 1, 5)[0]))
    _rec_tree(rec, "two outputs", F.vmap(lambda r: (r.relu(), r.sum()), out_dims=(0, 0))(b))
    rec.value("nested", F.vmap(F.vmap(lambda x: x.sigmoid() * 3))(b))
    # per-sample gradients: vmap of grad, the weights shared (in_dims None)
    w = _v(torch)
    xs = _batch(torch, 4, 3)
    ys = torch.tensor([1.0, -1.0, 0.5, 2.0])
    per_sample = F.vmap(F.grad(lambda w, x, y: ((w * x).sum() - y) ** 2), in_dims=(None, 0, 0))
    rec.value("per-sample gradients", per_sample(w, xs, ys))
    # a linear model's per-sample gradients (matrix products: torch's last bits may differ)
    weight = _batch(torch, 3, 2) / 3
    loss = F.grad(lambda m, x, y: ((x @ m).tanh() - y).pow(2).mean())
    # (no input is 0: torch's batch gives +0.0 where a per-sample product gives -0.0, the
    # documented difference)
    rec.value("per-sample linear gradients", F.vmap(loss, in_dims=(None, 0, 0))(
        weight, _batch(torch, 4, 3) + 0.125, _batch(torch, 4, 2)))
    rec.value("batch of matrix-vector products", F.vmap(torch.mv, in_dims=(None, 0))(
        _batch(torch, 3, 5), b))
    rec.raises("batch sizes differ", lambda: F.vmap(torch.add)(b, _batch(torch, 3, 5)))
    rec.raises("in_dim out of range", lambda: F.vmap(torch.sin, in_dims=2)(b))
    rec.raises("in_dims float", lambda: F.vmap(torch.sin, in_dims=0.5)(b))
    rec.raises("no batched input", lambda: F.vmap(torch.sin, in_dims=(None,))(b))
    rec.raises("batched number", lambda: F.vmap(lambda a, k: a * k, in_dims=(0, 0))(b, 2.0))
    rec.raises("no inputs", lambda: F.vmap(torch.sin)())
    rec.raises("returns a number", lambda: F.vmap(lambda r: 3.0)(b))
    rec.raises("random inside", lambda: F.vmap(lambda r: r + torch.randn(5))(b))
    rec.raises("out_dims out of range", lambda: F.vmap(lambda r: r.sum(), out_dims=1)(b))


def func_vmap_python_reads(torch, rec):
    F = torch.func
    b = _batch(torch, 3, 4)
    w = torch.tensor([0.5, 2.0, -1.0, 1.0])
    rec.raises("item", lambda: F.vmap(lambda r: r.sum().item())(b))
    rec.raises("float", lambda: F.vmap(lambda r: r * float(r.sum()))(b))
    rec.raises("int", lambda: F.vmap(lambda r: r * int(r.amax()))(b))
    rec.raises("format", lambda: F.vmap(lambda r: f"{r.sum():.2f}")(b))
    rec.raises("index a list", lambda: F.vmap(lambda r: r * [1, 2][(r.sum() > 0).long()])(b))
    rec.raises("bool", lambda: F.vmap(lambda r: r * bool(r.sum() > 0))(b))
    rec.raises("if", lambda: F.vmap(lambda r: r if (r > 0).any() else -r)(b))
    rec.raises("after detach", lambda: F.vmap(lambda r: r * r.detach().sum().item())(b))
    rec.raises("under grad", lambda: F.vmap(F.grad(lambda r: r.sum() * r.sum().item()))(b))
    rec.raises("nested vmap", lambda: F.vmap(lambda r: F.vmap(lambda s: s * r.sum().item())(r))(b))
    # a tensor that holds no sample may be read
    rec.value("closure item", F.vmap(lambda r: r * w.sum().item())(b))
    rec.value("closure if", F.vmap(lambda r: r * 2 if (w > 0).any() else r)(b))


def func_vmap_data_dependent(torch, rec):
    """Under vmap: results of argmax, bucketize, isfinite, logical ops (no gradient, nothing
    recorded) still hold the sample, so reading them is refused; operations whose result's
    shape depends on each sample's values are refused with torch's own words; the same
    operations are fine on a tensor that holds no sample; a 0-dim integer tensor that holds a
    sample indexes as a tensor."""
    F = torch.func
    b = _batch(torch, 3, 4)
    table = torch.tensor([10.0, 20.0, 30.0, 40.0])
    grid = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
    edges = torch.tensor([-1.0, 0.0, 1.0])
    keep = torch.tensor([True, True, False, True])
    # reads of results that hold a sample
    rec.raises("argmax item", lambda: F.vmap(lambda r: r * r.argmax().item())(b))
    rec.raises("argmin if", lambda: F.vmap(lambda r: r if r.argmin() > 1 else -r)(b))
    rec.raises("bucketize item", lambda: F.vmap(
        lambda r: r * torch.bucketize(r, edges)[0].item())(b))
    rec.raises("searchsorted int", lambda: F.vmap(
        lambda r: r * int(torch.searchsorted(edges, r)[1]))(b))
    rec.raises("isfinite all if", lambda: F.vmap(lambda r: r if torch.isfinite(r).all() else r)(b))
    rec.raises("isinf any bool", lambda: F.vmap(lambda r: r * bool(torch.isinf(r).any()))(b))
    rec.raises("logical_and if", lambda: F.vmap(
        lambda r: r if torch.logical_and(r > -2, r < 2).all() else -r)(b))
    rec.raises("logical_xor item", lambda: F.vmap(
        lambda r: r * torch.logical_xor(r > 0, r > 1).sum().item())(b))
    rec.raises("isclose if", lambda: F.vmap(lambda r: r if torch.isclose(r, -r).any() else r)(b))
    rec.raises("tolist", lambda: F.vmap(lambda r: r * len(r.tolist()))(b))
    rec.raises("numpy", lambda: F.vmap(lambda r: r * r.numpy().size)(b))
    rec.raises("tolist under grad", lambda: F.vmap(F.grad(
        lambda r: r.sum() * len(r.tolist())))(b))
    rec.raises("argmax index under grad", lambda: F.vmap(F.grad(
        lambda r: r[r.argmax()] * 3))(b))
    # results whose shape would depend on the sample
    rec.raises("nonzero", lambda: F.vmap(lambda r: (r > 0).nonzero())(b))
    rec.raises("nonzero as_tuple", lambda: F.vmap(lambda r: r.nonzero(as_tuple=True)[0])(b))
    rec.raises("where of a condition", lambda: F.vmap(lambda r: torch.where(r < 0)[0])(b))
    rec.raises("unique", lambda: F.vmap(lambda r: torch.unique(r))(b))
    rec.raises("unique with dim", lambda: F.vmap(lambda r: r.reshape(2, 2).unique(dim=0))(b))
    rec.raises("unique_consecutive", lambda: F.vmap(lambda r: r.unique_consecutive())(b))
    rec.raises("masked_select, mask held", lambda: F.vmap(lambda r: r.masked_select(r > 0))(b))
    rec.raises("boolean mask index", lambda: F.vmap(lambda r: r[r > 0])(b))

    def zero_big(r):
        out = r.clone()
        out[r.abs() > 1] = 0.0
        return out

    rec.raises("boolean mask setitem", lambda: F.vmap(zero_big)(b))
    rec.raises("index_put_ with a mask", lambda: F.vmap(
        lambda r: r.clone().index_put_((r < 0,), torch.tensor(1.0)))(b))
    rec.raises("allclose", lambda: F.vmap(lambda r: r * torch.allclose(r, r))(b))
    rec.raises("equal", lambda: F.vmap(lambda r: r * torch.equal(r, r))(b))
    # the same operations on tensors that hold no sample, and ones torch runs sample by sample
    rec.value("argmax", F.vmap(lambda r: r.argmax())(b))
    rec.value("argmin dim keepdim", F.vmap(lambda r: r.reshape(2, 2).argmin(1, keepdim=True))(b))
    rec.value("bucketize", F.vmap(lambda r: torch.bucketize(r, edges, right=True))(b))
    rec.value("searchsorted", F.vmap(lambda r: torch.searchsorted(edges, r))(b))
    rec.value("nonzero of a closure", F.vmap(lambda r: r + table.nonzero().sum())(b))
    rec.value("masked_select, mask not held", F.vmap(lambda r: r.masked_select(keep))(b))
    rec.value("masked_select gradient", F.vmap(F.grad(
        lambda r: (r.masked_select(keep) ** 2).sum()))(b))
    rec.value("boolean mask of a closure", F.vmap(lambda r: r[keep] * 2)(b))
    rec.value("histc", F.vmap(lambda r: torch.histc(r, bins=4, min=-2, max=2))(b))
    rec.value("isclose", F.vmap(lambda r: torch.isclose(r, r * 1.0000001).float())(b))
    rec.value("argwhere, same counts", F.vmap(lambda r: torch.argwhere(r.reshape(2, 2) > 5))(b))
    rec.value("index by a held integer", F.vmap(lambda r: table[(r[0] * 2).long() % 4])(b))
    rec.value("index rows by a held integer", F.vmap(lambda r: grid[r.long()[1] % 4, 1])(b))
    rec.value("gather by held integers", F.vmap(lambda r: table.gather(
        0, (r[:2] * 2 + 5).long() % 4))(b))


def func_vmap_inplace(torch, rec):
    """Under vmap, an in-place op may not write what holds the sample into a tensor that does
    not: torch refuses, in words that depend on the op (some after its slice-by-slice fallback
    warned). Writing into a tensor that holds the sample, or into one the function made from
    no sample, is fine."""
    F = torch.func
    b = _batch(torch, 3, 4)

    def into_fresh(change):
        def f(r):
            out = torch.zeros(4)
            change(out, r)
            return out
        return f

    rec.raises("add_", lambda: F.vmap(into_fresh(lambda o, r: o.add_(r, alpha=2)))(b))
    rec.raises("+= on a view", lambda: F.vmap(into_fresh(
        lambda o, r: o.unsqueeze(0).__iadd__(r)))(b))
    rec.raises("sub_", lambda: F.vmap(into_fresh(lambda o, r: o.sub_(r)))(b))
    rec.raises("*=", lambda: F.vmap(into_fresh(lambda o, r: o.__imul__(r)))(b))
    rec.raises("div_ floor", lambda: F.vmap(into_fresh(
        lambda o, r: o.div_(r + 9, rounding_mode="floor")))(b))
    rec.raises("copy_", lambda: F.vmap(into_fresh(lambda o, r: o.copy_(r)))(b))
    rec.raises("setitem, an int", lambda: F.vmap(into_fresh(
        lambda o, r: o.__setitem__(1, r[0])))(b))
    rec.raises("setitem, an index tensor", lambda: F.vmap(into_fresh(
        lambda o, r: o.__setitem__(torch.tensor([0, 3]), r[:2])))(b))
    rec.raises("index_put_", lambda: F.vmap(into_fresh(
        lambda o, r: o.index_put_((torch.tensor([2]),), r[:1], accumulate=True)))(b))
    rec.raises("masked_fill_, mask held", lambda: F.vmap(into_fresh(
        lambda o, r: o.masked_fill_(r > 0, 1.0)))(b))
    rec.raises("masked_fill_, value held", lambda: F.vmap(into_fresh(
        lambda o, r: o.masked_fill_(torch.tensor([True, False, False, True]), r[1])))(b))
    rec.raises("clamp_ with a tensor bound", lambda: F.vmap(into_fresh(
        lambda o, r: o.clamp_(max=r)))(b))
    rec.raises("clamp_min_", lambda: F.vmap(into_fresh(lambda o, r: o.clamp_min_(r)))(b))
    rec.raises("addcmul_", lambda: F.vmap(into_fresh(
        lambda o, r: o.addcmul_(r, r, value=0.5)))(b))
    rec.raises("lerp_, a number weight", lambda: F.vmap(into_fresh(
        lambda o, r: o.lerp_(r, 0.25)))(b))
    rec.raises("lerp_, a tensor weight", lambda: F.vmap(into_fresh(
        lambda o, r: o.lerp_(torch.ones(4), r.sigmoid())))(b))
    rec.raises("remainder_", lambda: F.vmap(into_fresh(lambda o, r: o.remainder_(r + 9)))(b))
    rec.raises("scatter_, a value", lambda: F.vmap(into_fresh(
        lambda o, r: o.scatter_(0, (r[:2] * 4 + 8).long() % 4, 3.0)))(b))
    rec.raises("scatter_add_", lambda: F.vmap(into_fresh(
        lambda o, r: o.scatter_add_(0, torch.tensor([1, 1]), r[:2])))(b))
    rec.raises("fill_", lambda: F.vmap(into_fresh(lambda o, r: o.fill_(r[3])))(b))
    rec.raises("logical_or_", lambda: F.vmap(lambda r: (torch.zeros(4) > 0).logical_or_(r > 0))(b))
    rec.raises("inner level", lambda: F.vmap(lambda m: F.vmap(
        lambda e: m[0].clone().mul_(e))(m))(b.reshape(3, 2, 2)))
    rec.raises("inner level, a fallback", lambda: F.vmap(lambda m: F.vmap(
        lambda e: m[0].clone().addcdiv_(e, m[1]))(m))(b.reshape(3, 2, 2)))
    rec.raises("random in place", lambda: F.vmap(lambda r: r.clone().uniform_())(b))
    rec.raises("random in place, bernoulli_", lambda: F.vmap(
        lambda r: torch.zeros(4).bernoulli_(r.sigmoid()))(b))

    # writes that torch's batch can hold
    def double_first(r):
        r[0] *= 2
        return r

    rec.value("into the sample", F.vmap(lambda r: r.clone().mul_(r).add_(1.0))(b))
    rec.value("setitem into a copy of the sample", F.vmap(double_first)(b.clone()))
    rec.value("into the input itself", F.vmap(lambda r: r.mul_(-1))(b.clone()))
    rec.value("a fresh tensor and numbers", F.vmap(lambda r: r + torch.ones(4).mul_(3).add_(1))(b))
    rec.value("clamp_ of the sample by a closure", F.vmap(
        lambda r: r.clone().clamp_(min=torch.tensor([0.0, -1.0, 0.0, -1.0])))(b))


def func_transforms_refuse_requires_grad_and_backward(torch, rec):
    """Inside a function torch.func transforms, requires_grad_() (and so the
    torch.autograd.functional APIs) and backward() are refused; torch.autograd.grad is not. A
    gradient computed by grad inside vmap holds the sample."""
    F = torch.func
    b = _batch(torch, 2, 3)
    rec.raises("requires_grad_ under vmap", lambda: F.vmap(
        lambda r: r + torch.zeros(3).requires_grad_().detach())(b))
    rec.raises("requires_grad_(False) under vmap", lambda: F.vmap(
        lambda r: r.clone().requires_grad_(False))(b))
    rec.raises("requires_grad_ under grad", lambda: F.grad(
        lambda r: (r.detach().requires_grad_() * r).sum())(b))
    rec.raises("autograd.functional under vmap", lambda: F.vmap(
        lambda r: torch.autograd.functional.jacobian(lambda u: u * 2, r))(b))

    def backward_inside(r):
        w = torch.ones(3, requires_grad=True)
        (w * r).sum().backward()
        return r * 2

    rec.raises("backward under vmap", lambda: F.vmap(backward_inside)(b))
    rec.raises("backward under grad", lambda: F.grad(
        lambda r: (lambda w: ((w * 2).sum().backward(), (r * w).sum())[1])(
            torch.ones(2, 3, requires_grad=True)))(b))
    rec.value("autograd.grad under grad", F.grad(lambda r: (r * torch.autograd.grad(
        (r * r).sum(), r, create_graph=True)[0]).sum())(b))
    rec.raises("item of a gradient under vmap", lambda: F.vmap(
        lambda r: r * F.grad(lambda u: (u ** 2).sum())(r).sum().item())(b))
    rec.raises("if on a vjp under vmap", lambda: F.vmap(
        lambda r: r if F.vjp(torch.sin, r)[1](torch.ones(3))[0].sum() > 0 else -r)(b))
    rec.value("requires_grad_ outside, then grad", F.grad(lambda r: (r * r).sum())(
        b.clone().requires_grad_()))

def func_vmap_made_inside(torch, rec):
    """What a vmapped function makes from its sample holds the sample, so changing it in place
    with the sample is fine: a gradient from grad, zeros_like and new_zeros of the sample, the
    padding F.pad fills in; one_hot of argmax skips its range check under vmap."""
    F = torch.func
    b = _batch(torch, 3, 4)
    w = torch.tensor([0.5, -1.0, 2.0, 0.25])

    def doubled_gradient(w, row):
        g = F.grad(lambda w, row: (w * row).sum())(w, row)
        g.mul_(2)
        return g

    rec.value("grad then mul_", F.vmap(doubled_gradient, in_dims=(None, 0))(w, b))

    def summed_gradient(w, row):
        g = F.grad(lambda w, row: (w * row.tanh()).sum())(w, row)
        total = torch.zeros(())
        total += g.sum()
        return total

    rec.raises("an unheld total += a gradient", lambda: F.vmap(
        summed_gradient, in_dims=(None, 0))(w, b))
    rec.value("zeros_like += sample", F.vmap(lambda r: torch.zeros_like(r).__iadd__(r * 3))(b))
    rec.value("new_zeros add_", F.vmap(lambda r: r.new_zeros(4).add_(r, alpha=2))(b))
    rec.value("full_like copy_", F.vmap(lambda r: torch.full_like(r, 7.0).copy_(r.flip(0)))(b))
    rec.raises("new_tensor add_", lambda: F.vmap(lambda r: r.new_tensor([1.0, 2, 3, 4]).add_(r))(b))
    rec.value("circular pad", F.vmap(lambda r: torch.nn.functional.pad(
        r.reshape(1, 2, 2), (1, 1), mode="circular"))(b))
    rec.value("one_hot of argmax", F.vmap(
        lambda r: torch.nn.functional.one_hot(r.argmax(), 4))(b))

def func_functional_call(torch, rec):
    F = torch.func
    model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Tanh(), torch.nn.Linear(2, 1))
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape) * (i + 1) / 4)
    params = {k: v.detach() for k, v in model.named_parameters()}
    x = _batch(torch, 4, 3)
    out = F.functional_call(model, params, (x,))
    rec.value("same parameters", out)
    doubled = {k: v * 2 for k, v in params.items()}
    rec.value("other parameters", F.functional_call(model, doubled, x))
    rec.value("own parameters back", model(x))
    rec.value("one of them", F.functional_call(model, {"2.bias": torch.tensor([10.0])}, (x,)))
    y = torch.tensor([[0.5], [-0.5], [1.0], [0.0]])

    def loss(p, xi, yi):
        return ((F.functional_call(model, p, (xi,)) - yi) ** 2).mean()

    # (no input is 0: the zero signs of matrix products under vmap are a documented difference)
    grads = F.vmap(F.grad(loss), in_dims=(None, 0, 0))(params, x + 0.125, y)
    _rec_tree(rec, "per-sample gradients", grads)
    rec.raises("strict", lambda: F.functional_call(model, {"0.weight": params["0.weight"],
                                                          "zz": x}, (x,), strict=True))
    rec.raises("repeated", lambda: F.functional_call(model, (params, params), (x,)))


def saved_tensors_hooks_calls(torch, rec):
    hooks = torch.autograd.graph.saved_tensors_hooks
    log = []

    def pack(t):
        log.append(f"pack {list(t.shape)} grad_fn={t.grad_fn is not None}")
        return t

    def unpack(t):
        log.append(f"unpack {list(t.shape)}")
        return t

    x = torch.tensor([0.5, 1.0, -1.5], requires_grad=True)
    y = torch.tensor([2.0, -0.5, 1.0], requires_grad=True)
    with hooks(pack, unpack):
        z = x * y  # saves both inputs
        log.append("mul")
        w = z * 2  # a Python number: nothing saved as a tensor
        log.append("mul by a number")
        e = w.exp()  # saves its result
        log.append("exp")
        s = (e.sin() + x ** 2).sum()
        log.append("sin, pow, sum")
    with torch.no_grad(), hooks(pack, unpack):
        x.sin()  # nothing recorded, nothing saved
    log.append("backward")
    s.backward()
    rec.printed("calls", "\n".join(log))
    rec.value("x.grad", x.grad)
    rec.value("y.grad", y.grad)


def saved_tensors_hooks_values(torch, rec):
    hooks = torch.autograd.graph.saved_tensors_hooks
    # backward uses what unpack gives back: here ones instead of a
    with hooks(lambda t: t * 0 + 1, lambda t: t):
        a = torch.tensor([2.0, 3.0], requires_grad=True)
        b = (a * a).sum()
    b.backward()
    rec.value("unpacked ones", a.grad)
    # pack may return anything: a key into the program's own store of copies
    store = {}

    def pack(t):
        store[len(store)] = t.clone()
        return len(store) - 1

    with hooks(pack, lambda k: store[k]):
        a = torch.tensor([0.5, -2.0], requires_grad=True)
        c = a.tanh() * a
        rec.value("through a store, _saved_other", c.grad_fn._saved_other)
    c.sum().backward()
    rec.value("through a store", a.grad)
    rec.value("packed", len(store))
    # with hooks, an in-place change to a saved tensor is not checked
    with hooks(lambda t: t, lambda t: t):
        a = torch.tensor([2.0, 3.0], requires_grad=True)
        c = a * 1
        d = c.sin()
        c.add_(1)
    d.sum().backward()
    rec.value("in place after saving", a.grad)
    # an in-place op that saves its own input: torch packs a copy of the values before the write
    packed = []
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x = torch.tensor([4.0, 5.0, 6.0], requires_grad=True)
    with hooks(lambda t: packed.append(t.tolist()) or t, lambda t: t):
        y = x * 1
        y.mul_(w)
    y.sum().backward()
    rec.value("in-place op's own input, w.grad", w.grad)
    rec.printed("in-place op's own input, packed", packed)
    # the innermost block's hooks apply
    log = []
    with hooks(lambda t: log.append("outer") or t, lambda t: t):
        with hooks(lambda t: log.append("inner") or t, lambda t: t):
            torch.tensor([1.0], requires_grad=True).sin()
        torch.tensor([1.0], requires_grad=True).cos()
    rec.printed("nested", " ".join(log))
    with hooks(lambda t: t, lambda t: 3):
        q = torch.tensor([1.0], requires_grad=True).sin().sum()
    rec.raises("unpack returns a number", lambda: q.backward())
    with hooks(lambda t: t, lambda t: t):
        q = torch.tensor([1.0], requires_grad=True).sin().sum()
    q.backward()
    rec.raises("second backward", lambda: q.backward())
    with hooks(lambda t: t, lambda t: t):
        rec.raises("torch.func under hooks", lambda: torch.func.grad(lambda v: v.sin().sum())(
            torch.ones(2)))
    x = torch.tensor([0.25, 0.75], requires_grad=True)
    with torch.autograd.graph.save_on_cpu():
        s = (x.sin() * x).sum()
    s.backward()
    rec.value("save_on_cpu", x.grad)
    x = torch.tensor([0.25, 0.75], requires_grad=True)
    with torch.autograd.graph.save_on_cpu(pin_memory=True):
        h = x * 1
        s = (h.sin() * h).sum()
        h.mul_(2)  # the copy it saved keeps the values from before
    s.backward()
    rec.value("save_on_cpu pinned copy", x.grad)


SCENARIOS = collect_scenarios(globals(), __name__)
