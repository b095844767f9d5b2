// Node positions (dagre, left to right or top to bottom, keeping earlier positions) and edge curves (pure geometry, no DOM).

import { Graph, layout as dagreLayout } from "@dagrejs/dagre";

const GAP = 18; // the least space kept between a newly placed node and the others
const RANKSEP = 96; // horizontal room between columns: enough for an edge's gradient label
const RANKSEP_TB = 64; // vertical room between rows (a label sits on a vertical edge's middle)
const NODESEP = 26;
const MAX_SCALE = 1.15; // the view does not enlarge a graph past this (graph-view.js MAX_FIT), so neither layout gains there

/** A point, box size or position map with x and y swapped (a top-to-bottom layout is a transposed left-to-right one). */
const swap = (p) => ({ x: p.y, y: p.x });
const swapSize = (n) => ({ ...n, w: n.h, h: n.w });

/**
 * The direction that shows a graph biggest in a `width` x `height` canvas: "LR" (inputs on the
 * left) or "TB" (inputs on top; long chains). Estimated from the ranks alone, without laying
 * the graph out twice.
 */
export function chooseDirection(nodes, edges, width, height) {
  if (!nodes.length) return "LR";
  const ranks = longestPathRanks(
    nodes.map((n) => n.id),
    edges.map((e) => [e.layoutFrom ?? e.from, e.layoutTo ?? e.to]),
  );
  const perRank = new Map();
  for (const r of ranks.values()) perRank.set(r, (perRank.get(r) || 0) + 1);
  const depth = perRank.size;
  const breadth = Math.max(...perRank.values());
  const w = nodes[0].w;
  const h = nodes[0].h;
  const scale = (gw, gh) => Math.min(MAX_SCALE, width / gw, height / gh);
  const lr = scale(depth * w + (depth - 1) * RANKSEP, breadth * h + (breadth - 1) * NODESEP);
  const tb = scale(breadth * w + (breadth - 1) * NODESEP, depth * h + (depth - 1) * RANKSEP_TB);
  return tb > lr * 1.05 ? "TB" : "LR";
}

/**
 * Centres for every node. A graph seen for the first time is laid out by dagre. After that,
 * nodes that already have a position in `prev` keep it (people arrange graphs by hand, and a
 * re-run must not throw that away) and only new nodes are placed, next to their neighbours and
 * clear of everything else.
 */
export function layoutPositions(nodes, edges, prev = new Map(), opts = {}) {
  if (opts.direction === "TB") {
    // laid out left to right with every box and position transposed, then transposed back
    const prevT = new Map([...prev].map(([id, p]) => [id, swap(p)]));
    const placed = layoutPositions(nodes.map(swapSize), edges, prevT, {
      ...opts,
      direction: "LR",
      ranksep: opts.ranksep ?? RANKSEP_TB,
    });
    return new Map([...placed].map(([id, p]) => [id, swap(p)]));
  }
  const out = new Map();
  const fresh = nodes.filter((n) => !prev.has(n.id));
  for (const n of nodes) if (prev.has(n.id)) out.set(n.id, { ...prev.get(n.id) });
  if (!fresh.length) return out;

  if (fresh.length === nodes.length) return dagrePositions(nodes, edges, opts);
  // A graph that grows by edits grows to the right: a new node goes one rank right of its
  // rightmost input (left of its leftmost output), level with them; a node with neither (a new
  // leaf) goes under the leftmost column.
  const ranksep = opts.ranksep ?? RANKSEP;
  const preds = new Map();
  const succs = new Map();
  for (const e of edges) {
    const a = e.layoutFrom ?? e.from;
    const b = e.layoutTo ?? e.to;
    if (!preds.has(b)) preds.set(b, []);
    if (!succs.has(a)) succs.set(a, []);
    preds.get(b).push(a);
    succs.get(a).push(b);
  }
  const size = new Map(nodes.map((n) => [n.id, n]));
  // inputs before the nodes they feed, so a chain of new nodes is placed from its head
  const ranks = longestPathRanks(
    nodes.map((n) => n.id),
    edges.map((e) => [e.layoutFrom ?? e.from, e.layoutTo ?? e.to]),
  );
  const order = new Map(nodes.map((n, i) => [n.id, i]));
  fresh.sort((p, q) => ranks.get(p.id) - ranks.get(q.id) || order.get(p.id) - order.get(q.id));
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  for (const n of fresh) {
    const ins = (preds.get(n.id) || []).filter((m) => out.has(m));
    const outs = (succs.get(n.id) || []).filter((m) => out.has(m));
    let p;
    if (ins.length) {
      const right = Math.max(...ins.map((m) => out.get(m).x + size.get(m).w / 2));
      p = { x: right + ranksep + n.w / 2, y: mean(ins.map((m) => out.get(m).y)) };
    } else if (outs.length) {
      const left = Math.min(...outs.map((m) => out.get(m).x - size.get(m).w / 2));
      p = { x: left - ranksep - n.w / 2, y: mean(outs.map((m) => out.get(m).y)) };
    } else {
      let minX = Infinity;
      let maxY = -Infinity;
      for (const [id, q] of out) {
        const m = size.get(id);
        if (!m) continue;
        minX = Math.min(minX, q.x - m.w / 2);
        maxY = Math.max(maxY, q.y + m.h / 2);
      }
      p = { x: minX + n.w / 2, y: maxY + GAP * 2 + n.h / 2 };
    }
    out.set(n.id, freeSpot(p, n, out, size));
  }
  return out;
}

