"""The Panel server's heap: left alone by the garbage collector while sessions are open, given
back to the system after they close (see playground.app).

While sessions are open, the objects of their documents live as long as they do, and CPython's
full collections, which it runs as the heap grows, walk every one of them while the event loop,
and so every session, waits: 0.25-0.5 s with 50 sessions on a busy machine. Once sessions stop
opening for a moment, the heap is frozen (`gc.freeze`): collections then look only at what came
after.

A session's document, component and replies are freed when Bokeh discards the session, but the
memory stays with the server process: CPython's and the C library's allocators keep freed pages
for later. A classroom's worth of sessions would leave the server at its peak after they all
closed, so once sessions have closed (and none since, for a few seconds) the server collects
garbage, frozen objects included, and hands the C library's free pages back (glibc's
`malloc_trim`; elsewhere nothing).

This lives in a module of its own, not in app.py: `panel serve` runs the app file afresh for
each session and clears that module's names when the session ends, so state kept there would
not outlive the session whose end it is meant to see.
"""

from __future__ import annotations

import ctypes
import gc
import threading

__all__ = ["session_opened", "session_closed", "release_memory", "trim_c_heap",
           "RELEASE_AFTER_SECONDS"]

RELEASE_AFTER_SECONDS = 5.0
FREEZE_AFTER_SECONDS = 2.0
_timer: threading.Timer | None = None
_freezer: threading.Timer | None = None
_lock = threading.Lock()


def session_opened() -> None:
    """A session is being made: freeze the heap once sessions stop opening for a moment."""
    global _freezer
    with _lock:
        if _freezer is not None:
            _freezer.cancel()
        _freezer = threading.Timer(FREEZE_AFTER_SECONDS, freeze)
        _freezer.daemon = True
        _freezer.start()


def freeze() -> None:
    """Young garbage collected, then everything the heap holds moved where no collection looks
    (until release_memory)."""
    global _freezer
    with _lock:
        _freezer = None
    gc.collect(1)
    gc.freeze()


def session_closed(session_context) -> None:
    """A Bokeh `on_session_destroyed` callback: release memory once sessions stop closing."""
    global _timer
    with _lock:
        if _timer is not None:
            _timer.cancel()
        _timer = threading.Timer(RELEASE_AFTER_SECONDS, release_memory)
        _timer.daemon = True
        _timer.start()


def release_memory() -> None:
    """Collect garbage and give the C library's free memory back to the system."""
    global _timer
    with _lock:
        _timer = None
    # the closed sessions' documents were frozen with the rest: a full collection sees them
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    trim_c_heap()


def trim_c_heap() -> None:
    """Give the C library's free memory back to the system (glibc's malloc_trim)."""
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: nothing to trim
        pass
