"""Function: the base of every differentiable op, and `apply`, which records it in the graph.

An op subclasses Function and writes
- `name_`: torch's grad_fn class name (e.g. "MulBackward0"),
- `forward(self, *tensors, *args) -> array`: computes on backend arrays and may call
  `self.save(...)` with the tensors its backward needs (only when `self.needs(i)` says so,
  as torch saves only what the inputs that require grad need),
- `backward(self, grad) -> tuple`: one gradient (a Tensor, or None) per tensor input, written
  with engine operations so that create_graph=True can differentiate it again.
Flags: `saves_result` (backward needs the output), `is_view` (output shares the input's memory).
"""

from __future__ import annotations

from .. import observer as _observer
from ..tensor import Tensor
from . import grad_mode
from .graph import Node, SavedTensor, init_node


class Function(Node):
    __slots__ = ()
    saves_result = False
    is_view = False

    def forward(self, *args):  # pragma: no cover - every op defines it
        raise NotImplementedError

    def backward(self, grad):  # pragma: no cover
        raise NotImplementedError

    # helpers for forward
    def needs(self, i: int) -> bool:
        """Whether input i requires grad (False when nothing is being recorded)."""
        n = self._needs
        return n is not None and n[i]

    def save(self, *tensors) -> None:
        if self._needs is None:
            return
        self._saved = tuple(
            None if t is None else (t if t._wrapped else SavedTensor(t))
            for t in tensors
        )

    @property
    def saved_tensors(self):
        return self._unpack_saved()


def edge_to(t: Tensor):
    """The (node, input_nr) pair through which a gradient reaches tensor t."""
    if t._grad_fn is not None:
        return (t._grad_fn, 0)
    if t._requires_grad:
        return (t._grad_accumulator(), 0)
    return (None, 0)


def apply(cls, inputs: tuple, *args) -> Tensor:
    """Run op `cls` forward on `inputs` (Tensors) with extra non-tensor `args`, and record
    it in the graph when grad mode is on and some input requires grad."""
    node = cls.__new__(cls)
    record = False
    if grad_mode.state.grad_enabled:
        for t in inputs:
            if t._requires_grad:
                record = True
                break
    if record:
        init_node(node, tuple(t._requires_grad for t in inputs))
    else:
        node._needs = None
    data = node.forward(*inputs, *args)
    out = Tensor._make(data, None, record)
    if record and not out._dtype.is_floating_point:
        record = out._requires_grad = False  # integer and bool results never require grad
    if cls.is_view:
        src = inputs[0]
        out._vc = src._vc
        if src._base is not None:
            out._base = src._base
            out._view_chain = src._view_chain + ((cls, args),)
        else:
            out._base = src
            out._view_chain = ((cls, args),)
    if record:
        node.next_functions = tuple(edge_to(t) for t in inputs)
        node.out_shape = out.shape
        node.out_dtype = out._dtype
        out._grad_fn = node
        if cls.saves_result:
            node._saved = node._saved + (SavedTensor(out, cls.name_),)
    obs = _observer.state.observer
    if obs is not None:
        obs.tensor_created(out, node if record else None, cls.name_, inputs)
    return out
