"""trace(): record plain Python engine code (no program text) into a timeline, for tests and
notebooks. Steps are the lines of one frame, found by inspecting the caller's frames; names are
that frame's local variables. Not part of the playground's API: hosts run programs
(playground.session.run_program), never Python."""

from __future__ import annotations

import linecache
import sys
import time
import traceback

from ._engine import engine
from .recorder import FORMAT_VERSION, Recorder

Module = engine.nn.Module
observe = engine.observer.observe
Tensor = engine.Tensor

__all__ = ["Trace", "trace"]

_MAX_NAME_SCAN = 2000  # trace(): at most this many locals are looked at per step


# == trace: plain Python engine code ==============================================================

class _Tee:
    def __init__(self, stream, recorder):
        self.stream = stream
        self.recorder = recorder

    def write(self, text):
        if text:
            try:
                self.recorder.output(text)
            except Exception:
                self.recorder.internal_errors.append("print: " + traceback.format_exc(limit=3))
        return self.stream.write(text)

    def flush(self):
        return self.stream.flush()

    def __getattr__(self, name):
        return getattr(self.stream, name)


class _TraceRecorder(Recorder):
    """Steps are the lines of one frame (the traced function's, or the with block's)."""

    def __init__(self):
        super().__init__()
        self.anchor = None  # the frame whose lines make the steps
        self.runner = None  # trace(fn): our frame that called fn (the anchor is its callee)
        self.current_line = None
        self.last_frame = None  # the traced frame as last seen (its locals name the tensors)

    def _frame(self):
        f = sys._getframe(1)
        while f is not None:
            if f is self.anchor or (self.runner is not None and f.f_back is self.runner):
                return f
            f = f.f_back
        return None

    def at(self) -> None:
        f = self._frame()
        line = f.f_lineno if f is not None else 0
        if f is not None:
            self.last_frame = f
        if self.step is not None and line == self.current_line:
            return
        self.close_step(f)
        self.current_line = line
        text = ""
        if f is not None:
            text = linecache.getline(f.f_code.co_filename, line).strip()
        self.begin_step({
            "index": len(self.steps), "statement": None, "kind": "line", "line": line,
            "col": None, "end_line": line, "end_col": None, "text": text, "loop": [],
            "grad_enabled": _grad_enabled(), "events": [], "state": {}, "error": None,
        }, "")

    def close_step(self, frame=None) -> None:
        if self.step is None:
            return
        frame = frame or self._frame_of_anchor()
        names = self.scan(frame)
        self.end_step(names)

    def _frame_of_anchor(self):
        return self.anchor if self.anchor is not None else self.last_frame

    def scan(self, frame) -> list:
        if frame is None:
            return []
        names = []
        try:
            items = list(frame.f_locals.items())[:_MAX_NAME_SCAN]
        except Exception:
            return []
        for k, v in items:
            if isinstance(k, str) and not k.startswith("_") and isinstance(
                    v, (Tensor, Module, list, tuple)):
                if type(v) in (list, tuple) and not any(isinstance(x, Tensor) for x in v[:50]):
                    continue
                prev = self.bound.get(k)
                if isinstance(v, Tensor) and prev and len(prev) == 1 and prev[0].ref() is v:
                    names.append(k)
                    continue
                self.name(k, v)
                names.append(k)
        return names


def _grad_enabled() -> bool:
    grad_mode = engine.autograd.grad_mode
    return bool(grad_mode.state.grad_enabled)


class Trace:
    """`with trace() as tr:` records the engine code in the block; `tr.timeline` afterwards.

    An exception raised in the block is recorded (timeline `error`, and an `error` event on its
    line) and then propagates as usual."""

    def __init__(self):
        self.recorder = _TraceRecorder()
        self.timeline = None
        self._cm = None
        self._stdout = None
        self._start = 0.0

    def __enter__(self):
        self.recorder.anchor = sys._getframe(1)
        self._start_recording()
        return self

    def __exit__(self, exc_type, exc, tb):
        self._stop_recording(exc, tb)
        return False

    def _start_recording(self):
        self._start = time.perf_counter()
        self._cm = observe(self.recorder)
        self._cm.__enter__()
        self._stdout = sys.stdout
        sys.stdout = _Tee(sys.stdout, self.recorder)

    def _stop_recording(self, exc, tb):
        rec = self.recorder
        sys.stdout = self._stdout
        self._cm.__exit__(None, None, None)
        error = None
        if exc is not None:
            line = None
            while tb is not None:
                f = tb.tb_frame
                if f is rec.anchor or (rec.runner is not None and f.f_back is rec.runner):
                    line = tb.tb_lineno
                tb = tb.tb_next
            error = {"type": type(exc).__name__, "message": str(exc), "kind": "runtime",
                     "line": line, "col": None, "end_line": line, "end_col": None,
                     "limit": None}
            if rec.step is None or rec.current_line != line:
                rec.close_step()
                rec.step = None
                rec.current_line = line
                rec.begin_step({
                    "index": len(rec.steps), "statement": None, "kind": "line", "line": line,
                    "col": None, "end_line": line, "end_col": None, "text": "", "loop": [],
                    "grad_enabled": _grad_enabled(), "events": [], "state": {}, "error": None,
                }, "")
            rec.step["error"] = error
            rec.emit(dict({"event": "error"}, **error))
        rec.close_step()
        rec.last_frame = None
        body = rec.finish()
        self.timeline = {
            "version": FORMAT_VERSION, "source": "trace", "program": None,
            "ok": error is None, "statements": [], "nodes": body["nodes"],
            "edges": body["edges"], "scopes": body["scopes"], "steps": rec.steps,
            "console": rec.console,
            "warnings": [{"category": e["category"], "message": e["message"],
                          "line": s["line"], "col": None, "step": s["index"]}
                         for s in rec.steps for e in s["events"] if e["event"] == "warning"],
            "loops": [],  # steps are lines, not statements: no loop is known
            "error": error,
            "stats": {"steps": len(rec.steps),
                      "events": sum(len(s["events"]) for s in rec.steps),
                      "tensors": len(body["nodes"]["tensors"]),
                      "nodes": len(body["nodes"]["autograd"]),
                      "run_seconds": round(time.perf_counter() - self._start, 6),
                      "seconds": round(time.perf_counter() - self._start, 6)},
        }
        if rec.internal_errors:
            self.timeline["internal_errors"] = rec.internal_errors[:20]


def trace(fn=None):
    """trace(fn) calls fn() and returns the timeline of the engine code it ran (an exception
    is recorded in the timeline, not raised); trace() is a context manager (see Trace).

    Steps are the lines of fn (or of the with block) that did something in the engine; ids
    follow creation order (t1, t2, ..., n1, ...); names are the frame's local variables."""
    if fn is None:
        return Trace()
    tr = Trace()
    tr.recorder.runner = sys._getframe(0)
    tr._start_recording()
    exc = tb = None
    try:
        fn()
    except Exception as e:
        exc, tb = e, e.__traceback__
    tr._stop_recording(exc, tb)
    return tr.timeline
