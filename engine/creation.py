"""Factories: tensor, zeros, ones, full, arange, linspace, eye (the random ones: engine/rng/ops.py)."""

from __future__ import annotations

import collections
import math

from . import backend as B
from . import errors
from . import observer as _observer
from . import sizes as _sizes
from .batched_reads import derived
from .device import check_device
from .dtypes import bool_, by_name, float32, int64
from .tensor import Tensor, warn


def _report(t: Tensor, name: str) -> Tensor:
    obs = _observer.state.observer
    if obs is not None:
        obs.tensor_created(t, None, name, ())
    return t


def _leaf(data, dt, requires_grad: bool, name: str) -> Tensor:
    if requires_grad and not dt.is_floating_point:
        raise RuntimeError(errors.REQUIRES_GRAD_DTYPE_CTOR)
    return _report(Tensor._make(data, dt, bool(requires_grad)), name)


def _infer(data):
    """dtype torch infers from nested Python data, checking that it is rectangular."""
    kinds = set()

    def walk(x, depth, shape):
        if isinstance(x, Tensor):
            if x.ndim != 0:
                if depth == len(shape):
                    shape.extend(x.shape)
                kinds.add(x._dtype.name)
                return
            kinds.add(x._dtype.name)
            return
        if isinstance(x, _SEQUENCES):
            if depth == len(shape):
                shape.append(len(x))
            elif shape[depth] != len(x):
                raise ValueError(f"expected sequence of length {shape[depth]} at dim {depth} "
                                 f"(got {len(x)})")
            for item in x:
                walk(item, depth + 1, shape)
            return
        if isinstance(x, bool):
            kinds.add("bool")
        elif isinstance(x, int):
            kinds.add("int64")
        elif isinstance(x, float):
            kinds.add("float32")
        else:
            raise TypeError(f"new(): invalid data type '{type(x).__name__}'")

    walk(data, 0, [])
    if not kinds:
        return float32
    if "float64" in kinds:
        return by_name("float64")
    if "float32" in kinds:
        return float32
    if "int64" in kinds:
        return int64
    return bool_


def _plain(x):
    if isinstance(x, Tensor):
        return x.tolist()
    if isinstance(x, _SEQUENCES):
        return [_plain(i) for i in x]
    return x


# the Python sequences torch.tensor takes as data (besides tensors and numbers)
_SEQUENCES = (list, tuple, range, collections.deque)


def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    check_device(device)
    if isinstance(data, Tensor):
        warn(errors.COPY_CONSTRUCT_WARNING, UserWarning)
        dt = dtype or data._dtype
        return _leaf(B.astype(data._data, dt.name), dt, requires_grad, "tensor")
    if hasattr(data, "__array__") and not isinstance(data, (list, tuple)):
        arr, name = B.from_numpy_like(data)
        dt = dtype or by_name(name)
        return _leaf(B.astype(arr, dt.name), dt, requires_grad, "tensor")
    dt = dtype or _infer(data)
    if dt is int64 or dt is bool_:
        data = _truncate(_plain(data), dt)
        if dt is int64:
            _check_int64(data, "Overflow when unpacking long long", ValueError)
    return _leaf(B.array(_plain(data), dt.name), dt, requires_grad, "tensor")


def _truncate(x, dt):
    if isinstance(x, list):
        return [_truncate(i, dt) for i in x]
    if dt is int64 and isinstance(x, float):
        if not -2**63 <= x < 2**63:
            raise RuntimeError("value cannot be converted to type int64 without overflow")
        return int(x)
    return x


def _check_int64(x, message: str, error=RuntimeError) -> None:
    """torch's error for a Python int outside int64 (numpy's would be an OverflowError)."""
    if isinstance(x, list):
        for i in x:
            _check_int64(i, message, error)
    elif isinstance(x, int) and not isinstance(x, bool) and not -2**63 <= x < 2**63:
        raise error(message)


def as_tensor(data, dtype=None):
    if isinstance(data, Tensor) and (dtype is None or dtype is data._dtype):
        return data
    if isinstance(data, Tensor):
        return data.to(dtype)
    return tensor(data, dtype=dtype)


def factory_size(fn: str, size: tuple, kw_size=None, overloaded: tuple = ()) -> tuple:
    """The size of a factory `fn(*size)` or `fn(size=...)`, read as torch reads it, and checked
    against the run's budget before anything is allocated."""
    if kw_size is not None:
        if size:
            raise TypeError(f"{fn}() got multiple values for argument 'size'")
        shape = _sizes.size_from_value(fn, kw_size, position=None)
    else:
        shape = _sizes.size_from_varargs(fn, size, overloaded=overloaded)
    _sizes.check_alloc(shape)
    return shape


def zeros(*size, dtype=None, requires_grad=False, device=None, **kw):
    check_device(device)
    dt = dtype or float32
    shape = factory_size("zeros", size, _size_kw("zeros", kw))
    return _leaf(B.zeros(shape, dt.name), dt, requires_grad, "zeros")


def ones(*size, dtype=None, requires_grad=False, device=None, **kw):
    check_device(device)
    dt = dtype or float32
    shape = factory_size("ones", size, _size_kw("ones", kw))
    return _leaf(B.ones(shape, dt.name), dt, requires_grad, "ones")


def empty(*size, dtype=None, requires_grad=False, device=None, **kw):
    check_device(device)
    dt = dtype or float32
    shape = factory_size("empty", size, _size_kw("empty", kw))
    return _leaf(B.zeros(shape, dt.name), dt, requires_grad, "empty")


