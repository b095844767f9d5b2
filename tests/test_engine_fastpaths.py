"""The engine's fast paths change its speed, never its results.

1. When nothing records (no create_graph, hooks, retained grads, `inputs` or observer), the
   backward formulas of ops with `array_backward` run on backend arrays (engine/autograd/
   function.py). Every gradient is bit for bit the one the same formula gives on Tensors,
   which is what the engine computes when an observer is installed.
2. A formula falls back to Tensors when a saved tensor has another dtype than the gradient
   (the arrays' own type promotion would then differ from torch's).
3. Linear's weight gradient keeps torch's layout (mm_mat2_backward): it comes out contiguous,
   and a double backward records the nodes torch records.
"""

from __future__ import annotations

import math

import pytest

import engine
from engine import backend as B
from engine.autograd import engine as autograd_engine
from engine.autograd.function import Function
from engine.observer import Observer, observe


def values(*shape, seed=1.0):
    """Deterministic, varied, non-zero values of a shape, as nested lists."""
    n = 1
    for s in shape:
        n *= s
    flat = [math.sin(seed * (i + 1) * 1.7) + 0.1 * (i % 3) for i in range(n)]

    def nest(xs, dims):
        if not dims:
            return xs[0]
        step = len(xs) // dims[0]
        return [nest(xs[i * step:(i + 1) * step], dims[1:]) for i in range(dims[0])]

    return nest(flat, list(shape))


def leaf(*shape, seed=1.0, dtype=None):
    return engine.tensor(values(*shape, seed=seed), dtype=dtype, requires_grad=True)


# Each case builds a fresh graph and returns (loss, leaves).
def case_arithmetic_broadcast():
    x, y, z = leaf(3, 4), leaf(4, seed=2.0), leaf(3, 1, seed=3.0)
    out = (x + y) * z - 2.5 * y / (z * z + 3) + (1 - x) - (-y)
    return out.sum(), (x, y, z)


def case_unary():
    x = leaf(2, 5)
    out = (x.exp() + (x * x + 1).sqrt().log() + x.sin() * x.cos() + x.tanh() + x.sigmoid()
           + x.relu() + x.reciprocal() * 0.25)
    return out.mean(), (x,)


def case_reductions():
    x = leaf(3, 4, 2)
    out = x.sum(1).mean() + x.sum((0, 2), keepdim=True).sum() * x.mean(2).sum() + x.mean()
    return out, (x,)


def case_softmax():
    x, w = leaf(4, 5), leaf(4, 5, seed=2.0)
    return (x.softmax(1) * w).sum() + (x.log_softmax(0) * w).sum(), (x, w)


def case_linalg_and_views():
    a, b, v = leaf(3, 4), leaf(4, 2, seed=2.0), leaf(4, seed=3.0)
    out = (a @ b).t().reshape(6).sum() + (v @ v) + (a.t() @ a).view(16).sum()
    out = out + v.expand(3, 4).clone().sum()
    return out, (a, b, v)


def case_nn():
    lin1, lin2 = engine.nn.Linear(3, 4), engine.nn.Linear(4, 2)
    x, target, labels = leaf(5, 3), engine.tensor(values(5, 2, seed=4.0)), engine.tensor(
        [0, 1, 1, 0, 1])
    h = lin2(lin1(x).tanh())
    F = engine.nn.functional
    loss = F.mse_loss(h, target) + F.cross_entropy(h, labels) + (h / 3).relu().sum()
    return loss, (x, lin1.weight, lin1.bias, lin2.weight, lin2.bias)


def case_zero_dim_chain():
    x, w = leaf(), leaf(seed=2.0)
    v = x
    for _ in range(4):
        v = ((v * w + 0.1).sin() + x).tanh()
    return v, (x, w)


def case_mixed_dtypes():
    # a float64 0-dim factor of a float32 tensor: the result and its gradient are float32
    x, s = leaf(3), leaf(seed=2.0, dtype=engine.float64)
    return (x * s).sum() + (x.double() * s).sum(), (x, s)


def case_fan_out():
    x = leaf(4)
    y = x * x
    return (y + y + x).exp().sum(), (x,)


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}


class Listener(Observer):
    """An observer that hears backward's nodes: backward then runs its formulas on Tensors."""

    def node_begin(self, node, grad_outputs):
        pass


def grads(build, tensor_path: bool):
    engine.manual_seed(0)
    loss, leaves = build()
    if tensor_path:
        with observe(Listener()):
            loss.backward()
    else:
        loss.backward()
    return [(t.grad.dtype, B.shape(t.grad._data), B.tolist(t.grad._data)) for t in leaves]


def same_bits(a, b) -> bool:
    if isinstance(a, list):
        return len(a) == len(b) and all(same_bits(x, y) for x, y in zip(a, b))
    return a == b or (math.isnan(a) and math.isnan(b))


@pytest.fixture
def array_runs(monkeypatch):
    """Counts the backward formulas that ran on arrays."""
    count = [0]
    real = Function.backward_arrays

    def spy(self, grad, dtype):
        out = real(self, grad, dtype)
        count[0] += out is not None
        return out

    monkeypatch.setattr(Function, "backward_arrays", spy)
    return count


