"""Records what torch prints for every program of tests/corpus/ into
tests/fixtures/program_corpus.json, so tests/test_program_corpus.py compares against torch
without torch installed. Needs torch 2.13.

    python scripts/record_corpus.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.test_program_corpus import FIXTURES, corpus_programs, torch_results  # noqa: E402


def main() -> None:
    results = torch_results(corpus_programs())
    if results is None:
        sys.exit("torch is not installed")
    FIXTURES.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    failed = [name for name, r in results.items() if r["error"]]
    print(f"recorded {len(results)} programs into {FIXTURES}; raising in torch: {failed}")


if __name__ == "__main__":
    main()
