"""Every differentiable operation, one class and one public function each.

Importing this package imports every op module, whose `export` decorators fill the registry
(engine/ops/registry.py), and then installs the registered methods and operators on Tensor.
engine/tensor.py imports this package on its last line, so the Tensor class is whole as soon as
anything can see it. An op module imports the modules it uses at its top; none imports this
package's names, so the order below does not matter.
"""

from ..rng import ops as _random_ops  # noqa: F401 - registers uniform_, normal_, bernoulli_, ...
from ..tensor import Tensor
from . import (  # noqa: F401
    addc,
    angles,
    arithmetic,
    binning,
    clamp_bounds,
    compare,
    cross,
    cumulative,
    diagonal,
    differences,
    distances,
    einsum,
    extremes,
    gather,
    grids,
    inplace,
    layout,
    like,
    linalg,
    logical,
    masking,
    modulo,
    nanreduce,
    nn_ops,
    nonzero,
    norms,
    pointwise,
    reduction,
    reorder,
    running,
    shape,
    sorting,
    split,
    statistics,
    triangle_indices,
    unary,
    unique,
)
from .registry import FUNCTIONS, METHODS, OPERATORS, PALETTE, install

install(Tensor)

__all__ = ["FUNCTIONS", "METHODS", "OPERATORS", "PALETTE"]
