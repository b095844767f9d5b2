// The in-browser engine host: Pyodide core running engine/ and playground/ in a module Web Worker.
//
// Page -> worker: a request as JSON text (docs/host-protocol.md).
// Worker -> page: a reply as JSON text, or a status object {gradplay: "status", phase, ...}
// while Python starts (phases: "python", "engine", "ready", or "fatal").
//
// Every URL here is relative to this file, so the site works under any sub-path. Nothing is
// fetched from anywhere but this site: Pyodide core comes from ./pyodide/, the Python code from
// ./py.zip; no micropip, no loadPackage. The only Python that runs is ours: a program from the
// page (or from a link) is text handed to playground.host, which interprets it from an
// allowlist and never executes it.

const T0 = performance.now();
const HERE = new URL(import.meta.url);
// The page starts us as worker.js?v=<build id>; the same id keeps py.zip from a stale cache.
const BUILD = HERE.searchParams.get("v") || "";
const PYODIDE_DIR = new URL("./pyodide/", HERE).href;
const PY_ZIP = new URL("./py.zip" + (BUILD ? "?v=" + encodeURIComponent(BUILD) : ""), HERE).href;
const EXTRACT_DIR = "/gradplay";

const since = (t) => Math.round((performance.now() - t) * 10) / 10;

const timings = {};
let handle = null; // Python: text -> text, once the engine is loaded
let fatal = null; // a message, once loading has failed
const queue = []; // requests that arrived while loading

// `origin`: when this script began, on the clock every context shares (performance.timeOrigin)
function status(phase, text, extra = {}) {
  self.postMessage({ gradplay: "status", phase, text, at: since(T0), origin: performance.timeOrigin + T0,
                     timings: { ...timings }, ...extra });
}

function requestId(text) {
  try {
    const id = JSON.parse(text).id;
    return typeof id === "number" || typeof id === "string" ? id : null;
  } catch {
    return null;
  }
}

function errorReply(text, kind, message) {
  return JSON.stringify({ type: "error", id: requestId(text), seconds: 0, error: { kind, message } });
}

// The first requests after the start, timed here (the page times the round trip, Python its own
// part): what the worker did for each, and how long it waited to begin. Sent to the page as
// {gradplay: "timings"} after each, until WORKER_TIMED have been answered.
const WORKER_TIMED = 3;
const workerRequests = [];

function answer(text, arrived = performance.now()) {
  if (fatal !== null) {
    self.postMessage(errorReply(text, "internal", "Python did not start in this page: " + fatal));
    return;
  }
  const began = performance.now();
  let reply;
  try {
    reply = typeof text === "string"
      ? handle(text)
      : errorReply(null, "protocol", "a request is JSON text");
  } catch (err) {
    // handle_json answers everything itself; this is Pyodide failing underneath it. Its message
    // is a traceback with this worker's file paths: the reply gets only its last line.
    const last = String((err && err.message) || err).trim().split("\n").pop();
    console.warn("gradplay: the Python host failed:", err);
    reply = errorReply(text, "internal", "the Python host failed: " + last);
  }
  self.postMessage(reply);
  if (workerRequests.length < WORKER_TIMED) {
    workerRequests.push({ wait_ms: Math.round((began - arrived) * 10) / 10, worker_ms: since(began),
                          answered_at: since(T0) });
    self.postMessage({ gradplay: "timings", timings: { worker_requests: workerRequests.slice() } });
  }
  if (onIdle) onIdle();
}

self.onmessage = (event) => {
  if (handle === null && fatal === null) queue.push([event.data, performance.now()]);
  else answer(event.data);
};

// Imports the engine and makes the session's one Host. Returns nothing, so that Python holds no
// reference to a JavaScript object yet and the memory can be saved as a snapshot (below).
const BOOT = `
import os, sys
os.environ["GRADPLAY_BACKEND"] = "pure"  # Pyodide core has no numpy: the engine's pure backend
sys.dont_write_bytecode = True
if ${JSON.stringify(EXTRACT_DIR)} not in sys.path:
    sys.path.insert(0, ${JSON.stringify(EXTRACT_DIR)})
from playground.host import Host, handle_json
_gradplay_host = Host()
def _gradplay_handle(text):
    return handle_json(_gradplay_host, text)
def _gradplay_js_kernels(on):
    # the pure backend's JavaScript kernels: detached while a snapshot is taken (it may hold no
    # JavaScript object), attached again after
    import importlib
    from playground._engine import engine
    importlib.import_module(engine.__name__ + ".backend.pure_backend")._use_js_kernels(on)
    if not on:
        import gc
        gc.collect()
`;

