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

function status(phase, text, extra = {}) {
  self.postMessage({ gradplay: "status", phase, text, at: since(T0), timings: { ...timings }, ...extra });
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

function answer(text) {
  if (fatal !== null) {
    self.postMessage(errorReply(text, "internal", "Python did not start in this page: " + fatal));
    return;
  }
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
}

self.onmessage = (event) => {
  if (handle === null && fatal === null) queue.push(event.data);
  else answer(event.data);
};

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
_gradplay_handle
`;

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

async function start() {
  status("python", "Starting Python (Pyodide)");
  // The engine's zip downloads, and is inflated, while Python starts.
  const zip = fetchZip();
  zip.catch(() => {}); // awaited below; keeps an early failure from being "unhandled"
  const files = zip.then(readZip).catch(() => null);

  let t = performance.now();
  const { loadPyodide } = await import("./pyodide/pyodide.mjs");
  const pyodide = await loadPyodide({
    indexURL: PYODIDE_DIR,
    packageBaseUrl: PYODIDE_DIR, // nothing is loaded from a package index, least of all a CDN
    env: { HOME: "/home/pyodide", GRADPLAY_BACKEND: "pure" },
    stdout: () => {},
    stderr: (line) => console.warn("gradplay python:", line),
  });
  timings.pyodide_ms = since(t);
  timings.pyodide_version = pyodide.version;

  status("engine", "Loading the engine");
  t = performance.now();
  const buffer = await zip;
  const unzipped = await files;
  timings.zip_wait_ms = since(t);
  timings.zip_bytes = buffer.byteLength;
  const unpacking = performance.now();
  if (unzipped) writeFiles(pyodide, unzipped);
  else pyodide.unpackArchive(buffer, "zip", { extractDir: EXTRACT_DIR });
  timings.unpack_ms = since(unpacking);
  handle = pyodide.runPython(BOOT);
  timings.engine_ms = since(t);
  timings.python_version = pyodide.runPython("import sys; sys.version.split()[0]");
  timings.ready_ms = since(T0);

  status("ready", "Ready");
  while (queue.length) answer(queue.shift());
}

start().catch((err) => {
  // A Python error's message is its traceback: the last line says what went wrong.
  const detail = String((err && err.message) || err).trim();
  fatal = detail.split("\n").filter((line) => line.trim()).pop() || "unknown error";
  timings.failed_ms = since(T0);
  status("fatal", "Python could not start", { message: fatal, detail });
  while (queue.length) answer(queue.shift());
});
