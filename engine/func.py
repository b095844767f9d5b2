"""torch.func: grad, grad_and_value, vjp and vmap, for the simple cases learners write, and
functional_call (a module run with other tensors in place of its parameters and buffers).

grad and vjp run the function once on stand-ins for the differentiated inputs and differentiate
it with autograd.grad, as torch's transforms do, so values, errors and the graphs of the results
are torch's:
- a stand-in is a fresh leaf (the input does not require grad) or a view of the input (it
  does): autograd.grad then differentiates through the stand-in only, so a function that also
  reads the same input through a closure (grad(lambda y: x * y)(x)) gets the partial derivative,
  as torch's levels give, not the total one;
- the results keep a graph (torch's create_graph=True at the outer level) only when it leads to
  a tensor outside the transform that requires grad; the parts of it that lead only to the
  fresh leaves are cut and the view stand-ins spliced out, so `grad(f)(x).grad_fn` and its
  edges are torch's. vjp's vjp_fn puts the cut edges back while it differentiates through the
  stand-ins.

vmap runs the function once per sample and stacks the results. That is torch's answer only
where torch's batched kernel computes each sample as the per-sample call does; vmap watches
the operations the function runs and refuses the others, except matrix products, whose last
bits may then differ (docs/semantics.md lists both).
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

from . import batched_reads as _batched_reads
from . import creation
from . import observer as _observer
from . import sizes as _sizes
from .autograd import grad_mode
from .autograd.api import grad as _autograd_grad
from .autograd.graph import AccumulateGrad, saved_hooks
from .tensor import Tensor

__all__ = ["functional_call", "grad", "grad_and_value", "jacfwd", "jacrev", "jvp", "linearize",
           "vjp", "vmap"]

# -- pytrees: the nests of tuples, lists and dicts torch's transforms accept ----------------------


def _flatten(tree):
    """(leaves, spec): spec is "*" for a leaf, else (kind, keys, child specs)."""
    if isinstance(tree, (tuple, list)):
        leaves, specs = [], []
        for item in tree:
            sub, spec = _flatten(item)
            leaves.extend(sub)
            specs.append(spec)
        return leaves, (type(tree).__name__, None, tuple(specs))
    if type(tree) is dict:
        leaves, specs = [], []
        for value in tree.values():
            sub, spec = _flatten(value)
            leaves.extend(sub)
            specs.append(spec)
        return leaves, ("dict", tuple(tree.keys()), tuple(specs))
    return [tree], "*"


def _unflatten(leaves, spec):
    it = iter(leaves)

    def build(s):
        if s == "*":
            return next(it)
        kind, keys, children = s
        items = [build(c) for c in children]
        if kind == "dict":
            return dict(zip(keys, items))
        return tuple(items) if kind == "tuple" else list(items)

    return build(spec)


def _spec_text(spec) -> str:
    """A spec as torch's treespec_pprint writes it: *, (*, *), [*], {'k': *}."""
    if spec == "*":
        return "*"
    kind, keys, children = spec
    parts = [_spec_text(c) for c in children]
    if kind == "dict":
        return "{" + ", ".join(f"{k!r}: {p}" for k, p in zip(keys, parts)) + "}"
    if kind == "tuple":
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
    return "[" + ", ".join(parts) + "]"


