"""Finite differences in float64 against every differentiable op's backward formula.

One checker (`check_first`, `check_second`) perturbs each input element in turn and compares
central differences (eps 1e-6) with the gradient the engine computes; one table (`CASES`)
drives it over scalar, vector, matrix and broadcast shapes. Inputs are drawn away from the
kinks (those are tests/test_kinks.py's business). When real torch imports, each case is also
run in torch and the engine's gradients must equal torch's.
"""

from __future__ import annotations

import math
import random
import zlib

import pytest
from live_torch import real_torch

import engine

EPS = 1e-6
RTOL = 1e-5
ATOL = 1e-5


# -- inputs -----------------------------------------------------------------------------------

def _numel(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _draw(name: str, i: int, shape, lo: float, hi: float, avoid, margin: float) -> list:
    """Flat values in [lo, hi], deterministic per case and input, at least `margin` from
    every point in `avoid` and from each other (so max/min/amax never see a tie)."""
    rng = random.Random(zlib.crc32(f"{name}/{i}".encode()))
    out: list = []
    while len(out) < _numel(shape):
        v = round(rng.uniform(lo, hi), 3)
        if all(abs(v - k) >= margin for k in avoid) and all(abs(v - w) >= 1e-2 for w in out):
            out.append(v)
    return out


class Case:
    """fn(T, *inputs) -> tensor, with T the torch-like module (engine or torch)."""

    def __init__(self, name, fn, *shapes, lo=-2.0, hi=2.0, avoid=(0.0,), margin=0.1,
                 values=None, eps=EPS, tol=(RTOL, ATOL)):
        self.name, self.fn, self.shapes = name, fn, shapes
        if values is not None:
            self.flat = [list(_flatten(v)) for v in values]
            self.shapes = tuple(_shape_of(v) for v in values)
        else:
            self.flat = [_draw(name, i, s, lo, hi, avoid, margin) for i, s in enumerate(shapes)]
        self.eps, self.tol = eps, tol


def _flatten(v):
    if isinstance(v, list):
        for x in v:
            yield from _flatten(x)
    else:
        yield float(v)


def _shape_of(v) -> tuple:
    shape = []
    while isinstance(v, list):
        shape.append(len(v))
        v = v[0]
    return tuple(shape)


def _nest(flat, shape):
    if not shape:
        return flat[0]
    step = _numel(shape[1:])
    return [_nest(flat[k * step:(k + 1) * step], shape[1:]) for k in range(shape[0])]


def _make(T, flat, shape, requires_grad=False):
    return T.tensor(_nest(list(flat), tuple(shape)), dtype=T.float64,
                    requires_grad=requires_grad)


def _weights(name: str, shape, salt: str = "w") -> list:
    """Fixed cotangent: reduces any output to a scalar whose gradient checks every entry."""
    rng = random.Random(zlib.crc32(f"{name}/{salt}".encode()))
    return [round(rng.uniform(0.5, 1.5), 3) * rng.choice((-1, 1)) for _ in range(_numel(shape))]


def _scalar_loss(T, case, out):
    w = _make(T, _weights(case.name, tuple(out.shape)), tuple(out.shape))
    return (out * w).sum()


def _loss_value(case, flat_inputs) -> float:
    with engine.no_grad():
        xs = [_make(engine, f, s) for f, s in zip(flat_inputs, case.shapes)]
        out = case.fn(engine, *xs)
        return _scalar_loss(engine, case, out).item()


def _numeric_grads(value_fn, flat_inputs, eps) -> list:
    grads = []
    for i, flat in enumerate(flat_inputs):
        g = []
        for j in range(len(flat)):
            plus = [list(f) for f in flat_inputs]
            minus = [list(f) for f in flat_inputs]
            plus[i][j] += eps
            minus[i][j] -= eps
            g.append((value_fn(plus) - value_fn(minus)) / (2 * eps))
        grads.append(g)
    return grads


def _flat_list(t) -> list:
    v = t.tolist()
    return list(_flatten(v)) if isinstance(v, list) else [float(v)]


def _assert_close(what, expected, got, tol):
    rtol, atol = tol
    assert len(expected) == len(got), f"{what}: {len(expected)} vs {len(got)} elements"
    for k, (e, g) in enumerate(zip(expected, got)):
        assert abs(e - g) <= atol + rtol * abs(e), f"{what}[{k}]: expected {e!r}, got {g!r}"


def _analytic_grads(T, case, create_graph=False):
    xs = [_make(T, f, s, requires_grad=True) for f, s in zip(case.flat, case.shapes)]
    out = case.fn(T, *xs)
    loss = _scalar_loss(T, case, out)
    grads = T.autograd.grad(loss, xs, create_graph=create_graph, allow_unused=True)
    return xs, out, grads


def _grad_flat(g, shape) -> list:
    return [0.0] * _numel(shape) if g is None else _flat_list(g)


# -- the table ---------------------------------------------------------------------------------

POS = {"lo": 0.2, "hi": 3.0, "avoid": ()}


def _mask(T):
    return T.tensor([[True, False, True, True], [False, True, False, True], [True] * 4])


def _assign(T, a, index, v):
    """y[index] = v into a non-leaf y made from a; squared, so second derivatives see it."""
    y = a * 1.5
    y[index] = v
    return y * y


CASES = [
    # + - * / with broadcasting
    Case("add_vec", lambda T, a, b: a + b, (4,), (4,)),
    Case("add_scalar_tensors", lambda T, a, b: a + b, (), ()),
    Case("add_broadcast", lambda T, a, b: a + b, (3, 1), (4,)),
    Case("add_number", lambda T, a: 2.5 + a, (2, 3)),
    Case("add_alpha", lambda T, a, b: T.add(a, b, alpha=-1.5), (2, 3), (3,)),
    Case("sub_broadcast", lambda T, a, b: a - b, (2, 3), (2, 1)),
    Case("rsub_number", lambda T, a: 1 - a, (3,)),
    Case("sub_0dim_matrix", lambda T, a, b: a - b, (), (2, 2)),
    Case("mul_matrix", lambda T, a, b: a * b, (2, 3), (2, 3)),
    Case("mul_broadcast", lambda T, a, b: a * b, (2, 1, 3), (4, 1)),
    Case("mul_number", lambda T, a: a * -3.0, (4,)),
    Case("mul_self", lambda T, a: a * a, (3,)),
    Case("div_vec", lambda T, a, b: a / b, (4,), (4,)),
    Case("div_broadcast", lambda T, a, b: a / b, (2, 3), (3,)),
    Case("div_number", lambda T, a: a / 4.0, (3,)),
    Case("rdiv_number", lambda T, a: 2.0 / a, (3,)),
    Case("neg", lambda T, a: -a, (2, 2)),
    # **
    Case("pow_square", lambda T, a: a ** 2, (4,)),
    Case("pow_cube_negative_base", lambda T, a: a ** 3, (2, 2)),
    Case("pow_fractional", lambda T, a: a ** 2.5, (4,), **POS),
    Case("pow_negative", lambda T, a: a ** -1.5, (4,), **POS),
    Case("pow_zero", lambda T, a: a ** 0, (3,)),
    Case("pow_method", lambda T, a: a.pow(3), ()),
    Case("pow_tensor_exponent", lambda T, a, b: a ** b, (3,), (3,), **POS),
    Case("pow_tensor_broadcast", lambda T, a, b: a ** b, (2, 3), (3,), **POS),
    Case("pow_number_base", lambda T, a: 2.0 ** a, (2, 2)),
    Case("pow_number_base_fraction", lambda T, a: 0.5 ** a, (3,)),
    # unary
    Case("exp", lambda T, a: a.exp(), (2, 3)),
    Case("exp_scalar", lambda T, a: T.exp(a), ()),
    Case("log", lambda T, a: a.log(), (2, 3), **POS),
    Case("sqrt", lambda T, a: a.sqrt(), (4,), **POS),
    Case("abs", lambda T, a: a.abs(), (2, 3)),
    Case("sin", lambda T, a: a.sin(), (4,)),
    Case("cos", lambda T, a: T.cos(a), (2, 2)),
    Case("sinh", lambda T, a: a.sinh(), (2, 3)),
    Case("cosh", lambda T, a: T.cosh(a), (4,)),
    Case("tanh", lambda T, a: a.tanh(), (2, 3)),
    Case("sigmoid", lambda T, a: a.sigmoid(), (2, 3)),
    Case("relu", lambda T, a: a.relu(), (2, 3)),
    Case("relu_function", lambda T, a: T.relu(a), ()),
    Case("clamp_both", lambda T, a: a.clamp(-0.5, 0.7), (3, 3), avoid=(-0.5, 0.7), margin=0.05),
    Case("clamp_min", lambda T, a: a.clamp(min=0.3), (5,), avoid=(0.3,), margin=0.05),
    Case("clamp_max", lambda T, a: T.clamp(a, max=-0.2), (5,), avoid=(-0.2,), margin=0.05),
    Case("clamp_tensor_bounds", lambda T, a, lo, hi: a.clamp(lo, hi),
         values=([-2.0, -0.3, 0.1, 0.4, 1.7, 2.5], [-1.0, -0.5, -0.2, 0.0, 0.5, 1.0],
                 [1.0, 0.5, 0.6, 0.8, 1.5, 2.0])),
    Case("clamp_tensor_min_broadcast", lambda T, a, lo: T.clamp(a, min=lo),
         values=([[-1.0, 0.5], [0.2, -0.4]], [0.0, -0.1])),
    Case("clamp_tensor_max", lambda T, a, hi: T.clamp(a, max=hi),
         values=([-1.0, 0.5, 0.9], [0.0, 0.7, 0.2])),
    # reductions
    Case("sum_full", lambda T, a: a.sum(), (2, 3)),
    Case("sum_scalar", lambda T, a: a.sum(), ()),
    Case("sum_dim", lambda T, a: a.sum(1), (2, 3)),
    Case("sum_dim_keepdim", lambda T, a: a.sum(0, keepdim=True), (2, 3)),
    Case("sum_dims", lambda T, a: a.sum((0, 2)), (2, 3, 2)),
    Case("sum_negative_dim", lambda T, a: T.sum(a, -1), (3, 2)),
    Case("mean_full", lambda T, a: a.mean(), (2, 3)),
    Case("mean_dim", lambda T, a: a.mean(0), (2, 3)),
    Case("mean_dim_keepdim", lambda T, a: a.mean(-1, keepdim=True), (2, 3)),
    Case("amax_full", lambda T, a: a.amax(), (2, 3)),
    Case("amax_dim", lambda T, a: a.amax(1), (2, 3)),
    Case("amax_dim_keepdim", lambda T, a: T.amax(a, 0, keepdim=True), (3, 2)),
    Case("amin_full", lambda T, a: a.amin(), (4,)),
    Case("amin_dim", lambda T, a: a.amin(0), (3, 2)),
    Case("amin_dims_keepdim", lambda T, a: a.amin((0, 1), keepdim=True), (2, 2, 2)),
    Case("max_full", lambda T, a: a.max(), (2, 3)),
    Case("max_dim", lambda T, a: a.max(1).values, (2, 3)),
    Case("max_dim_keepdim", lambda T, a: T.max(a, 0, keepdim=True)[0], (3, 2)),
    Case("min_full", lambda T, a: T.min(a), (5,)),
    Case("min_dim", lambda T, a: a.min(-1)[0], (2, 3)),
    Case("min_dim_keepdim", lambda T, a: a.min(1, keepdim=True).values, (2, 3)),
    Case("softmax_last", lambda T, a: a.softmax(-1), (2, 3)),
    Case("softmax_dim0", lambda T, a: T.softmax(a, 0), (3, 2)),
    Case("softmax_vector", lambda T, a: a.softmax(0), (4,)),
    Case("log_softmax_last", lambda T, a: a.log_softmax(-1), (2, 3)),
    Case("log_softmax_dim0", lambda T, a: T.log_softmax(a, 0), (3, 2)),
    # matmul and its decompositions
    Case("matmul_1d_1d", lambda T, a, b: a @ b, (3,), (3,)),
    Case("matmul_2d_1d", lambda T, a, b: a @ b, (2, 3), (3,)),
    Case("matmul_1d_2d", lambda T, a, b: a @ b, (3,), (3, 4)),
    Case("matmul_2d_2d", lambda T, a, b: a @ b, (2, 3), (3, 4)),
    Case("matmul_3d_2d", lambda T, a, b: a @ b, (2, 2, 3), (3, 4)),
    Case("matmul_3d_1d", lambda T, a, b: T.matmul(a, b), (2, 2, 3), (3,)),
    Case("matmul_1d_3d", lambda T, a, b: a @ b, (3,), (2, 3, 2)),
    Case("matmul_2d_3d", lambda T, a, b: a @ b, (2, 3), (2, 3, 2)),
    Case("matmul_3d_3d", lambda T, a, b: a @ b, (2, 2, 3), (2, 3, 2)),
    Case("matmul_broadcast_batch", lambda T, a, b: a @ b, (2, 1, 2, 3), (3, 3, 2)),
    Case("mm", lambda T, a, b: T.mm(a, b), (3, 2), (2, 2)),
    Case("mv", lambda T, a, b: a.mv(b), (2, 3), (3,)),
    Case("dot", lambda T, a, b: T.dot(a, b), (4,), (4,)),
    # shape
    Case("t", lambda T, a: a.t() * T.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]],
                                             dtype=T.float64), (2, 3)),
    Case("t_vector", lambda T, a: a.t(), (3,)),
    Case("transpose", lambda T, a: a.transpose(0, 2), (2, 3, 2)),
    Case("permute", lambda T, a: a.permute(2, 0, 1), (2, 3, 2)),
    Case("reshape", lambda T, a: a.reshape(3, 2), (2, 3)),
    Case("reshape_noncontiguous", lambda T, a: a.t().reshape(-1), (2, 3)),
    Case("view", lambda T, a: a.view(6), (2, 3)),
    Case("squeeze_all", lambda T, a: a.squeeze(), (1, 3, 1)),
    Case("squeeze_dim", lambda T, a: a.squeeze(0), (1, 3)),
    Case("unsqueeze", lambda T, a: a.unsqueeze(1), (2, 3)),
    Case("expand", lambda T, a: a.expand(2, 3, 4), (3, 1)),
    Case("flatten", lambda T, a: a.flatten(), (2, 2, 2)),
    Case("flatten_range", lambda T, a: a.flatten(1), (2, 2, 2)),
    Case("T_property", lambda T, a: a.T, (2, 3)),
    # indexing
    Case("index_int", lambda T, a: a[1], (3, 2)),
    Case("index_negative", lambda T, a: a[-1], (4,)),
    Case("index_slice_step", lambda T, a: a[1:5:2], (6,)),
    Case("index_negative_slice", lambda T, a: a[:, -2:], (2, 3)),
    Case("index_tuple", lambda T, a: a[0, 1], (2, 3)),
    Case("index_none", lambda T, a: a[None, :, 1], (2, 3)),
    Case("index_ellipsis", lambda T, a: a[..., 1], (2, 2, 3)),
    Case("index_int_list_repeats", lambda T, a: a[[0, 2, 0]], (3, 2)),
    Case("index_int_lists_pair", lambda T, a: a[[0, 1], [2, 0]], (2, 3)),
    Case("index_column_list", lambda T, a: a[:, [1, 1, 0]], (2, 3)),
    Case("index_bool_mask", lambda T, a: a[_mask(T)], (3, 4)),
    Case("index_bool_rows", lambda T, a: a[T.tensor([True, False, True])], (3, 2)),
    # several outputs: unbind and iteration (one UnbindBackward0 node)
    Case("unbind_rows", lambda T, a: (lambda r: r[0] * r[2] + r[1])(a.unbind(0)), (3, 2)),
    Case("unbind_unused_outputs", lambda T, a: a.unbind(1)[1] * 2, (2, 3)),
    Case("iterate_rows", lambda T, a: T.stack(list(a)[::-1], 1), (3, 2)),
    # assignment through index tensors (IndexPutBackward0; on a view, CopySlices)
    Case("setitem_index_tensor", lambda T, a, v: _assign(T, a, T.tensor([0, 2]), v), (4,), (2,)),
    Case("setitem_bool_mask_number", lambda T, a, v: _assign(T, a, _mask(T), v), (3, 4), ()),
    Case("setitem_columns_broadcast",
         lambda T, a, v: _assign(T, a, (slice(None), T.tensor([1, 3])), v), (3, 4), (2,)),
    Case("setitem_view_copyslices",
         lambda T, a, v: _assign(T, a, (slice(1, None), T.tensor([0, 2])), v), (3, 4), (2, 2)),
    Case("index_put_accumulate",
         lambda T, a, v: T.index_put(a, (T.tensor([1, 1, 0]),), v, True), (3, 2), (3, 2)),
    # combining
    Case("cat_dim0", lambda T, a, b: T.cat([a, b]), (2, 3), (1, 3)),
    Case("cat_dim1", lambda T, a, b: T.cat([a, b, a], dim=1), (2, 1), (2, 2)),
    Case("stack_dim0", lambda T, a, b: T.stack([a, b]), (3,), (3,)),
    Case("stack_dim_last", lambda T, a, b: T.stack([a, b], -1), (2, 2), (2, 2)),
    Case("where", lambda T, a, b: T.where(_mask(T), a, b), (3, 4), (3, 4)),
    Case("where_broadcast", lambda T, a, b: T.where(T.tensor([True, False, True]), a, b),
         (2, 3), (1,)),
    Case("where_number", lambda T, a: T.where(T.tensor([True, False]), a, 0.5), (2,)),
    Case("maximum", lambda T, a, b: T.maximum(a, b), (2, 3), (2, 3)),
    Case("maximum_broadcast", lambda T, a, b: T.maximum(a, b), (2, 3), (3,)),
    Case("minimum", lambda T, a, b: T.minimum(a, b), (4,), (4,)),
    Case("minimum_broadcast", lambda T, a, b: T.minimum(a, b), (3, 1), (2,)),
    Case("clone", lambda T, a: a.clone() * 2, (2, 3)),
    # float64 -> float32 -> float64 rounds to float32, so this one needs a coarser step
    Case("to_float32_and_back", lambda T, a: a.to(T.float32).to(T.float64), (2, 3),
         eps=1e-2, tol=(1e-4, 1e-4)),
    Case("to_same_dtype", lambda T, a: a.to(T.float64) * 2, (3,)),
    # a composite: an MLP-like chain through many ops at once
    Case("composite_mlp", lambda T, x, w, b: ((x @ w + b).tanh() @ w.t()).sigmoid().mean(0),
         (4, 3), (3, 3), (3,)),
    # % and fmod, away from their jumps (where a / b is a whole number)
    Case("remainder_broadcast", lambda T, a, b: a % b,
         values=([[5.3, -3.7, 7.1], [1.1, 4.4, -0.6]], [2.2, 2.9, -2.6])),
    Case("remainder_number", lambda T, a: a % 1.7, values=([0.5, -0.4, 2.1, 3.9],)),
    Case("fmod_tensors", lambda T, a, b: T.fmod(a, b),
         values=([5.3, -3.7, 7.1, -0.6], [2.2, 2.9, -2.6, 0.9])),
    Case("fmod_number", lambda T, a: a.fmod(-1.3), values=([0.5, -0.4, 2.1, -3.1],)),
    # products and running totals, with the zeros torch treats specially
    Case("prod_all", lambda T, a: a.prod(), (2, 3)),
    Case("prod_dim", lambda T, a: a.prod(1), (3, 4)),
    Case("prod_keepdim", lambda T, a: T.prod(a, 0, keepdim=True), (3, 2)),
    Case("prod_one_zero", lambda T, a: a.prod(), values=([1.5, 0.0, -2.0, 0.7],)),
    Case("prod_two_zeros", lambda T, a: a.prod(), values=([1.5, 0.0, -2.0, 0.0],)),
    Case("prod_dim_zeros", lambda T, a: a.prod(-1),
         values=([[1.5, 0.0, -2.0], [0.0, 0.0, 3.0], [1.2, -0.8, 2.0]],)),
    Case("cumsum_dim1", lambda T, a: a.cumsum(1), (2, 4)),
    Case("cumsum_dim0_squared", lambda T, a: a.cumsum(0) ** 2, (3, 2)),
    Case("cumprod_dim1", lambda T, a: a.cumprod(1), (2, 4)),
    Case("cumprod_zeros", lambda T, a: T.cumprod(a, 0),
         values=([[1.5, 0.0], [0.0, 2.0], [-1.2, 0.0], [0.7, 1.3]],)),
    # norms (away from 0, where |x| has its kink)
    Case("norm_2", lambda T, a: a.norm(), (3, 4)),
    Case("norm_dim1_keepdim", lambda T, a: a.norm(dim=1, keepdim=True), (3, 4)),
    Case("norm_p1", lambda T, a: a.norm(p=1), (2, 3)),
    Case("norm_p3_dim0", lambda T, a: T.linalg.vector_norm(a, 3, dim=0), (3, 2)),
    Case("norm_p1_5", lambda T, a: T.linalg.vector_norm(a, 1.5), (4,)),
    Case("norm_p_half", lambda T, a: a.norm(p=0.5, dim=-1), (2, 3)),
    Case("norm_inf", lambda T, a: a.norm(p=float("inf"), dim=1), (3, 4)),
    Case("linalg_norm_ord1", lambda T, a: T.linalg.norm(a, 1), (3, 3)),
    Case("linalg_norm_ord_inf", lambda T, a: T.linalg.norm(a, float("inf")), (3, 3)),
    Case("matrix_norm_fro", lambda T, a: T.linalg.matrix_norm(a), (2, 2, 3)),
    # sorting and selection (distinct values: no ties)
    Case("sort_values", lambda T, a: a.sort(dim=0).values * a, (3, 2)),
    Case("topk_values", lambda T, a: a.topk(2).values, (2, 4)),
    Case("median_all", lambda T, a: a.median(), (3, 3)),
    Case("median_dim", lambda T, a: a.median(1).values, (3, 4)),
    Case("kthvalue_keepdim", lambda T, a: a.kthvalue(2, 0, keepdim=True).values, (3, 2)),
    Case("mode_values", lambda T, a: a.mode().values, (2, 3)),
]

