"""Generator functions: a `def` whose body has `yield` statements. Calling one makes a
ProgramGenerator and runs nothing; each next() resumes the body where it stopped, inside the
statement of the program that asked (a `for` loop's header, `next(g)`, `list(g)`, ...).

A yield is a statement of its own (`yield value`, `yield`, `yield from items`) or the value of
an assignment (`x = yield value`, `result = yield from g`; validate.py), so the body runs as a
Python generator over statements: the statements that hold no yield run as in any call of the
program's functions (Statements.run_block), the ones that do (a yield statement and the
if/while/for/try/with/match around one, Scope.yield_stmts) run here and suspend at each yield.
Every statement counts against the run's budget as in any call, each resume is a call of the
program's function (`max_call_depth`: a generator that delegates to itself stops there) and a
loop inside a generator has the loop limit. Because the body is a Python generator, `send`,
`throw` and `close` are Python's own, and `yield from` hands them on to the program's generator
it delegates to (PEP 380), with Python's errors ("can't send non-None value to a just-started
generator", "generator ignored GeneratorExit", "generator already executing").

What the program holds is a ProgramGenerator: of its attributes only `send`, `throw` and
`close` are readable (no frame, code or gi_* fields); it prints as Python's generator does.

Closing, as CPython does it: `close()` raises GeneratorExit where the generator waits, so its
`finally` blocks, `with` exits and a bare `except:` run. A generator the program lets go of
while it waits (a `for` loop over it broke off, `del g`, a rebinding, the end of a function
whose local it was) is closed when its last reference goes, as CPython's reference counting
closes it: the host's reference count is the program's (the interpreter takes care to hold no
reference of its own past the point the program's would go), `__del__` puts the generator on
the run's `dropped` list and the run closes it at its next safe point (before and after each
statement, after each call, when a loop ends, before an except or finally block runs), with
what it raises ignored as Python ignores it (it only reports it on stderr). At the module
level such a close is a step of its own (kind `close`, at the yield where the generator waits).
When the run ends, the generators still waiting are closed in the order CPython frees them
when it clears the program's module (`close_at_end`). After a limit or policy error no program
code runs: nothing is closed then, and a generator the host frees later (after its run) is
closed with no program code, only the grad-mode blocks it waits in are left.
"""

from __future__ import annotations

import ast
import gc
import itertools

from .._engine import engine
from ..limits import LimitExceeded
from .records import forget_traceback, keep_frame, mark_generator_error, plain_stop_iteration

_observer = engine.observer
_budget = engine.budget
_grad_mode = engine.autograd.grad_mode

_SEND, _THROW, _CLOSE = "send", "throw", "close"


class _Close(BaseException):
    """close() of the program's generator: its GeneratorExit, raised where it waits and
    passing out through the program's statements (their finally blocks, with exits and a
    bare except see a GeneratorExit). Python's own GeneratorExit cannot carry it: thrown into
    the interpreter's nested generators, Python closes each of them on its own instead of
    letting it pass; a GeneratorExit reaching the program's statements comes from the host
    freeing a generator after its run, and runs none of the program's code."""
GENERATOR_METHODS = frozenset((_SEND, _THROW, _CLOSE))
_serial = itertools.count()


class ProgramGenerator:
    """What calling a generator function gives the program."""

    __slots__ = ("run", "fn", "frame", "body", "running", "handling", "waiting", "serial",
                 "__weakref__")

    def __init__(self, run, fn, frame):
        self.run = run
        self.fn = fn
        self.frame = frame  # the call's scope, kept between resumes
        self.body = run.generator_body(fn)
        self.running = False
        self.handling: list = []  # exceptions its except blocks are handling (a bare raise)
        self.waiting = None  # the yield statement it waits at
        self.serial = next(_serial)  # creation order (closing at the end of a run)
        run.generators.add(self)

    def __iter__(self):
        return self

    def __next__(self):
        return self.run.drive(self, _SEND, None)

    def send(self, value):
        return self.run.drive(self, _SEND, value)

    def throw(self, typ, val=None, tb=None):
        if isinstance(typ, _Close):
            # the generator delegating to this one by `yield from` is being closed: this one
            # is closed first, then it goes on there (PEP 380)
            self.close()
            raise typ
        return self.run.throw_into(self, typ, val, tb)

    def close(self):
        self.run.drive(self, _CLOSE, None)

    @property
    def suspended(self) -> bool:
        return self.body.gi_suspended

    def __del__(self):
        # the program let go of it while it waits: its run closes it at the next safe point
        # (this keeps it alive until then); not after its run, where no program code runs
        run = self.run
        if run.open and self.body.gi_suspended:
            run.dropped.append(self)

    def __repr__(self) -> str:
        return f"<generator object {self.fn.qualname} at 0x{id(self):012x}>"


