"""Autograd graph nodes: the grad_fn objects torch users see (MulBackward0, AccumulateGrad).

A node's `next_functions` are its edges: one (node or None, input_nr) pair per input, in input
order, kept in tuples so every traversal is deterministic. `_seq` is the creation order, which
the backward engine uses as torch does (most recently created ready node runs first).
"""

from __future__ import annotations

import itertools
import threading

from .. import backend as B
from .. import errors

_sequence = itertools.count()
# In a node's saved values: what forward kept for backward as plain values (indices, as backend
# arrays) where torch saves tensors. Unpacking skips it; releasing frees the node like any save.
KEPT = object()


class SavedTensor:
    """A tensor saved for backward, with its version at save time (torch's SavedVariable)."""

    __slots__ = ("tensor", "version", "output_of")

    def __init__(self, tensor, output_of=None):
        self.tensor = tensor
        self.version = tensor._vc[0]
        self.output_of = output_of  # name of the node that saved its own output, else None

    def unpack(self):
        t = self.tensor
        if t._detached and self.output_of is None:
            # torch's SavedVariable reads a saved input's history back from the tensor
            raise RuntimeError(errors.SAVED_DETACHED)
        if t._vc[0] != self.version:
            # torch names the node that saved an output, else the tensor's grad_fn *now*
            # (reading which may itself raise, for a view that may not change in place)
            producer, nr = self.output_of, 0
            if producer is None:
                fn = t.grad_fn
                if fn is not None:
                    producer, nr = fn.name(), t._output_nr
            raise RuntimeError(errors.modified_inplace(t, producer, self.version, nr))
        return t


class _SavedHooks(threading.local):
    stack: list = []  # (pack, unpack) pairs of the saved_tensors_hooks blocks entered, innermost last

    def __init__(self):
        self.stack = []


saved_hooks = _SavedHooks()


class HookedSaved:
    """A tensor saved for backward while torch.autograd.graph.saved_tensors_hooks was active:
    what pack_hook returned, handed to unpack_hook whenever backward (or `_saved_*`) reads it.
    As in torch, the tensor's version is not checked: the hooks decide what backward sees."""

    __slots__ = ("packed", "unpack_hook", "tensor", "output_of")

    def __init__(self, tensor, output_of, pack, unpack):
        self.tensor = tensor  # in-place ops find the saved tensors they replace by identity
        self.output_of = output_of
        self.unpack_hook = unpack
        from .grad_mode import no_grad

        with no_grad():  # torch runs pack hooks with grad mode off
            self.packed = pack(tensor)

    def unpack(self):
        t = self.unpack_hook(self.packed)
        if not isinstance(t, _tensor_class()):
            raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got "
                            f"result of type {type(t).__name__}")
        original = self.tensor
        if not original._requires_grad:
            return t
        # torch gives the unpacked values the saved tensor's place in the graph (its grad_fn,
        # or the leaf's gradient accumulator), so a create_graph backward reaches it
        out = type(t)._make(t._data, t._dtype, True)
        out._vc = t._vc
        if original._grad_fn is not None:
            out._grad_fn, out._output_nr = original._grad_fn, original._output_nr
        else:
            out._grad_acc = original._grad_accumulator()
        return out


def _tensor_class():
    from ..tensor import Tensor

    return Tensor


def save(tensor, output_of=None):
    """What a node keeps of a tensor it saves: a SavedTensor, or under saved_tensors_hooks what
    the innermost block's pack hook made of it."""
    hooks = saved_hooks.stack
    if hooks:
        pack, unpack = hooks[-1]
        return HookedSaved(tensor, output_of, pack, unpack)
    return SavedTensor(tensor, output_of)


class saved_tensors_hooks:  # noqa: N801 - torch's name
    """Context manager: pack_hook(tensor) runs when an operation saves a tensor for backward
    (its result is kept instead), unpack_hook(packed) when backward reads it back."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        saved_hooks.stack.append((self.pack_hook, self.unpack_hook))

    def __exit__(self, *exc):
        saved_hooks.stack.pop()


class save_on_cpu(saved_tensors_hooks):  # noqa: N801 - torch's name
    """saved_tensors_hooks that keep saved tensors on the CPU (where the engine's tensors
    already are: the tensor itself, or a copy with pin_memory=True, as torch does there)."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack_to_cpu(tensor):
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            packed = tensor.detach().clone()
            return (tensor.device, packed)

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


