"""torch 2.13's CPU layer_norm kernels, operation for operation, on backend arrays.

A layer norm's gradient subtracts terms of the same size (the gradient minus its mean minus
the normalised input times another mean), so in float32 a different order of the same
arithmetic can move the result by far more than its last bit where the terms cancel. The
engine therefore replays what torch's kernels (aten/src/ATen/native/cpu/layer_norm_kernel.cpp
and moments_utils.h, as built for x86-64 with AVX2: 8 float32 or 4 float64 lanes) do, with
the multiply-adds its compiler fuses into one rounding (found by comparing with torch 2.13
bit for bit; tests/test_layer_norm_kernel.py keeps that comparison):

- mean and variance per row: Welford's algorithm over chunks of 16 vectors, merged in a
  cascade, then the leftover elements one by one, then the lanes (`moments`);
- the output (x - mean) * rstd, times the weight and plus the bias (`forward`);
- the input's gradient rstd * dy * w + b * x + c, with b and c made of the row sums
  ds = sum(dy * w * x) and db = sum(dy * w) added lane by lane (`input_grad`);
- the weight's and bias's gradients summed over the rows, the rows shared out between
  torch's two threads (`param_grads`).

Every function works on (M, N) arrays: M rows of N normalised elements.
"""

from __future__ import annotations

from .. import backend as B
from ..backend.sum_order import THREADS

CHUNK = 16  # vectors per Welford chunk (kChunkSize)


def lanes(dtype: str) -> int:
    return 8 if dtype == "float32" else 4


def _k(value, dt):
    return B.scalar(value, dt)


def _cols(a, start, stop):
    return B.getitem(a, (slice(None), slice(start, stop)))


def _col(a, i):
    return B.getitem(a, (slice(None), i))


def _ceil_log2(m: int) -> int:
    return 1 if m <= 2 else (m - 1).bit_length()


def _add_moments_vec(m0_add, m1_add, m2_add, m0, m1, m2, dt):
    n = m0 + m0_add
    c = B.div(_k(m0_add, dt), _k(n, dt)) if n else _k(0, dt)
    delta = B.sub(m1_add, m1)
    m2_tmp = B.add(m2, m2_add)
    c_delta = B.mul(c, delta)
    m0_delta = B.mul(delta, _k(m0, dt))
    return n, B.add(m1, c_delta), B.fma(m0_delta, c_delta, m2_tmp)


