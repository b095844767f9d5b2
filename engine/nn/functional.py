"""nn.functional: activations, linear and losses, recording the graphs torch records."""

from __future__ import annotations

import math

from .. import backend as B
from .. import batched_reads, creation
from ..autograd import grad_mode
from ..autograd.function import apply
from ..creation import zeros_like
from ..ops import nn_ops, unary
from ..ops import reduction as _reductions
from ..ops.compare import where
from ..ops.helpers import check_broadcast
from ..ops.inplace import run_inplace
from ..ops.linalg import matmul
from ..tensor import Tensor, warn
from . import activation_ops as _act
from . import layer_ops as _layers
from . import loss_ops as _losses
from .conv_ops import avg_pool2d, conv1d, conv2d, max_pool2d, pad  # noqa: F401

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
    if p == 1:
        noise = creation.zeros((), dtype=input.dtype)
    else:
        noise = creation.empty_like(input).bernoulli_(1 - p)
        noise.div_(1 - p)
    return input.mul_(noise) if inplace else input * noise


# -- activations --------------------------------------------------------------------------------

def relu(input, inplace: bool = False):
    if inplace:
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


def _activation(cls, input, *params, inplace=False, inplace_cls=None, op=""):
    if inplace:
        return run_inplace(input, inplace_cls or cls, (), params, op)
    return apply(cls, (input,), *params)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    return _activation(_act.LeakyRelu, input, negative_slope, inplace=inplace,
                       inplace_cls=_act.LeakyReluInplace, op="leaky_relu_")


def elu(input, alpha=1.0, inplace=False):
    return _activation(_act.Elu, input, alpha, 1.0, 1.0, inplace=inplace,
                       inplace_cls=_act.EluInplace, op="elu_")


def selu(input, inplace=False):
    return _activation(_act.Elu, input, _act.SELU_ALPHA, _act.SELU_SCALE, 1.0, inplace=inplace,
                       inplace_cls=_act.EluInplace, op="selu_")


def celu(input, alpha=1.0, inplace=False):
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    return _activation(_act.Celu, input, alpha, 1.0, 1.0 / alpha, inplace=inplace,
                       inplace_cls=_act.CeluInplace, op="celu_")


def gelu(input, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return apply(_act.Gelu, (input,), approximate)


def softplus(input, beta=1.0, threshold=20.0):
    return apply(_act.Softplus, (input,), beta, threshold)


def silu(input, inplace=False):
    return _activation(_act.Silu, input, inplace=inplace, op="silu_")


def mish(input, inplace=False):
    return _activation(_act.Mish, input, inplace=inplace, op="mish_")


def logsigmoid(input):
    return apply(_act.LogSigmoid, (input,))


def hardsigmoid(input, inplace=False):
    return _activation(_act.Hardsigmoid, input, inplace=inplace, op="hardsigmoid_")


def hardswish(input, inplace=False):
    return _activation(_act.Hardswish, input, inplace=inplace, op="hardswish_")


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


def softsign(input):
    return input / (input.abs() + 1)


def prelu(input, weight):
    return _act.prelu(input, weight)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim("softmin", input.dim(), _stacklevel)
    if dtype is None:
        return _reductions.softmax(-input, dim)
    return _reductions.softmax(-input, dim, dtype=dtype)


# -- normalization and embedding ---------------------------------------------------------------

def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    return _layers.layer_norm(input, normalized_shape, weight, bias, eps)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    if training:
        size = tuple(input.shape)
        per_channel = math.prod(size) // size[1] if len(size) > 1 else 0
        if per_channel == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input "
                             f"size {input.size()}")
    if input.dim() < 2:
        raise ValueError  # pragma: no cover - the modules check dims first
    if not training:
        if running_mean is None or running_var is None:
            raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
        return _layers.batch_norm_node(input, weight, bias, running_mean, running_var, eps)
    if running_mean is not None and running_var is not None:
        mean, var = _layers.batch_stats(input)
        with grad_mode.no_grad():
            running_mean.mul_(1 - momentum).add_(mean, alpha=momentum)
            running_var.mul_(1 - momentum).add_(var, alpha=momentum)
    return _layers.batch_norm_node(input, weight, bias, None, None, eps)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    if padding_idx is not None:
        n = weight.size(0)
        if padding_idx > 0:
            if padding_idx >= n:
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -n:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = n + padding_idx
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    return _layers.embedding(input, weight, padding_idx)


