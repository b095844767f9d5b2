"""engine.optim beyond the oracle: SGD and Adam against torch's update rules written out in plain
Python floats (float64), param_groups/state bookkeeping, zero_grad, versions, state_dict resume,
validation and repr. Expected texts were taken from torch 2.13; with real torch they are re-checked."""

from __future__ import annotations

import math

import pytest

import engine
from engine import nn, optim

W0 = [0.5, -0.25, 1.5]


def _grad_of(w):
    """Gradient of f(w) = sum(w**4) / 4 + w0 * w1, a non-quadratic bowl."""
    return [w[0] ** 3 + w[1], w[1] ** 3 + w[0], w[2] ** 3]


def _run_engine(make, steps=6):
    p = nn.Parameter(engine.tensor(W0, dtype=engine.float64))
    opt = make([p])
    for _ in range(steps):
        opt.zero_grad()
        loss = (p**4).sum() / 4 + p[0] * p[1]
        loss.backward()
        opt.step()
    return p.tolist()


def _sgd_reference(lr, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False,
                   maximize=False, steps=6):
    w, buf = list(W0), None
    for _ in range(steps):
        g = _grad_of(w)
        if maximize:
            g = [-x for x in g]
        if weight_decay:
            g = [gi + weight_decay * wi for gi, wi in zip(g, w)]
        if momentum:
            if buf is None:
                buf = list(g)
            else:
                buf = [momentum * b + (1 - dampening) * gi for b, gi in zip(buf, g)]
            g = [gi + momentum * b for gi, b in zip(g, buf)] if nesterov else list(buf)
        w = [wi - lr * gi for wi, gi in zip(w, g)]
    return w


def _adam_reference(lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False,
                    maximize=False, decoupled=False, steps=6):
    b1, b2 = betas
    w = list(W0)
    m = [0.0] * 3
    v = [0.0] * 3
    vmax = [0.0] * 3
    for t in range(1, steps + 1):
        g = _grad_of(w)
        if maximize:
            g = [-x for x in g]
        if weight_decay:
            if decoupled:
                w = [wi * (1 - lr * weight_decay) for wi in w]
            else:
                g = [gi + weight_decay * wi for gi, wi in zip(g, w)]
        m = [mi + (1 - b1) * (gi - mi) for mi, gi in zip(m, g)]
        v = [vi * b2 + (1 - b2) * gi * gi for vi, gi in zip(v, g)]
        step_size = lr / (1 - b1**t)
        bc2_sqrt = (1 - b2**t) ** 0.5
        if amsgrad:
            vmax = [max(a, b) for a, b in zip(vmax, v)]
            denom = [math.sqrt(x) / bc2_sqrt + eps for x in vmax]
        else:
            denom = [math.sqrt(x) / bc2_sqrt + eps for x in v]
        w = [wi - step_size * mi / d for wi, mi, d in zip(w, m, denom)]
    return w


SGD_CASES = [
    dict(lr=0.1),
    dict(lr=0.1, momentum=0.9),
    dict(lr=0.1, momentum=0.9, dampening=0.5),
    dict(lr=0.05, momentum=0.8, nesterov=True),
    dict(lr=0.1, weight_decay=0.2),
    dict(lr=0.05, momentum=0.5, weight_decay=0.1, nesterov=True, maximize=True),
]
ADAM_CASES = [
    dict(),
    dict(lr=0.05, betas=(0.8, 0.99), eps=1e-6),
    dict(lr=0.1, weight_decay=0.1),
    dict(lr=0.1, amsgrad=True),
    dict(lr=0.02, maximize=True),
    dict(lr=0.1, weight_decay=0.1, decoupled_weight_decay=True),
]


