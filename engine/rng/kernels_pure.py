"""torch's sampling transforms in pure Python (the pure backend's half of engine.rng).

Same functions and meaning as kernels_numpy.py, on flat lists. float32 steps compute each
operation in double and round the list to float32 (`_r32`): for +, -, *, / and sqrt that equals
one float32 rounding, because a double holds more than twice float32's precision. A fused
multiply-add needs more care (`_fma32`). Double-precision log, log1p, sin and cos come from the
math module (the C library's).
"""

from __future__ import annotations

import math
import struct
from array import array

_STRUCTS: dict = {}


def _st(code: str, n: int):
    key = (code, n)
    s = _STRUCTS.get(key)
    if s is None:
        if len(_STRUCTS) > 256:
            _STRUCTS.clear()
        s = _STRUCTS[key] = struct.Struct(f"<{n}{code}")
    return s


def _r32(xs: list) -> list:
    try:
        st = _st("f", len(xs))
        return list(st.unpack(st.pack(*xs)))
    except (OverflowError, struct.error):
        return array("f", xs).tolist()


def u32(data: bytes) -> list:
    return list(_st("I", len(data) // 4).unpack(data))


def u64(data: bytes) -> list:
    w = u32(data)
    return [(hi << 32) | lo for hi, lo in zip(w[0::2], w[1::2])]


def unit_f32(data: bytes) -> list:
    # 24-bit integers times 2**-24 are exact float32 values: no rounding step needed
    return [(w & 0xFFFFFF) * 5.9604644775390625e-08 for w in u32(data)]


def unit_f64(data: bytes) -> list:
    return [(v & 0x1FFFFFFFFFFFFF) * 1.1102230246251565e-16 for v in u64(data)]


def _next32(r: float, up: bool) -> float:
    bits = struct.unpack("<i", struct.pack("<f", r))[0]
    if r == 0:
        bits = 1 if up else -0x7FFFFFFF  # smallest subnormals
    elif (r > 0) == up:
        bits += 1
    else:
        bits -= 1
    return struct.unpack("<f", struct.pack("<i", bits))[0]


def _fma32(a, b, c) -> list:
    """Element-wise a * b + c rounded once to float32 (a, b, c: lists or floats of float32
    values). The product is exact in double; the double sum can only mislead the final rounding
    when it lands exactly on a float32 midpoint: in float32's normal range its low 29 mantissa
    bits are 1000...0, among float32's subnormals (below 2**-126) the midpoints lie elsewhere,
    so every sum there is looked at. Those rare elements are redone with the sum's exact
    error."""
    n = max(len(v) if isinstance(v, list) else 1 for v in (a, b, c))
    a, b, c = ([v] * n if not isinstance(v, list) else v for v in (a, b, c))
    s = [x * y + z for x, y, z in zip(a, b, c)]
    r = _r32(s)
    bits = _st("Q", n).unpack(_st("d", n).pack(*s))
    for i, q in enumerate(bits):
        if q & 0x1FFFFFFF == 0x10000000 or q & 0x7FFFFFFFFFFFFFFF < 0x3810000000000000:
            si, ri = s[i], r[i]
            if si == ri:  # exact (zeros among them)
                continue
            up = si > ri
            other = _next32(ri, up)  # the float32 on s's other side (after infinity: the max)
            if 2 * si != _grid(ri) + _grid(other):
                continue  # not a midpoint: the rounding of s is the rounding of a * b + c
            p = a[i] * b[i]
            bb = si - p
            err = (p - (si - bb)) + (c[i] - bb)
            if err != 0 and (err > 0) == up:
                r[i] = other
    return r


def _grid(r: float) -> float:
    """A float32 value, with infinity standing for 2**128: float32's step after the max."""
    return math.copysign(2.0 ** 128, r) if math.isinf(r) else r


def _two_prod(a: float, b: float):
    p = a * b
    t = a * 134217729.0
    ah = t - (t - a)
    al = a - ah
    t = b * 134217729.0
    bh = t - (t - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


_fma = getattr(math, "fma", None)  # Python 3.13+


def _fma64_one(a: float, b: float, c: float) -> float:
    if _fma is not None:
        return _fma(a, b, c)
    p, e = _two_prod(a, b)
    s = p + c
    bb = s - p
    t = (p - (s - bb)) + (c - bb)
    return s + (t + e)


def uniform_f32(data: bytes, low: float, high: float) -> list:
    lo, hi = _r32([low, high])
    span = _r32([hi - lo])[0]
    r = _fma32(unit_f32(data), span, lo)
    return [lo if v == hi else v for v in r]


def uniform_f64(data: bytes, low: float, high: float) -> list:
    span = high - low
    out = [_fma64_one(x, span, low) for x in unit_f64(data)]
    return [low if v == high else v for v in out]


# -- torch's AVX2 Box-Muller for float32 (see kernels_numpy.py for the reasoning) --------------

_LOG_P = (7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1,
          1.4249322787e-1, -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1,
          3.3333331174e-1)
_LOG_P32 = _r32(list(_LOG_P))
_C = dict(zip(
    ("sqrthf", "q1", "q2", "fopi", "dp1", "dp2", "dp3", "cos0", "cos1", "cos2", "sin0", "sin1",
     "sin2", "twopi"),
    _r32([0.707106781186547524, -2.12194440e-4, 0.693359375, 1.27323954473516, -0.78515625,
          -2.4187564849853515625e-4, -3.77489497744594108e-8, 2.443315711809948e-005,
          -1.388731625493765e-003, 4.166664568298827e-002, -1.9515295891e-4, 8.3321608736e-3,
          -1.6666654611e-1, 2.0 * math.pi]),
))


def _log256(xs: list) -> list:
    """avx_mathfun's log256_ps on float32 inputs in (0, 1] (Box-Muller never passes others)."""
    n = len(xs)
    bits = _st("I", n).unpack(_st("f", n).pack(*xs))
    e = [float((b >> 23) - 0x7F + 1) for b in bits]
    m = _st("f", n).unpack(_st("I", n).pack(*[(b & 0x807FFFFF) | 0x3F000000 for b in bits]))
    sq = _C["sqrthf"]
    low = [v < sq for v in m]
    x = _r32([(v - 1.0) + (v if lo else 0.0) for v, lo in zip(m, low)])  # exact steps
    e = [v - 1.0 if lo else v for v, lo in zip(e, low)]
    z = _r32([v * v for v in x])
    y = [_LOG_P32[0]] * n
    for p in _LOG_P32[1:]:
        y = _fma32(y, x, p)
    y = _r32([a * b for a, b in zip(y, x)])
    eq1 = _r32([v * _C["q1"] for v in e])
    y = _fma32(y, z, eq1)
    y = _fma32(z, -0.5, y)
    xy = _r32([a + b for a, b in zip(x, y)])
    return _fma32(e, _C["q2"], xy)


def _sincos256(xs: list):
    n = len(xs)
    neg = [v < 0 or (v == 0 and math.copysign(1.0, v) < 0) for v in xs]
    x = [abs(v) for v in xs]
    j = [((int(v) + 1) & ~1) for v in _r32([v * _C["fopi"] for v in x])]
    y = [float(v) for v in j]
    x = _fma32(y, _C["dp1"], x)
    x = _fma32(y, _C["dp2"], x)
    x = _fma32(y, _C["dp3"], x)
    z = _r32([v * v for v in x])
    c = _fma32([_C["cos0"]] * n, z, _C["cos1"])
    c = _fma32(c, z, _C["cos2"])
    c = _r32([a * b for a, b in zip(c, z)])
    c = _fma32(c, z, _r32([-v * 0.5 for v in z]))
    c = _r32([v + 1.0 for v in c])
    s = _fma32([_C["sin0"]] * n, z, _C["sin1"])
    s = _fma32(s, z, _C["sin2"])
    s = _r32([a * b for a, b in zip(s, z)])
    s = _fma32(s, x, x)
    sins, coss = [], []
    for k in range(n):
        jk = j[k]
        # the polynomial pick, then the sign flips (x86's sign-bit xor), as sincos256_ps does
        sv, cv = (s[k], c[k]) if (jk & 2) == 0 else (c[k], s[k])
        if neg[k] != bool(jk & 4):
            sv = -sv
        if not (~(jk - 2) & 4) == 0:
            cv = -cv
        sins.append(sv)
        coss.append(cv)
    return sins, coss


def normal16_f32(u: list, mean: float, std: float) -> list:
    mean, std = _r32([mean, std])
    out = []
    for k in range(0, len(u), 16):
        out.append(u[k:k + 16])
    first = [v for blk in out for v in blk[:8]]
    second = [v for blk in out for v in blk[8:]]
    log = _log256(_r32([1.0 - v for v in first]))
    radius = _r32([math.sqrt(v) for v in _r32([-2.0 * v for v in log])])
    sin, cos = _sincos256(_r32([_C["twopi"] * v for v in second]))
    n1 = _fma32(_r32([a * b for a, b in zip(radius, cos)]), std, mean)
    n2 = _fma32(_r32([a * b for a, b in zip(radius, sin)]), std, mean)
    res = []
    for k in range(0, len(n1), 8):
        res.extend(n1[k:k + 8])
        res.extend(n2[k:k + 8])
    return res


def normal16_f64(u: list, mean: float, std: float) -> list:
    res = []
    two_pi = 2.0 * math.pi
    for k in range(0, len(u), 16):
        blk = u[k:k + 16]
        radius = [math.sqrt(-2.0 * math.log(1.0 - v)) for v in blk[:8]]
        theta = [two_pi * v for v in blk[8:]]
        res.extend(_fma64_one(r * math.cos(t), std, mean) for r, t in zip(radius, theta))
        res.extend(_fma64_one(r * math.sin(t), std, mean) for r, t in zip(radius, theta))
    return res


def concat(a: list, b: list) -> list:
    return a + b


def randint_from_words(data: bytes, wide: bool, span: int, low: int) -> list:
    return [(w % span) + low for w in (u64(data) if wide else u32(data))]


def below(u: list, p: float) -> list:
    return [v < p for v in u]
