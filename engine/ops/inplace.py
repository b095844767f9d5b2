"""In-place ops (add_ sub_ mul_ div_ pow_ zero_ fill_ copy_ clamp_ and += -= *= /= **=).

One mechanism for all of them, following torch's rules:
1. a leaf that requires grad (or a view of one) cannot be modified while grad mode is on;
2. the result is written into the tensor's own memory, so views and `.data` see it;
3. the version counter goes up by one (shared with views and detach()), which is how a
   backward that saved this tensor notices it changed;
4. when recorded, the tensor's grad_fn becomes the op's node, whose edge leads to the
   tensor's previous history (so `y.add_(1)` on a non-leaf makes y.grad_fn AddBackward0).
"""

from __future__ import annotations

from .. import backend as B
from .. import batched_reads, errors
from .. import observer as _observer
from ..autograd import grad_mode
from ..autograd.function import Function, apply, edge_to
from ..autograd.graph import SavedTensor, init_node, saved_hooks
from ..dtypes import bool_
from ..tensor import Tensor, warn
from . import arithmetic, unary
from .formulas import sum_to
from .helpers import check_broadcast, wrap
from .registry import export
from .shape import Expand, IndexPut, check_index_put_values, index_parts, index_put_args

_CAST_NAME = {"float32": "Float", "float64": "Double", "int64": "Long", "bool": "Bool"}


def _check_target(self: Tensor, others, fn=False) -> bool:
    """Apply rule 1; return whether the op is to be recorded in the graph. fn: the grad_fn to
    name in the error for a view made with grad mode off (setitem makes its view that way,
    though torch makes it with grad mode on); by default self's."""
    if not grad_mode.state.grad_enabled:
        return False
    record = self._requires_grad or any(o._requires_grad for o in others)
    base = self._base
    if base is not None:
        # torch's check_inplace: a view that may not change in place (made by a function
        # returning several views, or with grad mode off) first; torch counts a view of a base
        # that requires grad as requiring grad
        if self._creation not in (None, "default") and (record or base._requires_grad):
            raise RuntimeError(errors.view_inplace(
                self, self._grad_fn if fn is False else fn, indirect=False))
        if (self._requires_grad or base._requires_grad) and base._grad_fn is None:
            raise RuntimeError(errors.LEAF_VIEW_INPLACE)
    if self._requires_grad and self._grad_fn is None and base is None:
        raise RuntimeError(errors.LEAF_INPLACE)
    return record


def _alias(self: Tensor) -> Tensor:
    """A second handle on self as it is now (same memory, history and version counter)."""
    t = Tensor._make(self._data, self._dtype, self._requires_grad)
    t._grad_fn = self._grad_fn
    t._grad_acc = self._grad_acc
    t._vc = self._vc
    return t


# in-place ops that torch lets write into a tensor whose elements share memory (an expanded
# view): a fill writes one value everywhere; index_put_ only warns
_OVERLAP_ALLOWED = frozenset(("fill_", "zero_"))


