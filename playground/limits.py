"""Resource limits for programs from strangers: the values, the run-time budget, and the guards
that refuse an expensive call before the engine allocates anything.

Every limit has its own message (naming the limit and its value) so a person sees which one they
hit. The values are documented in docs/program-language.md; a real lesson stays far below them.
"""

from __future__ import annotations

import collections
import gc
import math
import weakref
from dataclasses import dataclass, replace

from ._engine import engine

_observer = engine.observer

__all__ = ["Limits", "LimitExceeded", "Budget", "LimitObserver", "default_limits", "guard_call"]


@dataclass(frozen=True)
class Limits:
    max_program_chars: int = 20_000  # characters of program text
    max_statements: int = 1_000  # statements written in the program
    max_depth: int = 100  # nesting depth of the syntax tree
    max_executed: int = 100_000  # statements executed (a loop body counts every time)
    max_call_depth: int = 40  # nested calls of the program's own functions (recursion)
    max_loop_iterations: int = 10_000  # the bound of one `for ... in range(N)`
    max_seconds: float = 5.0  # wall time of one run
    max_tensor_elements: int = 1_000_000  # elements of one tensor
    max_total_elements: int = 5_000_000  # elements of all live tensors together
    max_graph_nodes: int = 10_000  # live grad_fn nodes
    max_matmul_work: int = 200_000_000  # multiply-adds of one matrix product
    max_int_bits: int = 1024  # size of a Python integer
    max_string_chars: int = 10_000  # length of one string
    max_sequence_items: int = 100_000  # items of one list/tuple, nested items included
    max_sequence_depth: int = 32  # nesting of lists/tuples
    max_output_chars: int = 200_000  # printed text of one run
    max_warnings: int = 1_000  # warnings recorded (more are counted, not kept)
    max_timeline_events: int = 50_000  # engine events the timeline records (docs/timeline.md)


def default_limits() -> Limits:
    """The limits for the engine's current backend: the pure-Python backend (the browser) is
    about a hundred times slower per element, so its element and work caps are smaller."""
    if engine.backend_name() == "pure":
        # More time, though: the pure backend is the in-browser host, where a run only holds up
        # the learner's own tab, and Pyodide's interpreter takes two to three times the server's
        # time for the same program, so a tutorial's training loop that the server finishes well
        # within its 5 s needs more there (the 2,000-iteration fit takes ~2.5 s of CPU in a page).
        return replace(Limits(), max_tensor_elements=100_000, max_total_elements=1_000_000,
                       max_matmul_work=5_000_000, max_seconds=8.0)
    return Limits()


# A limit was hit: `limit` is the Limits field; the message says what and how much. The engine
# raises the same class where it enforces a run's budget (engine/budget.py).
LimitExceeded = engine.budget.LimitExceeded
_too_many = engine.budget.too_many

# Rows an engine function may turn into one tensor each (unbind, iterating a tensor, torch.Size
# of a tensor): a Python object per row is ~100 times the cost of the row's numbers.
MAX_TENSOR_ROWS = 10_000


def max_tensor_rows(limits: Limits) -> int:
    return min(limits.max_sequence_items, MAX_TENSOR_ROWS)


# -- the run-time budget ----------------------------------------------------------------------