def moments(x, eps: float):
    """(mean, rstd) of each row of x (M, N) as torch's RowwiseMoments and 1/sqrt(var + eps)."""
    dt = B.dtype_name(x)
    rows, n_cols = B.shape(x)
    lane = lanes(dt)
    n = n_cols // lane
    m = -(-n // CHUNK)
    depth = _ceil_log2(m)
    zero = B.zeros((rows, lane), dt)
    stack = [[0, zero, zero] for _ in range(depth)]
    for i in range(m):
        base = i * CHUNK * lane
        count = min(CHUNK, n - i * CHUNK)
        m1v, m2v = zero, zero
        for j in range(count):
            xv = _cols(x, base + j * lane, base + (j + 1) * lane)
            delta = B.sub(xv, m1v)
            m1v = B.fma(B.div(_k(1, dt), _k(j + 1, dt)), delta, m1v)
            m2v = B.fma(delta, B.sub(xv, m1v), m2v)
        stack[0] = list(_add_moments_vec(count, m1v, m2v, *stack[0], dt))
        mask = i + 1
        j = 1
        while j < depth and (mask & 1) == 0:
            stack[j] = list(_add_moments_vec(*stack[j - 1], *stack[j], dt))
            stack[j - 1] = [0, zero, zero]
            mask >>= 1
            j += 1
    for i in range(1, depth):
        stack[0] = list(_add_moments_vec(*stack[i], *stack[0], dt))
    m1_lanes, m2_lanes = stack[0][1], stack[0][2]
    # the elements after the last whole vector, one by one (no fused multiply-add here)
    count = 0
    m1 = B.zeros((rows,), dt)
    m2 = B.zeros((rows,), dt)
    for k in range(n * lane, n_cols):
        xk = _col(x, k)
        delta = B.sub(xk, m1)
        count += 1
        m1 = B.add(m1, B.div(delta, _k(count, dt)))
        m2 = B.add(m2, B.mul(delta, B.sub(xk, m1)))
    # then each lane's moments (n elements each) merged in, the scalar way
    for i in range(lane):
        total = count + n
        c = B.div(_k(n, dt), _k(total, dt)) if total else _k(0, dt)
        delta = B.sub(_col(m1_lanes, i), m1)
        m1 = B.fma(c, delta, m1)
        m2 = B.add(m2, B.fma(B.mul(B.mul(delta, delta), c), _k(count, dt), _col(m2_lanes, i)))
        count = total
    var = B.div(m2, _k(n_cols, dt))
    return m1, B.div(_k(1, dt), B.sqrt(B.add(var, _k(eps, dt))))


def forward(x, mean, rstd, weight, bias):
    """The output for x (M, N), the rows' mean and rstd (M,), weight and bias (N,) or None."""
    centred = B.sub(x, B.reshape(mean, (-1, 1)))
    r = B.reshape(rstd, (-1, 1))
    zero = _k(0, B.dtype_name(x))
    if weight is None and bias is None:  # torch adds its bias of 0 (fused): -0.0 becomes 0.0
        return B.add(B.mul(centred, r), zero)
    if weight is None:  # torch's compiler drops the multiplication by 1 and fuses the rest
        return B.fma(centred, B.expand(r, B.shape(x)), B.expand(bias, B.shape(x)))
    y = B.mul(centred, r)
    if bias is None:
        return B.add(B.mul(y, weight), zero)
    return B.fma(y, B.expand(weight, B.shape(x)), B.expand(bias, B.shape(x)))


def _lane_total(acc, dt):
    """The lanes of acc (M, lanes) added: float32 in AVX2's shuffle tree, float64 in order."""
    a = [_col(acc, i) for i in range(B.shape(acc)[1])]
    if dt == "float32":
        return B.add(B.add(B.add(a[0], a[4]), B.add(a[2], a[6])),
                     B.add(B.add(a[1], a[5]), B.add(a[3], a[7])))
    return B.add(B.add(B.add(a[0], a[1]), a[2]), a[3])


def _row_sum(p, q=None):
    """Each row's sum of p * q (or of p) as torch's vec::map2_reduce_all: a vector of the first
    lanes' products, the next whole vectors' products added to it, the leftover products added
    (fused) into the first lanes, then the lanes added up."""
    dt = B.dtype_name(p)
    n_cols = B.shape(p)[1]
    lane = lanes(dt)

    def prod(a, b):
        pa = _cols(p, a, b)
        return pa if q is None else B.mul(pa, _cols(q, a, b))

    if n_cols < lane:
        products = prod(0, n_cols)
        total = _col(products, 0)
        for i in range(1, n_cols):
            total = B.add(total, _col(products, i))
        return total
    acc = prod(0, lane)
    full = n_cols - n_cols % lane
    for d in range(lane, full, lane):
        acc = B.add(acc, prod(d, d + lane))
    left = n_cols - full
    if left:
        head = _cols(acc, 0, left)
        tail_p = _cols(p, full, n_cols)
        head = B.add(head, tail_p) if q is None else B.fma(tail_p, _cols(q, full, n_cols), head)
        acc = B.concat([head, _cols(acc, left, lane)], 1)
    return _lane_total(acc, dt)


def input_grad(dy, x, mean, rstd, weight):
    """The gradient for x (M, N) from dy (M, N), the rows' mean and rstd, weight (N,) or None."""
    dt = B.dtype_name(x)
    shape = B.shape(x)
    scale = B.div(_k(1, dt), _k(shape[1], dt))
    if weight is None:
        ds = _row_sum(dy, x)
        db = _row_sum(dy)
    else:
        w = B.expand(weight, shape)
        ds = _row_sum(B.mul(dy, x), w)
        db = _row_sum(dy, w)
    a = rstd
    b = B.fma(db, mean, B.neg(ds))
    b = B.mul(B.mul(B.mul(B.mul(b, a), a), a), scale)
    c = B.fma(B.neg(b), mean, B.neg(B.mul(B.mul(db, a), scale)))
    a_dy = B.mul(B.reshape(a, (-1, 1)), dy)
    if weight is not None:
        a_dy = B.mul(a_dy, weight)
    return B.add(B.fma(B.expand(B.reshape(b, (-1, 1)), shape), x, a_dy), B.reshape(c, (-1, 1)))


def param_grads(dy, x, mean, rstd, need_weight: bool, need_bias: bool):
    """(weight's, bias's) gradients: each of torch's threads sums its share of the rows in order
    (dy * (rstd * x - rstd * mean), fused), then the threads' sums are added."""
    dt = B.dtype_name(x)
    rows, n_cols = B.shape(x)
    threads = min(THREADS, rows) or 1
    per = -(-rows // threads) if rows else 0
    zero = B.zeros((n_cols,), dt)
    gw, gb = zero, zero
    for t in range(THREADS):
        bw, bb = zero, zero
        if t < threads:
            for i in range(t * per, min(rows, (t + 1) * per)):
                dyi, xi = B.getitem(dy, i), B.getitem(x, i)
                if need_weight:
                    a = B.getitem(rstd, i)
                    shift = B.mul(B.neg(a), B.getitem(mean, i))
                    bw = B.fma(dyi, B.fma(B.expand(a, (n_cols,)), xi, B.expand(shift, (n_cols,))),
                               bw)
                if need_bias:
                    bb = B.add(bb, dyi)
        gw, gb = B.add(gw, bw), B.add(gb, bb)
    return (gw if need_weight else None), (gb if need_bias else None)