/** Longest-path rank of every node (sources 0); nodes on a cycle keep what they reached. */
export function longestPathRanks(ids, pairs) {
  const rank = new Map(ids.map((i) => [i, 0]));
  const out = new Map();
  const indeg = new Map(ids.map((i) => [i, 0]));
  for (const [a, b] of pairs) {
    if (!out.has(a)) out.set(a, []);
    out.get(a).push(b);
    indeg.set(b, indeg.get(b) + 1);
  }
  const queue = ids.filter((i) => !indeg.get(i));
  for (let k = 0; k < queue.length; k++) {
    const a = queue[k];
    for (const b of out.get(a) || []) {
      rank.set(b, Math.max(rank.get(b), rank.get(a) + 1));
      indeg.set(b, indeg.get(b) - 1);
      if (!indeg.get(b)) queue.push(b);
    }
  }
  return rank;
}

/**
 * The edges dagre is given. A tensor used all along a long program (x in every layer, a weight
 * in every training step) makes edges spanning hundreds of ranks, and dagre routes each through
 * a chain of dummy nodes: seconds for 300 nodes. Such edges add little to the picture's order,
 * so when the spans add up to much more than the graph's size only short ones are kept (and
 * each node's shortest edge, so nothing comes loose). Edges are drawn as curves either way.
 */
export function layoutEdges(ids, pairs) {
  const rank = longestPathRanks(ids, pairs);
  const span = pairs.map(([a, b]) => Math.abs(rank.get(b) - rank.get(a)));
  const total = span.reduce((x, y) => x + y, 0);
  if (total <= 3 * ids.length + 30) return pairs;
  const best = new Map(); // node -> index of its shortest edge
  pairs.forEach(([a, b], i) => {
    for (const n of [a, b]) if (!best.has(n) || span[i] < span[best.get(n)]) best.set(n, i);
  });
  const keep = new Set(best.values());
  return pairs.filter((_, i) => span[i] <= 2 || keep.has(i));
}

function dagrePositions(nodes, edges, opts) {
  const clusters = opts.clusters || [];
  const g = new Graph({ multigraph: true, compound: clusters.length > 0 });
  g.setGraph({
    // a transposed call (direction TB) gives dagre transposed boxes, so it lays them out left to right too
    rankdir: "LR",
    nodesep: opts.nodesep ?? NODESEP,
    ranksep: opts.ranksep ?? RANKSEP,
    marginx: 24,
    marginy: 24,
    ranker: nodes.length > 120 ? "tight-tree" : "network-simplex",
  });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of nodes) g.setNode(n.id, { width: n.w, height: n.h });
  const ids = new Set(nodes.map((n) => n.id));
  setClusters(g, clusters, ids);
  const pairs = [];
  for (const e of edges) {
    const a = e.layoutFrom ?? e.from;
    const b = e.layoutTo ?? e.to;
    if (ids.has(a) && ids.has(b) && a !== b) pairs.push([a, b]);
  }
  layoutEdges([...ids], pairs).forEach(([a, b], i) => g.setEdge(a, b, { minlen: 1, weight: 1 }, `e${i}`));
  dagreLayout(g, { customOrder: orderWithinRanks });
  const out = new Map();
  for (const n of nodes) {
    const p = g.node(n.id);
    out.set(n.id, { x: p.x, y: p.y });
  }
  return out;
}

