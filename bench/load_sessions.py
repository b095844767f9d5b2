"""Load test of the server: N sessions on one `gradplay serve`, each a websocket client speaking
Bokeh's own protocol, editing and running programs, while the server's memory is watched.

    python bench/load_sessions.py                                   # N = 20, 50, 100; 60 s each
    python bench/load_sessions.py --sessions 20 --seconds 30 --num-procs 2
    python bench/load_sessions.py --sessions 20 --runaway           # one session hogs the pool

It starts `python -m playground serve --no-browser` itself (on a free port, with --num-procs N),
then opens N sessions the way a browser's page does after loading /app: a websocket to /app/ws
carrying a session token, `PULL-DOC-REQ` for the document, and then the UI's requests
(docs/host-protocol.md) sent as the UI sends them, as a `data_event` of the playground's model
in a `PATCH-DOC`; the server's reply comes back as an `esm_event` in a `PATCH-DOC`. So the
figures include the websocket, Bokeh's and Panel's handling of both messages, the component's
hand-off to the worker pool and the pool's round trip: everything but the page's drawing. Its
sockets send at once (TCP_NODELAY), as browsers' do.

Each session asks for `hello` and runs a program, then, for the given seconds, waits (a person
reading, --think seconds on average) and sends an edit or a changed program. It reports the
edit-to-reply latency (p50, p95, max), errors (error replies, timelines with an error, replies
that never came, sessions that could not connect), and the proportional memory (PSS, so forked
processes are not counted twice) of the server's whole process tree (the server processes and
their worker pools): before the sessions (after one warm-up round has started the pools), the
peak while they run, and after they close, once the server has discarded them (Bokeh discards a
session whose websocket closed on its next check after `--unused-session-lifetime`: 15-32 s with
the defaults `gradplay serve` keeps; "after s" is how long the memory took to come back within
10% of the baseline, or 90 if it did not). The machine's load average is printed next to each
row: on a shared machine it is most of the story.

With --runaway, one more session runs, again and again, a program that uses its whole time
limit (stopped at it, or killed by the pool at its deadline: "kills" counts the replies that were
either); the figure that matters is then the other sessions' p95.

Not a test: it prints figures (and with --json, writes them). Compare runs made together.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import random
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from bokeh.protocol import Protocol
from bokeh.protocol.receiver import Receiver
from bokeh.util.token import generate_jwt_token, generate_session_id
from tornado.httpclient import HTTPRequest
from tornado.websocket import websocket_connect

ROOT = Path(__file__).resolve().parent.parent

PROGRAM = ("import torch\nx = torch.tensor([2.0, 3.0], requires_grad=True)\n"
           "w = torch.tensor([0.5, -1.0], requires_grad=True)\ny = (x * w).sum()\n"
           "z = y ** 2\nz.backward()\nprint(x.grad, w.grad)\n")
EDITS = [
    {"op": "retain_grad", "target": "y"},
    {"op": "set_value", "target": "x", "value": "[1.0, 4.0]"},
    {"op": "add_op", "op_name": "mul", "inputs": ["y", 2], "name": "q"},
]
# Matrix products for far longer than the time limit, in loops each under the loop cap: the
# engine stops it at the limit (5 s), or, if it could not, the pool kills it at its deadline. (A
# print of a huge list no longer does: the engine refuses it before formatting, in under a
# second.) "kills" is then about the run's seconds / 5.
RUNAWAY = ("import torch\na = torch.ones(200, 200)\nfor i in range(9999):\n"
           "    for j in range(9999):\n        b = a @ a\n")
REPLY_TIMEOUT = 60.0  # seconds: a reply later than this counts as lost
DISCARD_S = 35  # Bokeh's defaults: a closed session is gone 15 + up to 17 s after it closed


# == the server and its memory ======================================================================

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, num_procs: int, log_path: Path) -> subprocess.Popen:
    """`gradplay serve` (python -m playground serve) as a person starts it."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    args = [sys.executable, "-m", "playground", "serve", "--no-browser", "--port", str(port),
            "--num-procs", str(num_procs)]
    log = open(log_path, "w")
    proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server stopped: see {log_path}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/app", timeout=5) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(0.5)
    raise RuntimeError("the server did not answer within 120 s")


def stop_server(proc: subprocess.Popen) -> None:
    # Its own process group (start_new_session): the forked server processes and their
    # workers go with it.
    try:
        os.killpg(proc.pid, 15)
        proc.wait(20)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(proc.pid, 9)
        except ProcessLookupError:
            pass


