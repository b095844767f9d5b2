"""The wheel's layout: one import name, `gradplay` (the metadata is in pyproject.toml).

The repository keeps engine/ and playground/ as two top-level packages, so that `import engine
as torch` works from its root. Both names belong to other distributions on PyPI, so the wheel
maps them under one: playground/ becomes `gradplay` and engine/ becomes `gradplay.engine`
(playground/_engine.py finds the engine in either layout). The wheel also carries what the
repository builds with Node.js, so an installed gradplay needs neither Node.js nor a network:
the Panel app's UI bundle (static/dist/panel.js -> gradplay/_ui/) and the built in-browser site
with Pyodide core and BokehJS (site/ -> gradplay/_site/). Build them first (`make site`).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
UI_BUNDLE = Path("static", "dist", "panel.js")
SITE = Path("site")
# Copied into the package by BuildWithAssets (see playground/assets.py, which looks for them).
PACKAGED_UI, PACKAGED_SITE = "_ui", "_site"


def _packages() -> list[str]:
    return (["gradplay"] + [f"gradplay.{name}" for name in find_packages("playground")]
            + ["gradplay.engine"] + [f"gradplay.engine.{name}" for name in find_packages("engine")])


class BuildWithAssets(build_py):
    """build_py, then the built UI bundle and site copied into the package."""

    def run(self):
        super().run()
        if self.editable_mode:  # an editable install finds them in the repository
            return
        ui, site = HERE / UI_BUNDLE, HERE / SITE
        missing = [str(p.relative_to(HERE)) for p in (ui, site / "index.html", site / "build.json")
                   if not p.is_file()]
        if missing:
            raise SystemExit(
                "gradplay: the wheel carries the built UI and site, and these are missing: "
                + ", ".join(missing) + ". Build them first: `make site` (or `npm ci && node "
                "static/build.mjs && python scripts/build_site.py --out site`).")
        json.loads((site / "build.json").read_text())  # a half-written site stops the build here
        target = Path(self.build_lib, "gradplay")
        (target / PACKAGED_UI).mkdir(parents=True, exist_ok=True)
        shutil.copy2(ui, target / PACKAGED_UI / ui.name)
        if (target / PACKAGED_SITE).exists():
            shutil.rmtree(target / PACKAGED_SITE)
        shutil.copytree(site, target / PACKAGED_SITE)


setup(
    packages=_packages(),
    package_dir={"gradplay": "playground", "gradplay.engine": "engine"},
    package_data={"": ["*.json", "*.txt", "*.csv", "*.toml", "*.md"]},
    cmdclass={"build_py": BuildWithAssets},
)
