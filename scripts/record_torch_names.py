"""Record where torch 2.13 defines each class the engine offers under a torch name, and write
engine/torch_names.py.

A class prints with its module: `print(torch.nn.Linear)` shows
`<class 'torch.nn.modules.linear.Linear'>` in torch, and an object without a repr of its own
shows `<torch.optim.lr_scheduler.StepLR object at 0x...>`. The engine's classes live in other
modules (engine.nn.modules, ...), so the engine gives each one torch's module and qualified name
when it loads, from the table this script writes. Run it (with torch installed) after adding a
class that a program can reach:

    python scripts/record_torch_names.py
"""

from __future__ import annotations

import importlib
import pathlib
import pprint
import sys
import types

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

OUT = ROOT / "engine" / "torch_names.py"

HEADER = '''"""Where torch 2.13 defines each class the engine offers under a torch name.

Written by scripts/record_torch_names.py (with torch installed); do not edit by hand.
Keys are the torch path a program names a class by (engine modules stand for torch's); values
torch's `(module, qualname)` for that class.
engine/__init__.py gives each class these names when the engine loads, so a class and an
object without a repr of its own print as they do in torch.
"""

TORCH_NAMES = '''


def engine_classes(module, torch_path: str, seen: set, out: dict) -> None:
    """Every public class reachable from `module` (an engine module standing for torch_path),
    paired with the object of the same name in torch."""
    if id(module) in seen:
        return
    seen.add(id(module))
    try:
        torch_module = importlib.import_module(torch_path)
    except Exception:  # noqa: BLE001  (torch.ops.* and other paths torch lacks)
        torch_module = None
    for name, value in sorted(vars(module).items()):
        if name.startswith("_"):
            continue
        if isinstance(value, types.ModuleType):
            if value.__name__.startswith("engine") and value.__name__ not in _NOT_TORCHS:
                engine_classes(value, f"{torch_path}.{name}", seen, out)
            continue
        if not isinstance(value, type) or not _engine_class(value, f"{torch_path}.{name}"):
            continue
        theirs = getattr(torch_module, name, None) if torch_module is not None else None
        if isinstance(theirs, type) and id(value) not in seen:
            seen.add(id(value))
            out[f"{torch_path}.{name}"] = (theirs.__module__, theirs.__qualname__)


# engine modules whose name is torch's for something else: engine.autograd.function holds the
# engine's op base class; torch.autograd.function (torch's user Function) is custom_function
_NOT_TORCHS = frozenset(("engine.autograd.function",))


def _engine_class(cls, path: str) -> bool:
    """Defined by the engine (not a class it imports from elsewhere); one that took its torch
    names when the engine loaded counts too."""
    from engine.torch_names import TORCH_NAMES

    return cls.__module__.startswith("engine") or TORCH_NAMES.get(path) == (
        cls.__module__, cls.__qualname__)


def record() -> dict:
    import engine

    out: dict = {}
    engine_classes(engine, "torch", set(), out)
    return out


def main() -> None:
    table = record()
    OUT.write_text(HEADER + pprint.pformat(table, width=100, sort_dicts=True) + "\n")
    print(f"wrote {OUT.relative_to(ROOT)}: {len(table)} classes")


if __name__ == "__main__":
    main()
