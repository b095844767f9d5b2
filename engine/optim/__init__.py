"""engine.optim: SGD and Adam on the Optimizer base, importable as torch.optim."""

from __future__ import annotations

from .adam import Adam
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam"]