# How torch 2.13's vmap treats an in-place op (measured op by op): (the name its error gives
# when the op writes a batch into a tensor that holds no sample, the overload torch runs slice
# by slice because it has no batching rule, or None). The fallback warns whenever the op writes
# or reads a sample, and before that error. add_ has a batching rule that gives shapes instead
# (name None); ops not listed say "inplace arithmetic". Keyed by op and grad_fn name, or by op
# and whether a tensor operand is given, or by op.
GENERIC_WORDING = ("inplace arithmetic", None)
INPLACE_WORDING = {
    "add_": (None, None),
    "bitwise_and_": (None, None),  # &=, |= and ^=
    "bitwise_or_": (None, None),
    "bitwise_xor_": (None, None),
    "fill_": ("fill_", None),
    "scatter_add_": ("scatter_add_", None),
    "index_put_": ("index_put_", None),
    "__setitem__": ("index_put_", None),
    ("pow_", "tensor"): ("aten::pow_", "aten::pow_.Tensor"),
    ("clamp_", "tensor"): ("aten::clamp_", "aten::clamp_.Tensor"),
    ("clamp_", "number"): ("aten::clamp_", "aten::clamp_"),
    ("remainder_", "tensor"): ("aten::remainder_", "aten::remainder_.Tensor"),
    ("remainder_", "number"): ("aten::remainder_", "aten::remainder_.Scalar"),
    ("fmod_", "tensor"): ("aten::fmod_", "aten::fmod_.Tensor"),
    ("fmod_", "number"): ("aten::fmod_", "aten::fmod_.Scalar"),
    "floor_divide_": ("aten::floor_divide_", "aten::floor_divide_.Tensor"),
    "addcmul_": ("aten::addcmul_", "aten::addcmul_"),
    "addcdiv_": ("aten::addcdiv_", "aten::addcdiv_"),
    ("lerp_", "LerpBackward0"): ("aten::lerp_", "aten::lerp_.Scalar"),
    ("lerp_", "LerpBackward1"): ("aten::lerp_", "aten::lerp_.Tensor"),
    ("scatter_", "ScatterBackward0"): ("aten::scatter_", "aten::scatter_.src"),
    ("scatter_", "ScatterBackward1"): ("aten::scatter_", "aten::scatter_.value"),
    ("masked_fill_", "MaskedFillBackward1"): ("aten::masked_fill_", "aten::masked_fill_.Tensor"),
}
# in-place random draws: vmap refuses them as random operations, before anything else
_DRAWS = frozenset(("uniform_", "normal_", "bernoulli_", "exponential_", "random_"))


def check_under_vmap(self: Tensor, operands, wording, shape_of=None) -> None:
    """torch.func.vmap's rules for an in-place op on self that reads `operands` (see
    batched_reads.check_inplace). Not checked while backward runs (no observer then): the
    engine's own in-place steps inside a backward formula are not the program's."""
    if batched_reads.state.levels and _observer.state.observer is not None:
        batched_reads.check_inplace(self, operands, wording, shape_of)


def run_inplace(self: Tensor, cls, others: tuple, args: tuple, op: str, view_fn=False) -> Tensor:
    if batched_reads.state.levels:
        if op in _DRAWS:  # vmap's randomness='error', the only mode the engine runs
            raise RuntimeError(batched_reads.RANDOM_ERROR)
        operands = others + tuple(a for a in args if isinstance(a, Tensor))
        wording = (INPLACE_WORDING.get((op, cls.name_))
                   or INPLACE_WORDING.get((op, "tensor" if operands else "number"))
                   or INPLACE_WORDING.get(op, GENERIC_WORDING))
        check_under_vmap(self, operands, wording, lambda: B.broadcast_shapes(
            *(B.shape(t._data) for t in (self, *others))))
        if wording[1] is not None:
            batched_reads.warn_unbatched(wording[1], self, *operands)
    record = _check_target(self, others, view_fn)
    overlapping = op not in _OVERLAP_ALLOWED and B.overlaps(self._data)
    if overlapping:
        if cls is not IndexPut:
            raise RuntimeError(errors.INTERNAL_OVERLAP)
        warn(errors.INDEX_PUT_EXPANDED, UserWarning)
    # the graph's node takes `before` as its input: self as it was, with its history (not
    # recorded, and not a view op, self serves: nothing keeps it)
    before = _alias(self) if record or cls.is_view else self
    if record and saved_hooks.stack:
        # under saved_tensors_hooks the pack hook gets what the op saves now, and nothing
        # replaces it later: torch packs a copy of the original self, which the write leaves
        before._data = B.copy(self._data)
        before._vc = [0]
    obs_state = _observer.state
    obs = obs_state.observer
    if obs is None:
        out = apply(cls, (before, *others), *args)
    else:
        obs_state.observer = None  # the out-of-place result below is internal, not a new tensor
        try:
            out = apply(cls, (before, *others), *args)
        finally:
            obs_state.observer = obs
    data = out._data
    if out._dtype is not self._dtype:
        # torch computes in the operands' common dtype and casts the result into self, unless
        # that would drop a kind: a float into an integer tensor, a number into a bool one
        if (out._dtype.is_floating_point and not self._dtype.is_floating_point) or (
                out._dtype is not bool_ and self._dtype is bool_):
            raise RuntimeError(
                f"result type {_CAST_NAME[out._dtype.name]} can't be cast to the desired output "
                f"type {_CAST_NAME[self._dtype.name]}"
            )
        data = B.astype(data, self._dtype.name)
    oshape, sshape = B.shape(out._data), B.shape(self._data)
    if oshape != sshape:
        raise RuntimeError(
            f"output with shape [{', '.join(map(str, sshape))}] doesn't match the broadcast "
            f"shape [{', '.join(map(str, oshape))}]"
        )
    node = out._grad_fn
    if node is not None:
        _snapshot_saved_input(node, before)
    if overlapping:  # write only the indexed elements, as torch does, not every alias
        B.setitem(self._data, args[0], B.getitem(data, args[0]))
    else:
        B.assign(self._data, data)
    if self._inference and not grad_mode.state.inference:
        # torch refuses only after the kernel wrote: the values have changed all the same
        raise RuntimeError(errors.INFERENCE_INPLACE)
    if node is not None:
        node.out_dtype = self._dtype
        if self._base is not None:
            _rebase_view(self, node)
        else:
            if not self._requires_grad:
                _base_now_requires_grad(self)
            _move_retained_grad(self, node)
            self._grad_fn = node
            self._requires_grad = True
    self._bump_version(op)
    if node is not None and self._base is not None:
        self._view_version = self._vc[0]  # its grad_fn, set by _rebase_view, is current
    if node is not None:
        node._saved = tuple(
            SavedTensor(self, node.name()) if type(s) is SavedTensor and s.tensor is out else s
            for s in node._saved
        )
    return self


