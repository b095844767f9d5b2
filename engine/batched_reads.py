"""What torch.func.vmap refuses because a tensor holds a sample (is batched, in torch's words):
Python reads of its data (.item(), float(t), bool(t), an `if t:`, .tolist(), .numpy()), for
which torch's vmap has no per-sample value to give Python, and operations whose result's shape
would depend on the sample's values (nonzero, unique, indexing with a boolean mask).
func.vmap puts itself on `state.levels` for the duration of its call; the tensor methods and
those operations ask here when a vmap runs (one attribute read when none does)."""

from __future__ import annotations

import threading

ITEM_ERROR = ("vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over "
              "calling .item() on a Tensor, please try to rewrite what you're doing with other "
              "operations. If error is occurring somewhere inside PyTorch internals, please file "
              "a bug report.")
CONTROL_FLOW_ERROR = ("vmap: It looks like you're attempting to use a Tensor in some "
                      "data-dependent control flow. We don't support that yet, please file an "
                      "issue at https://github.com/pytorch/pytorch/issues .")

UNDER_GRAD_ERROR = (
    "vmap: It looks like you're either (1) calling .item() on a Tensor or (2) attempting to use "
    "a Tensor in some data-dependent control flow or (3) encountering this error in PyTorch "
    "internals. For (1): we don't support vmap over calling .item() on a Tensor, please try to "
    "rewrite what you're doing with other operations. For (2): we don't support data-dependent "
    "control flow in vmap yet, please file an issue at https://github.com/pytorch/pytorch/issues "
    ". For (3): please file an issue.")

# .tolist() and .numpy(): torch's batched tensor has no storage to read
NO_STORAGE_ERROR = "Cannot access data pointer of Tensor that doesn't have storage"
DYNAMIC_SHAPE_ERROR = ("vmap: We do not support batching operators that can output dynamic "
                       "shape. Attempted to vmap over {op}. Please file an issue at "
                       "https://github.com/pytorch/pytorch/issues if you need this feature.")
BOOLEAN_MASK_ERROR = ("vmap: We do not support batching operators that can support dynamic shape. "
                      "Attempting to batch over indexing with a boolean mask.")
MASKED_SELECT_ERROR = ("vmap: Attempted to vmap over `mask` in torch.masked_select(self, mask) We "
                       "cannot support this because for each batch this would return a "
                       "differently shaped Tensor. Please file an issue at "
                       "https://github.com/pytorch/pytorch/issues if you need this feature.")
# an in-place op on a tensor that does not hold a level's sample, with an operand that does:
# torch cannot write a batch into one tensor. {op} and {where} are torch's own wording, which
# depends on the op (INPLACE_WORDING in ops/inplace.py)
INPLACE_ERROR = ("vmap: {op}(self, *extra_args) is not possible because there exists a Tensor "
                 "`other` in extra_args that has more elements than `self`. This happened due to "
                 "`other` being vmapped over but `self` not being vmapped over {where}. Please "
                 "try to use out-of-place operators instead of {op}. If said operator is being "
                 "called inside the PyTorch framework, please file a bug report instead.")
# add_ has a batching rule that broadcasts first, and says it with shapes
INPLACE_SHAPE_ERROR = "output with shape [{shape}] doesn't match the broadcast shape [{broadcast}]"
# an in-place op on a tensor the function did not make (and that holds no sample): torch runs
# the function once, so the change happens once; here it would happen once per sample
OUTSIDE_INPLACE_ERROR = (
    "vmap: gradplay runs the function once per sample, so an in-place change to a tensor the "
    "function did not make (or to a view of one) would happen once per sample, where torch makes "
    "it once; it is not supported here. Change a copy made inside the function (t.clone()), or "
    "make the change outside vmap")
RANDOM_ERROR = ("vmap: called random operation while in randomness error mode. Please either "
                "use the 'same' or 'different' randomness flags on vmap or perform the randomness "
                "operation out of vmap")
# operations torch's vmap has neither a batching rule nor a slice-by-slice fallback for
NO_FALLBACK_ERROR = "Batching rule not implemented for {op}. We could not generate a fallback."

FALLBACK_WARNING = (
    "There is a performance drop because we have not yet implemented the batching rule for "
    "{op}. Please file us an issue on GitHub so that we can prioritize its implementation. "
    "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/functorch/BatchedFallback.cpp:"
    "82.)")


