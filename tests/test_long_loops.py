"""The long-loop rule (docs/timeline.md, "Long loops"): which iterations keep their full detail,
the steps of kind "iterations", the `loops` series, and that the rule changes nothing a program
computes or prints."""

from __future__ import annotations

import json

import pytest

from playground import Limits, run_program
from playground.host import Host
from playground.program import Interpreter
from playground.program.loops import DETAIL_FIRST, DETAIL_LAST
from tests.test_session import check

# w shrinks by 0.8 a step, so the loss of iteration k is 5 * 0.64 ** k
TRAIN = """import torch
w = torch.tensor([1.0, -2.0], requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)
for step in range({n}):
    opt.zero_grad()
    loss = (w ** 2).sum()
    loss.backward()
    opt.step()
    if step % 5 == 4:
        print(step, loss.item())
print(w)
"""


def run(text: str, **kw) -> dict:
    return check(run_program(text, **kw))


def loop_steps(tl, statement):
    """The loop path of each step the loop's body made, and the stretches of kind iterations."""
    detailed = sorted({tuple(s["loop"]) for s in tl["steps"]
                       if s["loop"] and s["kind"] != "iterations"})
    quiet = [(s["statement"], s["iterations"]) for s in tl["steps"] if s["kind"] == "iterations"]
    return detailed, quiet


def header(tl, text):
    return next(s["index"] for s in tl["statements"] if s["text"].startswith(text))


def test_the_rule_constants_are_the_documented_ones():
    assert (DETAIL_FIRST, DETAIL_LAST) == (3, 2)


def test_a_for_loop_keeps_its_first_and_last_iterations():
    tl = run(TRAIN.format(n=12))
    assert tl["ok"], tl["error"]
    stmt = header(tl, "for step")
    detailed, quiet = loop_steps(tl, stmt)
    assert detailed == [(0,), (1,), (2,), (10,), (11,)]
    assert quiet == [(stmt, [3, 9])]
    (entry,) = tl["loops"]
    assert entry["statement"] == stmt and entry["loop"] == [] and entry["iterations"] == 12
    assert entry["detail"] == [0, 1, 2, 10, 11]
    # the stretch's step spans the loop's body and starts at its first iteration
    step = next(s for s in tl["steps"] if s["kind"] == "iterations")
    assert (step["line"], step["end_line"], step["loop"]) == (5, 10, [3])
    # prints of quiet iterations are in the console, at that step
    printed = [(c["step"], c["text"]) for c in tl["console"]]
    assert printed[0][0] == step["index"] and printed[0][1].startswith("4 ")
    # as torch 2.13 prints it
    assert [t for _, t in printed] == ["4 0.8388606309890747\n", "9 0.09007196873426437\n",
                                       "tensor([ 0.0687, -0.1374], requires_grad=True)\n"]


def test_a_short_loop_keeps_everything_and_has_no_entry():
    tl = run(TRAIN.format(n=DETAIL_FIRST + DETAIL_LAST))
    detailed, quiet = loop_steps(tl, None)
    assert detailed == [(k,) for k in range(DETAIL_FIRST + DETAIL_LAST)] and quiet == []
    assert tl["loops"] == []


def test_series_hold_every_iteration_and_match_the_computation():
    tl = run(TRAIN.format(n=30))
    (entry,) = tl["loops"]
    loss = entry["series"]["loss"]
    assert len(loss) == 30 and entry["backward"] == loss
    for k, v in enumerate(loss):
        assert v == pytest.approx(5 * 0.64 ** k, rel=1e-5)
    assert "step" not in entry["series"]  # the loop variable is the x axis, not a series
    # the values are the float32 numbers the program computed: the same as a loss.item()
    text = TRAIN.format(n=30).replace("    if step % 5 == 4:\n        print(step, loss.item())\n",
                                      "    print(loss.item())\n")
    printed = Interpreter().run(text).output.split("\n")[:30]
    assert [float(p) for p in printed] == loss


