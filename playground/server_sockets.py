"""The Panel server's websockets send each message at once (TCP_NODELAY); see playground.app.

Bokeh sends every message to a browser as several websocket frames (a header, metadata, the
content), each its own write. With Nagle's algorithm, which a new TCP socket has on, the second
frame waits until the browser has acknowledged the first, and the receiving side delays its
acknowledgements (40 ms and more), so a reply reached the page tens of milliseconds after it was
ready, on every request (docs/server.md, "Load", has the figures). Tornado's documentation of
`WebSocketHandler.set_nodelay` gives the same advice; neither Bokeh nor Panel sets it.

Panel's websocket handler (`panel.io.server.WSHandler`, which Panel puts in Bokeh's URL patterns
for every app) is given an `open` that sets the flag first, once per process: this module is
imported once, while `panel serve` runs the app file afresh for each session.
"""

from __future__ import annotations

from panel.io.server import WSHandler

__all__ = ["send_at_once"]

_MARK = "_gradplay_nodelay"


def send_at_once() -> None:
    """Every websocket Panel opens from now on sends without delay. Idempotent."""
    if getattr(WSHandler.open, _MARK, False):
        return
    opened = WSHandler.open

    def open(self, *args, **kwargs):  # noqa: A001  (the handler's own method name)
        self.set_nodelay(True)
        return opened(self, *args, **kwargs)

    setattr(open, _MARK, True)
    WSHandler.open = open
