// Compiles the in-browser site's Python to bytecode for Pyodide's own CPython, by running that
// very CPython (Pyodide under Node.js), so the magic number and the code objects are the ones
// the browser's worker loads. Called by scripts/build_site.py:
//
//     node scripts/compile_site_python.mjs PYODIDE_DIR SOURCES.zip OUT.zip [STDLIB_OUT.zip [SNAPSHOT_OUT]]
//
// SOURCES.zip holds the modules the worker imports (.py) and their data files; OUT.zip holds
// the same with every module.py replaced by module.pyc (sourceless: Python imports it in place
// of the source; unchecked hash-based, PEP 552, so the same sources give the same bytes). Then
// the compiled zip is tried the way the worker uses it: imported from /gradplay on the pure
// backend, with a `hello` and a `run` answered. Prints a JSON summary on its last line.
//
// With STDLIB_OUT.zip it also writes Pyodide's python_stdlib.zip with bytecode for every module
// of the standard library that Pyodide's start and that trial imported: the npm package ships the
// standard library as source only, so otherwise every page load compiles those modules again
// (most of loadPyodide's time in a browser). The other modules stay source, so the zip grows
// only by what is used. A second Pyodide then starts on the new zip and tries the worker again.
//
// With SNAPSHOT_OUT it also writes a memory snapshot of a third Pyodide, started on the new zip
// exactly as the worker starts it, with the engine imported, one Host made and the modules the
// first requests import (the gallery, the edits) imported too: the worker restores it instead of
// starting CPython and importing the engine (docs/site.md, "Snapshot"), in the file format of
// static/site/snapshot-file.js (its non-zero pages, gzip-compressed). A fourth Pyodide restores it
// from that file, read as the worker reads it, and answers a run, as the worker will.

import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

import { readSnapshotFile, writeSnapshotFile } from "../static/site/snapshot-file.js";

const [pyodideDir, sourcesZip, outZip, stdlibOut, snapshotOut] = process.argv.slice(2);
if (!outZip) {
  console.error("usage: node scripts/compile_site_python.mjs PYODIDE_DIR SOURCES.zip OUT.zip [STDLIB_OUT.zip [SNAPSHOT_OUT]]");
  process.exit(2);
}

const COMPILE = `
import importlib.util, io, json, marshal, sys, zipfile

ZIP_TIME = (1980, 1, 1, 0, 0, 0)
HASH_BASED_UNCHECKED = (1).to_bytes(4, "little")  # PEP 552 flags: hash-based, not checked

def compile_zip(src_path, out_path, where):
    out = io.BytesIO()
    modules = 0
    with zipfile.ZipFile(src_path) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            name, data = info.filename, src.read(info)
            if name.endswith(".py"):
                code = compile(data, f"{where}/{name}", "exec", dont_inherit=True, optimize=0)
                data = (importlib.util.MAGIC_NUMBER + HASH_BASED_UNCHECKED
                        + importlib.util.source_hash(data) + marshal.dumps(code))
                name += "c"
                modules += 1
            entry = zipfile.ZipInfo(name, date_time=ZIP_TIME)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            dst.writestr(entry, data, compresslevel=9)
    with open(out_path, "wb") as f:
        f.write(out.getvalue())
    return {"python": sys.version.split()[0], "magic": importlib.util.MAGIC_NUMBER.hex(),
            "modules": modules}

STDLIB_ZIP = next(p for p in sys.path if p.endswith(".zip"))

def stdlib_in_use():
    """The standard library's modules imported so far from Pyodide's zip as source (not the
    ones frozen into CPython itself, which name the zip as their file too)."""
    return sorted(m.__name__ for m in list(sys.modules.values())
                  if (getattr(m, "__file__", None) or "").startswith(STDLIB_ZIP + "/")
                  and m.__file__.endswith(".py")
                  and getattr(m.__spec__, "origin", None) != "frozen")

def compile_stdlib(src_path, out_path, names):
    wanted, out, modules = set(names), io.BytesIO(), 0
    with zipfile.ZipFile(src_path) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            name, data = info.filename, src.read(info)
            module = name[:-3].removesuffix("/__init__").replace("/", ".")
            if name.endswith(".py") and module in wanted:
                code = compile(data, f"{STDLIB_ZIP}/{name}", "exec", dont_inherit=True, optimize=0)
                data = (importlib.util.MAGIC_NUMBER + HASH_BASED_UNCHECKED
                        + importlib.util.source_hash(data) + marshal.dumps(code))
                name += "c"
                modules += 1
            entry = zipfile.ZipInfo(name, date_time=ZIP_TIME)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = info.external_attr
            dst.writestr(entry, data, compresslevel=9)
    with open(out_path, "wb") as f:
        f.write(out.getvalue())
    return {"modules": modules}
`;

