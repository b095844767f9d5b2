"""The site as GitHub Pages serves it: written with the Pages base path by the command the
workflow runs (.github/workflows/pages.yml: `python -m playground site OUT --base /gradplay/`),
served under that sub-path, opened from a share link, twice in one browser profile: a first
(cold) visit and a second (warm) one, with the browser's caches on disk as a reader's are (a
persistent profile: an incognito-like context keeps no compiled WebAssembly between visits).
Both visits start Python from the snapshot the site ships (docs/site.md, "Snapshot"); a site
built without one keeps a snapshot of the first visit's Python in the Cache API once it is idle,
the test waits for it, and the second visit must start from it ("Second visit").

Load times are recorded in artifacts/e2e/site-load.json and printed, not asserted (docs/site.md
has the figures): `first_graph_at` is the whole wait, from navigation to the link's graph on
screen; `pyodide_ms` is Pyodide's own load in the same run; `first_graph_after_pyodide_ms` is
what follows it (the engine's import, the `open` request, the UI's drawing).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from playwright.sync_api import expect

from playground.share import encode

from .conftest import (
    ARTIFACTS,
    NO_OUTSIDE_HOSTS,
    ROOT,
    Guard,
    _free_port,
    _wait_http,
    guard_context,
)
from .ui import field, node, open_app, play_to_end

BASE = "/gradplay/"
PROGRAM = ("import torch\nw = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)\n"
           "x = torch.tensor([1.0, 3.0], requires_grad=True)\n"
           "h = (w @ x).tanh()\nloss = (h * h).sum()\nloss.backward()\n")
SNAPSHOT_STORED = """async () => {
    const cache = await caches.open("gradplay-python-snapshot");
    return (await cache.keys()).some((r) => new URL(r.url).pathname.endsWith("/python-snapshot"));
}"""
KEEP = ("pyodide_ms", "engine_ms", "ready_ms", "first_graph_ms", "first_graph_after_pyodide_ms",
        "first_draw_ms", "first_graph_at", "first_graph_since_start_ms", "snapshot",
        "snapshot_ms", "snapshot_bytes", "snapshot_read_ms", "snapshot_ready_at", "pyodide_mjs_at",
        "unpack_ms", "zip_wait_ms", "fetched")


@pytest.fixture(scope="module")
def pages_site(tmp_path_factory):
    if not (ROOT / "site" / "build.json").is_file():
        raise RuntimeError("the static site is not built: run `make site`")
    out = tmp_path_factory.mktemp("pages") / "_site"
    subprocess.run([sys.executable, "-m", "playground", "site", str(out), "--base", BASE],
                   cwd=ROOT, check=True, capture_output=True, timeout=300)
    port = _free_port()
    proc = subprocess.Popen([sys.executable, str(ROOT / "scripts" / "serve_site.py"), "--dir",
                             str(out), "--port", str(port), "--prefix", BASE, "--no-open"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}{BASE}"
    try:
        _wait_http(url, proc)
        yield url
    finally:
        proc.terminate()
        proc.wait(10)


def _visit(context, url: str) -> dict:
    page = context.new_page()
    open_app(page, url, "p=" + encode(PROGRAM))
    expect(node(page, "loss")).to_be_visible()
    timings = page.evaluate("() => ({...window.__gradplay_timings})")
    play_to_end(page)
    grad = field(page, "x", "grad")
    first = [{k: r.get(k) for k in ("type", "ms", "host_ms")} for r in timings.get("requests", [])[:2]]
    # a site without a snapshot of its own: the worker keeps one of its Python for the next
    # visit, once it has been idle a moment
    if timings.get("snapshot") != "built":
        page.wait_for_function(SNAPSHOT_STORED, timeout=60_000)
    page.close()
    return {"grad_shown": bool(grad.strip()), **{k: timings.get(k) for k in KEEP},
            "first_requests": first}


def test_pages_site_opens_a_share_link_cold_then_warm(pages_site, browser_type,
                                                      browser_type_launch_args, tmp_path):
    guard = Guard()
    # the HTTP cache stays on (a reader's second visit reads the site from it): requests are
    # watched, not intercepted, and the browser resolves no outside host
    launch = {**browser_type_launch_args,
              "args": [*browser_type_launch_args.get("args", []), NO_OUTSIDE_HOSTS]}
    context = browser_type.launch_persistent_context(
        str(tmp_path / "profile"), **launch, viewport={"width": 1400, "height": 900})
    try:
        guard_context(context, guard, keep_cache=True)
        cold = _visit(context, pages_site)
        warm = _visit(context, pages_site)  # same profile: a reader's second visit
        # the sub-path without its final slash opens the same playground
        page = context.new_page()
        page.goto(pages_site.rstrip("/") + "#p=" + encode(PROGRAM))
        expect(node(page, "loss")).to_be_visible(timeout=90_000)
        # the guard sees a request to an outside host, from a worker too, and it never arrives
        reached = page.evaluate("""() => new Promise((resolve) => {
            const code = "fetch('http://outside.example/x').then(() => postMessage(true), () => postMessage(false))";
            const w = new Worker(URL.createObjectURL(new Blob([code], {type: "text/javascript"})));
            w.onmessage = (e) => resolve(e.data);
        })""")
        assert reached is False and guard.external == ["http://outside.example/x"], guard.external
        guard.external.clear()
        page.close()
    finally:
        context.close()
    guard.check()
    build = json.loads((ROOT / "site" / "build.json").read_text())
    result = {"base": BASE, "bytecode": build.get("bytecode"), "cold": cold, "warm": warm}
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "site-load.json").write_text(json.dumps(result, indent=1))
    print("[site-load]", json.dumps(result))
    assert cold["grad_shown"] and warm["grad_shown"]
    # both visits start Python from the snapshot the site ships, or, built without one, the
    # second visit from the one the first kept (docs/site.md)
    if build.get("snapshot"):
        assert cold["snapshot"] == warm["snapshot"] == "built", (cold, warm)
    else:
        assert cold["snapshot"] is None and warm["snapshot"] == "restored", (cold, warm)
    for visit in (cold, warm):
        assert visit["pyodide_ms"] and visit["first_graph_at"], visit