def _snapshot_saved_input(node, before) -> None:
    """Saved copies of `before` keep the values from before the write (torch saves the
    original self for e.g. mul_), so the coming write does not invalidate them."""
    saved = list(node._saved)
    for i, s in enumerate(saved):
        if type(s) is SavedTensor and s.tensor is before:
            snap = _alias(before)
            snap._data = B.copy(before._data)
            snap._vc = [0]
            saved[i] = SavedTensor(snap)
    node._saved = tuple(saved)


class CopySlices(Function):
    """The base's new grad_fn after an in-place op on one of its views: the gradient of the
    base, with the view's region replaced by what the in-place op's backward gives for it."""

    name_ = "torch::autograd::CopySlices"
    chain_rule = ("an in-place change of a view: to the base {grad} with the changed part replaced by "
                  "the gradient of the change")

    def backward(self, grad):
        # what fn gives its first input (a custom Function's backward may give None: then, as
        # in torch, the base gets no gradient at all), copied into the region as copy_ does
        if grad_mode.state.grad_enabled:  # create_graph: the same steps, with recorded ops
            result = grad.clone()
            region = _replay(result, self.view_chain, record=True)
            grads = self.fn.backward(region.clone())
            if grads[0] is None:
                return (None, *grads[1:])
            copy_(region, grads[0])
            return (result, *grads[1:])
        result = Tensor._make(B.copy(grad._data), grad._dtype)
        region = _replay(result, self.view_chain)
        grads = self.fn.backward(Tensor._make(B.copy(region._data), region._dtype))
        g_view = grads[0]
        if g_view is None:
            return (None, *grads[1:])
        if B.shape(g_view._data) != B.shape(region._data):  # a custom backward's shape
            copy_(Tensor._make(region._data, region._dtype), g_view)
        else:
            B.assign(region._data, B.astype(g_view._data, region._dtype.name)
                     if g_view._dtype is not region._dtype else g_view._data)
        return (result, *grads[1:])

    def _release(self) -> None:
        self.fn._release()


