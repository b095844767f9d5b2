"""One worker process of the server's pool (`playground.pool`): answers host requests, one at a time.

The server's pool starts this module as a child process and talks to it over its stdin and
stdout in frames (`playground.pool.write_frame`). A worker holds no session: each job brings the
session's state (its program and, as JSON, what the next run needs of its last timeline: the
statements whose ids an edit keeps) with the request, and the answer carries the new state back,
so a worker that is killed mid-run loses nothing a session needs.

The limits that the interpreter cannot enforce itself are the process's: its address space is
capped (`resource.setrlimit`), and the pool kills it when a request overruns its wall-clock
deadline. Nothing here trusts the program; it runs inside `Host.handle` as in any host.

A worker with no request for IDLE_SECONDS gives the memory its last requests freed back to the
system (as the server does once sessions close), once per lull.
"""

from __future__ import annotations

import gc
import json
import os
import select
import signal
import sys


def _cap_memory(megabytes: int) -> None:
    import resource
    cap = megabytes * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


# A worker that has had no request for this long returns its freed memory to the system.
IDLE_SECONDS = 2.0


def serve(inp, out) -> None:
    from .host import Host, handle_json
    from .pool import read_frame, write_frame
    from .server_memory import trim_c_heap

    # The first answer costs imports (edits, examples): pay them before the pool sends work.
    warm = Host()
    handle_json(warm, json.dumps({"type": "hello", "id": 0}))
    handle_json(warm, json.dumps({"type": "edit", "id": 0, "program": "import torch\n",
                                  "edit": {"op": "add_leaf"}}))
    write_frame(out, ["ready", str(os.getpid())])
    idle = False
    while True:
        if not idle and not select.select([inp], [], [], IDLE_SECONDS)[0]:
            # no request for a while (the sessions are reading, or gone): what the last
            # requests freed goes back to the system, as the server does after sessions close
            idle = True
            gc.collect()
            trim_c_heap()
        frame = read_frame(inp)
        idle = False
        if frame is None:  # the server closed our stdin: it is gone or shutting us down
            return
        request, program, previous_text = frame
        host = Host()
        host.program = program
        previous = host.previous = json.loads(previous_text) if previous_text else None
        reply = handle_json(host, request)
        # Send the state back only when it changed.
        changed = host.previous is not previous
        state_text = json.dumps(host.previous, allow_nan=False, separators=(",", ":")) \
            if changed and host.previous is not None else None
        write_frame(out, [reply, host.program, state_text, "1" if changed else "0"])


def main() -> None:
    # Ctrl-C in the server's terminal reaches the whole process group; the server shuts us down.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _cap_memory(int(os.environ.get("GRADPLAY_WORKER_MEMORY_MB", "1024")))
    # Frames go over the original stdout; anything else printed goes to the server's log.
    out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    inp = os.fdopen(os.dup(0), "rb", buffering=0)
    serve(inp, out)


if __name__ == "__main__":
    main()
