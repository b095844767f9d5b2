"""Small helpers shared by the ops: scalar wrapping, type promotion, broadcasting checks."""

from __future__ import annotations

from .. import backend as B
from .. import budget as _budget
from .. import errors, sizes
from ..dims import wrap_dim  # noqa: F401 - re-exported for the ops
from ..dtypes import float32, result_type
from ..tensor import Tensor


def zeros_gradient(grad: Tensor) -> Tensor:
    """The gradient torch sends along an edge whose derivative is zero: zeros_like(grad), a
    constant +0.0 (``grad * 0`` would give -0.0 for a negative and NaN for an infinite grad)."""
    if not isinstance(grad, Tensor):  # an array, in an op's array_backward
        return B.zeros(B.shape(grad), B.dtype_name(grad))
    return Tensor._make(B.zeros(B.shape(grad._data), B.dtype_name(grad._data)), grad._dtype)


def wrap(value, like: Tensor) -> Tensor:
    """A Python number as a 0-dim tensor for an op with `like` (torch's "wrapped number")."""
    if isinstance(value, Tensor):
        return value
    if not isinstance(value, (bool, int, float)):
        raise TypeError(
            f"unsupported operand type: expected a Tensor or a number, got {type(value).__name__}"
        )
    dt = like._dtype
    if not dt.is_floating_point or like._wrapped:
        dt = result_type((like, value))  # a floating tensor keeps its dtype: skip the rules
    t = Tensor._make(B.scalar(value, dt.name), dt)
    t._wrapped = True
    return t


def promote(a: Tensor, b: Tensor):
    return a._dtype if a._dtype is b._dtype else result_type((a, b))


def cast(t: Tensor, dt):
    return t._data if t._dtype is dt else B.astype(t._data, dt.name)


def float_data(t: Tensor):
    """The data of t as a floating array (int and bool tensors compute in float32)."""
    return t._data if t._dtype.is_floating_point else B.astype(t._data, float32.name)


def check_broadcast(sa: tuple, sb: tuple) -> None:
    """Raise torch's error when shapes sa and sb do not broadcast; and, under a run's budget,
    refuse a result with too many elements before it is made (two vectors of a million
    elements broadcast to a trillion, as in `outer`)."""
    if sa == sb:
        return
    n = max(len(sa), len(sb))
    numel = 1
    for i in range(1, n + 1):
        da = sa[-i] if i <= len(sa) else 1
        db = sb[-i] if i <= len(sb) else 1
        if da != db and da != 1 and db != 1:
            raise RuntimeError(errors.size_mismatch(da, db, n - i))
        numel *= da if db == 1 else db
    _budget.elements(numel, "broadcasting")


def dims_tuple(dim, ndim: int):
    """Normalise a dim argument (None, int, or sequence) to a sorted tuple of dims, or None."""
    if dim is None:
        return None
    if isinstance(dim, int):
        dims = (wrap_dim(dim, ndim),)
    else:
        dims = tuple(sorted(wrap_dim(d, ndim) for d in dim))
    # a 0-dim tensor takes dim 0 or -1 and has nothing to reduce along it (torch returns it)
    return dims if ndim else ()


def size_args(size, fn: str = "view", name: str = "size", overloaded: tuple = ()) -> tuple:
    """Accept fn(2, 3), fn((2, 3)) and fn([2, 3]) as torch does, and refuse what torch refuses
    (floats, float tensors) with torch's TypeError (engine/sizes.py)."""
    return sizes.size_from_varargs(fn, tuple(size), name, overloaded=overloaded)


def edges_that_require_grad(node) -> None:
    """torch's NotImplemented nodes have an edge only for the inputs that require grad (no
    empty edge for the others); call from such a node's forward. Its backward raises, so no
    gradient is ever delivered along the edges."""
    needs = node._needs
    if needs is not None:
        node.next_functions = tuple(e for e, n in zip(node.next_functions, needs) if n)