class Transformed:
    """What grad, grad_and_value, vmap and vjp return: a function of the same arguments (torch
    returns a closure made with functools.wraps, so it prints as the function it wraps)."""

    def __init__(self, func, run, qualname=None):
        self.__wrapped__ = func
        self._run = run
        self.__name__ = getattr(func, "__name__", "wrapper")
        self.__qualname__ = qualname or getattr(func, "__qualname__", self.__name__)
        self.__doc__ = getattr(func, "__doc__", None)

    def __call__(self, *args, **kwargs):
        return self._run(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<function {self.__qualname__} at {hex(id(self))}>"


class _Nesting(threading.local):
    """The transforms whose functions are running, innermost last ("vmap" or "grad" for the
    differentiating ones): a nested result may keep a graph, and torch's vmap words its
    refusal of .item() otherwise inside a differentiating transform."""

    def __init__(self):
        self.kinds: list = []


_nesting = _Nesting()


def inside_transform() -> bool:
    """Whether a torch.func transform's function is running (in this thread)."""
    return bool(_nesting.kinds)


# what torch says to requires_grad_() and backward() called inside a transformed function
REQUIRES_GRAD_INSIDE = (
    "You are attempting to call Tensor.requires_grad_() (or perhaps using "
    "torch.autograd.functional.* APIs) inside of a function being transformed by a functorch "
    "transform. This is unsupported, please attempt to use the functorch transforms (e.g. grad, "
    "vjp, jacrev, jacfwd, hessian) or call requires_grad_() outside of a function being "
    "transformed instead.")
BACKWARD_INSIDE = (
    "backward() called inside a functorch transform. This is not supported, please use "
    "functorch.grad or functorch.vjp instead or call backward() outside of functorch transforms.")


def _grad_leaf(t):
    """t as a leaf that requires grad, made by a transform itself (not the requires_grad_() a
    transformed function may not call)."""
    t._set_requires_grad(True, setter=False)
    return t


@contextmanager
def _inside(kind="grad"):
    _nesting.kinds.append(kind)
    try:
        yield
    finally:
        _nesting.kinds.pop()


# -- argnums --------------------------------------------------------------------------------------


def _wrap_argnum(argnum, num_args: int) -> int:
    if not isinstance(argnum, int) or isinstance(argnum, bool):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if 0 <= argnum < num_args:
        return argnum
    if -num_args <= argnum < 0:
        return argnum + num_args
    raise RuntimeError(f"Got argnum={argnum}, but only {num_args} positional inputs")


def _wrap_argnums(argnums, num_args: int):
    if isinstance(argnums, int) and not isinstance(argnums, bool):
        return _wrap_argnum(argnums, num_args)
    if isinstance(argnums, tuple):
        if len(argnums) == 0:
            raise RuntimeError("argnums must be non-empty")
        if len(set(argnums)) != len(argnums):
            raise RuntimeError(f"argnums elements must be unique, got {argnums}")
        return tuple(_wrap_argnum(a, num_args) for a in argnums)
    raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")


# -- stand-ins and what the results keep of their graph ---------------------------------------


class _Level:
    """One transform's stand-ins: the fresh leaves (dead ends for the outer graph) and the views
    of inputs that require grad (spliced out of the results' graphs)."""

    def __init__(self):
        self.fresh: set = set()  # ids of the fresh leaves' AccumulateGrad nodes
        self.views: set = set()  # ids of the stand-in views' grad_fn nodes
        self.originals: dict = {}  # id(stand-in) -> the input it stands for
        # (node, edges, needs, new edges, new needs) for each node finish() changed
        self.changes: list = []

    def stand_in(self, x):
        if not isinstance(x, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
        if x.requires_grad:
            s = x.view_as(x)
            self.views.add(id(s.grad_fn))
        else:
            s = _grad_leaf(x.detach())
            self.fresh.add(id(s._grad_accumulator()))
        self.originals[id(s)] = x
        return s

    def reaches_outside(self, tensors) -> bool:
        """Whether a graph from tensors leads to a leaf outside this transform."""
        seen, stack = set(), [t.grad_fn for t in tensors if t.grad_fn is not None]
        for t in tensors:
            if t.grad_fn is None and t.requires_grad and id(t._grad_accumulator()) not in self.fresh:
                return True
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if type(node) is AccumulateGrad:
                if id(node) not in self.fresh:
                    return True
                continue
            stack.extend(n for n, _ in node.next_functions if n is not None)
        return False

    def finish(self, tensors, keep_graph: bool):
        """The results as the outer level sees them: their graph pruned to what leads outside
        (detached when nothing does), the stand-in views spliced out."""
        if not keep_graph:
            return [self._plain(t) for t in tensors]
        live: dict = {}
        for t in tensors:
            if isinstance(t, Tensor) and t.grad_fn is not None:
                self._prune(t.grad_fn, live)
        out = []
        for t in tensors:
            if not isinstance(t, Tensor):
                out.append(t)
            elif id(t) in self.originals:  # a stand-in handed back: torch returns the input
                x = self.originals[id(t)]
                out.append(x if x.requires_grad else self._plain(x))
            elif t.grad_fn is None:
                fresh = t.requires_grad and id(t._grad_accumulator()) in self.fresh
                out.append(self._plain(t) if fresh else t)
            elif not live[id(t.grad_fn)]:
                out.append(self._plain(t))
            else:
                out.append(t)
        return out

    def _plain(self, t):
        return t.detach() if isinstance(t, Tensor) and t.requires_grad else t

    def _prune(self, root, live: dict) -> None:
        """Mark each node below root live or dead and cut the edges to dead nodes (iterative:
        a long graph must not hit Python's recursion limit)."""
        stack = [(root, False)]
        while stack:
            node, expanded = stack.pop()
            if id(node) in live:
                continue
            if type(node) is AccumulateGrad:
                live[id(node)] = id(node) not in self.fresh
                continue
            if not expanded:
                stack.append((node, True))
                stack.extend((n, False) for n, _ in node.next_functions
                             if n is not None and id(n) not in live)
                continue
            edges = []
            for n, nr in node.next_functions:
                while n is not None and id(n) in self.views:
                    n, nr = n.next_functions[0]  # a view's only edge: the input it stands for
                if n is not None and not live.get(id(n), False):
                    n, nr = None, 0
                edges.append((n, nr))
            edges = tuple(edges)
            if edges != node.next_functions:
                needs = getattr(node, "_needs", None)
                new_needs = needs
                if isinstance(needs, (list, tuple)) and len(needs) == len(edges):
                    new_needs = [need and e[0] is not None for need, e in zip(needs, edges)]
                self.changes.append((node, node.next_functions, needs, edges, new_needs))
                node.next_functions, node._needs = edges, new_needs
            live[id(node)] = any(n is not None for n, _ in edges)

    def undo(self) -> None:
        """Put the edges finish() changed back (vjp_fn differentiates through the stand-ins)."""
        for node, edges, needs, _, _ in reversed(self.changes):
            node.next_functions, node._needs = edges, needs

    def redo(self) -> None:
        for node, _, _, edges, needs in self.changes:
            node.next_functions, node._needs = edges, needs


def _grads(outputs, inputs, grad_outputs, create_graph: bool):
    """torch.func's _autograd_grad: gradients of the outputs that require grad, zeros for an
    input they do not reach."""
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not pairs:
        return [creation.zeros_like(t) for t in inputs]
    found = _autograd_grad([o for o, _ in pairs], list(inputs), [g for _, g in pairs],
                           retain_graph=True, create_graph=create_graph, allow_unused=True)
    return [creation.zeros_like(t) if g is None else g for g, t in zip(found, inputs)]


# -- grad and grad_and_value ----------------------------------------------------------------------


def grad_and_value(func, argnums=0, has_aux=False):
    """A function returning (gradient of func with respect to the argnums inputs, func's
    value); func must return a scalar tensor (and its aux with has_aux=True)."""

    return Transformed(func, lambda *args, **kwargs: _grad_and_value(func, argnums, has_aux,
                                                                      args, kwargs))


def grad(func, argnums=0, has_aux=False):
    """A function returning the gradient of func (a scalar tensor) with respect to the argnums
    inputs (and func's aux with has_aux=True)."""

    def run(*args, **kwargs):
        gradient, value = _grad_and_value(func, argnums, has_aux, args, kwargs)
        return (gradient, value[1]) if has_aux else gradient

    return Transformed(func, run)


HOOKS_ERROR = ("torch.func.{grad, vjp, jacrev, hessian} don't yet support saved tensor hooks. "
               "Please open an issue with your use case.")


def _grad_and_value(func, argnums, has_aux, args, kwargs):
    if saved_hooks.stack:
        raise RuntimeError(HOOKS_ERROR)
    if len(args) == 0:
        raise RuntimeError("grad_and_value(f)(*args): Expected at least one positional arg")
    nums = _wrap_argnums(argnums, len(args))
    outer_grad = grad_mode.is_grad_enabled()
    level = _Level()
    diff = args[nums] if isinstance(nums, int) else tuple(args[n] for n in nums)
    flat, spec = _flatten(diff)
    with grad_mode.enable_grad():
        stand_ins = [level.stand_in(x) for x in flat]
        new_args = list(args)
        tree = _unflatten(stand_ins, spec)
        if isinstance(nums, int):
            new_args[nums] = tree
        else:
            for n, value in zip(nums, tree):
                new_args[n] = value
        with _inside():
            output = func(*new_args, **kwargs)
        aux = None
        if has_aux:
            if not (isinstance(output, tuple) and len(output) == 2):
                raise RuntimeError("grad_and_value(f)(*args): output of function f should be a "
                                   "tuple: (output, aux) if has_aux is True")
            output, aux = output
        if not isinstance(output, Tensor):
            raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a Tensor, "
                               f"got {type(output)}")
        if output.dim() != 0:
            raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a scalar "
                               f"Tensor, got tensor with {output.dim()} dims. Maybe you wanted "
                               "to use the vjp or jacrev APIs instead?")
        keep = outer_grad and level.reaches_outside([output])
        grads = _grads([output], stand_ins, [None], create_graph=keep)
    computed = output  # (under vmap: it holds the sample when anything it came from does)
    aux_leaves, aux_spec = _flatten(aux)
    done = level.finish([*grads, output, *aux_leaves], keep)
    grads, output, aux_leaves = done[:len(grads)], done[len(grads)], done[len(grads) + 1:]
    for g in grads:  # made by a backward, which reports nothing to a running vmap
        _batched_reads.derived(g, computed, *flat)
    gradient = _unflatten(grads, spec)
    if has_aux:
        return gradient, (output, _unflatten(aux_leaves, aux_spec))
    return gradient, output


