// The graph to draw for a view (tensors or autograd) and what each node and edge shows at a moment (pure).

import { edgeKey, tensorExists, nodeExists } from "./timeline-state.js";
import { shortValue, shapeText, flatValues } from "./format.js";
import { marksAt } from "./graph-marks.js";

export const NODE_W = 208;
export const NODE_H = 114;

const ACC = "torch::autograd::AccumulateGrad";

/** torch's node names without the namespace, as `print(x.grad_fn)` users read them. */
export function shortNodeName(name) {
  if (!name) return "";
  return name.replace(/^torch::autograd::/, "");
}

/**
 * Nodes and edges of one view. Edge ids are built from the stable timeline ids, so the DOM keys
 * survive re-runs. `layoutFrom`/`layoutTo` orient the layout so leaves sit on the left in both
 * views: the autograd view's edges point from a node to its next_functions (towards the leaves).
 */
export function buildGraph(timelineIndex, view, { iteration = null, expanded = new Set() } = {}) {
  const tl = timelineIndex.timeline;
  const nodes = [];
  const edges = [];
  const flight = new Map(); // autograd edge key -> drawn edge id, for the gradient in flight
  // a loop's iterations are drawn one at a time: what other iterations made is left out
  const shown = (step) =>
    iteration == null || loopIteration(timelineIndex, step) == null || loopIteration(timelineIndex, step) === iteration;
  if (view === "autograd") {
    for (const n of tl.nodes?.autograd || []) {
      // an AccumulateGrad belongs to its leaf, which outlives the iterations that use it
      const step = n.variable ? (timelineIndex.tensors.get(n.variable)?.step ?? n.step) : n.step;
      if (!shown(step)) continue;
      const t = n.variable || n.tensor;
      const tensor = t ? timelineIndex.tensors.get(t) : null;
      nodes.push({
        id: n.id,
        kind: n.name === ACC ? "acc" : "fn",
        name: tensor?.name ?? "",
        tensor: t,
        node: n.id,
        w: NODE_W,
        h: NODE_H,
      });
    }
    const drawn = new Set(nodes.map((n) => n.id));
    for (const e of tl.edges?.autograd || []) {
      if (!drawn.has(e.from) || !drawn.has(e.to)) continue;
      const id = edgeKey(e.from, e.index);
      edges.push({ id, from: e.from, to: e.to, key: id, layoutFrom: e.to, layoutTo: e.from, gradAlong: true });
      flight.set(id, id);
    }
  } else {
    for (const t of tl.nodes?.tensors || []) {
      if (!shown(t.step)) continue;
      nodes.push({ id: t.id, kind: "tensor", name: t.name ?? "", tensor: t.id, node: null, w: NODE_W, h: NODE_H });
    }
    const seen = new Map();
    const byEnds = new Map(); // "from>to" -> [edge] to match gradients onto tensor edges
    const drawn = new Set(nodes.map((n) => n.id));
    for (const e of tl.edges?.tensors || []) {
      if (!drawn.has(e.from) || !drawn.has(e.to)) continue;
      let id = `${e.from}>${e.to}#${e.index}${e.inplace ? "~" : ""}`;
      const n = seen.get(id) || 0;
      seen.set(id, n + 1);
      if (n) id += `.${n}`;
      const edge = {
        id,
        from: e.from,
        to: e.to,
        index: e.index,
        inplace: e.inplace,
        recorded: e.recorded,
        op: e.op,
        step: e.step,
        layoutFrom: e.from,
        layoutTo: e.to,
        gradAlong: false,
      };
      edges.push(edge);
      const k = `${e.from}>${e.to}`;
      if (!byEnds.has(k)) byEnds.set(k, []);
      byEnds.get(k).push(edge);
    }
    // a gradient on autograd edge (node -> next, slot i) runs from the node's tensor back to
    // the next node's tensor, along the tensor edge feeding input i
    for (const e of tl.edges?.autograd || []) {
      const out = timelineIndex.tensorOfNode.get(e.from);
      const inp = timelineIndex.tensorOfNode.get(e.to);
      if (!out || !inp) continue;
      const cands = byEnds.get(`${inp}>${out}`) || [];
      const pick =
        cands.find((c) => c.index === e.index && !c.inplace) || cands.find((c) => c.index === e.index) || cands[0];
      if (pick) flight.set(edgeKey(e.from, e.index), pick.id);
    }
  }
  const keyOfEdge = new Map();
  for (const [k, id] of flight) keyOfEdge.set(id, k);
  return collapseCalls(timelineIndex, { view, nodes, edges, flight, keyOfEdge }, expanded);
}

