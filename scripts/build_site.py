"""Builds the static in-browser site: the playground on Pyodide, with no server (docs/site.md).

    python scripts/build_site.py [--out site] [--bundle static/dist/site.js]

The site folder holds the host page (static/site/), the UI bundle (made by `node
static/build.mjs`), the worker, Pyodide core (copied from node_modules/pyodide), the modules of
engine/ and playground/ the worker imports in one zip (compiled to bytecode by Pyodide's own
CPython, run under Node.js: scripts/compile_site_python.mjs; `--sources` ships the .py files),
BokehJS (from the installed bokeh package) and a manifest, build.json. Every URL in it is
relative, so it can be served under any sub-path. Standard library only (and Node.js).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import importlib.util
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMPILER = Path(__file__).resolve().parent / "compile_site_python.mjs"
MANIFEST_FORMAT = 1

# Pyodide core: only the files loadPyodide fetches (it requests nothing else). The asm module is
# .mjs in current releases and was .js before; whichever pyodide.mjs names is copied.
PYODIDE_FILES = ["pyodide.mjs", "pyodide-lock.json", "python_stdlib.zip", "pyodide.asm.wasm"]
PYODIDE_ASM = ["pyodide.asm.mjs", "pyodide.asm.js"]
STDLIB_ZIP = "python_stdlib.zip"  # replaced by one with bytecode for the modules in use
SNAPSHOT_FILE = "python.snapshot.gz"  # Pyodide's memory with the engine imported (compressed)
# the worker's reader of that file (the build writes it with the same module)
SNAPSHOT_READER = "snapshot-file.js"
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


# What the worker imports (static/site/worker.js): the site ships this module and everything it
# imports, at module level or inside a function, and no other module of the two packages.
WORKER_ENTRY = "playground.host"


def _module_file(root: Path, name: str) -> Path | None:
    base = root.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _imports(root: Path, name: str, path: Path) -> tuple[set[str], set[str]]:
    """(modules of our packages that `name` may import, anywhere in it; other top-level
    packages it imports unconditionally at module level)."""
    tree = ast.parse(path.read_bytes(), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def absolute(module: str | None, level: int) -> str:
        if not level:
            return module or ""
        anchor = package.split(".")
        anchor = anchor[:len(anchor) - (level - 1)]
        return ".".join(anchor + ([module] if module else []))

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = absolute(node.module, node.level)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)  # maybe submodules
        elif (isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name))
              and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module"
              and node.args):
            # importlib.import_module("x") / import_module(".x", __name__): every string the
            # first argument may be (the engine picks its backend, the playground its engine)
            relative_to = name if len(node.args) > 1 else ""
            for const in ast.walk(node.args[0]):
                if isinstance(const, ast.Constant) and isinstance(const.value, str):
                    text = const.value
                    if text.startswith(".") and relative_to:
                        dots = len(text) - len(text.lstrip("."))
                        parts = relative_to.split(".")
                        text = ".".join(parts[:len(parts) - dots + 1] + [text.lstrip(".")])
                    found.add(text)
    required = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            required.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            required.add(node.module.split(".")[0])
    ours = {m for m in found if m.split(".")[0] in PY_PACKAGES}
    return ours, required - set(PY_PACKAGES) - set(sys.stdlib_module_names) - {"__future__"}


def worker_modules(root: Path, entry: str = WORKER_ENTRY) -> tuple[list[str], list[str]]:
    """The modules of engine/ and playground/ the worker can import, starting from `entry`
    (sorted); and the ones left out because they import a package Pyodide core does not have
    (numpy, panel), which the worker therefore never imports."""
    todo, seen, shipped, left_out = [entry], set(), set(), set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        parts = name.split(".")
        todo.extend(".".join(parts[:i]) for i in range(1, len(parts)))  # parents run first
        path = _module_file(root, name)
        if path is None:
            continue  # an attribute imported with `from x import name`, not a module
        ours, foreign = _imports(root, name, path)
        if foreign:
            left_out.add(name)
            continue
        shipped.add(name)
        todo.extend(ours)
    return sorted(shipped), sorted(left_out)


def python_sources(root: Path, entry: str = WORKER_ENTRY
                   ) -> tuple[list[tuple[str, Path]], list[str]]:
    """(zip name, file) for every file py.zip carries, sorted: the worker's modules and the data
    files of their packages; and what was left out."""
    modules, _ = worker_modules(root, entry)
    wanted = {_module_file(root, m).relative_to(root).as_posix() for m in modules}
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
            if path.suffix == ".py" and rel.as_posix() not in wanted:
                skipped.append(rel.as_posix())
            elif path.suffix in suffixes:
                entries.append((rel.as_posix(), path))
            elif path.suffix not in (".pyc", ".pyo"):
                skipped.append(rel.as_posix())
    return entries, skipped


def compile_bytecode(zip_bytes: bytes, pyodide_dir: Path, log=print, snapshot: bool = True
                     ) -> tuple[bytes, bytes, dict, bytes | None]:
    """py.zip with every module compiled for Pyodide's CPython, by Pyodide itself under Node.js
    (scripts/compile_site_python.mjs), which also tries the result as the worker does;
    Pyodide's python_stdlib.zip with bytecode for the standard library modules in use (the npm
    package ships them as source, which every page load would compile again); and, with
    `snapshot`, a memory snapshot of Pyodide with the engine imported, which the worker restores
    instead of starting CPython and importing the engine (docs/site.md, "Snapshot")."""
    node = shutil.which("node")
    if node is None:
        raise BuildError("Node.js is not on PATH: it runs Pyodide to compile the site's Python "
                         "for Pyodide's CPython (or pass --sources to ship the .py files)")
    with tempfile.TemporaryDirectory() as tmp:
        sources, compiled = Path(tmp, "sources.zip"), Path(tmp, "compiled.zip")
        stdlib = Path(tmp, "python_stdlib.zip")
        snap = Path(tmp, SNAPSHOT_FILE)
        sources.write_bytes(zip_bytes)
        done = subprocess.run([node, str(COMPILER), str(pyodide_dir.resolve()), str(sources),
                               str(compiled), str(stdlib), *([str(snap)] if snapshot else [])],
                              capture_output=True, text=True, timeout=900)
        if done.returncode != 0 or not compiled.is_file() or not stdlib.is_file():
            raise BuildError("compiling the site's Python with Pyodide failed:\n"
                             + (done.stderr or done.stdout).strip()[-3000:])
        summary = json.loads(done.stdout.strip().splitlines()[-1])
        for tried in (summary.get("tried", {}), summary.get("stdlib", {}).get("tried", {})):
            if (tried.get("hello"), tried.get("run"), tried.get("ok")) != ("hello", "result",
                                                                           True):
                raise BuildError(f"the compiled Python did not answer as the worker needs: "
                                 f"{tried}")
            if tried.get("imported_from_source"):
                raise BuildError("modules imported from source, not bytecode: "
                                 + ", ".join(tried["imported_from_source"]))
        if summary["stdlib"]["tried"].get("stdlib_from_source"):
            raise BuildError("standard library modules the worker uses were still imported "
                             "from source on the compiled python_stdlib.zip")
        if snapshot and (summary.get("snapshot", {}).get("tried") != {"run": "result", "ok": True}
                         or not snap.is_file()):
            raise BuildError(f"the Python snapshot did not restore and answer: {summary.get('snapshot')}")
        return (compiled.read_bytes(), stdlib.read_bytes(), summary,
                snap.read_bytes() if snapshot else None)


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
          root: Path = ROOT, log=print, bytecode: bool = True, snapshot: bool = True) -> dict:
    """Build the site into `out` (replaced as a whole); return the manifest. With `bytecode`
    py.zip holds the worker's modules compiled for Pyodide's CPython, else their sources; with
    `snapshot` (and `bytecode`) the site ships a snapshot of Python with the engine imported."""
    if not bundle.is_file():
        raise BuildError(f"the UI bundle {bundle} is missing: run `node static/build.mjs` "
                         "(after `npm install`) first, or pass --bundle PATH")
    out = out.resolve()
    if out in (root.resolve(), Path(out.anchor)) or root.resolve().is_relative_to(out):
        raise BuildError(f"refusing to build into {out}")
    if out.exists() and any(out.iterdir()) and not (out / "build.json").is_file():
        raise BuildError(f"{out} exists and is not a built site (no build.json): "
                         "choose another --out or remove it")
    page_dir = root / "static" / "site"
    for name in ("index.html", "worker.js", "page.css", SNAPSHOT_READER):
        if not (page_dir / name).is_file():
            raise BuildError(f"{page_dir / name} is missing")
    pyodide_files, pyodide_version, lock_info = find_pyodide(pyodide_dir)
    bokeh_folder, bokeh_version = find_bokeh(bokeh_dir)
    entries, skipped = python_sources(root)
    py_zip, compiled, stdlib, snap = make_zip(entries), None, None, None
    if bytecode:
        py_zip, stdlib, compiled, snap = compile_bytecode(py_zip, pyodide_dir, log, snapshot)
    with zipfile.ZipFile(io.BytesIO(py_zip)) as zf:
        python_files = zf.namelist()

    # Everything but index.html, keyed by its path in the site.
    files: dict[str, bytes] = {
        "site.js": bundle.read_bytes(),
        "worker.js": _fill((page_dir / "worker.js").read_text(encoding="utf-8"), {
            "@BUILD_SNAPSHOT_FILE@": SNAPSHOT_FILE if snap is not None else ""},
            "worker.js").encode("utf-8"),
        "page.css": (page_dir / "page.css").read_bytes(),
        "py.zip": py_zip,
        ".nojekyll": b"",  # GitHub Pages: serve the folder as it is
    }
    # esbuild writes the CSS a bundle imports next to it, with the same stem.
    bundle_css = bundle.with_suffix(".css")
    if bundle_css.is_file():
        files["site.css"] = bundle_css.read_bytes()
    for name in pyodide_files:
        files[f"pyodide/{name}"] = (pyodide_dir / name).read_bytes()
    if stdlib is not None:
        files[f"pyodide/{STDLIB_ZIP}"] = stdlib
    if snap is not None:
        files[SNAPSHOT_FILE] = snap
        files[SNAPSHOT_READER] = (page_dir / SNAPSHOT_READER).read_bytes()
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
        "python_files": python_files,
        # py.zip's modules: compiled by Pyodide's CPython (its version and bytecode magic), or
        # None when the sources are shipped (--sources)
        "bytecode": None if compiled is None else {
            "python": compiled["python"], "magic": compiled["magic"],
            # modules of Pyodide's python_stdlib.zip shipped as bytecode (the rest stay source)
            "stdlib_modules": compiled["stdlib"]["modules"]},
        # the snapshot of Python the worker restores (None: it starts CPython itself)
        # (`bytes`: the file; `memory_bytes`: Pyodide's memory it restores)
        "snapshot": None if snap is None else {
            "path": SNAPSHOT_FILE, "bytes": len(snap),
            "memory_bytes": compiled["snapshot"]["bytes"]},
        "files": [{"path": path, "bytes": len(files[path]), "sha256": _sha256(files[path])}
                  for path in sorted(files)],
        "total_bytes": sum(len(data) for data in files.values()),
    }

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
        log("build_site: left out of py.zip (not imported by the worker, or not source or "
            "data): " + ", ".join(skipped))
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
    parser.add_argument("--sources", action="store_true",
                        help="ship the Python sources instead of compiling them to bytecode "
                             "(compiling runs Pyodide under Node.js)")
    parser.add_argument("--no-snapshot", action="store_true",
                        help="ship no snapshot of Python (a 6 MB file): every visit "
                             "then starts CPython and imports the engine itself")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    try:
        build(args.out, args.bundle, args.pyodide, args.bokeh,
              log=(lambda *a: None) if args.quiet else print, bytecode=not args.sources,
              snapshot=not args.no_snapshot)
    except BuildError as e:
        print(f"build_site: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
