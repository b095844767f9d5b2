// The browser host's cost of one program, measured in Pyodide under Node.js (the same CPython
// and the same compiled modules as the site's worker, on the pure backend): parse, run,
// timeline and JSON reply through handle_json, with the time limit raised so that the whole run
// is measured. A benchmark, not a test; the browser itself adds the worker's message passing.
//
//     node static/build.mjs && python scripts/build_site.py --out site
//     python bench/bench_programs.py --print-long-loop > /tmp/loop.py
//     node bench/bench_pyodide.mjs site/pyodide site/py.zip /tmp/loop.py

import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, pyZip, programFile] = process.argv.slice(2);
if (!programFile) {
  console.error("usage: node bench/bench_pyodide.mjs PYODIDE_DIR PY.zip PROGRAM.py");
  process.exit(2);
}
const { loadPyodide } = await import(pathToFileURL(resolve(pyodideDir, "pyodide.mjs")).href);
const pyodide = await loadPyodide({ indexURL: resolve(pyodideDir) + "/", stdout: () => {} });
pyodide.FS.writeFile("/py.zip", readFileSync(pyZip));
pyodide.FS.writeFile("/program.py", readFileSync(programFile));
const cpu0 = process.cpuUsage();
const result = pyodide.runPython(`
import json, os, sys, time, zipfile
from dataclasses import replace
os.environ["GRADPLAY_BACKEND"] = "pure"
zipfile.ZipFile("/py.zip").extractall("/gradplay")
sys.path.insert(0, "/gradplay")
from playground.host import Host, handle_json
from playground.limits import default_limits
request = json.dumps({"type": "run", "id": 1, "program": open("/program.py").read()})
host = Host(replace(default_limits(), max_seconds=600.0))
t0 = time.perf_counter()
reply = handle_json(host, request)
seconds = time.perf_counter() - t0
tl = json.loads(reply)["timeline"]
json.dumps({"seconds": round(seconds, 3), "run_seconds": tl["stats"]["run_seconds"],
            "reply_kB": len(reply) // 1000, "steps": tl["stats"]["steps"],
            "events": tl["stats"]["events"], "error": tl["error"] and tl["error"]["message"],
            "python": sys.version.split()[0]})
`);
// CPU seconds of this process during the run: on a loaded machine wall time overstates the cost
const cpu = process.cpuUsage(cpu0);
const stats = JSON.parse(result);
stats.cpu_seconds = Math.round((cpu.user + cpu.system) / 1000) / 1000;
console.log(JSON.stringify(stats));
