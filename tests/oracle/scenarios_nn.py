"""Oracle scenarios for the nn layers, activations, losses, utilities, optimizers and
learning-rate schedules (the rules of tests/oracle/scenarios.py apply; its SCENARIOS include
these). The engine's generator is torch's, so dropout masks and default initialisations are
recorded too, under explicit seeds."""

from __future__ import annotations

from tests.oracle.recorder import collect_scenarios

_X = [[0.5, -1.0, 2.0, 0.0], [-2.5, 0.25, 4.0, -0.1]]


def _x(torch, dtype=None):
    return torch.tensor(_X, dtype=dtype, requires_grad=True)


def _flat(values) -> list:
    return [v for row in values for v in row]


def _grads(torch, rec, tag, fn, dtype=None, second=True):
    """Value, graph, gradient and (when torch has one) second derivative of fn at _X."""
    x = _x(torch, dtype)
    y = fn(x)
    rec.value(f"{tag} y", y)
    rec.graph(f"{tag} graph", y)
    (g,) = torch.autograd.grad(y.sum(), x, create_graph=second)
    rec.value(f"{tag} dy/dx", g)
    if second:
        (h,) = torch.autograd.grad((g * g).sum(), x)
        rec.value(f"{tag} second", h)


def nn_activation_values_gradients_and_second_derivatives(torch, rec):
    F = torch.nn.functional
    fns = {
        "leaky_relu": lambda x: F.leaky_relu(x, 0.2),
        "elu": lambda x: F.elu(x, alpha=0.7),
        "selu": F.selu,
        "celu": lambda x: F.celu(x, alpha=2.0),
        "gelu": F.gelu,
        "softplus": F.softplus,
        "softplus beta threshold": lambda x: F.softplus(x, beta=2.0, threshold=3.0),
        "silu": F.silu,
        "mish": F.mish,
        "softsign": F.softsign,
        "logsigmoid": F.logsigmoid,
        "hardswish": F.hardswish,
        "relu6": F.relu6,
        "softmin": lambda x: F.softmin(x, dim=1),
    }
    for name, fn in fns.items():
        _grads(torch, rec, name, fn)
    for name in ("gelu", "silu", "mish", "elu", "softplus"):
        _grads(torch, rec, f"{name} float64", getattr(F, name), dtype=torch.float64)
    # float32 second derivatives of the tanh approximation cancel badly far from 0: float64
    _grads(torch, rec, "gelu tanh", lambda x: F.gelu(x, approximate="tanh"), second=False)
    _grads(torch, rec, "gelu tanh float64", lambda x: F.gelu(x, approximate="tanh"),
           dtype=torch.float64)
    _grads(torch, rec, "hardsigmoid", F.hardsigmoid, second=False)
    x = _x(torch)
    (g,) = torch.autograd.grad(F.hardsigmoid(x).sum(), x, create_graph=True)
    rec.raises("hardsigmoid has no second derivative",
               lambda: torch.autograd.grad(g.sum(), x))
    big = torch.tensor([-100.0, -20.0, 20.0, 30.0, 50.0], requires_grad=True)
    for name in ("softplus", "logsigmoid", "silu", "mish", "gelu", "elu"):
        y = getattr(F, name)(big)
        rec.value(f"{name} at large inputs", y)
        (g,) = torch.autograd.grad(y.sum(), big)
        rec.value(f"{name} grad at large inputs", g)
    rec.raises("gelu approximate", lambda: F.gelu(x, approximate="fast"))
    rec.raises("gelu of integers", lambda: F.gelu(torch.tensor([1, 2])))
    rec.raises("silu of integers", lambda: F.silu(torch.tensor([1, 2])))
    rec.raises("leaky_relu of integers", lambda: F.leaky_relu(torch.tensor([1, 2])))


def nn_activation_inplace_variants(torch, rec):
    F = torch.nn.functional
    for name, fn in (("leaky_relu", lambda y: F.leaky_relu(y, 0.1, inplace=True)),
                     ("elu", lambda y: F.elu(y, inplace=True)),
                     ("selu", lambda y: F.selu(y, inplace=True)),
                     ("silu", lambda y: F.silu(y, inplace=True)),
                     ("mish", lambda y: F.mish(y, inplace=True)),
                     ("hardsigmoid", lambda y: F.hardsigmoid(y, inplace=True)),
                     ("hardswish", lambda y: F.hardswish(y, inplace=True)),
                     ("relu6", lambda y: F.relu6(y, inplace=True))):
        x = _x(torch)
        y = x * 1
        z = fn(y)
        rec.value(f"{name}_ returns its input", z is y)
        rec.value(f"{name}_ y", y)
        rec.graph(f"{name}_ graph", y)
        rec.value(f"{name}_ version", y._version)
        z.sum().backward()
        rec.value(f"{name}_ x.grad", x.grad)
    x = _x(torch)
    y = F.leaky_relu(x * 1, -0.5, inplace=True)
    rec.raises("negative slope in place", lambda: y.sum().backward())
    rec.raises("leaf in place", lambda: F.elu(x, inplace=True))


