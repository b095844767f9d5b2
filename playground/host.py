"""The engine host: answers the UI's JSON requests (docs/host-protocol.md), the same in both hosts.

The Panel app calls `Host.answer` for each message from its browser session; the in-browser
worker calls it (through `handle_json`) for each message from the page. A host holds one
session's state (the current program and what the next run needs of its last timeline, so node
ids stay stable across edits) and never raises: anything wrong with a request comes back as an
`error` reply and the session goes on.

A request's whole answer, from its arrival to its last byte of JSON, fits the program's time
limit (`Limits.max_seconds`), give or take the last engine op's overshoot: the run stops early
enough to leave time for recording and encoding what it made (`playground.recorder` reserves it
as events are recorded, FINISH_RESERVE_FRACTION of the limit besides), and the reply is encoded
in pieces, each checked against the deadline (or, after a run that overshot, the time it
reserved) and the size cap (`MAX_REPLY_CHARS`).
"""

from __future__ import annotations

import json
import logging
import secrets
import time

from ._engine import engine
from .limits import Limits, default_limits
from .recorder import RESERVE_SECONDS_PER_EVENT
from .session import FORMAT_VERSION as TIMELINE_VERSION
from .session import run_program
from .share import VERSION as SHARE_VERSION
from .share import ShareError, decode, encode

# `.edits` and `.examples` are imported by the requests that use them (hello, edit, example), not
# with this module: opening a link or running a program needs neither, and the in-browser host
# compiles every module it imports from source before its first answer.

__all__ = ["Host", "PROTOCOL_VERSION", "MAX_REQUEST_CHARS", "MAX_REQUEST_DEPTH", "MAX_REPLY_CHARS",
           "handle_json", "read_request", "internal_error", "encode_reply", "ReplyRefused"]

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
# Of a request's time limit, what a run leaves for finishing its recording and encoding the reply
# beyond what the recorder reserves per event (playground.recorder.RESERVE_SECONDS_PER_EVENT).
# The engine checks the deadline between ops, so the run may end one op late (a matrix product
# as large as `max_matmul_work` allows: tens of milliseconds on a server core): the reply may
# take the same fraction past the time limit before it is refused.
FINISH_RESERVE_FRACTION = 0.1

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
        # what the next run needs of the last timeline: its version and statements, whose id
        # bases an edited program keeps (playground.stable_ids); the rest of it is the UI's
        self.previous: dict | None = None
        self._deadline: float | None = None  # the request's, while one is answered

    # -- entry points ----------------------------------------------------------------------------

    def answer(self, request, start: float | None = None) -> str:
        """One request (already read: `read_request`) -> its reply as JSON text, all of it within
        the request's time limit counted from `start` (a time.perf_counter(), the request's
        arrival; default now). A reply that cannot be encoded in time or in size is refused
        with a `limit` error, and the session keeps the state it had before the request (the UI
        never saw the run). Never raises."""
        start = time.perf_counter() if start is None else start
        program, previous = self.program, self.previous
        reply = self.handle(request, start)
        seconds = self.limits.max_seconds
        # The reply gets the time limit, and at least the time the run reserved for it (a run
        # that ended one op past its deadline still gets its reply encoded; one that took more
        # than its share to encode does not).
        deadline = max(start + seconds * (1 + FINISH_RESERVE_FRACTION),
                       time.perf_counter() + _reserved_seconds(reply, seconds))
        try:
            return encode_reply(reply, deadline=deadline, seconds=seconds)
        except ReplyRefused as refused:
            self.program, self.previous = program, previous
            return json.dumps({"type": "error", "id": reply.get("id"),
                               "seconds": round(time.perf_counter() - start, 6),
                               "error": refused.error})

    def handle(self, request, start: float | None = None) -> dict:
        """One request -> its reply, a JSON-able dict (`answer` encodes it). `start`: as for
        `answer`; the run in it stops in time for the reply to be encoded by the deadline."""
        rid = request.get("id") if isinstance(request, dict) else None
        if not isinstance(rid, (int, str)) or isinstance(rid, bool):
            rid = None
        start = time.perf_counter() if start is None else start
        self._deadline = start + self.limits.max_seconds
        program, previous = self.program, self.previous
        try:
            _check_shape(request)
            kind = self._check(request)
            reply = getattr(self, "_on_" + kind)(request)
        except _BadRequest as e:
            reply = {"type": "error", "error": {"kind": e.kind, "message": e.message, **e.extra}}
        except MemoryError:  # the host ran out of memory: a limit of the host, not a bug
            self.program, self.previous = program, previous
            reply = {"type": "error", "error": {"kind": "limit", "message": (
                "the request needed more memory than this host has; it was stopped")}}
        except Exception:  # a bug in the host: log it, keep the session alive
            self.program, self.previous = program, previous
            reply = {"type": "error", "error": internal_error("answering a request")}
        finally:
            self._deadline = None
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
        previous = None if fresh else self.previous
        deadline = None
        if self._deadline is not None:  # the run leaves time to finish and encode the reply
            deadline = self._deadline - FINISH_RESERVE_FRACTION * self.limits.max_seconds
        # Each run sees what a fresh torch process would: its own default generator (seeded from
        # the system, as torch seeds one) and no once-only warning given yet, whatever runs of
        # this or any other session did before in this process.
        with engine.fresh_state():
            timeline = run_program(program, previous=previous, limits=self.limits,
                                   detail=detail, deadline=deadline)
        _hide_recorder_failures(timeline)
        self.program = program
        # A program that does not parse (half-typed) has no statements to carry ids over from:
        # keep the last one that did, so the next edit keeps its nodes' ids and places.
        if timeline["statements"] or self.previous is None or fresh:
            self.previous = {"version": timeline["version"], "statements": timeline["statements"]}
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


