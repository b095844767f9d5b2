"""Oracle scenarios: small, deterministic programs run against real PyTorch and the engine.

Every public function ``name(torch, rec)`` in this module is a scenario (collected in
definition order into :data:`SCENARIOS`).  ``torch`` is real PyTorch or ``engine``;
``rec`` is a :class:`tests.oracle.recorder.Recorder`.

Rules for scenarios:
* only torch's public API (no private attributes: the engine need not have them);
* straight-line code: expected errors go through ``rec.raises``;
* never depend on random values (the RNG differs between torch and the engine);
  random tensors may only be used for shapes/dtypes;
* nn weights are always set explicitly;
* avoid warnings PyTorch emits only once per process (``x.T`` on non-2-D tensors,
  ``backward(create_graph=True)`` accumulating into leaves), because their presence
  would depend on scenario order.

Helpers start with an underscore and are not scenarios.
"""

from __future__ import annotations

from tests.oracle import (
    scenarios_added_ops,
    scenarios_autograd_api,
    scenarios_conv,
    scenarios_func,
    scenarios_misc,
    scenarios_nn,
    scenarios_numerics,
    scenarios_pointwise,
    scenarios_reduce,
    scenarios_shape,
)
from tests.oracle.recorder import collect_scenarios

# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


def _fwd_bwd(torch, rec, tag, out, inputs, grad=None):
    """Record ``out``, back-propagate ``grad`` (ones by default), record input grads."""
    rec.value(f"{tag}.out", out)
    if grad is None:
        grad = torch.ones_like(out)
    out.backward(grad)
    for name, t in inputs.items():
        rec.value(f"{tag}.{name}.grad", t.grad)


def _leaf(torch, data, dtype=None):
    if dtype is None:
        return torch.tensor(data, requires_grad=True)
    return torch.tensor(data, dtype=dtype, requires_grad=True)


# ===========================================================================
# Group 1: what common autograd tutorials teach, rewritten straight-line
# ===========================================================================


def seed_basic_gradient_x_squared_times_two(torch, rec):
    x = torch.tensor([2.0], requires_grad=True)
    y = x**2
    z = 2 * y
    z.backward()
    rec.printed("print(x.grad)", x.grad)
    rec.value("x.grad", x.grad)
    rec.value("y", y)
    rec.value("z", z)


def seed_gradient_two_variables_square_plus_cube(torch, rec):
    x = torch.tensor([2.0], requires_grad=True)
    y = torch.tensor([3.0], requires_grad=True)
    z = x**2 + y**3
    z.backward()
    rec.printed("print(x.grad)", x.grad)
    rec.printed("print(y.grad)", y.grad)
    rec.graph("graph(z)", z)


def seed_requires_grad_pow_sum_backward(torch, rec):
    x = torch.tensor([2.0, 3.0], requires_grad=True)
    rec.value("x.grad before", x.grad)
    y = x.pow(2).sum()
    rec.value("y", y)
    y.backward()
    rec.value("x.grad after", x.grad)
    rec.printed("print(x.grad)", x.grad)


def seed_gradients_accumulate_then_zero_(torch, rec):
    x = torch.tensor([2.0, 3.0], requires_grad=True)
    x.pow(2).sum().backward()
    rec.value("after first", x.grad)
    x.pow(2).sum().backward()
    rec.value("after second", x.grad)
    x.grad.zero_()
    rec.value("after zero_", x.grad)
    rec.printed("print(x.grad)", x.grad)


