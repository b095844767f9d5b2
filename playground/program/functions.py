"""The program's own functions, classes and scopes: what `def`, `lambda` and `class` make, and
Python's rules for which scope a name lives in (local, enclosing, global, builtin).

A UserFunction is a plain callable, so the engine can call it like any Python function (hooks,
Module.apply, sorted's key): calling it interprets its body in the run that defined it. Its own
attributes are never readable by the program (the policy allows none on it)."""

from __future__ import annotations

import ast
import types
import weakref

# a class body may define these dunder methods and no other: Python calls them, the program
# never reads them (docs/program-language.md, threat model)
ALLOWED_DUNDER_DEFS = frozenset(("__init__", "__len__", "__getitem__", "__enter__", "__exit__",
                                 "__call__", "__repr__", "__str__", "__iter__", "__next__"))


class Frame:
    """One scope: the module, a function call, a class body or a comprehension.

    parent: the scope a function was defined in (closures read through it); a class body is
    never a parent (methods do not see class attributes as names, as in Python)."""

    __slots__ = ("vars", "parent", "local_names", "global_names", "nonlocal_names", "kind",
                 "function", "args")

    def __init__(self, kind: str, parent=None, local_names=frozenset(), function=None,
                 global_names=frozenset(), nonlocal_names=frozenset()):
        self.vars: dict = {}
        self.kind = kind  # "module" | "function" | "class" | "comprehension"
        self.parent = parent
        self.local_names = local_names
        self.global_names = global_names
        self.nonlocal_names = nonlocal_names
        self.function = function  # the UserFunction being run (for super())
        self.args: tuple = ()


class UserFunction:
    """A function the program defined (def or lambda)."""

    __slots__ = ("run", "node", "name", "qualname", "defaults", "kw_defaults", "closure",
                 "owner", "scope", "wrappers", "__weakref__")

    def __init__(self, run, node, name: str, defaults: list, kw_defaults: dict, closure, scope):
        self.run = run
        self.node = node  # ast.FunctionDef or ast.Lambda
        self.name = name
        self.qualname = name
        self.defaults = defaults
        self.kw_defaults = kw_defaults
        self.closure = closure  # the Frame it was defined in
        self.owner = None  # the class whose body defined it (for super())
        self.scope = scope  # its Scope analysis
        self.wrappers: tuple = ()  # grad-mode decorators: context managers entered per call

    def __call__(self, *args, **kwargs):
        return self.run.call_function(self, args, kwargs)

    @property
    def __name__(self) -> str:  # the engine names a hook by it in its errors, as torch does
        return self.name

    def __get__(self, obj, cls=None):
        # a method: reading it from an instance binds the instance, as Python functions do
        return self if obj is None else types.MethodType(self, obj)

    def __repr__(self) -> str:
        return f"<function {self.qualname} at 0x{id(self):012x}>"


