"""engine.optim: the optimizers on the Optimizer base, and lr_scheduler, importable as
torch.optim."""

from __future__ import annotations

from . import lr_scheduler  # noqa: F401
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "lr_scheduler"]
