"""nn.utils: clipping gradients and flattening parameters into one vector, as torch does."""

from __future__ import annotations

import math

from ..autograd import grad_mode
from ..creation import tensor
from ..ops.shape import cat, stack
from ..tensor import Tensor
from .module import typename


def _grads(parameters) -> list:
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def _vector_norm(t: Tensor, norm_type: float) -> Tensor:
    a = t.abs()
    if norm_type == math.inf:
        return a.amax() if a.numel() else tensor(0.0, dtype=t.dtype)
    if norm_type == -math.inf:
        return a.amin()
    if norm_type == 0:
        return (a != 0).sum().to(t.dtype)
    if norm_type == 2:
        return (a * a).sum().sqrt()
    if norm_type == 1:
        return a.sum()
    return a.pow(norm_type).sum().pow(1.0 / norm_type)


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None) -> Tensor:
    if isinstance(tensors, Tensor):
        tensors = [tensors]
    tensors = list(tensors)
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return tensor(0.0)
    with grad_mode.no_grad():
        norms = [_vector_norm(g, norm_type) for g in tensors]
        total = _vector_norm(stack(norms), norm_type)
    if error_if_nonfinite and (total.isnan().item() or total.abs().item() == math.inf):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None) -> None:
    grads = _grads(parameters)
    if not grads:
        return
    with grad_mode.no_grad():
        coef = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None) -> Tensor:
    """Scale every .grad by max_norm / (total norm + 1e-6) when that is below 1; returns the
    total norm (of all the gradients together) from before the scaling."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        parameters = list(parameters)
    grads = _grads(parameters)
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_value_(parameters, clip_value, foreach=None) -> None:
    clip_value = float(clip_value)
    with grad_mode.no_grad():
        for g in _grads(parameters):
            g.clamp_(min=-clip_value, max=clip_value)


def parameters_to_vector(parameters) -> Tensor:
    return cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec, parameters) -> None:
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {typename(vec)}")
    pointer = 0
    for param in parameters:
        n = param.numel()
        param.data = vec[pointer:pointer + n].view(*param.shape).data
        pointer += n