# -- vjp ------------------------------------------------------------------------------------------


def vjp(func, *primals, has_aux=False):
    """(func(*primals), vjp_fn[, aux]): vjp_fn(cotangents) gives the vector-Jacobian product
    with respect to each primal."""
    if saved_hooks.stack:
        raise RuntimeError(HOOKS_ERROR)
    outer_grad = grad_mode.is_grad_enabled()
    level = _Level()
    flat, spec = _flatten(primals)
    with grad_mode.enable_grad():
        stand_ins = [level.stand_in(x) for x in flat]
        with _inside():
            output = func(*_unflatten(stand_ins, spec))
        aux = None
        if has_aux:
            if not (isinstance(output, tuple) and len(output) == 2):
                raise RuntimeError("vjp(f, *primals): output of function f should be a tuple: "
                                   "(output, aux) if has_aux is True")
            output, aux = output
        out_flat, out_spec = _flatten(output)
        if (len(out_flat) == 1 and out_flat[0] is None) or len(out_flat) < 1:
            raise RuntimeError("vjp(f, *primals): Expected f to be a function that has "
                               f"non-empty output (got output = {out_flat})")
        for o in out_flat:
            if not isinstance(o, Tensor):
                raise RuntimeError("vjp(f, *primals): expected f(*primals) to return only "
                                   f"tensors, got unsupported type {type(o)}")
        for o in out_flat:
            if not o.dtype.is_floating_point:
                raise RuntimeError("vjp(f, ...): All outputs of f must be floating-point or "
                                   f"complex Tensors, got Tensor with dtype {o.dtype}")
    reaches = outer_grad and level.reaches_outside(out_flat)
    shown = level.finish(out_flat, reaches)
    aux_leaves, aux_spec = _flatten(aux)
    aux = _unflatten(level.finish(aux_leaves, reaches), aux_spec)
    forward_changes = list(level.changes)  # what vjp_fn puts back while it differentiates

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        if create_graph is None:
            create_graph = grad_mode.is_grad_enabled()
        cot_flat, cot_spec = _flatten(cotangents)
        if cot_spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as "
                               "pytree structure of outputs to the function. cotangents: "
                               f"{_spec_text(cot_spec)}, primal output: {_spec_text(out_spec)}")
        level.changes = forward_changes
        level.undo()
        try:
            keep = create_graph and level.reaches_outside(out_flat)
            with grad_mode.enable_grad():
                found = _grads(out_flat, stand_ins, cot_flat, create_graph=keep)
        finally:
            level.redo()
        grads = level.finish(found, keep)
        for g in grads:  # made by a backward, which reports nothing to a running vmap
            _batched_reads.derived(g, *out_flat, *flat, *cot_flat)
        return _unflatten(grads, spec)

    result = _unflatten(shown, out_spec)
    back = Transformed(vjp_fn, vjp_fn, "_vjp_with_argnums.<locals>.wrapper")
    return (result, back, aux) if has_aux else (result, back)


# -- vmap -----------------------------------------------------------------------------------------

# What a function under vmap may run: operations whose per-sample result is, bit for bit, what
# torch's batched kernel gives each sample (checked against torch 2.13 in tests/test_func.py).
# Elementwise operations compute every element alone, and shape operations only move values.
# Sums and means qualify only over samples that are whole rows of memory (every batched input
# mapped along its dim 0): torch reduces a batch laid out along another dim in another order.
# Matrix products are the exception, accepted with a documented difference: torch's batching
# rules hand a batch to other kernels (a batch of vector-matrix products becomes one matrix
# product) whose sums may run in another order, so the last bit can differ, as the engine's
# matrix products already can from torch's (docs/semantics.md); refusing them would take away
# vmap's main use, per-sample gradients of a model.
_ELEMENTWISE = frozenset(
    f"{name}Backward{k}" for name in (
        "Add", "Sub", "Mul", "Div", "Neg", "Pow", "Exp", "Exp2", "Expm1", "Log", "Log2", "Log10",
        "Log1P", "Sqrt", "Rsqrt", "Reciprocal", "Abs", "Sign", "Sin", "Cos", "Tan", "Tanh",
        "Sinh", "Cosh", "Asin", "Acos", "Atan", "Atan2", "Sigmoid", "Relu", "Clamp", "ClampMin",
        "ClampMax", "Where", "Maximum", "Minimum", "Floor", "Ceil", "Round", "Trunc", "Frac",
        "Erf", "Square", "LeakyRelu", "Elu", "Gelu", "Silu", "Softplus", "Hardtanh", "Lerp",
        "Hypot", "Remainder", "Fmod", "Xlogy", "Heaviside", "MaskedFill",
    ) for k in range(3)
)
_MOVES = frozenset(f"{name}Backward{k}" for name in (
    "View", "Reshape", "UnsafeView", "Unsqueeze", "Squeeze", "Expand", "Transpose", "T",
    "Permute", "Select", "Slice", "Clone", "Alias", "Flip", "Roll", "Repeat", "Cat", "Stack",
    "Narrow", "Movedim", "Unbind", "Split", "SplitWithSizes", "IndexSelect", "Gather", "Index",
    "ToCopy", "ReshapeAlias",
) for k in range(5)) | frozenset((
    "detach", "tensor", "as_tensor", "zeros", "ones", "full", "zeros_like", "ones_like",
    "full_like", "empty", "empty_like", "arange", "linspace", "eye",
))
_MATRIX = frozenset(("MmBackward0", "MvBackward0", "DotBackward0", "BmmBackward0",
                     "AddmmBackward0", "AddmvBackward0", "BaddbmmBackward0", "AddbmmBackward0"))
