"""torch.autograd: backward, grad, grad mode, and the graph's node types.

`functional` (jacobian, hessian, ...) and `gradcheck`/`gradgradcheck` need the whole engine,
which imports this package first: engine/__init__.py adds them once the ops are loaded."""

from .api import backward, grad  # noqa: F401
from .function import Function  # noqa: F401
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled  # noqa: F401
from .graph import AccumulateGrad, Node  # noqa: F401
