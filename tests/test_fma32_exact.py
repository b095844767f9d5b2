"""The float32 fused multiply-add (backend `fma`) against an exact reference in integer
arithmetic, on inputs built to be hard: sums that the float64 route rounds onto a float32
midpoint (normal, subnormal, at 2**-126 and at the overflow threshold) while the exact sum lies
just off it, exact midpoints (ties to even), cancellations to zero and to tiny values, NaN, the
infinities, signed zeros, huge values, every broadcast pattern, non-contiguous operands and
sizes around the numpy backend's chunk boundaries.

The reference decodes each float32 into an integer times a power of two, adds the product and
the third operand as integers, and rounds once to float32 (ties to even, infinity from 2**128 -
2**103 up): nothing in it shares code or method with the backends.
"""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest

from engine.backend import numpy_backend as N
from engine.backend import pure_backend as P

F32_MAX = float.fromhex("0x1.fffffep127")


def _decode(x: float) -> tuple:
    """A finite float32 value as (m, e) with x == m * 2**e exactly (m a signed integer)."""
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    sign, field, frac = bits >> 31, (bits >> 23) & 0xFF, bits & 0x7FFFFF
    m, e = (frac, -149) if field == 0 else (frac | 0x800000, field - 150)
    return (-m if sign else m), e


def exact_fma32(a: float, b: float, c: float) -> float:
    """a * b + c rounded once to float32, for float32 values a, b, c (Python floats)."""
    if not all(math.isfinite(v) for v in (a, b, c)):
        return a * b + c  # float64 gets the infinities and NaN of the float32 operation
    (ma, ea), (mb, eb), (mc, ec) = _decode(a), _decode(b), _decode(c)
    mp, ep = ma * mb, ea + eb
    e = min(ep, ec)
    total = (mp << (ep - e)) + (mc << (ec - e))  # the exact sum is total * 2**e
    if total == 0:
        negative_product = (math.copysign(1.0, a) * math.copysign(1.0, b)) < 0
        # an exact zero: -0.0 only when the product and c are both -0.0
        return -0.0 if mp == 0 and mc == 0 and negative_product and math.copysign(1, c) < 0 \
            else 0.0
    mag = abs(total)
    q = max(mag.bit_length() - 1 + e - 23, -149)  # float32's quantum at that magnitude
    if q <= e:
        mant = mag << (e - q)
    else:
        mant, rem = divmod(mag, 1 << (q - e))
        half = 1 << (q - e - 1)
        if rem > half or rem == half and mant & 1:
            mant += 1
    if mant * 2.0 ** q >= 2.0 ** 128:  # (mant * 2**q is exact: 25 bits at most)
        return math.copysign(math.inf, total)
    return math.copysign(math.ldexp(mant, q), total)


def _f32(x: float) -> float:
    return float(np.float32(x))


def _same(got: float, want: float) -> bool:
    """Equal bit for bit (the sign of zero too); any NaN equals any NaN."""
    if math.isnan(want):
        return math.isnan(got)
    return struct.pack("<f", got) == struct.pack("<f", want)


# -- inputs ------------------------------------------------------------------------------------

def _near_ties(c: float, t: float, rng) -> list:
    """(a, b, c) with a * b = t * (1 -/+ k**2 * 2**-46): when c + t is a float32 midpoint, the
    float64 sum rounds onto it while the exact sum lies a hair to one side (k = 0: on it)."""
    out = []
    half = math.frexp(t)[1] // 2
    for k in (0, 1, 3, int(rng.integers(5, 60))):
        for sign in (1, -1):
            scale = half + int(rng.integers(-20, 21))
            a = math.ldexp(1 + sign * k * 2.0 ** -23, scale)
            b = math.ldexp(t, -scale) * (1 - sign * k * 2.0 ** -23)
            if _f32(a) == a and _f32(b) == b and a != 0 and b != 0:
                out += [(a, b, c), (-a, -b, c), (a, -b, -c), (-a, b, -c)]
    return out


