"""Records what torch prints for every fenced code block of the seed documents, and for every
program tests/test_seed_programs.py makes of them (blocks joined, unfenced listings), into
tests/fixtures/seed_outputs.json (keyed by a hash of the code), so tests/test_seeds.py and
tests/test_seed_programs.py compare against torch without torch installed. Needs torch 2.13 and the seeds (../shared/seeds/ next to
the repository root, or GRADPLAY_SEEDS).

    python scripts/record_seeds.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.test_seed_programs import seed_programs  # noqa: E402
from tests.test_seeds import FIXTURES, SEEDS, block_key, seed_blocks, torch_result  # noqa: E402


def main() -> None:
    blocks = seed_blocks() + [(name, code) for name, _doc, code in seed_programs()]
    if not blocks:
        sys.exit(f"no seed documents at {SEEDS}")
    recorded = {}
    for _name, text in blocks:
        result = torch_result(text)
        if result is None:
            sys.exit("torch is not installed")
        recorded[block_key(text)] = result
    FIXTURES.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
    print(f"recorded {len(recorded)} programs into {FIXTURES}")


if __name__ == "__main__":
    main()
