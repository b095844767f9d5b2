"""Expressions: how a run evaluates the program's expressions, with every attribute read, call,
operator and index checked against the allowlist for the kind of object it applies to.

A mixin of the run (interpret.py's _Run): the methods use the run's state (scopes, budget,
policy) and its statements (statements.py, for calls of the program's own functions) through self.
"""

from __future__ import annotations

import ast
import collections
import itertools
import math
import operator
import random as _random
import types

from .._engine import engine
from ..limits import (
    LimitExceeded,
    Limits,
    guard_broadcast,
    guard_call,
    guard_constructor,
    guard_indexing,
    guard_module_call,
)
from .builtin_functions import BuiltinFunction, TypeName, is_number
from .formatting import format_value, percent_format
from .functions import (
    Frame,
    UserFunction,
    defines,
    is_user_class,
    user_class_defines,
)
from .generators import GENERATOR_METHODS, LAZY_ITERATORS, ProgramGenerator
from .operators import BINOPS, COMPARE, PLAIN, UNARY, number_op
from .policy import (
    CONTAINER_TYPES,
    EXCEPTION_ATTRS,
    EXCEPTIONS,
    GROWING_METHODS,
    MODULE_METHODS,
    NODE_SAVED_PREFIX,
    PYTHON_METHODS,
    RANDOM_NAMES,
    TENSOR_PRIVATE_READABLE,
    UserFunctionBase,
)
from .torch_api_names import TORCH_API_NAMES

nn = engine.nn
Node = engine.autograd.graph.Node
_APPLY = UserFunctionBase.apply.__func__  # torch.autograd.Function.apply
OnceDifferentiable = engine.autograd.custom_function.OnceDifferentiable

_MATH_ARG_CAPS = {id(math.factorial): 1000, id(math.comb): 10_000, id(math.perm): 10_000}
_MATH_OF_ITERABLES = {id(math.fsum), id(math.prod)}
# methods of Python's containers that run over an iterable argument in C (its items are taken
# in full first, bounded, so a range of 10**9 numbers stops at the item limit, not minutes later)
_ITERABLE_ARGUMENT_METHODS = frozenset((
    "extend", "extendleft", "update", "subtract", "union", "intersection", "difference",
    "symmetric_difference", "issubset", "issuperset", "isdisjoint"))
_SIZED = (list, tuple, dict, set, frozenset, str, collections.deque)
# the collections whose constructor runs over an iterable in C: which arguments may be one
_COLLECTION_ITERABLE_ARGS = {collections.Counter: slice(0, 1), collections.deque: slice(0, 1),
                             collections.defaultdict: slice(1, 2)}


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


