"""The wheel, as a user gets it: built with `python -m build`, installed into a fresh virtual
environment outside the repository, run with no Node.js on PATH.

`gradplay site` writes the in-browser site with a base path, as the GitHub Pages workflow does,
and a share link opens in it under that path; `gradplay serve --no-browser` serves the Panel
app, whose seed example plays backward to x.grad = 8. Set GRADPLAY_WHEEL to a built wheel to
skip the build. Dependencies come from the package index (pip's cache makes this quick).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from playwright.sync_api import expect

from playground.share import encode

from .conftest import ROOT, _free_port, _wait_http
from .ui import code_text, field, node, open_app, play_to_end

PROGRAM = ("import torch\nx = torch.tensor([1.5, -2.0], requires_grad=True)\n"
           "loss = (x * x * 3).sum()\nloss.backward()\n")


def _run(cmd, **kw) -> subprocess.CompletedProcess:
    out = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert out.returncode == 0, f"{cmd} failed:\n{out.stdout}\n{out.stderr}"
    return out


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    given = os.environ.get("GRADPLAY_WHEEL")
    if given:
        return Path(given)
    out = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)], timeout=900)
    (found,) = out.glob("gradplay-*.whl")
    return found


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> dict:
    """A fresh venv with the wheel in it; the environment to run its `gradplay` in: PATH is the
    venv's bin/ alone (no Node.js) and the working folder is outside the repository."""
    home = tmp_path_factory.mktemp("user")
    venv = home / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], timeout=300)
    _run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet",
          "--disable-pip-version-check", str(wheel)], timeout=900, cwd=home)
    env = {"PATH": str(venv / "bin"), "HOME": str(home), "LANG": "C.UTF-8"}
    assert shutil.which("node", path=env["PATH"]) is None
    return {"venv": venv, "env": env, "home": home}


def test_the_wheel_claims_only_the_name_gradplay(wheel, installed):
    with zipfile.ZipFile(wheel) as whl:
        tops = {name.split("/")[0] for name in whl.namelist()}
        assert {t for t in tops if not t.endswith(".dist-info")} == {"gradplay"}
        names = set(whl.namelist())
    # what the wheel carries so that nothing is built or fetched at run time
    for path in ("gradplay/_ui/panel.js", "gradplay/_site/index.html", "gradplay/_site/py.zip",
                 "gradplay/_site/pyodide/pyodide.asm.wasm", "gradplay/_site/bokeh/bokeh.min.js",
                 "gradplay/engine/__init__.py", "gradplay/cli.py"):
        assert path in names, path
    probe = ("import json, sys, gradplay, gradplay.engine as torch; print(json.dumps(["
             "gradplay.__file__, torch.__file__, sorted(m for m in sys.modules "
             "if m.split('.')[0] in ('engine', 'playground'))]))")
    out = _run([str(installed["venv"] / "bin" / "python"), "-c", probe], env=installed["env"],
               cwd=installed["home"], timeout=120)
    package, engine, foreign = json.loads(out.stdout)
    assert Path(package).is_relative_to(installed["venv"]) and not Path(package).is_relative_to(ROOT)
    assert Path(engine).parent.parent == Path(package).parent
    assert foreign == []
    version = _run([str(installed["venv"] / "bin" / "gradplay"), "--version"],
                   env=installed["env"], cwd=installed["home"], timeout=120)
    assert version.stdout.startswith("gradplay ")


def test_gradplay_site_with_a_base_opens_a_share_link_under_it(installed, guarded):
    out = installed["home"] / "pages"
    _run([str(installed["venv"] / "bin" / "gradplay"), "site", str(out), "--base", "/gradplay/"],
         env=installed["env"], cwd=installed["home"], timeout=300)
    assert json.loads((out / "build.json").read_text())["base"] == "/gradplay/"
    port = _free_port()
    server = subprocess.Popen([sys.executable, str(ROOT / "scripts" / "serve_site.py"), "--dir",
                               str(out), "--port", str(port), "--prefix", "/gradplay/",
                               "--no-open"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}/gradplay/"
        _wait_http(url, server)
        page = guarded().new_page()
        open_app(page, url, "p=" + encode(PROGRAM))
        assert "x * x * 3" in code_text(page)
        play_to_end(page)
        grad = field(page, "x", "grad")
        assert "9." in grad and "-12." in grad, grad  # d/dx sum(3 x^2) = 6 x
    finally:
        server.terminate()
        server.wait(10)


def test_gradplay_serve_plays_the_seed_example(installed, guarded):
    port = _free_port()
    log = open(installed["home"] / "serve.log", "w")  # noqa: SIM115 (closed below)
    server = subprocess.Popen([str(installed["venv"] / "bin" / "gradplay"), "serve",
                               "--no-browser", "--port", str(port)], env=installed["env"],
                              cwd=installed["home"], stdout=log, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{port}/app"
        _wait_http(url, server)
        page = guarded().new_page()
        open_app(page, url)
        expect(node(page, "x")).to_be_visible()
        page.get_by_test_id("to-start").click()
        play_to_end(page)
        assert "8." in field(page, "x", "grad")
        # the in-browser version is served beside the app, from inside the package
        _wait_http(f"http://127.0.0.1:{port}/site/index.html", server)
    finally:
        server.terminate()
        server.wait(20)
        log.close()
