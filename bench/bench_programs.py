#!/usr/bin/env python
"""Benchmark what a learner waits for: parse + run + timeline + JSON of each gallery program.

This is a benchmark, not a test: it prints a table of times against the 100 ms target.

    python bench/bench_programs.py                  # every gallery program + a 300-node program
    python bench/bench_programs.py --repeats 15     # more samples per program (default 7)
    python bench/bench_programs.py --json           # the results as JSON on stdout
    python bench/bench_programs.py --json out.json  # the table, and the results saved as JSON
    python bench/bench_programs.py --backend pure   # the browser's pure-Python backend

One sample is `run_program(text)` (which parses, checks, runs and records the timeline)
followed by `json.dumps(timeline, allow_nan=False)`: the work the engine host does for one
"run" request. Each program is run once to warm up, then `--repeats` times; the table shows the
median and the minimum (the machine is shared, so the minimum is the better estimate of the
cost itself).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET_MS = 100.0


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeats", type=int, default=7, help="timed runs per program (default 7)")
    p.add_argument("--backend", choices=("numpy", "pure"), default="numpy",
                   help="engine backend (default numpy)")
    p.add_argument("--nodes", type=int, default=300, help="size of the generated program")
    p.add_argument("--json", nargs="?", const="-", metavar="OUT",
                   help="write the results as JSON to OUT (stdout when no OUT is given)")
    return p.parse_args(argv)


def generated_program(nodes: int) -> str:
    """A straight-line program of about `nodes` tensor ops forming a DAG (each line uses the
    line before it, and some also reach back to an earlier one), then one backward."""
    lines = [
        "import torch",
        "x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)",
        "w = torch.tensor([0.5, -0.5, 0.25], requires_grad=True)",
        "t0 = x * w",
    ]
    ops, k = 1, 0
    while ops < nodes:
        k += 1
        prev, back = f"t{k - 1}", f"t{k // 2}"
        kind = k % 4
        if kind == 0:
            lines.append(f"t{k} = {prev} * w + {back}")
            ops += 2
        elif kind == 1:
            lines.append(f"t{k} = {prev}.tanh()")
            ops += 1
        elif kind == 2:
            lines.append(f"t{k} = {prev} * 0.9 + x")
            ops += 2
        else:
            lines.append(f"t{k} = {prev}.sin() * {back}")
            ops += 2
    lines += [f"loss = t{k}.sum()", "loss.backward()", "print(x.grad, w.grad)"]
    return "\n".join(lines) + "\n"


def measure(run_program, text: str, repeats: int) -> dict:
    tl = run_program(text)  # warm-up (and the figures of the run)
    size = len(json.dumps(tl, allow_nan=False))
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        tl = run_program(text)
        json.dumps(tl, allow_nan=False)
        times.append(time.perf_counter() - t0)
    stats = tl["stats"]
    return {
        "median_ms": statistics.median(times) * 1000,
        "min_ms": min(times) * 1000,
        "ok": tl["ok"],
        "error": None if tl["error"] is None else tl["error"]["type"],
        "steps": stats["steps"],
        "events": stats["events"],
        "nodes": stats["nodes"],
        "json_bytes": size,
    }


def main(argv=None) -> int:
    args = parse_args(argv)
    os.environ["GRADPLAY_BACKEND"] = args.backend  # before the engine is imported
    if ROOT not in sys.path:
        sys.path.append(ROOT)
    from playground import run_program
    from playground.examples import EXAMPLES

    programs = [(ex.id, ex.program) for ex in EXAMPLES]
    programs.append((f"generated-{args.nodes}-ops", generated_program(args.nodes)))
    results = {name: measure(run_program, text, args.repeats) for name, text in programs}
    import engine

    report = {
        "date": datetime.date.today().isoformat(),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "backend": engine.backend.NAME,
        "repeats": args.repeats,
        "target_ms": TARGET_MS,
        "programs": results,
    }
    if args.json == "-":
        print(json.dumps(report, indent=1))
        return 0
    width = max(len(name) for name in results)
    print(f"parse + run + timeline + json.dumps, backend {report['backend']}, Python "
          f"{report['python']}, median and min of {args.repeats} runs; target {TARGET_MS:.0f} ms")
    print(f"{'program':<{width}}  {'median':>9}  {'min':>9}  {'steps':>5}  {'events':>6}  "
          f"{'nodes':>5}  {'JSON':>7}  target")
    for name, r in results.items():
        mark = "ok" if r["median_ms"] <= TARGET_MS else "OVER"
        print(f"{name:<{width}}  {r['median_ms']:7.1f}ms  {r['min_ms']:7.1f}ms  {r['steps']:>5}  "
              f"{r['events']:>6}  {r['nodes']:>5}  {r['json_bytes'] / 1024:5.0f}kB  {mark}")
    within = sum(r["median_ms"] <= TARGET_MS for r in results.values())
    print(f"{within} of {len(results)} programs within {TARGET_MS:.0f} ms (median)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
        print(f"saved {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
