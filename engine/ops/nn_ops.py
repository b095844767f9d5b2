"""The differentiable ops behind engine.nn: addmm (Linear), mse_loss, nll_loss, and their
backward ops, so that create_graph=True records torch's *BackwardBackward0 nodes."""

from __future__ import annotations

import math

from .. import backend as B
from .. import budget as _budget
from ..autograd.function import Function, apply, apply_or_compute
from ..creation import ones_like, zeros_like
from ..tensor import Tensor
from .arithmetic import div_scalar  # noqa: F401 - the losses in nn.functional use it
from .helpers import cast, promote
from .linalg import column_major, mm_mat1_backward, mm_mat2_backward
from .registry import export

_TYPE = {"float32": "Float", "float64": "Double", "int64": "Long", "bool": "Bool"}
REDUCTIONS = ("none", "mean", "sum")


# -- addmm ----------------------------------------------------------------------------------

def _check_addmm(bias, mat1, mat2):
    """torch's checks, in torch's order: dtypes first, then ranks, then sizes."""
    if mat1._dtype is not mat2._dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got "
                           f"{_TYPE[mat1._dtype.name]} and {_TYPE[mat2._dtype.name]}")
    if bias._dtype is not mat2._dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                           f"{_TYPE[bias._dtype.name]} and {_TYPE[mat2._dtype.name]}")
    for name, m in (("mat1", mat1), ("mat2", mat2)):
        if m.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {m.ndim}-D tensor")
    (n, k), (k2, m) = B.shape(mat1._data), B.shape(mat2._data)
    if k != k2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})")
    bshape = B.shape(bias._data)
    target = (n, m)
    if len(bshape) > 2:
        raise RuntimeError(
            f"expand(torch.{_TYPE[bias._dtype.name]}Tensor{{[{', '.join(map(str, bshape))}]}}, "
            f"size=[{n}, {m}]): the number of sizes provided (2) must be greater or equal to the "
            f"number of dimensions in the tensor ({len(bshape)})")
    if any(b != 1 and b != t for b, t in zip(reversed(bshape),
                                                             reversed(target))):
        bad = next(i for i, (b, t) in enumerate(zip(reversed(bshape), reversed(target)))
                   if b != 1 and b != t) if len(bshape) <= 2 else 0
        raise RuntimeError(
            f"The expanded size of the tensor ({target[-1 - bad]}) must match the existing size "
            f"({bshape[-1 - bad]}) at non-singleton dimension {1 - bad}.  Target sizes: "
            f"[{n}, {m}].  Tensor sizes: [{', '.join(map(str, bshape))}]"
        )


class Addmm(Function):
    """beta * self + alpha * (mat1 @ mat2); self broadcasts (Linear's bias is 1-D), and the
    engine sums its gradient back to self's shape, as torch's validate_outputs does."""

    name_ = "AddmmBackward0"
    saved_fields = {"mat1": 0, "mat2": 1}  # grad_fn._saved_<name>: position in _saved
    _saved_alpha = property(lambda self: self.alpha)
    _saved_beta = property(lambda self: self.beta)
    chain_rule = ("out = β·bias + α·(A @ B): to bias β·{grad} (summed to its shape), to A α·grad @ Bᵀ, "
                  "to B α·Aᵀ @ grad")
    array_backward = True

    def forward(self, bias, mat1, mat2, beta, alpha):
        self.beta, self.alpha = beta, alpha
        # torch's order (saved_tensors_hooks see mat1 packed first)
        self.save(mat1 if self.needs(2) else None, mat2 if self.needs(1) else None)
        self.column_major = column_major(self, mat1, mat2)
        prod = B.matmul(mat1._data, mat2._data)
        if alpha != 1:
            prod = B.mul(prod, B.scalar(alpha, mat1._dtype.name))
        b = bias._data
        if beta != 1:
            b = B.mul(b, B.scalar(beta, bias._dtype.name))
        return B.add(b, prod)

    def backward(self, grad):
        mat1, mat2 = self.saved_tensors
        mat1_cm, mat2_cm = self.column_major
        g_self = g_mat1 = g_mat2 = None
        if self.needs(0):
            g_self = grad if self.beta == 1 else grad * self.beta
        if self.needs(1):
            g_mat1 = mm_mat1_backward(grad, mat2, mat1_cm)
            if self.alpha != 1:
                g_mat1 = g_mat1 * self.alpha
        if self.needs(2):
            g_mat2 = mm_mat2_backward(grad, mat1, mat2_cm)
            if self.alpha != 1:
                g_mat2 = g_mat2 * self.alpha
        return g_self, g_mat1, g_mat2


@export()
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    _check_addmm(input, mat1, mat2)
    s1, s2 = B.shape(mat1._data), B.shape(mat2._data)
    _budget.work(s1[0] * s1[1] * s2[1])
    return apply(Addmm, (input, mat1, mat2), beta, alpha)


