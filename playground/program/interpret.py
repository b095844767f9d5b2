"""Interpretation: runs a validated Program statement by statement over the engine (imported
by the program as `torch`), with the program's own grad mode, the run's budget and a warnings
recorder around each statement.

Nothing here evaluates user text with eval/exec/compile: every node is interpreted by this
module, every name comes from the program itself or from an allowlist (policy.py), and every
attribute read is checked against the allowlist for the kind of object it is read from.

Use:
    result = Interpreter().run(text, on_step=callback)   # -> RunResult, never raises
    for step in Interpreter().steps(text): ...           # the same, one statement at a time
"""

from __future__ import annotations

import ast
import io
import operator
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
from .operators import BINOPS, COMPARE, INPLACE, PLAIN, UNARY, number_op
from .parse import Program, parse
from .policy import MODULE_METHODS, NAMESPACES, SETTABLE_ATTRS, TENSOR_PRIVATE_READABLE, Policy
from .records import ProgramError, RunResult, Source, Step, WarningRecord

nn = engine.nn
_observer = engine.observer
_grad_mode = engine.autograd.grad_mode
Node = engine.autograd.graph.Node


class _Stop(Exception):
    """Internal: a statement failed; carries the ProgramError."""

    def __init__(self, error: ProgramError):
        self.error = error