IDS = [c.name for c in CASES]
assert len(set(IDS)) == len(IDS), "case names must be unique"
BY_NAME = {c.name: c for c in CASES}


def check_first_derivative(case) -> None:
    """The engine's gradient of `case` against central differences, and against torch's when
    it is installed (to rounding). Shared by every gradcheck test module."""
    xs, out, grads = _analytic_grads(engine, case)
    assert out.dtype is engine.float64
    numeric = _numeric_grads(lambda flat: _loss_value(case, flat), case.flat, case.eps)
    for i, (g, shape, n) in enumerate(zip(grads, case.shapes, numeric)):
        assert g is not None, f"{case.name}: input {i} got no gradient"
        assert tuple(g.shape) == shape
        _assert_close(f"{case.name}: d/d input {i}", n, _grad_flat(g, shape), case.tol)
    if real_torch is not None:
        _, _, tgrads = _analytic_grads(real_torch, case)
        for i, (g, tg, shape) in enumerate(zip(grads, tgrads, case.shapes)):
            _assert_close(f"{case.name}: engine vs torch, input {i}",
                          _grad_flat(tg, shape), _grad_flat(g, shape), (1e-9, 1e-12))


def check_second_derivative(case, torch_tol=(1e-9, 1e-12)) -> None:
    """The Hessian-vector product through create_graph=True against central differences of the
    first derivative, and against torch's when installed. `torch_tol` is wider where the
    engine's double-backward formulas are arranged differently from torch's."""
    hvp = _second_grads(engine, case)
    numeric = _numeric_grads(lambda flat: _first_grad_dot_v(case, flat), case.flat, case.eps)
    for i, (g, shape, n) in enumerate(zip(hvp, case.shapes, numeric)):
        _assert_close(f"{case.name}: second derivative, input {i}", n, _grad_flat(g, shape),
                      (1e-4, 1e-4))
    if real_torch is not None:
        thvp = _second_grads(real_torch, case)
        for i, (g, tg, shape) in enumerate(zip(hvp, thvp, case.shapes)):
            _assert_close(f"{case.name}: second derivative, engine vs torch, input {i}",
                          _grad_flat(tg, shape), _grad_flat(g, shape), torch_tol)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_first_derivative_matches_finite_differences(case):
    check_first_derivative(case)


