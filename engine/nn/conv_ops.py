"""Convolution, pooling and padding: the ops behind nn.Conv1d/Conv2d, MaxPool2d, AvgPool2d
and F.pad, one graph node each as torch records them.

Every window op here is computed the same way on both backends: the input is padded, then
"unfolded" into one slice per kernel offset (a strided view of the padded input), so a window
op becomes element-wise work and one matmul over those slices. The gradient of unfolding is
"folding" (adding each slice back at its offset): the two are each other's backward (torch's
Im2ColBackward0 / Col2ImBackward0), which makes every backward here a composition of engine
ops that create_graph=True can differentiate again.

Spatial settings are tuples with one entry per spatial dim (1 for conv1d, 2 for the 2-D ops);
`pads` are (low, high) pairs, so that ceil_mode and padding='same' can pad one side more.
"""

from __future__ import annotations

import itertools
import math

from .. import backend as B
from .. import budget as _budget
from ..autograd import grad_mode
from ..autograd.function import Function, apply, apply_multi
from ..state import current as _current_state
from ..tensor import Tensor, warn
from .circular_pad import pad_circular

# -- unfolding and folding, on arrays -----------------------------------------------------------


def _out_size(size, lo, hi, k, d, s) -> int:
    return (size + lo + hi - d * (k - 1) - 1) // s + 1


def _pad_array(a, pads, value):
    """a with its last len(pads) dims padded by (low, high) each, filled with value."""
    shape = B.shape(a)
    n = len(pads)
    lead = shape[:len(shape) - n]
    new = lead + tuple(s + lo + hi for s, (lo, hi) in zip(shape[len(shape) - n:], pads))
    if new == shape:
        return a
    out = B.full(new, value, B.dtype_name(a))
    inner = tuple(slice(lo, lo + s) for s, (lo, _) in zip(shape[len(shape) - n:], pads))
    B.setitem(out, (Ellipsis,) + inner, a)
    return out


def _offsets(kernel):
    return list(itertools.product(*(range(k) for k in kernel)))


def _window(offset, dilation, stride, out):
    """The index of the slice that offset `offset` of every window reads."""
    return (Ellipsis,) + tuple(slice(o * d, o * d + s * (n - 1) + 1, s)
                               for o, d, s, n in zip(offset, dilation, stride, out))


def _unfold(a, kernel, dilation, stride, out):
    """(N, C, *S) padded -> (N, C, K, *out): one slice per kernel offset."""
    slices = [B.getitem(a, _window(o, dilation, stride, out)) for o in _offsets(kernel)]
    return B.stack(slices, B.ndim(a) - len(kernel))


def _fold(cols, padded_shape, kernel, dilation, stride, out):
    """The adjoint of _unfold: (N, C, K, *out) added back into zeros of padded_shape."""
    acc = B.zeros(padded_shape, B.dtype_name(cols))
    lead = (slice(None),) * (len(padded_shape) - len(kernel))
    for k, o in enumerate(_offsets(kernel)):
        at = _window(o, dilation, stride, out)
        B.setitem(acc, at, B.add(B.getitem(acc, at), B.getitem(cols, lead + (k,))))
    return acc


def _crop(a, shape, pads):
    n = len(pads)
    inner = tuple(slice(lo, lo + s) for s, (lo, _) in zip(shape[len(shape) - n:], pads))
    return B.copy(B.getitem(a, (Ellipsis,) + inner))


class _Windows:
    """The geometry of a window op: input shape (N, C, *S), kernel, dilation, stride, pads and
    the output's spatial size."""

    __slots__ = ("shape", "kernel", "dilation", "stride", "pads", "out")

    def __init__(self, shape, kernel, dilation, stride, pads, out):
        self.shape, self.kernel, self.dilation = tuple(shape), kernel, dilation
        self.stride, self.pads, self.out = stride, pads, out

    @property
    def padded(self):
        n = len(self.kernel)
        spatial = self.shape[len(self.shape) - n:]
        return self.shape[:len(self.shape) - n] + tuple(
            s + lo + hi for s, (lo, hi) in zip(spatial, self.pads))

    def unfold(self, a, value=0):
        return _unfold(_pad_array(a, self.pads, value), self.kernel, self.dilation, self.stride,
                       self.out)

    def fold(self, cols):
        acc = _fold(cols, self.padded, self.kernel, self.dilation, self.stride, self.out)
        return _crop(acc, self.shape, self.pads)

    @property
    def n_offsets(self):
        return math.prod(self.kernel)

    @property
    def n_out(self):
        return math.prod(self.out)


