"""Oracle scenarios for % and // (engine/ops/modulo.py), products and running totals
(engine/ops/cumulative.py), norms (engine/ops/norms.py) and sorting and selection
(engine/ops/sorting.py). The rules of tests/oracle/scenarios.py apply; its SCENARIOS include
these."""

from __future__ import annotations

import inspect


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


def _collect():
    return {name: fn for name, fn in globals().items()
            if not name.startswith("_") and inspect.isfunction(fn) and fn.__module__ == __name__
            and list(inspect.signature(fn).parameters) == ["torch", "rec"]}


SCENARIOS = _collect()
