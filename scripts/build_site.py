"""Builds the static in-browser site: the playground on Pyodide, with no server (docs/site.md).

    python scripts/build_site.py [--out site] [--bundle static/dist/site.js]

The site folder holds the host page (static/site/), the UI bundle (made by `node
static/build.mjs`), the worker, Pyodide core (copied from node_modules/pyodide), engine/ and
playground/ as plain Python files in one zip, BokehJS (from the installed bokeh package) and a
manifest, build.json. Every URL in it is relative, so it can be served under any sub-path.
Standard library only.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MANIFEST_FORMAT = 1

# Pyodide core: only the files loadPyodide fetches (it requests nothing else). The asm module is
# .mjs in current releases and was .js before; whichever pyodide.mjs names is copied.
PYODIDE_FILES = ["pyodide.mjs", "pyodide-lock.json", "python_stdlib.zip", "pyodide.asm.wasm"]
PYODIDE_ASM = ["pyodide.asm.mjs", "pyodide.asm.js"]
BOKEH_FILES = ["bokeh.min.js", "bokeh-api.min.js"]

# What goes into py.zip: the packages the worker imports, as source. engine/ is code only;
# playground/ may also carry data (the timeline schema, gallery programs).
PY_PACKAGES = {"engine": {".py", ".json"},
               "playground": {".py", ".json", ".txt", ".md", ".toml", ".csv"}}
ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # fixed, so the same sources give the same zip


class BuildError(Exception):
    pass


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _git_commit(root: Path) -> dict | None:
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True,
                                text=True, timeout=10)
        if commit.returncode != 0:
            return None
        status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                                cwd=root, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return {"commit": commit.stdout.strip(),
            "dirty": bool(status.stdout.strip()) if status.returncode == 0 else None}


def find_bokeh(explicit: Path | None) -> tuple[Path, str]:
    """The folder holding bokeh.min.js and bokeh-api.min.js, and bokeh's version."""
    if explicit is not None:
        folder, version = explicit, "unknown"
        package_json = folder / "version.txt"
        if package_json.exists():
            version = package_json.read_text().strip()
    else:
        spec = importlib.util.find_spec("bokeh")
        if spec is None or not spec.origin:
            raise BuildError("bokeh is not installed: `pip install bokeh` (it is in the `app` "
                             "extra), or pass --bokeh DIR with bokeh.min.js and bokeh-api.min.js")
        folder = Path(spec.origin).parent / "server" / "static" / "js"
        try:
            from importlib.metadata import version as dist_version
            version = dist_version("bokeh")
        except Exception:  # noqa: BLE001  (a broken install still has its files)
            version = "unknown"
    missing = [f for f in BOKEH_FILES if not (folder / f).is_file()]
    if missing:
        raise BuildError(f"BokehJS files missing in {folder}: {', '.join(missing)}")
    return folder, version


