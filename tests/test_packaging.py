"""The installed layout: one import name, `gradplay`, with the engine inside it.

The wheel maps playground/ to `gradplay` and engine/ to `gradplay.engine` (setup.py). These
tests lay the two folders out that way in a temporary directory and use them from a fresh
interpreter, so an absolute `import engine` or `import playground` left anywhere in either
package fails here, not on a user's machine.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

USE_INSTALLED_LAYOUT = textwrap.dedent("""
    import json, sys
    sys.path.insert(0, sys.argv[1])
    import gradplay
    from gradplay.host import Host
    import gradplay.engine as torch

    host = Host()
    hello = host.handle({"type": "hello", "id": 1})
    run = host.handle({"type": "run", "id": 2, "program":
        "import torch\\nx = torch.tensor([2.0], requires_grad=True)\\ny = (x * x).sum()\\ny.backward()"})
    edit = host.handle({"type": "edit", "id": 3, "program": run["program"],
                        "edit": {"op": "set_value", "target": "x", "value": "[3.0]"}})
    from gradplay.engine.nn.module import typename
    print(json.dumps({
        "hello": hello["type"], "run": run["type"], "edit": edit["type"],
        "typename": typename(torch.nn.Linear(2, 1)),
        "engine_file": torch.__file__,
        "modules": sorted(n for n in sys.modules
                          if n.split(".")[0] in ("engine", "playground")),
    }))
""")


def test_installed_layout_imports_nothing_by_the_repository_names(tmp_path):
    package = tmp_path / "gradplay"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "playground", package, ignore=ignore)
    shutil.copytree(ROOT / "engine", package / "engine", ignore=ignore)
    out = subprocess.run([sys.executable, "-I", "-c", USE_INSTALLED_LAYOUT, str(tmp_path)],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["modules"] == []
    assert Path(seen["engine_file"]).is_relative_to(package / "engine")
    assert (seen["hello"], seen["run"], seen["edit"]) == ("hello", "result", "result")
    # messages name torch's modules, whatever the engine's own package is called
    from engine.nn import Linear
    from engine.nn.module import typename
    assert seen["typename"] == typename(Linear(2, 1)) == "torch.nn.modules.linear.Linear"
