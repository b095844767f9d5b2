"""Finite differences in float64 for the ops that move, pick and place elements (flip, roll,
repeat, tile, movedim, gather, scatter, scatter_add, index_select, masked_select, split, chunk,
diag, diagonal, trace, outer, einsum), first and second derivatives, with the checker and helpers
of tests/test_gradcheck.py; when torch imports, the engine's gradients must also equal torch's.

These ops are linear, so most cases square their result: the second derivative then goes
through the op's backward formula, differentiated again (its double backward)."""

from __future__ import annotations

import pytest

from tests import test_gradcheck as gc

Case = gc.Case


def _sq(y):
    return y * y


def _ix(T, values):
    return T.tensor(values)


_IDX = [[0, 3], [2, 0], [1, 2]]  # one row's picks never repeat (scatter's writes are then defined)
_REPEATS = [[0, 1, 0, 2], [1, 1, 2, 0]]  # scatter_add along dim 0: sums of several rows


def _einsum(eq):
    return lambda T, *xs: _sq(T.einsum(eq, *xs))


CASES = [
    Case("flip", lambda T, a: _sq(a.flip(0)), (3, 2)),
    Case("flip_dims", lambda T, a: _sq(T.flip(a, (0, 2))), (2, 2, 3)),
    Case("fliplr", lambda T, a: _sq(a.fliplr()), (2, 3)),
    Case("flipud", lambda T, a: _sq(T.flipud(a)), (3, 2)),
    Case("roll_flat", lambda T, a: _sq(a.roll(2)), (2, 3)),
    Case("roll_dims", lambda T, a: _sq(T.roll(a, (1, -1), (0, 1))), (3, 3)),
    Case("repeat", lambda T, a: _sq(a.repeat(2, 1, 3)), (2, 3)),
    Case("repeat_ones", lambda T, a: _sq(a.repeat(1, 1)), (2, 2)),
    Case("tile", lambda T, a: _sq(T.tile(a, (2,))), (2, 3)),
    Case("movedim", lambda T, a: _sq(a.movedim(0, 2)), (2, 3, 2)),
    Case("moveaxis_lists", lambda T, a: _sq(T.moveaxis(a, [0, 1], [2, 0])), (2, 3, 2)),
    Case("gather", lambda T, a: _sq(a.gather(1, _ix(T, _IDX))), (3, 4)),
    Case("gather_repeats", lambda T, a: _sq(T.gather(a, 0, _ix(T, _REPEATS))), (3, 4)),
    Case("scatter_src", lambda T, a, s: _sq(a.scatter(1, _ix(T, _IDX), s)), (3, 4), (3, 2)),
    Case("scatter_value", lambda T, a: _sq(T.scatter(a, 1, _ix(T, _IDX), 0.5)), (3, 4)),
    Case("scatter_add", lambda T, a, s: _sq(a.scatter_add(0, _ix(T, _REPEATS), s)), (3, 4),
         (2, 4)),
    Case("scatter_inplace", lambda T, a, s: _sq((a * 1.5).scatter_(1, _ix(T, _IDX), s)),
         (3, 4), (3, 2)),
    Case("scatter_add_inplace",
         lambda T, a, s: _sq((a * 1.5).scatter_add_(0, _ix(T, _REPEATS), s)), (3, 4), (2, 4)),
    Case("index_select", lambda T, a: _sq(a.index_select(0, _ix(T, [2, 0, 2]))), (3, 2)),
    Case("index_select_columns", lambda T, a: _sq(T.index_select(a, 1, _ix(T, [1, 1]))),
         (2, 3)),
    Case("masked_select", lambda T, a: _sq(a.masked_select(a.detach().abs() > 1.0)), (3, 4)),
    Case("masked_select_broadcast",
         lambda T, a: _sq(T.masked_select(a, _ix(T, [[True], [False], [True]]))), (4,)),
    Case("chunk", lambda T, a: (lambda r: r[0] * r[1])(a.chunk(2)), (4, 3)),
    Case("chunk_uneven_unused", lambda T, a: _sq(a.chunk(3, 1)[1]), (2, 5)),
    Case("split_size", lambda T, a: (lambda r: T.cat([r[2], r[0] * r[1]]))(a.split(1)), (3, 2)),
    Case("split_sizes", lambda T, a: (lambda r: r[0].sum() * r[1])(a.split([1, 2], 1)), (2, 3)),
    Case("diag_embed", lambda T, a: _sq(T.diag(a)), (3,)),
    Case("diag_embed_offset", lambda T, a: _sq(a.diag(-1)), (3,)),
    Case("diag_of_matrix", lambda T, a: _sq(T.diag(a, 1)), (3, 4)),
    Case("diagonal", lambda T, a: _sq(a.diagonal()), (3, 4)),
    Case("diagonal_3d", lambda T, a: _sq(T.diagonal(a, -1, 2, 0)), (3, 2, 4)),
    Case("trace", lambda T, a: _sq(a.trace()), (3, 3)),
    Case("trace_wide", lambda T, a: _sq(T.trace(a)), (2, 4)),
    Case("outer", lambda T, a, b: _sq(T.outer(a, b)), (3,), (2,)),
    Case("einsum_matmul", _einsum("ij,jk->ik"), (2, 3), (3, 2)),
    Case("einsum_dot", _einsum("i,i->"), (4,), (4,)),
    Case("einsum_transpose", _einsum("ij->ji"), (2, 3)),
    Case("einsum_bmm", _einsum("bij,bjk->bik"), (2, 2, 3), (2, 3, 2)),
    Case("einsum_diagonal", _einsum("ii->i"), (3, 3)),
    Case("einsum_sum", _einsum("ij->"), (2, 3)),
    Case("einsum_outer", _einsum("i,j->ij"), (3,), (2,)),
    Case("einsum_implicit", _einsum("ij,jk"), (2, 3), (3, 2)),
    Case("einsum_ellipsis", _einsum("...ij,...jk->...ik"), (2, 2, 3), (3, 2)),
    Case("einsum_three", _einsum("ij,jk,kl->il"), (2, 3), (3, 2), (2, 2)),
]

IDS = [c.name for c in CASES]
assert len(set(IDS)) == len(IDS), "case names must be unique"
BY_NAME = {c.name: c for c in CASES}


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_first_derivative_matches_finite_differences(case):
    gc.check_first_derivative(case)


@pytest.mark.parametrize("name", IDS)
def test_second_derivative_matches_finite_differences(name):
    gc.check_second_derivative(BY_NAME[name])