@pytest.mark.parametrize("kwargs", SGD_CASES, ids=str)
def test_sgd_follows_torch_update_rule(kwargs):
    got = _run_engine(lambda ps: optim.SGD(ps, **kwargs))
    assert got == pytest.approx(_sgd_reference(**kwargs), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("kwargs", ADAM_CASES, ids=str)
def test_adam_follows_torch_update_rule(kwargs):
    ref = dict(kwargs)
    ref["decoupled"] = ref.pop("decoupled_weight_decay", False)
    got = _run_engine(lambda ps: optim.Adam(ps, **kwargs))
    assert got == pytest.approx(_adam_reference(**ref), rel=1e-12, abs=1e-12)


def test_param_group_defaults_match_torch(T):
    p = T.nn.Parameter(T.ones(1))
    sgd = T.optim.SGD([p])
    assert {k: v for k, v in sgd.param_groups[0].items() if k != "params"} == {
        "lr": 1e-3, "momentum": 0, "dampening": 0, "weight_decay": 0, "nesterov": False,
        "maximize": False, "foreach": None, "differentiable": False, "fused": None}
    adam = T.optim.Adam([p])
    assert {k: v for k, v in adam.param_groups[0].items() if k != "params"} == {
        "lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0, "amsgrad": False,
        "maximize": False, "foreach": None, "capturable": False, "differentiable": False,
        "fused": None, "decoupled_weight_decay": False}
    assert repr(sgd) == ("SGD (\nParameter Group 0\n    dampening: 0\n    differentiable: False\n"
                         "    foreach: None\n    fused: None\n    lr: 0.001\n    maximize: False\n"
                         "    momentum: 0\n    nesterov: False\n    weight_decay: 0\n)")


def test_validation_errors_match_torch(T):
    p = [T.nn.Parameter(T.ones(1))]
    cases = [
        (lambda: T.optim.SGD(p, lr=-0.1), ValueError, "Invalid learning rate: -0.1"),
        (lambda: T.optim.SGD(p, momentum=-1), ValueError, "Invalid momentum value: -1"),
        (lambda: T.optim.SGD(p, lr=0.1, nesterov=True), ValueError,
         "Nesterov momentum requires a momentum and zero dampening"),
        (lambda: T.optim.Adam(p, betas=(0.9, 1.0)), ValueError,
         "Invalid beta parameter at index 1: 1.0"),
        (lambda: T.optim.Adam(p, eps=-1e-8), ValueError, "Invalid epsilon value: -1e-08"),
        (lambda: T.optim.SGD([], lr=0.1), ValueError, "optimizer got an empty parameter list"),
        (lambda: T.optim.SGD([T.ones(1, requires_grad=True) * 2]), ValueError,
         "can't optimize a non-leaf Tensor"),
        (lambda: T.optim.SGD(T.ones(2)), TypeError,
         "params argument given to the optimizer should be an iterable of Tensors or dicts, "
         "but got torch.FloatTensor"),
    ]
    for fn, exc, text in cases:
        with pytest.raises(exc) as info:
            fn()
        assert str(info.value) == text


def test_step_skips_params_without_grad_and_keeps_them_leaves():
    a = nn.Parameter(engine.tensor([1.0, 2.0]))
    b = nn.Parameter(engine.tensor([3.0]))
    opt = optim.Adam([a, b], lr=0.1)
    (a * a).sum().backward()
    va, vb = a._version, b._version
    opt.step()
    assert a._version == va + 1 and b._version == vb  # one in-place update per step
    assert b.tolist() == [3.0] and len(opt.state[b]) == 0
    assert sorted(opt.state[a]) == ["exp_avg", "exp_avg_sq", "step"]
    assert a.is_leaf and a.grad_fn is None and a.requires_grad
    assert engine.is_grad_enabled()  # step restores grad mode


def test_zero_grad_set_to_none_false_keeps_the_grad_tensor():
    p = nn.Parameter(engine.tensor([1.0, 2.0]))
    opt = optim.SGD([p], lr=0.1)
    (p * 3).sum().backward()
    g = p.grad
    opt.zero_grad(set_to_none=False)
    assert p.grad is g and g.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert p.grad is None


def test_param_groups_use_their_own_options():
    a = nn.Parameter(engine.tensor([1.0]))
    b = nn.Parameter(engine.tensor([1.0]))
    opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1)
    (a + b).sum().backward()
    opt.step()
    assert a.tolist() == pytest.approx([0.9]) and b.tolist() == pytest.approx([0.5])
    with pytest.raises(ValueError, match="some parameters appear in more than one"):
        opt.add_param_group({"params": [a]})


def test_state_dict_resume_continues_the_same_trajectory():
    def make():
        p = nn.Parameter(engine.tensor(W0, dtype=engine.float64))
        return p, optim.Adam([p], lr=0.1, amsgrad=True)

    def step(p, opt):
        opt.zero_grad()
        ((p**4).sum() / 4 + p[0] * p[1]).backward()
        opt.step()

    p1, o1 = make()
    for _ in range(3):
        step(p1, o1)
    p2, o2 = make()
    with engine.no_grad():
        p2.copy_(p1)
    o2.load_state_dict(o1.state_dict())
    assert o2.state[p2]["exp_avg"] is not o1.state[p1]["exp_avg"]
    for _ in range(3):
        step(p1, o1)
        step(p2, o2)
    assert p2.tolist() == p1.tolist()


def test_closure_is_evaluated_with_grad_enabled():
    p = nn.Parameter(engine.tensor([2.0]))
    opt = optim.SGD([p], lr=0.25)

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    with engine.no_grad():
        loss = opt.step(closure)
    assert loss.item() == 4.0 and p.tolist() == [1.0]