class AsStrided(Function):
    """The view's new grad_fn after the rebase: picks its region out of the base's gradient."""

    name_ = "AsStridedBackward0"
    chain_rule = ("a view with its own strides: to self {grad} placed back where the view's elements "
                  "came from")

    def backward(self, grad):
        base_shape, base_dtype = self.base_meta
        if any(cls is Expand for cls, _ in self.view_chain):
            return (self._through_steps(grad),)
        out = Tensor._make(B.zeros(base_shape, base_dtype.name), base_dtype)
        if grad_mode.state.grad_enabled:  # create_graph: recorded
            copy_(_replay(out, self.view_chain, record=True), grad)
        else:
            B.assign(_replay(out, self.view_chain)._data, grad._data)
        return (out,)

    def _through_steps(self, grad):
        """The gradient for a view whose elements share memory (an expand): torch's
        as_strided backward adds up what lands on one element, which is what the view steps'
        own backward formulas do, run here from the last step to the first."""
        base_shape, base_dtype = self.base_meta
        t = Tensor._make(B.zeros(base_shape, base_dtype.name), base_dtype, True)
        nodes = []
        obs_state = _observer.state
        obs, obs_state.observer = obs_state.observer, None  # internal tensors, not shown
        try:
            with grad_mode.enable_grad():
                for cls, args in self.view_chain:
                    t = apply(cls, (t,), *args)
                    nodes.append(t._grad_fn)
        finally:
            obs_state.observer = obs
        for node in reversed(nodes):
            grad = node.backward(grad)[0]
        return grad


def _replay(t: Tensor, chain, record=False) -> Tensor:
    """Apply a view's recorded steps to t (recording them only with `record`, under
    create_graph): a view of t's memory."""
    if record:
        for cls, args in chain:
            t = apply(cls, (t,), *args)
        return t
    with grad_mode.no_grad():
        for cls, args in chain:
            t = apply(cls, (t,), *args)
    return t


def _rebase_view(view: Tensor, fn) -> None:
    """torch's rebase_history for views: the base gets CopySlices, the view AsStrided."""
    base = view._base
    copy = CopySlices.__new__(CopySlices)
    init_node(copy, (True,) + tuple(fn._needs[1:]))
    copy.fn = fn
    copy.view_chain = view._view_chain
    copy.next_functions = (edge_to(base),) + fn.next_functions[1:]
    copy.out_shape, copy.out_dtype = B.shape(base._data), base._dtype
    base._grad_fn = copy
    if not base._requires_grad:
        _base_now_requires_grad(base)
    base._requires_grad = True

    _set_as_strided(view, (copy, 0))


def _base_now_requires_grad(base: Tensor) -> None:
    """A tensor comes to require grad through an in-place op: so do its views (torch's rule
    for views), whose grad_fn is then made from the base's new history when read."""
    views = base._views
    if views is not None:
        for v in views:
            v._requires_grad = True
        base._views = None


def regenerate_view_grad_fn(view: Tensor) -> None:
    """torch's grad_fn of a view whose base, or another view of the base, was changed in place
    since the view's grad_fn was made: an AsStridedBackward0 reading the view's region out of
    the base's gradient, so the view is differentiated as the values it holds now. A view of a
    base that does not require grad keeps no history."""
    view._view_version = view._vc[0]
    base = view._base
    if base._requires_grad:
        _set_as_strided(view, edge_to(base))


def _set_as_strided(view: Tensor, edge) -> None:
    base = view._base
    strided = AsStrided.__new__(AsStrided)
    init_node(strided, (True,))
    strided.view_chain = view._view_chain
    strided.base_meta = (B.shape(base._data), base._dtype)
    strided.next_functions = (edge,)
    strided.out_shape, strided.out_dtype = B.shape(view._data), view._dtype
    _move_retained_grad(view, strided)
    view._grad_fn = strided
    view._requires_grad = True


def _move_retained_grad(t: Tensor, node) -> None:
    """torch moves retain_grad's hook to a tensor's new grad_fn: .grad is then the gradient of
    the tensor's latest version only."""
    if not t._retains_grad:
        return
    old = t._grad_fn
    if old is not None and old._retains_grad_hooks is t:
        old._retains_grad_hooks = None
    node._retains_grad_hooks = t