class Expressions:
    """The expression half of a run: evaluation, attribute reads, calls, operators, indexing,
    containers, f-strings, lambdas and comprehensions."""

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
        if name == "__class__":
            return self.builtins.type_of(obj)
        if name == "__name__":
            return self.name_of(obj)
        if name == "__version__" and obj is engine:
            return engine.__version__
        if name.startswith("__"):
            raise self.not_allowed(node, f"attributes starting with '__' are not allowed "
                                   f"(.{name})")
        if isinstance(obj, property) and name in ("setter", "getter", "deleter"):
            # @value.setter in a class body: a property with the program's own function
            return BuiltinFunction(name, lambda fn: getattr(obj, name)(
                self.builtins.program_function(fn)))
        if isinstance(obj, LAZY_ITERATORS):  # no frame, code or gi_* fields
            if isinstance(obj, ProgramGenerator) and name in GENERATOR_METHODS:
                return BuiltinFunction(name, getattr(obj, name))
            raise self.not_allowed(node, f".{name} of a generator is not available in the "
                                   "playground (iterate it, call next(), send(), throw() or "
                                   "close())")
        owner = obj if isinstance(obj, type) else type(obj)
        if is_user_class(owner):
            if self.user_attr_allowed(obj, owner, name):
                return getattr(obj, name)
            if name == "apply" and isinstance(obj, type) and issubclass(obj, UserFunctionBase):
                return obj.apply  # a bound classmethod of the engine's Function
            if isinstance(obj, type) or not self.policy.is_engine_object(obj):
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
            # an object of a class deriving from the engine's (a Module, an optimizer, a
            # Dataset): the engine's rules for that kind of object below
        if isinstance(obj, BaseException):
            if name in EXCEPTION_ATTRS:
                return getattr(obj, name)
            raise self.not_allowed(node, f".{name} of an exception is not available in the "
                                   "playground")
        private = name.startswith("_") and not (
            (name == TENSOR_PRIVATE_READABLE and isinstance(obj, engine.Tensor))
            or (name.startswith(NODE_SAVED_PREFIX) and isinstance(obj, Node)))
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
        if isinstance(obj, types.ModuleType) and not private:
            # a namespace inside a namespace (torch.autograd.function) is the one the policy
            # names, which need not be the engine module of that name
            sub = policy.modules.get(f"{policy.namespace_path(obj)}.{name}")
            if sub is not None:
                return sub
        if private or not policy.attr_allowed(obj, name):
            if isinstance(obj, types.ModuleType):
                where = policy.namespace_path(obj)
                # a name the engine or torch has (torch.save, nn.LSTM): not here, said so;
                # a name neither has: Python's AttributeError, as torch would raise it
                if (hasattr(obj, name) or name in ("nn", "optim") or name.startswith("_")
                        or name in TORCH_API_NAMES.get(where, ())):
                    raise self.not_allowed(node, f"{where}.{name} is not available in the "
                                           "playground")
                raise AttributeError(f"module '{where}' has no attribute '{name}'")
            if not name.startswith("_") and not _has_attr(obj, name):
                raise _no_attribute(obj, name)
            raise self.not_allowed(node, f".{name} of {_kind_name(obj)} is not available in the "
                                   "playground")
        value = getattr(obj, name)
        if isinstance(obj, nn.Module) and name not in MODULE_METHODS \
                and not policy.member_value_ok(value) and not self.is_program_value(value):
            raise self.not_allowed(node, f".{name} of {_kind_name(obj)} is not available in the "
                                   "playground")
        return value

    def name_of(self, obj) -> str:
        """obj.__name__, which Python's classes and functions have (and nothing else)."""
        if isinstance(obj, (TypeName, BuiltinFunction, UserFunction)):
            return obj.name
        if isinstance(obj, types.ModuleType):
            return self.policy.namespace_path(obj)
        if isinstance(obj, type) or (callable(obj) and hasattr(obj, "__name__")):
            return obj.__name__
        raise _no_attribute(obj, "__name__")

    def user_attr_allowed(self, obj, owner, name: str) -> bool:
        """Names of the program's own objects: what its classes define and what it stored."""
        if user_class_defines(owner, name):
            return True
        if isinstance(obj, type):
            return False
        if isinstance(obj, nn.Module):
            return False  # attributes and registered members: the Module rules
        d = getattr(obj, "__dict__", None)
        if name.startswith("_") and self.policy.is_engine_object(obj):
            return False  # the engine's own state on an optimizer (the program cannot set any)
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
        value = self.call(fn, args, kwargs, node, self_obj)
        del fn, args, kwargs, self_obj  # a generator the call let go of (next(gen())) goes
        if self.dropped:
            self.close_dropped()
        return value

    def call(self, fn, args: list, kwargs: dict, node, self_obj=None):
        self.check_callable(fn, node)
        policy = self.policy
        if isinstance(fn, (UserFunction, BuiltinFunction)) or (
                isinstance(fn, types.MethodType) and isinstance(fn.__func__, UserFunction)) or (
                defines(fn, "__call__")):
            result = fn(*args, **kwargs)
        else:
            # a function the engine will call back (a hook, Module.apply) must be one the
            # program may call itself
            for a in list(args) + list(kwargs.values()):
                if callable(a) and not isinstance(a, (engine.Tensor, nn.Module)):
                    self.check_callable(a, node)
            if isinstance(fn, nn.Module):
                guard_module_call(fn, tuple(args), self.limits)
                named = [(f"input{i}" if i else "input", a) for i, a in enumerate(args)]
                result = self.scoped_call("module", type(fn).__name__,
                                          named + list(kwargs.items()),
                                          lambda: fn(*args, **kwargs))
                self.node = node
                self.check_value(result)
                return result
            elif isinstance(fn, type) and fn in policy.layer_classes:
                guard_constructor(tuple(args), kwargs, self.limits)
            elif isinstance(fn, type) and fn in _COLLECTION_ITERABLE_ARGS:
                part = _COLLECTION_ITERABLE_ARGS[fn]
                args[part] = [a if isinstance(a, _SIZED) else self.iterate(a, node)
                              for a in args[part]]
            elif isinstance(fn, (types.BuiltinMethodType, types.MethodType)) and \
                    _is_python_value(fn.__self__):
                self.guard_method(fn, args, kwargs)
            elif id(fn) in _MATH_OF_ITERABLES:
                # math.fsum/prod run over their iterable in C: taken in full here (bounded),
                # and prod multiplies step by step, each product checked as `*` is
                items = self.iterate(args[0], node) if args else []
                if fn is math.fsum:
                    result = math.fsum(items)
                else:
                    result = kwargs.get("start", 1)
                    for item in items:
                        result = self.binop(operator.mul, result, item, node)
                self.node = node
                self.check_value(result)
                return result
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
        elif name in _ITERABLE_ARGUMENT_METHODS and args:
            for i, arg in enumerate(args):
                if not isinstance(arg, _SIZED):
                    args[i] = self.iterate(arg, self.node)
            if name in ("extend", "extendleft", "update", "union"):
                self.check_size(receiver, len(receiver) + sum(len(a) for a in args))

    def check_callable(self, fn, node) -> None:
        policy = self.policy
        if isinstance(fn, (BuiltinFunction, UserFunction)) or defines(fn, "__call__"):
            return
        if isinstance(fn, OnceDifferentiable) and isinstance(fn.wrapped, UserFunction):
            return
        if isinstance(fn, engine.func.Transformed):  # torch.func.grad(f), vmap(f): f runs
            inner = fn.__wrapped__
            if not (isinstance(inner, types.FunctionType) and inner.__module__ == "engine.func"):
                self.check_callable(inner, node)
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
            if _is_python_value(fn.__self__) and fn.__name__ in _python_methods(fn.__self__):
                return  # a Counter's methods (written in Python)
            if fn.__func__ is _APPLY and is_user_class(fn.__self__):
                return  # MyFn.apply of the program's own Function
            if policy.is_engine_object(fn.__self__):
                return
        elif isinstance(fn, types.BuiltinMethodType) and _is_python_value(fn.__self__):
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
        """str/list/tuple/deque + and * grow values: check the size before computing it."""
        seqs = (str, list, tuple, collections.deque)
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
        elif issubclass(t, CONTAINER_TYPES):
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
                if isinstance(item, CONTAINER_TYPES):
                    stack.append((item, d + 1))
                elif type(item) is str and len(item) > self.limits.max_string_chars:
                    self.check_size(item, len(item))

    def check_text(self, value) -> None:
        """Before str() or repr() of a container: Python builds its text in C, past any check
        made when the text is whole (a list of 100,000 references to one 10,000-character
        string is a gigabyte of text), so its strings are counted first."""
        if not isinstance(value, CONTAINER_TYPES):
            return
        self.check_nested(value)  # bounds the walk below
        cap = max(self.limits.max_output_chars, self.limits.max_string_chars)
        total = 0
        stack = [value]
        while stack:
            v = stack.pop()
            for item in (itertools.chain.from_iterable(v.items()) if isinstance(v, dict) else v):
                total += 2  # a separator at least
                if isinstance(item, CONTAINER_TYPES):
                    stack.append(item)
                elif type(item) is str:
                    total += len(item)
            if total > cap:
                raise LimitExceeded("max_output_chars", f"this text would be more than "
                                    f"{cap:,} characters long (the limit is {cap:,})")

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
            if type(right) is range and type(op) in (ast.In, ast.NotIn):
                result = self.in_range(left, right) == (type(op) is ast.In)
            else:
                result = fn(left, right)
            if len(node.ops) > 1 and not result:  # a chain stops at the first false link
                return result
            left = right
        return result

    def in_range(self, item, r: range) -> bool:
        """`item in r`. Python answers at once for an int; for anything else it compares item
        with each number of the range in turn, which for range(10**9) takes minutes: a float
        equals a number exactly when it is a whole number equal to it, and anything else is
        compared with the numbers taken in full (bounded)."""
        if type(item) in (int, bool):
            return item in r
        if type(item) is float:
            return item.is_integer() and int(item) in r
        return item in self.iterate(r, self.node)

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
        elif isinstance(obj, (dict, collections.deque)):
            pass  # a dict's keys are any value; a deque raises Python's error for a bad index
        elif isinstance(obj, nn.Module):
            if isinstance(obj, nn.ModuleDict) and isinstance(index, str):
                pass  # a ModuleDict is indexed by name
            elif not isinstance(index, (int, slice)) or not hasattr(type(obj), "__getitem__"):
                raise self.not_allowed(node, f"{_kind_name(obj)} cannot be indexed like this")
        elif isinstance(obj, engine.Size):
            pass
        elif isinstance(obj, engine.utils.data.Dataset) or (
                is_user_class(type(obj)) and user_class_defines(type(obj), "__getitem__")):
            pass  # a dataset, or the program's own class: its __getitem__ runs interpreted
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
        self.check_text(value)
        return format_value(value, spec, node.conversion, self.limits.max_string_chars)

    def eval_lambda(self, node):
        return self.make_function(node, "<lambda>")

    def eval_namedexpr(self, node):
        """name := value: bound where an assignment would be, except that inside a
        comprehension it binds in the scope around the comprehension (Python's rule)."""
        value = self.eval(node.value)
        frame = self.frame
        target = frame
        while target.kind == "comprehension":
            target = target.parent
        self.frame = target
        try:
            self.bind(node.target.id, value)
        finally:
            self.frame = frame
        return value

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



