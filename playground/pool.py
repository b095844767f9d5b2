"""The server's pool of worker processes: programs run there, never on the server's event loop.

A Panel server answers every browser session on one event loop. A program that used its whole
time limit there would stall every other session's UI for as long, and a program that found a
way around the interpreter's limits could take the server down. So the Panel app hands each
request to this pool:

- `WorkerPool(size)` keeps `size` child processes (`playground.pool_worker`), each with its
  address space capped. A request goes to the next free worker; requests wait in order when all
  are busy.
- A request that overruns its wall-clock deadline (the program's time limit plus a margin for
  editing, recording and encoding) gets its worker killed, not waited for, and is answered with
  a `limit` error; so is a request whose worker dies (out of memory). The pool starts a new
  worker in the killed one's place.
- A worker that has answered many requests is replaced by a fresh one when it has been idle a
  while (RECYCLE_AFTER_REQUESTS), one at a time, so the pool's memory does not keep its peaks.
- Workers hold no session. A `SessionState` (the program, and the statements of its last
  timeline whose ids an edit keeps, as JSON text: a few KB, never the timeline itself) lives
  with the session in the server and travels with each request; only an answer that arrives
  replaces it, so a killed run leaves the session's last good state as it was.

Frames between the server and a worker: a count, then each part as a length and UTF-8 text (a
length of all ones is `None`).
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import queue
import select
import struct
import subprocess
import sys
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass

from .limits import default_limits

__all__ = ["WorkerPool", "SessionState", "Answer", "read_frame", "write_frame", "shared_pool"]

log = logging.getLogger(__name__)

_NONE = 0xFFFF_FFFF_FFFF_FFFF
# The margin a request gets beyond the program's time limit: applying an edit, recording the
# timeline and encoding it as JSON happen outside the interpreter's own clock.
DEFAULT_MARGIN_SECONDS = 3.0
DEFAULT_MEMORY_MB = 1024


# -- frames -----------------------------------------------------------------------------------

def write_frame(out, parts: list) -> None:
    chunks = [struct.pack(">I", len(parts))]
    for part in parts:
        if part is None:
            chunks.append(struct.pack(">Q", _NONE))
        else:
            data = part.encode("utf-8", "surrogatepass")
            chunks.append(struct.pack(">Q", len(data)))
            chunks.append(data)
    out.write(b"".join(chunks))
    out.flush()


def _read_exactly(inp, n: int) -> bytes | None:
    chunks, got = [], 0
    while got < n:
        chunk = inp.read(n - got)
        if not chunk:
            return None
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def read_frame(inp) -> list | None:
    """The next frame from a blocking binary stream, or None at its end."""
    head = _read_exactly(inp, 4)
    if head is None:
        return None
    parts = []
    for _ in range(struct.unpack(">I", head)[0]):
        size = _read_exactly(inp, 8)
        if size is None:
            return None
        (n,) = struct.unpack(">Q", size)
        if n == _NONE:
            parts.append(None)
            continue
        data = _read_exactly(inp, n)
        if data is None:
            return None
        parts.append(data.decode("utf-8", "surrogatepass"))
    return parts


class _DeadlineReader:
    """Reads a frame from a worker's stdout, giving up at a deadline (time.monotonic()); calls
    `slow()` once if the frame has not come by `slow_at`."""

    def __init__(self, fd: int, deadline: float, slow_at: float | None = None, slow=None):
        self.fd = fd
        self.deadline = deadline
        self.slow_at = slow_at
        self.slow = slow

    def read(self, n: int) -> bytes:
        while True:
            now = time.monotonic()
            left = self.deadline - now
            if left <= 0:
                raise TimeoutError
            if self.slow is not None and now >= self.slow_at:
                slow, self.slow = self.slow, None
                slow()
            wait = left if self.slow is None else min(left, self.slow_at - now)
            if select.select([self.fd], [], [], wait)[0]:
                return os.read(self.fd, min(n, 1 << 20))


# A request still running after this long is a long one: its worker's CPU priority is lowered
# (nice 10, for the process and its autogroup), so that on a busy machine the other sessions'
# short requests (tens of milliseconds) go first and a program that uses its whole time limit
# slows nobody else down. Its worker gets its priority back when it answers, or, where raising
# a priority again is not permitted (an unprivileged server), is replaced by a new worker.
SLOW_SECONDS = 0.5
SLOW_NICE = 10

# A worker that has answered this many requests is replaced by a fresh one once it has had no
# request for RECYCLE_IDLE_SECONDS, one worker at a time: what a long-lived process keeps of its
# peaks (its allocators' partly used pages, caches) goes with it, and a lull in a class costs the
# others no free worker but the one starting (about a second).
RECYCLE_AFTER_REQUESTS = 200
RECYCLE_IDLE_SECONDS = 10.0
_NO_JOB = object()


def _set_nice(pid: int, nice: int) -> bool:
    """Set a worker's CPU priority, and its autogroup's (each worker is its own session, so its
    own autogroup where the kernel groups by session). False if not permitted."""
    try:
        os.setpriority(os.PRIO_PROCESS, pid, nice)
    except PermissionError:
        return False
    except (OSError, AttributeError):  # gone, or no such call here: nothing to lower
        return True
    try:
        with open(f"/proc/{pid}/autogroup", "w") as f:
            f.write(str(nice))
    except PermissionError:
        return False
    except OSError:  # no autogroups here
        pass
    return True


# -- what the pool answers ---------------------------------------------------------------------

@dataclass
class SessionState:
    """What one session keeps between requests: its program, and what the next run needs of its
    last timeline (`Host.previous`, as JSON text)."""

    program: str | None = None
    previous_json: str | None = None


@dataclass
class Answer:
    reply: str  # the reply as JSON text
    state: SessionState  # the session's state after it (the same object if nothing changed)
    killed: bool = False


def _limit_reply(request_text: str, message: str, seconds: float) -> str:
    try:
        rid = json.loads(request_text).get("id")
    except (ValueError, AttributeError, RecursionError):
        rid = None
    if not isinstance(rid, (int, str)) or isinstance(rid, bool):
        rid = None
    return json.dumps({"type": "error", "id": rid, "seconds": round(seconds, 6),
                       "error": {"kind": "limit", "message": message}})


# -- the pool ---------------------------------------------------------------------------------

class _Worker:
    def __init__(self, env: dict):
        # The worker imports this very package: the server's import path, made absolute.
        path = [os.path.abspath(p) for p in sys.path]
        code = f"import sys; sys.path[:0] = {path!r}; from {__package__}.pool_worker import main; main()"
        self.proc = subprocess.Popen(
            [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            env=env, bufsize=0, start_new_session=True)
        ready = read_frame(_DeadlineReader(self.proc.stdout.fileno(), time.monotonic() + 120))
        if not ready or ready[0] != "ready":
            raise RuntimeError("a gradplay worker did not start")
        self.answered = 0

    def kill(self) -> None:
        try:
            self.proc.kill()
        except ProcessLookupError:
            pass
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            stream.close()


class WorkerPool:
    """`size` worker processes answering host requests. Thread-safe; `submit` never blocks."""

    def __init__(self, size: int = 2, seconds: float | None = None, memory_mb: int = DEFAULT_MEMORY_MB):
        self.size = size
        self.seconds = seconds if seconds is not None else \
            default_limits().max_seconds + DEFAULT_MARGIN_SECONDS
        self.memory_mb = memory_mb
        self.killed = 0  # workers killed for overrunning or dying, since the pool started
        self.recycled = 0  # workers replaced after RECYCLE_AFTER_REQUESTS, since it started
        self._recycling = threading.Lock()  # one worker replaced at a time
        self._jobs: queue.Queue = queue.Queue()
        self._env = {**os.environ, "GRADPLAY_WORKER_MEMORY_MB": str(memory_mb),
                     # one thread per worker: the pool is the parallelism, and OpenBLAS's
                     # per-thread buffers would count against the memory cap
                     "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
        self._workers: list[_Worker | None] = [None] * size
        self._closed = False
        self._threads = [threading.Thread(target=self._drive, args=(i,), daemon=True,
                                          name=f"gradplay-worker-{i}") for i in range(size)]
        for t in self._threads:
            t.start()

    def submit(self, request_text: str, state: SessionState) -> Future:
        """Answer one request (valid JSON text) for a session in the state given -> Future[Answer]."""
        future: Future = Future()
        if self._closed:
            future.set_exception(RuntimeError("the worker pool is closed"))
        else:
            self._jobs.put((request_text, state, future))
        return future

    def answer(self, request_text: str, state: SessionState) -> Answer:
        return self.submit(request_text, state).result()

    def pids(self) -> list[int]:
        return [w.proc.pid for w in self._workers if w is not None]

    def close(self) -> None:
        self._closed = True
        for _ in self._threads:
            self._jobs.put(None)
        for t in self._threads:
            t.join(timeout=self.seconds + 5)

    # -- one thread per worker slot ---------------------------------------------------------------

    def _drive(self, slot: int) -> None:
        while True:
            if self._workers[slot] is None and not self._closed:
                try:
                    self._workers[slot] = _Worker(self._env)
                except Exception:  # cannot start: try again shortly, the other slots serve
                    log.exception("gradplay: could not start a worker process")
                    time.sleep(1.0)
                    continue
            job = self._next_job(slot)
            if job is _NO_JOB:
                continue
            if job is None:
                if self._workers[slot] is not None:
                    self._workers[slot].kill()
                    self._workers[slot] = None
                return
            request_text, state, future = job
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(self._run(slot, request_text, state))
            except Exception as e:  # a bug here: the session gets an error, the pool goes on
                log.exception("gradplay: the worker pool failed on a request")
                future.set_exception(e)

    def _next_job(self, slot: int):
        """The next job, or None when the pool closes (_NO_JOB: this slot has no worker now); a
        worker due for replacement is replaced while its slot waits with nothing to do."""
        while True:
            try:
                return self._jobs.get(timeout=RECYCLE_IDLE_SECONDS)
            except queue.Empty:
                worker = self._workers[slot]
                if (worker is None or worker.answered < RECYCLE_AFTER_REQUESTS
                        or not self._recycling.acquire(blocking=False)):
                    continue
                try:
                    worker.kill()
                    self._workers[slot] = None
                    self._workers[slot] = _Worker(self._env)
                    self.recycled += 1
                except Exception:  # cannot start: _drive tries again before the next job
                    log.exception("gradplay: could not start a worker process")
                    return _NO_JOB
                finally:
                    self._recycling.release()

    def _run(self, slot: int, request_text: str, state: SessionState) -> Answer:
        worker = self._workers[slot]
        worker.answered += 1
        start = time.monotonic()
        lowered = []

        def slow():
            lowered.append(_set_nice(worker.proc.pid, SLOW_NICE))

        try:
            write_frame(worker.proc.stdin, [request_text, state.program, state.previous_json])
            frame = read_frame(_DeadlineReader(worker.proc.stdout.fileno(), start + self.seconds,
                                               start + SLOW_SECONDS, slow))
        except TimeoutError:
            frame, why = None, "time"
        except (BrokenPipeError, OSError):
            frame, why = None, "died"
        else:
            why = "died"
        if frame is not None:
            reply, program, previous_json, changed = frame
            if changed == "1":
                state = SessionState(program, previous_json)
            if lowered and not _set_nice(worker.proc.pid, 0):
                worker.kill()  # a worker that cannot get its priority back is replaced
                self._workers[slot] = None
            return Answer(reply, state)
        # The worker overran or died: kill it (a dead one is reaped), the slot starts another.
        self.killed += 1
        worker.kill()
        self._workers[slot] = None
        seconds = time.monotonic() - start
        if why == "time":
            message = (f"the request ran longer than {self.seconds:g} seconds (the program's time "
                       "limit and a margin for recording it); it was stopped")
        else:
            message = (f"the request used more than the memory one run may use "
                       f"({self.memory_mb:,} MB) and was stopped")
        log.warning("gradplay: a worker was killed (%s after %.1f s)", why, seconds)
        return Answer(_limit_reply(request_text, message, seconds), state, killed=True)


# -- the server's pool ----------------------------------------------------------------------------

_shared: WorkerPool | None = None
_shared_lock = threading.Lock()


def pool_size() -> int:
    """GRADPLAY_WORKERS (0: run requests in the server process itself), else two more than
    the cores: a runaway program holds one worker (and a core) until its deadline, and the
    others must still find a free worker at once (bench/load_sessions.py measures this)."""
    text = os.environ.get("GRADPLAY_WORKERS", "").strip()
    if text:
        return max(0, int(text))
    return (os.cpu_count() or 1) + 2


def shared_pool() -> WorkerPool | None:
    """This server process's pool, started on first use (so each of `panel serve --num-procs`'s
    processes starts its own after forking), or None when GRADPLAY_WORKERS=0."""
    global _shared
    with _shared_lock:
        if _shared is None:
            size = pool_size()
            if size == 0:
                return None
            seconds = os.environ.get("GRADPLAY_WORKER_SECONDS")
            memory = os.environ.get("GRADPLAY_WORKER_MEMORY_MB")
            _shared = WorkerPool(size, seconds=float(seconds) if seconds else None,
                                 memory_mb=int(memory) if memory else DEFAULT_MEMORY_MB)
            atexit.register(_shared.close)
        return _shared