class Node:
    """Base of every grad_fn. Subclasses set `name_` (torch's class name)."""

    # The hook fields are rarely set but read for every node a backward runs, so they are
    # slots (set to None when the node is recorded): CPython reads a slot several times faster
    # than a class-level default.
    __slots__ = ("next_functions", "_seq", "_needs", "_saved", "_freed", "out_shape", "out_dtype",
                 "_tensor_pre_hooks", "_retains_grad_hooks", "_hooks", "_pre_hooks",
                 "__weakref__", "__dict__")
    name_ = "Node"

    def __init_subclass__(cls, **kwargs):
        # torch's grad_fn classes are named after the node: type(y.grad_fn).__name__ is
        # "MulBackward0" there, so a class that sets name_ takes its name (our Python class
        # names, such as Mul, stay the names in the source); torch's are built-in classes, so
        # they print as <class 'MulBackward0'>
        super().__init_subclass__(**kwargs)
        if "name_" in cls.__dict__:
            cls.__name__ = cls.__qualname__ = cls.name_.rsplit("::", 1)[-1]
            cls.__module__ = "builtins"
        for field in cls.__dict__.get("saved_fields") or ():
            if not hasattr(cls, "_saved_" + field):  # a property the class wrote itself wins
                setattr(cls, "_saved_" + field, property(_saved_field_getter(field)))

    def name(self) -> str:
        return self.name_

    def class_name(self) -> str:
        """The Python class name torch shows in reprs: name() without a C++ namespace."""
        return self.name_.rsplit("::", 1)[-1]

    def __repr__(self) -> str:
        return f"<{self.class_name()} object at {hex(id(self))}>"

    @property
    def metadata(self) -> dict:
        d = self.__dict__.get("_metadata")
        if d is None:
            d = self.__dict__["_metadata"] = {}
        return d

    # -- saved tensors ------------------------------------------------------------------------
    # torch exposes what a node saved as `grad_fn._saved_<name>` (`_saved_self`,
    # `_saved_other`, `_saved_result`...): a class maps those names to positions in `_saved`,
    # and __init_subclass__ makes one property per name. Non-tensor settings a node keeps are
    # plain `_saved_<name>` properties on its class. (Properties, not a `__getattr__`: a class
    # with `__getattr__` makes every attribute read on its instances take CPython's slow path,
    # and nodes are read on every op.)
    saved_fields = None

    def _unpack_saved(self, arrays_of=None):
        """The saved tensors, checked as torch checks them. With `arrays_of` (a dtype): their
        backend arrays instead, or None when one of them has another dtype."""
        if self._freed:
            raise RuntimeError(errors.BACKWARD_TWICE)
        out = []
        for s in self._saved:
            if s is KEPT:
                continue
            if type(s) is SavedTensor:
                t = s.tensor
                if t._vc[0] != s.version or t._detached:
                    s.unpack()  # raises
            elif type(s) is HookedSaved:
                t = s.unpack()
            else:
                t = s
            if arrays_of is not None and t is not None:
                if t._dtype is not arrays_of:
                    return None
                t = t._data
            out.append(t)
        return out

    def _release(self) -> None:
        """Free saved tensors after a backward without retain_graph. Only nodes that saved
        something can fail later: a node that saved nothing (AddBackward0) may run again, one
        that saved a wrapped Python number (MulBackward0 of x * 2) may not, as in torch."""
        saved = self._saved
        if saved:
            for s in saved:
                if s is not None:
                    self._saved = ()
                    self._freed = True
                    return

    # -- hooks on the node itself (torch's grad_fn.register_hook / register_prehook) ----------
    def register_hook(self, fn):
        if self._hooks is None:
            self._hooks = []
        return _HookHandle(self._hooks, fn)

    def register_prehook(self, fn):
        if self._pre_hooks is None:
            self._pre_hooks = []
        return _HookHandle(self._pre_hooks, fn)

    def apply_backward(self, grad):
        raise NotImplementedError


def _saved_field_getter(field: str):
    def get(node):
        if node._freed:
            raise RuntimeError(errors.BACKWARD_TWICE)
        fields = type(node).saved_fields  # read now: a subclass may place it elsewhere
        if not fields or field not in fields:
            raise AttributeError(f"'{type(node).__name__}' object has no attribute '_saved_{field}'")
        k = fields[field]
        saved = node._saved
        s = saved[k] if k < len(saved) else None
        return s.unpack() if type(s) is SavedTensor or type(s) is HookedSaved else s

    get.__name__ = "_saved_" + field
    return get


def init_node(node, needs) -> None:
    node._needs = needs
    node.next_functions = ()
    node._seq = next(_sequence)
    node._saved = ()
    node._freed = False
    node._tensor_pre_hooks = node._retains_grad_hooks = node._hooks = node._pre_hooks = None


class AccumulateGrad(Node):
    """The node behind a leaf that requires grad: adds incoming gradients into `.grad`."""

    __slots__ = ("variable",)
    name_ = "torch::autograd::AccumulateGrad"
    chain_rule = "the leaf's .grad adds up every gradient that reaches it: .grad = .grad + {grad} (None counts as 0)"

    def __init__(self, variable):
        init_node(self, (True,))
        # Accumulation must happen as soon as it can: torch gives these the highest priority.
        self._seq = float("inf")
        self.variable = variable
        self.out_shape = B.shape(variable._data)
        self.out_dtype = variable.dtype


class _HookHandle:
    """What register_hook returns: `.remove()` takes the hook out again."""

    _ids = itertools.count()

    def __init__(self, hooks: list, fn):
        self.id = next(self._ids)
        self._hooks = hooks
        self._entry = fn
        hooks.append(fn)

    def remove(self) -> None:
        try:
            self._hooks.remove(self._entry)
        except ValueError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


HookHandle = _HookHandle
