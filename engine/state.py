"""The engine's per-session state: what torch keeps once per process, held in one object.

A torch process has one default random generator and remembers which once-only warnings it has
given. The playground runs many programs, from many people, in one process, so that state lives
in an `EngineState`, and a host gives each run (or each session) its own:

    with engine.fresh_state():           # a run that starts as a fresh torch process would
        ...
    state = engine.EngineState(seed=0)   # or keep one per session and enter it for each run
    with engine.use_state(state):
        ...

Outside any `use_state` block the engine uses one process-wide state, as torch does. The current
state is per thread (like grad mode), so two threads can run two sessions at once.

`EngineState(seed=None)` seeds its generator as torch seeds a fresh process's default generator:
from 64 nondeterministic bits (torch reads /dev/urandom), so an unseeded program draws
different numbers on every run, as it does under torch. Pass `seed=` for reproducible runs.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

from .rng.generator import Generator, nondeterministic_seed

# torch's print options as a fresh process has them (torch.set_printoptions changes them)
PRINT_DEFAULTS = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80,
                  "sci_mode": None}


class EngineState:
    """The default generator, the once-only warnings already given and the print options."""

    def __init__(self, seed: int | None = None):
        self.default_generator = Generator()
        self.default_generator.manual_seed(nondeterministic_seed() if seed is None else seed)
        self.warned: set = set()
        self.print_options = dict(PRINT_DEFAULTS)

    def first_warning(self, key: str) -> bool:
        """True the first time `key` is asked for (torch's TORCH_WARN_ONCE), False after."""
        if key in self.warned:
            return False
        self.warned.add(key)
        return True


class _Current(threading.local):
    state: EngineState | None = None


_process = EngineState()
_current = _Current()


def current() -> EngineState:
    """The state in use: the innermost `use_state` block's on this thread, else the process's."""
    return _current.state or _process


@contextmanager
def use_state(state: EngineState):
    """Make `state` the engine's state for the block (on this thread); blocks nest."""
    prev = _current.state
    _current.state = state
    try:
        yield state
    finally:
        _current.state = prev


def fresh_state(seed: int | None = None):
    """`use_state(EngineState(seed))`: a block that sees what a fresh torch process would."""
    return use_state(EngineState(seed))
