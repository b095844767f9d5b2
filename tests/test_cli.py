"""The `gradplay` command line (playground/cli.py): its options, the site it writes, its errors.

Serving itself is exercised end to end (e2e/test_wheel.py runs `gradplay serve` from an
installed wheel); here the parts that decide what is served and written.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from playground import __version__, cli

ROOT = Path(__file__).resolve().parent.parent
PAGE = '<!doctype html>\n<html>\n<head>\n<meta charset="utf-8">\n<title>t</title>\n</head>\n</html>\n'


@pytest.fixture
def built_site(tmp_path) -> Path:
    """A minimal stand-in for a built site: what write_site needs, nothing more."""
    site = tmp_path / "built"
    (site / "pyodide").mkdir(parents=True)
    (site / "index.html").write_text(PAGE)
    (site / "pyodide" / "pyodide.mjs").write_text("// core")
    (site / ".nojekyll").write_text("")
    (site / "build.json").write_text(json.dumps({"format": 1, "build": "abc", "files": [
        {"path": "index.html", "bytes": len(PAGE)}]}))
    return site


@pytest.mark.parametrize("given,base", [
    ("/gradplay/", "/gradplay/"), ("/gradplay", "/gradplay/"), ("gradplay", "/gradplay/"),
    ("/a/b-c.d_e~f/", "/a/b-c.d_e~f/"), ("/", "/"), ("", "/"),
])
def test_base_is_normalized_to_slashes_on_both_ends(given, base):
    assert cli.normalize_base(given) == base


@pytest.mark.parametrize("given", ["/../x/", "/a/./b", '/a"b/', "/a b/", "/<x>/", "/a?b/"])
def test_base_that_is_not_a_plain_path_is_refused(given):
    with pytest.raises(cli.CommandError, match="a base is a URL path"):
        cli.normalize_base(given)


def test_apply_base_puts_one_base_element_after_the_charset():
    page = cli.apply_base(PAGE, "/gradplay/")
    assert '<meta charset="utf-8">\n<base href="/gradplay/">' in page
    again = cli.apply_base(page, "/other/")
    assert again.count("<base ") == 1 and '<base href="/other/">' in again


def test_write_site_copies_every_file_and_records_the_base(built_site, tmp_path):
    out = tmp_path / "out" / "site"
    manifest = cli.write_site(out, "/gradplay/", source=built_site)
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == [
        ".nojekyll", "build.json", "index.html", "pyodide/pyodide.mjs"]
    assert '<base href="/gradplay/">' in (out / "index.html").read_text()
    assert manifest["base"] == json.loads((out / "build.json").read_text())["base"] == "/gradplay/"
    assert "<base" not in (built_site / "index.html").read_text()  # the source is untouched
    # writing again replaces the folder (it holds a site); no staging folder is left behind
    cli.write_site(out, None, source=built_site)
    assert "<base" not in (out / "index.html").read_text()
    assert [p.name for p in out.parent.iterdir()] == ["site"]


def test_write_site_refuses_a_folder_that_is_not_a_site(built_site, tmp_path):
    out = tmp_path / "docs"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(cli.CommandError, match="not a gradplay site"):
        cli.write_site(out, None, source=built_site)
    assert (out / "notes.txt").read_text() == "mine"
    with pytest.raises(cli.CommandError, match="outside the built site"):
        cli.write_site(built_site / "inner", None, source=built_site)


def test_write_site_into_an_unwritable_place_says_so(built_site, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(cli.CommandError, match="cannot write the site into .*is a file"):
        cli.write_site(blocker / "site", None, source=built_site)


def test_busy_port_is_a_clear_error():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        with pytest.raises(cli.CommandError, match=f"port {port} on 127.0.0.1 is already in use"):
            cli._check_port("127.0.0.1", port)
    assert cli._check_port("127.0.0.1", 0) > 0  # 0: a free port is chosen


def test_serve_runs_panel_serve_on_the_app_file_with_the_site_beside_it(tmp_path):
    origins = cli._origins("127.0.0.1", 5006, ["lab.example.org:443"])
    assert origins == ["127.0.0.1:5006", "localhost:5006", "lab.example.org:443"]
    args = cli.panel_serve_args("127.0.0.1", 5006, 2, origins, tmp_path)
    assert args[:2] == ["serve", str(ROOT / "playground" / "app.py")]
    assert args[args.index("--num-procs") + 1] == "2"
    assert args[args.index("--static-dirs") + 1] == f"site={tmp_path}"
    assert args.count("--allow-websocket-origin") == 3


def test_open_of_a_missing_file_is_a_clear_error(capsys, tmp_path):
    assert cli.main(["open", str(tmp_path / "nope.py"), "--no-browser"]) == 2
    assert "nope.py: no such file" in capsys.readouterr().err


def test_version_and_module_entry_point():
    out = subprocess.run([sys.executable, "-m", "playground", "--version"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"gradplay {__version__}"


def test_sigterm_stops_serve_with_every_forked_server_process(tmp_path):
    # With --num-procs, Tornado forks the servers and the first process only waits for them;
    # a SIGTERM to it (kill PID) must not leave them serving the port on their own.
    port = cli._check_port("127.0.0.1", 0)
    proc = subprocess.Popen([sys.executable, "-m", "playground", "serve", "--no-browser",
                             "--port", str(port), "--num-procs", "2"], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        forked: list[int] = []
        while len(forked) < 2 and time.monotonic() < deadline:
            assert proc.poll() is None, "serve stopped by itself"
            forked = cli._children(proc.pid)
            time.sleep(0.5)
        assert len(forked) == 2, forked
        _wait_listening(port, deadline)
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)
        gone = time.monotonic() + 60
        while any(_alive(pid) for pid in forked) and time.monotonic() < gone:
            time.sleep(0.2)
        assert not [pid for pid in forked if _alive(pid)]
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(10)


def _wait_listening(port: int, deadline: float) -> None:
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.5)
    raise AssertionError(f"nothing listens on port {port}")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has stopped
    except OSError:
        return False
