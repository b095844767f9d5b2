// What a card is marked with at a moment (pure): hooks that ran, retain_grad, no_grad, detach cuts, NaN/inf and where they began.
//
// Read from the timeline alone: a tensor made while grad mode was off (its step's
// grad_enabled), one made by detach() (op "detach"), one that retains its grad (its state), a
// hook registered on it and waiting to run (its state's `hooks`, timeline version 4), a hook
// event (what the hook got and returned), non-finite numbers in a value or in a gradient
// sent along an edge. Where a NaN or an infinity first appears is its origin: a tensor whose
// value has one while none of its inputs had, or a grad_fn that sent one while what it
// received was finite. Only the first origin of each kind is marked: the place to look first.

import { flatValues, shortValue } from "./format.js";

const cache = new WeakMap();

function nonFinite(value) {
  if (value == null) return false;
  if (value.summary) {
    const { min, max, mean } = value.summary;
    if ([min, max, mean].some((v) => typeof v === "string")) return true;
  }
  return flatValues(value).some((v) => !Number.isFinite(v));
}

/** The marks' sources for a timeline, found once: hooks by tensor, the first NaN origins. */
export function markIndex(timelineIndex) {
  if (cache.has(timelineIndex)) return cache.get(timelineIndex);
  const hooks = new Map(); // tensor id -> [{pos, gradIn, gradOut}]
  const created = new Map(); // tensor id -> whether its value at creation was non-finite
  let valueOrigin = null; // {tensor, pos}
  let gradOrigin = null; // {node, tensor, pos}
  const received = new Map(); // node id -> whether what it received in this backward was non-finite
  timelineIndex.events.forEach((ev, i) => {
    switch (ev.event) {
      case "tensor_created": {
        const bad = nonFinite(ev.value);
        created.set(ev.tensor, bad);
        if (bad && !valueOrigin && !(ev.inputs || []).some((t) => created.get(t))) {
          valueOrigin = { tensor: ev.tensor, pos: i + 1 };
        }
        break;
      }
      case "hook": {
        if (!hooks.has(ev.tensor)) hooks.set(ev.tensor, []);
        hooks.get(ev.tensor).push({ pos: i + 1, gradIn: ev.grad_in, gradOut: ev.grad_out });
        break;
      }
      case "backward_begin":
        received.clear();
        break;
      case "node_begin":
        received.set(ev.node, nonFinite(ev.gradient));
        break;
      case "edge":
        if (!gradOrigin && nonFinite(ev.gradient) && received.get(ev.from) === false) {
          gradOrigin = { node: ev.from, tensor: timelineIndex.tensorOfNode.get(ev.from) ?? null, pos: i + 1 };
        }
        break;
      default:
    }
  });
  const out = { hooks, valueOrigin, gradOrigin };
  cache.set(timelineIndex, out);
  return out;
}

/**
 * The marks on tensor `tensorId` (its state `rec`) at state `s`, in a fixed order:
 * [{kind, text}], kind one of hook-waiting (registered, not run yet), hook (ran), retain, nograd,
 * detach, nan, nan-origin, nan-grad-origin.
 * `node`: the autograd node drawn (the gradient's origin is marked on its grad_fn's card in the
 * autograd view, on its tensor in the tensor view).
 */
export function marksAt(timelineIndex, s, tensorId, rec, { node = null } = {}) {
  const marks = [];
  if (!tensorId || !rec) return marks;
  const entry = timelineIndex.tensors.get(tensorId);
  const idx = markIndex(timelineIndex);
  const ran = (idx.hooks.get(tensorId) || []).filter((hk) => hk.pos <= s.pos);
  if (ran.length) {
    const last = ran[ran.length - 1];
    const out = last.gradOut == null ? "None (grad unchanged)" : shortValue(last.gradOut, 24);
    marks.push({ kind: "hook", text: `hook got ${shortValue(last.gradIn, 24)}, returned ${out}` });
  } else if (rec.hooks > 0) {
    const n = rec.hooks === 1 ? "a hook" : `${rec.hooks} hooks`;
    marks.push({ kind: "hook-waiting", text: `register_hook: ${n} will run when its gradient is computed` });
  }
  if (rec.retains_grad && !rec.is_leaf) marks.push({ kind: "retain", text: "retain_grad(): keeps its .grad" });
  const step = entry ? timelineIndex.steps[entry.step] : null;
  if (step && step.grad_enabled === false && entry.op !== "seen") {
    marks.push({ kind: "nograd", text: "made under no_grad: no grad_fn" });
  }
  if (entry?.op === "detach") marks.push({ kind: "detach", text: "detach(): cut from the graph" });
  const origin = idx.valueOrigin;
  if (origin && origin.tensor === tensorId && s.pos >= origin.pos) {
    marks.push({ kind: "nan-origin", text: "NaN/inf starts here" });
  } else if (nonFinite(rec.value)) {
    marks.push({ kind: "nan", text: "value has NaN/inf" });
  }
  const g = idx.gradOrigin;
  if (g && s.pos >= g.pos && (node ? g.node === node : g.tensor === tensorId && !node)) {
    marks.push({ kind: "nan-grad-origin", text: "NaN/inf gradient starts here" });
  }
  return marks;
}
