"""A corpus of programs written the way people write PyTorch (models as classes, training loops
with logging, hooks as lambdas, polynomial fits, gradient checks by hand, exceptions caught and
printed) runs in the playground and prints exactly what torch 2.13 prints.

The programs are tests/corpus/*.py; what torch printed is recorded in
tests/fixtures/program_corpus.json (scripts/record_corpus.py), and when torch imports every
program is also run in torch, all of them in one process (the test oracle; the playground never
executes program text). The programs use no unseeded random numbers, so every value compares.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from playground import run

ROOT = Path(__file__).resolve().parents[1]
CORPUS = sorted((ROOT / "tests" / "corpus").glob("*.py"))
FIXTURES = ROOT / "tests" / "fixtures" / "program_corpus.json"

# runs each program (read as JSON from stdin) in a fresh namespace, capturing what it prints
_TORCH_RUNNER = r"""
import contextlib, io, json, sys
out = {}
for name, src in json.load(sys.stdin).items():
    buf = io.StringIO()
    error = None
    with contextlib.redirect_stdout(buf):
        try:
            exec(compile(src, name, "exec"), {"__name__": "__main__"})
        except Exception as e:
            error = type(e).__name__ + ": " + str(e).split("\n")[0]
    out[name] = {"output": buf.getvalue(), "error": error}
print(json.dumps(out))
"""


def torch_results(programs: dict) -> dict | None:
    try:
        import torch  # noqa: F401
    except ImportError:
        return None
    proc = subprocess.run([sys.executable, "-c", _TORCH_RUNNER], input=json.dumps(programs),
                          capture_output=True, text=True, timeout=600, cwd="/")
    return json.loads(proc.stdout)


def corpus_programs() -> dict:
    return {p.name: p.read_text(encoding="utf-8") for p in CORPUS}


@pytest.fixture(scope="module")
def expected() -> list:
    sources = [json.loads(FIXTURES.read_text())]
    live = torch_results(corpus_programs())
    if live is not None:
        sources.append(live)
    return sources


def test_the_corpus_has_fifty_programs_and_all_are_recorded():
    assert len(CORPUS) >= 50
    assert set(json.loads(FIXTURES.read_text())) == {p.name for p in CORPUS}


@pytest.mark.parametrize("path", CORPUS, ids=[p.name for p in CORPUS])
def test_corpus_program_prints_what_torch_prints(path, expected):
    result = run(path.read_text(encoding="utf-8"))
    err = result.error
    got_error = None if err is None else f"{err.exc_type}: {err.message.split(chr(10))[0]}"
    assert err is None or err.kind == "runtime", err
    for want in expected:
        assert result.output == want[path.name]["output"]
        assert got_error == want[path.name]["error"]
