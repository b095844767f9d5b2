"""The singular value decomposition as torch's autograd sees it: one LinalgSvdBackward0 node
with three outputs (U, S, Vh; reduced), and torch.linalg.svdvals, its S output. The matrix
norms made of singular values (ord 2, -2, 'nuc') are built on svdvals in engine/ops/norms.py,
as torch builds them.

U and Vh are kept on the node as saved outputs (torch's SavedVariable of an output), so the
gradient, computed from them with engine ops, can be differentiated again: its graph leads back
into this node through U and Vh. The backward is torch's svd_backward, which assumes distinct
singular values (where two are equal it divides by zero, as torch does). The singular vectors
themselves are not offered (`torch.linalg.svd` raises): their signs are LAPACK's choice, and
the pure backend's Jacobi method would choose others; the values and gradients below do not
depend on those signs."""

from __future__ import annotations

from .. import backend as B
from ..autograd.function import Function, apply_multi
from ..autograd.graph import save
from ..creation import eye
from ..tensor import Tensor

_TYPE = {"int64": "Long", "bool": "Bool", "float32": "Float", "float64": "Double"}


class LinalgSvd(Function):
    name_ = "LinalgSvdBackward0"
    chain_rule = ("A = U·diag(S)·Vh: to A U·diag({grad} of S)·Vh, plus the terms of U's and Vh's "
                  "gradients (torch's svd_backward)")

    # the engine's array path (nothing records) hands over the outputs' gradients as arrays:
    # backward_arrays makes them Tensors for the formula below
    array_backward = True

    def forward(self, a):
        return list(B.svd(a._data))

    def backward_arrays(self, grads, dtype):
        self.check_not_freed()
        return self.backward([None if g is None else Tensor._make(g, dtype) for g in grads])

    def backward(self, grads):
        gU, gS, gVh = grads
        U, S, Vh = self.saved_tensors
        return (svd_backward(gU, gS, gVh, U, S, Vh),)

    def joined_grad(self, grads):
        """For the observer, which shows one gradient per node: the singular values'."""
        return grads[1] if grads[1] is not None else next((g for g in grads if g is not None),
                                                          None)


def _mH(t: Tensor) -> Tensor:
    return t.transpose(-2, -1)


def svd_backward(gU, gS, gVh, U, S, Vh):
    """torch's svd_backward (FunctionsManual.cpp) for real inputs and reduced U, Vh."""
    if gU is None and gS is None and gVh is None:
        return None
    m, n = U.shape[-2], Vh.shape[-1]
    if gU is None and gVh is None:  # svdvals: U diag(gS) Vh
        if m >= n:
            return U.matmul(gS.unsqueeze(-1) * Vh)
        return (U * gS.unsqueeze(-2)).matmul(Vh)
    k = S.shape[-1]
    UhgU = VhgV = None
    if gU is not None:
        UhgU = _mH(U).matmul(gU)
        UhgU = UhgU - _mH(UhgU)
    if gVh is not None:
        VhgV = Vh.matmul(_mH(gVh))
        VhgV = VhgV - _mH(VhgV)
    S2 = S * S
    # E[j, k] = S_k^2 - S_j^2 off the diagonal, 1 on it (only divided into zeros there)
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + eye(k, dtype=S.dtype)
    if UhgU is not None and VhgV is not None:
        gA = (UhgU * S.unsqueeze(-2) + S.unsqueeze(-1) * VhgV) / E
    elif UhgU is not None:
        gA = UhgU * (S.unsqueeze(-2) / E)
    else:
        gA = S.unsqueeze(-1) * (VhgV / E)
    if gS is not None:
        gA = gA + gS.unsqueeze(-1) * eye(k, dtype=S.dtype)
    if m > n and gU is not None:
        gA = U.matmul(gA)
        gUSinv = gU / S.unsqueeze(-2)
        gA = gA + gUSinv - U.matmul(_mH(U).matmul(gUSinv))
        return gA.matmul(Vh)
    if m < n and gVh is not None:
        gA = gA.matmul(Vh)
        SinvgVh = gVh / S.unsqueeze(-1)
        gA = gA + SinvgVh - SinvgVh.matmul(_mH(Vh)).matmul(Vh)
        return U.matmul(gA)
    return U.matmul(gA.matmul(Vh)) if m >= n else U.matmul(gA).matmul(Vh)


def _check(A) -> None:
    if not A.dtype.is_floating_point:
        raise RuntimeError("linalg.svd: Expected a floating point or complex tensor as input. "
                           f"Got {_TYPE[A.dtype.name]}")
    if A.ndim < 2:
        raise RuntimeError("linalg.svd: The input tensor A must have at least 2 dimensions.")


def _svd(A):
    _check(A)
    outs = apply_multi(LinalgSvd, (A,))
    node = outs[0]._grad_fn
    if node is not None:  # U, S and Vh saved as outputs of the node, for its backward
        node._saved = node._saved + tuple(save(o, LinalgSvd.name_) for o in outs)
    return outs


def svdvals(A, *, driver=None, out=None):
    return _svd(A)[1]


def svd(A, full_matrices=True, *, driver=None, out=None):
    raise NotImplementedError("torch.linalg.svd is not available in the playground (the signs "
                              "of singular vectors are the linear algebra library's choice); "
                              "torch.linalg.svdvals and the matrix norms are")

