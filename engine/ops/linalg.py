"""matmul and its torch decompositions: dot, mv, mm, and the folded/batched forms."""

from __future__ import annotations

from .. import backend as B
from .. import budget as _budget
from ..autograd.function import Function, apply
from . import formulas
from .helpers import check_broadcast, promote
from .registry import export
from .shape import SqueezeMatmul, UnsafeView

_LONG = {"int64": "long int", "float32": "float", "float64": "double", "bool": "bool"}
_TYPE = {"int64": "Long", "float32": "Float", "float64": "Double", "bool": "Bool"}


def _same_dtype(a, b):
    if a._dtype is not b._dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {_LONG[a._dtype.name]} != "
            f"{_LONG[b._dtype.name]}"
        )


class Dot(Function):
    name_ = "DotBackward0"
    zero_passes = (0, 1)  # torch's kernel keeps sgn's zero gradient (autograd/zero_grad.py)
    saved_fields = {"tensor": 0, "self": 1}  # grad_fn._saved_<name>: position in _saved
    chain_rule = ("∂(self·other)/∂self = other, ∂/∂other = self: to self {grad}·other, to other "
                  "{grad}·self")
    array_backward = True

    def forward(self, a, b):
        self.save(b if self.needs(0) else None, a if self.needs(1) else None)
        return B.matmul(a._data, b._data)

    def backward(self, grad):
        b, a = self.saved_tensors
        return (grad * b if self.needs(0) else None, grad * a if self.needs(1) else None)


class Mv(Function):
    name_ = "MvBackward0"
    saved_fields = {"vec": 0, "self": 1}  # grad_fn._saved_<name>: position in _saved
    chain_rule = "∂(A @ v)/∂A = grad ⊗ v, ∂/∂v = Aᵀ @ grad"

    def forward(self, m, v):
        self.save(v if self.needs(0) else None, m if self.needs(1) else None)
        return B.matmul(m._data, v._data)

    def backward(self, grad):
        v, m = self.saved_tensors
        gm = grad.unsqueeze(1) * v if self.needs(0) else None
        gv = m.t().mv(grad) if self.needs(1) else None
        return gm, gv


class Mm(Function):
    name_ = "MmBackward0"
    saved_fields = {"mat2": 0, "self": 1}  # grad_fn._saved_<name>: position in _saved
    chain_rule = "∂(A @ B)/∂A = grad @ Bᵀ, ∂/∂B = Aᵀ @ grad"
    array_backward = True

    def forward(self, a, b):
        self.save(b if self.needs(0) else None, a if self.needs(1) else None)
        self.column_major = column_major(self, a, b)
        return B.matmul(a._data, b._data)

    def backward(self, grad):
        b, a = self.saved_tensors
        a_cm, b_cm = self.column_major
        ga = mm_mat1_backward(grad, b, a_cm) if self.needs(0) else None
        gb = mm_mat2_backward(grad, a, b_cm) if self.needs(1) else None
        return ga, gb


def column_major(node, mat1, mat2) -> tuple:
    """For each matrix input of `node` that requires grad, whether it is stored transposed (as
    Linear's `weight.t()` is). torch keeps this layout for the gradient: see below."""
    return tuple(node.needs(i) and _transposed(m._data) for i, m in ((-2, mat1), (-1, mat2)))


def _transposed(d) -> bool:
    return not B.is_contiguous(d) and B.is_contiguous(B.transpose(d, 0, 1))


def mm_mat1_backward(grad, mat2, column_major: bool):
    """d(mat1 @ mat2)/d mat1, laid out like mat1 was (torch's mm_mat1_backward)."""
    if column_major:
        return formulas.t(formulas.mm(mat2, formulas.t(grad)))
    return formulas.mm(grad, formulas.t(mat2))


def mm_mat2_backward(grad, mat1, column_major: bool):
    """d(mat1 @ mat2)/d mat2, laid out like mat2 was (torch's mm_mat2_backward): the gradient
    of Linear's weight then comes out contiguous instead of needing a transposing copy."""
    if column_major:
        return formulas.t(formulas.mm(formulas.t(grad), mat1))
    return formulas.mm(formulas.t(mat1), grad)