def nn_activation_modules_and_repr(torch, rec):
    nn = torch.nn
    x = torch.tensor(_X)
    mods = [nn.LeakyReLU(), nn.LeakyReLU(0.2, True), nn.ELU(), nn.ELU(0.5, inplace=True),
            nn.SELU(), nn.CELU(1.5), nn.GELU(), nn.GELU("tanh"), nn.Softplus(),
            nn.Softplus(2, 10), nn.SiLU(), nn.Mish(), nn.Softsign(), nn.LogSigmoid(),
            nn.Hardsigmoid(), nn.Hardswish(), nn.ReLU6(), nn.ReLU6(True), nn.Softmin(dim=1),
            nn.PReLU(), nn.PReLU(4, 0.1)]
    for i, m in enumerate(mods):
        rec.printed(f"print {i}", m)
        y = m(x.clone())
        rec.value(f"{type(m).__name__} {i}", y)
    rec.value("Softmin implicit dim", nn.Softmin()(x))
    seq = nn.Sequential(nn.Linear(2, 3), nn.GELU(), nn.Linear(3, 1), nn.Sigmoid())
    rec.printed("print(Sequential)", seq)


def nn_prelu_shapes_and_weight_gradients(torch, rec):
    F = torch.nn.functional
    nn = torch.nn
    w1 = torch.tensor([0.25], requires_grad=True)
    x = _x(torch)
    y = F.prelu(x, w1)
    rec.value("2-D shared weight", y)
    rec.graph("2-D shared graph", y)
    (y * y).sum().backward()
    rec.value("x.grad", x.grad)
    rec.value("w.grad", w1.grad)
    w4 = torch.tensor([0.1, 0.2, 0.3, 0.4], requires_grad=True)
    x3 = (torch.arange(24.0).reshape(2, 4, 3) - 12).requires_grad_(True)
    y = F.prelu(x3, w4)
    rec.value("3-D per channel", y)
    y.sum().backward()
    rec.value("3-D w.grad", w4.grad)
    v = torch.tensor([-1.0, 2.0, -3.0], requires_grad=True)
    y = F.prelu(v, w1)
    rec.value("1-D", y)
    rec.graph("1-D graph", y)
    m = nn.PReLU(4, init=0.5)
    rec.value("PReLU weight", m.weight)
    out = m(torch.tensor(_X))
    out.sum().backward()
    rec.value("PReLU weight.grad", m.weight.grad)
    rec.raises("channel mismatch", lambda: F.prelu(torch.ones(2, 3), w4))


def _loss_cases(torch, rec, tag, fn, x, t, reductions=("mean", "sum", "none"), target_grad=True):
    for r in reductions:
        x.grad = None
        if target_grad:
            t.grad = None
        loss = fn(x, t, r)
        rec.value(f"{tag} {r}", loss)
        rec.graph(f"{tag} {r} graph", loss)
        loss.sum().backward()
        rec.value(f"{tag} {r} input.grad", x.grad)
        if target_grad:
            rec.value(f"{tag} {r} target.grad", t.grad)


def nn_regression_losses(torch, rec):
    F = torch.nn.functional
    x = torch.tensor([[0.5, -1.0, 2.0], [0.1, 3.0, -0.2]], requires_grad=True)
    t = torch.tensor([[0.2, 0.7, 0.9], [0.0, 1.0, 0.5]], requires_grad=True)
    _loss_cases(torch, rec, "l1", lambda a, b, r: F.l1_loss(a, b, reduction=r), x, t)
    _loss_cases(torch, rec, "smooth_l1", lambda a, b, r: F.smooth_l1_loss(a, b, reduction=r),
                x, t)
    _loss_cases(torch, rec, "smooth_l1 beta", lambda a, b, r: F.smooth_l1_loss(
        a, b, reduction=r, beta=0.5), x, t)
    _loss_cases(torch, rec, "smooth_l1 beta 0", lambda a, b, r: F.smooth_l1_loss(
        a, b, reduction=r, beta=0.0), x, t)
    _loss_cases(torch, rec, "huber", lambda a, b, r: F.huber_loss(a, b, reduction=r), x, t)
    _loss_cases(torch, rec, "huber delta", lambda a, b, r: F.huber_loss(
        a, b, reduction=r, delta=0.3), x, t)
    w = torch.tensor([[1.0, 2.0, 0.5], [0.0, 1.0, 3.0]])
    for r in ("mean", "sum", "none"):
        rec.value(f"l1 weight {r}", F.l1_loss(x, t, weight=w, reduction=r))
        rec.value(f"huber weight {r}", F.huber_loss(x, t, weight=w, reduction=r))
    rec.raises("weight size", lambda: F.l1_loss(x, t, weight=torch.tensor([1.0, 2.0, 0.5])))
    v = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    loss = F.smooth_l1_loss(v, torch.tensor([[1.5, 2.0, 0.0], [0.0, 0.0, 0.0]]))
    rec.value("broadcast loss", loss)
    loss.backward()
    rec.value("broadcast grad", v.grad)
    for name, m in (("L1Loss", torch.nn.L1Loss(reduction="sum")),
                    ("SmoothL1Loss", torch.nn.SmoothL1Loss(beta=0.5)),
                    ("HuberLoss", torch.nn.HuberLoss(delta=2.0))):
        rec.printed(f"print {name}", m)
        rec.value(name, m(x, t))
    (g,) = torch.autograd.grad(F.smooth_l1_loss(x, t), x, create_graph=True)
    (h,) = torch.autograd.grad((g * x).sum(), x)
    rec.value("smooth_l1 second", h)
    rec.raises("negative beta", lambda: F.smooth_l1_loss(x, t, beta=-1.0))
    rec.raises("zero delta", lambda: F.huber_loss(x, t, delta=0.0))
    rec.raises("bad reduction", lambda: F.l1_loss(x, t, reduction="avg"))


