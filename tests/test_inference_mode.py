"""torch.inference_mode on the engine: grad mode off inside, the tensors made there are
inference tensors, and torch's errors where autograd meets them (messages from torch 2.13; the
same code runs against torch when it is installed). Also: a program's inference mode stays the
program's, as its grad mode does."""

from __future__ import annotations

import pytest

import engine
from playground import Interpreter

try:
    import torch
except ImportError:  # CI has no torch: the recorded messages below still hold
    torch = None

LIBS = [engine] + ([torch] if torch is not None else [])


@pytest.fixture(params=LIBS, ids=["engine", "torch"][:len(LIBS)])
def lib(request):
    return request.param


def test_inside_grad_is_off_and_tensors_are_inference_tensors(lib):
    x = lib.ones(2, requires_grad=True)
    with lib.inference_mode():
        y = x * 2
        assert lib.is_inference_mode_enabled() and not lib.is_grad_enabled()
        assert y.requires_grad is False and y.is_inference()
    assert not lib.is_inference_mode_enabled() and lib.is_grad_enabled()
    assert not x.is_inference()
    assert y[1:].is_inference() and y.detach().is_inference()
    with lib.inference_mode():
        with lib.inference_mode(False):
            assert not lib.is_inference_mode_enabled() and not lib.ones(1).is_inference()


def test_as_decorator_with_and_without_parentheses(lib):
    @lib.inference_mode()
    def f(a):
        return a * 3

    @lib.inference_mode
    def g(a):
        return a * 3

    x = lib.ones(2, requires_grad=True)
    assert f(x).is_inference() and g(x).is_inference()


def test_autograd_refuses_inference_tensors_as_torch_does(lib):
    w = lib.ones(2, requires_grad=True)
    with lib.inference_mode():
        q = lib.ones(2)
    (w + q).sum().backward()  # an add saves nothing: allowed
    assert w.grad.tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match=r"^Inference tensors cannot be saved for backward\. "
                       r"Please do not use Tensors created in inference mode"):
        w * q
    with pytest.raises(RuntimeError, match=r"^Setting requires_grad=True on inference tensor "
                       r"outside InferenceMode is not allowed\.$"):
        q.requires_grad_()
    assert q.clone().requires_grad_().requires_grad


def test_in_place_outside_writes_and_then_raises_as_torch_does(lib):
    with lib.inference_mode():
        q = lib.ones(2)
        q.add_(1)  # inside: allowed
    with pytest.raises(RuntimeError, match=r"^Inplace update to inference tensor outside "
                       r"InferenceMode is not allowed"):
        q.mul_(3)
    assert q.tolist() == [6.0, 6.0]  # torch's kernel ran before the check
    with pytest.raises(RuntimeError, match="^Inplace update to inference tensor"):
        q[0] = 7
    assert q.tolist() == [7.0, 6.0]


def test_a_paused_program_inside_inference_mode_leaves_the_host_alone():
    gen = Interpreter().steps("import torch\nwith torch.inference_mode():\n"
                              "    a = torch.ones(1)\n    b = a.is_inference()\n"
                              "c = torch.ones(1).is_inference()\n")
    next(gen)  # import
    next(gen)  # the with statement: the program is now in inference mode
    assert not engine.is_inference_mode_enabled() and engine.is_grad_enabled()
    assert not engine.ones(1).is_inference()
    next(gen)
    assert not engine.is_inference_mode_enabled()
    result = None
    try:
        while True:
            next(gen)
    except StopIteration as stop:
        result = stop.value
    assert result.error is None
    assert result.namespace["b"] is True and result.namespace["c"] is False
