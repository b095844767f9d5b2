// The browser host's cost of one program, measured in Pyodide under Node.js (the same CPython
// and the same compiled modules as the site's worker, on the pure backend): parse, run,
// timeline and JSON reply through handle_json, with the time limit raised so that the whole run
// is measured. A benchmark, not a test; the browser itself adds the worker's message passing
// (bench/bench_browser_loop.py measures the page).
//
//     node static/build.mjs && python scripts/build_site.py --out site
//     python bench/bench_programs.py --print-long-loop > /tmp/loop.py
//     node bench/bench_pyodide.mjs site/pyodide site/py.zip /tmp/loop.py [REPEATS]
//
// Each of REPEATS runs (default 1) is timed on its own, after one warm-up run when REPEATS > 1:
// the wall time of handle_json, and the CPU time of this process meanwhile (on a loaded machine
// the wall time overstates the cost; the minimum of several runs is the better estimate).

import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, pyZip, programFile, repeatsArg] = process.argv.slice(2);
if (!programFile) {
  console.error("usage: node bench/bench_pyodide.mjs PYODIDE_DIR PY.zip PROGRAM.py [REPEATS]");
  process.exit(2);
}
const repeats = Math.max(1, Number(repeatsArg || 1));
const { loadPyodide } = await import(pathToFileURL(resolve(pyodideDir, "pyodide.mjs")).href);
const pyodide = await loadPyodide({ indexURL: resolve(pyodideDir) + "/", stdout: () => {} });
pyodide.FS.writeFile("/py.zip", readFileSync(pyZip));
pyodide.FS.writeFile("/program.py", readFileSync(programFile));
pyodide.runPython(`
import json, os, sys, time, zipfile
from dataclasses import replace
os.environ["GRADPLAY_BACKEND"] = "pure"
zipfile.ZipFile("/py.zip").extractall("/gradplay")
sys.path.insert(0, "/gradplay")
from playground.host import Host, handle_json
from playground.limits import default_limits
request = json.dumps({"type": "run", "id": 1, "program": open("/program.py").read()})

def one_run():
    host = Host(replace(default_limits(), max_seconds=600.0))
    t0 = time.perf_counter()
    reply = handle_json(host, request)
    seconds = time.perf_counter() - t0
    tl = json.loads(reply)["timeline"]
    return json.dumps({"seconds": round(seconds, 3), "run_seconds": tl["stats"]["run_seconds"],
                       "reply_kB": len(reply) // 1000, "steps": tl["stats"]["steps"],
                       "events": tl["stats"]["events"],
                       "error": tl["error"] and tl["error"]["message"],
                       "python": sys.version.split()[0]})
`);
const runs = [];
for (let i = 0; i < (repeats > 1 ? repeats + 1 : 1); i++) {
  const cpu0 = process.cpuUsage();
  const stats = JSON.parse(pyodide.runPython("one_run()"));
  const cpu = process.cpuUsage(cpu0);
  stats.cpu_seconds = Math.round((cpu.user + cpu.system) / 1000) / 1000;
  if (repeats === 1 || i > 0) runs.push(stats); // the first of several warms up
}
if (repeats === 1) {
  console.log(JSON.stringify(runs[0]));
} else {
  const min = (key) => Math.min(...runs.map((r) => r[key]));
  const median = (key) => runs.map((r) => r[key]).sort((a, b) => a - b)[Math.floor(runs.length / 2)];
  const { seconds, run_seconds, cpu_seconds, ...rest } = runs[runs.length - 1];
  console.log(JSON.stringify({
    ...rest, repeats,
    seconds_min: min("seconds"), seconds_median: median("seconds"),
    run_seconds_min: min("run_seconds"), cpu_seconds_min: min("cpu_seconds"),
  }));
}