def nn_binary_cross_entropy_losses(torch, rec):
    F = torch.nn.functional
    p = torch.tensor([[0.2, 0.9, 0.5], [0.0, 1.0, 0.3]], requires_grad=True)
    t = torch.tensor([[0.0, 1.0, 0.5], [1.0, 0.0, 1.0]], requires_grad=True)
    _loss_cases(torch, rec, "bce", lambda a, b, r: F.binary_cross_entropy(a, b, reduction=r),
                p, t)
    w = torch.tensor([1.0, 2.0, 0.5])
    _loss_cases(torch, rec, "bce weight", lambda a, b, r: F.binary_cross_entropy(
        a, b, weight=w, reduction=r), p, t)
    z = torch.tensor([[0.5, -1.0, 2.0], [-30.0, 40.0, 0.0]], requires_grad=True)
    _loss_cases(torch, rec, "bce logits", lambda a, b, r: F.binary_cross_entropy_with_logits(
        a, b, reduction=r), z, t)
    pw = torch.tensor([1.0, 3.0, 0.5])
    _loss_cases(torch, rec, "bce logits pos_weight",
                lambda a, b, r: F.binary_cross_entropy_with_logits(a, b, weight=w, reduction=r,
                                                                   pos_weight=pw), z, t)
    rec.printed("print BCELoss", torch.nn.BCELoss())
    rec.printed("print BCEWithLogitsLoss", torch.nn.BCEWithLogitsLoss(pos_weight=pw))
    m = torch.nn.BCEWithLogitsLoss(pos_weight=pw, reduction="sum")
    rec.value("BCEWithLogitsLoss buffers", [n for n, _ in m.named_buffers()])
    rec.value("BCEWithLogitsLoss", m(z, t))
    rec.value("BCELoss", torch.nn.BCELoss(weight=w)(p, t))
    s = torch.sigmoid(z)
    rec.value("bce of sigmoid", F.binary_cross_entropy(s, t))
    rec.graph("bce of sigmoid graph", F.binary_cross_entropy(s, t))
    (g,) = torch.autograd.grad(F.binary_cross_entropy_with_logits(z, t), z, create_graph=True)
    (h,) = torch.autograd.grad((g * g).sum(), z)
    rec.value("bce logits second", h)
    rec.raises("input above 1", lambda: F.binary_cross_entropy(torch.tensor([1.5]),
                                                               torch.tensor([1.0])))
    rec.raises("size mismatch", lambda: F.binary_cross_entropy(torch.tensor([0.5, 0.5]),
                                                               torch.tensor([[1.0, 0.0]])))
    rec.raises("logits size mismatch", lambda: F.binary_cross_entropy_with_logits(
        torch.tensor([0.5, 0.5]), torch.tensor([1.0])))


def nn_kl_div_and_cosine_losses(torch, rec):
    F = torch.nn.functional
    logp = torch.tensor([[-1.2, -0.8, -1.5], [-0.1, -2.5, -3.0]], requires_grad=True)
    q = torch.tensor([[0.2, 0.5, 0.3], [0.0, 0.6, 0.4]], requires_grad=True)
    for r in ("batchmean", "sum", "none", "mean"):
        logp.grad = q.grad = None
        loss = F.kl_div(logp, q, reduction=r)
        rec.value(f"kl {r}", loss)
        rec.graph(f"kl {r} graph", loss)
        loss.sum().backward()
        rec.value(f"kl {r} input.grad", logp.grad)
        rec.value(f"kl {r} target.grad", q.grad)
    lq = torch.tensor([[-1.0, -2.0, -0.5], [-0.3, -1.1, -2.2]], requires_grad=True)
    loss = F.kl_div(logp, lq, reduction="batchmean", log_target=True)
    rec.value("kl log_target", loss)
    rec.graph("kl log_target graph", loss)
    loss.backward()
    rec.value("kl log_target grads", (logp.grad, lq.grad))
    rec.printed("print KLDivLoss", torch.nn.KLDivLoss(reduction="batchmean", log_target=True))
    a = torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0], [-1.0, 0.5, 2.0]], requires_grad=True)
    b = torch.tensor([[2.0, 1.0, 0.0], [1.0, 1.0, 1.0], [1.0, 0.5, -2.0]], requires_grad=True)
    c = F.cosine_similarity(a, b)
    rec.value("cosine_similarity", c)
    rec.graph("cosine_similarity graph", c)
    c.sum().backward()
    rec.value("cosine_similarity grads", (a.grad, b.grad))
    rec.value("cosine_similarity dim 0", F.cosine_similarity(a, b, dim=0))
    rec.value("cosine_similarity broadcast", F.cosine_similarity(a, torch.tensor([1.0, 0.0, 1.0]),
                                                                 dim=-1))
    rec.value("CosineSimilarity module", torch.nn.CosineSimilarity(dim=1, eps=1e-6)(a, b))
    y = torch.tensor([1, -1, -1])
    for margin in (0.0, 0.3):
        for r in ("mean", "sum", "none"):
            a.grad = b.grad = None
            loss = F.cosine_embedding_loss(a, b, y, margin=margin, reduction=r)
            rec.value(f"cosine_embedding {margin} {r}", loss)
            loss.sum().backward()
            rec.value(f"cosine_embedding {margin} {r} grads", (a.grad, b.grad))
    rec.value("cosine_embedding 1-D", F.cosine_embedding_loss(a[0], b[0], torch.tensor(1)))
    rec.raises("cosine_embedding 2-D target", lambda: F.cosine_embedding_loss(
        a, b, torch.ones(3, 1)))
    rec.raises("cosine_embedding input dims", lambda: F.cosine_embedding_loss(
        a[0], b[0], y))
    x1 = torch.tensor([0.5, 2.0, -1.0, 0.3], requires_grad=True)
    x2 = torch.tensor([1.0, 1.0, 1.0, 0.1], requires_grad=True)
    t = torch.tensor([1.0, -1.0, 1.0, -1.0])
    for margin in (0.0, 0.5):
        for r in ("mean", "sum", "none"):
            x1.grad = x2.grad = None
            loss = F.margin_ranking_loss(x1, x2, t, margin=margin, reduction=r)
            rec.value(f"margin_ranking {margin} {r}", loss)
            rec.graph(f"margin_ranking {margin} {r} graph", loss)
            loss.sum().backward()
            rec.value(f"margin_ranking {margin} {r} grads", (x1.grad, x2.grad))
    rec.value("MarginRankingLoss", torch.nn.MarginRankingLoss(margin=0.2)(x1, x2, t))
    rec.value("CosineEmbeddingLoss", torch.nn.CosineEmbeddingLoss(margin=0.1)(a, b, y))
    rec.raises("margin_ranking dims", lambda: F.margin_ranking_loss(x1, x2, t.view(2, 2)))