// After a snapshot is restored: a new Host, so the visit starts with none of the previous visit's
// session (its program, its last timeline); and Python's own random module reseeded, which would
// otherwise repeat the numbers of the visit that made the snapshot (the engine seeds each run
// from os.urandom by itself).
const RESUME = `
import random
random.seed()
_gradplay_js_kernels(True)
_gradplay_host = Host()
`;

// A second visit starts from a snapshot of the first visit's Python memory: CPython started, the
// engine imported, and the modules the first requests imported (the gallery, the edits). It is
// taken once the first visit has been idle for a moment after its first requests, never before
// (copying ~30 MB would delay the first graph), and restoring it takes a fraction of Pyodide's
// start (docs/site.md, "Second visit"). It is kept in the browser's Cache API under this site's
// own URL and build id (a new build, or another site on the same origin, never sees it); where
// there is no Cache API (plain http on a host other than localhost) every visit starts afresh.
const SNAPSHOT_CACHE = "gradplay-python-snapshot";
const SNAPSHOT_KEY = new URL("./python-snapshot" + (BUILD ? "?v=" + encodeURIComponent(BUILD) : ""), HERE).href;
const canSnapshot = () => Boolean(BUILD) && typeof caches === "object" && caches !== null;
const SNAPSHOT_AFTER_MS = 2000; // idle time after the last request before the snapshot is taken
const SNAPSHOT_MAX_BYTES = 96 * 1024 * 1024; // a visit that grew Python's memory past this keeps none
let snapshotTimer = null;

// The snapshot the site's build made (scripts/compile_site_python.mjs), with the same modules
// imported: a first visit restores it too. null when the site ships none (built with --sources or
// --no-snapshot); then a visit keeps its own in the Cache API, as below.
// scripts/build_site.py writes the file's name here, or nothing when the site ships none (so no
// request is made for a file that is not there).
const SNAPSHOT_FILE = "@BUILD_SNAPSHOT_FILE@";
const versioned = (path) => new URL(path + (BUILD ? "?v=" + encodeURIComponent(BUILD) : ""), HERE).href;
const BUILT_SNAPSHOT = SNAPSHOT_FILE.startsWith("@") || !SNAPSHOT_FILE ? null : versioned("./" + SNAPSHOT_FILE);

// The built snapshot: a promise of Pyodide's memory, inflated as the file arrives (its pages of
// zeros are left out of it and gzip-compressed: static/site/snapshot-file.js). loadPyodide is
// given the promise, so that Pyodide's own files load and compile meanwhile. Rejects when the
// file cannot be fetched or read.
async function builtSnapshot() {
  const response = fetch(BUILT_SNAPSHOT);
  response.catch(() => {}); // awaited below
  const { readSnapshotFile } = await import(versioned("./snapshot-file.js"));
  const file = await response;
  if (!file.ok) throw new Error(`could not fetch ${SNAPSHOT_FILE} (HTTP ${file.status})`);
  await pyodideAsked;
  return readSnapshotFile(file.body);
}

// Inflating (the snapshot, py.zip's files) runs on this worker's thread: it waits until
// loadPyodide has asked for Pyodide's own files, so that their downloads (and the compiling of
// pyodide.asm.wasm) begin first and the inflating runs alongside them, instead of holding back
// their requests for a tenth of a second or more. Resolved just after loadPyodide is called.
let markPyodideAsked;
const pyodideAsked = new Promise((resolve) => {
  markPyodideAsked = resolve;
});

// The snapshot a previous visit kept: {data: a promise of it} once the Cache API has it, or null.
async function cachedSnapshot() {
  if (!canSnapshot()) return null;
  try {
    const cache = await caches.open(SNAPSHOT_CACHE);
    const hit = await cache.match(SNAPSHOT_KEY);
    return hit ? { data: hit.arrayBuffer().then((buffer) => new Uint8Array(buffer)) } : null;
  } catch {
    return null; // storage refused (private mode, quota): start afresh
  }
}

