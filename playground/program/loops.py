"""The long-loop rule: which iterations of a loop keep their full detail in the timeline.

A training loop runs for thousands of iterations; recording every engine event of each would make
a timeline of hundreds of megabytes and a run a hundred times slower. So only some iterations are
recorded in full (docs/timeline.md, "Long loops"):

- the first DETAIL_FIRST iterations of every loop;
- the last DETAIL_LAST, when the number of iterations is known as the loop starts (a `for`
  loop: its items are taken before the first iteration); a `while` loop's end, or a `break`,
  is only known when it happens;
- every iteration the host asks for (`detail`: the loop's header statement and the iteration's
  loop path), and the enclosing iterations of each of those;
- nothing inside an iteration that is not kept (a nested loop there keeps no iteration).

The other iterations still run exactly as Python runs them (same statements, same engine ops,
same output); only the recorder hears less of them (playground/recorder.py). This module only
decides; the interpreter (statements.py) applies the decision.
"""

from __future__ import annotations

DETAIL_FIRST = 3  # the first iterations of a loop kept in full
DETAIL_LAST = 2  # the last iterations kept in full (when the loop's length is known)


class DetailRequest:
    """The iterations the host asked to keep in full: (header statement, loop path) pairs, a
    loop path being the iteration numbers outermost first, the loop's own last (as a step's
    `loop`)."""

    def __init__(self, items=()):
        self.exact: set = set()
        self.enclosing: set = set()  # loop paths of iterations that contain a requested one
        for stmt_id, path in items:
            path = tuple(path)
            self.exact.add((stmt_id, path))
            for k in range(1, len(path)):
                self.enclosing.add(path[:k])

    def __bool__(self) -> bool:
        return bool(self.exact)


class Loop:
    """One run of a loop statement (a loop nested in another runs once per outer iteration)."""

    __slots__ = ("stmt_id", "outer", "length", "request", "quiet_outside", "tracked",
                 "outer_series_frame", "ran")

    def __init__(self, stmt_id: int, outer: tuple, length, request: DetailRequest,
                 quiet_outside: bool):
        self.stmt_id = stmt_id
        self.outer = outer  # the loop path of the iteration the loop runs in
        self.length = length  # the number of iterations, None while not known (while loops)
        self.request = request
        self.quiet_outside = quiet_outside  # the iteration around it keeps no detail
        self.tracked = not quiet_outside  # the observer hears of it (Recorder.program_loop)
        self.outer_series_frame = None  # the interpreter's series frame outside the loop
        self.ran = 0  # iterations whose body started

    def keeps(self, n: int) -> bool:
        """Whether iteration n keeps its full detail."""
        if self.quiet_outside:
            return False
        if n < DETAIL_FIRST:
            return True
        length = self.length
        if length is not None and n >= length - DETAIL_LAST:
            return True
        request = self.request
        if request:
            path = self.outer + (n,)
            return (self.stmt_id, path) in request.exact or path in request.enclosing
        return False
