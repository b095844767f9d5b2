"""The engine host: answers the UI's JSON requests (docs/host-protocol.md), the same in both hosts.

The Panel app calls `Host.handle` for each message from its browser session; the in-browser
worker calls it for each message from the page. A host holds one session's state (the current
program and its last timeline, so node ids stay stable across edits) and never raises: anything
wrong with a request comes back as an `error` reply and the session goes on.
"""

from __future__ import annotations

import json
import logging
import secrets
import time

from ._engine import engine
from .limits import Limits, default_limits
from .session import FORMAT_VERSION as TIMELINE_VERSION
from .session import run_program
from .share import VERSION as SHARE_VERSION
from .share import ShareError, decode, encode

# `.edits` and `.examples` are imported by the requests that use them (hello, edit, example), not
# with this module: opening a link or running a program needs neither, and the in-browser host
# compiles every module it imports from source before its first answer.

__all__ = ["Host", "PROTOCOL_VERSION", "MAX_REQUEST_CHARS", "MAX_REQUEST_DEPTH", "MAX_REPLY_CHARS",
           "handle_json", "read_request", "internal_error"]

log = logging.getLogger(__name__)

# 2: examples carry `claim` (a tutorial's claim) instead of `seed`; 3: no tracebacks in replies,
# `limit` errors, request depth and value counts checked
PROTOCOL_VERSION = 4
# A request carries at most a program (capped by Limits.max_program_chars) plus a small intent;
# anything much larger is not a request the UI makes. Both limits are checked before any work:
# before parsing JSON text, and before walking a request that arrives already parsed.
MAX_REQUEST_CHARS = 4 * Limits().max_program_chars + 10_000
MAX_REQUEST_DEPTH = 8  # a request {..., "edit": {..., "inputs": [...]}} nests three deep
MAX_REQUEST_ITEMS = 10_000  # values in one request, all levels together
# A reply larger than this is refused with a `limit` error instead of being sent: it is a
# timeline no screen can show, and the bytes would cost every layer below the UI.
MAX_REPLY_CHARS = 50_000_000

_REQUEST_FIELDS = {
    "hello": {},
    "run": {"program": str},
    "edit": {"program": str, "edit": dict},
    "example": {"example": str},
    "open": {"token": str},
    "share": {"program": str},
}


MAX_DETAIL_ITERATIONS = 20  # loop iterations one `run` request may ask to keep in full detail


class _BadRequest(Exception):
    """A request the host refuses; `kind` is the error reply's kind."""

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
        program, timeline = self.program, self.timeline
        try:
            _check_shape(request)
            kind = self._check(request)
            reply = getattr(self, "_on_" + kind)(request)
        except _BadRequest as e:
            reply = {"type": "error", "error": {"kind": e.kind, "message": e.message, **e.extra}}
        except MemoryError:  # the host ran out of memory: a limit of the host, not a bug
            self.program, self.timeline = program, timeline
            reply = {"type": "error", "error": {"kind": "limit", "message": (
                "the request needed more memory than this host has; it was stopped")}}
        except Exception:  # a bug in the host: log it, keep the session alive
            self.program, self.timeline = program, timeline
            reply = {"type": "error", "error": internal_error("answering a request")}
        reply["id"] = rid
        reply["seconds"] = round(time.perf_counter() - start, 6)
        return reply

    def _check(self, request) -> str:
        if not isinstance(request, dict):
            raise _BadRequest("a request is a JSON object")
        kind = request.get("type")
        if not isinstance(kind, str) or kind not in _REQUEST_FIELDS:
            shown = repr(kind)[:40] if isinstance(kind, str) else f"of type {type(kind).__name__}"
            raise _BadRequest(f"unknown request type {shown}; expected one of "
                              + ", ".join(_REQUEST_FIELDS), field="type")
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
        return self._result(request["program"], detail=_detail(request.get("detail")))

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

    def _result(self, program: str, fresh: bool = False, detail=()) -> dict:
        if len(program) > self.limits.max_program_chars:
            # run_program reports this too, but the share token below must not be attempted
            token = None
        else:
            try:
                token = encode(program)
            except ShareError:
                token = None
        previous = None if fresh else self.timeline
        # Each run sees what a fresh torch process would: its own default generator (seeded from
        # the system, as torch seeds one) and no once-only warning given yet, whatever runs of
        # this or any other session did before in this process.
        with engine.fresh_state():
            timeline = run_program(program, previous=previous, limits=self.limits,
                                   detail=detail)
        _hide_recorder_failures(timeline)
        self.program = program
        # A program that does not parse (half-typed) has no statements to carry ids over from:
        # keep the last one that did, so the next edit keeps its nodes' ids and places.
        if timeline["statements"] or self.timeline is None or fresh:
            self.timeline = timeline
        return {"type": "result", "program": program, "timeline": timeline, "token": token}


def _detail(value) -> list:
    """A `run` request's `detail` (docs/host-protocol.md): the loop iterations to keep in full
    detail, as [(statement, loop path)] for run_program."""
    if value is None:
        return []
    shape = "'detail' is a list of {statement, loop} (a loop header's statement index, a loop path)"
    if not isinstance(value, list) or len(value) > MAX_DETAIL_ITERATIONS:
        raise _BadRequest(f"{shape}, at most {MAX_DETAIL_ITERATIONS} of them", field="detail")
    out = []
    for item in value:
        if not isinstance(item, dict) or set(item) != {"statement", "loop"}:
            raise _BadRequest(shape, field="detail")
        stmt, loop = item["statement"], item["loop"]
        if (not _is_count(stmt) or not isinstance(loop, list) or not loop or len(loop) > 32
                or not all(_is_count(i) for i in loop)):
            raise _BadRequest(shape, field="detail")
        out.append((stmt, tuple(loop)))
    return out


