"""engine.nn beyond the oracle: finite differences (float64) of addmm, mse_loss, nll_loss and
cross_entropy, first and second order; Module registration, traversal order, repr, state_dict,
train/eval; Linear's init. Expected texts were taken from torch 2.13 and, when real torch
imports, are checked against it again."""

from __future__ import annotations

import copy
import itertools
import math

import pytest

import engine
import engine.nn as nn
import engine.nn.functional as F
from engine import optim  # noqa: F401 - the import form users write must work

EPS = 1e-6


# -- finite differences ------------------------------------------------------------------------

def _flat(t):
    return [float(v) for v in t.detach().reshape(-1).tolist()]


def _numeric_grad(f, inputs, i):
    """d f(inputs).sum() / d inputs[i], by central differences in float64."""
    x = inputs[i]
    base = _flat(x)
    out = []
    for k in range(len(base)):
        vals = []
        for sign in (1, -1):
            v = list(base)
            v[k] += sign * EPS
            args = list(inputs)
            args[i] = engine.tensor(v, dtype=engine.float64).reshape(x.shape)
            with engine.no_grad():
                vals.append(f(*args).sum().item())
        out.append((vals[0] - vals[1]) / (2 * EPS))
    return out


def _check_first(f, *inputs, wrt=None):
    inputs = [t.detach().requires_grad_(True) if t.is_floating_point() else t for t in inputs]
    wrt = [i for i, t in enumerate(inputs) if t.requires_grad] if wrt is None else wrt
    out = f(*inputs).sum()
    grads = engine.autograd.grad(out, [inputs[i] for i in wrt])
    for i, g in zip(wrt, grads):
        expected = _numeric_grad(f, inputs, i)
        assert _flat(g) == pytest.approx(expected, rel=1e-5, abs=1e-6), f"input {i}"


def _check_second(f, *inputs, wrt=None):
    """Differentiate v . grad f once more: the backward ops' own backward formulas."""
    inputs = [t.detach().requires_grad_(True) if t.is_floating_point() else t for t in inputs]
    wrt = [i for i, t in enumerate(inputs) if t.requires_grad] if wrt is None else wrt

    def first(*args):
        args = [a.requires_grad_(True) if a.is_floating_point() and not a.requires_grad
                else a for a in args]
        with engine.enable_grad():
            gs = engine.autograd.grad(f(*args).sum(), [args[i] for i in wrt], create_graph=True)
        total = None
        for k, g in enumerate(gs):
            term = (g * g).sum() * (k + 1)
            total = term if total is None else total + term
        return total

    out = first(*inputs)
    grads = engine.autograd.grad(out, [inputs[i] for i in wrt], allow_unused=True)
    for i, g in zip(wrt, grads):
        expected = _numeric_grad(first, inputs, i)
        got = [0.0] * len(expected) if g is None else _flat(g)
        assert got == pytest.approx(expected, rel=1e-4, abs=1e-5), f"input {i}"


def _t(data, dtype=None):
    return engine.tensor(data, dtype=dtype or engine.float64)


M34 = [[0.3, -1.2, 0.7, 2.0], [1.1, 0.4, -0.6, -0.9], [-0.2, 0.8, 1.5, 0.1]]


@pytest.mark.parametrize("bias_shape", [(2,), (1, 2), (3, 2), ()])
def test_addmm_finite_differences(bias_shape):
    bias = engine.ones(*bias_shape, dtype=engine.float64) * 0.3 if bias_shape else _t(0.7)
    m1 = _t(M34)
    m2 = _t([[0.5, -1.0], [2.0, 0.3], [-0.4, 1.1], [0.9, 0.2]])
    f = lambda b, a, c: engine.addmm(b, a, c) ** 2  # noqa: E731
    _check_first(f, bias, m1, m2)
    _check_first(lambda b, a, c: engine.addmm(b, a, c, beta=0.5, alpha=-2.0) ** 2, bias, m1, m2)
    _check_second(f, bias, m1, m2)


