"""torch.linalg: the norms (engine/ops/norms.py), svdvals (engine/ops/svd.py) and cross
(engine/ops/cross.py). Its other functions are not in the engine."""

from __future__ import annotations

from .ops.cross import linalg_cross as cross
from .ops.norms import linalg_norm as norm
from .ops.norms import matrix_norm, vector_norm
from .ops.svd import svd, svdvals

__all__ = ["norm", "vector_norm", "matrix_norm", "svdvals", "svd", "cross"]