# -- ops with no out-of-place counterpart in the public API -----------------------------------

class Zero(Function):
    name_ = "ZeroBackward0"
    chain_rule = "zero_() overwrote self with zeros: to self 0"

    def forward(self, a):
        return B.zeros(B.shape(a._data), a._dtype.name)

    def backward(self, grad):
        return (grad * 0,)


class Fill(Function):
    name_ = "FillBackward2"
    chain_rule = "fill_() overwrote self with a number: to self 0"

    def forward(self, a, value):
        return B.full(B.shape(a._data), value, a._dtype.name)

    def backward(self, grad):
        return (grad * 0,)


class FillTensor(Function):
    """fill_ with a 0-dim tensor: its gradient is the sum of the output's."""

    name_ = "FillBackward3"
    chain_rule = "fill_(value) overwrote self: to self 0; to value the sum of {grad}"

    def forward(self, a, value):
        return B.astype(B.expand(value._data, B.shape(a._data)), a._dtype.name)

    def backward(self, grad):
        return (grad * 0, grad.sum() if self.needs(1) else None)


class Copy(Function):
    name_ = "torch::autograd::CopyBackwards"
    chain_rule = "copy_(src) overwrote self: to self 0; to src {grad} (summed back to src's shape)"

    def forward(self, a, src):
        check_broadcast(B.shape(a._data), B.shape(src._data))
        self.src_shape = B.shape(src._data)
        self.src_dtype = src._dtype
        return B.astype(B.expand(src._data, B.shape(a._data)), a._dtype.name)

    def backward(self, grad):
        g_src = sum_to(grad, self.src_shape)
        if g_src._dtype is not self.src_dtype:
            g_src = g_src.to(self.src_dtype)
        return (grad * 0, g_src)


# -- public in-place methods -------------------------------------------------------------------

@export(function=False, operators=("__iadd__",))
def add_(self, other, *, alpha=1):
    return run_inplace(self, arithmetic.Add, (wrap(other, self),), (alpha,), "add_")


@export(function=False, operators=("__isub__",))
def sub_(self, other, *, alpha=1):
    return run_inplace(self, arithmetic.Sub, (wrap(other, self),), (alpha,), "sub_")


@export(function=False, operators=("__imul__",))
def mul_(self, other):
    return run_inplace(self, arithmetic.Mul, (wrap(other, self),), (), "mul_")


@export(function=False, operators=("__itruediv__",))
def div_(self, other, *, rounding_mode=None):
    if rounding_mode is not None:
        arithmetic.div(self, other, rounding_mode=rounding_mode)  # torch's checks, first
        return run_inplace(self, arithmetic.DivMode, (wrap(other, self),), (rounding_mode,),
                           "div_")
    return run_inplace(self, arithmetic.Div, (wrap(other, self),), (), "div_")


@export(function=False, operators=("__ipow__",))
def pow_(self, exponent):
    if isinstance(exponent, Tensor):
        return run_inplace(self, arithmetic.PowTensor, (exponent,), (), "pow_")
    return run_inplace(self, arithmetic.PowScalar, (), (exponent,), "pow_")


@export(function=False)
def clamp_(self, min=None, max=None):  # noqa: A002
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        # tensor bounds: torch's ClampBackward0, with edges to the bounds (as clamp records)
        which = tuple(k for k, v in (("min", min), ("max", max)) if v is not None)
        bounds = tuple(wrap(v, self) for v in (min, max) if v is not None)
        return run_inplace(self, unary.ClampTensor, bounds, (which,), "clamp_")
    return run_inplace(self, unary.Clamp, (), (min, max), "clamp_")


clip_ = export("clip_", function=False)(clamp_)


@export(function=False, palette={"code": "{0}.zero_()", "arity": 1, "group": "in-place",
                                 "label": "zero_()"})
def zero_(self):
    return run_inplace(self, Zero, (), (), "zero_")


@export(function=False)
def fill_(self, value):
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value.ndim} dimensions.")
        return run_inplace(self, FillTensor, (value,), (), "fill_")
    return run_inplace(self, Fill, (), (value,), "fill_")