def process_tree(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo.extend(children.get(pid, []))
    return tree


def pss_mb(root: int) -> float:
    """The proportional set size of the process tree under `root`, in MB."""
    total = 0
    for pid in process_tree(root):
        try:
            with open(f"/proc/{pid}/smaps_rollup") as f:
                total += next(int(line.split()[1]) for line in f if line.startswith("Pss:"))
        except (OSError, StopIteration):
            pass
    return total / 1024


def cpu_seconds(root: int) -> dict:
    """CPU time (user + system) so far of the tree's server processes and of its pool workers,
    and of this load generator itself, in seconds: where the machine's cores went."""
    tick = os.sysconf("SC_CLK_TCK")
    found = {"server": 0.0, "workers": 0.0}
    for pid in process_tree(root):
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                worker = b"pool_worker" in f.read()
        except OSError:
            continue
        found["workers" if worker else "server"] += (int(fields[11]) + int(fields[12])) / tick
    found["client"] = time.process_time()
    return found


def load_average() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


# == one session: Bokeh's protocol over a websocket ====================================================

def _map(value):
    """A value as BokehJS encodes it in an event: a dict as a `map` (its keys may be anything)."""
    if isinstance(value, dict):
        return {"type": "map", "entries": [[k, _map(v)] for k, v in value.items()]}
    if isinstance(value, list):
        return [_map(v) for v in value]
    return value


def _objects(rep, found: dict) -> dict:
    """Every model in a document's JSON: name -> id (the first of each name)."""
    if isinstance(rep, dict):
        if rep.get("type") == "object" and "name" in rep and "id" in rep:
            found.setdefault(rep["name"], rep["id"])
        for v in rep.values():
            _objects(v, found)
    elif isinstance(rep, list):
        for v in rep:
            _objects(v, found)
    return found


def _reply_text(message) -> str | None:
    """The playground's reply carried by a PATCH-DOC from the server, if it carries one."""
    for event in message.content.get("events", []):
        data = event.get("msg_data") or {}
        if event.get("kind") != "MessageSent" or data.get("name") != "esm_event":
            continue
        values = data.get("values", {})
        pairs = values.get("entries", []) if values.get("type") == "map" else values.items()
        for key, value in pairs:
            if key == "data" and isinstance(value, str):
                return value
    return None


class Session:
    """One browser session, as the server sees it: a websocket and the UI's requests."""

    _ids = itertools.count(1)

    def __init__(self, port: int):
        self.port = port
        self.ws = None
        self.model = None
        self.waiting: dict = {}
        self.latencies: list[float] = []
        self.errors = 0
        self.lost = 0
        self.reader = None

    async def connect(self) -> None:
        session_id = generate_session_id()
        request = HTTPRequest(f"ws://127.0.0.1:{self.port}/app/ws",
                              headers={"Origin": f"http://127.0.0.1:{self.port}"})
        self.ws = await websocket_connect(
            request, subprotocols=["bokeh", generate_jwt_token(session_id)],
            max_message_size=64 * 1024 * 1024)
        # as a browser's socket: sent at once, not held back for Nagle's algorithm (whose wait
        # for the server's delayed acknowledgement would add tens of ms to every request)
        self.ws.protocol.set_nodelay(True)
        self.receiver = Receiver(Protocol())
        ack = await self._read()
        if ack is None or ack.msgtype != "ACK":
            raise RuntimeError(f"no ACK from the server: {ack and ack.msgtype}")
        await self._send("PULL-DOC-REQ", {})
        doc = await self._read()
        if doc is None or doc.msgtype != "PULL-DOC-REPLY":
            raise RuntimeError("no document from the server")
        models = _objects(doc.content["doc"], {})
        self.model = models.get("panel.models.esm.ReactiveESM")
        if self.model is None:
            raise RuntimeError(f"no playground in the document: {sorted(models)}")
        self.reader = asyncio.ensure_future(self._read_replies())

    async def _read(self):
        while True:
            frame = await self.ws.read_message()
            if frame is None:
                return None
            message = await self.receiver.consume(frame)
            if message is not None:
                return message

    async def _send(self, msgtype: str, content: dict) -> None:
        header = {"msgid": f"c{next(self._ids)}", "msgtype": msgtype}
        for part in (header, {}, content):
            await self.ws.write_message(json.dumps(part, separators=(",", ":")))

    async def _read_replies(self) -> None:
        while True:
            message = await self._read()
            if message is None:
                return
            if message.msgtype == "ERROR":
                self.errors += 1
                continue
            text = _reply_text(message)
            if text is None:
                continue
            reply = json.loads(text)
            future = self.waiting.pop(reply.get("id"), None)
            if future is not None and not future.done():
                future.set_result(reply)

    async def ask(self, request: dict) -> tuple[dict | None, float]:
        """Send one request as the UI does (model.send_msg) and wait for its reply."""
        rid = next(self._ids)
        future = asyncio.get_running_loop().create_future()
        self.waiting[rid] = future
        event = {"type": "event", "name": "data_event",
                 "values": {"type": "map", "entries": [["model", {"id": self.model}],
                                                       ["data", _map({**request, "id": rid})]]}}
        start = time.perf_counter()
        await self._send("PATCH-DOC", {"events": [{"kind": "MessageSent",
                                                   "msg_type": "bokeh_event",
                                                   "msg_data": event}]})
        try:
            reply = await asyncio.wait_for(future, REPLY_TIMEOUT)
        except TimeoutError:
            self.waiting.pop(rid, None)
            self.lost += 1
            return None, time.perf_counter() - start
        return reply, time.perf_counter() - start

    async def work(self, until: float, think: float) -> None:
        await self.ask({"type": "hello"})
        reply, _ = await self.ask({"type": "run", "program": PROGRAM})
        program = (reply or {}).get("program", PROGRAM)
        while time.perf_counter() < until:
            await asyncio.sleep(random.uniform(0.5, 1.5) * think)
            request = random.choice([
                {"type": "run", "program": program.replace("2.0", f"{random.randint(1, 9)}.0")},
                {"type": "edit", "program": PROGRAM, "edit": random.choice(EDITS)},
            ])
            reply, seconds = await self.ask(request)
            if reply is None:
                continue
            self.latencies.append(seconds)
            if reply["type"] == "error" or (reply.get("timeline") or {}).get("error"):
                self.errors += 1

    async def run_away(self, until: float) -> int:
        kills = 0
        while time.perf_counter() < until:
            reply, _ = await self.ask({"type": "run", "program": RUNAWAY})
            error = (reply or {}).get("error") or ((reply or {}).get("timeline") or {}).get("error")
            kills += bool(error) and error["kind"] == "limit"
        return kills

    async def close(self) -> None:
        if self.ws is not None:
            self.ws.close()
        if self.reader is not None:
            try:
                await asyncio.wait_for(self.reader, 5)
            except (TimeoutError, Exception):  # noqa: BLE001  (closing: whatever it was)
                pass


# == a run ===========================================================================================

def pct(values, q) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] * 1000


