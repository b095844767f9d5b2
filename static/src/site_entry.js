// The in-browser host page: starts the Pyodide worker, shows honest progress, mounts the UI.
//
// Bundled by static/build.mjs into static/dist/site.js; scripts/build_site.py puts it in the
// site next to index.html, worker.js, pyodide/, py.zip and bokeh/. Every URL here is relative
// to the page, so the site works under any sub-path.

import { deadlineTransport } from "./deadline-transport.js";

// The worker first: Python's start-up (seconds) is what the page waits for. index.html starts it
// before this bundle is even fetched (window.__gradplay_early: the worker, when, and the events
// it sent meanwhile, replayed at the end of this module); without that, it starts here, before
// anything else, the UI's own module code included (imported below, on demand).
const BUILD = document.querySelector('meta[name="gradplay-build"]')?.content || "";
const versioned = (path) => (BUILD && !BUILD.startsWith("@") ? `${path}?v=${encodeURIComponent(BUILD)}` : path);
const early = takeEarlyWorker();
const WORKER_STARTED = early ? early.at : performance.now();
let worker = early ? listen(early.worker) : startWorker();

const round = (ms) => Math.round(ms * 10) / 10;

// What e2e tests and the benchmark read. Times ending in `_at` are on the page's clock
// (ms since navigation start); `_ms` are durations.
const timings = {
  host: "browser",
  build: BUILD,
  worker_start_at: round(WORKER_STARTED),
  requests: [],
};
window.__gradplay_timings = timings;

const BUILD_INFO = readBuildInfo();
const PHASES = {
  page: "Loading the page",
  python: BUILD_INFO.pyodide
    ? `Starting Python (Pyodide ${BUILD_INFO.pyodide}${BUILD_INFO.pyodide_mb ? `, ${BUILD_INFO.pyodide_mb} MB` : ""})`
    : "Starting Python (Pyodide)",
  engine: "Loading the engine",
};

function readBuildInfo() {
  try {
    const text = document.getElementById("gradplay-build-info")?.textContent || "{}";
    return JSON.parse(text);
  } catch {
    return {};
  }
}

// -- progress ---------------------------------------------------------------------------------

const progress = {
  el: document.querySelector('[data-testid="loading"]'),
  phase: "page",
  phaseStarted: performance.now(),
  ticker: null,

  show(phase) {
    if (!this.el) return;
    this.phase = phase;
    this.phaseStarted = performance.now();
    let reached = false;
    for (const li of this.el.querySelectorAll("[data-phase]")) {
      const current = li.dataset.phase === phase;
      if (current) reached = true;
      li.classList.toggle("is-active", current);
      li.classList.toggle("is-done", !reached);
    }
    const text = this.el.querySelector('[data-testid="loading-phase"]');
    if (text) text.textContent = PHASES[phase] || phase;
    this.tick();
    if (!this.ticker) this.ticker = setInterval(() => this.tick(), 100);
  },

  tick() {
    const time = this.el?.querySelector('[data-testid="loading-time"]');
    if (!time) return;
    const phase = (performance.now() - this.phaseStarted) / 1000;
    const total = (performance.now() - WORKER_STARTED) / 1000;
    time.textContent = `${phase.toFixed(1)} s in this step, ${total.toFixed(1)} s in all`;
  },

  done() {
    clearInterval(this.ticker);
    this.ticker = null;
    this.el?.remove();
    this.el = null;
  },

  fail(message, detail) {
    clearInterval(this.ticker);
    this.ticker = null;
    const card = this.el?.querySelector(".site-loading-card");
    if (!card) return;
    this.el.setAttribute("role", "alert");
    this.el.dataset.state = "fatal";
    card.querySelector(`[data-phase="${this.phase}"]`)?.classList.add("is-failed");
    const text = card.querySelector('[data-testid="loading-phase"]');
    if (text) text.textContent = `${PHASES[this.phase] || this.phase} failed:`;
    const shown = document.createElement("pre");
    shown.className = "site-fatal";
    shown.dataset.testid = "fatal";
    shown.textContent = message;
    card.append(shown);
    if (detail && detail !== message) {
      const more = document.createElement("details");
      const summary = document.createElement("summary");
      summary.textContent = "Details";
      const pre = document.createElement("pre");
      pre.className = "site-fatal-detail";
      pre.textContent = detail;
      more.append(summary, pre);
      card.append(more);
    }
    const hint = document.createElement("div");
    hint.className = "site-fatal-hint";
    hint.textContent =
      location.protocol === "file:"
        ? "This page must be served over http (file:// cannot load Python): run `python scripts/serve_site.py`."
        : "Reload the page to try again.";
    card.append(hint);
  },
};

