"""Edit intents (docs/edits.md): each intent changes only its own span of the program text, the
result runs in the playground and gives torch's result, node ids survive edits, and any
malformed intent ends in an EditError, never another exception."""

from __future__ import annotations

import ast
import json
import re
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from live_torch import real_torch

from engine.ops.registry import PALETTE
from playground import run_program
from playground.edits import (
    EDIT_VERSION,
    INTENTS,
    EditError,
    EditResult,
    apply_edit,
    bound_names,
    dependents,
)

_LINES = re.compile(r"\r\n|\r|\n")


def prog(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def lines(text: str) -> list:
    return _LINES.split(text)


def without(text: str, changed: list) -> list:
    """The lines of `text` that an edit did not add or change."""
    return [ln for i, ln in enumerate(lines(text), 1) if i not in changed]


def tensors(timeline: dict) -> dict:
    return {t["name"]: t for t in timeline["nodes"]["tensors"] if t["name"]}


def data(value):
    return None if value is None else value["data"]


def flat(values) -> list:
    if not isinstance(values, list):
        return [values]
    return [v for item in values for v in flat(item)]


def torch_locals(program: str) -> dict:
    """Run an edited program in real PyTorch (the test's own trusted text, not a user's)."""
    namespace: dict = {}
    exec(compile(program, "<edited>", "exec"), namespace)
    return namespace


def run_ok(program: str) -> dict:
    timeline = run_program(program)
    assert timeline["ok"], (timeline["error"], program)
    return timeline


def grads_match_torch(program: str, names) -> None:
    """The engine's .grad of each name equals real torch's for the same program text."""
    got = tensors(run_ok(program))
    if real_torch is None:
        return
    ns = torch_locals(program)
    for name in names:
        g = ns[name].grad
        if g is None:
            assert got[name]["grad"] is None, name
        else:
            expected = pytest.approx(flat(g.tolist()), rel=1e-4, abs=1e-6)  # float32 rounding
            assert flat(data(got[name]["grad"])) == expected, name


SQUARE = prog("""
    import torch
    x = torch.tensor([2.0], requires_grad=True)
    y = x**2
    z = 2*y
    z.backward()
    print(x.grad)
""")

# comments, blank lines, odd spacing and non-ASCII text everywhere an edit must not touch
MESSY = prog("""
    # Un graphe très simple — é, ü, 字
    import torch

    label = "données é"; x  =  torch.tensor( [2.0, 3.0] ,requires_grad = True )   # feuille é
    w = torch.tensor([0.5, -1.0])  # not a leaf that needs grad

    y = x*w     # produit
    s = y.sum()  # "x" in a string: x
    s.backward()
""")


def apply(program: str, **intent) -> EditResult:
    return apply_edit(program, intent)


# == add_leaf =====================================================================================

def test_square_program_built_from_intents_gives_torchs_grad():
    p = ""
    for intent in [
        {"op": "add_leaf", "name": "x", "value": "[2.0]", "requires_grad": True},
        {"op": "add_op", "op_name": "pow", "inputs": ["x"], "name": "y"},
        {"op": "add_op", "op_name": "mul", "inputs": [2, "y"], "name": "z"},
        {"op": "backward", "target": "z"},
    ]:
        p = apply_edit(p, intent).program
    assert p == ("import torch\nx = torch.tensor([2.0], requires_grad=True)\ny = x ** 2\n"
                 "z = 2 * y\nz.backward()\n")
    got = tensors(run_ok(p))
    expected = [4 * v for v in data(got["x"]["value"])]  # d(2x^2)/dx
    if real_torch is not None:
        expected = torch_locals(p)["x"].grad.tolist()
    assert data(got["x"]["grad"]) == expected == [8.0]


def test_add_leaf_to_an_empty_program_adds_the_import():
    r = apply("", op="add_leaf", value="[2.0, 3.0]", requires_grad=True)
    assert r.program == "import torch\na = torch.tensor([2.0, 3.0], requires_grad=True)\n"
    assert r.changed_lines == [1, 2] and r.name == "a" and "import torch" in r.info


def test_add_leaf_after_opening_comments_keeps_them_and_a_missing_final_newline():
    r = apply("# my graph", op="add_leaf", value="1.5", requires_grad=False, name="k")
    assert r.program == "# my graph\nimport torch\nk = torch.tensor(1.5)"
    assert r.changed_lines == [2, 3]


def test_add_leaf_goes_after_the_last_leaf_and_keeps_every_other_byte():
    r = apply(MESSY, op="add_leaf", value="[1.0, 2.0]", requires_grad=True, name="v")
    new = lines(r.program)
    assert new[r.changed_lines[0] - 1] == "v = torch.tensor([1.0, 2.0], requires_grad=True)"
    assert r.changed_lines == [6]  # right after `w = ...`, the last leaf
    assert without(r.program, r.changed_lines) == lines(MESSY)
    grads_match_torch(r.program, ["x", "v"])


def test_add_leaf_without_leaves_goes_after_the_imports():
    p = "import torch\nimport torch.nn as nn\n\nprint('hi')\n"
    r = apply(p, op="add_leaf", value="2.0", requires_grad=True)
    assert r.program == ("import torch\nimport torch.nn as nn\na = torch.tensor(2.0, "
                         "requires_grad=True)\n\nprint('hi')\n")


def test_add_leaf_adds_import_torch_when_only_a_namespace_is_imported():
    p = "import torch.nn.functional as F\n"
    r = apply(p, op="add_leaf", value="[1.0]", requires_grad=True, name="x")
    assert r.program == ("import torch\nimport torch.nn.functional as F\n"
                         "x = torch.tensor([1.0], requires_grad=True)\n")
    run_ok(r.program)


def test_add_leaf_uses_the_programs_own_torch_alias():
    r = apply("import torch as T\n", op="add_leaf", value="[1.0]", requires_grad=True,
              dtype="float64")
    assert r.program == "import torch as T\na = T.tensor([1.0], dtype=T.float64, requires_grad=True)\n"
    assert tensors(run_ok(r.program))["a"]["dtype"] == "float64"


def test_add_leaf_default_names_never_collide():
    p = "import torch\na = torch.ones(1)\nb = a * 2\nprint(c)\n"  # c is used (not bound)
    assert apply(p, op="add_leaf", value="1.0", requires_grad=False).name == "d"
    every = "import torch\n" + "".join(f"{ch} = 1\n" for ch in "abcdefghijklmnopqrstuvwxyz")
    assert apply(every, op="add_leaf", value="1.0", requires_grad=False).name == "a1"


def test_add_leaf_writes_an_int_as_typed():
    r = apply("import torch\n", op="add_leaf", value=" 2 ", requires_grad=False, name="n")
    assert lines(r.program)[1] == "n = torch.tensor(2)"
    assert tensors(run_ok(r.program))["n"]["dtype"] == "int64"


@pytest.mark.parametrize("value, hint", [("2", "write 2.0"), ("[1, 2]", "write [1.0, 2.0]"),
                                         ("[True, -3]", "write [1.0, -3.0]")])
def test_add_leaf_refuses_requires_grad_on_ints(value, hint):
    with pytest.raises(EditError) as e:
        apply("import torch\n", op="add_leaf", value=value, requires_grad=True)
    assert e.value.field == "value"
    assert e.value.message == f"only floating point tensors can require gradients; {hint}"
    if real_torch is not None:  # and torch agrees it must refuse
        with pytest.raises(RuntimeError, match="floating point"):
            real_torch.tensor(ast.literal_eval(value), requires_grad=True)


def test_add_leaf_ints_with_a_float_dtype_may_require_grad():
    r = apply("import torch\n", op="add_leaf", value="[1, 2]", requires_grad=True,
              dtype="float32", name="x")
    assert lines(r.program)[1] == "x = torch.tensor([1, 2], dtype=torch.float32, requires_grad=True)"
    run_ok(r.program)
    with pytest.raises(EditError) as e:
        apply("import torch\n", op="add_leaf", value="[1.0]", requires_grad=True, dtype="int64")
    assert e.value.field == "dtype"


def test_add_leaf_puts_a_bare_tuple_in_parentheses():
    r = apply("import torch\n", op="add_leaf", value="1.0, 2.0", requires_grad=True, name="x")
    assert lines(r.program)[1] == "x = torch.tensor((1.0, 2.0), requires_grad=True)"
    assert data(tensors(run_ok(r.program))["x"]["value"]) == [1.0, 2.0]


def test_add_leaf_accepts_a_json_number():
    r = apply("import torch\n", op="add_leaf", value=2.5, requires_grad=True, name="x")
    assert lines(r.program)[1] == "x = torch.tensor(2.5, requires_grad=True)"


@pytest.mark.parametrize("value", [
    "x + 1", "__import__('os')", "'a'", "[1.0, 'a']", "{1.0}", "1j", "[[1.0], [2.0, 3.0]]",
    "[1.0] # c", "[1.0,\n2.0]", "", "   ", "[", "None", "[None]", "...", "-True", "float('nan')",
    "[" * 40 + "]" * 40, "\x00", "1" * 5000, 1e400, 10**400,
])
def test_add_leaf_refuses_what_is_not_a_literal(value):
    with pytest.raises(EditError) as e:
        apply("import torch\n", op="add_leaf", value=value, requires_grad=False)
    assert e.value.field == "value" and e.value.message


@pytest.mark.parametrize("name, why", [
    ("1a", "not a valid name"), ("a b", "not a valid name"), ("class", "keyword"),
    ("__x__", "starting with _"), ("_x", "starting with _"), ("torch", "shadow"), ("nn", "shadow"),
    ("F", "shadow"), ("optim", "shadow"), ("print", "builtin"), ("range", "builtin"),
    ("x", "already used"), ("", "empty"), ("x" * 65, "too long"), ("ﬁ", "write this name as fi"),
])
def test_new_names_are_checked(name, why):
    with pytest.raises(EditError) as e:
        apply(SQUARE, op="add_leaf", value="1.0", requires_grad=False, name=name)
    assert e.value.field == "name" and why in e.value.message


# == add_op =======================================================================================

PALETTE_PROGRAM = prog("""
    import torch
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    w = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
""")
PARAMS = {"pow": {"exponent": 3}, "clamp": {"min": 1.5, "max": "3.5"}, "softmax": {"dim": 0},
          "reshape": {"shape": "(4,)"}}


@pytest.mark.parametrize("entry", PALETTE, ids=[e["name"] for e in PALETTE])
def test_every_palette_entry_writes_code_that_runs_like_torch(entry):
    inputs = ["x", "w"][:entry["arity"]]
    r = apply(PALETTE_PROGRAM, op="add_op", op_name=entry["name"], inputs=inputs,
              params=PARAMS.get(entry["name"], {}), name="out")
    assert r.changed_lines == [1 + 1 + len(inputs)] and r.name == "out"  # after its last input
    assert without(r.program, r.changed_lines) == lines(PALETTE_PROGRAM)
    p = apply(r.program, op="add_op", op_name="sum", inputs=["out"], name="total").program
    p = apply(p, op="backward", target="total").program
    timeline = run_program(p)
    torch_error = None
    if real_torch is not None:
        try:
            torch_locals(p)
        except RuntimeError as e:  # e.g. zero_ on a leaf that requires grad
            torch_error = e
        assert timeline["ok"] == (torch_error is None), (timeline["error"], torch_error)
    if timeline["ok"]:
        grads_match_torch(p, ["x"] + (["w"] if entry["arity"] == 2 else []))


def test_add_op_goes_after_the_last_binding_of_its_inputs():
    r = apply(SQUARE, op="add_op", op_name="mul", inputs=["x", "y"])
    assert lines(r.program)[3] == "a = x * y" and r.changed_lines == [4]
    assert without(r.program, r.changed_lines) == lines(SQUARE)


def test_add_op_after_a_loop_goes_after_the_whole_loop():
    p = prog("""
        import torch
        x = torch.tensor([1.0], requires_grad=True)
        for i in range(3):
            x = x * 2  # doubles
        print(x)
    """)
    r = apply(p, op="add_op", op_name="exp", inputs=["x"], name="e")
    assert lines(r.program)[4] == "e = x.exp()"
    run_ok(r.program)


def test_add_op_writes_negative_numbers_in_parentheses():
    r = apply(SQUARE, op="add_op", op_name="sub", inputs=["y", -1.5])
    assert "a = y - (-1.5)" in lines(r.program)
    run_ok(r.program)


@pytest.mark.parametrize("intent, field", [
    ({"op_name": "nope", "inputs": ["x"]}, "op_name"),
    ({"op_name": "mul", "inputs": ["x"]}, "inputs"),
    ({"op_name": "exp", "inputs": ["x", "y"]}, "inputs"),
    ({"op_name": "exp", "inputs": ["nope"]}, "inputs"),
    ({"op_name": "exp", "inputs": ["torch"]}, "inputs"),
    ({"op_name": "exp", "inputs": [2]}, "inputs"),
    ({"op_name": "mul", "inputs": [2, 3]}, "inputs"),
    ({"op_name": "mul", "inputs": [True, "x"]}, "inputs"),
    ({"op_name": "mul", "inputs": [float("inf"), "x"]}, "inputs"),
    ({"op_name": "cat", "inputs": ["x", 1.0]}, "inputs"),
    ({"op_name": "pow", "inputs": ["x"], "params": {"nope": 2}}, "params"),
    ({"op_name": "pow", "inputs": ["x"], "params": {"exponent": "y"}}, "params"),
    ({"op_name": "pow", "inputs": ["x"], "params": {"exponent": [2]}}, "params"),
    ({"op_name": "pow", "inputs": ["x"], "params": {"exponent": 2}, "name": "y"}, "name"),
])
def test_add_op_refuses_bad_intents(intent, field):
    with pytest.raises(EditError) as e:
        apply_edit(SQUARE, {"op": "add_op", **intent})
    assert e.value.field == field


# == set_value and set_requires_grad ==============================================================

def test_set_value_splices_only_the_data_with_non_ascii_text_before_it():
    r = apply(MESSY, op="set_value", target="x", value="[5.0, 7.0]")
    expected = MESSY.replace("( [2.0, 3.0] ,", "( [5.0, 7.0] ,")
    assert r.program == expected and r.changed_lines == [4]
    grads_match_torch(r.program, ["x"])


def test_set_value_rewrites_another_factory_keeping_dtype_and_requires_grad():
    p = "import torch\nx = torch.ones(2, dtype=torch.float64, requires_grad=True)  # ones\n"
    r = apply(p, op="set_value", target="x", value="[1, 2]")
    assert r.program == ("import torch\nx = torch.tensor([1, 2], dtype=torch.float64, "
                         "requires_grad=True)  # ones\n")
    assert data(tensors(run_ok(r.program))["x"]["value"]) == [1.0, 2.0]


def test_set_value_inside_a_parameter():
    p = "import torch\nimport torch.nn as nn\nw = nn.Parameter(torch.randn(2))\n"
    r = apply(p, op="set_value", target="w", value="[1.0, 2.0]")
    assert lines(r.program)[2] == "w = nn.Parameter(torch.tensor([1.0, 2.0]))"
    run_ok(r.program)


def test_set_value_picks_the_binding_on_the_given_line():
    p = "import torch\nx = torch.tensor([1.0])\nx = torch.tensor([2.0])\n"
    assert lines(apply(p, op="set_value", target="x", value="9.0", line=2).program)[1] == \
        "x = torch.tensor(9.0)"
    assert lines(apply(p, op="set_value", target="x", value="9.0").program)[2] == \
        "x = torch.tensor(9.0)"
    with pytest.raises(EditError) as e:
        apply(p, op="set_value", target="x", value="9.0", line=1)
    assert e.value.field == "line"


def test_set_value_refuses_ints_on_a_leaf_that_requires_grad_and_non_leaves():
    with pytest.raises(EditError) as e:
        apply(SQUARE, op="set_value", target="x", value="[3]")
    assert "write [3.0]" in e.value.message
    with pytest.raises(EditError) as e:
        apply(SQUARE, op="set_value", target="y", value="[3.0]")
    assert e.value.field == "target" and "y = x**2" in e.value.message


@pytest.mark.parametrize("before, value, after", [
    ("x = torch.tensor([2.0])", True, "x = torch.tensor([2.0], requires_grad=True)"),
    ("x = torch.tensor([2.0], requires_grad=False)", True,
     "x = torch.tensor([2.0], requires_grad=True)"),
    ("x = torch.tensor([2.0], requires_grad=True)", False, "x = torch.tensor([2.0])"),
    ("x = torch.tensor([2.0], requires_grad=True,)", False, "x = torch.tensor([2.0],)"),
    ("x = torch.tensor(requires_grad=True, data=[2.0])", False, "x = torch.tensor(data=[2.0])"),
    ("x = torch.ones( 2 )  # é", True, "x = torch.ones( 2, requires_grad=True )  # é"),
    ("x = torch.tensor([2.0],  # data\n    requires_grad=True)", False,
     "x = torch.tensor([2.0]  # data\n    )"),
])
def test_set_requires_grad_adds_replaces_or_drops_the_keyword(before, value, after):
    p = f"import torch\n{before}\nprint(x)\n"
    r = apply(p, op="set_requires_grad", target="x", value=value)
    assert r.program == f"import torch\n{after}\nprint(x)\n"
    assert tensors(run_ok(r.program))["x"]["requires_grad"] is value


def test_set_requires_grad_on_a_parameter_spells_out_only_false():
    p = "import torch\nimport torch.nn as nn\nw = nn.Parameter(torch.randn(2))\n"
    r = apply(p, op="set_requires_grad", target="w", value=False)
    assert lines(r.program)[2] == "w = nn.Parameter(torch.randn(2), requires_grad=False)"
    assert apply(r.program, op="set_requires_grad", target="w", value=True).program == p


def test_set_requires_grad_that_is_already_so_changes_nothing():
    r = apply(SQUARE, op="set_requires_grad", target="x", value=True)
    assert r.program == SQUARE and r.changed_lines == [] and "already" in r.info


@pytest.mark.parametrize("before", ["x = torch.tensor([1, 2])", "x = torch.arange(3)",
                                    "x = torch.tensor([1.0], dtype=torch.int64)"])
def test_set_requires_grad_refuses_integer_tensors(before):
    with pytest.raises(EditError) as e:
        apply(f"import torch\n{before}\n", op="set_requires_grad", target="x", value=True)
    assert "floating point" in e.value.message


# == rename =======================================================================================

def test_rename_changes_names_only_not_strings_comments_or_keywords():
    r = apply(MESSY, op="rename", target="x", new_name="entrée")
    assert r.program == MESSY.replace("; x  =", "; entrée  =").replace("y = x*w", "y = entrée*w")
    assert r.changed_lines == [4, 7] and r.name == "entrée"
    p = "import torch\ndim = 0\nx = torch.ones(2, 2)\ns = x.sum(dim=dim)\nx.grad = None\n"
    r = apply(p, op="rename", target="dim", new_name="axis")
    assert r.program == p.replace("dim = 0", "axis = 0").replace("dim=dim", "dim=axis")
    r = apply(p, op="rename", target="x", new_name="t")
    assert r.program == p.replace("x = torch", "t = torch").replace("x.", "t.")
    run_ok(r.program)


@pytest.mark.parametrize("target, new_name, field", [
    ("x", "y", "new_name"), ("x", "print", "new_name"), ("torch", "t", "target"),
    ("nope", "t", "target"), ("x", "1x", "new_name"),
])
def test_rename_refuses_collisions_and_unknown_names(target, new_name, field):
    with pytest.raises(EditError) as e:
        apply(SQUARE, op="rename", target=target, new_name=new_name)
    assert e.value.field == field


# == delete =======================================================================================

def test_delete_without_cascade_lists_the_dependents():
    with pytest.raises(EditError) as e:
        apply(SQUARE, op="delete", target="y")
    assert e.value.dependents == [("z", 4, "z = 2*y"), (None, 5, "z.backward()")]
    assert "z = 2*y (line 4) uses y" in e.value.message
    assert "z.backward() (line 5) uses z" in e.value.message
    assert dependents(SQUARE, "y") == e.value.dependents
    assert dependents(SQUARE, "x") == [("y", 3, "y = x**2"), ("z", 4, "z = 2*y"),
                                     (None, 5, "z.backward()"), (None, 6, "print(x.grad)")]


def test_delete_with_cascade_removes_what_depends_on_it():
    r = apply(SQUARE, op="delete", target="y", cascade=True)
    assert r.program == "import torch\nx = torch.tensor([2.0], requires_grad=True)\nprint(x.grad)\n"
    assert r.info == ("removed y = x**2 (line 3) and what used it: z = 2*y (line 4), "
                      "z.backward() (line 5)")
    assert r.changed_lines == []
    run_ok(r.program)


def test_delete_a_node_nothing_uses_keeps_everything_else():
    r = apply(MESSY, op="add_leaf", value="[1.0]", requires_grad=True, name="v")
    back = apply(r.program, op="delete", target="v")
    assert back.program == MESSY and back.info == "removed v = torch.tensor([1.0], " \
        "requires_grad=True) (line 6)"


def test_delete_splices_statements_that_share_a_line():
    p = "import torch\nx = torch.ones(2); y = x * 2; z = x.sum()  # three\nprint(z)\n"
    r = apply(p, op="delete", target="y")
    assert r.program == "import torch\nx = torch.ones(2); z = x.sum()  # three\nprint(z)\n"
    assert r.changed_lines == [2]
    r = apply(p, op="delete", target="z", cascade=True)
    assert r.program == "import torch\nx = torch.ones(2); y = x * 2  # three\n"


def test_delete_in_a_block_removes_the_line_and_an_emptied_block():
    p = prog("""
        import torch
        x = torch.ones(2, requires_grad=True)
        with torch.no_grad():
            # scaled copy
            y = x * 2
            w = x + 1
        for i in range(2): v = w * i
        print(x)
    """)
    r = apply(p, op="delete", target="y")
    assert r.program == p.replace("    y = x * 2\n", "")
    r = apply(p, op="delete", target="w", cascade=True)  # the loop held only `v = w * i`
    assert r.program == p.replace("    w = x + 1\n", "").replace("for i in range(2): v = w * i\n", "")
    r = apply(p, op="delete", target="x", cascade=True)
    assert r.program == "import torch\n"  # the with block went with its statements


def test_delete_a_statement_that_binds_two_names_takes_the_other_ones_users():
    p = "import torch\nx = torch.tensor([3.0, 1.0])\nvalues, indices = x.max(dim=0)\nprint(indices)\n"
    with pytest.raises(EditError) as e:
        apply(p, op="delete", target="values")
    assert e.value.dependents == [(None, 4, "print(indices)")]


def test_delete_keeps_statements_after_a_kept_rebinding():
    p = "import torch\ny = torch.ones(1)\nw = y * 2\nw = torch.zeros(1)\nprint(w)\n"
    assert dependents(p, "y") == [("w", 3, "w = y * 2")]
    r = apply(p, op="delete", target="y", cascade=True)
    assert r.program == "import torch\nw = torch.zeros(1)\nprint(w)\n"


def test_delete_follows_a_chain_of_uses_around_a_loop_for_as_many_turns_as_it_needs():
    # on the third turn `a` reads the `b` that `b = c * 1` made from the `c` made from y
    p = prog("""
        import torch
        y = torch.ones(1)
        a = b = c = torch.zeros(1)
        for i in range(3):
            a = b * 1
            b = c * 1
            c = y * 1
        print(a)
    """)
    assert [line for _n, line, _t in dependents(p, "y")] == [5, 6, 7, 8]


def _nested_loops(depth: int, uses: str) -> str:
    lines = ["import torch", "x = torch.ones(1)", "y = x * 2"]
    for d in range(depth):
        lines.append("    " * d + f"for i{d} in range(1):")
        lines.append("    " * (d + 1) + f"w{d} = {uses} + {d}")
    lines.append("print(x)")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("uses", ["x", "y"])
def test_delete_reads_each_statement_a_bounded_number_of_times_whatever_the_loop_depth(
        monkeypatch, uses):
    # loops that stay were read twice per level (2**depth readings of the innermost);
    # loops that go were walked again by every enclosing loop's second reading (depth**2)
    import playground.edits.delete as delete_module

    calls = []
    for name in ("stmt_loads", "stmt_stores"):
        real = getattr(delete_module, name)
        monkeypatch.setattr(delete_module, name,
                            lambda s, real=real: calls.append(s) or real(s))
    for depth in (20, 40):
        calls.clear()
        p = _nested_loops(depth, uses)
        r = apply(p, op="delete", target="y", cascade=True)
        if uses == "y":  # every w_d used y, so each loop was left empty and went with it
            assert r.program == "import torch\nx = torch.ones(1)\nprint(x)\n"
        else:
            assert r.program == p.replace("y = x * 2\n", "")
        statements = 3 + 2 * depth + 1
        assert len(calls) <= 8 * statements, (depth, len(calls))


def test_delete_refuses_loop_variables_and_imports():
    p = "import torch\nfor i in range(2):\n    print(i)\n"
    with pytest.raises(EditError, match="loop variable"):
        apply(p, op="delete", target="i")
    with pytest.raises(EditError, match="import"):
        apply(p, op="delete", target="torch")


# == statements about a variable ==================================================================

def test_backward_appends_with_gradient_and_retain_graph():
    p = "import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\ny = x * 3"
    r = apply(p, op="backward", target="y", gradient="[1.0, 0.5]", retain_graph=True)
    assert r.program == p + "\ny.backward(gradient=torch.tensor([1.0, 0.5]), retain_graph=True)"
    assert r.changed_lines == [4]
    grads_match_torch(r.program, ["x"])


def test_backward_keeps_windows_line_endings():
    p = SQUARE.replace("\n", "\r\n")
    r = apply(p, op="backward", target="z", retain_graph=False)
    assert r.program == p + "z.backward()\r\n"


def test_retain_grad_goes_right_after_the_binding():
    r = apply(SQUARE, op="retain_grad", target="y")
    assert lines(r.program)[3] == "y.retain_grad()" and r.changed_lines == [4]
    assert without(r.program, r.changed_lines) == lines(SQUARE)
    got = tensors(run_ok(r.program))
    assert got["y"]["retains_grad"] is True
    grads_match_torch(r.program, ["x", "y"])
    again = apply(r.program, op="retain_grad", target="y")
    assert again.program == r.program and "already" in again.info


def test_retain_grad_inside_a_loop_and_on_a_shared_line():
    p = "import torch\nx = torch.ones(2, requires_grad=True)\nfor i in range(2):\n\ty = x * i\n"
    r = apply(p, op="retain_grad", target="y")
    assert r.program == p + "\ty.retain_grad()\n"
    p = "import torch\nx = torch.ones(2, requires_grad=True); y = x * 2; s = y.sum()\ns.backward()\n"
    r = apply(p, op="retain_grad", target="y")
    assert lines(r.program)[1] == "x = torch.ones(2, requires_grad=True); y = x * 2; " \
        "y.retain_grad(); s = y.sum()"
    grads_match_torch(r.program, ["x", "y"])


def test_detach_adds_a_new_name_after_the_binding():
    r = apply(SQUARE, op="detach", target="y")
    assert lines(r.program)[3] == "y_d = y.detach()" and r.name == "y_d"
    got = tensors(run_ok(r.program))
    assert got["y_d"]["requires_grad"] is False
    assert apply(r.program, op="detach", target="y").name == "y_d2"


@pytest.mark.parametrize("intent, line", [
    ({"op": "zero_grad", "target": "x"}, "x.grad.zero_()"),
    ({"op": "grad_none", "target": "x"}, "x.grad = None"),
    ({"op": "inplace", "target": "z", "method": "add_", "args": " 1.0 "}, "z.add_(1.0)"),
    ({"op": "inplace", "target": "z", "method": "clamp_", "args": "min=0.0, max=1.0"},
     "z.clamp_(min=0.0, max=1.0)"),
    ({"op": "inplace", "target": "z", "method": "zero_"}, "z.zero_()"),
])
def test_appended_statements_run_like_torch(intent, line):
    r = apply_edit(SQUARE, intent)
    assert r.program == SQUARE + line + "\n" and r.changed_lines == [7]
    grads_match_torch(r.program, ["x"])


@pytest.mark.parametrize("method, args", [
    ("add_", ""), ("zero_", "1.0"), ("clamp_", ""), ("mul_", "x"), ("add_", "1.0, 2.0"),
    ("fill_", "value=1.0"), ("clamp_", "*a"), ("clamp_", "1), (2"), ("clamp_", "min=0 # c"),
    ("exp_", "1.0"),
])
def test_inplace_checks_its_arguments(method, args):
    with pytest.raises(EditError) as e:
        apply(SQUARE, op="inplace", target="x", method=method, args=args)
    assert e.value.field in ("args", "method")


# == no_grad ======================================================================================

def test_no_grad_wraps_statements_with_their_comments():
    p = prog("""
        import torch
        x = torch.tensor([2.0], requires_grad=True)
        # under no_grad: no graph
        y = x * 2  # é
        z = y + 1
        print(z.requires_grad)
    """)
    r = apply(p, op="no_grad", start_line=3, end_line=5)
    assert r.program == prog("""
        import torch
        x = torch.tensor([2.0], requires_grad=True)
        with torch.no_grad():
            # under no_grad: no graph
            y = x * 2  # é
            z = y + 1
        print(z.requires_grad)
    """)
    assert r.changed_lines == [3, 4, 5, 6]
    got = tensors(run_ok(r.program))
    assert got["z"]["requires_grad"] is False
    if real_torch is not None:
        assert torch_locals(r.program)["z"].requires_grad is False


def test_no_grad_uses_the_programs_indentation_and_spares_multiline_strings():
    p = 'import torch\nx = torch.ones(1)\nfor i in range(2):\n  x = x + 1\ns = """a\nb"""\n'
    r = apply(p, op="no_grad", start_line=3, end_line=6)
    assert r.program == ('import torch\nx = torch.ones(1)\nwith torch.no_grad():\n'
                         '  for i in range(2):\n    x = x + 1\n  s = """a\nb"""\n')
    run_ok(r.program)
    tabs = "import torch\nfor i in range(2):\n\tx = i\ny = 1\n"
    assert apply(tabs, op="no_grad", start_line=4, end_line=4).program == \
        "import torch\nfor i in range(2):\n\tx = i\nwith torch.no_grad():\n\ty = 1\n"


@pytest.mark.parametrize("start, end, why", [
    (4, 5, "cut the statement"), (2, 3, "cut the statement"), (1, 2, "imports"),
    (0, 2, "not lines"), (2, 99, "not lines"), (3, 2, "not lines"), (6, 6, "no statements"),
])
def test_no_grad_refuses_ranges_that_cut_statements(start, end, why):
    p = "import torch\nx = torch.ones(1)\nfor i in range(2):\n    x = x + 1\n\n\n"
    with pytest.raises(EditError) as e:
        apply(p, op="no_grad", start_line=start, end_line=end)
    assert why in e.value.message


# == stable ids ===================================================================================

@pytest.mark.parametrize("intent", [
    {"op": "add_leaf", "value": "[1.0]", "requires_grad": True},
    {"op": "add_op", "op_name": "exp", "inputs": ["x"]},
    {"op": "retain_grad", "target": "y"},
    {"op": "set_value", "target": "x", "value": "[3.0]"},
    {"op": "no_grad", "start_line": 6, "end_line": 6},
])
def test_untouched_tensors_keep_their_ids(intent):
    old = run_program(SQUARE)
    new = run_program(apply_edit(SQUARE, intent).program, previous=old)
    assert new["ok"]
    before = {n: t["id"] for n, t in tensors(old).items()}
    after = {n: t["id"] for n, t in tensors(new).items()}
    assert set(before) == {"x", "y", "z"}
    assert {n: after[n] for n in before} == before


# == contract: malformed intents and programs =====================================================

@pytest.mark.parametrize("intent, field", [
    ("retain_grad", None), (None, None), ([], None), ({}, "op"), ({"op": "nope"}, "op"),
    ({"op": 3}, "op"), ({"op": "set_program", "program": ""}, "op"),
    ({"op": "retain_grad"}, "target"), ({"op": "retain_grad", "target": 3}, "target"),
    ({"op": "retain_grad", "target": "y", "extra": 1}, "extra"),
    ({"op": "retain_grad", "target": "y", "version": 2}, "version"),
    ({"op": "add_leaf", "value": "1.0", "requires_grad": 1}, "requires_grad"),
    ({"op": "add_leaf", "value": None, "requires_grad": True}, "value"),
    ({"op": "no_grad", "start_line": True, "end_line": 2}, "start_line"),
    ({"op": "add_op", "op_name": "mul", "inputs": "x, y"}, "inputs"),
    ({"op": "add_op", "op_name": "mul", "inputs": ["x", "y"], "params": []}, "params"),
    ({"op": "retain_grad", "target": "nope"}, "target"),
    ({"op": "retain_grad", "target": "print"}, "target"),
])
def test_malformed_intents_raise_edit_error_naming_the_field(intent, field):
    with pytest.raises(EditError) as e:
        apply_edit(SQUARE, intent)
    assert e.value.field == field and isinstance(e.value, ValueError)
    assert json.dumps(e.value.to_dict())


def test_a_program_that_does_not_parse_is_refused_with_its_line():
    with pytest.raises(EditError, match="fix the syntax error on line 4 first"):
        apply_edit(SQUARE.replace("z = 2*y", "z = 2*(y"), {"op": "backward", "target": "z"})
    with pytest.raises(EditError):
        apply_edit(None, {"op": "backward", "target": "z"})


def test_versioned_intents_and_result_json():
    r = apply_edit(SQUARE, {"op": "retain_grad", "target": "y", "version": EDIT_VERSION})
    assert json.loads(json.dumps(r.to_dict()))["changed_lines"] == [4]


def test_bound_names_lists_variables_in_binding_order():
    assert bound_names(MESSY) == ["label", "x", "w", "y", "s"]
    assert bound_names("import torch\nfor i in range(2):\n    a = i\n") == ["i", "a"]


def test_every_intent_is_documented():
    doc = (__import__("pathlib").Path(__file__).resolve().parent.parent / "docs" / "edits.md")
    text = doc.read_text(encoding="utf-8")
    for op, spec in INTENTS.items():
        assert f"`{op}`" in text, op
        for key in [*spec["required"], *spec["optional"]]:
            assert f"`{key}`" in text, (op, key)


# == fuzzing ======================================================================================

LOOPY = prog("""
    import torch
    import torch.nn as nn
    x = torch.tensor([[1.0, 2.0]], requires_grad=True)  # é
    w = nn.Parameter(torch.ones(2, 2)); b = torch.zeros(2)
    for i in range(2):
        x = x @ w + b; x.retain_grad()
    with torch.no_grad():
        v = x * 2
    s = x.sum()
    s.backward()
""")
PROGRAMS = [SQUARE, MESSY, LOOPY, "", "# only a comment", SQUARE.replace("\n", "\r\n"),
            "import torch\nx = (", "x = 1\n\x00"]
NAME_POOL = ["x", "y", "z", "w", "b", "v", "s", "i", "torch", "nn", "nope", "", "1a", "é", "_p",
             "class", "print", "a b", "x" * 70]
_text = st.text(max_size=12)
_atoms = (st.none() | st.booleans() | st.integers() | st.floats() | _text
          | st.sampled_from(NAME_POOL)
          | st.sampled_from(["[2.0]", "2", "2.0, 3.0", "[[1.0], [2.0, 3.0]]", "x + 1", "'s'",
                             "[1,\n2]", "(", "1e999", "-1", "True", "[" * 50, "None", "1.0 # c",
                             "min=0.0", "1), (2", "(4,)"]))
_values = st.recursive(_atoms, lambda inner: st.lists(inner, max_size=3)
                       | st.dictionaries(_text | st.sampled_from(["exponent", "dim", "shape"]),
                                         inner, max_size=3), max_leaves=8)
_FIELDS = sorted({k for spec in INTENTS.values() for part in spec.values() for k in part})
_intents = st.fixed_dictionaries(
    {"op": st.sampled_from([*INTENTS, "nope", ""]) | _values},
    optional={k: _values for k in [*_FIELDS, "version", "extra"]})
_structured = st.builds(
    lambda op, fields: {"op": op, **fields}, st.sampled_from(list(INTENTS)),
    st.fixed_dictionaries({}, optional={
        "target": st.sampled_from(NAME_POOL), "name": st.sampled_from(NAME_POOL),
        "new_name": st.sampled_from(NAME_POOL), "value": st.booleans() | _atoms,
        "requires_grad": st.booleans(), "cascade": st.booleans(),
        "inputs": st.lists(st.sampled_from(NAME_POOL) | st.integers(-3, 3), max_size=3),
        "op_name": st.sampled_from([e["name"] for e in PALETTE] + ["nope"]),
        "start_line": st.integers(-1, 12), "end_line": st.integers(-1, 12),
        "method": st.sampled_from([*__import__("playground.edits").edits.INPLACE_METHODS, "x"]),
        "args": _atoms.filter(lambda a: isinstance(a, str)),
        "gradient": _atoms, "line": st.integers(0, 12), "dtype": st.sampled_from(
            ["float32", "int64", "bool", "float64", "half"])}))


def _check_outcome(program, intent) -> None:
    try:
        result = apply_edit(program, intent)
    except EditError as e:
        assert isinstance(e.message, str) and e.message
        assert e.field is None or isinstance(e.field, str)
        json.dumps(e.to_dict())
        return
    ast.parse(result.program)
    n = len(lines(result.program))
    assert all(1 <= ln <= n for ln in result.changed_lines)
    if intent["op"] in ("add_leaf", "add_op", "backward", "detach", "zero_grad", "grad_none",
                        "inplace") or (intent["op"] == "retain_grad" and "; " not in
                                       "".join(lines(result.program)[ln - 1]
                                               for ln in result.changed_lines)):
        # whole lines were added and nothing else moved
        assert without(result.program, result.changed_lines) == lines(program)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program=st.sampled_from(PROGRAMS) | st.text(max_size=40), intent=_intents | _values)
def test_fuzz_arbitrary_intents_raise_only_edit_error(program, intent):
    _check_outcome(program, intent)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program=st.sampled_from(PROGRAMS), intent=_structured)
def test_fuzz_plausible_intents_keep_the_program_parsing(program, intent):
    _check_outcome(program, intent)