def _embedding_renorm_(weight, input, max_norm, norm_type):
    """torch's embedding_renorm_: rows the input uses whose norm exceeds max_norm are scaled
    (in place, outside the graph) to max_norm / (norm + 1e-7) of themselves."""
    rows = sorted(set(B.tolist(B.reshape(input._data, (-1,)))))
    with grad_mode.no_grad():
        for r in rows:
            row = weight[r]
            norm = float(row.abs().pow(norm_type).sum().item()) ** (1.0 / norm_type)
            if norm > max_norm:
                row.mul_(max_norm / (norm + 1e-7))


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
        if input.is_contiguous() and bias.dim() == 1 and bias.is_contiguous():
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


def one_hot(tensor, num_classes: int = -1):
    """Class indices to rows of 0s and 1s (int64, no gradient): a new last dim of num_classes,
    or of max + 1 when num_classes is -1."""
    if tensor.dtype.name != "int64":
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        if tensor.numel() == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(tensor.max().item()) + 1
    # under torch.func.vmap torch's batched one_hot skips these checks (reading a sample's
    # values would be an .item() that vmap refuses)
    if tensor.numel() and not batched_reads.held(tensor):
        if int(tensor.min().item()) < 0:
            raise RuntimeError("Class values must be non-negative.")
        if int(tensor.max().item()) >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    with grad_mode.no_grad():
        classes = creation.arange(num_classes)
        return (tensor.unsqueeze(-1) == classes).long()


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
    # torch reads a 0-dim target's batch size as 0
    target_batch = target.shape[0] if target.dim() else 0
    if nd != 1 and input.shape[0] != target_batch:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                         f"batch_size ({target_batch}).")
    if nd == 1 and target.dim() == 1 and target.shape[0] != 1:
        raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: "
                         f"{target.shape[0]}")
    if nd in (1, 2):
        return nn_ops.nll_loss(input, target, weight, red, ignore_index)
    if nd == 4:
        return nn_ops.nll_loss(input, target, weight, red, ignore_index, two_d=True)
    n, c = input.shape[0], input.shape[1]
    out_size = (n,) + tuple(input.shape[2:])
    if tuple(target.shape[1:]) != tuple(input.shape[2:]):
        raise RuntimeError(f"Expected target size [{', '.join(map(str, out_size))}], got "
                           f"[{', '.join(map(str, target.shape))}]")
    # an empty input or target is viewed as (N, C, 0, 0) / (N, 0, 0) (torch's support for
    # empty batches: -1 cannot be inferred from 0 elements)
    x = input.contiguous().view(n, c, 1, -1) if input.numel() else input.view(n, c, 0, 0)
    t = target.contiguous().view(n, 1, -1) if target.numel() else target.view(n, 0, 0)
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
        return _cross_entropy_smoothed(input, target, weight, red, ignore_index,
                                       label_smoothing, class_dim)
    return _nll_loss_nd(_reductions.log_softmax(input, class_dim), target, weight, red,
                        ignore_index)


def _cross_entropy_smoothed(input, target, weight, red, ignore_index, label_smoothing,
                            class_dim):
    """torch's cross_entropy_loss_label_smoothing, with the ops torch records."""
    n_classes = input.shape[class_dim]
    logp = _reductions.log_softmax(input, class_dim)
    nll = _nll_loss_nd(logp, target, weight, red, ignore_index)
    ignore_mask = target == ignore_index
    if weight is not None:
        shape = [1] * input.dim()
        shape[class_dim] = n_classes
        smooth = -(logp * weight.view(*shape)).sum(class_dim)
    else:
        smooth = -logp.sum(class_dim)
    _losses.masked_fill_(smooth, ignore_mask, 0.0)
    if red == "mean":
        if weight is not None:
            kept = target[ignore_mask.logical_not()].flatten()
            ret = smooth.sum() / weight[kept].sum()
        else:
            ret = smooth.sum() / ignore_mask.logical_not().sum()
    elif red == "sum":
        ret = smooth.sum()
    else:
        ret = smooth
    return (_losses.mul_scalar(nll, 1 - label_smoothing)
            + _losses.mul_scalar(ret, label_smoothing / n_classes))


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


def _size_warning(input, target, stacklevel=3):
    if tuple(target.shape) != tuple(input.shape):
        warn(f"Using a target size ({target.size()}) that is different to the input size "
             f"({input.size()}). This will likely lead to incorrect results due to "
             "broadcasting. Please ensure they have the same size.", UserWarning,
             stacklevel=stacklevel)


