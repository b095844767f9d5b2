#!/usr/bin/env python
"""Benchmark the long loop where a learner runs it: the in-browser site, in Chromium.

This is a benchmark, not a test. It serves the built site on 127.0.0.1 (every request that
would leave the machine is refused and reported), opens it in Debian's Chromium, types the
2,000-iteration training loop of `bench_programs.py --long-loop` into the editor, and reports,
for each run, how long the page waited for the reply and whether the program ran to its end or
was stopped by the host's time limit (`max_seconds`, 8 s in the page, less the reserve kept
for recording: docs/program-language.md, "Limits of the hosts"). With `--node`, the same
program's cost in Pyodide under Node.js (bench/bench_pyodide.mjs) is printed beside it.

    node static/build.mjs && python scripts/build_site.py --out site
    python bench/bench_browser_loop.py                    # site/, 3 runs
    python bench/bench_browser_loop.py --site /tmp/site --repeats 5 --node

Per run: `page` is the page's own round trip of the `run` request (postMessage to the worker
and back, Python included), `host` the time Python's `handle_json` took (parse, run, timeline,
JSON), `drawn` the time from the last keystroke to the reply drawn (the editor's 250 ms
debounce included), `browser CPU` the CPU time the browser's processes used meanwhile (typing,
the run, drawing; less inflated by a loaded machine than the wall times). Each run types the program with a different last comment line, so each
one is a new run of the same loop.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_programs import LONG_LOOP  # noqa: E402

CHROMIUM = os.environ.get("GRADPLAY_CHROMIUM", "/usr/lib/chromium/chromium")
LOAD_MS = 120_000  # a cold Pyodide start on a loaded 2-core machine
REPLY_MS = 60_000  # the page restarts a worker past max_seconds + 5 s: a reply comes before


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--site", default=str(ROOT / "site"), help="the built site (default site/)")
    p.add_argument("--repeats", type=int, default=3, help="runs of the loop in the page")
    p.add_argument("--node", action="store_true",
                   help="also time the program in Pyodide under Node.js (bench_pyodide.mjs)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    return p.parse_args(argv)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(site: Path):
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "scripts" / "serve_site.py"), "--port", str(port),
         "--prefix", "/gradplay/", "--dir", str(site), "--no-open"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/gradplay/"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                if r.status == 200:
                    return proc, url
        except OSError:
            time.sleep(0.2)
    proc.terminate()
    raise RuntimeError(f"the site server did not answer at {url}")


def _tree_cpu_seconds() -> float:
    """CPU seconds used so far by this process's descendants (the Playwright driver and the
    browser's processes, the page's worker included): on a loaded machine the wall time
    overstates what a run costs, CPU time much less."""
    parents, cpu = {}, {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry)] = int(fields[1])
        cpu[int(entry)] = (int(fields[11]) + int(fields[12])) / tick  # utime + stime
    me, total = os.getpid(), 0.0
    for pid in cpu:
        p = parents.get(pid)
        while p not in (None, 0, 1, me):
            p = parents.get(p)
        if p == me:
            total += cpu[pid]
    return total


def _last_run_request(page) -> dict | None:
    requests = page.evaluate("() => (window.__gradplay_timings || {}).requests || []")
    runs = [r for r in requests if r.get("type") == "run"]
    return runs[-1] if runs else None


def _one_run(page, k: int) -> dict:
    from e2e.ui import results, type_code  # the editor as the e2e tests use it

    before = results(page)
    text = LONG_LOOP + f"# run {k}\n"
    cpu0 = _tree_cpu_seconds()
    type_code(page, text)
    t_typed = time.perf_counter()
    root = page.get_by_test_id("playground")
    page.wait_for_function("([el, n]) => Number(el.dataset.results || 0) > n",
                           arg=[root.element_handle(), before], timeout=REPLY_MS)
    drawn = time.perf_counter() - t_typed
    cpu = _tree_cpu_seconds() - cpu0
    req = _last_run_request(page) or {}
    error = page.get_by_test_id("error")
    error_text = error.inner_text() if error.is_visible() else ""
    console = page.get_by_test_id("console").inner_text()
    plot = page.get_by_test_id("loss-plot")
    points = plot.get_attribute("data-points") if plot.count() else None
    ended = not error_text and "y = " in console
    return {
        "page_s": None if req.get("ms") is None else round(req["ms"] / 1000, 3),
        "host_s": None if req.get("host_ms") is None else round(req["host_ms"] / 1000, 3),
        "drawn_s": round(drawn, 3),
        "browser_cpu_s": round(cpu, 2),
        "ended": ended,
        "stopped_by_limit": "max_seconds" in error_text or "time limit" in error_text.lower(),
        "loss_points": None if points is None else int(points),
        "error": error_text.strip().splitlines()[0] if error_text.strip() else None,
    }


def browser_runs(site: Path, repeats: int) -> tuple[list[dict], list[str]]:
    from playwright.sync_api import sync_playwright

    external: list[str] = []
    proc, url = _serve(site)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM)
            ctx = browser.new_context(viewport={"width": 1400, "height": 900})

            def route(r):  # offline: only this machine's site may answer
                host = urlparse(r.request.url).hostname
                if urlparse(r.request.url).scheme in ("data", "blob") or host in ("127.0.0.1",
                                                                                   "localhost"):
                    r.continue_()
                else:
                    external.append(r.request.url)
                    r.abort()

            ctx.route("**/*", route)
            page = ctx.new_page()
            page.goto(url)
            root = page.get_by_test_id("playground")
            page.wait_for_function("(el) => el.dataset.busy === 'false' && "
                                   "Number(el.dataset.results || 0) > 0",
                                   arg=root.element_handle(), timeout=LOAD_MS)
            runs = [_one_run(page, k) for k in range(repeats)]
            browser.close()
    finally:
        proc.terminate()
        proc.wait(10)
    return runs, external


def node_run(site: Path) -> dict | None:
    node = shutil.which("node")
    if node is None:
        return None
    program = Path(os.environ.get("TMPDIR", "/tmp")) / f"gradplay-long-loop-{os.getpid()}.py"
    program.write_text(LONG_LOOP)
    try:
        done = subprocess.run([node, str(ROOT / "bench" / "bench_pyodide.mjs"),
                               str(site / "pyodide"), str(site / "py.zip"), str(program), "3"],
                              capture_output=True, text=True, timeout=600)
    finally:
        program.unlink()
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1:]}
    return json.loads(done.stdout)


def main(argv=None) -> int:
    args = parse_args(argv)
    site = Path(args.site).resolve()
    if not (site / "index.html").exists():
        print(f"no built site at {site}: run `node static/build.mjs && python "
              f"scripts/build_site.py --out {site}`", file=sys.stderr)
        return 2
    load = os.getloadavg()[0]
    runs, external = browser_runs(site, args.repeats)
    node = node_run(site) if args.node else None
    if args.json:
        print(json.dumps({"load": load, "runs": runs, "external": external, "node": node},
                         indent=1))
        return 0 if not external else 1
    print(f"2,000-iteration training loop in the in-browser site (Chromium), {args.repeats} runs, "
          f"load average {load:.1f} at the start")
    for k, r in enumerate(runs):
        how = "ran to its end" if r["ended"] else (
            "STOPPED by the time limit" if r["stopped_by_limit"] else f"error: {r['error']}")
        print(f"  run {k + 1}: page {r['page_s']} s, host {r['host_s']} s, drawn {r['drawn_s']} s "
              f"(browser CPU {r['browser_cpu_s']} s); {how}; loss plot {r['loss_points']} points")
    if node is not None:
        print(f"  Pyodide under Node.js (bench_pyodide.mjs, min of 3 after a warm-up): "
              f"{json.dumps(node)}")
    if external:
        print(f"  REFUSED {len(external)} request(s) leaving the machine: {external[:3]}")
    return 0 if not external else 1


if __name__ == "__main__":
    sys.exit(main())