def test_the_rule_changes_nothing_the_program_computes_or_prints():
    text = TRAIN.format(n=40)
    quiet = run(text)
    plain = Interpreter().run(text)  # no recorder at all
    assert "".join(c["text"] for c in quiet["console"]) == plain.output
    # every iteration in detail (as if asked for each) gives the same output and final values
    stmt = header(quiet, "for step")
    full = run(text, detail=[(stmt, (k,)) for k in range(40)])
    assert full["loops"] == [] and all(s["kind"] != "iterations" for s in full["steps"])
    assert full["console"] != quiet["console"]  # (printed at other steps)
    assert [c["text"] for c in full["console"]] == [c["text"] for c in quiet["console"]]
    w_quiet = next(t for t in quiet["nodes"]["tensors"] if t["name"] == "w")
    w_full = next(t for t in full["nodes"]["tensors"] if t["name"] == "w")
    assert w_quiet["value"] == w_full["value"] and w_quiet["grad"] == w_full["grad"]
    assert w_quiet["version"] == w_full["version"]


def test_the_recorder_is_nearly_free_in_quiet_iterations():
    """A loop 10 times longer records the same events (its prints apart) and tensors."""
    short, long = run(TRAIN.format(n=50)), run(TRAIN.format(n=500))
    def count(tl):
        return sum(e["event"] != "print" for s in tl["steps"] for e in s["events"])
    assert count(short) == count(long)
    assert len(short["nodes"]["tensors"]) == len(long["nodes"]["tensors"])
    assert len(short["steps"]) == len(long["steps"])


def test_names_bound_in_quiet_iterations_are_known_after_them():
    tl = run(TRAIN.format(n=20) + "print(loss)\n")
    loss = [t for t in tl["nodes"]["tensors"] if t["name"] == "loss"][-1]
    # the last iteration's loss (iteration 19 keeps its detail)
    assert loss["value"]["data"] == pytest.approx(5 * 0.64 ** 19, rel=1e-5)
    # a loop whose last iterations are quiet (a while) still names the last tensor it bound
    tl = run("import torch\nx = torch.ones(2)\ni = 0\nwhile i < 10:\n    y = x * i\n"
             "    i += 1\n")
    y = [t for t in tl["nodes"]["tensors"] if t["name"] == "y"][-1]
    assert y["value"]["data"] == [9.0, 9.0] and y["op"] == "seen"


def test_nested_loops_keep_detail_only_inside_kept_outer_iterations():
    text = ("import torch\nw = torch.ones(1, requires_grad=True)\n"
            "for epoch in range(6):\n"
            "    for batch in range(7):\n"
            "        loss = (w * (epoch + batch)).sum()\n"
            "        loss.backward()\n")
    tl = run(text)
    outer, inner = header(tl, "for epoch"), header(tl, "for batch")
    paths = {tuple(s["loop"]) for s in tl["steps"] if s["kind"] != "iterations" and s["loop"]}
    assert not any(p[0] == 3 for p in paths)  # outer iteration 3 keeps nothing
    assert {p for p in paths if len(p) == 2 and p[0] == 0} == {(0, b) for b in (0, 1, 2, 5, 6)}
    stretches = [(s["statement"], s["loop"], s["iterations"]) for s in tl["steps"]
                 if s["kind"] == "iterations"]
    assert (outer, [3], [3, 3]) in stretches
    assert (inner, [0, 3], [3, 4]) in stretches
    entries = {(e["statement"], tuple(e["loop"])): e for e in tl["loops"]}
    # the outer loop and the inner loop of each kept outer iteration; none for outer 3's
    assert set(entries) == {(outer, ())} | {(inner, (e,)) for e in (0, 1, 2, 4, 5)}
    # the outer series: each name's value at the end of each outer iteration
    assert entries[(outer, ())]["series"]["loss"] == [float(e + 6) for e in range(6)]
    # backward ran in the inner loops: only outer iteration 3's (which has no entry) counts
    # for the outer loop, with the value of its last call
    assert entries[(outer, ())]["backward"] == [None, None, None, 9.0, None, None]
    assert entries[(inner, (4,))]["backward"] == [float(4 + b) for b in range(7)]
    assert entries[(inner, (4,))]["detail"] == [0, 1, 2, 5, 6]
    # the gradient sums every backward, quiet ones included: sum of (e + b)
    w = next(t for t in tl["nodes"]["tensors"] if t["name"] == "w")
    assert w["grad"]["data"] == [float(sum(e + b for e in range(6) for b in range(7)))]


