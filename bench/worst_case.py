#!/usr/bin/env python
"""What one worst-case request costs each host: wall time and peak memory.

This is a measurement, not a test: it prints a table. Each program below is built to spend as
much as the limits let it (time, one tensor's elements, all live elements, the product's work,
rows made one by one, printing, hooks during backward) and is sent as a `run` request:

- server: through the Panel server's worker pool (`playground.pool.WorkerPool`, one worker, the
  default deadline and memory cap), on a fresh worker each time; memory is the worker process's
  peak resident size (VmHWM), read just before the pool is closed;
- worker: through `handle_json`, the entry point of the in-browser host's Pyodide worker, in a
  fresh Python process on the backend given (`--backend pure` is what the browser runs); memory
  is that process's peak resident size. The browser page also terminates a worker that has not
  answered after 10 s (static/src/deadline-transport.js) and starts a new one.

    python bench/worst_case.py                    # both hosts, numpy backend for the server
    python bench/worst_case.py --backend pure     # the in-browser engine's backend
    python bench/worst_case.py --only time,print  # some programs only
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

T = "import torch\n"
PROGRAMS = {
    # wall time: statements that each do a little, until the time limit
    "time": T + "x = torch.ones(100, 100)\nwhile True:\n    y = x @ x\n",
    # one statement of many ops: printing a long list of the largest tensor allowed
    "print": T + "a = torch.ones({side}, {side})\nprint([a] * 20000)\n",
    # hooks doing the largest product allowed, during one backward
    "hooks": T + "a = torch.ones({cube}, {cube})\nx = torch.ones({cube}, {cube}, requires_grad=True)\n"
             "hs = [x.register_hook(lambda g: g @ a) for i in range(2000)]\n(x * 2).sum().backward()\n",
    # all live elements: as many of the largest tensors as may be alive at once
    "memory": T + "xs = []\nfor i in range(1000):\n    xs.append(torch.rand({side}, {side}))\n",
    # the graph: the most live nodes, then backward through them
    "graph": T + "x = torch.ones(10, requires_grad=True)\ny = x\nfor i in range(9999):\n"
             "    y = y * 1.0001\ny.sum().backward()\n",
    # the timeline: many recorded steps
    "timeline": T + "x = torch.ones(3, requires_grad=True)\nfor i in range(10000):\n"
                "    y = (x * 2).sum()\n",
}


def _programs(limits) -> dict:
    side = int(limits.max_tensor_elements ** 0.5)
    cube = round(limits.max_matmul_work ** (1 / 3)) - 1
    return {k: v.format(side=side, cube=cube) for k, v in PROGRAMS.items()}


def _outcome(reply_text: str) -> str:
    reply = json.loads(reply_text)
    if reply["type"] == "error":
        return f"{reply['error']['kind']}: {reply['error']['message'][:60]}"
    error = reply["timeline"]["error"]
    if error is None:
        return "finished"
    return f"{error['kind']} ({error.get('limit') or error.get('type')})"


def _peak_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def server(program: str) -> tuple:
    from playground.pool import SessionState, WorkerPool

    pool = WorkerPool(1)
    try:
        pool.answer(json.dumps({"type": "hello", "id": 0}), SessionState())  # the worker is up
        start = time.monotonic()
        answer = pool.answer(json.dumps({"type": "run", "id": 1, "program": program}),
                             SessionState())
        took = time.monotonic() - start
        pids = pool.pids()
        peak = _peak_kb(pids[0]) if pids and not answer.killed else None
        return took, peak, ("killed: " if answer.killed else "") + _outcome(answer.reply)
    finally:
        pool.close()


def worker_child(name: str) -> None:
    import resource

    from playground.host import Host, handle_json
    from playground.limits import default_limits

    program = _programs(default_limits())[name]  # the limits of this process's backend
    start = time.perf_counter()
    reply = handle_json(Host(), json.dumps({"type": "run", "id": 1, "program": program}))
    took = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps([took, peak, _outcome(reply), len(reply)]))


def worker(name: str, backend: str) -> tuple:
    env = {**os.environ, "GRADPLAY_BACKEND": backend, "PYTHONPATH": ROOT}
    out = subprocess.run([sys.executable, __file__, "--child"], input=name, text=True,
                         capture_output=True, env=env, cwd=ROOT, check=True)
    took, peak, outcome, size = json.loads(out.stdout.strip().splitlines()[-1])
    return took, peak, f"{outcome}, reply {size / 1e6:.1f} MB"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--backend", default="numpy", choices=("numpy", "pure"),
                   help="the worker column's engine backend (the browser runs pure)")
    p.add_argument("--only", default=",".join(PROGRAMS), help="comma-separated programs")
    p.add_argument("--hosts", default="server,worker", help="comma-separated hosts")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        worker_child(sys.stdin.read().strip())
        return

    from playground.limits import Limits
    from playground.pool import DEFAULT_MARGIN_SECONDS, DEFAULT_MEMORY_MB

    hosts = args.hosts.split(",")
    print(f"server: pool deadline {Limits().max_seconds + DEFAULT_MARGIN_SECONDS:g} s, "
          f"memory cap {DEFAULT_MEMORY_MB} MB; worker backend: {args.backend}")
    print(f"{'program':10} {'host':7} {'seconds':>8} {'peak MB':>8}  outcome")
    for name in args.only.split(","):
        for host in hosts:
            if host == "server":  # the server's workers run the numpy backend
                took, peak, outcome = server(_programs(Limits())[name])
            else:
                took, peak, outcome = worker(name, args.backend)
            peak_text = "n/a" if peak is None else f"{peak / 1024:.0f}"
            print(f"{name:10} {host:7} {took:8.2f} {peak_text:>8}  {outcome}", flush=True)


if __name__ == "__main__":
    main()