@pytest.mark.parametrize("shape", [(4,), (3, 4), (2, 3, 4)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_finite_differences(shape, bias):
    n = math.prod(shape)
    x = _t([0.1 * k - 0.5 for k in range(n)]).reshape(shape)
    w = _t([[0.5, -1.0, 2.0, 0.3], [1.5, 0.25, -0.5, -0.7]])
    args = (x, w, _t([0.1, -0.2])) if bias else (x, w)
    f = lambda *a: F.linear(*a).tanh()  # noqa: E731
    _check_first(f, *args)
    _check_second(f, *args)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shapes", [((3,), (3,)), ((2, 3), (2, 3)), ((3,), (2, 3)),
                                    ((2, 1), (2, 3)), ((), ())])
def test_mse_loss_finite_differences(reduction, shapes):
    sa, sb = shapes
    a = _t([0.3 * k - 0.4 for k in range(math.prod(sa))]).reshape(sa)
    b = _t([-0.2 * k + 0.9 for k in range(math.prod(sb))]).reshape(sb)
    f = lambda x, y: F.mse_loss(x, y, reduction=reduction)  # noqa: E731
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the broadcast warning is the oracle's business
        _check_first(f, a, b)
        _check_second(f, a, b)
        # a scale that requires grad makes the loss's incoming gradient depend on an input,
        # which exercises the backward op's derivative with respect to that gradient
        shape = f(a, b).shape
        scale = _t([1.5 + 0.25 * k for k in range(math.prod(shape))]).reshape(shape)
        _check_second(lambda x, y, c: f(x, y) * c, a, b, scale)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("target", [[0, 3, 1], [2, -100, 2]])
def test_nll_and_cross_entropy_finite_differences(reduction, weighted, target):
    x = _t(M34)
    t = engine.tensor(target)
    w = _t([1.0, 2.0, 0.5, 3.0]) if weighted else None
    nll = lambda a: F.nll_loss(a, t, weight=w, reduction=reduction)  # noqa: E731
    ce = lambda a: F.cross_entropy(a, t, weight=w, reduction=reduction)  # noqa: E731
    _check_first(nll, x)
    _check_first(ce, x)
    # nll_loss is linear: its second derivative is exercised through a product
    g = _t([[1.0, 0.5, -1.0, 2.0]] * 3)
    _check_second(lambda a, s: F.nll_loss(a * s, t, weight=w, reduction=reduction), x, g)
    scale = _t([1.5, -0.5, 2.0]) if reduction == "none" else _t(1.5)
    _check_second(lambda a, c: F.nll_loss(a * a, t, weight=w, reduction=reduction) * c, x,
                  scale)
    _check_second(ce, x)


@pytest.mark.parametrize("shape,target", [((4,), 2), ((2, 3, 2, 2), [[[0, 1], [2, 0]],
                                                                    [[2, 2], [1, -100]]]),
                                          ((2, 3, 4), [[0, 1, 2, 0], [2, 2, 1, 1]])])
def test_cross_entropy_other_ranks_finite_differences(shape, target):
    x = _t([math.sin(k) for k in range(math.prod(shape))]).reshape(shape)
    t = engine.tensor(target)
    for r in ("mean", "sum", "none"):
        _check_first(lambda a, r=r: F.cross_entropy(a, t, reduction=r), x)


def test_cross_entropy_probability_targets_finite_differences():
    x = _t(M34)
    p = engine.softmax(_t([[0.2, 1.0, -0.5, 0.0]] * 3), 1)
    for r in ("mean", "sum", "none"):
        _check_first(lambda a, q, r=r: F.cross_entropy(a, q, reduction=r), x, p)
        _check_first(lambda a, q, r=r: F.cross_entropy(a, q, reduction=r, label_smoothing=0.2),
                     x, p)


def test_loss_backward_checks_saved_input_versions():
    x = engine.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    loss = F.mse_loss(y, engine.zeros(3))
    with engine.no_grad():
        y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


# -- modules -----------------------------------------------------------------------------------

