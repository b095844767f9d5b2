"""The layers torch runs as one graph node: layer_norm (NativeLayerNormBackward0), batch_norm
(NativeBatchNormBackward0) and embedding (EmbeddingBackward0).

Backward formulas are written with Tensor operations from the saved input, so create_graph=True
differentiates them again (with ordinary nodes where torch records one *Backward node).
"""

from __future__ import annotations

from .. import backend as B
from ..autograd import grad_mode
from ..autograd.function import Function, apply
from ..tensor import Tensor
from . import layer_norm_kernel as kernel


def _k(value, like):
    return B.scalar(value, B.dtype_name(like))


def _inputs(x, weight, bias) -> tuple:
    """The node's three inputs, as torch's: an absent weight or bias is an edge to nothing."""
    if weight is None or bias is None:
        absent = Tensor._make(B.zeros((0,), x._dtype.name), x._dtype)
        weight = absent if weight is None else weight
        bias = absent if bias is None else bias
    return (x, weight, bias)


def _normalize(x, dims: tuple, eps: float):
    """(mean, 1 / sqrt(biased var + eps)) over dims, kept, on arrays."""
    mean = B.mean(x, dims, True)
    d = B.sub(x, mean)
    var = B.mean(B.mul(d, d), dims, True)
    return mean, B.div(_k(1, x), B.sqrt(B.add(var, _k(eps, x))))


def _affine(xhat, weight, bias, shape):
    if weight is not None:
        xhat = B.mul(xhat, B.reshape(weight._data, shape))
    if bias is not None:
        xhat = B.add(xhat, B.reshape(bias._data, shape))
    return xhat


def _normalized_grad(grad, x, dims, eps, w):
    """d loss / d x of (x - mean) * rstd * w over dims, in Tensor operations."""
    mean = x.mean(dims, keepdim=True)
    d = x - mean
    rstd = 1 / ((d * d).mean(dims, keepdim=True) + eps).sqrt()
    xhat = d * rstd
    dxhat = grad * w if w is not None else grad
    return rstd * (dxhat - dxhat.mean(dims, keepdim=True)
                   - xhat * (dxhat * xhat).mean(dims, keepdim=True)), xhat


# -- layer_norm ---------------------------------------------------------------------------------

