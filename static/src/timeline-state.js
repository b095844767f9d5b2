// What the program had done at any moment of a run, derived from its timeline alone (pure, no DOM).
//
// A *moment* p is an integer in [0, count]: the first p engine events of the run have happened.
// The player walks p forward one event at a time (advance(), which also says what changed, so
// the view redraws only that); a jump anywhere (scrub, step back, a link) uses stateAt(), which
// starts from the nearest checkpoint instead of replaying the whole run.

const CHECKPOINT_EVERY = 256;

/** The id of the autograd edge an `edge` event travels: its source node and next_functions slot. */
export function edgeKey(from, index) {
  return `${from}#${index}`;
}

function nodeIdLike(s) {
  return typeof s === "string" && /^[na]:/.test(s);
}

/** Indexes a timeline once: flat events, step boundaries, births, console items, checkpoints. */
export function buildIndex(timeline) {
  const steps = timeline.steps || [];
  const events = [];
  const eventStep = [];
  const stepStart = [];
  const stepEnd = [];
  steps.forEach((step, s) => {
    stepStart.push(events.length);
    for (const ev of step.events || []) {
      events.push(ev);
      eventStep.push(s);
    }
    stepEnd.push(events.length);
  });

  const tensors = new Map();
  for (const t of timeline.nodes?.tensors || []) tensors.set(t.id, t);
  const nodes = new Map();
  const tensorOfNode = new Map();
  const accOfTensor = new Map();
  for (const n of timeline.nodes?.autograd || []) {
    nodes.set(n.id, n);
    const t = n.variable || n.tensor;
    if (t) tensorOfNode.set(n.id, t);
    if (n.variable) accOfTensor.set(n.variable, n.id);
  }

  // Births: a tensor exists from the moment after its tensor_created event; a tensor the
  // recorder met elsewhere (op "seen") from the end of the step that made it visible.
  const bornTensor = new Map();
  const bornNode = new Map();
  const consoleItems = [];
  const backwardStarts = [];
  events.forEach((ev, i) => {
    switch (ev.event) {
      case "tensor_created":
        if (!bornTensor.has(ev.tensor)) bornTensor.set(ev.tensor, i + 1);
        if (ev.node && !bornNode.has(ev.node)) bornNode.set(ev.node, i + 1);
        // a recorded op is where its leaf inputs' AccumulateGrad nodes come to be
        if (ev.node) {
          for (const inp of ev.inputs || []) {
            const acc = accOfTensor.get(inp);
            if (acc && !bornNode.has(acc)) bornNode.set(acc, i + 1);
          }
        }
        break;
      case "inplace":
        if (ev.node && !bornNode.has(ev.node)) bornNode.set(ev.node, i + 1);
        if (ev.base?.node && !bornNode.has(ev.base.node)) bornNode.set(ev.base.node, i + 1);
        break;
      case "print":
        consoleItems.push({ pos: i + 1, kind: "out", text: ev.text, step: eventStep[i] });
        break;
      case "warning":
        consoleItems.push({ pos: i + 1, kind: "warn", text: `${ev.category}: ${ev.message}\n`, step: eventStep[i] });
        break;
      case "error":
        consoleItems.push({ pos: i + 1, kind: "error", text: errorText(ev) + "\n", step: eventStep[i] });
        break;
      case "backward_begin":
        backwardStarts.push(i);
        break;
      default:
    }
  });
  const endOfStep = (s) => (s != null && s >= 0 && s < stepEnd.length ? stepEnd[s] : events.length);
  for (const t of tensors.values()) if (!bornTensor.has(t.id)) bornTensor.set(t.id, endOfStep(t.step));
  for (const n of nodes.values()) if (!bornNode.has(n.id)) bornNode.set(n.id, endOfStep(n.step));
  const timelineIndex = {
    timeline,
    steps,
    events,
    eventStep,
    stepStart,
    stepEnd,
    count: events.length,
    tensors,
    nodes,
    tensorOfNode,
    accOfTensor,
    bornTensor,
    bornNode,
    consoleItems,
    backwardStarts,
    checkpoints: [],
    initialRecords: initialRecords(tensors, events, nodes),
  };
  buildCheckpoints(timelineIndex);
  return timelineIndex;
}

