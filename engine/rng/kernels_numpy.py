"""torch's sampling transforms as numpy array code (the numpy backend's half of engine.rng).

Each function here has a twin of the same name and meaning in kernels_pure.py. Words come in as
the little-endian bytes Generator.words returns. Bit-exactness rules: float32 steps run as float32
numpy operations, one IEEE rounding each, in torch's order; where torch's compiled code fuses a
multiply and an add (fma), so does `_fma32`/`_fma64`; double-precision log and log1p come from
Python's math module (the C library torch also calls), because numpy's own differ in the last bit.
"""

from __future__ import annotations

import math

import numpy as np

_F = np.float32
_U53 = np.uint64((1 << 53) - 1)


def u32(data: bytes):
    return np.frombuffer(data, dtype="<u4")


def u64(data: bytes):
    """Pairs of words as torch's random64(): the first word of each pair is the high half."""
    w = np.frombuffer(data, dtype="<u4").astype(np.uint64)
    return (w[0::2] << np.uint64(32)) | w[1::2]


def unit_f32(data: bytes):
    """uniform_real_distribution<float>(0, 1): the low 24 bits of each word over 2**24."""
    return (u32(data) & 0xFFFFFF).astype(_F) * _F(2.0**-24)


def unit_f64(data: bytes):
    """uniform_real_distribution<double>(0, 1): the low 53 bits of random64() over 2**53."""
    return (u64(data) & _U53).astype(np.float64) * 2.0**-53


def _fma32(a, b, c):
    """a * b + c rounded once to float32. The product of two float32 values is exact in
    float64, so only the float64 sum rounds; rounding that to float32 again errs only when the
    sum lands exactly on a float32 midpoint (its low 29 mantissa bits 1000...0) without being
    exact. Those elements (and float32 subnormals, whose midpoints lie elsewhere) are redone
    with the sum's exact error."""
    shape = np.broadcast_shapes(np.shape(a), np.shape(b), np.shape(c))
    p = np.broadcast_to(np.asarray(a, _F), shape).astype(np.float64) * np.float64(b) \
        if np.ndim(b) == 0 else np.asarray(a, _F).astype(np.float64) * np.asarray(b, np.float64)
    p = np.broadcast_to(p, shape)
    s = p + np.asarray(c, np.float64)
    r = s.astype(_F)
    odd = ((s.view(np.uint64) & np.uint64(0x1FFFFFFF)) == np.uint64(0x10000000)) | \
        (np.abs(r) < _F(2.0**-125))
    idx = np.flatnonzero(odd)
    if idx.size:
        ps, ss = p.ravel()[idx], s.ravel()[idx]
        cs = np.broadcast_to(np.asarray(c, np.float64), shape).ravel()[idx]
        bb = ss - ps
        err = (ps - (ss - bb)) + (cs - bb)
        rs = r.ravel()[idx]
        back = rs.astype(np.float64)
        off = ss - back
        nxt = np.nextafter(rs, np.where(off > 0, _F(np.inf), _F(-np.inf)).astype(_F))
        half = (off != 0) & (np.abs(off) * 2 == np.abs(nxt.astype(np.float64) - back))
        fix = half & (err != 0) & ((err > 0) == (off > 0))
        if fix.any():
            r = r.copy()
            r.ravel()[idx[fix]] = nxt[fix]
    return r


def _split(a):
    t = a * 134217729.0  # 2**27 + 1: Dekker's split into two 26-bit halves
    hi = t - (t - a)
    return hi, a - hi


def _fma64(a, b, c):
    """a * b + c with the product kept exact (Dekker) and the sum in double-double: equal to a
    fused multiply-add except in cases rarer than one in 2**40."""
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    c = np.asarray(c, np.float64)
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    bb = s - p
    t = (p - (s - bb)) + (c - bb)
    return s + (t + e)


def uniform_f32(data: bytes, low: float, high: float):
    lo, hi = _F(low), _F(high)
    if lo == 0 and hi == 1:
        return unit_f32(data)  # x * 1 + 0 is x (and x < 1)
    r = _fma32(unit_f32(data), hi - lo, lo)
    return np.where(r == hi, lo, r).astype(_F)


def uniform_f64(data: bytes, low: float, high: float):
    r = _fma64(unit_f64(data), high - low, low)
    return np.where(r == high, low, r)


