"""Array backend on numpy: the only module of the engine that calls numpy.

Every function takes and returns backend arrays (here: numpy.ndarray); dtypes are passed as
names ("float32", "float64", "int64", "bool"). The pure-Python backend implements the same
functions with the same meaning, so the engine never needs to know which one it runs on.
"""

from __future__ import annotations

import math as _math
import sys as _sys
import threading as _threading

import numpy as np

from . import sum_order as _order

NAME = "numpy"

# torch never warns on 0/0, log(0) or overflow: it returns nan/inf quietly. numpy would emit
# RuntimeWarnings, which must not leak to users, so the engine's numpy runs silently.
np.seterr(all="ignore")

_NP = {"float32": np.float32, "float64": np.float64, "int64": np.int64, "bool": np.bool_}
_NAME = {np.dtype(v): k for k, v in _NP.items()}

ndarray = np.ndarray


def quiet():
    """Context manager silencing floating-point warnings (for threads that did not import us)."""
    return np.errstate(all="ignore")


# -- creation and conversion ------------------------------------------------------------------

def array(data, dtype: str):
    return np.array(data, dtype=_NP[dtype])


def is_array(x) -> bool:
    return isinstance(x, np.ndarray)


def from_numpy_like(x):
    """Accept an object exposing __array__ (a numpy array): returns (array, dtype name)."""
    a = np.asarray(x)
    if a.dtype == np.float16:
        a = a.astype(np.float32)
    elif a.dtype.kind == "f" and a.dtype != np.float32:
        a = a.astype(np.float64)
    elif a.dtype.kind in "iu":
        a = a.astype(np.int64)
    return a, _NAME[a.dtype]


def scalar(value, dtype: str):
    return np.array(value, dtype=_NP[dtype])


def zeros(shape, dtype: str):
    return np.zeros(shape, dtype=_NP[dtype])


def ones(shape, dtype: str):
    return np.ones(shape, dtype=_NP[dtype])


def full(shape, value, dtype: str):
    return np.full(shape, value, dtype=_NP[dtype])


def arange(start, end, step, dtype: str):
    return np.arange(start, end, step, dtype=np.float64 if dtype != "int64" else np.int64).astype(
        _NP[dtype]
    )


def linspace(start, end, steps: int, dtype: str):
    """torch's CPU kernel: the first steps // 2 points are start + step * i, the others
    end - step * (steps - 1 - i), each rounded once (torch's build fuses the multiply and the
    add), in the output's float type; int64 computes in float64 from the truncated bounds and
    truncates. The fused multiply-add is computed exactly with error-free transformations."""
    if steps == 0:
        return np.zeros(0, dtype=_NP[dtype])
    ftype = np.float32 if dtype == "float32" else np.float64
    if dtype in ("int64", "bool"):
        start, end = float(int(start)), float(int(end))
    s, e = ftype(start), ftype(end)
    if steps == 1:
        return np.array([s], dtype=_NP[dtype])
    with np.errstate(all="ignore"):
        step = ftype(ftype(e - s) / ftype(steps - 1))
        i = np.arange(steps)
        low = i < steps // 2
        base = np.where(low, np.float64(s), np.float64(e))
        prod = np.where(low, i, i - (steps - 1)).astype(np.float64)  # minus for the upper half
        if ftype is np.float32:
            out = _fma_to_float32(np.float64(step), prod, base)
        else:
            out = _fma_float64(np.float64(step), prod, base)
        # inf and nan bounds: the transformations above would make nan of inf - inf
        naive = (base + np.float64(step) * prod).astype(ftype)
        out = np.where(np.isfinite(naive), out, naive)
    if dtype in ("int64", "bool"):
        return np.trunc(out).astype(_NP[dtype])
    return out


def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _fma_to_float32(a, b, c):
    """float32(a * b + c) rounded once, for a float32 `a` and a `b` that make a * b exact in
    float64 (float32 values, or integers below 2**29): round the float64 sum, then settle
    float32 ties with its exact error. A sum half-way between the largest float32 and 2**128
    (where float32 rounds to infinity) is settled the same way, with infinity as the upper
    neighbour."""
    total, err = _two_sum(a * b, c)
    r = total.astype(np.float32)
    d = total - _beyond_max(r)
    toward = np.nextafter(r, np.where(d > 0, np.float32(np.inf), np.float32(-np.inf)))
    tie = (d != 0) & (2 * total == _beyond_max(r) + _beyond_max(toward)) & (err != 0)
    return np.where(tie & (np.sign(err) == np.sign(d)), toward, r)