async def _open(port: int, n: int, at_once: int = 10) -> tuple[list[Session], int]:
    """n sessions, at most `at_once` connecting at a time (a class arriving, not one instant)."""
    gate = asyncio.Semaphore(at_once)
    sessions, failed = [], 0

    async def one():
        nonlocal failed
        async with gate:
            session = Session(port)
            try:
                await session.connect()
                sessions.append(session)
            except Exception as e:  # noqa: BLE001  (a refused session is a figure, not a crash)
                failed += 1
                print(f"  a session could not connect: {type(e).__name__}: {e}", file=sys.stderr)

    await asyncio.gather(*(one() for _ in range(n)))
    return sessions, failed


def pools_started(root: int) -> int:
    """How many server processes under `root` have started their worker pool (the parents of
    its pool workers)."""
    parents = set()
    for pid in process_tree(root):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"pool_worker" not in f.read():
                    continue
            with open(f"/proc/{pid}/stat") as f:
                parents.add(int(f.read().rsplit(")", 1)[1].split()[1]))
        except (OSError, IndexError, ValueError):
            continue
    return len(parents)


async def _warm_up(port: int, root: int, num_procs: int) -> None:
    """Sessions until every server process has started its worker pool, before the baseline is
    taken (a pool starts on its process's first session). The kernel hands connections to the
    processes sharing the port as it likes: on an idle machine a round of sessions can all land
    on one process, and the other's pool would then start inside the measured row."""
    want = num_procs if os.environ.get("GRADPLAY_WORKERS") != "0" else 0  # 0: no pools
    for _ in range(10):
        sessions, _ = await _open(port, 4 * num_procs)
        await asyncio.gather(*(s.ask({"type": "run", "program": PROGRAM}) for s in sessions))
        await asyncio.gather(*(s.close() for s in sessions))
        if pools_started(root) >= want:
            return
    print(f"  warm-up: {pools_started(root)} of {num_procs} server processes started their "
          "pool; the baseline may not include every pool", file=sys.stderr)


async def _settle(root: int, seconds: float) -> float:
    """The tree's memory once the warm-up's sessions are discarded and it has stopped falling
    (or after `seconds` more)."""
    await asyncio.sleep(DISCARD_S)
    deadline = time.monotonic() + seconds
    last = pss_mb(root)
    while time.monotonic() < deadline:
        await asyncio.sleep(3)
        now = pss_mb(root)
        if abs(now - last) < 0.5:
            return now
        last = now
    return last


