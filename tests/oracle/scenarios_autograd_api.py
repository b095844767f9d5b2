"""Oracle scenarios for torch.autograd.functional (jacobian, hessian, vjp, jvp, vhp, hvp),
gradcheck/gradgradcheck, Tensor.register_post_accumulate_grad_hook and the grad_fn._saved_*
attributes. The rules of tests/oracle/scenarios.py apply; its SCENARIOS include these."""

from __future__ import annotations

from tests.oracle.recorder import collect_scenarios


def _x(torch, **kw):
    return torch.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=torch.float64, **kw)


def _y(torch, **kw):
    return torch.tensor([1.5, -0.5], dtype=torch.float64, **kw)


def _rec_all(rec, tag, value):
    """Record a tensor, or every tensor of a nest of tuples, with its position in the label."""
    if isinstance(value, tuple):
        for i, v in enumerate(value):
            _rec_all(rec, f"{tag}[{i}]", v)
    else:
        rec.value(tag, value)


def autograd_functional_jacobian_and_hessian(torch, rec):
    AF = torch.autograd.functional
    _rec_all(rec, "jacobian", AF.jacobian(lambda x: (x * x).sum(1), _x(torch)))
    _rec_all(rec, "jacobian tuples", AF.jacobian(lambda x, y: (x @ y, y.exp()),
                                                 (_x(torch), _y(torch))))
    _rec_all(rec, "jacobian tuple in", AF.jacobian(lambda x, y: x @ y, (_x(torch), _y(torch))))
    _rec_all(rec, "jacobian independent input", AF.jacobian(lambda x, y: x * 2,
                                                            (_x(torch), _y(torch))))
    x = _x(torch, requires_grad=True)
    j = AF.jacobian(lambda a: (a * a).sum(1), x, create_graph=True)
    rec.value("jacobian create_graph", j)
    (g,) = torch.autograd.grad(j.sum(), x)
    rec.value("jacobian create_graph grad", g)
    rec.raises("jacobian strict independent", lambda: AF.jacobian(
        lambda x, y: x * 2, (_x(torch), _y(torch)), strict=True))
    rec.raises("jacobian strict constant", lambda: AF.jacobian(lambda a: torch.ones(2),
                                                               _y(torch), strict=True))
    rec.raises("jacobian strict linear create_graph", lambda: AF.jacobian(
        lambda a: a * 2, _y(torch), strict=True, create_graph=True))
    rec.raises("jacobian not a tensor", lambda: AF.jacobian(lambda a: a, [1.0]))
    rec.raises("jacobian returns a number", lambda: AF.jacobian(lambda a: 3.0, _y(torch)))
    rec.raises("jacobian forward-mode loop", lambda: AF.jacobian(
        lambda a: a.exp(), _y(torch), strategy="forward-mode"))
    rec.raises("jacobian strategy", lambda: AF.jacobian(lambda a: a, _y(torch), strategy="x"))
    _rec_all(rec, "hessian", AF.hessian(lambda a: (a ** 3).sum(), _x(torch)))
    _rec_all(rec, "hessian tuple", AF.hessian(lambda a, b: (a.sum(0) * b * b).sum(),
                                              (_x(torch), _y(torch))))
    rec.value("hessian linear", AF.hessian(lambda a: (a * 2).sum(), _y(torch)))
    rec.raises("hessian not one element", lambda: AF.hessian(lambda a: a * 2, _y(torch)))
    rec.raises("hessian strict linear", lambda: AF.hessian(lambda a: (a * 2).sum(), _y(torch),
                                                           strict=True))


def autograd_functional_products(torch, rec):
    AF = torch.autograd.functional
    _rec_all(rec, "vjp", AF.vjp(lambda a: a.exp() * 2, _y(torch), _y(torch)))
    _rec_all(rec, "vjp no v", AF.vjp(lambda a: a.exp().sum(), _y(torch)))
    _rec_all(rec, "vjp tuples", AF.vjp(lambda a, b: (a @ b, b * 3), (_x(torch), _y(torch)),
                                       (_y(torch), _y(torch))))
    out, v = AF.vjp(lambda a: a.exp() * 2, _y(torch, requires_grad=True), _y(torch),
                    create_graph=True)
    rec.value("vjp create_graph out", out)
    rec.value("vjp create_graph", v)
    rec.raises("vjp no v needs one element", lambda: AF.vjp(lambda a: a.exp(), _y(torch)))
    rec.raises("vjp v size", lambda: AF.vjp(lambda a: a.exp(), _y(torch), _x(torch)))
    rec.raises("vjp v count", lambda: AF.vjp(lambda a, b: (a @ b, b * 3),
                                             (_x(torch), _y(torch)), (_y(torch),)))
    _rec_all(rec, "jvp", AF.jvp(lambda a: a.exp() * 2, _y(torch), _y(torch)))
    _rec_all(rec, "jvp tuples", AF.jvp(lambda a, b: (a @ b, b * 3), (_x(torch), _y(torch)),
                                       (_x(torch), _y(torch))))
    rec.raises("jvp strict", lambda: AF.jvp(lambda a, b: (a @ a, b * 3),
                                            (_x(torch), _y(torch)), (_x(torch), _y(torch)),
                                            strict=True))
    _rec_all(rec, "hvp", AF.hvp(lambda a: (a ** 3).sum(), _x(torch), _x(torch)))
    _rec_all(rec, "vhp", AF.vhp(lambda a, b: (a.sum(0) ** 2 * b).sum(), (_x(torch), _y(torch)),
                                (_x(torch), _y(torch))))
    out, h = AF.hvp(lambda a: (a ** 3).sum(), _x(torch, requires_grad=True), _x(torch),
                    create_graph=True)
    rec.value("hvp create_graph", h)
    rec.raises("hvp not one element", lambda: AF.hvp(lambda a: a ** 3, _x(torch), _x(torch)))
    rec.raises("vhp strict", lambda: AF.vhp(lambda a: (a * 2).sum(), _x(torch), _x(torch),
                                            strict=True))
    rec.raises("hvp strict", lambda: AF.hvp(lambda a: (a * 2).sum(), _x(torch), _x(torch),
                                            strict=True))