// The worker's own start (static/site/worker.js), on the compiled files alone.
const TRY = `
import json, os, sys, zipfile
os.environ["GRADPLAY_BACKEND"] = "pure"
sys.dont_write_bytecode = True
zipfile.ZipFile("/out.zip").extractall("/gradplay")
sys.path.insert(0, "/gradplay")
from playground.host import Host, handle_json
host = Host()
hello = json.loads(handle_json(host, json.dumps({"type": "hello", "id": 1})))
program = "import torch\\nx = torch.tensor([2.0], requires_grad=True)\\n(x * x).sum().backward()\\n"
run = json.loads(handle_json(host, json.dumps({"type": "run", "id": 2, "program": program})))
example = json.loads(handle_json(host, json.dumps(
    {"type": "example", "id": 3, "example": hello["default_example"]})))
sources = [m.__name__ for m in list(sys.modules.values())
           if (getattr(m, "__file__", None) or "").endswith(".py")
           and m.__file__.startswith("/gradplay/")]
stdlib_sources = [m.__name__ for m in list(sys.modules.values())
                  if (getattr(m, "__file__", None) or "").endswith(".py")
                  and m.__file__.startswith(next(p for p in sys.path if p.endswith(".zip")) + "/")
                  and getattr(m.__spec__, "origin", None) != "frozen"]
json.dumps({"hello": hello["type"], "run": run["type"], "ok": run["timeline"]["ok"],
            "example": example["type"], "imported_from_source": sources,
            "stdlib_from_source": stdlib_sources})
`;

// The worker's BOOT (static/site/worker.js) for the snapshot: the same names (_gradplay_host,
// _gradplay_handle, _gradplay_js_kernels, Host, handle_json), then the first requests a visit
// makes, so that their imports are in the snapshot; then a new Host, so no request's state is in
// it. Python may hold no JavaScript object when the snapshot is taken: the pure backend's
// JavaScript kernels are detached, and the worker attaches them again after restoring it.
const SNAPSHOT_BOOT = `
import gc, json, os, sys, zipfile
os.environ["GRADPLAY_BACKEND"] = "pure"
sys.dont_write_bytecode = True
zipfile.ZipFile("/out.zip").extractall("/gradplay")
if "/gradplay" not in sys.path:
    sys.path.insert(0, "/gradplay")
from playground.host import Host, handle_json
_gradplay_host = Host()
def _gradplay_handle(text):
    return handle_json(_gradplay_host, text)
def _gradplay_js_kernels(on):
    import importlib
    from playground._engine import engine
    importlib.import_module(engine.__name__ + ".backend.pure_backend")._use_js_kernels(on)
    if not on:
        import gc
        gc.collect()
# Each kind of request a visit makes, twice over: their modules are imported, their caches
# filled, and CPython's specialising interpreter has rewritten the bytecode they run (in
# memory, so in the snapshot): a visit's first request then runs as fast as its later ones.
_link = ("import torch\\nw = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)\\n"
         "x = torch.tensor([1.0, 3.0], requires_grad=True)\\nh = (w @ x).tanh()\\n"
         "loss = (h * h).sum()\\nloss.backward()\\n")
for _ in range(2):
    _hello = json.loads(_gradplay_handle(json.dumps({"type": "hello", "id": 1})))
    for _example in (_hello["default_example"], "mlp-sgd"):
        _gradplay_handle(json.dumps({"type": "example", "id": 2, "example": _example}))
    _token = json.loads(_gradplay_handle(json.dumps({"type": "share", "id": 3, "program": _link})))["token"]
    _gradplay_handle(json.dumps({"type": "open", "id": 4, "token": _token}))
    _gradplay_handle(json.dumps({"type": "edit", "id": 5, "program": _link,
                                 "edit": {"op": "add_leaf"}}))
    _gradplay_handle(json.dumps({"type": "run", "id": 6, "program": _link}))
del _hello, _example, _token, _link
os.remove("/out.zip")
_gradplay_host = Host()
_gradplay_js_kernels(False)
gc.collect()
`;
// What the worker runs after restoring a snapshot (its RESUME), then a request.
const RESUMED = `
import json, random
random.seed()
_gradplay_js_kernels(True)
_gradplay_host = Host()
_program = "import torch\\nx = torch.tensor([2.0], requires_grad=True)\\n(x * x).sum().backward()\\n"
_run = json.loads(_gradplay_handle(json.dumps({"type": "run", "id": 1, "program": _program})))
json.dumps({"run": _run["type"], "ok": _run["timeline"]["ok"]})
`;

