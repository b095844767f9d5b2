"""The backward engine: runs grad_fn nodes in torch's order and delivers gradients.

Order, as in torch's CPU engine: a node becomes ready once every edge into it from the part of
the graph being run has delivered (its dependency count reaches zero); among ready nodes the
most recently created runs first, and AccumulateGrad nodes run as soon as they are ready.
Traversals are iterative over tuples and lists, never sets, so every run is deterministic.
When nothing records, gradients travel as backend arrays (see `array_backward` in function.py).
"""

from __future__ import annotations

import heapq
import itertools

from .. import backend as B
from .. import budget as _budget
from .. import errors
from .. import observer as _observer
from ..ops.formulas import sum_to
from ..ops.inplace import copy_
from ..tensor import _DTYPE_OF, Tensor
from . import grad_mode
from . import zero_grad as _zero_grad
from .graph import AccumulateGrad
from .zero_grad import ZERO


def _discover(root_nodes):
    """Dependency counts: for every node reachable from root_nodes (the keys, in the order
    they were found), the number of edges into it from that part of the graph."""
    deps: dict = {}
    stack = []
    for n in root_nodes:  # an edge from the (virtual) graph root
        if n in deps:
            deps[n] += 1
        else:
            deps[n] = 1
            stack.append(n)
    while stack:  # each node is pushed once, when first found, so its edges count once
        for nxt, _ in stack.pop().next_functions:
            if nxt is not None:
                c = deps.get(nxt)
                if c is None:
                    deps[nxt] = 1
                    stack.append(nxt)
                else:
                    deps[nxt] = c + 1
    return deps


def _needed(order, targets):
    """Nodes from which some target is reachable (only these run when targets are given)."""
    needed = set(targets)
    changed = True
    # iterate to a fixed point (graphs here are small and shallow in this respect: typically
    # one or two passes over `order`, which is roughly the discovery order).
    while changed:
        changed = False
        for node in reversed(order):
            if node in needed:
                continue
            for nxt, _ in node.next_functions:
                if nxt is not None and nxt in needed:
                    needed.add(node)
                    changed = True
                    break
    return needed


def _expected_meta(node):
    if type(node) is AccumulateGrad:
        var = node.variable
        return B.shape(var._data), var._dtype
    return node.out_shape, node.out_dtype


def _validate(node, index, grad, shape, dtype):
    """torch's validate_outputs: sum a broadcast gradient back and cast it to the input's dtype.
    grad is a Tensor, or a backend array on the array path."""
    is_tensor = isinstance(grad, Tensor)
    gshape = B.shape(grad._data if is_tensor else grad)
    if gshape != shape:
        if not _expandable(shape, gshape):
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {index} - got "
                f"[{', '.join(map(str, gshape))}] but expected shape compatible with "
                f"[{', '.join(map(str, shape))}]"
            )
        grad = sum_to(grad, shape)
    if is_tensor:
        if grad._dtype is not dtype:
            grad = grad.to(dtype)
    elif B.dtype_name(grad) != dtype.name:
        grad = B.astype(grad, dtype.name)
    return grad


def _expandable(shape, target) -> bool:
    if len(shape) > len(target):
        return False
    for s, t in zip(reversed(shape), reversed(target)):
        if s != 1 and s != t:
            return False
    return True


def _add_grads(a, b, create_graph):
    if a is ZERO or b is ZERO:
        return _zero_grad.add(a, b, create_graph)
    if create_graph:
        return a + b
    if isinstance(a, Tensor):
        return Tensor._make(B.add(a._data, b._data), a._dtype)
    return B.add(a, b)


_ARRAY_MATH: dict = {}


# what a backward run tells its observer after backward_begin
_BACKWARD_EVENTS = ("node_begin", "edge", "node_end", "accumulate", "hook", "backward_end")
_HEARS_BACKWARD: dict = {}  # observer class -> whether it overrides one of them


