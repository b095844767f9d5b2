"""torch.autograd: backward, grad, grad mode, user Functions, and the graph's node types.

`Function` here is torch's, for users to subclass (custom_function.py); the engine's own ops
derive from `engine.autograd.function.Function`."""

from .api import backward, grad  # noqa: F401
from .custom_function import Function, FunctionCtx, once_differentiable  # noqa: F401
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled  # noqa: F401
from .graph import AccumulateGrad, Node  # noqa: F401