def _beyond_max(r):
    """float32 values as float64, with infinity as 2**128: the float32 grid's next step."""
    r = r.astype(np.float64)
    return np.where(np.isinf(r), np.copysign(2.0 ** 128, r), r)


_DEKKER_SAFE_LOW = 2.0 ** -900  # above the subnormals by more than the product's 106 bits
_DEKKER_SAFE_HIGH = 2.0 ** 995  # Veltkamp's split multiplies by 2**27 + 1


def _fma_float64(a, b, c):
    """a * b + c rounded once (float64), with Dekker's exact product; the rare sums that come
    within a few ulps of a rounding tie are settled with exact fractions."""
    p = a * b
    big = 134217729.0  # 2**27 + 1, Veltkamp's splitter
    ah = a * big - (a * big - a)
    bh = b * big - (b * big - b)
    al, bl = a - ah, b - bh
    pe = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s, t = _two_sum(p, c)
    u, v = _two_sum(t, pe)
    r, q = _two_sum(s, u)
    zero = r == 0
    if zero.any():  # an exact product (pe 0) plus c: IEEE's p + c has the zero's sign
        r = np.where(zero & (pe == 0), p + c, r)
    half = np.minimum(np.abs(np.nextafter(r, np.inf) - r), np.abs(r - np.nextafter(r, -np.inf))) / 2
    near = (np.abs(np.abs(q) - half) <= 8 * np.spacing(half)) & np.isfinite(r) & (v != 0)
    # Dekker's product is exact only while its partial products neither underflow nor
    # overflow: a product near the subnormals (or flushed to zero) or a huge factor is done
    # exactly instead
    tiny = (np.abs(p) < _DEKKER_SAFE_LOW) & (a != 0) & (b != 0)
    huge = (np.abs(a) > _DEKKER_SAFE_HIGH) | (np.abs(b) > _DEKKER_SAFE_HIGH)
    near |= (tiny | huge) & np.isfinite(a) & np.isfinite(b) & np.isfinite(c)
    if near.any():
        from fractions import Fraction  # rarely needed: kept out of the import (its memory)
    for k in np.nonzero(near)[0]:
        ak = a[k] if np.ndim(a) else a
        exact = Fraction(float(ak)) * Fraction(float(b[k])) + Fraction(float(c[k]))
        try:
            r[k] = float(exact) if exact else r[k]  # an exact zero keeps the sign r has
        except OverflowError:  # beyond the largest float64: rounds to infinity
            r[k] = _math.copysign(_math.inf, exact)
    return r


# float32 fused multiply-add. The product of two float32 values is exact in float64 and the
# float64 sum rounds once; rounding that to float32 is the one rounding torch's kernel makes,
# unless the float64 sum landed exactly on a float32 rounding midpoint (its low 29 mantissa
# bits 1000...0) or among float32's subnormals (below 2**-126), whose midpoints lie elsewhere.
# Those few elements are settled with the sum's exact error. (Written for speed: every
# optimizer step of every parameter comes here; bench/bench_fma.py measures it.) Big operands
# go in chunks through one float64 buffer kept per thread, which costs no page faults
# (whole-array float64 temporaries of a weight made glibc map fresh pages on every call, and
# a page fault per 4 KiB cost more than the arithmetic); every numpy call there writes in
# place, about half the cost of writing to another buffer. Small operands go whole, in the
# fewest numpy calls, as numpy's per-call cost is most of their time.
_FMA_CHUNK = 131072  # elements per pass at most (the float64 buffer is 1 MiB)
_FMA_SMALL = 8192  # operands up to this size go whole, in fewer numpy calls (float64
# temporaries of 64 KiB: glibc takes them from its heap, not fresh pages as from 128 KiB up)
_MIDPOINT_SHIFTED = -2 ** 63  # a midpoint's bits << 35: 1 and 63 zeros, the least int64
_SHIFT = np.array(35)  # (a 0-dim array: numpy converts a Python int on every call)
_TINY32 = 0x00800000  # 2**-126's float32 bits
_NEG_TINY32 = -2 ** 31 + _TINY32  # -2**-126's float32 bits read as an int32
_scratch = _threading.local()  # per thread: the float64 buffer of _fma32 and its int64 view


