"""Array backend in pure Python (for Pyodide, which has no numpy): numpy_backend's functions, same meaning.

An array is strided storage: a flat Python list shared by all its views, an offset, a shape and
strides counted in elements. Float arrays of _BIG or more elements keep their storage in an
`array('f')` / `array('d')` instead (read and written like a list): their arithmetic then runs
in one C loop per op here, and in JavaScript on the same memory in the browser (js_kernels). Views (slices, transposes, reshapes that need no copy, expand) share
the list, so a write through `assign`/`setitem` is seen by every view, as with numpy. Values are
Python floats (float32 ones rounded to float32 after every operation), ints (wrapped to int64
where numpy would wrap) and bools. Element-wise math follows IEEE like numpy: it never raises on
0/0, log(0), overflow and the like, it returns nan/inf.
"""

from __future__ import annotations

import builtins as _builtins
import contextlib as _contextlib
import math as _math
import operator as _operator
import struct as _struct
from array import array as _pyarray
from itertools import repeat as _repeat

from . import js_kernels as _js_kernels
from . import sum_order as _order

NAME = "pure"

_DTYPES = ("float32", "float64", "int64", "bool")
_FLOATS = ("float32", "float64")
_RANK = {"bool": 0, "int64": 1, "float32": 2, "float64": 3}
_I64_MIN = -(1 << 63)
_I64_MAX = (1 << 63) - 1
_U64 = (1 << 64) - 1
_INF = _math.inf
_NAN = _math.nan

_JS = _js_kernels.load()  # None outside the browser


def _use_js_kernels(on: bool) -> None:
    """Detach (False) or attach again (True) the browser's JavaScript kernels. Pyodide's memory
    snapshot may hold no JavaScript object, so the site's worker detaches them while one is
    taken and attaches them once Python is restored (docs/site.md, "Snapshot"). Private to the
    backend contract (engine/backend/contract.py), which every public name here must be in."""
    global _JS
    _JS = _js_kernels.load() if on else None
# float arrays of this many elements or more keep array('f') / array('d') storage: below it a
# list is as fast, and a call into JavaScript costs more than the loop it saves
_BIG = 64
_TYPECODE = {"float32": "f", "float64": "d"}
# one zero of each kind: `_ZERO[tc] * n` is the cheapest fresh array of n values to fill
_ZERO = {"f": _pyarray("f", [0.0]), "d": _pyarray("d", [0.0])}

_b_sum = sum  # the builtins, before this module's own sum/abs/pow shadow them
_b_abs = abs
_b_pow = pow


def quiet():
    """Context manager silencing floating-point warnings: pure Python never emits any."""
    return _contextlib.nullcontext()


# -- the array ---------------------------------------------------------------------------------

class ndarray:
    """A strided view on a flat list; `shape`, `ndim`, `size`, `dtype` (a name) as in numpy."""

    __slots__ = ("_data", "_off", "shape", "_strides", "dtype", "size", "ndim", "_c")

    @property
    def strides(self):
        return self._strides

    def tolist(self):
        return tolist(self)

    def item(self):
        return item(self)

    def astype(self, dtype):
        return astype(self, str(getattr(dtype, "name", dtype)))

    def copy(self):
        return copy(self)

    def reshape(self, *shape):
        return reshape(self, shape[0] if len(shape) == 1 else shape)

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __repr__(self):
        return f"pure.ndarray({tolist(self)!r}, dtype={self.dtype})"

    # + - * / and unary - between arrays and with Python numbers, as numpy 2's arrays have them
    # (a number takes the array's kind, NEP 50): the engine then runs backward formulas on
    # arrays instead of Tensors (`array_backward` in engine/autograd/function.py)
    def __add__(self, other):
        return add(self, other) if type(other) in _OPERANDS else NotImplemented

    def __radd__(self, other):
        return add(other, self) if type(other) in _OPERANDS else NotImplemented

    def __sub__(self, other):
        return sub(self, other) if type(other) in _OPERANDS else NotImplemented

    def __rsub__(self, other):
        return sub(other, self) if type(other) in _OPERANDS else NotImplemented

    def __mul__(self, other):
        return mul(self, other) if type(other) in _OPERANDS else NotImplemented

    def __rmul__(self, other):
        return mul(other, self) if type(other) in _OPERANDS else NotImplemented

    def __truediv__(self, other):
        return div(self, other) if type(other) in _OPERANDS else NotImplemented

    def __rtruediv__(self, other):
        return div(other, self) if type(other) in _OPERANDS else NotImplemented

    def __neg__(self):
        return neg(self)


_NUMBERS = (int, float, bool)
_OPERANDS = (ndarray, *_NUMBERS)  # what the operators above take (else Python asks the other side)


_CSTRIDES: dict = {}
_CONTIG: dict = {}
_POSITIONS: dict = {}
_CACHE_MAX = 4096  # bounded caches: shapes in one session are few, but never let them grow forever


def _cstrides(shape):
    st = _CSTRIDES.get(shape)
    if st is None:
        out = []
        s = 1
        for d in reversed(shape):
            out.append(s)
            s *= d
        st = tuple(reversed(out))
        if len(_CSTRIDES) > _CACHE_MAX:
            _CSTRIDES.clear()
        _CSTRIDES[shape] = st
    return st


def _prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def _is_c(shape, strides):
    """numpy's C_CONTIGUOUS flag: size-1 dims are ignored and a size-0 array always counts."""
    key = (shape, strides)
    c = _CONTIG.get(key)
    if c is None:
        c = True
        if 0 not in shape:
            s = 1
            for d, st in zip(reversed(shape), reversed(strides)):
                if d != 1:
                    if st != s:
                        c = False
                        break
                    s *= d
        if len(_CONTIG) > _CACHE_MAX:
            _CONTIG.clear()
        _CONTIG[key] = c
    return c


def _new(data, off, shape, strides, dtype):
    a = object.__new__(ndarray)
    a._data = data
    a._off = off
    a.shape = shape
    a._strides = strides
    a.dtype = dtype
    a.size = _prod(shape)
    a.ndim = len(shape)
    a._c = _is_c(shape, strides)
    return a


def _wrap(values, shape, dtype):
    """A fresh C-contiguous array owning `values` (a list or an array of dtype's typecode, not
    copied; a big float list is moved into an array)."""
    n = len(values)
    if n >= _BIG and dtype in _TYPECODE:
        tc = _TYPECODE[dtype]
        if type(values) is not _pyarray or values.typecode != tc:
            values = _pyarray(tc, values)
    a = object.__new__(ndarray)
    a._data = values
    a._off = 0
    a.shape = shape
    st = _CSTRIDES.get(shape)
    a._strides = _cstrides(shape) if st is None else st
    a.dtype = dtype
    a.size = n
    a.ndim = len(shape)
    a._c = True
    return a


def _positions(shape, strides, off):
    """Storage positions of a strided layout's elements in C order (cached: layouts repeat)."""
    key = (shape, strides, off)
    pos = _POSITIONS.get(key)
    if pos is None:
        pos = [off]
        for d, s in zip(shape, strides):
            steps = [i * s for i in range(d)]
            pos = [p + k for p in pos for k in steps]
        if len(pos) <= 4096:  # small layouts repeat in a graph; big ones would hog memory
            if len(_POSITIONS) > _CACHE_MAX:
                _POSITIONS.clear()
            _POSITIONS[key] = pos
    return pos


def _vals(a):
    """a's elements in C order. May be a's own storage: callers must never mutate the result."""
    if a._c:
        data = a._data
        if a._off == 0 and len(data) == a.size:
            return data
        return data[a._off:a._off + a.size]
    return list(map(a._data.__getitem__, _positions(a.shape, a._strides, a._off)))


# -- value conversion --------------------------------------------------------------------------

_STRUCTS: dict = {}


def _struct_for(n):
    """A Struct packing n float32 values (cached: lengths repeat)."""
    st = _STRUCTS.get(n)
    if st is None:
        st = _struct.Struct(f"{n}f")
        if len(_STRUCTS) > 512:
            _STRUCTS.clear()
        _STRUCTS[n] = st
    return st


def _r32(xs):
    """Round every value to the nearest float32 (out-of-range ones become +-inf, as numpy does)."""
    st = _struct_for(len(xs))
    try:
        # struct is twice as fast as an array('f') round trip, but refuses finite overflow
        return list(st.unpack(st.pack(*xs)))
    except (OverflowError, _struct.error):
        return _pyarray("f", xs).tolist()


def _w64(xs):
    """Wrap Python ints into int64 as numpy's integer arithmetic does."""
    if xs and (max(xs) > _I64_MAX or min(xs) < _I64_MIN):
        return [((x - _I64_MIN) & _U64) + _I64_MIN for x in xs]
    return xs


def _to_int(x):
    # numpy on x86 turns nan, inf and out-of-range floats into INT64_MIN
    try:
        v = int(x)
    except (ValueError, OverflowError):
        return _I64_MIN
    return v if _I64_MIN <= v <= _I64_MAX else _I64_MIN


