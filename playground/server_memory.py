"""Giving a closed session's memory back to the system (the Panel server; see playground.app).

A session's document, component and replies are freed when Bokeh discards the session, but the
memory stays with the server process: CPython's and the C library's allocators keep freed pages
for later. A classroom's worth of sessions would leave the server at its peak after they all
closed, so once sessions have closed (and none since, for a few seconds) the server collects
garbage and hands the C library's free pages back (glibc's `malloc_trim`; elsewhere nothing).

This lives in a module of its own, not in app.py: `panel serve` runs the app file afresh for
each session and clears that module's names when the session ends, so state kept there would
not outlive the session whose end it is meant to see.
"""

from __future__ import annotations

import ctypes
import gc
import threading

__all__ = ["session_closed", "release_memory", "RELEASE_AFTER_SECONDS"]

RELEASE_AFTER_SECONDS = 5.0
_timer: threading.Timer | None = None
_lock = threading.Lock()


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
    gc.collect()
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: nothing to trim
        pass
