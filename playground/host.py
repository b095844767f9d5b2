"""The engine host: answers the UI's JSON requests (docs/host-protocol.md), the same in both hosts.

The Panel app calls `Host.handle` for each message from its browser session; the in-browser
worker calls it for each message from the page. A host holds one session's state (the current
program and its last timeline, so node ids stay stable across edits) and never raises: anything
wrong with a request comes back as an `error` reply and the session goes on.
"""

from __future__ import annotations

import json
import time
import traceback

from .limits import Limits, default_limits
from .session import FORMAT_VERSION as TIMELINE_VERSION
from .session import run_program
from .share import VERSION as SHARE_VERSION
from .share import ShareError, decode, encode

# `.edits` and `.examples` are imported by the requests that use them (hello, edit, example), not
# with this module: opening a link or running a program needs neither, and the in-browser host
# compiles every module it imports from source before its first answer.

__all__ = ["Host", "PROTOCOL_VERSION", "MAX_REQUEST_CHARS", "handle_json"]

PROTOCOL_VERSION = 2  # 2: examples carry `claim` (a tutorial's claim) instead of `seed`
# A request carries at most a program (capped by Limits.max_program_chars) plus a small intent;
# anything much larger is not a request the UI makes.
MAX_REQUEST_CHARS = 4 * Limits().max_program_chars + 10_000

_REQUEST_FIELDS = {
    "hello": {},
    "run": {"program": str},
    "edit": {"program": str, "edit": dict},
    "example": {"example": str},
    "open": {"token": str},
    "share": {"program": str},
}


class _BadRequest(Exception):
    def __init__(self, message: str, kind: str = "protocol", **extra):
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.extra = extra


def _palette() -> list:
    from ._engine import engine  # importing the engine registers its ops, filling PALETTE
    PALETTE = engine.ops.registry.PALETTE
    return [dict(entry) for entry in PALETTE]


def _chain_rules() -> dict:
    from ._engine import engine  # each text is written next to its op's backward
    return engine.autograd.function.chain_rules()


def _example_meta(ex) -> dict:
    return {"id": ex.id, "title": ex.title, "summary": ex.summary, "claim": ex.claim,
            "torch_differs": ex.torch_differs, "expect_error": ex.expect_error,
            "tags": list(ex.tags)}


def _example_full(ex) -> dict:
    return {**_example_meta(ex), "explanation": ex.explanation}


class Host:
    """One UI session's engine host. `handle(request) -> reply`, both plain JSON-able dicts."""

    def __init__(self, limits: Limits | None = None):
        self.limits = limits or default_limits()
        self.program: str | None = None
        self.timeline: dict | None = None

    # -- entry point -----------------------------------------------------------------------------

    def handle(self, request) -> dict:
        rid = request.get("id") if isinstance(request, dict) else None
        if not isinstance(rid, (int, str)) or isinstance(rid, bool):
            rid = None
        start = time.perf_counter()
        try:
            kind = self._check(request)
            reply = getattr(self, "_on_" + kind)(request)
        except _BadRequest as e:
            reply = {"type": "error", "error": {"kind": e.kind, "message": e.message, **e.extra}}
        except Exception as e:  # a bug in the host: report it, keep the session alive
            reply = {"type": "error", "error": {
                "kind": "internal", "message": f"{type(e).__name__}: {e}",
                "detail": traceback.format_exc(limit=8)}}
        reply["id"] = rid
        reply["seconds"] = round(time.perf_counter() - start, 6)
        return reply

    def _check(self, request) -> str:
        if not isinstance(request, dict):
            raise _BadRequest("a request is a JSON object")
        kind = request.get("type")
        if kind not in _REQUEST_FIELDS:
            raise _BadRequest(f"unknown request type {kind!r}; expected one of "
                              + ", ".join(_REQUEST_FIELDS))
        for field, typ in _REQUEST_FIELDS[kind].items():
            if not isinstance(request.get(field), typ):
                raise _BadRequest(f"a {kind!r} request needs {field!r} ({typ.__name__})",
                                  field=field)
        return kind

    # -- requests --------------------------------------------------------------------------------

    def _on_hello(self, request) -> dict:
        from . import examples as gallery
        from .edits import EDIT_VERSION
        return {
            "type": "hello",
            "protocol": PROTOCOL_VERSION,
            "versions": {"timeline": TIMELINE_VERSION, "edits": EDIT_VERSION,
                         "share": SHARE_VERSION},
            "examples": [_example_meta(ex) for ex in gallery.EXAMPLES],
            "default_example": gallery.DEFAULT_ID,
            "palette": _palette(),
            "chain_rules": _chain_rules(),
            "limits": {"max_program_chars": self.limits.max_program_chars,
                       "max_seconds": self.limits.max_seconds},
        }

    def _on_run(self, request) -> dict:
        return self._result(request["program"])

    def _on_edit(self, request) -> dict:
        from .edits import EditError, apply_edit
        try:
            res = apply_edit(request["program"], request["edit"])
        except EditError as e:
            extra = {"field": getattr(e, "field", None)}
            deps = getattr(e, "dependents", None)
            if deps:
                extra["dependents"] = [list(d) for d in deps]
            raise _BadRequest(str(getattr(e, "message", e)), kind="edit", **extra) from None
        reply = self._result(res.program)
        reply["edit"] = {"changed_lines": list(res.changed_lines), "name": res.name,
                         "info": res.info}
        return reply

    def _on_example(self, request) -> dict:
        from . import examples as gallery
        try:
            ex = gallery.get(request["example"])
        except KeyError:
            raise _BadRequest(f"there is no example {request['example']!r}",
                              field="example") from None
        reply = self._result(ex.program, fresh=True)
        reply["example"] = _example_full(ex)
        return reply

    def _on_open(self, request) -> dict:
        try:
            program = decode(request["token"])
        except ShareError as e:
            raise _BadRequest(str(e), kind="share", field="token") from None
        return self._result(program, fresh=True)

    def _on_share(self, request) -> dict:
        try:
            token = encode(request["program"])
        except ShareError as e:
            raise _BadRequest(str(e), kind="share", field="program") from None
        return {"type": "share", "token": token}

    # -- helpers ---------------------------------------------------------------------------------

    def _result(self, program: str, fresh: bool = False) -> dict:
        if len(program) > self.limits.max_program_chars:
            # run_program reports this too, but the share token below must not be attempted
            token = None
        else:
            try:
                token = encode(program)
            except ShareError:
                token = None
        previous = None if fresh else self.timeline
        timeline = run_program(program, previous=previous, limits=self.limits)
        self.program = program
        # A program that does not parse (half-typed) has no statements to carry ids over from:
        # keep the last one that did, so the next edit keeps its nodes' ids and places.
        if timeline["statements"] or self.timeline is None or fresh:
            self.timeline = timeline
        return {"type": "result", "program": program, "timeline": timeline, "token": token}


def handle_json(host: Host, text: str) -> str:
    """One request as JSON text -> its reply as JSON text (the in-browser worker's entry)."""
    if not isinstance(text, str) or len(text) > MAX_REQUEST_CHARS:
        reply = {"type": "error", "id": None, "error": {
            "kind": "protocol", "message": f"a request is at most {MAX_REQUEST_CHARS:,} "
                                           "characters of JSON"}}
    else:
        try:
            request = json.loads(text)
        except (ValueError, RecursionError) as e:
            reply = {"type": "error", "id": None,
                     "error": {"kind": "protocol", "message": f"not JSON: {e}"}}
        else:
            reply = host.handle(request)
    return json.dumps(reply, allow_nan=False, separators=(",", ":"))
