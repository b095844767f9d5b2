// The playground UI: mountPlayground(el, host, options) wires the panes to an engine host (the same in both hosts).
//
// Python owns programs, edits and timelines. The decisions about what to show (the moment, the
// selection, what the camera follows) are controller.js's pure functions; the components
// (top bar, player bar, banner, console, inspector, palette) only render. This module keeps the
// current values, asks the host, and hands each component what it shows.

import { h } from "./dom.js";
import { injectStyles } from "./styles.js";
import { buildIndex, stateAt, advance, emptyChanges, stepOfMoment } from "./timeline-state.js";
import { buildGraph, iterationsOf, roleOf } from "./graph-model.js";
import {
  layoutPositions,
  chooseDirection,
  openInPlace,
  closeInPlace,
  spreadPoint,
  gatherPoint,
  bounds,
} from "./layout.js";
import { createGraphView } from "./graph-view.js";
import { createCodePane } from "./code-pane.js";
import { createInspector } from "./inspector.js";
import { createLossPanel } from "./loss-panel.js";
import { createBuildPanel } from "./build-panel.js";
import { createActions } from "./actions.js";
import { createPlayer, timeScaleFor } from "./player.js";
import { parseHash, formatHash, shareLink } from "./link.js";
import { programOfToken } from "./share-token.js";
import { shortValue } from "./format.js";
import { createTopBar } from "./top-bar.js";
import { createPlayerBar } from "./player-bar.js";
import { createBanner } from "./banner.js";
import { createConsolePane } from "./console-pane.js";
import { createExplanation, keepsExample } from "./explanation.js";
import { errorHelp } from "./error-help.js";
import { createProgramTools } from "./program-tools.js";
import { programFile, programFileName } from "./program-file.js";
import {
  isFresh,
  keepsLastGraph,
  momentForReply,
  toggleSelection,
  existingIds,
  selectionAfterReply,
  selectedTensors,
  selectionInView,
  selectedNames,
  actionTarget,
  stepLinesAt,
  momentText,
  cameraTarget,
  accumulationCallout,
  iterationAt,
  momentOfIteration,
  errorTitle,
  requestErrorTitle,
  bannerDelay,
  consoleView,
} from "./controller.js";

const RUN_DEBOUNCE_MS = 250;
const EMPTY_PROGRAM = "import torch\n";

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

/** The legend's entries for a view: [css colour, text]. */
function legendItems(view) {
  return view === "tensors"
    ? [
        ["var(--gp-leaf)", "leaf (requires grad)"],
        ["var(--gp-nonleaf)", "non-leaf"],
        ["var(--gp-const)", "constant"],
        ["var(--gp-grad)", "gradient"],
      ]
    : [
        ["var(--gp-nonleaf)", "grad_fn node"],
        ["var(--gp-leaf)", "AccumulateGrad"],
        ["var(--gp-grad)", "gradient"],
      ];
}

/** Space plays and pauses, arrows step: anywhere on the page except where keys mean typing. */
function isTyping(ev, root) {
  for (const t of ev.composedPath()) {
    if (!(t instanceof Element)) continue;
    if (t.isContentEditable || t.matches("input, textarea, select")) return true;
    if (t === root) break;
  }
  return false;
}

/**
 * Mounts the playground in `el`. `host.request(msg)` returns a Promise of the reply
 * (static/src/host.js). Options: hostKind ("server" | "browser"), bokehApiUrl, bokehUrl,
 * program (start with this program instead of the default example), syncUrl (read the link
 * from the address's hash at start and keep it updated; off when embedded in a notebook),
 * location/history (tests).
 */