def gradcheck_and_gradgradcheck(torch, rec):
    A = torch.autograd
    rec.value("gradcheck", A.gradcheck(lambda a, b: (a @ b).sin(),
                                       (_x(torch, requires_grad=True),
                                        _y(torch, requires_grad=True))))
    rec.value("gradcheck conv", A.gradcheck(
        lambda a, w: torch.nn.functional.conv2d(a, w, padding=1),
        (_x(torch).reshape(1, 1, 2, 2).requires_grad_(),
         _y(torch).reshape(1, 1, 1, 2).requires_grad_())))
    rec.raises("gradcheck wrong gradient", lambda: A.gradcheck(
        lambda a, b: (a.detach() * a * b, b), (_y(torch, requires_grad=True),
                                                _y(torch, requires_grad=True))))
    rec.value("gradcheck wrong, no raise", A.gradcheck(
        lambda a: a.detach() * a, _y(torch, requires_grad=True), raise_exception=False))
    rec.raises("gradcheck nothing requires grad", lambda: A.gradcheck(lambda a: a.exp(),
                                                                      _y(torch)))
    rec.raises("gradcheck constant output", lambda: A.gradcheck(
        lambda a: a.detach() * 2, _y(torch, requires_grad=True)))
    rec.value("gradgradcheck", A.gradgradcheck(lambda a: (a ** 3).sin(),
                                               _x(torch, requires_grad=True), _x(torch)))
    torch.manual_seed(3)
    rec.value("gradgradcheck drawn grad_outputs", A.gradgradcheck(
        lambda a: (a ** 3).sin(), _x(torch, requires_grad=True)))
    rec.value("after gradgradcheck's draw", torch.rand(2))
    rec.raises("gradgradcheck wrong second derivative", lambda: A.gradgradcheck(
        lambda a: a * a.detach() ** 2, _y(torch, requires_grad=True), _y(torch)))


def post_accumulate_grad_hook(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    handle = x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.clone()))
    (x * x).sum().backward()
    (x * 3).sum().backward()
    torch.autograd.grad((x * x).sum(), x)  # accumulates nothing: no hook
    rec.value("hook calls", len(seen))
    for i, g in enumerate(seen):
        rec.value(f"hook saw {i}", g)
    handle.remove()
    (x * x).sum().backward()
    rec.value("after remove", len(seen))
    rec.raises("non-leaf", lambda: (x * 2).register_post_accumulate_grad_hook(lambda t: None))
    rec.raises("no grad", lambda: torch.ones(2).register_post_accumulate_grad_hook(
        lambda t: None))
    y = torch.tensor([1.0, 2.0], requires_grad=True)
    y.register_post_accumulate_grad_hook(lambda t: t * 0)
    rec.raises("returns a tensor", lambda: (y * y).sum().backward())
    rec.value("grad accumulated before the error", y.grad)
    z = torch.tensor([1.0, 2.0], requires_grad=True)
    z.register_post_accumulate_grad_hook(lambda t: 5)
    rec.raises("returns a number", lambda: (z * z).sum().backward())
    w = torch.tensor([3.0], requires_grad=True)
    order = []
    w.register_hook(lambda g: order.append(("tensor hook", g.item())))
    w.register_post_accumulate_grad_hook(lambda t: order.append(("post", t.grad.item())))
    (w * w).sum().backward(inputs=[w])
    rec.value("order", [name for name, _ in order])
    rec.value("order values", [v for _, v in order])


def grad_fn_saved_tensors(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    c = torch.tensor([3.0, 4.0])
    m = torch.ones(2, 2, requires_grad=True)
    cases = {
        "x*c": x * c, "c*x": c * x, "x*x": x * x, "x/c": x / c, "c/x": c / x,
        "x**2": x ** 2, "x**c": x ** c, "2**x": 2 ** x, "exp": x.exp(), "log": x.log(),
        "sin": x.sin(), "cos": x.cos(), "tanh": x.tanh(), "sigmoid": x.sigmoid(),
        "relu": x.relu(), "sqrt": x.sqrt(), "abs": x.abs(), "mm": m @ m, "dot": x.dot(c),
        "mv": m.mv(c), "add": x + c, "sub": x - c, "clamp": x.clamp(0, 1),
        "linear": torch.nn.functional.linear(m, m, x), "reciprocal": x.reciprocal(),
    }
    names = ("self", "other", "exponent", "result", "min", "max", "alpha", "beta", "mat1",
             "mat2", "tensor", "vec")
    for label, y in cases.items():
        fn = y.grad_fn
        for n in names:
            attr = "_saved_" + n
            if hasattr(fn, attr) and not (label == "2**x" and n == "exponent"):
                value = getattr(fn, attr)
                rec.value(f"{label} {attr}", value)
                if isinstance(value, torch.Tensor):
                    rec.value(f"{label} {attr} is the input", value is x or value is c)
    y = x.exp()
    fn = y.grad_fn
    y.sum().backward()
    rec.raises("saved result after backward", lambda: fn._saved_result)
    z = x * c
    x2 = x.detach()
    rec.value("before in-place", z.grad_fn._saved_other)
    c.add_(1)
    rec.raises("saved other after in-place", lambda: z.grad_fn._saved_other)
    rec.value("x2", x2)



SCENARIOS = collect_scenarios(globals(), __name__)