export function errorText(err) {
  const where = err.line ? ` (line ${err.line})` : "";
  return `${err.type || kindLabel(err.kind)}${where}: ${err.message}`;
}

function kindLabel(kind) {
  return { syntax: "SyntaxError", not_allowed: "Not allowed", limit: "Limit" }[kind] || "Error";
}

function initialRecords(tensors, events, nodes) {
  const out = new Map();
  const created = new Map();
  for (const ev of events) if (ev.event === "tensor_created" && !created.has(ev.tensor)) created.set(ev.tensor, ev);
  for (const t of tensors.values()) {
    const ev = created.get(t.id);
    out.set(
      t.id,
      ev
        ? {
            value: ev.value,
            grad: null,
            version: 0,
            requires_grad: ev.requires_grad,
            is_leaf: !ev.node,
            retains_grad: false,
            node: ev.node,
            grad_fn: ev.node ? (nodes.get(ev.node)?.name ?? null) : null,
          }
        : {
            value: t.value,
            grad: t.grad,
            version: t.version,
            requires_grad: t.requires_grad,
            is_leaf: t.is_leaf,
            retains_grad: t.retains_grad,
            node: t.node,
            grad_fn: t.grad_fn,
          },
    );
  }
  return out;
}

function freshState(timelineIndex) {
  return {
    pos: 0,
    merged: 0,
    t: new Map(timelineIndex.initialRecords),
    bw: null,
    running: new Set(),
    ran: new Set(),
    incoming: new Map(),
    edgeGrad: new Map(),
    accum: new Map(),
    hooks: new Map(),
    errorNodes: new Set(),
    error: null,
    lastEdge: null,
    lastEdgeTo: null, // the node the last gradient was sent to (where the pass goes next)
  };
}

function cloneState(s) {
  return {
    pos: s.pos,
    merged: s.merged,
    t: new Map(s.t),
    bw: s.bw,
    running: new Set(s.running),
    ran: new Set(s.ran),
    incoming: new Map(s.incoming),
    edgeGrad: new Map(s.edgeGrad),
    accum: new Map(s.accum),
    hooks: new Map(s.hooks),
    errorNodes: new Set(s.errorNodes),
    error: s.error,
    lastEdge: s.lastEdge,
    lastEdgeTo: s.lastEdgeTo,
  };
}

function buildCheckpoints(timelineIndex) {
  const s = freshState(timelineIndex);
  mergeSteps(timelineIndex, s, null);
  timelineIndex.checkpoints.push(cloneState(s));
  while (s.pos < timelineIndex.count) {
    advance(timelineIndex, s);
    if (s.pos % CHECKPOINT_EVERY === 0) timelineIndex.checkpoints.push(cloneState(s));
  }
}

/** A new Changes record: which tensors, autograd nodes and autograd edges an update touched. */
export function emptyChanges() {
  return { tensors: new Set(), nodes: new Set(), edges: new Set(), all: false };
}

function setRecord(state, id, patch, changes) {
  const old = state.t.get(id);
  if (!old) return;
  state.t.set(id, { ...old, ...patch });
  changes?.tensors.add(id);
}

