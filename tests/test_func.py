"""torch.func beyond the oracle scenarios (tests/oracle/scenarios_func.py): vmap's results bit for
bit against torch's batched kernels (live, when torch 2.13 imports), what vmap refuses rather
than give other last digits, the graphs grad leaves, and programs calling the transforms."""

from __future__ import annotations

import pytest
from live_torch import real_torch

import engine
from playground import run

F = engine.func


def _data(torch, shape, seed, dtype):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=dtype)


# (name, function of a torch-like module giving the mapped function, input shapes, in_dims)
VMAP_CASES = [
    ("pointwise", lambda t: lambda x: (x * 1.7 - 0.3).sin() * x.exp() / (x.abs() + 1), [(6, 37)],
     0),
    # mapped along dim 1, a sample is strided memory, which torch's vectorised tanh or exp
    # would round another way than the batch (the pointwise entry in docs/semantics.md):
    # correctly rounded operations only
    ("arithmetic dim 1", lambda t: lambda x: (x * 1.5 - 0.25) / (x.abs() + 2) + x.relu().sqrt(),
     [(37, 6)], 1),
    ("row sum", lambda t: lambda x: x.sum(), [(7, 1000)], 0),
    ("row sum of a matrix", lambda t: lambda x: x.sum(0), [(5, 100, 50)], 0),
    ("row mean", lambda t: lambda x: x.mean(), [(7, 333)], 0),
    ("largest", lambda t: lambda x: x.max() - x.amin(0), [(9, 4, 6)], 2),
    ("shared weights", lambda t: lambda x, w: (x * w).relu() - w, [(5, 40), (40,)], (0, None)),
    ("per-sample gradients", lambda t: t.func.grad(lambda w, x: ((w * x).sum() - 1) ** 2),
     [(40,), (6, 40)], (None, 0)),
]


def _loop(torch, fn, in_dims, inputs):
    dims = in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(inputs)
    size = next(x.shape[d] for x, d in zip(inputs, dims) if d is not None)
    return torch.stack([fn(*[x if d is None else x.select(d, i) for x, d in zip(inputs, dims)])
                        for i in range(size)])


@pytest.mark.skipif(real_torch is None, reason="compares with torch 2.13 live")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", VMAP_CASES, ids=[c[0] for c in VMAP_CASES])
def test_vmap_is_torchs_batched_result(case, dtype):
    """What vmap accepts is what torch computes per sample bit for bit (so the engine's
    per-sample run is torch's vmap wherever the engine's ops are torch's: pointwise math has
    its own last-bit entry in docs/semantics.md, hence the tolerance against torch)."""
    _, make, shapes, in_dims = case
    inputs = [_data(real_torch, s, i, getattr(real_torch, dtype)) for i, s in enumerate(shapes)]
    want = real_torch.func.vmap(make(real_torch), in_dims=in_dims)(*inputs)
    assert want.tolist() == _loop(real_torch, make(real_torch), in_dims, inputs).tolist()
    mine = [engine.tensor(x.tolist(), dtype=getattr(engine, dtype)) for x in inputs]
    got = F.vmap(make(engine), in_dims=in_dims)(*mine)
    assert got.tolist() == _loop(engine, make(engine), in_dims, mine).tolist()
    tol = 1e-6 if dtype == "float32" else 1e-14
    assert engine.allclose(got, engine.tensor(want.tolist(), dtype=got.dtype), rtol=tol, atol=tol)


MATRIX_CASES = [
    ("batched left", lambda t, w: lambda x: x @ w, (5, 3, 40), (40, 30)),
    ("vector-matrix", lambda t, w: lambda x: x @ w, (5, 40), (40, 30)),
    ("linear", lambda t, w: lambda x: t.nn.functional.linear(x, w.T, w[0]), (6, 40), (40, 30)),
    ("per-sample gradients", lambda t, w: lambda x: t.func.grad(
        lambda m: ((x @ m).tanh() ** 2).sum())(w), (4, 3, 40), (40, 30)),
]


