"""Every fenced code block of the seed documents (the lessons this playground was made for) runs
verbatim in the playground and prints what torch 2.13 prints: the same output, and the same
exception type and first line when torch raises.

The seeds live outside the repository, in ../shared/seeds/ next to its root (or where
GRADPLAY_SEEDS points); without them the test is skipped and says so. Expected outputs come from
tests/fixtures/seed_outputs.json (recorded with torch 2.13 by scripts/record_seeds.py), and from
live torch when it imports.

Two differences are the engine's and are normalised on both sides before comparing: memory
addresses in reprs, and the repr of a torch function (torch's are built-in methods, the engine's
Python functions). Values that depend on random initialisation are compared only when the program
seeds the generator and the engine reproduces torch's generator (`_engine_matches_torch_generator`):
torch 2.13 seeds a fresh process's generator differently every time (torch.initial_seed() varies),
so an unseeded program's random numbers differ even between two torch runs. Otherwise numbers are
masked and everything else is compared.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from playground import run

ROOT = Path(__file__).resolve().parents[1]
SEEDS = Path(os.environ.get("GRADPLAY_SEEDS") or ROOT.parent / "shared" / "seeds")
FIXTURES = ROOT / "tests" / "fixtures" / "seed_outputs.json"
_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
_RANDOM_INIT = re.compile(r"nn\.Linear|torch\.rand|nn\.init")
# torch.manual_seed(0); torch.rand(2) in torch 2.13
_TORCH_SEED0_RAND = [0.49625658988952637, 0.7682217955589294]


def seed_blocks() -> list:
    if not SEEDS.is_dir():
        return []
    out = []
    for path in sorted(SEEDS.iterdir()):
        if path.is_file():
            for i, m in enumerate(_FENCE.finditer(path.read_text(encoding="utf-8"))):
                out.append((f"{path.name}#{i}", m.group(1)))
    return out


def block_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def normalise(text: str, mask_numbers: bool) -> str:
    text = re.sub(r"0x[0-9a-f]+", "0x?", text)
    text = re.sub(r"<(?:built-in method|function) (\w+)[^>]*>", r"<function \1>", text)
    if mask_numbers:
        text = re.sub(r"-?\d+\.\d*(e[-+]?\d+)?", "#", text)
    return text


def torch_result(text: str) -> dict | None:
    """stdout and the first line of the exception of text run by real torch (test oracle)."""
    try:
        import torch  # noqa: F401
    except ImportError:
        return None
    runner = ("import sys, traceback\nsrc = sys.stdin.read()\n"
              "try:\n    exec(compile(src, '<seed>', 'exec'), {'__name__': '__main__'})\n"
              "except Exception as e:\n"
              "    print('\\n<<error>>' + type(e).__name__ + ': ' + str(e).split('\\n')[0])\n")
    proc = subprocess.run([sys.executable, "-c", runner], input=text, capture_output=True,
                          text=True, timeout=120, cwd="/")
    out, _, err = proc.stdout.partition("\n<<error>>")
    return {"output": out, "error": err.strip() or None}


def playground_result(text: str) -> dict:
    result = run(text)
    err = result.error
    if err is None:
        return {"output": result.output, "error": None}
    assert err.kind == "runtime", f"the playground refused a seed block: {err}"
    return {"output": result.output, "error": f"{err.exc_type}: {err.message.split(chr(10))[0]}"}


def _engine_matches_torch_generator() -> bool:
    got = run("import torch\ntorch.manual_seed(0)\nprint(torch.rand(2).tolist())\n").output
    return got.strip() == str(_TORCH_SEED0_RAND)


def _recorded() -> dict:
    return json.loads(FIXTURES.read_text()) if FIXTURES.exists() else {}


BLOCKS = seed_blocks()


@pytest.mark.skipif(not BLOCKS, reason=f"the seed documents are not here ({SEEDS})")
@pytest.mark.parametrize("name,text", BLOCKS, ids=[b[0] for b in BLOCKS])
def test_seed_block_prints_what_torch_prints(name, text):
    expected = [r for r in (_recorded().get(block_key(text)), torch_result(text)) if r]
    # a block with nothing to compare against is a missing recording, not a pass
    assert expected, f"no recorded torch output for {name}: run scripts/record_seeds.py with torch"
    mask = bool(_RANDOM_INIT.search(text)) and (
        "manual_seed" not in text or not _engine_matches_torch_generator())
    got = playground_result(text)
    for want in expected:
        assert normalise(got["output"], mask) == normalise(want["output"], mask), name
        assert (got["error"] is None) == (want["error"] is None), (got["error"], want["error"])
        if want["error"] is not None:
            assert normalise(got["error"], mask) == normalise(want["error"], mask)
