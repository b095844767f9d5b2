"""Record torch's outcomes of the value fuzzer's fixed examples into tests/fixtures/value_fuzz.json.

Run with the reference torch installed (``torch==2.13.0``)::

    python scripts/record_value_fuzz.py            # seeds 0 .. COUNT-1
    python scripts/record_value_fuzz.py --check    # exit 1 if the file is stale

Each example is drawn from its seed by tests/value_fuzz/catalogue.py and run by
tests/value_fuzz/outcome.py; the file keeps the example (so the test needs neither the generator
nor torch to rerun it) and torch's outcome. Re-record after changing the catalogue.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.value_fuzz.catalogue import (  # noqa: E402
    ADDED,
    ADDED_SEEDS,
    ALL,
    REGRESSIONS,
    draw_example,
)
from tests.value_fuzz.outcome import run  # noqa: E402

FIXTURE = ROOT / "tests" / "fixtures" / "value_fuzz.json"
COUNT = 1500
ALL_SEEDS = range(600000, 600600)


def record(torch, count: int) -> dict:
    cases = []
    examples = [(seed, None) for seed in range(count)]
    examples += [(seed, ALL) for seed in ALL_SEEDS]  # every op, the added ones among them
    examples += [(seed, op) for op in ADDED for seed in ADDED_SEEDS]
    for seed, op in examples + REGRESSIONS:
        example = draw_example(seed, op)
        cases.append({"example": example, "torch": run(example, torch)})
    return {"torch": torch.__version__, "cases": cases}


def dumps(data: dict) -> str:
    # one case a line: small to diff, and git compresses the rest
    lines = [json.dumps(c, sort_keys=True, separators=(",", ":")) for c in data["cases"]]
    head = '{"torch": ' + json.dumps(data["torch"]) + ', "cases": [\n'
    return head + ",\n".join(lines) + "\n]}\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=COUNT)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    import torch

    if not torch.__version__.startswith("2.13."):
        print(f"expected torch 2.13, found {torch.__version__}", file=sys.stderr)
        return 1
    text = dumps(record(torch, args.count))
    if args.check:
        stale = not FIXTURE.exists() or FIXTURE.read_text() != text
        print("fixture is stale" if stale else "fixture is up to date")
        return 1 if stale else 0
    FIXTURE.write_text(text)
    print(f"wrote {args.count} examples to {FIXTURE.relative_to(ROOT)} (torch {torch.__version__})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