async function forgetSnapshot() {
  try {
    await (await caches.open(SNAPSHOT_CACHE)).delete(SNAPSHOT_KEY);
  } catch {
    // nothing stored, nothing to forget
  }
}

// Takes the snapshot once no request has come for SNAPSHOT_AFTER_MS (requests are answered
// one at a time, so nothing runs in Python when the timer fires), then stores it.
function snapshotWhenIdle(pyodide) {
  clearTimeout(snapshotTimer);
  snapshotTimer = setTimeout(() => {
    snapshotTimer = null;
    onIdle = null;
    const t = performance.now();
    let snapshot;
    try {
      pyodide.runPython("_gradplay_js_kernels(False)");
      snapshot = pyodide.makeMemorySnapshot();
    } catch (err) {
      console.warn("gradplay: no Python snapshot for the next visit:", err);
      return;
    } finally {
      pyodide.runPython("_gradplay_js_kernels(True)");
    }
    timings.snapshot_ms = since(t);
    timings.snapshot_bytes = snapshot.byteLength;
    if (snapshot.byteLength <= SNAPSHOT_MAX_BYTES) keepSnapshot(snapshot);
  }, SNAPSHOT_AFTER_MS);
}
let onIdle = null; // set while a snapshot is wanted: answer() restarts its timer

// Stores this visit's snapshot, and drops the ones other builds of this site left.
async function keepSnapshot(snapshot) {
  try {
    const cache = await caches.open(SNAPSHOT_CACHE);
    const stale = new URL(SNAPSHOT_KEY);
    stale.search = "";
    for (const request of await cache.keys()) {
      const url = new URL(request.url);
      url.search = "";
      if (url.href === stale.href && request.url !== SNAPSHOT_KEY) await cache.delete(request);
    }
    await cache.put(SNAPSHOT_KEY, new Response(snapshot, { headers: { "Content-Type": "application/octet-stream" } }));
    timings.snapshot_stored = true;
  } catch (err) {
    console.warn("gradplay: could not keep the Python snapshot:", err);
  }
}

async function fetchZip() {
  const response = await fetch(PY_ZIP);
  if (!response.ok) throw new Error(`could not fetch py.zip (HTTP ${response.status})`);
  return response.arrayBuffer();
}