# -- second derivatives -------------------------------------------------------------------------

SECOND = [
    "mul_broadcast", "mul_self", "div_vec", "pow_cube_negative_base", "pow_fractional",
    "pow_tensor_exponent", "pow_number_base", "exp", "log", "tanh", "sigmoid", "sin", "sinh",
    "cosh",
    "softmax_last", "log_softmax_last", "matmul_1d_1d", "matmul_2d_1d", "matmul_1d_2d",
    "matmul_2d_2d", "matmul_3d_2d", "matmul_3d_3d", "matmul_broadcast_batch", "sum_full",
    "mean_dim", "index_slice_step", "index_int_list_repeats", "index_bool_mask", "where",
    "maximum", "amax_dim", "max_dim", "composite_mlp", "unbind_rows", "iterate_rows",
    "setitem_index_tensor", "setitem_bool_mask_number", "setitem_view_copyslices",
    "index_put_accumulate",
    "remainder_broadcast", "fmod_tensors", "prod_all", "prod_dim", "prod_one_zero",
    "prod_two_zeros", "prod_dim_zeros", "cumsum_dim0_squared", "cumprod_dim1", "cumprod_zeros",
    "norm_2", "norm_dim1_keepdim", "norm_p3_dim0", "norm_p1_5", "norm_p_half",
    "matrix_norm_fro", "sort_values", "median_dim",
]


