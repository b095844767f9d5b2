"""Interpretation: runs a validated Program over the engine (imported by the program as
`torch`), with the program's own grad mode, the run's budget and a warnings recorder around
each top-level statement.

Nothing here evaluates user text with eval/exec/compile: every node is interpreted by this
module, every name comes from the program itself or from an allowlist (policy.py), and every
attribute read is checked against the allowlist for the kind of object it is read from.

Steps: every statement the module level runs is a Step (a loop body's statements once per
iteration; the headers of if/while/for/with are steps too, as they evaluate an expression). A
call of the program's own function runs its body inside the step of the statement that called
it: its statements count against the budget but make no steps of their own.

Use:
    result = Interpreter().run(text, on_step=callback)   # -> RunResult, never raises
    for step in Interpreter().steps(text): ...           # the same, one statement at a time
"""

from __future__ import annotations

import ast
import io
import math
import operator
import random as _random
import types
import warnings

from .._engine import engine
from ..limits import (
    Budget,
    LimitExceeded,
    LimitObserver,
    Limits,
    default_limits,
    guard_broadcast,
    guard_call,
    guard_constructor,
    guard_indexing,
    guard_module_call,
)
from .builtin_functions import BUILTIN_NAMES, BuiltinFunction, Builtins, is_number
from .formatting import format_value, percent_format, str_format
from .functions import (
    USER_CLASSES,
    Frame,
    Scope,
    UserFunction,
    bind_arguments,
    is_user_class,
    user_class_defines,
)
from .operators import BINOPS, COMPARE, INPLACE, PLAIN, UNARY, number_op
from .parse import Program, parse
from .policy import (
    EXCEPTION_ATTRS,
    EXCEPTIONS,
    GROWING_METHODS,
    MODULE_METHODS,
    NAMESPACES,
    PYTHON_METHODS,
    PYTHON_MODULES,
    RANDOM_NAMES,
    SETTABLE_ATTRS,
    TENSOR_PRIVATE_READABLE,
    Policy,
)
from .records import ProgramError, RunResult, Source, Step, WarningRecord

nn = engine.nn
_observer = engine.observer
_grad_mode = engine.autograd.grad_mode
Node = engine.autograd.graph.Node


# == control flow: internal, never visible to the program (BaseException, so `except Exception`
# in the engine or here never swallows them) ======================================================

class _Stop(BaseException):
    """A statement failed with an error the program cannot catch (limit, not_allowed)."""

    def __init__(self, error: ProgramError):
        self.error = error


class _Raised(BaseException):
    """A top-level statement raised a Python exception: a try statement may catch it."""

    def __init__(self, exc: BaseException, error: ProgramError):
        self.exc = exc
        self.error = error


class _Break(BaseException):
    pass


class _Continue(BaseException):
    pass


class _Return(BaseException):
    def __init__(self, value):
        self.value = value


_CONTROL = (_Break, _Continue, _Return)
# errors that end the run whatever try statement surrounds them
_FATAL = (LimitExceeded, ProgramError, RecursionError, MemoryError)

_GRAD_CONTEXTS = tuple(c for c in (engine.no_grad, engine.enable_grad, engine.set_grad_enabled,
                                   getattr(engine, "inference_mode", None)) if c is not None)
# iterables a program may loop over besides its own containers and the engine's objects
_ITERATOR_TYPES = (range, zip, map, filter, enumerate, reversed, types.GeneratorType,
                   type(iter([])), type(iter(())), type(iter("")), type(iter(range(0))),
                   type({}.keys()), type({}.values()), type({}.items()), type(iter({})),
                   type(iter(set())), type(reversed([])), type(iter(reversed(range(0)))))
_CONTAINERS = (list, tuple, str, dict, set, frozenset)
# math functions whose cost grows with an argument: the largest argument allowed
_MATH_ARG_CAPS = {id(math.factorial): 1000, id(math.comb): 10_000, id(math.perm): 10_000}


class RandomModule:
    """`import random` in a program: the run's own generator, seeded the same way in every run
    (so a run is reproducible and no session sees another's state); random.seed(n) then gives
    Python's own sequence for n."""

    SEED = 0

    def __init__(self, limits: Limits):
        self._rng = _random.Random(self.SEED)
        self._cap = limits.max_sequence_items

    def _k(self, k) -> None:
        if isinstance(k, int) and k > self._cap:
            raise LimitExceeded("max_sequence_items", f"too many items (the limit is "
                                f"{self._cap:,})")

    def seed(self, a=None):
        if not (a is None or type(a) in (int, float, str, bool)):
            raise TypeError("random.seed() takes a number or a string here")
        self._rng.seed(self.SEED if a is None else a)

    def random(self):
        return self._rng.random()

    def uniform(self, a, b):
        return self._rng.uniform(a, b)

    def randint(self, a, b):
        return self._rng.randint(a, b)

    def randrange(self, *args):
        return self._rng.randrange(*args)

    def choice(self, seq):
        return self._rng.choice(seq)

    def choices(self, population, weights=None, *, cum_weights=None, k=1):
        self._k(k)
        return self._rng.choices(population, weights, cum_weights=cum_weights, k=k)

    def shuffle(self, x):
        self._rng.shuffle(x)

    def sample(self, population, k):
        self._k(k)
        return self._rng.sample(population, k)

    def gauss(self, mu=0.0, sigma=1.0):
        return self._rng.gauss(mu, sigma)

    def normalvariate(self, mu=0.0, sigma=1.0):
        return self._rng.normalvariate(mu, sigma)

    def __repr__(self) -> str:
        return "<module 'random'>"


class SuperProxy:
    """What super() gives a program: attribute reads resolved past `cls` in obj's classes, through
    the same policy as reads on obj itself."""

    __slots__ = ("cls", "obj")

    def __init__(self, cls, obj):
        self.cls = cls
        self.obj = obj

    def __repr__(self) -> str:
        return f"<super: <class '{self.cls.__name__}'>, <{type(self.obj).__name__} object>>"


class Interpreter:
    """Runs programs. One Interpreter can run many programs; each run starts from nothing.

    observer: an engine observer (engine.observer.Observer) that receives every engine event
    of the run, statement by statement (the session passes its recorder here). The run's own
    limit observer is installed around each statement and forwards to it."""

    def __init__(self, limits: Limits | None = None, observer=None):
        self.limits = limits or default_limits()
        self.observer = observer
        self.policy = Policy()

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


