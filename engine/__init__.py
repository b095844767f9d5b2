"""gradplay's autograd engine: a numpy-backed (or pure-Python) stand-in for torch on its subset.

`import engine as torch` runs torch code unchanged on the supported subset and prints what torch
prints. The semantics it keeps are listed as numbered rules in docs/semantics.md.
"""

from __future__ import annotations

from . import (  # noqa: F401
    autograd,
    cuda,  # noqa: F401
    observer,
)
from . import backend as _backend
from .autograd.grad_mode import (  # noqa: F401
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .creation import (  # noqa: F401
    arange,
    as_tensor,
    empty,
    empty_like,
    eye,
    full,
    full_like,
    linspace,
    logspace,
    ones,
    ones_like,
    tensor,
    zeros,
    zeros_like,
)
from .device import device  # noqa: F401
from .dtypes import bool_ as bool  # noqa: A001
from .dtypes import dtype, float32, float64, int64
from .dtypes import result_type as _result_type
from .legacy import DoubleTensor, FloatTensor, LongTensor  # noqa: F401
from .ops import FUNCTIONS as _FUNCTIONS
from .ops import PALETTE as OP_PALETTE  # noqa: F401
from .printing import Size, set_printoptions  # noqa: F401
from .rng import Generator  # noqa: F401
from .rng import ops as _rng_ops
from .state import EngineState, fresh_state, use_state  # noqa: F401
from .tensor import Tensor

float = float32  # noqa: A001
double = float64
long = int64
__version__ = "2.13.0+gradplay"

# torch-level op functions (torch.add ...); Tensor's methods were installed when the ops loaded
globals().update(_FUNCTIONS)
globals().update(_rng_ops.FACTORIES)  # rand, randn, manual_seed, ...
from . import func, linalg, nn, optim, utils  # noqa: E402,F401  (they use the ops registered above)
from .autograd import functional as _autograd_functional  # noqa: E402,F401
from .autograd import gradcheck as _gradcheck  # noqa: E402

# torch.autograd.gradcheck is the function (it shadows its module there too)
autograd.gradcheck, autograd.gradgradcheck = _gradcheck.gradcheck, _gradcheck.gradgradcheck

from .torch_names import TORCH_NAMES as _TORCH_NAMES  # noqa: E402


def _take_torch_names() -> None:
    """Give each class a program can name torch's module and qualified name, so it prints as in
    torch (`<class 'torch.nn.modules.linear.Linear'>`, `<torch.optim.sgd.SGD object at ...>`)."""
    import sys

    for path, (module, qualname) in _TORCH_NAMES.items():
        owner = sys.modules[__name__]
        for part in path.split(".")[1:-1]:
            owner = getattr(owner, part, None)
        cls = getattr(owner, path.rsplit(".", 1)[1], None)
        if isinstance(cls, type):
            cls.__module__, cls.__qualname__ = module, qualname


_take_torch_names()

# Recording an operation allocates a handful of small objects (the result tensor, its node, the
# node's edges and saved tensors), and all of them stay alive until backward frees the graph.
# CPython's cycle collector runs after every 700 such allocations (its default first
# threshold) and, as the survivors age, re-examines the whole growing graph: about a tenth of
# the work of recording a 2,000-op chain went into collections that found nothing to free.
# A higher first threshold makes those rare; cycles are still collected, only in larger
# batches. (A host that limits memory per run collects on its own when a run's tensors grow,
# as playground/limits.py does.) A threshold someone already raised is kept.
_GC_FIRST_THRESHOLD = 20_000


def _raise_gc_threshold() -> None:
    import gc

    first, *older = gc.get_threshold()
    if 0 < first < _GC_FIRST_THRESHOLD:
        gc.set_threshold(_GC_FIRST_THRESHOLD, *older)


_raise_gc_threshold()


def __getattr__(name):
    # torch.default_generator is the current session's (engine.state), so it is looked up
    if name == "default_generator":
        from . import state

        return state.current().default_generator
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)


def numel(input) -> int:
    return input.numel()


def result_type(tensor1, tensor2):
    return _result_type((tensor1, tensor2))


def get_default_dtype():
    return float32


def use_backend(name: str) -> None:
    """Switch the array backend ('numpy' or 'pure') for tensors created from now on."""
    _backend.use(name)


def backend_name() -> str:
    return _backend.NAME


__all__ = ["Tensor", "Size", "dtype", "float32", "float64", "int64", "bool", "tensor"]
