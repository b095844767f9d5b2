"""The `gradplay` command: serve the playground, write the in-browser site, open a program file.

    gradplay                         serve on http://127.0.0.1:5006/app and open it in the browser
    gradplay serve [--port N] [--address A] [--no-browser] [--num-procs N]
    gradplay open FILE.py [the same options as serve]
    gradplay site OUT [--base /sub/path/]
    gradplay --version

`serve` runs Panel's own `panel serve` on the app file (app.py, beside this one), with the
in-browser site served beside it at /site/, exactly as `make run` does in the repository.
Installed from the wheel, everything it serves comes from inside the package (assets.py).
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import re
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
import webbrowser
from pathlib import Path

from . import __version__
from .assets import BuildMissing, site_dir, ui_bundle

__all__ = ["main", "CommandError", "write_site", "apply_base"]

APP_FILE = Path(__file__).resolve().parent / "app.py"
DEFAULT_PORT = 5006
LOOPBACK = ("127.0.0.1", "localhost", "::1")
# A base path is a URL path: letters, digits and - . _ ~ between slashes (no "..", no quotes).
_BASE_SEGMENT = re.compile(r"[A-Za-z0-9._~-]+")


class CommandError(Exception):
    """What went wrong, said for the person at the terminal (printed without a traceback)."""


# == site ===========================================================================================

def normalize_base(base: str) -> str:
    """'/sub/path/' from '/sub/path', '/sub/path/' or 'sub/path'; CommandError if it is not a
    plain URL path."""
    parts = [p for p in base.strip().split("/") if p]
    for part in parts:
        if part in (".", "..") or not _BASE_SEGMENT.fullmatch(part):
            raise CommandError(f"--base {base!r}: a base is a URL path such as /gradplay/ "
                               "(letters, digits, '-', '.', '_' and '~' between slashes)")
    return "/" + "".join(p + "/" for p in parts)


def apply_base(index_html: str, base: str) -> str:
    """The page with `<base href=base>`: its relative URLs then resolve under `base` whether it
    is opened as /sub/path/, /sub/path/index.html or /sub/path (no final slash)."""
    tag = f'<base href="{base}">'
    if "<base " in index_html:
        return re.sub(r'<base href="[^"]*">', tag, index_html, count=1)
    head = re.search(r"<meta charset=[^>]*>", index_html)
    if head is None:
        raise CommandError("the site's index.html has no <meta charset>: it is not a gradplay page")
    return index_html[:head.end()] + "\n" + tag + index_html[head.end():]


def write_site(out: Path, base: str | None = None, source: Path | None = None) -> dict:
    """Copy the built site into `out` (replaced as a whole), with `base` applied; return its
    manifest. Refuses a folder that holds something other than a gradplay site."""
    source = source or site_dir(required=True)
    out = Path(out).expanduser().absolute()
    if out == source or out.is_relative_to(source) or source.is_relative_to(out):
        raise CommandError(f"{out}: choose a folder outside the built site {source}")
    if out.exists() and not out.is_dir():
        raise CommandError(f"{out} is a file, not a folder")
    if out.is_dir() and any(out.iterdir()) and not (out / "build.json").is_file():
        raise CommandError(f"{out} is not empty and is not a gradplay site (no build.json): "
                           "choose an empty or new folder")
    manifest = json.loads((source / "build.json").read_text())
    existing = next(p for p in (out, *out.parents) if p.exists())
    if not existing.is_dir():
        raise CommandError(f"cannot write the site into {out}: {existing} is a file")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    except OSError as e:
        raise CommandError(f"cannot write the site into {out}: {e.strerror or e}") from None
    try:
        shutil.copytree(source, staging, dirs_exist_ok=True)
        if base is not None:
            index = staging / "index.html"
            index.write_text(apply_base(index.read_text(encoding="utf-8"), base),
                             encoding="utf-8")
            manifest["base"] = base
            (staging / "build.json").write_text(json.dumps(manifest, indent=1) + "\n")
        staging.chmod(0o755)
        if out.exists():
            shutil.rmtree(out)
        os.replace(staging, out)
    except OSError as e:
        shutil.rmtree(staging, ignore_errors=True)
        raise CommandError(f"cannot write the site into {out}: {e.strerror or e}") from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return manifest


def _cmd_site(args) -> int:
    base = normalize_base(args.base) if args.base is not None else None
    manifest = write_site(Path(args.out), base)
    size = sum(f["bytes"] for f in manifest.get("files", [])) / 1e6
    print(f"gradplay: wrote the in-browser site to {Path(args.out).absolute()} ({size:.1f} MB"
          + (f", base {base}" if base else "") + ").")
    print("Serve the folder with any static file server (not file://), e.g. "
          f"`python -m http.server -d {args.out}`.")
    return 0


# == serve ==========================================================================================

def _check_port(address: str, port: int) -> int:
    """`port`, or a free one when it is 0; CommandError when it is taken."""
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        # as Tornado binds: a port left in TIME_WAIT by a server that just stopped is free
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((address, port))
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                raise CommandError(
                    f"port {port} on {address} is already in use (is gradplay already running? "
                    f"then open http://{_url_host(address)}:{port}/app); choose another port "
                    "with --port N, or --port 0 for any free one") from None
            if e.errno == errno.EADDRNOTAVAIL or isinstance(e, socket.gaierror):
                raise CommandError(f"cannot listen on {address}: this machine has no such "
                                   "address") from None
            if e.errno == errno.EACCES:
                raise CommandError(f"not allowed to listen on port {port} (ports below 1024 "
                                   "need administrator rights): choose another with --port N"
                                   ) from None
            raise CommandError(f"cannot listen on {address}:{port}: {e.strerror or e}") from None
        return s.getsockname()[1]


def _url_host(address: str) -> str:
    if address in ("", "0.0.0.0", "::"):  # every interface: this machine reaches it locally
        return "127.0.0.1"
    return f"[{address}]" if ":" in address else address


def _origins(address: str, port: int, extra: list[str]) -> list[str]:
    hosts = [_url_host(address)]
    if hosts[0] in LOOPBACK or address in ("", "0.0.0.0", "::"):
        hosts += ["127.0.0.1", "localhost"]
    origins = [f"{h}:{port}" for h in hosts] + list(extra)
    return list(dict.fromkeys(origins))


def _open_when_up(url: str, address: str, port: int, timeout: float = 60.0) -> threading.Thread:
    def wait_and_open():
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                with socket.create_connection((_url_host(address).strip("[]"), port), 1):
                    break
            except OSError:
                time.sleep(0.2)
        else:
            return
        webbrowser.open(url)

    thread = threading.Thread(target=wait_and_open, name="gradplay-open-browser", daemon=True)
    thread.start()
    return thread


def panel_serve_args(address: str, port: int, num_procs: int, origins: list[str],
                     site: Path | None) -> list[str]:
    """The `panel serve` command line `gradplay serve` runs (Panel's own server and scaling)."""
    args = ["serve", str(APP_FILE), "--address", address, "--port", str(port),
            "--num-procs", str(num_procs)]
    for origin in origins:
        args += ["--allow-websocket-origin", origin]
    if site is not None:
        args += ["--static-dirs", f"site={site}"]
    return args


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (Linux's /proc; elsewhere none are found)."""
    found = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for entry in entries:
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    return found


def _stop_on_sigterm() -> None:
    """Make SIGTERM stop `serve` as Ctrl+C does, the forked server processes included.

    With --num-procs N, Tornado forks the server processes and the first process only waits for
    them: stopped by SIGTERM (`kill PID`, a service manager without process groups) it would
    leave alone and they would go on serving the port. Ctrl+C reaches them all through the
    terminal. The handler is inherited by the forked processes: each passes SIGTERM on to its own
    children (the servers, or a server's workers), then stops as on Ctrl+C."""
    def stop(signum, frame):
        for pid in _children(os.getpid()):
            try:
                os.kill(pid, signal.SIGTERM)
            except OSError:
                pass
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)


def _serve(args, hash_part: str = "") -> int:
    if args.num_procs < 0:
        raise CommandError("--num-procs is 1 or more (0: one per CPU core)")
    ui_bundle()  # a missing bundle is said here, not as a blank page in the browser
    port = _check_port(args.address, args.port)
    url = f"http://{_url_host(args.address)}:{port}/app{hash_part}"
    origins = _origins(args.address, port, args.allow_websocket_origin or [])
    print(f"gradplay {__version__}: serving the playground on {url}" + (
        f" with {args.num_procs} processes" if args.num_procs != 1 else "")
          + " (Ctrl+C stops it)", flush=True)
    if not args.no_browser:
        _open_when_up(url, args.address, port)
    from panel.command import main as panel_main

    from .server_sockets import send_at_once
    send_at_once()  # also for a websocket that comes before any page (a tab reconnecting)
    argv = sys.argv
    sys.argv = ["panel", *panel_serve_args(args.address, port, args.num_procs, origins,
                                            site_dir())]
    _stop_on_sigterm()
    try:
        panel_main()
    except KeyboardInterrupt:
        pass
    finally:
        sys.argv = argv
    return 0


def _cmd_open(args) -> int:
    from .share import ShareError, encode

    path = Path(args.file)
    try:
        program = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CommandError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise CommandError(f"cannot read {path}: {getattr(e, 'strerror', None) or e}") from None
    try:
        token = encode(program)
    except ShareError as e:
        raise CommandError(f"{path}: {e}") from None
    # The app opens the program of a #p= link in its address, as it does for a shared link.
    return _serve(args, f"#p={token}")


# == the command line ===============================================================================

def _serve_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=f"the port to listen on (default {DEFAULT_PORT}; 0: any free port)")
    parser.add_argument("--address", default="127.0.0.1",
                        help="the address to listen on (default 127.0.0.1: this machine only; "
                             "0.0.0.0 to let other machines in, with --allow-websocket-origin)")
    parser.add_argument("--no-browser", action="store_true",
                        help="do not open a browser; print the address instead")
    parser.add_argument("--num-procs", type=int, default=1, metavar="N",
                        help="server processes (Panel's --num-procs; default 1, 0: one per core)")
    parser.add_argument("--allow-websocket-origin", action="append", metavar="HOST[:PORT]",
                        help="another host name the page may be opened under (repeatable), "
                             "e.g. the name of this machine or of a reverse proxy")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gradplay",
        description="A visual playground for PyTorch autograd. With no command: serve it on "
                    "127.0.0.1 and open it in the browser.")
    parser.add_argument("--version", action="version", version=f"gradplay {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    serve = commands.add_parser("serve", help="serve the playground (Panel app)",
                                description="Serve the playground, the in-browser version "
                                            "beside it at /site/.")
    _serve_options(serve)
    serve.set_defaults(run=_serve)

    open_ = commands.add_parser("open", help="serve the playground with a program file open",
                                description="Serve the playground and open FILE.py in it.")
    open_.add_argument("file", metavar="FILE.py", help="a program (a PyTorch-subset script)")
    _serve_options(open_)
    open_.set_defaults(run=_cmd_open)

    site = commands.add_parser("site", help="write the in-browser site (no server needed)",
                               description="Write the static in-browser site (Python runs in "
                                           "the reader's browser) into OUT.")
    site.add_argument("out", metavar="OUT", help="the folder to (re)create")
    site.add_argument("--base", metavar="/sub/path/",
                      help="the URL path the site is served under, e.g. /gradplay/ on GitHub "
                           "Pages (the site works under any path; with a base it also works "
                           "when opened without the final slash)")
    site.set_defaults(run=_cmd_site)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:  # plain `gradplay`: serve with the defaults
        args = parser.parse_args(["serve"])
    try:
        return args.run(args)
    except (CommandError, BuildMissing) as e:
        print(f"gradplay: {e}", file=sys.stderr)
        return 2 if isinstance(e, CommandError) else 1


if __name__ == "__main__":
    sys.exit(main())
