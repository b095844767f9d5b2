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