def _in_doubt(s, bits, out):
    """The elements whose float64 sum in s may round wrong (flat indices in C order), or None.
    bits: s read as int64 (overwritten); out: s rounded to float32. A midpoint is the one sum
    whose bits shifted left by 35 are the least int64. A sum below 2**-126 rounds to at most
    2**-126, so results above it in magnitude everywhere need no closer look: read as int32,
    negative float32 values of magnitude up to 2**-126 are the least ones, and read as uint32
    so are the positive ones. The common case costs one shift and three argmins (argmin and
    item: numpy's min goes through its generic reduction, several times slower on small
    arrays); the elements are found only when some are there."""
    tiny = None
    signed, unsigned = out.view(np.int32), out.view(np.uint32)
    if signed.item(signed.argmin()) <= _NEG_TINY32 or \
            unsigned.item(unsigned.argmin()) <= _TINY32:
        size = np.abs(s)  # (exact zeros, of zero weights and gradients say, are right as they are)
        tiny = np.flatnonzero((size < 2.0 ** -126) & (size != 0))
    np.left_shift(bits, _SHIFT, bits)
    if bits.item(bits.argmin()) == _MIDPOINT_SHIFTED:
        midpoints = np.flatnonzero(bits == _MIDPOINT_SHIFTED)
        return midpoints if tiny is None else np.concatenate((midpoints, tiny))
    return tiny if tiny is not None and len(tiny) else None


_FEW = 32  # up to this many sums, _few_in_doubt answers first (at 64 it costs as numpy's calls)
_LANES = {}  # n: the masks of _few_in_doubt, each repeated over n 64-bit lanes


def _few_in_doubt(s) -> bool:
    """Whether some of a few float64 sums may round wrong (as _in_doubt, zero sums included),
    on one Python integer holding all their bits: for a few elements numpy's per-call cost is
    most of the work. Per 64-bit lane: the low 29 bits xor a midpoint's are zero only at a
    midpoint, and adding 2**29 - 1 carries into bit 29 unless they are; the exponent field plus
    2048 - 897 carries into bit 63 unless the sum is below 2**-126 (or zero). No carry crosses
    into the next lane."""
    masks = _LANES.get(s.size)
    if masks is None:
        masks = _LANES[s.size] = tuple(
            int.from_bytes(np.full(s.size, v, np.uint64).tobytes(), _sys.byteorder)
            for v in (0x1FFFFFFF, 0x10000000, 0x20000000, 0x7FF << 52, 1151 << 52, 1 << 63))
    low, midpoint, bit29, exponent, lift, bit63 = masks
    x = int.from_bytes(s.tobytes(), _sys.byteorder)
    return (((x & low) ^ midpoint) + low) & bit29 != bit29 or \
        ((x & exponent) + lift) & bit63 != bit63


def _settle32(a, b, c, out, k) -> None:
    """Redo exactly the elements k of out (1-d, float32). a, b, c: 1-d float32 arrays like out,
    or one value (a float)."""
    n = len(out)
    x, y, z = (np.broadcast_to(v, (n,))[k].astype(np.float64) for v in (a, b, c))
    with np.errstate(all="ignore"):
        out[k] = _fma_to_float32(x, y, z)


def _fma32_part(x, y, z, s, bits, out) -> None:
    """out = x * y + z rounded once, for 1-d float32 arrays like out or floats (one value; x is
    an array unless y is a float too). s, bits: a float64 buffer like out and its int64 view."""
    if type(x) is float:  # both factors are one value: their exact product
        s.fill(x * y)
    else:
        np.copyto(s, x)
        np.multiply(s, y, s)
    np.add(s, z, s)
    np.copyto(out, s, casting="unsafe")
    k = _in_doubt(s, bits, out)
    if k is not None:
        _settle32(x, y, z, out, k)


def _fma32_small(a, b, c):
    """_fma32 of small operands, whole: the fewest numpy calls (numpy broadcasts them)."""
    s = np.multiply(a, b, dtype=np.float64)
    if type(s) is ndarray and (c.shape == s.shape or c.size == 1 and c.ndim <= s.ndim):
        np.add(s, c, s)
    else:  # c widens the shape (or all three are 0-dim: numpy gave a scalar)
        s = np.asarray(np.add(s, c, dtype=np.float64))
    out = s.astype(np.float32)  # in the layout numpy gave s (the operands': F for transposes)
    n = out.size
    if not n or n <= _FEW and not _few_in_doubt(s):
        return out
    k = _in_doubt(s, s.view(np.int64), out)
    if k is not None:
        shape = out.shape
        flat = out.reshape(-1)  # a copy unless out is in C order: written back below
        _settle32(*(np.broadcast_to(v, shape).reshape(-1) for v in (a, b, c)), flat, k)
        np.copyto(out, flat.reshape(shape))
    return out


