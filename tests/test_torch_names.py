"""Classes print under torch's names: `<class 'torch.nn.modules.linear.Linear'>`, an optimizer
without a repr of its own as `<torch.optim.sgd.SGD object at 0x...>`, a grad_fn's class as
`<class 'MulBackward0'>`. The table of torch's names is recorded from torch 2.13
(scripts/record_torch_names.py) and checked against it live when torch imports."""

from __future__ import annotations

import pytest

import engine
from engine.torch_names import TORCH_NAMES
from tests.live_torch import real_torch


def _engine_object(path: str):
    owner = engine
    for part in path.split(".")[1:]:
        owner = getattr(owner, part)
    return owner


@pytest.mark.parametrize("path", sorted(TORCH_NAMES))
def test_each_class_carries_torchs_module_and_name(path):
    cls = _engine_object(path)
    module, qualname = TORCH_NAMES[path]
    assert (cls.__module__, cls.__qualname__) == (module, qualname)
    assert repr(cls) == f"<class '{module}.{qualname}'>" if module != "builtins" else True


def test_the_table_names_the_classes_programs_reach_most():
    for path in ("torch.Tensor", "torch.nn.Linear", "torch.nn.Module", "torch.optim.SGD",
                 "torch.optim.lr_scheduler.StepLR", "torch.nn.Parameter", "torch.Size"):
        assert path in TORCH_NAMES


def test_an_object_without_its_own_repr_shows_torchs_path():
    w = engine.nn.Parameter(engine.ones(2))
    opt = engine.optim.SGD([w], lr=0.1)
    text = repr(engine.optim.lr_scheduler.StepLR(opt, 2))
    assert text.startswith("<torch.optim.lr_scheduler.StepLR object at 0x")


def test_grad_fn_classes_are_torchs_builtin_classes():
    x = engine.ones(2, requires_grad=True)
    y = (x * 2).sum()
    assert repr(type(y.grad_fn)) == "<class 'SumBackward0'>"
    assert repr(type(y.grad_fn.next_functions[0][0])) == "<class 'MulBackward0'>"


@pytest.mark.skipif(real_torch is None, reason="torch 2.13 is not installed")
def test_the_table_is_what_torch_says_now():
    from scripts.record_torch_names import record

    assert record() == TORCH_NAMES, "re-run scripts/record_torch_names.py"