/**
 * Each cluster (`{id, ids}`: an open call and what is drawn inside it) becomes a dagre subgraph,
 * so what a call made is laid out together and its outline holds nothing else. A cluster inside
 * another (a call made by an open call) is a subgraph of the smallest cluster holding all of it.
 */
function setClusters(g, clusters, ids) {
  const sets = clusters.map((c) => ({ key: `cluster:${c.id}`, ids: new Set(c.ids.filter((i) => ids.has(i))) }));
  const live = sets.filter((c) => c.ids.size).sort((a, b) => b.ids.size - a.ids.size); // outer ones first
  for (const c of live) g.setNode(c.key, {});
  for (const [i, c] of live.entries()) {
    // the smallest earlier cluster holding every id of this one
    for (let j = i - 1; j >= 0; j--) {
      if ([...c.ids].every((id) => live[j].ids.has(id))) {
        g.setParent(c.key, live[j].key);
        break;
      }
    }
    // ids go to the innermost cluster: later (smaller) clusters overwrite earlier parents
    for (const id of c.ids) g.setParent(id, c.key);
  }
}

/**
 * dagre's crossing minimisation, which orders the nodes within each rank, except where every
 * rank holds one node: there is nothing to order then (each node is first in its rank, as dagre
 * would find), and its sweeps over every rank are most of dagre's time. A long program is often
 * such a chain once layoutEdges has left out its long edges.
 */
function orderWithinRanks(g, order) {
  const ranks = new Set();
  for (const v of g.nodes()) {
    const { rank } = g.node(v);
    if (ranks.has(rank) || g.children(v).length) return order(g, {});
    ranks.add(rank);
  }
  for (const v of g.nodes()) g.node(v).order = 0;
}

function overlaps(p, n, q, m) {
  return Math.abs(p.x - q.x) < (n.w + m.w) / 2 + GAP && Math.abs(p.y - q.y) < (n.h + m.h) / 2 + GAP;
}

// Moves a new node down (then up) in steps until it touches nothing already placed.
function freeSpot(p, n, placed, size) {
  const clash = (c) => {
    for (const [id, q] of placed) if (id !== n.id && overlaps(c, n, q, size.get(id) || n)) return true;
    return false;
  };
  if (!clash(p)) return p;
  const step = n.h / 2 + GAP;
  for (let k = 1; k < 400; k++) {
    for (const sgn of [1, -1]) {
      const c = { x: p.x, y: p.y + sgn * k * step };
      if (!clash(c)) return c;
    }
  }
  return p;
}

/** The bounding box of the placed nodes (for fitting the view). */
export function bounds(nodes, pos) {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const n of nodes) {
    const p = pos.get(n.id);
    if (!p) continue;
    x0 = Math.min(x0, p.x - n.w / 2);
    y0 = Math.min(y0, p.y - n.h / 2);
    x1 = Math.max(x1, p.x + n.w / 2);
    y1 = Math.max(y1, p.y + n.h / 2);
  }
  if (x0 === Infinity) return { x: 0, y: 0, w: 1, h: 1 };
  return { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
}

/**
 * A cubic curve from the side of box `a` facing `b` to the side of `b` facing `a`. Parallel edges
 * between one pair (a * a) get their own `lane` so both stay visible; `detour` bows the curve
 * sideways (down, or right when vertical) by about 3/4 of it at its middle (clearCurve).
 */
export function edgeCurve(a, b, aw, ah, bw, bh, lane = 0, lanes = 1, vertical = false, detour = 0) {
  if (vertical) {
    // top to bottom: the left-to-right curve of the transposed boxes, transposed back
    const t = edgeCurve(swap(a), swap(b), ah, aw, bh, bw, lane, lanes, false, detour);
    const c = { p0: swap(t.p0), c1: swap(t.c1), c2: swap(t.c2), p1: swap(t.p1) };
    c.d = `M${r(c.p0.x)},${r(c.p0.y)} C${r(c.c1.x)},${r(c.c1.y)} ${r(c.c2.x)},${r(c.c2.y)} ${r(c.p1.x)},${r(c.p1.y)}`;
    return c;
  }
  const off = (lane - (lanes - 1) / 2) * 14;
  const right = b.x >= a.x;
  const sx = a.x + (right ? aw / 2 : -aw / 2);
  const tx = b.x + (right ? -bw / 2 : bw / 2);
  const sy = a.y + Math.max(-ah / 2 + 8, Math.min(ah / 2 - 8, off));
  const ty = b.y + Math.max(-bh / 2 + 8, Math.min(bh / 2 - 8, off));
  const dx = Math.max(40, Math.abs(tx - sx) * 0.45) * (right ? 1 : -1);
  const bend = (lanes > 1 ? off * 1.6 : 0) + detour;
  const c = {
    p0: { x: sx, y: sy },
    c1: { x: sx + dx, y: sy + bend },
    c2: { x: tx - dx, y: ty + bend },
    p1: { x: tx, y: ty },
  };
  c.d = `M${r(sx)},${r(sy)} C${r(c.c1.x)},${r(c.c1.y)} ${r(c.c2.x)},${r(c.c2.y)} ${r(tx)},${r(ty)}`;
  return c;
}