class ProgramIterator:
    """enumerate/zip/map/filter over a ProgramGenerator: lazy, as Python's are, so a generator's
    statements run when the loop asks for the next item (not all before the loop)."""

    __slots__ = ("items", "kind")

    def __init__(self, items, kind: str):
        self.items = items
        self.kind = kind  # Python's name for it: enumerate, zip, map, filter

    def __iter__(self):
        return self

    def __next__(self):
        return next(self.items)

    def __repr__(self) -> str:
        return f"<{self.kind} object at 0x{id(self):012x}>"


LAZY_ITERATORS = (ProgramGenerator, ProgramIterator)


def lazy_iterator(value):
    """An iterator over value to be asked one item at a time, for what runs the program's code
    per item: its generators, and its objects whose class defines __iter__ (what __iter__
    returns is the program's: a generator, its own object with __next__, or one of Python's
    iterators); None for anything else."""
    from .functions import defines
    if isinstance(value, LAZY_ITERATORS):
        return value
    if defines(value, "__iter__"):
        it = iter(value)  # the program's __iter__, interpreted
        return it if isinstance(it, LAZY_ITERATORS) else ProgramIterator(it, "iterator")
    return None


class Generators:
    """The run's half that resumes the program's generators (a mixin of interpret._Run, using
    its frames, budget and statement execution)."""

    def drive(self, gen: ProgramGenerator, action: str, arg):
        """Resume gen's body with send(arg), throw(arg) or close(), in gen's own scope, as a
        call of the program's function; returns what it yields next."""
        if gen.run is not self or not self.open:
            raise RuntimeError("this generator belongs to a run that has ended")
        if gen.running:
            raise ValueError("generator already executing")
        if self.calls >= self.limits.max_call_depth:
            raise LimitExceeded("max_call_depth", f"too many nested calls of the program's "
                                f"functions (the limit is {self.limits.max_call_depth})")
        outer = self.frame, self.node, self.handling, self.driving
        if gen.frame is not None:  # (a generator that is done runs no code)
            self.frame = gen.frame
        self.handling, self.driving = gen.handling, gen
        self.depth += 1
        self.calls += 1
        gen.running = True
        # @torch.no_grad() on a generator function: its mode holds while its body runs
        managers = [make() for make in gen.fn.wrappers]
        if _observer.state.observer is None:  # resumed by the engine (see run_function)
            managers.append(engine.observer.observe(self.budget_observer))
        for cm in managers:
            cm.__enter__()
        try:
            # StopIteration when the body ends: the generator is done
            if action is _SEND:
                return gen.body.send(arg)
            if action is _THROW:
                return gen.body.throw(arg)
            # close(): GeneratorExit where it waits, propagating out through the program's
            # statements (the body's close() would end each nested statement on its own)
            try:
                gen.body.throw(_Close())
            except (_Close, StopIteration):
                gen.frame = None  # closed: the generator lets go of its scope
                return None
            raise RuntimeError("generator ignored GeneratorExit")
        except Exception as e:
            if plain_stop_iteration(e) is not e:
                mark_generator_error(e)  # its body raised StopIteration: Python's RuntimeError
            if not gen.body.gi_frame and gen.frame is not None:
                # done: the generator lets go of its scope (the exception keeps it, as a
                # traceback does)
                if not isinstance(e, (StopIteration, LimitExceeded, RecursionError, MemoryError)):
                    keep_frame(e, gen.frame)
                gen.frame = None
            raise
        finally:
            for cm in reversed(managers):
                cm.__exit__(None, None, None)
            gen.running = False
            self.frame, node, self.handling, self.driving = outer
            self.depth -= 1
            self.calls -= 1
            self.node = node  # an error inside keeps the position where it happened

    def throw_into(self, gen: ProgramGenerator, typ, val, tb):
        """gen.throw(...): Python's ways of naming the exception, then raised where gen
        waits."""
        if tb is not None:
            raise TypeError("throw() third argument must be a traceback object")
        if isinstance(typ, type) and self.is_exception_class(typ):
            if val is None:
                exc = typ()
            elif isinstance(val, typ):
                exc = val
            elif isinstance(val, tuple):
                exc = typ(*val)
            else:
                exc = typ(val)
        elif isinstance(typ, BaseException) and self.is_exception_class(type(typ)):
            if val is not None:
                raise TypeError("instance exception may not have a separate value")
            exc = typ
        else:
            raise TypeError("exceptions must be classes or instances deriving from "
                            f"BaseException, not {self.python_type_name(typ)}")
        return self.drive(gen, _THROW, exc)

    # -- dropped generators ----------------------------------------------------------------------
    def close_dropped(self) -> None:
        """Close the generators the program let go of since the last safe point (inside a
        statement: the closes belong to it)."""
        while self.dropped:
            # in the order they dropped (what drops meanwhile, or is closed by a safe point
            # inside these closes, comes after)
            batch, self.dropped = self.dropped, []
            for gen in batch:
                self.close_quietly(gen)

    def close_quietly(self, gen: ProgramGenerator) -> None:
        from .statements import _FATAL
        try:
            self.drive(gen, _CLOSE, None)
        except _FATAL:
            raise
        except Exception:  # noqa: S110 - Python ignores it too ("Exception ignored in ...")
            pass

    def close_steps(self):
        """At the module level, between statements: each dropped generator is closed in a
        step of its own (kind `close`, at the yield where it waits); inside a call, at once."""
        if self.depth:
            self.close_dropped()
            return
        while self.dropped:
            # in the order they dropped; what drops meanwhile is closed inside these steps
            batch, self.dropped = self.dropped, []
            for gen in batch:
                yield from self.close_step(gen)

    def close_at_end(self):
        """The run ended (or a runtime error ended it): the generators still waiting are closed
        in the order CPython frees them as it clears the module's names (single-underscore
        names first, then the others, in the order they were bound; a generator held by a
        container or an object when that one is freed), then any other, oldest first."""
        yield from self.close_steps()  # those let go of before the end, first
        if not any(g.suspended for g in self.generators):
            return
        for gen in _teardown_order(self.module.vars, self.module):
            if gen.suspended:
                yield from self.close_step(gen)
        for gen in sorted(self.generators, key=lambda g: g.serial):
            if gen.suspended:
                yield from self.close_step(gen)

    def close_step(self, gen):
        at = gen.waiting or gen.fn.node
        yield from self.statement(at, lambda _s: self.close_quietly(gen), "close")

    # -- the body --------------------------------------------------------------------------------
    def generator_body(self, fn):
        from .statements import _Return
        yields = fn.scope.yield_stmts
        try:
            yield from self.gen_block(fn.node.body, yields)
        except _Return as r:
            return r.value  # StopIteration(value), what `yield from` gives
        return None

    def gen_block(self, stmts, yields):
        for stmt in stmts:
            if id(stmt) not in yields:
                self.run_block((stmt,))
                continue
            self.budget.count_statement()
            self.node = stmt
            yield from _GEN_EXEC[type(stmt)](self, stmt, yields)
            if self.dropped:
                self.close_dropped()

    def gen_expr(self, stmt, yields):
        yield from self.gen_yield(stmt.value, stmt)

    def gen_assign(self, stmt, yields):
        value = yield from self.gen_yield(stmt.value, stmt)
        for target in stmt.targets:
            self.assign(target, value)

    def gen_yield(self, node, stmt):
        """A yield (or yield from) statement's value: what send() passes in (or the return
        value of the generator yield from delegated to)."""
        if isinstance(node, ast.Yield):
            value = None if node.value is None else self.eval(node.value)
            self.driving.waiting = stmt
            return (yield value)
        source = self.eval(node.value)
        self.driving.waiting = stmt
        if isinstance(source, ProgramGenerator):
            return (yield from source)  # send/throw/close go on to it (PEP 380)
        if isinstance(source, (range, ProgramIterator)):
            return (yield from source)
        return (yield from self.iterate(source, stmt))

    def gen_if(self, stmt, yields):
        branch = stmt.body if self.truth(self.eval(stmt.test)) else stmt.orelse
        yield from self.gen_block(branch, yields)

    def gen_match(self, stmt, yields):
        case = self.choose_case(stmt)
        if case is not None:
            yield from self.gen_block(case.body, yields)

    def gen_while(self, stmt, yields):
        from .statements import _Break, _Continue
        n = 0
        while self.truth(self.eval(stmt.test)):
            self.gen_iteration(n, stmt)
            n += 1
            try:
                yield from self.gen_block(stmt.body, yields)
            except _Break:
                return
            except _Continue:
                pass
            self.budget.count_statement()  # the test runs again: a statement, as in a call
            self.node = stmt
        yield from self.gen_block(stmt.orelse, yields)

    def gen_for(self, stmt, yields):
        from .statements import _FATAL, _Break, _Continue, _Stop
        source = self.eval(stmt.iter)
        # a generator's and a range's items one at a time, any other iterable in full
        items = iter(source) if isinstance(source, (range, *LAZY_ITERATORS)) else iter(
            self.iterate(source, stmt))
        source = None
        n = 0
        broke = False
        try:
            for item in items:
                self.gen_iteration(n, stmt)
                n += 1
                self.assign(stmt.target, item, announce=False)
                item = None
                try:
                    yield from self.gen_block(stmt.body, yields)
                except _Break:
                    broke = True
                    break
                except _Continue:
                    pass
        except (_Stop, *_FATAL):
            raise
        except BaseException as e:
            items = item = None  # the loop lets go of what it iterated, as Python's does
            if self.dropped and not isinstance(e, GeneratorExit):
                self.close_dropped()
            raise
        items = None
        if self.dropped:
            self.close_dropped()
        if not broke:
            yield from self.gen_block(stmt.orelse, yields)

    def gen_iteration(self, n: int, stmt) -> None:
        if n >= self.limits.max_loop_iterations:
            self.node = stmt
            raise LimitExceeded("max_loop_iterations", f"this loop ran {n:,} times (the "
                                f"limit is {self.limits.max_loop_iterations:,})")

    def gen_try(self, stmt, yields):
        from .statements import _CONTROL, _FATAL, _Stop
        pending = None
        try:
            try:
                yield from self.gen_block(stmt.body, yields)
            except (GeneratorExit, _Stop, *_CONTROL, *_FATAL):
                raise  # GeneratorExit: the host frees the body, no program code runs
            except (Exception, _Close) as raised:
                exc = plain_stop_iteration(raised)
                raised = None
                # close(): a GeneratorExit, which only a bare except catches
                handler = self.find_handler(stmt, GeneratorExit() if isinstance(
                    exc, _Close) else exc)
                if handler is None:
                    raise
                forget_traceback(exc)
                if self.dropped:
                    self.close_dropped()
                if handler.name is not None:
                    self.bind(handler.name, exc, announce=False)
                self.handling.append(exc)
                try:
                    yield from self.gen_block(handler.body, yields)
                finally:
                    self.handling.pop()
                    if handler.name is not None:
                        self.frame.vars.pop(handler.name, None)
            else:
                yield from self.gen_block(stmt.orelse, yields)
        except (GeneratorExit, _Stop, *_FATAL):
            raise  # the run ends (or ended): none of the program's code runs (no finally)
        except BaseException as e:
            pending = e
        if self.dropped:
            self.close_dropped()
        yield from self.gen_block(stmt.finalbody, yields)
        if pending is not None:
            try:  # no reference left in this frame (records.forget_traceback)
                raise pending
            finally:
                pending = None

    def gen_with(self, stmt, yields):
        """with around a yield: the grad-mode switches and the program's own context managers,
        as Statements.exec_with runs them (inside a call: no steps)."""
        from .statements import _FATAL, _Stop
        managers = []
        try:
            self.enter_managers(stmt, managers, announce=False)
            yield from self.gen_block(stmt.body, yields)
        except (_Stop, *_FATAL):
            self.leave_grad_modes(managers)
            raise
        except GeneratorExit:
            # the host frees the body after its run: Python leaves the block, so the
            # program's grad mode is restored; no program code runs here
            self.leave_on_close(managers)
            raise
        except BaseException as e:  # an exception or a break/continue/return: leave first
            pending = e
        else:
            pending = None
        yield from self.leave_managers(stmt, managers, pending, steps=False)

    def leave_on_close(self, managers) -> None:
        """Leave the grad-mode blocks of a generator the host frees (after its run) while it
        waits in them. That may happen between the run's statements, after the run or inside
        another run's statement (the program's mode is the run's own record then: change
        that, and give the thread its mode back), or inside one of this run's statements
        (the engine's grad mode is the program's then)."""
        from .statements import _GRAD_CONTEXTS
        grad = [cm for cm in managers if isinstance(cm, _GRAD_CONTEXTS)]
        state = _grad_mode.state
        if _budget.state.budget is self.budget:
            for cm in reversed(grad):
                cm.__exit__(None, None, None)
            return
        prev = state.grad_enabled, state.inference
        state.grad_enabled, state.inference = self.grad_enabled, self.inference
        try:
            for cm in reversed(grad):
                cm.__exit__(None, None, None)
        finally:
            self.grad_enabled, self.inference = state.grad_enabled, state.inference
            state.grad_enabled, state.inference = prev