def _cast(vals, src, dst):
    """vals (of dtype src) converted to dst; a new list unless src == dst."""
    if src == dst:
        return vals
    if dst == "float64":
        return list(map(float, vals))
    if dst == "float32":
        return _r32(vals if src != "bool" else list(map(float, vals)))
    if dst == "bool":
        return list(map(bool, vals))
    if src == "bool":
        return list(map(int, vals))
    try:
        out = list(map(int, vals))
    except (ValueError, OverflowError):
        return list(map(_to_int, vals))
    if out and (max(out) > _I64_MAX or min(out) < _I64_MIN):
        return list(map(_to_int, vals))
    return out


def _cast_one(v, dtype):
    if dtype in _FLOATS:
        v = float(v)
        return _r1(v) if dtype == "float32" else v
    if dtype == "int64":
        if isinstance(v, float):
            return _to_int(v)
        v = int(v)
        if not _I64_MIN <= v <= _I64_MAX:
            raise OverflowError(f"Python integer {v} out of bounds for int64")
        return v
    return bool(v)


def _promote(x, y):
    if x == y:
        return x
    if {x, y} == {"int64", "float32"}:
        return "float64"
    return x if _RANK[x] > _RANK[y] else y


def _scalar_dtype(v):
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int64"
    if isinstance(v, float):
        return "float64"
    raise TypeError(f"unsupported operand type {type(v).__name__}")


def _weak(dt, v):
    """numpy 2's promotion of an array of dtype dt with a Python scalar v (NEP 50)."""
    if isinstance(v, bool):
        return dt
    if isinstance(v, int):
        return "int64" if dt == "bool" else dt
    return dt if dt in _FLOATS else "float64"


def _as_array(x):
    if isinstance(x, ndarray):
        return x
    return array(x, _scalar_dtype(x))


# -- creation and conversion ------------------------------------------------------------------

def _flatten(x):
    """(shape, flat values) of nested lists/tuples/arrays; ragged input raises like numpy."""
    if isinstance(x, ndarray):
        return x.shape, list(_vals(x))
    if isinstance(x, (list, tuple)):
        if not x:
            return (0,), []
        if not any(isinstance(e, (list, tuple, ndarray)) for e in x):
            return (len(x),), list(x)
        parts = [_flatten(e) for e in x]
        inner = parts[0][0]
        flat = []
        for shp, vals in parts:
            if shp != inner:
                raise ValueError(
                    "setting an array element with a sequence. The requested array has an "
                    "inhomogeneous shape after 1 dimensions. The detected shape was "
                    f"({len(x)},) + inhomogeneous part."
                )
            flat.extend(vals)
        return (len(x),) + inner, flat
    return (), [x]


def array(data, dtype: str):
    if isinstance(data, ndarray):
        return _wrap(list(_cast(_vals(data), data.dtype, dtype)), data.shape, dtype)
    shp, vals = _flatten(data)
    if dtype == "float32":
        out = _r32(list(map(float, vals)))
    elif dtype == "float64":
        out = list(map(float, vals))
    elif dtype == "bool":
        out = list(map(bool, vals))
    else:
        out = [_cast_one(v, "int64") for v in vals]
    return _wrap(out, shp, dtype)


def is_array(x) -> bool:
    return isinstance(x, ndarray)


def _numpy_kind(name: str) -> str:
    if name in ("float16", "float32"):
        return "float32"
    if name.startswith("float") or name in ("longdouble", "double"):
        return "float64"
    if name.startswith(("int", "uint")):
        return "int64"
    if name == "bool":
        return "bool"
    raise TypeError(f"can't convert an array of dtype {name} to a tensor")


def from_numpy_like(x):
    """Accept an object exposing __array__ (a numpy array): returns (array, dtype name).

    numpy is never imported here: the object's own tolist() and dtype name are enough.
    """
    if isinstance(x, ndarray):
        return x, x.dtype
    dt = getattr(x, "dtype", None)
    if dt is None or not hasattr(x, "tolist"):
        raise TypeError(f"can't convert {type(x).__name__} to an array")
    name = _numpy_kind(str(getattr(dt, "name", dt)))
    # tolist() loses the shape of an empty array ((0, 3) -> []): the shape is taken as given
    return reshape(array(x.tolist(), name), tuple(x.shape)), name


def scalar(value, dtype: str):
    return _wrap([_cast_one(value, dtype)], (), dtype)


def _shape_arg(shape):
    if isinstance(shape, int):
        return (shape,)
    return tuple(int(d) for d in shape)


def full(shape, value, dtype: str):
    shape = _shape_arg(shape)
    if any(d < 0 for d in shape):
        raise ValueError("negative dimensions are not allowed")
    return _wrap([_cast_one(value, dtype)] * _prod(shape), shape, dtype)


def zeros(shape, dtype: str):
    return full(shape, 0, dtype)


def ones(shape, dtype: str):
    return full(shape, 1, dtype)


def arange(start, end, step, dtype: str):
    if step == 0:
        raise ZeroDivisionError("division by zero")
    n = max(0, _math.ceil((end - start) / step))
    if dtype == "int64":
        vals = [start + i * step for i in range(n)]
        return _wrap(_cast(vals, "int64", "int64") if all(isinstance(v, int) for v in vals)
                     else _cast(list(map(float, vals)), "float64", "int64"), (n,), "int64")
    start = float(start)
    # numpy fills start + i*delta with delta = (start + step) - start, not step itself
    delta = (start + float(step)) - start
    vals = [start + i * delta for i in range(n)]
    return _wrap(_cast(vals, "float64", dtype), (n,), dtype)


def linspace(start, end, steps: int, dtype: str):
    """torch's CPU kernel (see the numpy backend's linspace): start + step * i for the first
    half, end - step * (steps - 1 - i) for the rest, each an exact product and sum rounded
    once to the output's float type (exact fractions here); int64 truncates float64 values."""
    if steps < 0:
        raise ValueError(f"Number of samples, {steps}, must be non-negative.")
    if steps == 0:
        return _wrap([], (0,), dtype)
    f32 = dtype == "float32"
    if dtype in ("int64", "bool"):
        start, end = float(int(start)), float(int(end))
    s, e = float(start), float(end)
    if f32:
        s, e = _r32([s, e])
    if steps == 1:
        return _wrap(_cast([s], "float64", dtype), (1,), dtype)
    step = e - s
    if f32:
        step = _r32([_r32([step])[0] / _r32([float(steps - 1)])[0]])[0]
    else:
        step = step / (steps - 1)
    from fractions import Fraction as _Fraction  # only linspace needs it: not at import

    half = steps // 2
    vals = []
    exact_ok = all(_math.isfinite(v) for v in (s, e, step))
    fs, fe, fstep = (_Fraction(s), _Fraction(e), _Fraction(step)) if exact_ok else (0, 0, 0)
    for i in range(steps):
        base, fbase, k = (s, fs, i) if i < half else (e, fe, i - (steps - 1))
        if not exact_ok:
            v = base + step * k
            vals.append(_r32([v])[0] if f32 else v)
            continue
        if f32 and -_EXACT_K < k < _EXACT_K:
            # step * k is exact (24 significant bits times fewer than 29); when Knuth's
            # two-sum finds no error, base + step * k is too, and rounding it once is exact
            p = step * k
            v = base + p
            back = v - base
            if (base - (v - back)) + (p - back) == 0:
                vals.append(v)  # rounded with the rest below
                continue
        exact = fbase + fstep * k
        vals.append(_nearest_f32(exact) if f32 else float(exact))
    if f32:
        vals = _r32(vals)  # the exact sums kept above; values already float32 stay as they are
    if dtype in ("int64", "bool"):
        vals = [float(_math.trunc(v)) for v in vals]
    return _wrap(_cast(vals, "float32" if f32 else "float64", dtype), (steps,), dtype)


_EXACT_K = 1 << 29


def _nearest_f32(exact):
    """The float32 nearest to a Fraction, ties to even (float() alone would round twice)."""
    from fractions import Fraction as _Fraction
    r = _r32([float(exact)])[0]
    fr = _Fraction(r)
    if fr == exact or not _math.isfinite(r) or r == 0:
        return r
    bits = _struct.unpack("<I", _struct.pack("<f", r))[0]
    up = (exact > fr) == (r >= 0)  # away from zero in magnitude
    nbits = bits + 1 if up else bits - 1
    n = _struct.unpack("<f", _struct.pack("<I", nbits))[0]
    dr, dn = _builtins.abs(exact - fr), _builtins.abs(exact - _Fraction(n))  # abs is ours here
    if dr != dn:
        return r if dr < dn else n
    return r if bits % 2 == 0 else n


def eye(n: int, m: int, dtype: str):
    one, zero = _cast_one(1, dtype), _cast_one(0, dtype)
    return _wrap([one if i == j else zero for i in range(n) for j in range(m)], (n, m), dtype)


def astype(a, dtype: str):
    vals = _vals(a)
    if type(vals) is _pyarray and dtype in _TYPECODE:
        # float to float in one loop: a copy, each value rounded once to the new dtype
        tc = _TYPECODE[dtype]
        if _JS is None or tc == vals.typecode:
            return _wrap(_pyarray(tc, vals), a.shape, dtype)
        out = _ZERO[tc] * a.size
        _JS.convert(vals.typecode, tc, _address(vals, 0), _address(out, 0), a.size)
        return _wrap(out, a.shape, dtype)
    vals = _cast(vals, a.dtype, dtype)
    return _wrap(list(vals) if a.dtype == dtype else vals, a.shape, dtype)