class Bmm(Function):
    name_ = "BmmBackward0"
    saved_fields = {"mat2": 0, "self": 1}  # grad_fn._saved_<name>: position in _saved
    chain_rule = "for each batch, ∂(A @ B)/∂A = grad @ Bᵀ, ∂/∂B = Aᵀ @ grad"

    def forward(self, a, b):
        self.save(b if self.needs(0) else None, a if self.needs(1) else None)
        return B.matmul(a._data, b._data)

    def backward(self, grad):
        b, a = self.saved_tensors
        ga = grad.bmm(b.transpose(1, 2)) if self.needs(0) else None
        gb = a.transpose(1, 2).bmm(grad) if self.needs(1) else None
        return ga, gb


# The public functions check their arguments in torch's order (ranks, sizes, dtypes: the
# first failing check names the error), so no numpy error can surface from the forward.

@export()
def mm(input, mat2):
    sa, sb = B.shape(input._data), B.shape(mat2._data)
    if len(sa) != 2:
        raise RuntimeError("self must be a matrix")
    if len(sb) != 2:
        raise RuntimeError("mat2 must be a matrix")
    if sa[1] != sb[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({sa[0]}x{sa[1]} and {sb[0]}x{sb[1]})"
        )
    if input._dtype is not mat2._dtype:
        _same_dtype(input, mat2)
    if input._dtype.name == "bool":
        _not_bool(input, "addmm_impl_cpu_")
    _budget.work(sa[0] * sa[1] * sb[1])
    return apply(Mm, (input, mat2))


@export()
def mv(input, vec):
    sm, sv = B.shape(input._data), B.shape(vec._data)
    if not sm:  # torch reads input.size(0) first
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if len(sm) != 2 or len(sv) != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {len(sm)}, {len(sv)}")
    if sm[1] != sv[0]:
        raise RuntimeError(
            f"size mismatch, got input ({sm[0]}), mat ({sm[0]}x{sm[1]}), vec ({sv[0]})"
        )
    if input._dtype is not vec._dtype:
        m, v = _TYPE[input._dtype.name], _TYPE[vec._dtype.name]
        raise RuntimeError(
            f"addmv input tensors must have the same dtype, but got {v}, {m}, and {v}")
    _not_bool(input, "addmv_impl_cpu")
    _budget.work(sm[0] * sm[1])
    return apply(Mv, (input, vec))


@export()
def dot(input, other):
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(
            f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    if input._dtype is not other._dtype:
        raise RuntimeError(
            "dot : expected both vectors to have same dtype, but found "
            f"{_TYPE[input._dtype.name]} and {_TYPE[other._dtype.name]}")
    n, m = input.shape[0], other.shape[0]
    if n != m:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same "
            f"number of elements, but got {n} and {m} elements respectively"
        )
    _not_bool(input, "dot")
    _budget.work(n)
    return apply(Dot, (input, other))


@export()
def bmm(input, mat2):
    sa, sb = B.shape(input._data), B.shape(mat2._data)
    if len(sa) != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if len(sb) != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if (sb[0], sb[1]) != (sa[0], sa[2]):
        raise RuntimeError(
            "Expected size for first two dimensions of batch2 tensor to be: "
            f"[{sa[0]}, {sa[2]}] but got: [{sb[0]}, {sb[1]}].")
    _not_bool(input, "bmm")
    if input._dtype is not mat2._dtype:
        raise RuntimeError(f"expected scalar type {_TYPE[input._dtype.name]} but found "
                           f"{_TYPE[mat2._dtype.name]}")
    _budget.work(sa[0] * sa[1] * sa[2] * sb[2])
    return apply(Bmm, (input, mat2))


def _not_bool(t, kernel: str) -> None:
    if t._dtype.name == "bool":
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


