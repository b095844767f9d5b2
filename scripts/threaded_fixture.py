"""Write a fixture of torch 2.13 results recorded with the thread count the engine models.

torch splits large kernels between threads, which moves where its vectorised blocks and partial
sums fall; the engine models one count (`sum_order.THREADS`), so a recording runs torch with
that count and keeps it in the fixture. Used by the record_*.py scripts whose fixtures are a
list of cases, each rebuilt by the tests from the script's own `cases()`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def record(out: Path, cases: list, run_case) -> int:
    """Run `run_case(torch, case)` for every case and write {torch, threads, cases} to out."""
    import torch

    from engine.backend import sum_order

    if not torch.__version__.startswith("2.13."):
        print(f"expected torch 2.13, found {torch.__version__}", file=sys.stderr)
        return 1
    torch.set_num_threads(sum_order.THREADS)
    data = {"torch": torch.__version__, "threads": sum_order.THREADS,
            "cases": [run_case(torch, c) for c in cases]}
    out.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    root = Path(__file__).resolve().parent.parent
    print(f"wrote {len(data['cases'])} cases to {out.relative_to(root)}")
    return 0