def nn_cross_entropy_label_smoothing_with_class_indices(torch, rec):
    F = torch.nn.functional
    x = torch.tensor([[2.0, 1.0, 0.1, -1.0], [0.5, 2.5, -1.0, 0.0], [0.0, 0.0, 0.0, 3.0]],
                     requires_grad=True)
    w = torch.tensor([1.0, 2.0, 0.5, 3.0])
    for target in (torch.tensor([0, 3, 1]), torch.tensor([0, -100, 1]), torch.tensor([2, 1, 1])):
        for weight in (None, w):
            for r in ("mean", "sum", "none"):
                x.grad = None
                loss = F.cross_entropy(x, target, weight=weight, reduction=r,
                                       label_smoothing=0.2)
                tag = f"{target.tolist()} {weight is not None} {r}"
                rec.value(tag, loss)
                loss.sum().backward()
                rec.value(f"{tag} grad", x.grad)
    loss = F.cross_entropy(x, torch.tensor([0, 3, 1]), label_smoothing=0.1)
    rec.graph("graph", loss)
    rec.value("ignore_index 1", F.cross_entropy(x, torch.tensor([0, 1, 1]), ignore_index=1,
                                                label_smoothing=0.3))
    m = torch.nn.CrossEntropyLoss(label_smoothing=0.25)
    rec.value("module", m(x, torch.tensor([1, 1, 2])))
    rec.value("1-D input", F.cross_entropy(x[0], torch.tensor(2), label_smoothing=0.1))


def nn_layer_norm(torch, rec):
    nn = torch.nn
    F = nn.functional
    x = torch.tensor([[[0.5, -1.0, 2.0], [0.1, 3.0, -0.2]], [[1.0, -0.5, 1.5], [-2.0, 0.7, 2.5]]],
                     requires_grad=True)
    ln = nn.LayerNorm(3)
    rec.printed("print", ln)
    with torch.no_grad():
        ln.weight.copy_(torch.tensor([1.0, 2.0, -0.5]))
        ln.bias.copy_(torch.tensor([0.1, 0.0, 0.3]))
    up = torch.tensor([[[1.0, -2.0, 0.5], [0.3, 0.0, 1.0]], [[2.0, 1.0, -1.0], [0.5, 0.5, -3.0]]])
    y = ln(x)
    rec.value("y", y)
    rec.graph("graph", y)
    (y * up).sum().backward()
    rec.value("x.grad", x.grad)
    rec.value("weight.grad", ln.weight.grad)
    rec.value("bias.grad", ln.bias.grad)
    x.grad = None
    y = F.layer_norm(x, (2, 3), eps=1e-3)
    rec.value("over two dims, no affine", y)
    rec.graph("no affine graph", y)
    (g,) = torch.autograd.grad((y * up).sum(), x, create_graph=True)
    # values only: torch records this gradient as one NativeLayerNormBackwardBackward0 node
    rec.value("no affine grad", g.tolist())
    (h,) = torch.autograd.grad((g * g).sum(), x)
    rec.value("no affine second", h)
    for m in (nn.LayerNorm((2, 3), eps=1e-3, elementwise_affine=False),
              nn.LayerNorm(4, bias=False)):
        rec.printed(f"print {m.normalized_shape}", m)
        rec.value(f"params {m.normalized_shape}", [n for n, _ in m.named_parameters()])
    rec.value("no bias", nn.LayerNorm(3, bias=False)(x))
    rec.raises("wrong shape", lambda: F.layer_norm(x, (2,)))
    d = torch.tensor([[1.0, 2.0, 4.0]], dtype=torch.float64, requires_grad=True)
    y = F.layer_norm(d, (3,))
    rec.value("float64", y)


