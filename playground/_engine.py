"""The engine package, found where this package is installed.

In the repository engine/ and playground/ are two top-level packages, so that `import engine as
torch` works from its root. The installed distribution claims one import name only: there they
are `gradplay.engine` and `gradplay` itself (the names `engine` and `playground` belong to other
distributions on PyPI). Modules of this package reach the engine through this one import, so the
same engine module is loaded in both layouts; its own module names come from `engine.__name__`.
"""

from __future__ import annotations

import importlib
import importlib.util

_PACKAGED = f"{__package__}.engine"
engine = importlib.import_module(
    _PACKAGED if importlib.util.find_spec(_PACKAGED) is not None else "engine")

__all__ = ["engine"]
