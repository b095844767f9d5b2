"""The server's worker pool (playground/pool.py) and the Panel component answering through it:
programs run in worker processes, a runaway is killed, the session keeps its last good state."""

import asyncio
import json
import time

import pytest

import engine
from playground.app import Playground
from playground.pool import SessionState, WorkerPool

SEED = ("import torch\nx = torch.tensor([2.0], requires_grad=True)\ny = x**2\nz = 2*y\n"
        "z.backward()\nprint(x.grad)\n")
# Seconds of matrix products on either backend (a long loop's quiet iterations record almost
# nothing, so the products are the cost), far beyond the short wall-clock deadline the pool
# below gets.
SLOW = "import torch\nx = torch.ones(150, 150)\nfor i in range(10000):\n    y = x @ x\n"


@pytest.fixture(scope="module")
def pool():
    p = WorkerPool(1, seconds=0.5)
    yield p
    p.close()


def _run(pool, state, program, rid=1):
    answer = pool.answer(json.dumps({"type": "run", "id": rid, "program": program}), state)
    return answer, json.loads(answer.reply)


def _tensor_id(reply, name):
    return next(t["id"] for t in reply["timeline"]["nodes"]["tensors"] if t["name"] == name)


def test_a_worker_answers_and_the_session_state_travels_with_the_request(pool):
    first, reply = _run(pool, SessionState(), SEED)
    assert reply["type"] == "result" and reply["timeline"]["console"][0]["text"] == "tensor([8.])\n"
    assert first.state.program == SEED and json.loads(first.state.previous_json)["statements"]
    # the next request brings that state: node ids stay stable across an edit, as in one Host
    edited = SEED.replace("y = x**2\n", "# a comment\ny = x**2\n")
    _, again = _run(pool, first.state, edited, rid=2)
    assert _tensor_id(again, "y") == _tensor_id(reply, "y")


def test_a_runaway_request_is_killed_and_the_session_keeps_its_last_good_state(pool):
    good, _ = _run(pool, SessionState(), SEED)
    killed_before = pool.killed
    start = time.monotonic()
    answer, reply = _run(pool, good.state, SLOW, rid="slow")
    took = time.monotonic() - start
    assert answer.killed and pool.killed == killed_before + 1
    assert reply["type"] == "error" and reply["id"] == "slow"
    assert reply["error"]["kind"] == "limit" and "stopped" in reply["error"]["message"]
    assert took < 0.5 + 1.0  # killed at its deadline, not waited for
    assert answer.state is good.state  # the session's program and timeline are untouched
    # the pool replaced the killed worker: the next request is answered
    _, after = _run(pool, answer.state, SEED, rid=3)
    assert after["type"] == "result" and after["timeline"]["ok"]


def _address_space_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmSize")) // 1024


def test_a_run_that_outgrows_the_worker_memory_cap_is_a_limit_error(pool):
    # A cap 16 MB above what a started worker takes: the program's tensors (inside the element
    # limits of either backend, about 20 MB) do not fit.
    _run(pool, SessionState(), SEED)  # a started worker (the one killed above is replaced)
    cap = _address_space_mb(pool.pids()[0]) + 16
    # The pure backend packs float tensors as tightly as numpy (4 bytes an element) but keeps
    # int64 ones as Python ints (about 40 bytes each): inside its smaller element limits, only
    # integer tensors outgrow the cap.
    if engine.backend_name() == "numpy":
        start, count = "torch.ones(1000, 1000)", 5
    else:
        start, count = "torch.ones(300, 300, dtype=torch.int64) * 1000", 9
    program = f"import torch\na = {start}\n" + "".join(f"a{i} = a + {i}\n" for i in range(count))
    small = WorkerPool(1, seconds=20, memory_mb=cap)
    try:
        answer, reply = _run(small, SessionState(), program)
        # Where the allocation fails decides who reports it: the interpreter, at the program's
        # line (the session then holds that run), or the host, as a `limit` reply (it then holds
        # what it held). Either way a limit about memory, and the worker goes on.
        if reply["type"] == "error":
            error = reply["error"]
            assert answer.state.program is None
        else:
            error = reply["timeline"]["error"]
        assert error["kind"] == "limit" and "memory" in error["message"], reply
        assert "Traceback" not in answer.reply
        _, after = _run(small, answer.state, SEED, rid=2)
        assert after["type"] == "result" and after["timeline"]["ok"]
    finally:
        small.close()


def test_a_served_component_answers_off_the_event_loop_in_order(pool):
    sent = []
    pg = Playground(pool=pool)
    pg._send_msg = sent.append  # what the browser would receive

    async def session():
        ticks = 0

        async def clock():
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        ticking = asyncio.ensure_future(clock())
        await asyncio.gather(pg.answer_async({"type": "run", "id": 1, "program": SEED}, pool),
                             pg.answer_async({"type": "run", "id": 2, "program": SLOW}, pool),
                             pg.answer_async({"type": "run", "id": 3, "program": SEED}, pool))
        ticking.cancel()
        return ticks

    ticks = asyncio.run(session())
    replies = [json.loads(m) for m in sent]
    assert [r["id"] for r in replies] == [1, 2, 3]
    assert [r["type"] for r in replies] == ["result", "error", "result"]
    assert ticks >= 20  # the loop kept running while the pool worked (0.5 s and more)
    assert pg._state.program == SEED


def test_a_request_whose_type_is_a_list_is_a_protocol_error_through_the_pool(pool):
    sent = []
    pg = Playground(pool=pool)
    pg._send_msg = sent.append
    asyncio.run(pg.answer_async({"type": ["run"], "id": 7}, pool))
    (reply,) = [json.loads(m) for m in sent]
    assert reply["id"] == 7 and reply["error"]["kind"] == "protocol"
    assert pg._state.program is None


