"""Record torch 2.13's values for tests/test_fused_multiply_add.py (needs torch installed).

    python scripts/record_fused_multiply_add.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from tests.test_fused_multiply_add import FIXTURE, IDS, run_case  # noqa: E402


def main() -> int:
    out = {case_id: [v.hex() for v in run_case(torch, case_id)] for case_id in IDS}
    FIXTURE.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {len(out)} cases to {FIXTURE.relative_to(ROOT)} (torch {torch.__version__})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
