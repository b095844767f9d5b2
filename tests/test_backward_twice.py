"""A second backward through a graph without retain_graph: torch raises "Trying to backward
through the graph a second time" exactly when a node on the way saved something, including
values a learner does not see as tensors (the 2 of `x * 2`, where's condition, max's indices,
an index tensor, embedding's indices), and runs again for nodes that saved nothing (add, view,
sum). Outcomes recorded from torch 2.13 (and checked live when torch imports)."""

from __future__ import annotations

import pytest

from tests.live_torch import TORCH_LIKE, torch_like_id


def _cases(T):
    F = T.nn.functional
    t = T.tensor
    z = T.zeros(2, 2)
    return {
        "mul_scalar": lambda x: x * 2, "rmul_scalar": lambda x: 2 * x,
        "div_scalar": lambda x: x / 2, "rdiv_scalar": lambda x: 2 / x,
        "add_scalar": lambda x: x + 2, "sub_scalar": lambda x: x - 2, "rsub_scalar": lambda x: 2 - x,
        "pow_scalar": lambda x: x ** 2, "rpow": lambda x: 2 ** x, "neg": lambda x: -x,
        "mul_method": lambda x: x.mul(3), "div_method": lambda x: x.div(3),
        "mul_tensor0d": lambda x: x * t(2.0), "clamp": lambda x: x.clamp(0, 1),
        "exp": lambda x: x.exp(), "sum": lambda x: x.sum(), "view": lambda x: x.view(4),
        "t": lambda x: x.t(), "mean": lambda x: x.mean(), "relu": lambda x: x.relu(),
        "sigmoid": lambda x: x.sigmoid(), "abs": lambda x: x.abs(),
        "expand": lambda x: x.expand(2, 2, 2), "add_alpha": lambda x: x.add(x, alpha=2),
        "where": lambda x: T.where(x > 0, x, 0.0), "masked_fill": lambda x: x.masked_fill(x > 0, 1.0),
        "mul_inplace": lambda x: x.clone().mul_(2), "true_divide": lambda x: x.true_divide(2),
        "square": lambda x: x.square(), "lerp": lambda x: T.lerp(x, x * 0, 0.5),
        "mse": lambda x: F.mse_loss(x, z), "l1": lambda x: F.l1_loss(x, z),
        "cross_entropy": lambda x: F.cross_entropy(x, t([0, 1])),
        "nll": lambda x: F.nll_loss(x, t([0, 1])),
        "bce": lambda x: F.binary_cross_entropy(x.sigmoid(), T.ones(2, 2)),
        "bce_logits": lambda x: F.binary_cross_entropy_with_logits(x, T.ones(2, 2)),
        "smooth_l1": lambda x: F.smooth_l1_loss(x, z), "huber": lambda x: F.huber_loss(x, z),
        "softmax": lambda x: F.softmax(x, 1), "log_softmax": lambda x: F.log_softmax(x, 1),
        "gelu": lambda x: F.gelu(x), "leaky_relu": lambda x: F.leaky_relu(x, 0.1),
        "tanh": lambda x: x.tanh(), "log": lambda x: x.log(), "sqrt": lambda x: x.sqrt(),
        "max_dim": lambda x: x.max(1).values, "max": lambda x: x.max(),
        "index": lambda x: x[t([0, 1, 1])], "slice": lambda x: x[:, 1:], "select": lambda x: x[0],
        "matmul": lambda x: x @ x, "linear": lambda x: F.linear(x, T.ones(3, 2)),
        "layer_norm": lambda x: F.layer_norm(x, (2,)), "dropout": lambda x: F.dropout(x, 0.5),
        "dropout_eval": lambda x: F.dropout(x, 0.5, training=False),
        "cat": lambda x: T.cat([x, x]), "stack": lambda x: T.stack([x, x]),
        "std": lambda x: x.std(), "mean_dim": lambda x: x.mean(0),
        "embedding": lambda x: F.embedding(t([0, 1, 0]), x), "permute": lambda x: x.permute(1, 0),
        "mul_bool": lambda x: x * (x > 0), "sub_alpha": lambda x: T.sub(x, x, alpha=3),
        "round": lambda x: x.round(), "prod": lambda x: x.prod(), "norm": lambda x: x.norm(),
        "repeat": lambda x: x.repeat(2, 1), "cumsum": lambda x: x.cumsum(0),
    }


# recorded with torch 2.13: the cases whose second backward runs (every other one raises)
RUNS_AGAIN = {"add_scalar", "sub_scalar", "rsub_scalar", "neg", "sum", "view", "t", "mean",
              "expand", "add_alpha", "slice", "select", "cumsum", "dropout_eval", "cat", "stack",
              "mean_dim", "repeat", "permute", "sub_alpha", "round"}
NAMES = sorted(_cases(TORCH_LIKE[0]))


@pytest.mark.parametrize("T", TORCH_LIKE, ids=torch_like_id)
@pytest.mark.parametrize("name", NAMES)
def test_a_second_backward_raises_where_torch_saved_something(T, name):
    T.manual_seed(0)
    x = (T.rand(2, 2) + 0.5).requires_grad_()
    y = _cases(T)[name](x)
    y.sum().backward()
    if name in RUNS_AGAIN:
        y.sum().backward()
    else:
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            y.sum().backward()