def copy(a):
    vals = _vals(a)
    return _wrap(vals[:] if vals is a._data else vals, a.shape, a.dtype)


def contiguous(a):
    # np.ascontiguousarray returns its argument when already contiguous, and 0-d as shape (1,)
    if a.ndim == 0:
        return _new(a._data, a._off, (1,), (1,), a.dtype)
    return a if a._c else copy(a)


def dtype_name(a) -> str:
    return a.dtype


def shape(a) -> tuple:
    return a.shape


def ndim(a) -> int:
    return a.ndim


def numel(a) -> int:
    return a.size


def tolist(a):
    vals = list(_vals(a))
    if a.ndim == 0:
        return vals[0]
    if a.size == 0:
        # no values to chunk: the nesting comes from the shape alone, up to its first 0
        def build(shp):
            return [] if shp[0] == 0 else [build(shp[1:]) for _ in range(shp[0])]
        return build(a.shape)
    for d in reversed(a.shape[1:]):
        vals = [vals[i:i + d] for i in range(0, len(vals), d)]
    return vals


def item(a):
    if a.size != 1:
        raise ValueError("can only convert an array of size 1 to a Python scalar")
    return _vals(a)[0]


def to_numpy(a):
    return a


def is_contiguous(a) -> bool:
    return a._c


def strides(a) -> tuple:
    return a._strides


def offset(a) -> int:
    return a._off


def overlaps(a) -> bool:
    return a.size > 0 and any(st == 0 and n > 1 for st, n in zip(a._strides, a.shape))


def _bvals(a, shape, n):
    """a's values broadcast to shape (n elements)."""
    if a.shape == shape:
        return _vals(a)
    if a.size == 1:
        return [_vals(a)[0]] * n
    e = expand(a, shape)
    return list(map(e._data.__getitem__, _positions(e.shape, e._strides, e._off)))


def _write(dst, vals):
    """Store C-ordered vals (already of dst's dtype) into dst's memory."""
    data = dst._data
    if vals is data:
        vals = list(vals)  # src is dst's own storage: read it all before writing any of it
    if dst._c:
        if type(data) is _pyarray and (type(vals) is not _pyarray or vals.typecode != data.typecode):
            vals = _pyarray(data.typecode, vals)  # an array's slice takes only its own kind
        data[dst._off:dst._off + dst.size] = vals
    else:
        for p, v in zip(_positions(dst.shape, dst._strides, dst._off), vals):
            data[p] = v


def assign(dst, src) -> None:
    """Write src (broadcast) into dst's memory: every view of dst sees the change."""
    if not isinstance(src, ndarray):
        src = scalar(src, _scalar_dtype(src))
    if src.shape != dst.shape:
        try:
            if broadcast_shapes(src.shape, dst.shape) != dst.shape:
                raise ValueError
        except ValueError:
            raise ValueError(f"could not broadcast input array from shape {src.shape} into "
                             f"shape {dst.shape}") from None
    _write(dst, _cast(_bvals(src, dst.shape, dst.size), src.dtype, dst.dtype))


# -- element-wise ------------------------------------------------------------------------------

def _setup2(a, b, float_only=False):
    """(xs, ys, shape, dtype): both operands broadcast to one shape and cast to one dtype."""
    if isinstance(a, ndarray):
        if isinstance(b, ndarray):
            dt = _promote(a.dtype, b.dtype)
        else:
            dt = _weak(a.dtype, b)
            b = scalar(b, dt)
    elif isinstance(b, ndarray):
        dt = _weak(b.dtype, a)
        a = scalar(a, dt)
    else:
        a, b = _as_array(a), _as_array(b)
        dt = _promote(a.dtype, b.dtype)
    if float_only and dt not in _FLOATS:
        dt = "float64"
    sa, sb = a.shape, b.shape
    shp = sa if sa == sb else broadcast_shapes(sa, sb)
    n = _prod(shp)
    xs = _bvals(a, shp, n)
    ys = _bvals(b, shp, n)
    if a.dtype != dt:
        xs = _cast(xs, a.dtype, dt)
    if b.dtype != dt:
        ys = _cast(ys, b.dtype, dt)
    return xs, ys, shp, dt


def _finish(out, shp, dt):
    if dt == "float32":
        out = _r32(out)
    elif dt == "int64":
        out = _w64(out)
    return _wrap(out, shp, dt)


def _flat(a):
    """(storage, offset) of a big C-contiguous float array kept in an array('f'/'d'), else None."""
    data = a._data
    if a._c and a.size >= _BIG and type(data) is _pyarray:
        return data, a._off
    return None


def _one_value(a, shape):
    """Whether a, broadcast to `shape`, is one value everywhere: a single element (of no more
    dims than shape), or a view of one element expanded to shape itself (all strides 0, as the
    gradient of a sum arrives: ones(()).expand(n))."""
    if a.size == 1:
        return a.ndim <= len(shape)
    return a.shape == shape and not any(a._strides)


def _address(data, off):
    return data.buffer_info()[0] + off * data.itemsize


def _fast_float(name, a, b):
    """add/sub/mul/div of two float arrays of one dtype when one loop does it: both of one shape
    and contiguous, or one of them a single value (a Python number or a 0-d operand, as a scalar
    weight, or one value expanded, as the gradient arriving from a sum); or of two 0-d arrays,
    without the general path's lists. Returns
    None when the general path must run. The loop runs in JavaScript in the browser, else in C
    through map(); either way each element is the float64 op rounded once to the dtype."""
    ta, tb = type(a), type(b)
    if ta is ndarray:
        if tb is not ndarray:
            if tb not in _NUMBERS or a.size < _BIG:
                return None
            b = scalar(b, _weak(a.dtype, b))  # as _setup2 takes a number
    elif ta in _NUMBERS and tb is ndarray and b.size >= _BIG:
        a = scalar(a, _weak(b.dtype, a))
    else:
        return None
    tc = _TYPECODE.get(a.dtype)
    if tc is None or a.dtype != b.dtype:
        return None
    if a.size < _BIG and b.size < _BIG:
        if a.shape == () and b.shape == ():  # a scalar weight's update, a loss's arithmetic
            x, y = a._data[a._off], b._data[b._off]
            try:
                v = _BINARY[name](x, y)
            except ZeroDivisionError:
                v = _safe_div(x, y)
            return _wrap([_r1(v) if tc == "f" else v], (), a.dtype)
        return None
    da, db = a._data, b._data
    # as _flat(): an operand the loop reads in place
    fa = a._c and a.size >= _BIG and type(da) is _pyarray
    fb = b._c and b.size >= _BIG and type(db) is _pyarray
    if fa and fb:
        if a.shape != b.shape:
            return None
        shp = a.shape
    elif fa and _one_value(b, a.shape):
        shp = a.shape
    elif fb and _one_value(a, b.shape):
        shp = b.shape
    else:
        return None
    n = a.size if fa else b.size
    # the one value sits at the offset, whatever the strides
    x = 0.0 if fa else da[a._off]
    y = 0.0 if fb else db[b._off]
    if _JS is not None:
        out = _ZERO[tc] * n
        size = out.itemsize  # the byte addresses of the operands, as _address() gives them
        _JS.binary(name, tc, da.buffer_info()[0] + a._off * size if fa else 0,
                   db.buffer_info()[0] + b._off * size if fb else 0, out.buffer_info()[0], n, x, y)
        return _wrap(out, shp, a.dtype)
    xs = _vals(a) if fa else _repeat(x, n)
    ys = _vals(b) if fb else _repeat(y, n)
    try:
        out = list(map(_BINARY[name], xs, ys))
    except ZeroDivisionError:
        xs = xs if fa else _repeat(x, n)
        ys = ys if fb else _repeat(y, n)
        out = list(map(_safe_div, xs, ys))
    return _wrap(_packed(tc, out), shp, a.dtype)


def _packed(tc, values):
    """An array of typecode tc holding float64 values rounded once to it (struct packs a list
    into float32 in fewer steps than array() appends, but refuses finite overflow)."""
    if tc == "f":
        try:
            return _pyarray("f", _struct_for(len(values)).pack(*values))
        except (OverflowError, _struct.error):
            pass
    return _pyarray(tc, values)


def add(a, b):
    out = _fast_float("add", a, b)
    if out is not None:
        return out
    xs, ys, shp, dt = _setup2(a, b)
    if dt == "bool":
        return _wrap(list(map(_operator.or_, xs, ys)), shp, dt)
    return _finish(list(map(_operator.add, xs, ys)), shp, dt)


def sub(a, b):
    out = _fast_float("sub", a, b)
    if out is not None:
        return out
    xs, ys, shp, dt = _setup2(a, b)
    if dt == "bool":
        raise TypeError("numpy boolean subtract, the `-` operator, is not supported, use the "
                        "bitwise_xor, the `^` operator, or the logical_xor function instead.")
    return _finish(list(map(_operator.sub, xs, ys)), shp, dt)


