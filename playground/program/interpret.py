"""Interpretation: runs a validated Program over the engine (imported by the program as
`torch`), with the program's own grad mode, the run's budget and a warnings recorder around
each top-level statement.

Nothing here evaluates user text with eval/exec/compile: every node is interpreted by this
module and the run's two halves (statements.py, expressions.py), every name comes from the
program itself or from an allowlist (policy.py), and every attribute read is checked against the
allowlist for the kind of object it is read from.

Steps: every statement the module level runs is a Step (a loop body's statements once per
iteration; the headers of if/while/for/with are steps too, as they evaluate an expression). A
call of the program's own function runs its body inside the step of the statement that called
it: its statements count against the budget but make no steps of their own.

Use:
    result = Interpreter().run(text, on_step=callback)   # -> RunResult, never raises
    for step in Interpreter().steps(text): ...           # the same, one statement at a time
"""

from __future__ import annotations

import io
import warnings
import weakref

from .._engine import engine
from ..limits import (
    Budget,
    LimitExceeded,
    LimitObserver,
    Limits,
    default_limits,
)
from .builtin_functions import Builtins
from .expressions import Expressions, RandomModule
from .formatting import str_format
from .functions import Frame
from .generators import Generators
from .loops import DetailRequest
from .matching import Matching
from .parse import Program, parse
from .policy import shared_policy
from .records import (
    ProgramError,
    RunResult,
    Source,
    Step,
    WarningRecord,
    exception_message,
    forget_traceback,
)
from .statements import _CONTROL, _EXEC, _SIMPLE, _STMT_KIND, Statements, _Raised, _Stop

_observer = engine.observer
_budget = engine.budget
_engine_state = engine.state
_grad_mode = engine.autograd.grad_mode


class _QuietObserver(LimitObserver):
    """The observer of iterations that keep no detail (loops.py): the budget still counts every
    tensor; of the other events only backward()'s start goes on (for the loss series), every
    other one stops here at the cost of one call."""

    def tensor_created(self, tensor, node, op, inputs):
        self.budget.add_tensor(tensor, node)

    def backward_begin(self, roots, grad_roots, inputs, retain_graph, create_graph, api):
        if self.inner is not None:
            self.inner.backward_begin(roots, grad_roots, inputs, retain_graph, create_graph, api)


for _event in ("node_begin", "edge", "node_end", "accumulate", "hook", "inplace", "grad_assigned",
               "warning", "backward_end"):
    setattr(_QuietObserver, _event, getattr(_observer.Observer, _event))


class Interpreter:
    """Runs programs. One Interpreter can run many programs; each run starts from nothing.

    observer: an engine observer (engine.observer.Observer) that receives every engine event
    of the run, statement by statement (the session passes its recorder here). The run's own
    limit observer is installed around each statement and forwards to it.

    deadline: a time.perf_counter() by which a run must stop, if sooner than its time limit
    (a host answering a request counts the request's time from its arrival)."""

    def __init__(self, limits: Limits | None = None, observer=None, detail=(),
                 deadline: float | None = None):
        self.limits = limits or default_limits()
        self.observer = observer
        self.deadline = deadline
        self.policy = shared_policy()
        # iterations of long loops to keep in full detail: (header statement, loop path) pairs
        self.detail = DetailRequest(detail)

    def run(self, text: str, on_step=None, before_step=None) -> RunResult:
        """Run a program to its end or its first uncaught error; never raises ProgramError.

        before_step(step) is called before each statement runs (its output and error are not
        known yet), on_step(step) after it ran."""
        run = _Run(self, text, before_step)
        for step in run.steps():
            if on_step is not None:
                on_step(step)
        return run.result()

    def steps(self, text: str, before_step=None):
        """Iterate over the executed statements as they run; after the last one the generator
        returns the RunResult (also at .result of StopIteration)."""
        run = _Run(self, text, before_step)
        yield from run.steps()
        return run.result()


def run(text: str, limits: Limits | None = None, observer=None, on_step=None) -> RunResult:
    """Run a program with a fresh Interpreter."""
    return Interpreter(limits, observer).run(text, on_step=on_step)


