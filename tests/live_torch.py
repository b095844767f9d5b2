"""Real PyTorch as a second oracle, when it imports.

Every test compares the engine with values recorded from torch 2.13 (so it passes without torch);
when that very version imports, tests also compare live. Another torch version is not used: its
results may differ from the recordings for reasons that are not the engine's.
"""

from __future__ import annotations

import engine

try:
    import torch as real_torch

    if not real_torch.__version__.startswith("2.13."):
        real_torch = None
except ImportError:  # torch is optional; the recordings are the oracle
    real_torch = None

# the torch-like modules a rule is checked on: the engine always, torch too when it imports
TORCH_LIKE = [engine] + ([real_torch] if real_torch is not None else [])


def torch_like_id(module) -> str:
    return "engine" if module is engine else "torch"