@pytest.mark.skipif(real_torch is None, reason="compares with torch 2.13 live")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", MATRIX_CASES, ids=[c[0] for c in MATRIX_CASES])
def test_vmap_of_matrix_products_is_torchs_up_to_the_last_bits(case, dtype):
    """The documented difference: per sample, where torch's batch may sum in another order."""
    _, make, x_shape, w_shape = case
    x, w = (_data(real_torch, s, i, getattr(real_torch, dtype)) for i, s in
            enumerate((x_shape, w_shape)))
    want = real_torch.func.vmap(make(real_torch, w))(x)
    ex, ew = (engine.tensor(v.tolist(), dtype=getattr(engine, dtype)) for v in (x, w))
    got = F.vmap(make(engine, ew))(ex)
    tol = 1e-5 if dtype == "float32" else 1e-12
    assert engine.allclose(got, engine.tensor(want.tolist(), dtype=got.dtype), rtol=tol, atol=tol)


@pytest.mark.parametrize("fn, in_dims, words", [
    (lambda x: x.norm(), 0, "LinalgVectorNormBackward0"),
    (lambda x: x.sum(), 1, "mapped along a dim other than 0"),
    (lambda x: x.var(), 0, "VarBackward0"),
    (lambda x: x.softmax(0), 0, "SoftmaxBackward0"),
])
def test_vmap_refuses_what_torch_batches_in_another_order(fn, in_dims, words):
    with pytest.raises(RuntimeError, match="vmap: gradplay runs the function once per sample") \
            as err:
        F.vmap(fn, in_dims=in_dims)(engine.ones(3, 3))
    assert words in str(err.value)


def test_vmap_refuses_a_result_that_requires_grad():
    x = engine.ones(3, 2, requires_grad=True)
    with pytest.raises(RuntimeError, match="vmap: the result requires grad"):
        F.vmap(lambda r: r * 2)(x)


def test_vmap_refuses_randomness_it_cannot_reproduce():
    with pytest.raises(RuntimeError, match="randomness='different' is not supported"):
        F.vmap(lambda r: r, randomness="different")(engine.ones(2))



# An in-place change, inside a vmapped function, to a tensor the function did not make: torch
# runs the function once and makes the change once; the engine would make it once per sample.
OUTSIDE_CHANGES = [
    ("a counter", lambda state, r: state.add_(1.0)),
    ("a view of it", lambda state, r: state[1:].mul_(2.0)),
    ("a detached alias", lambda state, r: state.detach().zero_()),
    ("setitem", lambda state, r: state.__setitem__(0, 7.0)),
    ("in an inner vmap", lambda state, r: F.vmap(lambda e: (state.sub_(1.0), e)[1])(r)),
]