def _net(T):
    class Net(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = T.nn.Linear(2, 3)
            self.block = T.nn.Sequential(T.nn.Linear(3, 3), T.nn.ReLU(),
                                         T.nn.Linear(3, 1, bias=False))
            self.scale = T.nn.Parameter(T.tensor(2.0))
            self.again = self.fc1
            self.register_buffer("running", T.zeros(3))
            self.register_buffer("scratch", T.ones(1), persistent=False)

        def forward(self, x):
            return self.block(self.fc1(x).tanh()) * self.scale

    return Net()


NET_REPR = """Net(
  (fc1): Linear(in_features=2, out_features=3, bias=True)
  (block): Sequential(
    (0): Linear(in_features=3, out_features=3, bias=True)
    (1): ReLU()
    (2): Linear(in_features=3, out_features=1, bias=False)
  )
  (again): Linear(in_features=2, out_features=3, bias=True)
)"""


def test_registration_order_names_and_repr_match_torch(T):
    m = _net(T)
    assert [n for n, _ in m.named_parameters()] == [
        "scale", "fc1.weight", "fc1.bias", "block.0.weight", "block.0.bias", "block.2.weight"]
    assert [n for n, _ in m.named_parameters(remove_duplicate=False)] == [
        "scale", "fc1.weight", "fc1.bias", "block.0.weight", "block.0.bias", "block.2.weight",
        "again.weight", "again.bias"]
    assert [n for n, _ in m.named_modules()] == ["", "fc1", "block", "block.0", "block.1",
                                                 "block.2"]
    assert [n for n, _ in m.named_children()] == ["fc1", "block"]
    assert list(m.state_dict()) == ["scale", "running", "fc1.weight", "fc1.bias",
                                    "block.0.weight", "block.0.bias", "block.2.weight",
                                    "again.weight", "again.bias"]
    assert [n for n, _ in m.named_buffers()] == ["running", "scratch"]
    assert repr(m) == NET_REPR
    assert m(T.ones(4, 2)).shape == (4, 1)


def test_setattr_moves_names_between_parameters_modules_and_attributes(T):
    m = T.nn.Module()
    m.x = T.nn.Parameter(T.ones(1))
    assert list(m._parameters) == ["x"]
    with pytest.raises(TypeError, match="as parameter 'x' \\(torch.nn.Parameter or None"):
        m.x = T.nn.Linear(1, 1)
    del m.x
    m.x = T.nn.Linear(1, 1)
    assert list(m._parameters) == [] and list(m._modules) == ["x"]
    m.x = T.nn.Parameter(T.ones(1))  # a parameter replaces the module of the same name
    assert list(m._parameters) == ["x"] and list(m._modules) == []
    del m.x
    m.x = T.nn.Linear(1, 1)
    m.plain = 3
    assert m.plain == 3 and "plain" not in m._parameters
    with pytest.raises(TypeError, match="cannot assign 'int' as child module 'x'"):
        m.x = 3
    m.x = None
    assert [n for n, _ in m.named_children()] == []
    with pytest.raises(KeyError, match="attribute 'plain' already exists"):
        m.register_parameter("plain", None)
    with pytest.raises(AttributeError, match="'Module' object has no attribute 'nope'"):
        m.nope  # noqa: B018


def test_train_eval_propagate_and_return_self(T):
    m = _net(T)
    assert m.eval() is m
    assert [x.training for x in m.modules()] == [False] * 6
    assert m.train() is m
    assert all(x.training for x in m.modules())
    m.block.train(False)
    assert [x.training for x in m.modules()] == [True, True, False, False, False, False]


def test_state_dict_round_trip_detaches_and_copies_in_place():
    src, dst = _net(engine), _net(engine)
    sd = src.state_dict()
    assert all(not v.requires_grad and v.grad_fn is None for v in sd.values())
    assert sd["fc1.weight"]._data is src.fc1.weight._data  # detach shares memory, as torch
    kept = src.state_dict(keep_vars=True)
    assert kept["fc1.weight"] is src.fc1.weight
    weight_before = dst.fc1.weight
    result = dst.load_state_dict(sd)
    assert repr(result) == "<All keys matched successfully>"
    assert dst.fc1.weight is weight_before  # same Parameter, new values
    for a, b in zip(src.parameters(), dst.parameters()):
        assert a.tolist() == b.tolist()
    assert dst.running.tolist() == src.running.tolist()
    bad = dict(sd)
    del bad["scale"]
    with pytest.raises(RuntimeError) as info:
        dst.load_state_dict(bad)
    assert str(info.value) == ('Error(s) in loading state_dict for Net:\n\tMissing key(s) in '
                               'state_dict: "scale". ')
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
        dst.load_state_dict([1])


def test_zero_grad_and_requires_grad_on_modules():
    m = _net(engine)
    m(engine.ones(2, 2)).sum().backward()
    grad = m.fc1.weight.grad
    m.zero_grad(set_to_none=False)
    assert m.fc1.weight.grad is grad and grad.tolist() == [[0.0, 0.0]] * 3
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())
    m.requires_grad_(False)
    assert m(engine.ones(2, 2)).grad_fn is None