class Budget(engine.budget.Budget):
    """Counts what a run uses: executed statements, wall time, live tensor elements, live graph
    nodes. Live counts are kept with weak references, so freed tensors give their share back.
    The engine checks the same budget (deadline, one tensor's elements, one product's work,
    rows made one by one) where it does the work, while the budget is enforced (`enforce()`).

    deadline: a time.perf_counter() by which the run must stop, when that comes before its own
    `max_seconds` (a host's request started earlier, and keeps time to record and send the run).
    """

    def __init__(self, limits: Limits, deadline: float | None = None):
        super().__init__(limits.max_seconds, limits.max_tensor_elements,
                         limits.max_matmul_work, max_tensor_rows(limits))
        if deadline is not None:
            self.deadline = min(self.deadline, deadline)
        self.limits = limits
        # a full print takes at least 3 characters an element ("0, "): more than this could
        # not be shown or kept (engine/budget.py refuses them before formatting)
        self.max_printed = max(limits.max_output_chars, limits.max_string_chars) // 3
        self.executed = 0
        self.live_elements = 0
        self.live_nodes = 0
        self._refs: dict = {}  # id(weakref) -> weakref; keeps the weakrefs (and callbacks) alive
        self._collect_at_elements = limits.max_total_elements
        self._collect_at_nodes = limits.max_graph_nodes

    def check_time(self) -> None:
        self.tick()

    def reserve(self, seconds: float) -> None:
        """Stop the run `seconds` earlier: time kept for recording and sending what it made."""
        self.deadline -= seconds

    def count_statement(self) -> None:
        self.executed += 1
        if self.executed > self.limits.max_executed:
            raise _too_many("max_executed", "too many statements executed", None,
                            self.limits.max_executed)
        self.check_time()

    def _track(self, obj, field: str, amount: int) -> None:
        setattr(self, field, getattr(self, field) + amount)

        def release(ref, self=self, field=field, amount=amount):
            setattr(self, field, getattr(self, field) - amount)
            self._refs.pop(id(ref), None)

        try:
            ref = weakref.ref(obj, release)
        except TypeError:  # not weak-referenceable: count it forever (conservative)
            return
        self._refs[id(ref)] = ref

    def add_tensor(self, tensor, node) -> None:
        lim = self.limits
        n = tensor.numel()
        if n > lim.max_tensor_elements:
            raise _too_many("max_tensor_elements", "a tensor is too large",
                            n, lim.max_tensor_elements)
        self._track(tensor, "live_elements", n)
        if self.live_elements > self._collect_at_elements:
            # tensors and their grad_fn nodes form reference cycles: collect before refusing
            gc.collect()
            self._collect_at_elements = max(lim.max_total_elements, self.live_elements) * 11 // 10
            if self.live_elements > lim.max_total_elements:
                raise _too_many("max_total_elements", "too many tensor elements alive at once",
                                self.live_elements, lim.max_total_elements)
        if node is not None:
            self._track(node, "live_nodes", 1)
            if self.live_nodes > self._collect_at_nodes:
                gc.collect()
                self._collect_at_nodes = max(lim.max_graph_nodes, self.live_nodes) * 11 // 10
                if self.live_nodes > lim.max_graph_nodes:
                    raise _too_many("max_graph_nodes", "the autograd graph has too many nodes",
                                    self.live_nodes, lim.max_graph_nodes)


class LimitObserver(_observer.Observer):
    """The engine observer a run installs: it enforces the element and node limits as tensors
    are made, and forwards every event to an inner observer (the session's), if any."""

    def __init__(self, budget: Budget, inner=None):
        self.budget = budget
        self.inner = inner

    def tensor_created(self, tensor, node, op, inputs):
        self.budget.add_tensor(tensor, node)
        if self.inner is not None:
            self.inner.tensor_created(tensor, node, op, inputs)


def _forwarder(name):
    def forward(self, *args, **kwargs):
        inner = self.inner
        if inner is not None:
            getattr(inner, name)(*args, **kwargs)

    forward.__name__ = name
    return forward


# every other event goes straight to the inner observer (or nowhere)
for _event in ("backward_begin", "node_begin", "edge", "node_end", "accumulate", "hook",
               "inplace", "grad_assigned", "warning", "backward_end"):
    setattr(LimitObserver, _event, _forwarder(_event))


# -- guards: refuse an expensive call before it runs ---------------------------------------------

def _dims(values) -> list:
    """A size given as ints, a tuple/list/Size of ints, or 0-d integer tensors."""
    if len(values) == 1 and isinstance(values[0], (tuple, list)):
        values = values[0]
    out = []
    for v in values:
        if isinstance(v, engine.Tensor):
            if v.numel() != 1 or v.is_floating_point():
                return []  # let the engine say what is wrong
            v = int(v.item())
        if isinstance(v, bool) or not isinstance(v, int):
            return []
        out.append(v)
    return out


