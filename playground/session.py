"""Sessions: run a program with the engine's observer installed and return its timeline, a
JSON-serialisable record of everything that happened (docs/timeline.md,
playground/timeline_schema.json, FORMAT_VERSION).

    timeline = run_program(text, previous=None, limits=None)

A step is one statement the interpreter ran; ids are stable across edits (playground.stable_ids);
the recording itself is playground.recorder's.
"""

from __future__ import annotations

import re
import time
import traceback

from .limits import Limits
from .program import Interpreter
from .recorder import FORMAT_VERSION, Recorder, safe
from .stable_ids import assign_bases, numbered_statements

__all__ = ["FORMAT_VERSION", "run_program"]


# == programs =====================================================================================

class _ProgramRecorder(Recorder):
    def __init__(self, text: str, previous, max_warnings: int):
        super().__init__(max_warnings)
        self.text = text
        self.previous = previous
        self.statements = None
        self.lines = re.split(r"\r\n|\r|\n", text) if isinstance(text, str) else []

    def program_bind(self, name, value):
        try:
            self.name(name, value)
        except Exception:
            self.internal_errors.append("program_bind: " + traceback.format_exc(limit=4)[-600:])

    def program_call_begin(self, kind, name, args, line, col):
        self.call_begin(kind, name, args, line, col)

    def program_call_end(self, value, ok):
        self.call_end(value, ok)

    def program_output(self, text):
        try:
            self.output(text)
        except Exception:
            self.internal_errors.append("program_output: " + traceback.format_exc(limit=4)[-600:])

    def program_parsed(self, program) -> None:
        try:
            self.statements = numbered_statements(program.statements)
            assign_bases(self.statements, self.previous)
        except Exception:  # ids then fall back to statement positions (s<n>)
            self.statements = []
            self.internal_errors.append("statements: " + traceback.format_exc(limit=3))

    @safe
    def before_step(self, s) -> None:
        statements = self.statements or ()  # set by program_parsed before the first step
        stmt = statements[s.stmt_id] if 0 <= s.stmt_id < len(statements) else None
        ctx = stmt.base if stmt is not None else f"s{s.stmt_id}"
        if s.loop:
            ctx += "@" + ".".join(str(i) for i in s.loop)
        if s.kind in ("with",):
            text = self.lines[s.line - 1] if 0 < s.line <= len(self.lines) else ""
        else:
            text = "\n".join(self.lines[s.line - 1:s.end_line])
        step = {
            "index": s.index, "statement": s.stmt_id if stmt is not None else None,
            "kind": s.kind, "line": s.line, "col": s.col, "end_line": s.end_line,
            "end_col": s.end_col, "text": text, "loop": list(s.loop),
            "grad_enabled": bool(s.grad_enabled), "events": [], "state": {}, "error": None,
        }
        if s.iterations is not None:
            step["iterations"] = list(s.iterations)
        self.begin_step(step, ctx)

    @safe
    def on_step(self, s) -> None:
        if self.step is None or self.step["index"] != s.index:
            self.before_step(s)
        step = self.step
        if s.iterations is not None:  # the stretch's last iteration is known now
            step["iterations"] = list(s.iterations)
        # warnings Python raised that did not come through the engine's observer
        seen: dict = {}
        for e in step["events"]:
            if e["event"] == "warning":
                k = (e["category"], e["message"])
                seen[k] = seen.get(k, 0) + 1
        for w in s.warnings:
            k = (w.category, w.message)
            if seen.get(k):
                seen[k] -= 1
            else:
                self.emit({"event": "warning", "category": w.category, "message": w.message})
            self.warnings.append({"category": w.category, "message": w.message,
                                  "line": w.line, "col": w.col, "step": s.index})
        if s.error is not None:
            err = _error_dict(s.error)
            step["error"] = err
            self.emit(dict({"event": "error"}, **err))
        stmt = None
        if self.statements is not None and 0 <= s.stmt_id < len(self.statements):
            stmt = self.statements[s.stmt_id]
        self.end_step(stmt.names if stmt is not None else ())


def _error_dict(e) -> dict:
    return {"type": e.exc_type, "message": e.message, "kind": e.kind, "line": e.line,
            "col": e.col, "end_line": e.end_line, "end_col": e.end_col, "limit": e.limit}


def run_program(text: str, *, previous: dict | None = None,
                limits: Limits | None = None, detail=(), deadline: float | None = None) -> dict:
    """Run a program and return its timeline (docs/timeline.md). Never raises for anything the
    program does: errors are in the timeline's `error` and on the step that stopped the run.

    previous: an earlier timeline of (an earlier version of) the program; statements with the
    same key keep its ids, an edited statement binding the same names inherits its ids.
    detail: iterations of long loops to keep in full detail besides the first and last ones,
    as (loop header's statement index, loop path) pairs (docs/timeline.md, "Long loops").
    deadline: a time.perf_counter() by which the run must stop, if sooner than its time limit;
    the run also stops earlier by the time its recording will take to finish and send."""
    start = time.perf_counter()
    rec = _ProgramRecorder(text, previous, 0)
    interp = Interpreter(limits, observer=rec, detail=detail, deadline=deadline)
    rec.max_warnings = interp.limits.max_warnings
    rec.max_events = interp.limits.max_timeline_events
    result = interp.run(text, on_step=rec.on_step, before_step=rec.before_step)
    body = rec.finish()
    timeline = {
        "version": FORMAT_VERSION,
        "source": "program",
        "program": text if isinstance(text, str) else "",
        "ok": result.error is None,
        "statements": [s.to_dict() for s in rec.statements or ()],
        "nodes": body["nodes"],
        "edges": body["edges"],
        "scopes": body["scopes"],
        "steps": rec.steps,
        "console": rec.console,
        "warnings": rec.warnings,
        "loops": rec.loops,
        "error": _error_dict(result.error) if result.error is not None else None,
        "stats": {},
    }
    if rec.internal_errors:
        timeline["internal_errors"] = rec.internal_errors[:20]
    timeline["stats"] = {
        "steps": len(rec.steps), "events": sum(len(s["events"]) for s in rec.steps),
        "tensors": len(body["nodes"]["tensors"]), "nodes": len(body["nodes"]["autograd"]),
        "run_seconds": round(result.seconds, 6),
        "seconds": round(time.perf_counter() - start, 6),
    }
    return timeline