def mul(a, b):
    out = _fast_float("mul", a, b)
    if out is not None:
        return out
    xs, ys, shp, dt = _setup2(a, b)
    if dt == "bool":
        return _wrap(list(map(_operator.and_, xs, ys)), shp, dt)
    return _finish(list(map(_operator.mul, xs, ys)), shp, dt)


def _safe_div(x, y):
    try:
        return x / y
    except ZeroDivisionError:
        if x != x or x == 0:
            return _NAN
        return _math.copysign(_INF, x) * _math.copysign(1.0, y)


def div(a, b):
    out = _fast_float("div", a, b)
    if out is not None:
        return out
    xs, ys, shp, dt = _setup2(a, b, float_only=True)
    try:
        out = list(map(_operator.truediv, xs, ys))
    except ZeroDivisionError:
        out = list(map(_safe_div, xs, ys))
    return _finish(out, shp, dt)


_BINARY = {"add": _operator.add, "sub": _operator.sub, "mul": _operator.mul,
           "div": _operator.truediv}


def _odd_int(y):
    return y == y and not _math.isinf(y) and y == int(y) and int(y) % 2 == 1


def _safe_pow(x, y):
    try:
        return _math.pow(x, y)
    except OverflowError:
        return -_INF if x < 0 and _odd_int(y) else _INF
    except ValueError:
        if x == 0 and y < 0:
            return -_INF if _math.copysign(1.0, x) < 0 and _odd_int(y) else _INF
        return _NAN


def _int_pow(x, y):
    if y < 0:
        raise ValueError("Integers to negative integer powers are not allowed.")
    # modular pow: int64 wraps, and a huge exponent never builds a huge Python int
    r = _b_pow(x, y, 1 << 64)
    return r - (1 << 64) if r > _I64_MAX else r


def pow(a, b):  # noqa: A001
    if (type(a) is ndarray and type(b) is ndarray and a.dtype == b.dtype and a.dtype in _FLOATS
            and b.ndim == 0 and _vals(b)[0] == 1.0):
        return copy(a)  # x ** 1.0 is x for every float x, nan and inf included (IEEE pow)
    xs, ys, shp, dt = _setup2(a, b)
    if dt in _FLOATS:
        try:
            out = list(map(_math.pow, xs, ys))
        except (ValueError, OverflowError):
            out = list(map(_safe_pow, xs, ys))
        return _finish(out, shp, dt)
    if dt == "bool":
        xs, ys = list(map(int, xs)), list(map(int, ys))
    return _wrap(list(map(_int_pow, xs, ys)), shp, "int64" if dt == "bool" else dt)


# -- division with rounding: C's fmod, and torch's (numpy's) floor division built on it ----------

def _fmod(x, y):
    try:
        return _math.fmod(x, y)
    except ValueError:  # a zero divisor or an infinite dividend
        return _NAN


def _int_fmod(x, y):
    if y == 0:
        return 0  # numpy's answer (the engine raises torch's error before)
    r = _b_abs(x) % _b_abs(y)
    return -r if x < 0 else r


def fmod(a, b):
    xs, ys, shp, dt = _setup2(a, b)
    if dt in _FLOATS:
        return _finish(list(map(_fmod, xs, ys)), shp, dt)
    return _finish(list(map(_int_fmod, xs, ys)), shp, "int64" if dt == "bool" else dt)


def _remainder(x, y, f32):
    m = _fmod(x, y)
    if m != 0 and (y < 0) != (m < 0):
        m = _r1(m + y) if f32 else m + y
    return m


def remainder(a, b):
    xs, ys, shp, dt = _setup2(a, b)
    if dt in _FLOATS:
        f32 = dt == "float32"
        return _wrap([_remainder(x, y, f32) for x, y in zip(xs, ys)], shp, dt)
    out = [0 if y == 0 else x % y for x, y in zip(xs, ys)]
    return _finish(out, shp, "int64" if dt == "bool" else dt)


def _floor_divide(x, y, f32):
    """numpy's npy_divmod quotient (torch's div_floor_floating), rounded as numpy does in f32."""
    r = _r1 if f32 else float
    if y == 0:
        return _safe_div(x, y)
    mod = _fmod(x, y)
    div = r(_safe_div(x - mod, y))
    if mod != 0 and (y < 0) != (mod < 0):
        div = r(div - 1.0)
    if div == 0:
        return _math.copysign(0.0, _math.copysign(1.0, x) * _math.copysign(1.0, y))
    if div != div or div in (_INF, -_INF):
        return div
    fl = float(_math.floor(div))
    return fl + 1.0 if div - fl > 0.5 else fl