_PY_TYPES = (str, list, tuple, dict, set, int, float, collections.deque)


def _is_python_value(obj) -> bool:
    """One of Python's own values (an OrderedDict, such as a state_dict, a defaultdict and a
    Counter are dicts)."""
    return type(obj) in _PY_TYPES or isinstance(obj, dict)


def _python_methods(obj):
    """The allowlist of methods for one of Python's own values, or None for other objects."""
    t = type(obj)
    if t is bool:  # an int: True.real is 1
        return PYTHON_METHODS[int]
    if t in PYTHON_METHODS:  # exactly these types: torch.Size is a tuple with its own rules
        return PYTHON_METHODS[t]
    if isinstance(obj, dict):  # OrderedDict, defaultdict
        return PYTHON_METHODS[dict]
    return None

_EVAL = {
    ast.Constant: Expressions.eval_constant, ast.Name: Expressions.eval_name,
    ast.Attribute: Expressions.eval_attribute, ast.Call: Expressions.eval_call, ast.BinOp: Expressions.eval_binop,
    ast.UnaryOp: Expressions.eval_unaryop, ast.Compare: Expressions.eval_compare, ast.Tuple: Expressions.eval_tuple,
    ast.List: Expressions.eval_list, ast.Slice: Expressions.eval_slice, ast.Subscript: Expressions.eval_subscript,
    ast.BoolOp: Expressions.eval_boolop, ast.IfExp: Expressions.eval_ifexp, ast.Set: Expressions.eval_set,
    ast.Dict: Expressions.eval_dict, ast.JoinedStr: Expressions.eval_joinedstr,
    ast.FormattedValue: Expressions.eval_formatted, ast.Lambda: Expressions.eval_lambda,
    ast.NamedExpr: Expressions.eval_namedexpr,
    ast.ListComp: Expressions.eval_comprehension, ast.SetComp: Expressions.eval_comprehension,
    ast.DictComp: Expressions.eval_comprehension, ast.GeneratorExp: Expressions.eval_comprehension,
}
def _has_attr(obj, name: str) -> bool:
    try:
        return hasattr(obj, name)
    except Exception:  # a property that raises
        return True


def _no_attribute(obj, name: str) -> AttributeError:
    """Python's AttributeError for obj, naming the class Python would (the playground's own
    stand-ins for builtins, functions and classes keep their names to themselves)."""
    if isinstance(obj, TypeName) or (isinstance(obj, BuiltinFunction) and obj.type is not None):
        return AttributeError(f"type object '{obj.name}' has no attribute '{name}'")
    if isinstance(obj, BuiltinFunction):
        kind = "builtin_function_or_method"
    elif isinstance(obj, UserFunction):
        kind = "function"
    else:
        kind = type(obj).__name__
    return AttributeError(f"'{kind}' object has no attribute '{name}'")


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