def seed_nonscalar_backward_with_gradient_argument(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.backward(torch.tensor([1.0, 1.0]))
    rec.value("x.grad", x.grad)


def seed_nonscalar_backward_without_gradient_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    rec.raises("y.backward()", lambda: y.backward())
    rec.value("x.grad", x.grad)


def seed_retain_grad_on_intermediate(torch, rec):
    x = torch.tensor(2.0, requires_grad=True)
    y = x * x
    z = y * 3
    y.retain_grad()
    z.backward()
    rec.printed("print(y.grad)", y.grad)
    rec.value("y.grad", y.grad)
    rec.value("x.grad", x.grad)


def seed_inplace_add_on_leaf_scalar_raises(torch, rec):
    x = torch.tensor(2.0, requires_grad=True)

    def bump():
        nonlocal x
        x += 1

    rec.raises("x += 1", bump)
    rec.value("x after failed +=", x)
    y = x * x
    y.backward()
    rec.value("x.grad", x.grad)


def seed_grad_none_before_backward_pitfall(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    rec.printed("print(x.grad) before", x.grad)
    y = x.sum()
    y.backward()
    rec.printed("print(x.grad) after", x.grad)


def seed_w_times_x_plus_b_fstring_output(torch, rec):
    x = torch.tensor(2.0, requires_grad=True)
    w = torch.tensor(3.0, requires_grad=True)
    b = torch.tensor(1.0, requires_grad=True)
    y = w * x + b
    y.backward()
    rec.printed("dx", f"Gradient of y with respect to x (dy/dx): {x.grad}")
    rec.printed("dw", f"Gradient of y with respect to w (dy/dw): {w.grad}")
    rec.printed("db", f"Gradient of y with respect to b (dy/db): {b.grad}")
    z = torch.tensor(4.0, requires_grad=False)
    rec.printed("dz", f"Gradient for tensor z (requires_grad=False): {z.grad}")
    rec.value("y", y)
    rec.graph("graph(y)", y)


def _seed_linear(torch):
    linear = torch.nn.Linear(1, 1)
    with torch.no_grad():
        linear.weight.fill_(0.5)
        linear.bias.fill_(-0.25)
    return linear


def seed_simple_linear_mse_sgd_step(torch, rec):
    linear = _seed_linear(torch)
    criterion = torch.nn.MSELoss()
    optimizer = torch.optim.SGD(linear.parameters(), lr=0.01)
    input_data = torch.tensor([[2.0]], requires_grad=True)
    target_data = torch.tensor([[5.0]])
    output = linear(input_data)
    rec.value("output", output)
    loss = criterion(output, target_data)
    rec.value("loss", loss)
    loss.backward()
    rec.printed("weight grad", f"Gradient of linear weight: {linear.weight.grad}")
    rec.value("bias.grad", linear.bias.grad)
    rec.value("input.grad", input_data.grad)
    optimizer.step()
    rec.value("weight after step", linear.weight)
    rec.value("bias after step", linear.bias)
    optimizer.zero_grad()
    rec.value("weight.grad after zero_grad", linear.weight.grad)
    rec.value("bias.grad after zero_grad", linear.bias.grad)


def seed_linear_output_times_two_still_has_grad(torch, rec):
    linear = _seed_linear(torch)
    criterion = torch.nn.MSELoss()
    input_data = torch.tensor([[2.0]], requires_grad=True)
    target_data = torch.tensor([[5.0]])
    intermediate = linear(input_data)
    output = intermediate * 2.0
    rec.value("output", output)
    loss = criterion(output, target_data)
    rec.raises("loss.backward()", lambda: loss.backward())
    rec.printed("weight grad", f"Gradient of linear weight: {linear.weight.grad}")
    rec.value("bias.grad", linear.bias.grad)
    rec.graph("graph(loss)", loss)


def seed_linear_output_inplace_mul_still_has_grad(torch, rec):
    linear = _seed_linear(torch)
    criterion = torch.nn.MSELoss()
    input_data = torch.tensor([[2.0]], requires_grad=True)
    target_data = torch.tensor([[5.0]])
    intermediate = linear(input_data)
    rec.value("intermediate before", intermediate)
    intermediate *= 2.0
    rec.value("intermediate after *=", intermediate)
    rec.value("intermediate._version", intermediate._version)
    loss = criterion(intermediate, target_data)
    rec.raises("loss.backward()", lambda: loss.backward())
    rec.printed("weight grad", f"Gradient of linear weight: {linear.weight.grad}")
    rec.value("bias.grad", linear.bias.grad)
    rec.graph("graph(loss)", loss)


def seed_requires_grad_false_backward_raises(torch, rec):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=False)
    y = x + 2
    z = y * y
    rec.raises("z.backward()", lambda: z.backward())
    rec.printed("print(x.grad)", x.grad)
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x + 2
    z = y * y
    rec.raises("z.backward() non-scalar", lambda: z.backward())
    rec.printed("print(x.grad) corrected", x.grad)
    z.sum().backward()
    rec.printed("print(x.grad) after sum().backward()", x.grad)


def seed_no_grad_block_breaks_graph(torch, rec):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x + 2
    with torch.no_grad():
        z = y * y
    rec.value("z", z)
    rec.raises("z.backward()", lambda: z.backward())
    rec.printed("print(x.grad)", x.grad)
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x + 2
    z = y * y
    rec.raises("z.backward() non-scalar", lambda: z.backward())
    z.backward(torch.ones_like(z))
    rec.printed("print(x.grad) with ones gradient", x.grad)


def seed_clone_then_add_inplace_keeps_flow(torch, rec):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.clone()
    rec.value("y after clone", y)
    y.add_(2)
    rec.value("y after add_", y)
    z = y * y
    rec.raises("z.backward() non-scalar", lambda: z.backward())
    z.sum().backward()
    rec.printed("print(x.grad)", x.grad)
    rec.graph("graph(z)", z)


# ===========================================================================
# Group 2: autograd semantics
# ===========================================================================


def nonleaf_grad_is_none_and_warns(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.sum().backward()
    rec.value("y.grad", y.grad)
    rec.value("x.grad", x.grad)


def leaf_grad_access_does_not_warn(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    rec.value("x.grad", x.grad)
    c = torch.tensor([1.0, 2.0])
    rec.value("c.grad", c.grad)


def retain_grad_silences_nonleaf_warning(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.retain_grad()
    rec.value("y.retains_grad", y.retains_grad)
    rec.value("y.grad before", y.grad)
    (y * y).sum().backward()
    rec.value("y.grad", y.grad)
    rec.value("x.grad", x.grad)
    rec.value("x.retains_grad", x.retains_grad)


def retain_grad_on_leaf_is_noop(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    x.retain_grad()
    rec.value("x.retains_grad", x.retains_grad)
    x.sum().backward()
    rec.value("x.grad", x.grad)


def retain_grad_accumulates_over_two_backwards(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    z = y.sum()
    z.backward(retain_graph=True)
    rec.value("y.grad first", y.grad)
    z.backward()
    rec.value("y.grad second", y.grad)
    rec.value("x.grad second", x.grad)


def grad_accumulates_across_backward_calls(torch, rec):
    x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    (x * x).sum().backward()
    rec.value("first", x.grad)
    (x * 3).sum().backward()
    rec.value("second", x.grad)
    x.sum().backward()
    rec.value("third", x.grad)


def grad_set_to_none_then_backward_fresh(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    g1 = x.grad
    rec.value("grad", g1)
    x.grad = None
    rec.value("grad after = None", x.grad)
    (x * 5).sum().backward()
    rec.value("grad after second backward", x.grad)
    rec.value("old grad object unchanged", g1)


def grad_assign_tensor_then_accumulate(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    x.grad = torch.tensor([10.0, 20.0])
    rec.value("assigned grad", x.grad)
    x.sum().backward()
    rec.value("after backward", x.grad)


def grad_zero_inplace_keeps_object(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * 4).sum().backward()
    g = x.grad
    x.grad.zero_()
    rec.value("g after zero_", g)
    (x * 4).sum().backward()
    rec.value("g after second backward (same object accumulates)", g)
    rec.value("x.grad", x.grad)


def fan_out_a_plus_a(torch, rec):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a + a
    rec.value("b", b)
    rec.graph("graph(b)", b)
    b.sum().backward()
    rec.value("a.grad", a.grad)


def fan_out_tensor_used_twice(torch, rec):
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 2
    c = b * b + b
    rec.graph("graph(c)", c)
    c.sum().backward()
    rec.value("a.grad", a.grad)


def fan_out_a_times_a(torch, rec):
    a = torch.tensor(3.0, requires_grad=True)
    y = a * a
    y.backward()
    rec.value("a.grad", a.grad)
    rec.graph("graph(y)", y)


def diamond_graph_gradients(torch, rec):
    x = torch.tensor(2.0, requires_grad=True)
    a = x * 3
    b = x.exp()
    c = a * b
    c.backward()
    rec.value("x.grad", x.grad)
    rec.graph("graph(c)", c)


def backward_twice_without_retain_graph_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    rec.value("x.grad", x.grad)
    rec.raises("second backward", lambda: y.backward())
    rec.value("x.grad after failed", x.grad)


def backward_twice_with_retain_graph_accumulates(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    rec.value("x.grad", x.grad)


def backward_twice_on_graph_without_saved_tensors(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x + 1).sum()
    y.backward()
    rec.raises("second backward (nothing saved)", lambda: y.backward())
    rec.value("x.grad", x.grad)


def backward_on_tensor_without_grad_fn_raises(torch, rec):
    x = torch.tensor(1.0)
    rec.raises("x.backward()", lambda: x.backward())
    y = torch.tensor([1.0, 2.0]) * 2
    rec.raises("y.backward(gradient)", lambda: y.backward(torch.ones_like(y)))


def backward_on_leaf_requiring_grad(torch, rec):
    x = torch.tensor(3.0, requires_grad=True)
    x.backward()
    rec.value("x.grad", x.grad)
    v = torch.tensor([1.0, 2.0], requires_grad=True)
    v.backward(torch.tensor([5.0, 6.0]))
    rec.value("v.grad", v.grad)


def backward_gradient_shape_mismatch_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    rec.raises("wrong shape gradient", lambda: y.backward(torch.tensor([1.0, 1.0, 1.0])))


def backward_scalar_with_explicit_gradient(torch, rec):
    x = torch.tensor(2.0, requires_grad=True)
    y = x * x
    y.backward(torch.tensor(3.0))
    rec.value("x.grad", x.grad)


def requires_grad_on_int_tensor_raises(torch, rec):
    rec.raises("tensor([1, 2], requires_grad=True)", lambda: torch.tensor([1, 2], requires_grad=True))
    x = torch.tensor([1, 2])
    rec.raises("x.requires_grad_()", lambda: x.requires_grad_())
    rec.value("x.requires_grad", x.requires_grad)
    b = torch.tensor([True, False])
    rec.raises("bool.requires_grad_()", lambda: b.requires_grad_())
    rec.value("requires_grad_(False) on int ok", x.requires_grad_(False))


def requires_grad_setter_on_int_raises(torch, rec):
    x = torch.tensor([1, 2])

    def set_it():
        x.requires_grad = True

    rec.raises("x.requires_grad = True", set_it)


def requires_grad_setter_on_nonleaf_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2

    def unset():
        y.requires_grad = False

    rec.raises("y.requires_grad = False", unset)

    def set_true():
        y.requires_grad = True

    rec.raises("y.requires_grad = True", set_true)
    rec.value("y", y)


def requires_grad_underscore_returns_self_and_sets_flag(torch, rec):
    x = torch.tensor([1.0, 2.0])
    rec.value("before", x.requires_grad)
    y = x.requires_grad_()
    rec.value("returns self (requires_grad)", y.requires_grad)
    rec.value("x", x)
    rec.value("is_leaf", x.is_leaf)
    x.requires_grad_(False)
    rec.value("after requires_grad_(False)", x)
    x.requires_grad = True
    rec.value("after setter", x)


def is_leaf_for_various_tensors(torch, rec):
    a = torch.tensor([1.0])
    b = torch.tensor([1.0], requires_grad=True)
    c = b * 2
    d = a * 2
    e = c.detach()
    f = b.clone()
    rec.value("plain", a.is_leaf)
    rec.value("requires_grad leaf", b.is_leaf)
    rec.value("nonleaf", c.is_leaf)
    rec.value("result of no-grad inputs", d.is_leaf)
    rec.value("detached", e.is_leaf)
    rec.value("clone", f.is_leaf)
    rec.value("c", c)
    rec.value("d", d)
    rec.value("e", e)
    rec.value("f", f)


def inplace_on_leaf_requiring_grad_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    rec.raises("x.add_(1)", lambda: x.add_(1))
    rec.raises("x.mul_(2)", lambda: x.mul_(2))
    rec.raises("x.zero_()", lambda: x.zero_())
    rec.raises("x.fill_(3)", lambda: x.fill_(3.0))
    rec.raises("x.copy_(...)", lambda: x.copy_(torch.tensor([5.0, 6.0])))
    rec.raises("x.clamp_(0, 1)", lambda: x.clamp_(0, 1))
    rec.value("x unchanged", x)
    rec.value("x._version", x._version)


def inplace_augmented_on_leaf_requiring_grad_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)

    def sub():
        nonlocal x
        x -= 1

    def mul():
        nonlocal x
        x *= 2

    def div():
        nonlocal x
        x /= 2

    rec.raises("x -= 1", sub)
    rec.raises("x *= 2", mul)
    rec.raises("x /= 2", div)
    rec.value("x", x)


def inplace_on_leaf_under_no_grad_ok_and_bumps_version(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    rec.value("v0", x._version)
    with torch.no_grad():
        x.add_(1)
        rec.value("v1", x._version)
        x.mul_(2)
        x -= 1
        x /= 2
    rec.value("x", x)
    rec.value("v after", x._version)
    (x * x).sum().backward()
    rec.value("x.grad", x.grad)


def inplace_on_saved_tensor_then_backward_raises(torch, rec):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 2
    c = b * b
    b.add_(1)
    rec.value("b._version", b._version)
    rec.value("b", b)
    rec.raises("c.sum().backward()", lambda: c.sum().backward())


def inplace_on_saved_leaf_input_via_no_grad_then_backward_raises(torch, rec):
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (w * w).sum()
    with torch.no_grad():
        w.mul_(3)
    rec.raises("y.backward()", lambda: y.backward())


def inplace_exp_output_saved_then_modified_raises(torch, rec):
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    y = x.exp()
    y.mul_(2)
    rec.value("y", y)
    rec.raises("y.sum().backward()", lambda: y.sum().backward())


def inplace_on_nonleaf_nothing_saved_ok(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x + 1
    rec.value("y.grad_fn before", y.grad_fn.name())
    y.add_(10)
    rec.value("y after add_", y)
    rec.value("y._version", y._version)
    y.mul_(3)
    rec.value("y after mul_", y)
    rec.graph("graph(y)", y)
    y.sum().backward()
    rec.value("x.grad", x.grad)


def inplace_augmented_assignment_on_nonleaf(torch, rec):
    x = torch.tensor([2.0, 4.0], requires_grad=True)
    y = x + 0
    y += 1
    rec.value("after +=", y)
    y -= 2
    rec.value("after -=", y)
    y *= 3
    rec.value("after *=", y)
    y /= 4
    rec.value("after /=", y)
    rec.value("_version", y._version)
    rec.graph("graph(y)", y)
    y.sum().backward()
    rec.value("x.grad", x.grad)


def inplace_with_tensor_operand_on_nonleaf(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([3.0, 5.0], requires_grad=True)
    y = x + 0
    y.mul_(w)
    rec.value("y", y)
    y.sum().backward()
    rec.value("x.grad", x.grad)
    rec.value("w.grad", w.grad)


def inplace_ops_on_plain_tensor_version_counter(torch, rec):
    t = torch.tensor([1.0, 2.0, 3.0])
    rec.value("v0", t._version)
    t.add_(1)
    rec.value("after add_", t._version)
    t.sub_(1)
    t.mul_(2)
    t.div_(2)
    rec.value("after sub_ mul_ div_", t._version)
    t.clamp_(min=1.5)
    rec.value("after clamp_", t)
    t.fill_(7.0)
    rec.value("after fill_", t)
    t.zero_()
    rec.value("after zero_", t)
    t.copy_(torch.tensor([4.0, 5.0, 6.0]))
    rec.value("after copy_", t)
    rec.value("version end", t._version)
    t += 1
    t -= 1
    t *= 2
    t /= 2
    rec.value("version after augmented", t._version)
    rec.value("t", t)


def inplace_method_returns_self(torch, rec):
    t = torch.tensor([1.0, 2.0])
    r = t.add_(1)
    r.mul_(2)
    rec.value("t after chained on returned", t)
    rec.value("r", r)
    rec.value("t._version", t._version)


def inplace_copy_into_nonleaf_makes_copy_backward(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    src = torch.tensor([3.0, 4.0], requires_grad=True)
    y = x * 1
    y.copy_(src * 2)
    rec.value("y", y)
    y.sum().backward()
    rec.value("x.grad", x.grad)
    rec.value("src.grad", src.grad)


def inplace_clamp_on_nonleaf(torch, rec):
    x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    y = x * 1
    y.clamp_(0.0, 1.0)
    rec.value("y", y)
    y.sum().backward()
    rec.value("x.grad", x.grad)


def inplace_int_tensor_true_division_raises(torch, rec):
    t = torch.tensor([1, 2, 3])
    rec.raises("t.div_(2)", lambda: t.div_(2))

    def idiv():
        nonlocal t
        t /= 2

    rec.raises("t /= 2", idiv)
    t.mul_(2)
    rec.value("int mul_ ok", t)
    rec.raises("int mul_ by float", lambda: t.mul_(1.5))


def detach_stops_gradient_flow(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    d = y.detach()
    rec.value("d", d)
    z = (d * x).sum()
    z.backward()
    rec.value("x.grad", x.grad)
    rec.graph("graph(z)", z)


def detach_shares_version_counter_and_data(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    d = y.detach()
    rec.value("versions before", (y._version, d._version))
    d.add_(1)
    rec.value("versions after", (y._version, d._version))
    rec.value("y sees change", y)


def detach_modified_then_backward_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    d = y.detach()
    d.zero_()
    rec.value("y", y)
    rec.raises("y.sum().backward()", lambda: y.sum().backward())


def detach_inplace_detach_(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    r = y.detach_()
    rec.value("y after detach_", y)
    rec.value("returned", r)
    rec.value("y.is_leaf", y.is_leaf)


def clone_keeps_gradient_flow(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    c = x.clone()
    rec.value("c", c)
    (c * c).sum().backward()
    rec.value("x.grad", x.grad)
    rec.value("c._version", c._version)


def clone_does_not_share_version(torch, rec):
    x = torch.tensor([1.0, 2.0])
    c = x.clone()
    c.add_(1)
    rec.value("x", x)
    rec.value("c", c)
    rec.value("versions", (x._version, c._version))


def data_attribute_is_detached_and_separate_version(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    d = x.data
    rec.value("x.data", d)
    d.mul_(10)
    rec.value("x after data.mul_", x)
    rec.value("x._version", x._version)
    y = x * 2
    x.data.add_(1)
    y.sum().backward()
    rec.value("x.grad", x.grad)


def data_setter_replaces_values(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    x.data = torch.tensor([5.0, 6.0])
    rec.value("x", x)
    (x * x).sum().backward()
    rec.value("x.grad", x.grad)


def no_grad_results_have_no_grad_fn(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.no_grad():
        y = x * 2
        rec.value("is_grad_enabled inside", torch.is_grad_enabled())
    rec.value("y", y)
    rec.value("is_grad_enabled after", torch.is_grad_enabled())
    z = x * 2
    rec.value("z", z)


def no_grad_as_decorator(torch, rec):
    @torch.no_grad()
    def doubled(t):
        return t * 2

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = doubled(x)
    rec.value("y", y)
    rec.value("grad enabled after call", torch.is_grad_enabled())


def enable_grad_inside_no_grad(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.no_grad():
        with torch.enable_grad():
            y = x * 2
            rec.value("enabled in enable_grad", torch.is_grad_enabled())
        z = x * 2
        rec.value("enabled back in no_grad", torch.is_grad_enabled())
    rec.value("y", y)
    rec.value("z", z)
    y.sum().backward()
    rec.value("x.grad", x.grad)


def set_grad_enabled_function_and_context(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.set_grad_enabled(False):
        y = x * 2
        rec.value("inside False", torch.is_grad_enabled())
    rec.value("after ctx", torch.is_grad_enabled())
    with torch.set_grad_enabled(True):
        z = x * 2
    rec.value("y", y)
    rec.value("z", z)
    torch.set_grad_enabled(False)
    w = x * 3
    rec.value("after set_grad_enabled(False) call", torch.is_grad_enabled())
    torch.set_grad_enabled(True)
    rec.value("w", w)
    rec.value("restored", torch.is_grad_enabled())


def no_grad_inplace_on_nonleaf_then_backward(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x + 0
    with torch.no_grad():
        y.mul_(10)
    rec.value("y", y)
    y.sum().backward()
    rec.value("x.grad", x.grad)


def no_grad_creation_with_requires_grad_is_leaf(torch, rec):
    with torch.no_grad():
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
    rec.value("x", x)
    rec.value("y", y)


def autograd_grad_basic_returns_tuple(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x**3).sum()
    g = torch.autograd.grad(y, x)
    rec.value("grad tuple", g)
    rec.value("x.grad untouched", x.grad)


def autograd_grad_list_inputs_and_grad_outputs(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([3.0, 4.0], requires_grad=True)
    y = x * w
    gx, gw = torch.autograd.grad([y], [x, w], grad_outputs=[torch.tensor([1.0, 10.0])])
    rec.value("gx", gx)
    rec.value("gw", gw)


def autograd_grad_create_graph_second_derivative(torch, rec):
    x = torch.tensor(2.0, requires_grad=True)
    y = x**3
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    rec.value("dy/dx", g)
    (g2,) = torch.autograd.grad(g, x)
    rec.value("d2y/dx2", g2)


def autograd_grad_create_graph_then_backward(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x * x).sum()
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    rec.value("g", g)
    g.sum().backward()
    rec.value("x.grad", x.grad)


def autograd_grad_without_create_graph_has_no_grad_fn(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (g,) = torch.autograd.grad((x * x).sum(), x)
    rec.value("g", g)
    rec.raises("g.sum().backward()", lambda: g.sum().backward())


def autograd_grad_allow_unused(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    u = torch.tensor([3.0], requires_grad=True)
    y = (x * 2).sum()
    rec.raises("unused without allow_unused", lambda: torch.autograd.grad(y, [x, u], retain_graph=True))
    g = torch.autograd.grad(y, [x, u], allow_unused=True)
    rec.value("grads allow_unused", g)


def autograd_grad_twice_without_retain_graph_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    torch.autograd.grad(y, x)
    rec.raises("second autograd.grad", lambda: torch.autograd.grad(y, x))


def autograd_grad_retain_graph_allows_second_call(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    g1 = torch.autograd.grad(y, x, retain_graph=True)
    g2 = torch.autograd.grad(y, x)
    rec.value("g1", g1)
    rec.value("g2", g2)


def autograd_grad_nonscalar_without_grad_outputs_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    rec.raises("grad of vector", lambda: torch.autograd.grad(y, x))


def autograd_grad_input_not_requiring_grad_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    c = torch.tensor([1.0, 2.0])
    y = (x * c).sum()
    rec.raises("grad wrt constant", lambda: torch.autograd.grad(y, c))


def autograd_grad_wrt_intermediate(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    y = (h * h).sum()
    (gh,) = torch.autograd.grad(y, h)
    rec.value("dy/dh", gh)


def register_hook_reads_gradient(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(g.tolist()))
    (x * 3).sum().backward()
    rec.value("seen", seen)
    rec.value("x.grad", x.grad)


def register_hook_replaces_gradient(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: g * 10)
    (x * 3).sum().backward()
    rec.value("x.grad", x.grad)


def register_hook_on_intermediate_changes_upstream(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    seen = []

    def hook(g):
        seen.append(g.tolist())
        return g + 1

    y.register_hook(hook)
    (y * y).sum().backward()
    rec.value("seen", seen)
    rec.value("x.grad", x.grad)


def register_hook_returning_none_keeps_gradient(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    calls = []

    def hook(g):
        calls.append(1)

    x.register_hook(hook)
    x.register_hook(lambda g: g * 2)
    (x * x).sum().backward()
    rec.value("calls", len(calls))
    rec.value("x.grad", x.grad)


def register_hook_on_tensor_without_grad_raises(torch, rec):
    x = torch.tensor([1.0, 2.0])
    rec.raises("register_hook", lambda: x.register_hook(lambda g: g))


def backward_inputs_restricts_accumulation(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([3.0, 4.0], requires_grad=True)
    y = (x * w).sum()
    y.backward(inputs=[x])
    rec.value("x.grad", x.grad)
    rec.value("w.grad", w.grad)


def backward_inputs_single_tensor(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([3.0, 4.0], requires_grad=True)
    y = (x * w).sum()
    y.backward(inputs=w)
    rec.value("x.grad", x.grad)
    rec.value("w.grad", w.grad)


def backward_inputs_nonleaf_populates_grad(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2
    y = (h * h).sum()
    y.backward(inputs=[h])
    rec.value("h.grad", h.grad)
    rec.value("x.grad", x.grad)


def shape_mismatch_add_raises(torch, rec):
    a = torch.tensor([1.0, 2.0])
    b = torch.tensor([1.0, 2.0, 3.0])
    rec.raises("a + b", lambda: a + b)
    rec.raises("a * b", lambda: a * b)
    m = torch.ones(2, 3)
    rec.raises("m + ones(2)", lambda: m + torch.ones(2))
    rec.raises("torch.maximum", lambda: torch.maximum(a, b))


def matmul_shape_mismatch_raises(torch, rec):
    a = torch.ones(2, 3)
    b = torch.ones(2, 3)
    rec.raises("a @ b", lambda: a @ b)
    rec.raises("mm", lambda: torch.mm(a, b))
    rec.raises("1d @ 1d", lambda: torch.ones(2) @ torch.ones(3))
    rec.raises("2d @ 1d", lambda: a @ torch.ones(2))
    rec.raises("1d @ 2d", lambda: torch.ones(3) @ a)
    rec.raises("mm with 1d", lambda: torch.mm(a, torch.ones(3)))


def view_and_reshape_errors(torch, rec):
    x = torch.arange(6.0)
    rec.raises("reshape(4, 2)", lambda: x.reshape(4, 2))
    rec.raises("view(4)", lambda: x.view(4))
    m = torch.arange(6.0).reshape(2, 3).t()
    rec.raises("view on non-contiguous", lambda: m.view(6))
    rec.raises("reshape(-1, -1)", lambda: x.reshape(-1, -1))


def dim_out_of_range_errors(torch, rec):
    x = torch.ones(2, 3)
    rec.raises("sum(dim=2)", lambda: x.sum(dim=2))
    rec.raises("softmax(dim=-3)", lambda: torch.softmax(x, dim=-3))
    rec.raises("x[2]", lambda: x[2])
    rec.raises("cat different sizes", lambda: torch.cat([torch.ones(2, 3), torch.ones(2, 2)]))
    rec.raises("stack different shapes", lambda: torch.stack([torch.ones(2), torch.ones(3)]))


def item_on_multi_element_raises(torch, rec):
    x = torch.tensor([1.0, 2.0])
    rec.raises("x.item()", lambda: x.item())
    rec.value("single item", torch.tensor([3.5]).item())


def numpy_on_requires_grad_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    rec.raises("x.numpy()", lambda: x.numpy())
    rec.value("detach().numpy()", x.detach().numpy())
    rec.value("int numpy", torch.tensor([1, 2]).numpy())


def nan_inf_results_and_grads_no_warnings(torch, rec):
    z = torch.tensor([0.0, 1.0], requires_grad=True)
    d = z / z
    rec.value("0/0", d)
    d.sum().backward()
    rec.value("grad of x/x", z.grad)
    a = torch.tensor([0.0, 1.0], requires_grad=True)
    la = a.log()
    rec.value("log", la)
    la.sum().backward()
    rec.value("grad log", a.grad)
    s = torch.tensor([-1.0, 0.0, 4.0], requires_grad=True)
    ss = s.sqrt()
    rec.value("sqrt", ss)
    ss.sum().backward()
    rec.value("grad sqrt", s.grad)


def division_by_zero_values(torch, rec):
    x = torch.tensor([1.0, -1.0, 0.0], requires_grad=True)
    y = x / 0.0
    rec.value("x / 0.", y)
    y.sum().backward()
    rec.value("grad", x.grad)
    rec.value("int // style true div by zero", torch.tensor([1, 0]) / torch.tensor([0, 0]))


def nan_propagation_through_ops(torch, rec):
    n = torch.tensor([float("nan"), 1.0, float("inf"), float("-inf")], requires_grad=True)
    y = (n * 2).exp()
    rec.value("exp(2n)", y)
    y.sum().backward()
    rec.value("grad", n.grad)
    rec.value("relu", torch.relu(torch.tensor([float("nan"), -1.0])))
    rec.value("sum with nan", torch.tensor([float("nan"), 1.0]).sum())


def version_counter_out_of_place_unchanged(torch, rec):
    x = torch.tensor([1.0, 2.0])
    y = x + 1
    x * 2
    x.exp()
    rec.value("x._version", x._version)
    rec.value("y._version", y._version)


def version_counter_shared_with_views(torch, rec):
    x = torch.tensor([1.0, 2.0, 3.0, 4.0])
    v = x.view(2, 2)
    v.add_(1)
    rec.value("versions", (x._version, v._version))
    rec.value("x", x)
    s = x[1:]
    s.mul_(2)
    rec.value("x after slice mul_", x)
    rec.value("versions after", (x._version, s._version))


def view_of_leaf_inplace_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    v = x.view(2)
    rec.raises("v.add_(1)", lambda: v.add_(1))


def inplace_on_view_of_nonleaf_propagates(torch, rec):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    y[1:].mul_(10)
    rec.value("y", y)
    y.sum().backward()
    rec.value("x.grad", x.grad)


def grad_fn_next_functions_structure(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    c = torch.tensor([3.0, 4.0])
    y = (x * c + 1).sum()
    rec.graph("graph(y)", y)
    rec.value("y.grad_fn.name()", y.grad_fn.name())
    rec.value("len(next_functions)", len(y.grad_fn.next_functions))


def graph_of_mixed_requires_grad_inputs(torch, rec):
    a = torch.tensor(1.0, requires_grad=True)
    b = torch.tensor(2.0)
    y = b * a + a.exp() - b
    rec.graph("graph(y)", y)
    y.backward()
    rec.value("a.grad", a.grad)


def graph_of_leaf_is_empty(torch, rec):
    x = torch.tensor([1.0], requires_grad=True)
    rec.value("x.grad_fn", x.grad_fn)
    rec.graph("graph(x)", x)


def requires_grad_propagation_rules(torch, rec):
    a = torch.tensor([1.0], requires_grad=True)
    b = torch.tensor([2.0])
    rec.value("a+b", a + b)
    rec.value("b+b", b + b)
    rec.value("b*2", b * 2)
    rec.value("sum(a)", a.sum())


# ===========================================================================
# Group 3: ops — values, grad_fn names, input grads
# ===========================================================================


def op_add_shapes_and_broadcast(torch, rec):
    a = _leaf(torch, 2.0)
    b = _leaf(torch, 3.0)
    _fwd_bwd(torch, rec, "scalar+scalar", a + b, {"a": a, "b": b})
    v = _leaf(torch, [1.0, 2.0, 3.0])
    w = _leaf(torch, [4.0, 5.0, 6.0])
    _fwd_bwd(torch, rec, "vec+vec", v + w, {"v": v, "w": w})
    m = _leaf(torch, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    r = _leaf(torch, [10.0, 20.0, 30.0])
    _fwd_bwd(torch, rec, "mat+row", m + r, {"m": m, "r": r})
    m2 = _leaf(torch, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    col = _leaf(torch, [[1.0], [2.0]])
    _fwd_bwd(torch, rec, "mat+col", m2 + col, {"m": m2, "col": col})
    s = _leaf(torch, 5.0)
    v2 = _leaf(torch, [1.0, 2.0])
    _fwd_bwd(torch, rec, "0d+vec", s + v2, {"s": s, "v": v2})
    c1 = _leaf(torch, [[1.0], [2.0]])
    r1 = _leaf(torch, [10.0, 20.0, 30.0])
    _fwd_bwd(torch, rec, "col+row outer", c1 + r1, {"col": c1, "row": r1})


def op_add_python_scalar_and_radd(torch, rec):
    x = _leaf(torch, [1.0, 2.0])
    y = x + 1
    rec.graph("graph(x+1)", y)
    _fwd_bwd(torch, rec, "x+1", y, {"x": x})
    x2 = _leaf(torch, [1.0, 2.0])
    _fwd_bwd(torch, rec, "1.5+x", 1.5 + x2, {"x": x2})
    x3 = _leaf(torch, [1.0, 2.0])
    _fwd_bwd(torch, rec, "torch.add", torch.add(x3, x3), {"x": x3})


def op_sub_and_rsub(torch, rec):
    a = _leaf(torch, [5.0, 7.0])
    b = _leaf(torch, [1.0, 2.0])
    _fwd_bwd(torch, rec, "a-b", a - b, {"a": a, "b": b})
    x = _leaf(torch, [1.0, 2.0])
    _fwd_bwd(torch, rec, "x-1", x - 1, {"x": x})
    x2 = _leaf(torch, [1.0, 2.0])
    _fwd_bwd(torch, rec, "1-x", 1 - x2, {"x": x2})
    m = _leaf(torch, [[1.0, 2.0], [3.0, 4.0]])
    r = _leaf(torch, [1.0, 1.0])
    _fwd_bwd(torch, rec, "mat-row", m - r, {"m": m, "r": r})
    x3 = _leaf(torch, [1.0, 2.0])
    _fwd_bwd(torch, rec, "torch.sub", torch.sub(x3, 3.0), {"x": x3})


def op_mul_shapes_and_scalars(torch, rec):
    a = _leaf(torch, [1.0, 2.0, 3.0])
    b = _leaf(torch, [4.0, 5.0, 6.0])
    _fwd_bwd(torch, rec, "a*b", a * b, {"a": a, "b": b})
    x = _leaf(torch, [1.0, 2.0])
    _fwd_bwd(torch, rec, "2*x", 2 * x, {"x": x})
    x2 = _leaf(torch, [1.0, 2.0])
    _fwd_bwd(torch, rec, "x*0.5", x2 * 0.5, {"x": x2})
    m = _leaf(torch, [[1.0, 2.0], [3.0, 4.0]])
    c = _leaf(torch, [[2.0], [3.0]])
    _fwd_bwd(torch, rec, "mat*col", m * c, {"m": m, "c": c})
    s = _leaf(torch, 2.0)
    v = _leaf(torch, [1.0, 2.0, 3.0])
    _fwd_bwd(torch, rec, "0d*vec", torch.mul(s, v), {"s": s, "v": v})


def op_div_and_rdiv(torch, rec):
    a = _leaf(torch, [1.0, 4.0])
    b = _leaf(torch, [2.0, 8.0])
    _fwd_bwd(torch, rec, "a/b", a / b, {"a": a, "b": b})
    x = _leaf(torch, [1.0, 4.0])
    _fwd_bwd(torch, rec, "x/2", x / 2, {"x": x})
    x2 = _leaf(torch, [1.0, 4.0])
    _fwd_bwd(torch, rec, "2/x", 2 / x2, {"x": x2})
    m = _leaf(torch, [[1.0, 2.0], [3.0, 4.0]])
    r = _leaf(torch, [2.0, 4.0])
    _fwd_bwd(torch, rec, "mat/row", torch.div(m, r), {"m": m, "r": r})


def op_neg(torch, rec):
    x = _leaf(torch, [1.0, -2.0, 0.0])
    _fwd_bwd(torch, rec, "-x", -x, {"x": x})
    rec.value("neg int", -torch.tensor([1, -2]))
    rec.value("neg 0.0", -torch.tensor(0.0))


def op_pow_variants(torch, rec):
    x = _leaf(torch, [1.0, 2.0, 3.0])
    _fwd_bwd(torch, rec, "x**2", x**2, {"x": x})
    x2 = _leaf(torch, [1.0, 4.0, 9.0])
    _fwd_bwd(torch, rec, "x**0.5", x2**0.5, {"x": x2})
    x3 = _leaf(torch, [1.0, 2.0, 4.0])
    _fwd_bwd(torch, rec, "x**-1", x3**-1, {"x": x3})
    x4 = _leaf(torch, [1.0, 2.0, 3.0])
    _fwd_bwd(torch, rec, "x.pow(3)", x4.pow(3), {"x": x4})
    x5 = _leaf(torch, [1.0, 2.0, 3.0])
    _fwd_bwd(torch, rec, "torch.pow(x, 2)", torch.pow(x5, 2), {"x": x5})


def op_pow_tensor_exponent_and_rpow(torch, rec):
    b = _leaf(torch, [2.0, 3.0])
    e = _leaf(torch, [3.0, 2.0])
    _fwd_bwd(torch, rec, "b**e", b**e, {"b": b, "e": e})
    x = _leaf(torch, [0.0, 1.0, 2.0])
    _fwd_bwd(torch, rec, "2**x", 2**x, {"x": x})
    x2 = _leaf(torch, [1.0, 2.0])
    _fwd_bwd(torch, rec, "torch.pow(3.0, x)", torch.pow(3.0, x2), {"x": x2})


def op_pow_edge_cases(torch, rec):
    z = _leaf(torch, [0.0, 0.0, 2.0])
    _fwd_bwd(torch, rec, "x**0", z**0, {"x": z})
    z2 = _leaf(torch, [0.0, 1.0])
    _fwd_bwd(torch, rec, "0**0.5 grad", z2**0.5, {"x": z2})
    z3 = _leaf(torch, [0.0, 1.0])
    _fwd_bwd(torch, rec, "x**1", z3**1, {"x": z3})
    n = _leaf(torch, [-8.0, -2.0])
    _fwd_bwd(torch, rec, "neg**0.5", n**0.5, {"x": n})
    n2 = _leaf(torch, [-2.0, 3.0])
    _fwd_bwd(torch, rec, "neg**2", n2**2, {"x": n2})
    rec.value("int**2", torch.tensor([2, 3]) ** 2)
    rec.value("int**0.5", torch.tensor([4, 9]) ** 0.5)
    rec.value("2**int", 2 ** torch.tensor([1, 3]))
    rec.raises("int**-1", lambda: torch.tensor([2, 4]) ** -1)


def op_exp_log(torch, rec):
    x = _leaf(torch, [0.0, 1.0, -1.0])
    _fwd_bwd(torch, rec, "exp", torch.exp(x), {"x": x})
    x2 = _leaf(torch, [1.0, 2.0, 0.5])
    _fwd_bwd(torch, rec, "log", x2.log(), {"x": x2})
    rec.value("log of negative", torch.log(torch.tensor([-1.0])))
    rec.value("exp of int", torch.exp(torch.tensor([0, 1])))


def op_sqrt_abs(torch, rec):
    x = _leaf(torch, [1.0, 4.0, 0.25])
    _fwd_bwd(torch, rec, "sqrt", x.sqrt(), {"x": x})
    a = _leaf(torch, [-2.0, 0.0, 3.0])
    _fwd_bwd(torch, rec, "abs (at 0 too)", torch.abs(a), {"a": a})
    rec.value("abs int", torch.tensor([-3, 2]).abs())


def op_sin_cos_tanh(torch, rec):
    x = _leaf(torch, [0.0, 0.5, -1.0])
    _fwd_bwd(torch, rec, "sin", torch.sin(x), {"x": x})
    x2 = _leaf(torch, [0.0, 0.5, -1.0])
    _fwd_bwd(torch, rec, "cos", x2.cos(), {"x": x2})
    x3 = _leaf(torch, [0.0, 0.5, -1.0])
    _fwd_bwd(torch, rec, "tanh", x3.tanh(), {"x": x3})


def op_sinh_cosh(torch, rec):
    x = _leaf(torch, [0.0, 0.5, -1.0, 3.0])
    y = torch.sinh(x)
    rec.value("sinh grad_fn", y.grad_fn.name())
    _fwd_bwd(torch, rec, "sinh", y, {"x": x})
    x2 = _leaf(torch, [0.0, 0.5, -1.0, 3.0])
    y2 = x2.cosh()
    rec.value("cosh grad_fn", y2.grad_fn.name())
    _fwd_bwd(torch, rec, "cosh", y2, {"x": x2})
    x3 = _leaf(torch, [-100.0, 100.0], torch.float32)
    _fwd_bwd(torch, rec, "sinh cosh overflow", x3.sinh() * x3.cosh(), {"x": x3})
    x4 = _leaf(torch, [0.25, -2.0], torch.float64)
    (g,) = torch.autograd.grad(x4.sinh().sum(), x4, create_graph=True)
    g.sum().backward()
    rec.value("sinh second derivative", x4.grad)
    rec.value("sinh int", torch.sinh(torch.tensor([0, 1])))
    rec.value("cosh int", torch.tensor([0, -1]).cosh())


def op_sigmoid_relu(torch, rec):
    x = _leaf(torch, [-1.0, 0.0, 2.0])
    _fwd_bwd(torch, rec, "sigmoid", torch.sigmoid(x), {"x": x})
    x2 = _leaf(torch, [-1.0, 0.0, 2.0])
    _fwd_bwd(torch, rec, "relu (at 0 too)", x2.relu(), {"x": x2})
    rec.value("relu int", torch.relu(torch.tensor([-1, 2])))
    rec.value("sigmoid extremes", torch.sigmoid(torch.tensor([-100.0, 100.0])))


def op_clamp_variants(torch, rec):
    x = _leaf(torch, [-2.0, -1.0, 0.0, 1.0, 2.0])
    _fwd_bwd(torch, rec, "clamp(min=-1)", x.clamp(min=-1.0), {"x": x})
    x2 = _leaf(torch, [-2.0, -1.0, 0.0, 1.0, 2.0])
    _fwd_bwd(torch, rec, "clamp(max=1)", torch.clamp(x2, max=1.0), {"x": x2})
    x3 = _leaf(torch, [-2.0, -1.0, 0.0, 1.0, 2.0])
    _fwd_bwd(torch, rec, "clamp(-1, 1) incl bounds", x3.clamp(-1.0, 1.0), {"x": x3})
    rec.raises("clamp() no bounds", lambda: torch.clamp(torch.tensor([1.0])))
    rec.value("clamp int", torch.tensor([-5, 0, 5]).clamp(-1, 1))
    rec.value("clamp min>max", torch.tensor([0.0, 5.0]).clamp(min=3.0, max=1.0))


def op_hardtanh_bounds_and_hook(torch, rec):
    F = torch.nn.functional
    # unlike clamp, the gradient is 0 at the bounds; NaN lets it through
    x = _leaf(torch, [-2.0, -1.0, -0.5, 0.0, 1.0, 2.0, float("nan")])
    _fwd_bwd(torch, rec, "hardtanh", F.hardtanh(x), {"x": x})
    x2 = _leaf(torch, [-1.0, -0.5, 0.0, 0.5, 1.0])
    _fwd_bwd(torch, rec, "Hardtanh(-0.5, 0.5)", torch.nn.Hardtanh(-0.5, 0.5)(x2), {"x": x2})
    rec.value("repr", repr(torch.nn.Hardtanh(inplace=True)))
    rec.value("int", F.hardtanh(torch.tensor([3, -3]), -1.5, 1.5))
    rec.raises("min > max", lambda: F.hardtanh(x, 1.0, -1.0))
    rec.raises("bool", lambda: F.hardtanh(torch.tensor([True])))
    # as a hook it clips the gradient before it reaches .grad
    x3 = _leaf(torch, [0.25, 2.0, -3.0])
    x3.register_hook(F.hardtanh)
    (x3 * x3).sum().backward()
    rec.value("hook clipped grad", x3.grad)
    # hardtanh_ keeps a copy of its input for backward, not its result
    x4 = _leaf(torch, [-2.0, 0.5, 3.0])
    y = x4 * 1
    z = F.hardtanh(y, inplace=True)
    rec.value("hardtanh_", z)
    z.mul_(2)
    z.sum().backward()
    rec.value("hardtanh_ then mul_: x.grad", x4.grad)
    # double backward: HardtanhBackwardBackward0 sends zeros to x
    x5 = _leaf(torch, [-2.0, -1.0, 0.5, 1.0])
    w = _leaf(torch, [1.0, 2.0, 3.0, 4.0])
    (g,) = torch.autograd.grad(F.hardtanh(x5), x5, w, create_graph=True)
    rec.value("grad of hardtanh", g)
    g.sum().backward()
    rec.value("double backward x.grad", x5.grad)
    rec.value("double backward w.grad", w.grad)


def op_torch_gradient_numerical_derivative(torch, rec):
    # seed 000 says torch.gradient does not exist; it does (finite differences, differentiable)
    x = _leaf(torch, [1.0, 4.0, 9.0, 16.0])
    (g,) = torch.gradient(x)
    rec.value("gradient", g)
    rec.graph("graph", g)
    g.sum().backward()
    rec.value("x.grad", x.grad)
    m = torch.tensor([[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]])
    rec.value("both dims", torch.gradient(m))
    rec.value("dim=-1, spacing=3", torch.gradient(m, dim=-1, spacing=3))
    rec.value("spacing list", torch.gradient(m, spacing=[2.0, 0.5]))
    rec.value("int input", torch.gradient(torch.tensor([1, 4, 9, 16])))
    rec.value("0-dim", torch.gradient(torch.tensor(1.0)))
    rec.raises("edge_order=3", lambda: torch.gradient(x, edge_order=3))
    rec.raises("too short", lambda: torch.gradient(torch.tensor([1.0])))
    rec.raises("spacing length", lambda: torch.gradient(x, spacing=[1.0, 2.0]))


def op_relu_double_backward_sends_zeros_to_input(torch, rec):
    # ThresholdBackwardBackward0 has an edge to x whose gradient is zeros, not nothing
    x = _leaf(torch, [-2.0, 0.5])
    (g,) = torch.autograd.grad(torch.relu(x).sum(), x, create_graph=True)
    rec.value("grad of relu", g)
    g.sum().backward()
    rec.value("x.grad", x.grad)


def op_sum_variants(torch, rec):
    m = _leaf(torch, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    _fwd_bwd(torch, rec, "sum()", m.sum(), {"m": m})
    m2 = _leaf(torch, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    _fwd_bwd(torch, rec, "sum(0)", torch.sum(m2, 0), {"m": m2})
    m3 = _leaf(torch, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    _fwd_bwd(torch, rec, "sum(dim=1, keepdim)", m3.sum(dim=1, keepdim=True), {"m": m3})
    m4 = _leaf(torch, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    _fwd_bwd(torch, rec, "sum(-1)", m4.sum(-1), {"m": m4}, grad=torch.tensor([1.0, 2.0]))
    rec.value("int sum", torch.tensor([1, 2, 3]).sum())
    rec.value("bool sum", torch.tensor([True, False, True]).sum())
    rec.value("0d sum", torch.tensor(4.0).sum())
    rec.value("empty sum", torch.tensor([]).sum())


def op_mean_variants(torch, rec):
    m = _leaf(torch, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    _fwd_bwd(torch, rec, "mean()", m.mean(), {"m": m})
    m2 = _leaf(torch, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    _fwd_bwd(torch, rec, "mean(0)", torch.mean(m2, 0), {"m": m2})
    m3 = _leaf(torch, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    _fwd_bwd(torch, rec, "mean(-1, keepdim)", m3.mean(dim=-1, keepdim=True), {"m": m3})
    rec.raises("int mean", lambda: torch.tensor([1, 2]).mean())
    rec.value("empty mean", torch.tensor([]).mean())


def op_amax_amin_variants(torch, rec):
    m = _leaf(torch, [[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    _fwd_bwd(torch, rec, "amax()", m.amax(), {"m": m})
    m2 = _leaf(torch, [[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    _fwd_bwd(torch, rec, "amax(0)", torch.amax(m2, 0), {"m": m2})
    m3 = _leaf(torch, [[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    _fwd_bwd(torch, rec, "amin(-1, keepdim)", m3.amin(dim=-1, keepdim=True), {"m": m3})
    m4 = _leaf(torch, [[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    _fwd_bwd(torch, rec, "amin()", torch.amin(m4), {"m": m4})


def op_amax_ties_split_gradient(torch, rec):
    x = _leaf(torch, [3.0, 1.0, 3.0, 3.0])
    _fwd_bwd(torch, rec, "amax ties", x.amax(), {"x": x})
    m = _leaf(torch, [[2.0, 2.0], [1.0, 5.0]])
    _fwd_bwd(torch, rec, "amax(1) ties", m.amax(dim=1), {"m": m})
    y = _leaf(torch, [1.0, 1.0, 2.0])
    _fwd_bwd(torch, rec, "amin ties", y.amin(), {"y": y})


def op_max_min_full(torch, rec):
    x = _leaf(torch, [1.0, 5.0, 3.0])
    _fwd_bwd(torch, rec, "max()", x.max(), {"x": x})
    x2 = _leaf(torch, [1.0, 5.0, 3.0])
    _fwd_bwd(torch, rec, "min()", torch.min(x2), {"x": x2})
    m = _leaf(torch, [[1.0, 7.0], [4.0, 2.0]])
    _fwd_bwd(torch, rec, "max() matrix", torch.max(m), {"m": m})
    rec.value("int max", torch.tensor([3, 9, 2]).max())
    rec.raises("empty max", lambda: torch.tensor([]).max())


def op_max_full_ties_distribute_evenly(torch, rec):
    x = _leaf(torch, [2.0, 5.0, 5.0, 1.0])
    _fwd_bwd(torch, rec, "max() ties", x.max(), {"x": x})
    y = _leaf(torch, [0.0, 0.0, 0.0])
    _fwd_bwd(torch, rec, "min() all equal", y.min(), {"y": y})


def op_max_min_with_dim_values_and_indices(torch, rec):
    m = _leaf(torch, [[1.0, 7.0, 3.0], [4.0, 2.0, 6.0]])
    res = torch.max(m, 1)
    rec.value("max(m, 1)", res)
    values, indices = res
    rec.value("values", values)
    rec.value("indices", indices)
    values.sum().backward()
    rec.value("m.grad", m.grad)
    m2 = _leaf(torch, [[1.0, 7.0, 3.0], [4.0, 2.0, 6.0]])
    v2, i2 = m2.min(dim=0)
    rec.value("min(dim=0) values", v2)
    rec.value("min(dim=0) indices", i2)
    v2.sum().backward()
    rec.value("m2.grad", m2.grad)
    m3 = _leaf(torch, [[1.0, 7.0, 3.0], [4.0, 2.0, 6.0]])
    v3, i3 = m3.max(dim=-1, keepdim=True)
    rec.value("max(-1, keepdim) values", v3)
    rec.value("max(-1, keepdim) indices", i3)
    v3.sum().backward()
    rec.value("m3.grad", m3.grad)


def op_max_with_dim_ties_picks_one_index(torch, rec):
    m = _leaf(torch, [[3.0, 3.0, 1.0], [2.0, 5.0, 5.0]])
    v, i = m.max(dim=1)
    rec.value("values", v)
    rec.value("indices", i)
    v.sum().backward()
    rec.value("m.grad", m.grad)
    m2 = _leaf(torch, [[3.0, 3.0, 1.0], [1.0, 1.0, 1.0]])
    v2, i2 = torch.min(m2, 1)
    rec.value("min values", v2)
    rec.value("min indices", i2)
    v2.sum().backward()
    rec.value("m2.grad", m2.grad)


def op_maximum_minimum_with_ties(torch, rec):
    a = _leaf(torch, [1.0, 5.0, 3.0])
    b = _leaf(torch, [2.0, 4.0, 3.0])
    _fwd_bwd(torch, rec, "maximum", torch.maximum(a, b), {"a": a, "b": b})
    c = _leaf(torch, [1.0, 5.0, 3.0])
    d = _leaf(torch, [2.0, 4.0, 3.0])
    _fwd_bwd(torch, rec, "minimum", torch.minimum(c, d), {"c": c, "d": d})
    m = _leaf(torch, [[1.0, 2.0], [3.0, 4.0]])
    r = _leaf(torch, [2.0, 2.0])
    _fwd_bwd(torch, rec, "maximum broadcast", torch.maximum(m, r), {"m": m, "r": r})
    rec.value("maximum int/float", torch.maximum(torch.tensor([1, 4]), torch.tensor([2.5, 3.0])))


def op_matmul_1d_1d(torch, rec):
    a = _leaf(torch, [1.0, 2.0, 3.0])
    b = _leaf(torch, [4.0, 5.0, 6.0])
    y = a @ b
    rec.graph("graph", y)
    _fwd_bwd(torch, rec, "1d@1d", y, {"a": a, "b": b})


def op_matmul_2d_1d(torch, rec):
    m = _leaf(torch, [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    v = _leaf(torch, [1.0, -1.0])
    y = torch.matmul(m, v)
    rec.graph("graph", y)
    _fwd_bwd(torch, rec, "2d@1d", y, {"m": m, "v": v})


def op_matmul_1d_2d(torch, rec):
    v = _leaf(torch, [1.0, -1.0, 2.0])
    m = _leaf(torch, [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    y = v @ m
    rec.graph("graph", y)
    _fwd_bwd(torch, rec, "1d@2d", y, {"v": v, "m": m})


def op_matmul_2d_2d_and_mm(torch, rec):
    a = _leaf(torch, [[1.0, 2.0], [3.0, 4.0]])
    b = _leaf(torch, [[5.0, 6.0, 7.0], [8.0, 9.0, 10.0]])
    y = a @ b
    rec.graph("graph @", y)
    _fwd_bwd(torch, rec, "2d@2d", y, {"a": a, "b": b})
    c = _leaf(torch, [[1.0, 2.0], [3.0, 4.0]])
    d = _leaf(torch, [[1.0, 0.0], [1.0, 1.0]])
    z = torch.mm(c, d)
    rec.graph("graph mm", z)
    _fwd_bwd(torch, rec, "mm", z, {"c": c, "d": d})
    e = _leaf(torch, [[1.0, 2.0], [3.0, 4.0]])
    _fwd_bwd(torch, rec, "method matmul", e.matmul(e), {"e": e})


def op_matmul_batched_3d_2d(torch, rec):
    a = _leaf(torch, [[[1.0, 2.0], [3.0, 4.0]], [[0.0, 1.0], [1.0, 0.0]]])
    b = _leaf(torch, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    y = a @ b
    rec.graph("graph", y)
    _fwd_bwd(torch, rec, "3d@2d", y, {"a": a, "b": b})


def op_matmul_int_and_mixed_dtype(torch, rec):
    a = torch.tensor([[1, 2], [3, 4]])
    rec.value("int @ int", a @ a)
    rec.raises("int @ float", lambda: a @ torch.tensor([[1.0, 0.0], [0.0, 1.0]]))
    rec.value("0 result 1d@1d int", torch.tensor([1, 2]) @ torch.tensor([3, 4]))


def op_transpose_t_and_T(torch, rec):
    m = _leaf(torch, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    _fwd_bwd(torch, rec, "m.t()", m.t(), {"m": m}, grad=torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
    m2 = _leaf(torch, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    _fwd_bwd(torch, rec, "m.T", m2.T, {"m": m2}, grad=torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
    m3 = _leaf(torch, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    _fwd_bwd(torch, rec, "transpose(0,1)", m3.transpose(0, 1), {"m": m3}, grad=torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
    m4 = _leaf(torch, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    _fwd_bwd(torch, rec, "torch.transpose(-1,-2)", torch.transpose(m4, -1, -2), {"m": m4})
    v = _leaf(torch, [1.0, 2.0])
    _fwd_bwd(torch, rec, "1d.t()", v.t(), {"v": v})


def op_reshape_and_view(torch, rec):
    x = _leaf(torch, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    _fwd_bwd(torch, rec, "reshape(2,3)", x.reshape(2, 3), {"x": x}, grad=torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    x2 = _leaf(torch, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    _fwd_bwd(torch, rec, "view(3,-1)", x2.view(3, -1), {"x": x2})
    x3 = _leaf(torch, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    _fwd_bwd(torch, rec, "reshape((-1,))", torch.reshape(x3, (-1,)), {"x": x3})
    x4 = _leaf(torch, [[1.0, 2.0], [3.0, 4.0]])
    _fwd_bwd(torch, rec, "view(4) tuple-less", x4.view(4), {"x": x4})
    x5 = _leaf(torch, [[1.0, 2.0], [3.0, 4.0]])
    _fwd_bwd(torch, rec, "reshape same shape", x5.reshape(2, 2), {"x": x5})


def op_reshape_non_contiguous(torch, rec):
    m = _leaf(torch, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    y = m.t().reshape(6)
    rec.graph("graph t().reshape(6)", y)
    _fwd_bwd(torch, rec, "t().reshape(6)", y, {"m": m}, grad=torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]))
    m2 = _leaf(torch, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    z = m2.T.reshape(3, 2)
    rec.graph("graph T.reshape(3,2) (no copy needed)", z)
    m3 = _leaf(torch, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    f = m3.t().flatten()
    rec.graph("graph t().flatten()", f)
    m4 = _leaf(torch, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    s = m4[:, 1:].reshape(4)
    rec.graph("graph slice.reshape(4)", s)


def op_squeeze_unsqueeze(torch, rec):
    x = _leaf(torch, [[1.0, 2.0, 3.0]])
    _fwd_bwd(torch, rec, "squeeze()", x.squeeze(), {"x": x})
    x2 = _leaf(torch, [[1.0], [2.0]])
    _fwd_bwd(torch, rec, "squeeze(1)", x2.squeeze(1), {"x": x2})
    x3 = _leaf(torch, [[1.0, 2.0]])
    _fwd_bwd(torch, rec, "squeeze(1) no-op", x3.squeeze(1), {"x": x3})
    v = _leaf(torch, [1.0, 2.0])
    _fwd_bwd(torch, rec, "unsqueeze(0)", v.unsqueeze(0), {"v": v})
    v2 = _leaf(torch, [1.0, 2.0])
    _fwd_bwd(torch, rec, "unsqueeze(-1)", torch.unsqueeze(v2, -1), {"v": v2})
    s = _leaf(torch, 3.0)
    _fwd_bwd(torch, rec, "0d unsqueeze(0)", s.unsqueeze(0), {"s": s})
    rec.value("squeeze(-1) shape", torch.zeros(2, 1).squeeze(-1).shape)
    rec.value("squeeze() all ones", torch.zeros(1, 1).squeeze())


def op_expand(torch, rec):
    v = _leaf(torch, [[1.0], [2.0]])
    _fwd_bwd(torch, rec, "expand(2,3)", v.expand(2, 3), {"v": v})
    r = _leaf(torch, [1.0, 2.0])
    _fwd_bwd(torch, rec, "expand(3,-1)", r.expand(3, -1), {"r": r})
    s = _leaf(torch, 2.0)
    _fwd_bwd(torch, rec, "0d expand(3)", s.expand(3), {"s": s})
    rec.raises("expand bad", lambda: torch.ones(2).expand(3))


def op_flatten(torch, rec):
    x = _leaf(torch, [[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]])
    _fwd_bwd(torch, rec, "flatten()", x.flatten(), {"x": x})
    x2 = _leaf(torch, [[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]])
    _fwd_bwd(torch, rec, "flatten(1)", torch.flatten(x2, 1), {"x": x2})
    s = _leaf(torch, 5.0)
    _fwd_bwd(torch, rec, "0d flatten", s.flatten(), {"s": s})
    v = _leaf(torch, [1.0, 2.0])
    _fwd_bwd(torch, rec, "1d flatten", v.flatten(), {"v": v})


def op_indexing_basic(torch, rec):
    m = _leaf(torch, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    _fwd_bwd(torch, rec, "m[0]", m[0], {"m": m})
    m2 = _leaf(torch, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    _fwd_bwd(torch, rec, "m[-1]", m2[-1], {"m": m2})
    m3 = _leaf(torch, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    _fwd_bwd(torch, rec, "m[:, 1:]", m3[:, 1:], {"m": m3})
    m4 = _leaf(torch, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    _fwd_bwd(torch, rec, "m[0, 1:]", m4[0, 1:], {"m": m4})
    m5 = _leaf(torch, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    _fwd_bwd(torch, rec, "m[..., 0]", m5[..., 0], {"m": m5})
    m6 = _leaf(torch, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    _fwd_bwd(torch, rec, "m[1, 2]", m6[1, 2], {"m": m6})


def op_indexing_graph_chains(torch, rec):
    m = _leaf(torch, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    rec.graph("m[0, 1:]", m[0, 1:])
    rec.graph("m[:, 1:]", m[:, 1:])
    rec.graph("m[1:, :2]", m[1:, :2])
    rec.graph("m[0][1]", m[0][1])
    rec.graph("m[:]", m[:])
    rec.graph("m[..., 0]", m[..., 0])
    rec.graph("m[:, ::2]", m[:, ::2])
    v = _leaf(torch, [1.0, 2.0, 3.0, 4.0])
    rec.graph("v[1:3]", v[1:3])
    rec.graph("v[-1]", v[-1])


def op_slicing_values_and_grads(torch, rec):
    v = _leaf(torch, [1.0, 2.0, 3.0, 4.0, 5.0])
    _fwd_bwd(torch, rec, "v[1:4]", v[1:4], {"v": v})
    v2 = _leaf(torch, [1.0, 2.0, 3.0, 4.0, 5.0])
    _fwd_bwd(torch, rec, "v[::2]", v2[::2], {"v": v2})
    v3 = _leaf(torch, [1.0, 2.0, 3.0, 4.0, 5.0])
    _fwd_bwd(torch, rec, "v[-2:]", v3[-2:], {"v": v3})
    v4 = _leaf(torch, [1.0, 2.0, 3.0])
    _fwd_bwd(torch, rec, "v[5:] empty", v4[5:], {"v": v4})
    v5 = _leaf(torch, [1.0, 2.0, 3.0])
    a = v5[0]
    b = v5[2]
    _fwd_bwd(torch, rec, "v[0]*v[2]", a * b, {"v": v5})


def op_indexing_out_of_range_raises(torch, rec):
    v = torch.tensor([1.0, 2.0])
    rec.raises("v[2]", lambda: v[2])
    rec.raises("v[-3]", lambda: v[-3])
    m = torch.ones(2, 2)
    rec.raises("m[0, 5]", lambda: m[0, 5])
    rec.raises("too many indices", lambda: v[0, 0])
    rec.raises("0d index", lambda: torch.tensor(1.0)[0])


def op_cat(torch, rec):
    a = _leaf(torch, [1.0, 2.0])
    b = _leaf(torch, [3.0])
    _fwd_bwd(torch, rec, "cat 1d", torch.cat([a, b]), {"a": a, "b": b}, grad=torch.tensor([1.0, 2.0, 3.0]))
    c = _leaf(torch, [[1.0, 2.0]])
    d = _leaf(torch, [[3.0, 4.0], [5.0, 6.0]])
    _fwd_bwd(torch, rec, "cat dim0", torch.cat((c, d), dim=0), {"c": c, "d": d}, grad=torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
    e = _leaf(torch, [[1.0], [2.0]])
    f = _leaf(torch, [[3.0, 4.0], [5.0, 6.0]])
    _fwd_bwd(torch, rec, "cat dim=-1", torch.cat([e, f], dim=-1), {"e": e, "f": f}, grad=torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    g = _leaf(torch, [1.0])
    h = torch.tensor([7.0, 8.0])
    _fwd_bwd(torch, rec, "cat with constant", torch.cat([g, h]), {"g": g})
    rec.value("cat int+float", torch.cat([torch.tensor([1]), torch.tensor([2.5])]))


def op_stack(torch, rec):
    a = _leaf(torch, [1.0, 2.0])
    b = _leaf(torch, [3.0, 4.0])
    _fwd_bwd(torch, rec, "stack", torch.stack([a, b]), {"a": a, "b": b}, grad=torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    c = _leaf(torch, [1.0, 2.0])
    d = _leaf(torch, [3.0, 4.0])
    _fwd_bwd(torch, rec, "stack dim=1", torch.stack((c, d), dim=1), {"c": c, "d": d}, grad=torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    e = _leaf(torch, 1.0)
    f = _leaf(torch, 2.0)
    _fwd_bwd(torch, rec, "stack 0d", torch.stack([e, f]), {"e": e, "f": f})
    g = _leaf(torch, [1.0, 2.0])
    _fwd_bwd(torch, rec, "stack dim=-1", torch.stack([g, g], dim=-1), {"g": g})


def op_where(torch, rec):
    cond = torch.tensor([True, False, True])
    a = _leaf(torch, [1.0, 2.0, 3.0])
    b = _leaf(torch, [10.0, 20.0, 30.0])
    _fwd_bwd(torch, rec, "where", torch.where(cond, a, b), {"a": a, "b": b})
    c = _leaf(torch, [1.0, 2.0, 3.0])
    _fwd_bwd(torch, rec, "where scalar other", torch.where(cond, c, 0.0), {"c": c})
    m = _leaf(torch, [[1.0, 2.0], [3.0, 4.0]])
    r = _leaf(torch, [0.0, 0.0])
    cond2 = torch.tensor([[True, False], [False, True]])
    _fwd_bwd(torch, rec, "where broadcast", torch.where(cond2, m, r), {"m": m, "r": r})


def op_softmax_log_softmax(torch, rec):
    x = _leaf(torch, [1.0, 2.0, 3.0])
    _fwd_bwd(torch, rec, "softmax(0)", torch.softmax(x, dim=0), {"x": x}, grad=torch.tensor([1.0, 0.0, 0.0]))
    m = _leaf(torch, [[1.0, 2.0], [3.0, 5.0]])
    _fwd_bwd(torch, rec, "softmax(dim=1)", m.softmax(dim=1), {"m": m}, grad=torch.tensor([[1.0, 0.0], [0.0, 2.0]]))
    m2 = _leaf(torch, [[1.0, 2.0], [3.0, 5.0]])
    _fwd_bwd(torch, rec, "softmax(-2)", torch.softmax(m2, -2), {"m": m2}, grad=torch.tensor([[1.0, 0.0], [0.0, 2.0]]))
    y = _leaf(torch, [1.0, 2.0, 3.0])
    _fwd_bwd(torch, rec, "log_softmax(0)", torch.log_softmax(y, dim=0), {"y": y})
    m3 = _leaf(torch, [[1.0, 2.0], [3.0, 5.0]])
    _fwd_bwd(torch, rec, "log_softmax(1) method", m3.log_softmax(1), {"m": m3})
    rec.value("softmax large stable", torch.softmax(torch.tensor([1000.0, 1000.0]), 0))
    rec.value("log_softmax large stable", torch.log_softmax(torch.tensor([1000.0, 0.0]), 0))


def op_chain_mlp_like(torch, rec):
    x = torch.tensor([[1.0, -2.0], [0.5, 3.0]])
    w = _leaf(torch, [[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]])
    b = _leaf(torch, [0.01, -0.02, 0.03])
    h = (x @ w + b).relu()
    out = h.sum(dim=1).mean()
    rec.graph("graph", out)
    out.backward()
    rec.value("out", out)
    rec.value("w.grad", w.grad)
    rec.value("b.grad", b.grad)


def op_methods_and_functions_agree(torch, rec):
    x = torch.tensor([0.5, 1.5])
    rec.value("exp", (torch.exp(x), x.exp()))
    rec.value("log", (torch.log(x), x.log()))
    rec.value("tanh", (torch.tanh(x), x.tanh()))
    rec.value("sigmoid", (torch.sigmoid(x), x.sigmoid()))
    rec.value("abs", (torch.abs(-x), (-x).abs()))
    rec.value("sum", (torch.sum(x), x.sum()))
    rec.value("mean", (torch.mean(x), x.mean()))
    rec.value("clamp", (torch.clamp(x, 1.0), x.clamp(1.0)))
    rec.value("pow", (torch.pow(x, 2), x.pow(2)))


# ---------------------------------------------------------------------------
# creation functions and dtypes
# ---------------------------------------------------------------------------


def creation_zeros_ones(torch, rec):
    rec.value("zeros(2,3)", torch.zeros(2, 3))
    rec.value("zeros((2,))", torch.zeros((2,)))
    rec.value("zeros([1,2])", torch.zeros([1, 2]))
    rec.value("ones(3)", torch.ones(3))
    rec.value("ones int64", torch.ones(2, dtype=torch.int64))
    rec.value("zeros float64", torch.zeros(2, dtype=torch.float64))
    rec.value("zeros bool", torch.zeros(2, dtype=torch.bool))
    rec.value("zeros() 0d", torch.zeros(()))
    rec.value("zeros(0)", torch.zeros(0))


def creation_like_functions(torch, rec):
    i = torch.tensor([[1, 2], [3, 4]])
    f = torch.tensor([1.0, 2.0], requires_grad=True)
    rec.value("zeros_like int", torch.zeros_like(i))
    rec.value("ones_like float requires_grad src", torch.ones_like(f))
    rec.value("ones_like dtype", torch.ones_like(i, dtype=torch.float64))
    rec.value("zeros_like 0d", torch.zeros_like(torch.tensor(3.0)))


def creation_full(torch, rec):
    rec.value("full float", torch.full((2, 2), 7.0))
    rec.value("full int", torch.full((3,), 7))
    rec.value("full bool", torch.full((2,), True))
    rec.value("full dtype", torch.full((2,), 1, dtype=torch.float32))
    rec.value("full list size", torch.full([1, 2], -0.5))


def creation_arange(torch, rec):
    rec.value("arange(5)", torch.arange(5))
    rec.value("arange(1, 4)", torch.arange(1, 4))
    rec.value("arange(0, 1, 0.25)", torch.arange(0, 1, 0.25))
    rec.value("arange(5.)", torch.arange(5.0))
    rec.value("arange dtype", torch.arange(3, dtype=torch.float32))
    rec.value("arange negative step", torch.arange(5, 0, -2))
    rec.value("arange empty", torch.arange(0))
    rec.value("arange float64", torch.arange(0.0, 1.0, 0.5, dtype=torch.float64))


def creation_linspace_eye(torch, rec):
    rec.value("linspace(0,1,5)", torch.linspace(0, 1, 5))
    rec.value("linspace(-1,1,3)", torch.linspace(-1.0, 1.0, 3))
    rec.value("linspace 1 step", torch.linspace(2, 3, 1))
    rec.value("linspace float64", torch.linspace(0, 1, 3, dtype=torch.float64))
    rec.value("eye(3)", torch.eye(3))
    rec.value("eye(2,3)", torch.eye(2, 3))
    rec.value("eye int", torch.eye(2, dtype=torch.int64))


def creation_tensor_dtype_inference(torch, rec):
    rec.value("ints", torch.tensor([1, 2, 3]))
    rec.value("floats", torch.tensor([1.0, 2.0]))
    rec.value("mixed int float", torch.tensor([1, 2.5]))
    rec.value("bools", torch.tensor([True, False]))
    rec.value("bool and int", torch.tensor([True, 2]))
    rec.value("0d int", torch.tensor(3))
    rec.value("0d float", torch.tensor(3.5))
    rec.value("0d bool", torch.tensor(False))
    rec.value("nested", torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    rec.value("empty", torch.tensor([]))
    rec.value("dtype float64", torch.tensor([1, 2], dtype=torch.float64))
    rec.value("dtype int64 from floats", torch.tensor([1.7, -1.7], dtype=torch.int64))
    rec.value("dtype bool from numbers", torch.tensor([0.0, 2.0], dtype=torch.bool))
    rec.raises("ragged", lambda: torch.tensor([[1.0, 2.0], [3.0]]))


def creation_tensor_from_tensor_and_copy(torch, rec):
    src = torch.tensor([1.0, 2.0])
    t = torch.tensor([src[0].item(), src[1].item()])
    t.add_(1)
    rec.value("src unchanged", src)
    rec.value("t", t)


def creation_rand_randn_shapes_only(torch, rec):
    r = torch.rand(2, 3)
    n = torch.randn(4)
    rec.value("rand shape", r.shape)
    rec.value("rand dtype", r.dtype)
    rec.value("randn shape", n.shape)
    rec.value("randn dtype", n.dtype)
    rec.value("rand requires_grad", r.requires_grad)
    rec.value("randn tuple shape", torch.randn((2, 2)).shape)


def dtype_conversions(torch, rec):
    x = torch.tensor([1.7, -1.7, 0.0])
    rec.value(".double()", x.double())
    rec.value(".to(int64)", x.to(torch.int64))
    rec.value(".to(bool)", x.to(torch.bool))
    i = torch.tensor([1, 0, 3])
    rec.value("int .float()", i.float())
    rec.value("int .to(float64)", i.to(torch.float64))
    rec.value("bool .float()", torch.tensor([True, False]).float())
    rec.value("to same dtype", x.to(torch.float32))
    d = torch.tensor([1.0], dtype=torch.float64)
    rec.value("double .float()", d.float())


def dtype_conversion_keeps_grad_flow(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    d = x.double()
    rec.value("d", d)
    (d * d).sum().backward()
    rec.value("x.grad", x.grad)
    y = torch.tensor([1.0, 2.0], requires_grad=True)
    s = y.to(torch.float32)
    rec.value("to same dtype is self (is_leaf)", s.is_leaf)
    z = torch.tensor([1.5], requires_grad=True)
    zi = z.to(torch.int64)
    rec.value("to int64 drops grad", zi)
    f = torch.tensor([1.0], dtype=torch.float64, requires_grad=True)
    ff = f.float()
    ff.sum().backward()
    rec.value("f.grad", f.grad)
    rec.value("ff", ff)


def dtype_objects_and_attributes(torch, rec):
    rec.value("float32", torch.float32)
    rec.value("float64", torch.float64)
    rec.value("int64", torch.int64)
    rec.value("bool", torch.bool)
    rec.printed("str float32", torch.float32)
    rec.value("default dtype", torch.tensor(1.0).dtype)
    rec.value("int dtype", torch.tensor(1).dtype)
    rec.value("eq", torch.tensor(1.0).dtype == torch.float32)


def type_promotion_rules(torch, rec):
    i = torch.tensor([1, 2, 3])
    f = torch.tensor([1.0, 2.0, 3.0])
    d = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    b = torch.tensor([True, False, True])
    rec.value("int * 2.5", i * 2.5)
    rec.value("int * 2", i * 2)
    rec.value("int / int", i / torch.tensor([2, 2, 2]))
    rec.value("int / 2", i / 2)
    rec.value("float32 + float64", f + d)
    rec.value("0d float64 + 1d float32", torch.tensor(1.0, dtype=torch.float64) + f)
    rec.value("0d float32 + 1d int", torch.tensor(1.5) + i)
    rec.value("0d float64 + 1d int", torch.tensor(1.5, dtype=torch.float64) + i)
    rec.value("0d int + 1d float32", torch.tensor(2) + f)
    rec.value("int + float32", i + f)
    rec.value("bool + bool", b + b)
    rec.value("bool * int", b * i)
    rec.value("bool + 1.5", b + 1.5)
    rec.value("bool + True", b + True)
    rec.value("float64 * 2.5", d * 2.5)
    rec.value("int + True", i + True)
    rec.value("int - bool", i - torch.tensor([1, 1, 1]))


def type_promotion_with_grad(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    d = torch.tensor([3.0, 4.0], dtype=torch.float64, requires_grad=True)
    y = x * d
    rec.value("y", y)
    y.sum().backward()
    rec.value("x.grad (float32)", x.grad)
    rec.value("d.grad (float64)", d.grad)
    i = torch.tensor([1, 2])
    z = x * i
    rec.value("x * int", z)


def bool_sub_and_neg_raise(torch, rec):
    b = torch.tensor([True, False])
    rec.raises("bool - bool", lambda: b - b)
    rec.raises("-bool", lambda: -b)


def item_and_tolist(torch, rec):
    rec.value("float item", torch.tensor(2.5).item())
    rec.value("int item", torch.tensor(7).item())
    rec.value("bool item", torch.tensor(True).item())
    rec.value("float32 item precision", torch.tensor(0.1).item())
    rec.value("float64 item", torch.tensor(0.1, dtype=torch.float64).item())
    rec.value("tolist 2d", torch.tensor([[1.0, 2.0], [3.0, 4.0]]).tolist())
    rec.value("tolist 0d", torch.tensor(3.0).tolist())
    rec.value("tolist int", torch.tensor([1, 2]).tolist())
    rec.value("tolist bool", torch.tensor([True, False]).tolist())
    x = torch.tensor([1.5], requires_grad=True)
    rec.value("item on requires_grad", x.item())
    rec.value("tolist on requires_grad", (x * 2).tolist())
    rec.value("empty tolist", torch.tensor([]).tolist())


def shape_size_dim_numel(torch, rec):
    m = torch.zeros(2, 3, 4)
    rec.value("shape", m.shape)
    rec.value("size()", m.size())
    rec.value("size(1)", m.size(1))
    rec.value("size(-1)", m.size(-1))
    rec.value("dim()", m.dim())
    rec.value("ndim", m.ndim)
    rec.value("numel()", m.numel())
    rec.value("0d shape", torch.tensor(1.0).shape)
    rec.value("0d dim", torch.tensor(1.0).dim())
    rec.value("0d numel", torch.tensor(1.0).numel())
    rec.value("shape[0]", m.shape[0])
    rec.value("len(shape)", len(m.shape))
    rec.value("shape == tuple", m.shape == (2, 3, 4))
    rec.printed("print(shape)", m.shape)
    rec.value("empty shape", torch.tensor([]).shape)


def tensor_T_attribute_and_data(torch, rec):
    m = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    rec.value("m.T", m.T)
    rec.value("m.data", m.data)
    rec.value("m.T.T", m.T.T)


def repr_requires_grad_and_grad_fn(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    rec.printed("leaf requires_grad", x)
    rec.printed("grad_fn", x * 2)
    rec.printed("0d grad_fn", (x * 2).sum())
    rec.printed("detached", (x * 2).detach())
    rec.printed("int", torch.tensor([1, 2, 3]))
    rec.printed("float64", torch.tensor([1.0, 2.5], dtype=torch.float64))
    rec.printed("float64 requires_grad", torch.tensor([1.0], dtype=torch.float64, requires_grad=True))
    rec.printed("float64 grad_fn", torch.tensor([1.0], dtype=torch.float64, requires_grad=True) * 2)


def repr_float_formatting(torch, rec):
    rec.printed("integral floats", torch.tensor([1.0, 2.0, 3.0]))
    rec.printed("fractions", torch.tensor([1.5, 2.25, -3.125]))
    rec.printed("four decimals", torch.tensor([0.1, 0.2, 0.3333333]))
    rec.printed("large (sci)", torch.tensor([1e10, 1.0]))
    rec.printed("mixed magnitudes", torch.tensor([1e-5, 1.0, 1000.0]))
    rec.printed("small", torch.tensor([1e-10, 2e-10]))
    rec.printed("hundreds", torch.tensor([123.456, 7.0]))
    rec.printed("thousands integral", torch.tensor([1000.0, 20000.0]))
    rec.printed("negative zero", torch.tensor([-0.0, 1.0]))
    rec.printed("0d float", torch.tensor(3.0))
    rec.printed("0d fraction", torch.tensor(0.5))
    rec.printed("0d large", torch.tensor(123456789.0))
    rec.printed("max over 1e8", torch.tensor([1e8, 1.0]))
    rec.printed("ratio over 1000", torch.tensor([0.001, 2.0]))


def repr_special_values(torch, rec):
    rec.printed("nan inf", torch.tensor([float("nan"), float("inf"), float("-inf"), 1.0]))
    rec.printed("nan with fraction", torch.tensor([float("nan"), 1.5]))
    rec.printed("all nan", torch.tensor([float("nan")]))
    rec.printed("inf and large", torch.tensor([float("inf"), 1e10]))
    rec.printed("bools", torch.tensor([True, False]))
    rec.printed("0d bool", torch.tensor(True))
    rec.printed("ints with negative", torch.tensor([-10, 5, 300]))
    rec.printed("0d int", torch.tensor(42))
    rec.printed("empty", torch.tensor([]))
    rec.printed("empty 2d", torch.zeros(0, 3))
    rec.printed("empty int", torch.zeros(0, dtype=torch.int64))
    rec.printed("empty float64", torch.zeros(0, dtype=torch.float64))


def repr_multidim_and_long(torch, rec):
    rec.printed("2d", torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    rec.printed("3d", torch.arange(12.0).reshape(2, 2, 3))
    rec.printed("3d int", torch.arange(8).reshape(2, 2, 2))
    rec.printed("long row wraps", torch.arange(30.0))
    rec.printed("long int row", torch.arange(40))
    rec.printed("over 1000 summarised", torch.arange(2000.0))
    rec.printed("over 1000 2d", torch.arange(1200.0).reshape(40, 30))
    rec.printed("exactly 1000", torch.zeros(1000))
    rec.printed("over 1000 ints", torch.arange(1001))
    rec.printed("2d with grad_fn", torch.ones(2, 2, requires_grad=True) * 2)


def repr_float64_variants(torch, rec):
    rec.printed("float64 0d", torch.tensor(1.0, dtype=torch.float64))
    rec.printed("float64 large", torch.tensor([1e10, 1.0], dtype=torch.float64))
    rec.printed("float64 fraction", torch.tensor([0.1, 0.25], dtype=torch.float64))
    rec.printed("float64 2d", torch.eye(2, dtype=torch.float64))
    rec.printed("float64 empty", torch.tensor([], dtype=torch.float64))
    rec.printed("int64 explicit", torch.tensor([1], dtype=torch.int64))
    rec.printed("bool explicit", torch.tensor([1], dtype=torch.bool))


def repr_of_grad_and_value_record(torch, rec):
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    (x * x).sum().backward()
    rec.value("x.grad", x.grad)
    rec.printed("print(x.grad)", x.grad)
    rec.printed("print(x)", x)


# ===========================================================================
# Group 4: torch.nn / torch.optim / torch.nn.functional
# ===========================================================================


def _linear_2_to_1(torch):
    lin = torch.nn.Linear(2, 1)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[0.5, -0.25]]))
        lin.bias.fill_(0.1)
    return lin


def _sgd_trajectory(torch, rec, **opt_kwargs):
    lin = _linear_2_to_1(torch)
    opt = torch.optim.SGD(lin.parameters(), **opt_kwargs)
    x = torch.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]])
    y = torch.tensor([[1.0], [-1.0], [0.0]])
    loss_fn = torch.nn.MSELoss()
    for step in range(5):
        opt.zero_grad()
        loss = loss_fn(lin(x), y)
        loss.backward()
        opt.step()
        # floats, compared with a tolerance: a 1-ulp difference (torch fuses multiply-adds)
        # can flip the 4th printed digit of a repr
        rec.value(f"step{step}.loss", loss.item())
        rec.value(f"step{step}.weight", lin.weight.tolist())
        rec.value(f"step{step}.bias", lin.bias.tolist())


def _adam_trajectory(torch, rec, **opt_kwargs):
    lin = _linear_2_to_1(torch)
    opt = torch.optim.Adam(lin.parameters(), **opt_kwargs)
    x = torch.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]])
    y = torch.tensor([[1.0], [-1.0], [0.0]])
    for step in range(5):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(lin(x), y)
        loss.backward()
        opt.step()
        rec.value(f"step{step}.loss", loss.item())
        rec.value(f"step{step}.weight", lin.weight.tolist())
        rec.value(f"step{step}.bias", lin.bias.tolist())


def nn_linear_forward_backward_explicit_weights(torch, rec):
    lin = _linear_2_to_1(torch)
    rec.value("weight", lin.weight)
    rec.value("bias", lin.bias)
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    out = lin(x)
    rec.value("out", out)
    rec.graph("graph(out)", out)
    out.sum().backward()
    rec.value("weight.grad", lin.weight.grad)
    rec.value("bias.grad", lin.bias.grad)


def nn_linear_1d_input(torch, rec):
    lin = _linear_2_to_1(torch)
    x = torch.tensor([1.0, 2.0])
    out = lin(x)
    rec.value("out", out)
    rec.graph("graph(out)", out)
    out.sum().backward()
    rec.value("weight.grad", lin.weight.grad)
    rec.value("bias.grad", lin.bias.grad)


def nn_linear_shapes_and_parameter_repr(torch, rec):
    lin = torch.nn.Linear(3, 2)
    rec.value("weight.shape", lin.weight.shape)
    rec.value("bias.shape", lin.bias.shape)
    rec.value("weight.requires_grad", lin.weight.requires_grad)
    rec.value("weight.is_leaf", lin.weight.is_leaf)
    rec.value("weight.dtype", lin.weight.dtype)
    with torch.no_grad():
        lin.weight.fill_(0.5)
        lin.bias.zero_()
    rec.printed("print(weight)", lin.weight)
    rec.printed("print(bias)", lin.bias)
    rec.printed("print(lin)", lin)
    rec.value("weight record", lin.weight)


def nn_parameter_direct_construction(torch, rec):
    p = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    rec.value("p", p)
    rec.printed("print(p)", p)
    y = p * 3
    rec.value("y", y)
    rec.printed("print(y)", y)
    y.sum().backward()
    rec.value("p.grad", p.grad)
    rec.raises("p.add_(1)", lambda: p.add_(1))


def nn_parameters_and_named_parameters(torch, rec):
    model = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))
    names = [name for name, _ in model.named_parameters()]
    rec.value("names", names)
    shapes = [p.shape for p in model.parameters()]
    rec.value("shapes", shapes)
    rec.value("count", len(list(model.parameters())))
    rec.printed("print(model)", model)


def nn_sequential_forward_backward(torch, rec):
    model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU(), torch.nn.Linear(2, 1))
    with torch.no_grad():
        model[0].weight.copy_(torch.tensor([[1.0, -1.0], [0.5, 2.0]]))
        model[0].bias.copy_(torch.tensor([0.0, -1.0]))
        model[2].weight.copy_(torch.tensor([[2.0, -3.0]]))
        model[2].bias.fill_(0.5)
    x = torch.tensor([[1.0, 2.0], [3.0, 0.0], [-1.0, -1.0]])
    out = model(x)
    rec.value("out", out)
    rec.graph("graph(out)", out)
    loss = out.sum()
    loss.backward()
    for name, p in model.named_parameters():
        rec.value(f"{name}.grad", p.grad)


def nn_activation_modules(torch, rec):
    x = torch.tensor([-2.0, 0.0, 1.5], requires_grad=True)
    r = torch.nn.ReLU()(x)
    t = torch.nn.Tanh()(x)
    s = torch.nn.Sigmoid()(x)
    rec.value("relu", r)
    rec.value("tanh", t)
    rec.value("sigmoid", s)
    (r + t + s).sum().backward()
    rec.value("x.grad", x.grad)
    rec.printed("print(ReLU())", torch.nn.ReLU())
    rec.printed("print(Tanh())", torch.nn.Tanh())
    rec.printed("print(Sigmoid())", torch.nn.Sigmoid())


def nn_mse_loss_module_and_functional(torch, rec):
    pred = torch.tensor([1.0, 2.0, 4.0], requires_grad=True)
    target = torch.tensor([1.5, 2.0, 3.0])
    loss = torch.nn.MSELoss()(pred, target)
    rec.value("loss", loss)
    loss.backward()
    rec.value("pred.grad", pred.grad)
    pred2 = torch.tensor([[1.0, 2.0], [0.0, -1.0]], requires_grad=True)
    target2 = torch.tensor([[0.0, 2.0], [1.0, 1.0]])
    loss2 = torch.nn.functional.mse_loss(pred2, target2)
    rec.value("functional loss", loss2)
    loss2.backward()
    rec.value("pred2.grad", pred2.grad)
    rec.printed("print(MSELoss())", torch.nn.MSELoss())


def nn_cross_entropy_loss_module_and_functional(torch, rec):
    logits = torch.tensor([[2.0, 1.0, 0.1], [0.5, 2.5, -1.0]], requires_grad=True)
    target = torch.tensor([0, 2])
    loss = torch.nn.CrossEntropyLoss()(logits, target)
    rec.value("loss", loss)
    rec.graph("graph(loss)", loss)
    loss.backward()
    rec.value("logits.grad", logits.grad)
    logits2 = torch.tensor([[1.0, 1.0], [0.0, 3.0], [2.0, -2.0]], requires_grad=True)
    target2 = torch.tensor([1, 1, 0])
    loss2 = torch.nn.functional.cross_entropy(logits2, target2)
    rec.value("functional loss", loss2)
    loss2.backward()
    rec.value("logits2.grad", logits2.grad)


def nn_functional_activations_and_linear(torch, rec):
    F = torch.nn.functional
    x = torch.tensor([[-1.0, 0.0, 2.0]], requires_grad=True)
    rec.value("F.relu", F.relu(x))
    rec.value("F.tanh", F.tanh(x))
    rec.value("F.sigmoid", F.sigmoid(x))
    rec.value("F.softmax", F.softmax(x, dim=1))
    rec.value("F.log_softmax", F.log_softmax(x, dim=-1))
    w = torch.tensor([[1.0, 0.5, -1.0], [0.0, 2.0, 1.0]], requires_grad=True)
    b = torch.tensor([0.5, -0.5], requires_grad=True)
    out = F.linear(x, w, b)
    rec.value("F.linear", out)
    rec.graph("graph(F.linear)", out)
    out.sum().backward()
    rec.value("x.grad", x.grad)
    rec.value("w.grad", w.grad)
    rec.value("b.grad", b.grad)
    out2 = F.linear(x, w)
    rec.value("F.linear no bias", out2)
    rec.graph("graph(F.linear no bias)", out2)


def nn_module_zero_grad_sets_none(torch, rec):
    lin = _linear_2_to_1(torch)
    lin(torch.tensor([[1.0, 1.0]])).sum().backward()
    rec.value("grad before", lin.weight.grad)
    lin.zero_grad()
    rec.value("weight.grad after module.zero_grad()", lin.weight.grad)
    rec.value("bias.grad after module.zero_grad()", lin.bias.grad)


def optim_zero_grad_set_to_none_default_vs_false(torch, rec):
    lin = _linear_2_to_1(torch)
    opt = torch.optim.SGD(lin.parameters(), lr=0.1)
    lin(torch.tensor([[1.0, 1.0]])).sum().backward()
    opt.zero_grad(set_to_none=False)
    rec.value("weight.grad after set_to_none=False", lin.weight.grad)
    rec.value("bias.grad after set_to_none=False", lin.bias.grad)
    lin(torch.tensor([[1.0, 1.0]])).sum().backward()
    rec.value("weight.grad accumulated again", lin.weight.grad)
    opt.zero_grad()
    rec.value("weight.grad after default zero_grad", lin.weight.grad)


def optim_sgd_step_with_none_grad_skips_param(torch, rec):
    a = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    b = torch.nn.Parameter(torch.tensor([3.0]))
    opt = torch.optim.SGD([a, b], lr=0.5)
    (a * a).sum().backward()
    opt.step()
    rec.value("a", a)
    rec.value("b (no grad, unchanged)", b)
    rec.value("b.grad", b.grad)


def optim_sgd_plain_trajectory(torch, rec):
    _sgd_trajectory(torch, rec, lr=0.1)


def optim_sgd_momentum_trajectory(torch, rec):
    _sgd_trajectory(torch, rec, lr=0.1, momentum=0.9)


def optim_sgd_momentum_dampening_trajectory(torch, rec):
    _sgd_trajectory(torch, rec, lr=0.1, momentum=0.9, dampening=0.5)


def optim_sgd_nesterov_trajectory(torch, rec):
    _sgd_trajectory(torch, rec, lr=0.05, momentum=0.8, nesterov=True)


def optim_sgd_weight_decay_trajectory(torch, rec):
    _sgd_trajectory(torch, rec, lr=0.1, weight_decay=0.01)


def optim_sgd_all_options_trajectory(torch, rec):
    _sgd_trajectory(torch, rec, lr=0.05, momentum=0.5, weight_decay=0.1, nesterov=True)


def optim_sgd_nesterov_requires_momentum_raises(torch, rec):
    lin = _linear_2_to_1(torch)
    rec.raises("nesterov without momentum", lambda: torch.optim.SGD(lin.parameters(), lr=0.1, nesterov=True))
    rec.raises("negative lr", lambda: torch.optim.SGD(lin.parameters(), lr=-0.1))


def optim_adam_default_trajectory(torch, rec):
    _adam_trajectory(torch, rec)


def optim_adam_lr_betas_eps_trajectory(torch, rec):
    _adam_trajectory(torch, rec, lr=0.05, betas=(0.8, 0.99), eps=1e-6)


def optim_adam_weight_decay_trajectory(torch, rec):
    _adam_trajectory(torch, rec, lr=0.01, weight_decay=0.1)


def optim_training_loop_linear_regression(torch, rec):
    lin = torch.nn.Linear(1, 1)
    with torch.no_grad():
        lin.weight.fill_(0.0)
        lin.bias.fill_(0.0)
    opt = torch.optim.SGD(lin.parameters(), lr=0.05)
    x = torch.tensor([[1.0], [2.0], [3.0], [4.0]])
    y = torch.tensor([[3.0], [5.0], [7.0], [9.0]])
    crit = torch.nn.MSELoss()
    losses = []
    for _ in range(20):
        opt.zero_grad()
        loss = crit(lin(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    rec.value("losses", losses)
    rec.value("weight", lin.weight)
    rec.value("bias", lin.bias)


def optim_step_under_no_grad_semantics(torch, rec):
    lin = _linear_2_to_1(torch)
    opt = torch.optim.SGD(lin.parameters(), lr=1.0)
    lin(torch.tensor([[1.0, 2.0]])).sum().backward()
    v0 = lin.weight._version
    opt.step()
    rec.value("weight version bumped", lin.weight._version > v0)
    rec.value("weight after step", lin.weight)
    rec.value("weight.is_leaf", lin.weight.is_leaf)
    rec.value("weight.grad_fn", lin.weight.grad_fn)


# ===========================================================================
# Group 5: torch.nn / torch.optim, more (graph variants, losses, modules, optimizer options)
# ===========================================================================


def _seed_simple_linear_class(torch):
    nn = torch.nn

    class SimpleLinear(nn.Module):
        def __init__(self):
            super(SimpleLinear, self).__init__()  # noqa: UP008 - the seed text, verbatim
            self.linear = nn.Linear(1, 1)

        def forward(self, x):
            return self.linear(x)

    model = SimpleLinear()
    with torch.no_grad():
        model.linear.weight.fill_(0.5)
        model.linear.bias.fill_(-0.25)
    return model


def seed_simple_linear_module_subclass_sgd(torch, rec):
    nn, optim = torch.nn, torch.optim
    model = _seed_simple_linear_class(torch)
    criterion = nn.MSELoss()
    optimizer = optim.SGD(model.parameters(), lr=0.01)
    input_data = torch.tensor([[2.0]], requires_grad=True)
    target_data = torch.tensor([[5.0]])
    output = model(input_data)
    loss = criterion(output, target_data)
    loss.backward()
    rec.printed("print weight grad", "Gradient of linear weight: " + str(model.linear.weight.grad))
    optimizer.step()
    optimizer.zero_grad()
    rec.printed("print(model)", model)
    rec.value("names", [n for n, _ in model.named_parameters()])
    rec.value("weight after step", model.linear.weight)
    rec.value("bias after step", model.linear.bias)
    rec.value("weight.grad after zero_grad", model.linear.weight.grad)
    rec.value("input.grad", input_data.grad)
    rec.graph("graph(loss)", loss)


def seed_simple_linear_module_subclass_times_two(torch, rec):
    nn = torch.nn
    inner = _seed_simple_linear_class(torch)

    class Doubled(nn.Module):
        def __init__(self):
            super(Doubled, self).__init__()  # noqa: UP008
            self.linear = inner.linear

        def forward(self, x):
            intermediate_tensor = self.linear(x)
            return intermediate_tensor * 2.0

    model = Doubled()
    loss = nn.MSELoss()(model(torch.tensor([[2.0]], requires_grad=True)), torch.tensor([[5.0]]))
    try:
        loss.backward()
        rec.printed("print weight grad", "Gradient of linear weight: " + str(model.linear.weight.grad))
    except AttributeError as e:
        rec.printed("error", f"Error: {e}")
    rec.graph("graph(loss)", loss)


def seed_simple_linear_module_subclass_inplace(torch, rec):
    nn = torch.nn
    inner = _seed_simple_linear_class(torch)

    class InPlace(nn.Module):
        def __init__(self):
            super(InPlace, self).__init__()  # noqa: UP008
            self.linear = inner.linear

        def forward(self, x):
            intermediate_tensor = self.linear(x)
            intermediate_tensor *= 2.0
            return intermediate_tensor

    model = InPlace()
    out = model(torch.tensor([[2.0]], requires_grad=True))
    rec.value("output", out)
    loss = nn.MSELoss()(out, torch.tensor([[5.0]]))
    try:
        loss.backward()
        rec.printed("print weight grad", "Gradient of linear weight: " + str(model.linear.weight.grad))
    except AttributeError as e:
        rec.printed("error", f"Error: {e}")
    rec.graph("graph(loss)", loss)


def _linear_3_to_2(torch, bias=True):
    lin = torch.nn.Linear(3, 2, bias=bias)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]]))
        if bias:
            lin.bias.copy_(torch.tensor([0.1, -0.2]))
    return lin


def nn_linear_graph_for_every_input_rank(torch, rec):
    for bias in (True, False):
        for shape in ((3,), (4, 3), (2, 4, 3), (2, 1, 2, 3)):
            for rg in (False, True):
                lin = _linear_3_to_2(torch, bias)
                x = (torch.arange(float(torch.zeros(shape).numel())).reshape(shape) + 1) / 10
                x.requires_grad_(rg)
                out = lin(x)
                tag = f"bias={bias} shape={shape} rg={rg}"
                rec.value(f"{tag} out", out)
                rec.graph(f"{tag} graph", out)
                (out * out).sum().backward()
                rec.value(f"{tag} weight.grad", lin.weight.grad)
                if bias:
                    rec.value(f"{tag} bias.grad", lin.bias.grad)
                rec.value(f"{tag} x.grad", x.grad)


def nn_linear_noncontiguous_and_frozen(torch, rec):
    lin = _linear_3_to_2(torch)
    x = torch.arange(24.0).reshape(2, 4, 3).div(10).requires_grad_(True)
    out = lin(x.transpose(0, 1))
    rec.value("transposed 3-D out", out)
    rec.graph("transposed 3-D graph", out)
    out.sum().backward()
    rec.value("x.grad", x.grad)
    out2 = lin(torch.arange(12.0).reshape(3, 4).t())
    rec.graph("transposed 2-D graph", out2)
    lin.weight.requires_grad_(False)
    rec.graph("frozen weight graph", lin(torch.ones(4, 3)))
    lin.bias.requires_grad_(False)
    rec.graph("frozen weight and bias graph", lin(torch.ones(4, 3, requires_grad=True)))
    rec.value("all frozen grad_fn", lin(torch.ones(4, 3)).grad_fn)


def nn_linear_and_addmm_errors(torch, rec):
    lin = _linear_3_to_2(torch)
    rec.raises("wrong in_features 2-D", lambda: lin(torch.ones(4, 2)))
    rec.raises("wrong in_features 1-D", lambda: lin(torch.ones(2)))
    rec.raises("wrong in_features 3-D", lambda: lin(torch.ones(5, 4, 2)))
    rec.raises("float64 input", lambda: lin(torch.ones(4, 3, dtype=torch.float64)))
    rec.raises("0-d input", lambda: lin(torch.tensor(1.0)))
    rec.raises("no bias wrong size", lambda: _linear_3_to_2(torch, False)(torch.ones(4, 2)))
    rec.raises("F.linear bad bias", lambda: torch.nn.functional.linear(
        torch.ones(4, 3), torch.ones(2, 3), torch.ones(3)))
    rec.raises("addmm 1-D mat1", lambda: torch.addmm(torch.ones(2), torch.ones(3), torch.ones(3, 2)))
    rec.raises("addmm sizes", lambda: torch.addmm(torch.ones(2), torch.ones(4, 3), torch.ones(2, 2)))


def nn_addmm_beta_alpha(torch, rec):
    b = torch.tensor([1.0, 2.0], requires_grad=True)
    m1 = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
    m2 = torch.tensor([[0.5, -1.0], [2.0, 0.0]], requires_grad=True)
    y = torch.addmm(b, m1, m2, beta=0.5, alpha=2.0)
    rec.value("y", y)
    rec.graph("graph(y)", y)
    (y * y).sum().backward()
    rec.value("b.grad", b.grad)
    rec.value("m1.grad", m1.grad)
    rec.value("m2.grad", m2.grad)


def nn_mse_loss_reductions_broadcast_and_double_backward(torch, rec):
    F = torch.nn.functional
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    t = torch.tensor([[0.5, 2.0], [1.0, 1.0]], requires_grad=True)
    for r in ("mean", "sum", "none"):
        loss = F.mse_loss(x, t, reduction=r)
        rec.value(f"{r} loss", loss)
        rec.graph(f"{r} graph", loss)
        gx, gt = torch.autograd.grad(loss.sum(), (x, t), create_graph=True)
        rec.value(f"{r} dx", gx)
        rec.value(f"{r} dt", gt)
        rec.graph(f"{r} graph(dx)", gx)
        hx, ht = torch.autograd.grad((gx * gx).sum() + (gt * x).sum(), (x, t))
        rec.value(f"{r} second x", hx)
        rec.value(f"{r} second t", ht)
    v = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    loss = F.mse_loss(v, torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]))
    rec.value("broadcast loss", loss)
    rec.graph("broadcast graph", loss)
    loss.backward()
    rec.value("broadcast v.grad", v.grad)
    rec.value("mixed dtypes", F.mse_loss(torch.ones(3), torch.zeros(3, dtype=torch.float64)))
    rec.value("module sum", torch.nn.MSELoss(reduction="sum")(torch.tensor([1.0, 2.0]), torch.zeros(2)))
    rec.value("module none", torch.nn.MSELoss(reduction="none")(torch.tensor([1.0, 2.0]), torch.zeros(2)))
    rec.raises("bad reduction", lambda: F.mse_loss(torch.ones(3), torch.ones(3), reduction="avg"))
    rec.raises("not broadcastable", lambda: F.mse_loss(torch.ones(3, 4), torch.ones(3, 5)))
    rec.raises("int inputs", lambda: F.mse_loss(torch.tensor([1, 2]), torch.tensor([1, 3])))


def nn_cross_entropy_reductions_weights_ignore_index(torch, rec):
    F = torch.nn.functional
    x = torch.tensor([[2.0, 1.0, 0.1, -1.0], [0.5, 2.5, -1.0, 0.0], [0.0, 0.0, 0.0, 3.0]],
                     requires_grad=True)
    t = torch.tensor([0, 3, 1])
    w = torch.tensor([1.0, 2.0, 0.5, 3.0])
    for r in ("mean", "sum", "none"):
        loss = F.cross_entropy(x, t, reduction=r)
        rec.value(f"{r} loss", loss)
        rec.graph(f"{r} graph", loss)
        loss.sum().backward()
        rec.value(f"{r} x.grad", x.grad)
        x.grad = None
        loss = F.cross_entropy(x, t, weight=w, reduction=r)
        rec.value(f"{r} weighted loss", loss)
        loss.sum().backward()
        rec.value(f"{r} weighted x.grad", x.grad)
        x.grad = None
    for tt in (torch.tensor([0, -100, 1]), torch.tensor([-100, -100, -100])):
        for r in ("mean", "sum", "none"):
            loss = F.cross_entropy(x, tt, reduction=r)
            rec.value(f"ignore {tt.tolist()} {r}", loss)
            loss.sum().backward()
            rec.value(f"ignore {tt.tolist()} {r} x.grad", x.grad)
            x.grad = None
    rec.value("nll ignore_index=1", F.nll_loss(x, torch.tensor([1, 0, 1]), ignore_index=1))
    m = torch.nn.CrossEntropyLoss(weight=torch.tensor([0.3, 0.7, 1.0, 1.0]), reduction="sum")
    rec.value("module weighted sum", m(x, t))
    rec.printed("print(module)", m)
    rec.value("module buffers", [n for n, _ in m.named_buffers()])
    rec.value("NLLLoss module", torch.nn.NLLLoss(ignore_index=0)(x, t))


def nn_cross_entropy_shapes_and_probabilities(torch, rec):
    F = torch.nn.functional
    v = torch.tensor([1.0, 2.0, 0.5], requires_grad=True)
    loss = F.cross_entropy(v, torch.tensor(2))
    rec.value("1-D loss", loss)
    rec.graph("1-D graph", loss)
    loss.backward()
    rec.value("1-D grad", v.grad)
    rec.value("1-D none", F.cross_entropy(v, torch.tensor(2), reduction="none"))
    x3 = (torch.arange(24.0).reshape(2, 3, 4) / 10).requires_grad_(True)
    t3 = torch.tensor([[0, 1, 2, 0], [2, 2, 1, -100]])
    for r in ("mean", "sum", "none"):
        loss = F.cross_entropy(x3, t3, reduction=r)
        rec.value(f"3-D {r}", loss)
        rec.graph(f"3-D {r} graph", loss)
        loss.sum().backward()
        rec.value(f"3-D {r} grad", x3.grad)
        x3.grad = None
    x4 = (torch.arange(24.0).reshape(2, 3, 2, 2) / 10).requires_grad_(True)
    loss = F.cross_entropy(x4, torch.tensor([[[0, 1], [2, 0]], [[2, 2], [1, 1]]]))
    rec.value("4-D loss", loss)
    rec.graph("4-D graph", loss)
    loss.backward()
    rec.value("4-D grad", x4.grad)
    x = torch.tensor([[2.0, 1.0, 0.1], [0.5, 2.5, -1.0]], requires_grad=True)
    p = torch.tensor([[0.2, 0.5, 0.3], [1.0, 0.0, 0.0]])
    for r in ("mean", "sum", "none"):
        loss = F.cross_entropy(x, p, reduction=r)
        rec.value(f"probs {r}", loss)
        rec.graph(f"probs {r} graph", loss)
        loss.sum().backward()
        rec.value(f"probs {r} grad", x.grad)
        x.grad = None
    rec.value("probs weighted", F.cross_entropy(x, p, weight=torch.tensor([1.0, 2.0, 3.0])))
    rec.value("probs label_smoothing", F.cross_entropy(x, p, label_smoothing=0.1))


def nn_cross_entropy_and_nll_errors(torch, rec):
    F = torch.nn.functional
    x = torch.ones(3, 4)
    rec.raises("target out of bounds", lambda: F.cross_entropy(x, torch.tensor([0, 1, 5])))
    rec.raises("negative target", lambda: F.nll_loss(x, torch.tensor([0, 1, -1])))
    rec.raises("batch mismatch", lambda: F.cross_entropy(x, torch.tensor([0, 1])))
    rec.raises("float class target", lambda: F.cross_entropy(x, torch.tensor([0.0, 1.0, 2.0])))
    rec.raises("int probabilities", lambda: F.cross_entropy(x, torch.ones(3, 4, dtype=torch.int64)))
    rec.raises("bad reduction", lambda: F.cross_entropy(x, torch.tensor([0, 1, 2]), reduction="avg"))
    rec.raises("2-D target", lambda: F.nll_loss(x, torch.tensor([[0, 1, 2]] * 3)))
    rec.raises("weight size", lambda: F.nll_loss(x, torch.tensor([0, 1, 2]), weight=torch.ones(3)))
    rec.raises("4-D target size", lambda: F.nll_loss(torch.ones(2, 3, 4, 5),
                                                     torch.zeros(2, 4, 4, dtype=torch.int64)))
    rec.raises("3-D target size", lambda: F.nll_loss(torch.ones(2, 3, 4),
                                                     torch.zeros(2, 5, dtype=torch.int64)))
    rec.raises("0-d input", lambda: F.nll_loss(torch.tensor(1.0), torch.tensor(0)))


def nn_nll_loss_double_backward(torch, rec):
    F = torch.nn.functional
    x = torch.tensor([[-1.0, -2.0, -0.5], [-0.2, -3.0, -1.5]], requires_grad=True)
    t = torch.tensor([2, 0])
    for r in ("mean", "sum", "none"):
        loss = F.nll_loss(x, t, weight=torch.tensor([1.0, 2.0, 0.5]), reduction=r)
        rec.value(f"{r} loss", loss)
        (gx,) = torch.autograd.grad(loss.sum(), x, create_graph=True)
        rec.value(f"{r} dx", gx)
        rec.graph(f"{r} graph(dx)", gx)
    y = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    g = torch.ones(2, 3, requires_grad=True)
    loss = F.nll_loss(y * g, t)
    (gy,) = torch.autograd.grad(loss, y, create_graph=True)
    rec.graph("graph(dy) through mul", gy)
    (gg,) = torch.autograd.grad((gy * y).sum(), g)
    rec.value("second order", gg)


def nn_softmax_modules_and_implicit_dim(torch, rec):
    F = torch.nn.functional
    x = torch.tensor([[1.0, 2.0, 3.0], [0.0, -1.0, 1.0]], requires_grad=True)
    rec.value("F.softmax implicit", F.softmax(x))
    rec.value("F.log_softmax implicit", F.log_softmax(x))
    rec.value("F.softmax dim=0", F.softmax(x, 0))
    y = F.softmax(x, dim=1, dtype=torch.float64)
    rec.value("F.softmax float64", y)
    rec.graph("graph(F.softmax float64)", y)
    rec.value("nn.Softmax(dim=0)", torch.nn.Softmax(dim=0)(torch.tensor([1.0, 2.0])))
    rec.value("nn.LogSoftmax(dim=1)", torch.nn.LogSoftmax(dim=1)(x))
    rec.printed("print(Softmax)", torch.nn.Softmax(dim=1))
    rec.printed("print(LogSoftmax)", torch.nn.LogSoftmax(dim=-1))


def nn_relu_inplace_and_identity(torch, rec):
    F = torch.nn.functional
    x = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    y = x * 1
    z = F.relu(y, inplace=True)
    rec.value("same tensor", z is y)
    rec.value("y", y)
    rec.value("y._version", y._version)
    rec.graph("graph(y)", y)
    z.sum().backward()
    rec.value("x.grad", x.grad)
    rec.printed("print(ReLU(inplace=True))", torch.nn.ReLU(inplace=True))
    rec.printed("print(Identity())", torch.nn.Identity(3, foo=4))
    v = torch.ones(2)
    rec.value("Identity returns input", torch.nn.Identity()(v) is v)


def _net(torch):
    nn = torch.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(2, 3)
            self.act = nn.Tanh()
            self.block = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 1, bias=False))
            self.scale = nn.Parameter(torch.tensor(2.0))
            self.shared = self.fc1
            self.register_buffer("running", torch.zeros(3))
            self.register_buffer("tmp", torch.ones(1), persistent=False)

        def forward(self, x):
            return self.block(self.act(self.fc1(x))) * self.scale

    return Net()


def nn_module_registration_order_and_repr(torch, rec):
    m = _net(torch)
    rec.value("named_parameters", [n for n, _ in m.named_parameters()])
    rec.value("named_modules", [n for n, _ in m.named_modules()])
    rec.value("named_children", [n for n, _ in m.named_children()])
    rec.value("named_buffers", [n for n, _ in m.named_buffers()])
    rec.value("state_dict keys", list(m.state_dict().keys()))
    rec.printed("print(net)", m)
    rec.value("parameter count", len(list(m.parameters())))
    rec.value("no recurse", [n for n, _ in m.named_parameters(recurse=False)])
    rec.value("prefix", [n for n, _ in m.named_parameters(prefix="model")])
    rec.value("with duplicates", [n for n, _ in m.named_parameters(remove_duplicate=False)])
    rec.value("training", [mod.training for mod in m.modules()])
    m.eval()
    rec.value("after eval", [mod.training for mod in m.modules()])
    m.train()
    rec.value("after train", [mod.training for mod in m.modules()])
    rec.value("requires_grad_ returns self", m.requires_grad_(False) is m)
    rec.value("requires_grad after", [p.requires_grad for p in m.parameters()])


def nn_module_assignment_rules_and_errors(torch, rec):
    nn = torch.nn

    class NoInit(nn.Module):
        def __init__(self):
            self.lin = nn.Linear(1, 1)

    class NoInitParam(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(torch.ones(1))

    class NoForward(nn.Module):
        pass

    rec.raises("module before __init__", lambda: NoInit())
    rec.raises("parameter before __init__", lambda: NoInitParam())
    rec.raises("missing forward", lambda: NoForward()(torch.ones(1)))
    lin = nn.Linear(2, 2)
    rec.raises("unknown attribute", lambda: lin.foo)
    rec.raises("tensor as parameter", lambda: setattr(lin, "weight", torch.ones(2, 2)))
    rec.raises("train non-bool", lambda: lin.train("yes"))
    rec.raises("dotted parameter name", lambda: lin.register_parameter("a.b", None))
    rec.raises("non-parameter registered", lambda: lin.register_parameter("w", torch.ones(1)))
    rec.raises("int as child module", lambda: nn.Sequential(nn.Linear(1, 1)).__setitem__(0, 3))
    lin.weight = None
    rec.value("weight set to None", [n for n, _ in lin.named_parameters()])
    lin.weight = nn.Parameter(torch.ones(2, 2))
    rec.value("weight back", [n for n, _ in lin.named_parameters()])
    lin.extra = nn.Parameter(torch.ones(1))
    rec.value("extra added", [n for n, _ in lin.named_parameters()])
    del lin.extra
    rec.value("extra deleted", [n for n, _ in lin.named_parameters()])
    rec.value("hasattr extra", hasattr(lin, "extra"))


def nn_sequential_and_modulelist_containers(torch, rec):
    nn = torch.nn
    s = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    rec.value("len", len(s))
    rec.printed("s[-1]", s[-1])
    rec.printed("s[1:]", s[1:])
    rec.value("iter", [type(m).__name__ for m in s])
    s.append(nn.Sigmoid())
    rec.printed("after append", s)
    del s[1]
    rec.printed("after del s[1]", s)
    rec.value("names after del", [n for n, _ in s.named_parameters()])
    rec.raises("index out of range", lambda: s[5])
    from collections import OrderedDict

    named = nn.Sequential(OrderedDict([("fc", nn.Linear(2, 1)), ("act", nn.Sigmoid())]))
    rec.printed("OrderedDict Sequential", named)
    rec.value("OrderedDict names", [n for n, _ in named.named_parameters()])
    ml = nn.ModuleList([nn.Linear(1, 1), nn.Linear(1, 1), nn.ReLU(), nn.Linear(1, 1)])
    rec.printed("ModuleList", ml)
    rec.value("ModuleList names", [n for n, _ in ml.named_parameters()])
    rec.printed("empty ModuleList", nn.ModuleList())
    rec.printed("nested", nn.Sequential(nn.Sequential(nn.Linear(1, 2)), nn.Linear(2, 1, bias=False)))


def nn_state_dict_round_trip_and_errors(torch, rec):
    nn = torch.nn
    m = _linear_2_to_1(torch)
    sd = m.state_dict()
    rec.value("keys", list(sd.keys()))
    rec.value("weight entry", sd["weight"])
    rec.value("bias entry", sd["bias"])
    m2 = nn.Linear(2, 1)
    result = m2.load_state_dict(sd)
    rec.printed("load result", result)
    rec.value("loaded weight", m2.weight)
    rec.value("loaded bias", m2.bias)
    partial = {"weight": sd["weight"], "extra": torch.ones(1)}
    result = m2.load_state_dict(partial, strict=False)
    rec.value("missing", result.missing_keys)
    rec.value("unexpected", result.unexpected_keys)
    rec.raises("strict load", lambda: m2.load_state_dict(partial))
    rec.raises("size mismatch", lambda: m2.load_state_dict(
        {"weight": torch.ones(3, 2), "bias": torch.ones(1)}))
    seq = nn.Sequential(nn.Linear(2, 2))
    rec.raises("nested unexpected", lambda: seq.load_state_dict(
        {"0.weight": torch.ones(2, 2), "0.bias": torch.ones(2), "1.weight": torch.ones(1)}))
    net = _net(torch)
    net2 = _net(torch)
    net2.load_state_dict(net.state_dict())
    same = all(a.tolist() == b.tolist() for a, b in zip(net.parameters(), net2.parameters()))
    rec.value("round trip equal", same)


def nn_parameter_semantics(torch, rec):
    nn = torch.nn
    p = nn.Parameter(torch.tensor([1.0, 2.0]))
    rec.value("isinstance Tensor", isinstance(p, torch.Tensor))
    rec.value("type name", type(p).__name__)
    rec.value("op result type", type(p * 2).__name__)
    rec.value("detach type", type(p.detach()).__name__)
    rec.printed("str(p)", str(p))
    q = nn.Parameter(torch.tensor(3.0))
    rec.printed("f-string 0-d", f"{q}")
    a = torch.zeros(2)
    shared = nn.Parameter(a)
    a.add_(1)
    rec.value("shares version and memory", [shared._version, shared.tolist()])
    rec.printed("no grad parameter", nn.Parameter(torch.tensor([1, 2]), requires_grad=False))
    rec.printed("empty parameter", nn.Parameter())
    rec.raises("int parameter", lambda: nn.Parameter(torch.tensor([1, 2])))
    rec.printed("float64 parameter", nn.Parameter(torch.tensor([0.5], dtype=torch.float64)))


def _opt_trajectory(torch, rec, make, steps=6):
    # values as Python floats: compared with a tolerance, since torch fuses multiply-adds and
    # a 1-ulp difference can flip the 4th printed digit of a repr
    lin = _linear_2_to_1(torch)
    opt = make(lin.parameters())
    x = torch.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]])
    y = torch.tensor([[1.0], [-1.0], [0.0]])
    for step in range(steps):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(lin(x), y)
        loss.backward()
        opt.step()
        rec.value(f"step{step}.loss", loss.item())
        rec.value(f"step{step}.weight", lin.weight.tolist())
        rec.value(f"step{step}.bias", lin.bias.tolist())
    rec.value("weight._version", lin.weight._version)
    rec.value("weight.grad present after step", lin.weight.grad is not None)


def optim_sgd_maximize_trajectory(torch, rec):
    _opt_trajectory(torch, rec, lambda p: torch.optim.SGD(p, lr=0.01, momentum=0.5, maximize=True))


def optim_sgd_dampening_weight_decay_trajectory(torch, rec):
    _opt_trajectory(torch, rec, lambda p: torch.optim.SGD(
        p, lr=0.1, momentum=0.9, dampening=0.3, weight_decay=0.05))


def optim_adam_amsgrad_trajectory(torch, rec):
    _opt_trajectory(torch, rec, lambda p: torch.optim.Adam(p, lr=0.05, amsgrad=True))


def optim_adam_maximize_trajectory(torch, rec):
    _opt_trajectory(torch, rec, lambda p: torch.optim.Adam(p, lr=0.02, maximize=True))


def optim_adam_amsgrad_weight_decay_betas_trajectory(torch, rec):
    _opt_trajectory(torch, rec, lambda p: torch.optim.Adam(
        p, lr=0.1, betas=(0.5, 0.6), weight_decay=0.1, amsgrad=True))


def optim_adam_decoupled_weight_decay_trajectory(torch, rec):
    _opt_trajectory(torch, rec, lambda p: torch.optim.Adam(
        p, lr=0.1, weight_decay=0.1, decoupled_weight_decay=True))


def optim_repr_param_groups_and_validation(torch, rec):
    nn = torch.nn
    lin = _linear_2_to_1(torch)
    sgd = torch.optim.SGD(lin.parameters(), lr=0.1)
    rec.printed("print(SGD)", sgd)
    rec.value("SGD group keys", sorted(sgd.param_groups[0].keys()))
    adam = torch.optim.Adam([{"params": [lin.weight]}, {"params": lin.bias, "lr": 0.5}], lr=0.01)
    rec.printed("print(Adam)", adam)
    rec.value("Adam group lrs", [g["lr"] for g in adam.param_groups])
    rec.value("Adam group keys", sorted(adam.param_groups[1].keys()))
    extra = nn.Parameter(torch.ones(2))
    sgd.add_param_group({"params": [extra], "momentum": 0.5})
    rec.value("added group", [sgd.param_groups[1]["momentum"], sgd.param_groups[1]["lr"]])
    rec.raises("param in two groups", lambda: sgd.add_param_group({"params": [extra]}))
    p = nn.Parameter(torch.ones(1))
    rec.raises("empty list", lambda: torch.optim.SGD([], lr=0.1))
    rec.raises("tensor not iterable", lambda: torch.optim.SGD(torch.ones(2, requires_grad=True)))
    rec.raises("non-leaf", lambda: torch.optim.SGD([torch.ones(2, requires_grad=True) * 2]))
    rec.raises("not a tensor", lambda: torch.optim.SGD([1.0]))
    rec.raises("set of params", lambda: torch.optim.SGD({p}))
    rec.raises("negative momentum", lambda: torch.optim.SGD([p], momentum=-1))
    rec.raises("negative weight_decay", lambda: torch.optim.SGD([p], weight_decay=-1))
    rec.raises("nesterov with dampening", lambda: torch.optim.SGD(
        [p], lr=0.1, momentum=0.9, dampening=0.1, nesterov=True))
    rec.raises("Adam lr", lambda: torch.optim.Adam([p], lr=-1))
    rec.raises("Adam eps", lambda: torch.optim.Adam([p], eps=-1))
    rec.raises("Adam beta0", lambda: torch.optim.Adam([p], betas=(1.0, 0.9)))
    rec.raises("Adam beta1", lambda: torch.optim.Adam([p], betas=(0.9, -0.1)))
    rec.raises("Adam weight_decay", lambda: torch.optim.Adam([p], weight_decay=-0.1))


def optim_state_closure_and_state_dict(torch, rec):
    nn = torch.nn
    a = nn.Parameter(torch.tensor([1.0, -2.0]))
    adam = torch.optim.Adam([a], lr=0.1)
    (a * a).sum().backward()
    adam.step()
    st = adam.state[a]
    rec.value("Adam state keys", sorted(st.keys()))
    rec.value("step", st["step"])
    rec.value("exp_avg", st["exp_avg"])
    rec.value("exp_avg_sq", st["exp_avg_sq"])
    sd = adam.state_dict()
    rec.value("state_dict keys", sorted(sd.keys()))
    rec.value("packed params", sd["param_groups"][0]["params"])
    rec.value("packed state keys", list(sd["state"].keys()))
    rec.value("param after step", a)
    rec.value("param is leaf, no grad_fn", [a.is_leaf, a.grad_fn is None, a._version])
    b = nn.Parameter(torch.tensor([1.0, -2.0]))
    sgd = torch.optim.SGD([b], lr=0.1, momentum=0.9)
    (b * b).sum().backward()
    sgd.step()
    sgd.step()
    rec.value("momentum_buffer", sgd.state[b]["momentum_buffer"])
    rec.value("b after two steps", b)

    def closure():
        sgd.zero_grad()
        loss = (b * b).sum()
        loss.backward()
        return loss

    rec.value("closure loss", sgd.step(closure))
    rec.value("b after closure step", b)


def op_indexing_multidim_bool_mask_and_lists(torch, rec):
    x = torch.tensor([[[1.0, -2.0], [3.0, 4.0]], [[-5.0, 6.0], [7.0, -8.0]]], requires_grad=True)
    mask = torch.tensor([[True, False], [False, True]])
    y = x[mask]
    z = x[x > 0]
    w = x[0, [1, 0]]
    rec.value("x[2-d mask]", y)
    rec.value("x[x > 0]", z)
    rec.value("x[0, [1, 0]]", w)
    (y.sum() * 2 + z.sum() + w.sum()).backward()
    rec.value("x.grad", x.grad)


# ===========================================================================
# Several outputs (unbind, iteration) and assignment through index tensors
# ===========================================================================


def _names(node):
    return None if node is None else node.name()


def unbind_iteration_shares_one_node(torch, rec):
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
    y = x * 2
    a, b, c = y
    rec.value("a, b, c", (a, b, c))
    rec.value("one node", [a.grad_fn is b.grad_fn, b.grad_fn is c.grad_fn])
    rec.value("output_nr", [a.output_nr, b.output_nr, c.output_nr, y.output_nr, x.output_nr])
    rec.value("is_leaf, _base", [a.is_leaf, a._base is y, a._version])
    rows = list(y)
    rec.value("list(y) is a new node", [_names(rows[0].grad_fn), rows[0].grad_fn is a.grad_fn])
    s = (a * c).sum()
    rec.graph("graph((a * c).sum())", s)
    s.backward()
    rec.value("x.grad (b got nothing: zeros)", x.grad)
    cols = x.unbind(1)
    rec.value("x.unbind(1)", cols)
    rec.graph("graph(x.unbind(1)[1])", cols[1])
    neg = torch.unbind(x, dim=-1)
    rec.value("torch.unbind(x, dim=-1)", neg)
    v = torch.tensor([1.0, 2.0], requires_grad=True)
    p, q = v
    rec.value("0-dim outputs", (p, q, p.shape))
    rec.printed("print(p)", p)
    (p * 3 + q).backward()
    rec.value("v.grad", v.grad)
    rec.value("no grad: plain views", [t.grad_fn for t in torch.ones(2, 2)])
    with torch.no_grad():
        e, f, g = x
    rec.value("under no_grad", [_names(e.grad_fn), f.output_nr])
    rec.value("empty", torch.zeros(0, 3, requires_grad=True).unbind())
    rec.raises("unbind of a 0-dim tensor", lambda: torch.tensor(1.0).unbind())
    rec.raises("unbind(-1) of a 0-dim tensor", lambda: torch.tensor(1.0).unbind(-1))
    rec.raises("unbind(2) of a matrix", lambda: x.unbind(2))
    rec.raises("iterating a 0-dim tensor", lambda: list(torch.tensor(1.0)))


def unbind_hooks_retain_grad_and_unused_outputs(torch, rec):
    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    u = (x * 1).unbind(0)
    seen = []
    u[1].register_hook(lambda g: seen.append(("u1", g)))
    u[0].register_hook(lambda g: seen.append(("u0", g)))
    u[0].retain_grad()
    u[1].retain_grad()
    u[0].grad_fn.register_prehook(lambda go: seen.append(("prehook", go)))
    u[0].grad_fn.register_hook(lambda gi, go: seen.append(("hook", gi, go)))
    u[0].sum().backward()
    rec.value("hooks saw (None for the output that got nothing)", seen)
    rec.value("u0.grad, u1.grad", (u[0].grad, u[1].grad))
    rec.value("x.grad", x.grad)
    u = (x * 1).unbind(0)
    rec.raises("grad wrt an output nothing reached",
               lambda: torch.autograd.grad(u[0].sum(), [u[1]]))
    u = (x * 1).unbind(0)
    rec.value("allow_unused", torch.autograd.grad(u[0].sum(), [u[1]], allow_unused=True))
    y = x * 1
    u = y.unbind(0)
    rec.value("grad wrt outputs and base",
              torch.autograd.grad((u[0] * u[1]).sum(), [u[1], u[0], y]))
    x.grad = None
    u = (x * 1).unbind(0)
    (u[0] * u[1]).sum().backward(inputs=[u[1]])
    rec.value("backward(inputs=[u1])", (u[1].grad, x.grad))
    u = (x * 1).unbind(0)
    u[1].backward(torch.tensor([1.0, 2.0, 3.0]))
    rec.value("backward from an output", x.grad)
    x.grad = None
    u = (x * 1).unbind(1)
    torch.autograd.backward([u[2], u[0]], [torch.ones(2), torch.tensor([2.0, 3.0])])
    rec.value("backward from two outputs", x.grad)
    u = (x * 1).unbind(0)
    s = (u[0] * u[1]).sum()
    s.backward(retain_graph=True)
    s.backward()
    rec.value("retain_graph twice", x.grad)


def unbind_double_backward(torch, rec):
    x = torch.tensor([[1.0, 2.0], [3.0, -1.0]], requires_grad=True)
    u = (x * x).unbind(1)
    (g,) = torch.autograd.grad(u[0].sum() * 2 + (u[1] * u[1]).sum(), [x], create_graph=True)
    rec.value("g", g)
    rec.graph("graph(g)", g)
    (h,) = torch.autograd.grad(g.sum(), [x])
    rec.value("h", h)
    a, b = x
    (g,) = torch.autograd.grad((a * 3).sum(), [x], create_graph=True)
    rec.value("g with an output unused", g)
    rec.value("g.requires_grad", g.requires_grad)


def unbind_outputs_may_not_change_in_place(torch, rec):
    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    y = x * 1
    a, b = y
    rec.raises("a.add_(1)", lambda: a.add_(1))
    rec.raises("b.mul_(2)", lambda: b.mul_(2))
    rec.raises("a.copy_(zeros)", lambda: a.copy_(torch.zeros(3)))
    rec.raises("a.zero_()", lambda: a.zero_())

    def assign_int():
        a[0] = 5.0

    def assign_tensor_index():
        a[torch.tensor([0])] = 5.0

    rec.raises("a[0] = 5.", assign_int)
    rec.raises("a[tensor([0])] = 5.", assign_tensor_index)
    rec.raises("a[0:2].add_(1) (a view of an output)", lambda: a[0:2].add_(1))
    rec.raises("a.view(3).mul_(2)", lambda: a.view(3).mul_(2))
    p, q = x
    rec.raises("output of a leaf", lambda: p.add_(1))
    rec.value("versions unchanged", [y._version, a._version])
    w = torch.ones(3, requires_grad=True)
    c, d = torch.ones(2, 3)
    rec.raises("no history, other operand requires grad", lambda: c.add_(w))
    rec.value("no history, nothing requires grad: fine", c.add_(1))
    t = torch.zeros(3)
    rec.value("an output as the other operand", _names(t.add_(a).grad_fn))
    with torch.no_grad():
        a.add_(1)
    rec.value("under no_grad it can", (a.tolist(), y._version))
    rec.printed("print(a) after", a)
    rec.raises("then a.grad_fn", lambda: a.grad_fn)
    rec.raises("then b * 2", lambda: b * 2)
    rec.raises("then b.is_leaf", lambda: b.is_leaf)
    rec.value("requires_grad still reads", b.requires_grad)


def unbind_outputs_after_their_base_changed(torch, rec):
    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    y = x * 1
    a, b = y
    s = (a * b).sum()
    y.add_(1)
    rec.printed("print(a)", a)
    rec.raises("a.grad_fn", lambda: a.grad_fn)
    rec.raises("a * 2", lambda: a * 2)
    rec.raises("a.retain_grad()", lambda: a.retain_grad())
    rec.raises("a.register_hook", lambda: a.register_hook(lambda g: None))
    rec.raises("a.sum().backward()", lambda: a.sum().backward())
    rec.raises("a.backward(ones)", lambda: a.backward(torch.ones(3)))
    rec.raises("s.backward(): a saved output changed", lambda: s.backward())
    y = x * 1
    a, b = y
    d = a.detach()
    d.add_(1)
    rec.value("detach shares the version", (a._version, y))
    rec.raises("then b * 2", lambda: b * 2)
    z = torch.ones(2, 3)
    e, f = z
    z.add_(1)
    w = torch.ones(3, requires_grad=True)
    rec.value("no history: nothing to check", _names((e * w).grad_fn))


def views_made_under_no_grad_may_not_change_with_grad(torch, rec):
    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    with torch.no_grad():
        v = x[0]
    rec.raises("v.add_(1)", lambda: v.add_(1))
    y = x * 1
    with torch.no_grad():
        v = y[0]
    rec.raises("v.add_(1), v of a non-leaf", lambda: v.add_(1))
    with torch.no_grad():
        v.add_(1)
    rec.value("under no_grad it can", y)
    w = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        v = torch.ones(3)[0:2]
    rec.raises("other operand requires grad", lambda: v.add_(w))
    rec.value("nothing requires grad: fine", v.add_(1))
    with torch.no_grad():
        v = x[1]
        x.add_(1)
    rec.printed("print(v) after its base changed", v)
    rec.raises("v.grad_fn", lambda: v.grad_fn)
    rec.raises("v.is_leaf", lambda: v.is_leaf)
    with torch.no_grad():
        v = x[1]
    rec.value("unchanged: fine", [v.grad_fn, v.is_leaf])


def index_put_assignment_grad_fns(torch, rec):
    x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    idx = torch.tensor([0, 2])
    mask = torch.tensor([True, False, False, True])

    def set_idx():
        x[idx] = 5.0

    def set_mask():
        x[mask] = 5.0

    def set_list():
        x[[0, 2]] = 5.0

    rec.raises("leaf x[idx] = 5.", set_idx)
    rec.raises("leaf x[mask] = 5.", set_mask)
    rec.raises("leaf x[[0, 2]] = 5.", set_list)
    rec.raises("leaf x.index_put_", lambda: x.index_put_((idx,), torch.tensor(5.0)))
    y = x * 2
    y[idx] = torch.tensor([10.0, 20.0])
    rec.value("y", y)
    rec.graph("graph(y)", y)
    rec.value("y._version", y._version)
    y.backward(torch.tensor([1.0, 2.0, 3.0, 4.0]))
    rec.value("x.grad: zero where written", x.grad)
    x.grad = None
    v = torch.tensor([10.0, 20.0], requires_grad=True)
    z = torch.zeros(4)
    z[idx] = v
    rec.value("z (no grad) with v requiring grad", (z, z.requires_grad, z.is_leaf))
    rec.graph("graph(z)", z)
    z.backward(torch.tensor([1.0, 2.0, 3.0, 4.0]))
    rec.value("v.grad: gathered", v.grad)
    s = torch.tensor(3.0, requires_grad=True)
    y = x * 1
    y[idx] = s
    rec.graph("graph, 0-dim value", y)
    y.backward(torch.tensor([1.0, 2.0, 3.0, 4.0]))
    rec.value("0-dim value: summed", (s.grad, x.grad))
    x.grad = None
    m = torch.tensor([7.0, 8.0], requires_grad=True)
    y = x * 1
    y[mask] = m
    rec.value("mask", y)
    y.backward(torch.tensor([1.0, 2.0, 3.0, 4.0]))
    rec.value("mask grads", (m.grad, x.grad))
    x.grad = None
    y = x * 1
    y[y > 2.5] = 0.0
    rec.value("y[y > 2.5] = 0.", y)
    rec.graph("graph, Python number", y)
    y = x * 1
    y[[1, 3]] = torch.tensor(1.0)
    rec.graph("graph, list index", y)
    lead = torch.tensor([[1.0, 2.0]], requires_grad=True)
    y = x * 1
    y[idx] = lead
    rec.graph("graph, value with a leading 1 dim (a view)", y)
    y.backward(torch.tensor([1.0, 2.0, 3.0, 4.0]))
    rec.value("lead.grad", lead.grad)


def index_put_assignment_on_matrices_and_views(torch, rec):
    X = torch.arange(12.0).reshape(3, 4).requires_grad_()
    rows = torch.tensor([0, 2])
    cols = torch.tensor([1, 3])
    v = torch.tensor([5.0, 6.0], requires_grad=True)
    cases = {}

    def run(label, assign):
        Y = X * 1
        assign(Y)
        cases[label] = Y
        rec.value(label, Y)
        rec.graph("graph " + label, Y)

    def rows_ones(Y):
        Y[rows] = torch.ones(4)

    def all_rows_cols(Y):
        Y[:, cols] = torch.zeros(3, 2)

    def slice_then_cols(Y):
        Y[1:, cols] = torch.zeros(2, 2)

    def int_then_cols(Y):
        Y[0, cols] = v

    def pairs(Y):
        Y[rows, cols] = v

    def ellipsis_cols(Y):
        Y[..., torch.tensor([1])] = 9.0

    def mask_rows(Y):
        Y[torch.tensor([True, False, True])] = torch.tensor([1.0, 2.0, 3.0, 4.0])

    run("Y[rows] = ones(4)", rows_ones)
    run("Y[:, cols] = zeros(3, 2)", all_rows_cols)
    run("Y[1:, cols] = zeros(2, 2)", slice_then_cols)
    run("Y[0, cols] = v", int_then_cols)
    run("Y[rows, cols] = v", pairs)
    run("Y[..., [1]] = 9.", ellipsis_cols)
    run("Y[bool rows] = row", mask_rows)
    total = sum((cases[k] * (i + 1)).sum() for i, k in enumerate(sorted(cases)))
    total.backward()
    rec.value("X.grad", X.grad)
    rec.value("v.grad", v.grad)
    V = X.view(12)

    def view_of_leaf():
        V[torch.tensor([0, 2])] = 0.0

    rec.raises("view of a leaf", view_of_leaf)
    Y = X * 1
    W = Y[1:]
    W[torch.tensor([0])] = torch.ones(4)
    rec.value("through a view", (_names(Y.grad_fn), _names(W.grad_fn), Y))
    with torch.no_grad():
        Y = X * 1
        Y[rows] = 0.0
    rec.value("under no_grad", (Y.grad_fn, Y))


def index_put_methods_and_functions(torch, rec):
    x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    i = torch.tensor([1, 2])
    y = x * 1
    y.index_put_((i,), torch.tensor([1.0, 1.0]))
    rec.value("index_put_", y)
    rec.graph("graph index_put_", y)
    y = x * 1
    y.index_put_([i], torch.tensor([1.0, 2.0]), accumulate=True)
    rec.value("index_put_ accumulate", y)
    y = x * 1
    z = y.index_put((i,), torch.tensor(1.0))
    rec.value("index_put (a copy)", (z, _names(y.grad_fn)))
    rec.graph("graph index_put", z)
    z2 = torch.index_put(y, (torch.tensor([True, False, True, False]),), torch.tensor(7.0), True)
    rec.value("torch.index_put, mask, accumulate", z2)
    (z.sum() + (z2 * z2).sum()).backward()
    rec.value("x.grad", x.grad)
    M = torch.zeros(3, 4)
    rec.value("rows accumulate with repeats",
              M.index_put_((torch.tensor([1, 1]),), torch.tensor([1.0, 2.0, 3.0, 4.0]),
                           accumulate=True))
    rec.raises("indices not a tuple", lambda: y.index_put_(i, torch.tensor(1.0)))
    rec.raises("values not a tensor", lambda: y.index_put_((i,), 1.0))
    rec.raises("a list in indices", lambda: y.index_put_(([1, 2],), torch.tensor(1.0)))
    rec.raises("function: indices not a tuple", lambda: torch.index_put(y, i, torch.tensor(1.0)))
    rec.raises("function: values", lambda: torch.index_put(y, (i,), 1.0))
    rec.raises("method: indices", lambda: y.index_put(i, torch.tensor(1.0)))
    rec.raises("method: values", lambda: y.index_put((i,), 1.0))
    rec.raises("too many indices", lambda: y.index_put_((i, i), torch.tensor(1.0)))
    rec.raises("float index", lambda: y.index_put_((torch.tensor([1.0]),), torch.tensor(1.0)))


def index_put_assignment_errors(torch, rec):
    idx = torch.tensor([0, 2])
    for requires_grad in (False, True):
        tag = "rg " if requires_grad else ""
        y = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=requires_grad) * 1

        def put(index, value, y=y):
            def go():
                y[index] = value
            return go

        rec.raises(tag + "out of range", put(torch.tensor([5]), 1.0))
        rec.raises(tag + "negative out of range", put(torch.tensor([0, -5]), 1.0))
        rec.raises(tag + "list out of range", put([0, 5], 1.0))
        rec.raises(tag + "value shape", put(idx, torch.ones(3)))
        rec.raises(tag + "value shape [2, 1]", put(idx, torch.ones(2, 1)))
        rec.raises(tag + "mask shape", put(torch.tensor([True, False]), 1.0))
        rec.raises(tag + "value dtype", put(idx, torch.ones(2, dtype=torch.float64)))
        rec.raises(tag + "value dtype long", put(idx, torch.ones(2, dtype=torch.int64)))
        rec.raises(tag + "float index", put(torch.tensor([0.0, 1.0]), 1.0))
        rec.raises(tag + "shape before bounds", put(torch.tensor([5]), torch.ones(3)))
        rec.raises(tag + "value [1, 2] is fine", put(idx, torch.ones(1, 2)))
        rec.value(tag + "y after", y)
    Y = torch.zeros(3, 4)

    def put2(index, value):
        def go():
            Y[index] = value
        return go

    rec.raises("indices that do not broadcast", put2((torch.tensor([0, 1]),
                                                     torch.tensor([0, 1, 2])), 1.0))
    rec.raises("mask on dim 1", put2((slice(None), torch.tensor([True, False])), 1.0))
    rec.raises("bounds: first position, then dims in order",
               put2((torch.tensor([0, 3]), torch.tensor([9, 1])), 1.0))
    rec.raises("bounds dim 1", put2((slice(None), torch.tensor([0, 9])), 1.0))
    rec.raises("getitem bounds", lambda: Y[torch.tensor([5, 7])])
    rec.raises("getitem bounds, non-adjacent",
               lambda: torch.zeros(2, 2, 2)[torch.tensor([0, 1]), :, torch.tensor([0, 5])])
    rec.raises("getitem mask shape", lambda: Y[torch.ones(3, 5, dtype=torch.bool)])
    rec.raises("getitem float index", lambda: Y[torch.tensor([0.0])])
    rec.value("empty index", Y[torch.tensor([], dtype=torch.int64)])
    zi = torch.zeros(4, dtype=torch.int64)

    def int_target():
        zi[idx] = 1.5

    int_target()
    rec.value("a number is converted to the target's dtype", zi)
    rec.raises("a 0-dim tensor is not", lambda: zi.index_put_((idx,), torch.tensor(1.5)))


def index_put_double_backward_and_repeats(torch, rec):
    x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    idx = torch.tensor([0, 2])
    y = x * x
    v = torch.tensor([1.0, 2.0], requires_grad=True)
    y[idx] = v * v
    gy = torch.tensor([1.0, 1.0, 1.0, 1.0], requires_grad=True)
    gx, gv = torch.autograd.grad(y, [x, v], gy, create_graph=True)
    rec.value("gx, gv", (gx, gv))
    rec.graph("graph(gx)", gx)
    rec.graph("graph(gv)", gv)
    rec.value("second", torch.autograd.grad((gx * gx).sum() + gv.sum(), [x, v, gy]))
    w = x[idx]
    (g,) = torch.autograd.grad((w * w).sum(), x, create_graph=True)
    rec.graph("graph of indexing's gradient", g)
    y = x * 1
    r = torch.tensor([1.0, 2.0], requires_grad=True)
    y[torch.tensor([1, 1])] = r
    y.backward(torch.tensor([1.0, 2.0, 3.0, 4.0]))
    rec.value("a repeated index: every value gets the position's gradient", (r.grad, x.grad))


def setitem_basic_index_value_shapes(torch, rec):
    x = torch.zeros(2, 3, requires_grad=True)
    weights = torch.arange(6.0).reshape(2, 3)
    values = {
        "[3]": torch.ones(3, requires_grad=True),
        "[1, 3]": torch.ones(1, 3, requires_grad=True),
        "[1, 1]": torch.ones(1, 1, requires_grad=True),
        "0-dim": torch.ones((), requires_grad=True),
        "[1, 2, 3]": torch.ones(1, 2, 3, requires_grad=True),
    }
    indices = {"0:2": slice(0, 2), "0": 0, ":, 1": (slice(None), 1), "0:1": slice(0, 1),
               "...": Ellipsis, ":": slice(None)}
    for vname, v in values.items():
        for iname, ix in indices.items():
            label = f"y[{iname}] = value {vname}"
            y = x * 1

            def assign(y=y, ix=ix, v=v):
                y[ix] = v

            if rec.raises(label, assign) is not None:
                continue
            rec.graph("graph " + label, y)
            (y * weights).sum().backward()
            rec.value("grads " + label, (x.grad, v.grad))
            x.grad = None
            v.grad = None
    y = x * 1
    y[0] = 5.0
    rec.graph("graph y[0] = 5.", y)
    y = x * 1
    y[:] = 5.0
    rec.graph("graph y[:] = 5.", y)
    y = x * 1
    y.fill_(torch.tensor(2.0))
    rec.graph("graph fill_(0-dim tensor)", y)
    w = torch.tensor(2.0, requires_grad=True)
    y = x * 1
    y.fill_(w)
    y.sum().backward()
    rec.value("fill_(w): w.grad, x.grad", (w.grad, x.grad))
    rec.raises("fill_(1-dim tensor)", lambda: y.fill_(torch.ones(2)))
    z = torch.zeros(3, dtype=torch.int64)
    rec.value("int fill_(2.7 tensor)", z.fill_(torch.tensor(2.7)))


def retain_grad_is_filled_by_autograd_grad(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    y.retain_grad()
    rec.value("grad", torch.autograd.grad(y.sum(), x))
    rec.value("y.grad, x.grad", (y.grad, x.grad))
    y = x * x
    a, b = y
    a.retain_grad()
    b.retain_grad()
    rec.value("grad, create_graph", torch.autograd.grad(a * 3, x, create_graph=True))
    rec.value("a.grad, b.grad", (a.grad, b.grad))
    z = x * 2
    w = z * 3
    z.retain_grad()
    w.retain_grad()
    rec.value("grad wrt z: nothing runs past it", torch.autograd.grad(w.sum(), [z]))
    rec.value("z.grad, w.grad", (z.grad, w.grad))


# ===========================================================================
# No silent divergence: views and in-place, retained grads, backward(inputs=),
# detach_, overlapping writes, NaN gradients, 0-dim reductions, torch's errors
# ===========================================================================


def view_taken_before_base_changes_in_place_follows_the_base(torch, rec):
    x = _leaf(torch, [1.0, 2.0, 3.0])
    y = x * 3
    v = y[1:]
    y.mul_(3)
    rec.value("v", v)
    rec.value("v.grad_fn", v.grad_fn.name())
    rec.value("next", v.grad_fn.next_functions[0][0].name())
    (v * v).sum().backward()
    rec.value("x.grad", x.grad)
    # a view of a view, and a second change: the grad_fn is made again each time
    x2 = _leaf(torch, [1.0, 2.0, 3.0, 4.0])
    y2 = x2 * 1
    w = y2[1:][:2]
    y2.add_(1)
    first = w.grad_fn
    rec.value("same node while nothing changes", first is w.grad_fn)
    y2.mul_(2)
    rec.value("a new node after a change", first is not w.grad_fn)
    (w * torch.tensor([1.0, 2.0])).sum().backward()
    rec.value("x2.grad", x2.grad)


def view_made_before_an_in_place_change_through_another_view(torch, rec):
    x = _leaf(torch, [1.0, 2.0, 3.0])
    y = x * 3
    v = y[1:]
    w = y[:2]
    v.mul_(2)
    rec.graph("graph(w)", w)
    (w * w).sum().backward()
    rec.value("x.grad", x.grad)


def view_of_transpose_and_expand_after_base_changes(torch, rec):
    x = _leaf(torch, [[1.0, 2.0], [3.0, 4.0]])
    y = x * 1
    v = y.t()
    y.mul_(2)
    rec.value("v.grad_fn", v.grad_fn.name())
    (v * torch.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    rec.value("x.grad", x.grad)
    a = _leaf(torch, [1.0, 2.0])
    b = a * 1
    e = b.expand(2, 2)
    b.mul_(3)
    rec.value("e", e)
    e.sum().backward()
    rec.value("a.grad", a.grad)


def view_of_leaf_changed_under_no_grad(torch, rec):
    x = _leaf(torch, [1.0, 2.0, 3.0])
    v = x[1:]
    with torch.no_grad():
        x.mul_(2)
    rec.value("v.grad_fn", v.grad_fn.name())
    rec.value("next", v.grad_fn.next_functions[0][0].name())
    (v * v).sum().backward()
    rec.value("x.grad", x.grad)


def view_of_plain_tensor_requires_grad_once_base_does(torch, rec):
    h = torch.zeros(3)
    row = h[1:]
    w = _leaf(torch, 2.0)
    h.add_(w)
    rec.value("row.requires_grad", row.requires_grad)
    out = (row * row).sum()
    out.backward()
    rec.value("w.grad", w.grad)
    rec.value("row.grad_fn", row.grad_fn.name())


def retain_grad_then_in_place_keeps_the_last_versions_grad(torch, rec):
    x = _leaf(torch, [1.0, 2.0])
    y = x * 2
    y.retain_grad()
    y.mul_(3)
    (y * y).sum().backward()
    rec.value("y.grad", y.grad)
    rec.value("x.grad", x.grad)
    x2 = _leaf(torch, [1.0, 2.0, 3.0])
    y2 = x2 * 3
    v = y2[1:]
    v.retain_grad()
    y2.mul_(2)
    (v * v).sum().backward()
    rec.value("v.grad", v.grad)


def backward_inputs_non_leaf_and_no_grad(torch, rec):
    x = _leaf(torch, [1.0, 2.0])
    y = x * 2
    (y * y).sum().backward(inputs=[y])
    rec.value("y.retains_grad", y.retains_grad)
    rec.value("y.grad", y.grad)
    rec.value("x.grad", x.grad)
    y = x * 2
    (y * y).sum().backward(inputs=[x, y])
    rec.value("y.grad of a new y", y.grad)
    rec.value("x.grad now", x.grad)
    w = torch.tensor([1.0])
    rec.raises("input without grad", lambda: (x * 2).sum().backward(inputs=[w]))


def detach_in_place_of_a_saved_input_raises_at_backward(torch, rec):
    x = _leaf(torch, [1.0, 2.0])
    y = x * 2
    z = y * y
    y.detach_()
    rec.value("y", y)
    rec.raises("backward", lambda: z.sum().backward())
    a = _leaf(torch, [1.0, 2.0])
    b = a.exp()  # exp saves its output, which torch does not check this way
    c = b.exp()
    b.detach_()
    rec.raises("saved output", lambda: c.sum().backward())


def writes_through_an_expanded_view(torch, rec):
    def fresh():
        base = torch.zeros(3)
        return base, base.expand(2, 3)

    for label, write in [
        ("add_", lambda e: e.add_(1)),
        ("+=", lambda e: e.__iadd__(1)),
        ("copy_", lambda e: e.copy_(torch.ones(2, 3))),
        ("clamp_", lambda e: e.clamp_(0, 1)),
        ("setitem column", lambda e: e.__setitem__((slice(None), 0), 5.0)),
        ("setitem all", lambda e: e.__setitem__(slice(None), 5.0)),
    ]:
        base, e = fresh()
        rec.raises(label, lambda e=e, write=write: write(e))
        rec.value(f"{label}: base unchanged", base)
    for label, write in [
        ("fill_", lambda e: e.fill_(1)),
        ("zero_", lambda e: e.zero_()),
        ("setitem one element", lambda e: e.__setitem__((0, 0), 5.0)),
        ("setitem one row", lambda e: e.__setitem__(0, 5.0)),
    ]:
        base, e = fresh()
        write(e)
        rec.value(f"{label}: base", base)
    x = _leaf(torch, [1.0, 2.0, 3.0])
    rec.raises("with grad", lambda: (x * 1).expand(2, 3).mul_(2))


def gradients_at_nan_and_inf(torch, rec):
    vals = [float("nan"), float("inf"), -float("inf"), 0.0, 1.0, -1.0]
    for name in ["relu", "abs", "sign", "sigmoid", "tanh", "exp", "sqrt", "sin", "neg"]:
        x = _leaf(torch, vals)
        y = getattr(x, name)()
        _fwd_bwd(torch, rec, name, y, {"x": x})
    x = _leaf(torch, vals)
    _fwd_bwd(torch, rec, "clamp", x.clamp(-0.5, 0.5), {"x": x})
    x = _leaf(torch, vals)
    _fwd_bwd(torch, rec, "max", x.max(), {"x": x})
    x = _leaf(torch, [float("nan"), 1.0, float("nan")])
    _fwd_bwd(torch, rec, "min of two nans", x.min(), {"x": x})
    x = _leaf(torch, vals)
    other = _leaf(torch, [0.0] * 6)
    _fwd_bwd(torch, rec, "maximum", torch.maximum(x, other), {"x": x, "other": other})
    x = _leaf(torch, vals)
    _fwd_bwd(torch, rec, "softmax", x.softmax(0), {"x": x})


def reductions_of_a_zero_dim_tensor_along_dim_0(torch, rec):
    for label, f in [
        ("sum(0)", lambda x: x.sum(0)),
        ("sum(-1)", lambda x: x.sum(-1)),
        ("sum(0, keepdim)", lambda x: x.sum(0, keepdim=True)),
        ("mean(0)", lambda x: x.mean(0)),
        ("amax(-1)", lambda x: x.amax(-1)),
        ("softmax(0)", lambda x: x.softmax(0)),
        ("log_softmax(-1)", lambda x: x.log_softmax(-1)),
        ("transpose(0, -1)", lambda x: x.transpose(0, -1)),
    ]:
        x = _leaf(torch, 3.0)
        y = f(x)
        rec.value(f"{label}: grad_fn", y.grad_fn.name())
        _fwd_bwd(torch, rec, label, y, {"x": x})
    x = torch.tensor(3.0)
    rec.value("max(0)", x.max(0))
    rec.value("argmax(0)", x.argmax(0))
    rec.raises("sum(1)", lambda: x.sum(1))
    rec.raises("size(0)", lambda: x.size(0))
    rec.raises("select", lambda: x.select(0, 0))
    rec.raises("narrow", lambda: x.narrow(0, 0, 1))
    rec.raises("flatten(1)", lambda: x.flatten(1))


def matmul_family_rank_size_and_dtype_errors(torch, rec):
    def z(*shape, dtype=None):
        return torch.zeros(*shape, dtype=dtype)

    d = torch.float64
    rec.raises("dot 2D", lambda: torch.dot(z(2, 3), z(3)))
    rec.raises("dot sizes", lambda: torch.dot(z(3), z(2)))
    rec.raises("dot dtypes", lambda: torch.dot(z(3), z(2, dtype=d)))
    rec.raises("dot bool", lambda: torch.dot(z(2, dtype=torch.bool), z(2, dtype=torch.bool)))
    rec.raises("mm self", lambda: torch.mm(z(3), z(3, 2)))
    rec.raises("mm mat2", lambda: torch.mm(z(2, 3), z(3)))
    rec.raises("mm shapes before dtypes", lambda: torch.mm(z(2, 3), z(2, 2, dtype=d)))
    rec.raises("mm dtypes", lambda: torch.mm(z(2, 2), z(2, 2, dtype=d)))
    rec.raises("bmm batch1", lambda: torch.bmm(z(2, 3), z(3, 2)))
    rec.raises("bmm batch2", lambda: torch.bmm(z(2, 2, 3), z(3, 2)))
    rec.raises("bmm sizes", lambda: torch.bmm(z(2, 2, 3), z(3, 3, 2)))
    rec.raises("bmm dtypes", lambda: torch.bmm(z(1, 2, 2), z(1, 2, 2, dtype=d)))
    rec.raises("mv ranks", lambda: torch.mv(z(3), z(3)))
    rec.raises("mv vec 2D", lambda: torch.mv(z(2, 3), z(3, 1)))
    rec.raises("mv sizes", lambda: torch.mv(z(2, 3), z(2)))
    rec.raises("mv dtypes", lambda: torch.mv(z(2, 2), z(2, dtype=d)))
    rec.raises("mv 0-dim", lambda: torch.mv(torch.tensor(1.0), z(2)))
    rec.raises("matmul 0-dim", lambda: torch.matmul(torch.tensor(1.0), z(2)))
    rec.raises("matmul 1D 1D sizes", lambda: torch.matmul(z(3), z(2)))
    rec.raises("matmul 1D 1D dtypes", lambda: torch.matmul(z(2), z(2, dtype=d)))
    rec.raises("matmul 3D 2D", lambda: torch.matmul(z(2, 2, 3), z(2, 2)))
    rec.raises("matmul bool", lambda: torch.matmul(z(2, 2, 2, dtype=torch.bool),
                                                   z(2, 2, 2, dtype=torch.bool)))


def cat_permute_and_int64_limits_raise_torchs_errors(torch, rec):
    rec.raises("cat([])", lambda: torch.cat([]))
    rec.raises("cat of 0-dim", lambda: torch.cat([torch.tensor(1.0), torch.tensor(2.0)]))
    rec.raises("cat with 0-dim", lambda: torch.cat([torch.ones(2), torch.tensor(2.0)]))
    rec.raises("cat of a tensor", lambda: torch.cat(torch.ones(2, 2)))
    rec.raises("cat with a number", lambda: torch.cat([torch.ones(2), 1.0]))
    x = _leaf(torch, [[1.0, 2.0]])
    y = torch.cat([x, torch.zeros(0)], 0)
    rec.value("cat skips a 1-D empty tensor", y)
    y.sum().backward()
    rec.value("x.grad", x.grad)
    rec.raises("stack of a tensor", lambda: torch.stack(torch.ones(2, 2)))
    z = torch.zeros(2, 3)
    rec.raises("permute repeated", lambda: z.permute(0, 0))
    rec.raises("permute repeated negative", lambda: z.permute(1, -1))
    rec.raises("permute too few", lambda: z.permute(0))
    rec.raises("permute none", lambda: z.permute())
    rec.raises("permute out of range", lambda: z.permute(0, 5))
    rec.raises("tensor(2**63)", lambda: torch.tensor(2**63))
    rec.raises("tensor(-2**63 - 1)", lambda: torch.tensor(-(2**63) - 1))
    rec.raises("tensor([1, 2**64])", lambda: torch.tensor([1, 2**64]))
    rec.value("tensor(2**63 - 1)", torch.tensor(2**63 - 1))
    rec.value("tensor([1.5, 2**63])", torch.tensor([1.5, 2**63]))
    rec.raises("tensor(1e30, long)", lambda: torch.tensor(1e30, dtype=torch.int64))
    rec.raises("full(2**63)", lambda: torch.full((2,), 2**63))


def grad_fn_types_are_named_as_torch(torch, rec):
    x = _leaf(torch, [[1.0, 2.0]])
    outs = [x**2, x * x, x + 1, x.sum(), x[0], x.exp(), x.view(2), x.squeeze(0),
            x.squeeze(), x.t(), x @ x.t(), x.sinh()]
    rec.value("type names", [type(t.grad_fn).__name__ for t in outs])
    rec.value("leaf node", type(outs[0].grad_fn.next_functions[0][0]).__name__)


def bool_int_and_empty_arguments_raise_torchs_errors(torch, rec):
    b = torch.tensor([True, False])
    f = torch.tensor([1.0, 2.0])
    i = torch.tensor([1, 2])
    e = torch.zeros(0)
    rec.raises("bool - bool", lambda: b - b)
    rec.raises("float - bool", lambda: f - b)
    rec.raises("1 - bool", lambda: 1 - b)
    rec.raises("-bool", lambda: -b)
    rec.raises("bool ** bool", lambda: b ** b)
    rec.value("bool ** 2", b ** 2)
    rec.raises("int ** -1", lambda: i ** -1)
    rec.value("int ** negative int tensor", torch.tensor([0, 1, -1, 2, -1]) ** torch.tensor(
        [-1, -1, -1, -2, -2]))
    rec.raises("abs(bool)", lambda: b.abs())
    rec.raises("relu(bool)", lambda: b.relu())
    rec.value("sign(bool)", b.sign())
    rec.raises("argmax(bool)", lambda: b.argmax())
    rec.raises("mean(int)", lambda: i.mean())
    rec.raises("mean(bool, dim)", lambda: b.mean(0))
    rec.raises("softmax(int)", lambda: i.softmax(0))
    rec.raises("log_softmax(int 2-D, dim 0)", lambda: torch.ones(2, 2, dtype=torch.int64)
               .log_softmax(0))
    rec.raises("amax()", lambda: e.amax())
    rec.raises("amax(-1)", lambda: e.amax(-1))
    rec.value("amax(0) of (2, 0)", torch.zeros(2, 0).amax(0))
    rec.raises("max(-1)", lambda: e.max(-1))
    rec.raises("argmax()", lambda: e.argmax())
    rec.raises("argmin(0)", lambda: e.argmin(0))
    rec.value("softmax of nothing", e.softmax(0))
    rec.raises("select out of range", lambda: f.select(0, 2))
    rec.raises("narrow negative length", lambda: f.narrow(0, 0, -1))
    rec.raises("narrow start", lambda: f.narrow(0, 3, 0))
    rec.raises("narrow past the end", lambda: f.narrow(0, 1, 2))
    rec.value("narrow negative start", f.narrow(0, -1, 1))



SCENARIOS = collect_scenarios(globals(), __name__)
SCENARIOS.update(scenarios_nn.SCENARIOS)
SCENARIOS.update(scenarios_pointwise.SCENARIOS)
SCENARIOS.update(scenarios_reduce.SCENARIOS)
SCENARIOS.update(scenarios_shape.SCENARIOS)
SCENARIOS.update(scenarios_conv.SCENARIOS)
SCENARIOS.update(scenarios_autograd_api.SCENARIOS)
SCENARIOS.update(scenarios_numerics.SCENARIOS)
SCENARIOS.update(scenarios_misc.SCENARIOS)
SCENARIOS.update(scenarios_added_ops.SCENARIOS)
SCENARIOS.update(scenarios_func.SCENARIOS)