def _reduced(out, red):
    if red == "mean":
        return out.mean()
    if red == "sum":
        return out.sum()
    return out


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    _size_warning(input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    red = _check_reduction(reduction)
    input, target = _broadcast(input, target)
    out = (input - target).abs()
    if weight is None:
        return _reduced(out, red)
    _check_weight_size(weight, input)
    out = out * weight
    return out.sum() / weight.sum() if red == "mean" else _reduced(out, red)


def _check_weight_size(weight, input):
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean",
                   beta=1.0):
    _size_warning(input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    red = _check_reduction(reduction)
    input, target = _broadcast(input, target)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0.0:
        return _reduced((input - target).abs(), red)
    return apply(_losses.SmoothL1Loss, (input, target), red, beta)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    _size_warning(input, target)
    red = _check_reduction(reduction)
    input, target = _broadcast(input, target)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    if weight is None:
        return apply(_losses.HuberLoss, (input, target), red, delta)
    _check_weight_size(weight, input)
    out = apply(_losses.HuberLoss, (input, target), "none", delta) * weight
    return _reduced(out, red)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    red = _check_reduction(reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.size()}) that is different to the "
                         f"input size ({input.size()}) is deprecated. Please ensure they have "
                         "the same size.")
    if weight is not None:
        shape = tuple(B.broadcast_shapes(tuple(target.shape), tuple(weight.shape)))
        weight = weight.expand(*shape)
    return apply(_losses.BinaryCrossEntropy, (input, target), weight, red)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                     reduce=None, reduction="mean", pos_weight=None):
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    red = _check_reduction(reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.size()}) must be the same as input size "
                         f"({input.size()})")
    # torch multiplies by pos_weight and weight in place, so neither may broadcast the loss
    # to a bigger shape
    shape = tuple(input.shape)
    for extra in (pos_weight, weight):
        if extra is not None:
            wider = tuple(B.broadcast_shapes(shape, tuple(extra.shape)))
            if wider != shape:
                raise RuntimeError(f"output with shape [{', '.join(map(str, shape))}] doesn't "
                                   f"match the broadcast shape [{', '.join(map(str, wider))}]")
    return apply(_losses.BinaryCrossEntropyWithLogits, (input, target), weight, pos_weight,
                 red)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean",
           log_target=False):
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    elif reduction == "mean":
        warn("reduction: 'mean' divides the total loss by both the batch size and the support "
             "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
             "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
             "major release.", UserWarning, stacklevel=2)
    red = "sum" if reduction == "batchmean" else _check_reduction(reduction)
    if log_target:
        out = target.exp() * (target - input)
    else:
        out = _losses.xlogy(target, target) - target * input
    reduced = _reduced(out, red)
    if reduction == "batchmean" and input.dim() != 0:
        reduced = reduced / input.size()[0]
    return reduced


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    x1, x2 = _broadcast(x1, x2)
    n1 = _losses.vector_norm2(x1, dim, True).clone()
    n2 = _losses.vector_norm2(x2, dim, True).clone()
    with grad_mode.no_grad():
        # torch keeps the norms away from 0 outside the graph
        n1.clamp_(min=eps)
        n2.clamp_(min=eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                          reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    red = _check_reduction(reduction)
    tdim = target.dim()
    if tdim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if tdim == 1 and (input1.dim() != 2 or input2.dim() != 2):
        raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with "
                           f"sizes {_dims(input1)} and {_dims(input2)}.")
    if tdim == 0 and (input1.dim() != 1 or input2.dim() != 1):
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with "
                           f"sizes {_dims(input1)} and {_dims(input2)}.")
    eps = 9.999999960041972e-13  # torch's EPSILON here is the float 1e-12f, not 1e-12
    prod_sum = (input1 * input2).sum(tdim)
    mag1 = (input1 * input1).sum(tdim) + eps
    mag2 = (input2 * input2).sum(tdim) + eps
    denom = (mag1 * mag2).sqrt()
    cos = prod_sum / denom
    zeros = _zeros_like(cos)
    pos = _zeros_like(cos).fill_(1).sub_(cos)
    neg = _losses.clamp_min_(_losses.sub_scalar(cos, margin), 0.0)
    out = _where(target == 1, pos, zeros) + _where(target == -1, neg, zeros)
    return _reduced(out, red)


def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                        reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    red = _check_reduction(reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    out = _losses.clamp_min_(_losses.add_scalar(-target * (input1 - input2), margin), 0.0)
    return _reduced(out, red)


def _dims(t) -> str:
    return "[" + ", ".join(map(str, t.shape)) + "]"


def _zeros_like(t):
    return zeros_like(t)


def _where(cond, a, b):
    return where(cond, a, b)