_ROW_REDUCTIONS = frozenset(("SumBackward0", "SumBackward1", "MeanBackward0", "MeanBackward1"))
# the largest or smallest element: picked, not computed, so any order gives it (and max()/amax
# share their gradient among ties evenly, with no index to pick)
_PICKS = frozenset(("MaxBackward1", "MinBackward1", "AmaxBackward0", "AminBackward0"))
# masked_select with a mask that holds no sample (masked_select refuses one that does): it
# copies the same places out of every sample, so per sample is what torch's batch gives
_MASK_SELECTION = frozenset(("MaskedSelectBackward0",))
_RANDOM = frozenset((
    "rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like", "normal",
    "bernoulli", "multinomial", "normal_", "uniform_", "bernoulli_", "exponential_", "random_",
    "dropout",
))


class _PassingWatch(_observer.Observer):
    """An observer a transform installs while the function runs: it passes every event on to
    the observer that was installed (`inner`), so the playground still draws them; subclasses
    add their checks to tensor_created and backward_begin and call these."""

    def __init__(self, inner):
        self.inner = inner

    def tensor_created(self, tensor, node, op, inputs):
        if self.inner is not None:
            self.inner.tensor_created(tensor, node, op, inputs)

    def backward_begin(self, *args):
        if self.inner is not None:
            self.inner.backward_begin(*args)


def _pass_on(event):
    def forward(self, *args):
        if self.inner is not None:
            getattr(self.inner, event)(*args)

    forward.__name__ = event
    return forward


for _event in ("node_begin", "edge", "node_end", "accumulate", "hook", "inplace",
               "grad_assigned", "warning", "backward_end"):
    setattr(_PassingWatch, _event, _pass_on(_event))


class _VmapWatch(_PassingWatch):
    """Sees each operation the function runs under vmap (and passes every event on to the
    observer that was installed, so the playground still draws them)."""

    def __init__(self, inner, rows: bool, nesting: int, size: int):
        super().__init__(inner)
        # its place among torch.func's transforms (_nesting.kinds), torch's number for it (1
        # for the outermost transform), the batch size, and the sample its function runs on
        # (batched_reads.warn_unbatched)
        self.nesting = nesting
        self.level = nesting + 1
        self.size = size
        self.sample = 0
        self.allowed = (_ELEMENTWISE | _MOVES | _PICKS | _MATRIX | _MASK_SELECTION
                        | (_ROW_REDUCTIONS if rows else frozenset()))
        self.rows = rows
        # the tensors that hold a sample (torch's batched tensors), and references keeping
        # their ids from being reused while vmap runs
        self.batched: set = set()
        self.kept: list = []
        # the memory the function made while it ran (the ids of version counters, which a
        # tensor shares with its views and detached aliases): it may change these in place
        self.own: set = set()

    def mark(self, tensor):
        self.batched.add(id(tensor))
        self.kept.append(tensor)

    def holds(self, tensor) -> bool:
        return id(tensor) in self.batched

    def made_inside(self, tensor):
        self.own.add(id(tensor._vc))
        self.kept.append(tensor)

    def made(self, tensor) -> bool:
        return id(tensor._vc) in self.own

    def under_grad(self) -> bool:
        """Whether a torch.func.grad runs inside this vmap (torch's tensors are then wrapped
        for the gradient outside their batching, and say some errors otherwise)."""
        return "grad" in _nesting.kinds[self.nesting:]

    def read_error(self, message: str) -> str:
        """The error for a Python read of a tensor this vmap batches (batched_reads)."""
        return _batched_reads.UNDER_GRAD_ERROR if self.under_grad() else message

    def tensor_created(self, tensor, node, op, inputs):
        super().tensor_created(tensor, node, op, inputs)
        if any(id(t) in self.batched for t in inputs):
            self.mark(tensor)
        vc = tensor._vc
        if all(t._vc is not vc for t in inputs):  # new memory, not a view or alias of an input
            self.made_inside(tensor)
        if op in _RANDOM:
            raise RuntimeError(_batched_reads.RANDOM_ERROR)
        if op not in self.allowed:
            where = ("" if self.rows or op not in _ROW_REDUCTIONS
                     else " when a batched input is mapped along a dim other than 0")
            raise RuntimeError(
                f"vmap: gradplay runs the function once per sample, and {op} per sample can "
                f"round differently from torch's batched kernel{where}, so it is not supported "
                "under vmap here; call the function in a loop (or on the whole batch) instead")

    def backward_begin(self, *args):
        if not self.rows:  # the gradients' sums would run over another layout in torch
            raise RuntimeError(
                "vmap: gradplay runs the function once per sample, and a gradient inside it "
                "with a batched input mapped along a dim other than 0 can round differently "
                "from torch's batched kernels, so it is not supported here; map along dim 0")
        super().backward_begin(*args)



