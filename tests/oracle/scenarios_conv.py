"""Oracle scenarios for convolution, pooling and padding (F.conv1d/conv2d, max_pool2d,
avg_pool2d, F.pad and their modules): values, gradients, second derivatives, grad_fn names,
the settings a node keeps, module printing, default initialisation under a seed, and errors.
The rules of tests/oracle/scenarios.py apply; its SCENARIOS include these."""

from __future__ import annotations

from tests.oracle.recorder import collect_scenarios


def _ramp(torch, shape, scale=0.25, shift=0.0, dtype=None):
    """A tensor of distinct values in a fixed, irregular order (no random numbers, no ties),
    multiples of a power of two: every sum of products is exact, whatever its order."""
    n = 1
    for s in shape:
        n *= s
    values = [((k * 7) % n - n / 2) * scale + shift for k in range(n)]
    return torch.tensor(values, dtype=dtype).reshape(shape).requires_grad_()


def _check(torch, rec, tag, fn, *inputs, second=True, names=True):
    """Value, graph, gradients of sum(y * y) and their own gradient. names=False: the
    gradients' grad_fn names are not compared (a convolution's backward, differentiable
    again, is several engine nodes where torch records one ConvolutionBackwardBackward0)."""
    y = fn(*inputs)
    rec.value(f"{tag} y", y)
    rec.graph(f"{tag} graph", y)
    grads = torch.autograd.grad((y * y).sum(), inputs, create_graph=second)
    for i, g in enumerate(grads):
        rec.value(f"{tag} grad {i}", g if names else g.detach())
    if second:
        total = sum((g * g).sum() for g in grads)
        for i, h in enumerate(torch.autograd.grad(total, inputs)):
            rec.value(f"{tag} second {i}", h)


def conv2d_values_gradients_second_derivatives(torch, rec):
    F = torch.nn.functional
    d = torch.float64
    x, w, b = _ramp(torch, (2, 2, 5, 4), dtype=d), _ramp(torch, (3, 2, 3, 2), 0.125, dtype=d), \
        _ramp(torch, (3,), dtype=d)
    _check(torch, rec, "plain", lambda x, w, b: F.conv2d(x, w, b), x, w, b, names=False)
    _check(torch, rec, "stride padding dilation",
           lambda x, w: F.conv2d(x, w, stride=(2, 1), padding=(1, 2), dilation=(1, 2)), x, w, names=False)
    _check(torch, rec, "valid", lambda x, w: F.conv2d(x, w, padding="valid"), x, w, names=False)
    _check(torch, rec, "same odd", lambda x, w: F.conv2d(x, w, padding="same", dilation=2),
           x, _ramp(torch, (3, 2, 3, 3), 0.125, dtype=d), names=False)
    x4, w4 = _ramp(torch, (1, 4, 4, 4), dtype=d), _ramp(torch, (6, 2, 2, 2), 0.125, dtype=d)
    _check(torch, rec, "groups", lambda x, w: F.conv2d(x, w, groups=2, padding=1), x4, w4, names=False)
    _check(torch, rec, "unbatched", lambda x, w: F.conv2d(x, w), _ramp(torch, (2, 4, 4),
                                                                     dtype=d), w, names=False)
    y = F.conv2d(x, w, b, padding=1)
    fn = y.grad_fn
    rec.value("saved stride", list(fn._saved_stride))
    rec.value("saved padding", list(fn._saved_padding))
    rec.value("saved dilation", list(fn._saved_dilation))
    rec.value("saved groups", fn._saved_groups)
    rec.value("saved transposed", fn._saved_transposed)
    rec.value("saved input", fn._saved_input)
    rec.value("saved weight", fn._saved_weight)
    y.sum().backward()
    rec.raises("saved input after backward", lambda: fn._saved_input)
    xf, wf, bf = _ramp(torch, (1, 2, 4, 4)), _ramp(torch, (2, 2, 3, 3), 0.125), _ramp(torch, (2,))
    _check(torch, rec, "float32", lambda x, w, b: F.conv2d(x, w, b, padding=1), xf, wf, bf,
           second=False)


# padding="same" with an even kernel pads the input first; torch warns about it once per process,
# so it is checked in tests/test_conv.py, not here (a scenario's warnings must not depend on order)


def conv1d_values_and_gradients(torch, rec):
    F = torch.nn.functional
    d = torch.float64
    x, w, b = _ramp(torch, (2, 4, 7), dtype=d), _ramp(torch, (4, 2, 3), 0.125, dtype=d), \
        _ramp(torch, (4,), dtype=d)
    _check(torch, rec, "plain", lambda x, w: F.conv1d(x, w), x, _ramp(torch, (3, 4, 3), 0.125,
                                                                      dtype=d), names=False)
    _check(torch, rec, "groups stride padding", lambda x, w, b: F.conv1d(
        x, w, b, stride=2, padding=2, groups=2), x, w, b, names=False)
    _check(torch, rec, "dilation", lambda x, w: F.conv1d(x, w, dilation=3, groups=2), x, w, names=False)


