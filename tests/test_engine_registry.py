"""The op registry is the one way operations reach Tensor (engine/ops/registry.py)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import engine
from engine.autograd.function import Function
from engine.ops import registry

ROOT = Path(__file__).resolve().parent.parent


def test_every_registered_method_and_operator_is_bound_on_tensor_as_registered():
    for table in (registry.METHODS, registry.OPERATORS):
        for attr, fn in table.items():
            assert engine.Tensor.__dict__[attr] is fn, attr


def test_operators_are_the_op_functions_themselves_not_wrappers():
    # speed: `a + b` calls add directly
    assert engine.Tensor.__add__ is registry.FUNCTIONS["add"]
    assert engine.Tensor.__mul__ is registry.FUNCTIONS["mul"]
    assert engine.Tensor.__matmul__ is registry.FUNCTIONS["matmul"]
    assert engine.Tensor.__iadd__ is registry.METHODS["add_"]


def test_no_engine_module_assigns_to_tensor_outside_the_registry():
    pattern = re.compile(r"^\s*(Tensor\.\w+\s*=|setattr\(\s*Tensor\b)", re.M)
    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "engine").rglob("*.py")
                 if pattern.search(p.read_text(encoding="utf-8"))]
    assert offenders == []


def test_importing_only_the_tensor_module_gives_the_whole_class():
    code = ("from engine.tensor import Tensor\n"
            "import engine.tensor as m\n"
            "t = Tensor._make(__import__('engine').backend.scalar(2.0, 'float32'))\n"
            "print(float(t + t), float(t.sinh() - t.sinh()), hasattr(Tensor, 'T'))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    assert out.split() == ["4.0", "0.0", "True"]


def test_registering_a_name_tensor_py_defines_is_refused():
    class Fake:
        def item(self):
            return 0

    saved = dict(registry.METHODS)
    try:
        registry.METHODS["item"] = lambda self: 1
        try:
            registry.install(Fake)
        except RuntimeError as e:
            assert "Tensor.item is defined in tensor.py" in str(e)
        else:
            raise AssertionError("install() accepted a method that shadows one in tensor.py")
    finally:
        registry.METHODS.clear()
        registry.METHODS.update(saved)


def _function_classes(cls=Function):
    for sub in cls.__subclasses__():
        yield sub
        yield from _function_classes(sub)


def test_every_op_class_has_a_torch_grad_fn_name_and_a_place_for_its_chain_rule():
    classes = list(_function_classes())
    assert len(classes) > 50
    for cls in classes:
        assert isinstance(getattr(cls, "name_", None), str), cls
        assert hasattr(cls, "chain_rule"), cls


def test_the_palette_lists_each_name_once_with_a_code_template():
    names = [e["name"] for e in registry.PALETTE]
    assert len(names) == len(set(names))
    assert {"sinh", "cosh"} <= set(names)
    for entry in registry.PALETTE:
        assert "{0}" in entry["code"] and entry["arity"] >= 1, entry
