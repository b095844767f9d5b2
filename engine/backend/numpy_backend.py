"""Array backend on numpy: the only module of the engine that calls numpy.

Every function takes and returns backend arrays (here: numpy.ndarray); dtypes are passed as
names ("float32", "float64", "int64", "bool"). The pure-Python backend implements the same
functions with the same meaning, so the engine never needs to know which one it runs on.
"""

from __future__ import annotations

import numpy as np

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
    return np.linspace(start, end, steps, dtype=np.float64).astype(_NP[dtype])


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


def assign(dst, src) -> None:
    """Write src (broadcast) into dst's memory: every view of dst sees the change."""
    np.copyto(dst, src, casting="unsafe")


# -- element-wise ------------------------------------------------------------------------------

add = np.add
sub = np.subtract
mul = np.multiply
div = np.true_divide
neg = np.negative
exp = np.exp
log = np.log
sqrt = np.sqrt
abs = np.abs  # noqa: A001 - mirrors the backend interface name
sin = np.sin
cos = np.cos
tanh = np.tanh
sign = np.sign
maximum = np.maximum
minimum = np.minimum
eq = np.equal
ne = np.not_equal
lt = np.less
le = np.less_equal
gt = np.greater
ge = np.greater_equal
logical_not = np.logical_not
isnan = np.isnan


def pow(a, b):  # noqa: A001
    return np.power(a, b)


def sigmoid(a):
    # 1 / (1 + exp(-a)) overflows harmlessly to 0 for very negative a; computed in a's dtype
    one = a.dtype.type(1)
    return one / (one + np.exp(-a))


def where(cond, a, b):
    return np.where(cond, a, b)


def clip(a, lo, hi):
    out = a
    if lo is not None:
        out = np.maximum(out, lo)
    if hi is not None:
        out = np.minimum(out, hi)
    return out if out is not a else a.copy()


# -- reductions --------------------------------------------------------------------------------

def sum(a, dims, keepdim: bool):  # noqa: A001
    return np.sum(a, axis=dims, keepdims=keepdim)


def mean(a, dims, keepdim: bool):
    return np.mean(a, axis=dims, keepdims=keepdim)


def amax(a, dims, keepdim: bool):
    return np.amax(a, axis=dims, keepdims=keepdim)


def amin(a, dims, keepdim: bool):
    return np.amin(a, axis=dims, keepdims=keepdim)


def argmax(a, dim: int, keepdim: bool):
    """Index of the first maximal element along dim (NaN counts as maximal, as in torch)."""
    return np.argmax(a, axis=dim, keepdims=keepdim).astype(np.int64)


def argmin(a, dim: int, keepdim: bool):
    return np.argmin(a, axis=dim, keepdims=keepdim).astype(np.int64)


def logsumexp(a, dim: int):
    m = np.amax(a, axis=dim, keepdims=True)
    m = np.where(np.isfinite(m), m, a.dtype.type(0))
    return np.log(np.sum(np.exp(a - m), axis=dim, keepdims=True)) + m


# -- linear algebra ----------------------------------------------------------------------------

def matmul(a, b):
    return np.matmul(a, b)


# -- shape and indexing (these return views where numpy can) ----------------------------------

def reshape(a, shape):
    return a.reshape(shape)


def view(a, shape):
    """A view with a new shape, or None when the memory layout does not allow one."""
    v = a.view()
    try:
        v.shape = shape
    except AttributeError:
        return None
    return v


def transpose(a, d0: int, d1: int):
    return np.swapaxes(a, d0, d1)


def permute(a, dims):
    return np.transpose(a, dims)


def expand(a, shape):
    return np.broadcast_to(a, shape)


def getitem(a, index):
    return a[index]


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
