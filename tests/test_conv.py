"""Finite differences in float64 for convolution, pooling and padding (first and second
derivatives), with the checker of tests/test_gradcheck.py; when torch imports, the engine's
gradients must also equal torch's. Values, graphs, printing and errors are compared with torch
in the oracle scenarios (tests/oracle/scenarios_conv.py)."""

from __future__ import annotations

import pytest

from tests import test_gradcheck as gc

Case = gc.Case


def _F(T):
    return T.nn.functional


CASES = [
    Case("conv2d", lambda T, x, w, b: _F(T).conv2d(x, w, b), (2, 2, 4, 4), (3, 2, 2, 3), (3,)),
    Case("conv2d_stride_padding_dilation", lambda T, x, w: _F(T).conv2d(
        x, w, stride=(2, 1), padding=(1, 2), dilation=(2, 1)), (1, 2, 5, 4), (2, 2, 2, 2)),
    Case("conv2d_groups", lambda T, x, w, b: _F(T).conv2d(x, w, b, padding=1, groups=2),
         (1, 4, 3, 3), (4, 2, 2, 2), (4,)),
    Case("conv2d_same_even", lambda T, x, w: _F(T).conv2d(x, w, padding="same"),
         (1, 1, 4, 4), (2, 1, 2, 2)),
    Case("conv2d_unbatched", lambda T, x, w: _F(T).conv2d(x, w), (2, 3, 3), (1, 2, 2, 2)),
    Case("conv1d", lambda T, x, w, b: _F(T).conv1d(x, w, b, stride=2, padding=1),
         (2, 2, 6), (3, 2, 3), (3,)),
    Case("conv1d_groups_dilation", lambda T, x, w: _F(T).conv1d(x, w, dilation=2, groups=2),
         (1, 4, 7), (2, 2, 2)),
    Case("max_pool2d", lambda T, x: _F(T).max_pool2d(x, 2), (2, 2, 4, 4)),
    Case("max_pool2d_padding_ceil", lambda T, x: _F(T).max_pool2d(
        x, 3, stride=2, padding=1, ceil_mode=True), (1, 2, 5, 4)),
    Case("max_pool2d_dilation", lambda T, x: _F(T).max_pool2d(x, 2, stride=1, dilation=2),
         (2, 5, 5)),
    Case("avg_pool2d", lambda T, x: _F(T).avg_pool2d(x, 2, stride=1), (1, 2, 4, 4)),
    Case("avg_pool2d_padding", lambda T, x: _F(T).avg_pool2d(
        x, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False), (1, 2, 5, 4)),
    Case("pad_constant", lambda T, x: _F(T).pad(x, (1, 2, -1, 1), value=0.5) ** 2, (2, 3, 4)),
    Case("pad_reflect", lambda T, x: _F(T).pad(x, (2, 1, 1, 2), mode="reflect") ** 2,
         (2, 3, 4)),
    Case("pad_replicate", lambda T, x: _F(T).pad(x, (3, 1), mode="replicate") ** 2, (2, 3)),
]

IDS = [c.name for c in CASES]
BY_NAME = {c.name: c for c in CASES}


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_first_derivative_matches_finite_differences(case):
    gc.check_first_derivative(case)


@pytest.mark.parametrize("name", IDS)
def test_second_derivative_matches_finite_differences(name):
    gc.check_second_derivative(BY_NAME[name], torch_tol=(1e-8, 1e-12))


def test_conv_module_draws_its_weights_from_the_generator_as_torch():
    import engine

    engine.manual_seed(0)
    m = engine.nn.Conv2d(1, 1, 2)
    # recorded with torch 2.13: torch.manual_seed(0); torch.nn.Conv2d(1, 1, 2)
    assert m.weight.tolist() == [[[[-0.003743410110473633, 0.26822179555892944],
                                   [-0.4115225672721863, -0.3679695129394531]]]]
    assert m.bias.tolist() == [-0.19257718324661255]
