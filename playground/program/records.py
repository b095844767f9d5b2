"""What a run leaves behind: the error a person sees, the steps, warnings and the run's result,
and the conversion of ast positions into the 1-based character columns those records carry."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

ERROR_KINDS = ("syntax", "not_allowed", "limit", "runtime")


# == errors and records ===========================================================================

class ProgramError(Exception):
    """What a person sees when a program cannot run (further): where and why.

    kind: "syntax" | "not_allowed" | "limit" | "runtime". line/col are 1-based (col counts
    characters). For runtime errors exc_type is the exception's type name as torch would raise it
    ("RuntimeError", "IndexError", ...); for limit errors `limit` names the Limits field."""

    def __init__(self, kind: str, message: str, line: int | None = None, col: int | None = None,
                 end_line: int | None = None, end_col: int | None = None,
                 exc_type: str | None = None, limit: str | None = None):
        super().__init__(message)
        if kind not in ERROR_KINDS:
            raise ValueError(f"unknown ProgramError kind {kind!r}")
        self.kind = kind
        self.message = message
        self.line = line
        self.col = col
        self.end_line = end_line
        self.end_col = end_col
        self.exc_type = exc_type
        self.limit = limit

    def __str__(self) -> str:
        where = f"line {self.line}, col {self.col}: " if self.line is not None else ""
        what = f"{self.exc_type}: " if self.exc_type else ""
        return f"{where}{what}{self.message}"

    def to_dict(self) -> dict:
        return {"kind": self.kind, "message": self.message, "line": self.line, "col": self.col,
                "end_line": self.end_line, "end_col": self.end_col, "exc_type": self.exc_type,
                "limit": self.limit}


@dataclass
class WarningRecord:
    category: str  # the warning class's name, e.g. "UserWarning"
    message: str
    line: int
    col: int


@dataclass
class Step:
    """One executed statement. A loop body's statements make one step per iteration."""

    index: int  # position in execution order, from 0
    stmt_id: int  # the statement's position in the program (pre-order over statements), from 0
    kind: str  # "import" | "assign" | "augassign" | "expr" | "with" | "pass" | "iterations" ...
    line: int
    col: int
    end_line: int
    end_col: int
    loop: tuple = ()  # the iteration number of each enclosing loop, outermost first
    grad_enabled: bool = True  # grad mode when the statement started
    assigned: list = field(default_factory=list)  # names the statement bound
    output: str = ""  # text it printed
    warnings: list = field(default_factory=list)  # WarningRecords it raised
    error: ProgramError | None = None  # set on the step that stopped the run
    # a step of kind "iterations": the first and last iteration of the loop it ran without
    # their detail (docs/timeline.md, "Long loops"); None for every other step
    iterations: list | None = None


@dataclass
class RunResult:
    text: str
    steps: list
    output: str
    warnings: list
    error: ProgramError | None
    namespace: dict  # the program's variables after the run (engine objects, numbers, ...)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.error is None

    def raise_for_error(self) -> RunResult:
        if self.error is not None:
            raise self.error
        return self


# == positions ====================================================================================

_NEWLINE = re.compile(r"\r\n|\r|\n")


class Source:
    """Turns ast positions (UTF-8 byte offsets) into 1-based character columns."""

    def __init__(self, text: str):
        self.lines = _NEWLINE.split(text)

    def col(self, lineno: int | None, byte_offset: int | None) -> int | None:
        if lineno is None or byte_offset is None:
            return None
        if 1 <= lineno <= len(self.lines):
            line = self.lines[lineno - 1]
            if not line.isascii():
                return len(line.encode("utf-8")[:byte_offset].decode("utf-8", "replace")) + 1
        return byte_offset + 1

    def error(self, kind: str, message: str, node, **extra) -> ProgramError:
        line = getattr(node, "lineno", None)
        end_line = getattr(node, "end_lineno", None)
        return ProgramError(kind, message, line, self.col(line, getattr(node, "col_offset", None)),
                            end_line, self.col(end_line, getattr(node, "end_col_offset", None)),
                            **extra)


def exception_message(e: BaseException) -> str:
    """The message Python prints for an exception (a KeyError shows its key's repr)."""
    if isinstance(e, KeyError) and len(e.args) == 1:
        return repr(e.args[0])
    return str(e)


# == exceptions passing through the interpreter ===================================================

def forget_traceback(exc: BaseException) -> None:
    """The program caught exc (or its step shows it): the interpreter's own frames it passed
    through are of no use (a program never holds a traceback) and would keep alive what those
    frames hold (a frame holding the exception it raised is a cycle with the traceback, freed
    only when the cyclic collector runs, so the interpreter raises what it holds with
    `try: raise x` / `finally: x = None`). The program's frames it left stay with it
    (keep_frame), as a traceback keeps them in Python."""
    exc.__traceback__ = None


def keep_frame(exc: BaseException, frame) -> None:
    """exc leaves a call of the program's function: like Python's traceback it keeps that
    call's scope alive (a generator the call held is closed when the exception goes), the
    innermost freed first (a list frees its items from the last)."""
    exc.__dict__.setdefault(PROGRAM_FRAMES, []).insert(0, frame)


PROGRAM_FRAMES = "__program_frames__"  # a name no program can read or write


# Python turns a StopIteration that leaves a generator into RuntimeError("generator raised
# StopIteration") (PEP 479). The interpreter runs the program's statements as its own
# generators, so a StopIteration the program raises in a function (`raise StopIteration` in
# a __next__, a `next()` of an ended iterator) would come out as that RuntimeError where Python
# gives the StopIteration itself. A try statement and a call's end take the StopIteration back
# out (`plain_stop_iteration`); the RuntimeError Python gives for a program's generator whose
# body raised StopIteration is real and marked so (`mark_generator_error`).
_GENERATOR_STOP = "generator raised StopIteration"
_FROM_GENERATOR = "__program_generator__"  # a name no program can read or write


def mark_generator_error(exc: BaseException) -> None:
    """exc left a generator of the program's own (or the program raised it): keep it as it is."""
    if type(exc) is RuntimeError:
        exc.__dict__[_FROM_GENERATOR] = True


def plain_stop_iteration(exc: BaseException) -> BaseException:
    """The StopIteration the program raised, if exc is the RuntimeError the interpreter's own
    generators made of it; otherwise exc."""
    if (type(exc) is RuntimeError and isinstance(exc.__cause__, StopIteration)
            and exc.args == (_GENERATOR_STOP,) and _FROM_GENERATOR not in exc.__dict__):
        return exc.__cause__
    return exc