def _midpoint_triples(rng, count: int) -> list:
    """Ties in every range: c random, t half of c's float32 spacing (so c + t is a midpoint)."""
    triples = []
    exponents = [-149, -140, -127, -126, -125, -100, -30, -1, 0, 1, 20, 100, 126, 127]
    for _ in range(count):
        e = int(rng.choice(exponents))
        frac = int(rng.integers(0, 1 << 23))
        c = _f32(math.ldexp((1 << 23) + frac, e - 23)) if e > -127 else \
            _f32(math.ldexp(frac, -149))
        if not math.isfinite(c):
            continue
        spacing = math.ldexp(1.0, max(math.frexp(c)[1] - 24, -149)) if c else 2.0 ** -149
        for t in (spacing / 2, -spacing / 2, spacing * 1.5):
            triples += _near_ties(c * (1 if rng.integers(2) else -1), t, rng)
    # the top: half-way between the largest float32 and 2**128, and just below it
    for c in (F32_MAX, -F32_MAX, _f32(F32_MAX * (1 - 2.0 ** -20))):
        triples += _near_ties(c, math.copysign(2.0 ** 103, c), rng)
    # 2**-126 and the subnormals: a sum just under or over the smallest normal
    for c in (2.0 ** -126, -(2.0 ** -126), 2.0 ** -126 - 2.0 ** -149, 2.0 ** -149):
        for t in (2.0 ** -150, -(2.0 ** -150), 3 * 2.0 ** -150):
            triples += _near_ties(c, t, rng)
    return triples


_SPECIAL = [0.0, -0.0, 1.0, -1.0, 1.5, -3.0, math.inf, -math.inf, math.nan, F32_MAX, -F32_MAX,
            2.0 ** -149, -(2.0 ** -149), 2.0 ** -126, 2.0 ** -75, 2.0 ** 64]


def _special_triples() -> list:
    return [(a, b, c) for a in _SPECIAL for b in _SPECIAL for c in _SPECIAL]


def _random_triples(rng, count: int) -> list:
    """Random bit patterns (NaN, infinities and subnormals included), cancellations a * b - c
    with c the product rounded (the result is the product's rounding error: tiny or zero), and
    products among the subnormals."""
    bits = rng.integers(0, 2 ** 32, size=(count, 3), dtype=np.uint64).astype(np.uint32)
    triples = [tuple(map(float, row)) for row in bits.view(np.float32)]
    for _ in range(count):
        a, b = (_f32(math.ldexp(rng.uniform(1, 2), int(rng.integers(-80, 80)))) for _ in "ab")
        triples.append((a, b, -_f32(a * b)))
        triples.append((a, -b, _f32(a * b) * (1 + 2.0 ** -23)))
        tiny_a = _f32(math.ldexp(rng.uniform(1, 2), int(rng.integers(-90, -60))))
        tiny_c = _f32(math.ldexp(rng.uniform(-1, 1), -126))
        triples.append((tiny_a, tiny_a, tiny_c))
    return triples


def _columns(triples) -> tuple:
    return tuple(np.array([t[i] for t in triples], dtype=np.float32) for i in range(3))


def _check(got, triples, where=""):
    got = got.reshape(-1).tolist()
    bad = [(t, g, w) for t, g, w in zip(triples, got, (exact_fma32(*t) for t in triples))
           if not _same(g, w)]
    assert not bad, f"{where}{len(bad)} of {len(triples)} wrong, e.g. {bad[:3]}"


RNG_SEED = 20261124


def test_reference_rounds_as_documented():
    """The reference itself, on cases worked by hand."""
    assert exact_fma32(1.0, 2.0 ** -24, 1.0) == 1.0  # a tie: to even
    assert exact_fma32(1.0, 3 * 2.0 ** -24, 1.0) == 1.0 + 2.0 ** -22  # a tie: to even (up)
    assert exact_fma32(1.0 + 2.0 ** -23, 2.0 ** -24 * (1 - 2.0 ** -23), 1.0) == 1.0
    assert exact_fma32(1.0 + 2.0 ** -23, 2.0 ** -24, 1.0) == 1.0 + 2.0 ** -23  # just past it
    assert exact_fma32(2.0 ** -75, 2.0 ** -75, 0.0) == 0.0  # 2**-150: a tie with zero, to even
    assert exact_fma32(1.5 * 2.0 ** -75, 2.0 ** -75, 0.0) == 2.0 ** -149
    assert exact_fma32(1.0, 2.0 ** 103, F32_MAX) == math.inf
    assert exact_fma32(1.0, 2.0 ** 103 * (1 - 2.0 ** -23), F32_MAX) == F32_MAX
    assert math.copysign(1, exact_fma32(-0.0, 1.0, -0.0)) < 0
    assert math.copysign(1, exact_fma32(3.0, 2.0, -6.0)) > 0
    assert math.copysign(1, exact_fma32(-(2.0 ** -100), 2.0 ** -100, 0.0)) < 0  # underflow
    assert math.isnan(exact_fma32(math.inf, 0.0, 1.0))