_GRAD_CONTEXTS = (engine.no_grad, engine.enable_grad, engine.set_grad_enabled)


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
        """Run a program to its end or its first error; never raises ProgramError.

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
    """The state of one run: the program's names, its budget, its output and its steps."""

    def __init__(self, interp: Interpreter, text: str, before_step):
        self.interp = interp
        self.limits = interp.limits
        self.policy = interp.policy
        self.text = text
        self.before_step = before_step
        self.names: dict = {}
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
        except _Stop as stop:
            self.error = stop.error

    def block(self, stmts):
        for stmt in stmts:
            if isinstance(stmt, ast.For):
                yield from self.for_loop(stmt)
            elif isinstance(stmt, ast.With):
                yield from self.with_block(stmt)
            else:
                step = self.simple(stmt, self.exec_simple)
                yield step
                if step.error is not None:
                    raise _Stop(step.error)

    def for_loop(self, stmt):
        bound = self.program.loop_bounds[id(stmt)]
        outer = self.loop
        try:
            for n, i in enumerate(bound):
                self.loop = outer + (n,)
                self.names[stmt.target.id] = i
                yield from self.block(stmt.body)
        finally:
            self.loop = outer

    def with_block(self, stmt):
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

        step = self.simple(stmt, enter, kind="with")
        yield step
        try:
            if step.error is not None:
                raise _Stop(step.error)
            yield from self.block(stmt.body)
        finally:
            # leave in reverse order, inside the program's grad state
            prev = _grad_mode.state.grad_enabled
            _grad_mode.state.grad_enabled = self.grad_enabled
            try:
                for cm in reversed(managers):
                    cm.__exit__(None, None, None)
            finally:
                self.grad_enabled = _grad_mode.state.grad_enabled
                _grad_mode.state.grad_enabled = prev

    def simple(self, stmt, fn, kind: str | None = None) -> Step:
        """Run one statement with the program's grad mode, the limit observer and a warnings
        recorder in place; turn whatever it raises into the step's ProgramError."""
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
        error = None
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
                        fn(stmt)
                    finally:
                        self.record_warnings(caught, step)
            except ProgramError as e:
                error = e
            except LimitExceeded as e:
                error = src.error("limit", e.message, self.node, limit=e.limit)
            except RecursionError:
                error = src.error("limit", "the program recursed too deeply", self.node,
                                  limit="max_depth")
            except MemoryError:
                error = src.error("limit", "the program ran out of memory", self.node,
                                  limit="max_total_elements")
            except Exception as e:  # an engine error: reported as torch reports it
                error = src.error("runtime", _message(e), self.node, exc_type=type(e).__name__)
            finally:
                self.grad_enabled = _grad_mode.state.grad_enabled
                _grad_mode.state.grad_enabled = prev_grad
                _observer.state.observer = prev_obs
        step.output = self.output.getvalue()[out_start:]
        step.error = error
        self.steps_done.append(step)
        if error is not None:
            if error.line is None:
                error.line, error.col = step.line, step.col
            self.error = error
        return step

    def record_warnings(self, caught, step: Step) -> None:
        for w in caught:
            self.warning_count += 1
            if len(self.warnings) >= self.limits.max_warnings:
                continue
            rec = WarningRecord(w.category.__name__, str(w.message), step.line, step.col)
            self.warnings.append(rec)
            step.warnings.append(rec)

    # -- statements ------------------------------------------------------------------------------
    def exec_simple(self, stmt) -> None:
        t = type(stmt)
        if t is ast.Expr:
            self.eval(stmt.value)
        elif t is ast.Assign:
            value = self.eval(stmt.value)
            for target in stmt.targets:
                self.assign(target, value)
        elif t is ast.AugAssign:
            self.aug_assign(stmt)
        elif t is ast.Import:
            for alias in stmt.names:
                if alias.asname:
                    self.bind(alias.asname, self.import_module(stmt, alias.name))
                else:  # `import torch.nn` binds torch, as Python does
                    self.import_module(stmt, alias.name)
                    top = alias.name.split(".")[0]
                    self.bind(top, self.import_module(stmt, top))
        elif t is ast.ImportFrom:
            module = self.import_module(stmt, stmt.module)
            for alias in stmt.names:
                sub_path = f"{stmt.module}.{alias.name}"
                if sub_path in NAMESPACES:
                    value = NAMESPACES[sub_path]
                else:
                    value = self.get_attr(module, alias.name, stmt)
                self.bind(alias.asname or alias.name, value)
        elif t is ast.Pass:
            pass
        else:  # the validator let only the kinds above through
            raise self.not_allowed(stmt, "this statement is not allowed")

    def import_module(self, node, path: str):
        return NAMESPACES[path]  # the validator let only these paths through

    def bind(self, name: str, value) -> None:
        self.names[name] = value
        if self.step is not None:
            self.step.assigned.append(name)
        if self.on_bind is not None:
            self.on_bind(name, value)

    def assign(self, target, value) -> None:
        t = type(target)
        if t is ast.Name:
            self.bind(target.id, value)
        elif t in (ast.Tuple, ast.List):
            items = self.unpack(value, len(target.elts), target)
            for sub, item in zip(target.elts, items):
                self.assign(sub, item)
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
        elif isinstance(value, (str, list, tuple)):
            pass
        elif isinstance(value, types.GeneratorType) or self.policy.is_engine_object(value):
            pass  # engine iterables (model.parameters(), nn.Sequential) are bounded by the model
        else:
            raise TypeError(f"cannot unpack non-iterable {type(value).__name__} object")
        self.node = node
        items = []
        for item in value:
            items.append(item)
            if len(items) > cap:
                raise LimitExceeded("max_sequence_items", f"too many items (the limit is "
                                    f"{cap:,})")
        return items

    def aug_assign(self, stmt) -> None:
        op = INPLACE[type(stmt.op)]
        target = stmt.target
        rhs_node = stmt.value
        if isinstance(target, ast.Name):
            old = self.lookup(target)
            rhs = self.eval(rhs_node)
            self.bind(target.id, self.binop(op, old, rhs, stmt))
        elif isinstance(target, ast.Attribute):
            obj = self.eval(target.value)
            old = self.get_attr(obj, target.attr, target)
            rhs = self.eval(rhs_node)
            self.set_attr(obj, target.attr, self.binop(op, old, rhs, stmt), target)
        else:
            obj = self.eval(target.value)
            index = self.eval(target.slice)
            old = self.get_item(obj, index, target)
            rhs = self.eval(rhs_node)
            self.set_item(obj, index, self.binop(op, old, rhs, stmt), target)

    def set_attr(self, obj, name: str, value, node) -> None:
        if not isinstance(obj, engine.Tensor) or name not in SETTABLE_ATTRS:
            raise self.not_allowed(node, f"only .grad, .requires_grad and .data of a tensor can "
                                   f"be assigned (not .{name} of {_kind_name(obj)})")
        self.node = node
        setattr(obj, name, value)

    def set_item(self, obj, index, value, node) -> None:
        if not isinstance(obj, engine.Tensor):
            raise self.not_allowed(node, f"only tensor elements can be assigned "
                                   f"(not items of {_kind_name(obj)})")
        self.check_index(index, node)
        self.node = node
        if isinstance(value, engine.Tensor):
            guard_broadcast([obj, value], self.limits)
        obj[index] = value

    # -- expressions -----------------------------------------------------------------------------
    def eval(self, node):
        method = _EVAL.get(type(node))
        if method is None:
            raise self.not_allowed(node, f"this kind of expression ({type(node).__name__}) is "
                                   "not allowed")
        return method(self, node)

    def eval_constant(self, node):
        return node.value

    def lookup(self, node):
        name = node.id
        if name in self.names:
            return self.names[name]
        if name in BUILTIN_NAMES:
            return getattr(self.builtins, name)
        self.node = node
        raise NameError(f"name {name!r} is not defined")

    def eval_attribute(self, node):
        obj = self.eval(node.value)
        return self.get_attr(obj, node.attr, node)

    def get_attr(self, obj, name: str, node):
        policy = self.policy
        private = name.startswith("_") and name != TENSOR_PRIVATE_READABLE
        if private or not policy.attr_allowed(obj, name):
            if isinstance(obj, types.ModuleType):
                where = policy.namespace_path(obj)
                if hasattr(obj, name) or name in ("nn", "optim") or name.startswith("_"):
                    raise self.not_allowed(node, f"{where}.{name} is not available in the "
                                           "playground")
                self.node = node
                raise AttributeError(f"module '{where}' has no attribute '{name}'")
            if not name.startswith("_") and not _has_attr(obj, name):
                self.node = node
                raise AttributeError(f"'{type(obj).__name__}' object has no attribute '{name}'")
            raise self.not_allowed(node, f".{name} of {_kind_name(obj)} is not available in the "
                                   "playground")
        self.node = node
        value = getattr(obj, name)
        if isinstance(obj, nn.Module) \
                and name not in MODULE_METHODS and not policy.member_value_ok(value):
            raise self.not_allowed(node, f".{name} of {_kind_name(obj)} is not available in the "
                                   "playground")
        return value

    def eval_call(self, node):
        func_node = node.func
        self_obj = None
        if isinstance(func_node, ast.Attribute):
            self_obj = self.eval(func_node.value)
            fn = self.get_attr(self_obj, func_node.attr, func_node)
        else:
            fn = self.eval(func_node)
        args = [self.eval(a) for a in node.args]
        kwargs = {k.arg: self.eval(k.value) for k in node.keywords}
        self.node = node
        self.check_callable(fn, node)
        policy = self.policy
        if isinstance(fn, nn.Module):
            guard_module_call(fn, tuple(args), self.limits)
        elif isinstance(fn, type) and fn in policy.layer_classes:
            guard_constructor(tuple(args), kwargs, self.limits)
        else:
            guard_call(fn, tuple(args), kwargs, self.limits,
                       self_obj if isinstance(self_obj, engine.Tensor) else None)
        result = fn(*args, **kwargs)
        self.node = node
        self.check_value(result)
        return result

    def check_callable(self, fn, node) -> None:
        policy = self.policy
        if isinstance(fn, BuiltinFunction):
            return
        if isinstance(fn, type):
            if fn in policy.classes:
                return
        elif id(fn) in policy.callables and not isinstance(fn, types.MethodType):
            return
        elif isinstance(fn, types.MethodType):
            # reachable only through an allowed attribute of an engine object
            if policy.is_engine_object(fn.__self__):
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
        elif t in (list, tuple):
            self.check_nested(value)

    def check_nested(self, value) -> None:
        """Count the items of nested lists/tuples (shared ones each time they appear)."""
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
            for item in v:
                if type(item) in (list, tuple):
                    stack.append((item, d + 1))
                elif type(item) is str and len(item) > self.limits.max_string_chars:
                    self.check_size(item, len(item))

    def eval_unaryop(self, node):
        v = self.eval(node.operand)
        self.node = node
        result = UNARY[type(node.op)](v)
        self.check_value(result)
        return result

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

    def eval_tuple(self, node):
        value = tuple(self.eval(e) for e in node.elts)
        self.check_nested(value)
        return value

    def eval_list(self, node):
        value = [self.eval(e) for e in node.elts]
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
        elif isinstance(obj, (list, tuple, str)):
            if not isinstance(index, (int, slice)) and not (
                    isinstance(index, engine.Tensor) and index.numel() == 1):
                raise TypeError(f"{type(obj).__name__} indices must be integers or slices, not "
                                f"{type(index).__name__}")
        elif isinstance(obj, dict):
            if not isinstance(index, (str, int)):
                raise self.not_allowed(node, "a dict can only be read with a string key")
        elif isinstance(obj, nn.Module):
            if not isinstance(index, (int, slice)) or not hasattr(type(obj), "__getitem__"):
                raise self.not_allowed(node, f"{_kind_name(obj)} cannot be indexed like this")
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

    def eval_name(self, node):
        return self.lookup(node)

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


_EVAL = {
    ast.Constant: _Run.eval_constant, ast.Name: _Run.eval_name,
    ast.Attribute: _Run.eval_attribute, ast.Call: _Run.eval_call, ast.BinOp: _Run.eval_binop,
    ast.UnaryOp: _Run.eval_unaryop, ast.Compare: _Run.eval_compare, ast.Tuple: _Run.eval_tuple,
    ast.List: _Run.eval_list, ast.Slice: _Run.eval_slice, ast.Subscript: _Run.eval_subscript,
}
_STMT_KIND = {ast.Import: "import", ast.ImportFrom: "import", ast.Assign: "assign",
              ast.AugAssign: "augassign", ast.Expr: "expr", ast.Pass: "pass"}


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
    if isinstance(obj, (types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
        return f"the function {getattr(obj, '__name__', '?')}"
    if isinstance(obj, type):
        return f"the class {obj.__name__}"
    return f"a {type(obj).__name__} object"


def _message(e: BaseException) -> str:
    if isinstance(e, KeyError) and len(e.args) == 1:
        return repr(e.args[0])
    return str(e)
