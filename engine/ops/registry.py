"""The op registry: the one place that says which public names each op has.

Every public op function is decorated with `export(...)`, next to its Function class (forward,
backward and grad_fn name, see autograd/function.py). The decorator records
- FUNCTIONS: torch-level names (`torch.add`), which engine/__init__.py puts in its namespace;
- METHODS: Tensor method names (`Tensor.add`) and properties (`Tensor.T`);
- OPERATORS: Python operator slots (`__add__`, `__radd__`), bound to the same function object
  (no wrapper: operators are the engine's hottest entry points);
- PALETTE: the playground's op palette (display name, arity, code template, parameters).

`install(Tensor)` binds METHODS and OPERATORS onto the class. It runs once, at the end of
engine/ops/__init__.py, which engine/tensor.py imports on its last line, so any import of the
Tensor class gives the whole class.

Metadata about a grad_fn (its torch name, what the UI explains about it) belongs on the
Function class itself, not here: see `Function.chain_rule` in autograd/function.py.
"""

from __future__ import annotations

FUNCTIONS: dict = {}
METHODS: dict = {}
OPERATORS: dict = {}
PALETTE: list = []


def export(name=None, *, method=True, function=True, operators=(), as_property=False,
           palette=None):
    """Register a public op function under `name` (default: the function's own name).

    method: also a Tensor method of that name (a string: under that name instead).
    function: also a torch-level function.
    operators: Python operator names (`"__add__"`) bound to this same function.
    as_property: the method is a read-only property (`Tensor.T`).
    palette: dict for the UI with `code` (a template over input names {0}, {1}, ... and
    parameters {dim} ...), `arity`, `group`, and optional `label` and `params` (name -> default).
    """

    def deco(fn):
        n = name or fn.__name__
        if "<locals>" in fn.__qualname__:
            # made by a factory (pointwise ops): printed, it shows its torch name, not the
            # factory's inner name
            fn.__name__ = fn.__qualname__ = n
        if method:
            METHODS[method if isinstance(method, str) else n] = property(fn) if as_property else fn
        if function:
            FUNCTIONS[n] = fn
        for op in operators:
            OPERATORS[op] = fn
        if palette is not None:
            PALETTE.append({"name": n, "params": {}, **palette})
        return fn

    return deco


def install(cls) -> None:
    """Bind every registered method, property and operator onto `cls` (the Tensor class)."""
    for table in (METHODS, OPERATORS):
        for attr, fn in table.items():
            if attr in cls.__dict__:
                raise RuntimeError(f"Tensor.{attr} is defined in tensor.py and registered as an op")
            setattr(cls, attr, fn)
