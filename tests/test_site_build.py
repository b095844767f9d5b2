"""The static in-browser site: scripts/build_site.py and scripts/serve_site.py (docs/site.md).

The build runs on stand-ins for the UI bundle, Pyodide core and BokehJS (small files with the
real names), so these tests need neither npm nor bokeh, and ship py.zip's sources
(`--sources`): compiling them runs the real Pyodide, tried once below when it is installed. The
real files are exercised by the e2e tests against the built site.
"""

from __future__ import annotations

import gzip
import hashlib
import html.parser
import io
import json
import os
import re
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest

from playground.host import PROTOCOL_VERSION

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "scripts" / "build_site.py"
SERVE = ROOT / "scripts" / "serve_site.py"

PYODIDE_LOADED = {"pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip",
                  "pyodide-lock.json"}


def _stand_ins(base: Path) -> dict[str, Path]:
    bundle = base / "dist" / "site.js"
    bundle.parent.mkdir(parents=True)
    bundle.write_text("// a stand-in UI bundle\nexport {};\n")
    pyodide = base / "pyodide"
    pyodide.mkdir()
    (pyodide / "package.json").write_text(json.dumps({"name": "pyodide", "version": "0.0.1-test"}))
    (pyodide / "pyodide.mjs").write_text('export async function loadPyodide() {} // "pyodide.asm.mjs"\n')
    (pyodide / "pyodide.asm.mjs").write_text("// asm\n")
    (pyodide / "pyodide.asm.wasm").write_bytes(b"\0asm\1\0\0\0")
    (pyodide / "python_stdlib.zip").write_bytes(b"PK\5\6" + b"\0" * 18)
    (pyodide / "pyodide-lock.json").write_text(json.dumps({"info": {"python": "3.14.2"},
                                                           "packages": {}}))
    # in the npm package, never loaded: must not be copied
    (pyodide / "console.html").write_text("<!doctype html>")
    (pyodide / "pyodide.js").write_text("// the classic-script loader\n")
    (pyodide / "pyodide.mjs.map").write_text("{}")
    bokeh = base / "bokeh"
    bokeh.mkdir()
    (bokeh / "bokeh.min.js").write_text("window.Bokeh = {};\n")
    (bokeh / "bokeh-api.min.js").write_text("window.Bokeh.Plotting = {};\n")
    (bokeh / "version.txt").write_text("9.9.9\n")
    return {"bundle": bundle, "pyodide": pyodide, "bokeh": bokeh}


def _build(out: Path, inputs: dict[str, Path], *extra: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, str(BUILD), "--out", str(out), "--bundle", str(inputs["bundle"]),
           "--pyodide", str(inputs["pyodide"]), "--bokeh", str(inputs["bokeh"]), "--sources",
           *extra]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    return _stand_ins(tmp_path_factory.mktemp("inputs"))


@pytest.fixture(scope="module")
def site(tmp_path_factory, inputs):
    out = tmp_path_factory.mktemp("built") / "site"
    done = _build(out, inputs)
    assert done.returncode == 0, done.stderr
    return out


def _manifest(site: Path) -> dict:
    return json.loads((site / "build.json").read_text())


def _site_files(site: Path) -> set[str]:
    return {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()}


# -- the build --------------------------------------------------------------------------------

def test_manifest_lists_every_file_with_its_size_hash_and_the_versions(site):
    manifest = _manifest(site)
    assert manifest["format"] == 1
    assert manifest["versions"] == {"pyodide": "0.0.1-test", "pyodide_python": "3.14.2",
                                    "bokeh": "9.9.9"}
    assert "git" in manifest  # {commit, dirty}, or null outside a git checkout
    listed = {f["path"]: f for f in manifest["files"]}
    assert set(listed) == _site_files(site) - {"build.json"}
    for path, entry in listed.items():
        data = (site / path).read_bytes()
        assert entry["bytes"] == len(data), path
        assert entry["sha256"] == hashlib.sha256(data).hexdigest(), path
    assert manifest["total_bytes"] == sum(f["bytes"] for f in manifest["files"])


