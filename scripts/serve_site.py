"""Serves the built in-browser site (site/) on 127.0.0.1, optionally under a sub-path.

    python scripts/serve_site.py [--port 8765] [--prefix /gradplay/] [--dir site] [--no-open]

`--prefix /gradplay/` serves site/ at /gradplay/ (as GitHub Pages would) and redirects / there.
The page needs http: file:// cannot load a module worker or WebAssembly. Standard library only;
stops cleanly on Ctrl+C or SIGTERM.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import urllib.parse
import webbrowser
from functools import partial
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

MIME = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".wasm": "application/wasm",
    ".zip": "application/zip",
    ".map": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".txt": "text/plain; charset=utf-8",
}


IMMUTABLE = "public, max-age=31536000, immutable"


class SiteHandler(SimpleHTTPRequestHandler):
    """Serves one folder under `prefix`; no directory listings, revalidate every time."""

    prefix = "/"
    quiet = True
    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, **MIME}

    def _split(self):
        parts = urllib.parse.urlsplit(self.path)
        return parts.path, parts.query

    def _redirect(self, location: str):
        self.send_response(HTTPStatus.FOUND)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _route(self) -> bool:
        """Redirect or refuse what is outside the prefix; True when the request is answered."""
        path, query = self._split()
        if self.prefix != "/":
            if path in ("/", self.prefix.rstrip("/")):
                self._redirect(self.prefix + ("?" + query if query else ""))
                return True
            if not path.startswith(self.prefix):
                self.send_error(HTTPStatus.NOT_FOUND, "not under " + self.prefix)
                return True
        return False

    def do_GET(self):
        if not self._route():
            super().do_GET()

    def do_HEAD(self):
        if not self._route():
            super().do_HEAD()

    def translate_path(self, path):
        path = urllib.parse.urlsplit(path).path
        if self.prefix != "/" and path.startswith(self.prefix):
            path = "/" + path[len(self.prefix):]
        return super().translate_path(path)

    def list_directory(self, path):
        self.send_error(HTTPStatus.NOT_FOUND, "no listing")
        return None

    def guess_type(self, path):
        return MIME.get(os.path.splitext(str(path))[1].lower()) or super().guess_type(path)

    def end_headers(self):
        # A file asked for with the build's id (`?v=<build id>`: the page's own files, the
        # worker, py.zip, the snapshot) never changes under that URL: the browser keeps it
        # without asking again, so a second visit waits for no round trip to this server on
        # the way to Python. Everything else (index.html, which names the build, and Pyodide's
        # files, asked for without an id) is revalidated each time (Last-Modified gives cheap
        # 304s), so a rebuilt site is never mixed with a cached older one. docs/site.md gives
        # static hosts the same advice.
        self.send_header("Cache-Control", IMMUTABLE if self._versioned() else "no-cache")
        self.send_header("X-Content-Type-Options", "nosniff")
        super().end_headers()

    def _versioned(self) -> bool:
        return "v" in urllib.parse.parse_qs(self._split()[1])

    def log_message(self, format, *args):
        if not self.quiet:
            super().log_message(format, *args)

    def log_error(self, format, *args):
        # 404s and the like are worth a line even when quiet: a site file is missing.
        super().log_message(format, *args)


def normalize_prefix(prefix: str) -> str:
    prefix = "/" + prefix.strip("/")
    return prefix if prefix == "/" else prefix + "/"


def can_open_browser() -> bool:
    """False where webbrowser would find no window to open in (or a text browser to take over
    the terminal): a Linux or BSD machine with no display."""
    if sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


def open_browser(url: str) -> None:
    if not can_open_browser():
        print("serve_site: no display here, so no browser was opened; open the address above.")
        return
    try:
        webbrowser.open(url)
    except Exception as e:  # noqa: BLE001  (opening a browser is a courtesy, never a failure)
        print(f"serve_site: could not open a browser ({e}); open the address above.")


def make_server(site: Path, host: str, port: int, prefix: str, quiet: bool = True):
    handler = type("Handler", (SiteHandler,), {"prefix": prefix, "quiet": quiet})
    server = ThreadingHTTPServer((host, port), partial(handler, directory=str(site)))
    server.daemon_threads = True
    return server


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", type=Path, default=ROOT / "site", help="the built site")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765, help="0 picks a free port")
    parser.add_argument("--prefix", default="/", help="the sub-path to serve the site under")
    parser.add_argument("--no-open", action="store_true", help="do not open a browser")
    parser.add_argument("--verbose", action="store_true", help="log every request")
    args = parser.parse_args(argv)

    site = args.dir.resolve()
    if not (site / "index.html").is_file():
        print(f"serve_site: no built site in {site}: run `python scripts/build_site.py` first",
              file=sys.stderr)
        return 1
    prefix = normalize_prefix(args.prefix)
    try:
        server = make_server(site, args.host, args.port, prefix, quiet=not args.verbose)
    except OSError as e:
        print(f"serve_site: cannot listen on {args.host}:{args.port}: {e}", file=sys.stderr)
        return 1

    def stop(signum, frame):
        # serve_forever() must be stopped from another thread than its own.
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    port = server.server_address[1]
    url = f"http://{args.host}:{port}{prefix}"
    print(f"serve_site: {site} at {url}  (Ctrl+C stops)", flush=True)
    if not args.no_open:
        open_browser(url)
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
    print("serve_site: stopped", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