// Steps carry the authoritative state of each tensor they touched (retain_grad, requires_grad_,
// detach_ ... have no event of their own); it applies once all of the step's events have.
function mergeSteps(timelineIndex, state, changes) {
  while (state.merged < timelineIndex.steps.length && timelineIndex.stepEnd[state.merged] <= state.pos) {
    const st = timelineIndex.steps[state.merged].state || {};
    for (const [id, rec] of Object.entries(st)) {
      if (!state.t.has(id)) continue;
      const patch = {};
      for (const k of ["version", "grad", "requires_grad", "is_leaf", "retains_grad", "value", "hooks"]) {
        if (k in rec) patch[k] = rec[k];
      }
      if ("grad_fn" in rec) {
        const g = rec.grad_fn;
        if (g == null) {
          patch.grad_fn = null;
          patch.node = null;
        } else if (timelineIndex.nodes.has(g) || nodeIdLike(g)) {
          patch.node = g;
          patch.grad_fn = timelineIndex.nodes.get(g)?.name ?? g;
        } else {
          patch.grad_fn = g;
        }
      }
      setRecord(state, id, patch, changes);
    }
    state.merged += 1;
  }
}

function touchNodeAndTensor(timelineIndex, changes, node) {
  if (!changes || !node) return;
  changes.nodes.add(node);
  const t = timelineIndex.tensorOfNode.get(node);
  if (t) changes.tensors.add(t);
}

/** Applies the next event to `state` in place; returns what changed (for drawing only that). */
export function advance(timelineIndex, state, changes = emptyChanges()) {
  if (state.pos >= timelineIndex.count) return changes;
  const i = state.pos;
  const ev = timelineIndex.events[i];
  state.pos = i + 1;
  state.lastEdge = null;
  switch (ev.event) {
    case "tensor_created": {
      const rec = state.t.get(ev.tensor);
      if (rec) {
        setRecord(
          state,
          ev.tensor,
          {
            value: ev.value,
            requires_grad: ev.requires_grad,
            node: ev.node,
            is_leaf: !ev.node,
            grad_fn: ev.node ? (timelineIndex.nodes.get(ev.node)?.name ?? null) : null,
          },
          changes,
        );
      }
      if (ev.node) changes.nodes.add(ev.node);
      const acc = timelineIndex.accOfTensor.get(ev.tensor);
      if (acc) changes.nodes.add(acc);
      // a recorded op makes its inputs' AccumulateGrad nodes exist
      for (const inp of ev.inputs || []) {
        const a = timelineIndex.accOfTensor.get(inp);
        if (a) changes.nodes.add(a);
      }
      break;
    }
    case "inplace": {
      const rec = state.t.get(ev.tensor);
      if (rec) {
        setRecord(
          state,
          ev.tensor,
          {
            version: ev.version,
            value: ev.value ?? rec.value,
            grad_fn: ev.grad_fn ?? null,
            node: ev.node ?? null,
            is_leaf: ev.node ? false : rec.is_leaf,
            requires_grad: rec.requires_grad || Boolean(ev.node),
          },
          changes,
        );
      }
      if (ev.base && state.t.has(ev.base.tensor)) {
        setRecord(
          state,
          ev.base.tensor,
          { grad_fn: ev.base.grad_fn ?? null, node: ev.base.node ?? null, is_leaf: false },
          changes,
        );
      }
      if (ev.node) changes.nodes.add(ev.node);
      if (ev.base?.node) changes.nodes.add(ev.base.node);
      break;
    }
    case "grad_zeroed":
    case "grad_inplace":
      setRecord(state, ev.tensor, { grad: ev.grad }, changes);
      touchNodeAndTensor(timelineIndex, changes, timelineIndex.accOfTensor.get(ev.tensor));
      break;
    case "grad_assigned":
      setRecord(state, ev.tensor, { grad: ev.after }, changes);
      touchNodeAndTensor(timelineIndex, changes, timelineIndex.accOfTensor.get(ev.tensor));
      break;
    case "backward_begin": {
      // a new backward pass: what the last one left on the graph (gradients, visits) is cleared
      for (const n of state.ran) touchNodeAndTensor(timelineIndex, changes, n);
      for (const n of state.incoming.keys()) touchNodeAndTensor(timelineIndex, changes, n);
      for (const t of state.accum.keys())
        (changes.tensors.add(t), touchNodeAndTensor(timelineIndex, changes, timelineIndex.accOfTensor.get(t)));
      for (const k of state.edgeGrad.keys()) changes.edges.add(k);
      for (const id of state.errorNodes) (changes.nodes.add(id), changes.tensors.add(id));
      state.bw = {
        pos: i,
        api: ev.api,
        root: ev.root,
        roots: ev.roots || [ev.root],
        gradient: ev.gradient,
        retain_graph: ev.retain_graph,
        create_graph: ev.create_graph,
        ended: false,
        error: null,
      };
      state.running = new Set();
      state.ran = new Set();
      state.incoming = new Map();
      state.edgeGrad = new Map();
      state.accum = new Map();
      state.hooks = new Map();
      state.errorNodes = new Set();
      for (const r of state.bw.roots) if (r) changes.tensors.add(r);
      break;
    }
    case "node_begin":
      state.running.add(ev.node);
      state.ran.add(ev.node);
      state.incoming.set(ev.node, ev.gradient);
      touchNodeAndTensor(timelineIndex, changes, ev.node);
      break;
    case "edge": {
      const key = edgeKey(ev.from, ev.input_nr);
      state.edgeGrad.set(key, ev.gradient);
      state.lastEdge = key;
      state.lastEdgeTo = ev.to ?? null;
      changes.edges.add(key);
      touchNodeAndTensor(timelineIndex, changes, ev.to);
      break;
    }
    case "node_end":
      state.running.delete(ev.node);
      touchNodeAndTensor(timelineIndex, changes, ev.node);
      break;
    case "accumulate":
      setRecord(state, ev.tensor, { grad: ev.after }, changes);
      state.accum.set(ev.tensor, { before: ev.before, delta: ev.delta, after: ev.after, pos: i });
      touchNodeAndTensor(timelineIndex, changes, timelineIndex.accOfTensor.get(ev.tensor));
      break;
    case "hook":
      state.hooks.set(ev.tensor, { grad_in: ev.grad_in, grad_out: ev.grad_out });
      changes.tensors.add(ev.tensor);
      break;
    case "backward_end":
      if (state.bw) state.bw = { ...state.bw, ended: true, error: ev.error };
      if (ev.error) {
        // the node that was running when the pass failed, and the tensor it started from
        for (const n of state.running) state.errorNodes.add(n);
        if (state.bw?.root) state.errorNodes.add(state.bw.root);
      }
      for (const n of state.running) touchNodeAndTensor(timelineIndex, changes, n);
      for (const id of state.errorNodes) (changes.nodes.add(id), changes.tensors.add(id));
      state.running = new Set();
      break;
    case "error":
      state.error = ev;
      if (!state.errorNodes.size) {
        for (const id of errorTargets(timelineIndex, state, i)) state.errorNodes.add(id);
      }
      for (const id of state.errorNodes) {
        changes.nodes.add(id);
        changes.tensors.add(id);
        const n = state.t.get(id)?.node;
        if (n) changes.nodes.add(n);
      }
      break;
    default:
  }
  mergeSteps(timelineIndex, state, changes);
  return changes;
}