def test_site_holds_page_worker_bundle_pyodide_python_and_bokeh(site, inputs):
    files = _site_files(site)
    assert {"index.html", "site.js", "worker.js", "page.css", "py.zip", "build.json",
            "bokeh/bokeh.min.js", "bokeh/bokeh-api.min.js"} <= files
    assert (site / "site.js").read_bytes() == inputs["bundle"].read_bytes()
    # the worker as written, told that this site (built from sources) ships no Python snapshot
    worker = (ROOT / "static/site/worker.js").read_text().replace("@BUILD_SNAPSHOT_FILE@", "")
    assert (site / "worker.js").read_text() == worker
    assert "python.snapshot" not in files and _manifest(site)["snapshot"] is None


def test_pyodide_core_is_only_the_files_loadpyodide_fetches(site):
    copied = {f.split("/", 1)[1] for f in _site_files(site) if f.startswith("pyodide/")}
    assert copied == PYODIDE_LOADED


def test_index_html_has_every_placeholder_filled_with_this_build(site):
    page = (site / "index.html").read_text()
    assert "@BUILD" not in page and "@UI_CSS@" not in page
    build = _manifest(site)["build"]
    assert f'<meta name="gradplay-build" content="{build}">' in page
    info = re.search(r'id="gradplay-build-info">(.*?)</script>', page, re.S).group(1)
    assert json.loads(info)["pyodide"] == "0.0.1-test"
    assert 'data-testid="loading"' in page


def test_the_same_sources_build_the_same_site(tmp_path, site, inputs):
    again = tmp_path / "again"
    assert _build(again, inputs).returncode == 0
    first, second = _manifest(site), _manifest(again)
    assert first["build"] == second["build"]
    assert (site / "py.zip").read_bytes() == (again / "py.zip").read_bytes()


def test_a_missing_bundle_fails_with_what_to_run(tmp_path, inputs):
    done = _build(tmp_path / "site", {**inputs, "bundle": tmp_path / "nope" / "site.js"})
    assert done.returncode == 1
    assert "node static/build.mjs" in done.stderr
    assert not (tmp_path / "site").exists()


def test_a_folder_that_is_not_a_built_site_is_never_replaced(tmp_path, inputs):
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    done = _build(foreign, inputs)
    assert done.returncode == 1 and "not a built site" in done.stderr
    assert (foreign / "notes.txt").read_text() == "keep me"


def test_a_rebuild_replaces_the_previous_site(tmp_path, inputs):
    out = tmp_path / "site"
    assert _build(out, inputs).returncode == 0
    (out / "stale.js").write_text("old")
    assert _build(out, inputs).returncode == 0
    assert not (out / "stale.js").exists()


# -- py.zip -----------------------------------------------------------------------------------

def test_py_zip_holds_what_the_worker_imports_and_nothing_else(site):
    names = zipfile.ZipFile(site / "py.zip").namelist()
    assert names == sorted(names) and len(names) == len(set(names))
    for name in names:
        assert name.split("/")[0] in ("engine", "playground"), name
        assert "__pycache__" not in name and not name.endswith((".pyc", ".pyo")), name
        assert Path(name).suffix in (".py", ".json", ".txt", ".md", ".toml", ".csv"), name
    # the host and everything it imports, lazily too (the gallery, the edits, the pure backend)
    for module in ("playground.host", "playground.examples", "playground.edits", "engine",
                   "engine.backend.pure_backend"):
        base = module.replace(".", "/")
        assert f"{base}.py" in names or f"{base}/__init__.py" in names, module
    # the server side, the command line, and numpy's backend never run in the worker
    for name in ("playground/app.py", "playground/cli.py", "engine/backend/numpy_backend.py"):
        assert name not in names, name
    # of the engine, only what needs numpy (which Pyodide core does not have) stays behind
    sources = {p.relative_to(ROOT).as_posix() for p in (ROOT / "engine").rglob("*.py")
               if "__pycache__" not in p.parts}
    left_out = sources - set(names)
    assert "engine/backend/numpy_backend.py" in left_out
    for name in left_out:
        assert re.search(r"^(import numpy|from numpy)", (ROOT / name).read_text(), re.M), name
    assert "playground/timeline_schema.json" in names
    assert set(_manifest(site)["python_files"]) == set(names)
    assert _manifest(site)["bytecode"] is None


