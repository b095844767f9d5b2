"""The Panel app: the playground UI (static/dist/panel.js) as a JSComponent, with Python as its engine host.

    panel serve playground/app.py          # the full-page app at /app
    Playground(program="...")               # in a notebook, after pn.extension()

The UI sends JSON requests (docs/host-protocol.md) with `model.send_msg`; `_handle_msg` answers
each one with `_send_msg`. Every browser session gets its own component, so its own session
state: sessions never share programs or timelines.

Served (`panel serve`, `pn.serve`), a component never runs a program on the server's event loop:
it hands the request to the process's pool of worker processes (`playground.pool`) and sends the
answer when it arrives, so one session's slow program never stalls the others, and a runaway is
killed by the pool. The session's state (program, last timeline) stays here with the component,
so a killed run leaves it as it was. In a notebook, and through `answer()`, the component answers
with its own in-process `playground.host.Host`.

Nothing here or in the page reaches outside the server: the UI is one bundled ES module, fonts
are the system's, and Bokeh's plotting API is loaded from this server when a plot is drawn.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import time
from pathlib import Path

import panel as pn
import param

ROOT = Path(__file__).resolve().parent.parent
if not __package__:
    # `panel serve .../app.py` runs this file as a script: import it as a module of its package
    # (playground/ in the repository, gradplay/ when installed), as PEP 366 describes.
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    __package__ = Path(__file__).resolve().parent.name

from .assets import site_dir, ui_bundle  # noqa: E402
from .host import Host, internal_error, read_request  # noqa: E402
from .pool import SessionState, WorkerPool, shared_pool  # noqa: E402
from .server_memory import session_closed, session_opened  # noqa: E402
from .server_sockets import send_at_once  # noqa: E402

__all__ = ["Playground", "create_app", "BUNDLE"]

log = logging.getLogger(__name__)
_tasks: set = set()  # answers under way (asyncio keeps only weak references to tasks)


# Panel treats an _esm string that is not an existing file as JavaScript source, so a missing
# bundle would surface as a syntax error in the browser: ui_bundle() says what to do instead.
BUNDLE = ui_bundle()


class Playground(pn.custom.JSComponent):
    """The gradplay UI with its engine host. `program` (optional) is the program to start with;
    without one the gallery's default example opens (or, with `sync_url`, a `#p=` link's)."""

    program = param.String(default="", doc="A program to open instead of the default example.")

    sync_url = param.Boolean(default=False, doc=(
        "Open the program of a #p= link in the page address and keep the address's hash "
        "updated (the full-page app); off when embedded, e.g. in a notebook."))

    bokeh_api_url = param.String(
        default="", doc="Where the browser loads bokeh-api.min.js; empty: beside the page's bokeh.min.js.")

    site_url = param.String(default="", doc=(
        "Where the in-browser version (the static site) is served; the UI then offers to open "
        "the program on screen there. Empty: no such link."))

    _esm = BUNDLE

    _stylesheets = [":host { display: block; min-height: 640px; }"]

    def __init__(self, pool: WorkerPool | None = None, **params):
        params.setdefault("sizing_mode", "stretch_both")
        params.setdefault("min_height", 640)
        super().__init__(**params)
        self._host = Host()  # answers in this process: notebooks, answer()
        self._pool = pool  # answers in worker processes: a served app (see _worker_pool)
        self._state = SessionState()  # this session's state while the pool answers
        self._turn: asyncio.Lock | None = None  # one request of this session in the pool at a time
        if _served():
            if pool is None:
                shared_pool()  # start the workers now, while the page loads
            send_at_once()  # before this page's websocket opens
            pn.state.on_session_destroyed(session_closed)
            session_opened()

    def _worker_pool(self) -> WorkerPool | None:
        if self._pool is None and _served():
            self._pool = shared_pool()
        return self._pool

    def _handle_msg(self, data) -> None:
        pool = self._worker_pool()
        try:
            loop = asyncio.get_running_loop() if pool is not None else None
        except RuntimeError:
            loop = None
        if loop is None:
            self._send_msg(self.answer(data))
            return
        task = loop.create_task(self.answer_async(data, pool))
        _tasks.add(task)
        task.add_done_callback(_tasks.discard)

    async def answer_async(self, data, pool: WorkerPool) -> None:
        """Answer one request in the pool without blocking the event loop, then send the reply.
        Requests of one session are answered in the order they came (each needs the state the
        one before left)."""
        try:
            request, refused = read_request(data)
            if refused is not None:
                self._send_msg(json.dumps(refused))
                return
            text = json.dumps(request, separators=(",", ":"))
            if self._turn is None:
                self._turn = asyncio.Lock()
            async with self._turn:
                answer = await asyncio.wrap_future(pool.submit(text, self._state))
                self._state = answer.state
            self._send_msg(answer.reply)
        except Exception:  # the pool failed underneath: still answer this request once
            rid = data.get("id") if isinstance(data, dict) else None
            self._send_msg(json.dumps({"type": "error", "id": rid if isinstance(rid, (int, str)) else None,
                                       "seconds": 0, "error": internal_error("answering in the pool")}))

    def answer(self, data) -> str:
        """One request (JSON text or a dict) -> its reply as JSON text, answered in this process
        (or, when the component has a pool, by the pool: this call then waits). Never raises."""
        start = time.perf_counter()  # the request's time limit counts from its arrival
        request, refused = read_request(data)
        if refused is not None:
            return json.dumps(refused)
        if self._pool is not None:
            answer = self._pool.answer(json.dumps(request, separators=(",", ":")), self._state)
            self._state = answer.state
            return answer.reply
        return self._host.answer(request, start)


def _served() -> bool:
    """Whether this runs in a Bokeh server session (not a notebook's kernel, not a test)."""
    doc = pn.state.curdoc
    return doc is not None and doc.session_context is not None


def create_app(program: str = "") -> pn.Column:
    """The full-page app. A plain Column: the Material/Fast templates fetch web fonts.

    When the in-browser site is built, `make run` serves it beside the app at /site/ (panel
    serve --static-dirs site=./site), and the app links to it."""
    site_url = "site/index.html" if site_dir() is not None else ""
    return pn.Column(
        Playground(program=program, sync_url=True, site_url=site_url),
        sizing_mode="stretch_both",
        margin=0,
        styles={"height": "100vh"},
    )


if pn.state.served:
    pn.extension()
    create_app().servable(title="gradplay")
