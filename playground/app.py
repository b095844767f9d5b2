"""The Panel app: the playground UI (static/dist/panel.js) as a JSComponent, with Python as its engine host.

    panel serve playground/app.py          # the full-page app at /app
    Playground(program="...")               # in a notebook, after pn.extension()

The UI sends JSON requests (docs/host-protocol.md) with `model.send_msg`; `_handle_msg` answers
each one with a per-instance `playground.host.Host` and `_send_msg`. Every browser session gets
its own component, so its own Host: sessions never share programs or timelines.

Nothing here or in the page reaches outside the server: the UI is one bundled ES module, fonts
are the system's, and Bokeh's plotting API is loaded from this server when a plot is drawn.
"""

from __future__ import annotations

import json
import logging
import sys
import traceback
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
from .host import Host  # noqa: E402

__all__ = ["Playground", "create_app", "BUNDLE"]

log = logging.getLogger(__name__)


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

    def __init__(self, **params):
        params.setdefault("sizing_mode", "stretch_both")
        params.setdefault("min_height", 640)
        super().__init__(**params)
        self._host = Host()

    def _handle_msg(self, data) -> None:
        self._send_msg(self.answer(data))

    def answer(self, data) -> str:
        """One request (JSON text or a dict) -> its reply as JSON text. Never raises."""
        try:
            if isinstance(data, str):
                try:
                    request = json.loads(data)
                except ValueError as e:
                    reply = {"type": "error", "id": None,
                             "error": {"kind": "protocol", "message": f"not JSON: {e}"}}
                    return json.dumps(reply)
            else:
                request = data
            reply = self._host.handle(request)
            return json.dumps(reply, allow_nan=False, separators=(",", ":"))
        except Exception as e:  # Host.handle does not raise; this guards the JSON step above it
            log.exception("gradplay: could not answer a request")
            rid = request.get("id") if isinstance(locals().get("request"), dict) else None
            return json.dumps({"type": "error", "id": rid, "error": {
                "kind": "internal", "message": f"{type(e).__name__}: {e}",
                "detail": traceback.format_exc(limit=6)}})


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
