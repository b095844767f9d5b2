"""The host protocol (docs/host-protocol.md): every request answered once, never a crash."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from playground import examples
from playground.host import MAX_REQUEST_CHARS, PROTOCOL_VERSION, Host, handle_json
from playground.share import encode

SEED = ("import torch\nx = torch.tensor([2.0], requires_grad=True)\ny = x**2\nz = 2*y\n"
        "z.backward()\nprint(x.grad)\n")


def _tensor(timeline, name):
    return next(t for t in timeline["nodes"]["tensors"] if t["name"] == name)


def test_hello_lists_examples_palette_and_versions():
    r = Host().handle({"type": "hello", "id": 1})
    assert r["type"] == "hello" and r["id"] == 1 and r["protocol"] == PROTOCOL_VERSION
    assert [e["id"] for e in r["examples"]] == [e.id for e in examples.EXAMPLES]
    assert r["default_example"] in [e["id"] for e in r["examples"]]
    assert {"add", "mul", "pow", "sum", "matmul"} <= {p["name"] for p in r["palette"]}
    assert set(r["versions"]) == {"timeline", "edits", "share"}
    json.dumps(r, allow_nan=False)


def test_run_returns_timeline_and_token():
    r = Host().handle({"type": "run", "id": "a", "program": SEED})
    assert r["type"] == "result" and r["id"] == "a" and r["program"] == SEED
    assert r["timeline"]["ok"] and r["timeline"]["console"][0]["text"] == "tensor([8.])\n"
    assert r["token"] == encode(SEED)


def test_program_errors_are_in_the_timeline_not_protocol_errors():
    r = Host().handle({"type": "run", "id": 2, "program": SEED + "z.backward()\n"})
    assert r["type"] == "result"
    err = r["timeline"]["error"]
    assert err["type"] == "RuntimeError" and err["line"] == 7
    assert err["message"].startswith("Trying to backward through the graph a second time")


def test_ids_stay_stable_across_runs_of_one_session():
    host = Host()
    first = host.handle({"type": "run", "id": 1, "program": SEED})["timeline"]
    edited = SEED.replace("y = x**2\n", "# a comment\ny = x**2\n")
    second = host.handle({"type": "run", "id": 2, "program": edited})["timeline"]
    assert _tensor(first, "y")["id"] == _tensor(second, "y")["id"]


def test_edit_applies_an_intent_and_runs_the_new_program():
    host = Host()
    r = host.handle({"type": "edit", "id": 3, "program": SEED,
                     "edit": {"op": "retain_grad", "target": "y"}})
    assert r["type"] == "result", r
    assert "y.retain_grad()" in r["program"] and r["edit"]["changed_lines"]
    assert _tensor(r["timeline"], "y")["grad"]["data"] == [2.0]  # dz/dy = 2


def test_bad_edit_is_an_edit_error_and_keeps_state():
    host = Host()
    host.handle({"type": "run", "id": 1, "program": SEED})
    r = host.handle({"type": "edit", "id": 2, "program": SEED,
                     "edit": {"op": "retain_grad", "target": "nope"}})
    assert r["type"] == "error" and r["error"]["kind"] == "edit" and r["id"] == 2
    assert host.program == SEED


def test_an_examples_earlier_id_opens_it_and_examples_carry_the_tutorial_claim():
    r = Host().handle({"type": "example", "id": 1, "example": "seed-clone-add-inplace"})
    assert r["type"] == "result" and r["example"]["id"] == "tutorial-clone-add-inplace"
    assert "clone()" in r["example"]["claim"] and r["example"]["torch_differs"]
    hello = Host().handle({"type": "hello", "id": 2})
    for meta in hello["examples"]:
        assert "seed" not in meta and (meta["claim"] is None) == (not meta["torch_differs"])


def test_example_and_open_round_trip():
    host = Host()
    ex = examples.get(examples.DEFAULT_ID)
    r = host.handle({"type": "example", "id": 1, "example": ex.id})
    assert r["program"] == ex.program and r["example"]["explanation"] == ex.explanation
    token = host.handle({"type": "share", "id": 2, "program": ex.program})["token"]
    r2 = Host().handle({"type": "open", "id": 3, "token": token})
    assert r2["type"] == "result" and r2["program"] == ex.program


@pytest.mark.parametrize("request_, kind", [
    ({"type": "nope", "id": 1}, "protocol"),
    ({"id": 1}, "protocol"),
    ({"type": "run", "id": 1}, "protocol"),
    ({"type": "run", "id": 1, "program": 5}, "protocol"),
    ({"type": "edit", "id": 1, "program": "", "edit": "x"}, "protocol"),
    ({"type": "example", "id": 1, "example": "no-such-example"}, "protocol"),
    ({"type": "open", "id": 1, "token": "2.AAAA"}, "share"),
    ({"type": "open", "id": 1, "token": "1." + "A" * 50}, "share"),
    ({"type": "share", "id": 1, "program": "x" * 10**6}, "share"),
    ([1, 2, 3], "protocol"),
    ("run", "protocol"),
])
def test_malformed_requests_get_error_replies(request_, kind):
    r = Host().handle(request_)
    assert r["type"] == "error" and r["error"]["kind"] == kind and r["error"]["message"]


def test_handle_json_rejects_oversized_and_non_json_text():
    host = Host()
    big = json.loads(handle_json(host, "x" * (MAX_REQUEST_CHARS + 1)))
    assert big["type"] == "error" and "at most" in big["error"]["message"]
    bad = json.loads(handle_json(host, "{not json"))
    assert bad["type"] == "error" and bad["error"]["kind"] == "protocol"
    deep = json.loads(handle_json(host, "[" * 100_000))
    assert deep["type"] == "error"
    ok = json.loads(handle_json(host, json.dumps({"type": "run", "id": 9, "program": SEED})))
    assert ok["type"] == "result" and ok["id"] == 9


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                               max_size=4),
    max_leaves=12)
_requests = st.fixed_dictionaries(
    {"type": st.sampled_from(["hello", "run", "edit", "example", "open", "share", "x"]),
     "id": st.integers() | st.text(max_size=5)},
    optional={"program": st.text(max_size=80) | _json, "edit": _json | st.fixed_dictionaries(
        {"op": st.sampled_from(["add_leaf", "add_op", "delete", "rename", "backward"])},
        optional={"target": st.text(max_size=5), "value": st.text(max_size=10)}),
        "example": st.text(max_size=10), "token": st.text(max_size=40)})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_requests | _json)
def test_fuzzed_requests_always_get_one_json_reply(request_):
    reply = json.loads(handle_json(Host(), json.dumps(request_)))
    assert reply["type"] in {"hello", "result", "share", "error"}
    if reply["type"] == "error":
        assert reply["error"]["kind"] != "internal", reply["error"]


def test_a_half_typed_program_does_not_lose_the_ids_of_the_last_good_one():
    host = Host()
    first = host.handle({"type": "run", "id": 1, "program": SEED})["timeline"]
    broken = host.handle({"type": "run", "id": 2, "program": SEED + "w = (\n"})["timeline"]
    assert broken["error"]["kind"] == "syntax"
    edited = SEED.replace("y = x**2", "y = x**3")
    again = host.handle({"type": "run", "id": 3, "program": edited})["timeline"]
    # y was edited: it inherits its old id from the last program that parsed
    assert _tensor(again, "y")["id"] == _tensor(first, "y")["id"]