def _func_name(func) -> str:
    return getattr(func, "__name__", repr(func))


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """func mapped over a batch dim of its inputs (in_dims) with the results stacked along
    out_dims; see the module docstring for what it supports."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")

    return Transformed(func, lambda *args, **kwargs: _vmap(func, in_dims, out_dims, randomness,
                                                            args, kwargs))


def _vmap(func, in_dims, out_dims, randomness, args, kwargs):
    name = _func_name(func)
    if not args:
        raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add "
                         "inputs, or you are trying to vmap over a function with no inputs. The "
                         "latter is unsupported.")
    if isinstance(in_dims, int) and not isinstance(in_dims, bool) or in_dims is None:
        dims = (in_dims,) * len(args)
    elif isinstance(in_dims, tuple):
        if len(in_dims) != len(args):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not "
                             "compatible with the structure of `inputs`.")
        dims = in_dims
    else:
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` "
                         "to be int or a (potentially nested) tuple matching the structure of "
                         f"inputs, got: {type(in_dims)}.")
    if randomness != "error":
        raise RuntimeError(f"vmap: randomness={randomness!r} is not supported here: torch draws "
                           "one batched tensor of random numbers, which a per-sample run cannot "
                           "reproduce")
    # every input's leaves with their in_dim, moved so the batch dim comes first
    flat_args, arg_spec = _flatten(list(args))
    flat_dims = []
    for a, d in zip(args, dims):
        leaves, _ = _flatten(a)
        flat_dims.extend(d if isinstance(d, (tuple, list)) else [d] * len(leaves))
    sizes, moved, rows = [], [], True
    for a, d in zip(flat_args, flat_dims):
        if d is None:
            moved.append(None)
            continue
        if not isinstance(d, int):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` "
                             "to be int or a (potentially nested) tuple matching the structure "
                             f"of inputs, got: {type(d)}.")
        if not isinstance(a, Tensor):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} "
                             f"for an input but the input is of type {type(a)}. We cannot vmap "
                             "over non-Tensor arguments, please use None as the respective "
                             "in_dim")
        n = a.dim()
        if not -n <= d < n:
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} "
                             f"for some input, but that input is a Tensor of dimensionality {n} "
                             f"so expected in_dim to satisfy -{n} <= in_dim < {n}.")
        d = d % n
        rows = rows and d == 0
        sizes.append(a.shape[d])
        moved.append((a, d))
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if len(set(sizes)) > 1:
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    batch = sizes[0]
    if batch == 0:
        raise RuntimeError("vmap: a batch of size 0 is not supported here: the function runs "
                           "once per sample, and with no sample the result's shape is unknown")
    per_sample = []
    watch = _VmapWatch(_observer.state.observer, rows, len(_nesting.kinds), batch)
    levels = _batched_reads.state.levels
    levels.append(watch)
    try:
        with _observer.observe(watch), _inside("vmap"):
            for i in range(batch):
                watch.sample = i
                leaves = [a if m is None else m[0].select(m[1], i)
                          for a, m in zip(flat_args, moved)]
                for leaf, m in zip(leaves, moved):
                    if m is not None:
                        watch.mark(leaf)
                per_sample.append(func(*_unflatten(leaves, arg_spec), **kwargs))
    finally:
        levels.remove(watch)
    return _stack_outputs(name, per_sample, out_dims)


def _stack_outputs(name, per_sample, out_dims):
    first, spec = _flatten(per_sample[0])
    outs = [_flatten(r)[0] for r in per_sample]
    if isinstance(out_dims, int):
        odims = [out_dims] * len(first)
    else:
        odims = list(_flatten(out_dims)[0])
        if len(odims) != len(first):
            raise ValueError(f"vmap({name}, ...): out_dims is not compatible with the structure "
                             "of `outputs`.")
    stacked = []
    for k, (item, od) in enumerate(zip(first, odims)):
        if not isinstance(item, Tensor):
            raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                             f"{type(item)}. Did you mean to set out_dims= to None for output?")
        column = [o[k] for o in outs]
        if od is None:
            stacked.append(item)
            continue
        if any(c.requires_grad for c in column):
            raise RuntimeError(
                "vmap: the result requires grad, and its grad_fn here would be the stacking of "
                "per-sample results rather than torch's batched operation; detach the inputs "
                "that require grad, or differentiate inside the function with torch.func.grad")
        stacked.append(_stack(column, od))
    return _unflatten(stacked, spec)


def _stack(column, out_dim):
    from . import ops

    return ops.FUNCTIONS["stack"](column, out_dim)


# -- functional_call ------------------------------------------------------------------------------


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """module(*args, **kwargs) with the given tensors in place of the parameters and buffers
    named by the dicts' keys ("0.weight"); the module's own ones are back afterwards."""
    dicts = parameter_and_buffer_dicts
    if isinstance(dicts, dict):
        given = dict(dicts)
    elif isinstance(dicts, (list, tuple)):
        seen: dict = {}
        for d in dicts:
            for key in d:
                seen[key] = seen.get(key, 0) + 1
        repeated = [k for k, n in seen.items() if n > 1]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of "
                             "functional call is ambiguous")
        given = {k: v for d in dicts for k, v in d.items()}
    else:
        raise ValueError(f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of "
                         f"dicts, but got {type(dicts)}")
    own = dict(module.named_parameters(remove_duplicate=False))
    own.update(module.named_buffers(remove_duplicate=False))
    if strict:
        unexpected = sorted(k for k in given if k not in own)
        missing = sorted(k for k in own if k not in given)
        if unexpected or missing:
            lines = [f"Error(s) in reparametrizing for {type(module).__name__}:"]
            if unexpected:
                lines.append("\tUnexpected key(s): " + ", ".join(f"'{k}'" for k in unexpected)
                             + ".")
            if missing:
                lines.append("\tMissing key(s): " + ", ".join(f"'{k}'" for k in missing) + ".")
            raise RuntimeError("\n".join(lines))
    if tie_weights:  # a tensor shared under several names takes the given one under all of them
        by_tensor = {id(own[k]): v for k, v in given.items() if k in own}
        for k, t in own.items():
            if k not in given and id(t) in by_tensor:
                given[k] = by_tensor[id(t)]
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    swapped = []
    try:
        for key, value in given.items():
            owner, _, name = key.rpartition(".")
            sub = module.get_submodule(owner) if owner else module
            for store in (sub._parameters, sub._buffers):
                if name in store:
                    swapped.append((store, name, store[name]))
                    store[name] = value  # in the dict: a plain tensor where a Parameter was
                    break
            else:
                swapped.append((sub.__dict__, name, sub.__dict__.get(name, _ABSENT)))
                sub.__dict__[name] = value
        return module(*args, **(kwargs or {}))
    finally:
        for store, name, old in reversed(swapped):
            if old is _ABSENT:
                del store[name]
            else:
                store[name] = old


_ABSENT = object()


# -- jacrev, jacfwd and jvp ----------------------------------------------------------------------
#
# torch computes jacrev as vmap over vjp_fn of the standard basis, and jvp and jacfwd with
# forward-mode AD (dual numbers), jacfwd vmapped over the basis. The engine has no forward mode:
# - jacrev runs the function once and vjp_fn once per row of the basis, which is torch's
#   per-row result; torch's batched backward gives the same bits where the backward formulas
#   are elementwise or only move values (and matrix products up to the last bit, as vmap);
# - jvp differentiates the vector-Jacobian product u -> J^T u with respect to u (the "double
#   backward trick"): the transpose of the transpose runs the same chain of local derivatives in
#   the order forward mode does, which gives forward mode's bits where the engine's derivative
#   formulas round as torch's tangent formulas do (checked op by op against torch 2.13 in
#   tests/test_func.py); jacfwd runs the function once and that second derivative once per row.
# Both watch the operations the function runs and refuse the others, as vmap does.
# hessian is absent: torch's is forward mode over its batched reverse mode, and the trick over
# per-row reverse mode rounds the second derivatives of even products and powers differently
# (most random compositions differed from torch's hessian in value, in float32 and float64).

# What jacrev accepts: operations whose backward over torch's batch of basis rows gives each row
# what the per-row backward gives (torch's batched jacrev against its own per-row vjp: equal
# bits over random inputs and compositions, except gelu and silu, whose vectorised backward
# kernels round a batch another way; matrix products up to the last bit, as under vmap).
_REV_EXACT = (_ELEMENTWISE | _MOVES | _PICKS | _MATRIX | _ROW_REDUCTIONS) - frozenset(
    f"{name}Backward{k}" for name in ("Gelu", "Silu") for k in range(3))
# What jvp and jacfwd accept: operations whose tangent by the double-backward trick is torch's
# forward-mode tangent, measured the same way (torch's jvp against the trick run in torch).
# Not these: sums, means and the largest element (torch's tangent formula reduces in another
# order or shares ties another way), and the ops whose tangent formula is written otherwise
# than their backward (atan2, hypot, lerp, xlogy, maximum/minimum, exp2, gelu, silu).
_FWD_EXACT = (_ELEMENTWISE | _MOVES | _MATRIX) - frozenset(
    f"{name}Backward{k}" for name in ("Atan2", "Hypot", "Lerp", "Xlogy", "Maximum", "Minimum",
                                      "Exp2", "Gelu", "Silu") for k in range(3))
# forward mode adds an op's tangents from two inputs in its own formula; the trick adds them
# where the gradients meet, so the sum (and the sign of a zero) agree only for these
_FWD_TWO_INPUTS = frozenset(f"{name}Backward{k}" for name in ("Add", "Sub", "Mul")
                            for k in range(3))
# a divisor or an exponent that depends on the primals: torch's tangent formula is another
_FWD_SECOND_INPUT_CONSTANT = frozenset(("DivBackward0", "PowBackward1"))
# derivative zero: torch's forward mode carries a tangent of zeros on, which a product adds
# (0 * x + -0.0 is +0.0), where the trick has no path at all (floor(x) * x: -0.0 there)
_FWD_ZERO_DERIVATIVE = frozenset(f"{name}Backward{k}" for name in (
    "Sign", "Floor", "Ceil", "Round", "Trunc", "Heaviside") for k in range(3))


def _rev_check(op, inputs):
    if op not in _REV_EXACT:
        return (f"jacrev: gradplay computes the Jacobian one row at a time, and the backward "
                f"of {op} over torch's batch of rows can round differently, so it is not "
                "supported under jacrev here; use torch.func.vjp one cotangent at a time")
    return None


def _fwd_check(api):
    def check(op, inputs):
        diff = [isinstance(t, Tensor) and t.requires_grad for t in inputs]
        if op not in _FWD_EXACT or (op in _FWD_ZERO_DERIVATIVE and any(diff)):
            how = ""
        elif sum(diff) > 1 and op not in _FWD_TWO_INPUTS:
            how = " with more than one input that depends on the primals"
        elif op in _FWD_SECOND_INPUT_CONSTANT and len(diff) > 1 and diff[1]:
            how = " with a second input that depends on the primals"
        else:
            return None
        return (f"{api}: gradplay has no forward-mode AD and differentiates a vector-Jacobian "
                f"product instead, which for {op}{how} can round differently from torch's "
                f"forward-mode formula, so it is not supported under {api} here; use jacrev or "
                "vjp instead")

    return check


class _OpWatch(_PassingWatch):
    """Refuses each operation `check` turns down while the function runs (passing every event
    on to the observer that was installed)."""

    def __init__(self, inner, check, random_error=None, no_backward=None):
        super().__init__(inner)
        # random_error: the refusal of a random operation (None: random numbers are drawn)
        self.check, self.random_error = check, random_error
        self.no_backward = no_backward  # the refusal of a gradient taken inside the function

    def tensor_created(self, tensor, node, op, inputs):
        super().tensor_created(tensor, node, op, inputs)
        if op in _RANDOM:
            if self.random_error:
                raise RuntimeError(self.random_error)
            return
        refused = self.check(op, inputs)
        if refused:
            raise RuntimeError(refused)

    def backward_begin(self, *args):
        if self.no_backward:
            raise RuntimeError(self.no_backward)
        super().backward_begin(*args)


# second derivatives through the trick: torch runs forward mode over reverse mode (or reverse
# over forward), whose formulas round differently from the trick's third pass (measured: most
# random compositions of products and powers differ from torch's hessian in value)
_SECOND_ORDER = ("{api}: gradplay has no forward-mode AD, and {api} with {inside} would take "
                 "second derivatives that round differently from torch's forward mode, so it is "
                 "not supported here; use jacrev (or grad and vjp) for both derivatives")
# and through per-row reverse mode: torch's reverse mode over its batched backward (or its
# batched backward of a gradient) put other signs on zeros and, after sums and the largest
# element, other last bits (measured on random compositions of exactly rounded steps)
_REV_SECOND_ORDER = ("jacrev: a second derivative through gradplay's one-row-at-a-time jacrev "
                     "(a gradient taken inside the function, or its result differentiated again) "
                     "can differ from torch's batched one in the sign of a zero or the last bit, "
                     "so it is not supported here")
_DIFFERENT_DRAWS = ("jacfwd: randomness='different' is not supported here: torch draws other "
                    "random numbers for each row of the Jacobian, which gradplay's one run of the "
                    "function cannot reproduce")
_LINEARIZE_DRAWS = ("linearize: random numbers inside the function are not supported here: torch "
                    "runs the function twice and traces it, drawing numbers gradplay's one run "
                    "does not")
_GRAPH_WHY = ("{api}: an input (or a tensor the function reads) requires grad, and the graph "
              "torch gives the result comes from its batched {how}, which gradplay does not "
              "reproduce; detach it, or differentiate the result with torch.func.grad instead")


def _watched(func, watch_of):
    def run(*args, **kwargs):
        with _observer.observe(watch_of(_observer.state.observer)):
            return func(*args, **kwargs)

    return run


def _check_no_graph(api, how, tensors) -> None:
    if not _nesting.kinds and any(isinstance(t, Tensor) and t.requires_grad for t in tensors):
        raise RuntimeError(_GRAPH_WHY.format(api=api, how=how))


def _slice_argnums(args, argnums):
    """torch's _slice_argnums(as_tuple=True): the differentiated arguments as a tuple."""
    if not isinstance(argnums, int) and not isinstance(argnums, tuple):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    nums = _wrap_argnums(argnums, len(args))
    return (args[nums],) if isinstance(nums, int) else tuple(args[n] for n in nums)