def find_pyodide(folder: Path) -> tuple[list[str], str, dict]:
    """The Pyodide core files to copy, the npm package's version, and its lock file's info."""
    if not (folder / "pyodide.mjs").is_file():
        raise BuildError(f"Pyodide core not found in {folder}: run `npm install` (package.json "
                         "pins the npm package `pyodide`), or pass --pyodide DIR")
    loader = (folder / "pyodide.mjs").read_text(encoding="utf-8", errors="replace")
    asm = [name for name in PYODIDE_ASM if (folder / name).is_file() and name in loader]
    if not asm:
        raise BuildError(f"{folder}/pyodide.mjs loads neither of {', '.join(PYODIDE_ASM)}")
    files = PYODIDE_FILES[:1] + asm + PYODIDE_FILES[1:]
    missing = [f for f in files if not (folder / f).is_file()]
    if missing:
        raise BuildError(f"Pyodide core incomplete in {folder}: missing {', '.join(missing)}")
    try:
        version = json.loads((folder / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        version = "unknown"
    try:
        info = json.loads((folder / "pyodide-lock.json").read_text()).get("info", {})
    except (OSError, ValueError):
        info = {}
    return files, version, info


def python_sources(root: Path) -> tuple[list[tuple[str, Path]], list[str]]:
    """(zip name, file) for every file py.zip carries, sorted; and what was left out."""
    entries, skipped = [], []
    for package, suffixes in PY_PACKAGES.items():
        base = root / package
        if not (base / "__init__.py").is_file():
            raise BuildError(f"{base} is not a Python package")
        for path in sorted(base.rglob("*")):
            rel = path.relative_to(root)
            if not path.is_file() or "__pycache__" in rel.parts:
                continue
            if any(part.startswith(".") for part in rel.parts):
                continue
            if path.suffix in suffixes:
                entries.append((rel.as_posix(), path))
            elif path.suffix not in (".pyc", ".pyo"):
                skipped.append(rel.as_posix())
    return entries, skipped


def make_zip(entries: list[tuple[str, Path]]) -> bytes:
    with tempfile.SpooledTemporaryFile() as buf:
        with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
            for name, path in entries:
                info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                zf.writestr(info, path.read_bytes())
        buf.seek(0)
        return buf.read()


def _fill(template: str, values: dict[str, str], name: str) -> str:
    for key, value in values.items():
        template = template.replace(key, value)
    if "@BUILD_" in template:
        raise BuildError(f"{name}: a placeholder was left unfilled")
    return template


def build(out: Path, bundle: Path, pyodide_dir: Path, bokeh_dir: Path | None = None,
          root: Path = ROOT, log=print) -> dict:
    """Build the site into `out` (replaced as a whole); return the manifest."""
    if not bundle.is_file():
        raise BuildError(f"the UI bundle {bundle} is missing: run `node static/build.mjs` "
                         "(after `npm install`) first, or pass --bundle PATH")
    page_dir = root / "static" / "site"
    for name in ("index.html", "worker.js", "page.css"):
        if not (page_dir / name).is_file():
            raise BuildError(f"{page_dir / name} is missing")
    pyodide_files, pyodide_version, lock_info = find_pyodide(pyodide_dir)
    bokeh_folder, bokeh_version = find_bokeh(bokeh_dir)
    entries, skipped = python_sources(root)

    # Everything but index.html, keyed by its path in the site.
    files: dict[str, bytes] = {
        "site.js": bundle.read_bytes(),
        "worker.js": (page_dir / "worker.js").read_bytes(),
        "page.css": (page_dir / "page.css").read_bytes(),
        "py.zip": make_zip(entries),
        ".nojekyll": b"",  # GitHub Pages: serve the folder as it is
    }
    # esbuild writes the CSS a bundle imports next to it, with the same stem.
    bundle_css = bundle.with_suffix(".css")
    if bundle_css.is_file():
        files["site.css"] = bundle_css.read_bytes()
    for name in pyodide_files:
        files[f"pyodide/{name}"] = (pyodide_dir / name).read_bytes()
    for name in BOKEH_FILES:
        files[f"bokeh/{name}"] = (bokeh_folder / name).read_bytes()

    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(path.encode() + b"\0" + _sha256(files[path]).encode() + b"\0")
    digest.update((page_dir / "index.html").read_bytes())
    build_id = digest.hexdigest()[:12]

    pyodide_bytes = sum(len(data) for path, data in files.items() if path.startswith("pyodide/"))
    info = {"build": build_id, "pyodide": pyodide_version, "python": lock_info.get("python"),
            "bokeh": bokeh_version, "pyodide_mb": round(pyodide_bytes / 1e6, 1)}
    ui_css = f'<link rel="stylesheet" href="site.css?v={build_id}">' if "site.css" in files else ""
    index = _fill((page_dir / "index.html").read_text(encoding="utf-8"), {
        "@BUILD_ID@": build_id,
        # inside <script type="application/json">: no "</" may appear
        "@BUILD_INFO@": json.dumps(info, sort_keys=True).replace("</", "<\\/"),
        "<!--@UI_CSS@-->": ui_css,
    }, "index.html")
    files["index.html"] = index.encode("utf-8")

    manifest = {
        "format": MANIFEST_FORMAT,
        "build": build_id,
        "versions": {"pyodide": pyodide_version, "pyodide_python": lock_info.get("python"),
                     "bokeh": bokeh_version},
        "git": _git_commit(root),
        "entry": "index.html",
        "python_files": [name for name, _ in entries],
        "files": [{"path": path, "bytes": len(files[path]), "sha256": _sha256(files[path])}
                  for path in sorted(files)],
        "total_bytes": sum(len(data) for data in files.values()),
    }

    out = out.resolve()
    if out in (root.resolve(), Path(out.anchor)) or root.resolve().is_relative_to(out):
        raise BuildError(f"refusing to build into {out}")
    if out.exists() and any(out.iterdir()) and not (out / "build.json").is_file():
        raise BuildError(f"{out} exists and is not a built site (no build.json): "
                         "choose another --out or remove it")
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        for path, data in files.items():
            target = staging / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        (staging / "build.json").write_text(json.dumps(manifest, indent=1) + "\n")
        staging.chmod(0o755)
        if out.exists():
            shutil.rmtree(out)
        os.replace(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise

    if skipped:
        log("build_site: left out of py.zip (not source or data): " + ", ".join(skipped))
    log(f"build_site: {out} ({manifest['total_bytes'] / 1e6:.1f} MB, {len(files) + 1} files; "
        f"pyodide {pyodide_version}, bokeh {bokeh_version}, build {build_id})")
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "site",
                        help="the site folder to (re)create (default: site/)")
    parser.add_argument("--bundle", type=Path, default=ROOT / "static" / "dist" / "site.js",
                        help="the UI bundle (default: static/dist/site.js)")
    parser.add_argument("--pyodide", type=Path, default=ROOT / "node_modules" / "pyodide",
                        help="Pyodide core, the npm package (default: node_modules/pyodide)")
    parser.add_argument("--bokeh", type=Path, default=None,
                        help="a folder with bokeh.min.js and bokeh-api.min.js (default: the "
                             "installed bokeh package's)")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    try:
        build(args.out, args.bundle, args.pyodide, args.bokeh,
              log=(lambda *a: None) if args.quiet else print)
    except BuildError as e:
        print(f"build_site: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