def engine_backend_name():
    import engine

    return engine.backend.NAME


def _nice(pid):
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[16])


def test_a_long_request_runs_at_a_lower_priority_and_its_worker_gets_it_back(monkeypatch):
    import threading

    import playground.pool as pool_module
    monkeypatch.setattr(pool_module, "SLOW_SECONDS", 0.2)
    slow_pool = WorkerPool(1, seconds=30)
    try:
        _run(slow_pool, SessionState(), SEED)  # started
        (pid,) = slow_pool.pids()
        assert _nice(pid) == 0
        seen = []

        def watch():  # what the worker's priority is while the long request runs
            time.sleep(0.8)
            seen.append(_nice(pid))

        watcher = threading.Thread(target=watch)
        watcher.start()
        # tens of seconds of products on an idle machine with numpy (10,000 of 300x300), as
        # on the pure backend with smaller ones
        side = 150 if engine_backend_name() == "pure" else 300
        limits_seconds = (f"import torch\nx = torch.ones({side}, {side})\n"
                          "for i in range(10000):\n    y = x @ x\n")
        _, reply = _run(slow_pool, SessionState(), limits_seconds, rid=2)  # its 5 s time limit
        watcher.join()
        assert reply["type"] == "result" and reply["timeline"]["error"]["limit"] == "max_seconds"
        assert seen == [pool_module.SLOW_NICE]
        # afterwards: the same worker at its priority again, or (where that is not permitted) a
        # new one in its place; either way the next short request runs at the normal priority
        _, after = _run(slow_pool, SessionState(), SEED, rid=3)
        assert after["type"] == "result" and all(_nice(p) == 0 for p in slow_pool.pids())
    finally:
        slow_pool.close()


def test_the_memory_release_is_a_callback_bokeh_accepts_and_it_runs():
    from bokeh.util.callback_manager import _check_callback

    from playground import server_memory
    _check_callback(server_memory.session_closed, ("session_context",))  # raises if not
    server_memory.release_memory()  # collects and trims (or, off glibc, only collects)


def test_the_heap_is_frozen_while_sessions_are_open_and_collected_after_they_close(monkeypatch):
    import gc
    import weakref

    from playground import server_memory

    class Cycle:
        pass

    monkeypatch.setattr(server_memory, "FREEZE_AFTER_SECONDS", 0.05)
    try:
        gc.unfreeze()
        a = Cycle()
        a.me = a
        ref = weakref.ref(a)
        server_memory.session_opened()
        server_memory.session_opened()  # sessions opening together: one freeze after the last
        deadline = time.monotonic() + 10
        while gc.get_freeze_count() == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert gc.get_freeze_count() > 0
        del a
        gc.collect()
        assert ref() is not None  # frozen: no collection looks at it
        server_memory.release_memory()  # sessions closed
        assert ref() is None  # the full collection saw it
        assert gc.get_freeze_count() > 0  # what the open sessions hold is frozen again
    finally:
        gc.unfreeze()


def test_a_worker_that_answered_many_requests_is_replaced_once_idle(monkeypatch):
    import playground.pool as pool_module
    monkeypatch.setattr(pool_module, "RECYCLE_AFTER_REQUESTS", 3)
    monkeypatch.setattr(pool_module, "RECYCLE_IDLE_SECONDS", 0.3)
    small = WorkerPool(1, seconds=30)
    try:
        _run(small, SessionState(), SEED)
        (first,) = small.pids()
        time.sleep(1.0)  # idle, but not due yet: the same worker
        assert small.pids() == [first] and small.recycled == 0
        state = SessionState()
        for rid in (2, 3):
            answer, _ = _run(small, state, SEED, rid=rid)
            state = answer.state
        deadline = time.monotonic() + 30
        while small.recycled == 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert small.recycled == 1 and small.pids() != [first]
        # the session's state is with the session, not the worker: the next request is answered
        _, reply = _run(small, state, SEED, rid=4)
        assert reply["type"] == "result" and reply["timeline"]["ok"]
    finally:
        small.close()


def test_an_idle_worker_gives_its_free_memory_back_once_per_lull(monkeypatch):
    import os
    import threading

    from playground import pool_worker, server_memory
    from playground.pool import read_frame, write_frame

    calls = []  # (thread): other tests' servers may release memory meanwhile, in their threads
    monkeypatch.setattr(server_memory, "trim_c_heap", lambda: calls.append(threading.current_thread()))
    monkeypatch.setattr(pool_worker, "IDLE_SECONDS", 0.2)
    to_worker, from_server = os.pipe()
    to_server, from_worker = os.pipe()
    inp, out = os.fdopen(to_worker, "rb", buffering=0), os.fdopen(from_worker, "wb", buffering=0)
    replies = os.fdopen(to_server, "rb", buffering=0)
    requests = os.fdopen(from_server, "wb", buffering=0)
    worker = threading.Thread(target=pool_worker.serve, args=(inp, out), daemon=True)

    def trims():
        return sum(thread is worker for thread in calls)

    def wait_for_trims(n):  # a collection in a test process full of objects can take a while
        deadline = time.monotonic() + 30
        while trims() < n and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.6)  # three idle periods more: no further trim in the same lull

    worker.start()
    try:
        assert read_frame(replies)[0] == "ready"
        wait_for_trims(1)
        assert trims() == 1  # once, however long the lull
        write_frame(requests, [json.dumps({"type": "run", "id": 1, "program": SEED}), None, None])
        reply = json.loads(read_frame(replies)[0])
        assert reply["type"] == "result"
        wait_for_trims(2)
        assert trims() == 2  # the next lull
    finally:
        requests.close()  # the worker's input ends: it returns
        worker.join(10)
        for f in (inp, out, replies):
            f.close()
    assert not worker.is_alive()
