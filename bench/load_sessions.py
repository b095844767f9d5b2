"""Load test of the server host: N sessions on one server process, each editing and running
programs, while one more session runs a program that uses its whole time budget.

    python bench/load_sessions.py                      # N = 20 and 50, 60 s each
    python bench/load_sessions.py --sessions 20 --seconds 30 --workers 2 --runaway

Each session is the Panel app's component (`playground.app.Playground`) answering through the
process's worker pool on one asyncio event loop, exactly as `panel serve` runs it, minus the
websocket: requests are the UI's own (`run`, `edit`) and replies are sent with `_send_msg`. It
reports the edit-to-reply latency (p50, p95), errors, the server process's memory (its own and
its workers') before, during and after the sessions, and how late the event loop ran a 10 ms
timer (what every other session's UI would wait for). With --runaway, one extra session runs,
again and again, a program the pool must kill at its deadline; the figure that matters is then
the other sessions' p95.

Not a test: it prints figures. The machine's load changes them; compare runs made together.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playground.app import Playground  # noqa: E402
from playground.pool import WorkerPool, pool_size  # noqa: E402

PROGRAM = ("import torch\nx = torch.tensor([2.0, 3.0], requires_grad=True)\n"
           "w = torch.tensor([0.5, -1.0], requires_grad=True)\ny = (x * w).sum()\n"
           "z = y ** 2\nz.backward()\nprint(x.grad, w.grad)\n")
EDITS = [
    {"op": "retain_grad", "target": "y"},
    {"op": "set_value", "target": "x", "value": "[1.0, 4.0]"},
    {"op": "add_op", "op_name": "mul", "inputs": ["y", 2], "name": "q"},
]
# One statement the interpreter's clock cannot interrupt: it runs until the pool kills it.
RUNAWAY = "import torch\na = torch.ones(300, 300)\nprint([a] * 1000)\n"


def rss_mb(pids) -> float:
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status") as f:
                total += next(int(line.split()[1]) for line in f if line.startswith("VmRSS"))
        except (OSError, StopIteration):
            pass
    return total / 1024


class Session:
    """One browser session: its component, its replies, its latencies."""

    def __init__(self, pool: WorkerPool):
        self.component = Playground(pool=pool)
        self.pool = pool
        self.waiting: dict = {}
        self.latencies: list[float] = []
        self.errors = 0
        self.component._send_msg = self._receive
        self.next_id = 0

    def _receive(self, text: str) -> None:
        reply = json.loads(text)
        future = self.waiting.pop(reply.get("id"), None)
        if future is not None and not future.done():
            future.set_result(reply)

    async def ask(self, request: dict) -> tuple[dict, float]:
        self.next_id += 1
        request = {**request, "id": self.next_id}
        future = asyncio.get_running_loop().create_future()
        self.waiting[self.next_id] = future
        start = time.perf_counter()
        await self.component.answer_async(request, self.pool)
        reply = await future
        return reply, time.perf_counter() - start

    async def work(self, until: float, think: float) -> None:
        reply, _ = await self.ask({"type": "run", "program": PROGRAM})
        program = reply.get("program", PROGRAM)
        while time.perf_counter() < until:
            await asyncio.sleep(random.uniform(0.5, 1.5) * think)
            request = random.choice([
                {"type": "run", "program": program.replace("2.0", f"{random.randint(1, 9)}.0")},
                {"type": "edit", "program": PROGRAM, "edit": random.choice(EDITS)},
            ])
            reply, seconds = await self.ask(request)
            self.latencies.append(seconds)
            if reply["type"] == "error" or (reply.get("timeline") or {}).get("error"):
                self.errors += 1

    async def run_away(self, until: float) -> int:
        kills = 0
        while time.perf_counter() < until:
            reply, _ = await self.ask({"type": "run", "program": RUNAWAY})
            kills += reply["type"] == "error" and reply["error"]["kind"] == "limit"
        return kills


async def loop_lag(until: float, lags: list) -> None:
    while time.perf_counter() < until:
        start = time.perf_counter()
        await asyncio.sleep(0.01)
        lags.append(time.perf_counter() - start - 0.01)


def pct(values, q) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, nargs="*", default=[20, 50])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--workers", type=int, default=pool_size() or 1,
                        help="worker processes (default: the server's, see playground/pool.py)")
    parser.add_argument("--think", type=float, default=2.0,
                        help="mean seconds a person waits between edits (default 2)")
    parser.add_argument("--runaway", action="store_true",
                        help="one more session runs a program the pool must kill, all along")
    args = parser.parse_args()
    print(f"{'N':>4} {'workers':>7} {'runaway':>7} {'edits':>6} {'p50 ms':>8} {'p95 ms':>8} "
          f"{'errors':>6} {'loop p95 ms':>11} {'kills':>5} {'MB before':>9} {'MB peak':>8} "
          f"{'MB after':>8}")
    for n in args.sessions:
        sessions_latencies = []
        out = asyncio.run(_measure(n, args, sessions_latencies))
        print(f"{n:>4} {args.workers:>7} {'yes' if args.runaway else 'no':>7} "
              f"{len(sessions_latencies):>6} {pct(sessions_latencies, 0.5):>8.0f} "
              f"{pct(sessions_latencies, 0.95):>8.0f} {out['errors']:>6} "
              f"{pct(out['lags'], 0.95):>11.1f} {out['kills']:>5} {out['before']:>9.0f} "
              f"{out['peak']:>8.0f} {out['after']:>8.0f}", flush=True)


async def _measure(n: int, args, latencies_out: list) -> dict:
    pool = WorkerPool(args.workers)
    while len(pool.pids()) < args.workers:
        await asyncio.sleep(0.1)
    pids = [os.getpid()]
    before = rss_mb(pids + pool.pids())
    sessions = [Session(pool) for _ in range(n)]
    until = time.perf_counter() + args.seconds
    lags: list[float] = []
    peak = before

    async def sample():
        nonlocal peak
        while time.perf_counter() < until:
            peak = max(peak, rss_mb(pids + pool.pids()))
            await asyncio.sleep(1.0)

    hog = Session(pool) if args.runaway else None
    jobs = [s.work(until, args.think) for s in sessions] + [loop_lag(until, lags), sample()]
    if hog:
        jobs.append(hog.run_away(until))
    results = await asyncio.gather(*jobs)
    kills = results[-1] if hog else 0
    for s in sessions:
        latencies_out.extend(s.latencies)
    errors = sum(s.errors for s in sessions)
    del sessions, hog
    gc.collect()
    await asyncio.sleep(2.0)
    after = rss_mb(pids + pool.pids())
    pool.close()
    return {"lags": lags, "before": before, "peak": peak, "after": after, "errors": errors,
            "kills": kills}


if __name__ == "__main__":
    main()