const DETOUR_STEP = 30; // how much more each try of clearCurve bows the curve
const DETOUR_TRIES = 8;

/**
 * An edge's curve clear of the cards between its ends: `make(detour)` is its edgeCurve with
 * that detour, `boxes` the other cards ({x, y, w, h}: centre and size). A plain curve that runs
 * through a card (or near enough for its gradient label to cover one) is bowed away from the
 * first card it meets, a little more at each try, to the other side when that side is clear
 * first; when no try is clear the plain curve is kept.
 */
export function clearCurve(make, boxes, vertical = false, pad = 10) {
  const plain = make(0);
  if (!boxes.length) return plain;
  const near = nearBoxes(plain, boxes, DETOUR_STEP * DETOUR_TRIES + pad);
  const hit = firstHit(plain, near, pad);
  if (!hit) return plain;
  const m = curveAt(plain, 0.5);
  const away = Math.sign(vertical ? m.x - hit.x : m.y - hit.y) || -1;
  for (let k = 1; k <= DETOUR_TRIES; k++) {
    for (const side of [away, -away]) {
      const c = make(side * k * DETOUR_STEP);
      if (!firstHit(c, near, pad)) return c;
    }
  }
  return plain;
}

/** The boxes within `margin` of the box spanned by a curve's ends. */
function nearBoxes(c, boxes, margin) {
  const x0 = Math.min(c.p0.x, c.p1.x) - margin;
  const x1 = Math.max(c.p0.x, c.p1.x) + margin;
  const y0 = Math.min(c.p0.y, c.p1.y) - margin;
  const y1 = Math.max(c.p0.y, c.p1.y) + margin;
  return boxes.filter((b) => b.x + b.w / 2 > x0 && b.x - b.w / 2 < x1 && b.y + b.h / 2 > y0 && b.y - b.h / 2 < y1);
}

/** The first box (grown by `pad`) a curve runs through, sampled along its length; or null. */
function firstHit(c, boxes, pad) {
  if (!boxes.length) return null;
  const n = 24;
  for (let i = 1; i < n; i++) {
    const p = curveAt(c, i / n);
    for (const b of boxes) if (Math.abs(p.x - b.x) < b.w / 2 + pad && Math.abs(p.y - b.y) < b.h / 2 + pad) return b;
  }
  return null;
}

function r(v) {
  return Math.round(v * 10) / 10;
}

/** The point at parameter t in [0, 1] on a curve from edgeCurve. */
export function curveAt(c, t) {
  const u = 1 - t;
  const a = u * u * u;
  const b = 3 * u * u * t;
  const d = 3 * u * t * t;
  const e = t * t * t;
  return {
    x: a * c.p0.x + b * c.c1.x + d * c.c2.x + e * c.p1.x,
    y: a * c.p0.y + b * c.c1.y + d * c.c2.y + e * c.p1.y,
  };
}

/** Lane numbers for edges sharing the same pair of nodes, in their order. */
export function lanesOf(edges) {
  const groups = new Map();
  for (const e of edges) {
    const k = e.from < e.to ? `${e.from}|${e.to}` : `${e.to}|${e.from}`;
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(e.id);
  }
  const out = new Map();
  for (const ids of groups.values()) ids.forEach((id, i) => out.set(id, { lane: i, lanes: ids.length }));
  return out;
}

// An open call's outline around its cards (graph-view.js FRAME_PAD, FRAME_HEAD): the room an
// opened call needs around its cards, at each level of nesting.
const FRAME_PAD = 14;
const FRAME_HEAD = 34;