// For an error outside backward (an in-place op on a leaf, a shape mismatch), the tensors the
// failing statement was about: the names it assigns, else the names its text mentions (at most
// two, the latest tensor bound to each).
function errorTargets(timelineIndex, state, i) {
  const step = timelineIndex.steps[timelineIndex.eventStep[i]];
  const stmt = step && timelineIndex.timeline.statements?.[step.statement];
  let names = stmt?.targets || [];
  if (!names.length && step?.text) names = step.text.match(/[A-Za-z_][A-Za-z0-9_]*/g) || [];
  const out = [];
  for (const name of names) {
    let best = null;
    for (const t of timelineIndex.tensors.values()) {
      if (!(t.names || []).includes(name) || timelineIndex.bornTensor.get(t.id) > state.pos) continue;
      if (!best || timelineIndex.bornTensor.get(t.id) >= timelineIndex.bornTensor.get(best.id)) best = t;
    }
    if (best && !out.includes(best.id)) out.push(best.id);
  }
  return out.slice(0, 2);
}

/** The state at a moment (a fresh object the caller may keep advancing). */
export function stateAt(timelineIndex, moment) {
  const pos = Math.max(0, Math.min(timelineIndex.count, moment | 0));
  const k = Math.floor(pos / CHECKPOINT_EVERY);
  const s = cloneState(timelineIndex.checkpoints[Math.min(k, timelineIndex.checkpoints.length - 1)]);
  const scratch = emptyChanges();
  while (s.pos < pos) advance(timelineIndex, s, scratch);
  return s;
}