def test_inputs_can_fail():
    """Rounding the float64 sum without settling it (what a careless shortcut would do) gets a
    good share of these inputs wrong, so the tests below can fail."""
    rng = np.random.default_rng(RNG_SEED)
    triples = _midpoint_triples(rng, 40)
    a, b, c = _columns(triples)
    naive = (a.astype(np.float64) * b + c).astype(np.float32)
    wrong = sum(not _same(g, exact_fma32(*t)) for g, t in zip(naive.tolist(), triples))
    assert wrong >= len(triples) // 5


@pytest.mark.parametrize("kind", ["midpoints", "special", "random"])
def test_numpy_fma_is_exact(kind):
    rng = np.random.default_rng(RNG_SEED)
    triples = {"midpoints": lambda: _midpoint_triples(rng, 150),
               "special": _special_triples,
               "random": lambda: _random_triples(rng, 1500)}[kind]()
    a, b, c = _columns(triples)
    _check(N.fma(a, b, c), triples)
    # the same values one at a time: 0-dim and 1-element operands
    for t in triples[:: max(1, len(triples) // 200)]:
        x, y, z = (np.array(v, np.float32) for v in t)
        _check(N.fma(x, y, z), [t], "0-dim: ")
        _check(N.fma(x.reshape(1), y.reshape(1, 1), z), [t], "1-element: ")


def test_pure_fma_is_exact():
    rng = np.random.default_rng(RNG_SEED + 1)
    triples = _midpoint_triples(rng, 30) + _special_triples()[::7] + _random_triples(rng, 100)
    cols = [P.array([t[i] for t in triples], "float32") for i in range(3)]
    _check(np.array(P.tolist(P.fma(*cols)), np.float32), triples)


@pytest.mark.parametrize("n", [N._FMA_SMALL, N._FMA_SMALL + 1, N._FMA_CHUNK - 1,
                               N._FMA_CHUNK + 1, 2 * N._FMA_CHUNK + 1])
def test_numpy_fma_is_exact_across_chunks(n):
    """Hard triples tiled over an array long enough to be done in several chunks (and one just
    under or over the size done whole), shifted so that they fall on chunk boundaries."""
    rng = np.random.default_rng(RNG_SEED + n)
    triples = _midpoint_triples(rng, 40) + _special_triples()[::37]
    want = np.array([exact_fma32(*t) for t in triples], np.float32)
    shift = int(rng.integers(len(triples)))
    index = (np.arange(n) + shift) % len(triples)
    a, b, c = (col[index] for col in _columns(triples))
    got = N.fma(a, b, c)
    _assert_tiled(got, want[index], "three arrays")
    # one-value operands, as in an optimizer step: one triple's a (or b, or c) shared by all
    for k, t in enumerate(triples[:: max(1, len(triples) // 9)]):
        one = k % 3
        cols = [v if i != one else np.array(t[i], np.float32) for i, v in enumerate((a, b, c))]
        subs = [tuple(t[i] if i == one else u[i] for i in range(3)) for u in triples]
        want_one = np.array([exact_fma32(*u) for u in subs], np.float32)
        _assert_tiled(N.fma(*cols), want_one[index], f"operand {one} one value {t}")


def _bits(x):
    return np.where(np.isnan(x), np.float32(np.nan), x).view(np.uint32)


def _assert_tiled(got, want, what):
    bad = np.nonzero(_bits(got) != _bits(want))[0]
    assert not len(bad), f"{what}: {len(bad)} wrong, first at {bad[:5]}"


@pytest.mark.parametrize("pattern", [
    ((5, 7), (), (5, 7)), ((5, 7), (5, 7), ()), ((), (5, 7), (5, 7)), ((), (), (5, 7)),
    ((5, 1), (1, 7), (5, 7)), ((7,), (5, 1), (1,)), ((1, 1, 7), (5, 7), (1,)),
    ((1,), (), ()), ((), (), ()), ((3, 1, 2), (4, 1), (1, 4, 2)), ((0, 3), (), (3,)),
    ((N._FMA_SMALL + 4,), (), (N._FMA_SMALL + 4,)), ((100, 90), (90,), ()),
    ((2, 70, 60), (1, 60), (70, 1)),
])
def test_numpy_fma_broadcasts(pattern):
    """Every operand of every shape pattern holds hard values; each element is checked."""
    rng = np.random.default_rng(RNG_SEED + len(str(pattern)))
    pool = _midpoint_triples(rng, 30) + _special_triples()[::11]
    shape = np.broadcast_shapes(*pattern)
    pick = rng.integers(len(pool), size=shape)
    cols = _columns(pool)
    full = [col[pick] for col in cols]
    ops = []
    for i, s in enumerate(pattern):  # the operand's own values: a corner of the full grid
        if not full[i].size:  # (an empty result: any operand values)
            ops.append(np.ones(s, np.float32))
            continue
        index = tuple(slice(0, 1) if d == 1 else slice(None) for d in s)
        lead = len(shape) - len(s)
        ops.append(np.array(full[i][(0,) * lead + index] if s else
                            full[i].reshape(-1)[:1].reshape(()), order="C"))
    got = N.fma(*ops)
    assert got.shape == shape and got.dtype == np.float32
    ref = [tuple(float(v) for v in t) for t in
           zip(*(np.broadcast_to(o, shape).reshape(-1).tolist() for o in ops))]
    _check(got, ref, f"{pattern}: ")


@pytest.mark.parametrize("size", [40, 5000])
def test_numpy_fma_takes_strided_operands(size):
    """Transposed, stepped and reversed views (numpy lays out a small result in their order:
    the elements settled must land in it all the same)."""
    rng = np.random.default_rng(RNG_SEED + size)
    pool = _midpoint_triples(rng, 40)
    pick = rng.integers(len(pool), size=(2 * size, 6))
    cols = [col[pick] for col in _columns(pool)]
    views = [cols[0][::2].T, cols[1][1::2].T[:, ::-1], np.asfortranarray(cols[2][::2]).T]
    got = N.fma(*views)
    ref = list(zip(*(np.ascontiguousarray(v).reshape(-1).tolist() for v in views)))
    _check(got, ref)


def test_numpy_fma_from_many_threads():
    """Each thread has its own float64 buffer: concurrent calls do not mix their work."""
    from concurrent.futures import ThreadPoolExecutor
    rng = np.random.default_rng(RNG_SEED)
    triples = _midpoint_triples(rng, 30)
    want = np.array([exact_fma32(*t) for t in triples], np.float32)
    index = np.arange(150000) % len(triples)
    cols = [col[index] for col in _columns(triples)]

    def run(k):
        order = np.roll(np.arange(len(index)), k * 977)
        with N.quiet():  # (numpy's error state is per thread: overflow to inf is no error here)
            got = N.fma(*(c[order] for c in cols))
        return bool((_bits(got) == _bits(want[index][order])).all())

    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(run, range(8)))


def test_numpy_fma_is_exact_in_small_pieces():
    """Arrays of 1 to 70 elements (a few elements take other paths than many)."""
    rng = np.random.default_rng(RNG_SEED + 70)
    triples = _midpoint_triples(rng, 60) + _special_triples()[::5]
    a, b, c = _columns(triples)
    i = 0
    for n in list(range(1, 71)) * 3:
        if i + n > len(triples):
            i = 0
        _check(N.fma(a[i:i + n], b[i:i + n], c[i:i + n]), triples[i:i + n], f"size {n}: ")
        i += n