/** How far each node moves when the box at (cx, cy) grows by dx, dy on each side (see openInPlace). */
function spreadAxis(v, c, d, dead) {
  const off = v - c;
  return Math.abs(off) < dead ? v : v + Math.sign(off) * d;
}

/** The inverse of spreadAxis: what was pushed away comes back; a node left between comes to the edge of the dead zone. */
function gatherAxis(v, c, d, dead) {
  const off = v - c;
  const far = Math.abs(off);
  if (far < dead) return v;
  return c + Math.sign(off) * Math.max(dead, far - d);
}

/**
 * Positions after a call's box opens, the rest of the graph kept as the learner knows it. What
 * is drawn inside the call (the nodes of `nodes` without a position in `prev`) is laid out on its
 * own (with `opts.clusters`, the open calls inside it, and `opts.direction`) and centred where
 * the box was (`box`: its centre x, y and size w, h). Every other node moves away from the box's
 * centre by the room the opened call needs beyond the box, and only along an axis on which it
 * lies beside the box: nodes in the box's row stay in that row, nodes in its column in that
 * column. The move is the same for every node on one side, so no two nodes come closer and none
 * lands on the opened call. Returns {positions, spread}; `spread` undoes it (closeInPlace), and
 * lists the nodes laid out anew (`inside`: a tensor the call returned was drawn before and stays).
 */
export function openInPlace(nodes, edges, prev, box, opts = {}) {
  const fresh = nodes.filter((n) => !prev.has(n.id));
  const out = new Map();
  for (const n of nodes) if (prev.has(n.id)) out.set(n.id, { ...prev.get(n.id) });
  if (!fresh.length) return { positions: out, spread: null };
  const freshIds = new Set(fresh.map((n) => n.id));
  // the open calls drawn inside it, and how deep they nest (each one an outline more)
  const inner = (opts.clusters || []).filter((c) => c.ids.length && c.ids.every((id) => freshIds.has(id)));
  let depth = 1;
  for (const n of fresh) depth = Math.max(depth, 1 + inner.filter((c) => c.ids.includes(n.id)).length);
  const placed = layoutPositions(fresh, edges, new Map(), { direction: opts.direction, clusters: inner });
  const b = bounds(fresh, placed);
  const mx = FRAME_PAD * depth + GAP;
  const top = (FRAME_PAD + FRAME_HEAD) * depth + GAP;
  const bottom = FRAME_PAD * depth + GAP;
  const W = b.w + 2 * mx;
  const H = b.h + top + bottom;
  const sx = box.x - (b.x - mx + W / 2);
  const sy = box.y - (b.y - top + H / 2);
  for (const n of fresh) {
    const p = placed.get(n.id);
    out.set(n.id, { x: p.x + sx, y: p.y + sy });
  }
  const spread = {
    x: box.x,
    y: box.y,
    dx: Math.max(0, (W - box.w) / 2),
    dy: Math.max(0, (H - box.h) / 2),
    tx: box.w / 2,
    ty: box.h / 2,
    inside: [...freshIds], // what was laid out anew: it goes when the call closes, the rest comes back
  };
  for (const [id, p] of out) if (!freshIds.has(id)) out.set(id, spreadPoint(p, spread));
  return { positions: out, spread };
}

/** Where point `p` goes when `spread` (openInPlace) is applied. */
export function spreadPoint(p, spread) {
  return { x: spreadAxis(p.x, spread.x, spread.dx, spread.tx), y: spreadAxis(p.y, spread.y, spread.dy, spread.ty) };
}

/** Where point `p` goes back to when `spread` is undone. */
export function gatherPoint(p, spread) {
  return { x: gatherAxis(p.x, spread.x, spread.dx, spread.tx), y: gatherAxis(p.y, spread.y, spread.dy, spread.ty) };
}

/**
 * Positions after an opened call closes again: its box goes back where it was (`spread.x`,
 * `spread.y`: kept up to date while other calls opened and closed, see spreadPoint), and the
 * nodes openInPlace moved away come back: every node of `prev` but what was laid out inside the
 * call (`spread.inside`). Returns the positions of those and of the box (`boxId`).
 */
export function closeInPlace(prev, boxId, spread) {
  const out = new Map();
  const inside = new Set(spread.inside);
  for (const [id, p] of prev) if (!inside.has(id)) out.set(id, gatherPoint(p, spread));
  out.set(boxId, { x: spread.x, y: spread.y });
  return out;
}