class _Run:
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
        self.depth = 0  # calls of the program's own functions under way
        self.handling: list = []  # exceptions being handled (for a bare `raise`)
        self.steps_done: list = []
        self.output = io.StringIO()
        self.output_chars = 0
        self.warnings: list = []
        self.warning_count = 0
        self.error: ProgramError | None = None
        self.budget = Budget(self.limits)
        self.observer = LimitObserver(self.budget, interp.observer)
        self.grad_enabled = True  # the program's own grad mode, kept apart from the host's
        self.loop: tuple = ()
        self.node = None  # the node being evaluated (for error positions)
        self.step: Step | None = None
        self.src = Source(text if isinstance(text, str) else "")
        self.builtins = Builtins(self)
        self.random = RandomModule(self.limits)
        self.program: Program | None = None
        # optional program-level hooks of the observer (the session's recorder uses them):
        # program_bind(name, value) when a name is bound, program_output(text) on each print,
        # program_parsed(program) once the program is parsed (its numbered statements)
        self.on_bind = getattr(interp.observer, "program_bind", None)
        self.on_output = getattr(interp.observer, "program_output", None)
        self.on_parsed = getattr(interp.observer, "program_parsed", None)

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
        try:
            yield from self.block(self.program.tree.body)
        except (_Stop, _Raised) as stop:
            self.error = stop.error

    def block(self, stmts):
        for stmt in stmts:
            yield from _EXEC[type(stmt)](self, stmt)

    def statement(self, stmt, fn, kind: str | None = None):
        """Run fn(stmt) as one statement; returns what fn returns. At the module level it is a
        step of its own; inside a call of the program's function it runs in the caller's step."""
        if self.depth:
            self.budget.count_statement()
            self.node = stmt
            return fn(stmt)
        step, value, signal = self.simple(stmt, fn, kind)
        yield step
        if signal is not None:
            raise signal
        return value

    def simple(self, stmt, fn, kind: str | None = None):
        """Run one statement with the program's grad mode, the limit observer and a warnings
        recorder in place; turn whatever it raises into the step's ProgramError. Returns the
        step, fn's value and what to raise after the step is shown (an error or a break)."""
        src = self.src
        step = Step(
            index=len(self.steps_done), stmt_id=self.program.stmt_ids.get(id(stmt), -1),
            kind=kind or _STMT_KIND.get(type(stmt), "expr"), line=stmt.lineno,
            col=src.col(stmt.lineno, stmt.col_offset), end_line=stmt.end_lineno,
            end_col=src.col(stmt.end_lineno, stmt.end_col_offset), loop=self.loop,
            grad_enabled=self.grad_enabled,
        )
        self.step = step
        self.node = stmt
        error = exc = signal = value = None
        try:
            self.budget.count_statement()
        except LimitExceeded as e:
            error = src.error("limit", e.message, stmt, limit=e.limit)
        if error is None and self.before_step is not None:
            self.before_step(step)
        out_start = self.output.tell()
        if error is None:
            prev_grad = _grad_mode.state.grad_enabled
            prev_obs = _observer.state.observer
            _grad_mode.state.grad_enabled = self.grad_enabled
            _observer.state.observer = self.observer
            try:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    try:
                        value = fn(stmt)
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
                error = src.error("runtime", _message(e), self.node, exc_type=type(e).__name__)
            finally:
                self.grad_enabled = _grad_mode.state.grad_enabled
                _grad_mode.state.grad_enabled = prev_grad
                _observer.state.observer = prev_obs
        if self.output.tell() != out_start:
            step.output = self.output.getvalue()[out_start:]
        step.error = error
        self.steps_done.append(step)
        if error is not None:
            if error.line is None:
                error.line, error.col = step.line, step.col
            signal = _Raised(exc, error) if exc is not None else _Stop(error)
        return step, value, signal

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

    # -- compound statements -----------------------------------------------------------------
    def exec_if(self, stmt):
        test = yield from self.statement(stmt, lambda s: self.truth(self.eval(s.test)), "if")
        yield from self.block(stmt.body if test else stmt.orelse)

    def exec_while(self, stmt):
        outer = self.loop
        n = 0
        try:
            while True:
                self.loop = outer + (n,)
                test = yield from self.statement(stmt, lambda s: self.truth(self.eval(s.test)),
                                                 "while")
                if not test:
                    break
                self.count_iteration(n, stmt)
                try:
                    yield from self.block(stmt.body)
                except _Break:
                    return
                except _Continue:
                    pass
                n += 1
        finally:
            self.loop = outer
        yield from self.block(stmt.orelse)

    def exec_for(self, stmt):
        items = yield from self.statement(stmt, lambda s: self.loop_items(self.eval(s.iter), s),
                                          "for")
        outer = self.loop
        try:
            for n, item in enumerate(items):
                self.count_iteration(n, stmt)
                self.loop = outer + (n,)
                self.assign(stmt.target, item, announce=False)
                try:
                    yield from self.block(stmt.body)
                except _Break:
                    return
                except _Continue:
                    pass
        finally:
            self.loop = outer
        yield from self.block(stmt.orelse)

    def count_iteration(self, n: int, stmt) -> None:
        if n >= self.limits.max_loop_iterations:
            self.node = stmt
            raise _Stop(self.src.error(
                "limit", f"this loop ran {n:,} times (the limit is "
                f"{self.limits.max_loop_iterations:,})", stmt, limit="max_loop_iterations"))

    def loop_items(self, value, stmt):
        """What a for loop runs over: a range as it is (checked against the loop limit), every
        other iterable taken in full inside the header's step (bounded), so anything iterating
        runs (the engine's ops, the program's functions) does so within a step."""
        if type(value) is range:
            if len(value) > self.limits.max_loop_iterations:
                raise LimitExceeded("max_loop_iterations", f"this loop would run "
                                    f"{len(value):,} times (the limit is "
                                    f"{self.limits.max_loop_iterations:,})")
            return value
        return self.iterate(value, stmt)

    def exec_with(self, stmt):
        managers = []

        def enter(_stmt):
            for item in stmt.items:
                self.node = item.context_expr
                cm = self.eval(item.context_expr)
                if not isinstance(cm, _GRAD_CONTEXTS):
                    raise self.not_allowed(item.context_expr, "a with statement takes "
                                           "torch.no_grad(), torch.enable_grad() or "
                                           "torch.set_grad_enabled(flag)")
                cm.__enter__()
                managers.append(cm)

        try:
            yield from self.statement(stmt, enter, "with")
            yield from self.block(stmt.body)
        finally:
            if self.depth:  # inside a call the program's grad state is the current one
                for cm in reversed(managers):
                    cm.__exit__(None, None, None)
            else:  # leave in reverse order, inside the program's grad state
                prev = _grad_mode.state.grad_enabled
                _grad_mode.state.grad_enabled = self.grad_enabled
                try:
                    for cm in reversed(managers):
                        cm.__exit__(None, None, None)
                finally:
                    self.grad_enabled = _grad_mode.state.grad_enabled
                    _grad_mode.state.grad_enabled = prev

    def exec_try(self, stmt):
        pending = None
        try:
            try:
                yield from self.block(stmt.body)
            except (GeneratorExit, _Stop, *_CONTROL, *_FATAL):
                raise
            except (_Raised, Exception) as raised:
                exc = raised.exc if isinstance(raised, _Raised) else raised
                handler = self.find_handler(stmt, exc)
                if handler is None:
                    raise
                yield from self.run_handler(handler, exc)
            else:
                yield from self.block(stmt.orelse)
        except (GeneratorExit, _Stop, *_FATAL):
            raise  # the run ends: no finally block runs after a limit
        except BaseException as e:  # an exception or a break/continue/return: finally first
            pending = e
        yield from self.block(stmt.finalbody)
        if pending is not None:
            raise pending

    def find_handler(self, stmt, exc):
        for handler in stmt.handlers:
            if handler.type is None:
                return handler
            self.node = handler.type
            kinds = self.eval(handler.type)
            kinds = kinds if isinstance(kinds, tuple) else (kinds,)
            for k in kinds:
                if not (isinstance(k, type) and issubclass(k, BaseException)):
                    raise _Stop(self.src.error(
                        "runtime", "catching classes that do not inherit from BaseException is "
                        "not allowed", handler.type, exc_type="TypeError"))
                if isinstance(exc, k):
                    return handler
        return None

    def run_handler(self, handler, exc):
        if handler.name is not None:
            self.bind(handler.name, exc, announce=False)
        self.handling.append(exc)
        try:
            yield from self.block(handler.body)
        finally:
            self.handling.pop()
            if handler.name is not None:  # Python unbinds the name after the handler
                self.frame.vars.pop(handler.name, None)

    def exec_simple(self, stmt):
        yield from self.statement(stmt, _SIMPLE[type(stmt)].__get__(self))

    # -- simple statements ---------------------------------------------------------------------
    def do_expr(self, stmt) -> None:
        self.eval(stmt.value)

    def do_assign(self, stmt) -> None:
        value = self.eval(stmt.value)
        for target in stmt.targets:
            self.assign(target, value)

    def do_annassign(self, stmt) -> None:
        if stmt.value is not None:
            self.assign(stmt.target, self.eval(stmt.value))

    def do_pass(self, stmt) -> None:
        pass

    def do_break(self, stmt) -> None:
        raise _Break()

    def do_continue(self, stmt) -> None:
        raise _Continue()

    def do_return(self, stmt) -> None:
        raise _Return(None if stmt.value is None else self.eval(stmt.value))

    def do_global(self, stmt) -> None:
        pass  # the scope analysis (functions.Scope) already knows

    def do_import(self, stmt) -> None:
        for alias in stmt.names:
            if alias.asname:
                self.bind(alias.asname, self.import_module(alias.name))
            else:  # `import torch.nn` binds torch, as Python does
                self.import_module(alias.name)
                top = alias.name.split(".")[0]
                self.bind(top, self.import_module(top))

    def do_importfrom(self, stmt) -> None:
        module = self.import_module(stmt.module)
        for alias in stmt.names:
            sub_path = f"{stmt.module}.{alias.name}"
            if sub_path in NAMESPACES:
                value = NAMESPACES[sub_path]
            else:
                value = self.get_attr(module, alias.name, stmt)
            self.bind(alias.asname or alias.name, value)

    def import_module(self, path: str):
        if path == "random":
            return self.random
        if path in PYTHON_MODULES:
            return PYTHON_MODULES[path]
        return NAMESPACES[path]  # the validator let only these paths through

    def do_delete(self, stmt) -> None:
        for target in stmt.targets:
            self.delete(target)

    def delete(self, target) -> None:
        t = type(target)
        if t is ast.Name:
            frame = self.scope_of(target.id)
            if target.id not in frame.vars:
                raise NameError(f"name {target.id!r} is not defined")
            del frame.vars[target.id]
        elif t in (ast.Tuple, ast.List):
            for elt in target.elts:
                self.delete(elt)
        elif t is ast.Subscript:
            obj = self.eval(target.value)
            index = self.eval(target.slice)
            self.node = target
            if not isinstance(obj, (list, dict)):
                raise self.not_allowed(target, f"items of {_kind_name(obj)} cannot be deleted")
            del obj[index]
        else:  # attributes: `del x.grad` is torch's way of clearing a gradient
            obj = self.eval(target.value)
            self.set_attr(obj, target.attr, None, target, delete=True)

    def do_assert(self, stmt) -> None:
        if not self.truth(self.eval(stmt.test)):
            if stmt.msg is None:
                raise AssertionError()
            raise AssertionError(self.eval(stmt.msg))

    def do_raise(self, stmt) -> None:
        if stmt.exc is None:
            if not self.handling:
                raise RuntimeError("No active exception to reraise")
            raise self.handling[-1]
        exc = self.eval(stmt.exc)
        if isinstance(exc, type) and self.is_exception_class(exc):
            exc = exc()
        if not isinstance(exc, Exception) or not self.is_exception_class(type(exc)):
            raise TypeError("exceptions must derive from BaseException")
        if stmt.cause is not None:
            cause = self.eval(stmt.cause)
            if cause is not None and not isinstance(cause, Exception):
                raise TypeError("exception causes must derive from BaseException")
            raise exc from cause
        raise exc

    def is_exception_class(self, cls) -> bool:
        return cls in EXCEPTIONS.values() or (is_user_class(cls) and issubclass(cls, Exception))

    def do_functiondef(self, stmt) -> None:
        fn = self.make_function(stmt, stmt.name)
        value = fn
        for dec_node in reversed(stmt.decorator_list):
            value = self.decorate(self.eval(dec_node), value, dec_node)
        self.bind(stmt.name, value)

    def make_function(self, node, name: str) -> UserFunction:
        args = node.args
        defaults = [self.eval(d) for d in args.defaults]
        kw_defaults = {a.arg: self.eval(d) for a, d in zip(args.kwonlyargs, args.kw_defaults)
                       if d is not None}
        closure = self.frame if self.frame.kind != "class" else self.frame.parent
        scope = _SCOPES.get(id(node))
        if scope is None:
            scope = _SCOPES[id(node)] = Scope(node)
        return UserFunction(self, node, name, defaults, kw_defaults, closure, scope)

    def decorate(self, decorator, value, node):
        self.node = node
        if isinstance(decorator, BuiltinFunction) and decorator.name in (
                "staticmethod", "classmethod", "property"):
            return decorator(value)
        if isinstance(decorator, _GRAD_CONTEXTS):  # @torch.no_grad(): the mode for each call
            if not isinstance(value, UserFunction):
                raise self.not_allowed(node, "a grad-mode decorator goes on a function")
            value.wrappers = value.wrappers + (decorator.clone,)
            return value
        if isinstance(decorator, type) and decorator in _GRAD_CONTEXTS:
            raise TypeError(f"{decorator.__name__}.__init__() takes 1 positional argument but "
                            "2 were given")
        if isinstance(decorator, UserFunction):
            return decorator(value)
        raise self.not_allowed(node, f"{_kind_name(decorator)} cannot be used as a decorator")

    def do_classdef(self, stmt) -> None:
        bases = tuple(self.eval(b) for b in stmt.bases)
        for b in bases:
            if not (b is object or b is nn.Module or is_user_class(b)
                    or b in EXCEPTIONS.values()):
                raise self.not_allowed(stmt, f"a class can derive from nn.Module, an exception "
                                       f"type or the program's own classes (not "
                                       f"{_kind_name(b)})")
        frame = Frame("class", parent=self.frame)
        outer = self.frame
        self.frame = frame
        self.depth += 1
        try:
            self.drain(self.block(stmt.body))
        finally:
            self.frame = outer
            self.depth -= 1
        ns = dict(frame.vars)
        ns["__module__"] = "__main__"
        ns["__qualname__"] = stmt.name
        cls = type(stmt.name, bases or (object,), ns)
        USER_CLASSES.add(cls)
        for attr, v in frame.vars.items():
            fn = getattr(v, "__func__", None) or getattr(v, "fget", None) or v
            if isinstance(fn, UserFunction):
                fn.owner = cls
                fn.qualname = f"{stmt.name}.{attr}"
        self.bind(stmt.name, cls)

    # -- calls of the program's own functions --------------------------------------------------
    def call_function(self, fn: UserFunction, args: tuple, kwargs: dict):
        if fn.run is not self:
            raise RuntimeError("this function belongs to a run that has ended")
        if self.depth >= self.limits.max_call_depth:
            raise LimitExceeded("max_call_depth", f"too many nested calls of the program's "
                                f"functions (the limit is {self.limits.max_call_depth})")
        bound = bind_arguments(fn, args, kwargs)
        scope = fn.scope
        frame = Frame("function", fn.closure, scope.local_names, fn, scope.global_names,
                      scope.nonlocal_names)
        frame.vars.update(bound)
        frame.args = args
        outer, outer_node = self.frame, self.node
        self.frame = frame
        self.depth += 1
        managers = [make() for make in fn.wrappers]
        for cm in managers:
            cm.__enter__()
        try:
            if isinstance(fn.node, ast.Lambda):
                value = self.eval(fn.node.body)
            else:
                try:
                    self.drain(self.block(fn.node.body))
                    value = None
                except _Return as r:
                    value = r.value
        finally:
            for cm in reversed(managers):
                cm.__exit__(None, None, None)
            self.frame = outer
            self.depth -= 1
        self.node = outer_node  # an error inside keeps the position where it happened
        return value

    # -- names -----------------------------------------------------------------------------------
    def scope_of(self, name: str) -> Frame:
        """The frame a binding of name goes to (Python's global/nonlocal rules)."""
        f = self.frame
        if name in f.global_names:
            return self.module
        if name in f.nonlocal_names:
            p = f.parent
            while p is not None and p.kind == "function":
                if name in p.vars or name in p.local_names:
                    return p
                p = p.parent
            raise SyntaxError(f"no binding for nonlocal '{name}' found")
        return f

    def bind(self, name: str, value, announce: bool = True) -> None:
        frame = self.scope_of(name)
        frame.vars[name] = value
        if frame is self.module and announce:
            if self.step is not None and not self.depth:
                self.step.assigned.append(name)
            if self.on_bind is not None:
                self.on_bind(name, value)

    def lookup(self, node):
        name = node.id
        f = self.frame
        if name in f.global_names:
            f = self.module
        while f is not None:
            if name in f.vars:
                return f.vars[name]
            if f.kind == "function" and name in f.local_names:
                self.node = node
                raise UnboundLocalError(f"cannot access local variable '{name}' where it is "
                                        "not associated with a value")
            f = f.parent
        if name in BUILTIN_NAMES:
            return self.builtins.get(name)
        self.node = node
        raise NameError(f"name {name!r} is not defined")

    # -- assignment ----------------------------------------------------------------------------
    def assign(self, target, value, announce: bool = True) -> None:
        t = type(target)
        if t is ast.Name:
            self.bind(target.id, value, announce)
        elif t in (ast.Tuple, ast.List):
            starred = [i for i, e in enumerate(target.elts) if isinstance(e, ast.Starred)]
            n = len(target.elts)
            if starred:
                items = self.iterate(value, target)
                s = starred[0]
                after = n - s - 1
                if len(items) < n - 1:
                    raise ValueError(f"not enough values to unpack (expected at least {n - 1}, "
                                     f"got {len(items)})")
                parts = items[:s] + [items[s:len(items) - after]] + items[len(items) - after:]
                for sub, item in zip(target.elts, parts):
                    self.assign(sub.value if isinstance(sub, ast.Starred) else sub, item,
                                announce)
                return
            items = self.unpack(value, n, target)
            for sub, item in zip(target.elts, items):
                self.assign(sub, item, announce)
        elif t is ast.Attribute:
            obj = self.eval(target.value)
            self.set_attr(obj, target.attr, value, target)
        elif t is ast.Subscript:
            obj = self.eval(target.value)
            index = self.eval(target.slice)
            self.set_item(obj, index, value, target)
        else:
            raise self.not_allowed(target, "this cannot be assigned to")

    def unpack(self, value, n: int, node) -> list:
        items = self.iterate(value, node)
        if len(items) < n:
            raise ValueError(f"not enough values to unpack (expected {n}, got {len(items)})")
        if len(items) > n:
            raise ValueError(f"too many values to unpack (expected {n})")
        return items

    def iterate(self, value, node) -> list:
        """list(value) for what a program may iterate, bounded."""
        cap = self.limits.max_sequence_items
        if isinstance(value, engine.Tensor):
            if value.dim() > 0 and value.shape[0] > min(cap, 10_000):
                raise LimitExceeded("max_sequence_items", f"iterating over a tensor with "
                                    f"{value.shape[0]:,} rows is too slow here (the limit is "
                                    f"{min(cap, 10_000):,})")
        elif isinstance(value, _CONTAINERS) or isinstance(value, _ITERATOR_TYPES):
            pass
        elif self.policy.is_engine_object(value):
            pass  # engine iterables (model.parameters(), nn.Sequential) are bounded by the model
        else:
            raise TypeError(f"'{type(value).__name__}' object is not iterable")
        self.node = node
        items = []
        for item in value:
            items.append(item)
            if len(items) > cap:
                raise LimitExceeded("max_sequence_items", f"too many items (the limit is "
                                    f"{cap:,})")
            if len(items) % 1024 == 0:
                self.budget.check_time()
        return items

    def aug_assign(self, stmt) -> None:
        op = INPLACE[type(stmt.op)]
        target = stmt.target
        if isinstance(target, ast.Name):
            old = self.lookup(target)
            rhs = self.eval(stmt.value)
            self.bind(target.id, self.binop(op, old, rhs, stmt))
        elif isinstance(target, ast.Attribute):
            obj = self.eval(target.value)
            old = self.get_attr(obj, target.attr, target)
            rhs = self.eval(stmt.value)
            self.set_attr(obj, target.attr, self.binop(op, old, rhs, stmt), target)
        else:
            obj = self.eval(target.value)
            index = self.eval(target.slice)
            old = self.get_item(obj, index, target)
            rhs = self.eval(stmt.value)
            self.set_item(obj, index, self.binop(op, old, rhs, stmt), target)

    def set_attr(self, obj, name: str, value, node, delete: bool = False) -> None:
        self.node = node
        if isinstance(obj, engine.Tensor) and name in SETTABLE_ATTRS:
            if delete:
                delattr(obj, name)
            else:
                setattr(obj, name, value)
            return
        owner = obj if isinstance(obj, type) else type(obj)
        if is_user_class(owner) and not name.startswith("__"):
            # a Module keeps its parameters and submodules under underscore names: those stay
            # the engine's
            if name.startswith("_") and issubclass(owner, nn.Module):
                raise self.not_allowed(node, f"attributes starting with '_' of a Module cannot "
                                       f"be assigned (.{name})")
            if delete:
                delattr(obj, name)
            else:
                setattr(obj, name, value)
            return
        raise self.not_allowed(node, f"only .grad, .requires_grad and .data of a tensor and the "
                               f"attributes of the program's own objects can be assigned (not "
                               f".{name} of {_kind_name(obj)})")

    def set_item(self, obj, index, value, node) -> None:
        self.node = node
        if isinstance(obj, engine.Tensor):
            self.check_index(index, node)
            if isinstance(value, engine.Tensor):
                guard_broadcast([obj, value], self.limits)
            obj[index] = value
        elif type(obj) is list or isinstance(obj, dict):
            if isinstance(obj, dict) and index not in obj:
                self.check_size(obj, len(obj) + 1)
            obj[index] = value
            if type(index) is slice:
                self.check_size(obj, len(obj))
        else:
            raise self.not_allowed(node, f"only items of tensors, lists and dicts can be "
                                   f"assigned (not items of {_kind_name(obj)})")

    # -- expressions -----------------------------------------------------------------------------
    def eval(self, node):
        method = _EVAL.get(type(node))
        if method is None:
            raise self.not_allowed(node, f"this kind of expression ({type(node).__name__}) is "
                                   "not allowed")
        return method(self, node)

    def truth(self, value) -> bool:
        return bool(value)

    def eval_constant(self, node):
        return node.value

    def eval_name(self, node):
        return self.lookup(node)

    def eval_attribute(self, node):
        obj = self.eval(node.value)
        return self.get_attr(obj, node.attr, node)

    def get_attr(self, obj, name: str, node):
        policy = self.policy
        self.node = node
        if isinstance(obj, SuperProxy):
            return self.super_attr(obj, name, node)
        if name.startswith("__"):
            raise self.not_allowed(node, f"attributes starting with '__' are not allowed "
                                   f"(.{name})")
        owner = obj if isinstance(obj, type) else type(obj)
        if is_user_class(owner):
            if self.user_attr_allowed(obj, owner, name):
                return getattr(obj, name)
            if not isinstance(obj, nn.Module) or isinstance(obj, type):
                if _has_attr(obj, name) and name.startswith("_"):
                    raise self.not_allowed(node, f".{name} of {_kind_name(obj)} is not "
                                           "available in the playground")
                if isinstance(obj, BaseException) and name in EXCEPTION_ATTRS:
                    return getattr(obj, name)
                if _has_attr(obj, name):
                    raise self.not_allowed(node, f".{name} of {_kind_name(obj)} is not "
                                           "available in the playground")
                raise AttributeError(f"'{owner.__name__}' object has no attribute '{name}'"
                                     if not isinstance(obj, type) else
                                     f"type object '{owner.__name__}' has no attribute "
                                     f"'{name}'")
            # an nn.Module the program wrote: the engine's Module rules below
        if isinstance(obj, BaseException):
            if name in EXCEPTION_ATTRS:
                return getattr(obj, name)
            raise self.not_allowed(node, f".{name} of an exception is not available in the "
                                   "playground")
        private = name.startswith("_") and not (name == TENSOR_PRIVATE_READABLE
                                                 and isinstance(obj, engine.Tensor))
        if private and not isinstance(obj, types.ModuleType):
            raise self.not_allowed(node, f"attributes starting with '_' are not available in "
                                   f"the playground (.{name} of {_kind_name(obj)})")
        if isinstance(obj, RandomModule):
            if name in RANDOM_NAMES:
                return getattr(obj, name)
            raise AttributeError(f"module 'random' has no attribute '{name}'")
        methods = _python_methods(obj)
        if methods is not None:
            if name == "format" and isinstance(obj, str):  # fields resolved by the policy
                return BuiltinFunction("format", lambda *a, **k: self.format_string(obj, a, k))
            if name in methods:
                return getattr(obj, name)
            if not _has_attr(obj, name):
                raise AttributeError(f"'{type(obj).__name__}' object has no attribute '{name}'")
            raise self.not_allowed(node, f".{name} of {_kind_name(obj)} is not available in the "
                                   "playground")
        if private or not policy.attr_allowed(obj, name):
            if isinstance(obj, types.ModuleType):
                where = policy.namespace_path(obj)
                if hasattr(obj, name) or name in ("nn", "optim") or name.startswith("_"):
                    raise self.not_allowed(node, f"{where}.{name} is not available in the "
                                           "playground")
                raise AttributeError(f"module '{where}' has no attribute '{name}'")
            if not name.startswith("_") and not _has_attr(obj, name):
                raise AttributeError(f"'{type(obj).__name__}' object has no attribute '{name}'")
            raise self.not_allowed(node, f".{name} of {_kind_name(obj)} is not available in the "
                                   "playground")
        value = getattr(obj, name)
        if isinstance(obj, nn.Module) and name not in MODULE_METHODS \
                and not policy.member_value_ok(value) and not self.is_program_value(value):
            raise self.not_allowed(node, f".{name} of {_kind_name(obj)} is not available in the "
                                   "playground")
        return value

    def user_attr_allowed(self, obj, owner, name: str) -> bool:
        """Names of the program's own objects: what its classes define and what it stored."""
        if user_class_defines(owner, name):
            return True
        if isinstance(obj, type):
            return False
        if isinstance(obj, nn.Module):
            return False  # attributes and registered members: the Module rules
        d = getattr(obj, "__dict__", None)
        return isinstance(d, dict) and name in d

    def is_program_value(self, value) -> bool:
        """A value the program made or can name itself (stored on one of its Modules)."""
        return (isinstance(value, (UserFunction, BuiltinFunction))
                or type(value) in (list, tuple, dict, set)
                or is_user_class(value if isinstance(value, type) else type(value)))

    def super_attr(self, proxy: SuperProxy, name: str, node):
        sup = super(proxy.cls, proxy.obj)
        if name == "__init__":
            init = sup.__init__

            def call_init(*args, **kwargs):
                if isinstance(init, types.MethodType) and isinstance(init.__func__,
                                                                     UserFunction):
                    return init(*args, **kwargs)
                if args or kwargs:
                    guard_constructor(args, kwargs, self.limits)
                return init(*args, **kwargs)

            return BuiltinFunction("__init__", call_init)
        if name.startswith("_"):
            raise self.not_allowed(node, f".{name} of super() is not available in the "
                                   "playground")
        mro = type(proxy.obj).__mro__
        after = mro[mro.index(proxy.cls) + 1:]
        for c in after:
            if name in c.__dict__:
                if is_user_class(c) or (c is not object and self.policy.attr_allowed(
                        proxy.obj, name)):
                    return getattr(sup, name)
                break
        raise self.not_allowed(node, f"super().{name} is not available in the playground")

    def eval_call(self, node):
        func_node = node.func
        self_obj = None
        if isinstance(func_node, ast.Attribute):
            self_obj = self.eval(func_node.value)
            fn = self.get_attr(self_obj, func_node.attr, func_node)
        else:
            fn = self.eval(func_node)
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                args.extend(self.iterate(self.eval(a.value), a))
            else:
                args.append(self.eval(a))
        kwargs = {}
        for k in node.keywords:
            value = self.eval(k.value)
            if k.arg is None:
                if not isinstance(value, dict):
                    raise TypeError(f"argument after ** must be a mapping, not "
                                    f"{type(value).__name__}")
                for key in value:
                    if not isinstance(key, str) or key.startswith("__"):
                        raise self.not_allowed(k.value, "keyword names must be strings not "
                                               "starting with '__'")
                    if key in kwargs:
                        raise TypeError(f"got multiple values for keyword argument '{key}'")
                kwargs.update(value)
            else:
                if k.arg in kwargs:
                    raise TypeError(f"got multiple values for keyword argument '{k.arg}'")
                kwargs[k.arg] = value
        self.node = node
        return self.call(fn, args, kwargs, node, self_obj)

    def call(self, fn, args: list, kwargs: dict, node, self_obj=None):
        self.check_callable(fn, node)
        policy = self.policy
        if isinstance(fn, (UserFunction, BuiltinFunction)) or (
                isinstance(fn, types.MethodType) and isinstance(fn.__func__, UserFunction)):
            result = fn(*args, **kwargs)
        else:
            # a function the engine will call back (a hook, Module.apply) must be one the
            # program may call itself
            for a in list(args) + list(kwargs.values()):
                if callable(a) and not isinstance(a, (engine.Tensor, nn.Module)):
                    self.check_callable(a, node)
            if isinstance(fn, nn.Module):
                guard_module_call(fn, tuple(args), self.limits)
            elif isinstance(fn, type) and fn in policy.layer_classes:
                guard_constructor(tuple(args), kwargs, self.limits)
            elif isinstance(fn, types.BuiltinMethodType) and type(fn.__self__) in _PY_TYPES:
                self.guard_method(fn, args, kwargs)
            elif id(fn) in _MATH_ARG_CAPS:
                cap = _MATH_ARG_CAPS[id(fn)]
                if any(is_number(a) and abs(a) > cap for a in args):
                    raise LimitExceeded("max_int_bits", f"math.{fn.__name__}() takes arguments "
                                        f"up to {cap:,} here")
            else:
                guard_call(fn, tuple(args), kwargs, self.limits,
                           self_obj if isinstance(self_obj, engine.Tensor) else None)
            result = fn(*args, **kwargs)
            if isinstance(fn, (types.BuiltinMethodType, types.MethodType)) and \
                    getattr(fn, "__name__", "") in GROWING_METHODS:
                self.check_size(fn.__self__, len(fn.__self__))
        self.node = node
        self.check_value(result)
        return result

    def guard_method(self, fn, args, kwargs) -> None:
        """str methods that make a string of a size the program chooses: check it first."""
        receiver, name = fn.__self__, fn.__name__
        if name in ("ljust", "rjust", "center", "zfill") and args and type(args[0]) is int:
            self.check_size(receiver, args[0])
        elif name == "replace" and len(args) >= 2 and isinstance(args[0], str) \
                and isinstance(args[1], str):
            grow = (receiver.count(args[0]) if args[0] else len(receiver) + 1) * len(args[1])
            self.check_size(receiver, len(receiver) + grow)
        elif name == "join" and isinstance(receiver, str) and args:
            parts = self.iterate(args[0], self.node)
            total = sum(len(p) for p in parts if isinstance(p, str))
            self.check_size(receiver, total + len(receiver) * max(len(parts) - 1, 0))
            args[0] = parts
        elif name == "format" and isinstance(receiver, str):
            raise AssertionError("str.format is interpreted")  # pragma: no cover
        elif name in ("extend", "update") and args:
            n = len(args[0]) if isinstance(args[0], (list, tuple, dict, set, str)) else 0
            self.check_size(receiver, len(receiver) + n)

    def check_callable(self, fn, node) -> None:
        policy = self.policy
        if isinstance(fn, (BuiltinFunction, UserFunction)):
            return
        if isinstance(fn, type):
            if fn in policy.classes or is_user_class(fn) or fn in EXCEPTIONS.values():
                return
        elif id(fn) in policy.callables and not isinstance(fn, types.MethodType):
            return
        elif isinstance(fn, types.MethodType):
            # the program's own methods, and the engine's reachable through an allowed attribute
            if isinstance(fn.__func__, UserFunction) or isinstance(fn.__self__, RandomModule):
                return
            if policy.is_engine_object(fn.__self__):
                return
        elif isinstance(fn, types.BuiltinMethodType) and type(fn.__self__) in _PY_TYPES:
            if fn.__name__ in _python_methods(fn.__self__):
                return
        elif isinstance(fn, nn.Module):
            return
        raise self.not_allowed(node, f"{_kind_name(fn)} cannot be called here")

    def eval_binop(self, node):
        a = self.eval(node.left)
        b = self.eval(node.right)
        return self.binop(BINOPS[type(node.op)], a, b, node)

    def binop(self, fn, a, b, node):
        self.node = node
        limits = self.limits
        ta, tb = isinstance(a, engine.Tensor), isinstance(b, engine.Tensor)
        if not ta:
            # in place only on tensors; `a += b` on numbers and lists makes a new value
            fn = PLAIN.get(fn, fn)
        if is_number(a) and is_number(b):
            return number_op(fn, a, b, limits)
        if fn is operator.mod and isinstance(a, str):
            result = percent_format(a, b, limits.max_string_chars)
            self.check_value(result)
            return result
        if ta and tb:
            if fn in (operator.matmul, operator.imatmul):
                guard_call(engine.matmul, (a, b), {}, limits)
            else:
                guard_broadcast([a, b], limits)
        elif not ta and not tb:
            self.check_sequence_op(fn, a, b)
        result = fn(a, b)
        self.check_value(result)
        return result

    def check_sequence_op(self, fn, a, b) -> None:
        """str/list/tuple + and * grow values: check the size before computing it."""
        seqs = (str, list, tuple)
        if fn in (operator.mul, operator.imul):
            seq, times = (a, b) if isinstance(a, seqs) else (b, a)
            if isinstance(seq, seqs) and type(times) in (int, bool):
                self.check_size(seq, len(seq) * max(times, 0))
        elif fn in (operator.add, operator.iadd):
            if isinstance(a, seqs) and isinstance(b, seqs):
                self.check_size(a, len(a) + len(b))

    def check_size(self, like, n: int) -> None:
        if isinstance(like, str):
            if n > self.limits.max_string_chars:
                raise LimitExceeded("max_string_chars", f"this string would be too long: {n:,} "
                                    f"characters (the limit is "
                                    f"{self.limits.max_string_chars:,})")
        elif n > self.limits.max_sequence_items:
            raise LimitExceeded("max_sequence_items", f"this list would be too long: {n:,} items "
                                f"(the limit is {self.limits.max_sequence_items:,})")

    def check_value(self, value) -> None:
        """Every Python value a program makes stays small."""
        t = type(value)
        if t is int:
            if value.bit_length() > self.limits.max_int_bits:
                raise LimitExceeded("max_int_bits", f"this number is too large (more than "
                                    f"{self.limits.max_int_bits} bits)")
        elif t is str:
            self.check_size(value, len(value))
        elif t in (list, tuple, dict, set, frozenset):
            self.check_nested(value)

    def check_nested(self, value) -> None:
        """Count the items of nested containers (shared ones each time they appear)."""
        cap, max_depth = self.limits.max_sequence_items, self.limits.max_sequence_depth
        stack = [(value, 1)]
        count = 0
        while stack:
            v, d = stack.pop()
            if d > max_depth:
                raise LimitExceeded("max_sequence_depth", f"lists nest too deeply (the limit is "
                                    f"{max_depth} levels)")
            count += len(v)
            if count > cap:
                raise LimitExceeded("max_sequence_items", f"this list would be too long: more "
                                    f"than {cap:,} items (the limit is {cap:,})")
            items = v.values() if isinstance(v, dict) else v
            for item in items:
                if type(item) in (list, tuple, dict, set, frozenset):
                    stack.append((item, d + 1))
                elif type(item) is str and len(item) > self.limits.max_string_chars:
                    self.check_size(item, len(item))

    def eval_unaryop(self, node):
        v = self.eval(node.operand)
        self.node = node
        result = UNARY[type(node.op)](v)
        self.check_value(result)
        return result

    def eval_boolop(self, node):
        is_and = isinstance(node.op, ast.And)
        value = None
        for sub in node.values:
            value = self.eval(sub)
            if self.truth(value) != is_and:
                return value
        return value

    def eval_ifexp(self, node):
        return self.eval(node.body if self.truth(self.eval(node.test)) else node.orelse)

    def eval_compare(self, node):
        left = self.eval(node.left)
        result = True
        for op, right_node in zip(node.ops, node.comparators):
            right = self.eval(right_node)
            self.node = node
            fn = COMPARE[type(op)]
            if isinstance(left, engine.Tensor) and isinstance(right, engine.Tensor):
                guard_broadcast([left, right], self.limits)
            result = fn(left, right)
            if len(node.ops) > 1 and not result:  # a chain stops at the first false link
                return result
            left = right
        return result

    def elements(self, nodes) -> list:
        out = []
        for e in nodes:
            if isinstance(e, ast.Starred):
                out.extend(self.iterate(self.eval(e.value), e))
            else:
                out.append(self.eval(e))
        return out

    def eval_tuple(self, node):
        value = tuple(self.elements(node.elts))
        self.check_nested(value)
        return value

    def eval_list(self, node):
        value = self.elements(node.elts)
        self.check_nested(value)
        return value

    def eval_set(self, node):
        value = set(self.elements(node.elts))
        self.check_nested(value)
        return value

    def eval_dict(self, node):
        value = {}
        for k, v in zip(node.keys, node.values):
            if k is None:
                mapping = self.eval(v)
                if not isinstance(mapping, dict):
                    raise TypeError(f"'{type(mapping).__name__}' object is not a mapping")
                value.update(mapping)
            else:
                key = self.eval(k)
                value[key] = self.eval(v)
        self.check_nested(value)
        return value

    def eval_slice(self, node):
        parts = [None if p is None else self.eval(p) for p in (node.lower, node.upper, node.step)]
        return slice(*parts)

    def eval_subscript(self, node):
        obj = self.eval(node.value)
        index = self.eval(node.slice)
        return self.get_item(obj, index, node)

    def get_item(self, obj, index, node):
        self.node = node
        if isinstance(obj, engine.Tensor):
            self.check_index(index, node)
            guard_indexing(obj, index, self.limits)
        elif isinstance(obj, (list, tuple, str, range)):
            if not isinstance(index, (int, slice)) and not (
                    isinstance(index, engine.Tensor) and index.numel() == 1):
                raise TypeError(f"{type(obj).__name__} indices must be integers or slices, not "
                                f"{type(index).__name__}")
        elif isinstance(obj, dict):
            pass
        elif isinstance(obj, nn.Module):
            if not isinstance(index, (int, slice)) or not hasattr(type(obj), "__getitem__"):
                raise self.not_allowed(node, f"{_kind_name(obj)} cannot be indexed like this")
        elif isinstance(obj, engine.Size):
            pass
        else:
            raise self.not_allowed(node, f"{_kind_name(obj)} cannot be indexed")
        result = obj[index]
        self.node = node
        self.check_value(result)
        return result

    def check_index(self, index, node) -> None:
        items = index if isinstance(index, tuple) else (index,)
        for ix in items:
            if ix is None or ix is Ellipsis or type(ix) in (int, bool, slice):
                continue
            if isinstance(ix, engine.Tensor):
                continue
            if type(ix) is list:
                continue
            raise self.not_allowed(node, f"{_kind_name(ix)} cannot be used as an index")

    def eval_joinedstr(self, node):
        parts = []
        total = 0
        for v in node.values:
            text = self.eval(v) if not isinstance(v, ast.Constant) else v.value
            total += len(text)
            self.check_size(text, total)
            parts.append(text)
        return "".join(parts)

    def eval_formatted(self, node):
        value = self.eval(node.value)
        spec = "" if node.format_spec is None else self.eval(node.format_spec)
        self.node = node
        return format_value(value, spec, node.conversion, self.limits.max_string_chars)

    def eval_lambda(self, node):
        return self.make_function(node, "<lambda>")

    def eval_comprehension(self, node):
        generators = node.generators
        first = self.iterate(self.eval(generators[0].iter), generators[0].iter)
        closure = self.frame if self.frame.kind != "class" else self.frame.parent
        frame = Frame("comprehension", closure)
        outer = self.frame
        self.frame = frame
        out: list = []
        cap = self.limits.max_sequence_items
        try:
            def loop(level: int, items):
                gen = generators[level]
                for item in items:
                    self.budget.count_statement()
                    self.assign(gen.target, item, announce=False)
                    if all(self.truth(self.eval(c)) for c in gen.ifs):
                        if level + 1 < len(generators):
                            nxt = generators[level + 1]
                            loop(level + 1, self.iterate(self.eval(nxt.iter), nxt.iter))
                        elif isinstance(node, ast.DictComp):
                            out.append((self.eval(node.key), self.eval(node.value)))
                        else:
                            out.append(self.eval(node.elt))
                        if len(out) > cap:
                            raise LimitExceeded("max_sequence_items", f"too many items (the "
                                                f"limit is {cap:,})")

            loop(0, first)
        finally:
            self.frame = outer
        self.node = node
        if isinstance(node, ast.ListComp):
            value = out
        elif isinstance(node, ast.SetComp):
            value = set(out)
        elif isinstance(node, ast.DictComp):
            value = dict(out)
        else:  # a generator expression, computed in full (bounded) when it is made
            return iter(out)
        self.check_nested(value)
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


