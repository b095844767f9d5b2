"""The autograd rules of docs/semantics.md, one test per rule, named after it.

Every test takes `T`, the torch-like module under test: the engine always, and real torch as a
second parameter when it imports, so each rule is shown to be torch's rule, not ours. Expected
texts and values are literals recorded from torch 2.13. The engine's observer has no torch
counterpart; tests that need it run on the engine only and compare with torch separately.
"""

from __future__ import annotations

import gc
import math
import warnings

import pytest
from live_torch import real_torch

import engine
from engine.observer import Observer, observe


def leaf(T, values, dtype=None):
    return T.tensor(values, dtype=dtype, requires_grad=True)


def raises(exc_type, first_line, fn):
    """Run fn, which must raise exc_type whose message's first line is first_line."""
    with pytest.raises(exc_type) as info:
        fn()
    assert type(info.value) is exc_type
    assert str(info.value).splitlines()[0] == first_line
    return info.value


NON_LEAF_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information. (Triggered "
    "internally at /__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)"
)
BACKWARD_TWICE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)
LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."


def modified_inplace(producer, version, expected):
    return (
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [torch.FloatTensor [2]], which is output 0 of {producer}, is at version "
        f"{version}; expected version {expected} instead. Hint: enable anomaly detection to "
        "find the operation that failed to compute its gradient, with "
        "torch.autograd.set_detect_anomaly(True, check_nan=False)."
    )


# -- 1. who gets .grad --------------------------------------------------------------------------

def test_only_leaves_requiring_grad_get_grad(T):
    x = leaf(T, [1.0, 2.0])
    c = T.tensor([3.0, 4.0])
    y = x * c
    assert x.grad is None and x.is_leaf and y.grad_fn is not None and not y.is_leaf
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 4.0]
    assert c.grad is None and not c.requires_grad and c.is_leaf
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert y.grad is None


def test_non_leaf_grad_is_none_with_warning(T):
    x = leaf(T, [1.0, 2.0])
    y = x * 2
    y.sum().backward()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert y.grad is None
    assert [(w.category, str(w.message)) for w in caught] == [(UserWarning, NON_LEAF_WARNING)]
    with warnings.catch_warnings(record=True) as caught:  # leaves never warn, even without grad
        warnings.simplefilter("always")
        assert T.tensor([1.0]).grad is None
    assert caught == []


def test_retain_grad_fills_non_leaf_grad(T):
    x = leaf(T, 2.0)
    y = x * x
    y.retain_grad()
    assert y.retains_grad and not x.retains_grad
    (y * 3).backward(retain_graph=True)
    assert y.grad.item() == 3.0 and x.grad.item() == 12.0
    (y * 3).backward()  # retained grads accumulate too
    assert y.grad.item() == 6.0 and x.grad.item() == 24.0
    raises(RuntimeError, "can't retain_grad on Tensor that has requires_grad=False",
           lambda: T.tensor([1.0]).retain_grad())


# -- 2. accumulation ----------------------------------------------------------------------------

def test_grad_accumulates_across_backward_calls(T):
    x = leaf(T, [1.0, 2.0])
    (x * x).sum().backward()
    first = x.grad
    assert first.tolist() == [2.0, 4.0]
    (x * 3).sum().backward()
    assert x.grad.tolist() == [5.0, 7.0]
    assert x.grad is first  # accumulated in place: the same tensor object


def test_grad_zero_and_none_reset(T):
    x = leaf(T, [1.0, 2.0])
    (x * 3).sum().backward()
    g = x.grad
    x.grad.zero_()
    assert x.grad is g and x.grad.tolist() == [0.0, 0.0]
    (x * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    x.grad = None
    assert x.grad is None
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0] and x.grad is not g  # a fresh tensor
    raises(RuntimeError,
           "attempting to assign a gradient of size '[3]' to a tensor of size '[2]'. Please "
           "ensure that the gradient and the tensor are the same size",
           lambda: setattr(x, "grad", T.zeros(3)))