def nn_batch_norm_training_eval_and_running_stats(torch, rec):
    nn = torch.nn
    bn = nn.BatchNorm1d(3)
    rec.printed("print", bn)
    rec.value("state_dict keys", list(bn.state_dict().keys()))
    rec.value("num_batches_tracked", bn.num_batches_tracked)
    with torch.no_grad():
        bn.weight.copy_(torch.tensor([1.0, 2.0, -0.5]))
        bn.bias.copy_(torch.tensor([0.1, 0.0, 0.3]))
    batches = [torch.tensor([[0.5, -1.0, 2.0], [0.1, 3.0, -0.2], [1.0, 1.0, 1.5], [-2.0, 0.0, 2.0]]),
               torch.tensor([[1.0, 2.0, 3.0], [2.0, 0.5, -1.0], [0.0, 1.0, 1.0]])]
    up = torch.tensor([[1.0, -2.0, 0.5], [0.3, 0.0, 1.0], [2.0, 1.0, -1.0], [0.5, 0.5, -3.0]])
    for i, b in enumerate(batches):
        x = b.clone().requires_grad_(True)
        y = bn(x)
        rec.value(f"train y {i}", y)
        rec.graph(f"train graph {i}", y)
        (y * up[:len(b)]).sum().backward()
        rec.value(f"train x.grad {i}", x.grad)
        rec.value(f"weight.grad {i}", bn.weight.grad)
        rec.value(f"bias.grad {i}", bn.bias.grad)
        rec.value(f"running_mean {i}", bn.running_mean)
        rec.value(f"running_var {i}", bn.running_var)
        rec.value(f"num_batches_tracked {i}", bn.num_batches_tracked)
    bn.eval()
    rec.value("training after eval()", bn.training)
    x = batches[0].clone().requires_grad_(True)
    y = bn(x)
    rec.value("eval y", y)
    rec.graph("eval graph", y)
    (y * up).sum().backward()
    rec.value("eval x.grad", x.grad)
    rec.value("running_mean unchanged in eval", bn.running_mean)
    x3 = torch.arange(24.0).reshape(2, 3, 4).requires_grad_(True)
    bn3 = nn.BatchNorm1d(3, momentum=None)
    y = bn3(x3)
    rec.value("3-D y", y)
    (y * torch.arange(24.0).reshape(2, 3, 4).cos()).sum().backward()
    rec.value("3-D grad", x3.grad)
    bn3(x3 * 2)
    rec.value("cumulative running_mean", bn3.running_mean)
    rec.value("cumulative running_var", bn3.running_var)
    plain = nn.BatchNorm1d(3, affine=False, track_running_stats=False)
    rec.printed("print plain", plain)
    rec.value("plain buffers", [n for n, _ in plain.named_buffers()])
    plain.eval()
    rec.value("plain eval uses batch stats", plain(batches[1]))
    rec.raises("one value per channel", lambda: nn.BatchNorm1d(3)(torch.ones(1, 3)))
    rec.raises("4-D input", lambda: nn.BatchNorm1d(3)(torch.ones(2, 3, 2, 2)))
    model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.Dropout(0.5))
    model.eval()
    rec.value("children training after eval()", [m.training for m in model])
    model.train()
    rec.value("children training after train()", [m.training for m in model])
    rec.raises("train('yes')", lambda: model.train("yes"))


def nn_embedding(torch, rec):
    nn = torch.nn
    F = nn.functional
    w = torch.tensor([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0]], requires_grad=True)
    idx = torch.tensor([[0, 2], [2, 3]])
    y = F.embedding(idx, w)
    rec.value("y", y)
    rec.graph("graph", y)
    (y * torch.tensor([1.0, -1.0])).sum().backward()
    rec.value("w.grad", w.grad)
    w.grad = None
    y = F.embedding(idx, w, padding_idx=2)
    y.sum().backward()
    rec.value("padding_idx grad", w.grad)
    e = nn.Embedding(4, 2, padding_idx=-1)
    rec.printed("print", e)
    rec.value("padding row zero", e.weight[3])
    rec.value("padding_idx normalised", e.padding_idx)
    e2 = nn.Embedding(3, 2, max_norm=1.0)
    with torch.no_grad():
        e2.weight.copy_(torch.tensor([[3.0, 4.0], [0.3, 0.4], [1.0, 1.0]]))
    rec.printed("print max_norm", e2)
    rec.value("max_norm output", e2(torch.tensor([0, 1])))
    rec.value("max_norm renormalised the used rows", e2.weight)
    rec.raises("float indices", lambda: F.embedding(torch.tensor([0.0]), w))
    rec.raises("index out of range", lambda: F.embedding(torch.tensor([4]), w))
    rec.raises("padding_idx out of range", lambda: nn.Embedding(3, 2, padding_idx=3))


def nn_dropout_modes(torch, rec):
    nn = torch.nn
    F = nn.functional
    x = torch.tensor(_X, requires_grad=True)
    d = nn.Dropout(0.5)
    rec.printed("print", d)
    rec.printed("print inplace", nn.Dropout(0.2, inplace=True))
    d.eval()
    rec.value("eval returns input", d(x) is x)
    rec.value("p=0 returns input", F.dropout(x, 0.0) is x)
    rec.value("training=False returns input", F.dropout(x, 0.5, training=False) is x)
    y = F.dropout(x, 1.0)
    rec.value("p=1", y)
    rec.graph("p=1 graph", y)
    d.train()
    y = d(x)
    rec.graph("train graph", y)
    pairs = zip(_flat(y.tolist()), _flat(x.tolist()))
    rec.value("every element dropped or doubled", all(v in (0.0, 2 * u) for v, u in pairs))
    y.sum().backward()
    rec.value("grad is 0 or 2 where dropped or kept",
              all(g in (0.0, 2.0) for g in _flat(x.grad.tolist())))
    rec.raises("p > 1", lambda: nn.Dropout(1.5))
    rec.raises("F p < 0", lambda: F.dropout(x, -0.1))


