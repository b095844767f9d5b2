"""Finite differences in float64 for the ops of engine/ops/addc.py, nanreduce.py and the other
ops added beside them (first and second derivatives), with the checker and helpers of
tests/test_gradcheck.py; when torch imports, the engine's gradients must also equal torch's."""

from __future__ import annotations

import pytest

from tests import test_gradcheck as gc

Case = gc.Case
NAN = float("nan")


def _with_nans(T, a):
    """a with NaN at two fixed places (the finite differences see only the other elements)."""
    mask = T.tensor([[False, True, False, False], [False, False, False, True],
                     [False, False, False, False]])
    return a.masked_fill(mask, NAN)


def _addcmul_inplace(T, a, b, c):
    y = a * 1.5
    y.addcmul_(b, c, value=0.5)
    return y * y


CASES = [
    Case("addcmul", lambda T, a, b, c: T.addcmul(a, b, c, value=0.7), (2, 3), (3,), (2, 1)),
    Case("addcmul_value1", lambda T, a, b, c: a.addcmul(b, c) * a, (2, 3), (2, 3), (2, 3)),
    Case("addcdiv", lambda T, a, b, c: T.addcdiv(a, b, c, value=-1.3), (2, 3), (2, 3), (3,)),
    Case("addcmul_inplace", _addcmul_inplace, (2, 3), (2, 3), (3,)),
    Case("nansum", lambda T, a: T.nansum(_with_nans(T, a)) * a.sum(), (3, 4)),
    Case("nansum_dim", lambda T, a: _with_nans(T, a).nansum(1, keepdim=True) * a, (3, 4)),
    Case("nanmean_dim", lambda T, a: T.nanmean(_with_nans(T, a), 1) ** 2, (3, 4)),
    Case("nanmedian", lambda T, a: T.nanmedian(_with_nans(T, a)) * a, (3, 4)),
    Case("pad_circular_1d", lambda T, a: T.nn.functional.pad(a, (2, 1), mode="circular") ** 2,
         (1, 2, 3)),
    Case("pad_circular_2d", lambda T, a: T.nn.functional.pad(a, (1, -1, 2, 1), mode="circular")
         * 1.5, (1, 1, 3, 4)),
    Case("svdvals_wide", lambda T, a: T.linalg.svdvals(a), (2, 3)),
    Case("svdvals_tall_batch", lambda T, a: T.linalg.svdvals(a) ** 2, (2, 3, 2)),
    Case("matrix_norm_nuc", lambda T, a: T.linalg.matrix_norm(a, "nuc"), (3, 3)),
    Case("matrix_norm_2", lambda T, a: T.linalg.matrix_norm(a, 2, dim=(0, 2), keepdim=True),
         (3, 2, 2)),
    Case("matrix_norm_minus_2", lambda T, a: T.linalg.matrix_norm(a, -2), (2, 4)),
    Case("norm_nuc", lambda T, a: a.norm(p="nuc") * a, (3, 2)),
    Case("clamp_min", lambda T, a: T.clamp_min(a, 0.3) * a, (2, 3)),
    Case("clamp_max_tensor", lambda T, a, b: a.clamp_max(b) * a, (2, 3), (3,)),
    Case("rad2deg", lambda T, a: T.rad2deg(a) * a, (2, 3)),
    Case("deg2rad", lambda T, a: a.deg2rad() ** 2, (2, 3)),
    Case("nanmedian_dim", lambda T, a: _with_nans(T, a).nanmedian(0).values * 2, (3, 4)),
]

IDS = [c.name for c in CASES]
BY_NAME = {c.name: c for c in CASES}
SECOND = IDS


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_first_derivative_matches_finite_differences(case):
    gc.check_first_derivative(case)


@pytest.mark.parametrize("name", SECOND)
def test_second_derivative_matches_finite_differences(name):
    gc.check_second_derivative(BY_NAME[name])