for (const li of progress.el?.querySelectorAll("[data-phase]") || []) {
  li.textContent = PHASES[li.dataset.phase] || li.textContent;
}
progress.show("page");

// -- the host: requests over postMessage ------------------------------------------------------

// static/src/host.js gives ids, matches replies and times out an unanswered request. Requests
// wait here until Python can answer (the worker would queue them too), so that timeout counts
// from then, however long the download takes. The transport gives each request a deadline and
// replaces a worker that overruns it (deadline-transport.js).
const transport = deadlineTransport({
  post: (text) => worker.postMessage(text),
  restart: restartWorker,
  onOverrun: (msg, ms) => {
    timings.restarts = (timings.restarts || 0) + 1;
    console.warn(`gradplay: a '${msg.type}' request ran past ${ms / 1000} s; restarting Python`);
  },
});
let markReady;
const whenReady = new Promise((resolve) => {
  markReady = resolve;
});
const DEADLINE_MARGIN_S = 5; // beyond the host's time limit: recording and encoding the reply
let restarted = null; // resolves when a replacement worker is ready
let gone = null; // why the worker cannot answer at all (its script did not load)

function errorReply(msg, message) {
  return { type: "error", id: msg?.id ?? null, seconds: 0, error: { kind: "internal", message } };
}

function browserHost(createHost) {
  const inner = createHost(transport);
  return {
    async request(msg) {
      await whenReady;
      if (gone !== null) return errorReply(msg, `Python did not start in this page: ${gone}`);
      const sent = performance.now();
      const reply = await inner.request(msg);
      record(msg, reply, sent);
      const seconds = reply?.type === "hello" ? reply.limits?.max_seconds : undefined;
      if (seconds) transport.setDeadline((seconds + DEADLINE_MARGIN_S) * 1000);
      return reply;
    },
    dispose: () => inner.dispose(),
  };
}

function record(msg, reply, sent) {
  const now = performance.now();
  const ms = round(now - sent);
  const real = reply?.type === "stale" ? reply.reply : reply; // stale: answered, not drawn
  const hostMs = typeof real?.seconds === "number" ? round(real.seconds * 1000) : null;
  timings.requests.push({ type: msg?.type, reply: reply?.type, ms, host_ms: hostMs, at: round(now) });
  if (timings.requests.length > 200) timings.requests.shift();
  if (timings.first_reply_at === undefined) timings.first_reply_at = round(now);
  if (msg?.type) timings[`last_${msg.type}_ms`] = ms;
  if (reply?.type === "result" && timings.first_result_at === undefined) firstGraph(now);
}

function firstGraph(now) {
  timings.first_result_at = round(now);
  // The UI draws a reply when its promise settles; two frames later it is on screen.
  requestAnimationFrame(() =>
    requestAnimationFrame(() => {
      timings.first_graph_at = round(performance.now());
      timings.first_draw_ms = round(timings.first_graph_at - timings.first_result_at);
      if (timings.ready_at !== undefined) {
        timings.first_graph_ms = round(timings.first_graph_at - timings.ready_at);
        // from the moment loadPyodide resolved: the engine's loading counts too
        timings.first_graph_after_pyodide_ms = round(timings.first_graph_ms + (timings.engine_ms || 0));
      }
      timings.first_graph_since_start_ms = round(timings.first_graph_at - WORKER_STARTED);
      console.info("gradplay timings:", JSON.stringify(summary()));
    }),
  );
}