# -- mse_loss -------------------------------------------------------------------------------

def _reduce(data, reduction):
    if reduction == "mean":
        return B.mean(data, None, False)
    if reduction == "sum":
        return B.sum(data, None, False)
    return data


def _norm(reduction, numel):
    if reduction != "mean":
        return 2.0
    return 2.0 / numel if numel else math.inf  # an empty mean: torch's 2. / 0 (nothing to scale)


class MseLoss(Function):
    """(input - target)**2, reduced. The caller has already broadcast both to one shape."""

    name_ = "MseLossBackward0"
    chain_rule = ("∂mean((input − target)²)/∂input = 2·(input − target)/N (no /N for reduction='sum'); "
                  "target gets the opposite")
    array_backward = True

    def forward(self, input, target, reduction):
        dt = promote(input, target)
        if not dt.is_floating_point:
            raise NotImplementedError(f'"mse_cpu" not implemented for \'{_TYPE[dt.name]}\'')
        self.reduction = reduction
        self.save(input, target)
        d = B.sub(cast(input, dt), cast(target, dt))
        return _reduce(B.mul(d, d), reduction)

    def backward(self, grad):
        input, target = self.saved_tensors
        r = self.reduction
        g_in = g_t = None
        if self.needs(0):
            g_in = apply_or_compute(MseLossBackward, (grad, input, target), r)
        if self.needs(1):
            g_t = apply_or_compute(MseLossBackward, (grad, target, input), r)
        return g_in, g_t


class MseLossBackward(Function):
    """torch's mse_loss_backward(grad, self, target): norm * (self - target) * grad."""

    name_ = "MseLossBackwardBackward0"
    chain_rule = ("the backward of mse_loss, differentiated again: 2·grad/N towards input and −2·grad/N "
                  "towards target")

    def forward(self, grad, input, target, reduction):
        self.reduction = reduction
        self.save(grad, input, target)
        dt = promote(input, target)
        return self.compute(cast(grad, dt), cast(input, dt), cast(target, dt), reduction)

    @staticmethod
    def compute(g, x, t, reduction):
        norm = B.scalar(_norm(reduction, B.numel(x)), B.dtype_name(x))
        return B.mul(B.mul(norm, B.sub(x, t)), g)

    def backward(self, g):
        grad_out, input, target = self.saved_tensors
        r = self.reduction
        norm = _norm(r, input.numel())
        g_grad = g_in = g_t = None
        if self.needs(0):
            if r == "none":
                g_grad = apply(MseLossBackward, (g, input, target), r)
            else:
                g_grad = (apply(MseLossBackward, (ones_like(grad_out), input, target), r)
                          * g).sum()
        if self.needs(1) or self.needs(2):
            scaled = (g * grad_out) * norm
            g_in = scaled if self.needs(1) else None
            g_t = -scaled if self.needs(2) else None
        return g_grad, g_in, g_t


def mse_loss(input, target, reduction="mean"):
    """torch._C._nn.mse_loss on already-broadcast input and target."""
    return apply(MseLoss, (input, target), reduction)


# -- nll_loss -------------------------------------------------------------------------------

def _nll_setup(input, target, weight, ignore_index):
    """Lay out an (N, C) or (N, C, H, W) problem as (N, C, S) and (N, S); check targets.

    Returns (picked-index tuple into the input, per-element weights with 0 where ignored)."""
    shape = B.shape(input._data)
    targets = target._data
    tshape = B.shape(targets)
    n_classes = shape[1]
    dt = input._dtype.name
    keep = B.ne(targets, B.scalar(ignore_index, "int64"))
    t_arr = B.where(keep, targets, B.scalar(0, "int64"))  # an ignored target picks class 0 ...
    if B.numel(t_arr) and (B.item(B.amin(t_arr, None, False)) < 0
                           or B.item(B.amax(t_arr, None, False)) >= n_classes):
        for t in B.tolist(B.reshape(targets, (-1,))):  # torch names the first bad one
            if t != ignore_index and not 0 <= t < n_classes:
                raise IndexError(f"Target {t} is out of bounds.")
    if weight is None:
        w = B.astype(keep, dt)  # ... with weight 0
    else:
        picked_w = B.getitem(weight._data, B.reshape(t_arr, (-1,)))
        w = B.reshape(B.mul(picked_w, B.astype(B.reshape(keep, (-1,)), dt)), tshape)
    n = shape[0]
    if len(shape) == 2:
        index = (B.arange(0, n, 1, "int64"), t_arr)
    else:
        h, wd = shape[2], shape[3]
        index = (B.reshape(B.arange(0, n, 1, "int64"), (n, 1, 1)), t_arr,
                 B.reshape(B.arange(0, h, 1, "int64"), (1, h, 1)),
                 B.reshape(B.arange(0, wd, 1, "int64"), (1, 1, wd)))
    return index, w