_SCOPES: dict = {}  # id(FunctionDef/Lambda node) -> Scope; the tree lives as long as its run
_PY_TYPES = (str, list, tuple, dict, set, int, float)


def _python_methods(obj):
    """The allowlist of methods for one of Python's own values, or None for other objects."""
    t = type(obj)
    if t is bool:
        return frozenset()
    if t in PYTHON_METHODS:  # exactly these types: torch.Size is a tuple with its own rules
        return PYTHON_METHODS[t]
    if isinstance(obj, dict):  # OrderedDict
        return PYTHON_METHODS[dict]
    return None


_EXEC = {
    ast.If: _Run.exec_if, ast.While: _Run.exec_while, ast.For: _Run.exec_for,
    ast.With: _Run.exec_with, ast.Try: _Run.exec_try,
}
_SIMPLE = {
    ast.Expr: _Run.do_expr, ast.Assign: _Run.do_assign, ast.AnnAssign: _Run.do_annassign,
    ast.AugAssign: _Run.aug_assign, ast.Pass: _Run.do_pass, ast.Break: _Run.do_break,
    ast.Continue: _Run.do_continue, ast.Return: _Run.do_return, ast.Global: _Run.do_global,
    ast.Nonlocal: _Run.do_global, ast.Import: _Run.do_import, ast.ImportFrom: _Run.do_importfrom,
    ast.Delete: _Run.do_delete, ast.Assert: _Run.do_assert, ast.Raise: _Run.do_raise,
    ast.FunctionDef: _Run.do_functiondef, ast.ClassDef: _Run.do_classdef,
}
for _t in _SIMPLE:
    _EXEC[_t] = _Run.exec_simple