def _reserved_seconds(reply: dict, seconds: float) -> float:
    """The time a run reserved for finishing and encoding its reply (playground.recorder)."""
    timeline = reply.get("timeline")
    records = 0
    if isinstance(timeline, dict):
        records = timeline.get("stats", {}).get("events", 0) + len(timeline.get("scopes", ()))
    return FINISH_RESERVE_FRACTION * seconds + records * RESERVE_SECONDS_PER_EVENT


class ReplyRefused(Exception):
    """A reply that may not be sent: `error` is the `error` of the reply sent in its place."""

    def __init__(self, error: dict):
        super().__init__(error["message"])
        self.error = error


# Encoding in pieces: dicts and short lists this many levels down are walked (a reply, its
# timeline, the steps, a step, its events), long lists are encoded in slices of _SLICE items at
# C speed, and anything deeper whole; the deadline and the size are checked between pieces.
_WALK_DEPTH = 6
_SLICE = 64
_dumps = json.JSONEncoder(allow_nan=False, separators=(",", ":")).encode


def _pieces(value, depth: int):
    """The JSON text of `value` in pieces, exactly as `_dumps(value)` (keys must be strings)."""
    if depth and isinstance(value, dict) and all(type(k) is str for k in value):
        yield "{"
        comma = ""
        for key, item in value.items():
            yield comma + _dumps(key) + ":"
            comma = ","
            yield from _pieces(item, depth - 1)
        yield "}"
    elif depth and isinstance(value, list):
        yield "["
        if len(value) > _SLICE:
            for i in range(0, len(value), _SLICE):
                yield ("," if i else "") + _dumps(value[i:i + _SLICE])[1:-1]
        else:
            for i, item in enumerate(value):
                if i:
                    yield ","
                yield from _pieces(item, depth - 1)
        yield "]"
    else:
        yield _dumps(value)


def _one_piece(reply: dict) -> bool:
    """A run's reply that recorded at most _SLICE events and call scopes and no long loop (whose
    series may hold many points): its JSON is about one slice of a long list's, so it is encoded
    in one piece, at C speed. Walking it costs several times more than encoding it, and a small
    run (the first graph of a link, an edit) is the common case."""
    timeline = reply.get("timeline")
    if not isinstance(timeline, dict) or timeline.get("loops"):
        return False
    stats = timeline.get("stats")
    events = stats.get("events") if isinstance(stats, dict) else None
    scopes = timeline.get("scopes")
    return (isinstance(events, int) and isinstance(scopes, list)
            and events + len(scopes) <= _SLICE)


def encode_reply(reply: dict, deadline: float | None = None, seconds: float | None = None) -> str:
    """A reply as JSON text. Raises ReplyRefused with a `limit` error when the text grows past
    MAX_REPLY_CHARS or time.perf_counter() passes `deadline` (the request's time limit,
    `seconds` long) before it is done; with an `internal` error when it is not JSON-able."""
    pieces, size = [], 0
    clock = time.perf_counter
    try:
        for piece in (_dumps(reply),) if _one_piece(reply) else _pieces(reply, _WALK_DEPTH):
            pieces.append(piece)
            size += len(piece)
            if size > MAX_REPLY_CHARS:
                raise ReplyRefused({"kind": "limit", "limit": "max_reply_chars", "message": (
                    f"the answer to this request would be more than {MAX_REPLY_CHARS:,} "
                    "characters of JSON, more than a reply may carry; it was not sent (a long "
                    "loop records every step it keeps: loop fewer times)")})
            if deadline is not None and clock() > deadline:
                raise ReplyRefused({"kind": "limit", "limit": "max_seconds", "message": (
                    f"the answer to this request took longer than {seconds:g} seconds (the time "
                    "limit) to prepare: the run recorded more than could be sent in time, and "
                    "it was not sent (record less: fewer steps, smaller loops)")})
        return "".join(pieces)
    except MemoryError:
        pieces = None
        raise ReplyRefused({"kind": "limit", "limit": "max_reply_chars", "message": (
            "the answer to this request needed more memory than this host has; it was "
            "not sent")}) from None
    except (ValueError, TypeError, RecursionError):
        raise ReplyRefused(internal_error("encoding a reply")) from None


def handle_json(host: Host, text: str) -> str:
    """One request as JSON text -> its reply as JSON text (the in-browser worker's entry, and
    the server's worker processes'), within the request's time limit from this call on (reading
    the request counts). Never raises."""
    start = time.perf_counter()
    if not isinstance(text, str):
        request, reply = None, {"type": "error", "id": None, "seconds": 0,
                                "error": {"kind": "protocol", "message": "a request is JSON text"}}
    else:
        request, reply = read_request(text)
    if reply is None:
        return host.answer(request, start)
    return json.dumps(reply)
