"""engine.nn: Module, Parameter, layers and losses, importable as torch.nn."""

from __future__ import annotations

from . import functional, init  # noqa: F401
from .module import Module
from .modules import (
    CrossEntropyLoss,
    Hardtanh,
    Identity,
    Linear,
    LogSoftmax,
    ModuleList,
    MSELoss,
    NLLLoss,
    ReLU,
    Sequential,
    Sigmoid,
    Softmax,
    Tanh,
)
from .parameter import Parameter

__all__ = [
    "Module", "Parameter", "Identity", "Linear", "ReLU", "Hardtanh", "Tanh", "Sigmoid",
    "Softmax", "LogSoftmax", "Sequential", "ModuleList", "MSELoss", "NLLLoss", "CrossEntropyLoss",
    "functional", "init",
]