function summary() {
  const { requests, ...rest } = timings;
  return { ...rest, requests: requests.length };
}

// Python could not start. After a "fatal" status the worker still answers every request (with
// an error reply); when the worker itself is gone, the page answers for it.
function die(message, detail, workerGone) {
  if (timings.fatal !== undefined) return;
  timings.fatal = message;
  if (workerGone) gone = message;
  progress.fail(message, detail);
  console.error("gradplay: Python could not start:", detail || message);
  markReady();
}

function startWorker() {
  return listen(new Worker(versioned("worker.js"), { type: "module" }));
}

function listen(w) {
  w.onmessage = onWorkerMessage;
  w.onerror = onWorkerError;
  w.onmessageerror = onWorkerMessageError;
  return w;
}

function onWorkerMessageError() {
  console.warn("gradplay: a message from the worker could not be read");
}

// The worker index.html started, if it did: {worker, at, events}.
function takeEarlyWorker() {
  const found = window.__gradplay_early;
  delete window.__gradplay_early;
  return found?.worker ? found : null;
}

// What the early worker said before this module listened, in order. Called once this module's
// state exists; no event can come in between (they are tasks, this module runs as one).
function replayEarlyEvents(events) {
  const handlers = { message: onWorkerMessage, error: onWorkerError, messageerror: onWorkerMessageError };
  for (const event of events) handlers[event.type]?.(event);
}

// A worker that overran a request's deadline: terminate it, start another, resolve when it is
// ready (its start-up is Pyodide's again, a few seconds).
function restartWorker() {
  worker.terminate();
  return new Promise((resolve) => {
    restarted = resolve;
    worker = startWorker();
  });
}

function onWorkerMessage(event) {
  const data = event.data;
  if (typeof data === "string") {
    transport.receive(data);
    return;
  }
  if (data?.gradplay === "timings") {
    Object.assign(timings, data.timings); // the worker's own times of the first requests
    return;
  }
  if (!data || data.gradplay !== "status") return;
  if (restarted) {
    if (data.phase === "ready" || data.phase === "fatal") {
      restarted();
      restarted = null;
    }
    return;
  }
  Object.assign(timings, data.timings);
  if (typeof data.origin === "number") timings.worker_script_at = round(data.origin - performance.timeOrigin);
  if (data.phase === "ready") {
    timings.ready_at = round(performance.now());
    timings.ready_since_start_ms = round(timings.ready_at - WORKER_STARTED);
    progress.done();
    markReady();
    console.info("gradplay: Python is ready:", JSON.stringify(summary()));
  } else if (data.phase === "fatal") {
    die(data.message || data.text, data.detail, false);
  } else {
    progress.show(data.phase);
  }
}

function onWorkerError(event) {
  event.preventDefault?.();
  if (timings.ready_at === undefined) {
    die(event.message || "the worker could not be started (its script did not load)", null, true);
  } else {
    console.error("gradplay: an error in the worker:", event.message);
  }
}

// -- the UI -----------------------------------------------------------------------------------

const BOKEH = {
  // BokehJS, loaded by the UI only when it draws a plot; the API needs the core first.
  bokehUrl: versioned("bokeh/bokeh.min.js"),
  bokehApiUrl: versioned("bokeh/bokeh-api.min.js"),
};

async function mount() {
  const el = document.getElementById("app");
  const [{ createHost }, { mountPlayground }] = await Promise.all([import("./host.js"), import("./ui.js")]);
  const host = browserHost(createHost);
  // The UI reads location.hash (#p=<token>&s=<step>) itself; its first requests wait until
  // Python is ready.
  const ui = mountPlayground(el, host, { hostKind: "browser", ...BOKEH });
  timings.ui_mounted_at = round(performance.now());
  return { ui, host };
}

if (early) replayEarlyEvents(early.events);

mount().catch((err) => {
  console.error("gradplay: the UI could not be mounted:", err);
});
