"""End-to-end fixtures: the hosts under test, a guarded browser page, artifacts.

Every test runs against each host (`server`: `panel serve playground/app.py`; `browser`: the
static site on Pyodide, once it is built). Every page is guarded: a request that leaves
127.0.0.1 fails the test, and so does any console error or uncaught page error.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

import pytest

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "artifacts" / "e2e"
CHROMIUM = os.environ.get("GRADPLAY_CHROMIUM", "/usr/lib/chromium/chromium")
LOCAL_HOSTS = {"127.0.0.1", "localhost"}
LOCAL_SCHEMES = {"data", "blob", "about"}

# The site is built by `make site`, which `make test` runs first.
HOSTS = ["server", "browser"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_http(url: str, proc: subprocess.Popen, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode} before serving {url}")
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.25)
    raise RuntimeError(f"{url} did not answer within {timeout:.0f} s")


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    # Debian's Chromium: `playwright install` downloads a browser from a CDN, which an offline
    # build cannot reach.
    return {**browser_type_launch_args, "executable_path": CHROMIUM}


@pytest.fixture(scope="session")
def panel_server():
    port = _free_port()
    _ensure_artifacts()
    log = open(ARTIFACTS.parent / "panel-server.log", "w")  # noqa: SIM115 (closed below)
    proc = subprocess.Popen(
        [sys.executable, "-m", "panel", "serve", str(ROOT / "playground" / "app.py"),
         "--address", "127.0.0.1", "--port", str(port),
         "--allow-websocket-origin", f"127.0.0.1:{port}", "--num-procs", "1",
         *(["--static-dirs", f"site={ROOT / 'site'}"] if (ROOT / "site").is_dir() else [])],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/app"
    try:
        _wait_http(url, proc)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.fixture(scope="session")
def site_server():
    site = ROOT / "site"
    if not (site / "index.html").exists():
        raise RuntimeError("the static site is not built: run `make site`")
    port = _free_port()
    # Served under a sub-path, as a GitHub Pages site would be: /gradplay/ -> site/
    proc = subprocess.Popen([sys.executable, str(ROOT / "scripts" / "serve_site.py"),
                             "--port", str(port), "--prefix", "/gradplay/", "--no-open"],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/gradplay/"
    try:
        _wait_http(url, proc)
        yield url
    finally:
        proc.terminate()
        proc.wait(10)


def _ensure_artifacts() -> bool:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return True


@pytest.fixture(params=HOSTS)
def host(request):
    """(kind, base URL) of the host under test."""
    if request.param == "server":
        return "server", request.getfixturevalue("panel_server")
    return "browser", request.getfixturevalue("site_server")


class Guard:
    """What a page did that it must not: external requests, console errors, page errors."""

    def __init__(self):
        self.external: list[str] = []
        self.errors: list[str] = []

    def check(self):
        problems = [f"external request: {u}" for u in self.external]
        problems += [f"console error: {e}" for e in self.errors]
        assert not problems, "\n".join(problems)


def _is_local(url: str) -> bool:
    parsed = urlparse(url)
    if parsed.scheme in LOCAL_SCHEMES:
        return True
    return parsed.hostname in LOCAL_HOSTS


# Chromium resolves no host name but these: with it, nothing can leave the machine even where
# requests are only watched (guard_context(..., keep_cache=True)), not intercepted.
NO_OUTSIDE_HOSTS = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost"


def guard_context(context, guard: Guard, keep_cache: bool = False):
    """Fail on external requests, console errors and page errors. Every request is intercepted
    and an external one refused; but Playwright turns the browser's HTTP cache off while it
    intercepts, so a test of what a reader's second visit costs passes `keep_cache`: requests
    are then watched (workers' too) and an external one recorded, and the browser must have
    been launched with NO_OUTSIDE_HOSTS, which refuses it."""
    def route(route):
        url = route.request.url
        if _is_local(url):
            route.continue_()
        else:
            guard.external.append(url)
            route.abort()

    def watch(request):
        if not _is_local(request.url):
            guard.external.append(request.url)

    if keep_cache:
        context.on("request", watch)
    else:
        context.route("**/*", route)

    def on_page(page):
        page.on("console", lambda m: guard.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: guard.errors.append(f"pageerror: {e}"))

    context.on("page", on_page)
    for p in context.pages:
        on_page(p)


@pytest.fixture
def guarded(browser):
    """new_context() -> a guarded context; every context it made is checked at teardown."""
    made = []

    def new_context(**kw):
        guard = Guard()
        ctx = browser.new_context(viewport={"width": 1400, "height": 900}, **kw)
        guard_context(ctx, guard)
        made.append((ctx, guard))
        return ctx

    yield new_context
    for ctx, _ in made:
        ctx.close()
    for _, guard in made:
        guard.check()


@pytest.fixture
def page(guarded):
    return guarded().new_page()


@pytest.fixture(scope="module")
def _shared(browser):
    """One guarded page per host for a module's tests that only need a loaded playground (the
    gallery): a cold start per example would spend minutes loading Pyodide again and again."""
    made = {}
    yield made
    for ctx, _, _ in made.values():
        ctx.close()


@pytest.fixture
def shared_page(_shared, browser, host):
    """(page, url) loaded once per module and host; the guard is checked after every test."""
    from .ui import open_app

    kind, url = host
    if kind not in _shared:
        guard = Guard()
        ctx = browser.new_context(viewport={"width": 1400, "height": 900})
        guard_context(ctx, guard)
        page = ctx.new_page()
        open_app(page, url)
        _shared[kind] = (ctx, guard, page)
    _, guard, page = _shared[kind]
    yield page
    found = Guard()
    found.external, found.errors = guard.external[:], guard.errors[:]
    guard.external.clear()
    guard.errors.clear()
    found.check()


@pytest.fixture
def shot(request, host):
    """shot(page, name): a screenshot saved as a test artifact."""
    _ensure_artifacts()
    kind = host[0]

    def take(page, name: str) -> Path:
        path = ARTIFACTS / f"{kind}-{name}.png"
        page.screenshot(path=str(path), animations="disabled")
        return path

    return take
