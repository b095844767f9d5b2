"""Where the built files are: the Panel app's UI bundle and the in-browser site.

The repository builds them with Node.js (`node static/build.mjs` -> static/dist/panel.js,
`scripts/build_site.py` -> site/); the wheel carries copies inside this package (_ui/, _site/,
put there by setup.py), so an installed gradplay needs neither Node.js nor a network. The
package's own copies come first: in the repository they do not exist.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["ui_bundle", "site_dir", "BuildMissing"]

PACKAGE = Path(__file__).resolve().parent
_REPOSITORY = PACKAGE.parent


class BuildMissing(FileNotFoundError):
    """A built file is not there: the message says how to build it."""


def ui_bundle() -> Path:
    """static/dist/panel.js (or the wheel's copy). Raises BuildMissing when neither exists."""
    for path in (PACKAGE / "_ui" / "panel.js", _REPOSITORY / "static" / "dist" / "panel.js"):
        if path.is_file():
            return path
    raise BuildMissing(
        f"the UI bundle {_REPOSITORY / 'static' / 'dist' / 'panel.js'} is missing: build it with "
        "`npm ci && node static/build.mjs` (in the repository root)")


def site_dir(required: bool = False) -> Path | None:
    """The built in-browser site (the wheel's copy, or the repository's site/); None when there
    is none, or BuildMissing when `required`."""
    for path in (PACKAGE / "_site", _REPOSITORY / "site"):
        if (path / "index.html").is_file() and (path / "build.json").is_file():
            return path
    if required:
        raise BuildMissing(f"the in-browser site {_REPOSITORY / 'site'} is not built: run "
                           "`make site` (in the repository root)")
    return None
