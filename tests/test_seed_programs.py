"""The code of the seed documents run the way a reader pastes it, through the host's `run`
request (one host session per document, as one browser tab), and classified:

- `runs`: no error, and the output torch 2.13 prints (numbers masked where they come from an
  unseeded random initialisation, as tests/test_seeds.py does);
- `raises as torch does`: the same exception type and first line as torch, after the same output
  (a block that needs an earlier block, a file, the network or a GPU is expected to fail so);
- `refused: <construct>`: the language does not accept it (syntax or not_allowed);
- `missing API: <name>`: torch has the name and the playground does not;
- `limit: <which>`, `differs: ...` (output or error unlike torch's), `internal: ...`.

The programs: every fenced code block; each document's blocks joined from its first one on, as
a reader runs a tutorial top to bottom in one notebook (the later blocks of a document may use
what the earlier ones defined); and, in a document without fences, each unfenced listing (a run
of lines from an `import` line on that parses as Python).

The seeds live outside the repository, in ../shared/seeds/ next to its root (or where
GRADPLAY_SEEDS points); without them the test is skipped and says so. Expected results come from
tests/fixtures/seed_outputs.json (scripts/record_seeds.py records them with torch 2.13) and from
live torch when it imports.

    python tests/test_seed_programs.py     # prints each program's class and the counts
"""

from __future__ import annotations

import ast
import json
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

from playground.host import Host, handle_json  # noqa: E402
from tests.test_seeds import (  # noqa: E402
    _FENCE,
    _RANDOM_INIT,
    SEEDS,
    _engine_matches_torch_generator,
    _recorded,
    block_key,
    normalise,
    torch_result,
)

RUNS = "runs"
AS_TORCH = "raises as torch does"
_START = ("import ", "from ")


def unfenced_listings(text: str) -> list:
    """(first line, code) of each listing a document shows without fences: from a line that
    starts an import, the longest run of lines that parses as Python and is more than imports."""
    lines = text.split("\n")
    out, i = [], 0
    while i < len(lines):
        if not lines[i].startswith(_START):
            i += 1
            continue
        best = None
        for j in range(i + 1, len(lines) + 1):
            code = "\n".join(lines[i:j]) + "\n"
            try:
                tree = ast.parse(code)
            except SyntaxError:
                continue
            if not all(isinstance(s, (ast.Import, ast.ImportFrom)) for s in tree.body):
                best = j
        if best is None:
            i += 1
            continue
        out.append((i + 1, "\n".join(lines[i:best]) + "\n"))
        i = best
    return out


def seed_programs() -> list:
    """(name, document, code) of every program a reader would paste from the seeds."""
    if not SEEDS.is_dir():
        return []
    out = []
    for path in sorted(SEEDS.iterdir()):
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        blocks = [m.group(1) for m in _FENCE.finditer(text)]
        for i, block in enumerate(blocks):
            out.append((f"{path.name}#{i}", path.name, block))
        for i in range(1, len(blocks)):
            out.append((f"{path.name}#0-{i}", path.name, "\n".join(blocks[:i + 1])))
        if not blocks:
            for line, code in unfenced_listings(text):
                out.append((f"{path.name}:{line}", path.name, code))
    return out


def playground_result(host: Host, code: str) -> dict:
    """What a user sees after pasting code and pressing run: output, and the error if any."""
    reply = json.loads(handle_json(host, json.dumps({"type": "run", "id": 1, "program": code})))
    if reply["type"] != "result":
        return {"output": "", "error": None, "kind": "internal",
                "message": reply.get("error", {}).get("message", "")}
    timeline = reply["timeline"]
    output = "".join(c["text"] for c in timeline["console"])
    err = timeline["error"]
    if err is None:
        return {"output": output, "error": None, "kind": None, "message": ""}
    first = err["message"].split("\n")[0]
    error = f"{err['type']}: {first}" if err["kind"] == "runtime" else None
    return {"output": output, "error": error, "kind": err["kind"], "message": first,
            "limit": err.get("limit")}


def expected_results(code: str) -> list:
    recorded = _recorded().get(block_key(code))
    return [r for r in (recorded, torch_result(code)) if r]


def classify(got: dict, expected: list, code: str) -> str:
    kind, message = got["kind"], got["message"]
    if kind in ("syntax", "not_allowed"):
        if "is not available in the playground" in message:
            return "missing API: " + message.split(" is not available")[0]
        return "refused: " + message
    if kind == "limit":
        return f"limit: {got.get('limit')}"
    if kind == "internal":
        return "internal: " + message
    mask = bool(_RANDOM_INIT.search(code)) and (
        "manual_seed" not in code or not _engine_matches_torch_generator())
    for want in expected:
        if normalise(got["output"], mask) != normalise(want["output"], mask):
            return "differs: output"
        if (got["error"] is None) != (want["error"] is None) or (
                want["error"] is not None
                and normalise(got["error"], mask) != normalise(want["error"], mask)):
            return f"differs: error {got['error']!r}, torch {want['error']!r}"
    return RUNS if got["error"] is None else AS_TORCH


def classify_all() -> list:
    """(name, class) of every seed program, one host session per document."""
    hosts: dict = {}
    out = []
    for name, doc, code in seed_programs():
        host = hosts.setdefault(doc, Host())
        out.append((name, classify(playground_result(host, code), expected_results(code), code)))
    return out


PROGRAMS = seed_programs()


@pytest.mark.skipif(not PROGRAMS, reason=f"the seed documents are not here ({SEEDS})")
def test_every_seed_program_runs_as_in_torch():
    expected = {name: expected_results(code) for name, _, code in PROGRAMS}
    # a program with nothing to compare against is a missing recording, not a pass
    missing = [name for name, results in expected.items() if not results]
    assert not missing, f"no torch output recorded for {missing}: run scripts/record_seeds.py"
    classes = classify_all()
    bad = [(name, c) for name, c in classes if c not in (RUNS, AS_TORCH)]
    assert not bad, bad


def test_unfenced_listing_is_the_longest_code_run():
    doc = ("Some prose first.\nimport torch\nx = torch.ones(2)\nprint(x)\nExpected Output:\n"
           "tensor([1., 1.])\nimport math\nMore prose.\n")
    assert unfenced_listings(doc) == [(2, "import torch\nx = torch.ones(2)\nprint(x)\n")]


def test_classify_names_the_missing_api_and_the_refused_construct():
    host = Host()
    missing = playground_result(host, "import torch\ntorch.save(torch.ones(1), 'f')\n")
    assert classify(missing, [], "") == "missing API: torch.save"
    refused = playground_result(host, "import os\n")
    assert classify(refused, [], "").startswith("refused: ")
    ran = playground_result(host, "import torch\nprint(torch.ones(1))\n")
    assert classify(ran, [{"output": "tensor([1.])\n", "error": None}], "") == RUNS
    assert classify(ran, [{"output": "tensor([2.])\n", "error": None}], "") == "differs: output"


def main() -> None:
    classes = classify_all()
    if not classes:
        sys.exit(f"no seed documents at {SEEDS}")
    for name, c in classes:
        print(f"{name:40} {c}")
    counts = Counter(c.split(":")[0] for _, c in classes)
    print("\n" + ", ".join(f"{k}: {v}" for k, v in counts.most_common()), f"(of {len(classes)})")


if __name__ == "__main__":
    main()