def floor_divide(a, b):
    xs, ys, shp, dt = _setup2(a, b)
    if dt in _FLOATS:
        f32 = dt == "float32"
        return _wrap([_floor_divide(x, y, f32) for x, y in zip(xs, ys)], shp, dt)
    out = [0 if y == 0 else x // y for x, y in zip(xs, ys)]
    return _finish(out, shp, "int64" if dt == "bool" else dt)


def maximum(a, b):
    xs, ys, shp, dt = _setup2(a, b)
    if dt in _FLOATS:
        # numpy propagates NaN from either side; Python's max() would not
        out = [x if (x >= y or x != x) else y for x, y in zip(xs, ys)]
    else:
        out = list(map(max, xs, ys))
    return _wrap(out, shp, dt)


def minimum(a, b):
    xs, ys, shp, dt = _setup2(a, b)
    if dt in _FLOATS:
        out = [x if (x <= y or x != x) else y for x, y in zip(xs, ys)]
    else:
        out = list(map(min, xs, ys))
    return _wrap(out, shp, dt)


def _compare(op):
    def fn(a, b):
        xs, ys, shp, _ = _setup2(a, b)
        return _wrap(list(map(op, xs, ys)), shp, "bool")
    fn.__name__ = op.__name__
    return fn


eq = _compare(_operator.eq)
ne = _compare(_operator.ne)
lt = _compare(_operator.lt)
le = _compare(_operator.le)
gt = _compare(_operator.gt)
ge = _compare(_operator.ge)


def _float_in(a):
    """a's values and dtype for a float-valued function (ints and bools compute in float64)."""
    a = _as_array(a)
    if a.dtype in _FLOATS:
        return _vals(a), a.dtype, a.shape
    return _cast(_vals(a), a.dtype, "float64"), "float64", a.shape


def _unary_math(fast, safe):
    def fn(a):
        xs, dt, shp = _float_in(a)
        try:
            out = list(map(fast, xs))
        except (ValueError, OverflowError):
            out = list(map(safe, xs))
        return _wrap(_r32(out) if dt == "float32" else out, shp, dt)
    fn.__name__ = fast.__name__
    return fn


def _safe_exp(x):
    try:
        return _math.exp(x)
    except OverflowError:
        return _INF


def _safe_log(x):
    if x == 0:
        return -_INF
    if x < 0:
        return _NAN
    return _math.log(x)


def _safe_log1p(x):
    if x == -1:
        return -_INF
    if x < -1:
        return _NAN
    return _math.log1p(x)


def _safe_expm1(x):
    try:
        return _math.expm1(x)
    except OverflowError:
        return _INF


def _rounding(f):
    """A math rounding function (which returns an int) as a float one that keeps the sign of a
    zero result, as numpy's does (ceil(-0.5) is -0.0)."""
    def g(x):
        r = float(f(x))
        return _math.copysign(r, x) if r == 0 else r
    g.__name__ = f.__name__
    return g


def _rounding_safe(f):
    g = _rounding(f)

    def safe(x):
        return x if x != x or x in (_INF, -_INF) else g(x)
    return safe


def _safe_log_base(f):
    def g(x):
        if x == 0:
            return -_INF
        if x < 0:
            return _NAN
        return f(x)
    return g


def _safe_sqrt(x):
    return _NAN if x < 0 else _math.sqrt(x)


def _safe_sinh(x):
    try:
        return _math.sinh(x)
    except OverflowError:
        return _math.copysign(_INF, x)


def _safe_cosh(x):
    try:
        return _math.cosh(x)
    except OverflowError:
        return _INF


def _nan_on_error(f):
    def g(x):
        try:
            return f(x)
        except (ValueError, OverflowError):
            return _NAN
    return g


exp = _unary_math(_math.exp, _safe_exp)
log = _unary_math(_math.log, _safe_log)
sqrt = _unary_math(_math.sqrt, _safe_sqrt)
sin = _unary_math(_math.sin, _nan_on_error(_math.sin))
cos = _unary_math(_math.cos, _nan_on_error(_math.cos))
sinh = _unary_math(_math.sinh, _safe_sinh)
cosh = _unary_math(_math.cosh, _safe_cosh)
tanh = _unary_math(_math.tanh, _nan_on_error(_math.tanh))
log1p = _unary_math(_math.log1p, _safe_log1p)
expm1 = _unary_math(_math.expm1, _safe_expm1)
floor = _unary_math(_rounding(_math.floor), _rounding_safe(_math.floor))
ceil = _unary_math(_rounding(_math.ceil), _rounding_safe(_math.ceil))
rint = _unary_math(_rounding(round), _rounding_safe(round))
trunc = _unary_math(_rounding(_math.trunc), _rounding_safe(_math.trunc))
tan = _unary_math(_math.tan, _nan_on_error(_math.tan))
arcsin = _unary_math(_math.asin, _nan_on_error(_math.asin))
arccos = _unary_math(_math.acos, _nan_on_error(_math.acos))
arctan = _unary_math(_math.atan, _nan_on_error(_math.atan))
log2 = _unary_math(_math.log2, _safe_log_base(_math.log2))
log10 = _unary_math(_math.log10, _safe_log_base(_math.log10))


def arctan2(a, b):
    xs, ys, shp, dt = _setup2(a, b, float_only=True)
    return _finish(list(map(_math.atan2, xs, ys)), shp, dt)
erf = _unary_math(_math.erf, _nan_on_error(_math.erf))


def neg(a):
    a = _as_array(a)
    if a.dtype == "bool":
        raise TypeError("The numpy boolean negative, the `-` operator, is not supported, use the "
                        "`~` operator or the logical_not function instead.")
    flat = _flat(a) if _JS is not None and a.dtype in _TYPECODE else None
    if flat is not None:
        tc = _TYPECODE[a.dtype]
        out = _ZERO[tc] * a.size
        _JS.neg(tc, _address(*flat), _address(out, 0), a.size)
        return _wrap(out, a.shape, a.dtype)
    out = list(map(_operator.neg, _vals(a)))
    return _wrap(_w64(out) if a.dtype == "int64" else out, a.shape, a.dtype)


def abs(a):  # noqa: A001 - mirrors the backend interface name
    a = _as_array(a)
    out = list(map(_b_abs, _vals(a)))
    return _wrap(_w64(out) if a.dtype == "int64" else out, a.shape, a.dtype)


def _fsign(x):
    if x > 0:
        return 1.0
    if x < 0:
        return -1.0
    return 0.0 if x == 0 else x


def sign(a):
    a = _as_array(a)
    if a.dtype == "bool":
        raise TypeError("ufunc 'sign' did not contain a loop with signature matching types")
    if a.dtype == "int64":
        return _wrap([(x > 0) - (x < 0) for x in _vals(a)], a.shape, a.dtype)
    return _wrap(list(map(_fsign, _vals(a))), a.shape, a.dtype)


def logical_not(a):
    a = _as_array(a)
    return _wrap(list(map(_operator.not_, _vals(a))), a.shape, "bool")


def isnan(a):
    a = _as_array(a)
    if a.dtype in _FLOATS:
        return _wrap([x != x for x in _vals(a)], a.shape, "bool")
    return _wrap([False] * a.size, a.shape, "bool")


def sigmoid(a):
    # 1 / (1 + exp(-a)) step by step in a's dtype, so float32 overflows to 0 exactly like numpy
    a = _as_array(a)
    one = scalar(1, a.dtype)
    return div(one, add(one, exp(neg(a))))


def _fma64(x, y, z):
    if _fma_c is not None:
        return _fma_c(x, y, z)
    naive = x * y + z
    if not _math.isfinite(naive):
        return naive
    from fractions import Fraction  # rarely needed (Python < 3.13): kept out of the import
    exact = Fraction(x) * Fraction(y) + Fraction(z)
    return float(exact) if exact else naive  # an exact zero keeps the sign of x * y + z


_fma_c = getattr(_math, "fma", None)  # Python 3.13+


def fma(a, b, c):
    a, b, c = _as_array(a), _as_array(b), _as_array(c)
    shp = broadcast_shapes(a.shape, b.shape, c.shape)
    n = _prod(shp)
    # plain lists: _fma32 tells a list of values from one value, and big arrays are stored
    # as array('f'/'d')
    xs, ys, zs = (list(_bvals(v, shp, n)) for v in (a, b, c))
    if a.dtype == "float32":
        from ..rng.kernels_pure import _fma32  # the one float32 fused multiply-add (its ties)
        return _wrap(_fma32(xs, ys, zs), shp, "float32")
    return _wrap(list(map(_fma64, xs, ys, zs)), shp, a.dtype)


def svd(a):
    from .pure_svd import svd_rows
    a = _as_array(a)
    *batch, m, n = a.shape
    k = min(m, n)
    flat = _cast(_vals(a), a.dtype, "float64")
    us, ss, vhs = [], [], []
    for b in range(_prod(batch)):
        block = flat[b * m * n:(b + 1) * m * n]
        u, s, vh = svd_rows([block[i * n:(i + 1) * n] for i in range(m)], m, n)
        us.extend(x for row in u for x in row)
        ss.extend(s)
        vhs.extend(x for row in vh for x in row)
    dt = a.dtype
    out = [us, ss, vhs]
    if dt == "float32":
        out = [_r32(v) for v in out]
    bt = tuple(batch)
    return (_wrap(out[0], bt + (m, k), dt), _wrap(out[1], bt + (k,), dt),
            _wrap(out[2], bt + (k, n), dt))


def where(cond, a, b):
    cond = _as_array(cond)
    if isinstance(a, ndarray) and not isinstance(b, ndarray):
        b = scalar(b, _weak(a.dtype, b))
    elif isinstance(b, ndarray) and not isinstance(a, ndarray):
        a = scalar(a, _weak(b.dtype, a))
    a, b = _as_array(a), _as_array(b)
    dt = _promote(a.dtype, b.dtype)
    shp = broadcast_shapes(cond.shape, a.shape, b.shape)
    n = _prod(shp)
    cs = _bvals(cond, shp, n)
    xs = _cast(_bvals(a, shp, n), a.dtype, dt)
    ys = _cast(_bvals(b, shp, n), b.dtype, dt)
    return _wrap([x if c else y for c, x, y in zip(cs, xs, ys)], shp, dt)


def clip(a, lo, hi):
    out = a
    if lo is not None:
        out = maximum(out, lo)
    if hi is not None:
        out = minimum(out, hi)
    return out if out is not a else copy(a)


# -- reductions --------------------------------------------------------------------------------

class _AxisError(ValueError, IndexError):
    """numpy's AxisError: both a ValueError and an IndexError."""


def _norm_axis(d, nd):
    if not -nd <= d < nd:
        raise _AxisError(f"axis {d} is out of bounds for array of dimension {nd}")
    return d % nd if nd else d


def _reduced_dims(a, dims):
    """dims as a tuple of non-negative dims, with numpy's errors."""
    nd = a.ndim
    if dims is None:
        dims = tuple(range(nd))
    elif isinstance(dims, int):
        # numpy lets a lone int axis 0 or -1 reduce a 0-d array (a tuple of them it refuses)
        dims = () if nd == 0 and dims in (0, -1) else (_norm_axis(dims, nd),)
    else:
        dims = tuple(_norm_axis(d, nd) for d in dims)
    if len(set(dims)) != len(dims):
        raise ValueError("duplicate value in 'axis'")
    return dims


def _groups(a, dims, keepdim):
    """(groups, output shape, group size): each output element's values, in C order of the
    reduced dims."""
    dims = _reduced_dims(a, dims)
    nd = a.ndim
    keep = [d for d in range(nd) if d not in dims]
    red = sorted(dims)
    order = tuple(keep + red)
    v = a if order == tuple(range(nd)) else permute(a, order)
    vals = _vals(v)
    r = _prod(a.shape[d] for d in red)
    k = _prod(a.shape[d] for d in keep)
    if r == 0:
        groups = [[] for _ in range(k)]
    elif k == 1:
        groups = [vals]
    else:
        groups = [vals[i:i + r] for i in range(0, k * r, r)]
    if keepdim:
        out_shape = tuple(1 if d in dims else s for d, s in enumerate(a.shape))
    else:
        out_shape = tuple(a.shape[d] for d in keep)
    return groups, out_shape, r


# -- torch's order of float additions (engine/backend/sum_order.py describes it) ---------------
# A vector is a list of lanes added side by side: several runs, or torch's lanes of one run.
# Every float32 addition is rounded to float32, as torch's are.

def _vadd(a, b, f32):
    s = list(map(_operator.add, a, b))
    return _r32(s) if f32 else s


def _vseq(vs, f32):
    """The vectors added one by one, left to right (vs is not empty)."""
    acc = vs[0]
    for i in range(1, len(vs)):
        acc = _vadd(acc, vs[i], f32)
    return acc


def _vcascade(rows, f32):
    """torch's multi_row_sum: each lane a 4-level cascade over the rows."""
    step = _order.level_step(len(rows))
    if len(rows) < step:
        return _vseq(rows, f32)
    total = None
    for _ in range(3):
        full = len(rows) // step * step
        if full < len(rows):  # the unfinished chunk of this level
            rest = _vseq(rows[full:], f32)
            total = rest if total is None else _vadd(total, rest, f32)
        if not full:
            return total
        rows = [_vseq(rows[k:k + step], f32) for k in range(0, full, step)]
    top = _vseq(rows, f32)
    return top if total is None else _vadd(total, top, f32)


def _vilp(rows, f32):
    """torch's row_sum: rows of 4 vectors in 4 cascades, the leftover vectors into the first,
    then the 4 in order."""
    q = len(rows) // _order.ILP
    if not q:
        return _vseq(rows, f32)
    width = len(rows[0])
    parts = _vcascade([rows[i] + rows[i + 1] + rows[i + 2] + rows[i + 3]
                       for i in range(0, 4 * q, 4)], f32)
    acc = parts[:width]
    for v in rows[4 * q:]:
        acc = _vadd(acc, v, f32)
    for k in range(1, 4):
        acc = _vadd(acc, parts[k * width:(k + 1) * width], f32)
    return acc


def _run_totals(vals, starts, size0, method, f32, width):
    """The totals of runs of size0 values of vals by one of torch's methods: the runs begin at
    `starts`, or (None) are all of vals back to back."""
    def lane(i):  # value i of every run
        return vals[i::size0] if starts is None else [vals[s + i] for s in starts]

    if method == _order.CASC:
        return _vcascade([lane(i) for i in range(size0)], f32)
    if method == _order.ILP_METHOD:
        return _vilp([lane(i) for i in range(size0)], f32)
    nv = size0 // width
    runs = len(vals) // size0 if starts is None else len(starts)
    if runs == 1:
        s = 0 if starts is None else starts[0]
        if _JS is not None and size0 >= _BIG and type(vals) is _pyarray:
            # in the browser: the same additions as a JavaScript loop on the array's memory
            return [_JS.cascade_sum(vals.typecode, _address(vals, s), size0, width)]
        rows = [vals[k:k + width] for k in range(s, s + nv * width, width)]
    else:
        rows = [[v for k in range(width) for v in lane(i * width + k)] for i in range(nv)]
    lanes = _vilp(rows, f32)
    # the leftover values one by one, then the lanes
    tail = [lane(i) for i in range(nv * width, size0)]
    return _vseq(tail + [lanes[k * runs:(k + 1) * runs] for k in range(width)], f32)


def _one_run_in_memory_order(a, p):
    """Whether plan p sums all of a, a big contiguous float array kept in an array('f'/'d'), as
    one vectorised run over its memory in order (torch's one-thread sum of a whole tensor)."""
    if p.identity or p.pieces is not None or p.fold or len(p.columns) != 1:
        return False
    if p.size0 != a.size or p.columns[0][2] != _order.VEC or _flat(a) is None:
        return False
    order = [d for d in p.perm if a.shape[d] != 1]
    return order == sorted(order)


def _float_sum(a, dims, keepdim):
    dims = _reduced_dims(a, dims)
    if any(st < 0 for st in a._strides):
        a = copy(a)  # torch has no negative strides: its copy is contiguous
    dt = a.dtype
    f32 = dt == "float32"
    width = _order.lanes(dt)
    p = _order.plan(a.shape, a._strides, 1, dims, keepdim, width)
    if p.empty:
        return _wrap([0.0] * _prod(p.out_shape), p.out_shape, dt)
    if _JS is not None and _one_run_in_memory_order(a, p):
        # what the general path below comes to for this plan, without its views and lists
        # (a loss's sum and every bias-like gradient: 5 sums an iteration of a training loop);
        # torch's output starts at 0.0 and gets the total added: -0.0 becomes 0.0
        total = _JS.cascade_sum(a._data.typecode, _address(a._data, a._off), a.size, width)
        return _wrap([total + 0.0], p.out_shape, dt)
    vals = _vals(permute(a, p.perm))  # the values in torch's iteration order
    if p.identity:
        out = vals
    elif p.pieces is not None:
        totals = []
        for calls in p.pieces:
            part = []
            for start, size0, _size1, cols in calls:
                for j0, j1, method in cols:
                    starts = [start + j * size0 for j in range(j0, j1)]
                    part.extend(_run_totals(vals, starts, size0, method, f32, width))
            totals.append(_vseq([[t] for t in part], f32)[0] if part else 0.0)
        out = _run_totals(totals, None, len(totals), p.pieces_method, f32, width)
    else:
        size0, size1 = p.size0, p.size1
        if len(p.columns) == 1:
            totals = _run_totals(vals, None, size0, p.columns[0][2], f32, width)
        else:
            runs = len(vals) // size0
            totals = [0.0] * runs
            for j0, j1, method in p.columns:
                picked = [g for g in range(runs) if j0 <= g % size1 < j1]
                got = _run_totals(vals, [g * size0 for g in picked], size0, method, f32, width)
                for g, t in zip(picked, got):
                    totals[g] = t
        out = totals
        if p.fold:  # the runs of each output one by one, all outputs side by side
            m = p.middle * size1
            out = _vseq([totals[t::m] for t in range(m)], f32)
    # torch's output starts at 0.0 and gets the total added: -0.0 becomes 0.0
    res = _wrap([x + 0.0 for x in out], p.kept, dt)
    if p.out_axes != tuple(range(len(p.kept))):
        res = copy(permute(res, p.out_axes))
    return reshape(res, p.out_shape)


_S1 = _struct.Struct("f")


def _r1(x):
    try:
        return _S1.unpack(_S1.pack(x))[0]
    except OverflowError:
        return _math.copysign(_INF, x)


def sum(a, dims, keepdim: bool):  # noqa: A001
    a = _as_array(a)
    dt = a.dtype
    if dt in _FLOATS:
        return _float_sum(a, dims, keepdim)
    groups, shp, _ = _groups(a, dims, keepdim)
    return _wrap(_w64([_b_sum(g) for g in groups]), shp, "int64")


def _product(g):
    p = 1
    for x in g:
        p *= x
    return p


def prod(a, dims, keepdim: bool):
    a = _as_array(a)
    dt = a.dtype
    groups, shp, _ = _groups(a, dims, keepdim)
    if dt in _FLOATS:
        out = [_product(map(float, g)) if g else 1.0 for g in groups]
        return _wrap(_r32(out) if dt == "float32" else out, shp, dt)
    return _wrap(_w64([_product(map(int, g)) for g in groups]), shp, "int64")


def _scan(a, dim, step):
    """Running `step` along dim: rows taken with dim last, then put back in place."""
    a = _as_array(a)
    dt = a.dtype
    nd = a.ndim
    out_dt = dt if dt in _FLOATS else "int64"
    if nd == 0:
        return _wrap([_cast_one(_vals(a)[0], out_dt)], (), out_dt)
    order = tuple(d for d in range(nd) if d != dim) + (dim,)
    moved = permute(a, order)
    vals = _vals(moved)
    n = a.shape[dim]
    out = []
    for i in range(0, len(vals), n or 1):
        acc = None
        for x in vals[i:i + n]:
            x = float(x) if dt in _FLOATS else int(x)
            acc = x if acc is None else step(acc, x)
            out.append(acc)
    if dt == "float32":
        out = _r32(out)
    elif out_dt == "int64":
        out = _w64(out)
    back = [0] * nd
    for i, d in enumerate(order):
        back[d] = i
    return copy(permute(_wrap(out, moved.shape, out_dt), tuple(back)))


def cumsum(a, dim: int):
    return _scan(a, dim, _operator.add)


def cumprod(a, dim: int):
    return _scan(a, dim, _operator.mul)


def mean(a, dims, keepdim: bool):
    # sum / count in a's dtype, as numpy_backend does (the mean of nothing is a quiet nan)
    a = _as_array(a)
    total = sum(a, dims, keepdim)
    return div(total, scalar(_count(a, dims), a.dtype if a.dtype in _FLOATS else "int64"))


def _count(a, dims):
    if dims is None:
        return a.size
    if isinstance(dims, int):
        dims = (dims,) if a.ndim else ()
    return _prod(a.shape[d] for d in dims)


def _extreme(a, dims, keepdim, pick, what):
    a = _as_array(a)
    groups, shp, r = _groups(a, dims, keepdim)
    if r == 0:
        raise ValueError(f"zero-size array to reduction operation {what} which has no identity")
    if a.dtype in _FLOATS:
        out = []
        for g in groups:
            s = _b_sum(g)
            # NaN wins, as in numpy; the sum flags it cheaply (inf - inf is re-checked)
            if s != s and any(x != x for x in g):
                out.append(_NAN)
            else:
                out.append(pick(g))
    else:
        out = list(map(pick, groups))
    return _wrap(out, shp, a.dtype)


def amax(a, dims, keepdim: bool):
    return _extreme(a, dims, keepdim, max, "maximum")


def amin(a, dims, keepdim: bool):
    return _extreme(a, dims, keepdim, min, "minimum")


def _arg(a, dim, keepdim, pick, what):
    a = _as_array(a)
    if dim is None:
        a = reshape(a, (-1,))
        dim = 0
        if keepdim:
            raise ValueError("keepdims with axis=None is not supported here")
    groups, shp, r = _groups(a, dim, keepdim)
    if r == 0:
        raise ValueError(f"attempt to get {what} of an empty sequence")
    isf = a.dtype in _FLOATS
    out = []
    for g in groups:
        if isf:
            s = _b_sum(g)
            if s != s:
                i = next((i for i, x in enumerate(g) if x != x), None)
                if i is not None:
                    out.append(i)
                    continue
        out.append(g.index(pick(g)))
    return _wrap(out, shp, "int64")


def argmax(a, dim: int, keepdim: bool):
    """Index of the first maximal element along dim (NaN counts as maximal, as in torch)."""
    return _arg(a, dim, keepdim, max, "argmax")


def argmin(a, dim: int, keepdim: bool):
    return _arg(a, dim, keepdim, min, "argmin")


def _shifted(a, dim):
    """a minus its max along dim, unless the max is -inf or nan (that row stays as it is); a
    +inf max is subtracted, so the row turns to nan as in torch."""
    m = amax(a, dim, True)
    finite = [x if (x == x and x != -_INF) else 0.0 for x in _vals(m)]
    return sub(a, _wrap(finite, m.shape, m.dtype))


def softmax(a, dim: int):
    e = exp(_shifted(a, dim))
    return div(e, sum(e, dim, True))


def log_softmax(a, dim: int):
    shifted = _shifted(a, dim)
    return sub(shifted, log(sum(exp(shifted), dim, True)))


# -- linear algebra ----------------------------------------------------------------------------

def _dot(r, c):
    # fsum, not sum(): builtin sum compensates since 3.12, so 3.11 and Pyodide would disagree
    try:
        return _math.fsum(map(_operator.mul, r, c))
    except (ValueError, OverflowError):
        return _b_sum(map(_operator.mul, r, c), 0.0)  # inf - inf or overflow: IEEE's nan/inf


def matmul(a, b):
    a, b = _as_array(a), _as_array(b)
    if a.ndim == 0 or b.ndim == 0:
        which = 0 if a.ndim == 0 else 1
        raise ValueError(f"matmul: Input operand {which} does not have enough dimensions (has "
                         "0, gufunc core with signature (n?,k),(k,m?)->(n?,m?) requires 1)")
    dt = _promote(a.dtype, b.dtype)
    a_vec, b_vec = a.ndim == 1, b.ndim == 1
    if a_vec:
        a = reshape(a, (1, a.shape[0]))
    if b_vec:
        b = reshape(b, (b.shape[0], 1))
    n, k = a.shape[-2:]
    k2, m = b.shape[-2:]
    if k != k2:
        raise ValueError(
            "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
            f"signature (n?,k),(k,m?)->(n?,m?) (size {k2} is different from {k})")
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    nb = _prod(batch)
    av = _cast(_bvals(a, batch + (n, k), nb * n * k), a.dtype, dt)
    bv = _cast(_bvals(b, batch + (k, m), nb * k * m), b.dtype, dt)
    out = []
    mul_ = _operator.mul
    for i in range(nb):
        ab = av[i * n * k:(i + 1) * n * k]
        bb = bv[i * k * m:(i + 1) * k * m]
        rows = [ab[r * k:(r + 1) * k] for r in range(n)]
        cols = [bb[c::m] for c in range(m)]
        if dt == "bool":
            out.extend(any(map(_operator.and_, r, c)) for r in rows for c in cols)
        elif dt in _FLOATS:
            out.extend(_dot(r, c) for r in rows for c in cols)
        else:
            out.extend(_b_sum(map(mul_, r, c)) for r in rows for c in cols)
    shp = batch + ((n,) if not a_vec else ()) + ((m,) if not b_vec else ())
    return _finish(out, shp, dt)


# -- shape and indexing (these return views where numpy can) ----------------------------------

def _resolve_shape(shape, size):
    shape = _shape_arg(shape)
    if shape.count(-1) > 1:
        raise ValueError("can only specify one unknown dimension")
    if -1 in shape:
        rest = _prod(d for d in shape if d != -1)
        if rest == 0 or size % rest:
            raise ValueError(f"cannot reshape array of size {size} into shape "
                             f"{tuple(shape)}")
        shape = tuple(size // rest if d == -1 else d for d in shape)
    if _prod(shape) != size or any(d < 0 for d in shape):
        raise ValueError(f"cannot reshape array of size {size} into shape {tuple(shape)}")
    return shape


def _nocopy_strides(a, newdims):
    """numpy's _attempt_nocopy_reshape (C order): strides for newdims, or None."""
    if a._c:
        return _cstrides(newdims)
    olddims, oldstrides = [], []
    for d, s in zip(a.shape, a._strides):
        if d != 1:
            olddims.append(d)
            oldstrides.append(s)
    newnd, oldnd = len(newdims), len(olddims)
    newstrides = [0] * newnd
    oi, oj, ni, nj = 0, 1, 0, 1
    while ni < newnd and oi < oldnd:
        np_ = newdims[ni]
        op = olddims[oi]
        while np_ != op:
            if np_ < op:
                np_ *= newdims[nj]
                nj += 1
            else:
                op *= olddims[oj]
                oj += 1
        for ok in range(oi, oj - 1):
            if oldstrides[ok] != olddims[ok + 1] * oldstrides[ok + 1]:
                return None
        newstrides[nj - 1] = oldstrides[oj - 1]
        for nk in range(nj - 1, ni, -1):
            newstrides[nk - 1] = newstrides[nk] * newdims[nk]
        ni = nj
        nj += 1
        oi = oj
        oj += 1
    last = newstrides[ni - 1] if ni >= 1 else 1
    for nk in range(ni, newnd):
        newstrides[nk] = last
    return tuple(newstrides)


def view(a, shape):
    """A view with a new shape, or None when the memory layout does not allow one."""
    shape = _resolve_shape(shape, a.size)
    if shape == a.shape:
        return _new(a._data, a._off, a.shape, a._strides, a.dtype)
    st = _nocopy_strides(a, shape)
    if st is None:
        return None
    return _new(a._data, a._off, shape, st, a.dtype)


def reshape(a, shape):
    v = view(a, shape)
    if v is not None:
        return v
    return _wrap(list(_vals(a)), _resolve_shape(shape, a.size), a.dtype)


def permute(a, dims):
    nd = a.ndim
    dims = tuple(_norm_axis(d, nd) for d in dims)
    if len(dims) != nd or len(set(dims)) != nd:
        raise ValueError("axes don't match array")
    return _new(a._data, a._off, tuple(a.shape[d] for d in dims),
                tuple(a._strides[d] for d in dims), a.dtype)


def diagonal(a, offset: int, d1: int, d2: int):
    r0, c0 = (0, offset) if offset >= 0 else (-offset, 0)
    n = max(min(a.shape[d1] - r0, a.shape[d2] - c0), 0)
    keep = [d for d in range(a.ndim) if d not in (d1, d2)]
    off = a._off + (r0 * a._strides[d1] + c0 * a._strides[d2] if n else 0)
    return _new(a._data, off, tuple(a.shape[d] for d in keep) + (n,),
                tuple(a._strides[d] for d in keep) + (a._strides[d1] + a._strides[d2],),
                a.dtype)


def transpose(a, d0: int, d1: int):
    order = list(range(a.ndim))
    d0, d1 = _norm_axis(d0, a.ndim), _norm_axis(d1, a.ndim)
    order[d0], order[d1] = order[d1], order[d0]
    return permute(a, order)


def expand(a, shape):
    shape = _shape_arg(shape)
    nd, lead = len(shape), len(shape) - a.ndim
    if lead < 0 or any(d < 0 for d in shape):
        raise ValueError(f"operands could not be broadcast together with remapped shapes "
                         f"[original->remapped]: {a.shape}  and requested shape {shape}")
    strides = [0] * nd
    for i in range(a.ndim):
        d, s = a.shape[i], a._strides[i]
        want = shape[lead + i]
        if d == want:
            strides[lead + i] = s if d != 1 else 0
        elif d == 1:
            strides[lead + i] = 0
        else:
            raise ValueError(f"operands could not be broadcast together with remapped shapes "
                             f"[original->remapped]: {a.shape}  and requested shape {shape}")
    return _new(a._data, a._off, shape, tuple(strides), a.dtype)


def _index_array(ix):
    arr = ix if isinstance(ix, ndarray) else array(
        ix, "bool" if ix and all(isinstance(e, bool) for e in _flatten(ix)[1]) else "int64")
    if arr.dtype in _FLOATS:
        raise IndexError("arrays used as indices must be of integer (or boolean) type")
    return arr


def _nonzero(mask):
    """Integer index arrays selecting mask's True positions (numpy's nonzero, C order)."""
    vals = _vals(mask)
    hits = [i for i, v in enumerate(vals) if v]
    out = []
    for size, st in zip(mask.shape, _cstrides(mask.shape)):
        out.append(_wrap([(h // st) % size for h in hits], (len(hits),), "int64"))
    return out


def _parse_index(a, index):
    """Resolve an index into (view, fancy) where view is the basic-indexed array keeping a full
    dim for each fancy index, and fancy lists (dim in view, int64 index array)."""
    if not isinstance(index, tuple):
        index = (index,)
    items = []
    for ix in index:
        if ix is None or ix is Ellipsis or isinstance(ix, slice):
            items.append(ix)
        elif isinstance(ix, bool):
            raise IndexError("indexing with a Python bool is not supported")
        elif isinstance(ix, int):
            items.append(ix)
        elif isinstance(ix, (ndarray, list, tuple)):
            arr = _index_array(ix)
            if arr.dtype == "bool":
                if arr.ndim == 0:
                    raise IndexError("0-d boolean indices are not supported")
                items.append(("mask", arr))
            elif arr.ndim == 0:
                items.append(int(_vals(arr)[0]))
            else:
                items.append(("fancy", arr))
        elif hasattr(ix, "__index__"):
            items.append(_operator.index(ix))
        else:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis "
                             "(`None`) and integer or boolean arrays are valid indices")
    if _b_sum(1 for it in items if it is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consumed = 0
    for it in items:
        if isinstance(it, tuple):
            consumed += it[1].ndim if it[0] == "mask" else 1
        elif it is not None and it is not Ellipsis:
            consumed += 1
    if consumed > a.ndim:
        raise IndexError(f"too many indices for array: array is {a.ndim}-dimensional, but "
                         f"{consumed} were indexed")
    has_fancy = any(isinstance(it, tuple) for it in items)
    off = a._off
    shp, strides, fancy = [], [], []
    d = 0
    for it in items:
        if it is Ellipsis:
            for _ in range(a.ndim - consumed):
                shp.append(a.shape[d])
                strides.append(a._strides[d])
                d += 1
        elif it is None:
            shp.append(1)
            strides.append(0)
        elif isinstance(it, slice):
            start, stop, step = it.indices(a.shape[d])
            shp.append(len(range(start, stop, step)))
            strides.append(a._strides[d] * step)
            off += start * a._strides[d]
            d += 1
        elif isinstance(it, int):
            size = a.shape[d]
            if not -size <= it < size:
                raise IndexError(f"index {it} is out of bounds for axis {d} with size {size}")
            if has_fancy:
                # beside a fancy index an int is fancy too: it decides where the result dims go
                fancy.append((len(shp), _wrap([it], (), "int64")))
                shp.append(size)
                strides.append(a._strides[d])
            else:
                off += (it % size) * a._strides[d]
            d += 1
        elif it[0] == "mask":
            mask = it[1]
            for j, size in enumerate(mask.shape):
                if size != a.shape[d + j]:
                    raise IndexError(
                        f"boolean index did not match indexed array along axis {d + j}; size "
                        f"of axis is {a.shape[d + j]} but size of corresponding boolean axis "
                        f"is {size}")
            for arr in _nonzero(mask):
                fancy.append((len(shp), arr))
                shp.append(a.shape[d])
                strides.append(a._strides[d])
                d += 1
        else:
            fancy.append((len(shp), it[1]))
            shp.append(a.shape[d])
            strides.append(a._strides[d])
            d += 1
    for _ in range(d, a.ndim):
        shp.append(a.shape[d])
        strides.append(a._strides[d])
        d += 1
    return _new(a._data, off, tuple(shp), tuple(strides), a.dtype), fancy


def _fancy_positions(v, fancy):
    """(result shape, storage positions) of advanced indexing on the basic view v."""
    try:
        fshape = broadcast_shapes(*[arr.shape for _, arr in fancy])
    except ValueError:
        raise IndexError("shape mismatch: indexing arrays could not be broadcast together with "
                         "shapes " + " ".join(str(arr.shape) for _, arr in fancy)) from None
    nf = _prod(fshape)
    fpos = [0] * nf
    for dim, arr in fancy:
        size, st = v.shape[dim], v._strides[dim]
        idx = _bvals(arr, fshape, nf)
        for i in idx:
            if not -size <= i < size:
                raise IndexError(f"index {i} is out of bounds for axis {dim} with size {size}")
        fpos = [p + (i % size) * st for p, i in zip(fpos, idx)]
    dims = [dim for dim, _ in fancy]
    adjacent = dims == list(range(dims[0], dims[0] + len(dims)))
    rest = [i for i in range(v.ndim) if i not in dims]
    if adjacent:
        before = [i for i in rest if i < dims[0]]
        after = [i for i in rest if i > dims[0]]
    else:
        before, after = [], rest
    bpos = _positions(tuple(v.shape[i] for i in before), tuple(v._strides[i] for i in before),
                      v._off)
    apos = _positions(tuple(v.shape[i] for i in after), tuple(v._strides[i] for i in after), 0)
    pos = [b + f + q for b in bpos for f in fpos for q in apos]
    shp = (tuple(v.shape[i] for i in before) + fshape + tuple(v.shape[i] for i in after))
    return shp, pos


def getitem(a, index):
    v, fancy = _parse_index(a, index)
    if not fancy:
        return v
    shp, pos = _fancy_positions(v, fancy)
    return _wrap(list(map(a._data.__getitem__, pos)), shp, a.dtype)


def _values_for(values, shp, dtype):
    values = _as_array(values) if not isinstance(values, ndarray) else values
    if values.shape != shp:
        try:
            if broadcast_shapes(values.shape, shp) != shp:
                raise ValueError
        except ValueError:
            raise ValueError(f"shape mismatch: value array of shape {values.shape} could not "
                             f"be broadcast to indexing result of shape {shp}") from None
    return _cast(_bvals(values, shp, _prod(shp)), values.dtype, dtype)


def index_add(shape, index, values, dtype: str):
    """zeros(shape) with values added at index (repeated indices accumulate)."""
    out = zeros(shape, dtype)
    v, fancy = _parse_index(out, index)
    if not fancy:
        shp, pos = v.shape, _positions(v.shape, v._strides, v._off)
    else:
        shp, pos = _fancy_positions(v, fancy)
    vals = _values_for(values, shp, dtype)
    data = out._data
    if dtype == "bool":
        for p, x in zip(pos, vals):
            data[p] = data[p] or x
        return out
    repeated = len(set(pos)) != len(pos)
    for p, x in zip(pos, vals):
        data[p] += x
        if repeated and dtype == "float32":
            # numpy's add.at rounds after every single addition
            data[p] = _r32([data[p]])[0]
    if dtype == "float32" and not repeated:
        out._data = data = _r32(data)
    elif dtype == "int64":
        out._data = _w64(data)
    return out


def setitem(a, index, values) -> None:
    v, fancy = _parse_index(a, index)
    if not fancy:
        assign(v, values)
        return
    shp, pos = _fancy_positions(v, fancy)
    vals = _values_for(values, shp, a.dtype)
    data = a._data
    if vals is data:
        vals = list(vals)
    for p, x in zip(pos, vals):
        data[p] = x


def concat(arrays, dim: int):
    arrays = [_as_array(x) for x in arrays]
    if not arrays:
        raise ValueError("need at least one array to concatenate")
    nd = arrays[0].ndim
    if nd == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    dim = _norm_axis(dim, nd)
    dt = arrays[0].dtype
    for i, x in enumerate(arrays[1:], 1):
        dt = _promote(dt, x.dtype)
        if x.ndim != nd:
            raise ValueError(
                "all the input array dimensions except for the concatenation axis must match "
                f"exactly, but along dimension 0, the array at index 0 has {nd} dimension(s) "
                f"and the array at index {i} has {x.ndim} dimension(s)")
        for d in range(nd):
            if d != dim and x.shape[d] != arrays[0].shape[d]:
                raise ValueError(
                    "all the input array dimensions except for the concatenation axis must "
                    f"match exactly, but along dimension {d}, the array at index 0 has size "
                    f"{arrays[0].shape[d]} and the array at index {i} has size {x.shape[d]}")
    outer = _prod(arrays[0].shape[:dim])
    parts = []
    for x in arrays:
        inner = _prod(x.shape[dim:])
        parts.append((_cast(_vals(x), x.dtype, dt), inner))
    out = []
    for o in range(outer):
        for vals, inner in parts:
            out.extend(vals[o * inner:(o + 1) * inner])
    shp = list(arrays[0].shape)
    shp[dim] = _b_sum(x.shape[dim] for x in arrays)
    return _wrap(out, tuple(shp), dt)


def stack(arrays, dim: int):
    arrays = [_as_array(x) for x in arrays]
    if not arrays:
        raise ValueError("need at least one array to stack")
    if any(x.shape != arrays[0].shape for x in arrays):
        raise ValueError("all input arrays must have the same shape")
    nd = arrays[0].ndim + 1
    dim = _norm_axis(dim, nd)
    return concat([reshape(x, x.shape[:dim] + (1,) + x.shape[dim:]) for x in arrays], dim)


def broadcast_shapes(*shapes):
    shapes = [_shape_arg(s) for s in shapes]
    nd = max((len(s) for s in shapes), default=0)
    out = []
    # dims outer, arguments inner: the same walk as numpy, so the same pair is named on error
    for k in range(nd):
        size, src = 1, None
        for i, s in enumerate(shapes):
            j = k - (nd - len(s))
            if j < 0 or s[j] == 1:
                continue
            if size == 1:
                size, src = s[j], i
            elif s[j] != size:
                raise ValueError(
                    "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch "
                    f"is between arg {src} with shape {shapes[src]} and arg {i} with "
                    f"shape {s}.")
        out.append(size)
    return tuple(out)