def _check_elements(count, what: str, limits: Limits) -> None:
    if count > limits.max_tensor_elements:
        shown = count if isinstance(count, int) else None
        raise _too_many("max_tensor_elements", f"{what} would make a tensor too large",
                        shown, limits.max_tensor_elements)


def _product(dims) -> int:
    p = 1
    for d in dims:
        p *= max(abs(d), 1) if d < 0 else d
    return p


def _number(v):
    if isinstance(v, engine.Tensor) and v.numel() == 1:
        return v.item()
    return v


def _count_range(start, end, step) -> float:
    start, end, step = _number(start), _number(end), _number(step)
    if not all(isinstance(v, (int, float)) for v in (start, end, step)) or step == 0:
        return 0  # the engine reports the error
    n = (end - start) / step
    if n != n:  # nan
        return 0
    return math.ceil(n) if math.isfinite(n) else math.inf


def _tensors_in(data, limits: Limits) -> int:
    """Elements that torch.tensor(data) would make, counted without recursion."""
    total, stack, seen = 0, [data], 0
    while stack:
        x = stack.pop()
        seen += 1
        if seen > limits.max_sequence_items * 2:
            break
        if isinstance(x, engine.Tensor):
            total += x.numel()
        elif isinstance(x, range):
            total += len(x)
        elif isinstance(x, (list, tuple, collections.deque)):
            stack.extend(x)
        else:
            total += 1
    return total


def _shape(t) -> tuple:
    return engine.backend.shape(t._data)  # a plain tuple: no torch.Size made for a check


def _broadcast_numel(shapes) -> int:
    ndim = max(len(s) for s in shapes)
    n = 1
    for i in range(1, ndim + 1):
        size = 1
        for s in shapes:
            if len(s) >= i and s[-i] != 1:
                size = s[-i]
        n *= size
    return n


def _matmul_cost(a, b) -> tuple:
    """(result elements, multiply-adds) of a @ b, or (0, 0) when the shapes do not fit."""
    sa, sb = _shape(a), _shape(b)
    if not sa or not sb:
        return 0, 0
    if len(sa) == 1 and len(sb) == 1:
        return 1, sa[0]
    m = sa[-2] if len(sa) >= 2 else 1
    k = sa[-1]
    n = sb[-1] if len(sb) >= 2 else 1
    batch = _broadcast_numel([sa[:-2], sb[:-2]]) if (len(sa) > 2 or len(sb) > 2) else 1
    return batch * m * n, batch * m * n * k


def _guard_matmul(a, b, limits: Limits) -> None:
    if not (isinstance(a, engine.Tensor) and isinstance(b, engine.Tensor)):
        return
    out, work = _matmul_cost(a, b)
    _check_elements(out, "this matrix product", limits)
    if work > limits.max_matmul_work:
        raise _too_many("max_matmul_work", "this matrix product needs too many multiply-adds",
                        work, limits.max_matmul_work)


def guard_broadcast(tensors, limits: Limits) -> None:
    """Refuse an elementwise op whose broadcast result would be too large."""
    if len(tensors) < 2:
        return
    shapes = [_shape(t) for t in tensors]
    if shapes.count(shapes[0]) == len(shapes):
        return  # no bigger than a tensor that exists: most ops of a training loop
    _check_elements(_broadcast_numel(shapes), "broadcasting", limits)


def _size_args(args, kwargs, first=0):
    if "size" in kwargs:
        return _dims((kwargs["size"],))
    return _dims(args[first:])