class NllLoss(Function):
    """-weight[target] * input[target] per sample; 'mean' divides by the total weight.
    Inputs are (C,) (one sample), (N, C) or, for NllLoss2d, (N, C, H, W)."""

    name_ = "NllLossBackward0"
    chain_rule = ("∂nll_loss/∂input = −1 at each row's target class (divided by the total weight for "
                  "'mean'), 0 elsewhere")
    array_backward = True

    def forward(self, input, target, weight, reduction, ignore_index):
        self.target, self.weight = target, weight
        self.reduction, self.ignore_index = reduction, ignore_index
        self.in_shape = B.shape(input._data)
        x = input._data
        if len(self.in_shape) == 1:  # one sample without a batch dim
            x = B.reshape(x, (1,) + self.in_shape)
            target = Tensor._make(B.reshape(target._data, (1,)), target._dtype)
        self.save(input)
        self.index, self.w = _nll_setup(Tensor._make(x), target, weight, ignore_index)
        losses = B.neg(B.mul(B.getitem(x, self.index), self.w))
        self.total = None
        if reduction == "none":
            return losses if len(self.in_shape) > 1 else B.reshape(losses, ())
        total = B.sum(losses, None, False)
        if reduction == "sum":
            return total
        self.total = B.sum(self.w, None, False)
        return B.div(total, self.total)

    def backward(self, grad):
        (input,) = self.saved_tensors
        cls = NllLoss2dBackward if type(self) is NllLoss2d else NllLossBackward
        return (apply_or_compute(cls, (grad, input), self),)


class NllLoss2d(NllLoss):
    name_ = "NllLoss2DBackward0"
    chain_rule = ("∂nll_loss/∂input = −1 at each position's target class (divided by the total weight "
                  "for 'mean'), 0 elsewhere")


class NllLossBackward(Function):
    """torch's nll_loss_backward: -weight * grad (/ total weight) scattered into the places
    the loss picked. Its `input` edge only gives the shape: that gradient is zero."""

    name_ = "NllLossBackwardBackward0"
    chain_rule = "the backward of nll_loss, differentiated again: picks grad at the target classes"

    def forward(self, grad, input, node):
        self.node = node
        return self.compute(cast(grad, input._dtype), input._data, node)

    @staticmethod
    def compute(g, input, node):
        dt = B.dtype_name(input)
        coef = B.neg(node.w)
        if node.total is not None:
            # ignored targets get no gradient, even when every target is ignored (0 / 0)
            zero = B.scalar(0, dt)
            coef = B.where(B.eq(node.w, zero), zero, B.div(coef, node.total))
        values = B.mul(coef, g)
        shape = node.in_shape
        if len(shape) == 1:
            out = B.index_add((1,) + shape, node.index, B.reshape(values, (1,)), dt)
            return B.reshape(out, shape)
        return B.index_add(shape, node.index, values, dt)

    def backward(self, g):
        node = self.node
        g_grad = g_input = None
        if self.needs(0):  # the loss is linear in its input: apply it again to g
            g_grad = apply(type(node), (g,), node.target, node.weight, node.reduction,
                           node.ignore_index)
        if self.needs(1):
            g_input = zeros_like(g)
        return g_grad, g_input


class NllLoss2dBackward(NllLossBackward):
    name_ = "NllLoss2DBackwardBackward0"
    chain_rule = "the backward of nll_loss, differentiated again: picks grad at the target classes"


def nll_loss(input, target, weight, reduction, ignore_index, two_d=False):
    """torch's nll_loss / nll_loss2d on (C,), (N, C) or (N, C, H, W) input."""
    if target._dtype.name != "int64":
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                           f"{_TYPE[target._dtype.name]}")
    if weight is not None and weight.numel() != input.shape[0 if input.ndim == 1 else 1]:
        c = input.shape[0 if input.ndim == 1 else 1]
        raise RuntimeError(
            f"weight tensor should be defined either for all {c} classes or no classes but got "
            f"weight tensor of shape: [{', '.join(map(str, weight.shape))}]"
        )
    if two_d:
        if target.ndim != 3:
            raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but got "
                               f"targets of dimension: {target.ndim}")
        s, ts = input.shape, target.shape
        if (s[0], s[2], s[3]) != tuple(ts):
            raise RuntimeError(f"size mismatch (got input: [{', '.join(map(str, s))}] , target: "
                               f"[{', '.join(map(str, ts))}]")
    elif target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    return apply(NllLoss2d if two_d else NllLoss, (input,), target, weight, reduction,
                 ignore_index)