class Scope:
    """What a function body binds: its parameters and the names it assigns (Python's rule: a
    name assigned anywhere in a function is local to it unless declared global/nonlocal)."""

    __slots__ = ("local_names", "global_names", "nonlocal_names", "yield_stmts")

    def __init__(self, node):
        params = _parameters(node.args)
        assigned: set = set()
        global_names: set = set()
        nonlocal_names: set = set()
        body = node.body if isinstance(node.body, list) else [node.body]
        stack = list(body)
        while stack:
            n = stack.pop()
            if isinstance(n, ast.Global):
                global_names.update(n.names)
            elif isinstance(n, ast.Nonlocal):
                nonlocal_names.update(n.names)
            elif isinstance(n, (ast.FunctionDef, ast.ClassDef)):
                assigned.add(n.name)
                # decorators and defaults are evaluated here; bodies are scopes of their own
                stack.extend(n.decorator_list)
                if isinstance(n, ast.FunctionDef):
                    stack.extend(n.args.defaults)
                    stack.extend(d for d in n.args.kw_defaults if d is not None)
                else:
                    stack.extend(n.bases)
                continue
            elif isinstance(n, ast.Lambda):
                stack.extend(n.args.defaults)
                continue
            elif isinstance(n, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                stack.append(n.generators[0].iter)  # the rest is the comprehension's own scope
                # ... except a := inside it, which binds in this scope
                assigned.update(sub.target.id for sub in ast.walk(n)
                                if isinstance(sub, ast.NamedExpr))
                continue
            elif isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                assigned.add(n.id)
            elif isinstance(n, ast.alias):
                assigned.add(n.asname or n.name.split(".")[0])
            elif isinstance(n, ast.ExceptHandler) and n.name:
                assigned.add(n.name)
            elif isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name:
                assigned.add(n.name)  # a match statement's capture patterns bind names
            elif isinstance(n, ast.MatchMapping) and n.rest:
                assigned.add(n.rest)
            stack.extend(ast.iter_child_nodes(n))
        self.global_names = frozenset(global_names)
        self.nonlocal_names = frozenset(nonlocal_names)
        self.local_names = frozenset((assigned | params) - global_names - nonlocal_names)
        # a generator function: the ids of its statements that hold a yield (the yield
        # statements and every compound statement around one); empty for other functions
        self.yield_stmts = frozenset(_yield_statements(body)) if isinstance(node.body, list) \
            else frozenset()


def _yield_statements(stmts) -> set:
    """ids of the statements in stmts (at any depth, not inside a nested def or class) that are
    or contain a `yield` statement (a yield is a statement of its own, validate.py)."""
    found: set = set()

    def visit(stmt) -> bool:
        if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
            return False
        if isinstance(stmt, (ast.Expr, ast.Assign)) and isinstance(stmt.value, (ast.Yield,
                                                                              ast.YieldFrom)):
            found.add(id(stmt))
            return True
        holds = False
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            for child in getattr(stmt, field, ()):
                if isinstance(child, (ast.ExceptHandler, ast.match_case)):
                    holds = any([visit(c) for c in child.body]) or holds
                else:
                    holds = visit(child) or holds
        if holds:
            found.add(id(stmt))
        return holds

    for stmt in stmts:
        visit(stmt)
    return found


def _parameters(args: ast.arguments) -> set:
    names = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    if args.vararg is not None:
        names.add(args.vararg.arg)
    if args.kwarg is not None:
        names.add(args.kwarg.arg)
    return names


def bind_arguments(fn: UserFunction, args: tuple, kwargs: dict) -> dict:
    """Python's argument binding for a UserFunction, with Python's TypeError messages."""
    spec = fn.node.args
    name = fn.name
    positional = [a.arg for a in spec.posonlyargs + spec.args]
    out: dict = {}
    n_pos = len(positional)
    for pname, value in zip(positional, args):
        out[pname] = value
    extra = args[n_pos:]
    if spec.vararg is not None:
        out[spec.vararg.arg] = tuple(extra)
    elif extra:
        given = len(args)
        takes = n_pos
        raise TypeError(f"{name}() takes {takes} positional argument{'s' if takes != 1 else ''}"
                        f" but {given} {'were' if given != 1 else 'was'} given")
    kw_names = [a.arg for a in spec.kwonlyargs]
    rest: dict = {}
    posonly = {a.arg for a in spec.posonlyargs}
    for k, v in kwargs.items():
        if (k in positional and k not in posonly) or k in kw_names:
            if k in out:
                raise TypeError(f"{name}() got multiple values for argument '{k}'")
            out[k] = v
        elif spec.kwarg is not None:
            rest[k] = v
        else:
            raise TypeError(f"{name}() got an unexpected keyword argument '{k}'")
    if spec.kwarg is not None:
        out[spec.kwarg.arg] = rest
    # defaults fill the last positional parameters
    first_default = n_pos - len(fn.defaults)
    missing = []
    for i, pname in enumerate(positional):
        if pname not in out:
            if i >= first_default:
                out[pname] = fn.defaults[i - first_default]
            else:
                missing.append(pname)
    if missing:
        quoted = [f"'{m}'" for m in missing]
        listed = quoted[0] if len(quoted) == 1 else (
            ", ".join(quoted[:-1]) + (", and " if len(quoted) > 2 else " and ") + quoted[-1])
        raise TypeError(f"{name}() missing {len(missing)} required positional argument"
                        f"{'s' if len(missing) != 1 else ''}: {listed}")
    for pname in kw_names:
        if pname not in out:
            if pname in fn.kw_defaults:
                out[pname] = fn.kw_defaults[pname]
            else:
                raise TypeError(f"{name}() missing 1 required keyword-only argument: '{pname}'")
    return out


# every class a program made (weakly held: a class goes when its run's objects go)
USER_CLASSES: weakref.WeakSet = weakref.WeakSet()


def is_user_class(cls) -> bool:
    return isinstance(cls, type) and cls in USER_CLASSES


def user_class_defines(cls, name: str) -> bool:
    """Whether a class the program wrote (or one of its bases the program wrote) defines name."""
    for c in cls.__mro__:
        if is_user_class(c) and name in c.__dict__:
            return True
    return False


def engine_class_defining(bases: tuple, name: str):
    """The first class in bases' method order that is not the program's and defines name (on
    the class), or None."""
    for b in bases:
        for c in b.__mro__:
            if c is not object and not is_user_class(c) and name in c.__dict__:
                return c
    return None


def defines(obj, name: str) -> bool:
    """Whether obj is an object of the program's own class whose classes define name (the
    protocol dunders: __call__, __iter__, __next__)."""
    cls = type(obj)
    return is_user_class(cls) and user_class_defines(cls, name)