// py.zip's files as [name, bytes], read here while Python starts, so that Python only has to
// import them (its own unpacking imports zipfile, shutil and tempfile first). null where this
// browser cannot inflate (no DecompressionStream) or the zip is not one this reads: then Python
// unpacks it.
async function readZip(buffer) {
  if (typeof DecompressionStream !== "function") return null;
  const view = new DataView(buffer);
  const u16 = (at) => view.getUint16(at, true);
  const u32 = (at) => view.getUint32(at, true);
  let end = buffer.byteLength - 22; // the end-of-central-directory record (and any comment)
  while (end >= 0 && u32(end) !== 0x06054b50) end--;
  if (end < 0) return null;
  const names = new TextDecoder();
  const entries = [];
  for (let i = 0, at = u32(end + 16); i < u16(end + 10); i++) {
    if (u32(at) !== 0x02014b50) return null;
    const method = u16(at + 10);
    const name = names.decode(new Uint8Array(buffer, at + 46, u16(at + 28)));
    const local = u32(at + 42);
    const data = new Uint8Array(buffer, local + 30 + u16(local + 26) + u16(local + 28), u32(at + 20));
    if ((method !== 0 && method !== 8) || name.split("/").includes("..")) return null;
    if (!name.endsWith("/")) entries.push({ name, method, data });
    at += 46 + u16(at + 28) + u16(at + 30) + u16(at + 32);
  }
  return Promise.all(entries.map(async ({ name, method, data }) => {
    if (method === 0) return [name, data];
    const inflated = new Blob([data]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
    return [name, new Uint8Array(await new Response(inflated).arrayBuffer())];
  }));
}

function writeFiles(pyodide, files) {
  for (const [name, data] of files) {
    const path = `${EXTRACT_DIR}/${name}`;
    pyodide.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
    pyodide.FS.writeFile(path, data);
  }
}

// When each of the worker's own requests ended (ms since this script began) and how many bytes
// came over the network (0: from the HTTP cache, or a 304): where a start-up's time went.
function fetchTimes() {
  const out = {};
  for (const entry of performance.getEntriesByType("resource")) {
    const name = new URL(entry.name).pathname.split("/").pop();
    out[name] = { end_at: Math.round(entry.responseEnd - T0), kb: Math.round(entry.transferSize / 1024) };
  }
  return out;
}

async function start() {
  status("python", "Starting Python (Pyodide)");
  // The engine's zip downloads, and is inflated, while Python starts.
  const zip = fetchZip();
  zip.catch(() => {}); // awaited below; keeps an early failure from being "unhandled"
  const files = zip.then(async (buffer) => {
    await pyodideAsked;
    return readZip(buffer);
  }).catch(() => null);

  let t = performance.now();
  // The site's own snapshot if it ships one, else the one a previous visit kept (see above):
  // {kind, data: a promise of it}, read while Pyodide's files load.
  const snapshot = BUILT_SNAPSHOT ? { kind: "built", data: builtSnapshot() }
    : await cachedSnapshot().then((found) => found && { kind: "restored", data: found.data });
  if (snapshot) {
    snapshot.data.then(() => {
      timings.snapshot_read_ms = since(t);
      timings.snapshot_ready_at = since(T0);
    }, () => {});
  }
  const { loadPyodide } = await import("./pyodide/pyodide.mjs");
  timings.pyodide_mjs_at = since(T0);
  // a task, so it runs once loadPyodide (called next) has made its requests and awaits them
  setTimeout(markPyodideAsked, 0);
  const options = {
    indexURL: PYODIDE_DIR,
    packageBaseUrl: PYODIDE_DIR, // nothing is loaded from a package index, least of all a CDN
    env: { HOME: "/home/pyodide", GRADPLAY_BACKEND: "pure" },
    stdout: () => {},
    stderr: (line) => console.warn("gradplay python:", line),
  };
  let pyodide = null;
  let making = false; // this visit takes its own snapshot for the next one
  if (snapshot) {
    try {
      pyodide = await loadPyodide({ ...options, _loadSnapshot: snapshot.data });
      timings.snapshot = snapshot.kind;
    } catch (err) {
      // A snapshot this Pyodide cannot restore: forget it and start Python as on a first visit.
      console.warn("gradplay: starting Python afresh, the snapshot did not restore:", err);
      timings.snapshot = "refused";
      if (snapshot.kind === "restored") await forgetSnapshot();
    }
  }
  if (pyodide === null) {
    making = canSnapshot() && !(snapshot && snapshot.kind === "built");
    pyodide = await loadPyodide({ ...options, _makeSnapshot: making });
  }
  timings.pyodide_ms = since(t);
  timings.pyodide_version = pyodide.version;

  status("engine", "Loading the engine");
  t = performance.now();
  const buffer = await zip;
  const unzipped = await files;
  timings.zip_wait_ms = since(t);
  timings.zip_bytes = buffer.byteLength;
  const unpacking = performance.now();
  // Also after a restore: the modules imported on first use (the gallery, the edits) and the
  // packages' data files are read from here; the snapshot holds memory, not files.
  if (unzipped) writeFiles(pyodide, unzipped);
  else pyodide.unpackArchive(buffer, "zip", { extractDir: EXTRACT_DIR });
  timings.unpack_ms = since(unpacking);
  const restored = timings.snapshot === "restored" || timings.snapshot === "built";
  pyodide.runPython(restored ? RESUME : BOOT);
  handle = pyodide.globals.get("_gradplay_handle");
  timings.engine_ms = since(t);
  timings.python_version = pyodide.runPython("import sys; sys.version.split()[0]");
  timings.ready_ms = since(T0);
  timings.fetched = fetchTimes();

  status("ready", "Ready");
  if (making) {
    onIdle = () => snapshotWhenIdle(pyodide);
    onIdle();
  }
  while (queue.length) answer(...queue.shift());
}

start().catch((err) => {
  // A Python error's message is its traceback: the last line says what went wrong.
  const detail = String((err && err.message) || err).trim();
  fatal = detail.split("\n").filter((line) => line.trim()).pop() || "unknown error";
  timings.failed_ms = since(T0);
  status("fatal", "Python could not start", { message: fatal, detail });
  while (queue.length) answer(...queue.shift());
});