def _hears_backward(obs) -> bool:
    """Whether obs overrides an event that a backward run sends after backward_begin. A run
    whose observer hears none of them (the playground's observer of loop iterations without
    detail hears only backward_begin) takes the path where nothing records: the same
    gradients, without a Tensor for each step of each formula."""
    cls = type(obs)
    hears = _HEARS_BACKWARD.get(cls)
    if hears is None:
        hears = _HEARS_BACKWARD[cls] = any(
            getattr(cls, e) is not getattr(_observer.Observer, e) for e in _BACKWARD_EVENTS)
    return hears


def _array_math() -> bool:
    """Whether the backend's arrays do + - * / themselves and keep the dtype when the other
    operand has the same dtype or is a Python number, as torch does (numpy >= 2 does, by NEP 50,
    and the pure backend's arrays). Backward formulas can then run on arrays."""
    ok = _ARRAY_MATH.get(B.NAME)
    if ok is None:
        x = B.scalar(1.0, "float32")  # 0-dim, where numpy < 2 promoted to float64
        try:
            ok = B.dtype_name(-x * 0.5 / x + 2 - x) == "float32"
        except TypeError:
            ok = False
        _ARRAY_MATH[B.NAME] = ok
    return ok


def _as_tensor(grad, dtype) -> Tensor:
    """A gradient from the array path as a Tensor. (numpy gives a 0-dim result as a numpy
    scalar, which a Tensor must not hold.)"""
    if type(grad) is not B.ndarray:
        grad = B.array(grad, dtype.name)
    return Tensor._make(grad, dtype)


def _run_tensor_hooks(hooks, grad, obs):
    for fn, tensor in list(hooks):
        _budget.tick()  # a hook is the program's code: it may do anything, any number of times
        out = fn(grad)
        if out is not None:
            check_hook_result(fn, grad, out)
        if obs is not None:
            obs.hook(tensor, grad, out)
        if out is not None:
            grad = out
    return grad


# -- what a hook may return (torch's python_hook.cpp: check_single_result) ----------------------

_TYPE_NAME = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
              "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
              "bool": "Bool"}


def hook_name(hook) -> str:
    name = getattr(hook, "__name__", None)
    return name if isinstance(name, str) else "<unknown>"


