"""torch's efficient zero gradient: what `sgn` sends back, and how backward carries it.

torch's `sgn` (of a real tensor) returns as its gradient an "efficient zero tensor", a tensor
that is zero without any memory. The kernels torch registers for it (multiplication, division
of it by something, addition, `sum`'s expand, reshapes, `cat`, ...) return another one without
computing, so it stays an exact +0 where computing with zeros would not (0 * inf is nan,
0 * -2 is -0.0); added to another gradient it leaves that gradient as it is (-0.0 stays -0.0);
every other kernel reads it as ordinary zeros. The engine sends the marker `ZERO` along an edge
instead of a gradient; a node whose torch formula keeps it passes `ZERO` on to the inputs its
Function class lists in `zero_passes`, and the others get what its formula gives for zeros.
Where it arrives at a leaf it becomes zeros (docs/semantics.md says what torch does there).
"""

from __future__ import annotations

from .. import backend as B


class _Zero:
    __slots__ = ()

    def __repr__(self) -> str:
        return "ZERO"


ZERO = _Zero()


def zeros(shape, dtype, as_array: bool):
    """The zeros `ZERO` stands for: a backend array, or a Tensor."""
    data = B.zeros(shape, dtype.name)
    if as_array:
        return data
    from ..tensor import Tensor

    return Tensor._make(data, dtype)


def add(a, b, create_graph: bool):
    """a + b where either may be ZERO, for the engine's `_add_grads`, as torch's InputBuffer
    adds them: a ZERO that was there first leaves the new gradient as it is; a ZERO arriving at
    a gradient torch adds into in place (dense, and grad mode off) makes its -0.0 +0.0, as
    adding real zeros would; a gradient that is not dense, or any under create_graph, stays."""
    if a is ZERO:
        return b
    if create_graph:
        return a
    from ..tensor import Tensor

    data = a._data if isinstance(a, Tensor) else a
    if not B.is_contiguous(data):
        return a
    out = B.add(data, B.scalar(0, B.dtype_name(data)))
    return Tensor._make(out, a._dtype) if isinstance(a, Tensor) else out


def passed_on(node, grads_in) -> tuple:
    """The gradients a node sends when ZERO arrived: its formula's, run on zeros, with ZERO
    for the inputs torch's kernels keep it for."""
    passes = type(node).zero_passes
    return tuple(ZERO if g is not None and i in passes else g for i, g in enumerate(grads_in))