def test_break_ends_a_stretch_and_skips_else():
    text = ("import torch\nx = torch.zeros(1)\nfor i in range(100):\n    x = x + 1\n"
            "    if i == 50:\n        break\nelse:\n    print('no break')\nprint(x)\n")
    tl = run(text)
    stmt = header(tl, "for i")
    detailed, quiet = loop_steps(tl, stmt)
    assert detailed == [(0,), (1,), (2,)] and quiet == [(stmt, [3, 50])]
    assert tl["loops"][0]["iterations"] == 51
    assert "".join(c["text"] for c in tl["console"]) == "tensor([51.])\n"
    # continue inside a quiet stretch
    tl = run("n = 0\nfor i in range(20):\n    if i % 2:\n        continue\n    n += i\nprint(n)\n")
    assert tl["console"][0]["text"] == "90\n"
    assert tl["loops"][0]["series"]["n"][:6] == [0, None, 2, None, 6, None]


def test_while_loops_keep_their_first_iterations_and_ask_for_more():
    text = ("import torch\nx = torch.ones(1, requires_grad=True)\ni = 0\n"
            "while i < 12:\n    y = (x * i).sum()\n    y.backward()\n    i += 1\n"
            "print(x.grad)\n")
    tl = run(text)
    stmt = header(tl, "while")
    detailed, quiet = loop_steps(tl, stmt)
    assert detailed == [(0,), (1,), (2,)]  # a while's end is known only when it comes
    # the stretch runs to the test that ended the loop (iteration 12 only tests)
    assert quiet == [(stmt, [3, 12])]
    entry = tl["loops"][0]
    assert entry["iterations"] == 12 and entry["backward"] == [float(i) for i in range(12)]
    assert entry["series"]["i"] == list(range(1, 13))
    assert tl["console"][0]["text"] == "tensor([66.])\n"
    # asking for iteration 11 keeps it, and the stretch splits around it
    tl = run(text, detail=[(stmt, (11,))])
    detailed, quiet = loop_steps(tl, stmt)
    assert detailed == [(0,), (1,), (2,), (11,)]
    assert quiet == [(stmt, [3, 10]), (stmt, [12, 12])]
    assert tl["loops"][0]["detail"] == [0, 1, 2, 11]
    assert tl["console"][0]["text"] == "tensor([66.])\n"


def test_asking_for_an_inner_iteration_keeps_its_outer_one():
    text = ("total = 0\nfor a in range(8):\n    for b in range(8):\n        total += a * b\n"
            "print(total)\n")
    first = run(text)
    inner = header(first, "for b")
    tl = run(text, detail=[(inner, (5, 4))])
    paths = {tuple(s["loop"]) for s in tl["steps"] if s["kind"] != "iterations"}
    assert (5,) in paths and (5, 4) in paths and (5, 3) not in paths
    assert {p for p in paths if len(p) == 2 and p[0] == 5} == {(5, b) for b in (0, 1, 2, 4, 6, 7)}
    assert (4,) not in paths
    assert tl["console"] == [{"step": tl["console"][0]["step"], "line": 5, "text": "784\n"}]


def test_a_loop_inside_a_function_records_only_its_kept_iterations():
    text = ("import torch\nw = torch.tensor([1.0, -2.0], requires_grad=True)\n"
            "def train(n):\n"
            "    opt = torch.optim.SGD([w], lr=0.1)\n"
            "    for step in range(n):\n"
            "        opt.zero_grad()\n"
            "        loss = (w ** 2).sum()\n"
            "        loss.backward()\n"
            "        opt.step()\n"
            "    return loss\n"
            "last = train({n})\nprint(last.item())\n")
    short, long = run(text.format(n=10)), run(text.format(n=300))
    call = next(s for s in long["steps"] if s["text"].startswith("last ="))
    backward = [e for e in call["events"] if e["event"] == "backward_begin"]
    assert len(backward) == DETAIL_FIRST + DETAIL_LAST
    assert len(short["steps"]) == len(long["steps"])  # a call makes no steps of its own
    stmt = header(long, "for step")
    (entry,) = long["loops"]
    assert entry["statement"] == stmt and entry["iterations"] == 300
    assert entry["detail"] == [0, 1, 2, 298, 299]
    assert entry["series"]["loss"][5] == pytest.approx(5 * 0.64 ** 5, rel=1e-5)  # a local name
    # after the call, w's state in the step is its final one
    w_id = next(t["id"] for t in long["nodes"]["tensors"] if t["name"] == "w")
    assert call["state"][w_id]["version"] == 300
    assert long["console"][0]["text"] == Interpreter().run(text.format(n=300)).output