def check_hook_result(hook, original, result) -> None:
    """A hook returned `result` (not None) for the gradient `original` (a Tensor or None):
    refuse it as torch does, before it can reach any formula."""
    if original is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    if not isinstance(result, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
    if result._dtype is not original._dtype:
        raise RuntimeError(
            f"hook '{hook_name(hook)}' has changed the type of value (was "
            f"torch.{_TYPE_NAME[original._dtype.name]}Tensor got "
            f"torch.{_TYPE_NAME[result._dtype.name]}Tensor)")
    if B.shape(result._data) != B.shape(original._data):
        raise RuntimeError(f"hook '{hook_name(hook)}' has changed the size of value")


def _run_node_hook(fn, args, originals) -> tuple | None:
    """A grad_fn hook or pre-hook: fn(*args) may return a tuple with one value per original
    gradient, each checked as a tensor hook's result is."""
    _budget.tick()
    out = fn(*args)
    if out is None:
        return None
    if not isinstance(out, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(out).__name__}'")
    if len(out) != len(originals):
        raise RuntimeError(f"hook '{hook_name(fn)}' has returned an incorrect number of values "
                           f"(got {len(out)}, but expected {len(originals)})")
    for original, value in zip(originals, out):
        if value is not None:
            check_hook_result(fn, original, value)
    return out


def _accumulate(var, grad, create_graph, obs):
    before = var._grad
    snapshot = None
    if obs is not None and before is not None:
        snapshot = Tensor._make(B.copy(before._data), before._dtype)
    if before is None:
        # torch stores a copy; under create_graph the copy stays differentiable (CopyBackwards)
        var._grad = _differentiable_copy(grad) if create_graph else Tensor._make(
            B.copy(grad._data), grad._dtype)
    elif create_graph or before._requires_grad:
        var._grad = before + grad
    else:
        # in place, as torch does when grad mode is off: `x.grad` keeps its identity
        B.assign(before._data, B.add(before._data, grad._data))
        before._vc[0] += 1
    if obs is not None:
        obs.accumulate(var, snapshot, grad, var._grad)
    if var._post_accumulate_hooks:
        for hook in list(var._post_accumulate_hooks):
            out = hook(var)
            if out is not None:
                if not isinstance(out, Tensor):
                    raise TypeError(f"expected Variable, but hook returned "
                                    f"'{type(out).__name__}'")
                raise RuntimeError("Tensor post accumulate grad hooks should return None.")


def _differentiable_copy(grad):
    out = Tensor._make(B.zeros(B.shape(grad._data), grad._dtype.name), grad._dtype)
    return copy_(out, grad)


def _retain(tensor, grad, obs, create_graph=False):
    """retain_grad(): a non-leaf's .grad gets a copy of its gradient, then accumulates."""
    before = tensor._grad
    if create_graph:
        tensor._grad = grad.clone() if before is None else before + grad
    elif before is None:
        tensor._grad = Tensor._make(B.copy(grad._data), grad._dtype)
    else:
        tensor._grad = Tensor._make(B.add(before._data, grad._data), before._dtype)
    if obs is not None:
        obs.accumulate(tensor, before, grad, tensor._grad)


def run_backward(
    roots,
    grad_roots,
    *,
    retain_graph: bool,
    create_graph: bool,
    inputs=None,
    accumulate: bool = True,
    api: str = "backward",
):
    """Run backward from roots (Tensors) seeded with grad_roots.

    accumulate=True (Tensor.backward): leaves' .grad accumulate; with `inputs`, only those do.
    accumulate=False (autograd.grad): nothing accumulates; returns the gradient reaching each of
    `inputs` (None where none arrived).
    """
    installed = _observer.state.observer
    # the observer of this run's events after backward_begin: None when it hears none of them
    obs = installed if installed is None or _hears_backward(installed) else None
    root_edges = []  # the node each root's gradient goes to, and through which input_nr
    root_nrs = []
    for i, r in enumerate(roots):
        fn = r.grad_fn
        if fn is not None:
            root_edges.append(fn)
            root_nrs.append(r._output_nr)
        elif r._requires_grad:
            root_edges.append(r._grad_accumulator())
            root_nrs.append(0)
        else:
            raise RuntimeError(errors.no_grad_fn(i))

    # where the gradient for each requested input is picked up
    capture_at = {}
    targets = None
    if inputs is not None:
        targets = []
        for t in inputs:
            node = t.grad_fn
            if node is None:
                node = t._grad_accumulator()
            at = capture_at.setdefault(node, [])
            if not any(u is t for u in at):  # grad(y, [x, x]): x's gradient once, twice handed out
                at.append(t)
            targets.append(node)

    deps = _discover(root_edges)
    if targets is not None:
        order = list(deps)
        needed = _needed(order, targets)
        deps = {}
        for n in root_edges:
            if n in needed:
                deps[n] = deps.get(n, 0) + 1
        for node in order:
            if node in needed:
                for nxt, _ in node.next_functions:
                    if nxt is not None and nxt in needed:
                        deps[nxt] = deps.get(nxt, 0) + 1
    else:
        needed = None

    # The array path (see `array_backward` in function.py) is for runs where nothing records.
    plain = obs is None and not capture_at
    arrays = plain and not create_graph and _array_math() and all(
        g._dtype is _expected_meta(node)[1] for node, g in zip(root_edges, grad_roots))
    task = _GraphTask(create_graph, retain_graph, accumulate, needed, obs, arrays, deps)
    buffers = task.buffers
    for node, nr, g in zip(root_edges, root_nrs, grad_roots):
        if needed is not None and node not in needed:
            continue
        if arrays:
            g = g._data
        if node.out_shape is None:
            task.buffer_output(node, nr, g)
        else:
            prev = buffers.get(node)
            buffers[node] = g if prev is None else _add_grads(prev, g, create_graph)
        deps[node] -= 1
        if deps[node] == 0:
            task.push(node)

    captured: dict = {}
    if installed is not None:
        installed.backward_begin(list(roots), list(grad_roots), inputs, retain_graph,
                                 create_graph, api)
    prev_mode = grad_mode.state.grad_enabled
    grad_mode.state.grad_enabled = create_graph
    # Tensors made inside backward formulas are the engine's arithmetic, not the user's:
    # events come only from here, through `obs`.
    _observer.state.observer = None
    error = None
    ready = task.ready
    heappop = heapq.heappop
    budget = _budget.state.budget
    try:
        while ready:
            if budget is not None:  # a node's backward may be large work without an op
                budget.tick()
            node = heappop(ready)[2]
            grad = buffers.pop(node, None)
            zero = False
            if grad is ZERO:  # sgn's zero gradient (autograd/zero_grad.py)
                zero = True
                grad = _zero_grad.zeros(*_expected_meta(node), arrays)
            elif node.out_shape is None and grad is not None and any(g is ZERO for g in grad):
                grad = [_zero_grad.zeros(node.out_shapes[k], node.out_dtype, arrays)
                        if g is ZERO else g for k, g in enumerate(grad)]
            # The common case takes a short path: no observer, no `inputs`, and a node without
            # hooks only runs its backward and delivers the gradients. The rest is _execute's.
            if (plain and grad is not None and node._pre_hooks is None and node._hooks is None
                    and node._tensor_pre_hooks is None and node._retains_grad_hooks is None):
                if type(node) is not AccumulateGrad:
                    if arrays:
                        grads_in = None
                        if node.array_backward:
                            grads_in = node.backward_arrays(grad, node.out_dtype)
                        if grads_in is None:
                            if node.out_shape is None:  # one gradient per output, or None
                                grads_in = node.backward(
                                    [None if g is None else _as_tensor(g, node.out_dtype)
                                     for g in grad])
                            else:
                                grads_in = node.backward(_as_tensor(grad, node.out_dtype))
                    else:
                        grads_in = node.backward(grad)
                    if zero:
                        grads_in = _zero_grad.passed_on(node, grads_in)
                    if not retain_graph:
                        node._release()
                    task.deliver(node, grads_in)
                    continue
                var = node.variable
                if not var._hooks:
                    if not (zero and var._grad is not None):  # ZERO adds nothing
                        _accumulate(var, _as_tensor(grad, var._dtype) if arrays else grad,
                                    create_graph, None)
                    continue
            if node.out_shape is None:
                if arrays and grad is not None:
                    grad = [None if g is None else _as_tensor(g, node.out_dtype) for g in grad]
                task.execute_multi(node, grad, capture_at, captured)
                continue
            if arrays and grad is not None:
                grad = _as_tensor(grad, _expected_meta(node)[1])
            task.execute(node, grad, capture_at, captured, zero)
    except BaseException as e:  # report to the observer, then let it propagate unchanged
        error = e
        raise
    finally:
        grad_mode.state.grad_enabled = prev_mode
        _observer.state.observer = installed
        if obs is not None:
            obs.backward_end(error)

    if inputs is None:
        return None
    return [captured.get(id(t)) for t in inputs]


class _GraphTask:
    """The state of one backward run (torch's engine calls it a GraphTask): gradients waiting
    at each node (`buffers`), how many edges each node still waits for (`deps`), and the ready
    nodes, most recently created first (`ready`, a heap). With `arrays`, gradients are backend
    arrays instead of Tensors (see `array_backward` in function.py)."""

    __slots__ = ("create_graph", "retain_graph", "accumulate", "needed", "obs", "arrays", "deps",
                 "buffers", "ready", "tiebreak")

    def __init__(self, create_graph, retain_graph, accumulate, needed, obs, arrays, deps):
        self.create_graph = create_graph
        self.retain_graph = retain_graph
        self.accumulate = accumulate
        self.needed = needed
        self.obs = obs
        self.arrays = arrays
        self.deps = deps
        self.buffers = {}
        self.ready = []
        # equal priorities (AccumulateGrad) run in the order they got ready
        self.tiebreak = itertools.count()

    def push(self, node) -> None:
        heapq.heappush(self.ready, (-node._seq, next(self.tiebreak), node))

    def execute(self, node, grad, capture_at, captured, zero=False) -> None:
        """Run one node, with everything the short path in run_backward leaves out: hooks,
        retained gradients, captured inputs (autograd.grad), and observer events. `zero`: grad
        is the zeros of a ZERO that arrived (autograd/zero_grad.py)."""
        create_graph, accumulate, needed, obs = (self.create_graph, self.accumulate, self.needed,
                                                 self.obs)
        is_acc = type(node) is AccumulateGrad
        arrived = grad
        if grad is not None:
            if is_acc:
                var = node.variable
                if var._hooks:
                    grad = _run_tensor_hooks(var._hooks, grad, obs)
            else:
                if node._tensor_pre_hooks:
                    grad = _run_tensor_hooks(node._tensor_pre_hooks, grad, obs)
                retained = node._retains_grad_hooks
                if retained is not None:  # also in autograd.grad, as in torch
                    _retain(retained, grad, obs, create_graph)
            if node._pre_hooks:
                for fn in list(node._pre_hooks):
                    out = _run_node_hook(fn, ((grad,),), (grad,))
                    if out is not None:
                        grad = out[0]
        if node in capture_at:
            for t in capture_at[node]:
                if grad is not None:
                    if accumulate:
                        # a non-leaf input's .grad comes from the retain_grad() that backward()
                        # called on it (autograd/api.py), as in torch
                        if is_acc:
                            _accumulate(t, grad, create_graph, obs)
                    else:
                        prev = captured.get(id(t))
                        captured[id(t)] = grad if prev is None else _add_grads(prev, grad,
                                                                               create_graph)
            if is_acc or needed is not None and not _leads_to_needed(node, needed):
                return
        if obs is not None:
            obs.node_begin(node, grad)
        if is_acc:
            if (grad is not None and accumulate and needed is None
                    and not (zero and grad is arrived and node.variable._grad is not None)):
                _accumulate(node.variable, grad, create_graph, obs)
            if obs is not None:
                obs.node_end(node)
            return

        if grad is None:
            grads_in = (None,) * len(node.next_functions)
        else:
            grads_in = node.backward(grad)
            if zero and grad is arrived:  # no hook replaced the zeros
                grads_in = _zero_grad.passed_on(node, grads_in)
        if node._hooks:  # a hook's tuple replaces the gradients sent on, as in torch
            for fn in list(node._hooks):
                out = _run_node_hook(fn, (tuple(grads_in), (grad,)), tuple(grads_in))
                if out is not None:
                    grads_in = out
        if not self.retain_graph:
            node._release()
        self.deliver(node, grads_in)
        if obs is not None:
            obs.node_end(node)

    def execute_multi(self, node, grads, capture_at, captured) -> None:
        """execute() for a node with several outputs: `grads` has one gradient per output
        (None for an output no gradient reached), or is None when none reached any. Tensor
        hooks then run for every output, with None where it got nothing, as in torch."""
        create_graph, accumulate, needed, obs = (self.create_graph, self.accumulate, self.needed,
                                                 self.obs)
        arrived = grads is not None
        if not arrived:
            grads = [None] * len(node.out_shapes)
        else:
            if node._tensor_pre_hooks:
                for fn, tensor in list(node._tensor_pre_hooks):
                    k = tensor._output_nr
                    _budget.tick()
                    out = fn(grads[k])
                    if out is not None:
                        check_hook_result(fn, grads[k], out)
                    if obs is not None:
                        obs.hook(tensor, grads[k], out)
                    if out is not None:
                        grads[k] = out
            retained = node._retains_grad_hooks
            if retained is not None:
                for k, tensor in enumerate(retained):
                    if tensor is not None and grads[k] is not None:
                        _retain(tensor, grads[k], obs, create_graph)
            if node._pre_hooks:
                for fn in list(node._pre_hooks):
                    out = _run_node_hook(fn, (tuple(grads),), tuple(grads))
                    if out is not None:
                        grads = list(out)
        if node in capture_at:
            for t in capture_at[node]:
                g = grads[t._output_nr]
                if g is None:
                    continue
                if not accumulate:  # backward(inputs=...): retain_grad() delivers it
                    prev = captured.get(id(t))
                    captured[id(t)] = g if prev is None else _add_grads(prev, g, create_graph)
            if needed is not None and not _leads_to_needed(node, needed):
                return
        arrived = arrived and any(g is not None for g in grads)
        if obs is not None:
            obs.node_begin(node, node.joined_grad(grads) if arrived else None)
        if arrived:
            grads_in = node.backward(grads)
        else:
            grads_in = (None,) * len(node.next_functions)
        if node._hooks:
            for fn in list(node._hooks):
                out = _run_node_hook(fn, (tuple(grads_in), tuple(grads)), tuple(grads_in))
                if out is not None:
                    grads_in = out
        if not self.retain_graph:
            node._release()
        self.deliver(node, grads_in)
        if obs is not None:
            obs.node_end(node)

    def buffer_output(self, node, nr, g) -> None:
        """Add g to what arrived for output nr of a node with several outputs."""
        buf = self.buffers.get(node)
        if buf is None:
            buf = self.buffers[node] = [None] * len(node.out_shapes)
        prev = buf[nr]
        buf[nr] = g if prev is None else _add_grads(prev, g, self.create_graph)

    def deliver(self, node, grads_in) -> None:
        """Send each gradient along its edge (validated, and added to what already arrived
        there), and queue the nodes that have now received everything they wait for."""
        needed, obs, arrays, buffers, deps = (self.needed, self.obs, self.arrays, self.buffers,
                                              self.deps)
        ready, tiebreak = self.ready, self.tiebreak
        i = -1
        for (nxt, nr), g in zip(node.next_functions, grads_in):
            i += 1
            if nxt is None or (needed is not None and nxt not in needed):
                continue
            if g is ZERO:
                if type(nxt) is not AccumulateGrad and nxt.out_shape is None:
                    self.buffer_output(nxt, nr, g)
                else:
                    prev = buffers.get(nxt)
                    buffers[nxt] = g if prev is None else _add_grads(prev, g, self.create_graph)
                if obs is not None:
                    g = _zero_grad.zeros(*_expected_meta(nxt) if nxt.out_shape is not None
                                         else (nxt.out_shapes[nr], nxt.out_dtype), False)
            elif g is not None:
                multi = False
                if type(nxt) is AccumulateGrad:
                    var = nxt.variable
                    shape, dtype = B.shape(var._data), var._dtype
                else:
                    shape, dtype = nxt.out_shape, nxt.out_dtype
                    if shape is None:  # a node with several outputs: nr says which
                        multi = True
                        shape = nxt.out_shapes[nr]
                if arrays:
                    if isinstance(g, Tensor):  # from a formula that ran on Tensors
                        g = g._data
                    if g.shape != shape or _DTYPE_OF.get(g.dtype) is not dtype:
                        g = _validate(node, i, g, shape, dtype)
                elif g._dtype is not dtype or g._data.shape != shape:
                    g = _validate(node, i, g, shape, dtype)
                if multi:
                    self.buffer_output(nxt, nr, g)
                else:
                    prev = buffers.get(nxt)
                    buffers[nxt] = g if prev is None else _add_grads(prev, g, self.create_graph)
            if obs is not None:
                obs.edge(node, nxt, i, g)
            n = deps[nxt] - 1
            deps[nxt] = n
            if n == 0:  # as push(), inline: this runs once per node
                heapq.heappush(ready, (-nxt._seq, next(tiebreak), nxt))


def _leads_to_needed(node, needed) -> bool:
    return any(nxt is not None and nxt in needed for nxt, _ in node.next_functions)
