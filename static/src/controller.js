// The playground's view state as pure functions of (reply, user intent): the moment, selection, camera target (no DOM).
//
// ui.js keeps the current values and hands them to the components; every decision about what
// to show lives here, so it can be tested in node on recorded timelines.

import { stepOfMoment, momentOfStep, momentOfLines, initialMoment, consoleAt, errorText } from "./timeline-state.js";
import { defaultTarget, numel, accumCallout, loopIteration, iterationsOf, firstName } from "./graph-model.js";

// An edit is played from its new line to the end when that is short; a long tail (a training
// loop after the edit) would take minutes at 1x, so the view jumps to the end instead.
export const AUTOPLAY_MAX_EVENTS = 240;

/** Replies that show a new program family: positions, fits and selection start over. */
export function isFresh(mode) {
  return mode === "example" || mode === "open" || mode === "new" || mode === "initial";
}

/**
 * While typing, a half-written line does not parse: the last graph stays (dimmed) with the error
 * shown, instead of vanishing at every keystroke. True when reply `timeline` is such a run.
 */
export function keepsLastGraph(mode, hasGraph, timeline) {
  return (
    mode === "run" && hasGraph && !timeline.steps?.length && ["syntax", "not_allowed"].includes(timeline.error?.kind)
  );
}

/**
 * The moment a reply opens at, and whether it plays from there: a link at its event (or its
 * step, or where it ends); an example just before its first backward; an edit from its first
 * changed line when the rest is short.
 */
export function momentForReply(timelineIndex, mode, { event = null, step = null, changedLines = [] } = {}) {
  const count = timelineIndex.count;
  if (mode === "new") return { moment: count, play: false };
  if (mode === "open") {
    if (event != null) return { moment: Math.max(0, Math.min(count, event)), play: false };
    return { moment: step != null ? momentOfStep(timelineIndex, step) : count, play: false };
  }
  if (isFresh(mode)) return { moment: initialMoment(timelineIndex), play: false };
  if (mode === "edit") {
    const from = momentOfLines(timelineIndex, changedLines);
    if (from != null && count - from <= AUTOPLAY_MAX_EVENTS && count > from) return { moment: from, play: true };
  }
  return { moment: count, play: false };
}

/** The selection after a click on node `id`: toggled in or out with `additive`, else only it. */
export function toggleSelection(selection, id, additive) {
  if (!additive) return [id];
  return selection.includes(id) ? selection.filter((x) => x !== id) : [...selection, id];
}

/** Ids of `ids` that are drawn in `graph`. */
export function existingIds(graph, ids) {
  if (!graph) return [];
  const drawn = new Set(graph.nodes.map((n) => n.id));
  return ids.filter((id) => drawn.has(id));
}

// Edits that make a tensor: after them the new tensor is selected.
const MAKING_EDITS = ["add_leaf", "add_op", "detach"];

/** The selection after a reply: none for a new program, what an edit made, else what still exists. */
export function selectionAfterReply(timelineIndex, graph, view, selection, { fresh, intent = null, madeName = null }) {
  if (fresh) return [];
  if (madeName && MAKING_EDITS.includes(intent?.op)) {
    const made = latestNodeNamed(timelineIndex, graph, view, madeName);
    if (made) return [made];
  }
  return existingIds(graph, selection);
}

/** The drawn node of the latest tensor called `name` (its grad_fn node in the autograd view). */
export function latestNodeNamed(timelineIndex, graph, view, name) {
  let best = null;
  for (const n of graph.nodes) {
    const t = n.tensor ? timelineIndex.tensors.get(n.tensor) : null;
    if (t && (t.name === name || (t.names || []).includes(name))) {
      if (view === "tensors" || n.kind !== "fn" || t.node === n.id) best = n.id;
    }
  }
  return best;
}

/** The tensor ids behind selected drawn nodes (to carry a selection across views). */
export function selectedTensors(graph, selection) {
  return selection.map((id) => graph?.nodes.find((n) => n.id === id)?.tensor).filter(Boolean);
}