_EVAL = {
    ast.Constant: _Run.eval_constant, ast.Name: _Run.eval_name,
    ast.Attribute: _Run.eval_attribute, ast.Call: _Run.eval_call, ast.BinOp: _Run.eval_binop,
    ast.UnaryOp: _Run.eval_unaryop, ast.Compare: _Run.eval_compare, ast.Tuple: _Run.eval_tuple,
    ast.List: _Run.eval_list, ast.Slice: _Run.eval_slice, ast.Subscript: _Run.eval_subscript,
    ast.BoolOp: _Run.eval_boolop, ast.IfExp: _Run.eval_ifexp, ast.Set: _Run.eval_set,
    ast.Dict: _Run.eval_dict, ast.JoinedStr: _Run.eval_joinedstr,
    ast.FormattedValue: _Run.eval_formatted, ast.Lambda: _Run.eval_lambda,
    ast.ListComp: _Run.eval_comprehension, ast.SetComp: _Run.eval_comprehension,
    ast.DictComp: _Run.eval_comprehension, ast.GeneratorExp: _Run.eval_comprehension,
}
_STMT_KIND = {ast.Import: "import", ast.ImportFrom: "import", ast.Assign: "assign",
              ast.AnnAssign: "assign", ast.AugAssign: "augassign", ast.Expr: "expr",
              ast.Pass: "pass", ast.Break: "break", ast.Continue: "continue",
              ast.Return: "return", ast.Global: "pass", ast.Nonlocal: "pass",
              ast.Delete: "del", ast.Assert: "assert", ast.Raise: "raise",
              ast.FunctionDef: "def", ast.ClassDef: "class"}


def _has_attr(obj, name: str) -> bool:
    try:
        return hasattr(obj, name)
    except Exception:  # a property that raises
        return True


def _kind_name(obj) -> str:
    if isinstance(obj, types.ModuleType):
        return "a module"
    if isinstance(obj, engine.Tensor):
        return "a tensor"
    if isinstance(obj, Node):
        return "a grad_fn node"
    if isinstance(obj, BuiltinFunction):
        return f"{obj.name}()"
    if isinstance(obj, UserFunction):
        return f"the function {obj.qualname}"
    if isinstance(obj, (types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
        return f"the function {getattr(obj, '__name__', '?')}"
    if isinstance(obj, type):
        return f"the class {obj.__name__}"
    return f"a {type(obj).__name__} object"


def _message(e: BaseException) -> str:
    if isinstance(e, KeyError) and len(e.args) == 1:
        return repr(e.args[0])
    return str(e)