/**
 * The calls of a timeline that can be drawn as one box (timeline `scopes`): module calls and the
 * program's own function calls. A module's own `forward` (a function call whose parent is the
 * module call) is not a box of its own: the module's box already stands for it.
 */
export function callScopes(timelineIndex) {
  const all = new Map((timelineIndex.timeline.scopes || []).map((sc) => [sc.id, sc]));
  return [...all.values()].filter(
    (sc) => sc.kind === "module" || (sc.kind === "function" && all.get(sc.parent)?.kind !== "module"),
  );
}

/** What a call was given, as its box's title shows it: tensors by name, other values as text. */
export function callArgs(timelineIndex, sc) {
  const nameOf = (t) => timelineIndex.tensors.get(t)?.name || "(unnamed)";
  // a method's `self` and a Function's `ctx` are not what the learner passed
  const given = sc.args.filter((a, i) => !(i === 0 && (a.name === "self" || a.name === "ctx")));
  return given
    .filter((a) => a.tensor || (sc.kind === "function" && a.value != null))
    .map((a) => (a.tensor ? nameOf(a.tensor) : a.value));
}

/** A call's title on its box: `energy(x, b, 0.5)`. */
export function callTitle(timelineIndex, sc) {
  return `${sc.name}(${callArgs(timelineIndex, sc).join(", ")})`;
}

// A call's box is as wide as its title needs at the compact level of detail (24-unit bold
// type, about 14.2 units a character, graph-view.js), up to GROUP_MAX_W.
export const COMPACT_CHAR_W = 14.2;
const GROUP_MAX_W = 400;

/** The width of a call's box with title `title`. */
export function callBoxWidth(title) {
  return Math.max(NODE_W, Math.min(GROUP_MAX_W, Math.ceil(28 + COMPACT_CHAR_W * title.length)));
}

/**
 * Each call not in `expanded` (scope ids; a call inside a closed one is closed with it) drawn as
 * one box, `g:<scope id>`: what it made inside is left out; its inputs (the tensors given to it,
 * the parameters it used), what it returned and what it made that is used outside it (a tensor
 * kept on `self`, a parameter made in `__init__`) stay, joined to the box. The gradients
 * travelling inside are not drawn; the box lights up while its nodes run. Open calls are listed
 * in `frames` with the drawn ids inside them, so the view can outline each and close it again.
 */