def nn_dropout_masks_and_default_init_under_seed(torch, rec):
    nn = torch.nn
    F = nn.functional
    for seed in (0, 1, 123):
        torch.manual_seed(seed)
        x = torch.arange(1.0, 13.0).reshape(3, 4).requires_grad_(True)
        y = F.dropout(x, 0.3)
        rec.value(f"dropout seed {seed}", y)
        y.sum().backward()
        rec.value(f"dropout grad seed {seed}", x.grad)
        rec.value(f"Dropout(0.5) float64 seed {seed}",
                  nn.Dropout(0.5)(torch.ones(2, 5, dtype=torch.float64)))
        rec.value(f"kept of 1000 seed {seed}", (F.dropout(torch.ones(1000), 0.2) != 0).sum())
    y = torch.ones(2, 3)
    torch.manual_seed(5)
    F.dropout(y, 0.4, inplace=True)
    rec.value("dropout in place", y)
    torch.manual_seed(2)
    rec.value("Embedding default weight", nn.Embedding(4, 3, padding_idx=1).weight)
    torch.manual_seed(2)
    rec.value("PReLU weight", nn.PReLU(2).weight)
    torch.manual_seed(4)
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.GELU(), nn.Dropout(0.25),
                          nn.Linear(4, 2))
    out = model(torch.randn(5, 3))
    rec.value("model output, training", out)
    model.eval()
    rec.value("model output, eval", model(torch.ones(2, 3)))


def nn_reshaping_containers_and_module_state(torch, rec):
    nn = torch.nn
    x = torch.arange(24.0).reshape(2, 3, 4).requires_grad_(True)
    f = nn.Flatten()
    rec.printed("print Flatten", f)
    y = f(x)
    rec.value("Flatten", y)
    rec.graph("Flatten graph", y)
    rec.value("Flatten(0, 1)", nn.Flatten(0, 1)(x).shape)
    u = nn.Unflatten(1, (2, 6))
    rec.printed("print Unflatten", u)
    z = u(y)
    rec.value("Unflatten", z.shape)
    rec.graph("Unflatten graph", z)
    rec.value("Unflatten -1", nn.Unflatten(-1, (3, -1))(y).shape)
    rec.printed("print Identity", nn.Identity())
    md = nn.ModuleDict({"act": nn.ReLU(), "lin": nn.Linear(2, 3)})
    md["out"] = nn.Linear(3, 1)
    rec.printed("print ModuleDict", md)
    rec.value("ModuleDict keys", list(md.keys()))
    rec.value("ModuleDict len, in", (len(md), "lin" in md, "x" in md))
    rec.value("ModuleDict parameters", [n for n, _ in md.named_parameters()])
    md.pop("act")
    rec.value("after pop", list(md))
    md.update([("b", nn.Tanh())])
    rec.value("after update", list(md))
    pl = nn.ParameterList([nn.Parameter(torch.ones(2)), torch.zeros(2, 3, dtype=torch.float64)])
    pl.append(nn.Parameter(torch.ones(1)))
    rec.printed("print ParameterList", pl)
    rec.value("ParameterList len", len(pl))
    rec.value("ParameterList names", [n for n, _ in pl.named_parameters()])
    rec.value("converted to Parameter", type(pl[1]).__name__)
    rec.value("requires_grad", [p.requires_grad for p in pl])
    model = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
    rec.value("requires_grad_(False) returns self", model.requires_grad_(False) is model)
    rec.value("after requires_grad_(False)", [p.requires_grad for p in model.parameters()])
    model.requires_grad_()
    rec.value("after requires_grad_()", [p.requires_grad for p in model.parameters()])


def _two_params(torch):
    nn = torch.nn
    a = nn.Parameter(torch.tensor([[1.0, -2.0], [0.5, 3.0]]))
    b = nn.Parameter(torch.tensor([0.1, -0.1, 4.0]))
    (a * a * a).sum().backward()
    (b * 2).sum().backward()
    return a, b


def nn_utils_clip_grad_and_vectors(torch, rec):
    U = torch.nn.utils
    for max_norm, norm_type in ((1.0, 2.0), (100.0, 2.0), (0.5, 1.0), (2.0, float("inf")),
                                (1.0, 3)):
        a, b = _two_params(torch)
        total = U.clip_grad_norm_([a, b], max_norm, norm_type=norm_type)
        rec.value(f"total {max_norm} {norm_type}", total)
        rec.value(f"grads {max_norm} {norm_type}", (a.grad, b.grad))
    a, b = _two_params(torch)
    rec.value("single tensor", U.clip_grad_norm_(a, 1.0))
    rec.value("no grads", U.clip_grad_norm_([torch.nn.Parameter(torch.ones(2))], 1.0))
    a, b = _two_params(torch)
    b.grad[0] = float("nan")
    rec.raises("non-finite", lambda: U.clip_grad_norm_([a, b], 1.0, error_if_nonfinite=True))
    a, b = _two_params(torch)
    rec.value("clip_grad_value_ returns", U.clip_grad_value_([a, b], 2.5))
    rec.value("clipped values", (a.grad, b.grad))
    lin = torch.nn.Linear(2, 2)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
        lin.bias.copy_(torch.tensor([5.0, 6.0]))
    v = U.parameters_to_vector(lin.parameters())
    rec.value("parameters_to_vector", v)
    rec.graph("parameters_to_vector graph", v)
    U.vector_to_parameters(torch.arange(6.0), lin.parameters())
    rec.value("vector_to_parameters", (lin.weight, lin.bias))
    rec.raises("vector_to_parameters list", lambda: U.vector_to_parameters([1.0], lin.parameters()))