def conv_errors(torch, rec):
    F = torch.nn.functional
    w = torch.zeros(3, 2, 3, 3)
    rec.raises("rank", lambda: F.conv2d(torch.zeros(2, 5), w))
    rec.raises("channels", lambda: F.conv2d(torch.zeros(1, 4, 5, 5), w))
    rec.raises("too small", lambda: F.conv2d(torch.zeros(1, 2, 2, 2), w))
    rec.raises("same strided", lambda: F.conv2d(torch.zeros(1, 2, 5, 5), w, stride=2,
                                                padding="same"))
    rec.raises("bad string", lambda: F.conv2d(torch.zeros(1, 2, 5, 5), w, padding="full"))
    rec.raises("groups", lambda: F.conv2d(torch.zeros(1, 2, 5, 5), w, groups=2))
    rec.raises("bias", lambda: F.conv2d(torch.zeros(1, 2, 5, 5), w, bias=torch.zeros(2)))
    rec.raises("stride", lambda: F.conv2d(torch.zeros(1, 2, 5, 5), w, stride=0))
    rec.raises("negative padding", lambda: F.conv2d(torch.zeros(1, 2, 5, 5), w, padding=-1))
    rec.raises("dtype", lambda: F.conv2d(torch.zeros(1, 2, 5, 5, dtype=torch.float64), w))
    rec.raises("conv1d rank", lambda: F.conv1d(torch.zeros(5), torch.zeros(1, 1, 2)))
    rec.raises("module groups", lambda: torch.nn.Conv2d(3, 4, 2, groups=2))
    rec.raises("module out groups", lambda: torch.nn.Conv2d(4, 3, 2, groups=2))
    rec.raises("module same strided", lambda: torch.nn.Conv1d(1, 1, 2, stride=2,
                                                              padding="same"))
    rec.raises("module zero groups", lambda: torch.nn.Conv1d(1, 1, 2, groups=0))


def conv_modules_print_and_initialise_from_the_seed(torch, rec):
    nn = torch.nn
    torch.manual_seed(7)
    c2 = nn.Conv2d(2, 3, (2, 3), padding=1)
    c1 = nn.Conv1d(4, 2, 3, stride=2, dilation=2, groups=2, bias=False)
    cs = nn.Conv2d(1, 2, 3, padding="same", padding_mode="reflect")
    rec.printed("Conv2d", c2)
    rec.printed("Conv1d", c1)
    rec.printed("Conv2d same reflect", cs)
    rec.printed("Conv1d replicate", nn.Conv1d(1, 1, 2, padding=1, padding_mode="replicate"))
    rec.value("Conv2d weight", c2.weight)
    rec.value("Conv2d bias", c2.bias)
    rec.value("Conv1d weight", c1.weight)
    rec.value("same reflect weight", cs.weight)
    rec.value("after the layers", torch.rand(3))
    x = _ramp(torch, (1, 1, 4, 4))
    y = cs(x)
    rec.value("same reflect y", y)
    rec.graph("same reflect graph", y)
    model = nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.AvgPool2d(2, stride=1, padding=1), nn.Flatten(), nn.Linear(18, 2))
    rec.printed("model", model)
    out = model(x)
    rec.value("model out", out)
    out.sum().backward()
    rec.value("model first grad", model[0].weight.grad)
    rec.printed("MaxPool2d", nn.MaxPool2d((2, 3), stride=1, padding=1, dilation=2,
                                          ceil_mode=True, return_indices=True))
    rec.printed("AvgPool2d", nn.AvgPool2d(3, ceil_mode=True, count_include_pad=False,
                                          divisor_override=2))


