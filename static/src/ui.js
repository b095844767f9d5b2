// The playground UI: mountPlayground(el, host, options) wires the panes to an engine host (the same in both hosts).
//
// Python owns programs, edits and timelines; this module owns view state only: the layout,
// the selection, the view (tensors or autograd), and the moment shown on the timeline.

import { h, clear, richText, icon } from "./dom.js";
import { injectStyles } from "./styles.js";
import {
  buildIndex,
  stateAt,
  advance,
  emptyChanges,
  initialMoment,
  momentOfStep,
  stepOfMoment,
  momentOfLines,
  consoleAt,
  errorText,
} from "./timeline-state.js";
import { buildGraph, defaultTarget, numel } from "./graph-model.js";
import { layoutPositions } from "./layout.js";
import { createGraphView } from "./graph-view.js";
import { createCodePane } from "./code-pane.js";
import { createInspector } from "./inspector.js";
import { createLossPanel } from "./loss-panel.js";
import { createBuildPanel } from "./build-panel.js";
import { createActions } from "./actions.js";
import { createPlayer, SPEEDS, timeScaleFor } from "./player.js";
import { parseHash, formatHash, shareLink } from "./link.js";
import { programOfToken } from "./share-token.js";
import { shortValue } from "./format.js";

const RUN_DEBOUNCE_MS = 250;
const EMPTY_PROGRAM = "import torch\n";
// An edit is played from its new line to the end when that is short; a long tail (a training
// loop after the edit) would take minutes at 1x, so the view jumps to the end instead.
const AUTOPLAY_MAX_EVENTS = 240;

/** Resolves after the browser's next frame is drawn, or after `ms` if none comes (a hidden tab). */
function afterNextPaint(ms = 250) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    requestAnimationFrame(() =>
      setTimeout(() => {
        clearTimeout(timer);
        resolve();
      }, 0),
    );
  });
}

/**
 * Mounts the playground in `el`. `host.request(msg)` returns a Promise of the reply
 * (static/src/host.js). Options: hostKind ("server" | "browser"), bokehApiUrl, bokehUrl,
 * program (start with this program instead of the default example), syncUrl (read the link
 * from the address's hash at start and keep it updated; off when embedded in a notebook),
 * location/history (tests).
 */