export function mountPlayground(el, host, options = {}) {
  const opts = {
    hostKind: "server",
    bokehApiUrl: null,
    bokehUrl: null,
    program: null,
    syncUrl: true,
    ...options,
  };
  const loc = opts.location || window.location;
  const hist = opts.history || window.history;
  const plotOptions = { bokehApiUrl: opts.bokehApiUrl, bokehUrl: opts.bokehUrl };

  // -- what is shown --------------------------------------------------------------------------
  // The reply on screen: its program, share token, indexed timeline and drawn graph.
  const shown = {
    program: "",
    token: null,
    timelineIndex: null,
    graph: null,
    iteration: null, // the loop iteration drawn (null: no loop)
    example: null,
    exampleProgram: null,
  };
  // The view the person chose, the timeline state at the moment shown, and the selection.
  const viewState = { view: "tensors", timelineState: null, selection: [], staleError: null };
  // The layout's direction: "auto" picks the one that shows the graph biggest when a program
  // family is first laid out; "LR" and "TB" are the person's choice. `direction` is the one in use.
  const layout = { choice: "auto", direction: null };
  const positions = new Map(); // drawn node id -> centre; ids are unique across both views
  const rolePositions = new Map(); // roleOf(id) -> centre: a statement's result keeps its place in every iteration
  const fitted = new Set(); // views already fitted once for this program family
  const openCalls = new Set(); // calls drawn open (scope ids); the others are one box each
  // How opening each call moved the rest of the graph (layout.js openInPlace), in the order
  // the calls were opened: closing one moves the rest back.
  const spreads = new Map(); // scope id -> spread
  let autoFit = true; // until the person pans or zooms, a resize refits
  let pending = emptyChanges(); // what changed since the last frame was drawn
  let hello = null;
  let destroyed = false;
  let busy = 0;
  let playing = false;
  let autoplaying = false; // an edit's new step is being played (the reply is still being shown)
  let timeScale = 1;
  let drawnCount = 0; // replies drawn, for tests that wait for the next one (data-results)
  const timers = { run: null, hash: null, inspector: null, banner: null, stepLines: null };
  let lastKeyAt = null; // when the person last typed in the program (null: the run was asked for)
  let lastHash = "";
  let lastStepLines = "";
  let shownMoment = -1;
  let shownCount = -1;

  // -- layout ---------------------------------------------------------------------------------
  el.replaceChildren();
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

  const topBar = createTopBar(opts, {
    example: (id) => openExample(id),
    new: () => startEmpty(),
    run: () => runNow(),
    toggleView: () => setView(viewState.view === "tensors" ? "autograd" : "tensors"),
    share: () => share(),
  });

  const explanation = createExplanation();
  const consolePane = createConsolePane();
  const programTools = createProgramTools({
    undo: () => code.undo(),
    redo: () => code.redo(),
    copy: () => copyProgram(),
    download: () => downloadProgram(),
  });
  const codeBox = h("div", { class: "gp-code", "data-testid": "code" });
  const left = h(
    "div",
    { class: "gp-left" },
    explanation.el,
    h(
      "div",
      { class: "gp-pane-head" },
      "Program",
      programTools.el,
      h("span", { class: "gp-spacer" }),
      h("span", { class: "gp-muted small gp-typing-hint" }, "edits run as you type"),
    ),
    codeBox,
    h("div", { class: "gp-pane-head" }, "Console"),
    consolePane.el,
  );

  const actionsEl = h("div", { class: "gp-actions", "data-testid": "actions" });
  const canvas = h("div", { class: "gp-canvas" });
  const banner = createBanner({
    edit: (intent) => edit(intent),
    show: () => playerCtl.seek(count()),
    example: (id) => openExample(id),
  });
  // over a graph kept from before while the program on screen does not run
  const staleNote = h(
    "div",
    { class: "gp-stale-note", "data-testid": "stale-note", hidden: true },
    "Graph from the last successful run",
  );
  const info = h("div", { class: "gp-info", "data-testid": "info", hidden: true });
  const emptyGraph = h(
    "div",
    { class: "gp-empty-graph", hidden: true },
    "No tensors yet: add a leaf, or type a program.",
  );
  const zoomButton = (label, text, factor) =>
    h(
      "button",
      {
        type: "button",
        class: "gp-btn icon",
        "aria-label": label,
        title: label[0].toUpperCase() + label.slice(1),
        onclick: () => {
          autoFit = false;
          graphView.zoomBy(factor);
        },
      },
      text,
    );
  // switches the layout between left to right and top to bottom (laid out anew, fitted)
  const directionBtn = h(
    "button",
    {
      type: "button",
      class: "gp-btn icon",
      "data-testid": "layout-direction",
      "aria-label": "switch the layout's direction",
      title: "Lay the graph out left to right (→) or top to bottom (↓)",
      onclick: () => setDirection(layout.direction === "TB" ? "LR" : "TB"),
    },
    "→",
  );
  // shown while a call is drawn open: draws every call as one box again
  const closeCallsBtn = h(
    "button",
    {
      type: "button",
      class: "gp-btn",
      "data-testid": "close-calls",
      title: "Draw each function and module call as one box again",
      hidden: true,
      onclick: () => openCall(null),
    },
    "Close calls",
  );
  const zoom = h(
    "div",
    { class: "gp-zoom" },
    closeCallsBtn,
    directionBtn,
    zoomButton("zoom in", "+", 1.25),
    zoomButton("zoom out", "−", 0.8),
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
  // on a phone the legend is one small button that opens it: a list of colours over the graph
  // would cover the cards it explains
  const legendItemsEl = h("span", { class: "gp-legend-items" });
  const legendBtn = h(
    "button",
    {
      type: "button",
      class: "gp-legend-toggle",
      "data-testid": "legend-toggle",
      "aria-expanded": "false",
      onclick: () => {
        const open = !legend.classList.contains("open");
        legend.classList.toggle("open", open);
        legendBtn.setAttribute("aria-expanded", String(open));
      },
    },
    "Colours",
  );
  const legend = h("div", { class: "gp-legend", "data-testid": "legend" }, legendBtn, legendItemsEl);
  // bottom left: the note on a kept graph above the legend, clear of the zoom buttons on the right
  canvas.append(banner.el, info, emptyGraph, zoom, h("div", { class: "gp-corner" }, staleNote, legend));

  const playerBar = createPlayerBar({
    toggle: () => playerCtl.toggle(),
    stepBack: () => playerCtl.stepBack(),
    stepForward: () => playerCtl.stepForward(),
    seek: (moment) => playerCtl.seek(moment),
    end: () => playerCtl.seek(count()),
    speed: (x) => playerCtl.setSpeed(x),
    iteration: (it) => {
      const moment = shown.timelineIndex ? momentOfIteration(shown.timelineIndex, it) : null;
      if (moment != null) playerCtl.seek(moment);
    },
  });

  // Below 1180 px the palette and the inspector are a drawer over the graph, opened from here.
  const drawerBtn = h(
    "button",
    {
      type: "button",
      class: "gp-btn gp-drawer-toggle",
      "data-testid": "drawer-toggle",
      "aria-expanded": "false",
      "aria-controls": "gp-drawer",
      title: "Show the inspector and the ops palette",
      onclick: () => setDrawer(!drawerOpen),
    },
    "Inspect ▸",
  );
  const drawerHead = h(
    "div",
    { class: "gp-drawer-head" },
    "INSPECTOR AND OPS",
    h("span", { class: "gp-spacer" }),
    h(
      "button",
      {
        type: "button",
        class: "gp-btn icon",
        "data-testid": "drawer-close",
        "aria-label": "close the inspector",
        onclick: () => setDrawer(false),
      },
      "✕",
    ),
  );
  const center = h(
    "div",
    { class: "gp-center" },
    h("div", { class: "gp-actions-row" }, actionsEl, drawerBtn),
    canvas,
    playerBar.el,
  );
  const buildEl = h("div", { class: "gp-build", "data-testid": "build" });
  const inspectorEl = h("div", { class: "gp-inspect" });
  const right = h(
    "aside",
    { class: "gp-right", id: "gp-drawer", "data-testid": "drawer", "aria-label": "inspector and ops" },
    drawerHead,
    buildEl,
    inspectorEl,
  );
  const main = h("div", { class: "gp-main" }, left, center, right);
  let drawerOpen = false;
  // On a phone the main area scrolls (the program is under the graph) and the drawer is placed
  // in it: it opens over the part the learner is looking at, and stays there while it scrolls.
  const keepDrawerInView = () => {
    right.style.top = main.scrollTop ? `${main.scrollTop}px` : "";
  };
  function setDrawer(open) {
    drawerOpen = open;
    right.classList.toggle("open", open);
    drawerBtn.setAttribute("aria-expanded", String(open));
    if (open) keepDrawerInView();
    main[open ? "addEventListener" : "removeEventListener"]("scroll", keepDrawerInView, { passive: true });
  }
  root.append(h("div", { class: "gp-app" }, topBar.el, main));

  // -- components -----------------------------------------------------------------------------
  const corner = canvas.querySelector(".gp-corner");
  const graphView = createGraphView(canvas, {
    // what the overlays at the bottom take, beyond the fit's own margin
    bottomInset: () => Math.max(0, Math.max(corner.offsetHeight, zoom.offsetHeight) + 14 - 40),
    onSelect: (id, { additive }) => {
      if (id.startsWith("g:")) openCall(id.slice(2));
      else setSelection(toggleSelection(viewState.selection, id, additive));
    },
    onBackground: () => setSelection([]),
    onCloseCall: (scopeId) => openCall(scopeId, { close: true }),
    onNodeMoved: () => {
      autoFit = false;
    },
    onResize: () => {
      if (autoFit && shown.graph) graphView.fit();
    },
  });
  const code = createCodePane(codeBox, {
    onChange: scheduleRun,
    onRunShortcut: runNow,
    onHistory: (depths) => programTools.setHistory(depths),
  });
  const inspector = createInspector(inspectorEl, { onEdit: edit, plotOptions });
  // a training loop's loss, under the console (what it printed) in the program's column
  // a click on a point of the loss plot goes to that backward() call (its loop iteration drawn)
  const lossPanel = createLossPanel(left, { plotOptions, onPick: (point) => playerCtl.seek(point.at + 1) });
  const buildPanel = createBuildPanel(buildEl, { onEdit: edit });
  const actions = createActions(actionsEl, { onEdit: edit });

  const count = () => shown.timelineIndex?.count ?? 0;

  const playerCtl = createPlayer({
    getCount: count,
    getEvent: (i) => shown.timelineIndex?.events[i],
    onAdvance: () => {
      if (shown.timelineIndex) advance(shown.timelineIndex, viewState.timelineState, pending);
    },
    onSeek: (moment) => {
      if (!shown.timelineIndex) return;
      viewState.timelineState = stateAt(shown.timelineIndex, moment);
      pending = emptyChanges();
      pending.all = true;
    },
    onFrame: (moment, frac) => drawFrame(frac),
    getTimeScale: () => timeScale,
    onPlayState: (on) => {
      playing = on;
      if (!on && autoplaying) {
        autoplaying = false;
        showBusy();
      }
      playerBar.setPlaying(on);
      if (!on) graphView.settleCamera();
      if (!on) scheduleHash();
    },
    clock: {
      now: () => performance.now(),
      request: (fn) => requestAnimationFrame(fn),
      cancel: (handle) => cancelAnimationFrame(handle),
    },
  });

  // -- drawing a moment -----------------------------------------------------------------------

  function drawFrame(frac) {
    const timelineIndex = shown.timelineIndex;
    const state = viewState.timelineState;
    if (!timelineIndex || !state) return;
    let changes = pending;
    pending = emptyChanges();
    // a loop's next iteration: its own graph (the same statements keep their places)
    const iteration = iterationAt(timelineIndex, state.pos);
    if (iteration !== shown.iteration) {
      shown.iteration = iteration;
      rebuildGraph();
      viewState.selection = existingIds(shown.graph, viewState.selection);
      graphView.setSelection(viewState.selection);
      changes = { all: true };
    }
    graphView.render(timelineIndex, state, changes.all ? null : changes, { animate: !changes.all });
    // the node the backward pass is at; while playing, the camera keeps it and its neighbours
    // a node inside a closed module call: its box
    const inside = cameraTarget(timelineIndex, state, viewState.view);
    const active = inside ? (shown.graph.ownerOf.get(inside) ?? inside) : null;
    graphView.setActive(active);
    const callout = accumulationCallout(timelineIndex, state, viewState.view);
    graphView.setCallout(shown.graph.ownerOf.get(callout?.id) ?? callout?.id, callout?.text, callout?.heatmaps);
    if (playing && active) graphView.follow(active);
    // the gradient in flight: the last event was a gradient sent along an edge
    const last = state.pos > 0 ? timelineIndex.events[state.pos - 1] : null;
    if (last && last.event === "edge" && frac < 1) {
      graphView.setFlight(state.lastEdge, frac, last.gradient == null ? "None" : shortValue(last.gradient, 16));
    } else {
      graphView.setFlight(null, 1);
    }
    drawMoment();
  }

  /** The panes that follow the moment; called every animation frame, so only on a change. */
  function drawMoment() {
    const timelineIndex = shown.timelineIndex;
    const moment = viewState.timelineState.pos;
    if (moment === shownMoment && timelineIndex.count === shownCount) return;
    shownMoment = moment;
    shownCount = timelineIndex.count;
    const stale = Boolean(viewState.staleError);
    playerBar.showMoment(moment, timelineIndex.count, momentText(timelineIndex, moment, stale));
    // the statement being run, in the program pane; while playing, a few times a second (each
    // change is an editor transaction, most of a frame's script on a big program)
    if (playing) {
      if (!timers.stepLines) {
        timers.stepLines = setTimeout(() => {
          timers.stepLines = null;
          if (shown.timelineIndex && viewState.timelineState)
            showStepLines(shown.timelineIndex, viewState.timelineState.pos);
        }, 120);
      }
    } else {
      clearTimeout(timers.stepLines);
      timers.stepLines = null;
      showStepLines(timelineIndex, moment);
    }
    consolePane.show(consoleView(timelineIndex, moment, viewState.staleError));
    lossPanel.setMoment(moment, shown.iteration);
    // the inspector follows the moment; while playing, a few times a second is enough
    if (playing) {
      if (!timers.inspector) {
        timers.inspector = setTimeout(() => {
          timers.inspector = null;
          drawInspector();
        }, 150);
      }
    } else {
      clearTimeout(timers.inspector);
      timers.inspector = null;
      drawInspector();
      scheduleHash();
    }
  }

  function showStepLines(timelineIndex, moment) {
    // after a failed run the editor holds a program the graph's lines do not belong to
    const lines = viewState.staleError ? [] : stepLinesAt(timelineIndex, moment);
    const key = lines.join(",");
    if (key !== lastStepLines) {
      lastStepLines = key;
      code.setStepLines(lines);
    }
  }

  function drawInspector() {
    if (!shown.timelineIndex || !viewState.timelineState) return;
    const id = viewState.selection[viewState.selection.length - 1];
    const gnode = id ? shown.graph.nodes.find((n) => n.id === id) : null;
    inspector.show(
      gnode
        ? {
            timelineIndex: shown.timelineIndex,
            state: viewState.timelineState,
            gnode,
            view: viewState.view,
            chainRules: hello?.chain_rules,
          }
        : null,
    );
  }

  function setSelection(ids) {
    viewState.selection = existingIds(shown.graph, ids);
    graphView.setSelection(viewState.selection);
    updateTargets();
    drawInspector();
  }

  /** The palette's inputs and the action bar's target follow the selection. */
  function updateTargets() {
    if (!shown.timelineIndex) return;
    buildPanel.update({ inputs: selectedNames(shown.timelineIndex, shown.graph, viewState.selection) });
    actions.update(actionTarget(shown.timelineIndex, shown.graph, viewState.selection));
    const last = viewState.selection[viewState.selection.length - 1];
    const name = last ? shown.graph.nodes.find((n) => n.id === last)?.name : null;
    drawerBtn.textContent = name ? `Inspect ${name} ▸` : "Inspect ▸";
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
    topBar.setBusy(busy > 0);
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
      if (!destroyed) banner.show({ title: "The engine host did not answer", message: String(e?.message || e) });
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
    topBar.setExamples(reply.examples || [], shown.example?.id);
    buildPanel.setPalette(reply.palette || []);
    updateTargets();
    drawInspector(); // the chain-rule texts came with hello
  }

  async function openExample(id) {
    const reply = await ask({ type: "example", example: id });
    handleResult(reply, "example");
  }

  /** Opens a link's program; resolves with false if the host says it cannot be opened. */
  async function openToken(token, link) {
    const reply = await ask({ type: "open", token });
    if (reply?.type === "error") {
      showRequestError(reply);
      markDrawn();
      return false;
    }
    handleResult(reply, "open", link);
    return true;
  }

  function startEmpty() {
    clearTimeout(timers.run);
    setExample(null);
    topBar.chooseExample(null);
    code.setProgram(EMPTY_PROGRAM);
    run(EMPTY_PROGRAM, "new");
  }

  function scheduleRun(text) {
    lastKeyAt = performance.now();
    clearTimeout(timers.banner); // the reply to this text decides about the banner
    clearTimeout(timers.run);
    setPending(true);
    timers.run = setTimeout(() => run(text), RUN_DEBOUNCE_MS);
  }

  function runNow() {
    lastKeyAt = null;
    clearTimeout(timers.run);
    run(code.getProgram());
  }

  async function run(text, mode = "run") {
    timers.run = null;
    setPending(false);
    const reply = await ask({ type: "run", program: text });
    handleResult(reply, mode);
  }

  async function edit(intent) {
    // the edit applies to what is in the pane now, typed or not
    clearTimeout(timers.run);
    timers.run = null;
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
    banner.show({
      title: requestErrorTitle(err.kind),
      message: err.message || "",
      dependents: err.dependents,
      intent,
    });
  }

  /** The banner for a program error; after typing, once the typing has paused (the underline is at once). */
  function showProgramErrorWhenPaused(err, mode) {
    clearTimeout(timers.banner);
    const wait = bannerDelay(mode, performance.now(), lastKeyAt);
    root.dataset.bannerWait = wait ? "true" : "false";
    if (!wait) {
      showProgramError(err);
      return;
    }
    banner.hide();
    timers.banner = setTimeout(() => showProgramErrorWhenPaused(err, mode), wait);
  }

  function showProgramError(err) {
    const help = errorHelp(err);
    // the example is offered when this gallery has it
    if (help?.example && !(hello?.examples || []).some((ex) => ex.id === help.example)) help.example = null;
    banner.show({
      help,
      title: errorTitle(err),
      message: err.message,
      line: err.line,
      canShow: Boolean(count()) && !viewState.staleError,
    });
  }

  // -- results --------------------------------------------------------------------------------

  function handleResult(reply, mode, extra = {}) {
    if (!reply || destroyed || reply.type === "stale") return;
    // the UI's own share of a reply's time, for the benchmarks (a performance measure named
    // "gradplay:draw", from the reply's arrival to the graph set for the next frame)
    const start = performance.now();
    try {
      drawResult(reply, mode, extra);
    } finally {
      markDrawn();
      performance.measure?.("gradplay:draw", { start, detail: mode });
    }
  }

  function drawResult(reply, mode, extra) {
    if (reply.type !== "result") {
      showRequestError(reply);
      return;
    }
    const fresh = isFresh(mode);
    const timeline = reply.timeline;
    if (keepsLastGraph(mode, Boolean(shown.timelineIndex), timeline)) {
      shown.program = reply.program;
      shown.token = reply.token;
      markEdited();
      canvas.classList.add("stale");
      staleNote.hidden = false;
      viewState.staleError = timeline.error;
      shownMoment = -1; // the panes that follow the moment say it is the last successful run's
      drawMoment();
      code.setError(timeline.error);
      banner.forgetDismissed();
      showProgramErrorWhenPaused(timeline.error, mode);
      scheduleHash(true);
      return;
    }
    canvas.classList.remove("stale");
    staleNote.hidden = true;
    viewState.staleError = null;
    shown.program = reply.program;
    shown.token = reply.token;
    if (mode === "example") {
      shown.exampleProgram = shown.program;
      setExample(reply.example);
    }
    markEdited();
    if (fresh) {
      openCalls.clear();
      spreads.clear();
      closeCallsBtn.hidden = true;
      positions.clear();
      rolePositions.clear();
      fitted.clear();
      autoFit = true;
      layout.direction = null;
    }
    const timelineIndex = buildIndex(timeline);
    shown.timelineIndex = timelineIndex;
    lossPanel.setTimeline(timelineIndex);
    timeScale = timeScaleFor(timelineIndex.events);
    if (extra.view && extra.view !== viewState.view) setView(extra.view, { redraw: false });

    const { moment, play } = momentForReply(timelineIndex, mode, {
      event: extra.event,
      step: extra.step,
      changedLines: reply.edit?.changed_lines || [],
    });
    shown.iteration = iterationAt(timelineIndex, moment);

    // The program pane before the graph, in one update: the editor reads the page's layout
    // when it updates, which is cheap before the graph's new cards are in the page and costs a
    // layout of every card after.
    const replaced = mode === "example" || mode === "open" || mode === "edit";
    const stepLines = stepLinesAt(timelineIndex, moment);
    lastStepLines = stepLines.join(",");
    code.show({
      program: replaced ? shown.program : undefined,
      flashLines: replaced ? reply.edit?.changed_lines || [] : undefined,
      error: timeline.error || null,
      stepLines,
    });

    // A view seen for the first time is fitted as its cards go in: fitting it later would lay
    // out every card's text a second time, at the new scale.
    const fit = !fitted.has(viewState.view);
    fitted.add(viewState.view);
    const added = rebuildGraph({ fit });

    viewState.selection = selectionAfterReply(timelineIndex, shown.graph, viewState.view, viewState.selection, {
      fresh,
      intent: mode === "edit" ? extra.intent : null,
      madeName: reply.edit?.name,
    });
    graphView.setSelection(viewState.selection);
    updateTargets();

    banner.forgetDismissed();
    clearTimeout(timers.banner);
    if (timeline.error) showProgramErrorWhenPaused(timeline.error, mode);
    else banner.hide();
    info.hidden = true;
    if (reply.edit?.info) {
      info.textContent = reply.edit.info;
      info.hidden = Boolean(timeline.error);
    }
    consolePane.invalidate();
    shownMoment = -1;

    playerCtl.reset(moment);
    viewState.timelineState = stateAt(timelineIndex, moment);
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

  /**
   * Rebuilds the drawn graph for the current view (with `fit`, fitted in view); returns the ids
   * of nodes placed anew. `place(graph)`, when given, places the graph instead of the layout
   * (all of it: an opened call moves the rest); `animate` moves what moved over a few frames.
   */
  function rebuildGraph({ fit = false, place = null, animate = false } = {}) {
    const graph = buildGraph(shown.timelineIndex, viewState.view, {
      iteration: shown.iteration,
      expanded: openCalls,
    });
    shown.graph = graph;
    if (!place) {
      for (const n of graph.nodes) {
        if (!positions.has(n.id) && rolePositions.has(roleOf(n.id)))
          positions.set(n.id, { ...rolePositions.get(roleOf(n.id)) });
      }
    }
    const added = graph.nodes.filter((n) => !positions.has(n.id)).map((n) => n.id);
    if (!layout.direction || !graph.nodes.some((n) => positions.has(n.id))) {
      layout.direction =
        layout.choice === "auto"
          ? chooseDirection(graph.nodes, graph.edges, canvas.clientWidth || 800, canvas.clientHeight || 500)
          : layout.choice;
    }
    directionBtn.dataset.direction = layout.direction;
    directionBtn.textContent = layout.direction === "TB" ? "↓" : "→";
    const placed = place
      ? place(graph)
      : layoutPositions(graph.nodes, graph.edges, positions, {
          direction: layout.direction,
          clusters: graph.frames,
        });
    for (const [id, centre] of placed) {
      positions.set(id, centre);
      rolePositions.set(roleOf(id), centre);
    }
    playerBar.setIterations(iterationsOf(shown.timelineIndex), shown.iteration);
    graphView.setGraph(graph, positions, { fit, direction: layout.direction, animate });
    emptyGraph.hidden = graph.nodes.length > 0;
    legendItemsEl.replaceChildren(
      ...legendItems(viewState.view).map(([color, text]) =>
        h("span", null, h("i", { style: { background: color } }), text),
      ),
    );
    return added;
  }

  /**
   * Opens a call's box (with `close`, draws it as one box again; with null, closes every open
   * call). The rest of the graph stays as the learner knows it: an opened call's inside is laid
   * out where its box was and the rest moves aside just enough, over a few frames; a closed
   * call's box goes back where its inside was, and the rest comes back.
   */
  function openCall(scopeId, { close = false } = {}) {
    const before = shown.graph;
    if (!before) return;
    rolePositions.clear();
    // the other view's nodes (and other iterations') are laid out afresh when next drawn
    const drawn = new Set(before.nodes.map((n) => n.id));
    for (const id of [...positions.keys()]) if (!drawn.has(id)) positions.delete(id);
    fitted.clear();
    fitted.add(viewState.view);
    if (scopeId && !close) {
      openCalls.add(scopeId);
      const gid = `g:${scopeId}`;
      const box = before.nodes.find((n) => n.id === gid);
      const at = positions.get(gid);
      positions.delete(gid);
      rebuildGraph({
        animate: true,
        place:
          box && at
            ? (graph) => {
                const opened = openInPlace(
                  graph.nodes,
                  graph.edges,
                  positions,
                  { ...at, w: box.w, h: box.h },
                  {
                    direction: layout.direction,
                    clusters: graph.frames,
                  },
                );
                if (opened.spread) {
                  // the other opened calls' places move with the rest of the graph
                  for (const [id, sp] of spreads) spreads.set(id, { ...sp, ...spreadPoint(sp, opened.spread) });
                  spreads.set(scopeId, opened.spread);
                }
                return opened.positions;
              }
            : null,
      });
      graphView.reveal(scopeId);
    } else {
      // the calls that close: those asked for and the open calls drawn inside them, undone the
      // last opened first, so the rest of the graph comes back where it was
      const asked = scopeId ? [scopeId] : [...openCalls];
      const frames = new Map(before.frames.map((f) => [f.id, f]));
      const within = (f, outer) => f !== outer && f.ids.every((id) => outer.ids.includes(id));
      const closing = [...frames.values()].filter((f) =>
        asked.some((a) => frames.has(a) && (a === f.id || within(f, frames.get(a)))),
      );
      const order = [...spreads.keys()].filter((id) => closing.some((f) => f.id === id)).reverse();
      for (const id of order) {
        const spread = spreads.get(id);
        spreads.delete(id);
        const moved = closeInPlace(positions, `g:${id}`, spread);
        positions.clear();
        for (const [k, p] of moved) positions.set(k, p);
        for (const [other, sp] of spreads) spreads.set(other, { ...sp, ...gatherPoint(sp, spread) });
      }
      // a call drawn open because it was open when its outer call opened: its box where its inside was
      for (const f of closing.filter((c) => !order.includes(c.id))) {
        const cards = before.nodes.filter((n) => f.ids.includes(n.id) && positions.has(n.id));
        const b = bounds(cards, positions);
        if (cards.length) positions.set(`g:${f.id}`, { x: b.x + b.w / 2, y: b.y + b.h / 2 });
      }
      if (scopeId) openCalls.delete(scopeId);
      else openCalls.clear();
      rebuildGraph({ animate: true });
    }
    closeCallsBtn.hidden = !openCalls.size;
    viewState.selection = existingIds(shown.graph, viewState.selection);
    graphView.setSelection(viewState.selection);
    pending = emptyChanges();
    pending.all = true;
    drawFrame(1);
  }

  function setDirection(direction) {
    layout.choice = direction;
    layout.direction = direction;
    if (!shown.timelineIndex) return;
    positions.clear();
    spreads.clear();
    fitted.clear();
    fitted.add(viewState.view);
    autoFit = true;
    rebuildGraph({ fit: true });
    pending = emptyChanges();
    pending.all = true;
    drawFrame(1);
  }

  /** The example's text folds once its program is edited, and hides once none of it is left. */
  function markEdited() {
    const edited = Boolean(shown.example) && shown.program !== shown.exampleProgram;
    explanation.setEdited(edited, edited && !keepsExample(shown.program, shown.exampleProgram));
  }

  function setExample(ex) {
    shown.example = ex || null;
    explanation.show(shown.example);
    if (ex) topBar.chooseExample(ex.id);
  }

  // -- view, share, link ----------------------------------------------------------------------

  function setView(view, { redraw = true } = {}) {
    if (view === viewState.view) return;
    // keep the selection across views: a tensor <-> its grad_fn (or its AccumulateGrad)
    const tensors = selectedTensors(shown.graph, viewState.selection);
    viewState.view = view;
    topBar.setView(view);
    if (!redraw || !shown.timelineIndex) return;
    shownMoment = -1;
    const fit = !fitted.has(view) || autoFit;
    fitted.add(view);
    rebuildGraph({ fit });
    viewState.selection = selectionInView(shown.timelineIndex, viewState.timelineState, shown.graph, tensors, view);
    graphView.setSelection(viewState.selection);
    updateTargets();
    pending = emptyChanges();
    pending.all = true;
    drawFrame(1);
    scheduleHash(true);
  }

  /** What a link records of the view: the program, the moment (its step and exact event) and the view. */
  function linkState(token) {
    const timelineIndex = shown.timelineIndex;
    const moment = timelineIndex && viewState.timelineState ? viewState.timelineState.pos : null;
    const step = moment != null ? stepOfMoment(timelineIndex, moment) : null;
    return { token, step, event: moment, view: viewState.view };
  }

  function scheduleHash(now = false) {
    clearTimeout(timers.hash);
    const write = () => {
      if (destroyed || !shown.token) return;
      const hash = formatHash(linkState(shown.token));
      topBar.setOtherHostHash(hash);
      if (!opts.syncUrl || hash === lastHash) return;
      lastHash = hash;
      try {
        hist.replaceState(hist.state, "", hash);
      } catch {
        /* a sandboxed frame may refuse; the link still works from the Share button */
      }
    };
    // even "now" is after the current task: replaceState with a long address took 15-20 ms,
    // which a reply's drawing need not wait for
    timers.hash = setTimeout(write, now ? 0 : 250);
  }

  async function share() {
    // The program on screen already has its token (every result carries one), so the link is
    // there at once; only text typed since the last run needs a round trip.
    let token = code.getProgram() === shown.program ? shown.token : null;
    if (!token) {
      const reply = await ask({ type: "share", program: code.getProgram() });
      if (!reply) return;
      if (reply.type !== "share") {
        showRequestError(reply);
        return;
      }
      token = reply.token;
    }
    shown.token = token;
    const link = shareLink(loc.href, linkState(token));
    let copied = false;
    try {
      if (navigator.clipboard?.writeText) {
        await navigator.clipboard.writeText(link);
        copied = true;
      }
    } catch {
      copied = false; // no clipboard permission (an http page, a test browser): the field has it
    }
    if (destroyed) return;
    topBar.showShareLink(link, copied);
    scheduleHash(true);
  }

  async function copyProgram() {
    try {
      await navigator.clipboard.writeText(code.getProgram());
      return true;
    } catch {
      return false; // no clipboard permission (an http page, a test browser)
    }
  }

  function downloadProgram() {
    // named after the example only while it is the example's program unchanged
    const program = code.getProgram();
    const ex = shown.example && program === shown.exampleProgram ? shown.example : null;
    const text = programFile(program, { title: ex?.title });
    const url = URL.createObjectURL(new Blob([text], { type: "text/x-python" }));
    const a = h("a", { href: url, download: programFileName(ex?.id), hidden: true });
    root.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  // -- wiring ---------------------------------------------------------------------------------

  canvas.addEventListener("wheel", () => (autoFit = false), { passive: true });
  canvas.addEventListener("pointerdown", () => (autoFit = false));

  function onKeyDown(ev) {
    if (ev.key === "Escape" && drawerOpen) {
      setDrawer(false);
      drawerBtn.focus();
      return;
    }
    if (destroyed || !shown.timelineIndex || ev.defaultPrevented || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    if (isTyping(ev, root)) return;
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
      playerCtl.seek(count());
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
    first = openToken(link.token, link);
    // The link's program is in the program pane while the host opens it (the in-browser host
    // starts Python first): the editor's work is done by then, not in the way of the graph.
    programOfToken(link.token).then((text) => {
      if (text !== null && !destroyed && !shown.program) code.setProgram(text);
    });
  } else if (opts.program) {
    code.setProgram(opts.program);
    first = run(opts.program, "initial").then(() => true);
  }
  const helloReady = first ? first.then(afterNextPaint).then(loadHello) : loadHello();
  Promise.all([first, helloReady]).then(([opened]) => {
    // no program to start with, or a link that cannot be opened (a working playground still):
    // the default example, which hello names
    if (!opened && !destroyed && !shown.program && hello) openExample(hello.default_example);
  });

  return {
    destroy() {
      destroyed = true;
      for (const timer of Object.values(timers)) clearTimeout(timer);
      playerCtl.dispose();
      document.removeEventListener("keydown", onKeyDown);
      topBar.destroy();
      programTools.destroy();
      consolePane.destroy();
      inspector.destroy();
      lossPanel.destroy();
      code.destroy();
      graphView.destroy();
      root.remove();
    },
    // for tests and notebooks: the moment and selection without reaching into the DOM
    get state() {
      return {
        program: shown.program,
        token: shown.token,
        view: viewState.view,
        pos: viewState.timelineState?.pos ?? 0,
        count: count(),
        selection: [...viewState.selection],
        playing,
      };
    },
  };
}
