"""The observer protocol (docs/observer.md): which events fire, in which order, with what."""

from __future__ import annotations

import engine as torch
from engine.observer import PROTOCOL_VERSION, Observer, observe


class Recorder(Observer):
    def __init__(self):
        self.events = []

    def tensor_created(self, tensor, node, op, inputs):
        self.events.append(("created", op, node is not None, len(inputs)))

    def inplace(self, tensor, op, version):
        self.events.append(("inplace", op, version, tensor.grad_fn and tensor.grad_fn.name()))

    def grad_assigned(self, tensor, before, after):
        self.events.append(("grad_assigned", before is None, after is None))

    def backward_begin(self, roots, grad_roots, inputs, retain_graph, create_graph, api):
        self.events.append(("backward_begin", api, len(roots)))

    def node_begin(self, node, grad_output):
        self.events.append(("node_begin", node.name(), grad_output.tolist()))

    def edge(self, node, next_node, input_nr, grad):
        self.events.append(("edge", node.name(), next_node.name(), grad.tolist()))

    def accumulate(self, tensor, before, delta, after):
        self.events.append(("accumulate", None if before is None else before.tolist(),
                            delta.tolist(), after.tolist()))

    def hook(self, tensor, grad_in, grad_out):
        self.events.append(("hook", grad_in.tolist(), None if grad_out is None else
                            grad_out.tolist()))

    def node_end(self, node):
        self.events.append(("node_end", node.name()))

    def backward_end(self, error):
        self.events.append(("backward_end", type(error).__name__ if error else None))


def test_protocol_version_is_documented():
    text = open("docs/observer.md").read()
    assert f"Version: **{PROTOCOL_VERSION}**" in text


def test_seed_example_emits_events_in_torch_order():
    rec = Recorder()
    with observe(rec):
        x = torch.tensor([2.0], requires_grad=True)
        y = x**2
        z = 2 * y
        z.backward()
    acc = "torch::autograd::AccumulateGrad"
    assert rec.events == [
        ("created", "tensor", False, 0),
        ("created", "PowBackward0", True, 1),
        ("created", "MulBackward0", True, 2),
        ("backward_begin", "backward", 1),
        ("node_begin", "MulBackward0", [1.0]),
        ("edge", "MulBackward0", "PowBackward0", [2.0]),
        ("node_end", "MulBackward0"),
        ("node_begin", "PowBackward0", [2.0]),
        ("edge", "PowBackward0", acc, [8.0]),
        ("node_end", "PowBackward0"),
        ("node_begin", acc, [8.0]),
        ("accumulate", None, [8.0], [8.0]),
        ("node_end", acc),
        ("backward_end", None),
    ]


def test_accumulate_reports_before_delta_after():
    rec = Recorder()
    x = torch.tensor([2.0], requires_grad=True)
    z = 2 * x**2
    z.backward(retain_graph=True)
    with observe(rec):
        z.backward()
    assert ("accumulate", [8.0], [8.0], [16.0]) in rec.events


def test_inplace_and_grad_assignment_events():
    rec = Recorder()
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with observe(rec):
        y = x * 1
        y.add_(1)
        x.grad = torch.zeros(2)
        x.grad = None
    assert ("inplace", "add_", 1, "AddBackward0") in rec.events
    assert ("grad_assigned", True, False) in rec.events
    assert ("grad_assigned", False, True) in rec.events
    # the in-place op's internal result is not reported as a new tensor
    created = [e for e in rec.events if e[0] == "created"]
    assert created == [("created", "MulBackward0", True, 2), ("created", "zeros", False, 0)]


def test_hook_event_carries_replacement():
    rec = Recorder()
    x = torch.tensor([1.0, -3.0], requires_grad=True)
    x.register_hook(lambda g: g.clamp(-1, 1))
    with observe(rec):
        (x * 5).sum().backward()
    assert ("hook", [5.0, 5.0], [1.0, 1.0]) in rec.events
    assert x.grad.tolist() == [1.0, 1.0]


def test_backward_end_reports_error_and_observer_is_restored():
    rec = Recorder()
    x = torch.tensor([2.0], requires_grad=True)
    z = (x**2).sum()
    z.backward()
    with observe(rec):
        try:
            z.backward()
        except RuntimeError:
            pass
    assert rec.events[0] == ("backward_begin", "backward", 1)
    assert rec.events[-1] == ("backward_end", "RuntimeError")
    from engine import observer

    assert observer.current() is None


def test_nothing_is_reported_without_an_observer():
    class Exploding(Observer):
        def tensor_created(self, *a):
            raise AssertionError("observer called outside observe()")

    with observe(Exploding()):
        pass
    x = torch.tensor([1.0], requires_grad=True)
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0]


def test_node_with_several_outputs_gets_each_edge_and_reports_them_joined():
    """UnbindBackward0 is one node for all its outputs: edges into it carry the output's
    number, node_begin reports the outputs' gradients stacked (zeros where none arrived)."""
    edges = []

    class Edges(Recorder):
        def edge(self, node, next_node, input_nr, grad):
            super().edge(node, next_node, input_nr, grad)
            edges.append((node.name(), input_nr, node.next_functions[input_nr][1]))

    rec = Edges()
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
    with observe(rec):
        a, b, c = x * 1
        (a * c * 3).sum().backward()
    assert [e for e in rec.events if e[0] == "created"][1:4] == [
        ("created", "UnbindBackward0", True, 1)] * 3
    assert ("node_begin", "UnbindBackward0", [[15.0, 18.0], [0.0, 0.0], [3.0, 6.0]]) in rec.events
    # the edge event's input_nr is the edge's place in next_functions; the output's number
    # (the target's input_nr) is next_functions[i][1]
    assert ("MulBackward0", 0, 0) in edges and ("MulBackward0", 1, 2) in edges
    assert x.grad.tolist() == [[15.0, 18.0], [0.0, 0.0], [3.0, 6.0]]
