"""The budget of a run, enforced by the engine where the work happens.

A host that runs programs from strangers installs a `Budget` around the work (`with
enforce(budget):`, per thread, like grad mode). The engine then asks it, before the work is done:
- at every op dispatch (autograd/function.py `apply`), at every node of a backward pass and
  before every hook it runs, and before formatting a tensor: `tick()`, the deadline;
- before a factory allocates (zeros, rand, arange, linspace, eye, ...): `elements(n)`, the
  elements of one tensor;
- before a matrix product multiplies (mm, mv, dot, bmm, addmm; matmul and linear are made of
  them): `work(n)`, its multiply-adds;
- before a function that walks a tensor's rows one by one in Python (unbind, and so iterating a
  tensor, `torch.Size(t)`, `stack(t)`, `cat(t)`): `rows(n)`;
- before a tensor is printed in full (no `...`: `set_printoptions(threshold=...)` can ask for
  that): `printing(n)`, the elements formatted.
One statement of a program can make any number of ops, so a deadline checked only between
statements is not a deadline; these checks are where the time and memory are actually spent.

With no budget installed each check is one thread-local read; `tick()` with a budget is one
clock read. A refused piece of work raises `LimitExceeded`, which names the limit.
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager

__all__ = ["Budget", "LimitExceeded", "enforce", "current", "tick", "elements", "work", "rows",
           "printing"]


class LimitExceeded(Exception):
    """A limit was hit. `limit` names it (a field of the host's limits); `message` says what
    and how much."""

    def __init__(self, limit: str, message: str):
        super().__init__(message)
        self.limit = limit
        self.message = message


def _n(x) -> str:
    return f"{x:,}" if isinstance(x, int) else str(x)


def too_many(limit: str, what: str, got, cap) -> LimitExceeded:
    """The error for `what` exceeding `cap` (got None: only known to be more than cap)."""
    got_text = "more than " + _n(cap) if got is None else _n(got)
    return LimitExceeded(limit, f"{what}: {got_text} (the limit is {_n(cap)})")


class Budget:
    """What one run may spend: wall time (from now), and the size of single pieces of work."""

    def __init__(self, seconds: float, max_tensor_elements: int, max_matmul_work: int,
                 max_rows: int):
        self.seconds = seconds
        self.start = time.perf_counter()
        self.deadline = self.start + seconds
        self.max_tensor_elements = max_tensor_elements
        self.max_matmul_work = max_matmul_work
        self.max_rows = max_rows
        # elements one print may format in full (None: any); a host sets it from what its
        # output may hold, so a million-element print is refused before it is formatted
        self.max_printed = None

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def tick(self) -> None:
        if time.perf_counter() > self.deadline:
            raise LimitExceeded(
                "max_seconds",
                f"the program ran longer than {self.seconds:g} seconds (the time limit); it was "
                "stopped",
            )

    def elements(self, n: int, what: str) -> None:
        if n > self.max_tensor_elements:
            raise too_many("max_tensor_elements", f"{what} would make a tensor too large",
                           n, self.max_tensor_elements)

    def work(self, n: int, what: str) -> None:
        if n > self.max_matmul_work:
            raise too_many("max_matmul_work", f"{what} needs too many multiply-adds", n,
                           self.max_matmul_work)
        self.tick()

    def rows(self, n: int, what: str) -> None:
        if n > self.max_rows:
            raise too_many("max_sequence_items", f"{what} would make one tensor per row, too "
                           "many", n, self.max_rows)
        self.tick()


    def printing(self, n: int) -> None:
        if self.max_printed is not None and n > self.max_printed:
            raise too_many("max_output_chars", "printing this tensor in full would format too "
                           "many elements", n, self.max_printed)
        self.tick()


class _State(threading.local):
    budget: Budget | None = None


state = _State()


def current() -> Budget | None:
    return state.budget


@contextmanager
def enforce(budget: Budget | None):
    """Enforce `budget` on this thread for the block (None: nothing; blocks nest)."""
    prev = state.budget
    state.budget = budget
    try:
        yield budget
    finally:
        state.budget = prev


# The engine's calls: each is a no-op without a budget.

def tick() -> None:
    b = state.budget
    if b is not None:
        b.tick()


def elements(n: int, what: str = "this size") -> None:
    b = state.budget
    if b is not None:
        b.elements(n, what)


def work(n: int, what: str = "this matrix product") -> None:
    b = state.budget
    if b is not None:
        b.work(n, what)


def rows(n: int, what: str) -> None:
    b = state.budget
    if b is not None:
        b.rows(n, what)


def printing(n: int) -> None:
    b = state.budget
    if b is not None:
        b.printing(n)
