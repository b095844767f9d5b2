"""torch's dimension-index rule, shared by Tensor and the ops."""

from __future__ import annotations


def wrap_dim(dim: int, ndim: int) -> int:
    """Negative dims count from the end; a 0-dim tensor accepts -1 and 0 (maybe_wrap_dim)."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim + n if dim < 0 else dim