def _replace_argnums(args, argnums, values):
    new = list(args)
    nums = _wrap_argnums(argnums, len(args))
    for n, v in zip((nums,) if isinstance(nums, int) else nums, values):
        new[n] = v
    return new


def _one_hot(i, shapes, dtypes):
    """Row i of the standard basis over tensors of these shapes, one tensor per shape."""
    rows, start = [], 0
    with grad_mode.no_grad():
        for shape, dt in zip(shapes, dtypes):
            n = _sizes.numel(shape)
            row = creation.zeros(n, dtype=dt)
            if start <= i < start + n:
                row[i - start] = 1
            rows.append(row.reshape(tuple(shape)))
            start += n
    return rows



def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian of func with respect to the argnums inputs, by reverse mode: for each
    output, a tensor of shape output.shape + input.shape (nested as torch nests them)."""
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    def run(*args):
        if saved_hooks.stack:
            raise RuntimeError(HOOKS_ERROR)
        diff = _slice_argnums(args, argnums)
        watch = _watched(lambda *d: func(*_replace_argnums(args, argnums, d)),
                         lambda inner: _OpWatch(inner, _rev_check, no_backward=_REV_SECOND_ORDER))
        got = vjp(watch, *diff, has_aux=has_aux)
        output, vjp_fn = got[0], got[1]
        out_flat, out_spec = _flatten(output)
        prim_flat, prim_spec = _flatten(diff)
        shapes = [tuple(o.shape) for o in out_flat]
        total = sum(_sizes.numel(s) for s in shapes)
        rows = [_flatten(vjp_fn(_unflatten(_one_hot(i, shapes, [o.dtype for o in out_flat]),
                                           out_spec)))[0] for i in range(total)]
        per_output = []
        for k in range(len(out_flat)):
            start = sum(_sizes.numel(s) for s in shapes[:k])
            cells = []
            for j, p in enumerate(prim_flat):
                column = [rows[i][j] for i in range(start, start + _sizes.numel(shapes[k]))]
                cells.append(_stacked(column, p).reshape((*shapes[k], *p.shape)))
            per_output.append(cells)
        cells = [c for cells in per_output for c in cells]
        if _nesting.kinds and any(c.requires_grad for c in cells):
            raise RuntimeError(_REV_SECOND_ORDER)
        _check_no_graph("jacrev", "vjp", cells)
        jac = [_unflatten(cells, prim_spec) for cells in per_output]
        if isinstance(argnums, int):
            jac = [j[0] for j in jac]
        jac = _unflatten(jac, out_spec)
        return (jac, got[2]) if has_aux else jac

    return Transformed(func, run)


def _stacked(column, like):
    """The rows stacked along a new dim 0 (an empty column: a (0, *shape) tensor)."""
    if column:
        return _stack(column, 0)
    return creation.zeros(0, *like.shape, dtype=like.dtype)


JVP_STR = "jvp(f, primals, tangents)"


@contextmanager
def _no_saved_hooks():
    """torch's forward mode saves nothing for backward, so the saved_tensors_hooks around a jvp
    never run; the trick's own graph must not call them either."""
    outer, saved_hooks.stack = saved_hooks.stack, []
    try:
        yield
    finally:
        saved_hooks.stack = outer


