"""The engine's observer interface: how a visualiser watches graphs being built and run.

Protocol version 1; documented in docs/observer.md. Install one observer per thread with
`observe(obs)` (a context manager). With none installed the engine pays one attribute read per
operation and nothing else. Payloads are engine objects (Tensors, grad_fn nodes); an observer
must not mutate them. Gradients passed to an observer are the engine's own tensors: copy them
if you keep them beyond the call (`before` of `accumulate` is already a snapshot).
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

PROTOCOL_VERSION = 1


class Observer:
    """Base class with every event as a no-op method; override what you need."""

    def tensor_created(self, tensor, node, op, inputs):
        """An operation made tensor. node: its grad_fn (None when nothing was recorded); op:
        torch's grad_fn name for the operation; inputs: the tensor inputs. Factories
        (tensor, zeros, ...) report node None, op the factory's name and no inputs."""

    def backward_begin(self, roots, grad_roots, inputs, retain_graph, create_graph, api):
        """backward()/autograd.grad started. api: 'backward' or 'grad'."""

    def node_begin(self, node, grad_outputs):
        """A grad_fn node is about to run with the gradient(s) that arrived for its output."""

    def edge(self, node, next_node, input_nr, grad):
        """node sent grad along its edge to next_node (grad None: nothing flows there)."""

    def node_end(self, node):
        """node finished."""

    def accumulate(self, tensor, before, delta, after):
        """tensor.grad went from before (None or a snapshot) by delta to after."""

    def hook(self, tensor, grad_in, grad_out):
        """A hook registered on tensor ran; grad_out is what it returned (None: unchanged)."""

    def inplace(self, tensor, op, version):
        """tensor was modified in place by op (a name such as 'add_'); its new _version."""

    def grad_assigned(self, tensor, before, after):
        """tensor.grad was assigned (e.g. `x.grad = None`)."""

    def warning(self, message, category):
        """The engine issued a warning (category: the warning class)."""

    def backward_end(self, error):
        """backward finished; error is the exception it raised, or None."""


class _State(threading.local):
    observer = None


state = _State()


def current():
    return state.observer


@contextmanager
def observe(observer: Observer):
    """Install observer for the duration of the block (nesting restores the previous one)."""
    prev = state.observer
    state.observer = observer
    try:
        yield observer
    finally:
        state.observer = prev
