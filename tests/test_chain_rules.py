"""Every grad_fn the engine can make carries its chain-rule text, written next to its op.

The playground's inspector shows this text for the selected node (hello's `chain_rules`), with
`{grad}` filled in by the gradient that reached the node at the moment shown.
"""

from __future__ import annotations

import re
import string

import engine  # noqa: F401  (importing the engine defines every op)
from engine.autograd.function import Function, chain_rules
from engine.autograd.graph import AccumulateGrad


def _grad_fn_classes(cls=Function):
    for sub in cls.__subclasses__():
        yield sub
        yield from _grad_fn_classes(sub)


def test_every_grad_fn_has_a_chain_rule_text():
    # a shared base without a grad_fn name of its own is never a node a learner sees
    classes = [cls for cls in [AccumulateGrad, *_grad_fn_classes()] if "name_" in cls.__dict__]
    assert len(classes) > 80
    missing = [cls.__name__ for cls in classes if not isinstance(cls.chain_rule, str) or not cls.chain_rule.strip()]
    assert not missing, f"ops without a chain_rule: {missing}"


def test_chain_rule_texts_use_only_the_grad_placeholder():
    for name, text in chain_rules().items():
        fields = {f for _, f, _, _ in string.Formatter().parse(text) if f is not None}
        assert fields <= {"grad"}, (name, fields)
        assert not re.search(r"\s{2,}", text), name


def test_the_table_is_keyed_by_torchs_grad_fn_names():
    table = chain_rules()
    classes = [AccumulateGrad, *_grad_fn_classes()]
    assert table == {cls.name_: cls.chain_rule for cls in classes if "name_" in cls.__dict__}
    x = engine.tensor([2.0], requires_grad=True)
    y = x ** 2
    assert type(y.grad_fn).name_ in table
    assert "n·self^(n−1)" in table[type(y.grad_fn).name_]
    assert "torch::autograd::AccumulateGrad" in table


def test_hello_sends_the_table_to_the_ui():
    from playground.host import Host

    reply = Host().handle({"type": "hello", "id": 1})
    assert reply["chain_rules"] == chain_rules()
