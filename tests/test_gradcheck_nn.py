"""Finite differences in float64 for the nn activations, losses and layers, and the element-wise
math of engine/ops/pointwise.py (first and second derivatives), with the checker and helpers of tests/test_gradcheck.py; when torch imports, the
engine's gradients must also equal torch's."""

from __future__ import annotations

import pytest

from tests import test_gradcheck as gc

Case = gc.Case
POS01 = {"lo": 0.05, "hi": 0.95, "avoid": (0.5,), "margin": 0.02}


def _F(T):
    return T.nn.functional


def _int(T, values):
    return T.tensor(values)


CASES = [
    Case("leaky_relu", lambda T, a: _F(T).leaky_relu(a, 0.2), (2, 3)),
    Case("elu", lambda T, a: _F(T).elu(a, 0.7), (2, 3)),
    Case("selu", lambda T, a: _F(T).selu(a), (2, 3)),
    Case("celu", lambda T, a: _F(T).celu(a, 1.5), (2, 3)),
    Case("gelu", lambda T, a: _F(T).gelu(a), (2, 3), lo=-3.0, hi=3.0),
    Case("gelu_tanh", lambda T, a: _F(T).gelu(a, approximate="tanh"), (2, 3), lo=-3.0, hi=3.0),
    Case("softplus", lambda T, a: _F(T).softplus(a, beta=2.0, threshold=3.0), (2, 3),
         avoid=(0.0, 1.5)),
    Case("silu", lambda T, a: _F(T).silu(a), (2, 3)),
    Case("mish", lambda T, a: _F(T).mish(a), (2, 3)),
    Case("softsign", lambda T, a: _F(T).softsign(a), (2, 3)),
    Case("logsigmoid", lambda T, a: _F(T).logsigmoid(a), (2, 3)),
    Case("hardsigmoid", lambda T, a: _F(T).hardsigmoid(a), (2, 3), lo=-4.0, hi=4.0,
         avoid=(-3.0, 3.0)),
    Case("hardswish", lambda T, a: _F(T).hardswish(a), (2, 3), lo=-4.0, hi=4.0,
         avoid=(-3.0, 3.0)),
    Case("relu6", lambda T, a: _F(T).relu6(a * 4), (2, 3), avoid=(0.0, 1.5)),
    Case("softmin", lambda T, a: _F(T).softmin(a, dim=1), (2, 3)),
    Case("prelu", lambda T, a, w: _F(T).prelu(a, w), (2, 3, 2), (3,)),
    Case("l1_loss", lambda T, a, b: _F(T).l1_loss(a, b), (2, 3), (2, 3)),
    Case("smooth_l1_loss", lambda T, a, b: _F(T).smooth_l1_loss(a, b, beta=0.5), (2, 3), (2, 3)),
    Case("huber_loss", lambda T, a, b: _F(T).huber_loss(a, b, reduction="sum", delta=0.7),
         (2, 3), (2, 3)),
    Case("bce", lambda T, a, b: _F(T).binary_cross_entropy(a, b, reduction="none"), (2, 3),
         (2, 3), **POS01),
    Case("bce_weight", lambda T, a, b: _F(T).binary_cross_entropy(
        a, b, weight=a.detach() * 0 + 2.0), (3,), (3,), **POS01),
    Case("bce_with_logits", lambda T, a, b: _F(T).binary_cross_entropy_with_logits(
        a, b, pos_weight=b.detach() * 0 + 3.0), (2, 3), (2, 3)),
    Case("kl_div", lambda T, a, b: _F(T).kl_div(a, b, reduction="batchmean"), (2, 3), (2, 3),
         **POS01),
    Case("kl_div_log_target", lambda T, a, b: _F(T).kl_div(a, b, reduction="sum",
                                                           log_target=True), (2, 3), (2, 3)),
    Case("cosine_similarity", lambda T, a, b: _F(T).cosine_similarity(a, b), (3, 4), (3, 4)),
    Case("cosine_embedding_loss", lambda T, a, b: _F(T).cosine_embedding_loss(
        a, b, _int(T, [1, -1, -1]), margin=-0.5), (3, 4), (3, 4)),
    Case("margin_ranking_loss", lambda T, a, b: _F(T).margin_ranking_loss(
        a, b, a.detach() * 0 + 1.0, margin=0.1, reduction="none"), (4,), (4,)),
    Case("cross_entropy_label_smoothing", lambda T, a: _F(T).cross_entropy(
        a, _int(T, [0, 2, -100]), label_smoothing=0.2), (3, 4)),
    Case("layer_norm", lambda T, a, w, b: _F(T).layer_norm(a, (3,), w, b), (2, 3), (3,), (3,)),
    Case("layer_norm_no_affine", lambda T, a: _F(T).layer_norm(a, (2, 3)), (2, 2, 3)),
    Case("batch_norm_train", lambda T, a, w, b: _F(T).batch_norm(
        a, None, None, w, b, training=True), (4, 3), (3,), (3,)),
    Case("batch_norm_eval", lambda T, a, w, b: _F(T).batch_norm(
        a, a.detach().mean(0) * 0 + 0.5, a.detach().mean(0) * 0 + 2.0, w, b), (4, 3), (3,),
         (3,)),
    # padding_idx is the oracle's business: its row gets no gradient by design, so finite
    # differences would disagree
    Case("embedding", lambda T, w: _F(T).embedding(_int(T, [[0, 2], [2, 3]]), w), (4, 2)),
    # element-wise math; the rounding functions are constant between their steps
    Case("floor", lambda T, a: a.floor() * a, (2, 3), avoid=(-1.0, 0.0, 1.0)),
    Case("round", lambda T, a: a.round() * a, (2, 3), avoid=(-1.5, -0.5, 0.5, 1.5)),
    Case("frac", lambda T, a: a.frac(), (2, 3), avoid=(-1.0, 0.0, 1.0)),
    Case("log1p", lambda T, a: a.log1p(), (2, 3), lo=-0.9, hi=2.0, avoid=()),
    Case("expm1", lambda T, a: a.expm1(), (2, 3)),
    Case("log2", lambda T, a: a.log2(), (2, 3), **gc.POS),
    Case("log10", lambda T, a: T.log10(a), (2, 3), **gc.POS),
    Case("rsqrt", lambda T, a: a.rsqrt(), (2, 3), **gc.POS),
    Case("erf", lambda T, a: a.erf(), (2, 3)),
    Case("square", lambda T, a: a.square(), (2, 3)),
    Case("tan", lambda T, a: a.tan(), (2, 3), lo=-1.2, hi=1.2),
    Case("asin", lambda T, a: a.asin(), (2, 3), lo=-0.9, hi=0.9, avoid=()),
    Case("acos", lambda T, a: a.acos(), (2, 3), lo=-0.9, hi=0.9, avoid=()),
    Case("atan", lambda T, a: a.atan(), (2, 3)),
    Case("atan2", lambda T, a, b: a.atan2(b), (2, 3), (3,)),
    Case("hypot", lambda T, a, b: T.hypot(a, b), (2, 3), (2, 1)),
    Case("lerp_number", lambda T, a, b: a.lerp(b, 0.3), (2, 3), (3,)),
    Case("lerp_number_high", lambda T, a, b: a.lerp(b, 0.8), (2, 3), (2, 3)),
    Case("lerp_tensor", lambda T, a, b, w: T.lerp(a, b, w), (2, 3), (2, 3), (3,)),
    # reductions and masks (engine/ops/statistics.py, engine/ops/masking.py)
    Case("var", lambda T, a: a.var(), (2, 3)),
    Case("var_dim", lambda T, a: a.var(1, keepdim=True), (3, 4)),
    Case("var_correction", lambda T, a: T.var(a, dim=0, correction=0), (3, 4)),
    Case("std", lambda T, a: a.std(), (2, 3)),
    Case("std_dim", lambda T, a: a.std(0), (3, 4)),
    Case("logsumexp", lambda T, a: a.logsumexp(1), (3, 4)),
    Case("logsumexp_dims", lambda T, a: T.logsumexp(a, (0, 1), keepdim=True), (2, 3)),
    Case("masked_fill", lambda T, a: a.masked_fill(T.tensor([True, False, True]), 2.0) * a,
         (2, 3)),
    Case("tril", lambda T, a: a.tril() * a, (3, 4)),
    Case("triu", lambda T, a: T.triu(a, 1) * a, (3, 4)),
    Case("nan_to_num", lambda T, a: a.nan_to_num() * a, (2, 3)),
]

IDS = [c.name for c in CASES]
BY_NAME = {c.name: c for c in CASES}
# hardsigmoid has no second derivative in torch, and l1_loss's is zero where torch returns an
# undefined gradient
SECOND = [n for n in IDS if n not in ("hardsigmoid", "l1_loss")]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_first_derivative_matches_finite_differences(case):
    gc.check_first_derivative(case)


@pytest.mark.parametrize("name", SECOND)
def test_second_derivative_matches_finite_differences(name):
    gc.check_second_derivative(BY_NAME[name], torch_tol=(1e-8, 1e-12))