@pytest.mark.parametrize("name, change", OUTSIDE_CHANGES, ids=[c[0] for c in OUTSIDE_CHANGES])
def test_vmap_refuses_to_change_a_tensor_from_outside_once_per_sample(name, change):
    state = engine.tensor([1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match="would happen once per sample, where torch makes it "
                                           "once; it is not supported here"):
        F.vmap(lambda r: (change(state, r), r * 2)[1])(engine.ones(4, 3))
    assert state.tolist() == [1.0, 2.0, 3.0]  # refused before anything was written


def test_vmap_changes_in_place_what_the_function_made_or_holds():
    def f(r):
        fresh = engine.zeros(3)
        fresh.add_(2.0)[0] = 5.0  # made inside: once per sample is what torch's batch gives
        mask = r > 1
        mask.logical_not_()  # made inside by a comparison that records nothing
        picked = r.argmax()
        picked.add_(1)
        return r.clone().mul_(fresh).masked_fill_(mask, 0.0) + picked

    out = F.vmap(f)(engine.tensor([[1.0, 2.0, 3.0], [4.0, 0.5, 2.0]]))
    assert out.tolist() == [[3.0, 7.0, 9.0], [21.0, 1.0, 5.0]]  # as torch 2.13 gives

def test_grad_splices_its_stand_ins_out_of_the_graph():
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    g = F.grad(lambda a: (a * a).sum())(x)
    # torch: MulBackward0 -> (None, MulBackward0 -> AccumulateGrad of x ...), no view between
    seen, stack = set(), [g.grad_fn]
    while stack:
        node = stack.pop()
        seen.add(node.name())
        stack.extend(n for n, _ in node.next_functions if n is not None)
        if node.name() == "torch::autograd::AccumulateGrad":
            assert node.variable is x
    assert "ViewBackward0" not in seen and "torch::autograd::AccumulateGrad" in seen


def test_grad_result_prints_as_the_function_it_wraps():
    def loss(x):
        return x.sum()

    assert repr(F.grad(loss)).startswith("<function test_grad_result_prints_as_the_function_it_"
                                         "wraps.<locals>.loss at 0x")


def test_a_program_calls_torch_func():
    src = (
        "import torch\n"
        "from torch.func import grad, vmap, vjp\n"
        "def cube(x):\n"
        "    return (x ** 3).sum()\n"
        "x = torch.tensor([1.0, 2.0])\n"
        "print(grad(cube)(x))\n"
        "print(torch.func.grad(torch.func.grad(lambda t: t * t * t))(torch.tensor(2.0)))\n"
        "print(vmap(lambda r: r.sum())(torch.ones(2, 3)))\n"
        "out, back = vjp(lambda a: a * a, x)\n"
        "print(back(torch.ones(2)))\n"
    )
    result = run(src)
    assert result.error is None
    assert result.output == ("tensor([ 3., 12.])\ntensor(12.)\ntensor([3., 3.])\n"
                             "(tensor([2., 4.]),)\n")


def test_a_program_uses_saved_tensors_hooks():
    src = (
        "import torch\n"
        "calls = []\n"
        "def pack(t):\n"
        "    calls.append('pack')\n"
        "    return t\n"
        "def unpack(t):\n"
        "    calls.append('unpack')\n"
        "    return t\n"
        "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "with torch.autograd.graph.saved_tensors_hooks(pack, unpack):\n"
        "    y = (x * x).sum()\n"
        "y.backward()\n"
        "print(calls, x.grad)\n"
    )
    result = run(src)
    assert result.error is None
    assert result.output == "['pack', 'pack', 'unpack', 'unpack'] tensor([2., 4.])\n"


def test_a_program_takes_per_sample_gradients_of_a_model():
    src = (
        "import torch\n"
        "from torch.func import functional_call, grad, vmap\n"
        "class Net(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.fc = torch.nn.Linear(2, 1)\n"
        "    def forward(self, x):\n"
        "        return self.fc(x).tanh()\n"
        "net = Net()\n"
        "params = {'fc.weight': torch.tensor([[0.5, -1.0]]), 'fc.bias': torch.tensor([0.25])}\n"
        "def loss(p, x, y):\n"
        "    return ((functional_call(net, p, (x,)) - y) ** 2).sum()\n"
        "xs = torch.tensor([[1.0, 2.0], [0.5, -1.0]])\n"
        "ys = torch.tensor([[1.0], [-1.0]])\n"
        "g = vmap(grad(loss), in_dims=(None, 0, 0))(params, xs, ys)\n"
        "print(g['fc.bias'].shape, g['fc.weight'].shape)\n"
    )
    result = run(src)
    assert result.error is None
    assert result.output == "torch.Size([2, 1]) torch.Size([2, 1, 2])\n"


# -- jacrev, jacfwd and jvp -----------------------------------------------------------------------

# steps the engine computes as torch does, bit for bit (correctly rounded arithmetic, or values
# only moved), so that compositions of them compare with torch with no tolerance at all
EXACT_STEPS = {
    "affine": lambda t, x: x * 1.75 - 0.5,
    "square": lambda t, x: x * x,
    "divide": lambda t, x: x / 3.0,
    "reciprocal": lambda t, x: 1.5 / (x.abs() + 0.5),
    "abs": lambda t, x: x.abs(),
    "relu": lambda t, x: x.relu(),
    "clamp": lambda t, x: x.clamp(-1.0, 0.75),
    "masked": lambda t, x: x.masked_fill(x < -1, 0.0),
    "flip": lambda t, x: x.flip(0),
    "index": lambda t, x: x[..., [0, -1, 0]],
    "expand": lambda t, x: x.unsqueeze(0).expand(2, *x.shape).reshape(-1),
    "product of two": lambda t, x: x * x.flip(-1),
    "cube": lambda t, x: x ** 3,
}
# and the reductions jacrev accepts (their backward only spreads the gradient)
REVERSE_STEPS = {
    "sum": lambda t, x: x.sum(-1, keepdim=True) * x,
    "mean": lambda t, x: x - x.mean(),
    "largest": lambda t, x: x * x.amax(-1, keepdim=True),
}
SHAPES = [(3,), (5,), (2, 4), (3, 1, 2)]


def _hex(value):
    """Every number of a nested list as float.hex: equal bits, and the sign of a zero."""
    if isinstance(value, list):
        return [_hex(v) for v in value]
    return float(value).hex()


def _bits(result):
    leaves = result if isinstance(result, tuple) else (result,)
    return [(tuple(r.shape), str(r.dtype).split(".")[-1], _hex(r.tolist())) for r in leaves]


def _compose(steps, names):
    def f(t, x):
        for name in names:
            x = steps[name](t, x)
        return x

    return f


def _transform(module, api, f, tangent):
    F = module.func
    if api == "jvp":
        return lambda x: F.jvp(lambda a: f(module, a), (x,), (tangent,))
    if api == "linearize":
        return lambda x: F.linearize(lambda a: f(module, a), x)[1](tangent)
    return getattr(F, api)(lambda a: f(module, a))


def _to_engine(x):
    return engine.tensor(x.tolist(), dtype=getattr(engine, str(x.dtype).split(".")[-1]))


@pytest.mark.skipif(real_torch is None, reason="compares with torch 2.13 live")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("api", ["jacrev", "jacfwd", "jvp", "linearize"])
def test_jacobians_of_exact_steps_are_torchs_bits(api, dtype):
    """Random compositions of steps the engine computes as torch does: jacrev, jacfwd and jvp
    give torch's numbers bit for bit (also the sign of each zero), on many inputs and shapes."""
    import random

    steps = dict(EXACT_STEPS, **(REVERSE_STEPS if api.startswith("jacrev") else {}))
    rng = random.Random(f"{api}-{dtype}")
    for trial in range(30):
        names = rng.sample(sorted(steps), 3)
        shape = SHAPES[trial % len(SHAPES)]
        x = _data(real_torch, shape, trial, getattr(real_torch, dtype)) * (1 + trial % 3)
        t = _data(real_torch, shape, 1000 + trial, x.dtype)
        f = _compose(steps, names)
        want = _transform(real_torch, api, f, t)(x)
        got = _transform(engine, api, f, _to_engine(t))(_to_engine(x))
        assert _bits(got) == _bits(want), (api, names, shape)


# elementwise steps whose engine values differ from torch's in the last bit (the pointwise
# entry in docs/semantics.md): what jacrev and jvp add to them is checked in torch itself
POINTWISE_STEPS = {
    "sin": lambda t, x: x.sin(), "exp": lambda t, x: (x / 4).exp(), "tanh": lambda t, x: x.tanh(),
    "sigmoid": lambda t, x: x.sigmoid(), "log": lambda t, x: (x.abs() + 0.5).log(),
    "sqrt": lambda t, x: (x.abs() + 0.25).sqrt(), "power": lambda t, x: (x.abs() + 0.5) ** 1.5,
    "softplus": lambda t, x: t.nn.functional.softplus(x), "erf": lambda t, x: x.erf(),
    "atan": lambda t, x: x.atan(), "cosh": lambda t, x: (x / 4).cosh(),
    "elu": lambda t, x: t.nn.functional.elu(x), "square": lambda t, x: x * x,
    "affine": lambda t, x: x * 1.75 - 0.5,
}


def _torch_rows(f, x):
    """torch's Jacobian one vjp at a time: what the engine's jacrev computes."""
    xs = x.detach().requires_grad_()
    y = f(xs)
    rows = []
    for i in range(y.numel()):
        u = real_torch.zeros(y.numel(), dtype=y.dtype)
        u[i] = 1
        rows.append(real_torch.autograd.grad(y, xs, u.view(y.shape), retain_graph=True)[0])
    return real_torch.stack(rows).view(*y.shape, *x.shape)


def _torch_trick(f, x, t):
    """J t as the gradient of u -> J^T u with respect to u: what the engine's jvp computes."""
    xs = x.detach().requires_grad_()
    y = f(xs)
    u = real_torch.zeros_like(y).requires_grad_()
    (g,) = real_torch.autograd.grad(y, xs, u, create_graph=True)
    return real_torch.autograd.grad(g, u, t)[0]


@pytest.mark.skipif(real_torch is None, reason="measures torch 2.13 live")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_jacrev_rows_and_the_jvp_trick_are_torchs_bits_in_torch(dtype):
    """Why jacrev and jvp may take these operations: in torch itself, the batched jacrev equals
    its per-row vjp, and forward-mode jvp equals the double-backward trick, bit for bit."""
    import random

    rng = random.Random(dtype)
    for trial in range(24):
        names = rng.sample(sorted(POINTWISE_STEPS), 3)
        x = _data(real_torch, SHAPES[trial % len(SHAPES)], trial, getattr(real_torch, dtype))
        t = _data(real_torch, tuple(x.shape), 500 + trial, x.dtype)

        def f(a, names=names):
            return _compose(POINTWISE_STEPS, names)(real_torch, a)

        assert _bits(real_torch.func.jacrev(f)(x)) == _bits(_torch_rows(f, x)), names
        assert _bits(real_torch.func.jvp(f, (x,), (t,))[1]) == _bits(_torch_trick(f, x, t)), names


@pytest.mark.skipif(real_torch is None, reason="compares with torch 2.13 live")
@pytest.mark.parametrize("api", ["jacrev", "jacfwd", "jvp"])
def test_jacobians_of_pointwise_steps_are_torchs_up_to_the_pointwise_bits(api):
    import random

    rng = random.Random(api)
    for trial in range(12):
        names = rng.sample(sorted(POINTWISE_STEPS), 3)
        x = _data(real_torch, SHAPES[trial % len(SHAPES)], trial, real_torch.float32)
        t = _data(real_torch, tuple(x.shape), 500 + trial, x.dtype)
        f = _compose(POINTWISE_STEPS, names)
        want = _transform(real_torch, api, f, t)(x)
        got = _transform(engine, api, f, _to_engine(t))(_to_engine(x))
        for w, g in zip(want if api == "jvp" else (want,), got if api == "jvp" else (got,)):
            assert engine.allclose(g, _to_engine(w), rtol=1e-5, atol=1e-6), names


@pytest.mark.parametrize("api, fn, words", [
    ("jvp", lambda x: x.sum(), "SumBackward0"),
    ("jvp", lambda x: x.mean(), "MeanBackward0"),
    ("jacfwd", lambda x: x.amax(), "AmaxBackward0"),
    ("jvp", lambda x: x / x.flip(0), "DivBackward0 with more than one input"),
    ("jvp", lambda x: engine.ones(3) / x, "DivBackward0 with a second input"),
    ("jacfwd", lambda x: engine.atan2(x, engine.ones(3)), "Atan2Backward0"),
    ("jacfwd", lambda x: engine.cat([x, x * 2]), "CatBackward0 with more than one input"),
    ("jvp", lambda x: x.softmax(0), "SoftmaxBackward0"),
    ("jvp", lambda x: x.floor() * x, "FloorBackward0"),
    ("jacrev", lambda x: engine.nn.functional.gelu(x), "GeluBackward0"),
    ("jacrev", lambda x: x.softmax(0), "SoftmaxBackward0"),
])
def test_jacobians_refuse_what_torch_rounds_another_way(api, fn, words):
    x = engine.tensor([0.5, -1.0, 2.0])
    with pytest.raises(RuntimeError, match=f"{api}: gradplay") as err:
        if api == "jvp":
            F.jvp(fn, (x,), (engine.ones(3),))
        else:
            getattr(F, api)(fn)(x)
    assert words in str(err.value)


def test_jacobians_refuse_a_result_that_would_keep_a_graph():
    x = engine.tensor([0.5, -1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="jacrev: an input .* requires grad"):
        F.jacrev(lambda a: a.sin())(x)
    with pytest.raises(RuntimeError, match="jvp: an input .* requires grad"):
        F.jvp(lambda a: a.sin(), (x,), (engine.ones(2),))
    # where torch's result has no graph, there is nothing to refuse
    assert F.jacrev(lambda a: a * 2)(x).requires_grad is False


def test_jacobians_nest_inside_vmap_and_around_a_linear_part():
    rows = F.vmap(F.jacfwd(lambda b: b * b))(engine.tensor([[1.0, 2.0], [3.0, 4.0]]))
    assert rows.tolist() == [[[2.0, 0.0], [0.0, 4.0]], [[6.0, 0.0], [0.0, 8.0]]]
    x = engine.tensor([0.5, -1.0, 2.0])
    # a Jacobian that does not depend on the input has no second derivative to refuse
    g = F.grad(lambda a: (F.jacrev(lambda b: b * 3 + a)(a) * a).sum())(x)
    assert g.tolist() == [3.0, 3.0, 3.0]  # the sum of 3 * a, as torch


@pytest.mark.parametrize("make, words", [
    (lambda f: F.jacfwd(F.jacrev(f)), "jacfwd: gradplay has no forward-mode AD, and jacfwd "
                                      "with a gradient inside it"),
    (lambda f: F.jacrev(F.jacfwd(f)), "jacfwd: gradplay has no forward-mode AD, and jacfwd "
                                      "with its result differentiated"),
    (lambda f: F.jacrev(F.jacrev(f)), "jacrev: a second derivative"),
    (lambda f: F.jacrev(F.grad(lambda a: f(a).sum())), "jacrev: a second derivative"),
    (lambda f: F.grad(lambda a: F.jacrev(f)(a).sum()), "jacrev: a second derivative"),
    (lambda f: F.grad(lambda a: F.jvp(f, (a,), (a,))[1].sum()), "jvp: gradplay has no "
                                                                 "forward-mode AD, and jvp with"),
])
def test_second_derivatives_through_jacobians_are_refused(make, words):
    """Measured: torch's forward mode over reverse mode (hessian), and its reverse mode over
    its batched backward, round second derivatives otherwise than the engine's way."""
    with pytest.raises(RuntimeError) as err:
        make(lambda a: a * a * a)(engine.tensor([0.5, -1.0, 2.0]))
    assert str(err.value).startswith(words)


def test_jacfwd_randomness():
    x = engine.tensor([0.5, -1.0, 2.0])
    with pytest.raises(RuntimeError, match="vmap: called random operation while in randomness "
                                           "error mode"):
        F.jacfwd(lambda a: a * engine.rand(3))(x)
    with pytest.raises(RuntimeError, match="jacfwd: randomness='different' is not supported"):
        F.jacfwd(lambda a: a * engine.rand(3), randomness="different")(x)
    engine.manual_seed(0)
    same = F.jacfwd(lambda a: a * engine.rand(3), randomness="same")(x)
    engine.manual_seed(0)
    assert same.tolist() == engine.diag(engine.rand(3)).tolist()  # one draw, as torch's 'same'


def test_jvp_never_calls_saved_tensors_hooks():
    calls = []
    with engine.autograd.graph.saved_tensors_hooks(lambda t: calls.append(1) or t, lambda t: t):
        out, tangent = F.jvp(lambda a: a.sin() * a, (engine.tensor([1.0]),), (engine.ones(1),))
    assert calls == []  # torch's forward mode saves nothing
    assert tangent.tolist() == pytest.approx([1.0 * 0.5403023 + 0.84147098], rel=1e-6)


def test_a_program_takes_jacobians():
    src = (
        "import torch\n"
        "from torch.func import jacrev, jacfwd, jvp\n"
        "x = torch.tensor([1.0, 2.0])\n"
        "print(jacrev(lambda a: a * a)(x))\n"
        "print(jacfwd(lambda a, b: a * b, argnums=(0, 1))(x, x + 1))\n"
        "print(jvp(lambda a: a ** 3, (x,), (torch.ones(2),)))\n"
    )
    result = run(src)
    assert result.error is None
    assert result.output == (
        "tensor([[2., 0.],\n        [0., 4.]])\n"
        "(tensor([[2., 0.],\n        [0., 3.]]), tensor([[1., 0.],\n        [0., 2.]]))\n"
        "(tensor([1., 8.]), tensor([ 3., 12.]))\n")


@pytest.mark.parametrize("api", ["jacrev", "jacfwd"])
def test_jacobians_agree_with_central_differences(api):
    """The finite-difference oracle, in float64: each column of the Jacobian is
    (f(x + h e_j) - f(x - h e_j)) / 2h."""
    def f(a):
        return (a * a.flip(0)).sin() * 2 + a.exp() / 3

    x = engine.tensor([0.3, -0.7, 1.1, 0.05], dtype=engine.float64)
    jac = getattr(F, api)(f)(x)
    h = 1e-6
    for j in range(4):
        step = engine.zeros(4, dtype=engine.float64)
        step[j] = h
        column = (f(x + step) - f(x - step)) / (2 * h)
        assert engine.allclose(jac[:, j], column, rtol=1e-6, atol=1e-8)
    tangent = engine.tensor([1.0, -2.0, 0.5, 3.0], dtype=engine.float64)
    _, jt = F.jvp(f, (x,), (tangent,))
    assert engine.allclose(jt, jac @ tangent, rtol=1e-12, atol=1e-12)


# Operations with no batching rule in torch 2.13 (masked_fill with a tensor value, histc, isclose,
# argwhere, and masked_scatter in masked_select's gradient): its vmap runs them slice by slice
# and warns, once for the innermost level the inputs are batched at and once per slice of it
# for each level further out. (the op the warnings name, the mapped function, the warnings
# torch gave, recorded with torch 2.13, and the sum of the result)
FALLBACK_CASES = [
    ("value batched outside", "masked_fill", lambda t, x, v: t.func.vmap(
        lambda r, vv: t.func.vmap(lambda e: t.ones(()).masked_fill(t.tensor(True), vv))(r))(
        x[0], t.tensor([1.0, 2.0, 3.0])), 1, 24.0),
    ("input at both levels, value outside", "masked_fill", lambda t, x, v: t.func.vmap(
        lambda m, vv: t.func.vmap(lambda row: row.masked_fill(row < 0, vv))(m))(
        x, t.tensor([7.0, 8.0])), 4, 155.0),
    ("three levels", "masked_fill", lambda t, x, v: t.func.vmap(t.func.vmap(t.func.vmap(
        lambda e: e.masked_fill(e < 0, v))))(x), 17, 83.5),
    ("only the mask batched", "masked_fill", lambda t, x, v: t.func.vmap(lambda m: t.func.vmap(
        lambda row: t.ones(4).masked_fill(row < 0, v))(m))(x), 4, 18.5),
    ("mask batched outside only", "masked_fill", lambda t, x, v: t.func.vmap(lambda m: t.func.vmap(
        lambda row: row.masked_fill(m[0] < 0, v))(m))(x), 4, 84.0),
    ("nothing batched inside", "masked_fill", lambda t, x, v: t.func.vmap(lambda m: t.func.vmap(
        lambda row: m[0].masked_fill(m[0] < 0, v) + row)(m))(x), 1, 48.0),
    ("in place, one level", "masked_fill", lambda t, x, v: t.func.vmap(
        lambda r: r.clone().masked_fill_(r < 0, v))(x[0]), 1, 5.5),
    ("under grad", "masked_fill", lambda t, x, v: t.func.vmap(t.func.grad(
        lambda r: r.masked_fill(r < 0, v).sum()))(x[0]), 1, 1.0),
    ("scalar value: a batching rule, no warning", "masked_fill", lambda t, x, v: t.func.vmap(
        lambda r: r.masked_fill(r < 0, 0.5))(x), 0, 83.5),
    ("histc, two levels", "histc", lambda t, x, v: t.func.vmap(t.func.vmap(
        lambda r: t.histc(r, bins=3, min=-12, max=12)))(x), 4, 24.0),
    ("histc, input at both levels", "histc", lambda t, x, v: t.func.vmap(lambda m: t.func.vmap(
        lambda r: t.histc(m[0] + r, bins=2, min=-24, max=24))(m))(x), 4, 24.0),
    ("isclose, three levels", "isclose", lambda t, x, v: t.func.vmap(t.func.vmap(t.func.vmap(
        lambda e: t.isclose(e, e * v).float())))(x), 17, 1.0),
    ("argwhere, one level", "argwhere", lambda t, x, v: t.func.vmap(
        lambda m: t.argwhere(m > 100))(x), 1, 0),
    ("masked_scatter: masked_select's gradient, two levels", "masked_scatter", lambda t, x, v: t.func.vmap(
        t.func.vmap(t.func.grad(lambda r: (r.masked_select(
            t.tensor([True, False, True, True])) ** 2).sum())))(x), 4, 24.0),
]


# the engine against the counts recorded from torch, and torch itself live (when it imports)
@pytest.mark.parametrize("t", [engine, pytest.param(real_torch, marks=pytest.mark.skipif(
    real_torch is None, reason="compares with torch 2.13 live"))], ids=["engine", "torch"])
@pytest.mark.parametrize("name, op, fn, warnings_given, total", FALLBACK_CASES,
                         ids=[c[0] for c in FALLBACK_CASES])
def test_vmap_warns_where_torch_runs_an_op_slice_by_slice(t, name, op, fn, warnings_given,
                                                           total):
    import warnings

    x = t.arange(24.0).reshape(2, 3, 4) - 11
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out = fn(t, x, t.tensor(0.5))
    assert out.sum().item() == total
    assert len(seen) == warnings_given
    for w in seen:
        assert w.category is UserWarning
        assert str(w.message).startswith("There is a performance drop because we have not yet "
                                          f"implemented the batching rule for aten::{op}")
