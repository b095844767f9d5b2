"""Statements: how a run executes the program's compound and simple statements, defines and calls
the program's own functions and classes, and binds and assigns its names.

A mixin of the run (interpret.py's _Run): the methods use the run's state (scopes, budget,
steps) and its expression evaluation (expressions.py) through self.
"""

from __future__ import annotations
import __future__

import ast
import collections
import itertools
import types

from .._engine import engine
from ..limits import (
    LimitExceeded,
    guard_broadcast,
    guard_loader,
)
from .builtin_functions import BUILTIN_NAMES, BuiltinFunction, is_number
from .expressions import _kind_name
from .functions import (
    ALLOWED_DUNDER_DEFS,
    USER_CLASSES,
    Frame,
    Scope,
    UserFunction,
    bind_arguments,
    defines,
    engine_class_defining,
    is_user_class,
    user_class_defines,
)
from .generators import LAZY_ITERATORS, ProgramGenerator, _Close, lazy_iterator
from .loops import Loop
from .matching import Matching
from .operators import INPLACE
from .policy import (
    EXCEPTIONS,
    NAMESPACES,
    PYTHON_MODULES,
    SETTABLE_ATTRS,
    Ctx,
    UserFunctionBase,
)
from .records import (
    ProgramError,
    exception_message,
    forget_traceback,
    keep_frame,
    mark_generator_error,
    plain_stop_iteration,
)

_data = engine.utils.data
# the program's methods whose text Python may join with more (a list's repr) before any check
_TEXT_METHODS = frozenset(("__repr__", "__str__"))
TEXT_RETURNED_FACTOR = 10


def _exit_exception(pending):
    """The exception a program's __exit__ is given for what left the with block: the program's
    exception (a module-level step carries it in a _Raised), GeneratorExit for a generator's
    close(), None for a normal end, break, continue or return."""
    if isinstance(pending, _Raised):
        return pending.exc
    if isinstance(pending, _Close):
        return GeneratorExit()
    return pending if isinstance(pending, Exception) else None


def text_returned_cap(limits) -> int:
    return TEXT_RETURNED_FACTOR * limits.max_output_chars


_optim = engine.optim

nn = engine.nn
_grad_mode = engine.autograd.grad_mode
once_differentiable = engine.autograd.once_differentiable
_observer = engine.observer


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
_END = object()  # no more items (a for loop's, a DataLoader's)
# errors that end the run whatever try statement surrounds them
_FATAL = (LimitExceeded, ProgramError, RecursionError, MemoryError)