class _Run(Statements, Expressions, Generators, Matching):
    """The state of one run: the program's scopes, its budget, its output and its steps."""

    def __init__(self, interp: Interpreter, text: str, before_step):
        self.interp = interp
        self.limits = interp.limits
        self.policy = interp.policy
        self.text = text
        self.before_step = before_step
        self.module = Frame("module")
        self.names = self.module.vars  # the program's global names
        self.frame = self.module
        self.depth = 0  # > 0: statements run without steps of their own (calls, class bodies)
        self.calls = 0  # calls of the program's own functions under way (recursion)
        self.handling: list = []  # exceptions being handled (for a bare `raise`)
        self.steps_done: list = []
        self.output = io.StringIO()
        self.output_chars = 0
        self.warnings: list = []
        self.warning_count = 0
        self.error: ProgramError | None = None
        self.budget = Budget(self.limits, interp.deadline)
        self.observer = LimitObserver(self.budget, interp.observer)
        self.budget_observer = LimitObserver(self.budget)  # the budget alone (see call_function)
        # the program's torch.set_printoptions, switched in for each statement like its grad
        # mode: a run starts from torch's defaults and leaves the host's options alone
        self.print_options = dict(_engine_state.PRINT_DEFAULTS)
        self.grad_enabled = True  # the program's own grad mode, kept apart from the host's
        self.inference = False  # and its own inference mode (torch.inference_mode())
        self.loop: tuple = ()
        self.node = None  # the node being evaluated (for error positions)
        self.step: Step | None = None
        self.src = Source(text if isinstance(text, str) else "")
        self.builtins = Builtins(self)
        self.random = RandomModule(self.limits)
        self.program: Program | None = None
        # id(FunctionDef/Lambda node) -> Scope, per run: the tree (and so each id) lives as long
        # as the run; a table shared by runs would hand a new node an old node's scope once an
        # id is reused
        self.scopes: dict = {}
        # the program's generators (generators.py): those made in this run (weakly), the one
        # being resumed, and those the program let go of while they wait, to be closed at the
        # next safe point; `open` while the run may still run program code
        self.generators: weakref.WeakSet = weakref.WeakSet()
        self.driving = None
        self.dropped: list = []
        self.open = False
        # characters the program's __repr__/__str__ returned in this run: Python joins what
        # they return in C (the repr of a list of the program's objects), past any check made
        # after the text is whole, so their total is capped as they return (statements.py)
        self.text_returned = 0
        # optional program-level hooks of the observer (the session's recorder uses them):
        # program_bind(name, value) when a name is bound, program_output(text) on each print,
        # program_parsed(program) once the program is parsed (its numbered statements)
        self.on_bind = getattr(interp.observer, "program_bind", None)
        self.on_output = getattr(interp.observer, "program_output", None)
        self.on_parsed = getattr(interp.observer, "program_parsed", None)
        # the long-loop rule (loops.py): while an iteration keeps no detail the run is `quiet`:
        # the engine's events go to a _QuietObserver (with the observer's `program_light`, if
        # it has one) instead of the observer, and names bound at the module level are
        # announced when the quiet stretch ends
        self.quiet = False
        self.full_observer = self.observer
        self.quiet_observer = _QuietObserver(self.budget,
                                             getattr(interp.observer, "program_light", None))
        self.quiet_binds: dict = {}
        self.loops: list = []  # the loops.Loop of each loop under way, innermost last
        self.series_frame = None  # the frame of the innermost loop the timeline lists
        self.on_loop = getattr(interp.observer, "program_loop", None)
        self.on_iteration = getattr(interp.observer, "program_iteration", None)
        self.on_loop_end = getattr(interp.observer, "program_loop_end", None)
        self.on_value = getattr(interp.observer, "program_value", None)
        # program_call_begin(kind, name, args, line, col) / program_call_end(value, ok) around
        # each call of the program's functions and of modules (the timeline's call scopes)
        self.on_call_begin = getattr(interp.observer, "program_call_begin", None)
        self.on_call_end = getattr(interp.observer, "program_call_end", None)

    def result(self) -> RunResult:
        return RunResult(self.text, self.steps_done, self.output.getvalue(), self.warnings,
                         self.error, dict(self.names), self.budget.elapsed())

    # -- driving ---------------------------------------------------------------------------------
    def steps(self):
        try:
            self.program = parse(self.text, self.limits)
        except ProgramError as e:
            self.error = e
            return
        if self.on_parsed is not None:
            self.on_parsed(self.program)
        self.open = True
        try:
            try:
                yield from self.block(self.program.tree.body)
            except _Raised as raised:
                self.error = raised.error
            # the program ends (a runtime error ends it too): its generators still waiting
            # are closed, as Python closes them at exit (generators.py)
            yield from self.close_at_end()
        except _Stop as stop:
            if self.error is None:
                self.error = stop.error
        finally:
            self.open = False  # after a limit or policy error no program code runs
            self.dropped.clear()

    def block(self, stmts):
        if self.depth:  # no steps: run the statements directly (no generator per statement)
            self.run_block(stmts)
            return
        for stmt in stmts:
            yield from _EXEC[type(stmt)](self, stmt)

    def run_block(self, stmts) -> None:
        """Run statements that make no steps (inside a call or a stretch of quiet iterations)."""
        count = self.budget.count_statement
        for stmt in stmts:
            if self.dropped:  # generators the program let go of (generators.py)
                self.close_dropped()
            do = _SIMPLE.get(type(stmt))
            if do is not None:
                count()
                self.node = stmt
                do(self, stmt)
            else:
                for _ in _EXEC[type(stmt)](self, stmt):
                    raise AssertionError("a step inside a call")  # pragma: no cover
        if self.dropped:
            self.close_dropped()

    def statement(self, stmt, fn, kind: str | None = None, at=None):
        """Run fn(stmt) as one statement; returns what fn returns. At the module level it is a
        step of its own; inside a call of the program's function it runs in the caller's step."""
        if self.depth:
            self.budget.count_statement()
            self.node = stmt
            value = fn(stmt)
            if self.dropped:
                self.close_dropped()
            return value
        step, value, signal = self.simple(stmt, fn, kind, at)
        yield step
        if signal is not None:
            try:  # no reference left in this frame (records.forget_traceback)
                raise signal
            finally:
                signal = None
        return value

    def simple(self, stmt, fn, kind: str | None = None, at=None):
        """Run one statement with the program's grad mode, the limit observer and a warnings
        recorder in place; turn whatever it raises into the step's ProgramError. Returns the
        step, fn's value and what to raise after the step is shown (an error or a break).

        at: the positions the step shows, when they are not stmt's (a stretch of quiet
        iterations shows its loop's body); such a step is not a statement of its own and does
        not count against the budget (its statements do)."""
        src = self.src
        where = at or stmt
        step = Step(
            index=len(self.steps_done), stmt_id=self.program.stmt_ids.get(id(stmt), -1),
            kind=kind or _STMT_KIND.get(type(stmt), "expr"), line=where.lineno,
            col=src.col(where.lineno, where.col_offset), end_line=where.end_lineno,
            end_col=src.col(where.end_lineno, where.end_col_offset), loop=self.loop,
            grad_enabled=self.grad_enabled,
        )
        self.step = step
        self.node = stmt
        error = exc = signal = value = None
        if at is None:
            try:
                self.budget.count_statement()
            except LimitExceeded as e:
                error = src.error("limit", e.message, stmt, limit=e.limit)
        if error is None and self.before_step is not None:
            self.before_step(step)
        out_start = self.output.tell()
        if error is None:
            prev_grad = _grad_mode.state.grad_enabled
            prev_inference = _grad_mode.state.inference
            prev_obs = _observer.state.observer
            prev_budget = _budget.state.budget
            engine_state = _engine_state.current()
            prev_print = engine_state.print_options
            engine_state.print_options = self.print_options
            _grad_mode.state.grad_enabled = self.grad_enabled
            _grad_mode.state.inference = self.inference
            _observer.state.observer = self.observer
            # the engine checks the run's deadline and sizes at every op, hook and print
            _budget.state.budget = self.budget
            try:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    try:
                        if self.dropped:  # let go of between steps (generators.py)
                            self.close_dropped()
                        value = fn(stmt)
                        if self.dropped:
                            self.close_dropped()
                    finally:
                        self.record_warnings(caught, step)
            except _CONTROL as control:
                signal = control
            except ProgramError as e:
                error = e
            except LimitExceeded as e:
                error = src.error("limit", e.message, self.node, limit=e.limit)
            except RecursionError:
                error = src.error("limit", "the program recursed too deeply", self.node,
                                  limit="max_call_depth")
            except MemoryError:
                error = src.error("limit", "the program ran out of memory", self.node,
                                  limit="max_total_elements")
            except Exception as e:  # an engine or Python error: reported as torch reports it
                exc = e
                forget_traceback(e)
                error = self.error_of(e)
                if error.kind != "runtime":  # its message ran into a limit: the run ends
                    exc = None
            finally:
                self.grad_enabled = _grad_mode.state.grad_enabled
                _grad_mode.state.grad_enabled = prev_grad
                self.inference = _grad_mode.state.inference
                _grad_mode.state.inference = prev_inference
                _observer.state.observer = prev_obs
                _budget.state.budget = prev_budget
                engine_state.print_options = prev_print
        if self.output.tell() != out_start:
            step.output = self.output.getvalue()[out_start:]
        step.error = error
        self.steps_done.append(step)
        if error is not None:
            if error.line is None:
                error.line, error.col = step.line, step.col
            signal = _Raised(exc, error) if exc is not None else _Stop(error)
        return step, value, signal

    def error_of(self, exc) -> ProgramError:
        """The runtime error a step shows for exc. Its message may run the program's own
        __repr__ or __str__ (a KeyError of its object): what that raises gives Python's
        "<exception str() failed>"; a limit it hits is the step's error instead."""
        node = self.node
        try:
            message = exception_message(exc)
        except ProgramError as e:
            return e
        except LimitExceeded as e:
            return self.src.error("limit", e.message, node, limit=e.limit)
        except RecursionError:
            return self.src.error("limit", "the program recursed too deeply", node,
                                  limit="max_call_depth")
        except Exception:
            message = "<exception str() failed>"
        return self.src.error("runtime", message, node, exc_type=type(exc).__name__)

    def record_warnings(self, caught, step: Step) -> None:
        for w in caught:
            self.warning_count += 1
            if len(self.warnings) >= self.limits.max_warnings:
                continue
            rec = WarningRecord(w.category.__name__, str(w.message), step.line, step.col)
            self.warnings.append(rec)
            step.warnings.append(rec)

    def drain(self, gen) -> None:
        """Run a block inside a call: it makes no steps (depth > 0), so nothing is yielded."""
        for _ in gen:
            raise AssertionError("a step inside a call")  # pragma: no cover

    # -- call scopes -----------------------------------------------------------------------------
    def scoped_call(self, kind: str, name: str, args: list, call):
        """call() inside a call scope of the timeline: the scope holds the call, its arguments
        ([(name, value)]) and what is made until it returns. Calls the engine makes from its
        backward (hooks, a Function's backward) are not scopes: the recorder is not listening
        there, nor while an iteration keeps no detail (docs/timeline.md, "Long loops")."""
        if (self.on_call_begin is None or self.quiet
                or _observer.state.observer is not self.observer):  # quiet: loops.py
            return call()
        node = self.node
        self.on_call_begin(kind, name, args, getattr(node, "lineno", None),
                           self.src.col(getattr(node, "lineno", None),
                                        getattr(node, "col_offset", None)))
        ok = False
        value = None
        try:
            value = call()
            ok = True
        finally:
            self.on_call_end(value, ok)
        return value

    # -- helpers ---------------------------------------------------------------------------------
    def not_allowed(self, node, message: str) -> ProgramError:
        return self.src.error("not_allowed", message, node)

    def write(self, text: str) -> None:
        self.output_chars += len(text)
        if self.output_chars > self.limits.max_output_chars:
            raise LimitExceeded("max_output_chars", f"the program printed too much (the limit "
                                f"is {self.limits.max_output_chars:,} characters)")
        self.output.write(text)
        if self.on_output is not None:
            self.on_output(text)

    def format_string(self, template: str, args: tuple, kwargs: dict) -> str:
        return str_format(self, template, args, kwargs)
