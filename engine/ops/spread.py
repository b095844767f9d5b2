"""var and std as torch 2.13's CPU kernels compute them, on backend arrays.

Both accumulate in double, whatever the input's dtype, then round once:

- to one value (the whole tensor, or every dim but ones of size 1: `std_var_all_cpu`): two
  passes, the input's mean as torch computes it (in the input's dtype, engine/backend/
  sum_order.py's order), then the squares of (x - mean) added one by one in the order torch's
  TensorIterator walks the input, a subtotal per call of its loop, torch's two threads each
  summing half from 32,768 elements on;
- to several values: Welford's running mean and sum of squares over each output's elements,
  in the same walk (`WelfordOps` in `binary_kernel_reduce`).

So the variance of equal values is exactly 0, as in torch, where subtracting a mean computed
otherwise can leave rounding noise (and std's gradient, which divides by the std, then goes
wrong by orders of magnitude).
"""

from __future__ import annotations

from .. import backend as B
from ..backend import sum_order


def _walk(a, reduced):
    """The input's layout for torch's iterator (innermost first) and a's values permuted to
    that order (outermost first), as a contiguous array."""
    shape = B.shape(a)
    layout = sum_order._iterator_dims(list(shape), list(B.strides(a)), set(reduced))
    perm = [d for entry in reversed(layout) for d in entry[3]]
    return layout, perm, B.contiguous(B.permute(a, tuple(perm)))


def _all(x, correction, root):
    """One value: torch's std_var_all_cpu."""
    dt = B.dtype_name(x)
    shape = B.shape(x)
    n = B.numel(x)
    mean = B.astype(B.mean(x, None, False), "float64")
    layout, _, walked = _walk(x, range(len(shape)))
    d = B.sub(B.reshape(B.astype(walked, "float64"), (n,)), mean)
    squares = B.mul(d, d)
    sizes = [entry[0] for entry in layout] if shape else [1]
    ranges = [(0, n)]
    if n > sum_order.GRAIN and sum_order.THREADS > 1:
        chunk = -(-n // min(sum_order.THREADS, -(-n // sum_order.GRAIN)))
        ranges = [(b, min(n, b + chunk)) for b in range(0, n, chunk)]
    total = 0.0
    for begin, end in ranges:
        thread = 0.0
        for start, s0, s1 in sum_order._calls(sizes, begin, end):
            part = B.getitem(squares, slice(start, start + s0 * s1))
            thread += float(B.item(B.getitem(B.cumsum(part, 0), -1)))  # one by one
        total += thread
    dof = max(0.0, n - correction)
    # C's total / 0.0: inf, or NaN when the total is 0 or NaN
    var = total / dof if dof else (float("inf") if total > 0 else float("nan"))
    out = B.scalar(var, "float64")
    if root:
        out = B.sqrt(out)
    return B.astype(out, dt)


def _welford_rows(cols, begin: int, end: int, mean, m2, n: int):
    """WelfordOps.reduce over columns [begin, end) of cols (outputs, values), from (mean, m2)
    after n values."""
    for k in range(begin, end):
        v = B.getitem(cols, (slice(None), k))
        delta = B.sub(v, mean)
        mean = B.add(mean, B.div(delta, B.scalar(n + k - begin + 1, "float64")))
        m2 = B.add(m2, B.mul(delta, B.sub(v, mean)))
    return mean, m2


def welford(x, dims):
    """(mean, m2, count) in double over dims of array x, as torch's WelfordOps walks it, with
    the outputs in the kept dims' order (outermost first): a tuple of arrays and the order."""
    shape = B.shape(x)
    _, perm, walked = _walk(x, dims)
    kept = [d for d in perm if d not in dims]
    outputs, rows = 1, 1
    for d in perm:
        if d in dims:
            rows *= shape[d]
        else:
            outputs *= shape[d]
    cols = B.reshape(B.astype(walked, "float64"), (outputs, rows))
    zero = B.zeros((outputs,), "float64")
    if outputs == 1 and rows >= sum_order.GRAIN and sum_order.THREADS > 1:
        # torch's threads each run Welford over their share, then combine in order
        chunk = -(-rows // min(sum_order.THREADS, -(-rows // sum_order.GRAIN)))
        mean, m2, count = zero, zero, 0
        for b in range(0, rows, chunk):
            e = min(rows, b + chunk)
            pm, pm2 = _welford_rows(cols, b, e, zero, zero, 0)
            n = e - b
            if count == 0:
                mean, m2, count = pm, pm2, n
                continue
            delta = B.sub(pm, mean)
            total = count + n
            share = B.scalar(n / total, "float64")
            mean = B.add(mean, B.mul(delta, share))
            m2 = B.add(B.add(m2, pm2), B.mul(B.mul(B.mul(delta, delta),
                                                   B.scalar(float(count), "float64")), share))
            count = total
        return (mean, m2), rows, kept
    mean, m2 = _welford_rows(cols, 0, rows, zero, zero, 0)
    return (mean, m2), rows, kept


def _to_output(a, shape, kept, dims, keepdim, dt):
    """A per-output array in the kept dims' walk order, as the result: dims back in order."""
    out_shape = (tuple(1 if d in dims else s for d, s in enumerate(shape)) if keepdim
                 else tuple(s for d, s in enumerate(shape) if d not in dims))
    a = B.reshape(B.astype(a, dt), tuple(shape[d] for d in kept))
    order = sorted(range(len(kept)), key=lambda i: kept[i])
    return B.reshape(B.permute(a, tuple(order)), out_shape)


def var(x, dims, correction, keepdim: bool, root: bool):
    """var (std with root) of array x over dims (a tuple), torch's way."""
    shape = B.shape(x)
    kept_numel = 1
    for d, s in enumerate(shape):
        if d not in dims:
            kept_numel *= s
    if kept_numel == 1:
        out_shape = (tuple(1 if d in dims else s for d, s in enumerate(shape)) if keepdim
                     else tuple(s for d, s in enumerate(shape) if d not in dims))
        return B.reshape(_all(x, correction, root), out_shape)
    out, _ = var_mean(x, dims, correction, keepdim, root)
    return out


def var_mean(x, dims, correction, keepdim: bool, root: bool):
    """(var or std, mean) of array x over dims from one Welford pass, as torch's var_mean."""
    shape = B.shape(x)
    dt = B.dtype_name(x)
    (mean, m2), rows, kept = welford(x, dims)
    divisor = rows - correction if rows > correction else 0
    with B.quiet():
        out = B.div(m2, B.scalar(divisor, "float64"))
    if root:
        out = B.sqrt(out)
    return (_to_output(out, shape, kept, dims, keepdim, dt),
            _to_output(mean, shape, kept, dims, keepdim, dt))