class NativeLayerNorm(Function):
    name_ = "NativeLayerNormBackward0"
    chain_rule = ("layer_norm: to input (g − mean(g) − x̂·mean(g·x̂))/σ over the normalized dims, g = "
                  "{grad}·weight, x̂ the normalized input; to weight sum(grad·x̂); to bias sum(grad)")

    def forward(self, x, _weight, _bias, weight, bias, n_dims, eps):
        self.n_dims, self.eps = n_dims, eps
        self.has_w, self.has_b = weight is not None, bias is not None
        shape = B.shape(x._data)
        self.dims = tuple(range(len(shape) - n_dims, len(shape)))
        self.param_shape = (1,) * (len(shape) - n_dims) + shape[len(shape) - n_dims:]
        self.save(x, weight)
        n = 1
        for s in shape[len(shape) - n_dims:]:
            n *= s
        self.rows = (B.numel(x._data) // n if n else 0, n)
        x2 = B.reshape(B.contiguous(x._data), self.rows)
        # torch's kernel, bit for bit (engine/nn/layer_norm_kernel.py); its backward reuses
        # the rows' mean and rstd, as torch's saves them
        self.mean, self.rstd = kernel.moments(x2, eps)
        flat = [None if t is None else B.reshape(t._data, (n,)) for t in (weight, bias)]
        return B.reshape(kernel.forward(x2, self.mean, self.rstd, *flat), shape)

    def backward(self, grad):
        x, weight = self.saved_tensors
        if not grad_mode.state.grad_enabled:  # nothing records: torch's kernel
            return self._kernel_backward(grad, x, weight)
        w = weight.reshape(self.param_shape) if weight is not None else None
        g_x, xhat = _normalized_grad(grad, x, self.dims, self.eps, w)
        lead = tuple(range(x.dim() - self.n_dims))
        g_w = (grad * xhat).sum(lead) if lead else grad * xhat
        g_b = grad.sum(lead) if lead else grad
        return (g_x if self.needs(0) else None, g_w if self.needs(1) else None,
                g_b if self.needs(2) else None)

    def _kernel_backward(self, grad, x, weight):
        dt = x._dtype
        dy = B.reshape(B.contiguous(B.astype(grad._data, dt.name)), self.rows)
        x2 = B.reshape(B.contiguous(x._data), self.rows)
        g_x = g_w = g_b = None
        if self.needs(0):
            w = None if weight is None else B.reshape(weight._data, (self.rows[1],))
            g_x = Tensor._make(B.reshape(
                kernel.input_grad(dy, x2, self.mean, self.rstd, w), B.shape(x._data)), dt)
        if self.needs(1) or self.needs(2):
            pw, pb = kernel.param_grads(dy, x2, self.mean, self.rstd, self.needs(1), self.needs(2))
            pshape = B.shape(x._data)[x.dim() - self.n_dims:]
            g_w = None if pw is None else Tensor._make(B.reshape(pw, pshape), dt)
            g_b = None if pb is None else Tensor._make(B.reshape(pb, pshape), dt)
        return g_x, g_w, g_b


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    shape = tuple(normalized_shape) if not isinstance(normalized_shape, int) else (
        normalized_shape,)
    n = len(shape)
    if n == 0 or tuple(input.shape[input.dim() - n:]) != shape or input.dim() < n:
        expected = "[*" + "".join(f", {s}" for s in shape) + "]"
        raise RuntimeError(
            f"Given normalized_shape=[{', '.join(map(str, shape))}], expected input with shape "
            f"{expected}, but got input of size[{', '.join(map(str, input.shape))}]")
    return apply(NativeLayerNorm, _inputs(input, weight, bias), weight, bias, n, eps)


# -- batch_norm ---------------------------------------------------------------------------------

class NativeBatchNorm(Function):
    """Normalize over every dim but 1 (the channel), with the batch's statistics (training) or
    with given running statistics (evaluation)."""

    name_ = "NativeBatchNormBackward0"
    chain_rule = ("batch_norm: in training, to input (g − mean(g) − x̂·mean(g·x̂))/σ per channel over "
                  "the batch, g = {grad}·weight; in eval grad·weight/√(running_var + eps); to weight "
                  "sum(grad·x̂); to bias sum(grad)")

    def forward(self, x, _weight, _bias, weight, bias, mean, var, eps):
        self.has_w, self.has_b = weight is not None, bias is not None
        self.eps = eps
        shape = B.shape(x._data)
        self.dims = (0,) + tuple(range(2, len(shape)))
        self.param_shape = (1, shape[1]) + (1,) * (len(shape) - 2)
        self.stats = None
        self.save(x, weight)
        if mean is None:
            m, rstd = _normalize(x._data, self.dims, eps)
        else:
            m = B.reshape(mean._data, self.param_shape)
            v = B.reshape(var._data, self.param_shape)
            rstd = B.div(_k(1, v), B.sqrt(B.add(v, _k(eps, v))))
            self.stats = (Tensor._make(m), Tensor._make(rstd))
        return _affine(B.mul(B.sub(x._data, m), rstd), weight, bias, self.param_shape)

    def backward(self, grad):
        x, weight = self.saved_tensors
        w = weight.reshape(self.param_shape) if weight is not None else None
        if self.stats is None:
            g_x, xhat = _normalized_grad(grad, x, self.dims, self.eps, w)
        else:
            m, rstd = self.stats
            xhat = (x - m) * rstd
            g_x = grad * rstd * w if w is not None else grad * rstd
        return (g_x if self.needs(0) else None,
                (grad * xhat).sum(self.dims) if self.needs(1) else None,
                grad.sum(self.dims) if self.needs(2) else None)


def batch_norm_node(input, weight, bias, mean, var, eps):
    return apply(NativeBatchNorm, _inputs(input, weight, bias), weight, bias, mean, var, eps)


def batch_stats(input):
    """The batch's mean and unbiased variance per channel (for the running statistics)."""
    x = input._data
    shape = B.shape(x)
    dims = (0,) + tuple(range(2, len(shape)))
    n = B.numel(x) // shape[1]
    mean = B.mean(x, dims, True)
    d = B.sub(x, mean)
    var = B.div(B.sum(B.mul(d, d), dims, False), _k(max(n - 1, 0), x))
    return (Tensor._make(B.reshape(mean, (shape[1],)), input._dtype),
            Tensor._make(var, input._dtype))


# -- embedding ----------------------------------------------------------------------------------

class Embedding(Function):
    """weight[indices]; the gradient adds each row's incoming gradients (none to padding_idx)."""

    name_ = "EmbeddingBackward0"
    chain_rule = ("embedding picked rows of weight: to weight zeros with {grad}'s rows added at the "
                  "picked indices (none at padding_idx)")

    def forward(self, weight, indices, padding_idx):
        self.indices, self.padding_idx = indices, padding_idx
        self.num_weights = B.shape(weight._data)[0]
        self.keep_for_backward()  # torch saves the indices
        return B.getitem(weight._data, indices._data)

    def backward(self, grad):
        self.check_not_freed()
        return (apply(EmbeddingGrad, (grad,), self.indices, self.num_weights,
                      self.padding_idx),)


class EmbeddingGrad(Function):
    name_ = "EmbeddingDenseBackward0"
    chain_rule = ("the backward of embedding, differentiated again (create_graph=True): linear in grad, "
                  "and its slope's own derivative for the input")

    def forward(self, grad, indices, num_weights, padding_idx):
        self.indices, self.padding_idx = indices, padding_idx
        g = grad._data
        dim = B.shape(g)[-1]
        idx = B.reshape(indices._data, (-1,))
        values = B.reshape(g, (B.numel(idx), dim))
        if padding_idx is not None:
            keep = B.astype(B.ne(idx, B.scalar(padding_idx, "int64")), B.dtype_name(g))
            values = B.mul(values, B.reshape(keep, (B.numel(idx), 1)))
        return B.index_add((num_weights, dim), (idx,), values, B.dtype_name(g))

    def backward(self, gg):
        return (apply(Embedding, (gg,), self.indices, self.padding_idx),)


def embedding(input, weight, padding_idx=None):
    if input.dtype.name != "int64":
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got torch.{_FLOAT_NAMES.get(input.dtype.name, 'Bool')}"
            "Tensor instead (while checking arguments for embedding)")
    n = weight.shape[0]
    if input.numel():
        lo, hi = B.item(B.amin(input._data, None, False)), B.item(B.amax(input._data, None, False))
        if lo < 0 or hi >= n:
            raise IndexError("index out of range in self")
    return apply(Embedding, (weight,), input, padding_idx)


_FLOAT_NAMES = {"float32": "Float", "float64": "Double", "bool": "Bool"}