/** The selection in `view` for tensors selected in the other view: a tensor <-> its grad_fn or AccumulateGrad. */
export function selectionInView(timelineIndex, state, graph, tensors, view) {
  const mapped = [];
  for (const t of tensors) {
    const record = state?.t.get(t);
    const id = view === "tensors" ? t : record?.node || timelineIndex.accOfTensor.get(t);
    if (id && graph.nodes.some((n) => n.id === id)) mapped.push(id);
  }
  return mapped;
}

/** The names of the selected tensors (the palette's inputs). */
export function selectedNames(timelineIndex, graph, selection) {
  return selection.map((id) => tensorOf(timelineIndex, graph, id)?.name).filter(Boolean);
}

function tensorOf(timelineIndex, graph, id) {
  const n = graph?.nodes.find((g) => g.id === id);
  return n?.tensor ? timelineIndex.tensors.get(n.tensor) : null;
}

/**
 * What the action bar acts on: the last selected tensor, else the program's default target
 * (its last scalar); null when there is none.
 */
export function actionTarget(timelineIndex, graph, selection) {
  const isDefault = !selection.length;
  const tensorId = isDefault
    ? defaultTarget(timelineIndex)
    : graph.nodes.find((n) => n.id === selection[selection.length - 1])?.tensor;
  const t = tensorId ? timelineIndex.tensors.get(tensorId) : null;
  if (!t) return null;
  const stmt = (timelineIndex.timeline.statements || []).find(
    (s) => s.line <= t.line && t.line <= (s.end_line ?? s.line),
  );
  return {
    name: t.name,
    label: t.name || "(unnamed)",
    isDefault,
    scalar: numel(t.shape) === 1,
    numel: numel(t.shape),
    shape: t.shape,
    line: stmt?.line ?? t.line,
    endLine: stmt?.end_line ?? t.line,
  };
}

/** The program's lines of the statement run at `moment` (none before the first event). */
export function stepLinesAt(timelineIndex, moment) {
  const step = timelineIndex.steps[stepOfMoment(timelineIndex, moment)];
  const lines = [];
  if (step && moment > 0) for (let l = step.line; l <= (step.end_line ?? step.line); l++) lines.push(l);
  return lines;
}

/**
 * The loop iteration drawn at `moment`: the one running, the first before the loop starts, the
 * last one begun after it ends; null for a program without loops.
 */
export function iterationAt(timelineIndex, moment) {
  const all = iterationsOf(timelineIndex);
  if (!all.length) return null;
  const here = loopIteration(timelineIndex, stepOfMoment(timelineIndex, moment));
  if (here != null && moment > 0) return here;
  let latest = null;
  for (let s = 0; s < timelineIndex.steps.length && timelineIndex.stepStart[s] < moment; s++) {
    const it = loopIteration(timelineIndex, s);
    if (it != null) latest = it;
  }
  return latest ?? all[0];
}

/**
 * The moment the iteration selector goes to for iteration `it`: just before its first backward
 * pass (as an example opens), else the end of the iteration.
 */
export function momentOfIteration(timelineIndex, it) {
  let first = null;
  let end = null;
  for (let s = 0; s < timelineIndex.steps.length; s++) {
    if (loopIteration(timelineIndex, s) !== it) continue;
    if (first == null) first = timelineIndex.stepStart[s];
    end = timelineIndex.stepEnd[s];
  }
  if (first == null) return null;
  const backward = timelineIndex.backwardStarts.find((i) => i >= first && i < end);
  return backward ?? end;
}

/**
 * The player bar's text for `moment`: the event count and the statement it belongs to. After a
 * failed run (`stale`) the graph is the last successful run's while the editor holds the new
 * program: a line number or a statement of the old program would point at the wrong code.
 */
export function momentText(timelineIndex, moment, stale = false) {
  const step = stepOfMoment(timelineIndex, moment);
  const stmt = timelineIndex.steps[step];
  const events = `event ${moment}/${timelineIndex.count}`;
  if (stale) return { step, events: `${events} of the last successful run`, code: null, line: null };
  return { step, events, code: stmt ? (stmt.text || "").split("\n")[0].slice(0, 60) : null, line: stmt?.line ?? null };
}

/**
 * The autograd node the backward pass is at in `state`: the last one running, else (between
 * two nodes) the one the last gradient was sent to; null outside a backward pass. Its drawn id
 * in `view` is `drawnIdOf(...)`.
 */