def _size_kw(fn: str, kw: dict):
    """`size=` is the one keyword these factories take beyond their options."""
    for key in kw:
        if key != "size":
            raise TypeError(f"{fn}() got an unexpected keyword argument '{key}'")
    return kw.get("size")


def zeros_like(input, dtype=None, requires_grad=False, device=None):
    check_device(device)
    dt = dtype or input._dtype
    # (under vmap the *_like of a tensor that holds the sample holds it too, as in torch)
    return derived(_leaf(B.zeros(B.shape(input._data), dt.name), dt, requires_grad,
                         "zeros_like"), input)


def ones_like(input, dtype=None, requires_grad=False, device=None):
    check_device(device)
    dt = dtype or input._dtype
    return derived(_leaf(B.ones(B.shape(input._data), dt.name), dt, requires_grad,
                         "ones_like"), input)


def empty_like(input, dtype=None, requires_grad=False, device=None):
    check_device(device)
    return zeros_like(input, dtype=dtype, requires_grad=requires_grad)


def full(size, fill_value, dtype=None, requires_grad=False, device=None):
    check_device(device)
    if dtype is None:
        dtype = bool_ if isinstance(fill_value, bool) else (
            int64 if isinstance(fill_value, int) else float32)
    if dtype is int64:
        _check_int64(fill_value, "value cannot be converted to type int64_t without overflow")
    shape = _sizes.size_from_value("full", size, single_int=False)
    _sizes.check_alloc(shape)
    return _leaf(B.full(shape, fill_value, dtype.name), dtype, requires_grad, "full")


def full_like(input, fill_value, dtype=None, requires_grad=False, device=None):
    check_device(device)
    dt = dtype or input._dtype
    if dt is int64:
        _check_int64(fill_value, "value cannot be converted to type int64_t without overflow")
    return derived(_leaf(B.full(B.shape(input._data), fill_value, dt.name), dt, requires_grad,
                         "full_like"), input)


def arange(start, end=None, step=1, dtype=None, requires_grad=False, device=None):
    check_device(device)
    if end is None:
        start, end = 0, start
    if dtype is None:
        dtype = float32 if any(isinstance(v, float) for v in (start, end, step)) else int64
    if step == 0:
        raise RuntimeError("step must be nonzero")
    _check_count((end - start) / step)
    return _leaf(B.arange(start, end, step, dtype.name), dtype, requires_grad, "arange")


def _check_count(n) -> None:
    """arange's length, before it is made (n may be a float: inf and nan are the backend's to
    refuse)."""
    if n == n and n > 0:
        _sizes.check_alloc((int(min(n, 2.0**62)) + 1,), "this range")


def linspace(start, end, steps, dtype=None, requires_grad=False, device=None):
    check_device(device)
    dt = dtype or float32
    if not _sizes._is_index(steps):  # torch has no overload taking a float (or bool) count
        raise _sizes._invalid("linspace", (start, end, steps))
    steps = int(steps)
    if not -2**63 <= steps < 2**63:
        raise ValueError("Overflow when unpacking long long")
    _sizes.check_alloc((steps,), "these steps")
    if not dt.is_floating_point and not all(math.isfinite(v) and -2**63 <= v < 2**63
                                            for v in (start, end)):
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    return _leaf(B.linspace(start, end, steps, dt.name), dt, requires_grad, "linspace")


def logspace(start, end, steps, base=10.0, dtype=None, requires_grad=False, device=None):
    """base ** linspace(start, end, steps), as torch's CPU loop computes it: the exponents in
    double (start + step * i for the first half, end - step * (steps - 1 - i) for the rest,
    step = (end - start) / (steps - 1) with end - start in the output's dtype), C's pow in
    double, rounded once to the dtype (truncated for integers, whose base is a float32)."""
    check_device(device)
    dt = dtype or float32
    if not _sizes._is_index(steps):
        raise _sizes._invalid("logspace", (start, end, steps))
    steps = int(steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    _sizes.check_alloc((steps,), "these steps")
    floating = dt.is_floating_point
    if floating:
        s, e = _as_dtype(start, dt), _as_dtype(end, dt)
        b = float(base)
    else:
        s, e = int(start), int(end)
        b = float(B.item(B.scalar(base, "float32")))  # torch's integer loop takes a float base
    values = []
    if steps == 1:
        values = [_pow(b, float(start))]
    elif steps > 1:
        span = _as_dtype(e - s, dt) if floating else e - s
        step = float(span) / (steps - 1)
        half = steps // 2
        for i in range(steps):
            x = s + step * i if i < half else e - step * (steps - i - 1)
            values.append(_pow(b, x))
    data = B.array(values, "float64") if values else B.zeros((0,), "float64")
    return _leaf(B.astype(data, dt.name), dt, requires_grad, "logspace")


def _as_dtype(x, dt) -> float:
    """A Python number rounded to dtype dt (float32 or float64), as a Python float."""
    return float(B.item(B.scalar(x, dt.name)))


def _pow(base: float, x: float) -> float:
    """C's pow in double (Python's ** raises where C returns inf or nan)."""
    try:
        return math.pow(base, x)
    except OverflowError:
        return math.inf if base > 0 or float(x).is_integer() and x % 2 == 0 else -math.inf
    except ValueError:
        return math.nan


def eye(n, m=None, dtype=None, requires_grad=False, device=None):
    check_device(device)
    dt = dtype or float32
    if m is not None and not _sizes._is_index(m):
        raise _sizes._invalid("eye", (n, m))
    n = _sizes.int_arg("eye", n, "n", 1)
    m = n if m is None else int(m)
    _sizes.check_alloc((n, m))
    return _leaf(B.eye(n, m, dt.name), dt, requires_grad, "eye")
