"""Generator functions: a `def` whose body has `yield` statements. Calling one makes a
ProgramGenerator and runs nothing; each next() resumes the body where it stopped, inside the
statement of the program that asked (a `for` loop's header, `next(g)`, `list(g)`, ...).

A yield is a statement of its own (`yield value`, `yield`, `yield from items`; validate.py), so
the body runs as a Python generator over statements: the statements that hold no yield run as in
any call of the program's functions (Statements.run_block), the ones that do (a yield statement
and the if/while/for/try/with around one, Scope.yield_stmts) run here and suspend at each yield.
Every statement counts against the run's budget as in any call, each resume is a call of the
program's function (`max_call_depth`: a generator that delegates to itself stops there) and a
loop inside a generator has the loop limit.

What the program holds is a ProgramGenerator: it has no attributes (no frame, code or gi_*
fields, no send/throw/close), prints as Python's generator does and can only be iterated. A
generator dropped unfinished (a loop over it broke off) runs none of the program's code any
more: where Python would run its `finally` blocks then, here they do not run, since the drop
may come anywhere (inside the engine, between statements, after the run); only the grad-mode
blocks it was suspended in are left, as Python leaves them, so the program's mode is right.
"""

from __future__ import annotations

import ast

from .._engine import engine
from ..limits import LimitExceeded

_observer = engine.observer
_budget = engine.budget
_grad_mode = engine.autograd.grad_mode


class ProgramGenerator:
    """What calling a generator function gives the program."""

    __slots__ = ("run", "fn", "frame", "body", "running", "handling", "__weakref__")

    def __init__(self, run, fn, frame):
        self.run = run
        self.fn = fn
        self.frame = frame  # the call's scope, kept between resumes
        self.body = run.generator_body(fn)
        self.running = False
        self.handling: list = []  # exceptions its except blocks are handling (a bare raise)

    def __iter__(self):
        return self

    def __next__(self):
        return self.run.resume(self)

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


class Generators:
    """The run's half that resumes the program's generators (a mixin of interpret._Run, using
    its frames, budget and statement execution)."""

    def resume(self, gen: ProgramGenerator):
        if gen.run is not self:
            raise RuntimeError("this generator belongs to a run that has ended")
        if gen.running:
            raise ValueError("generator already executing")
        if self.calls >= self.limits.max_call_depth:
            raise LimitExceeded("max_call_depth", f"too many nested calls of the program's "
                                f"functions (the limit is {self.limits.max_call_depth})")
        outer_frame, outer_node, outer_handling = self.frame, self.node, self.handling
        self.frame, self.handling = gen.frame, gen.handling
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
            value = next(gen.body)  # StopIteration when the body ends: the generator is done
        finally:
            for cm in reversed(managers):
                cm.__exit__(None, None, None)
            gen.running = False
            self.frame, self.handling = outer_frame, outer_handling
            self.depth -= 1
            self.calls -= 1
        self.node = outer_node  # an error inside keeps the position where it happened
        return value

    def generator_body(self, fn):
        from .statements import _Return
        yields = fn.scope.yield_stmts
        try:
            yield from self.gen_block(fn.node.body, yields)
        except _Return:
            return

    def gen_block(self, stmts, yields):
        for stmt in stmts:
            if id(stmt) not in yields:
                self.run_block((stmt,))
                continue
            self.budget.count_statement()
            self.node = stmt
            yield from _GEN_EXEC[type(stmt)](self, stmt, yields)

    def gen_expr(self, stmt, yields):
        value = stmt.value
        if isinstance(value, ast.Yield):
            yield None if value.value is None else self.eval(value.value)
        else:  # yield from: each item in turn, a generator's as it makes them
            yield from self.lazy_items(self.eval(value.value), stmt)

    def lazy_items(self, source, stmt):
        """The items of what a yield from or a for loop inside a generator goes over: a
        generator's and a range's one at a time, any other iterable taken in full (bounded)."""
        if isinstance(source, (range, *LAZY_ITERATORS)):
            yield from source
        else:
            yield from self.iterate(source, stmt)

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
        from .statements import _Break, _Continue
        n = 0
        for item in self.lazy_items(self.eval(stmt.iter), stmt):
            self.gen_iteration(n, stmt)
            n += 1
            self.assign(stmt.target, item, announce=False)
            try:
                yield from self.gen_block(stmt.body, yields)
            except _Break:
                return
            except _Continue:
                pass
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
                raise
            except Exception as exc:
                handler = self.find_handler(stmt, exc)
                if handler is None:
                    raise
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
            # the run ends, or the generator is closed unfinished: none of the program's code
            # runs any more (no finally block)
            raise
        except BaseException as e:
            pending = e
        yield from self.gen_block(stmt.finalbody, yields)
        if pending is not None:
            raise pending

    def gen_with(self, stmt, yields):
        from .statements import _GRAD_CONTEXTS
        managers = []
        for item in stmt.items:
            self.node = item.context_expr
            cm = self.eval(item.context_expr)
            if not isinstance(cm, _GRAD_CONTEXTS):
                raise self.not_allowed(item.context_expr, "a with statement around a yield "
                                       "takes torch.no_grad(), torch.enable_grad(), "
                                       "torch.inference_mode() or torch.set_grad_enabled(flag)")
            cm.__enter__()
            managers.append(cm)
            if item.optional_vars is not None:
                self.assign(item.optional_vars, None, announce=False)
        try:
            yield from self.gen_block(stmt.body, yields)
        except GeneratorExit:
            # dropped unfinished (a loop over it broke off): Python leaves the block, so the
            # program's grad mode is restored; no program code runs here
            self.leave_on_close(managers)
            raise
        except BaseException:
            for cm in reversed(managers):
                cm.__exit__(None, None, None)
            raise
        # a yield inside the block leaves its mode on while the caller runs, as in torch
        for cm in reversed(managers):
            cm.__exit__(None, None, None)


    def leave_on_close(self, managers) -> None:
        """Leave grad-mode blocks of a generator dropped while suspended in them. That may
        happen inside one of the run's statements (the engine's grad mode is the program's
        then), between them, after the run or inside another run's statement (the program's
        mode is the run's own record then: change that, and give the thread its mode back)."""
        state = _grad_mode.state
        if _budget.state.budget is self.budget:
            for cm in reversed(managers):
                cm.__exit__(None, None, None)
            return
        prev = state.grad_enabled, state.inference
        state.grad_enabled, state.inference = self.grad_enabled, self.inference
        try:
            for cm in reversed(managers):
                cm.__exit__(None, None, None)
        finally:
            self.grad_enabled, self.inference = state.grad_enabled, state.inference
            state.grad_enabled, state.inference = prev


_GEN_EXEC = {
    ast.Expr: Generators.gen_expr, ast.If: Generators.gen_if, ast.While: Generators.gen_while,
    ast.For: Generators.gen_for, ast.Try: Generators.gen_try, ast.With: Generators.gen_with,
    ast.Match: Generators.gen_match,
}