def _trajectory(torch, rec, make, steps=5):
    nn = torch.nn
    w = nn.Parameter(torch.tensor([[1.0, -2.0], [0.5, 3.0]]))
    b = nn.Parameter(torch.tensor([0.1, -0.1]))
    opt = make([w, b])
    x = torch.tensor([1.0, 2.0])
    for step in range(steps):
        opt.zero_grad()
        loss = ((w @ x + b) ** 2).sum() + (w ** 3).sum() * 0.1
        loss.backward()
        opt.step()
        rec.value(f"step{step}.loss", loss.item())
        rec.value(f"step{step}.w", w.tolist())
        rec.value(f"step{step}.b", b.tolist())
    return opt, w


def optim_adamw_trajectories(torch, rec):
    opt, w = _trajectory(torch, rec, lambda p: torch.optim.AdamW(p, lr=0.1))
    rec.printed("print", opt)
    rec.value("state keys", sorted(opt.state[w].keys()))
    rec.value("step", opt.state[w]["step"])
    _trajectory(torch, rec, lambda p: torch.optim.AdamW(p, lr=0.05, weight_decay=0.5,
                                                        amsgrad=True, betas=(0.8, 0.9)))
    _trajectory(torch, rec, lambda p: torch.optim.AdamW(p, lr=0.05, maximize=True))


def optim_rmsprop_trajectories(torch, rec):
    opt, w = _trajectory(torch, rec, lambda p: torch.optim.RMSprop(p, lr=0.01))
    rec.printed("print", opt)
    rec.value("state keys", sorted(opt.state[w].keys()))
    _trajectory(torch, rec, lambda p: torch.optim.RMSprop(p, lr=0.01, momentum=0.9))
    opt, w = _trajectory(torch, rec, lambda p: torch.optim.RMSprop(
        p, lr=0.02, alpha=0.9, centered=True, weight_decay=0.1, momentum=0.5))
    rec.value("centered state keys", sorted(opt.state[w].keys()))
    rec.value("grad_avg", opt.state[w]["grad_avg"])
    _trajectory(torch, rec, lambda p: torch.optim.RMSprop(p, lr=0.01, maximize=True))
    p = torch.nn.Parameter(torch.ones(1))
    rec.raises("alpha", lambda: torch.optim.RMSprop([p], alpha=-1))
    rec.raises("momentum", lambda: torch.optim.RMSprop([p], momentum=-1))


def optim_adagrad_trajectories(torch, rec):
    p = torch.nn.Parameter(torch.ones(2))
    opt = torch.optim.Adagrad([p], initial_accumulator_value=0.5)
    rec.printed("print", opt)
    rec.value("state before any step", opt.state[p])
    _trajectory(torch, rec, lambda p: torch.optim.Adagrad(p, lr=0.1))
    _trajectory(torch, rec, lambda p: torch.optim.Adagrad(
        p, lr=0.2, lr_decay=0.1, weight_decay=0.05, initial_accumulator_value=0.1, eps=1e-6))
    rec.raises("lr_decay", lambda: torch.optim.Adagrad([p], lr_decay=-1))
    rec.raises("initial_accumulator_value", lambda: torch.optim.Adagrad(
        [p], initial_accumulator_value=-1))


def optim_sgd_nesterov_and_param_group_changes(torch, rec):
    _trajectory(torch, rec, lambda p: torch.optim.SGD(p, lr=0.01, momentum=0.9, nesterov=True,
                                                      weight_decay=0.1))
    _trajectory(torch, rec, lambda p: torch.optim.Adam(p, lr=0.05, weight_decay=0.1))

    def halve_midway(params):
        opt = torch.optim.SGD([{"params": params[:1]}, {"params": params[1:], "lr": 0.05}],
                              lr=0.02, momentum=0.5)
        original = opt.step

        def step(closure=None):
            original(closure)
            for g in opt.param_groups:
                g["lr"] = g["lr"] / 2
        opt.step = step
        return opt
    opt, _ = _trajectory(torch, rec, halve_midway)
    rec.value("lrs after halving", [g["lr"] for g in opt.param_groups])


def _schedule(torch, rec, tag, make, steps=8, metrics=None):
    p = torch.nn.Parameter(torch.tensor([1.0]))
    opt = torch.optim.SGD([p], lr=0.1)
    sched = make(opt)
    rec.value(f"{tag} initial", sched.get_last_lr())
    lrs = []
    for i in range(steps):
        (p * p).sum().backward()
        opt.step()
        if metrics is None:
            sched.step()
        else:
            sched.step(metrics[i])
        lrs.append(opt.param_groups[0]["lr"])
    rec.value(f"{tag} lrs", lrs)
    rec.value(f"{tag} last_lr", sched.get_last_lr())
    rec.value(f"{tag} last_epoch", sched.last_epoch)
    rec.value(f"{tag} p", p)
    return opt, sched