def max_pool2d_values_indices_ties_and_gradients(torch, rec):
    F = torch.nn.functional
    x = _ramp(torch, (2, 2, 5, 6), dtype=torch.float64)
    _check(torch, rec, "k2", lambda x: F.max_pool2d(x, 2), x)
    _check(torch, rec, "pad ceil", lambda x: F.max_pool2d(x, 3, stride=2, padding=1,
                                                          ceil_mode=True), x)
    _check(torch, rec, "dilation", lambda x: F.max_pool2d(x, (2, 3), stride=1, dilation=2), x)
    _check(torch, rec, "unbatched", lambda x: F.max_pool2d(x[0], 2, stride=1), x)
    y, idx = F.max_pool2d(x, 3, stride=2, padding=1, return_indices=True)
    rec.value("indices", idx)
    fn = y.grad_fn
    rec.value("saved kernel_size", list(fn._saved_kernel_size))
    rec.value("saved result1", fn._saved_result1)
    rec.value("saved self", fn._saved_self)
    # equal values: the first one of each window takes the gradient
    t = torch.tensor([[[[1.0, 3.0, 3.0, 1.0], [3.0, 2.0, 0.0, 3.0], [1.0, 1.0, 1.0, 1.0]]]],
                     requires_grad=True)
    yt, it = F.max_pool2d(t, 2, stride=1, return_indices=True)
    yt.sum().backward()
    rec.value("ties indices", it)
    rec.value("ties grad", t.grad)
    m = torch.tensor([[[[float("-inf"), 1.0], [2.0, float("-inf")]]]])
    rec.value("-inf windows", F.max_pool2d(m, 2, stride=1, padding=1, return_indices=True)[1])
    rec.raises("pad too big", lambda: F.max_pool2d(torch.zeros(1, 1, 5, 5), 3, padding=2))
    rec.raises("rank", lambda: F.max_pool2d(torch.zeros(5, 5), 2))
    rec.raises("too small", lambda: F.max_pool2d(torch.zeros(1, 1, 1, 1), 2))
    with torch.no_grad():
        rec.value("no grad indices", F.max_pool2d(x, 2, return_indices=True)[1])


def avg_pool2d_values_and_gradients(torch, rec):
    F = torch.nn.functional
    x = _ramp(torch, (2, 2, 5, 6), dtype=torch.float64)
    _check(torch, rec, "k2", lambda x: F.avg_pool2d(x, 2), x)
    _check(torch, rec, "pad ceil", lambda x: F.avg_pool2d(x, 3, stride=2, padding=1,
                                                          ceil_mode=True), x)
    _check(torch, rec, "exclude pad", lambda x: F.avg_pool2d(
        x, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False), x)
    _check(torch, rec, "divisor", lambda x: F.avg_pool2d(x[0], (2, 3), padding=1,
                                                         divisor_override=5), x)
    y = F.avg_pool2d(x, 2)
    rec.value("saved count_include_pad", y.grad_fn._saved_count_include_pad)
    rec.value("saved divisor_override", y.grad_fn._saved_divisor_override)
    rec.value("float32", F.avg_pool2d(_ramp(torch, (1, 1, 4, 4)), 3, stride=1, padding=1))
    rec.raises("pad too big", lambda: F.avg_pool2d(torch.zeros(1, 1, 5, 5), 3, padding=2))


def pad_modes_values_and_gradients(torch, rec):
    F = torch.nn.functional
    x = _ramp(torch, (2, 3, 4), dtype=torch.float64)
    _check(torch, rec, "constant", lambda x: F.pad(x, (1, 2, 0, 1), value=1.5), x)
    _check(torch, rec, "constant cut", lambda x: F.pad(x, (-1, 2, 1, -1)), x)
    _check(torch, rec, "constant 1-d", lambda x: F.pad(x[0, 0], (2, 1)), x)
    _check(torch, rec, "reflect 1d", lambda x: F.pad(x, (3, 2), mode="reflect"), x)
    _check(torch, rec, "reflect 2d", lambda x: F.pad(x, (1, 2, 2, 1), mode="reflect"), x)
    _check(torch, rec, "replicate 1d", lambda x: F.pad(x[0], (5, 3), mode="replicate"), x)
    _check(torch, rec, "replicate 2d", lambda x: F.pad(x.unsqueeze(0), (1, 3, 2, 1),
                                                       mode="replicate"), x)
    rec.value("saved pad", list(F.pad(x, (1, 2)).grad_fn._saved_pad))
    rec.value("saved padding", list(F.pad(x, (1, 2), mode="reflect").grad_fn._saved_padding))
    rec.raises("odd length", lambda: F.pad(x, (1, 1, 1)))
    rec.raises("too long", lambda: F.pad(torch.zeros(3), (1, 1, 1, 1)))
    rec.raises("cut too much", lambda: F.pad(torch.zeros(3), (-2, -2)))
    rec.raises("unknown mode", lambda: F.pad(x, (1, 1), mode="wrap"))
    rec.raises("value with reflect", lambda: F.pad(x, (1, 1), mode="reflect", value=2.0))
    rec.raises("reflect too wide", lambda: F.pad(x, (4, 1), mode="reflect"))
    rec.raises("reflect 2d too wide", lambda: F.pad(x.unsqueeze(0), (1, 1, 3, 1),
                                                    mode="reflect"))
    rec.raises("reflect rank", lambda: F.pad(torch.zeros(3), (1, 1), mode="reflect"))
    rec.raises("replicate rank", lambda: F.pad(torch.zeros(1, 1, 3, 3), (1, 1),
                                               mode="replicate"))



SCENARIOS = collect_scenarios(globals(), __name__)
