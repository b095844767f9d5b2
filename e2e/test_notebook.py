"""The playground embedded where people already work: a JupyterLab 4 notebook, and a plain
Python script that calls `pn.serve`.

JupyterLab runs on 127.0.0.1 with a token, from the `notebook` extra (jupyterlab; Panel's own
JupyterLab extension comes with Panel, in pyviz_comms). In both, the test edits the program in
the embedded playground, plays the backward pass and reads x.grad from its node, with the usual
guards: no request leaves 127.0.0.1, no console error.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import textwrap

import pytest
from playwright.sync_api import expect

from .conftest import ARTIFACTS, ROOT, _free_port, _wait_http
from .ui import field, node, play_to_end, set_code, wait_idle

pytest.importorskip("jupyterlab", reason="the notebook extra: pip install -e '.[notebook]'")

# The cell a reader writes (the repository's root is put on sys.path first, as an installed
# gradplay would not need: there it is `from gradplay.app import Playground`).
START = "import torch\nx = torch.tensor([1.0], requires_grad=True)\ny = x * 5\ny.backward()\n"
EDITED = "import torch\nx = torch.tensor([2.0], requires_grad=True)\ny = x ** 3\ny.backward()\n"
CELL = f"""\
import sys
sys.path.insert(0, {str(ROOT)!r})
import panel as pn
from playground.app import Playground
pn.extension(inline=True)  # BokehJS and Panel's JS from this kernel, not from a CDN
Playground(program={START!r}, sizing_mode="stretch_width", height=700)
"""


def _notebook(cells: list[str]) -> dict:
    return {"cells": [{"cell_type": "code", "execution_count": None, "id": f"c{i}",
                       "metadata": {}, "outputs": [], "source": src}
                      for i, src in enumerate(cells)],
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                        "language": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()


def _edit_play_and_read(page) -> None:
    """The program in the playground edited, its backward played: x.grad = 3 x^2 = 12."""
    expect(node(page, "x")).to_be_visible(timeout=60_000)
    wait_idle(page, 60_000)
    set_code(page, EDITED)
    page.get_by_test_id("to-start").click()
    play_to_end(page)
    assert "12." in field(page, "x", "grad")


@pytest.fixture
def jupyterlab(tmp_path):
    port, token = _free_port(), secrets.token_hex(16)
    work = tmp_path / "work"
    work.mkdir()
    (work / "playground.ipynb").write_text(json.dumps(_notebook([CELL])))
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
           "JUPYTER_CONFIG_DIR": str(tmp_path / "config"), "JUPYTER_DATA_DIR": str(tmp_path / "data"),
           "IPYTHONDIR": str(tmp_path / "ipython")}
    env.pop("GRADPLAY_BACKEND", None)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log = open(ARTIFACTS.parent / "jupyterlab.log", "w")  # noqa: SIM115 (closed below)
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip", "127.0.0.1",
         "--port", str(port), f"--IdentityProvider.token={token}",
         f"--ServerApp.root_dir={work}",
         # nothing from the internet: no news feed, no update check, no extension index
         "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
         "--LabApp.extension_manager=readonly",
         "--allow-root"],  # CI containers often run as root; the server is local and tokened
        cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait_http(f"http://127.0.0.1:{port}/api/status?token={token}", proc, timeout=120)
        yield f"http://127.0.0.1:{port}", token
    finally:
        _stop(proc)
        log.close()


def test_playground_in_a_jupyterlab_notebook(jupyterlab, guarded):
    base, token = jupyterlab
    page = guarded().new_page()
    page.goto(f"{base}/lab/tree/playground.ipynb?token={token}")
    # once the kernel is up, run the cell as a reader does: click into it, Shift+Enter
    expect(page.get_by_text("Python 3 (ipykernel) | Idle")).to_be_visible(timeout=120_000)
    cell = page.locator(".jp-Cell .jp-InputArea-editor").first
    cell.click()
    page.keyboard.press("Shift+Enter")
    expect(page.locator(".jp-Cell .jp-InputPrompt").first).to_have_text("[1]:", timeout=120_000)
    try:
        _edit_play_and_read(page)
    finally:
        page.screenshot(path=str(ARTIFACTS / "notebook-jupyterlab.png"))


SCRIPT = f"""\
import sys
sys.path.insert(0, {str(ROOT)!r})
import panel as pn
from playground.app import Playground

pn.extension()
pn.serve({{"app": lambda: Playground(program={START!r}, sizing_mode="stretch_both")}},
         address="127.0.0.1", port=int(sys.argv[1]), show=False,
         websocket_origin=[f"127.0.0.1:{{sys.argv[1]}}"])
"""


def test_playground_in_a_script_with_pn_serve(tmp_path, guarded):
    port = _free_port()
    script = tmp_path / "my_app.py"
    script.write_text(textwrap.dedent(SCRIPT))
    proc = subprocess.Popen([sys.executable, str(script), str(port)], cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_http(f"http://127.0.0.1:{port}/app", proc)
        page = guarded().new_page()
        page.goto(f"http://127.0.0.1:{port}/app")
        _edit_play_and_read(page)
    finally:
        _stop(proc)