def _guard_table() -> dict:
    """Which engine function needs which guard, keyed by the function object itself (so an
    alias such as `z = torch.zeros` is guarded the same way)."""
    table = {}

    def add(kind, *names, where=engine):
        for name in names:
            fn = getattr(where, name, None)
            if fn is not None:
                table[fn] = kind
    add("size", "zeros", "ones", "empty", "rand", "randn")
    add("randint", "randint")
    add("randperm", "randperm")
    add("normal", "normal")
    add("full", "full")
    add("arange", "arange")
    add("linspace", "linspace", "logspace")
    add("eye", "eye")
    add("data", "tensor", "as_tensor")
    add("legacy", "Tensor", "FloatTensor", "DoubleTensor", "LongTensor")
    add("matmul", "matmul", "mm", "bmm", "mv", "dot")
    add("cat", "cat", "stack", "concat")
    add("split_dataset", "random_split", where=engine.utils.data)
    functional = getattr(getattr(engine, "nn", None), "functional", None)
    if functional is not None:
        add("linear", "linear", where=functional)
    methods = engine.ops.METHODS
    for name in ("expand", "repeat", "tile", "new_zeros", "new_ones", "new_empty", "view",
                 "reshape"):
        if name in methods:
            table[methods[name]] = "method_size"
    for name in ("new_full",):
        if name in methods:
            table[methods[name]] = "method_full"
    return table


_GUARDS: dict | None = None


def guard_call(fn, args: tuple, kwargs: dict, limits: Limits, self_obj=None) -> None:
    """Raise LimitExceeded if calling fn(*args, **kwargs) would allocate or compute too much.

    self_obj is the object of a bound method call (so `x.expand(...)` is checked with x)."""
    global _GUARDS
    if _GUARDS is None:
        _GUARDS = _guard_table()
    func = getattr(fn, "__func__", fn)
    try:
        kind = _GUARDS.get(func)
    except TypeError:  # unhashable callable
        kind = None
    if self_obj is not None and isinstance(self_obj, engine.Tensor):
        args = (self_obj, *args)
    if kind == "legacy":  # torch.Tensor(data) or torch.Tensor(*size)
        kind = "data" if len(args) == 1 and isinstance(
            args[0], (list, tuple, range, collections.deque)) else "size"
    if kind == "size":
        _check_elements(_product(_size_args(args, kwargs)), "this size", limits)
    elif kind == "randint":  # randint([low,] high, size): the size is the last positional
        size = kwargs["size"] if "size" in kwargs else (args[-1] if args else ())
        _check_elements(_product(_dims((size,))), "this size", limits)
    elif kind == "randperm":
        n = _number(kwargs.get("n", args[0] if args else 0))
        if isinstance(n, int):
            _check_elements(n, "this size", limits)
    elif kind == "normal":  # normal(mean, std, size): only the float overload takes a size
        size = kwargs["size"] if "size" in kwargs else (args[2] if len(args) > 2 else None)
        if size is not None:
            _check_elements(_product(_dims((size,))), "this size", limits)
    elif kind == "full":
        _check_elements(_product(_size_args(args[:1], kwargs)), "this size", limits)
    elif kind == "arange":
        a = list(args) + [None] * 3
        start, end, step = a[0], a[1], a[2]
        start = kwargs.get("start", start)
        end = kwargs.get("end", end)
        step = kwargs.get("step", 1 if step is None else step)
        if end is None:
            start, end = 0, start
        if start is not None:
            _check_elements(_count_range(start, end, step), "this range", limits)
    elif kind == "linspace":
        steps = kwargs.get("steps", args[2] if len(args) > 2 else 0)
        steps = _number(steps)
        if isinstance(steps, int):
            _check_elements(steps, "these steps", limits)
    elif kind == "eye":
        n = _number(kwargs.get("n", args[0] if args else 0))
        m = _number(kwargs.get("m", args[1] if len(args) > 1 else n))
        if isinstance(n, int) and isinstance(m, (int, type(None))):
            _check_elements(abs(n) * abs(m if m is not None else n), "this size", limits)
    elif kind == "data":
        data = kwargs.get("data", args[0] if args else None)
        _check_elements(_tensors_in(data, limits), "this data", limits)
    elif kind == "matmul":
        tensors = [a for a in args if isinstance(a, engine.Tensor)]
        if len(tensors) >= 2:
            _guard_matmul(tensors[0], tensors[1], limits)
    elif kind == "linear":
        if len(args) >= 2 and isinstance(args[0], engine.Tensor) and \
                isinstance(args[1], engine.Tensor) and args[1].dim() == 2:
            out_f, in_f = args[1].shape
            _check_linear(args[0], in_f, out_f, limits)
    elif kind == "cat":
        seq = kwargs.get("tensors", args[0] if args else ())
        if isinstance(seq, (list, tuple)):
            total = sum(t.numel() for t in seq if isinstance(t, engine.Tensor))
            _check_elements(total, "joining these tensors", limits)
    elif kind == "split_dataset":  # one randperm over the whole dataset
        lengths = kwargs.get("lengths", args[1] if len(args) > 1 else ())
        if isinstance(lengths, (list, tuple)) and all(isinstance(v, int) for v in lengths):
            _check_elements(sum(lengths), "this split", limits)
    elif kind == "method_size" and args and isinstance(args[0], engine.Tensor):
        dims = _size_args(args, kwargs, first=1)
        # expand's -1 keeps a size; repeat/tile multiply the tensor's own elements
        if func.__name__ in ("repeat", "tile"):
            _check_elements(_product(dims) * args[0].numel(), "this repeat", limits)
        else:
            _check_elements(_product(dims), "this size", limits)
    elif kind == "method_full" and args and isinstance(args[0], engine.Tensor):
        _check_elements(_product(_size_args(args[1:2], kwargs)), "this size", limits)
    elif kind is None:
        tensors = [a for a in args if isinstance(a, engine.Tensor)]
        tensors += [v for v in kwargs.values() if isinstance(v, engine.Tensor)]
        if len(tensors) >= 2 and getattr(func, "__module__", "").startswith(engine.__name__ + "."):
            guard_broadcast(tensors, limits)


