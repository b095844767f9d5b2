// The loss over a run: each backward() call's root value, with its loop iteration (pure, no DOM).
//
// A training loop calls loss.backward() once per step; the value of the tensor backward starts
// from is the loss. Only `backward_begin` events of api "backward" count (torch.autograd.grad
// does not fill .grad and is rarely the loss), and only one-element roots (a loss is a scalar;
// a root with a `gradient=` argument is not). The iterations of a long loop that kept no detail
// (a step of kind "iterations", timeline version 3) have no events: their values come from the
// loop's `backward` series in the timeline's `loops`.

import { num, ElementFormatter } from "./format.js";

/** A plot of the loss is worth showing from this many points on. */
export const MIN_LOSS_POINTS = 2;

function numel(shape) {
  let n = 1;
  for (const d of shape || []) n *= d;
  return n;
}

/** The number in a one-element tensor value (NaN/±Infinity for the JSON strings), else null. */
export function scalarOf(value) {
  if (!value || value.summary || numel(value.shape) !== 1) return null;
  let v = value.data;
  while (Array.isArray(v)) {
    if (v.length !== 1) return null;
    v = v[0];
  }
  v = num(v);
  return typeof v === "number" ? v : null;
}

/** A loss as torch prints a 0-dim tensor's number (`0.2512`, `1.2346e-05`, `nan`). */
export function formatLoss(v, dtype = "float32") {
  return new ElementFormatter([v], dtype).bare(v);
}

/**
 * The backward roots' values over the run of an index (timeline-state.js buildIndex):
 *
 *   {points: [{k, at, step, line, loop, root, name, value, text, dtype}], name, loop}
 *
 * `k` counts the points from 0 (the x of a plot: a training loop's step when it runs from 0),
 * `at` is the index of the backward_begin event (the point is in the past at moments > at),
 * `step`/`line` the statement that called backward, `loop` its loop iterations (outermost
 * first), `value` the root's number when backward began (NaN/Infinity kept), `text` it as torch
 * prints it. `name` is the roots' common name (or null), `loop` whether every call was in a loop.
 */
export function lossSeries(timelineIndex) {
  const points = [];
  const latest = new Map(); // tensor id -> its latest value so far
  let e = 0;
  timelineIndex.steps.forEach((step, s) => {
    for (; e < timelineIndex.stepEnd[s]; e++) {
      const ev = timelineIndex.events[e];
      if ((ev.event === "tensor_created" || ev.event === "inplace") && ev.value) {
        latest.set(ev.tensor, ev.value);
      } else if (ev.event === "backward_begin" && ev.api === "backward" && ev.root) {
        const entry = timelineIndex.tensors.get(ev.root);
        const value = latest.get(ev.root) ?? entry?.value ?? null;
        const v = scalarOf(value);
        if (v == null) continue;
        points.push({
          k: points.length,
          at: e,
          step: s,
          line: step.line,
          loop: [...(step.loop || [])],
          root: ev.root,
          name: entry?.name ?? null,
          value: v,
          text: formatLoss(v, value.dtype),
          dtype: value.dtype,
        });
      }
    }
    if (step.iterations) quietPoints(timelineIndex, step, s, points);
    // `.data = ...` changes a value with no event of its own: the step's state says so
    for (const [id, rec] of Object.entries(step.state || {})) if (rec?.value) latest.set(id, rec.value);
  });
  const names = new Set(points.map((p) => p.name));
  return {
    points,
    name: names.size === 1 ? [...names][0] : null,
    loop: points.length > 0 && points.every((p) => p.loop.length > 0),
  };
}

/** The loop entry (timeline `loops`) of a step of kind "iterations": same header, same enclosing iterations. */
function loopOfStep(timeline, step) {
  const outer = (step.loop || []).slice(0, -1);
  return (timeline?.loops || []).find(
    (l) => l.statement === step.statement && l.loop.length === outer.length && l.loop.every((v, i) => v === outer[i]),
  );
}

/** The points of the iterations a step of kind "iterations" ran, after the points before it. */
function quietPoints(timelineIndex, step, s, points) {
  const entry = loopOfStep(timelineIndex.timeline, step);
  if (!entry) return;
  const before = points[points.length - 1];
  const outer = (step.loop || []).slice(0, -1);
  const at = Math.max(timelineIndex.stepEnd[s] - 1, timelineIndex.stepStart[s]);
  for (let i = step.iterations[0]; i <= step.iterations[1]; i++) {
    const v = num(entry.backward[i] ?? null);
    if (typeof v !== "number") continue;
    const dtype = before?.dtype ?? "float32";
    points.push({
      k: points.length,
      at,
      step: s,
      line: step.line,
      loop: [...outer, i],
      root: null,
      name: before?.name ?? null,
      value: v,
      text: formatLoss(v, dtype),
      dtype,
    });
  }
}

/**
 * Whether a run's series makes a loss plot: a training loop's, so MIN_LOSS_POINTS backward calls
 * with scalar roots made inside loops (two backward() calls written one after the other, as the
 * lessons on accumulation do, are not a loss curve).
 */
export function hasLossPlot(series) {
  return series.points.filter((p) => p.loop.length > 0).length >= MIN_LOSS_POINTS;
}

/** How many points have happened by moment `pos` (their backward began): a binary search. */
export function lossPointsAt(series, pos) {
  const pts = series.points;
  let lo = 0;
  let hi = pts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (pts[mid].at < pos) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A point's x on the plot and its name: in a training loop the iteration counted from 1, as the
 * player's iteration selector counts them ("iteration 2 of 6"); else the backward() call's index.
 */
/**
 * The point the plot rings as the one shown: with a loop `iteration` drawn, that iteration's
 * backward() call (its last one computed by moment `pos`, else its first: the graph shown is
 * this iteration's even before its loss is computed); without one, the last call before `pos`.
 */
export function currentLossPoint(series, pos, iteration = null) {
  const n = lossPointsAt(series, pos);
  if (iteration != null && series.loop) {
    const mine = series.points.filter((p) => p.loop[0] === iteration);
    // (no `??` straight after `return [`: Panel's second compile of the bundle turns the
    // minified `return[...]??b` into a call glued to `return`)
    const computed = [...mine].reverse().find((p) => p.k < n);
    if (mine.length) return computed || mine[0];
  }
  return n ? series.points[n - 1] : null;
}

export function lossX(series, p) {
  return series.loop ? p.k + 1 : p.k;
}

export function lossName(series, p) {
  return series.loop ? `iteration ${p.k + 1}` : `step ${p.k}`;
}

/** The hover text of a point: its iteration, its value and where it was computed. */
export function lossTip(series, p) {
  const where = p.loop.length ? `line ${p.line}, iteration ${p.loop.map((i) => i + 1).join(".")}` : `line ${p.line}`;
  return `${lossName(series, p)}: ${series.name || "loss"} = ${p.text} (${where})`;
}