@export(function=False)
def copy_(self, src, non_blocking=False):
    if not isinstance(src, Tensor):
        src = wrap(src, self)
    return run_inplace(self, Copy, (src,), (), "copy_")


@export(method=False, function=False, operators=("__setitem__",))
def setitem(self, index, value):
    """x[index] = value, as torch does it: the basic part of the index makes a view, then value
    is copied into it (copy_; CopySlices on a view) or, when the index has integer or boolean
    index tensors, written through them by index_put_ (IndexPutBackward0)."""
    if batched_reads.state.levels:
        # torch names the op by the index: copy_'s words without index tensors, else index_put_
        parts = index if isinstance(index, tuple) else (index,)
        tensors = tuple(ix for ix in parts if isinstance(ix, Tensor))
        check_under_vmap(self, tensors + ((value,) if isinstance(value, Tensor) else ()),
                         INPLACE_WORDING["index_put_"] if tensors else GENERIC_WORDING)
    with grad_mode.no_grad():  # the view is internal: it records nothing
        target, advanced = index_parts(self, index, setitem=True)
    view_fn = False
    if target is not self and grad_mode.state.grad_enabled:
        # as if made as torch makes it, with grad mode on: it requires grad when self does
        # (and would have been recorded, named in errors), and inherits self's CreationMeta
        target._requires_grad = self._requires_grad
        target.__dict__.pop("_creation", None)
        if self._creation is not None:
            target._creation = self._creation
            target._view_version = target._vc[0]
        view_fn = _ViewName(target._view_chain[-1][0].name_) if self._requires_grad else None
    if not isinstance(value, Tensor):  # a number becomes a 0-dim tensor of target's dtype
        value = Tensor._make(B.scalar(value, target._dtype.name), target._dtype)
    if advanced is None:
        _copy_to(target, value, view_fn)
        return
    shape = B.shape(value._data)
    if _lead_ones(shape):  # torch drops the value's leading size-1 dims (a recorded view)
        value = value.view(shape[_lead_ones(shape):])
    check_index_put_values(target, advanced, value)
    advanced.check_bounds()
    run_inplace(target, IndexPut, (value,), (advanced.index, False), "__setitem__", view_fn)


def _lead_ones(shape) -> int:
    n = 0
    while n < len(shape) and shape[n] == 1:
        n += 1
    return n


def _copy_to(dst, src, view_fn) -> None:
    """torch's copy_to (setitem without index tensors): copy_ a value of dst's shape; fill_
    with a 0-dim one; else view it without its leading size-1 dims, expand that to dst's
    shape, and copy_ (the view and the expand are recorded, as in torch)."""
    if B.overlaps(dst._data):  # torch's copy_to checks this even where it then fills
        raise RuntimeError(errors.INTERNAL_OVERLAP)
    dshape, sshape = B.shape(dst._data), B.shape(src._data)
    if sshape == dshape:
        run_inplace(dst, Copy, (src,), (), "copy_", view_fn)
        return
    if not sshape:
        run_inplace(dst, FillTensor, (src,), (), "fill_", view_fn)
        return
    src = src.view(sshape[_lead_ones(sshape):])
    if B.shape(src._data) != dshape:
        src = src.expand(dshape)
    run_inplace(dst, Copy, (src,), (), "copy_", view_fn)


class _ViewName:
    """Stands for the grad_fn a view would have had, in an error that names it."""

    def __init__(self, name: str):
        self._name = name

    def name(self) -> str:
        return self._name


@export(function=False)
def index_put_(self, indices, values, accumulate=False):
    if batched_reads.state.levels and isinstance(indices, (tuple, list)):
        check_under_vmap(self, tuple(ix for ix in indices if isinstance(ix, Tensor))
                         + ((values,) if isinstance(values, Tensor) else ()),
                         INPLACE_WORDING["index_put_"])
    advanced = index_put_args(self, indices, values, "index_put_", method=True)
    return run_inplace(self, IndexPut, (values,), (advanced.index, bool(accumulate)),
                       "index_put_")