class Im2Col(Function):
    """(N, C, *S) -> (N, C*K, L): the padded input's window slices (torch's F.unfold)."""

    name_ = "Im2ColBackward0"
    chain_rule = "unfold copied each window: to input the windows' {grad} added back where they were read"

    def forward(self, x, win):
        self.win = win
        cols = win.unfold(x._data)
        s = B.shape(cols)
        return B.reshape(cols, (s[0], s[1] * s[2], win.n_out))

    def backward(self, grad):
        return (apply(Col2Im, (grad,), self.win),)


class Col2Im(Function):
    """The adjoint of Im2Col: (N, C*K, L) -> (N, C, *S), overlapping windows added."""

    name_ = "Col2ImBackward0"
    chain_rule = "fold added windows together: to its input the windows of {grad}"

    def forward(self, cols, win):
        self.win = win
        n, c = win.shape[0], win.shape[1]
        a = B.reshape(B.contiguous(cols._data), (n, c, win.n_offsets) + tuple(win.out))
        return win.fold(a)

    def backward(self, grad):
        return (apply(Im2Col, (grad,), self.win),)


# -- convolution ----------------------------------------------------------------------------


def _absent(like: Tensor) -> Tensor:
    """An input that is not there (no bias): an edge to nothing, as torch's (None, 0)."""
    return Tensor._make(B.zeros((0,), like._dtype.name), like._dtype)


