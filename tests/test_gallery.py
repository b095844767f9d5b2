"""The example gallery (playground/examples.py): every program runs in the playground, gives a
valid timeline, fits in a share link, and prints and computes what real PyTorch does: always
against the recording in tests/fixtures/gallery.json (scripts/record_gallery.py), and also
against live torch when it imports."""

from __future__ import annotations

import functools
import importlib.util
import json
import math
import re
from pathlib import Path

import jsonschema
import pytest
from live_torch import real_torch as _real_torch

from playground import decode, encode, run_program
from playground.examples import DEFAULT_ID, EXAMPLES, OLD_IDS, Example, get

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "playground" / "timeline_schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
FIXTURE = json.loads((ROOT / "tests" / "fixtures" / "gallery.json").read_text())
IDS = [ex.id for ex in EXAMPLES]
REL_TOL, ABS_TOL = 1e-5, 1e-6  # float32 math done in a different order than torch's
MAX_TOKEN = 1000


def _load_recorder():
    # the recorder's own torch runner, so that the live comparison is the recording's twin
    spec = importlib.util.spec_from_file_location("record_gallery",
                                                  ROOT / "scripts" / "record_gallery.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RECORDER = _load_recorder()


@functools.cache
def timeline(example_id: str) -> dict:
    return run_program(get(example_id).program)


# -- comparing a timeline with what torch did ------------------------------------------------------

def close(expected, got, where: str) -> None:
    if isinstance(expected, list):
        assert isinstance(got, list) and len(got) == len(expected), (where, expected, got)
        for i, (e, g) in enumerate(zip(expected, got)):
            close(e, g, f"{where}[{i}]")
    elif isinstance(expected, str) or isinstance(expected, bool):  # "nan", "inf", "-inf"
        assert got == expected, (where, expected, got)
    else:
        assert isinstance(got, (int, float)) and not isinstance(got, bool), (where, got)
        assert math.isclose(got, expected, rel_tol=REL_TOL, abs_tol=ABS_TOL), (
            where, expected, got)


def named_tensor(tl: dict, name: str) -> dict:
    """The tensor a name refers to at the end: the last one made that was bound to it."""
    found = [t for t in tl["nodes"]["tensors"] if name in t["names"]]
    assert found, f"no tensor named {name!r} in the timeline"
    return found[-1]


def compare(tl: dict, torch_run: dict, label: str) -> None:
    console = "".join(entry["text"] for entry in tl["console"])
    assert console == torch_run["console"], f"{label}: printed output differs"
    expected_error = torch_run["error"]
    if expected_error is None:
        assert tl["error"] is None, f"{label}: {tl['error']}"
    else:
        got = tl["error"]
        assert got is not None, f"{label}: torch raised {expected_error}, the playground did not"
        assert (got["type"], got["line"], got["message"]) == (
            expected_error["type"], expected_error["line"], expected_error["message"]), label
    assert torch_run["tensors"], f"{label}: nothing recorded to compare"
    for name, rec in torch_run["tensors"].items():
        t = named_tensor(tl, name)
        where = f"{label}: {name}"
        assert (t["shape"], t["dtype"]) == (rec["shape"], rec["dtype"]), where
        assert "data" in t["value"], f"{where}: gallery tensors are small enough to show whole"
        close(rec["value"], t["value"]["data"], f"{where}.value")
        if rec["grad"] is None:
            assert t["grad"] is None, f"{where}.grad should be None, is {t['grad']}"
        else:
            assert t["grad"] is not None, f"{where}.grad is None, torch has {rec['grad']}"
            close(rec["grad"], t["grad"]["data"], f"{where}.grad")


# -- every example ---------------------------------------------------------------------------------

@pytest.mark.parametrize("example_id", IDS)
def test_example_runs_and_its_timeline_is_valid_json(example_id):
    ex = get(example_id)
    tl = timeline(example_id)
    VALIDATOR.validate(tl)
    assert json.loads(json.dumps(tl, allow_nan=False)) == tl
    assert "internal_errors" not in tl, tl.get("internal_errors")
    if ex.expect_error is None:
        assert tl["ok"], tl["error"]
        return
    # a deliberate error is torch's exception, raised by the program's last statement
    err = tl["error"]
    assert not tl["ok"] and err["kind"] == "runtime", err
    assert err["type"] == ex.expect_error
    assert err["line"] == tl["statements"][-1]["line"]
    assert tl["steps"][-1]["error"] is not None


@pytest.mark.parametrize("example_id", IDS)
def test_example_prints_and_computes_what_torch_does(example_id):
    tl = timeline(example_id)
    recorded = FIXTURE["examples"].get(example_id)
    assert recorded is not None, "not recorded: run python scripts/record_gallery.py"
    assert recorded["program"] == get(example_id).program, (
        "the program changed since it was recorded: run python scripts/record_gallery.py")
    compare(tl, recorded, "recorded torch")
    if _real_torch is not None:
        compare(tl, RECORDER.run_in_torch(get(example_id).program), "live torch")


@pytest.mark.parametrize("example_id", IDS)
def test_example_fits_in_a_share_link(example_id):
    program = get(example_id).program
    token = encode(program)
    assert len(token) < MAX_TOKEN, len(token)
    assert decode(token) == program


# -- the gallery as a whole ------------------------------------------------------------------------

def test_fixture_records_exactly_the_gallery():
    assert sorted(FIXTURE["examples"]) == sorted(IDS)
    assert FIXTURE["header"]["torch_version"].startswith("2.")


def test_ids_are_unique_slugs_and_the_default_comes_first():
    assert len(set(IDS)) == len(IDS) >= 18
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", i) for i in IDS)
    assert IDS[0] == DEFAULT_ID == "tutorial-square"
    default = get(DEFAULT_ID)
    assert "y = x**2\nz = 2*y\nz.backward()\n" in default.program
    assert FIXTURE["examples"][DEFAULT_ID]["tensors"]["x"]["grad"] == [8.0]


def test_get_returns_the_example_and_names_the_known_ids_when_missing():
    assert get("hook-clip") is next(ex for ex in EXAMPLES if ex.id == "hook-clip")
    with pytest.raises(KeyError) as info:
        get("no-such-example")
    message = str(info.value)
    assert "no-such-example" in message and DEFAULT_ID in message


def test_example_is_frozen():
    with pytest.raises(AttributeError):
        get(DEFAULT_ID).title = "changed"  # type: ignore[misc]
    assert isinstance(get(DEFAULT_ID), Example)


@pytest.mark.parametrize("ex", EXAMPLES, ids=IDS)
def test_texts_are_well_formed(ex):
    assert ex.title and "\n" not in ex.title
    assert ex.summary and "\n" not in ex.summary
    paragraphs = ex.explanation.split("\n\n")
    assert 2 <= len(paragraphs) <= 4 and all(p.strip() == p and p for p in paragraphs)
    assert ex.explanation.count("`") % 2 == 0  # code spans are closed
    assert ex.program.startswith("import torch\n") and ex.program.endswith("\n")
    assert ex.claim is None or (ex.claim and "\n" not in ex.claim)
    assert ex.expect_error in (None, "RuntimeError")
    assert isinstance(ex.tags, tuple) and all(isinstance(t, str) for t in ex.tags)
    if "rewritten" in ex.tags:
        assert "straight-line" in ex.explanation or "rewritten" in ex.explanation


def test_torch_differs_states_the_tutorial_claim_and_what_pytorch_does():
    assert sum(ex.torch_differs for ex in EXAMPLES) >= 6
    for ex in EXAMPLES:
        words = " ".join(ex.explanation.split())  # the text is wrapped at any space
        if ex.torch_differs:
            assert ex.claim is not None and "tutorial" in ex.tags, ex.id
            assert "A common tutorial claims that" in words, ex.id
            assert "In real PyTorch" in words, ex.id
        else:
            assert ex.claim is None and "claims" not in words, ex.id


def test_earlier_example_ids_still_open_their_example():
    # the tutorial examples were first named seed-...; links made then must keep working
    assert get("seed-square") is get("tutorial-square")
    assert get("seed-clone-add-inplace") is get("tutorial-clone-add-inplace")
    assert len(OLD_IDS) == sum(ex.id.startswith("tutorial-") for ex in EXAMPLES) >= 15
    assert not set(OLD_IDS) & set(IDS)


def test_each_claim_of_the_semantics_table_has_a_torch_differs_example():
    # docs/semantics.md, "Where common tutorials are wrong": each claim and what torch does
    claims = {
        "tutorial-torch-gradient-exists": "torch.gradient",  # it exists
        "tutorial-non-scalar-backward": "backward()",  # non-scalar backward raises
        "tutorial-clone-add-inplace": "clone()",  # clone + add_ keeps the gradient
        "tutorial-times-two-keeps-graph": "* 2.0",  # does not detach
        "tutorial-inplace-times-two-keeps-graph": "*= 2.0",  # does not stop gradients
        "tutorial-leaf-inplace-error": "x += 1",  # on a leaf always raises
    }
    for example_id, words in claims.items():
        ex = get(example_id)
        assert ex.torch_differs and words in ex.claim, example_id
    outcomes = {i: FIXTURE["examples"][i] for i in claims}
    assert outcomes["tutorial-torch-gradient-exists"]["error"] is None
    assert outcomes["tutorial-non-scalar-backward"]["error"]["type"] == "RuntimeError"
    assert outcomes["tutorial-clone-add-inplace"]["tensors"]["x"]["grad"] == [6.0, 8.0, 10.0]
    for i in ("tutorial-times-two-keeps-graph", "tutorial-inplace-times-two-keeps-graph"):
        assert outcomes[i]["tensors"]["linear.weight"]["grad"] == [[-24.0]]
    assert "in-place" in outcomes["tutorial-leaf-inplace-error"]["error"]["message"]


def test_the_required_lessons_are_in_the_gallery():
    programs = {ex.id: ex.program for ex in EXAMPLES}
    assert "a + a" in programs["fan-out"]
    acc = programs["accumulate-and-zero"]
    assert all(s in acc for s in ("retain_graph=True", ".grad.zero_()", ".grad = None",
                                  "optimizer.zero_grad()"))
    assert FIXTURE["examples"]["accumulate-and-zero"]["console"].startswith(
        "tensor([8.])\ntensor([16.])\n")
    assert "retain_grad()" in programs["tutorial-retain-grad"]
    assert "create_graph=True" in programs["second-derivative"]
    assert "register_hook(F.hardtanh)" in programs["hook-clip"]
    assert "optim.SGD" in programs["mlp-sgd"] and "zero_grad()" in programs["mlp-sgd"]
    assert "optim.Adam" in programs["adam"]
    assert "modified by an inplace operation" in (
        FIXTURE["examples"]["inplace-modified-error"]["error"]["message"])
    assert "nan" in FIXTURE["examples"]["nan-where-log"]["tensors"]["x"]["grad"] or (
        "nan" in FIXTURE["examples"]["nan-where-log"]["console"])


def test_the_recorder_reports_drift_without_writing(tmp_path, monkeypatch):
    # --check compares in memory; a stale fixture is reported line by line, not rewritten
    old = json.loads(json.dumps(FIXTURE))
    old["examples"][DEFAULT_ID]["console"] = "tensor([7.])\n"
    del old["examples"]["hook-clip"]
    lines = RECORDER.drift(old, FIXTURE)
    assert lines == ["hook-clip: not in the fixture", f"{DEFAULT_ID}: console changed"]
    assert RECORDER.drift(FIXTURE, FIXTURE) == []
    stale = tmp_path / "gallery.json"
    stale.write_text(RECORDER.dumps(old))
    monkeypatch.setattr(RECORDER, "FIXTURE", stale)
    monkeypatch.setattr(RECORDER, "record", lambda: json.loads(json.dumps(FIXTURE)))
    assert RECORDER.main(["--check"]) == 1
    assert json.loads(stale.read_text()) == old  # untouched
