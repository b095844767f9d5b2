"""torch.autograd: backward, grad, grad mode, user Functions, and the graph's node types.

`Function` here is torch's, for users to subclass (custom_function.py); the engine's own ops
derive from `engine.autograd.function.Function`. `functional` (jacobian, hessian, ...) and
`gradcheck`/`gradgradcheck` need the whole engine, which imports this package first:
engine/__init__.py adds them once the ops are loaded."""

from .api import backward, grad  # noqa: F401
from .custom_function import Function, FunctionCtx, once_differentiable  # noqa: F401
from .grad_mode import (  # noqa: F401
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .graph import AccumulateGrad, Node  # noqa: F401
