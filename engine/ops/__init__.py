"""Every differentiable operation, one class and one public function each.

Importing this package registers all ops: their public functions go to the `engine`
namespace and/or become Tensor methods, and their palette entries feed the playground UI.
"""

from . import arithmetic, compare, inplace, linalg, nn_ops, reduction, shape, unary  # noqa: F401
from .registry import FUNCTIONS, METHODS, PALETTE  # noqa: F401