export function tensorExists(timelineIndex, id, pos) {
  const b = timelineIndex.bornTensor.get(id);
  return b !== undefined && b <= pos;
}

export function nodeExists(timelineIndex, id, pos) {
  const b = timelineIndex.bornNode.get(id);
  return b !== undefined && b <= pos;
}

/** Where a run opens: just before its first backward pass (so Play shows it), else at its end. */
export function initialMoment(timelineIndex) {
  return timelineIndex.backwardStarts.length ? timelineIndex.backwardStarts[0] : timelineIndex.count;
}

/** The moment a link's step index `s` means: that step has fully run. */
export function momentOfStep(timelineIndex, s) {
  if (!timelineIndex.stepEnd.length) return 0;
  const k = Math.max(0, Math.min(timelineIndex.stepEnd.length - 1, s | 0));
  return timelineIndex.stepEnd[k];
}

/** The step a moment belongs to: the one whose event happened last (0 before anything). */
export function stepOfMoment(timelineIndex, moment) {
  if (moment <= 0 || !timelineIndex.count)
    return moment >= timelineIndex.count && timelineIndex.steps.length ? timelineIndex.steps.length - 1 : 0;
  if (moment >= timelineIndex.count)
    return Math.max(
      timelineIndex.eventStep[timelineIndex.count - 1],
      lastStepEndingAt(timelineIndex, timelineIndex.count),
    );
  return timelineIndex.eventStep[moment - 1];
}

function lastStepEndingAt(timelineIndex, moment) {
  let s = 0;
  for (let k = 0; k < timelineIndex.stepEnd.length; k++) if (timelineIndex.stepEnd[k] <= moment) s = k;
  return s;
}

/** The moment at which the first step on one of `lines` starts (for auto-playing an edit). */
export function momentOfLines(timelineIndex, lines) {
  const want = new Set(lines);
  for (let s = 0; s < timelineIndex.steps.length; s++) {
    const st = timelineIndex.steps[s];
    for (let l = st.line; l <= (st.end_line ?? st.line); l++) {
      if (want.has(l)) return timelineIndex.stepStart[s];
    }
  }
  return null;
}

/** Console items (printed text, warnings, the error) that have happened by that moment. */
export function consoleAt(timelineIndex, moment) {
  let n = 0;
  while (n < timelineIndex.consoleItems.length && timelineIndex.consoleItems[n].pos <= moment) n++;
  return timelineIndex.consoleItems.slice(0, n);
}

/** The .grad history of one tensor: every change with its moment (for the inspector). */
export function gradHistory(timelineIndex, tensorId) {
  const out = [];
  timelineIndex.events.forEach((ev, i) => {
    if (ev.tensor !== tensorId) return;
    if (ev.event === "accumulate")
      out.push({
        pos: i + 1,
        kind: "accumulate",
        before: ev.before,
        delta: ev.delta,
        after: ev.after,
        step: timelineIndex.eventStep[i],
      });
    else if (ev.event === "grad_zeroed" || ev.event === "grad_inplace")
      out.push({ pos: i + 1, kind: ev.event, op: ev.op, after: ev.grad, step: timelineIndex.eventStep[i] });
    else if (ev.event === "grad_assigned")
      out.push({ pos: i + 1, kind: ev.event, before: ev.before, after: ev.after, step: timelineIndex.eventStep[i] });
  });
  return out;
}