def _range_length(r: range) -> int:
    """len(r), also past sys.maxsize, where len() raises OverflowError: Python itself loops over
    `range(2**63)` without complaint, so the loop limit (not an OverflowError) must stop it."""
    try:
        return len(r)
    except OverflowError:
        sign = 1 if r.step > 0 else -1
        return max(0, (r.stop - r.start + r.step - sign) // r.step)

# (and torch.autograd.graph.saved_tensors_hooks / save_on_cpu: entered and left the same way)
_GRAD_CONTEXTS = tuple(c for c in (engine.no_grad, engine.enable_grad, engine.set_grad_enabled,
                                   getattr(engine, "inference_mode", None),
                                   engine.autograd.graph.saved_tensors_hooks) if c is not None)
# iterables a program may loop over besides its own containers and the engine's objects
_ITERATOR_TYPES = (range, zip, map, filter, enumerate, reversed, types.GeneratorType,
                   type(iter([])), type(iter(())), type(iter("")), type(iter(range(0))),
                   type({}.keys()), type({}.values()), type({}.items()), type(iter({})),
                   type(iter(set())), type(reversed([])), type(iter(reversed(range(0)))),
                   type(itertools.chain()),  # Counter.elements()
                   *LAZY_ITERATORS)
_CONTAINERS = (list, tuple, str, dict, set, frozenset, collections.deque)
# math functions whose cost grows with an argument: the largest argument allowed

class Statements:
    """The statement half of a run: compound and simple statements, the program's own functions
    and classes, names and assignment."""

    # -- compound statements -----------------------------------------------------------------
    def exec_if(self, stmt):
        test = yield from self.statement(stmt, lambda s: self.truth(self.eval(s.test)), "if")
        yield from self.block(stmt.body if test else stmt.orelse)

    def exec_while(self, stmt):
        loop = self.loop_begin(stmt, None)
        outer = self.loop
        n = 0
        try:
            while True:
                if not self.depth and not loop.keeps(n):
                    n, ended = yield from self.quiet_stretch(stmt, loop, outer, n, None)
                    if ended == "break":
                        return
                    if ended == "done":
                        break
                    continue
                self.loop = outer + (n,)
                self.iteration(loop, n)
                test = yield from self.statement(stmt, self.while_test, "while")
                if not test:
                    break
                self.count_iteration(n, stmt, loop)
                n += 1
                try:
                    yield from self.block(stmt.body)
                except _Break:
                    return
                except _Continue:
                    pass
        finally:
            self.loop = outer
            self.loop_end(loop)
        yield from self.block(stmt.orelse)

    def while_test(self, stmt):
        return self.truth(self.eval(stmt.test))

    def exec_for(self, stmt):
        items = yield from self.statement(stmt, lambda s: self.loop_items(self.eval(s.iter), s),
                                          "for")
        if isinstance(items, (_data.LoaderIterator, *LAZY_ITERATORS)):
            holder = [items]  # for_each_batch holds the loop's only reference to it
            items = None
            yield from self.for_each_batch(stmt, holder)
            return
        loop = self.loop_begin(stmt, len(items))
        outer = self.loop
        n = 0
        count = len(items)
        ended = None
        try:
            while n < count:
                if not self.depth and not loop.keeps(n):
                    n, ended = yield from self.quiet_stretch(
                        stmt, loop, outer, n, lambda k: items[k] if k < count else _END)
                    if ended == "break":
                        break
                    continue
                self.count_iteration(n, stmt, loop)
                self.loop = outer + (n,)
                self.iteration(loop, n)
                self.assign(stmt.target, items[n], announce=False)
                n += 1
                try:
                    yield from self.block(stmt.body)
                except _Break:
                    ended = "break"
                    break
                except _Continue:
                    pass
        except BaseException as e:
            ended = "fatal" if isinstance(e, (_Stop, GeneratorExit, *_FATAL)) else "raised"
            raise
        finally:
            self.loop = outer
            self.loop_end(loop)
            items = None  # noqa: F841 - the loop lets go of its items (generators.py)
            yield from self.loop_let_go(ended)
        if ended != "break":
            yield from self.block(stmt.orelse)

    def loop_let_go(self, ended):
        """A loop ended and let go of what it iterated: close the generators that dropped
        (generators.py), before what follows the loop, as Python closes them; not when the run
        ends with a limit or policy error (no program code runs then)."""
        if self.dropped and ended != "fatal":
            yield from self.close_steps()

    # -- the long-loop rule (loops.py) ------------------------------------------------------
    def loop_begin(self, stmt, length) -> Loop:
        loop = Loop(self.program.stmt_ids.get(id(stmt), -1), self.loop, length,
                    self.interp.detail, self.quiet)
        self.loops.append(loop)
        if loop.tracked:  # names bound in the loop's own scope make its series
            loop.outer_series_frame, self.series_frame = self.series_frame, self.frame
            if self.on_loop is not None:
                self.on_loop(loop.stmt_id, self.loop, length)
        return loop

    def iteration(self, loop: Loop, n: int) -> None:
        """Iteration n of loop starts: the run is quiet unless the iteration keeps its detail."""
        keep = loop.keeps(n)
        if loop.tracked and self.on_iteration is not None:
            self.on_iteration(n, keep)
        self.set_quiet(not keep)

    def loop_end(self, loop: Loop) -> None:
        self.loops.pop()
        if loop.tracked:
            self.series_frame = loop.outer_series_frame
            if self.on_loop_end is not None:
                self.on_loop_end(loop.ran)
        self.set_quiet(loop.quiet_outside)

    def set_quiet(self, quiet: bool) -> None:
        if quiet == self.quiet:
            return
        self.quiet = quiet
        new = self.quiet_observer if quiet else self.full_observer
        if _observer.state.observer is self.observer:  # inside a step: the change is at once
            _observer.state.observer = new
        self.observer = new
        if not quiet and self.quiet_binds:  # the names as they are now, where the run is now
            binds, self.quiet_binds = self.quiet_binds, {}
            names = self.module.vars
            for name in binds:
                if name in names and self.on_bind is not None:
                    self.on_bind(name, names[name])

    def quiet_stretch(self, stmt, loop: Loop, outer: tuple, n: int, fetch):
        """Iterations n, n+1, ... of a module-level loop up to the next one that keeps its
        detail, run as one step of kind "iterations" (docs/timeline.md, "Long loops").
        fetch(k): a for loop's item k, or _END after the last (None for a while loop, whose
        test runs here too). Returns (the next iteration, how the stretch ended: None,
        "break" or "done")."""
        state = [n, None]
        body = stmt.body
        at = types.SimpleNamespace(lineno=body[0].lineno, col_offset=body[0].col_offset,
                                   end_lineno=body[-1].end_lineno,
                                   end_col_offset=body[-1].end_col_offset)

        def run(_stmt):
            step = self.step
            step.iterations = [n, n]
            self.depth += 1
            try:
                k = n
                while not loop.keeps(k):
                    self.loop = outer + (k,)
                    self.iteration(loop, k)
                    if fetch is None:
                        self.budget.count_statement()
                        self.node = stmt
                        item = _END if not self.while_test(stmt) else None
                    else:  # a for loop's items, one by one
                        item = fetch(k)
                    if item is _END:
                        if fetch is None:  # the test that ended a while loop ran here
                            step.iterations[1] = k
                        state[1] = "done"
                        return
                    step.iterations[1] = k
                    self.count_iteration(k, stmt, loop)
                    if fetch is not None:
                        self.assign(stmt.target, item, announce=False)
                    k += 1
                    state[0] = k
                    try:
                        self.run_block(body)
                    except _Break:
                        state[1] = "break"
                        return
                    except _Continue:
                        pass
            finally:
                self.depth -= 1
                self.loop = outer
                self.set_quiet(False)  # module names bound meanwhile are announced in the step

        self.loop = outer + (n,)
        yield from self.statement(stmt, run, "iterations", at=at)
        self.loop = outer
        return state[0], state[1]

    def for_each_batch(self, stmt, holder):
        """A for loop over a DataLoader or a generator: each item is made when the loop asks for
        it, in a step of the loop's header, as Python and torch make it (so what the dataset's
        or the generator's code prints or draws happens between the iterations, in their
        order). Its length counts as unknown for the long-loop rule (like a while loop's).
        holder: a list with the iterator, taken out here so that this loop holds the only
        reference the interpreter has (a generator the program let go of is closed when the
        loop ends, generators.py)."""
        batches = holder.pop()
        end = _END
        loop = self.loop_begin(stmt, None)
        outer = self.loop
        n = 0
        ended = item = None
        try:
            while True:
                if not self.depth and not loop.keeps(n):
                    n, ended = yield from self.quiet_stretch(
                        stmt, loop, outer, n, lambda k: next(batches, end))
                    if ended in ("break", "done"):
                        break
                    continue
                self.loop = outer + (n,)
                self.iteration(loop, n)
                item = yield from self.statement(stmt, lambda s: next(batches, end), "for")
                if item is end:
                    break
                self.count_iteration(n, stmt, loop)
                self.assign(stmt.target, item, announce=False)
                item = None
                n += 1
                try:
                    yield from self.block(stmt.body)
                except _Break:
                    ended = "break"
                    break
                except _Continue:
                    pass
        except BaseException as e:
            ended = "fatal" if isinstance(e, (_Stop, GeneratorExit, *_FATAL)) else "raised"
            raise
        finally:
            self.loop = outer
            self.loop_end(loop)
            # the loop lets go of its iterator here, as Python's does after the loop (not when
            # a traceback holding this frame is collected): a generator dropped is closed now
            batches = item = None  # noqa: F841
            yield from self.loop_let_go(ended)
        if ended != "break":
            yield from self.block(stmt.orelse)

    def count_iteration(self, n: int, stmt, loop: Loop) -> None:
        """Iteration n's body is about to run: within the loop limit?"""
        loop.ran = n + 1
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
            n = _range_length(value)
            if n > self.limits.max_loop_iterations:
                raise LimitExceeded("max_loop_iterations", f"this loop would run "
                                    f"{n:,} times (the limit is "
                                    f"{self.limits.max_loop_iterations:,})")
            return value
        if isinstance(value, (_data.DataLoader, _data.LoaderIterator)):
            if isinstance(value, _data.DataLoader):
                guard_loader(value, self.limits)
            return iter(value)  # a DataLoader draws its base seed when the loop starts
        lazy = lazy_iterator(value)
        if lazy is not None:
            return lazy  # the program's generator or iterable: run as the loop asks
        return self.iterate(value, stmt)

    def exec_with(self, stmt):
        """with over the grad-mode switches and the program's own context managers (classes
        defining __enter__ and __exit__), items entered in order and left in reverse, as nested
        with statements. A program's __exit__ gets the exception the block raised (its type,
        itself and None for the traceback, which a program never holds); a true result
        swallows it. At the module level each __exit__ runs in a step of the header's
        position. A limit or policy error leaves the grad-mode blocks but runs no program code
        (like finally blocks)."""
        managers = []
        pending = None
        try:
            yield from self.statement(stmt, lambda _s: self.enter_managers(stmt, managers),
                                      "with")
            yield from self.block(stmt.body)
        except (GeneratorExit, _Stop, *_FATAL):
            self.leave_grad_modes(managers)
            raise
        except BaseException as e:  # an exception or a break/continue/return: leave first
            pending = e
        yield from self.leave_managers(stmt, managers, pending, steps=True)

    def enter_managers(self, stmt, managers: list, announce: bool = True) -> None:
        """Enter a with statement's items in order, appending each manager to managers (so
        what was entered is left if a later item fails); `announce` as for `bind`."""
        for item in stmt.items:
            self.node = item.context_expr
            cm = self.eval(item.context_expr)
            if isinstance(cm, _GRAD_CONTEXTS):
                cm.__enter__()
                value = None  # torch's grad-mode switches give None to `as`
            else:
                value = self.call(self.context_method(cm, "__enter__", item.context_expr),
                                  [], {}, item.context_expr)
            managers.append(cm)
            if item.optional_vars is not None:
                self.assign(item.optional_vars, value, announce=announce)

    def leave_managers(self, stmt, managers: list, pending, steps: bool):
        """Leave what a with statement entered, innermost first, then raise what goes on.
        pending: what left the block (an exception, a break/continue/return, a generator's
        close, or None). Each program __exit__ gets the exception, and a true result swallows
        it; what an __exit__ raises goes on instead. `steps`: each __exit__ is a step at the
        header's position (a with statement of the module level; a generator's with around
        a yield runs inside a call and makes none)."""
        # a GeneratorExit at a step's yield is the host closing the run's steps: the run ends
        ends = (GeneratorExit, _Stop, *_FATAL) if steps else (_Stop, *_FATAL)
        while managers:
            cm = managers.pop()
            if isinstance(cm, _GRAD_CONTEXTS):
                self.leave_grad_modes([cm])
                continue
            exc = _exit_exception(pending)
            try:
                if steps:
                    swallow = yield from self.statement(
                        stmt, lambda _s, cm=cm, exc=exc: self.call_exit(cm, exc, stmt), "with")
                else:
                    swallow = self.call_exit(cm, exc, stmt)
            except ends:
                self.leave_grad_modes(managers)
                raise
            except BaseException as e:  # __exit__ raised: that goes on instead
                pending = e
                continue
            if swallow and exc is not None:
                pending = None
        if pending is not None:
            try:  # no reference left in this frame (records.forget_traceback)
                raise pending
            finally:
                pending = None

    def context_method(self, cm, name: str, node):
        """cm.__enter__ / cm.__exit__ of a program's own context manager, bound."""
        cls = type(cm)
        if is_user_class(cls) and user_class_defines(cls, "__enter__") and user_class_defines(
                cls, "__exit__"):
            return getattr(cm, name)
        if self.policy.is_engine_object(cm) or not (is_user_class(cls) or is_number(cm)
                                                    or isinstance(cm, _CONTAINERS)):
            raise self.not_allowed(node, "a with statement takes torch.no_grad(), "
                                   "torch.enable_grad(), torch.inference_mode(), "
                                   "torch.set_grad_enabled(flag) or an object of the program's "
                                   "own class with __enter__ and __exit__")
        # Python 3.11's messages (the recorded torch outputs were made with it)
        missed = " (missed __exit__ method)" if is_user_class(cls) and user_class_defines(
            cls, "__enter__") else ""
        raise TypeError(f"'{cls.__name__}' object does not support the context manager "
                        f"protocol{missed}")

    def call_exit(self, cm, exc, stmt):
        args = [None, None, None] if exc is None else [self.builtins.type_of(exc), exc, None]
        return self.truth(self.call(self.context_method(cm, "__exit__", stmt), args, {},
                                    stmt))

    def leave_grad_modes(self, managers) -> None:
        """Leave the grad-mode switches among managers, innermost first."""
        grad = [cm for cm in reversed(managers) if isinstance(cm, _GRAD_CONTEXTS)]
        if not grad:
            return
        if self.depth:  # inside a call the program's grad state is the current one
            for cm in grad:
                cm.__exit__(None, None, None)
            return
        # between the module level's steps: leave them inside the program's grad state
        state = _grad_mode.state
        prev = state.grad_enabled, state.inference
        state.grad_enabled, state.inference = self.grad_enabled, self.inference
        try:
            for cm in grad:
                cm.__exit__(None, None, None)
        finally:
            self.grad_enabled, self.inference = state.grad_enabled, state.inference
            state.grad_enabled, state.inference = prev

    def exec_try(self, stmt):
        pending = None
        try:
            try:
                yield from self.block(stmt.body)
            except (GeneratorExit, _Stop, *_CONTROL, *_FATAL):
                raise
            except (_Raised, Exception) as raised:
                exc = plain_stop_iteration(raised.exc if isinstance(raised, _Raised) else raised)
                handler = self.find_handler(stmt, exc)
                if handler is None:
                    raise
                forget_traceback(exc)
                yield from self.run_handler(handler, exc)
                exc = None  # the exception goes with the handler, as in Python
            else:
                yield from self.block(stmt.orelse)
        except (GeneratorExit, _Stop, *_FATAL):
            raise  # the run ends: no finally block runs after a limit
        except BaseException as e:  # an exception or a break/continue/return: finally first
            pending = e
        yield from self.block(stmt.finalbody)
        if pending is not None:
            try:  # no reference left in this frame (records.forget_traceback)
                raise pending
            finally:
                pending = None

    def find_handler(self, stmt, exc):
        for handler in stmt.handlers:
            if handler.type is None:
                return handler
            self.node = handler.type
            try:
                kinds = self.eval(handler.type)
            except (*_CONTROL, *_FATAL):
                raise
            except Exception as e:  # e.g. a NameError in the clause: raised from the try
                if self.depth:
                    raise  # inside a call, the caller's statement reports it
                raise _Raised(e, self.src.error("runtime", exception_message(e), handler.type,
                                                exc_type=type(e).__name__)) from None
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
        if stmt.module == "__future__":  # a no-op here; the name is bound as Python binds it
            for alias in stmt.names:
                self.bind(alias.asname or alias.name, getattr(__future__, alias.name))
            return
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
            if not isinstance(obj, (list, dict, collections.deque)) and not (
                    isinstance(obj, nn.ModuleDict) and isinstance(index, str)):
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
            mark_generator_error(exc)
            raise exc from cause
        mark_generator_error(exc)
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
        scope = self.scopes.get(id(node))
        if scope is None:
            scope = self.scopes[id(node)] = Scope(node)
        return UserFunction(self, node, name, defaults, kw_defaults, closure, scope)

    def decorate(self, decorator, value, node):
        self.node = node
        if isinstance(decorator, BuiltinFunction) and decorator.name in (
                "staticmethod", "classmethod", "property", "setter", "getter", "deleter"):
            return decorator(value)
        if isinstance(decorator, _GRAD_CONTEXTS):  # @torch.no_grad(): the mode for each call
            if not isinstance(value, UserFunction):
                raise self.not_allowed(node, "a grad-mode decorator goes on a function")
            value.wrappers = value.wrappers + (decorator.clone,)
            return value
        if decorator is engine.inference_mode:  # torch takes it without parentheses too
            return self.decorate(decorator(), value, node)
        if isinstance(decorator, type) and decorator in _GRAD_CONTEXTS:
            raise TypeError(f"{decorator.__name__}.__init__() takes 1 positional argument but "
                            "2 were given")
        if isinstance(decorator, UserFunction):
            return decorator(value)
        if decorator is once_differentiable:
            if not isinstance(value, UserFunction):
                raise self.not_allowed(node, "@once_differentiable goes on a backward method")
            return once_differentiable(value)
        raise self.not_allowed(node, f"{_kind_name(decorator)} cannot be used as a decorator")

    def do_classdef(self, stmt) -> None:
        bases = tuple(self.eval(b) for b in stmt.bases)
        for b in bases:
            if not self.policy.subclassable(b) and not is_user_class(b):
                raise self.not_allowed(stmt, f"a class can derive from nn.Module and its layers, "
                                       f"torch.autograd.Function, an optimizer, Dataset, an "
                                       f"exception type or the program's own classes (not "
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
        for name in ns:
            engine_base = engine_class_defining(bases, name)
            if name.startswith("_") and name not in ALLOWED_DUNDER_DEFS and engine_base:
                # the engine calls its own underscore methods with its internal state
                raise self.not_allowed(stmt, f"a class cannot replace .{name} of "
                                       f"{engine_base.__name__} (the engine's own)")
        ns["__module__"] = "__main__"
        ns["__qualname__"] = stmt.name
        cls = type(stmt.name, bases or (object,), ns)
        USER_CLASSES.add(cls)
        for attr, v in frame.vars.items():
            fns = [getattr(v, "fget", None), getattr(v, "fset", None), getattr(v, "fdel", None)] \
                if isinstance(v, property) else [getattr(v, "__func__", None) or v]
            for fn in fns:
                if isinstance(fn, UserFunction):
                    fn.owner = cls
                    fn.qualname = f"{stmt.name}.{attr}"
        if issubclass(cls, UserFunctionBase):
            engine.autograd.custom_function.NODE_CLASSES[cls].chain_rule = \
                self.backward_rule(cls)
        self.bind(stmt.name, cls)

    def backward_rule(self, cls) -> str:
        """The chain rule a program's Function applies, for the inspector: what its backward
        returns, as the program wrote it."""
        fn = cls.__dict__.get("backward")
        fn = getattr(fn, "__func__", fn)
        fn = getattr(fn, "wrapped", fn)  # under @once_differentiable
        if not isinstance(fn, UserFunction) or isinstance(fn.node, ast.Lambda):
            return f"{cls.__name__}.backward, the program's own, turns {{grad}} into the inputs' gradients"
        returns = [n for n in ast.walk(fn.node) if isinstance(n, ast.Return) and n.value]
        params = [a.arg for a in fn.node.args.args]
        text = " | ".join(ast.unparse(r.value) for r in returns[:3]) or "None"
        if len(text) > 200:
            text = text[:197] + "..."
        grads = ", ".join(params[1:]) or "grad"
        return (f"the program's own {cls.__name__}.backward(ctx, {grads}) with {grads} = "
                f"{{grad}} returns {text}")

    # -- calls of the program's own functions --------------------------------------------------
    def call_function(self, fn: UserFunction, args: tuple, kwargs: dict):
        if fn.run is not self or not self.open:
            raise RuntimeError("this function belongs to a run that has ended")
        if self.calls >= self.limits.max_call_depth:
            raise LimitExceeded("max_call_depth", f"too many nested calls of the program's "
                                f"functions (the limit is {self.limits.max_call_depth})")
        bound = bind_arguments(fn, args, kwargs)
        if self.on_call_begin is None:
            return self.run_function(fn, bound, args)
        return self.scoped_call("function", fn.qualname, list(bound.items()),
                                lambda: self.run_function(fn, bound, args))

    def run_function(self, fn: UserFunction, bound: dict, args: tuple):
        scope = fn.scope
        frame = Frame("function", fn.closure, scope.local_names, fn, scope.global_names,
                      scope.nonlocal_names)
        frame.vars.update(bound)
        frame.args = args
        if scope.yield_stmts:  # a generator function: its body runs as next() asks
            return ProgramGenerator(self, fn, frame)
        outer, outer_node = self.frame, self.node
        self.frame = frame
        self.depth += 1
        self.calls += 1
        managers = [make() for make in fn.wrappers]
        if _observer.state.observer is None:
            # called by the engine's backward (a hook, a Function's backward), which silences
            # its observer: the tensors made here still count against the run's budget
            managers.append(engine.observer.observe(self.budget_observer))
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
        except Exception as e:
            stop = plain_stop_iteration(e)
            if not isinstance(stop, _FATAL):
                keep_frame(stop, frame)
            if stop is e:
                raise
            raise stop from stop.__cause__  # as the program raised it, from what it named
        finally:
            for cm in reversed(managers):
                cm.__exit__(None, None, None)
            self.frame = outer
            self.depth -= 1
            self.calls -= 1
        self.node = outer_node  # an error inside keeps the position where it happened
        if fn.name in _TEXT_METHODS and type(value) is str:
            self.count_text_returned(len(value))
        return value

    def count_text_returned(self, n: int) -> None:
        self.text_returned += n
        cap = text_returned_cap(self.limits)
        if self.text_returned > cap:
            raise LimitExceeded("max_output_chars", (
                f"the program's __repr__ and __str__ returned more than {cap:,} characters in "
                f"this run (the limit is {TEXT_RETURNED_FACTOR} times the output limit of "
                f"{self.limits.max_output_chars:,} characters)"))

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
        if frame is self.series_frame and announce and self.on_value is not None:
            self.on_value(name, value)  # a long loop's series (docs/timeline.md)
        if frame is self.module and announce:
            if self.step is not None and not self.depth:
                self.step.assigned.append(name)
            if self.on_bind is not None:
                if self.quiet:  # announced when the quiet stretch ends (set_quiet)
                    self.quiet_binds[name] = True
                else:
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
        elif defines(value, "__iter__") or defines(value, "__next__"):
            pass  # the program's own iterable or iterator: its methods run for each item
        elif self.policy.is_engine_object(value):
            if isinstance(value, _data.DataLoader):
                guard_loader(value, self.limits)
            # engine iterables (model.parameters(), nn.Sequential) are bounded by the model
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
        if isinstance(obj, Ctx) and not name.startswith("_") and not hasattr(Ctx, name):
            # what forward keeps on ctx for backward (ctx.alpha = 2); ctx's own methods and
            # the engine's underscore names stay as they are
            if delete:
                delattr(obj, name)
            else:
                setattr(obj, name, value)
            return
        owner = obj if isinstance(obj, type) else type(obj)
        if is_user_class(owner) and not name.startswith("__"):
            # a Module keeps its parameters and submodules under underscore names: those stay
            # the engine's
            if name.startswith("_") and issubclass(owner, (nn.Module, _optim.Optimizer)):
                kind = "a Module" if issubclass(owner, nn.Module) else "an optimizer"
                raise self.not_allowed(node, f"attributes starting with '_' of {kind} cannot "
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
        elif type(obj) is list or isinstance(obj, (dict, collections.deque)):
            if isinstance(obj, dict) and index not in obj:
                self.check_size(obj, len(obj) + 1)
            obj[index] = value
            if type(index) is slice:
                self.check_size(obj, len(obj))
        elif isinstance(obj, nn.ModuleDict) and isinstance(index, str):
            obj[index] = value  # the engine registers it (a Module, or torch's TypeError)
        else:
            raise self.not_allowed(node, f"only items of tensors, lists and dicts can be "
                                   f"assigned (not items of {_kind_name(obj)})")



_EXEC = {
    ast.Match: Matching.exec_match, ast.If: Statements.exec_if, ast.While: Statements.exec_while, ast.For: Statements.exec_for,
    ast.With: Statements.exec_with, ast.Try: Statements.exec_try,
}
_SIMPLE = {
    ast.Expr: Statements.do_expr, ast.Assign: Statements.do_assign, ast.AnnAssign: Statements.do_annassign,
    ast.AugAssign: Statements.aug_assign, ast.Pass: Statements.do_pass, ast.Break: Statements.do_break,
    ast.Continue: Statements.do_continue, ast.Return: Statements.do_return, ast.Global: Statements.do_global,
    ast.Nonlocal: Statements.do_global, ast.Import: Statements.do_import, ast.ImportFrom: Statements.do_importfrom,
    ast.Delete: Statements.do_delete, ast.Assert: Statements.do_assert, ast.Raise: Statements.do_raise,
    ast.FunctionDef: Statements.do_functiondef, ast.ClassDef: Statements.do_classdef,
}
for _t in _SIMPLE:
    _EXEC[_t] = Statements.exec_simple
_STMT_KIND = {ast.Match: "match", ast.Import: "import", ast.ImportFrom: "import", ast.Assign: "assign",
              ast.AnnAssign: "assign", ast.AugAssign: "augassign", ast.Expr: "expr",
              ast.Pass: "pass", ast.Break: "break", ast.Continue: "continue",
              ast.Return: "return", ast.Global: "pass", ast.Nonlocal: "pass",
              ast.Delete: "del", ast.Assert: "assert", ast.Raise: "raise",
              ast.FunctionDef: "def", ast.ClassDef: "class"}