@export(operators=("__matmul__",),
        palette={"code": "{0} @ {1}", "arity": 2, "group": "linear algebra", "label": "a @ b"})
def matmul(input, other):
    """torch.matmul, decomposed exactly as torch records it in the graph."""
    da, db = input.ndim, other.ndim
    if da == 0 or db == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D"
        )
    promote(input, other)
    if da == 1 and db == 1:
        return dot(input, other)
    if da == 2 and db == 1:
        return mv(input, other)
    if da == 1 and db == 2:
        sa, sb = input.shape, other.shape
        if sa[0] != sb[0]:
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied (1x{sa[0]} and {sb[0]}x{sb[1]})"
            )
        return apply(SqueezeMatmul, (input.unsqueeze(0).mm(other),), (0,))
    if da == 2 and db == 2:
        return mm(input, other)
    if _should_fold(input, other):
        return _folded(input, other)
    if da == 3 and db == 3 and input.shape[0] != other.shape[0]:
        # torch: a batch of one that requires grad is squeezed, so that matmul folds
        if input.shape[0] == 1 and input.requires_grad:
            return matmul(input.squeeze(0), other)
        if other.shape[0] == 1 and other.requires_grad:
            return matmul(input, other.squeeze(0))
    return _batched(input, other)


def _should_fold(a, b) -> bool:
    """torch's should_fold: whether matmul folds the batch dims of the bigger operand (3-D or
    more, the other 1-D or 2-D) into the rows of one mm or mv instead of a bmm. It does when
    the smaller one requires grad, or when the fold needs no copy (and the smaller one is not
    a matrix on the left)."""
    a_larger = a.ndim >= b.ndim
    t1 = a if a_larger else b.mT
    if not (t1.ndim >= 3 and (b.ndim if a_larger else a.ndim) <= 2):
        return False
    if (b if a_larger else a).requires_grad:
        return True
    if a.ndim == 2:
        return False
    if t1.numel() == 0:
        return True
    shape, strides = t1.shape, t1.stride()
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(t1.ndim - 2))


def _folded(a, b):
    """torch's folded matmul: the bigger operand (transposed when it is on the right) viewed
    as rows, one mm or mv, viewed back (and transposed back, copied when not contiguous)."""
    transpose = b.ndim > a.ndim
    t1 = b.mT if transpose else a
    t2 = (a.t() if a.ndim == 2 else a) if transpose else b
    shape = tuple(t1.shape[:-1])
    rows = t1.reshape(_prod(shape), t1.shape[-1])
    if t2.ndim == 1:
        return apply(UnsafeView, (rows.mv(t2),), shape)
    out = apply(UnsafeView, (rows.mm(t2),), shape + (t2.shape[1],))
    return out.mT.contiguous() if transpose else out


def _batched(a, b):
    a2 = a.unsqueeze(0) if a.ndim == 1 else a
    b2 = b.unsqueeze(-1) if b.ndim == 1 else b
    check_broadcast(tuple(a2.shape[:-2]), tuple(b2.shape[:-2]))  # torch's error, not numpy's
    batch = B.broadcast_shapes(tuple(a2.shape[:-2]), tuple(b2.shape[:-2]))
    n, k = a2.shape[-2], a2.shape[-1]
    k2, m = b2.shape[-2], b2.shape[-1]
    if k != k2:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{_prod(batch)}, {k}] but got: [{_prod(batch)}, {k2}]."
        )
    a3 = a2.expand(*batch, n, k).reshape(_prod(batch), n, k)  # (not -1: the batch may be
    b3 = b2.expand(*batch, k, m).reshape(_prod(batch), k, m)  # empty, -1 then has no answer)
    out = a3.bmm(b3)
    shape = tuple(batch) + ((n,) if a.ndim > 1 else ()) + ((m,) if b.ndim > 1 else ())
    return apply(UnsafeView, (out,), shape)


def _prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p



@export(method=False, function=False, operators=("__rmatmul__",))
def _rmatmul(self, other):
    return matmul(other, self)
