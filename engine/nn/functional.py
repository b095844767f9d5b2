"""nn.functional: activations, linear and losses, recording the graphs torch records."""

from __future__ import annotations

from .. import backend as B
from ..ops import nn_ops, unary
from ..ops import reduction as _reductions
from ..ops.helpers import check_broadcast
from ..ops.linalg import matmul
from ..tensor import Tensor, warn

_REDUCTIONS = ("none", "mean", "sum")


def _check_reduction(reduction_: str) -> str:
    """torch's _Reduction.get_enum: the reduction name, validated."""
    if reduction_ == "elementwise_mean":
        warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
             UserWarning, stacklevel=3)
        return "mean"
    if reduction_ not in _REDUCTIONS:
        raise ValueError(f"{reduction_} is not a valid value for reduction")
    return reduction_


def _legacy_reduction(size_average, reduce) -> str:
    if size_average is None:
        size_average = True
    if reduce is None:
        reduce = True
    ret = "mean" if size_average and reduce else ("sum" if reduce else "none")
    warn(f"size_average and reduce args will be deprecated, please use reduction='{ret}' "
         "instead.", UserWarning, stacklevel=3)
    return ret


# -- dropout ------------------------------------------------------------------------------------

def dropout(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """torch's CPU dropout: a float mask from `bernoulli_(1 - p)` (engine/rng draws it as torch
    does), divided by 1 - p, times the input (MulBackward0); off in eval or with p = 0."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not training or input.numel() == 0:
        return input
    from .. import creation

    if p == 1:
        noise = creation.zeros((), dtype=input.dtype)
    else:
        noise = creation.empty_like(input).bernoulli_(1 - p)
        noise.div_(1 - p)
    return input.mul_(noise) if inplace else input * noise


# -- activations --------------------------------------------------------------------------------

def relu(input, inplace: bool = False):
    if inplace:
        from ..ops.inplace import run_inplace

        return run_inplace(input, unary.Relu, (), (), "relu_")
    return unary.relu(input)


def tanh(input):
    return unary.tanh(input)


def sigmoid(input):
    return unary.sigmoid(input)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace: bool = False):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if input.dtype.name == "bool":
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if inplace:
        from ..ops.inplace import run_inplace

        return run_inplace(input, unary.Hardtanh, (), (min_val, max_val), "hardtanh_")
    return unary.hardtanh(input, min_val, max_val)


def _softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
         "dim=X as an argument.", UserWarning, stacklevel=stacklevel + 1)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel: int = 3, dtype=None):
    if dim is None:
        dim = _softmax_dim("softmax", input.dim(), _stacklevel)
    return _reductions.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel: int = 3, dtype=None):
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim(), _stacklevel)
    return _reductions.log_softmax(input, dim, dtype=dtype)


# -- linear ------------------------------------------------------------------------------------

def linear(input, weight, bias=None):
    """torch's at::linear: addmm for 2-D input; contiguous N-D input is flattened to 2-D,
    run through addmm and viewed back; anything else is matmul followed by an in-place add."""
    if input.dim() == 0 or weight.dim() == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are "
                           f"{input.dim()}D and {weight.dim()}D")
    if bias is not None:
        if input.dim() == 2:
            return nn_ops.addmm(bias, input, weight.t())
        if input.is_contiguous() and bias.dim() == 1:
            lead = tuple(input.shape[:-1])
            rows = 1
            for s in lead:
                rows *= s
            out = nn_ops.addmm(bias, input.reshape(rows, input.shape[-1]), weight.t())
            return out.view(*lead, out.shape[1])
    out = matmul(input, weight.t())
    if bias is not None:
        out.add_(bias)
    return out


# -- losses ------------------------------------------------------------------------------------

def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    if tuple(target.shape) != tuple(input.shape):
        warn(f"Using a target size ({target.size()}) that is different to the input size "
             f"({input.size()}). This will likely lead to incorrect results due to "
             "broadcasting. Please ensure they have the same size.", UserWarning, stacklevel=2)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    if weight is not None:
        raise NotImplementedError("gradplay's mse_loss does not support a weight")
    input, target = _broadcast(input, target)
    return nn_ops.mse_loss(input, target, _check_reduction(reduction))


def _broadcast(a: Tensor, b: Tensor):
    """torch.broadcast_tensors: expand only the tensors whose shape must change."""
    sa, sb = tuple(a.shape), tuple(b.shape)
    if sa == sb:
        return a, b
    check_broadcast(sa, sb)
    shape = tuple(B.broadcast_shapes(sa, sb))
    return (a if sa == shape else a.expand(*shape)), (b if sb == shape else b.expand(*shape))


def nll_loss(input, target, weight=None, size_average=None, ignore_index: int = -100,
             reduce=None, reduction: str = "mean"):
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    return _nll_loss_nd(input, target, weight, _check_reduction(reduction), ignore_index)


def _nll_loss_nd(input, target, weight, red, ignore_index):
    """torch's nll_loss_nd: (C,) and (N, C) go to nll_loss, (N, C, H, W) to nll_loss2d, and
    other shapes are viewed as (N, C, 1, -1) for nll_loss2d."""
    nd = input.dim()
    if nd < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {nd})")
    if nd != 1 and input.shape[0] != target.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                         f"batch_size ({target.shape[0]}).")
    if nd in (1, 2):
        return nn_ops.nll_loss(input, target, weight, red, ignore_index)
    if nd == 4:
        return nn_ops.nll_loss(input, target, weight, red, ignore_index, two_d=True)
    n, c = input.shape[0], input.shape[1]
    out_size = (n,) + tuple(input.shape[2:])
    if tuple(target.shape[1:]) != tuple(input.shape[2:]):
        raise RuntimeError(f"Expected target size [{', '.join(map(str, out_size))}], got "
                           f"[{', '.join(map(str, target.shape))}]")
    x = input.contiguous().view(n, c, 1, -1)
    t = target.contiguous().view(n, 1, -1)
    out = nn_ops.nll_loss(x, t, weight, red, ignore_index, two_d=True)
    return out.view(*out_size) if red == "none" else out


def cross_entropy(input, target, weight=None, size_average=None, ignore_index: int = -100,
                  reduce=None, reduction: str = "mean", label_smoothing: float = 0.0):
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    red = _check_reduction(reduction)
    class_dim = 0 if input.dim() == 1 else 1
    if tuple(input.shape) == tuple(target.shape):
        return _cross_entropy_probs(input, target, weight, red, ignore_index, label_smoothing,
                                    class_dim)
    if label_smoothing > 0.0:
        raise NotImplementedError(
            "gradplay's cross_entropy supports label_smoothing only with class-probability "
            "targets"
        )
    return _nll_loss_nd(_reductions.log_softmax(input, class_dim), target, weight, red,
                        ignore_index)


def _cross_entropy_probs(input, target, weight, red, ignore_index, label_smoothing, class_dim):
    """torch's cross_entropy_loss_prob_target, composed of the same ops torch records."""
    if not target.dtype.is_floating_point:
        raise RuntimeError(f"Expected floating point type for target with class probabilities, "
                           f"got {nn_ops._TYPE[target.dtype.name]}")
    if ignore_index >= 0:
        raise RuntimeError("ignore_index is not supported for floating point target")
    n_classes = input.shape[class_dim]
    logp = _reductions.log_softmax(input, class_dim)
    if label_smoothing > 0.0:
        target = target * (1 - label_smoothing) + (label_smoothing / n_classes)
    prod = logp * target
    if weight is not None:
        if input.dim() > 1:
            weight = weight.view(1, n_classes, *([1] * (input.dim() - 2)))
        prod = prod * weight
    if red == "mean":
        return nn_ops.div_scalar(-prod.sum(), input.numel() // n_classes)
    if red == "sum":
        return -prod.sum()
    return -prod.sum(class_dim)