const { loadPyodide } = await import(pathToFileURL(resolve(pyodideDir, "pyodide.mjs")).href);
const start = (options = {}) => loadPyodide({
  indexURL: resolve(pyodideDir) + "/",
  stdout: () => {},
  stderr: (line) => console.error(line),
  ...options,
});
const pyodide = await start();
pyodide.FS.writeFile("/in.zip", readFileSync(sourcesZip));
pyodide.runPython(COMPILE);
const summary = JSON.parse(pyodide.runPython(`json.dumps(compile_zip("/in.zip", "/out.zip", "/gradplay"))`));
const tried = JSON.parse(pyodide.runPython(TRY));
const compiled = pyodide.FS.readFile("/out.zip");
writeFileSync(outZip, compiled);
if (stdlibOut) {
  const stdlib = JSON.parse(pyodide.runPython(
    `json.dumps(compile_stdlib(STDLIB_ZIP, "/stdlib.zip", stdlib_in_use()))`));
  writeFileSync(stdlibOut, pyodide.FS.readFile("/stdlib.zip"));
  // The worker's start once more, on a Pyodide that reads the new standard library zip.
  const second = await start({ stdLibURL: resolve(stdlibOut) });
  second.FS.writeFile("/out.zip", compiled);
  summary.stdlib = { ...stdlib, tried: JSON.parse(second.runPython(TRY)) };
}
if (snapshotOut) {
  // The worker's options (static/site/worker.js): the same environment in the snapshot.
  const env = { HOME: "/home/pyodide", GRADPLAY_BACKEND: "pure" };
  const third = await start({ stdLibURL: resolve(stdlibOut), env, _makeSnapshot: true });
  third.FS.writeFile("/out.zip", compiled);
  third.runPython(SNAPSHOT_BOOT);
  const snapshot = third.makeMemorySnapshot();
  // the file the site ships: the pages that are not all zeros, gzip-compressed
  const file = await writeSnapshotFile(snapshot);
  writeFileSync(snapshotOut, file);
  // restored from that file, read as the worker reads it
  const fourth = await start({ stdLibURL: resolve(stdlibOut), env,
                               _loadSnapshot: readSnapshotFile(new Blob([file]).stream()) });
  fourth.FS.writeFile("/out.zip", compiled);
  fourth.runPython(`import zipfile; zipfile.ZipFile("/out.zip").extractall("/gradplay")`);
  summary.snapshot = { bytes: snapshot.byteLength, file_bytes: file.byteLength,
                       tried: JSON.parse(fourth.runPython(RESUMED)) };
}
console.log(JSON.stringify({ ...summary, tried }));