def test_an_error_in_a_quiet_iteration_stops_the_run_at_its_stretch():
    text = ("import torch\nx = torch.ones(3)\nfor i in range(20):\n    x = x + 1\n"
            "    if i == 9:\n        x = x @ torch.ones(2)\n")
    tl = run(text)
    step = tl["steps"][-1]
    assert step["kind"] == "iterations" and step["iterations"] == [3, 9]
    assert tl["error"]["type"] == "RuntimeError" and tl["error"]["line"] == 6
    assert step["error"] == tl["error"] and step["events"][-1]["event"] == "error"
    assert tl["loops"][0]["iterations"] == 10
    # caught by the program: the run goes on
    tl = run("n = 0\nfor i in range(10):\n    try:\n        n += 1 / (i - 6)\n"
             "    except ZeroDivisionError as e:\n        print('caught', e)\nprint(n > 0)\n")
    assert tl["ok"] and [c["text"] for c in tl["console"]] == ["caught division by zero\n",
                                                                "False\n"]


def test_warnings_of_quiet_iterations_are_kept():
    text = ("import torch\nx = torch.ones(2, requires_grad=True)\nfor i in range(8):\n"
            "    y = x * 2\n    y.grad\n")
    tl = run(text)
    lines = [(w["step"], w["category"]) for w in tl["warnings"]]
    quiet = next(s["index"] for s in tl["steps"] if s["kind"] == "iterations")
    assert len(lines) == 8 and sum(s == quiet for s, _ in lines) == 3
    assert all(c == "UserWarning" for _, c in lines)


def test_too_many_events_is_a_limit_error():
    text = "import torch\nx = torch.ones(2)\n" + "y = x + 1\n" * 40
    tl = run(text, limits=Limits(max_timeline_events=20))
    assert tl["error"]["kind"] == "limit" and tl["error"]["limit"] == "max_timeline_events"
    assert "timeline" in tl["error"]["message"]
    assert tl["stats"]["events"] <= 22
    # the long-loop rule keeps a long loop under the same budget
    tl = run(TRAIN.format(n=3000), limits=Limits(max_timeline_events=1000, max_seconds=60))
    assert tl["ok"], tl["error"]


def test_series_are_bounded():
    from playground import recorder
    old = recorder.MAX_SERIES_POINTS
    recorder.MAX_SERIES_POINTS = 25
    try:
        tl = run("n = 0\nfor i in range(40):\n    n += i\n    m = n * 2\n")
    finally:
        recorder.MAX_SERIES_POINTS = old
    series = tl["loops"][0]["series"]
    total = sum(v is not None for s in series.values() for v in s)
    assert total == 25


def test_the_host_takes_detail_and_checks_it():
    host = Host()
    text = TRAIN.format(n=12)
    r = host.handle({"type": "run", "id": 1, "program": text})
    stmt = header(r["timeline"], "for step")
    r = host.handle({"type": "run", "id": 2, "program": text,
                     "detail": [{"statement": stmt, "loop": [6]}]})
    assert r["type"] == "result" and r["timeline"]["loops"][0]["detail"] == [0, 1, 2, 6, 10, 11]
    json.dumps(r, allow_nan=False)
    for bad in ([{"statement": stmt}], {"statement": stmt, "loop": [6]}, [{"statement": -1,
                "loop": [6]}], [{"statement": stmt, "loop": []}], [{"statement": stmt,
                "loop": [True]}], [{"statement": stmt, "loop": [1], "x": 1}],
                [{"statement": stmt, "loop": [k]} for k in range(21)]):
        r = host.handle({"type": "run", "id": 3, "program": text, "detail": bad})
        assert r["type"] == "error" and r["error"]["kind"] == "protocol", bad
        assert r["error"]["field"] == "detail"