@pytest.mark.parametrize("name", sorted(CASES))
def test_array_path_gives_the_tensor_paths_gradients_bit_for_bit(name, array_runs):
    on_tensors = grads(CASES[name], tensor_path=True)
    assert array_runs[0] == 0
    fast = grads(CASES[name], tensor_path=False)
    for (dt, shape, got), (dt2, shape2, want) in zip(fast, on_tensors):
        assert dt is dt2 and shape == shape2
        assert same_bits(got, want), (got, want)
    # both backends take the path (numpy only from version 2, see below)
    assert (array_runs[0] > 0) == autograd_engine._array_math()


def test_array_math_is_detected_per_backend():
    # the pure backend's arrays and numpy 2's keep float32 with a Python number (NEP 50);
    # numpy 1 promoted a 0-dim float32 array with a Python float to float64
    if B.NAME == "pure":
        assert autograd_engine._array_math()
    else:
        import numpy
        assert autograd_engine._array_math() == (int(numpy.__version__.split(".")[0]) >= 2)


def test_pure_arrays_take_numbers_as_numpy_2_does():
    from engine.backend import pure_backend as P

    x32 = P.array([1.5] * 70, "float32")  # big enough for the one-loop lane
    for got in (x32 * 0.1, 0.1 * x32, x32 - 1, 1 - x32, x32 / 3, 3 / x32, -x32, x32 + True):
        assert got.dtype == "float32"
    assert P.tolist(x32 * 0.1)[0] == P.tolist(P.mul(x32, P.scalar(0.1, "float32")))[0]
    i64 = P.array([2, 3], "int64")
    assert (i64 * 2).dtype == "int64" and (i64 * 0.5).dtype == "float64"
    assert (i64 / 2).dtype == "float64" and (P.array([True], "bool") + 1).dtype == "int64"
    with pytest.raises(TypeError):
        x32 * "2"  # anything else: NotImplemented both ways, as before


def test_saved_tensor_of_another_dtype_sends_the_formula_to_tensors(array_runs):
    x, s = leaf(3), leaf(seed=2.0, dtype=engine.float64)
    (x * s).sum().backward()
    # MulBackward0 saved s (float64) for x's gradient (float32): it ran on Tensors
    assert x.grad.dtype is engine.float32 and s.grad.dtype is engine.float64
    assert B.tolist(x.grad._data) == B.tolist(engine.full((3,), s.item()).float()._data)


def test_zero_dim_gradients_are_arrays_not_numpy_scalars():
    loss, (x, w) = case_zero_dim_chain()
    loss.backward()
    for t in (x, w):
        assert type(t.grad._data) is B.ndarray and B.shape(t.grad._data) == ()
        t.grad.add_(1.0)  # writable, as any .grad


def test_hooks_and_retain_grad_mixed_into_an_array_run():
    def run(tensor_path):
        x = leaf(3)
        y = x.sin()
        y.retain_grad()
        z = y * 2
        z.register_hook(lambda g: g * 3)
        loss = (z.exp() + y).sum()
        if tensor_path:
            with observe(Listener()):
                loss.backward()
        else:
            loss.backward()
        return B.tolist(x.grad._data), B.tolist(y.grad._data)

    assert run(False) == run(True)


def test_an_observer_of_backward_begin_alone_leaves_the_array_path(array_runs):
    class Roots(Observer):  # as the playground's observer of iterations without detail
        def __init__(self):
            self.roots = []

        def backward_begin(self, roots, grad_roots, inputs, retain_graph, create_graph, api):
            self.roots.append(roots)

    loss, leaves = case_fan_out()
    roots = Roots()
    with observe(roots) as installed:
        loss.backward()
        assert engine.observer.current() is installed  # put back after the run
    assert roots.roots == [[loss]]
    assert (array_runs[0] > 0) == autograd_engine._array_math()
    assert B.tolist(leaves[0].grad._data) == grads(case_fan_out, tensor_path=True)[0][2]


def test_backward_twice_raises_on_the_array_path():
    x = leaf(3)
    loss = (x * x).sum()
    loss.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        loss.backward()


def test_modified_saved_tensor_raises_on_the_array_path():
    x = leaf(3)
    y = x * 1
    z = (y * y).sum()
    with engine.no_grad():
        y.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()


def _names(fn, depth):
    out = []
    while fn is not None and len(out) < depth:
        out.append(fn.name().rsplit("::", 1)[-1])
        fn = fn.next_functions[0][0]
    return out


def test_linear_weight_gradient_keeps_torchs_layout(T):
    lin = T.nn.Linear(3, 2)
    x = T.tensor(values(4, 3))
    loss = lin(x).tanh().sum()
    (g,) = T.autograd.grad(loss, lin.weight, create_graph=True)
    # recorded from torch 2.13: mm_mat2_backward computes (grad.t() @ input).t() for the
    # column-major weight.t(), so the weight's gradient is contiguous without a copy
    assert _names(g.grad_fn, 4) == ["TBackward0", "TBackward0", "MmBackward0", "TBackward0"]
    loss.backward()
    assert lin.weight.grad.is_contiguous()