def _is_count(v) -> bool:
    return type(v) is int and 0 <= v < 1_000_000_000


def internal_error(doing: str) -> dict:
    """The `error` of an `internal` reply for the exception being handled: a short id and a
    generic message for the person, the traceback in the host's log under that id. A reply never
    carries a traceback: it would show the server's files and paths to whoever sent the request."""
    ref = secrets.token_hex(4)
    log.exception("gradplay: internal error %s while %s", ref, doing)
    return {"kind": "internal", "ref": ref,
            "message": f"something went wrong in the engine host (error {ref}); "
                       "the session goes on"}


def _hide_recorder_failures(timeline: dict) -> None:
    """The recorder's own failures (a bug; the run went on) come with tracebacks: they go to the
    host's log under a short id, and the timeline keeps one line per failure naming that id."""
    failures = timeline.get("internal_errors")
    if failures:
        ref = secrets.token_hex(4)
        log.error("gradplay: the recorder failed (error %s):\n%s", ref, "\n".join(failures))
        timeline["internal_errors"] = [
            f"{text.split(':', 1)[0]}: the recorder failed here (error {ref})" for text in failures]


def _check_shape(request) -> None:
    """Refuse a parsed request that nests too deep or holds too many values, without recursion
    (a request may arrive already parsed, from the Panel transport, as deep as its sender liked)."""
    stack, items = [(request, 1)], 0
    while stack:
        value, depth = stack.pop()
        items += 1
        if items > MAX_REQUEST_ITEMS:
            raise _BadRequest(f"a request holds at most {MAX_REQUEST_ITEMS:,} values")
        if isinstance(value, dict):
            children = value.values()
            if any(not isinstance(k, str) for k in value):
                raise _BadRequest("a request's keys are strings")
        elif isinstance(value, (list, tuple)):
            children = value
        elif value is None or isinstance(value, (str, int, float, bool)):
            continue
        else:
            raise _BadRequest(f"a request holds only JSON values, not {type(value).__name__}")
        if depth >= MAX_REQUEST_DEPTH and len(children):
            raise _BadRequest(f"a request nests at most {MAX_REQUEST_DEPTH} levels deep")
        stack.extend((child, depth + 1) for child in children)


def _json_depth_ok(text: str) -> bool:
    """Whether JSON text nests at most MAX_REQUEST_DEPTH levels: one linear scan, so that text
    nested a hundred thousand deep never reaches the parser (which would recurse that deep)."""
    depth, in_string, escaped = 0, False, False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_REQUEST_DEPTH:
                return False
        elif ch in "]}":
            depth -= 1
    return True


def read_request(data):
    """A request as it arrives (JSON text, or an already parsed object) -> (request, None) when
    it can be answered, or (None, error reply) when it is refused. Size and depth are checked
    before any parsing or walking; field types by `Host.handle`."""
    try:
        if isinstance(data, str):
            if len(data) > MAX_REQUEST_CHARS:
                raise _BadRequest(f"a request is at most {MAX_REQUEST_CHARS:,} characters of JSON")
            if not _json_depth_ok(data):
                raise _BadRequest(f"a request nests at most {MAX_REQUEST_DEPTH} levels deep")
            try:
                data = json.loads(data)
            except (ValueError, RecursionError) as e:
                raise _BadRequest(f"not JSON: {str(e)[:200]}") from None
        _check_shape(data)
        if isinstance(data, dict) and sum(len(v) for v in data.values()
                                          if isinstance(v, str)) > MAX_REQUEST_CHARS:
            raise _BadRequest(f"a request is at most {MAX_REQUEST_CHARS:,} characters of JSON")
    except _BadRequest as e:
        rid = data.get("id") if isinstance(data, dict) else None
        if not isinstance(rid, (int, str)) or isinstance(rid, bool):
            rid = None
        return None, {"type": "error", "id": rid, "seconds": 0,
                      "error": {"kind": e.kind, "message": e.message, **e.extra}}
    return data, None


def encode_reply(reply: dict) -> str:
    """A reply as JSON text, or a `limit`/`internal` error in its place when it cannot be sent."""
    try:
        text = json.dumps(reply, allow_nan=False, separators=(",", ":"))
    except MemoryError:
        text = None
    except (ValueError, TypeError, RecursionError):
        reply = {"type": "error", "id": reply.get("id"), "seconds": reply.get("seconds", 0),
                 "error": internal_error("encoding a reply")}
        return json.dumps(reply)
    if text is None or len(text) > MAX_REPLY_CHARS:
        size = "more" if text is None else f"{len(text) / 1e6:,.0f} MB"
        return json.dumps({"type": "error", "id": reply.get("id"), "seconds": reply.get("seconds", 0),
                           "error": {"kind": "limit", "message": (
                               f"the answer to this request would be {size} of JSON, more than "
                               f"the {MAX_REPLY_CHARS // 1_000_000} MB a reply may carry; it was "
                               "not sent (a long loop records every step: loop fewer times)")}})
    return text


def handle_json(host: Host, text: str) -> str:
    """One request as JSON text -> its reply as JSON text (the in-browser worker's entry, and
    the server's worker processes'). Never raises."""
    if not isinstance(text, str):
        request, reply = None, {"type": "error", "id": None, "seconds": 0,
                                "error": {"kind": "protocol", "message": "a request is JSON text"}}
    else:
        request, reply = read_request(text)
    if reply is None:
        reply = host.handle(request)
    return encode_reply(reply)