def test_module_double_converts_parameters_in_place():
    lin = nn.Linear(2, 1)
    w = lin.weight
    assert lin.double() is lin
    assert lin.weight is w and w.dtype is engine.float64 and lin.bias.dtype is engine.float64
    assert lin(engine.ones(3, 2, dtype=engine.float64)).dtype is engine.float64


def test_deepcopy_gives_independent_parameters():
    lin = nn.Linear(2, 1)
    twin = copy.deepcopy(lin)
    assert type(twin.weight) is nn.Parameter and twin.weight.requires_grad
    with engine.no_grad():
        twin.weight.fill_(7.0)
    assert lin.weight.tolist() != twin.weight.tolist()


def test_linear_init_bounds_seed_and_versions():
    engine.manual_seed(3)
    a = nn.Linear(16, 5)
    engine.manual_seed(3)
    b = nn.Linear(16, 5)
    assert a.weight.tolist() == b.weight.tolist() and a.bias.tolist() == b.bias.tolist()
    bound = 1 / math.sqrt(16)
    values = list(itertools.chain(*a.weight.tolist())) + a.bias.tolist()
    assert all(-bound <= v <= bound for v in values)
    assert len(set(values)) == len(values)
    assert a.weight._version == 1 and a.bias._version == 1
    assert a.weight.is_leaf and a.weight.requires_grad and a.weight.grad is None
    assert nn.Linear(3, 2, bias=False).bias is None


def test_init_helpers():
    assert nn.init.calculate_gain("leaky_relu", math.sqrt(5)) == pytest.approx(math.sqrt(1 / 3))
    assert nn.init.calculate_gain("tanh") == pytest.approx(5 / 3)
    w = engine.empty(4, 3)
    nn.init.xavier_uniform_(w)
    assert all(abs(v) <= math.sqrt(6 / 7) for row in w.tolist() for v in row)
    nn.init.constant_(w, 0.25)
    assert w.tolist() == [[0.25] * 3] * 4
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        nn.init.kaiming_uniform_(engine.empty(3))


def test_import_forms():
    import engine as torch

    assert torch.nn.Linear is nn.Linear and torch.nn.functional is F
    assert torch.optim.SGD is optim.SGD
    assert isinstance(nn.Parameter(engine.ones(1)), engine.Tensor)


# (input shape, target, error type or None, first line) recorded from torch 2.13: what
# nll_loss says about targets of the wrong shape
_NLL_SHAPES = [
    ((3,), [0, 1, 2], ValueError, "For 1D input, 1D target must have size 1, but got target "
     "size: 3"),
    ((3,), [1], None, None),
    ((3,), 1, None, None),
    ((2, 3), [[0], [1]], RuntimeError, "0D or 1D target tensor expected, multi-target not "
     "supported"),
    ((2, 3), 1, ValueError, "Expected input batch_size (2) to match target batch_size (0)."),
    ((2, 3), [0, 1, 2], ValueError, "Expected input batch_size (2) to match target batch_size "
     "(3)."),
    ((2, 3, 4), [0, 1], RuntimeError, "Expected target size [2, 4], got [2]"),
]


@pytest.mark.parametrize("shape,target,error,message", _NLL_SHAPES)
def test_nll_loss_checks_the_target_shape_as_torch(shape, target, error, message):
    x = engine.zeros(shape)
    t = engine.tensor(target)
    if error is None:
        F.nll_loss(x, t)
    else:
        with pytest.raises(error) as info:
            F.nll_loss(x, t)
        assert str(info.value).splitlines()[0] == message