function collapseCalls(timelineIndex, graph, expanded) {
  const scopes = callScopes(timelineIndex);
  if (!scopes.length) return { ...graph, groups: [], ownerOf: new Map(), frames: [] };
  const byId = new Map(scopes.map((sc) => [sc.id, sc]));
  const all = new Map((timelineIndex.timeline.scopes || []).map((sc) => [sc.id, sc]));
  const autograd = graph.view === "autograd";
  // the outermost closed call of each scope (null: drawn open)
  const closedIn = (sc) => {
    let found = null;
    for (let c = sc; c; c = all.get(c.parent)) if (byId.has(c.id) && !expanded.has(c.id)) found = c;
    return found;
  };
  const owner = new Map(); // drawn id -> the group that takes it in
  const madeIn = new Map(); // drawn id -> the closed call that made it, what it returned included
  const groups = new Map(); // group id -> {scope, members, nodes}
  for (const sc of all.values()) {
    const top = closedIn(sc);
    if (!top) continue;
    const gid = `g:${top.id}`;
    if (!groups.has(gid)) groups.set(gid, { scope: top, members: [], nodes: [] });
    const g = groups.get(gid);
    g.nodes.push(...(sc.nodes || []));
    const kept = new Set(
      autograd ? top.returned.map((t) => timelineIndex.tensors.get(t)?.node).filter(Boolean) : top.returned,
    );
    for (const id of (autograd ? sc.nodes : sc.tensors) || []) {
      madeIn.set(id, gid);
      if (kept.has(id)) continue;
      owner.set(id, gid);
      g.members.push(id);
    }
  }
  // what a call made and something outside it uses stays drawn: it is one of the call's outputs
  // (in the autograd view an edge runs from the user to what it uses)
  for (const e of graph.edges) {
    const [made, user] = autograd ? [e.to, e.from] : [e.from, e.to];
    const g = owner.get(made);
    if (g && madeIn.get(user) !== g) owner.delete(made);
  }
  for (const g of groups.values()) g.members = g.members.filter((id) => owner.has(id));
  const drawn = new Set(graph.nodes.map((n) => n.id));
  const nodes = graph.nodes.filter((n) => !owner.has(n.id));
  for (const [gid, g] of groups) {
    if (!g.members.some((id) => drawn.has(id))) continue;
    nodes.push({
      id: gid,
      kind: "group",
      name: g.scope.name,
      tensor: null,
      node: null,
      scope: g.scope,
      members: g.members.filter((id) => drawn.has(id)),
      inside: g.nodes,
      w: callBoxWidth(callTitle(timelineIndex, g.scope)),
      h: NODE_H,
    });
  }
  const shownIds = new Set(nodes.map((n) => n.id));
  for (const [id, gid] of owner) if (!shownIds.has(gid)) owner.delete(id);
  const edges = [];
  const renamed = new Map(); // an edge's id -> the id it is drawn under
  const seen = new Set();
  const dropped = new Set();
  for (const e of graph.edges) {
    const from = owner.get(e.from) ?? e.from;
    const to = owner.get(e.to) ?? e.to;
    if (from === to) {
      dropped.add(e.id); // inside the box
      continue;
    }
    if (from === e.from && to === e.to) {
      edges.push(e);
      continue;
    }
    const id = `${from}>${to}#call`;
    renamed.set(e.id, id);
    if (seen.has(id)) continue;
    seen.add(id);
    const layout = e.gradAlong ? { layoutFrom: to, layoutTo: from } : { layoutFrom: from, layoutTo: to };
    edges.push({ ...e, id, key: id, from, to, ...layout });
  }
  const flight = new Map();
  for (const [k, id] of graph.flight) if (!dropped.has(id)) flight.set(k, renamed.get(id) ?? id);
  const keyOfEdge = new Map();
  for (const [k, id] of flight) if (!keyOfEdge.has(id)) keyOfEdge.set(id, k);
  const groupIds = nodes.filter((n) => n.kind === "group").map((n) => n.id);
  return { ...graph, nodes, edges, flight, keyOfEdge, groups: groupIds, ownerOf: owner, frames: openFrames() };

  // every open call with what is drawn inside it (its own and its open children's, or their boxes)
  function openFrames() {
    const frames = [];
    for (const sc of scopes) {
      if (!expanded.has(sc.id) || closedIn(sc)) continue;
      const ids = new Set();
      for (const inner of all.values()) {
        let c = inner;
        while (c && c.id !== sc.id) c = all.get(c.parent);
        if (!c) continue;
        for (const id of (autograd ? inner.nodes : inner.tensors) || []) {
          const shown = owner.get(id) ?? id;
          if (shownIds.has(shown)) ids.add(shown);
        }
      }
      if (ids.size)
        frames.push({ id: sc.id, title: `${sc.name}(${callArgs(timelineIndex, sc).join(", ")})`, ids: [...ids] });
    }
    return frames;
  }
}