def test_fan_out_adds_up(T):
    a = leaf(T, [1.0, 2.0])
    (a + a).sum().backward()
    assert a.grad.tolist() == [2.0, 2.0]
    b = leaf(T, 3.0)
    y = b * b + b.exp() * b  # b used four times
    y.backward()
    assert math.isclose(b.grad.item(), 2 * 3.0 + math.exp(3.0) * 4.0, rel_tol=1e-6)
    assert a.grad_fn is None  # a is a leaf: its edge is an AccumulateGrad node
    s = a + a
    (edge0, _), (edge1, _) = s.grad_fn.next_functions
    assert edge0 is edge1 and edge0.name() == "torch::autograd::AccumulateGrad"


# -- 3. backward's preconditions ----------------------------------------------------------------

def test_non_scalar_backward_without_gradient_raises(T):
    x = leaf(T, [1.0, 2.0, 3.0])
    z = (x + 2) * (x + 2)
    raises(RuntimeError, "grad can be implicitly created only for scalar outputs", z.backward)
    z.backward(T.ones(3))  # with an explicit gradient it works (seed 004's intent)
    assert x.grad.tolist() == [6.0, 8.0, 10.0]
    raises(RuntimeError,
           "Mismatch in shape: grad_output[0] has a shape of torch.Size([2]) and output[0] has "
           "a shape of torch.Size([3]).",
           lambda: ((x + 2) * (x + 2)).backward(T.ones(2)))


def test_backward_twice_without_retain_graph_raises(T):
    x = leaf(T, [1.0, 2.0])
    y = (x * x).sum()
    y.backward()
    raises(RuntimeError, BACKWARD_TWICE, y.backward)
    y2 = (x.exp()).sum()
    T.autograd.grad(y2, x)
    raises(RuntimeError, BACKWARD_TWICE, lambda: T.autograd.grad(y2, x))


