"""nn.init: torch's in-place weight initialisers, drawing as torch draws.

Each one is torch's formula for the bounds or the spread, then one in-place sampler
(`Tensor.uniform_` / `Tensor.normal_`, engine/rng) under no_grad, so values are torch's bit for
bit from the same seed. A new layer gets torch's default initialisation by calling the same
function torch's layer calls in its `reset_parameters` (e.g. `kaiming_uniform_(w, a=sqrt(5))`).
"""

from __future__ import annotations

import math
import warnings

from .. import creation
from ..autograd import grad_mode
from ..ops.compare import where
from ..rng.special import householder_q


def calculate_gain(nonlinearity, param=None):
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                  "conv_transpose2d", "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    dimensions = tensor.dim()
    if dimensions < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    num_input_fmaps = tensor.size(1)
    num_output_fmaps = tensor.size(0)
    receptive_field_size = 1
    for s in tensor.shape[2:]:
        receptive_field_size *= s
    return num_input_fmaps * receptive_field_size, num_output_fmaps * receptive_field_size


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor, a: float = 0.0, b: float = 1.0, generator=None):
    with grad_mode.no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean: float = 0.0, std: float = 1.0, generator=None):
    with grad_mode.no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator=None):
    """torch 2.13's rejection sampling. When [a, b] holds more than 30% of the mass: normal_
    draws, and while some fall outside, a fresh full-size normal_ draw replaces just those
    (values bit for bit torch's). Otherwise: uniforms on [a, b] accepted where
    log(U) <= the log density; that path compares logs of float32 uniforms, where torch's
    vectorised log may differ in the last bit and, very rarely, flip a decision."""
    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)

    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    def any_true(mask) -> bool:
        return mask.sum().item() > 0

    with grad_mode.no_grad():
        p = norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std)
        if p > 0.3:
            # the bounds as the tensor's dtype holds them, as torch compares
            lo = creation.tensor(a, dtype=tensor.dtype).item()
            hi = creation.tensor(b, dtype=tensor.dtype).item()
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                mask = (result < lo) | (result > hi)
                if not any_true(mask):
                    break
                fresh = creation.empty_like(result).normal_(mean, std, generator=generator)
                result = where(mask, fresh, result)
            if tensor is not result:
                tensor.copy_(result)
            return tensor
        mode = max(a, min(mean, b))
        log_peak = -0.5 * ((mode - mean) / std) ** 2

        def log_density(c):
            return ((c - mean) / std) ** 2 * -0.5 - log_peak

        tensor.uniform_(a, b, generator=generator)
        pending = creation.empty_like(tensor).uniform_(generator=generator).log() > \
            log_density(tensor)
        result = tensor
        while any_true(pending):
            candidates = creation.empty_like(tensor).uniform_(a, b, generator=generator)
            result = where(pending, candidates, result)
            accept = creation.empty_like(tensor).uniform_(generator=generator).log()
            pending = where(pending, accept > log_density(candidates), pending)
        if result is not tensor:
            tensor.copy_(result)
        return tensor


def _like(tensor, flat_values):
    return creation.tensor(flat_values, dtype=tensor.dtype).reshape(tensor.shape)


def orthogonal_(tensor, gain: float = 1.0, generator=None):
    """torch's recipe: N(0, 1) into a (rows, cols) matrix (transposed when wide), QR, signs of
    R's diagonal onto Q. The normals are torch's; the QR is a Householder QR in double here,
    where torch calls LAPACK, so values agree to float32 rounding, not always to the last bit."""
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    flat = creation.empty(rows, cols, dtype=tensor.dtype).normal_(0, 1, generator=generator)
    matrix = flat.tolist()
    if rows < cols:
        matrix = [list(col) for col in zip(*matrix)]
    q = householder_q(matrix)
    if rows < cols:
        q = [list(col) for col in zip(*q)]
    with grad_mode.no_grad():
        tensor.view(rows, cols).copy_(creation.tensor(q, dtype=tensor.dtype))
        tensor.mul_(gain)
    return tensor


def eye_(tensor):
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with grad_mode.no_grad():
        tensor.copy_(creation.eye(*tensor.shape, dtype=tensor.dtype))
    return tensor


def constant_(tensor, val: float):
    with grad_mode.no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    return constant_(tensor, 1.0)


def zeros_(tensor):
    with grad_mode.no_grad():
        return tensor.zero_()


def kaiming_uniform_(tensor, a: float = 0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu", generator=None):
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator=generator)


def kaiming_normal_(tensor, a: float = 0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu", generator=None):
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return normal_(tensor, 0, std, generator=generator)


def xavier_uniform_(tensor, gain: float = 1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator=generator)


def xavier_normal_(tensor, gain: float = 1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator=generator)