class _Pushforward:
    """func run once on stand-ins for the primals; tangent(ts) gives J t for tangents ts by
    differentiating u -> J^T u with respect to u (create_graph on the first derivative)."""

    def __init__(self, api, call, flat_primals, has_aux, strict, randomness="jvp"):
        with _no_saved_hooks():
            self._run(api, call, flat_primals, has_aux, strict, randomness)

    def _run(self, api, call, flat_primals, has_aux, strict, randomness):
        for p in flat_primals:
            if isinstance(p, Tensor) and not p.dtype.is_floating_point:
                raise ValueError(f"Expected primal to be floating point or complex, but got: "
                                 f"{p.dtype}")
        self.api, self.strict = api, strict
        self.outer_grad = grad_mode.is_grad_enabled()
        self.level = level = _Level()
        random_error = {"error": _batched_reads.RANDOM_ERROR, "same": None, "different": _DIFFERENT_DRAWS,
                        "jvp": None, "linearize": _LINEARIZE_DRAWS}[randomness]
        with grad_mode.enable_grad():
            self.stand_ins = [level.stand_in(p) for p in flat_primals]
            watch = _OpWatch(_observer.state.observer, _fwd_check(api), random_error,
                             _SECOND_ORDER.format(api=api, inside="a gradient inside it"))
            with _inside(), _observer.observe(watch):
                output = call(self.stand_ins)
            self.aux = None
            if has_aux:
                if not (isinstance(output, tuple) and len(output) == 2):
                    raise RuntimeError(f"{JVP_STR}: output of function f should be a tuple: "
                                       "(output, aux) if has_aux is True")
                output, self.aux = output
            self.out_flat, self.out_spec = _flatten(output)
            out = self.out_flat
            if (len(out) == 1 and out[0] is None) or len(out) < 1:
                raise RuntimeError(f"{JVP_STR}: Expected f to be a function that has non-empty "
                                   f"output (got output = {out})")
            for o in out:
                if not isinstance(o, Tensor):
                    raise RuntimeError(f"{JVP_STR}: expected f(*primals) to return only "
                                       f"tensors, got unsupported type {type(o)}")
            self.keep = self.outer_grad and level.reaches_outside(out)
            if self.keep and _nesting.kinds:
                raise RuntimeError(_SECOND_ORDER.format(
                    api=api, inside="its result differentiated by an enclosing transform"))
            self.diff = [k for k, o in enumerate(out)
                         if o.requires_grad and o.dtype.is_floating_point]
            self.us = [_grad_leaf(creation.zeros_like(out[k])) for k in self.diff]
            firsts = []
            if self.diff:
                firsts = _autograd_grad([out[k] for k in self.diff], self.stand_ins, self.us,
                                        retain_graph=True, create_graph=True, allow_unused=True)
            self.firsts = firsts

    def tangent(self, flat_tangents):
        """The output tangents (J t, one per output) for one tangent per primal."""
        with _no_saved_hooks():
            return self._tangent(flat_tangents)

    def _tangent(self, flat_tangents):
        for p, t in zip(self.stand_ins, flat_tangents):
            if tuple(p.shape) != tuple(t.shape):
                raise RuntimeError(
                    "Trying to set a forward gradient that has a different size than that of "
                    f"the original Tensor, this is not supported. Tensor is of size "
                    f"{list(p.shape)} while the given forward gradient is of size "
                    f"{list(t.shape)}.")
            if t.dtype != p.dtype:
                raise RuntimeError(
                    f"{self.api}: a tangent of dtype {t.dtype} for a primal of dtype {p.dtype} "
                    "is not supported here: torch's forward mode promotes the tangents, which "
                    "gradplay's double-backward trick does not; give the tangent the primal's "
                    "dtype")
        tangents = [None] * len(self.out_flat)
        pairs = [(g, t) for g, t in zip(self.firsts, flat_tangents)
                 if g is not None and g.requires_grad]
        if pairs:
            create = self.keep or any(t.requires_grad for _, t in pairs)
            with grad_mode.enable_grad():
                found = _autograd_grad([g for g, _ in pairs], self.us, [t for _, t in pairs],
                                       retain_graph=True, create_graph=create,
                                       allow_unused=True)
            for k, s in zip(self.diff, found):
                tangents[k] = s
        for k, o in enumerate(self.out_flat):
            if tangents[k] is None:
                if self.strict:
                    raise RuntimeError("jvp(f, primals, tangents, strict=True): The output of f "
                                       "is independent of the inputs. This is not allowed with "
                                       "strict=True.")
                tangents[k] = creation.zeros_like(o)
        return self.level.finish(tangents, self.keep)

    def outputs(self):
        return self.level.finish(self.out_flat, self.keep)

    def aux_out(self):
        leaves, spec = _flatten(self.aux)
        return _unflatten(self.level.finish(leaves, self.keep), spec)


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """(func(*primals), the Jacobian-vector product J t[, aux]) for tangents shaped as
    primals."""
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{JVP_STR}: Expected primals to be a tuple. E.g. it should be valid "
                           "to call f(*primals).")
    flat_primals, primals_spec = _flatten(primals)
    flat_tangents, tangents_spec = _flatten(tangents)
    if primals_spec != tangents_spec:
        raise RuntimeError(
            f"{JVP_STR}: Expected primals and tangents to have the same python structure. For "
            "example, if primals is a tuple of 3 tensors, tangents also must be. Got primals "
            f"with structure {_treespec_repr(primals_spec)} and tangents with structure "
            f"{_treespec_repr(tangents_spec)}")
    for what, flat in (("primals", flat_primals), ("tangents", flat_tangents)):
        if len(flat) == 0:
            raise RuntimeError(f"{JVP_STR}: Expected {what} to contain at least one Tensor.")
        for t in flat:
            if not isinstance(t, Tensor):
                raise RuntimeError(f"{JVP_STR}: Expected {what} to only contain Tensors, got "
                                   f"{type(t)}")
    push = _Pushforward("jvp", lambda s: func(*_unflatten(s, primals_spec)), flat_primals,
                        has_aux, strict)
    tangent_out = push.tangent(flat_tangents)
    out = push.outputs()
    aux = push.aux_out() if has_aux else None
    _check_no_graph("jvp", "forward-mode AD", [*out, *tangent_out, *_flatten(aux)[0]])
    result = (_unflatten(out, push.out_spec), _unflatten(tangent_out, push.out_spec))
    return (*result, aux) if has_aux else result