def test_backward_twice_with_retain_graph_accumulates(T):
    x = leaf(T, [1.0, 2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [4.0, 8.0]


def test_backward_without_saved_tensors_can_run_twice(T):
    x = leaf(T, [1.0, 2.0])
    y = (x + x).sum()  # AddBackward0 and SumBackward0 save no tensors
    assert y.grad_fn.next_functions[0][0].name() == "AddBackward0"
    y.backward()
    y.backward()
    assert x.grad.tolist() == [4.0, 4.0]


def test_backward_without_grad_fn_raises(T):
    x = T.tensor([1.0, 2.0, 3.0])  # seed 004: requires_grad=False
    z = (x + 2) * (x + 2)  # not a scalar either, but this is the error torch raises
    raises(RuntimeError, "element 0 of tensors does not require grad and does not have a grad_fn",
           z.backward)
    x = leaf(T, [1.0, 2.0, 3.0])
    with T.no_grad():  # seed 004's second example
        z = (x + 2) * (x + 2)
    raises(RuntimeError, "element 0 of tensors does not require grad and does not have a grad_fn",
           lambda: z.sum().backward())


def test_requires_grad_on_integer_tensor_raises(T):
    raises(RuntimeError, "Only Tensors of floating point and complex dtype can require gradients",
           lambda: T.tensor([1, 2], requires_grad=True))
    raises(RuntimeError, "only Tensors of floating point dtype can require gradients",
           lambda: T.tensor([1, 2]).requires_grad_())
    raises(RuntimeError, "only Tensors of floating point and complex dtype can require gradients",
           lambda: setattr(T.tensor([1, 2]), "requires_grad", True))
    y = leaf(T, [1.0]) * 2
    raises(RuntimeError, "you can only change requires_grad flags of leaf variables. If you want "
           "to use a computed variable in a subgraph that doesn't require differentiation use "
           "var_no_grad = var.detach().", lambda: setattr(y, "requires_grad", False))


# -- 4. in-place operations ---------------------------------------------------------------------

def test_inplace_on_leaf_requiring_grad_raises(T):
    x = leaf(T, 2.0)

    def iadd():
        nonlocal x
        x += 1  # seed 001: "may" cause errors; it always does

    raises(RuntimeError, LEAF_INPLACE, iadd)
    for op in (lambda: x.add_(1), lambda: x.mul_(2), lambda: x.zero_(), lambda: x.fill_(0),
               lambda: x.copy_(T.tensor(1.0)), lambda: x.clamp_(0, 1)):
        raises(RuntimeError, LEAF_INPLACE, op)
    assert x._version == 0 and x.item() == 2.0


def test_inplace_on_leaf_allowed_under_no_grad(T):
    x = leaf(T, [1.0, 2.0])
    (x * x).sum().backward()
    with T.no_grad():
        x -= 0.5 * x.grad  # an SGD step
    assert x.tolist() == [0.0, 0.0] and x.is_leaf and x.requires_grad and x.grad_fn is None


def test_inplace_under_no_grad_bumps_version(T):
    x = leaf(T, [1.0, 2.0])
    assert x._version == 0
    with T.no_grad():
        x.add_(1)
        x.mul_(2)
    assert x._version == 2
    d = x.detach()  # shares the version counter
    d.zero_()
    assert x._version == 3 and x.tolist() == [0.0, 0.0]


def test_inplace_on_saved_tensor_raises_on_backward(T):
    x = leaf(T, [1.0, 2.0])
    y = x.exp()  # ExpBackward0 saves its output y
    y.mul_(2)
    assert y._version == 1
    raises(RuntimeError, modified_inplace("Exp", 1, 0), lambda: y.sum().backward())
    x = leaf(T, [1.0, 2.0])
    b = x * 1
    c = b * b  # MulBackward0 saves b at version 0
    b.add_(1)
    raises(RuntimeError, modified_inplace("Add", 1, 0), lambda: c.sum().backward())


def test_inplace_on_unsaved_non_leaf_is_fine_and_takes_grad_fn(T):
    x = leaf(T, [1.0, 2.0])
    b = x + 1
    assert b.grad_fn.name() == "AddBackward0"
    b.mul_(3)
    assert b.grad_fn.name() == "MulBackward0" and b._version == 1
    assert b.grad_fn.next_functions[0][0].name() == "AddBackward0"
    b.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    # seed 004: clone, then add_ in place, keeps the gradient flowing
    x = leaf(T, [1.0, 2.0, 3.0])
    y = x.clone()
    y.add_(2)
    (y * y).sum().backward()
    assert x.grad.tolist() == [6.0, 8.0, 10.0]


def test_inplace_on_view_rewrites_base_history(T):
    x = leaf(T, [1.0, 2.0, 3.0])
    y = x * 1
    row = y[0]
    row.mul_(5)  # writes through the view into y: y's history now includes the write
    assert y.grad_fn.name() == "torch::autograd::CopySlices" and y._version == 1
    assert y.tolist() == [5.0, 2.0, 3.0]
    y.sum().backward()
    assert x.grad.tolist() == [5.0, 1.0, 1.0]
    raises(RuntimeError,
           "a view of a leaf Variable that requires grad is being used in an in-place operation.",
           lambda: x[0].add_(1))


# -- 5. what stops the flow ---------------------------------------------------------------------

def test_detach_stops_flow(T):
    x = leaf(T, [1.0, 2.0])
    d = x.detach()
    assert not d.requires_grad and d.grad_fn is None and d.is_leaf
    y = (x * d).sum()  # d is a constant here: dy/dx = d
    y.backward()
    assert x.grad.tolist() == [1.0, 2.0]
    z = (x * 2).detach()
    raises(RuntimeError, "element 0 of tensors does not require grad and does not have a grad_fn",
           lambda: z.sum().backward())


def test_clone_keeps_flow(T):
    x = leaf(T, [1.0, 2.0])
    c = x.clone()
    assert c.requires_grad and c.grad_fn.name() == "CloneBackward0" and not c.is_leaf
    (c * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_multiplying_by_a_number_keeps_the_graph(T):
    # seed 003: "output = t * 2.0 detaches"; it does not
    w = leaf(T, [[0.5]])
    t = T.tensor([[2.0]]) @ w
    out = t * 2.0
    assert out.grad_fn.name() == "MulBackward0"
    ((out - 5.0) ** 2).mean().backward()
    assert w.grad.tolist() == [[-24.0]]
    # seed 003: "t *= 2.0" on a non-leaf output stops nothing either
    w2 = leaf(T, [[0.5]])
    t2 = T.tensor([[2.0]]) @ w2
    t2 *= 2.0
    ((t2 - 5.0) ** 2).mean().backward()
    assert w2.grad.tolist() == [[-24.0]]


def test_no_grad_results_have_no_grad_fn(T):
    x = leaf(T, [1.0, 2.0])
    with T.no_grad():
        y = x * 2
        assert not T.is_grad_enabled()
        with T.enable_grad():
            z = x * 2
    assert T.is_grad_enabled()
    assert y.grad_fn is None and not y.requires_grad and y.is_leaf
    assert z.grad_fn is not None and z.requires_grad

    @T.no_grad()
    def f(t):
        return t * 2

    assert f(x).grad_fn is None
    with T.set_grad_enabled(False):
        assert (x * 2).grad_fn is None
    assert (x * 2).grad_fn is not None


# -- 6. higher order, hooks, inputs= and allow_unused -------------------------------------------

def test_create_graph_gives_second_derivatives(T):
    x = leaf(T, 2.0, T.float64)
    y = x ** 3
    (g,) = T.autograd.grad(y, x, create_graph=True)
    assert g.item() == 12.0 and g.requires_grad and g.grad_fn is not None
    (g2,) = T.autograd.grad(g, x, create_graph=True)
    assert g2.item() == 12.0  # 6x
    (g3,) = T.autograd.grad(g2, x)
    assert g3.item() == 6.0 and not g3.requires_grad
    (g_plain,) = T.autograd.grad(x ** 3, x)
    assert not g_plain.requires_grad and g_plain.grad_fn is None


def test_hooks_read_and_replace(T):
    x = leaf(T, [1.0, 2.0])
    seen = []
    x.register_hook(lambda g: seen.append(g.tolist()))  # reads, returns None: unchanged
    y = x * 3
    handle = y.register_hook(lambda g: g * 10)  # replaces the gradient flowing on from y
    y.sum().backward()
    assert seen == [[30.0, 30.0]] and x.grad.tolist() == [30.0, 30.0]
    handle.remove()
    x.grad = None
    (x * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    raises(RuntimeError, "cannot register a hook on a tensor that doesn't require gradient",
           lambda: T.tensor([1.0]).register_hook(lambda g: g))


def test_backward_inputs_limits_accumulation(T):
    a = leaf(T, [1.0, 2.0])
    b = leaf(T, [3.0, 4.0])
    (a * b).sum().backward(inputs=[a])
    assert a.grad.tolist() == [3.0, 4.0] and b.grad is None
    m = a * 2  # a non-leaf in inputs gets its .grad, and nothing flows past it
    a.grad = None
    (m * m).sum().backward(inputs=[m])
    assert m.grad.tolist() == [4.0, 8.0] and a.grad is None
    raises(RuntimeError, "`inputs` argument to `backward()` cannot be empty.",
           lambda: (a * 2).sum().backward(inputs=[]))


def test_allow_unused_returns_none(T):
    x = leaf(T, [1.0])
    unused = leaf(T, [1.0])
    raises(RuntimeError, "The differentiated Tensor at index 1 appears to not have been used in "
           "the graph. Set allow_unused=True if this is the desired behavior.",
           lambda: T.autograd.grad((x * 2).sum(), [x, unused]))
    gx, gu = T.autograd.grad((x * 2).sum(), [x, unused], allow_unused=True)
    assert gx.tolist() == [2.0] and gu is None
    gx, gu = T.autograd.grad((x * 2).sum(), [x, unused], materialize_grads=True)
    assert gu.tolist() == [0.0]
    assert x.grad is None and unused.grad is None  # autograd.grad never accumulates
    y = x * 3
    y.retain_grad()
    T.autograd.grad((y * y).sum(), [x])
    assert x.grad is None and y.grad.tolist() == [6.0]  # but retained grads are filled
    raises(RuntimeError, "One of the differentiated Tensors does not require grad",
           lambda: T.autograd.grad((x * 2).sum(), [T.ones(1)]))


# -- 7. errors ----------------------------------------------------------------------------------

SHAPE_ERRORS = [
    (lambda T: T.ones(2) + T.ones(3), RuntimeError,
     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
    (lambda T: T.ones(2, 3) * T.ones(3, 2), RuntimeError,
     "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1"),
    (lambda T: T.ones(2, 3) @ T.ones(2, 3), RuntimeError,
     "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"),
    (lambda T: T.mm(T.ones(1, 2), T.ones(3, 1)), RuntimeError,
     "mat1 and mat2 shapes cannot be multiplied (1x2 and 3x1)"),
    (lambda T: T.ones(3) @ T.ones(2, 3), RuntimeError,
     "mat1 and mat2 shapes cannot be multiplied (1x3 and 2x3)"),
    (lambda T: T.ones(2, 3) @ T.ones(2), RuntimeError,
     "size mismatch, got input (2), mat (2x3), vec (2)"),
    (lambda T: T.ones(3) @ T.ones(2), RuntimeError,
     "inconsistent tensor size, expected tensor [3] and src [2] to have the same number of "
     "elements, but got 3 and 2 elements respectively"),
    (lambda T: T.ones(2, 2, 3) @ T.ones(3, 3, 2), RuntimeError,
     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
    (lambda T: T.ones(3) @ T.tensor(2.0), RuntimeError,
     "both arguments to matmul need to be at least 1D, but they are 1D and 0D"),
    (lambda T: T.where(T.ones(2) > 0, T.ones(3), T.ones(3)), RuntimeError,
     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
    (lambda T: T.maximum(T.ones(2), T.ones(3)), RuntimeError,
     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
    (lambda T: T.ones(2, 3).view(4), RuntimeError,
     "shape '[4]' is invalid for input of size 6"),
    (lambda T: T.ones(2, 3).t().view(6), RuntimeError,
     "view size is not compatible with input tensor's size and stride (at least one dimension "
     "spans across two contiguous subspaces). Use .reshape(...) instead."),
    (lambda T: T.ones(2).expand(3), RuntimeError,
     "The expanded size of the tensor (3) must match the existing size (2) at non-singleton "
     "dimension 0.  Target sizes: [3].  Tensor sizes: [2]"),
    (lambda T: T.cat([T.ones(2, 3), T.ones(2, 2)]), RuntimeError,
     "Sizes of tensors must match except in dimension 0. Expected size 3 but got size 2 for "
     "tensor number 1 in the list."),
    (lambda T: T.stack([T.ones(3), T.ones(2)]), RuntimeError,
     "stack expects each tensor to be equal size, but got [3] at entry 0 and [2] at entry 1"),
    (lambda T: T.ones(2)[5], IndexError, "index 5 is out of bounds for dimension 0 with size 2"),
    (lambda T: T.ones(2).sum(3), IndexError,
     "Dimension out of range (expected to be in range of [-1, 0], but got 3)"),
]


def test_shape_mismatch_errors_match_torch(T):
    for build, exc, first_line in SHAPE_ERRORS:
        raises(exc, first_line, lambda build=build: build(T))
    a = leaf(T, [1.0, 2.0])
    b = leaf(T, [[1.0], [2.0], [3.0]])
    raises(RuntimeError,
           "The size of tensor a (2) must match the size of tensor b (3) at non-singleton "
           "dimension 0", lambda: a + b.squeeze(1))
    assert a.grad is None and b.grad is None  # a failed forward leaves nothing behind


# -- 8. order and determinism -------------------------------------------------------------------

def _graph_nodes(root):
    """Every grad_fn reachable from root, depth first over next_functions (lists only)."""
    seen, stack = [], [root]
    while stack:
        n = stack.pop()
        if n is None or any(n is s for s in seen):
            continue
        seen.append(n)
        stack.extend(nxt for nxt, _ in n.next_functions)
    return seen


GRAPHS = {
    "diamond": lambda T: (lambda a, b: (lambda c: ((c.exp() + a) * c.sin()).sum())(a * b))(
        leaf(T, [1.0, 2.0]), leaf(T, [3.0, 4.0])),
    "mlp": lambda T: (lambda x, w, b: ((x @ w + b).relu() @ w.t()).tanh().mean())(
        T.tensor([[1.0, 2.0], [3.0, 4.0]]), leaf(T, [[0.1, 0.2], [0.3, 0.4]]),
        leaf(T, [0.5, -0.5])),
    "fan_out": lambda T: (lambda a: (a * a + a.exp() * a + (a + 1)).sum())(leaf(T, [1.0, 2.0])),
    "branches": lambda T: (lambda a, b: (a.sin() * 2 + b.cos() * 3 + (a * b).sum()).sum())(
        leaf(T, [1.0, 2.0]), leaf(T, [3.0, 4.0])),
}


def _order_by_prehooks(T, build):
    out = build(T)
    log = []
    for n in _graph_nodes(out.grad_fn):
        n.register_prehook(lambda g, n=n: log.append(n.name()))
    out.backward()
    return log


class _NodeLog(Observer):
    def __init__(self):
        self.names = []

    def node_begin(self, node, grad_outputs):
        self.names.append(node.name())


def _order_by_observer(build):
    log = _NodeLog()
    out = build(engine)
    with observe(log):
        out.backward()
    return log.names


# Recorded from torch 2.13 with a prehook on every node (see _order_by_prehooks).
TORCH_ORDER = {
    "diamond": ["SumBackward0", "MulBackward0", "SinBackward0", "AddBackward0", "ExpBackward0",
                "MulBackward0", "torch::autograd::AccumulateGrad",
                "torch::autograd::AccumulateGrad"],
}


@pytest.mark.parametrize("graph", sorted(GRAPHS))
def test_backward_order_is_deterministic(T, graph):
    build = GRAPHS[graph]
    first = _order_by_prehooks(T, build)
    gc.collect()
    assert _order_by_prehooks(T, build) == first
    if T is engine:
        assert _order_by_observer(build) == first == _order_by_observer(build)
        if graph in TORCH_ORDER:
            assert first == TORCH_ORDER[graph]
        if real_torch is not None:
            assert first == _order_by_prehooks(real_torch, build)


def test_torch_order_literal_is_torchs(T):
    assert _order_by_prehooks(T, GRAPHS["diamond"]) == TORCH_ORDER["diamond"]


# -- 9. numbers ---------------------------------------------------------------------------------

def test_no_numpy_warnings_leak(T):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = leaf(T, [0.0, 1.0, -1.0])
        zero = T.zeros(3)
        q = x / zero  # 0/0, 1/0, -1/0
        assert [str(v) for v in q.tolist()] == ["nan", "inf", "-inf"]
        lg = x.log()
        assert [str(v) for v in lg.tolist()] == ["-inf", "0.0", "nan"]
        sq = x.sqrt()
        assert math.isnan(sq.tolist()[2])
        big = T.tensor([1000.0, -1000.0], requires_grad=True)
        e = big.exp()
        assert e.tolist() == [math.inf, 0.0]
        assert big.sigmoid().tolist() == [1.0, 0.0] and big.tanh().tolist() == [1.0, -1.0]
        inf_times_zero = e * T.tensor([0.0, 1.0])
        assert math.isnan(inf_times_zero.tolist()[0])
        p = big ** 200
        assert p.tolist() == [math.inf, math.inf]
        (q.sum() + lg.sum() + sq.sum()).backward()
        (e.sum() + inf_times_zero.sum() + p.sum() + big.softmax(0).sum()).backward()
        assert [str(v) for v in x.grad.tolist()] == ["inf", "inf", "nan"]  # d(x/0)/dx is inf; sqrt at -1: nan
        repr(q), repr(x.grad), repr(big.grad), str(e)


def test_fstring_of_0dim_tensor_prints_its_number(T):
    # seed 002 prints f"{x.grad}" as 3.0, and torch agrees
    w = leaf(T, 3.0)
    x = leaf(T, 2.0)
    (w * x + 1.0).backward()
    assert f"{x.grad}" == "3.0" and f"{w.grad}" == "2.0" and f"{x.grad:.2f}" == "3.00"
    assert f"{T.tensor([3.0])}" == "tensor([3.])"


# -- 7. several outputs, views that may not change in place, assignment through an index ------

MULTI_OUTPUT_VIEW = (
    " This view is the output of a function that returns multiple views. Such functions do not "
    "allow the output views to be modified inplace. You should replace the inplace operation by "
    "an out-of-place one."
)
NO_GRAD_VIEW = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
    "your code by moving both the view and the inplace either both inside the no_grad block (if "
    "you don't want the inplace to be tracked) or both outside (if you want the inplace to be "
    "tracked)."
)


def test_unbind_outputs_share_one_node(T):
    x = leaf(T, [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    y = x * 2
    a, b, c = y  # iterating is unbind(0)
    assert a.grad_fn is b.grad_fn is c.grad_fn
    assert a.grad_fn.name() == "UnbindBackward0" and a.grad_fn.next_functions == (
        (y.grad_fn, 0),)
    assert [a.output_nr, b.output_nr, c.output_nr] == [0, 1, 2]
    assert a._base is y and not a.is_leaf
    assert [t.grad_fn.name() for t in list(y) + list(T.unbind(y, 1))] == ["UnbindBackward0"] * 5
    s = a * c
    assert s.grad_fn.next_functions == ((a.grad_fn, 0), (a.grad_fn, 2))
    seen = []
    b.register_hook(seen.append)
    b.retain_grad()
    s.sum().backward()
    # b got no gradient: its hook sees None, its .grad stays None, its row of x.grad is zeros
    assert seen == [None] and b.grad is None
    assert x.grad.tolist() == [[20.0, 24.0], [0.0, 0.0], [4.0, 8.0]]


def test_unbind_outputs_may_not_change_in_place(T):
    x = leaf(T, [[1.0, 2.0], [3.0, 4.0]])
    y = x * 1
    a, b = y
    raises(RuntimeError, "Output 1 of Unbind is a view and is being modified inplace."
           + MULTI_OUTPUT_VIEW, lambda: b.add_(1))
    raises(RuntimeError, "Output 0 of Slice is a view and is being modified inplace."
           + MULTI_OUTPUT_VIEW, lambda: a[0:1].mul_(2))
    assert y._version == 0
    with T.no_grad():
        a.add_(1)  # allowed, but a's history is now unusable, and so is b's
    assert repr(a) == "tensor([2., 3.], grad_fn=<Invalid>)"
    changed = ("Output 1 of Unbind is a view and its base or another view of its base has been "
               "modified inplace." + MULTI_OUTPUT_VIEW)
    raises(RuntimeError, changed, lambda: b * 2)
    raises(RuntimeError, changed, lambda: b.grad_fn)


def test_inplace_on_view_made_under_no_grad_raises(T):
    x = leaf(T, [1.0, 2.0, 3.0])
    y = x * 1
    with T.no_grad():
        v = y[1:]
    raises(RuntimeError, NO_GRAD_VIEW, lambda: v.mul_(2))
    with T.no_grad():
        v.mul_(2)  # both inside no_grad: fine
    assert y.tolist() == [1.0, 4.0, 6.0] and y.grad_fn.name() == "MulBackward0"


def test_assignment_through_index_tensor_records_index_put(T):
    x = leaf(T, [1.0, 2.0, 3.0, 4.0])
    idx = T.tensor([0, 2])

    def into_leaf():
        x[idx] = 5.0

    raises(RuntimeError, LEAF_INPLACE, into_leaf)
    v = leaf(T, [10.0, 20.0])
    y = x * 2
    y[idx] = v
    assert y.grad_fn.name() == "IndexPutBackward0" and y._version == 1
    (mul, _), (acc, _) = y.grad_fn.next_functions
    assert mul.name() == "MulBackward0" and acc.variable is v
    y.backward(T.tensor([1.0, 2.0, 3.0, 4.0]))
    assert x.grad.tolist() == [0.0, 4.0, 0.0, 8.0]  # the written positions get nothing
    assert v.grad.tolist() == [1.0, 3.0]  # the values get the gradient at their positions
    z = T.zeros(4)  # does not require grad, but the value does
    z[T.tensor([True, False, False, True])] = v
    assert z.grad_fn.name() == "IndexPutBackward0" and z.requires_grad and not z.is_leaf
    w = x * 1
    w[1:][T.tensor([0])] = 0.0  # through a view: the base's history is rewritten
    assert w.grad_fn.name() == "torch::autograd::CopySlices"
    assert w.tolist() == [1.0, 0.0, 3.0, 4.0]
