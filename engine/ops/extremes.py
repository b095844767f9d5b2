"""aminmax: the smallest and the largest value in one call, over everything or along a dim.

One node with two outputs (AminmaxBackward0): each output's gradient is shared evenly among
the elements equal to it, as amin's and amax's are, and the two are added (an output no
gradient reached adds nothing).
"""

from __future__ import annotations

from collections import namedtuple

from .. import backend as B
from ..autograd.function import Function, apply_multi
from ..tensor import Tensor
from .helpers import wrap_dim
from .reduction import _restore
from .registry import export

return_types_aminmax = namedtuple("aminmax", ["min", "max"])
return_types_aminmax.__module__ = "torch.return_types"
return_types_aminmax.__repr__ = lambda self: (
    f"torch.return_types.aminmax(\nmin={self.min!r},\nmax={self.max!r})")


class Aminmax(Function):
    name_ = "AminmaxBackward0"
    chain_rule = ("aminmax passes each output's gradient to the elements equal to it (split evenly "
                  "between ties), 0 elsewhere, and adds the two")

    def forward(self, a, dims, keepdim):
        self.save(a)
        x = a._data
        self.dims, self.keepdim = dims, keepdim
        self.results = (B.amin(x, dims, keepdim), B.amax(x, dims, keepdim))
        self.keep_for_backward()  # torch saves both results
        return list(self.results)

    def backward(self, grads):
        (a,) = self.saved_tensors
        nd = a.ndim
        dims = self.dims if self.dims is not None else tuple(range(nd))
        out = None
        for g, r in zip(grads, self.results):
            if g is None:
                continue
            g = _restore(g, self.dims, nd, self.keepdim)
            mask = a == _restore(Tensor._make(r, a._dtype), self.dims, nd, self.keepdim)
            term = g * mask / mask.sum(dims, keepdim=True)
            out = term if out is None else out + term
        return (out,)

    def joined_grad(self, grads):
        """The outputs' gradients as one tensor, for the observer: stacked (zeros where none)."""
        parts = [B.zeros(B.shape(r), B.dtype_name(r)) if g is None else g._data
                 for g, r in zip(grads, self.results)]
        return Tensor._make(B.stack(parts, 0))


@export()
def aminmax(input, *, dim=None, keepdim=False):
    shape = tuple(input.shape)
    if dim is None:
        if not input.numel():
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                               "operation has no identity.")
        dims = None
        if keepdim:  # every dim kept as a 1
            mn, mx = apply_multi(Aminmax, (input,), tuple(range(input.ndim)), True)
            return return_types_aminmax(mn, mx)
    else:
        d = wrap_dim(dim, input.ndim)
        if shape and shape[d] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
        dims = (d,) if shape else None
    mn, mx = apply_multi(Aminmax, (input,), dims, keepdim if dims is not None else False)
    return return_types_aminmax(mn, mx)