@pytest.mark.skipif(not (ROOT / "node_modules" / "pyodide" / "pyodide.mjs").is_file()
                    or shutil.which("node") is None, reason="needs node and npm's pyodide")
def test_py_zip_compiled_by_pyodide_is_bytecode_the_worker_imports(tmp_path):
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import build_site
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    entries, _ = build_site.python_sources(ROOT)
    compiled, stdlib, summary, snapshot = build_site.compile_bytecode(
        build_site.make_zip(entries), ROOT / "node_modules" / "pyodide")
    # a snapshot of Python with the engine imported, which a fourth Pyodide restored from the
    # file the site ships (static/site/snapshot-file.js: the pages that are not all zeros,
    # gzip-compressed) and ran a program on (compile_bytecode refuses otherwise)
    assert summary["snapshot"]["bytes"] > 1_000_000
    assert len(snapshot) == summary["snapshot"]["file_bytes"] < summary["snapshot"]["bytes"] / 3
    assert snapshot[:2] == b"\x1f\x8b" and gzip.decompress(snapshot)[:4] == b"GPS1"
    assert summary["snapshot"]["tried"] == {"run": "result", "ok": True}
    names = zipfile.ZipFile(io.BytesIO(compiled)).namelist()
    assert sorted(names) == sorted(n + "c" if n.endswith(".py") else n for n, _ in entries)
    lock = json.loads((ROOT / "node_modules" / "pyodide" / "pyodide-lock.json").read_text())
    assert summary["python"] == lock["info"]["python"]
    with zipfile.ZipFile(io.BytesIO(compiled)) as zf:
        header = zf.read("playground/host.pyc")[:8]
    assert header[:4].hex() == summary["magic"] and header[4:8] == b"\1\0\0\0"
    # compile_bytecode itself ran the worker's start on the result and refuses otherwise
    assert summary["tried"]["imported_from_source"] == []
    # Pyodide's standard library: the same entries, with bytecode in place of the sources of the
    # modules the worker used (the rest stay source), and a second start on it found none of
    # those imported from source
    original = zipfile.ZipFile(ROOT / "node_modules" / "pyodide" / "python_stdlib.zip").namelist()
    with zipfile.ZipFile(io.BytesIO(stdlib)) as zf:
        names = zf.namelist()
        compiled_modules = [n for n in names if n.endswith(".pyc")]
        assert zf.read("json/decoder.pyc")[:8] == header
    assert sorted(n[:-1] if n.endswith(".pyc") else n for n in names) == sorted(original)
    assert len(compiled_modules) == summary["stdlib"]["modules"]
    assert 20 < len(compiled_modules) < len(original) / 2
    assert summary["stdlib"]["tried"]["stdlib_from_source"] == []