def guard_loader(loader, limits: Limits) -> None:
    """A pass over a DataLoader: a shuffle is a permutation of the whole dataset."""
    _check_elements(len(loader.dataset), "shuffling this dataset", limits)


def guard_module_call(module, args: tuple, limits: Limits) -> None:
    """A layer with in_features/out_features (nn.Linear and the like): check its product."""
    fin, fout = getattr(module, "in_features", None), getattr(module, "out_features", None)
    if not (isinstance(fin, int) and isinstance(fout, int) and fin > 0):
        return
    if args and isinstance(args[0], engine.Tensor):
        _check_linear(args[0], fin, fout, limits)


def _check_linear(x, fin: int, fout: int, limits: Limits) -> None:
    n = x.numel()
    _check_elements(n // max(fin, 1) * fout, "this layer's output", limits)
    work = n * fout
    if work > limits.max_matmul_work:
        raise _too_many("max_matmul_work", "this layer needs too many multiply-adds",
                        work, limits.max_matmul_work)


def guard_constructor(args: tuple, kwargs: dict, limits: Limits) -> None:
    """nn layers allocate their parameters when built: the product of their integer arguments
    (nn.Linear(in, out): in * out) bounds what they make, so it must fit one tensor."""
    total = 1
    stack = list(args) + list(kwargs.values())
    while stack:
        v = stack.pop()
        if isinstance(v, bool):
            continue
        if isinstance(v, int):
            total *= max(abs(v), 1)
        elif isinstance(v, (tuple, list)) and len(v) <= 16:
            stack.extend(v)
        if total > limits.max_tensor_elements:
            break
    _check_elements(total, "this layer", limits)


def guard_indexing(tensor, index, limits: Limits) -> None:
    """Advanced indexing with a long list of indices copies a row per index."""
    items = index if isinstance(index, tuple) else (index,)
    rows = 0
    for ix in items:
        if isinstance(ix, engine.Tensor) and ix.dtype is engine.bool:
            rows = max(rows, 1)  # a mask never makes more than the tensor holds
        elif isinstance(ix, engine.Tensor):
            rows = max(rows, ix.numel())
        elif isinstance(ix, list):
            rows = max(rows, _tensors_in(ix, limits))
    if rows > 1 and tensor.dim() > 0:
        per_row = tensor.numel() // max(tensor.shape[0], 1)
        _check_elements(rows * max(per_row, 1), "this indexing", limits)