def _teardown_order(names: dict, module_frame) -> list:
    """The program's generators in the order CPython frees them when it clears the module's
    names at exit (Objects/moduleobject.c, _PyModule_ClearDict): single-underscore names
    first, then the others, in the order they were bound. A value is freed when the last
    reference to it among the program's values goes (lists and tuples free their items from
    the last, dicts in order, an object its attributes, a generator its scope); counted here
    over the values the program holds (what the host holds besides is not the program's)."""
    from .functions import Frame, UserFunction, is_user_class

    def children(v):
        if isinstance(v, ProgramGenerator):
            return [v.frame]
        if isinstance(v, Frame):
            return [] if v is module_frame else list(v.vars.values())
        if isinstance(v, UserFunction):
            return [v.closure, *v.defaults, *v.kw_defaults.values()]
        t = type(v)
        if t is list or t is tuple:
            return list(reversed(v))
        if isinstance(v, dict):
            return [x for kv in v.items() for x in kv]
        if t is set or t is frozenset:
            return list(v)
        if isinstance(v, ProgramIterator):
            return [r for r in gc.get_referents(v.items) if not isinstance(r, type)]
        if t.__name__ in ("zip", "map", "filter", "enumerate", "tuple_iterator",
                          "list_iterator"):
            return [r for r in gc.get_referents(v) if not isinstance(r, type)]
        if is_user_class(t):
            return list(getattr(v, "__dict__", {}).values())
        return []

    roots = [v for k, v in names.items() if k.startswith("_") and not k.startswith("__")]
    roots += [v for k, v in names.items() if not k.startswith("_")]
    count: dict = {}
    objects: dict = {}
    stack = list(roots)
    seen: set = set()
    for r in roots:
        count[id(r)] = count.get(id(r), 0) + 1
    while stack and len(seen) < 100_000:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        objects[id(v)] = v
        for c in children(v):
            count[id(c)] = count.get(id(c), 0) + 1
            stack.append(c)
    order: list = []

    def release(v) -> None:
        work = [v]
        while work:
            x = work.pop()
            count[id(x)] -= 1
            if count[id(x)]:
                continue
            if isinstance(x, ProgramGenerator):
                order.append(x)
            # children are released in order: push them reversed
            work.extend(reversed(children(x)) if id(x) in objects else ())

    for r in roots:
        release(r)
    return order


_GEN_EXEC = {
    ast.Expr: Generators.gen_expr, ast.Assign: Generators.gen_assign, ast.If: Generators.gen_if,
    ast.While: Generators.gen_while, ast.For: Generators.gen_for, ast.Try: Generators.gen_try,
    ast.With: Generators.gen_with, ast.Match: Generators.gen_match,
}