def test_py_zip_runs_the_host_on_the_pure_backend(tmp_path, site):
    unpacked = tmp_path / "py"
    zipfile.ZipFile(site / "py.zip").extractall(unpacked)
    script = """
import json, os, sys
d = sys.argv[1]
sys.path.insert(0, d)
os.environ["GRADPLAY_BACKEND"] = "pure"
from playground.host import Host, handle_json
import engine, playground
from engine import backend
assert engine.__file__.startswith(d) and playground.__file__.startswith(d)
host = Host()
hello = json.loads(handle_json(host, json.dumps({"type": "hello", "id": 1})))
program = "import torch\\nx = torch.tensor([1.0, 2.0], requires_grad=True)\\n(x * x).sum().backward()\\n"
result = json.loads(handle_json(host, json.dumps({"type": "run", "id": 2, "program": program})))
print(json.dumps({"backend": backend.NAME, "hello": hello["type"], "protocol": hello["protocol"],
                  "result": result["type"], "id": result["id"], "ok": result["timeline"]["ok"]}))
"""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GRADPLAY_BACKEND")}
    done = subprocess.run([sys.executable, "-c", script, str(unpacked)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {
        "backend": "pure", "hello": "hello", "protocol": PROTOCOL_VERSION, "result": "result", "id": 2,
        "ok": True}


# -- relative URLs ----------------------------------------------------------------------------

class _Urls(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("src", "href", "action", "poster", "data") and value is not None:
                self.urls.append(value)


def _is_relative(url: str) -> bool:
    return not re.match(r"^([a-zA-Z][a-zA-Z0-9+.-]*:|/)", url) or url.startswith("data:")


def test_every_url_in_the_page_is_relative(site):
    parser = _Urls()
    parser.feed((site / "index.html").read_text())
    assert parser.urls, "no URLs found: the parser is broken"
    bad = [u for u in parser.urls if not _is_relative(u)]
    assert not bad, bad
    for name in ("index.html", "page.css"):
        text = (site / name).read_text()
        assert not re.search(r"https?:|url\(\s*['\"]?/", text), name


@pytest.mark.parametrize("source", ["static/site/worker.js", "static/src/site_entry.js"])
def test_every_url_in_the_worker_and_the_page_entry_is_relative(source):
    text = (ROOT / source).read_text()
    code = re.sub(r"^\s*//.*$", "", text, flags=re.M)  # comments may name a command, not a URL
    assert "http:" not in code and "https:" not in code, source
    # the arguments of everything that fetches or resolves a URL
    calls = re.findall(r"(?:import|fetch|new URL|new Worker|versioned)\(\s*[\"'`]([^\"'`]*)", code)
    assert calls, "no URLs found: the pattern is broken"
    bad = [u for u in calls if not _is_relative(u)]
    assert not bad, bad


# -- serving ----------------------------------------------------------------------------------

class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def _get(url: str):
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(url, timeout=10) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


@pytest.fixture
def served(site):
    proc = subprocess.Popen([sys.executable, str(SERVE), "--dir", str(site), "--port", "0",
                             "--prefix", "gradplay", "--no-open"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/gradplay/", line)
        assert match, line + proc.stderr.read() if proc.poll() is not None else line
        yield proc, f"http://127.0.0.1:{match.group(1)}"
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)
        proc.stdout.close()
        proc.stderr.close()


def test_serve_site_serves_the_site_under_a_prefix_with_the_right_types(served):
    proc, base = served
    expected = {
        "/gradplay/": "text/html",
        "/gradplay/index.html": "text/html",
        "/gradplay/site.js?v=x": "text/javascript",
        "/gradplay/worker.js": "text/javascript",
        "/gradplay/pyodide/pyodide.mjs": "text/javascript",
        "/gradplay/pyodide/pyodide.asm.mjs": "text/javascript",
        "/gradplay/pyodide/pyodide.asm.wasm": "application/wasm",
        "/gradplay/pyodide/pyodide-lock.json": "application/json",
        "/gradplay/pyodide/python_stdlib.zip": "application/zip",
        "/gradplay/py.zip": "application/zip",
        "/gradplay/py.zip?v=x": "application/zip",
        "/gradplay/build.json": "application/json",
        "/gradplay/page.css": "text/css",
    }
    for path, mime in expected.items():
        status, headers, body = _get(base + path)
        assert status == 200, path
        assert headers.get_content_type() == mime, (path, headers["Content-Type"])
        # a file asked for with the build's id is kept as it is; the rest is revalidated
        cache = "public, max-age=31536000, immutable" if "?v=" in path else "no-cache"
        assert headers["Cache-Control"] == cache, path
    status, _, body = _get(base + "/gradplay/")
    assert b'data-testid="loading"' in body

    for path in ("/", "/gradplay"):
        status, headers, _ = _get(base + path)
        assert (status, headers["Location"]) == (302, "/gradplay/"), path
    for path in ("/index.html", "/gradplay/missing.js", "/gradplay/pyodide/",
                 "/gradplay/../../../etc/passwd"):
        assert _get(base + path)[0] == 404, path


def test_serve_site_stops_cleanly_on_sigterm(served):
    proc, base = served
    assert _get(base + "/gradplay/")[0] == 200
    proc.terminate()
    assert proc.wait(10) == 0
    assert "stopped" in proc.stdout.read()


def test_serve_site_refuses_a_folder_with_no_site(tmp_path):
    done = subprocess.run([sys.executable, str(SERVE), "--dir", str(tmp_path), "--no-open",
                           "--port", "0"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 1 and "build_site.py" in done.stderr