export function mountPlayground(el, host, options = {}) {
  const opts = { hostKind: "server", bokehApiUrl: null, bokehUrl: null, program: null, syncUrl: true, ...options };
  const loc = opts.location || window.location;
  const hist = opts.history || window.history;

  // -- state ----------------------------------------------------------------------------------
  let destroyed = false;
  let hello = null;
  let program = "";
  let token = null;
  let idx = null;
  let graph = null;
  let view = "tensors";
  const positions = new Map(); // drawn node id -> centre; ids are unique across both views
  const fitted = new Set(); // views already fitted once for this program family
  let autoFit = true; // until the person pans or zooms, a resize refits
  let selection = [];
  let st = null; // timeline state at the moment shown
  let pending = emptyChanges();
  let runTimer = null;
  let busy = 0;
  let bannerDismissed = null;
  let lastHash = "";
  let hashTimer = null;
  let example = null;
  let exampleProgram = null;
  let staleError = null; // a program that does not parse while the last graph stays on screen
  let lastConsoleCount = -1;
  let lastStepLines = "";
  let inspectorTimer = null;
  let consoleScroll = 0; // a frame asked for, to scroll the console to its end
  let playingNow = false;
  let autoplaying = false; // an edit's new step is being played (the reply is still being shown)
  let timeScale = 1;
  let drawnCount = 0; // replies drawn, for tests that wait for the next one (data-results)

  // -- layout ---------------------------------------------------------------------------------
  clear(el);
  const root = h("div", {
    class: "gp-root",
    "data-testid": "playground",
    "data-host": opts.hostKind,
    "data-busy": "false",
    "data-pending": "false",
    "data-results": "0",
  });
  injectStyles(root);
  el.append(root);

  const examplesSel = h(
    "select",
    { class: "gp-select", "data-testid": "examples", "aria-label": "examples" },
    h("option", { value: "" }, "Examples…"),
  );
  const runBtn = h(
    "button",
    { type: "button", class: "gp-btn", "data-testid": "run", title: "Run the program now (Ctrl+Enter)" },
    "Run",
  );
  const newBtn = h(
    "button",
    {
      type: "button",
      class: "gp-btn",
      "data-testid": "new",
      title: "Start an empty program and build a graph by clicking",
    },
    "New",
  );
  const viewBtn = h(
    "button",
    {
      type: "button",
      class: "gp-btn",
      "data-testid": "view-toggle",
      "aria-pressed": "false",
      "data-view": "tensors",
      title: "Switch between tensors and autograd nodes",
    },
    "View: tensors",
  );
  const shareBtn = h("button", { type: "button", class: "gp-btn", "data-testid": "share" }, "Share");
  const shareField = h("input", {
    type: "text",
    readonly: true,
    class: "gp-input mono gp-share-link",
    "data-testid": "share-link",
    "aria-label": "share link",
    hidden: true,
  });
  // The same link opens in the other host (docs/host-protocol.md, "The link"): the server app
  // offers the in-browser site it serves beside itself, kept pointing at what is on screen.
  const otherHost = opts.otherHostUrl
    ? h(
        "a",
        {
          class: "gp-btn",
          "data-testid": "other-host",
          href: opts.otherHostUrl,
          target: "_blank",
          rel: "noopener",
          title: "Open this program in the in-browser version (Python runs in your browser, no server)",
        },
        opts.otherHostLabel || "Open in the browser version",
      )
    : null;
  const status = h(
    "span",
    { class: "gp-badge", "data-testid": "host-status" },
    opts.hostKind === "browser" ? "Python in your browser" : "Python on the server",
  );
  const top = h(
    "header",
    { class: "gp-top" },
    h(
      "div",
      { class: "gp-brand" },
      h("b", null, "grad", h("span", null, "play")),
      h("small", null, "watch autograd fill every .grad"),
    ),
    examplesSel,
    newBtn,
    runBtn,
    viewBtn,
    h("span", { class: "gp-spacer" }),
    shareField,
    shareBtn,
    otherHost,
    status,
  );

  const explanation = h("section", { class: "gp-explanation", "data-testid": "explanation", hidden: true });
  const codeBox = h("div", { class: "gp-code", "data-testid": "code" });
  const consoleEl = h("pre", {
    class: "gp-console",
    "data-testid": "console",
    "aria-live": "polite",
    "aria-label": "console",
  });
  const left = h(
    "div",
    { class: "gp-left" },
    explanation,
    h(
      "div",
      { class: "gp-pane-head" },
      "Program",
      h("span", { class: "gp-spacer" }),
      h(
        "span",
        { class: "gp-muted small", style: { textTransform: "none", fontWeight: "400" } },
        "edits run as you type",
      ),
    ),
    codeBox,
    h("div", { class: "gp-pane-head" }, "Console"),
    consoleEl,
  );

  const actionsEl = h("div", { class: "gp-actions", "data-testid": "actions" });
  const canvas = h("div", { class: "gp-canvas" });
  const banner = h("div", { class: "gp-banner", "data-testid": "error", role: "alert", hidden: true });
  const info = h("div", { class: "gp-info", "data-testid": "info", hidden: true });
  const emptyGraph = h(
    "div",
    { class: "gp-empty-graph", hidden: true },
    "No tensors yet: add a leaf, or type a program.",
  );
  const zoom = h(
    "div",
    { class: "gp-zoom" },
    h(
      "button",
      {
        type: "button",
        class: "gp-btn icon",
        "aria-label": "zoom in",
        title: "Zoom in",
        onclick: () => {
          autoFit = false;
          graphView.zoomBy(1.25);
        },
      },
      "+",
    ),
    h(
      "button",
      {
        type: "button",
        class: "gp-btn icon",
        "aria-label": "zoom out",
        title: "Zoom out",
        onclick: () => {
          autoFit = false;
          graphView.zoomBy(0.8);
        },
      },
      "−",
    ),
    h(
      "button",
      {
        type: "button",
        class: "gp-btn",
        "data-testid": "fit",
        "aria-label": "fit the graph in view",
        onclick: () => {
          autoFit = true;
          graphView.fit();
        },
      },
      "Fit",
    ),
  );
  const legend = h("div", { class: "gp-legend", "data-testid": "legend" });
  canvas.append(banner, info, emptyGraph, zoom, legend);

  const playLabel = h("span", null, "Play");
  const playIcon = h("span", { class: "gp-icon-box" }, icon("play"));
  const playBtn = h(
    "button",
    {
      type: "button",
      class: "gp-btn primary play",
      "data-testid": "play",
      "data-playing": "false",
      "aria-label": "play",
      title: "Play / pause (space)",
    },
    playIcon,
    playLabel,
  );
  const backBtn = h(
    "button",
    {
      type: "button",
      class: "gp-btn icon",
      "data-testid": "step-back",
      "aria-label": "step back",
      title: "Step back (←)",
    },
    icon("back"),
  );
  const fwdBtn = h(
    "button",
    {
      type: "button",
      class: "gp-btn icon",
      "data-testid": "step-forward",
      "aria-label": "step forward",
      title: "Step forward (→)",
    },
    icon("forward"),
  );
  const startBtn = h(
    "button",
    {
      type: "button",
      class: "gp-btn icon",
      "data-testid": "to-start",
      "aria-label": "go to the start",
      title: "Start (Home)",
    },
    icon("start"),
  );
  const endBtn = h(
    "button",
    {
      type: "button",
      class: "gp-btn icon",
      "data-testid": "to-end",
      "aria-label": "go to the end",
      title: "End (End)",
    },
    icon("end"),
  );
  const scrub = h("input", {
    type: "range",
    class: "gp-scrub",
    "data-testid": "scrub",
    min: 0,
    max: 0,
    step: 1,
    value: 0,
    "aria-label": "moment on the timeline",
  });
  const speedSel = h(
    "select",
    { class: "gp-select", "data-testid": "speed", "aria-label": "playback speed" },
    SPEEDS.map((x) => h("option", { value: x, selected: x === 1 }, `${x}×`)),
  );
  const moment = h("span", { class: "gp-moment", "data-testid": "moment" });
  const player = h(
    "div",
    { class: "gp-player", "data-testid": "player" },
    startBtn,
    backBtn,
    playBtn,
    fwdBtn,
    endBtn,
    scrub,
    speedSel,
    moment,
  );

  const center = h("div", { class: "gp-center" }, actionsEl, canvas, player);
  const buildEl = h("div", { class: "gp-build", "data-testid": "build" });
  const inspectorEl = h("div", { class: "gp-inspect" });
  const right = h("aside", { class: "gp-right" }, buildEl, inspectorEl);
  const app = h("div", { class: "gp-app" }, top, h("div", { class: "gp-main" }, left, center, right));
  root.append(app);

  // -- components -----------------------------------------------------------------------------
  const graphView = createGraphView(canvas, {
    onSelect: (id, { additive }) => select(id, additive),
    onBackground: () => setSelection([]),
    onNodeMoved: () => {
      autoFit = false;
    },
    onResize: () => {
      if (autoFit && graph) graphView.fit();
    },
  });
  const code = createCodePane(codeBox, { onChange: scheduleRun, onRunShortcut: runNow });
  const inspector = createInspector(inspectorEl, {
    onEdit: edit,
    plotOptions: { bokehApiUrl: opts.bokehApiUrl, bokehUrl: opts.bokehUrl },
  });
  // a training loop's loss, under the console (what it printed) in the program's column
  const lossPanel = createLossPanel(left, { plotOptions: { bokehApiUrl: opts.bokehApiUrl, bokehUrl: opts.bokehUrl } });
  const buildPanel = createBuildPanel(buildEl, { onEdit: edit });
  const actions = createActions(actionsEl, { onEdit: edit });

  const clock = {
    now: () => performance.now(),
    request: (fn) => requestAnimationFrame(fn),
    cancel: (hnd) => cancelAnimationFrame(hnd),
  };
  const playerCtl = createPlayer({
    getCount: () => idx?.count ?? 0,
    getEvent: (i) => idx?.events[i],
    onAdvance: () => {
      if (!idx) return;
      advance(idx, st, pending);
    },
    onSeek: (p) => {
      if (!idx) return;
      st = stateAt(idx, p);
      pending = emptyChanges();
      pending.all = true;
    },
    onFrame: (p, frac) => drawFrame(frac),
    getTimeScale: () => timeScale,
    onPlayState: (on) => {
      playingNow = on;
      if (!on && autoplaying) {
        autoplaying = false;
        showBusy();
      }
      playLabel.textContent = on ? "Pause" : "Play";
      playIcon.replaceChildren(icon(on ? "pause" : "play"));
      playBtn.setAttribute("aria-label", on ? "pause" : "play");
      playBtn.dataset.playing = on ? "true" : "false";
      if (!on) scheduleHash();
    },
    clock,
  });

  // -- drawing a moment -----------------------------------------------------------------------

  function drawFrame(frac) {
    if (!idx || !st) return;
    const ch = pending;
    pending = emptyChanges();
    graphView.render(idx, st, ch.all ? null : ch, { animate: !ch.all });
    // while playing, the camera follows the node that runs when it leaves the screen
    if (playingNow && st.running.size) {
      const n = [...st.running][st.running.size - 1];
      const id = view === "tensors" ? idx.tensorOfNode.get(n) : n;
      if (id) graphView.follow(id);
    }
    // the gradient in flight: the last event was a gradient sent along an edge
    const last = st.pos > 0 ? idx.events[st.pos - 1] : null;
    if (last && last.event === "edge" && frac < 1) {
      graphView.setFlight(st.lastEdge, frac, last.gradient == null ? "None" : shortValue(last.gradient, 16));
    } else {
      graphView.setFlight(null, 1);
    }
    updateMomentUI();
  }

  let shownPos = -1;
  let shownCount = -1;

  function updateMomentUI() {
    const p = st.pos;
    // called every animation frame: the DOM is touched only when the moment changed
    if (p === shownPos && idx.count === shownCount) return;
    shownPos = p;
    shownCount = idx.count;
    scrub.max = String(idx.count);
    if (Number(scrub.value) !== p) scrub.value = String(p);
    scrub.setAttribute("aria-valuetext", `event ${p} of ${idx.count}`);
    const s = stepOfMoment(idx, p);
    const step = idx.steps[s];
    clear(moment);
    if (step) {
      moment.append(
        `event ${p}/${idx.count} · line ${step.line} `,
        h("code", null, (step.text || "").split("\n")[0].slice(0, 60)),
      );
    } else {
      moment.append(`event ${p}/${idx.count}`);
    }
    moment.dataset.pos = String(p);
    moment.dataset.step = String(s);
    // the statement being run, in the program pane
    const lines = stepLinesAt(p);
    const key = lines.join(",");
    if (key !== lastStepLines) {
      lastStepLines = key;
      code.setStepLines(lines);
    }
    drawConsole();
    lossPanel.setMoment(p);
    backBtn.disabled = p <= 0;
    startBtn.disabled = p <= 0;
    fwdBtn.disabled = p >= idx.count;
    endBtn.disabled = p >= idx.count;
    // the inspector follows the moment; while playing, a few times a second is enough
    if (playingNow) {
      if (!inspectorTimer)
        inspectorTimer = setTimeout(() => {
          inspectorTimer = null;
          drawInspector();
        }, 150);
    } else {
      clearTimeout(inspectorTimer);
      inspectorTimer = null;
      drawInspector();
      scheduleHash();
    }
  }

  /** The program's lines of the statement run at moment p (none before the first event). */
  function stepLinesAt(p) {
    const step = idx.steps[stepOfMoment(idx, p)];
    const lines = [];
    if (step && p > 0) for (let l = step.line; l <= (step.end_line ?? step.line); l++) lines.push(l);
    return lines;
  }

  function drawConsole() {
    const items = consoleAt(idx, st.pos);
    const err = idx.timeline.error;
    // errors found before the run (syntax, not allowed) have no step: they show at once
    const early = (err && !idx.consoleItems.some((c) => c.kind === "error")) || staleError ? 1 : 0;
    const n = items.length + early * 1000;
    if (n === lastConsoleCount) return;
    lastConsoleCount = n;
    clear(consoleEl);
    // class names of their own: Panel's page styles reach into the shadow root (".error")
    for (const it of items) consoleEl.append(h("span", { class: `gp-c-${it.kind}`, "data-kind": it.kind }, it.text));
    if (early)
      consoleEl.append(h("span", { class: "gp-c-error", "data-kind": "error" }, errorText(staleError || err) + "\n"));
    if (!consoleEl.childNodes.length)
      consoleEl.append(
        h(
          "span",
          { class: "gp-c-empty" },
          idx.consoleItems.length ? "(nothing printed yet at this moment)" : "(nothing printed)",
        ),
      );
    // scrolled to the end in the next frame: scrolling now would make the browser lay out the
    // page (a new graph's every card) in the middle of drawing it
    if (!consoleScroll) {
      consoleScroll = requestAnimationFrame(() => {
        consoleScroll = 0;
        if (!destroyed) consoleEl.scrollTop = consoleEl.scrollHeight;
      });
    }
  }

  function drawInspector() {
    if (!idx || !st) return;
    const id = selection[selection.length - 1];
    const gnode = id ? graph.nodes.find((n) => n.id === id) : null;
    inspector.show(gnode ? { idx, state: st, gnode, view } : null);
  }

  // -- selection and targets ------------------------------------------------------------------

  function select(id, additive) {
    if (additive) {
      const i = selection.indexOf(id);
      setSelection(i >= 0 ? selection.filter((x) => x !== id) : [...selection, id]);
    } else {
      setSelection([id]);
    }
  }

  function setSelection(ids) {
    selection = ids.filter((id) => graph?.nodes.some((n) => n.id === id));
    graphView.setSelection(selection);
    updateTargets();
    drawInspector();
  }

  function tensorEntryOf(id) {
    const n = graph?.nodes.find((g) => g.id === id);
    return n?.tensor ? idx.tensors.get(n.tensor) : null;
  }

  function updateTargets() {
    if (!idx) return;
    const names = selection.map((id) => tensorEntryOf(id)?.name).filter(Boolean);
    buildPanel.update({ inputs: names });
    let tid = selection.length ? graph.nodes.find((n) => n.id === selection[selection.length - 1])?.tensor : null;
    const isDefault = !selection.length;
    if (isDefault) tid = defaultTarget(idx);
    const t = tid ? idx.tensors.get(tid) : null;
    if (!t) {
      actions.update(null);
      return;
    }
    const stmt = (idx.timeline.statements || []).find((s) => s.line <= t.line && t.line <= (s.end_line ?? s.line));
    actions.update({
      name: t.name,
      label: t.name || "(unnamed)",
      isDefault,
      scalar: numel(t.shape) === 1,
      numel: numel(t.shape),
      shape: t.shape,
      line: stmt?.line ?? t.line,
      endLine: stmt?.end_line ?? t.line,
    });
  }

  // -- the host -------------------------------------------------------------------------------

  // data-busy: a request is out or an edit is still being played; data-pending: typing has a
  // run waiting for its debounce; data-results: how many replies have been drawn. Tests (and
  // anything driving the UI) wait on these instead of on time.
  function setBusy(delta) {
    busy += delta;
    showBusy();
  }

  function showBusy() {
    status.classList.toggle("busy", busy > 0);
    root.dataset.busy = busy > 0 || autoplaying ? "true" : "false";
  }

  function setPending(on) {
    root.dataset.pending = on ? "true" : "false";
  }

  function markDrawn() {
    drawnCount += 1;
    root.dataset.results = String(drawnCount);
  }

  async function ask(msg) {
    setBusy(1);
    try {
      return await host.request(msg);
    } catch (e) {
      if (!destroyed) showBanner({ title: "The engine host did not answer", message: String(e?.message || e) });
      return null;
    } finally {
      setBusy(-1);
    }
  }

  async function loadHello() {
    const reply = await ask({ type: "hello" });
    if (!reply || destroyed) return;
    if (reply.type !== "hello") {
      showRequestError(reply);
      return;
    }
    hello = reply;
    clear(examplesSel);
    examplesSel.append(h("option", { value: "" }, "Examples…"));
    for (const ex of reply.examples || []) {
      examplesSel.append(
        h(
          "option",
          { value: ex.id, "data-torch-differs": ex.torch_differs ? "true" : "false", title: ex.summary },
          ex.title + (ex.torch_differs ? "  ≠ tutorial claim" : ""),
        ),
      );
    }
    if (example) examplesSel.value = example.id;
    buildPanel.setPalette(reply.palette || []);
    updateTargets();
  }

  async function openExample(id) {
    const reply = await ask({ type: "example", example: id });
    handleResult(reply, "example");
  }

  /** Opens a link's program; resolves with false if the host says it cannot be opened. */
  async function openToken(tok, step, v) {
    const reply = await ask({ type: "open", token: tok });
    if (reply?.type === "error") {
      showRequestError(reply);
      markDrawn();
      return false;
    }
    handleResult(reply, "open", { step, view: v });
    return true;
  }

  function scheduleRun(text) {
    clearTimeout(runTimer);
    setPending(true);
    runTimer = setTimeout(() => run(text), RUN_DEBOUNCE_MS);
  }

  function runNow() {
    clearTimeout(runTimer);
    run(code.getProgram());
  }

  async function run(text, mode = "run") {
    runTimer = null;
    setPending(false);
    const reply = await ask({ type: "run", program: text });
    handleResult(reply, mode);
  }

  async function edit(intent) {
    // the edit applies to what is in the pane now, typed or not
    clearTimeout(runTimer);
    runTimer = null;
    setPending(false);
    const reply = await ask({ type: "edit", program: code.getProgram(), edit: intent });
    if (reply?.type === "error") {
      showRequestError(reply, intent);
      markDrawn();
      return;
    }
    handleResult(reply, "edit", { intent });
  }

  function showRequestError(reply, intent = null) {
    const err = reply.error || {};
    const titles = {
      edit: "That edit cannot be made",
      share: "That link cannot be opened",
      protocol: "The host did not understand a request",
      internal: "Something went wrong in the engine host",
    };
    showBanner({
      title: titles[err.kind] || "Error",
      message: err.message || "",
      kind: err.kind,
      dependents: err.dependents,
      intent,
    });
  }

  // -- results --------------------------------------------------------------------------------

  function handleResult(reply, mode, extra = {}) {
    if (!reply || destroyed || reply.type === "stale") return;
    try {
      drawResult(reply, mode, extra);
    } finally {
      markDrawn();
    }
  }

  function drawResult(reply, mode, extra) {
    if (reply.type !== "result") {
      showRequestError(reply);
      return;
    }
    const fresh = mode === "example" || mode === "open" || mode === "new" || mode === "initial";
    const tl = reply.timeline;
    // While typing, a half-written line does not parse; the last graph stays (dimmed) with the
    // error shown, instead of vanishing at every keystroke.
    if (mode === "run" && idx && !tl.steps?.length && ["syntax", "not_allowed"].includes(tl.error?.kind)) {
      program = reply.program;
      token = reply.token;
      canvas.classList.add("stale");
      staleError = tl.error;
      lastConsoleCount = -1;
      drawConsole();
      code.setError(tl.error);
      bannerDismissed = null;
      showProgramError(tl.error);
      scheduleHash(true);
      return;
    }
    canvas.classList.remove("stale");
    staleError = null;
    program = reply.program;
    token = reply.token;
    if (mode === "example") {
      exampleProgram = program;
      setExample(reply.example);
    }
    explanation.classList.toggle("edited", Boolean(example) && program !== exampleProgram);
    if (fresh) {
      positions.clear();
      fitted.clear();
      autoFit = true;
    }
    idx = buildIndex(tl);
    lossPanel.setTimeline(idx);
    timeScale = timeScaleFor(idx.events);
    if (extra.view && extra.view !== view) setView(extra.view, { redraw: false });

    // the moment to show
    let p;
    let play = false;
    // a link opens at its step (or where it ends); an example just before its first backward
    if (mode === "new") p = idx.count;
    else if (mode === "open") p = extra.step != null ? momentOfStep(idx, extra.step) : idx.count;
    else if (fresh) p = initialMoment(idx);
    else if (mode === "edit") {
      const from = momentOfLines(idx, reply.edit?.changed_lines || []);
      if (from != null && idx.count - from <= AUTOPLAY_MAX_EVENTS && idx.count > from) {
        p = from;
        play = true;
      } else p = idx.count;
    } else p = idx.count;

    // The program pane before the graph, in one update: the editor reads the page's layout
    // when it updates, which is cheap before the graph's new cards are in the page and costs a
    // layout of every card after.
    const replaced = mode === "example" || mode === "open" || mode === "edit";
    const stepLines = stepLinesAt(p);
    lastStepLines = stepLines.join(",");
    code.show({
      program: replaced ? program : undefined,
      flashLines: replaced ? reply.edit?.changed_lines || [] : undefined,
      error: idx.timeline.error || null,
      stepLines,
    });

    // A view seen for the first time is fitted as its cards go in: fitting it later would lay
    // out every card's text a second time, at the new scale.
    const fit = !fitted.has(view);
    fitted.add(view);
    const added = rebuildGraph({ fit });

    // selection: what was selected and still exists; after an edit, what it made
    let keep = selection.filter((id) => graph.nodes.some((n) => n.id === id));
    if (mode === "edit" && reply.edit?.name && ["add_leaf", "add_op", "detach"].includes(extra.intent?.op)) {
      const made = latestNodeNamed(reply.edit.name);
      if (made) keep = [made];
    }
    if (fresh) keep = [];
    selection = keep;
    graphView.setSelection(selection);
    updateTargets();

    bannerDismissed = null;
    if (idx.timeline.error) showProgramError(idx.timeline.error);
    else hideBanner();
    info.hidden = true;
    if (reply.edit?.info) {
      info.textContent = reply.edit.info;
      info.hidden = Boolean(idx.timeline.error);
    }
    lastConsoleCount = -1;
    shownPos = -1;

    playerCtl.reset(p);
    st = stateAt(idx, p);
    pending = emptyChanges();
    pending.all = true;
    drawFrame(1);
    if (!fit && added.length) graphView.ensureVisible(added);
    if (play) {
      autoplaying = true;
      playerCtl.play();
      autoplaying = playerCtl.playing;
      showBusy();
    }
    scheduleHash(true);
  }

  function latestNodeNamed(name) {
    let best = null;
    for (const n of graph.nodes) {
      const t = n.tensor ? idx.tensors.get(n.tensor) : null;
      if (t && (t.name === name || (t.names || []).includes(name))) {
        if (view === "tensors" || n.kind !== "fn" || t.node === n.id) best = n.id;
      }
    }
    return best;
  }

  /**
   * Rebuilds the drawn graph for the current view (with `fit`, fitted in view); returns the ids
   * of nodes placed anew.
   */
  function rebuildGraph({ fit = false } = {}) {
    graph = buildGraph(idx, view);
    const added = graph.nodes.filter((n) => !positions.has(n.id)).map((n) => n.id);
    const placed = layoutPositions(graph.nodes, graph.edges, positions);
    for (const [id, p] of placed) positions.set(id, p);
    graphView.setGraph(graph, positions, { fit });
    emptyGraph.hidden = graph.nodes.length > 0;
    drawLegend();
    return added;
  }

  function drawLegend() {
    clear(legend);
    const item = (color, text) => h("span", null, h("i", { style: { background: color } }), text);
    if (view === "tensors") {
      legend.append(
        item("var(--gp-leaf)", "leaf (requires grad)"),
        item("var(--gp-nonleaf)", "non-leaf"),
        item("var(--gp-const)", "constant"),
        item("var(--gp-grad)", "gradient"),
      );
    } else {
      legend.append(
        item("var(--gp-nonleaf)", "grad_fn node"),
        item("var(--gp-leaf)", "AccumulateGrad"),
        item("var(--gp-grad)", "gradient"),
      );
    }
  }

  function setExample(ex) {
    example = ex || null;
    clear(explanation);
    if (!ex) {
      explanation.hidden = true;
      return;
    }
    explanation.hidden = false;
    explanation.append(
      h(
        "h2",
        { "data-testid": "explanation-title" },
        ex.title,
        ex.torch_differs
          ? h(
              "span",
              { class: "gp-differs", title: "a common tutorial claim that PyTorch contradicts" },
              "tutorial ≠ torch",
            )
          : null,
      ),
      ex.summary ? h("p", { class: "gp-summary" }, ex.summary) : null,
      h(
        "p",
        { class: "gp-edited-note" },
        "You have changed this example's program; the text below is about the original.",
      ),
      ...richText(ex.explanation),
    );
    if (examplesSel.querySelector(`option[value="${CSS.escape(ex.id)}"]`)) examplesSel.value = ex.id;
  }

  // -- banner ---------------------------------------------------------------------------------

  function showProgramError(err) {
    const where = err.line ? ` at line ${err.line}` : "";
    const head =
      err.type || { syntax: "SyntaxError", not_allowed: "Not allowed", limit: "Limit reached" }[err.kind] || "Error";
    showBanner({ title: `${head}${where}`, message: err.message, program: true, line: err.line });
  }

  function showBanner({ title, message, dependents, intent, program: isProgram, line }) {
    clear(banner);
    const body = h(
      "div",
      { class: "gp-banner-body" },
      h("b", { "data-testid": "error-title" }, title),
      h("div", { class: "gp-msg", "data-testid": "error-message" }, message),
    );
    if (dependents?.length) {
      body.append(
        h("div", null, "Used by:"),
        h(
          "ul",
          null,
          dependents.map(([n, l, t]) => h("li", null, `line ${l}: ${t}`)),
        ),
      );
      if (intent?.op === "delete") {
        body.append(
          h(
            "div",
            { class: "gp-row" },
            h(
              "button",
              {
                type: "button",
                class: "gp-btn danger",
                "data-testid": "delete-cascade",
                onclick: () => edit({ ...intent, cascade: true }),
              },
              `Delete ${intent.target} and what uses it`,
            ),
          ),
        );
      }
    }
    const actionsRow = h("div", { class: "gp-row", style: { margin: "0" } });
    if (isProgram && idx && idx.count && !staleError) {
      actionsRow.append(
        h(
          "button",
          { type: "button", class: "gp-btn", "data-testid": "error-show", onclick: () => playerCtl.seek(idx.count) },
          "Show",
        ),
      );
    }
    actionsRow.append(
      h(
        "button",
        {
          type: "button",
          class: "gp-btn icon",
          "aria-label": "dismiss",
          title: "Dismiss",
          onclick: () => {
            bannerDismissed = message;
            hideBanner();
          },
        },
        "×",
      ),
    );
    banner.append(body, actionsRow);
    banner.dataset.line = line ?? "";
    banner.hidden = bannerDismissed === message;
  }

  function hideBanner() {
    banner.hidden = true;
    clear(banner);
  }

  // -- view, share, link ----------------------------------------------------------------------

  function setView(v, { redraw = true } = {}) {
    if (v === view) return;
    // keep the selection across views: a tensor <-> its grad_fn (or its AccumulateGrad)
    const tensors = selection.map((id) => graph?.nodes.find((n) => n.id === id)?.tensor).filter(Boolean);
    view = v;
    viewBtn.textContent = v === "autograd" ? "View: autograd" : "View: tensors";
    viewBtn.dataset.view = v;
    viewBtn.setAttribute("aria-pressed", v === "autograd" ? "true" : "false");
    if (!redraw || !idx) return;
    shownPos = -1;
    const fit = !fitted.has(view) || autoFit;
    fitted.add(view);
    rebuildGraph({ fit });
    const mapped = [];
    for (const t of tensors) {
      const rec = st?.t.get(t);
      const id = v === "tensors" ? t : rec?.node || idx.accOfTensor.get(t);
      if (id && graph.nodes.some((n) => n.id === id)) mapped.push(id);
    }
    selection = mapped;
    graphView.setSelection(selection);
    updateTargets();
    pending = emptyChanges();
    pending.all = true;
    drawFrame(1);
    scheduleHash(true);
  }

  function currentStep() {
    return idx && st ? stepOfMoment(idx, st.pos) : null;
  }

  function scheduleHash(now = false) {
    clearTimeout(hashTimer);
    const write = () => {
      if (destroyed || !token) return;
      const hash = formatHash({ token, step: currentStep(), view });
      if (otherHost) otherHost.href = opts.otherHostUrl + hash;
      if (!opts.syncUrl) return;
      if (hash === lastHash) return;
      lastHash = hash;
      try {
        hist.replaceState(hist.state, "", hash);
      } catch {
        /* a sandboxed frame may refuse; the link still works from the Share button */
      }
    };
    if (now) write();
    else hashTimer = setTimeout(write, 250);
  }

  async function share() {
    // The program on screen already has its token (every result carries one), so the link is
    // there at once; only text typed since the last run needs a round trip.
    let tok = code.getProgram() === program ? token : null;
    if (!tok) {
      const reply = await ask({ type: "share", program: code.getProgram() });
      if (!reply) return;
      if (reply.type !== "share") {
        showRequestError(reply);
        return;
      }
      tok = reply.token;
    }
    token = tok;
    const link = shareLink(loc.href, { token, step: currentStep(), view });
    shareField.hidden = false;
    shareField.value = link;
    shareField.select?.();
    let copied = false;
    try {
      if (navigator.clipboard?.writeText) {
        await navigator.clipboard.writeText(link);
        copied = true;
      }
    } catch {
      copied = false; // no clipboard permission (an http page, a test browser): the field has it
    }
    shareBtn.textContent = copied ? "Copied ✓" : "Share";
    shareBtn.dataset.copied = copied ? "true" : "false";
    setTimeout(() => {
      if (!destroyed) shareBtn.textContent = "Share";
    }, 1800);
    scheduleHash(true);
  }

  // -- wiring ---------------------------------------------------------------------------------

  examplesSel.addEventListener("change", () => {
    if (examplesSel.value) openExample(examplesSel.value);
  });
  runBtn.addEventListener("click", runNow);
  newBtn.addEventListener("click", () => {
    clearTimeout(runTimer);
    setExample(null);
    examplesSel.value = "";
    code.setProgram(EMPTY_PROGRAM);
    run(EMPTY_PROGRAM, "new");
  });
  viewBtn.addEventListener("click", () => setView(view === "tensors" ? "autograd" : "tensors"));
  shareBtn.addEventListener("click", share);
  playBtn.addEventListener("click", () => playerCtl.toggle());
  backBtn.addEventListener("click", () => playerCtl.stepBack());
  fwdBtn.addEventListener("click", () => playerCtl.stepForward());
  startBtn.addEventListener("click", () => playerCtl.seek(0));
  endBtn.addEventListener("click", () => playerCtl.seek(idx?.count ?? 0));
  scrub.addEventListener("input", () => playerCtl.seek(Number(scrub.value)));
  speedSel.addEventListener("change", () => playerCtl.setSpeed(Number(speedSel.value)));
  canvas.addEventListener(
    "wheel",
    () => {
      autoFit = false;
    },
    { passive: true },
  );
  canvas.addEventListener("pointerdown", () => {
    autoFit = false;
  });

  // Space plays and pauses, arrows step: anywhere on the page except where keys mean typing.
  function typing(ev) {
    for (const t of ev.composedPath()) {
      if (!(t instanceof Element)) continue;
      if (t.isContentEditable || t.matches("input, textarea, select")) return true;
      if (t === root) break;
    }
    return false;
  }
  function onKeyDown(ev) {
    if (destroyed || !idx || ev.defaultPrevented || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    if (typing(ev)) return;
    const onButton = ev
      .composedPath()
      .some((t) => t instanceof Element && (t.matches("button") || t.getAttribute?.("role") === "button"));
    if (ev.key === " " && !onButton) {
      ev.preventDefault();
      playerCtl.toggle();
    } else if (ev.key === "ArrowRight") {
      ev.preventDefault();
      playerCtl.stepForward();
    } else if (ev.key === "ArrowLeft") {
      ev.preventDefault();
      playerCtl.stepBack();
    } else if (ev.key === "Home") {
      playerCtl.seek(0);
    } else if (ev.key === "End") {
      playerCtl.seek(idx.count);
    }
  }
  document.addEventListener("keydown", onKeyDown);

  // -- start ----------------------------------------------------------------------------------
  const link = opts.syncUrl ? parseHash(loc.hash) : parseHash("");
  if (link.view === "autograd") setView("autograd", { redraw: false });
  // The program to show is asked for first, and hello once its graph is on screen: a host
  // answers in order, so the first graph waits for nothing else, and hello's work (the
  // in-browser host imports the edits and the gallery for it) does not compete with drawing it.
  // hello's reply fills in the examples menu and the palette.
  let first = null;
  if (link.token) {
    first = openToken(link.token, link.step, link.view);
    // The link's program is in the program pane while the host opens it (the in-browser host
    // starts Python first): the editor's work is done by then, not in the way of the graph.
    programOfToken(link.token).then((text) => {
      if (text !== null && !destroyed && !program) code.setProgram(text);
    });
  } else if (opts.program) {
    code.setProgram(opts.program);
    first = run(opts.program, "initial").then(() => true);
  }
  const helloReady = first ? first.then(afterNextPaint).then(loadHello) : loadHello();
  Promise.all([first, helloReady]).then(([shown]) => {
    // no program to start with, or a link that cannot be opened (a working playground still):
    // the default example, which hello names
    if (!shown && !destroyed && !program && hello) openExample(hello.default_example);
  });

  return {
    destroy() {
      destroyed = true;
      clearTimeout(runTimer);
      clearTimeout(hashTimer);
      clearTimeout(inspectorTimer);
      cancelAnimationFrame(consoleScroll);
      playerCtl.dispose();
      document.removeEventListener("keydown", onKeyDown);
      inspector.destroy();
      lossPanel.destroy();
      code.destroy();
      graphView.destroy();
      root.remove();
    },
    // for tests and notebooks: the moment and selection without reaching into the DOM
    get state() {
      return {
        program,
        token,
        view,
        pos: st?.pos ?? 0,
        count: idx?.count ?? 0,
        selection: [...selection],
        playing: playingNow,
      };
    },
  };
}
