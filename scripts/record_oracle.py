#!/usr/bin/env python
"""Run every oracle scenario in real PyTorch and write tests/oracle/fixtures.json.

Usage: python scripts/record_oracle.py [--check]

--check  re-record in memory and exit non-zero if the fixture file is stale.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.oracle.recorder import run_scenario  # noqa: E402
from tests.oracle.scenarios import SCENARIOS  # noqa: E402

FIXTURES = ROOT / "tests" / "oracle" / "fixtures.json"


def record(torch) -> dict:
    scenarios = {}
    for name, fn in SCENARIOS.items():
        scenarios[name] = run_scenario(fn, torch)
    return {"header": {"torch_version": torch.__version__}, "scenarios": scenarios}


def dumps(data) -> str:
    return json.dumps(data, sort_keys=True, indent=1) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    import torch

    data = record(torch)
    text = dumps(data)
    errors = {k: v["error"] for k, v in data["scenarios"].items() if v["error"]}
    for name, err in errors.items():
        print(f"scenario {name} raised unexpectedly: {err}", file=sys.stderr)
    if args.check:
        stale = not FIXTURES.exists() or FIXTURES.read_text() != text
        print("fixtures are stale" if stale else "fixtures are up to date")
        return 1 if stale or errors else 0
    FIXTURES.write_text(text)
    print(f"wrote {len(data['scenarios'])} scenarios to {FIXTURES.relative_to(ROOT)} "
          f"(torch {torch.__version__})")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