def optim_lr_schedulers(torch, rec):
    S = torch.optim.lr_scheduler
    _, s = _schedule(torch, rec, "StepLR", lambda o: S.StepLR(o, step_size=3, gamma=0.5))
    rec.value("StepLR state_dict", {k: v for k, v in s.state_dict().items()})
    _schedule(torch, rec, "ExponentialLR", lambda o: S.ExponentialLR(o, gamma=0.9))
    _schedule(torch, rec, "CosineAnnealingLR", lambda o: S.CosineAnnealingLR(o, T_max=3),
              steps=10)
    _schedule(torch, rec, "CosineAnnealingLR eta_min",
              lambda o: S.CosineAnnealingLR(o, T_max=4, eta_min=0.01), steps=10)
    _schedule(torch, rec, "LambdaLR", lambda o: S.LambdaLR(o, lambda e: 0.5 ** e))
    opt, s = _schedule(torch, rec, "ReduceLROnPlateau", lambda o: S.ReduceLROnPlateau(
        o, patience=1, factor=0.5), steps=9, metrics=[5, 4, 4, 4, 4, 3.999, 3, 3, 3])
    rec.value("ReduceLROnPlateau state", (s.best, s.num_bad_epochs, s.cooldown_counter))
    _schedule(torch, rec, "ReduceLROnPlateau max cooldown abs", lambda o: S.ReduceLROnPlateau(
        o, mode="max", patience=0, cooldown=2, threshold=0.5, threshold_mode="abs",
        min_lr=0.02), steps=9, metrics=[1, 1.2, 1.3, 2, 2, 2, 2, 2, 2])
    opt, _ = _schedule(torch, rec, "StepLR then edit", lambda o: S.StepLR(o, 2, 0.5), steps=2)
    rec.value("initial_lr in group", opt.param_groups[0]["initial_lr"])
    p = torch.nn.Parameter(torch.ones(1))
    o = torch.optim.SGD([p], lr=1.0)
    s = S.StepLR(o, 1, 0.5)
    s.step()
    rec.value("scheduler stepped before optimizer", o.param_groups[0]["lr"])
    rec.raises("ReduceLROnPlateau factor", lambda: S.ReduceLROnPlateau(o, factor=1.0))
    rec.raises("ReduceLROnPlateau mode", lambda: S.ReduceLROnPlateau(o, mode="up"))
    rec.raises("LambdaLR count", lambda: S.LambdaLR(o, [lambda e: 1.0, lambda e: 1.0]))
    rec.raises("resume without initial_lr", lambda: S.StepLR(
        torch.optim.SGD([p], lr=1.0), 1, last_epoch=3))



def activation_gradients_at_boundaries_and_nan(torch, rec):
    """hardswish's gradient at -3 and 3 (torch 2.13's boundaries), hardsigmoid's constant 0
    outside (-3, 3), and at NaN inputs inside and outside torch's vectorised blocks."""
    F = torch.nn.functional
    nan = float("nan")
    values = [-3.0, 3.0, -4.0, 4.0, nan, 2.5, -2.5, float("-inf")]
    for name in ("hardswish", "hardsigmoid", "relu6", "hardtanh", "elu", "selu", "celu"):
        for dtype in (torch.float32, torch.float64):
            for n in (8, 40):
                x = torch.tensor((values * 5)[:n], dtype=dtype, requires_grad=True)
                (g,) = torch.autograd.grad(getattr(F, name)(x), x,
                                           torch.full((n,), -1.5, dtype=dtype))
                rec.value(f"{name} {dtype} {n}", g)


def small_edges_the_value_fuzzer_found(torch, rec):
    x = torch.arange(6.0).reshape(2, 3).requires_grad_()
    for key in ((Ellipsis,), (slice(None), slice(None)), (slice(0, None),), (slice(-2, None),),
                (slice(None, 5),), ()):
        rec.graph(f"x[{key}]", x[key])
    rec.graph("x[:]", x[:])
    z = torch.tensor(2.0, requires_grad=True)
    y = torch.masked_select(z, torch.tensor(True))
    y.sum().backward()
    rec.value("masked_select 0-dim", y)
    rec.value("masked_select 0-dim grad", z.grad)
    rec.value("masked_select 0-dim False", torch.masked_select(z, torch.tensor(False)))
    F = torch.nn.functional
    for shape, tshape in (((0, 3, 2), (0, 2)), ((0, 3, 2, 2), (0, 2, 2))):
        for red in ("mean", "sum", "none"):
            x = torch.zeros(shape, requires_grad=True)
            t = torch.zeros(tshape, dtype=torch.long)
            loss = F.cross_entropy(x, t, reduction=red)
            rec.value(f"cross_entropy {shape} {red}", loss)
            rec.value(f"nll_loss {shape} {red}", F.nll_loss(x, t, reduction=red))
            rec.value(f"label_smoothing {shape} {red}",
                      F.cross_entropy(x, t, reduction=red, label_smoothing=0.1))
    e = torch.zeros(0, 1).expand(0, 5)
    rec.value("in place on an empty expanded tensor", e.add_(1))


SCENARIOS = collect_scenarios(globals(), __name__)