class Convolution(Function):
    """out[n, o] = bias[o] + sum over the group's channels c and kernel offsets k of
    weight[o, c, k] * padded input[n, c, window k]: one matmul of the weight with Im2Col's
    columns per group."""

    name_ = "ConvolutionBackward0"
    chain_rule = ("conv: to input the weight's transpose times {grad}, folded back into the "
                  "windows; to weight {grad} times the input's windows, summed over the batch; "
                  "to bias sum({grad}) over batch and positions")

    def forward(self, x, w, b, win, groups, has_bias, stride, padding, dilation):
        self.win, self.groups, self.has_bias = win, groups, has_bias
        self._params = (stride, padding, dilation)
        self.bias_size = B.shape(b._data)  # torch keeps (0,) when there is no bias
        self.save(x, w)
        n, g = win.shape[0], groups
        cols = win.unfold(x._data)  # (N, C, K, *out)
        ck = win.shape[1] * win.n_offsets
        cols = B.reshape(cols, (n, g, ck // g, win.n_out))
        ws = B.shape(w._data)
        wm = B.reshape(w._data, (g, ws[0] // g, ck // g))
        out = B.reshape(B.matmul(wm, cols), (n, ws[0]) + tuple(win.out))
        if has_bias:
            out = B.add(out, B.reshape(b._data, (ws[0],) + (1,) * len(win.out)))
        return out

    def backward(self, grad):
        x, w = self.saved_tensors
        if grad_mode.state.grad_enabled:
            # create_graph: one node for the whole gradient, as torch records it, whose own
            # backward is the double backward below
            outs = apply_multi(ConvolutionBackward, (grad, x, w), self)
            return tuple(o if self.needs(k) else None for k, o in enumerate(outs))
        return _conv_grads(self, grad, x, w, (self.needs(0), self.needs(1), self.needs(2)))

    saved_fields = {"input": 0, "weight": 1}

    @property
    def _saved_stride(self):
        return self._params[0]

    @property
    def _saved_padding(self):
        return self._params[1]

    @property
    def _saved_dilation(self):
        return self._params[2]

    @property
    def _saved_groups(self):
        return self.groups

    @property
    def _saved_transposed(self):
        return False

    @property
    def _saved_output_padding(self):
        return (0,) * len(self._params[0])

    @property
    def _saved_bias_sym_sizes_opt(self):
        return self.bias_size


def _input_grad(conv, grad, w):
    """The gradient of a convolution for its input: the weight's transpose times grad, folded
    back into the windows (a transposed convolution)."""
    win, g = conv.win, conv.groups
    n, o = win.shape[0], w.shape[0]
    ck = win.shape[1] * win.n_offsets
    wm = w.reshape(g, o // g, ck // g)
    cols = wm.transpose(1, 2).matmul(grad.reshape(n, g, o // g, win.n_out))
    return apply(Col2Im, (cols.reshape(n, ck, win.n_out),), win)


def _weight_grad(conv, grad, x, w_shape):
    """The gradient of a convolution for its weight: grad times the input's windows, summed
    over the batch."""
    win, g = conv.win, conv.groups
    n, o = win.shape[0], w_shape[0]
    ck = win.shape[1] * win.n_offsets
    cols = apply(Im2Col, (x,), win).reshape(n, g, ck // g, win.n_out)
    gm = grad.reshape(n, g, o // g, win.n_out)
    return gm.matmul(cols.transpose(2, 3)).sum(0).reshape(w_shape)


def _conv_grads(conv, grad, x, w, needed):
    gx = _input_grad(conv, grad, w) if needed[0] else None
    gw = _weight_grad(conv, grad, x, tuple(w.shape)) if needed[1] else None
    gb = grad.sum((0,) + tuple(range(2, grad.dim()))) if needed[2] else None
    return gx, gw, gb


def _convolve(conv, x, w):
    """The convolution `conv` made of x and w again (no bias), recorded."""
    stride, padding, dilation = conv._params
    return apply(Convolution, (x, w, _absent(x)), conv.win, conv.groups, False, stride,
                 padding, dilation)


class ConvolutionBackward(Function):
    """The gradient of a convolution (for its input, weight and bias: three outputs) as one
    node, when it is made with create_graph=True; its backward is torch's
    _convolution_double_backward, written with the same formulas."""

    name_ = "ConvolutionBackwardBackward0"
    chain_rule = ("the gradient of a convolution, differentiated again: to grad_output the "
                  "convolutions of the incoming gradients; to input and weight the convolution "
                  "gradients with the roles swapped")

    # the engine's array path (nothing records) hands over the outputs' gradients as arrays:
    # backward_arrays makes them Tensors for the formulas below
    array_backward = True

    def backward_arrays(self, grads, dtype):
        self.check_not_freed()
        return self.backward([None if g is None else Tensor._make(g, dtype) for g in grads])

    def forward(self, grad, x, w, conv):
        self.conv = conv
        self.save(grad, x, w)
        with grad_mode.no_grad():
            gx, gw, gb = _conv_grads(conv, grad, x, w, (True, True, True))
        return [gx._data, gw._data, gb._data if conv.has_bias else B.zeros((0,), B.dtype_name(
            grad._data))]

    def backward(self, grads):
        ggx, ggw, ggb = grads
        grad, x, w = self.saved_tensors
        conv = self.conv
        g_out = None
        if ggx is not None:
            g_out = _convolve(conv, ggx, w)
        if ggw is not None:
            term = _convolve(conv, x, ggw)
            g_out = term if g_out is None else g_out + term
        if ggb is not None and conv.has_bias:
            term = ggb.reshape((1, -1) + (1,) * (grad.dim() - 2)).expand(grad.shape)
            g_out = term if g_out is None else g_out + term
        gx = _input_grad(conv, grad, ggw) if ggw is not None and self.needs(1) else None
        gw = _weight_grad(conv, grad, ggx, tuple(w.shape)) if ggx is not None and self.needs(2) \
            else None
        return g_out if self.needs(0) else None, gx, gw

    def joined_grad(self, grads):
        """For the observer, which shows one gradient per node: the first that arrived."""
        return next((g for g in grads if g is not None), None)


def _ntuple(v, n, name="") -> tuple:
    if isinstance(v, (list, tuple)):
        t = tuple(int(e) for e in v)
        if len(t) == 1 and n > 1:
            t = t * n
        return t
    return (int(v),) * n


def _sizes(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _conv(input, weight, bias, stride, padding, dilation, groups, n: int, name: str):
    dim = input.dim()
    if dim not in (n + 1, n + 2):
        raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to "
                           f"{name}, but got input of size: {_sizes(input.shape)}")
    if dim == n + 1:
        return _conv(input.unsqueeze(0), weight, bias, stride, padding, dilation, groups, n,
                     name).squeeze(0)
    if input.dtype is not weight.dtype or (bias is not None and bias.dtype is not input.dtype):
        other = weight if input.dtype is not weight.dtype else bias
        raise RuntimeError(f"expected scalar type {_C_NAME[input.dtype.name]} but found "
                           f"{_C_NAME[other.dtype.name]}")
    stride, dilation = _ntuple(stride, n), _ntuple(dilation, n)
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    kernel = tuple(weight.shape[2:])
    if weight.dim() != n + 2:
        raise RuntimeError(
            "weight should have at least three dimensions" if weight.dim() < 3 else
            f"Expected {n + 2}-dimensional input for {n + 2}-dimensional weight "
            f"{_sizes(weight.shape)}, but got {dim}-dimensional input of size "
            f"{_sizes(input.shape)} instead")
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if padding == "valid":
            padding = (0,) * n
        else:
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            input, padding = _same_padding(input, kernel, dilation)
    padding = _ntuple(padding, n)
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    out_c = weight.shape[0]
    if out_c % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size [{_sizes(weight.shape)}] "
                           "instead")
    if input.shape[1] != weight.shape[1] * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {_sizes(weight.shape)}, expected "
            f"input{_sizes(input.shape)} to have {weight.shape[1] * groups} channels, but got "
            f"{input.shape[1]} channels instead")
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != out_c):
        raise RuntimeError(
            f"Given weight of size {_sizes(weight.shape)}, expected bias to be 1-dimensional "
            f"with {out_c} elements, but got bias of size {_sizes(bias.shape)} instead")
    spatial = tuple(input.shape[2:])
    padded = tuple(s + 2 * p for s, p in zip(spatial, padding))
    eff = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
    if any(p < e for p, e in zip(padded, eff)):
        raise RuntimeError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
            f"Kernel size: ({' x '.join(map(str, eff))}). Kernel size can't be greater than "
            "actual input size")
    out = tuple(_out_size(s, p, p, k, d, st)
                for s, p, k, d, st in zip(spatial, padding, kernel, dilation, stride))
    win = _Windows(input.shape, kernel, dilation, stride, tuple((p, p) for p in padding), out)
    b = bias if bias is not None else _absent(input)
    return apply(Convolution, (input, weight, b), win, groups, bias is not None, stride,
                 padding, dilation)


_C_NAME = {"float32": "Float", "float64": "Double", "int64": "Long", "bool": "Bool"}


def _same_padding(input, kernel, dilation):
    """torch's padding='same': total d*(k-1) per dim, the smaller half on both sides in the
    convolution and the odd one left over as a constant_pad_nd of the input first."""
    left, extra = [], []
    for k, d in zip(kernel, dilation):
        total = d * (k - 1)
        lo = total // 2
        left.append(lo)
        extra.append(total - 2 * lo)
    if any(extra):
        if _current_state().first_warning("conv same padding"):
            warn("Using padding='same' with even kernel lengths and odd dilation may require a "
                 "zero-padded copy of the input be created", UserWarning, stacklevel=4)
        pad = []
        for e in reversed(extra):
            pad += [0, e]
        input = constant_pad_nd(input, pad, 0.0)
    return input, tuple(left)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


# -- pooling --------------------------------------------------------------------------------


def _pool_out(size, k, p, d, s, ceil_mode) -> int:
    """torch's pooling_output_shape."""
    num = size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)
    out = num // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _pool_geometry(input, kernel_size, stride, padding, dilation, ceil_mode, name):
    kernel = _ntuple(kernel_size, 2)
    stride = kernel if stride is None or stride == [] or stride == () else _ntuple(stride, 2)
    padding, dilation = _ntuple(padding, 2), _ntuple(dilation, 2)
    if any(k <= 0 for k in kernel):
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kernel[0]} "
                           f"kW: {kernel[1]}")
    if any(s <= 0 for s in stride):
        raise RuntimeError(f"stride should be greater than zero, but got dH: {stride[0]} "
                           f"dW: {stride[1]}")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: "
                           f"{dilation[0]} dilationW: {dilation[1]}")
    if input.dim() not in (3, 4) or 0 in input.shape[1:]:
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    for p, k, d in zip(padding, kernel, dilation):
        if p > (d * (k - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")
    spatial = tuple(input.shape[-2:])
    out = tuple(_pool_out(s, k, p, d, st, ceil_mode)
                for s, k, p, d, st in zip(spatial, kernel, padding, dilation, stride))
    if any(o < 1 for o in out):
        c = input.shape[-3]
        raise RuntimeError(f"Given input size: ({c}x{spatial[0]}x{spatial[1]}). Calculated "
                           f"output size: ({c}x{out[0]}x{out[1]}). Output size is too small")
    # ceil_mode may let the last window run past the padded input: pad that side further
    pads = tuple((p, max(p, (o - 1) * st + d * (k - 1) + 1 - s - p))
                 for s, k, p, d, st, o in zip(spatial, kernel, padding, dilation, stride, out))
    shape = tuple(input.shape) if input.dim() == 4 else (1,) + tuple(input.shape)
    win = _Windows(shape, kernel, dilation, stride, pads, out)
    return win, (kernel, stride, padding, dilation)


def _batched(a, win):
    return B.reshape(a, win.shape)


class _PoolWindow:
    """`grad_fn._saved_kernel_size/_stride/_padding` of a pooling node, as torch exposes them,
    read from the node's `_params` (kernel, stride, padding, ...)."""

    @property
    def _saved_kernel_size(self):
        return self._params[0]

    @property
    def _saved_stride(self):
        return self._params[1]

    @property
    def _saved_padding(self):
        return self._params[2]


class MaxPool2DWithIndices(_PoolWindow, Function):
    """The largest value of each window (the first one, in window order, among equals; the
    last NaN where there are NaNs, as torch's loop), and its position in the input plane as
    torch's indices; the gradient goes to that position."""

    name_ = "MaxPool2DWithIndicesBackward0"
    chain_rule = "max_pool2d: to each window's largest input (the first among equals) its {grad}, zero elsewhere"

    def forward(self, x, win, params, ceil_mode):
        self.win, self._params, self.ceil_mode = win, params, ceil_mode
        self.in_shape = B.shape(x._data)
        a = _batched(x._data, win)
        dt = B.dtype_name(a)
        cols = win.unfold(a, float("-inf"))  # (N, C, K, Oh, Ow)
        k = B.argmax(cols, 2, False)
        nan = B.isnan(cols)
        if B.item(B.amax(B.astype(nan, "int64"), None, False)) if B.numel(cols) else False:
            # torch's loop takes every NaN it meets (`val > max || isnan(val)`): the last one
            kk = B.shape(cols)[2]
            at = B.reshape(B.arange(0, kk, 1, "int64"), (1, 1, kk, 1, 1))
            last = B.amax(B.where(nan, at, B.scalar(-1, "int64")), (2,), False)
            k = B.where(B.ge(last, B.scalar(0, "int64")), last, k)
        # the value at that first position (amax could hand back another of equal zeros: torch
        # returns the first one it meets, 0.0 or -0.0)
        n, c = B.shape(cols)[:2]
        values = B.getitem(cols, (
            B.reshape(B.arange(0, n, 1, "int64"), (n, 1, 1, 1)),
            B.reshape(B.arange(0, c, 1, "int64"), (1, c, 1, 1)), k,
            B.reshape(B.arange(0, win.out[0], 1, "int64"), (1, 1, win.out[0], 1)),
            B.reshape(B.arange(0, win.out[1], 1, "int64"), (1, 1, 1, win.out[1]))))
        pos, first = _window_positions(win)
        oh = B.array([[i] for i in range(win.out[0])], "int64")
        ow = B.array([list(range(win.out[1]))], "int64")
        idx = B.getitem(pos, (k, oh, ow))
        # a window whose values are all -inf: torch keeps its first position inside the input
        idx = B.where(B.lt(idx, B.scalar(0, "int64")), first, idx)
        out_shape = self.in_shape[:-2] + tuple(win.out)
        self.indices = Tensor._make(B.reshape(idx, out_shape))
        self.save(x)
        return B.reshape(B.astype(values, dt), out_shape)

    def backward(self, grad):
        return (apply(_MaxPoolScatter, (grad,), self.indices, self.in_shape),)

    saved_fields = {"self": 0}

    @property
    def _saved_result1(self):
        return self.indices

    @property
    def _saved_dilation(self):
        return self._params[3]

    @property
    def _saved_ceil_mode(self):
        return self.ceil_mode


def _window_positions(win):
    """For each kernel offset and output position, the flat input position it reads (-1 in
    the padding), and each window's first position inside the input."""
    (h, w), (ph, pw) = win.shape[-2:], (win.pads[0][0], win.pads[1][0])
    (dh, dw), (sh, sw) = win.dilation, win.stride
    pos, first = [], [[None] * win.out[1] for _ in range(win.out[0])]
    for kh, kw in _offsets(win.kernel):
        plane = []
        for i in range(win.out[0]):
            row = []
            for j in range(win.out[1]):
                r, c = i * sh - ph + kh * dh, j * sw - pw + kw * dw
                inside = 0 <= r < h and 0 <= c < w
                row.append(r * w + c if inside else -1)
                if inside and first[i][j] is None:
                    first[i][j] = r * w + c
            plane.append(row)
        pos.append(plane)
    return B.array(pos, "int64"), B.array(first, "int64")


class _MaxPoolScatter(Function):
    """max_pool2d's backward as a node of its own (create_graph=True): grad added at the
    indices; its own backward picks the gradient back at them."""

    name_ = "MaxPool2DWithIndicesBackwardBackward0"
    chain_rule = "the backward of max_pool2d, differentiated again: to grad, {grad} read at the picked positions"

    def forward(self, grad, indices, in_shape):
        self.indices = indices
        g = grad._data
        gs = B.shape(g)
        lead = math.prod(gs[:-2])
        plane = in_shape[-1] * in_shape[-2]
        rows = B.array([[r] for r in range(lead)], "int64")
        idx = B.reshape(indices._data, (lead, gs[-2] * gs[-1]))
        vals = B.reshape(B.contiguous(g), (lead, gs[-2] * gs[-1]))
        out = B.index_add((lead, plane), (rows, idx), vals, B.dtype_name(g))
        return B.reshape(out, in_shape)

    def backward(self, gg):
        return (apply(_MaxPoolGather, (gg,), self.indices),)


class _MaxPoolGather(Function):
    name_ = "MaxPool2DWithIndicesBackward0"
    chain_rule = MaxPool2DWithIndices.chain_rule

    def forward(self, x, indices):
        self.indices = indices
        self.in_shape = B.shape(x._data)
        a = x._data
        s = B.shape(a)
        lead = math.prod(s[:-2])
        ishape = B.shape(indices._data)
        rows = B.array([[r] for r in range(lead)], "int64")
        flat = B.reshape(B.contiguous(a), (lead, s[-2] * s[-1]))
        idx = B.reshape(indices._data, (lead, ishape[-2] * ishape[-1]))
        return B.reshape(B.getitem(flat, (rows, idx)), ishape)

    def backward(self, grad):
        return (apply(_MaxPoolScatter, (grad,), self.indices, self.in_shape),)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    win, params = _pool_geometry(input, kernel_size, stride, padding, dilation, ceil_mode,
                                 "max_pool2d")
    out = apply(MaxPool2DWithIndices, (input,), win, params, ceil_mode)
    if return_indices:
        node = out.grad_fn
        indices = node.indices if node is not None else _last_indices(input, win, params,
                                                                      ceil_mode)
        return out, indices
    return out


def _last_indices(input, win, params, ceil_mode):
    node = MaxPool2DWithIndices.__new__(MaxPool2DWithIndices)
    node._needs = None
    node.forward(input, win, params, ceil_mode)
    return node.indices


def _avg_divisors(win, count_include_pad, divisor_override):
    """torch's avg_pool2d divisor for each output position."""
    (h, w), (ph, pw) = win.shape[-2:], (win.pads[0][0], win.pads[1][0])
    (kh, kw), (sh, sw) = win.kernel, win.stride
    rows = []
    for i in range(win.out[0]):
        row = []
        for j in range(win.out[1]):
            hs, ws = i * sh - ph, j * sw - pw
            he, we = min(hs + kh, h + ph), min(ws + kw, w + pw)
            size = (he - hs) * (we - ws)
            hs, ws, he, we = max(hs, 0), max(ws, 0), min(he, h), min(we, w)
            if divisor_override:
                row.append(divisor_override)
            elif count_include_pad:
                row.append(size)
            else:
                row.append((he - hs) * (we - ws))
        rows.append(row)
    return rows


class AvgPool2D(_PoolWindow, Function):
    """The mean of each window (zeros in the padding), divided as torch divides: by the window
    size, the count inside the input, or divisor_override."""

    name_ = "AvgPool2DBackward0"
    chain_rule = "avg_pool2d: to each input in a window {grad} divided by the window's divisor, added over windows"

    def forward(self, x, win, divisors, params, flags):
        self.win, self.divisors, self._params, self.flags = win, divisors, params, flags
        self.in_shape = B.shape(x._data)
        self.save(x)
        a = _batched(x._data, win)
        dt = B.dtype_name(a)
        sums = B.sum(win.unfold(a), (2,), False)
        out = B.div(sums, B.array(divisors, dt))
        return B.reshape(out, self.in_shape[:-2] + tuple(win.out))

    def backward(self, grad):
        return (apply(_AvgPoolGrad, (grad,), self.win, self.divisors, self.in_shape, self),)

    saved_fields = {"self": 0}


    @property
    def _saved_ceil_mode(self):
        return self.flags[0]

    @property
    def _saved_count_include_pad(self):
        return self.flags[1]

    @property
    def _saved_divisor_override(self):
        return self.flags[2]


class _AvgPoolGrad(Function):
    name_ = "AvgPool2DBackwardBackward0"
    chain_rule = "the backward of avg_pool2d, differentiated again: avg_pool2d of {grad}"

    def forward(self, grad, win, divisors, in_shape, pool):
        self.pool = pool
        g = grad._data
        dt = B.dtype_name(g)
        g = B.reshape(B.div(g, B.array(divisors, dt)), win.shape[:2] + (1,) + tuple(win.out))
        cols = B.expand(g, win.shape[:2] + (win.n_offsets,) + tuple(win.out))
        return B.reshape(win.fold(cols), in_shape)

    def backward(self, gg):
        p = self.pool
        return (apply(AvgPool2D, (gg,), p.win, p.divisors, p._params, p.flags),)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    win, params = _pool_geometry(input, kernel_size, stride, padding, 1, ceil_mode, "avg_pool2d")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    divisors = _avg_divisors(win, count_include_pad, divisor_override)
    return apply(AvgPool2D, (input,), win, divisors, params[:3],
                 (ceil_mode, count_include_pad, divisor_override))


# -- padding --------------------------------------------------------------------------------


class ConstantPadNd(Function):
    """The input surrounded by `value` (a negative pad cuts instead); the gradient is the
    middle of grad, the same op with the pads negated."""

    name_ = "ConstantPadNdBackward0"
    chain_rule = "pad: to input the part of {grad} where the input was placed"

    def forward(self, x, pad, value):
        self.pad = pad
        a = x._data
        shape = B.shape(a)
        new, src, dst = list(shape), [slice(None)] * len(shape), [slice(None)] * len(shape)
        for i in range(len(pad) // 2):
            d = len(shape) - 1 - i
            lo, hi = pad[2 * i], pad[2 * i + 1]
            size = shape[d] + lo + hi
            if size < 0:
                raise RuntimeError("narrow(): length must be non-negative.")
            new[d] = size
            start, stop = max(-lo, 0), shape[d] - max(-hi, 0)
            n = max(stop - start, 0)
            src[d] = slice(start, start + n)
            dst[d] = slice(max(lo, 0), max(lo, 0) + n)
        out = B.full(tuple(new), value, B.dtype_name(a))
        if all(s.stop is None or s.stop > s.start for s in src):
            B.setitem(out, tuple(dst), B.getitem(a, tuple(src)))
        return out

    def backward(self, grad):
        return (apply(ConstantPadNd, (grad,), tuple(-p for p in self.pad), 0),)

    @property
    def _saved_pad(self):
        return self.pad


def _reflect(j, size):
    j = -j if j < 0 else j
    return 2 * (size - 1) - j if j >= size else j


def _replicate(j, size):
    return min(max(j, 0), size - 1)


class _IndexPad(Function):
    """Reflection and replication padding: each padded dim read through a list of source
    positions; the gradient adds grad back at those positions."""

    index_of = None

    def forward(self, x, pad):
        self.pad = pad
        self.in_shape = B.shape(x._data)
        self.save(x)
        a = x._data
        for i, idx in enumerate(_pad_indices(self.in_shape, pad, type(self).index_of)):
            d = len(self.in_shape) - 1 - i
            a = B.getitem(a, (slice(None),) * d + (B.array(idx, "int64"),))
        return a

    def backward(self, grad):
        return (apply(self.grad_cls, (grad,), self.pad, self.in_shape, type(self)),)

    saved_fields = {"self": 0}

    @property
    def _saved_padding(self):
        return self.pad


def _pad_indices(shape, pad, index_of):
    out = []
    for i in range(len(pad) // 2):
        size = shape[len(shape) - 1 - i]
        lo, hi = pad[2 * i], pad[2 * i + 1]
        out.append([index_of(j, size) for j in range(-lo, size + hi)])
    return out


class _IndexPadGrad(Function):
    def forward(self, grad, pad, in_shape, pad_cls):
        self.pad, self.pad_cls = pad, pad_cls
        g = grad._data
        dt = B.dtype_name(g)
        indices = _pad_indices(in_shape, pad, pad_cls.index_of)
        for i in reversed(range(len(indices))):
            d = len(in_shape) - 1 - i
            shape = B.shape(g)[:d] + (in_shape[d],) + B.shape(g)[d + 1:]
            idx = (slice(None),) * d + (B.array(indices[i], "int64"),)
            g = B.index_add(shape, idx, g, dt)
        return g

    def backward(self, gg):
        return (apply(self.pad_cls, (gg,), self.pad),)


def _index_pad_ops(kind: str, index_of, nd: int):
    grad_cls = type(f"_{kind}{nd}DGrad", (_IndexPadGrad,), {
        "name_": f"{kind}Pad{nd}DBackwardBackward0",
        "chain_rule": f"the backward of {kind.lower()} padding, differentiated again: "
                      "{grad} padded the same way"})
    word = "mirrored" if kind == "Reflection" else "copied edge"
    return type(f"{kind}Pad{nd}D", (_IndexPad,), {
        "name_": f"{kind}Pad{nd}DBackward0",
        "index_of": staticmethod(index_of),
        "grad_cls": grad_cls,
        "chain_rule": f"{kind.lower()} pad: to each input {{grad}} of its own place and of every "
                      f"{word} place it was copied to, added"})


_INDEX_PADS = {(kind, nd): _index_pad_ops(kind, f, nd)
               for kind, f in (("Reflection", _reflect), ("Replication", _replicate))
               for nd in (1, 2, 3)}


def _padded_numel(shape: tuple, pad: tuple) -> int:
    """Elements of `shape` padded by `pad` (pairs from the last dim backwards), checked before
    any padding is allocated; pads that do not fit are left to the padding's own error."""
    dims = list(shape)
    for i in range(min(len(pad) // 2, len(dims))):
        dims[-1 - i] = max(dims[-1 - i] + pad[2 * i] + pad[2 * i + 1], 0)
    numel = 1
    for d in dims:
        numel *= d
    return numel


def constant_pad_nd(input, pad, value=0.0):
    return apply(ConstantPadNd, (input,), tuple(int(p) for p in pad), value)


def pad(input, pad, mode="constant", value=None):
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:  # torch checks these two for every mode
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > 2 * input.dim():
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension "
            f"but got padding length {len(pad)} and input of dimension {input.dim()}")
    _budget.elements(_padded_numel(tuple(input.shape), pad), "this padding")
    if mode == "constant":
        return constant_pad_nd(input, pad, 0.0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    nd = len(pad) // 2
    if len(pad) % 2 or nd not in (1, 2, 3) or input.dim() not in (nd + 1, nd + 2):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for "
                                  f"{input.dim()}D input tensor.")
    if mode == "circular":
        return pad_circular(input, pad)
    kind = "Reflection" if mode == "reflect" else "Replication"
    shape = tuple(input.shape)
    if kind == "Reflection":
        for i in range(nd):
            d = len(shape) - 1 - i
            lo, hi = pad[2 * i], pad[2 * i + 1]
            if lo >= shape[d] or hi >= shape[d]:
                raise RuntimeError(
                    f"Argument #{2 * i + 4}: Padding size should be less than the "
                    f"corresponding input dimension, but got: padding ({lo}, {hi}) at dimension "
                    f"{d} of input {_sizes(shape)}")
    return apply(_INDEX_PADS[(kind, nd)], (input,), pad)