/** The iteration of the outermost loop that step `s` ran in (null outside loops). */
export function loopIteration(timelineIndex, s) {
  const loop = timelineIndex.steps[s]?.loop;
  return loop?.length ? loop[0] : null;
}

const iterationsCache = new WeakMap(); // an index's iterations, asked for at every frame while playing

/** The outermost loop's iterations, in order (empty for a program without loops). */
export function iterationsOf(timelineIndex) {
  if (iterationsCache.has(timelineIndex)) return iterationsCache.get(timelineIndex);
  const out = [];
  for (let s = 0; s < timelineIndex.steps.length; s++) {
    const it = loopIteration(timelineIndex, s);
    if (it != null && !out.includes(it)) out.push(it);
  }
  iterationsCache.set(timelineIndex, out);
  return out;
}

/**
 * A drawn id without its iteration (`t:d1ac16@2:1` -> `t:d1ac16:1`): the same statement's
 * result in every iteration, which keeps one place on the canvas from one iteration to the next.
 */
export function roleOf(id) {
  return id.replace(/@[^:#>]*/g, "");
}

/** Characters of the card's last line (11 px monospace from x = 14 on a NODE_W card). */
export const EXTRA_CHARS = 28;

/**
 * The card's last line at an accumulation, under its `.grad` row that shows the sum:
 * `= before + delta`. Both numbers in full when they fit; else the room is shared out, the
 * shorter one giving what it does not need to the other. (The callout has the whole sum.)
 */
export function accumText(a, room = EXTRA_CHARS) {
  const parts = [a.before, a.delta].map((v) => shortValue(v, 4000));
  const left = room - 5; // "= " and " + "
  const short = parts[0].length <= parts[1].length ? 0 : 1;
  const budget = [0, 0];
  budget[short] = Math.min(parts[short].length, Math.floor(left / 2));
  budget[1 - short] = left - budget[short];
  const fit = (v, i) => (parts[i].length <= budget[i] ? parts[i] : shortValue(v, Math.max(budget[i], 4)));
  return `= ${fit(a.before, 0)} + ${fit(a.delta, 1)}`;
}

/**
 * The accumulation at a leaf in full (`x.grad: [2., 4.] + [3., 3.] = [5., 7.]`), for the callout
 * that wraps instead of cutting the numbers short; null when nothing accumulated.
 */
export function accumCallout(name, a) {
  if (!a) return null;
  const full = (v) => shortValue(v, 4000);
  return `${name || "(unnamed)"}.grad: ${full(a.before)} + ${full(a.delta)} = ${full(a.after)}`;
}

// How many of a .grad's numbers the compact card's chip shows (one cell each).
const CHIP_CELLS = 8;

/** The first numbers of a .grad for the compact card's chip; null when there is no .grad. */
export function gradChip(value) {
  if (value == null) return null;
  return flatValues(value).slice(0, CHIP_CELLS);
}

function tensorClass(rec, entry) {
  if (entry?.kind === "grad") return "gradt";
  if (!rec.requires_grad) return "const";
  if (rec.is_leaf) return entry?.kind === "parameter" ? "param" : "leaf";
  return "nonleaf";
}

/** Every string and flag a node card shows at state `s` (the view compares and writes only changes). */
export function nodeDisplay(timelineIndex, s, gnode) {
  if (gnode.kind === "group") return groupDisplay(timelineIndex, s, gnode);
  if (gnode.kind === "tensor") return tensorDisplay(timelineIndex, s, gnode);
  return autogradDisplay(timelineIndex, s, gnode);
}

/** The name a tensor was created with (its first; `name` is the latest), or "" for none. */
export function firstName(entry) {
  return entry?.names?.[0] || entry?.name || "";
}

/**
 * A tensor's title: the name it was created with, and the latest other name it got after it
 * (`h = x` makes x's card `x (also h)`): a learner looks for the name that made it.
 */
export function tensorTitle(entry) {
  const first = firstName(entry);
  const latest = entry?.name;
  return latest && latest !== first ? `${first} (also ${latest})` : first;
}

function tensorDisplay(timelineIndex, s, g) {
  const entry = timelineIndex.tensors.get(g.tensor);
  const rec = s.t.get(g.tensor);
  const exists = tensorExists(timelineIndex, g.tensor, s.pos);
  const acc = timelineIndex.accOfTensor.get(g.tensor);
  const own = rec.node;
  const ran = (own && s.ran.has(own)) || (acc && s.ran.has(acc));
  const running = (own && s.running.has(own)) || (acc && s.running.has(acc));
  const incoming = (acc && s.incoming.get(acc)) || (own && s.incoming.get(own)) || null;
  const accum = s.accum.get(g.tensor) || null;
  const error = s.errorNodes.has(g.tensor) || (own && s.errorNodes.has(own));
  const cls = tensorClass(rec, entry);
  const { extra, extraKind } = extraLine(accum, incoming);
  const badges = [];
  if (rec.is_leaf) badges.push("leaf");
  if (rec.requires_grad) badges.push("requires_grad");
  if (rec.retains_grad) badges.push("retains_grad");
  if (rec.version) badges.push(`v${rec.version}`);
  return {
    exists,
    cls,
    name: entry?.name ?? "",
    title: tensorTitle(entry) || "(unnamed)",
    shape: `${entry?.dtype ?? ""}${shapeText(rec.value?.shape ?? entry?.shape)}`,
    gradFn: rec.grad_fn ? shortNodeName(rec.grad_fn) : "None",
    badges: badges.join(" · "),
    value: shortValue(rec.value, 20),
    grad: shortValue(rec.grad, 20),
    hasGrad: rec.grad != null,
    chip: gradChip(rec.grad),
    callout: accumCallout(firstName(entry), accum),
    marks: marksAt(timelineIndex, s, g.tensor, rec),
    extra,
    extraKind,
    running: Boolean(running),
    ran: Boolean(ran),
    error: Boolean(error),
    root: Boolean(s.bw && !s.bw.ended && s.bw.roots.includes(g.tensor)),
  };
}

/** A call drawn as one box: its name, what went in and came out, whether its nodes ran. */
function groupDisplay(timelineIndex, s, g) {
  const sc = g.scope;
  const nameOf = (t) => timelineIndex.tensors.get(t)?.name || "(unnamed)";
  const inputs = callArgs(timelineIndex, sc);
  const outputs = sc.returned.map(nameOf);
  const nodesInside = g.inside || sc.nodes || [];
  const exists = s.pos > (timelineIndex.stepStart[sc.step] ?? 0);
  const running = nodesInside.some((n) => s.running.has(n));
  const ran = nodesInside.some((n) => s.ran.has(n));
  const title = callTitle(timelineIndex, sc);
  const what = sc.kind === "module" ? "module call" : "function call";
  return {
    exists,
    cls: "group",
    name: sc.name,
    title,
    shape: "call",
    gradFn: `${what}, line ${sc.line}`,
    badges: `${g.members.length} inside · click to open`,
    value: inputs.join(", ") || "-",
    grad: outputs.join(", ") || "-",
    hasGrad: false,
    chip: null,
    callout: null,
    marks: [],
    extra: "",
    extraKind: "",
    running,
    ran,
    error: !sc.ok,
    root: false,
  };
}

/** A card's last line: the .grad update (old + delta = new) if one happened, else the gradient
 * that arrived at the node. */
function extraLine(accum, incoming) {
  if (accum) return { extra: accumText(accum), extraKind: "accum" };
  if (incoming) return { extra: `grad in ${shortValue(incoming, 19)}`, extraKind: "incoming" };
  return { extra: "", extraKind: "" };
}

function autogradDisplay(timelineIndex, s, g) {
  const n = timelineIndex.nodes.get(g.node);
  const rec = g.tensor ? s.t.get(g.tensor) : null;
  const entry = g.tensor ? timelineIndex.tensors.get(g.tensor) : null;
  const exists = nodeExists(timelineIndex, g.node, s.pos);
  const incoming = s.incoming.get(g.node) || null;
  const accum = g.kind === "acc" && g.tensor ? s.accum.get(g.tensor) : null;
  const { extra, extraKind } = extraLine(accum, incoming);
  const stale = g.kind === "fn" && rec && rec.node && rec.node !== g.node; // replaced by an in-place op
  const who = entry ? firstName(entry) || "(unnamed)" : null;
  let badges;
  const shape = entry ? ` ${entry.dtype}${shapeText(rec?.value?.shape ?? entry.shape)}` : "";
  if (g.kind === "acc") badges = `.grad of ${who ?? "?"}${shape}`;
  else badges = (who ? `output ${who}${shape}` : "output not visible") + (stale ? " · superseded in place" : "");
  return {
    exists,
    cls: g.kind === "acc" ? "acc" : "fn",
    name: entry?.name ?? "",
    title: shortNodeName(n?.name),
    shape: "", // the title (torch's node name) takes the whole row; the tensor is in the badges
    gradFn: shortNodeName(n?.name),
    badges,
    value: rec ? shortValue(rec.value, 20) : "",
    grad: rec ? shortValue(rec.grad, 20) : "",
    hasGrad: Boolean(rec?.grad),
    chip: gradChip(rec?.grad),
    callout: accumCallout(firstName(entry), accum),
    marks: rec ? marksAt(timelineIndex, s, g.tensor, rec, { node: g.node }) : [],
    extra,
    extraKind,
    running: s.running.has(g.node),
    ran: s.ran.has(g.node),
    error: s.errorNodes.has(g.node),
    root: false,
  };
}

/** What an edge shows: whether it exists yet, the gradient it carried in the current pass. */
export function edgeDisplay(timelineIndex, s, graph, edge) {
  let exists;
  if (graph.view === "autograd") {
    exists = nodeExists(timelineIndex, edge.from, s.pos) && nodeExists(timelineIndex, edge.to, s.pos);
  } else {
    exists =
      tensorExists(timelineIndex, edge.from, s.pos) &&
      tensorExists(timelineIndex, edge.to, s.pos) &&
      s.pos > (timelineIndex.stepStart[edge.step] ?? 0);
  }
  const key = graph.keyOfEdge.get(edge.id);
  const g = key ? s.edgeGrad.get(key) : undefined;
  return {
    exists,
    carried: g !== undefined,
    label: g === undefined ? "" : g === null ? "None" : shortValue(g, 16),
    current: key != null && s.lastEdge === key,
    noGrad: graph.view === "tensors" && edge.recorded === false,
    inplace: Boolean(edge.inplace),
    cut: graph.view === "tensors" && edge.op === "detach", // detach(): the gradient stops here
  };
}

/** The node to act on by default: the last scalar non-leaf (what you would call .backward() on). */
export function defaultTarget(timelineIndex) {
  const ts = timelineIndex.timeline.nodes?.tensors || [];
  for (let i = ts.length - 1; i >= 0; i--) {
    const t = ts[i];
    if (t.name && !t.is_leaf && t.requires_grad && numel(t.shape) === 1 && t.shape.length === 0) return t.id;
  }
  for (let i = ts.length - 1; i >= 0; i--) {
    const t = ts[i];
    if (t.name && !t.is_leaf && t.requires_grad && numel(t.shape) === 1) return t.id;
  }
  for (let i = ts.length - 1; i >= 0; i--) if (ts[i].name) return ts[i].id;
  return null;
}

export function numel(shape) {
  let n = 1;
  for (const d of shape || []) n *= d;
  return n;
}