async def measure(port: int, root: int, n: int, args) -> dict:
    await _warm_up(port, root, args.num_procs)
    before = await _settle(root, 30)
    load_before = load_average()
    cpu_start = cpu_seconds(root)
    t0 = time.perf_counter()
    sessions, failed = await _open(port, n)
    connect_s = time.perf_counter() - t0
    until = time.perf_counter() + args.seconds
    peak, samples = before, []

    async def sample():
        nonlocal peak
        while time.perf_counter() < until:
            mb = pss_mb(root)
            samples.append(mb)
            peak = max(peak, mb)
            await asyncio.sleep(2.0)

    hog = None
    if args.runaway:
        hog_list, _ = await _open(port, 1)
        hog = hog_list[0] if hog_list else None
    jobs = [s.work(until, args.think) for s in sessions] + [sample()]
    if hog is not None:
        jobs.append(hog.run_away(until))
    results = await asyncio.gather(*jobs)
    kills = results[-1] if hog is not None else 0
    load_during = load_average()
    cpu_end = cpu_seconds(root)
    cpu = {k: round(cpu_end[k] - cpu_start[k], 1) for k in cpu_end}
    latencies = [x for s in sessions for x in s.latencies]
    errors = sum(s.errors for s in sessions)
    lost = sum(s.lost for s in sessions)
    closing = list(sessions) + ([hog] if hog is not None else [])
    await asyncio.gather(*(s.close() for s in closing))
    t_closed = time.perf_counter()
    after = before
    # Bokeh discards closed sessions on its next check; wait until the memory is back within
    # 10% of the baseline, or give up after 90 s and report what it was.
    while time.perf_counter() - t_closed < 90:
        await asyncio.sleep(2)
        after = pss_mb(root)
        if after <= before * 1.10:
            break
    return {
        "sessions": n, "num_procs": args.num_procs, "runaway": bool(args.runaway),
        "seconds": args.seconds, "think": args.think, "connected": len(sessions),
        "connect_failed": failed, "connect_s": round(connect_s, 1),
        "requests": len(latencies), "p50_ms": round(pct(latencies, 0.5), 1),
        "p95_ms": round(pct(latencies, 0.95), 1), "max_ms": round(pct(latencies, 1.0), 1),
        "errors": errors, "lost": lost, "kills": kills,
        "mb_before": round(before), "mb_peak": round(peak), "mb_after": round(after),
        "after_s": round(time.perf_counter() - t_closed), "load_before": load_before,
        "load_during": load_during,
        # CPU seconds from the first connection to the end of the work (a worker replaced
        # meanwhile takes its own with it): the server processes, the workers, this client
        "cpu": f"{cpu['server']}/{cpu['workers']}/{cpu['client']}",
    }


COLUMNS = [("N", "sessions", 4), ("procs", "num_procs", 5), ("runaway", "runaway", 7),
           ("conn", "connected", 4), ("conn s", "connect_s", 6), ("reqs", "requests", 5),
           ("p50 ms", "p50_ms", 7), ("p95 ms", "p95_ms", 7), ("max ms", "max_ms", 7),
           ("errors", "errors", 6), ("lost", "lost", 4), ("kills", "kills", 5),
           ("MB before", "mb_before", 9), ("MB peak", "mb_peak", 7), ("MB after", "mb_after", 8),
           ("after s", "after_s", 7), ("load before", "load_before", 15),
           ("load during", "load_during", 15), ("cpu s srv/wrk/cli", "cpu", 17)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, nargs="*", default=[20, 50, 100])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--num-procs", type=int, default=1,
                        help="server processes (gradplay serve --num-procs; default 1)")
    parser.add_argument("--think", type=float, default=2.0,
                        help="mean seconds a person waits between edits (default 2)")
    parser.add_argument("--runaway", action="store_true",
                        help="one more session runs, all along, a program that uses its whole "
                             "time limit")
    parser.add_argument("--json", type=Path, help="also write the rows to this file")
    args = parser.parse_args()

    port = free_port()
    log_path = Path(os.environ.get("TMPDIR", "/tmp")) / f"gradplay-load-{port}.log"
    server = start_server(port, args.num_procs, log_path)
    rows = []
    try:
        print(" ".join(f"{title:>{width}}" for title, _, width in COLUMNS), flush=True)
        for n in args.sessions:
            row = asyncio.run(measure(port, server.pid, n, args))
            rows.append(row)
            print(" ".join(f"{str(row[key]):>{width}}" for _, key, width in COLUMNS), flush=True)
    finally:
        stop_server(server)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    print(f"(server log: {log_path})")


if __name__ == "__main__":
    main()
