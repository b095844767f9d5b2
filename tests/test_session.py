"""Sessions and timelines (docs/timeline.md): every timeline validates against
playground/timeline_schema.json, events come in torch's order, ids are stable across edits,
values are summarised beyond the display size, and trace() records plain engine code."""

from __future__ import annotations

import json
import math
import pathlib
import textwrap
import time

import jsonschema
import pytest

import engine as torch
from playground import TIMELINE_VERSION, Limits, run_program
from playground.recorder import DISPLAY_ELEMENTS, SUMMARY_FIRST
from playground.trace import trace

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "playground" / "timeline_schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
ACC = "torch::autograd::AccumulateGrad"


def prog(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


SQUARE = prog("""
    import torch
    x = torch.tensor([2.0], requires_grad=True)
    y = x**2
    z = 2*y
    z.backward()
    print(x.grad)
""")

# What common autograd tutorials teach, as straight-line programs (classes inlined, try/except dropped,
# f-strings turned into print arguments), plus one program per feature the timeline shows.
PROGRAMS = {
    "tutorial_basic": SQUARE,
    "tutorial_two_variables": prog("""
        import torch
        x = torch.tensor([2.0], requires_grad=True)
        y = torch.tensor([3.0], requires_grad=True)
        z = x**2 + y**3
        z.backward()
        print(x.grad)
        print(y.grad)
    """),
    "tutorial_pow_sum": prog("""
        import torch
        x = torch.tensor([2.0, 3.0], requires_grad=True)
        print(x.grad)
        y = x.pow(2).sum()
        y.backward()
        print(x.grad)
        x.grad.zero_()
        print(x.grad)
    """),
    "tutorial_vector_backward": prog("""
        import torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.backward(torch.tensor([1.0, 1.0]))
        print(x.grad)
    """),
    "tutorial_retain_grad": prog("""
        import torch
        x = torch.tensor(2.0, requires_grad=True)
        y = x * x
        z = y * 3
        y.retain_grad()
        z.backward()
        print(y.grad)
    """),
    "tutorial_leaf_inplace_error": prog("""
        import torch
        x = torch.tensor(2.0, requires_grad=True)
        x += 1
        y = x * x
        y.backward()
    """),
    "tutorial_linear": prog("""
        import torch
        x = torch.tensor(2.0, requires_grad=True)
        w = torch.tensor(3.0, requires_grad=True)
        b = torch.tensor(1.0, requires_grad=True)
        y = w * x + b
        y.backward()
        print("Gradient of y with respect to x (dy/dx):", x.grad)
        print("Gradient of y with respect to w (dy/dw):", w.grad)
        print("Gradient of y with respect to b (dy/db):", b.grad)
        z = torch.tensor(4.0, requires_grad=False)
        print("Gradient for tensor z (requires_grad=False):", z.grad)
    """),
    "tutorial_linear_model": prog("""
        import torch
        import torch.nn as nn
        import torch.optim as optim
        model = nn.Linear(1, 1)
        criterion = nn.MSELoss()
        optimizer = optim.SGD(model.parameters(), lr=0.01)
        input_data = torch.tensor([[2.0]], requires_grad=True)
        target_data = torch.tensor([[5.0]])
        output = model(input_data)
        output *= 2.0
        loss = criterion(output, target_data)
        loss.backward()
        print("Gradient of linear weight:", model.weight.grad)
        optimizer.step()
        optimizer.zero_grad()
    """),
    "tutorial_no_grad_block": prog("""
        import torch
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x + 2
        with torch.no_grad():
            z = y * y
        z.backward()
    """),
    "tutorial_clone_add_": prog("""
        import torch
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x.clone()
        y.add_(2)
        z = (y * y).sum()
        z.backward()
        print(x.grad)
    """),
    "accumulate_retain_graph": prog("""
        import torch
        x = torch.tensor([2.0], requires_grad=True)
        y = x**2
        z = 2*y
        z.backward(retain_graph=True)
        print(x.grad)
        z.backward()
        print(x.grad)
    """),
    "backward_twice": prog("""
        import torch
        x = torch.tensor([2.0], requires_grad=True)
        y = x**2
        z = 2*y
        z.backward()
        print(x.grad)
        z.backward()
        print("never")
    """),
    "zero_and_none": prog("""
        import torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        (x * 3).sum().backward()
        x.grad.zero_()
        print(x.grad)
        (x * x).sum().backward()
        x.grad = None
        print(x.grad)
    """),
    "optimizer_zero_grad": prog("""
        import torch
        w = torch.tensor([1.0, -1.0], requires_grad=True)
        opt = torch.optim.SGD([w], lr=0.5)
        loss = (w * w).sum()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=False)
        print(w.grad)
        opt.zero_grad()
        print(w.grad)
    """),
    "hooks": prog("""
        import torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        h = x.register_hook(print)
        y = (x * x).sum()
        y.backward()
        h.remove()
    """),
    "view_inplace_copyslices": prog("""
        import torch
        a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = a * 2
        v = b[1:]
        v.mul_(10)
        b.sum().backward()
        print(a.grad)
    """),
    "unbind_and_index_put": prog("""
        import torch
        x = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
        a, b, c = x * 2
        b.retain_grad()
        (a * c).sum().backward()
        print(x.grad, b.grad, a.output_nr, c.output_nr)
        y = x * 1
        y[torch.tensor([0, 2])] = torch.tensor([9.0, 9.0])
        y[y > 8] = 0.0
        y.sum().backward()
        print(x.grad)
    """),
    "mlp_sgd": prog("""
        import torch
        import torch.nn as nn
        from torch import optim
        torch.manual_seed(0)
        X = torch.randn(16, 2)
        Y = torch.randn(16, 1)
        model = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1))
        opt = optim.SGD(model.parameters(), lr=0.1)
        loss_fn = nn.MSELoss()
        for i in range(5):
            opt.zero_grad()
            loss = loss_fn(model(X), Y)
            loss.backward()
            opt.step()
        print(loss)
    """),
    "warning_and_nan": prog("""
        import torch
        x = torch.tensor([0.0, 1.0], requires_grad=True)
        y = x.sqrt() * 0.0
        s = y.sum()
        s.backward()
        print(y.grad)
        print(x.grad)
        big = torch.ones(100) * float("inf")
    """),
    "adam_hidden_state": prog("""
        import torch
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        opt = torch.optim.Adam([w], lr=0.1)
        for i in range(2):
            opt.zero_grad()
            (w * w).sum().backward()
            opt.step()
        print(w)
    """),
    "create_graph": prog("""
        import torch
        x = torch.tensor(3.0, requires_grad=True)
        y = x ** 3
        g = torch.autograd.grad(y, x, create_graph=True)
        g2 = torch.autograd.grad(g[0], x)
        print(g, g2)
    """),
}

EVENT_KINDS = {"tensor_created", "inplace", "grad_assigned", "grad_zeroed", "backward_begin",
               "node_begin", "edge", "node_end", "accumulate", "hook", "backward_end",
               "warning", "print", "error"}


def check(tl: dict) -> dict:
    """Every timeline: valid against the schema, pure JSON (no NaN literal), no recorder bug."""
    VALIDATOR.validate(tl)
    text = json.dumps(tl, allow_nan=False)
    assert json.loads(text) == tl
    assert "internal_errors" not in tl, tl.get("internal_errors")
    ids = [t["id"] for t in tl["nodes"]["tensors"]] + [n["id"] for n in tl["nodes"]["autograd"]]
    assert len(ids) == len(set(ids))
    known = set(ids)
    for e in tl["edges"]["tensors"] + tl["edges"]["autograd"]:
        assert e["from"] in known and e["to"] in known, e
    for s in tl["steps"]:
        for e in s["events"]:
            for k in ("tensor", "node", "from", "to", "root"):
                if isinstance(e.get(k), str):
                    assert e[k] in known, (k, e)
    return tl


def run(text: str, **kw) -> dict:
    return check(run_program(text, **kw))


def events(tl: dict, kind: str | None = None) -> list:
    out = [e for s in tl["steps"] for e in s["events"]]
    return out if kind is None else [e for e in out if e["event"] == kind]


def tensor(tl: dict, name: str) -> dict:
    found = [t for t in tl["nodes"]["tensors"] if name in t["names"]]
    assert found, name
    return found[-1]


def data(value):
    return None if value is None else value["data"]


def test_the_schema_rejects_what_is_not_a_timeline():
    good = run_program(SQUARE)
    VALIDATOR.validate(good)
    bad_cases = []
    t = json.loads(json.dumps(good))
    t["steps"][4]["events"][1]["gradient"]["data"] = ["NaN"]  # only "nan", "inf", "-inf"
    bad_cases.append(t)
    t = json.loads(json.dumps(good))
    t["steps"][4]["events"][1]["gradient"]["data"] = [float("nan")]
    with pytest.raises(ValueError):  # what check() guards against: a NaN literal
        json.dumps(t, allow_nan=False)
    t = json.loads(json.dumps(good))
    t["steps"][4]["events"][2]["event"] = "teleport"
    bad_cases.append(t)
    t = json.loads(json.dumps(good))
    del t["steps"][4]["events"][2]["to"]
    bad_cases.append(t)
    t = json.loads(json.dumps(good))
    t["version"] = 2  # the version before the long-loop rule
    bad_cases.append(t)
    t = json.loads(json.dumps(good))
    del t["loops"]
    bad_cases.append(t)
    t = json.loads(json.dumps(good))
    t["version"] = 1  # the version before call scopes and node rules
    bad_cases.append(t)
    t = json.loads(json.dumps(good))
    del t["scopes"]
    bad_cases.append(t)
    t = json.loads(json.dumps(good))
    t["nodes"]["tensors"][0]["value"] = {"shape": [1], "dtype": "float32"}
    bad_cases.append(t)
    for t in bad_cases:
        assert not VALIDATOR.is_valid(t)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_every_program_gives_a_valid_timeline(name):
    tl = run(PROGRAMS[name])
    assert tl["version"] == TIMELINE_VERSION == 4
    assert tl["program"] == PROGRAMS[name]
    assert tl["stats"]["steps"] == len(tl["steps"]) > 0


def test_the_programs_cover_every_event_kind():
    seen = set()
    for text in PROGRAMS.values():
        seen |= {e["event"] for e in events(run_program(text))}
    assert EVENT_KINDS <= seen, EVENT_KINDS - seen


def test_square_example_events_in_torch_order():
    tl = run(SQUARE)
    steps = tl["steps"]
    assert [s["text"] for s in steps] == SQUARE.splitlines()
    x, y, z = (tensor(tl, n) for n in "xyz")
    assert [e["event"] for e in steps[1]["events"]] == ["tensor_created"]
    assert steps[2]["events"][0]["inputs"] == [x["id"]]
    assert steps[3]["events"][0]["inputs"] == [y["id"]]  # the 2 is a wrapped number: no tensor
    nodes = {n["id"]: n for n in tl["nodes"]["autograd"]}
    mul, pow_ = z["node"], y["node"]
    acc = next(n["id"] for n in nodes.values() if n["name"] == ACC)
    assert nodes[acc]["variable"] == x["id"] and nodes[acc]["tensor"] == x["id"]
    assert nodes[mul]["next"] == [[pow_, 0], [None, 0]]
    assert nodes[pow_]["next"] == [[acc, 0]]
    got = []
    for e in steps[4]["events"]:
        if e["event"] == "backward_begin":
            got.append(("backward_begin", e["root"], data(e["gradient"])))
        elif e["event"] in ("node_begin",):
            got.append((e["event"], nodes[e["node"]]["name"], data(e["gradient"])))
        elif e["event"] == "node_end":
            got.append(("node_end", nodes[e["node"]]["name"]))
        elif e["event"] == "edge":
            got.append(("edge", nodes[e["from"]]["name"], nodes[e["to"]]["name"],
                        data(e["gradient"])))
        elif e["event"] == "accumulate":
            got.append(("accumulate", e["tensor"], data(e["before"]), data(e["delta"]),
                        data(e["after"])))
        else:
            got.append((e["event"], e.get("error")))
    assert got == [
        ("backward_begin", z["id"], [1.0]),
        ("node_begin", "MulBackward0", [1.0]),
        ("edge", "MulBackward0", "PowBackward0", [2.0]),
        ("node_end", "MulBackward0"),
        ("node_begin", "PowBackward0", [2.0]),
        ("edge", "PowBackward0", ACC, [8.0]),
        ("node_end", "PowBackward0"),
        ("node_begin", ACC, [8.0]),
        ("accumulate", x["id"], None, [8.0], [8.0]),
        ("node_end", ACC),
        ("backward_end", None),
    ]
    assert steps[4]["state"] == {x["id"]: {
        "version": 0, "grad": {"shape": [1], "dtype": "float32", "data": [8.0]},
        "requires_grad": True, "is_leaf": True, "retains_grad": False, "grad_fn": None,
        "hooks": 0}}
    assert steps[5]["events"] == [{"event": "print", "text": "tensor([8.])\n"}]
    assert tl["console"] == [{"step": 5, "line": 6, "text": "tensor([8.])\n"}]
    assert data(x["grad"]) == [8.0] and x["name"] == "x" and x["is_leaf"]
    assert y["grad_fn"] == "PowBackward0" and y["grad"] is None and not y["is_leaf"]
    # tensor view edges: x -> y (PowBackward0), y -> z (MulBackward0)
    assert [(e["from"], e["to"], e["op"]) for e in tl["edges"]["tensors"]] == [
        (x["id"], y["id"], "PowBackward0"), (y["id"], z["id"], "MulBackward0")]


def test_accumulation_over_two_backward_calls():
    tl = run(PROGRAMS["accumulate_retain_graph"])
    acc = events(tl, "accumulate")
    assert [(data(e["before"]), data(e["delta"]), data(e["after"])) for e in acc] == [
        (None, [8.0], [8.0]), ([8.0], [8.0], [16.0])]
    assert [c["text"] for c in tl["console"]] == ["tensor([8.])\n", "tensor([16.])\n"]
    assert data(tensor(tl, "x")["grad"]) == [16.0]
    assert tl["ok"] and tl["error"] is None


def test_backward_twice_stops_at_its_line_and_keeps_everything_before():
    tl = run(PROGRAMS["backward_twice"])
    err = tl["error"]
    assert err["type"] == "RuntimeError" and err["kind"] == "runtime"
    assert "backward through the graph a second time" in err["message"]
    assert (err["line"], err["col"]) == (7, 1)
    last = tl["steps"][-1]
    assert last["line"] == 7 and last["error"] == err
    kinds = [e["event"] for e in last["events"]]
    assert kinds[0] == "backward_begin" and kinds[-2:] == ["backward_end", "error"]
    assert last["events"][-2]["error"]["type"] == "RuntimeError"
    assert len(tl["steps"]) == 7  # the print after the error never ran
    assert [c["text"] for c in tl["console"]] == ["tensor([8.])\n"]
    assert data(tensor(tl, "x")["grad"]) == [8.0]  # the first backward's result is kept
    assert not tl["ok"]


def test_zero_and_none_are_reported_on_the_owner():
    tl = run(PROGRAMS["zero_and_none"])
    x = tensor(tl, "x")
    zeroed = events(tl, "grad_zeroed")
    assert len(zeroed) == 1 and zeroed[0]["tensor"] == x["id"]
    assert data(zeroed[0]["grad"]) == [0.0, 0.0] and zeroed[0]["op"] == "zero_"
    assigned = events(tl, "grad_assigned")
    assert [(e["tensor"], data(e["before"]), e["after"]) for e in assigned] == [
        (x["id"], [2.0, 4.0], None)]
    # after zero_, accumulation adds into the zeroed grad
    acc = events(tl, "accumulate")
    assert [data(e["before"]) for e in acc] == [None, [0.0, 0.0]]
    assert x["grad"] is None
    # the step snapshots follow: 3.0s, zeros, 2x, None
    grads = [s["state"][x["id"]]["grad"] for s in tl["steps"] if x["id"] in s["state"]]
    assert [data(g) for g in grads] == [None, [3.0, 3.0], [0.0, 0.0], [2.0, 4.0], None]


def test_optimizer_zero_grad():
    tl = run(PROGRAMS["optimizer_zero_grad"])
    w = tensor(tl, "w")
    step_inplace = events(tl, "inplace")
    assert [(e["tensor"], e["op"], data(e["value"])) for e in step_inplace] == [
        (w["id"], "add_", [0.0, 0.0])]
    zeroed = events(tl, "grad_zeroed")
    assert [e["tensor"] for e in zeroed] == [w["id"]]  # zero_grad(set_to_none=False)
    assigned = events(tl, "grad_assigned")
    assert [(e["tensor"], data(e["before"]), e["after"]) for e in assigned] == [
        (w["id"], [0.0, 0.0], None)]  # zero_grad() sets None, as torch 2 does
    assert [c["text"] for c in tl["console"]] == ["tensor([0., 0.])\n", "None\n"]
    assert w["version"] == 1


def test_retain_grad_accumulates_on_the_non_leaf():
    tl = run(PROGRAMS["tutorial_retain_grad"])
    y = tensor(tl, "y")
    assert y["retains_grad"] and not y["is_leaf"]
    assert data(y["grad"]) == 3.0
    acc = events(tl, "accumulate")
    assert [(e["tensor"], data(e["delta"])) for e in acc] == [(y["id"], 3.0),
                                                              (tensor(tl, "x")["id"], 12.0)]
    retain_step = tl["steps"][4]
    assert retain_step["text"] == "y.retain_grad()"
    assert retain_step["state"][y["id"]]["retains_grad"] is True


def test_hook_print_comes_before_the_hook_event_and_accumulation():
    tl = run(PROGRAMS["hooks"])
    step = next(s for s in tl["steps"] if s["text"] == "y.backward()")
    kinds = [e["event"] for e in step["events"]]
    i = kinds.index("print")
    assert kinds[i:i + 4] == ["print", "hook", "node_begin", "accumulate"]
    hook = step["events"][i + 1]
    assert hook["tensor"] == tensor(tl, "x")["id"]
    assert data(hook["grad_in"]) == [2.0, 4.0] and hook["grad_out"] is None
    assert step["events"][i]["text"] == "tensor([2., 4.])\n"


def test_no_grad_records_no_node():
    tl = run(PROGRAMS["tutorial_no_grad_block"])
    z = tensor(tl, "z")
    assert z["grad_fn"] is None and not z["requires_grad"] and z["node"] is None
    made = next(e for e in events(tl, "tensor_created") if e["tensor"] == z["id"])
    assert made["node"] is None and made["inputs"] == [tensor(tl, "y")["id"]] * 2
    step = next(s for s in tl["steps"] if s["text"].strip() == "z = y * y")
    assert step["grad_enabled"] is False and step["loop"] == []
    assert [e for e in tl["edges"]["tensors"] if e["to"] == z["id"]][0]["recorded"] is False
    assert tl["error"]["type"] == "RuntimeError"
    assert "does not require grad" in tl["error"]["message"]


def test_detach_is_recorded_as_an_edge_that_records_nothing():
    # the UI draws the cut: d came from y, but backward through d never reaches y
    tl = run("import torch\nx = torch.ones(2, requires_grad=True)\ny = x * 3\nd = y.detach()\n")
    d, y = tensor(tl, "d"), tensor(tl, "y")
    assert d["op"] == "detach" and d["node"] is None and not d["requires_grad"]
    made = next(e for e in events(tl, "tensor_created") if e["tensor"] == d["id"])
    assert made["inputs"] == [y["id"]] and made["node"] is None
    assert [(e["from"], e["op"], e["recorded"]) for e in tl["edges"]["tensors"] if e["to"] == d["id"]] == [
        (y["id"], "detach", False)]


def test_inplace_on_a_view_gives_copyslices():
    tl = run(PROGRAMS["view_inplace_copyslices"])
    b, v = tensor(tl, "b"), tensor(tl, "v")
    ev = events(tl, "inplace")
    assert len(ev) == 1 and ev[0]["tensor"] == v["id"] and ev[0]["op"] == "mul_"
    assert ev[0]["base"]["tensor"] == b["id"]
    assert ev[0]["base"]["grad_fn"] == "torch::autograd::CopySlices"
    assert b["grad_fn"] == "torch::autograd::CopySlices" and b["version"] == 1
    step = next(s for s in tl["steps"] if s["text"] == "v.mul_(10)")
    assert step["state"][b["id"]]["version"] == 1 and step["state"][v["id"]]["version"] == 1
    names = [e["name"] for e in events(tl, "node_begin")]
    assert names == ["SumBackward0", "torch::autograd::CopySlices", "MulBackward0", ACC]
    assert data(tensor(tl, "a")["grad"]) == [2.0, 20.0, 20.0]


def test_tutorial_claims_as_torch_runs_them():
    tl = run(PROGRAMS["tutorial_clone_add_"])
    assert data(tensor(tl, "x")["grad"]) == [6.0, 8.0, 10.0]
    tl = run(PROGRAMS["tutorial_leaf_inplace_error"])
    assert tl["error"]["line"] == 3 and "leaf Variable" in tl["error"]["message"]
    tl = run(PROGRAMS["tutorial_linear_model"])
    assert tl["ok"] and tensor(tl, "model.weight")["kind"] == "parameter"
    assert "Gradient of linear weight: tensor([[" in tl["console"][0]["text"]


def test_mlp_training_loop():
    tl = run(PROGRAMS["mlp_sgd"])
    assert tl["ok"]
    params = [tensor(tl, f"model.{i}.{k}") for i in (0, 2) for k in ("weight", "bias")]
    assert all(p["kind"] == "parameter" and p["requires_grad"] and p["is_leaf"] for p in params)
    assert [p["version"] for p in params] == [6, 6, 6, 6]  # init (uniform_) + 5 SGD steps
    loop_steps = [s for s in tl["steps"] if s["loop"]]
    assert len(loop_steps) == 20 and {tuple(s["loop"]) for s in loop_steps} == {
        (i,) for i in range(5)}
    losses = [tensor_value for s in loop_steps for e in s["events"]
              if e["event"] == "tensor_created" and e["op"] == "MseLossBackward0"
              for tensor_value in [e["value"]["data"]]]
    assert len(losses) == 5 and losses[-1] < losses[0]
    assert len(events(tl, "accumulate")) == 20
    # zero_grad() sets each grad to None; in the first iteration there is none to clear
    assert len(events(tl, "grad_assigned")) == 16
    # the loop variable makes ids distinct per iteration; the optimizer's internals are hidden
    loss_ids = [t["id"] for t in tl["nodes"]["tensors"] if "loss" in t["names"]]
    assert len(loss_ids) == 5 and len(set(loss_ids)) == 5
    assert all("@" in i for i in loss_ids)
    names = {t["name"] for t in tl["nodes"]["tensors"]}
    assert {"X", "Y", "loss", "model.0.weight"} <= names


def test_internal_tensors_stay_hidden():
    tl = run(PROGRAMS["adam_hidden_state"])
    w = tensor(tl, "w")
    inplace = events(tl, "inplace")
    assert inplace and all(e["tensor"] == w["id"] for e in inplace)  # not Adam's buffers
    leaves = [t for t in tl["nodes"]["tensors"] if t["grad_fn"] is None]
    assert [t["id"] for t in leaves] == [w["id"]]


def test_create_graph_nodes_made_in_backward_are_registered():
    tl = run(PROGRAMS["create_graph"])
    assert tl["ok"], tl["error"]
    begins = events(tl, "backward_begin")
    assert [e["api"] for e in begins] == ["grad", "grad"] and begins[0]["create_graph"]
    assert tl["console"][0]["text"].startswith("(tensor(27., grad_fn=")
    g0 = tensor(tl, "g[0]")
    assert g0["grad_fn"] is not None and g0["node"] is not None


def test_nan_and_inf_are_strings_and_big_tensors_are_summarised():
    tl = run(PROGRAMS["warning_and_nan"])
    x = tensor(tl, "x")
    assert data(x["grad"]) == ["nan", 0.0]  # 0 * inf: torch gives nan too
    assert tl["warnings"] and tl["warnings"][0]["category"] == "UserWarning"
    assert tl["warnings"][0]["line"] == 6
    warn_events = events(tl, "warning")
    assert len(warn_events) == 1 and "not a leaf Tensor" in warn_events[0]["message"]
    big = tensor(tl, "big")["value"]
    assert "data" not in big and big["shape"] == [100]
    assert big["summary"] == {"numel": 100, "min": "inf", "max": "inf", "mean": "inf",
                              "first": ["inf"] * SUMMARY_FIRST}


def test_summary_threshold():
    n = DISPLAY_ELEMENTS
    tl = run(f"import torch\na = torch.arange({n}.0)\nb = torch.arange({n + 1}.0)\n"
             f"c = torch.arange(12.0).reshape(3, 4)\n")
    assert tensor(tl, "a")["value"]["data"] == [float(i) for i in range(n)]
    s = tensor(tl, "b")["value"]
    assert s["summary"] == {"numel": n + 1, "min": 0.0, "max": float(n), "mean": n / 2,
                            "first": [float(i) for i in range(SUMMARY_FIRST)]}
    assert tensor(tl, "c")["value"]["data"][2] == [8.0, 9.0, 10.0, 11.0]


# -- stable ids ----------------------------------------------------------------------------------

def all_ids(tl: dict) -> list:
    return ([t["id"] for t in tl["nodes"]["tensors"]]
            + [n["id"] for n in tl["nodes"]["autograd"]])


def ids_by_line(tl: dict) -> dict:
    out: dict = {}
    for t in tl["nodes"]["tensors"]:
        out.setdefault(tl["steps"][t["step"]]["text"].strip(), []).append(t["id"])
    for n in tl["nodes"]["autograd"]:
        out.setdefault(tl["steps"][n["step"]]["text"].strip(), []).append(n["id"])
    return out


def test_ids_survive_inserted_lines_above():
    base = run(PROGRAMS["mlp_sgd"])
    lines = PROGRAMS["mlp_sgd"].splitlines()
    with_comment = "\n".join(lines[:1] + ["# a comment", ""] + lines[1:])
    with_line = "\n".join(lines[:4] + ["u = torch.ones(2) * 3", "print(u)"] + lines[4:])
    reformatted = PROGRAMS["mlp_sgd"].replace("nn.Linear(2, 8)", "nn.Linear( 2,8 )")
    for text in (with_comment, with_line, reformatted):
        other = run(text)
        ids = set(all_ids(other))
        assert set(all_ids(base)) <= ids
        for t in base["nodes"]["tensors"]:  # each id still names the same tensor
            twin = next(o for o in other["nodes"]["tensors"] if o["id"] == t["id"])
            assert twin["names"] == t["names"] and twin["op"] == t["op"]


def test_editing_a_line_changes_only_the_ids_born_on_it():
    before = run(SQUARE)
    after = run(SQUARE.replace("y = x**2", "y = x**3"))
    old, new = ids_by_line(before), ids_by_line(after)
    # x's AccumulateGrad node is made on the first line that uses x but belongs to x: its id
    # follows x's ("a:" + the rest of x's id), so it is kept too
    acc = "a" + tensor(before, "x")["id"][1:]
    assert acc in old["y = x**2"] and acc in new["y = x**3"]
    assert set(old["y = x**2"]).isdisjoint(set(new["y = x**3"]) - {acc})
    for line in ("x = torch.tensor([2.0], requires_grad=True)", "z = 2*y"):
        assert old[line] == new[line]
    assert data(tensor(after, "x")["grad"]) == [24.0]


def test_previous_timeline_keeps_the_ids_of_an_edited_statement():
    first = run(SQUARE)
    edited = SQUARE.replace("[2.0]", "[5.0]")
    alone = run(edited)
    assert tensor(alone, "x")["id"] != tensor(first, "x")["id"]
    second = run(edited, previous=first)
    assert all_ids(second) == all_ids(first)  # the new value kept x's id (and its node's)
    assert data(tensor(second, "x")["grad"]) == [20.0]
    # carried on through further edits, and back again
    third = run("# note\n" + SQUARE, previous=second)
    assert all_ids(third) == all_ids(first)
    assert all_ids(run(SQUARE, previous=third)) == all_ids(first)
    # a previous timeline that is not one is ignored
    assert all_ids(run(SQUARE, previous={"version": 99})) == all_ids(first)
    assert all_ids(run(SQUARE, previous={"version": 1, "statements": [{"key": 1}]})) == all_ids(
        first)


def test_duplicate_statements_get_distinct_ids():
    tl = run("import torch\nx = torch.ones(2, requires_grad=True)\ny = x * 2\ny = x * 2\n")
    ys = [t for t in tl["nodes"]["tensors"] if t["names"] == ["y"]]
    assert len(ys) == 2 and ys[0]["id"] != ys[1]["id"]
    assert all(len(i) <= 20 for i in all_ids(tl))


# -- errors and limits ---------------------------------------------------------------------------

def test_syntax_and_not_allowed_errors_give_an_empty_valid_timeline():
    for text, kind in (("x = (", "syntax"), ("import os", "not_allowed")):
        tl = run(text)
        assert tl["error"]["kind"] == kind and tl["steps"] == [] and not tl["ok"]


def test_limit_error_keeps_the_steps_before():
    tl = run("import torch\nx = torch.ones(3)\nfor i in range(50):\n    x = x + 1\n",
             limits=Limits(max_executed=10))
    assert tl["error"]["kind"] == "limit" and tl["error"]["limit"] == "max_executed"
    # three iterations in detail, then the quiet ones in one step, where the limit struck
    # (statement 11: the body of iteration 7)
    assert [s["kind"] for s in tl["steps"]] == ["import", "assign", "for"] + ["assign"] * 3 + [
        "iterations"]
    assert tl["steps"][-1]["iterations"] == [3, 7] and tl["steps"][-1]["error"] == tl["error"]
    assert tl["steps"][-1]["events"][-1]["event"] == "error"


def test_recorder_does_not_change_the_element_limit():
    # a loop whose old tensors are freed stays under a total-elements limit with the recorder
    text = "import torch\nx = torch.ones(1000)\nfor i in range(30):\n    x = x * 1.0\n"
    tl = run(text, limits=Limits(max_total_elements=5000, max_tensor_elements=5000))
    assert tl["ok"], tl["error"]


# -- trace() -------------------------------------------------------------------------------------

def test_trace_function_matches_the_program_timeline():
    def square():
        x = torch.tensor([2.0], requires_grad=True)
        y = x**2
        z = 2*y
        z.backward()
        print(x.grad)
        return x, y, z

    tl = check(trace(square))
    prog_tl = run_program(SQUARE)
    assert tl["source"] == "trace" and tl["program"] is None and tl["ok"]
    assert [s["text"] for s in tl["steps"]] == SQUARE.splitlines()[1:]
    assert ([[e["event"] for e in s["events"]] for s in tl["steps"]]
            == [[e["event"] for e in s["events"]] for s in prog_tl["steps"][1:]])
    assert [t["id"] for t in tl["nodes"]["tensors"]] == ["t1", "t2", "t3"]
    assert [t["name"] for t in tl["nodes"]["tensors"]] == ["x", "y", "z"]
    assert data(tl["nodes"]["tensors"][0]["grad"]) == [8.0]
    assert tl["console"][0]["text"] == "tensor([8.])\n"
    first = square.__code__.co_firstlineno
    assert [s["line"] - first for s in tl["steps"]] == [1, 2, 3, 4, 5]


def test_trace_context_manager_records_an_error_and_reraises():
    tr = trace()
    with pytest.raises(RuntimeError, match="second time"):
        with tr:
            a = torch.tensor([1.0, 2.0], requires_grad=True)
            b = (a * a).sum()
            b.backward()
            b.backward()
    tl = check(tr.timeline)
    assert tl["error"]["type"] == "RuntimeError" and not tl["ok"]
    assert tl["steps"][-1]["text"] == "b.backward()" and tl["steps"][-1]["error"] == tl["error"]
    assert tl["steps"][-1]["line"] == tl["steps"][-2]["line"] + 1 == tl["error"]["line"]
    assert data(tensor(tl, "a")["grad"]) == [2.0, 4.0]


def test_trace_fn_keeps_an_error_in_the_timeline():
    def bad():
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        (x * 2).backward()

    tl = check(trace(bad))
    assert tl["error"]["type"] == "RuntimeError"
    assert "implicitly created only for scalar outputs" in tl["error"]["message"]
    assert tl["error"]["line"] == bad.__code__.co_firstlineno + 2


# -- speed (figures printed, no assertion on them) ------------------------------------------------

def chain_program(nodes: int) -> str:
    lines = ["import torch", "x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)", "a = x"]
    for i in range(nodes // 2):
        lines.append(f"a = a * 1.001 + x  # step {i}")
    lines += ["s = a.sum()", "s.backward()", "print(x.grad)"]
    return "\n".join(lines) + "\n"


def test_speed_300_nodes_and_mlp(capsys):
    big = chain_program(300)
    mlp = PROGRAMS["mlp_sgd"].replace("range(5)", "range(100)")
    figures = {}
    for name, text in (("300-node chain", big), ("MLP, 100 SGD steps", mlp)):
        run_program(text)  # warm up
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            tl = run_program(text)
            json.dumps(tl, allow_nan=False)
            times.append(time.perf_counter() - t0)
        figures[name] = (min(times), tl["stats"])
    tl = run(big)  # (the 100-step MLP is not schema-checked here: validating it takes seconds)
    assert tl["stats"]["nodes"] >= 300 and tl["ok"]
    assert math.isclose(data(tensor(tl, "x")["grad"])[0], sum(1.001 ** k for k in range(151)),
                        rel_tol=1e-4)
    with capsys.disabled():
        for name, (best, stats) in figures.items():
            print(f"\n[timeline speed] {name}: {best * 1000:.1f} ms (parse+run+timeline+json), "
                  f"{stats['steps']} steps, {stats['events']} events, {stats['tensors']} "
                  f"tensors, {stats['nodes']} nodes")


def test_attribute_assignments_show_in_the_step_state():
    tl = run("import torch\nx = torch.ones(3)\nx.requires_grad = True\nx.data = torch.zeros(3)\n")
    x = tensor(tl, "x")
    s2, s3 = tl["steps"][2]["state"][x["id"]], tl["steps"][3]["state"][x["id"]]
    assert tl["steps"][1]["state"][x["id"]]["requires_grad"] is False
    assert s2["requires_grad"] is True and "value" not in s2
    assert s3["value"]["data"] == [0.0, 0.0, 0.0] and x["value"]["data"] == [0.0, 0.0, 0.0]


def test_unbind_is_one_node_in_the_timeline():
    tl = run(PROGRAMS["unbind_and_index_put"])
    created = [e for e in events(tl, "tensor_created") if e["op"] == "UnbindBackward0"]
    assert len(created) == 3 and len({e["node"] for e in created}) == 1
    node = created[0]["node"]
    into = sorted(e["input_nr"] for e in tl["edges"]["autograd"] if e["to"] == node)
    assert into == [0, 2]  # a and c are outputs 0 and 2 of the one node
    begin = [e for e in events(tl, "node_begin") if e["node"] == node]
    assert data(begin[0]["gradient"]) == [[10.0, 12.0], [0.0, 0.0], [2.0, 4.0]]
    assert "IndexPutBackward0" in [e["grad_fn"] for e in events(tl, "inplace")]
    assert [c["text"] for c in tl["console"]][-1].startswith("tensor([[20., 24.],")


SCOPED = """import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 1)

    def forward(self, x):
        return torch.relu(self.fc(x))

def loss_fn(pred, target, scale=1.0):
    return ((pred - target) ** 2).mean() * scale

net = Net()
x = torch.ones(3, 2)
loss = loss_fn(net(x), torch.zeros(3, 1), scale=0.5)
loss.backward()
"""


def test_calls_of_functions_and_modules_are_scopes_with_what_they_made():
    tl = run(SCOPED)
    VALIDATOR.validate(tl)
    scopes = {s["name"]: s for s in tl["scopes"]}
    assert [s["name"] for s in tl["scopes"]] == ["Net.__init__", "Net", "Net.forward", "Linear",
                                                  "loss_fn"]
    net, forward, linear, loss = (scopes[n] for n in ("Net", "Net.forward", "Linear",
                                                       "loss_fn"))
    assert net["kind"] == "module" and forward["kind"] == "function"
    assert forward["parent"] == net["id"] and linear["parent"] == forward["id"]
    assert loss["parent"] is None and loss["line"] == 17 and all(s["ok"] for s in tl["scopes"])
    x = next(t["id"] for t in tl["nodes"]["tensors"] if t["name"] == "x")
    assert net["args"] == [{"name": "input", "tensor": x, "value": None}]
    assert [a["name"] for a in loss["args"]] == ["pred", "target", "scale"]
    assert loss["args"][2] == {"name": "scale", "tensor": None, "value": "0.5"}
    assert loss["args"][0]["tensor"] == forward["returned"][0] == net["returned"][0]
    # made inside: the Linear's addmm, relu in forward, and loss_fn's four ops
    names = {n["id"]: n["name"] for n in tl["nodes"]["autograd"]}
    assert [names[n] for n in linear["nodes"]] == ["TBackward0", "AddmmBackward0"]
    assert [names[n] for n in forward["nodes"]] == ["ReluBackward0"]
    assert [names[n] for n in loss["nodes"]] == ["SubBackward0", "PowBackward0",
                                                 "MeanBackward0", "MulBackward0"]
    loss_tensor = next(t["id"] for t in tl["nodes"]["tensors"] if t["name"] == "loss")
    assert loss["returned"] == [loss_tensor]


def test_a_programs_own_function_node_carries_its_backward_as_its_rule():
    tl = run("import torch\nclass Twice(torch.autograd.Function):\n    @staticmethod\n"
             "    def forward(ctx, x):\n        return x * 2\n    @staticmethod\n"
             "    def backward(ctx, g):\n        return g * 2\n"
             "y = Twice.apply(torch.ones(2, requires_grad=True))\n")
    rules = {n["name"]: n["rule"] for n in tl["nodes"]["autograd"]}
    assert rules == {"TwiceBackward": "the program's own Twice.backward(ctx, g) with g = {grad} "
                                      "returns g * 2",
                     "torch::autograd::AccumulateGrad": None}


def test_a_hook_is_in_the_state_from_the_step_that_registers_it_until_it_is_removed():
    tl = run("import torch\nx = torch.tensor([1.0], requires_grad=True)\ny = x * 2\n"
             "h = x.register_hook(lambda g: g * 2)\nk = y.register_hook(lambda g: g)\n"
             "y.sum().backward()\nh.remove()\n")
    x, y = (t["id"] for t in tl["nodes"]["tensors"][:2])
    steps = tl["steps"]
    assert steps[1]["state"][x]["hooks"] == 0 and steps[2]["state"][y]["hooks"] == 0
    assert steps[3]["state"][x]["hooks"] == 1 and y not in steps[3]["state"]  # a leaf keeps its hooks
    assert steps[4]["state"][y]["hooks"] == 1  # a non-leaf's live on its grad_fn
    assert steps[6]["state"][x]["hooks"] == 0  # removed by its handle


def test_binding_a_module_runs_none_of_the_programs_code():
    """The timeline names a bound module's parameters from the engine's own tables: a Module
    subclass overriding named_parameters/named_modules is not called (torch calls neither when a
    name is bound), and the names are torch's, in torch's order."""
    src = textwrap.dedent("""
        import torch
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = nn.Linear(1, 2)
                self.b = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
                self.w = nn.Parameter(torch.ones(1))
            def named_parameters(self, *args, **kwargs):
                print("named_parameters ran")
                return []
            def named_modules(self, *args, **kwargs):
                print("named_modules ran")
                return []
        net = Net()
    """)
    tl = run_program(src)
    assert tl["error"] is None
    assert tl["console"] == []
    names = [n for t in tl["nodes"]["tensors"] for n in t["names"] if n.startswith("net.")]
    assert sorted(names) == sorted(["net.w", "net.a.weight", "net.a.bias", "net.b.0.weight",
                                    "net.b.0.bias", "net.b.1.weight", "net.b.1.bias"])