export function activeNode(state) {
  if (state?.running?.size) return [...state.running][state.running.size - 1];
  if (state?.bw && !state.bw.ended) return state.lastEdgeTo ?? null;
  return null;
}

/** The drawn id of autograd node `node` in `view` (its tensor's card in the tensor view). */
export function drawnIdOf(timelineIndex, view, node) {
  if (!node) return null;
  return view === "tensors" ? (timelineIndex.tensorOfNode.get(node) ?? null) : node;
}

/** What the camera keeps in view while playing: the active node (null: leave the camera alone). */
export function cameraTarget(timelineIndex, state, view) {
  return drawnIdOf(timelineIndex, view, activeNode(state));
}

/**
 * The leaf whose .grad was added to last in the backward pass shown (its card's drawn id in
 * `view`) and the full `x.grad: before + delta = after`; for a matrix also `heatmaps` (its
 * name and the three values); null before any accumulation.
 */
export function accumulationCallout(timelineIndex, state, view) {
  let latest = null;
  for (const [tensor, a] of state?.accum || []) if (!latest || a.pos > latest.a.pos) latest = { tensor, a };
  if (!latest) return null;
  const id = view === "tensors" ? latest.tensor : timelineIndex.accOfTensor.get(latest.tensor);
  if (!id) return null;
  const name = firstName(timelineIndex.tensors.get(latest.tensor)); // the name it was made with
  const text = accumCallout(name, latest.a);
  // a matrix reads better as three small heatmaps (values on hover) than as nested lists
  const matrix = [latest.a.before, latest.a.delta, latest.a.after].some((v) => v?.data && v.shape?.length === 2);
  const heatmaps = matrix
    ? { name: name || "(unnamed)", before: latest.a.before, delta: latest.a.delta, after: latest.a.after }
    : null;
  return { id, text, heatmaps };
}

// While typing, an error's underline shows with each run's reply, but its banner waits until
// the typing has paused this long: a half-typed line should not flash a banner at every key.
export const BANNER_PAUSE_MS = 900;

/**
 * How long the banner for a reply's error waits (ms): 0 for a reply to anything but typing, or
 * when the last key was pressed `pauseMs` or more before `now`.
 */
export function bannerDelay(mode, now, lastKeyAt, pauseMs = BANNER_PAUSE_MS) {
  if (mode !== "run" || lastKeyAt == null) return 0;
  return Math.max(0, lastKeyAt + pauseMs - now);
}

const KIND_TITLES = { syntax: "SyntaxError", not_allowed: "Not allowed", limit: "Limit reached" };

/** The banner title of a program error: Python's exception type, and where. */
export function errorTitle(err) {
  const where = err.line ? ` at line ${err.line}` : "";
  return `${err.type || KIND_TITLES[err.kind] || "Error"}${where}`;
}

const REQUEST_TITLES = {
  edit: "That edit cannot be made",
  share: "That link cannot be opened",
  protocol: "The host did not understand a request",
  limit: "The program was stopped",
  internal: "Something went wrong in the engine host",
};

/** The banner title of a host's refusal (an edit it cannot make, a link it cannot open...). */
export function requestErrorTitle(kind) {
  return REQUEST_TITLES[kind] || "Error";
}

/**
 * The console at `moment`: what was printed by then, and the program's error at once when it
 * was found before the run (syntax, not allowed). When the program on screen does not parse
 * (`staleError`), only its error: the graph shown is the last run's, its output is not.
 * `empty` is the text shown when there is nothing.
 */
export function consoleView(timelineIndex, moment, staleError = null) {
  // a program that does not parse printed nothing: the last run's output is not shown for it
  const items = staleError ? [] : consoleAt(timelineIndex, moment);
  const err = timelineIndex.timeline.error;
  const early = staleError || (err && !timelineIndex.consoleItems.some((c) => c.kind === "error") ? err : null);
  const all = early ? [...items, { kind: "error", text: errorText(early) + "\n" }] : items;
  const empty = timelineIndex.consoleItems.length ? "(nothing printed yet at this moment)" : "(nothing printed)";
  return { items: all, empty, key: `${items.length}|${early ? errorText(early) : ""}` };
}