class _State(threading.local):
    # the vmaps running, outermost first: each (func._VmapWatch) has holds(tensor), mark(tensor),
    # read_error(message) and `sample`, the sample its function runs on
    levels: list = []

    def __init__(self):
        self.levels = []


state = _State()


def refuse_read(tensor, message: str) -> None:
    """Raise torch's RuntimeError for a Python read (`message`: ITEM_ERROR or
    CONTROL_FLOW_ERROR) of a tensor that holds a sample; the innermost vmap holding it words it."""
    for level in reversed(state.levels):
        if level.holds(tensor):
            raise RuntimeError(level.read_error(message))


def held(*tensors) -> bool:
    """Whether a running vmap holds one of `tensors` (None and Python numbers are skipped)."""
    return any(level.holds(t) for level in state.levels for t in tensors if t is not None)


def refuse(message: str, *tensors) -> None:
    """Raise torch's RuntimeError `message` when a running vmap holds one of `tensors`."""
    if state.levels and held(*tensors):
        raise RuntimeError(message)


def indexes_as_tensor(index) -> bool:
    """Whether torch's vmap indexes with a 0-dim integer tensor `index` as a tensor (advanced
    indexing, IndexBackward0) rather than reading it as a number: when it holds a sample and no
    torch.func.grad runs inside that vmap (torch's gradient wrapper reads it with .item(), which
    vmap then refuses)."""
    for level in reversed(state.levels):
        if level.holds(index):
            return not level.under_grad()
    return False


def derived(out, *inputs):
    """out, computed from inputs by an operation that reports nothing to observers (a
    comparison, any/all): under vmap it holds a sample when one of the inputs does, and it is
    a tensor the function made."""
    for level in state.levels:
        level.made_inside(out)
        if any(level.holds(t) for t in inputs):
            level.mark(out)
    return out


def check_inplace(target, operands, wording, shape_of=None) -> None:
    """Before an in-place op on `target` with tensor `operands` (the values, masks and indices it
    reads) under vmap. `wording`: (op, overload) as torch names the op in its error, overload
    being the name its slice-by-slice fallback warns with first, or None; op None for add_,
    whose error gives shapes (`shape_of()` returns the broadcast shape of one sample).
    Raises torch's RuntimeError when a level holds an operand and not the target, and the
    engine's own when the innermost level neither holds the target nor made it."""
    levels = state.levels
    for level in reversed(levels):
        if level.holds(target) or not any(level.holds(t) for t in operands if t is not None):
            continue
        op, overload = wording
        if op is None:
            raise RuntimeError(INPLACE_SHAPE_ERROR.format(
                shape=", ".join(map(str, target.shape)),
                broadcast=", ".join(map(str, (level.size,) + tuple(shape_of())))))
        if overload is not None:
            from .tensor import warn

            warn(FALLBACK_WARNING.format(op=overload), stacklevel=4)
            raise RuntimeError(INPLACE_ERROR.format(op=op, where=f"at level {level.level}"))
        raise RuntimeError(INPLACE_ERROR.format(op=op, where="in a vmap"))
    innermost = levels[-1]
    if not innermost.holds(target) and not innermost.made(target):
        raise RuntimeError(OUTSIDE_INPLACE_ERROR)


def warn_unbatched(op: str, *tensors) -> None:
    """torch's vmap runs an operation that has no batching rule (`op`, as torch names the
    overload: "aten::masked_fill.Tensor") slice by slice, and warns that it does. Its fallback
    takes the innermost vmap level among the inputs', warns once, and calls the operation on
    each slice of it, which repeats this for the levels further out: with nested vmaps it warns
    once for the innermost level and once per slice for each level further out. Here the
    function runs once per sample of every level, and each of those warnings comes from one
    of those runs."""
    levels = state.levels
    if not levels:
        return
    held = [any(t is not None and level.holds(t) for t in tensors) for level in levels]
    for k in range(len(levels)):
        # level k's warnings: one per slice of the held levels inside it, so they come from
        # the first sample of level k, of every level outside it and of the levels inside it
        # that the inputs do not hold
        if held[k] and all(levels[m].sample == 0 for m in range(len(levels))
                           if m <= k or not held[m]):
            from .tensor import warn

            warn(FALLBACK_WARNING.format(op=op), stacklevel=3)