def _fma32_shape(a, b, c) -> tuple:
    """The shape a, b and c broadcast to (np.broadcast_shapes costs more than the rest of a
    small fma: the usual case, arrays of one shape and one-value operands, is told apart here)."""
    shape = None
    for v in (a, b, c):
        if v.size != 1:
            if shape is None:
                shape = v.shape
            elif v.shape != shape:
                return np.broadcast_shapes(a.shape, b.shape, c.shape)
    if shape is not None and max(a.ndim, b.ndim, c.ndim) == len(shape):
        return shape
    return np.broadcast_shapes(a.shape, b.shape, c.shape)


def _fma32(a, b, c):
    """float32 a * b + c rounded once (a, b, c float32 arrays that broadcast together)."""
    if max(a.size, b.size, c.size) <= _FMA_SMALL:
        return _fma32_small(a, b, c)
    shape = a.shape
    if b.shape != shape or c.shape != shape:
        shape = _fma32_shape(a, b, c)
    out = np.empty(shape, np.float32)
    n = out.size
    if not n:  # (a zero-length dimension broadcast with big operands)
        return out
    # 1-d operands of n elements, or one value as a float (exact: a float32 value)
    x, y, z = (v.item() if v.size == 1 else v.reshape(-1) if v.shape == shape
               else np.broadcast_to(v, shape).reshape(-1) for v in (a, b, c))
    if type(x) is float:  # the array factor (if any) first
        x, y = y, x
    flat = out.reshape(-1)
    buffers = getattr(_scratch, "fma", None)
    if buffers is None:
        s = np.empty(_FMA_CHUNK)
        buffers = _scratch.fma = (s, s.view(np.int64))
    s, bits = buffers
    step = -(-n // -(-n // _FMA_CHUNK))  # chunks of one size: no short last one
    for i in range(0, n, step):
        j = min(i + step, n)
        _fma32_part(*(v if type(v) is float else v[i:j] for v in (x, y, z)),
                    s[:j - i], bits[:j - i], flat[i:j])
    return out


def fma(a, b, c):
    """a * b + c rounded once (float32 above; float64 with Dekker's exact product)."""
    if a.dtype == np.float32:
        return _fma32(a, b, c)
    with np.errstate(all="ignore"):
        shape = np.broadcast_shapes(np.shape(a), np.shape(b), np.shape(c))
        x, y, z = (np.broadcast_to(v, shape).ravel() for v in (a, b, c))
        naive = x * y + z
        out = _fma_float64(x, y, z)
        out = np.where(np.isfinite(out), out, naive)  # inf and nan (and the rare overflow)
    return out.reshape(shape)


def eye(n: int, m: int, dtype: str):
    return np.eye(n, m, dtype=_NP[dtype])


def astype(a, dtype: str):
    return a.astype(_NP[dtype])


def copy(a):
    return a.copy()


def contiguous(a):
    return np.ascontiguousarray(a)


def dtype_name(a) -> str:
    return _NAME[a.dtype]


def shape(a) -> tuple:
    return a.shape


def ndim(a) -> int:
    return a.ndim


def numel(a) -> int:
    return a.size


def tolist(a):
    return a.tolist()


def item(a):
    return a.item()


def to_numpy(a):
    return a


def is_contiguous(a) -> bool:
    return a.flags.c_contiguous


def strides(a) -> tuple:
    return tuple(st // a.itemsize for st in a.strides)


def offset(a) -> int:
    root = a
    while isinstance(root.base, ndarray):
        root = root.base
    return (a.__array_interface__["data"][0] - root.__array_interface__["data"][0]) // a.itemsize


def assign(dst, src) -> None:
    """Write src (broadcast, cast as by np.copyto's "unsafe") into dst's memory: every view of
    dst sees the change. (An item assignment: a third of np.copyto's cost on small arrays.)"""
    dst[...] = src


# -- element-wise ------------------------------------------------------------------------------
# numpy returns scalars, not 0-d arrays, for 0-d results; tensors need real arrays (in-place
# writes and views must work on them), so every op that can produce one goes through _arr.

def _arr(fn):
    def op(*args):
        r = fn(*args)
        return r if type(r) is ndarray else np.asarray(r)

    op.__name__ = getattr(fn, "__name__", "op")
    return op


def _arrays_always() -> bool:
    """Whether this numpy's ufuncs take `out=...`: an array result even for 0-d operands
    (numpy 2.3 and later), at the cost of a plain call, where turning a scalar result back
    into an array costs a third of the call again."""
    try:
        return type(np.negative(np.zeros(()), out=...)) is ndarray
    except TypeError:
        return False


if _arrays_always():
    def _arr1(ufunc):
        """_arr for a one-argument ufunc (fixed arity: no argument tuple on the hot path)."""
        def op(a):
            return ufunc(a, out=...)

        op.__name__ = ufunc.__name__
        return op

    def _arr2(ufunc):
        def op(a, b):
            return ufunc(a, b, out=...)

        op.__name__ = ufunc.__name__
        return op
else:
    def _arr1(ufunc):
        """_arr for a one-argument ufunc (fixed arity: no argument tuple on the hot path)."""
        def op(a):
            r = ufunc(a)
            return r if type(r) is ndarray else np.asarray(r)

        op.__name__ = ufunc.__name__
        return op

    def _arr2(ufunc):
        def op(a, b):
            r = ufunc(a, b)
            return r if type(r) is ndarray else np.asarray(r)

        op.__name__ = ufunc.__name__
        return op


add = _arr2(np.add)
sub = _arr2(np.subtract)
mul = _arr2(np.multiply)
div = _arr2(np.true_divide)
neg = _arr1(np.negative)
exp = _arr1(np.exp)
log = _arr1(np.log)
sqrt = _arr1(np.sqrt)
abs = _arr1(np.abs)  # noqa: A001 - mirrors the backend interface name
sin = _arr1(np.sin)
cos = _arr1(np.cos)
sinh = _arr1(np.sinh)
cosh = _arr1(np.cosh)
tanh = _arr1(np.tanh)
log1p = _arr1(np.log1p)
expm1 = _arr1(np.expm1)


def _rounding(ufunc):
    """numpy 2 keeps integers integral under floor/ceil/trunc; the contract computes them in
    float64, as every other float function of an integer array."""
    def op(a):
        if a.dtype.kind not in "fc":
            a = a.astype(np.float64)
        r = ufunc(a)
        return r if type(r) is ndarray else np.asarray(r)

    op.__name__ = ufunc.__name__
    return op


floor = _rounding(np.floor)
ceil = _rounding(np.ceil)
rint = _rounding(np.rint)
trunc = _rounding(np.trunc)
tan = _arr1(np.tan)
arcsin = _arr1(np.arcsin)
arccos = _arr1(np.arccos)
arctan = _arr1(np.arctan)
log2 = _arr1(np.log2)
log10 = _arr1(np.log10)
sign = _arr1(np.sign)
maximum = _arr2(np.maximum)
minimum = _arr2(np.minimum)
eq = _arr2(np.equal)
ne = _arr2(np.not_equal)
lt = _arr2(np.less)
le = _arr2(np.less_equal)
gt = _arr2(np.greater)
ge = _arr2(np.greater_equal)
logical_not = _arr1(np.logical_not)
isnan = _arr1(np.isnan)


fmod = _arr2(np.fmod)
floor_divide = _arr2(np.floor_divide)


@_arr
def remainder(a, b):
    # not np.remainder: that gives a zero the sign of b, torch keeps fmod's (-4 % 2 is -0.)
    m = np.fmod(a, b)
    if m.dtype.kind != "f":
        return np.remainder(a, b)
    return np.where((m != 0) & ((b < 0) != (m < 0)), m + b, m)


@_arr
def pow(a, b):  # noqa: A001
    return np.power(a, b)


_erf_ufunc = np.frompyfunc(_math.erf, 1, 1)


@_arr
def erf(a):
    # numpy has no erf; _math.erf per element, in float64, rounded once to a's float dtype
    dt = a.dtype if a.dtype.kind == "f" else np.dtype(np.float64)
    return np.asarray(_erf_ufunc(a.astype(np.float64)), dtype=np.float64).astype(dt)


@_arr
def arctan2(a, b):
    # integers and bools compute in float64 (numpy would pick float16 for two bools)
    if a.dtype.kind not in "fc" and b.dtype.kind not in "fc":
        a = a.astype(np.float64)
    return np.arctan2(a, b)


@_arr
def sigmoid(a):
    # 1 / (1 + exp(-a)) overflows harmlessly to 0 for very negative a; computed in a's dtype
    one = a.dtype.type(1)
    return one / (one + np.exp(-a))


@_arr
def where(cond, a, b):
    return np.where(cond, a, b)


@_arr
def clip(a, lo, hi):
    out = a
    if lo is not None:
        out = np.maximum(out, lo)
    if hi is not None:
        out = np.minimum(out, hi)
    return out if out is not a else a.copy()


# -- reductions --------------------------------------------------------------------------------
# (the array methods: the same reductions as np.sum/np.amax, without their Python wrappers)

@_arr
def sum(a, dims, keepdim: bool):  # noqa: A001
    if a.dtype.kind == "f":
        return _torch_order_sum(a, dims, keepdim)
    return a.sum(axis=dims, keepdims=keepdim)  # integers: exact in any order


@_arr
def mean(a, dims, keepdim: bool):
    # the sum divided by the count, as torch does on the CPU (so in its order of additions);
    # the mean of nothing is a quiet nan, as in torch
    count = a.size if dims is None else int(np.prod([a.shape[d] for d in dims]))
    return np.true_divide(sum(a, dims, keepdim), count)


# torch's order of additions (engine/backend/sum_order.py describes it; this is its numpy
# arithmetic). Arrays here are (values, lanes): every column is added up on its own, the way
# torch adds its vector lanes and independent runs side by side. Sequential additions: np.sum /
# np.add.reduce adds pairwise along the fast axis in memory, but along any other axis it adds
# each row to the result in turn (numpy.sum's documented behaviour), so a C-contiguous array
# with two or more lanes is reduced down its rows one by one; a single lane goes through
# np.add.accumulate, whose running total is left to right by definition.

def _seq(x):
    """The rows of x (values, lanes) added one by one, top to bottom (x has a row)."""
    n = len(x)
    if n > 4:
        if x.shape[1] > 1 and x.flags.c_contiguous:
            return np.add.reduce(x, 0)
        return np.add.accumulate(x, 0)[-1]
    acc = x[0]
    for i in range(1, n):
        acc = acc + x[i]
    return acc


def _cascade(x):
    """torch's multi_row_sum of x (values, lanes): each lane a 4-level cascade."""
    n, width = x.shape
    step = _order.level_step(n)
    if n < step:
        return _seq(x)
    total = None
    for _ in range(3):
        full = len(x) // step * step
        if full < len(x):  # the unfinished chunk of this level
            rest = _seq(x[full:])
            total = rest if total is None else total + rest
        if not full:
            return total
        chunks = x[:full].reshape(full // step, step, width)
        if width > 1 and chunks.flags.c_contiguous:
            x = np.add.reduce(chunks, 1)
        else:
            x = np.add.accumulate(chunks, 1)[:, -1]
    top = _seq(x)
    return top if total is None else total + top


def _ilp(x):
    """torch's row_sum of x (values, lanes): rows of 4 in 4 cascades, then the first
    cascade, the leftover rows and the other three cascades, one by one."""
    n, width = x.shape
    q = n // _order.ILP
    if not q:
        return _seq(x)
    parts = _cascade(x[:4 * q].reshape(q, 4 * width)).reshape(4, width)
    if 4 * q < n:
        parts = np.concatenate((parts[:1], x[4 * q:], parts[1:]))
    return _seq(parts)


def _run_totals(x, method: str, width: int):
    """The total of every column of x (values, runs) by one of torch's three methods."""
    if method == _order.VEC:
        n, runs = x.shape
        nv = n // width
        lanes = _ilp(x[:nv * width].reshape(nv, width * runs)).reshape(width, runs)
        if nv * width < n:  # the leftover values first, then the lanes
            lanes = np.concatenate((x[nv * width:], lanes))
        return _seq(lanes)
    if method == _order.CASC:
        return _cascade(x)
    return _ilp(x)


def _short_run(v, n, width):
    """_run_totals(v, VEC) of one contiguous run too short for the cascade to have a second
    chunk (under 16 rows of 4 vectors), with fewer numpy calls: the common small sum."""
    nv = n // width
    q = nv // 4
    if q:
        rows = v[:4 * width * q].reshape(q, 4 * width)
        p = rows[0]
        for i in range(1, q):
            p = p + rows[i]
        acc = p[:width]
    else:
        acc = v[:width]
    for i in range(4 * q + (0 if q else 1), nv):  # the vectors left over
        acc = acc + v[i * width:(i + 1) * width]
    if q:
        acc = acc + p[width:2 * width] + p[2 * width:3 * width] + p[3 * width:]
    if nv * width < n:  # the values left over, then the lanes
        acc = np.concatenate((v[nv * width:], acc))
    return np.add.accumulate(acc)[-1:]


def _torch_order_sum(a, dims, keepdim):
    dt = a.dtype
    width = 8 if dt == np.float32 else 4
    n = a.size
    nd = a.ndim
    if dims is None:
        shape = (1,) * nd if keepdim else ()
    else:  # a sum to one value (every dim kept is of size 1) adds the same way as a full one
        red = {d % nd for d in ((dims,) if type(dims) is int else dims)} if nd else set()
        shape = None
        if all(a.shape[d] == 1 for d in range(nd) if d not in red):
            shape = (1,) * nd if keepdim else (1,) * (nd - len(red))
    if shape is not None and 0 < n < _order.GRAIN and a.flags.c_contiguous:
        # the common case: a contiguous tensor summed to one value, one run in memory order
        if width <= n < 64 * width:
            out = _short_run(a.reshape(n), n, width).reshape(shape)
        else:
            total = _run_totals(a.reshape(n, 1), _order.VEC if n >= width else _order.ILP_METHOD,
                                width)
            out = total.reshape(shape)
    else:
        out = _planned_sum(a, dims, keepdim, width)
    # torch's output starts at 0.0 and gets the total added: -0.0 becomes 0.0 (and the result
    # is never a view of a)
    return np.add(out, 0)


def _planned_sum(a, dims, keepdim, width):
    if a.strides and min(a.strides) < 0:
        a = np.ascontiguousarray(a)  # torch has no negative strides: its copy is contiguous
    p = _order.plan(a.shape, a.strides, a.itemsize, dims, keepdim, width)
    if p.empty:
        return np.zeros(p.out_shape, dtype=a.dtype)
    x = a.transpose(p.perm).reshape(p.sizes)  # the values in torch's iteration order
    if p.identity:
        out = x.reshape(p.kept)
    elif p.pieces is not None:
        flat = x.reshape(-1)
        totals = []
        for calls in p.pieces:
            part = [_run_totals(flat[start:start + size0 * size1].reshape(size1, size0).T[:, j0:j1],
                                method, width)
                    for start, size0, size1, cols in calls for j0, j1, method in cols]
            totals.append(_seq(np.concatenate(part).reshape(-1, 1))[0] if part else
                          a.dtype.type(0))
        buf = np.array(totals, dtype=a.dtype).reshape(-1, 1)
        out = _run_totals(buf, p.pieces_method, width).reshape(p.kept)
    else:
        runs = x.reshape(-1, p.size0).T  # (values, runs)
        if not runs.flags.c_contiguous:
            runs = np.ascontiguousarray(runs)
        if len(p.columns) == 1:
            totals = _run_totals(runs, p.columns[0][2], width)
        else:
            groups = p.outer * p.middle
            runs = runs.reshape(p.size0, groups, p.size1)
            totals = np.empty((groups, p.size1), dtype=a.dtype)
            for j0, j1, method in p.columns:
                totals[:, j0:j1] = _run_totals(runs[:, :, j0:j1].reshape(p.size0, -1), method,
                                               width).reshape(groups, j1 - j0)
        if p.fold:  # the runs of each output one by one
            totals = _seq(totals.reshape(p.outer, p.middle * p.size1).T)
        out = totals.reshape(p.kept)
    return out.transpose(p.out_axes).reshape(p.out_shape)


def _wide(a):
    """a in the dtype its products and running totals are computed in (see the contract)."""
    if a.dtype == np.float32:
        return a.astype(np.float64)
    return a.astype(np.int64) if a.dtype == np.bool_ else a


@_arr
def prod(a, dims, keepdim: bool):
    out = _wide(a).prod(axis=dims, keepdims=keepdim)
    return out.astype(a.dtype) if a.dtype == np.float32 else out


def _scan(fn, a, dim):
    out = fn(_wide(a).reshape(1), axis=0).reshape(()) if a.ndim == 0 else fn(_wide(a), axis=dim)
    return np.asarray(out.astype(a.dtype) if a.dtype == np.float32 else out)


def cumsum(a, dim: int):
    return _scan(np.cumsum, a, dim)


def cumprod(a, dim: int):
    return _scan(np.cumprod, a, dim)


@_arr
def amax(a, dims, keepdim: bool):
    return a.max(axis=dims, keepdims=keepdim)


@_arr
def amin(a, dims, keepdim: bool):
    return a.min(axis=dims, keepdims=keepdim)


@_arr
def argmax(a, dim: int, keepdim: bool):
    """Index of the first maximal element along dim (NaN counts as maximal, as in torch)."""
    return np.argmax(a, axis=dim, keepdims=keepdim).astype(np.int64)


@_arr
def argmin(a, dim: int, keepdim: bool):
    return np.argmin(a, axis=dim, keepdims=keepdim).astype(np.int64)


def _softmax_shift(a, dim: int):
    """The max along dim, or 0 where it is -inf or nan (that row stays as it is); a +inf max is
    subtracted, so the row turns to nan as in torch."""
    m = a.max(axis=dim, keepdims=True)
    return np.where(np.isnan(m) | (m == -np.inf), a.dtype.type(0), m)


def softmax(a, dim: int):
    e = np.exp(a - _softmax_shift(a, dim))
    return e / e.sum(axis=dim, keepdims=True)


def log_softmax(a, dim: int):
    shifted = a - _softmax_shift(a, dim)
    return shifted - np.log(np.exp(shifted).sum(axis=dim, keepdims=True))


# -- linear algebra ----------------------------------------------------------------------------

def svd(a):
    """numpy's LAPACK (gesdd) in float64; float32 input is computed in float64 and rounded."""
    u, s, vh = np.linalg.svd(a.astype(np.float64), full_matrices=False)
    return u.astype(a.dtype), s.astype(a.dtype), vh.astype(a.dtype)


@_arr
def matmul(a, b):
    if a.ndim >= 2 and b.ndim >= 2 and a.shape[-1] == 1:
        # an outer product: BLAS adds the products to +0.0 and loses their sign, torch's mm
        # keeps it (-0.0 shows in reprs), so multiply directly
        return np.multiply(a, b)
    return np.matmul(a, b)


# -- shape and indexing (these return views where numpy can) ----------------------------------

def reshape(a, shape):
    return a.reshape(shape)


def view(a, shape):
    """A view with a new shape, or None when the memory layout does not allow one."""
    try:
        return a.reshape(shape, copy=False)
    except ValueError:  # a copy would be needed (callers have checked the shape itself)
        return None
    except TypeError:  # numpy < 2.1 has no copy=; there, setting .shape is not deprecated
        v = a.view()
        try:
            v.shape = shape
        except AttributeError:
            return None
        return v


def transpose(a, d0: int, d1: int):
    return a.swapaxes(d0, d1)


def permute(a, dims):
    return a.transpose(dims)


def diagonal(a, offset: int, d1: int, d2: int):
    # np.diagonal's view is read-only; the same view made from strides can be written through
    start = [slice(None)] * a.ndim
    if offset >= 0:
        start[d2] = slice(offset, None)
    else:
        start[d1] = slice(-offset, None)
    b = a[tuple(start)]
    keep = [d for d in range(a.ndim) if d not in (d1, d2)]
    shape = tuple(b.shape[d] for d in keep) + (min(b.shape[d1], b.shape[d2]),)
    strides = tuple(b.strides[d] for d in keep) + (b.strides[d1] + b.strides[d2],)
    return np.lib.stride_tricks.as_strided(b, shape, strides, writeable=b.flags.writeable)


def expand(a, shape):
    out = np.broadcast_to(a, shape)
    if a.flags.writeable:
        # torch writes through an expanded view (fill_, index_put_, a non-overlapping part of
        # it); the engine raises torch's error for the writes torch refuses (see `overlaps`)
        out.flags.writeable = True
    return out


def overlaps(a) -> bool:
    strides = a.strides  # no zero stride (the common case): no element repeats
    return 0 in strides and a.size > 0 and any(st == 0 and n > 1 for st, n in zip(strides, a.shape))


def getitem(a, index):
    r = a[index]
    if type(r) is not ndarray:
        # an all-integer index gives a numpy scalar; with a trailing ... it gives a 0-d view
        r = a[(index if type(index) is tuple else (index,)) + (Ellipsis,)]
    return r


def index_add(shape, index, values, dtype: str):
    """zeros(shape) with values added at index (repeated indices accumulate)."""
    out = np.zeros(shape, dtype=_NP[dtype])
    np.add.at(out, index, values)
    return out


def setitem(a, index, values) -> None:
    a[index] = values


def concat(arrays, dim: int):
    return np.concatenate(arrays, axis=dim)


def stack(arrays, dim: int):
    return np.stack(arrays, axis=dim)


def broadcast_shapes(*shapes):
    return np.broadcast_shapes(*shapes)