# -- torch's AVX2 Box-Muller for float32 (NormalFill16 with avx_mathfun's log and sincos) -----
# Every step is one float32 operation as the compiled kernel runs it; the places GCC fuses a
# multiply into the following add or subtract are written as _fma32 (found by comparing with
# torch bit for bit).

_LOG_P = (7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1,
          1.4249322787e-1, -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1,
          3.3333331174e-1)


def _log256(x):
    invalid = x <= 0
    x = np.maximum(x, np.array(0x00800000, np.int32).view(_F))
    bits = x.view(np.int32)
    e = ((bits >> 23) - 0x7F).astype(_F) + _F(1)
    x = ((bits & ~0x7F800000) | 0x3F000000).view(_F)
    mask = x < _F(0.707106781186547524)
    tmp = np.where(mask, x, _F(0))
    x = x - _F(1)
    e = e - np.where(mask, _F(1), _F(0))
    x = x + tmp
    z = x * x
    y = np.full_like(x, _F(_LOG_P[0]))
    for p in _LOG_P[1:]:
        y = _fma32(y, x, _F(p))
    y = y * x
    y = _fma32(y, z, e * _F(-2.12194440e-4))
    y = _fma32(z, _F(-0.5), y)
    x = _fma32(e, _F(0.693359375), x + y)
    return np.where(invalid, _F(np.nan), x)


def _sincos256(x):
    sign_sin = np.signbit(x)
    x = np.abs(x)
    j = (x * _F(1.27323954473516)).astype(np.int32)
    j = (j + 1) & ~1
    y = j.astype(_F)
    sign_sin = sign_sin ^ ((j & 4) != 0)
    poly = (j & 2) == 0
    sign_cos = (~(j - 2) & 4) != 0
    x = _fma32(y, _F(-0.78515625), x)
    x = _fma32(y, _F(-2.4187564849853515625e-4), x)
    x = _fma32(y, _F(-3.77489497744594108e-8), x)
    z = x * x
    c = _fma32(np.full_like(x, _F(2.443315711809948e-005)), z, _F(-1.388731625493765e-003))
    c = _fma32(c, z, _F(4.166664568298827e-002))
    c = c * z
    c = _fma32(c, z, -(z * _F(0.5)))
    c = c + _F(1)
    s = _fma32(np.full_like(x, _F(-1.9515295891e-4)), z, _F(8.3321608736e-3))
    s = _fma32(s, z, _F(-1.6666654611e-1))
    s = s * z
    s = _fma32(s, x, x)
    sin_part = np.where(poly, s, _F(0))
    cos_part = np.where(poly, _F(0), c)
    sin = cos_part + sin_part
    cos = (c - cos_part) + (s - sin_part)
    return np.where(sign_sin, -sin, sin), np.where(sign_cos, -cos, cos)


def normal16_f32(u, mean: float, std: float):
    """Box-Muller on consecutive blocks of 16 uniforms: pairs (j, j + 8) of each block."""
    blocks = u.reshape(-1, 16)
    radius = np.sqrt(_F(-2) * _log256(_F(1) - blocks[:, :8]))
    sin, cos = _sincos256(_F(2.0 * math.pi) * blocks[:, 8:])
    out = np.concatenate([_fma32(radius * cos, _F(std), _F(mean)),
                          _fma32(radius * sin, _F(std), _F(mean))], axis=1)
    return out.ravel()


def normal16_f64(u, mean: float, std: float):
    """The same blocks in double, with the C library's log, sin and cos (NormalFill16<double>)."""
    blocks = u.reshape(-1, 16)
    u1 = 1.0 - blocks[:, :8]
    log = np.fromiter(map(math.log, u1.ravel().tolist()), np.float64, u1.size).reshape(u1.shape)
    radius = np.sqrt(-2.0 * log)
    theta = (2.0 * math.pi) * blocks[:, 8:]
    out = np.concatenate([_fma64(radius * np.cos(theta), std, mean),
                          _fma64(radius * np.sin(theta), std, mean)], axis=1)
    return out.ravel()


def concat(a, b):
    return np.concatenate([a, b])


def randint_from_words(data: bytes, wide: bool, span: int, low: int):
    """(word % span) + low, with one word per value or, when wide, one random64() per value."""
    if wide:
        return ((u64(data) % np.uint64(span)).astype(np.int64) + np.int64(low))
    return (u32(data).astype(np.int64) % span) + low


def below(u, p: float):
    """bernoulli's `uniform < p` as 0/1 values."""
    return u < p