def _grad_dot_v(T, case, xs, grads):
    """S = sum_i <dL/dx_i, v_i>: a scalar whose gradient is the Hessian times v."""
    total = None
    for i, (g, x) in enumerate(zip(grads, xs)):
        if g is None:
            continue
        v = _make(T, _weights(case.name, tuple(x.shape), f"v{i}"), tuple(x.shape))
        term = (g * v).sum()
        total = term if total is None else total + term
    return total


def _first_grad_dot_v(case, flat_inputs) -> float:
    xs = [_make(engine, f, s, requires_grad=True) for f, s in zip(flat_inputs, case.shapes)]
    loss = _scalar_loss(engine, case, case.fn(engine, *xs))
    grads = engine.autograd.grad(loss, xs, allow_unused=True)
    with engine.no_grad():
        return _grad_dot_v(engine, case, xs, grads).item()


def _second_grads(T, case):
    xs, _, grads = _analytic_grads(T, case, create_graph=True)
    s = _grad_dot_v(T, case, xs, grads)
    if not s.requires_grad:  # the first derivative does not depend on the inputs
        return [None] * len(xs)
    return T.autograd.grad(s, xs, allow_unused=True)


@pytest.mark.parametrize("name", SECOND)
def test_second_derivative_matches_finite_differences(name):
    check_second_derivative(BY_NAME[name])


def test_create_graph_gradient_is_differentiable_for_nonlinear_ops():
    x = engine.tensor([0.5, -1.0], dtype=engine.float64, requires_grad=True)
    (g,) = engine.autograd.grad((x.tanh() * x.exp()).sum(), x, create_graph=True)
    assert g.requires_grad and g.grad_fn is not None
    (g_plain,) = engine.autograd.grad((x.tanh() * x.exp()).sum(), x)
    assert not g_plain.requires_grad and g_plain.grad_fn is None


def test_checker_catches_a_wrong_gradient():
    """The checker itself must fail on a wrong formula (here: d/dx of x*x claimed as x)."""
    case = Case("wrong", lambda T, a: a * a.detach(), (3,))
    _, _, grads = _analytic_grads(engine, case)
    numeric = _numeric_grads(lambda flat: _loss_value(case, flat), case.flat, case.eps)
    with pytest.raises(AssertionError):
        _assert_close("wrong", numeric[0], _grad_flat(grads[0], (3,)), case.tol)
    assert math.isfinite(numeric[0][0])