def _treespec_repr(spec) -> str:
    """A spec as torch's TreeSpec repr writes it: TreeSpec(tuple, None, [*, *])."""
    if spec == "*":
        return "*"
    kind, keys, children = spec
    inner = ",\n  ".join(_treespec_repr(c) for c in children)
    context = "None" if keys is None else repr(list(keys))
    return f"TreeSpec({kind}, {context}, [{inner}])"


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of func with respect to the argnums inputs, as torch's forward mode gives
    it (see the section's opening comment): output.shape + input.shape per output and input."""
    def run(*args):
        if randomness not in ("error", "different", "same"):
            raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', "
                               f"or 'same'. Got {randomness}")
        diff = _slice_argnums(args, argnums)
        flat_primals, prim_spec = _flatten(diff)
        numels = [p.numel() for p in flat_primals]
        push = _Pushforward("jacfwd", lambda s: func(*_replace_argnums(
            args, argnums, _unflatten(s, prim_spec))), flat_primals, has_aux, False, randomness)
        shapes = [tuple(p.shape) for p in flat_primals]
        dtypes = [p.dtype for p in flat_primals]
        rows = [push.tangent(_one_hot(i, shapes, dtypes)) for i in range(sum(numels))]
        jac = []
        for k, o in enumerate(push.out_flat):
            cells, start = [], 0
            for p, n in zip(flat_primals, numels):
                column = [rows[i][k] for i in range(start, start + n)]
                block = _stacked(column, o) if column else creation.zeros(0, *o.shape,
                                                                          dtype=o.dtype)
                cells.append(block.movedim(0, -1).reshape((*o.shape, *p.shape)))
                start += n
            jac.append(cells)
        aux = push.aux_out() if has_aux else None
        _check_no_graph("jacfwd", "forward-mode AD", [c for cells in jac for c in cells]
                        + _flatten(aux)[0])
        jac = [_unflatten(cells, prim_spec) for cells in jac]
        if isinstance(argnums, int):
            jac = [j[0] for j in jac]
        jac = _unflatten(jac, push.out_spec)
        return (jac, aux) if has_aux else jac

    return Transformed(func, run)


def linearize(func, *primals):
    """(func(*primals), jvp_fn): jvp_fn(*tangents) gives the Jacobian-vector product at the
    primals, as jvp would (torch traces the function once for it; here it runs once)."""
    for p in primals:
        if not isinstance(p, Tensor):
            raise AttributeError(f"'{type(p).__name__}' object has no attribute 'new_empty'")
    flat_primals, primals_spec = _flatten(primals)
    push = _Pushforward("linearize", lambda s: func(*_unflatten(s, primals_spec)), flat_primals,
                        False, False, "linearize")
    output = _unflatten(push.outputs(), push.out_spec)
    _check_no_graph("linearize", "forward-mode AD", push.outputs())

    def jvp_fn(*tangents):
        flat_tangents, tangents_spec = _flatten(tangents)
        if tangents_spec != primals_spec:
            raise RuntimeError(f"Expected the tangents {_treespec_repr(tangents_spec)} to have "
                               f"the same argspec as the primals {_treespec_repr(primals_spec)}")
        for i, (t, p) in enumerate(zip(flat_tangents, flat_primals)):
            for what, mine, theirs in (("shape", t.shape, p.shape), ("dtype", t.dtype, p.dtype)):
                if mine != theirs:
                    raise RuntimeError(f"tangent:{i} with {what} {mine} in flattened pytree "
                                       f"doesn't match the {what} {theirs} of the corresponding "
                                       "primal.")
        found = push.tangent(flat_tangents)
        _check_no_graph("linearize", "forward-mode AD", found)
        return _unflatten(found, push.out_spec)

    return output, Transformed(jvp_fn, jvp_fn, "linearize.<locals>.jvp_fn")
