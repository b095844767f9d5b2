"""Finite differences in float64 for the ops added for issue 11's section 3 (engine/ops/grids.py,
running.py, extremes.py, differences.py, cross.py, distances.py and the pointwise additions):
first derivatives, and second ones where torch has them, with the checker and helpers of
tests/test_gradcheck.py; when torch imports, the engine's gradients must also equal torch's."""

from __future__ import annotations

import pytest

from tests import test_gradcheck as gc

Case = gc.Case


CASES = [
    Case("exp2", lambda T, a: T.exp2(a) * a, (2, 3)),
    Case("xlogy", lambda T, a, b: T.xlogy(a, b), (2, 3), (3,), lo=0.2, hi=2.0),
    Case("xlogy_number", lambda T, a: T.xlogy(a, 2.5) * a, (2, 3)),
    Case("cummax", lambda T, a: T.cummax(a, 1).values * a, (3, 4)),
    Case("cummin", lambda T, a: a.cummin(0).values ** 2, (3, 4)),
    Case("logcumsumexp", lambda T, a: T.logcumsumexp(a, 1) * a, (2, 4)),
    Case("aminmax", lambda T, a: (lambda r: r.min * r.max)(T.aminmax(a, dim=1)), (3, 4)),
    Case("aminmax_all", lambda T, a: (lambda r: r[0] - 2 * r[1])(a.aminmax()) * a, (2, 3)),
    Case("var_mean", lambda T, a: (lambda r: r[0] * r[1])(T.var_mean(a, 1)), (3, 4)),
    Case("std_mean", lambda T, a: (lambda r: r[0] + r[1] ** 2)(T.std_mean(a, dim=0,
                                                                          correction=0)), (3, 4)),
    Case("diff", lambda T, a: T.diff(a, n=2, dim=1) ** 2, (2, 5)),
    Case("diff_prepend", lambda T, a, b: a.diff(prepend=b, append=b * 2) * 1.5, (2, 3),
         (2, 1)),
    Case("linalg_cross", lambda T, a, b: T.linalg.cross(a, b) ** 2, (2, 3), (1, 3)),
    Case("cross_dim", lambda T, a, b: T.cross(a, b, dim=0) * a, (3, 2), (3, 2)),
    Case("block_diag", lambda T, a, b, c: T.block_diag(a, b, c) ** 2, (2, 3), (1, 2), (3,)),
    Case("cartesian_prod", lambda T, a, b: T.cartesian_prod(a, b) ** 2, (3,), (2,)),
    Case("meshgrid", lambda T, a, b: (lambda g: g[0] * g[1])(T.meshgrid(a, b, indexing="xy")),
         (3,), (2,)),
    Case("cdist_p2", lambda T, a, b: T.cdist(a, b), (3, 2), (4, 2)),
    Case("cdist_p1", lambda T, a, b: T.cdist(a, b, p=1) * 0.5, (2, 3), (2, 3)),
    Case("cdist_p3_batch", lambda T, a, b: T.cdist(a, b, p=3), (2, 2, 3), (3, 3)),
    Case("cdist_p_half", lambda T, a, b: T.cdist(a, b, p=0.5), (2, 3), (2, 3)),
    Case("cdist_inf", lambda T, a, b: T.cdist(a, b, p=float("inf")), (3, 3), (2, 3)),
    Case("cdist_mm", lambda T, a, b: T.cdist(a, b, compute_mode="use_mm_for_euclid_dist"),
         (3, 2), (4, 2)),
]

IDS = [c.name for c in CASES]
BY_NAME = {c.name: c for c in CASES}
# cdist's direct path has no second derivative in torch (its backward raises)
SECOND = [n for n in IDS if not n.startswith("cdist") or n == "cdist_mm"]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_first_derivative_matches_finite_differences(case):
    gc.check_first_derivative(case)


@pytest.mark.parametrize("name", SECOND)
def test_second_derivative_matches_finite_differences(name):
    gc.check_second_derivative(BY_NAME[name])


def test_cdist_has_no_second_derivative_as_torch():
    T = gc.engine
    a = T.tensor([[0.0, 1.0], [2.0, 3.0]], dtype=T.float64, requires_grad=True)
    b = T.tensor([[1.0, 0.5]], dtype=T.float64)
    (g,) = T.autograd.grad(T.cdist(a, b).sum(), a, create_graph=True)
    assert g.grad_fn.name() == "CdistBackwardBackward0"
    with pytest.raises(NotImplementedError, match="_cdist_backward"):
        g.sum().backward()
