// The SVG graph canvas: node cards and edges keyed by timeline ids, pan/zoom/drag/select, the gradient in flight.
//
// Drawing is incremental: a card or edge is written only when what it shows changed, and only
// the elements an event touched are looked at while playing, so a 300-node graph stays at 60 fps.

import { h, s, setText } from "./dom.js";
import { edgeCurve, clearCurve, curveAt, lanesOf, bounds } from "./layout.js";
import { nodeDisplay, edgeDisplay, NODE_W, COMPACT_CHAR_W } from "./graph-model.js";
import { flatValues, shortValue } from "./format.js";
import { bestCalloutSpot, calloutBox, calloutWidths } from "./callout-place.js";

const BIG_GRAPH = 120;
const CHUNK = 40;
const CHAR_W = 6.2; // monospace label width per character at 10.5px, to size pills without measuring

// Level of detail: no text on the graph is drawn below MIN_SCREEN_PX on screen. The card's
// detail (its smallest text is DETAIL_FONT graph units) shows from FULL_K; below that the
// compact form (name and shape at COMPACT_FONT, .grad as a chip of coloured cells) down to
// COMPACT_K; below that only the cards' colours, with the detail on hover or focus.
export const MIN_SCREEN_PX = 12;
const DETAIL_FONT = 10.5;
const COMPACT_FONT = 22;
export const FULL_K = MIN_SCREEN_PX / DETAIL_FONT;
export const COMPACT_K = MIN_SCREEN_PX / COMPACT_FONT;
// A small graph is not blown up past this: the full detail is readable here (FULL_K), and an
// edit's new node usually fits beside the others without changing the zoom.
const MAX_FIT = 1.15;
const CHIP_CELLS = 8;
// the words on a card's mark tags (graph-marks.js says what each means in full)
const MARK_LABELS = {
  "hook-waiting": "hook waits",
  hook: "hook",
  retain: "retain_grad",
  nograd: "no_grad",
  detach: "detach",
  nan: "NaN",
  "nan-origin": "NaN starts",
  "nan-grad-origin": "NaN grad starts",
};
// the same at the compact level of detail, in big type: short enough for two on a card
const MARK_SHORT = {
  "hook-waiting": "hook",
  hook: "hook",
  retain: "retain",
  nograd: "no_grad",
  detach: "detach",
  nan: "NaN",
  "nan-origin": "NaN←",
  "nan-grad-origin": "∇NaN",
};

/** The level of detail at zoom k: "full", "compact" or "dots". */
export function levelOfDetail(k) {
  if (k >= FULL_K - 1e-9) return "full";
  if (k >= COMPACT_K - 1e-9) return "compact";
  return "dots";
}

function chipColor(v, maxAbs) {
  if (!Number.isFinite(v)) return "#f9ab00";
  const t = maxAbs ? Math.max(-1, Math.min(1, v / maxAbs)) : 0;
  // purple for positive (the gradient's colour), blue for negative, pale at zero
  const a = 0.15 + 0.85 * Math.abs(t);
  return t >= 0 ? `rgba(132,48,206,${a.toFixed(2)})` : `rgba(26,115,232,${a.toFixed(2)})`;
}

function ease(t) {
  return t < 0.5 ? 2 * t * t : 1 - (-2 * t + 2) ** 2 / 2;
}

const overlap = (a, b) =>
  Math.max(0, Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0)) * Math.max(0, Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0));

/** Puts `els` into `parent` in that order, moving nothing when they already are. */
function putInOrder(parent, els) {
  const kids = parent.children;
  let i = 0;
  while (i < els.length && kids[i] === els[i]) i++;
  if (i < els.length) parent.append(...els.slice(i));
}

export function createGraphView(
  container,
  { onSelect, onBackground, onNodeMoved, onResize, onView, onCloseCall, bottomInset = () => 0 } = {},
) {
  // The drawing is a stack of SVGs, each its own compositor layer: one for edges, one per chunk
  // of CHUNK nodes, one for edge labels. A change to one card repaints its chunk only; in a single
  // SVG it repainted every card of a 450-node graph, frame after frame, while playing.
  const surface = h("div", {
    class: "gp-surface",
    "data-testid": "graph",
    "aria-label": "computation graph",
    role: "group",
  });
  const defs = s(
    "defs",
    null,
    s(
      "marker",
      {
        id: "gp-arrow",
        viewBox: "0 0 10 10",
        refX: 9,
        refY: 5,
        markerWidth: 7,
        markerHeight: 7,
        orient: "auto-start-reverse",
      },
      s("path", { d: "M0,1 L9,5 L0,9 z", class: "gp-arrowhead" }),
    ),
    s(
      "marker",
      {
        id: "gp-arrow-hot",
        viewBox: "0 0 10 10",
        refX: 9,
        refY: 5,
        markerWidth: 7,
        markerHeight: 7,
        orient: "auto-start-reverse",
      },
      s("path", { d: "M0,1 L9,5 L0,9 z", class: "gp-arrowhead hot" }),
    ),
  );
  const layers = []; // {svg, viewport}
  function makeLayer(cls) {
    const svg = s("svg", { class: `gp-svg ${cls}`, "aria-hidden": cls === "gp-layer-nodes" ? null : "true" });
    const viewport = s("g", { class: "gp-viewport" });
    svg.append(viewport);
    const layer = { svg, viewport };
    layers.push(layer);
    if (size.w) sizeLayer(layer);
    applyViewTo(layer);
    return layer;
  }
  let size = { w: 0, h: 0 };
  let view = { x: 0, y: 0, k: 1 };
  let calloutSizes = null; // the sizes the accumulation callout can take (placeCallout)
  let calloutObstacles = null; // the controls it avoids; null: to be measured
  let calloutHeat = null; // the heatmaps it shows, if any
  let calloutMeasure = 0; // the frame that will measure the controls
  const edgeL = makeLayer("gp-layer-edges");
  edgeL.svg.prepend(defs);
  const edgeLayer = edgeL.viewport;
  // an open call's outline sits under the edges; only its title (a button that closes it) takes clicks
  const frameLayer = s("g", { class: "gp-frames" });
  edgeLayer.append(frameLayer); // first in the viewport: edges are appended after it
  const labelL = makeLayer("gp-layer-labels");
  const labelLayer = labelL.viewport;
  const chunks = []; // node layers, CHUNK nodes each
  const chunkOf = new Map(); // node id -> chunk index, kept while the node exists
  surface.append(edgeL.svg, labelL.svg);

  function chunkFor(id) {
    if (chunkOf.has(id)) return chunks[chunkOf.get(id)];
    let k = chunks.findIndex((c) => c.count < CHUNK);
    if (k < 0) {
      const layer = makeLayer("gp-layer-nodes");
      layer.count = 0;
      chunks.push(layer);
      labelL.svg.before(layer.svg); // labels stay on top of every card
      k = chunks.length - 1;
    }
    chunks[k].count += 1;
    chunkOf.set(id, k);
    return chunks[k];
  }

  function releaseChunk(id) {
    const k = chunkOf.get(id);
    if (k === undefined) return;
    chunks[k].count -= 1;
    chunkOf.delete(id);
  }

  // The gradient in flight moves every frame, so it lives outside the SVG in its own compositor
  // layer (an HTML element moved with a transform): moving it repaints nothing of the graph.
  const flight = h("div", { class: "gp-flight", "data-testid": "flight", "data-active": "false" });
  const flightDot = h("div", { class: "gp-flight-dot" });
  const flightText = h("div", { class: "gp-flight-label", "data-testid": "flight-label" });
  flight.append(flightDot, flightText);
  // A node's detail at any zoom: shown on hover or keyboard focus when the cards are compact.
  const detail = h("div", { class: "gp-detail", "data-testid": "node-detail", hidden: true });
  // Where the view is in the whole graph, and the node the backward pass is at.
  const minimap = h("canvas", {
    class: "gp-minimap",
    "data-testid": "minimap",
    width: 168,
    height: 112,
    "aria-label": "minimap: where the view is in the whole graph",
    hidden: true,
  });
  // The last accumulation into a leaf's .grad, in full (wrapping, never cut short), under its card.
  const callout = h("div", { class: "gp-callout", "data-testid": "accum-callout", hidden: true });
  container.append(surface, flight, detail, callout, minimap);

  // The SVG gets its size in pixels, never from CSS percentages or insets: Chromium re-lays out
  // every <text> of an SVG sized by its container whenever anything else on the page changes
  // layout (a label in the player bar), ~80 ms at 300 nodes. In pixels it is left alone.
  function sizeLayer(layer) {
    layer.svg.setAttribute("width", String(size.w));
    layer.svg.setAttribute("height", String(size.h));
  }

  function sizeToContainer() {
    const w = Math.max(1, Math.round(container.clientWidth));
    const hgt = Math.max(1, Math.round(container.clientHeight));
    if (w === size.w && hgt === size.h) return false;
    size = { w, h: hgt };
    calloutSizes = null;
    calloutObstacles = null;
    surface.style.width = `${w}px`;
    surface.style.height = `${hgt}px`;
    for (const layer of layers) sizeLayer(layer);
    return true;
  }
  sizeToContainer();
  const resizeObserver =
    typeof ResizeObserver !== "undefined"
      ? new ResizeObserver(() => {
          if (sizeToContainer()) onResize?.();
        })
      : null;
  resizeObserver?.observe(container);

  let graph = null;
  let vertical = false; // laid out top to bottom: edges leave a card's bottom, not its right side
  let pos = new Map();
  const nodeEls = new Map();
  const edgeEls = new Map();
  let byTensor = new Map(); // tensor id -> drawn node ids (changes name tensors and nodes)
  let byNode = new Map(); // autograd node id -> drawn node ids
  let incident = new Map(); // drawn node id -> edge ids
  let selection = [];
  let currentEdge = null;
  let flying = null; // the edge whose own label is hidden while its gradient is in flight

  function applyViewTo(layer) {
    layer.viewport.setAttribute(
      "transform",
      `translate(${view.x.toFixed(1)},${view.y.toFixed(1)}) scale(${view.k.toFixed(4)})`,
    );
  }

  let lod = null;

  function applyView() {
    for (const layer of layers) applyViewTo(layer);
    const level = levelOfDetail(view.k);
    if (level !== lod) {
      if (lod) surface.classList.remove(`gp-lod-${lod}`);
      surface.classList.add(`gp-lod-${level}`);
      surface.dataset.lod = level;
      lod = level;
      hideDetail();
      if (level === "full") for (const rec of edgeEls.values()) if (rec.labelStale) drawLabel(rec);
    }
    placeMinimap();
    placeCallout();
    onView?.(view);
  }

  // -- building -----------------------------------------------------------------------------

  // A card's elements are built once for each kind and size and cloned for each node: a deep
  // clone is several times faster than making its 14 elements an attribute at a time.
  const cardTemplates = new Map();

  function cardTemplate(n) {
    const key = `${n.kind}|${n.w}|${n.h}`;
    if (cardTemplates.has(key)) return cardTemplates.get(key);
    const lab = (y, t) => s("text", { class: "gp-label gp-d", x: 14, y }, t);
    const val = (y, testid) => s("text", { class: "gp-val gp-d", x: 62, y, "data-testid": testid });
    const chip = s("g", { class: "gp-chip gp-c" });
    for (let i = 0; i < CHIP_CELLS; i++) {
      chip.append(s("rect", { class: "gp-chip-cell", x: 72 + i * 15, y: 84, width: 13, height: 20, rx: 3 }));
    }
    const g = s(
      "g",
      { class: "gp-node", "data-testid": "node", tabindex: 0, role: "button" },
      s("rect", { class: "gp-glow", x: -6, y: -6, width: n.w + 12, height: n.h + 12, rx: 14 }),
      s("rect", { class: "gp-sel", x: -4, y: -4, width: n.w + 8, height: n.h + 8, rx: 12 }),
      s("rect", { class: "gp-card", width: n.w, height: n.h, rx: n.kind === "acc" ? 16 : 9 }),
      s("rect", { class: "gp-stripe", x: 0, y: 8, width: 4, height: n.h - 16, rx: 2 }),
      s("text", { class: "gp-title gp-d", x: 14, y: 20 }),
      s("text", { class: "gp-shape gp-d", x: n.w - 10, y: 20, "text-anchor": "end" }),
      s("text", { class: "gp-badges gp-d", x: 14, y: 36 }),
      lab(55, { tensor: "grad_fn", group: "call" }[n.kind] || "node"),
      val(55, "grad_fn"),
      lab(72, n.kind === "group" ? "in" : "value"),
      val(72, "value"),
      lab(89, n.kind === "group" ? "out" : ".grad"),
      val(89, "grad"),
      s("text", { class: "gp-extra gp-d", x: 14, y: 106, "data-testid": "incoming" }),
      s("text", { class: "gp-ctitle gp-c", x: 14, y: 36 }),
      s("text", { class: "gp-cshape gp-c", x: 14, y: 68 }),
      s("text", { class: "gp-cgrad gp-c", x: 14, y: 101 }),
      chip,
      s("g", { class: "gp-marks", "data-testid": "marks" }),
    );
    cardTemplates.set(key, g);
    return g;
  }

  function makeNode(n) {
    const g = cardTemplate(n).cloneNode(true);
    g.setAttribute("data-id", n.id);
    g.setAttribute("data-name", n.name || "");
    const [, , card, , title, shape, badges, , gradFn, , value, , grad, extra, ctitle, cshape, cgrad, chip, marks] =
      g.children;
    return {
      g,
      node: n,
      els: { title, shape, badges, gradFn, value, grad, extra, card, ctitle, cshape, cgrad, chip, marks },
      disp: null,
      cls: "",
    };
  }

  const edgeTemplate = s(
    "g",
    { class: "gp-edge", "data-testid": "edge" },
    s("path", { class: "gp-edge-path", "marker-end": "url(#gp-arrow)" }),
  );
  const labelTemplate = s(
    "g",
    { class: "gp-edge-label", visibility: "hidden", "data-testid": "edge-label" },
    s("rect", { class: "gp-pill", rx: 9, ry: 9, height: 18 }),
    s("text", { class: "gp-pill-text" }),
  );

  function makeEdge(e) {
    const g = edgeTemplate.cloneNode(true);
    g.setAttribute("data-id", e.id);
    g.setAttribute("data-from", e.from);
    g.setAttribute("data-to", e.to);
    const label = labelTemplate.cloneNode(true);
    label.setAttribute("data-id", e.id);
    const [pill, text] = label.children;
    return { g, path: g.firstChild, label, pill, text, edge: e, curve: null, disp: null, cls: "" };
  }

  // A graph set with `fit` is kept out of the page's layout until the script that set it is done
  // (a microtask): the canvas's size is read then, once the rest of the page has changed too (a
  // new moment's text can wrap the player bar), and the cards' text is laid out once, at the
  // scale it is shown at, instead of once before the fit and again after.
  let fitQueued = false;

  function fitWhenSet() {
    surface.style.display = "none";
    if (fitQueued) return;
    fitQueued = true;
    queueMicrotask(() => {
      fitQueued = false;
      fit();
      surface.style.display = "";
    });
  }

  /**
   * Sets the graph to draw; elements whose id survives are kept (and keep their place). With
   * `fit`, the view is fitted to it before the browser lays it out (see fitWhenSet).
   */
  function setGraph(next, positions, { fit: fitNow = false, direction = "LR", animate = false } = {}) {
    graph = next;
    vertical = direction === "TB";
    pos = positions;
    if (tween) cancelAnimationFrame(tween.frame);
    tween = null;
    tweenFrom.clear();
    tweenAt.clear();
    delete surface.dataset.moving;
    if (animate && !fitNow && !reducedMotion()) {
      // cards that stay but move start where they are drawn now (movePositions takes them on)
      for (const n of next.nodes) {
        const at = nodeEls.get(n.id)?.at;
        const to = pos.get(n.id);
        if (at && to && (Math.abs(at.x - to.x) > 0.5 || Math.abs(at.y - to.y) > 0.5)) tweenFrom.set(n.id, at);
      }
    }
    // On big graphs every SVG transition repaints the whole drawing for its duration; without
    // them a frame repaints only when an event changed something (the dot in flight is apart).
    surface.classList.toggle("gp-big", next.nodes.length > BIG_GRAPH);
    const keepN = new Set(next.nodes.map((n) => n.id));
    for (const [id, rec] of nodeEls) if (!keepN.has(id)) (rec.g.remove(), nodeEls.delete(id), releaseChunk(id));
    cardsMoved += 1; // cards came and went: every edge looks at its way again
    const keepE = new Set(next.edges.map((e) => e.id));
    for (const [id, rec] of edgeEls) if (!keepE.has(id)) (rec.g.remove(), rec.label.remove(), edgeEls.delete(id));
    if (fitNow) fitWhenSet();

    byTensor = new Map();
    byNode = new Map();
    incident = new Map();
    const add = (m, k, v) => {
      if (!k) return;
      if (!m.has(k)) m.set(k, []);
      m.get(k).push(v);
    };
    const wanted = new Map(); // chunk -> its cards in the timeline's order
    for (const n of next.nodes) {
      let rec = nodeEls.get(n.id);
      if (!rec || rec.node.kind !== n.kind) {
        rec?.g.remove();
        rec = makeNode(n);
        nodeEls.set(n.id, rec);
      }
      rec.node = n;
      rec.g.dataset.name = n.name || "";
      const chunk = chunkFor(n.id);
      if (!wanted.has(chunk)) wanted.set(chunk, []);
      wanted.get(chunk).push(rec.g);
      add(byTensor, n.tensor, n.id);
      add(byNode, n.node, n.id);
      placeNode(rec);
    }
    // re-appended only where the order changed: moving every card of an unchanged graph made
    // the browser restyle all of them after each edit
    for (const [chunk, cards] of wanted) putInOrder(chunk.viewport, cards);
    const efrag = document.createDocumentFragment();
    const lfrag = document.createDocumentFragment();
    const lanes = lanesOf(next.edges);
    for (const e of next.edges) {
      let rec = edgeEls.get(e.id);
      if (!rec) {
        rec = makeEdge(e);
        edgeEls.set(e.id, rec);
      }
      rec.edge = e;
      rec.lane = lanes.get(e.id);
      if (!rec.g.isConnected) {
        // a new edge; the others stay where they are (their order draws nothing differently)
        efrag.append(rec.g);
        lfrag.append(rec.label);
      }
      add(incident, e.from, e.id);
      add(incident, e.to, e.id);
      routeEdge(rec);
    }
    edgeLayer.append(efrag);
    labelLayer.append(lfrag);
    drawFrames();
    currentEdge = null;
    setSelection(selection.filter((id) => nodeEls.has(id)));
    if (activeId && !nodeEls.has(activeId)) activeId = null;
    if (calloutFor && !nodeEls.has(calloutFor)) setCallout(null);
    hideDetail();
    graphBox = null;
    placeMinimap();
    placeCallout();
    if (tweenFrom.size) startTween();
  }

  // -- moving cards to new places (a call opened or closed) ------------------------------------

  const TWEEN_MS = 320;
  const tweenFrom = new Map(); // node id -> where it was drawn when the move began
  const tweenAt = new Map(); // node id -> where it is drawn in this frame of the move
  let tween = null; // {start, frame, camera: {from, to} | null}
  // where a card is drawn: on its way while a move runs, else its place
  const drawnPos = { get: (id) => tweenAt.get(id) ?? pos.get(id), has: (id) => pos.has(id) };

  function reducedMotion() {
    return typeof matchMedia !== "undefined" && matchMedia("(prefers-reduced-motion: reduce)").matches;
  }

  function startTween() {
    for (const [id, from] of tweenFrom) tweenAt.set(id, from);
    tween = { start: null, frame: 0, camera: tween?.camera ?? null };
    tween.frame = requestAnimationFrame(stepTween);
    surface.dataset.moving = "true";
    for (const id of tweenFrom.keys()) placeNode(nodeEls.get(id));
    redrawMoved();
  }

  function redrawMoved() {
    const edges = new Set();
    for (const id of tweenFrom.keys()) for (const e of incident.get(id) || []) edges.add(e);
    for (const e of edges) routeEdge(edgeEls.get(e));
    if (graph?.frames?.length) placeFrames();
  }

  function stepTween(now) {
    if (!tween) return;
    tween.start ??= now;
    const t = Math.min(1, (now - tween.start) / TWEEN_MS);
    const e = ease(t);
    for (const [id, from] of tweenFrom) {
      const to = pos.get(id);
      if (!to) continue;
      tweenAt.set(id, { x: from.x + (to.x - from.x) * e, y: from.y + (to.y - from.y) * e });
      placeNode(nodeEls.get(id));
    }
    if (tween.camera) {
      const { from, to } = tween.camera;
      view = { k: from.k + (to.k - from.k) * e, x: from.x + (to.x - from.x) * e, y: from.y + (to.y - from.y) * e };
      applyView();
    }
    if (t >= 1) {
      tweenAt.clear();
      for (const id of tweenFrom.keys()) placeNode(nodeEls.get(id));
      redrawMoved();
      tweenFrom.clear();
      tween = null;
      delete surface.dataset.moving;
      return;
    }
    redrawMoved();
    tween.frame = requestAnimationFrame(stepTween);
  }

  /**
   * Brings open call `frameId`'s outline into view with the least camera move: the same zoom when they fit
   * at it (panned just enough), else zoomed out until they do (never below the compact cards'
   * zoom). The camera glides there with any cards that are moving.
   */
  function reveal(frameId) {
    const f = frameBoxes(pos).get(frameId);
    if (!f) return;
    const b = { x: f.x0, y: f.y0, w: f.x1 - f.x0, h: f.y1 - f.y0 };
    const W = size.w > 1 ? size.w : 800;
    const H = Math.max(160, (size.h > 1 ? size.h : 500) - bottomInset());
    const pad = 24;
    const k = Math.max(COMPACT_K, Math.min(view.k, (W - 2 * pad) / b.w, (H - 2 * pad) / b.h));
    // the least pan that shows the box (its top-left when it is bigger than the canvas)
    const fitAxis = (v, lo, size0, room) => {
      const a = lo * k + v;
      const z = a + size0 * k;
      if (size0 * k > room - 2 * pad) return pad - lo * k;
      if (a < pad) return v + (pad - a);
      if (z > room - pad) return v - (z - (room - pad));
      return v;
    };
    // zoomed about the outline's centre, which stays where it is on screen, then panned
    const cx = b.x + b.w / 2;
    const cy = b.y + b.h / 2;
    const to = {
      k,
      x: fitAxis(cx * view.k + view.x - cx * k, b.x, b.w, W),
      y: fitAxis(cy * view.k + view.y - cy * k, b.y, b.h, H),
    };
    if (Math.abs(to.k - view.k) < 1e-4 && Math.abs(to.x - view.x) < 0.5 && Math.abs(to.y - view.y) < 0.5) return;
    cameraTarget = null;
    if (reducedMotion()) {
      view = to;
      applyView();
      return;
    }
    const camera = { from: { ...view }, to };
    if (tween) {
      tween.camera = camera;
    } else {
      tween = { start: null, frame: requestAnimationFrame(stepTween), camera };
      surface.dataset.moving = "true";
    }
  }

  // -- open calls ---------------------------------------------------------------------------

  const FRAME_PAD = 14;
  const FRAME_HEAD = 34; // room above the cards for the title (22 units tall at the compact level)

  /** Outlines every open call around what is drawn inside it, with its title to close it. */
  function drawFrames() {
    const frames = graph?.frames || [];
    frameLayer.replaceChildren(
      ...frames.map((f) => {
        const title = s("text", { class: "gp-frame-title" }, `${f.title} ✕`);
        const head = s(
          "g",
          {
            class: "gp-frame-close",
            "data-testid": "close-call",
            "data-id": f.id,
            role: "button",
            tabindex: "0",
            "aria-label": `close ${f.title}: draw it as one box again`,
          },
          s("title", null, `${f.title}: click to draw this call as one box again`),
          title,
        );
        const rect = s("rect", { class: "gp-frame-box", rx: 14 });
        const g = s("g", { class: "gp-frame", "data-testid": "call-frame", "data-id": f.id }, rect, head);
        g._frame = f;
        return g;
      }),
    );
    placeFrames();
  }

  // An open call's outline holds its cards and the outlines of the open calls inside it, so
  // nested titles sit one above the other instead of on top of each other.
  /** Each open call's outline (frame id -> {x0, y0, x1, y1} in graph units) with its cards at `at`. */
  function frameBoxes(at) {
    const boxes = new Map(); // frame id -> its outline
    const order = (graph?.frames || []).slice().sort((p, q) => p.ids.length - q.ids.length); // inner first
    for (const f of order) {
      const inside = f.ids.map((id) => nodeEls.get(id)?.node).filter((n) => n && at.has(n.id));
      if (!inside.length) continue;
      const b = bounds(inside, at);
      let box = {
        x0: b.x - FRAME_PAD,
        y0: b.y - FRAME_PAD - FRAME_HEAD,
        x1: b.x + b.w + FRAME_PAD,
        y1: b.y + b.h + FRAME_PAD,
      };
      for (const [id, o] of boxes) {
        const inner = order.find((q) => q.id === id);
        if (inner !== f && inner.ids.every((i) => f.ids.includes(i)))
          box = {
            x0: Math.min(box.x0, o.x0 - FRAME_PAD),
            y0: Math.min(box.y0, o.y0 - FRAME_HEAD),
            x1: Math.max(box.x1, o.x1 + FRAME_PAD),
            y1: Math.max(box.y1, o.y1 + FRAME_PAD),
          };
      }
      boxes.set(f.id, box);
    }
    return boxes;
  }

  function placeFrames() {
    const boxes = frameBoxes(drawnPos);
    for (const g of frameLayer.children) {
      const box = boxes.get(g._frame.id);
      if (!box) {
        g.setAttribute("display", "none");
        continue;
      }
      g.removeAttribute("display");
      const rect = g.firstChild;
      rect.setAttribute("x", box.x0.toFixed(1));
      rect.setAttribute("y", box.y0.toFixed(1));
      rect.setAttribute("width", (box.x1 - box.x0).toFixed(1));
      rect.setAttribute("height", (box.y1 - box.y0).toFixed(1));
      const text = g.querySelector("text");
      text.setAttribute("x", (box.x0 + 12).toFixed(1));
      text.setAttribute("y", (box.y0 + 26).toFixed(1));
    }
  }

  function placeNode(rec) {
    const p = drawnPos.get(rec.node.id);
    if (!p) return;
    // unchanged: left alone (rewriting every card's transform after an edit restyled them all)
    if (rec.at && rec.at.x === p.x && rec.at.y === p.y && rec.placedW === rec.node.w) return;
    rec.at = p;
    rec.placedW = rec.node.w;
    cardsMoved += 1;
    rec.g.setAttribute(
      "transform",
      `translate(${(p.x - rec.node.w / 2).toFixed(1)},${(p.y - rec.node.h / 2).toFixed(1)})`,
    );
  }

  // Cards an edge must not run through: every card's box, made again after any card moved.
  // (Past DETOUR_MAX_CARDS cards edges are drawn straight: the graph is seen whole, zoomed out.)
  const DETOUR_MAX_CARDS = 250;
  let cardsMoved = 0;
  let boxesAt = -1;
  let cardBoxes = [];

  function obstacles() {
    if (boxesAt === cardsMoved) return cardBoxes;
    boxesAt = cardsMoved;
    cardBoxes = [];
    if (nodeEls.size > DETOUR_MAX_CARDS) return cardBoxes;
    for (const [id, rec] of nodeEls) {
      const p = drawnPos.get(id);
      if (p) cardBoxes.push({ id, x: p.x, y: p.y, w: rec.node.w, h: rec.node.h });
    }
    return cardBoxes;
  }

  function routeEdge(rec) {
    const e = rec.edge;
    const a = nodeEls.get(e.from)?.node;
    const b = nodeEls.get(e.to)?.node;
    const pa = drawnPos.get(e.from);
    const pb = drawnPos.get(e.to);
    if (!a || !b || !pa || !pb) return;
    // (the cards' moves count too: a card moved into an edge's way sends it round)
    const key = `${pa.x},${pa.y},${pb.x},${pb.y},${a.w},${a.h},${b.w},${b.h},${rec.lane?.lane},${rec.lane?.lanes},${vertical},${cardsMoved}`;
    if (key === rec.routed) return; // nothing on its way moved
    rec.routed = key;
    const others = obstacles().filter((c) => c.id !== e.from && c.id !== e.to);
    const lane = rec.lane?.lane ?? 0;
    const lanes = rec.lane?.lanes ?? 1;
    rec.curve = clearCurve(
      (detour) => edgeCurve(pa, pb, a.w, a.h, b.w, b.h, lane, lanes, vertical, detour),
      others,
      vertical,
    );
    if (rec.curve.d !== rec.drawnD) {
      rec.drawnD = rec.curve.d;
      rec.path.setAttribute("d", rec.curve.d);
      placeLabel(rec);
    }
  }

  function placeLabel(rec) {
    if (!rec.curve || !rec.disp?.label) return;
    const m = curveAt(rec.curve, 0.5);
    const w = rec.disp.label.length * CHAR_W + 14;
    rec.pill.setAttribute("x", (m.x - w / 2).toFixed(1));
    rec.pill.setAttribute("y", (m.y - 9).toFixed(1));
    rec.pill.setAttribute("width", w.toFixed(1));
    rec.text.setAttribute("x", m.x.toFixed(1));
    rec.text.setAttribute("y", (m.y + 3.6).toFixed(1));
  }

  // -- drawing a moment ---------------------------------------------------------------------

  function drawNode(rec, timelineIndex, state, animate) {
    const d = nodeDisplay(timelineIndex, state, rec.node);
    const old = rec.disp;
    const { els } = rec;
    // characters of the title that fit beside the shape, or alone (13 px bold: about 7.4 units
    // each); a wider card (a call's box) holds more
    const wider = Math.floor((rec.node.w - NODE_W) / 7.4);
    const room = (d.shape ? 18 : 25) + wider;
    setText(els.title, d.title.length > room ? d.title.slice(0, room - 1) + "…" : d.title);
    setText(els.shape, d.shape.length > 16 ? d.shape.slice(0, 15) + "…" : d.shape);
    setText(els.badges, d.badges);
    setText(els.gradFn, d.gradFn);
    setText(els.value, d.value);
    setText(els.grad, d.grad);
    setText(els.extra, d.extra);
    // the compact form: name and shape in big type; .grad as its number, or for several
    // numbers as a chip of coloured cells (purple positive, blue negative)
    const croom = Math.floor((rec.node.w - 20) / COMPACT_CHAR_W);
    setText(els.ctitle, d.title.length > croom ? d.title.slice(0, croom - 1) + "…" : d.title);
    setText(els.cshape, d.shape.length > 14 ? d.shape.slice(0, 13) + "…" : d.shape);
    const several = d.chip && d.chip.length > 1;
    const short = d.grad.length > 9 ? d.grad.slice(0, 8) + "…" : d.grad;
    setText(els.cgrad, rec.node.kind === "group" ? `out ${short}` : several ? "grad" : `grad ${short}`);
    const chipKey = several ? d.chip.join(",") : "";
    if (chipKey !== rec.chipKey) {
      rec.chipKey = chipKey;
      drawChip(els.chip, several ? d.chip : null);
    }
    const marksKey = d.marks.map((m) => m.text).join("|");
    if (marksKey !== rec.marksKey) {
      rec.marksKey = marksKey;
      drawMarks(els.marks, d.marks, rec.node.w);
    }
    const cls = [
      "gp-node",
      `k-${d.cls}`,
      d.exists ? "" : "ghost",
      d.running ? "running" : "",
      d.ran ? "ran" : "",
      d.error ? "error" : "",
      d.root ? "root" : "",
      d.hasGrad ? "has-grad" : "",
      d.extraKind ? `x-${d.extraKind}` : "",
      selection.includes(rec.node.id) ? "selected" : "",
    ]
      .filter(Boolean)
      .join(" ");
    if (cls !== rec.cls) {
      rec.g.setAttribute("class", cls);
      rec.cls = cls;
    }
    const aria = `${d.title}: value ${d.value}, grad ${d.grad}${d.error ? ", error" : ""}`;
    if (aria !== rec.aria) {
      rec.g.setAttribute("aria-label", aria);
      rec.aria = aria;
    }
    // the new .grad "settles in": a short highlight when it changes while playing
    if (animate && !big() && old && old.grad !== d.grad && d.exists) flash(els.grad, "gp-flash");
    if (animate && !big() && old && old.extra !== d.extra && d.extraKind === "accum") flash(els.extra, "gp-flash");
    rec.disp = d;
  }

  /**
   * A card's marks as tags on its top edge, right-aligned: the words at full detail, the
   * coloured tag alone below it (the words are in the tag's title and in the hover detail).
   */
  function drawMarks(g, marks, width) {
    g.replaceChildren();
    // full detail: small tags with words; compact: big tags with a short word (no text under 12 px)
    const row = (labels, { height, charW, cls }) => {
      let right = width - 6;
      for (const m of marks) {
        const label = labels[m.kind] || m.kind;
        const w = Math.max(height + 4, label.length * charW + height * 0.7);
        const x = right - w;
        right = x - 4;
        const y = -height / 2;
        g.append(
          s(
            "g",
            {
              class: `gp-mark m-${m.kind} ${cls}`,
              "data-testid": cls === "gp-d" ? "mark" : "mark-compact",
              "data-mark": m.kind,
            },
            s("title", null, m.text),
            s("rect", { class: "gp-mark-tag", x, y, width: w, height, rx: height / 2 }),
            s("text", { class: "gp-mark-text", x: x + w / 2, y: y + height * 0.7, "text-anchor": "middle" }, label),
          ),
        );
      }
    };
    row(MARK_LABELS, { height: 18, charW: 6.4, cls: "gp-d" });
    row(MARK_SHORT, { height: 34, charW: 13.4, cls: "gp-c" });
  }

  function drawChip(chip, values) {
    const cells = [...chip.children];
    const maxAbs = values ? Math.max(0, ...values.filter(Number.isFinite).map(Math.abs)) : 0;
    cells.forEach((cell, i) => {
      const on = values && i < values.length;
      cell.setAttribute("visibility", on ? "visible" : "hidden");
      if (on) cell.setAttribute("fill", chipColor(values[i], maxAbs));
    });
  }

  function big() {
    return graph && graph.nodes.length > BIG_GRAPH;
  }

  function flash(el, cls) {
    // removed now and added next frame, so the CSS animation restarts without a forced reflow
    el.classList.remove(cls);
    requestAnimationFrame(() => el.classList.add(cls));
  }

  function drawEdge(rec, timelineIndex, state) {
    const d = edgeDisplay(timelineIndex, state, graph, rec.edge);
    const labelChanged = !rec.disp || rec.disp.label !== d.label;
    rec.disp = d;
    const cls = [
      "gp-edge",
      d.exists ? "" : "ghost",
      d.carried ? "carried" : "",
      d.current ? "current" : "",
      d.noGrad ? "nograd" : "",
      d.inplace ? "inplace" : "",
      d.cut ? "cut" : "",
    ]
      .filter(Boolean)
      .join(" ");
    if (cls !== rec.cls) {
      rec.g.setAttribute("class", cls);
      // An edge the gradient travelled points the way it went: tensor edges are drawn from an
      // input to its output, so there the arrowhead moves to the input's end.
      const backward = d.carried && !rec.edge.gradAlong;
      const head = d.carried ? "url(#gp-arrow-hot)" : "url(#gp-arrow)";
      if (backward) {
        rec.path.setAttribute("marker-start", head);
        rec.path.removeAttribute("marker-end");
      } else {
        rec.path.setAttribute("marker-end", head);
        rec.path.removeAttribute("marker-start");
      }
      rec.label.setAttribute("class", "gp-edge-label" + (d.current ? " current" : ""));
      rec.cls = cls;
    }
    // a label is only drawn at the full level of detail: below it, its words wait until they show
    if (labelChanged || (rec.labelStale && lod === "full")) {
      if (lod === "full") drawLabel(rec);
      else rec.labelStale = true;
    }
    if (d.current) currentEdge = rec.edge.id;
  }

  function drawLabel(rec) {
    rec.labelStale = false;
    const d = rec.disp;
    setText(rec.text, d.label);
    rec.label.setAttribute("visibility", d.label && d.exists && rec !== flying ? "visible" : "hidden");
    placeLabel(rec);
  }

  /**
   * Draws moment `state`. With `changes` (what one or more events touched) only those cards and
   * edges are looked at; without, everything is (a jump). `animate` is on while playing.
   */
  function render(timelineIndex, state, changes = null, { animate = false } = {}) {
    if (!graph) return;
    if (!changes || changes.all) {
      currentEdge = null;
      for (const rec of nodeEls.values()) drawNode(rec, timelineIndex, state, animate);
      for (const rec of edgeEls.values()) drawEdge(rec, timelineIndex, state);
      return;
    }
    const nodes = new Set();
    for (const t of changes.tensors) for (const id of byTensor.get(t) || []) nodes.add(id);
    for (const n of changes.nodes) for (const id of byNode.get(n) || []) nodes.add(id);
    const edges = new Set();
    for (const k of changes.edges) {
      const id = graph.flight.get(k);
      if (id) edges.add(id);
    }
    for (const id of nodes) for (const e of incident.get(id) || []) edges.add(e);
    if (currentEdge) edges.add(currentEdge);
    currentEdge = null;
    for (const id of nodes) drawNode(nodeEls.get(id), timelineIndex, state, animate);
    for (const id of edges) {
      const rec = edgeEls.get(id);
      if (rec) drawEdge(rec, timelineIndex, state);
    }
  }

  /** The gradient in flight along autograd edge `key` at progress frac (0..1); null hides it. */
  function setFlight(key, frac, label) {
    const id = key && graph?.flight.get(key);
    const rec = id && edgeEls.get(id);
    if (flying && flying !== rec) {
      flying.label.setAttribute("visibility", flying.disp?.label && flying.disp.exists ? "visible" : "hidden");
      flying = null;
    }
    if (!rec || !rec.curve || frac >= 1) {
      if (flight.dataset.active !== "false") flight.dataset.active = "false";
      if (rec && flying === rec) {
        rec.label.setAttribute("visibility", rec.disp?.label && rec.disp.exists ? "visible" : "hidden");
        flying = null;
      }
      return;
    }
    if (flying !== rec) {
      rec.label.setAttribute("visibility", "hidden");
      flying = rec;
    }
    // tensor edges point forward (input -> output); the gradient runs against them
    const t = ease(frac);
    const p = curveAt(rec.curve, rec.edge.gradAlong ? t : 1 - t);
    const x = p.x * view.k + view.x;
    const y = p.y * view.k + view.y;
    // shown and hidden with opacity, which the compositor does alone (display would relayout)
    if (flight.dataset.active !== "true") flight.dataset.active = "true";
    flight.style.transform = `translate3d(${x.toFixed(1)}px, ${y.toFixed(1)}px, 0)`;
    setText(flightText, label || "");
  }

  // -- the node the backward pass is at ------------------------------------------------------

  let activeId = null;

  /** Marks drawn node `id` as where the backward pass is (data-active); null for none. */
  function setActive(id) {
    if (id === activeId) return;
    nodeEls.get(activeId)?.g.removeAttribute("data-active");
    activeId = id && nodeEls.has(id) ? id : null;
    if (activeId) nodeEls.get(activeId).g.setAttribute("data-active", "true");
    placeMinimap();
  }

  // -- the accumulation callout ------------------------------------------------------------

  let calloutFor = null;

  let calloutKey = "";
  let calloutText = "";
  let calloutShown = null; // the size it is drawn at (one of calloutSizes)

  /**
   * Shows `text` beside drawn node `id` (null hides it); with `heatmaps` ({name, before, delta,
   * after} of a matrix .grad) the three values as small heatmaps, each number on hover.
   */
  function setCallout(id, text, heatmaps = null) {
    if (!id || !text || !nodeEls.has(id)) {
      if (calloutFor) {
        calloutFor = null;
        placeMinimap(); // the card it spoke of need not stay clear of the minimap any more
      }
      if (!callout.hidden) callout.hidden = true;
      return;
    }
    const moved = id !== calloutFor;
    calloutFor = id;
    const key = `${heatmaps ? "heat|" : ""}${text}`;
    if (key !== calloutKey) {
      calloutKey = key;
      calloutText = text;
      calloutHeat = heatmaps;
      calloutSizes = null; // estimated again for its new text
      calloutShown = null;
      callout.classList.toggle("heat", Boolean(heatmaps));
      if (heatmaps) drawHeatmaps(heatmaps, text);
    }
    callout.hidden = false;
    if (moved) placeMinimap();
    placeCallout();
  }

  function drawHeatmaps({ name, before, delta, after }, text) {
    const readout = h(
      "div",
      { class: "gp-heat-readout", "data-testid": "callout-readout" },
      "hover a cell for its number",
    );
    const all = [before, delta, after].flatMap((v) => (v ? flatValues(v).filter(Number.isFinite) : []));
    const maxAbs = Math.max(0, ...all.map(Math.abs));
    const heat = (value, label) => {
      if (value == null) return h("span", { class: "gp-heat-none" }, "None");
      const rows = value.shape.length === 2 ? value.data : [[].concat(value.data)];
      const grid = h("span", {
        class: "gp-heat-grid",
        "data-testid": "callout-heatmap",
        style: { gridTemplateColumns: `repeat(${rows[0]?.length || 1}, 14px)` },
      });
      rows.forEach((row, i) =>
        row.forEach((raw, j) => {
          const v = typeof raw === "number" ? raw : Number(raw);
          const at = rows.length > 1 || value.shape.length === 2 ? `[${i}][${j}]` : `[${j}]`;
          const words = `${name}.grad${at} ${label}: ${shortValue({ shape: [], dtype: value.dtype, data: raw }, 24)}`;
          const cell = h("span", {
            class: "gp-heat-cell",
            "data-testid": "callout-cell",
            title: words,
            style: { background: chipColor(v, maxAbs) },
          });
          cell.addEventListener("pointerenter", () => (readout.textContent = words));
          grid.append(cell);
        }),
      );
      return grid;
    };
    callout.replaceChildren(
      h(
        "div",
        { class: "gp-heat-row", "aria-label": text },
        h("span", null, `${name}.grad:`),
        heat(before, "before"),
        h("span", null, "+"),
        heat(delta, "added"),
        h("span", null, "="),
        heat(after, "after"),
      ),
      readout,
    );
  }

  // The callout goes where it covers the least: beside its card (below, above, right, left),
  // inside the canvas, clear of the canvas's own controls (legend, zoom buttons, minimap, banner)
  // and of the other cards on screen, narrower (reading down) where a wide box would cover a
  // card. Nothing is measured while it moves: its size is estimated from its text
  // (callout-place.js), the minimap's box is known, and the other controls' boxes are measured
  // once per canvas size, in a frame of their own.
  function measureControls() {
    const r0 = container.getBoundingClientRect();
    const boxes = [];
    for (const el of container.children) {
      if (el === surface || el === flight || el === detail || el === callout || el === minimap || !el.offsetParent)
        continue;
      const r = el.getBoundingClientRect();
      if (r.width && r.height && getComputedStyle(el).position === "absolute")
        boxes.push({ x0: r.left - r0.left, y0: r.top - r0.top, x1: r.right - r0.left, y1: r.bottom - r0.top });
    }
    return boxes;
  }

  /** A drawn node's box on screen, its mark tags included. */
  function screenBox(id) {
    const rec = nodeEls.get(id);
    const n = rec?.node;
    const q = pos.get(id);
    if (!n || !q) return null;
    // a card's mark tags stand half their height above its top edge (drawMarks)
    const marks = rec.marksKey ? (lod === "full" ? 9 : 17) : 0;
    return {
      x0: (q.x - n.w / 2) * view.k + view.x,
      y0: (q.y - n.h / 2 - marks) * view.k + view.y,
      x1: (q.x + n.w / 2) * view.k + view.x,
      y1: (q.y + n.h / 2) * view.k + view.y,
    };
  }

  /** The boxes of the cards on screen but `except`. */
  function cardsOnScreen(except = null) {
    const out = [];
    for (const id of nodeEls.keys()) {
      if (id === except) continue;
      const b = screenBox(id);
      if (b && b.x1 > 0 && b.y1 > 0 && b.x0 < size.w && b.y0 < size.h) out.push(b);
    }
    return out;
  }

  function placeCallout() {
    if (!calloutFor) return;
    const card = screenBox(calloutFor);
    if (!card) return;
    // a callout whose card is (mostly) out of view would point at nothing: it waits until the card is back
    const seen = overlap(card, { x0: 0, y0: 0, x1: size.w, y1: size.h });
    const away = seen < 0.5 * (card.x1 - card.x0) * (card.y1 - card.y0);
    if (callout.classList.contains("away") !== away) callout.classList.toggle("away", away);
    if (away) return;
    if (!calloutSizes) {
      const seen = new Set();
      calloutSizes = calloutWidths(size.w)
        .map((w) => calloutBox(calloutText, calloutHeat, w))
        .filter((b) => !seen.has(`${b.w}x${b.h}`) && seen.add(`${b.w}x${b.h}`));
    }
    if (!calloutObstacles && !calloutMeasure)
      calloutMeasure = requestAnimationFrame(() => {
        calloutMeasure = 0;
        calloutObstacles = measureControls();
        placeCallout();
      });
    const controls = minimapBox ? [...(calloutObstacles || []), minimapBox] : calloutObstacles || [];
    const { x, y, box } = bestCalloutSpot(card, calloutSizes, size, cardsOnScreen(calloutFor), controls);
    if (box !== calloutShown) {
      calloutShown = box;
      // its own line breaks (callout-place.js), so the box is exactly as big as estimated
      if (box.lines) callout.textContent = box.lines.join("\n");
      callout.style.width = `${box.w}px`;
    }
    callout.style.transform = `translate(${x.toFixed(0)}px, ${y.toFixed(0)}px)`;
  }

  // -- detail on hover and focus ------------------------------------------------------------

  let detailId = null;

  function showDetail(id) {
    const rec = nodeEls.get(id);
    if (!rec || !rec.disp || lod === "full") return hideDetail();
    const d = rec.disp;
    detailId = id;
    const rows = [
      [d.title, d.shape],
      [rec.node.kind === "tensor" ? "grad_fn" : "node", d.gradFn],
      ["value", d.value],
      [".grad", d.grad],
    ];
    detail.replaceChildren(
      h("b", null, rows[0].filter(Boolean).join("  ")),
      ...rows.slice(1).map(([k, v]) => h("div", null, h("span", null, k), " ", v)),
      // (replaceChildren would write a null as the text "null")
      ...(d.extra ? [h("div", { class: "gp-detail-extra" }, d.extra)] : []),
      ...d.marks.map((m) => h("div", { class: `gp-detail-mark m-${m.kind}` }, m.text)),
    );
    const p = pos.get(id);
    const x = (p.x + rec.node.w / 2) * view.k + view.x + 8;
    const y = (p.y - rec.node.h / 2) * view.k + view.y;
    detail.style.left = `${Math.max(4, Math.min(x, size.w - 250)).toFixed(0)}px`;
    detail.style.top = `${Math.max(4, Math.min(y, size.h - 120)).toFixed(0)}px`;
    detail.hidden = false;
  }

  function hideDetail() {
    detailId = null;
    detail.hidden = true;
  }

  // -- minimap ------------------------------------------------------------------------------

  let minimapFrame = 0;
  let minimapBox = null; // where it is on the canvas (null: hidden)
  let minimapSide = "right";
  let graphBox = null; // the whole graph's bounds, kept until the graph or a position changes

  function scheduleMinimap() {
    if (minimapFrame || typeof requestAnimationFrame === "undefined") return;
    minimapFrame = requestAnimationFrame(() => {
      minimapFrame = 0;
      drawMinimap();
    });
  }

  /** The part of the graph in view, in graph units. */
  function viewInGraph() {
    const x0 = -view.x / view.k;
    const y0 = -view.y / view.k;
    return { x0, y0, x1: x0 + (size.w || 800) / view.k, y1: y0 + (size.h || 500) / view.k };
  }

  /**
   * Shows the minimap when part of the graph is out of view, in the top corner where it covers
   * the least: never the card the backward pass is at, the card the callout speaks of or a
   * selected card when the other corner leaves them clear (it hides when neither does). It is
   * smaller on a narrow canvas, so a card in the middle of a phone's screen stays clear of it.
   */
  function placeMinimap() {
    if (!graph || !graph.nodes.length) return hideMinimap();
    graphBox ??= bounds(graph.nodes, pos);
    const b = graphBox;
    const v = viewInGraph();
    if (b.x >= v.x0 && b.y >= v.y0 && b.x + b.w <= v.x1 && b.y + b.h <= v.y1) return hideMinimap();
    const [mw, mh] = size.w < 560 ? [120, 80] : [168, 112];
    if (minimap.width !== mw) {
      minimap.width = mw;
      minimap.height = mh;
      minimap.style.width = `${mw}px`;
      minimap.style.height = `${mh}px`;
    }
    const at = (side) =>
      side === "right"
        ? { x0: size.w - 10 - mw, y0: 10, x1: size.w - 10, y1: 10 + mh }
        : { x0: 10, y0: 10, x1: 10 + mw, y1: 10 + mh };
    const keep = [activeId, calloutFor, ...selection].map((id) => id && screenBox(id)).filter(Boolean);
    const others = cardsOnScreen();
    const cost = (box) => {
      let c = 0;
      for (const k of keep) c += overlap(box, k) * 100;
      for (const o of others) c += overlap(box, o);
      return c;
    };
    const here = cost(at(minimapSide));
    const otherSide = minimapSide === "right" ? "left" : "right";
    const there = cost(at(otherSide));
    // it moves only for a clear gain, so it does not hop from corner to corner as the camera moves
    if (there < here * 0.5 - 50) minimapSide = otherSide;
    const box = at(minimapSide);
    if (keep.some((k) => overlap(box, k) > 0)) return hideMinimap();
    minimapBox = box;
    if (minimap.dataset.side !== minimapSide) minimap.dataset.side = minimapSide;
    if (minimap.hidden) minimap.hidden = false;
    scheduleMinimap();
  }

  function hideMinimap() {
    minimapBox = null;
    if (!minimap.hidden) minimap.hidden = true;
  }

  let minimapScale = null; // graph -> minimap pixels, for clicks

  function drawMinimap() {
    if (!graph || !graph.nodes.length || minimap.hidden) return;
    graphBox ??= bounds(graph.nodes, pos);
    const b = graphBox;
    const { x0: vx0, y0: vy0, x1: vx1, y1: vy1 } = viewInGraph();
    const ctx = minimap.getContext?.("2d");
    if (!ctx) return;
    const mw = minimap.width;
    const mh = minimap.height;
    const pad = 6;
    const k = Math.min((mw - 2 * pad) / b.w, (mh - 2 * pad) / b.h);
    const ox = pad + (mw - 2 * pad - b.w * k) / 2 - b.x * k;
    const oy = pad + (mh - 2 * pad - b.h * k) / 2 - b.y * k;
    minimapScale = { k, ox, oy };
    ctx.clearRect(0, 0, mw, mh);
    for (const n of graph.nodes) {
      const p = pos.get(n.id);
      if (!p) continue;
      const active = n.id === activeId;
      ctx.fillStyle = active ? "#f9ab00" : selection.includes(n.id) ? "#1a73e8" : "#9aa3ad";
      const w = Math.max(2, n.w * k);
      const hh = Math.max(2, n.h * k);
      ctx.fillRect(ox + (p.x - n.w / 2) * k, oy + (p.y - n.h / 2) * k, w, hh);
      if (active) {
        ctx.strokeStyle = "#b06000";
        ctx.lineWidth = 2;
        ctx.strokeRect(ox + (p.x - n.w / 2) * k - 2, oy + (p.y - n.h / 2) * k - 2, w + 4, hh + 4);
      }
    }
    ctx.strokeStyle = "#8430ce";
    ctx.lineWidth = 1.5;
    ctx.strokeRect(ox + vx0 * k, oy + vy0 * k, (vx1 - vx0) * k, (vy1 - vy0) * k);
  }

  function onMinimapClick(ev) {
    if (!minimapScale) return;
    const r = minimap.getBoundingClientRect();
    const gx = (ev.clientX - r.left - minimapScale.ox) / minimapScale.k;
    const gy = (ev.clientY - r.top - minimapScale.oy) / minimapScale.k;
    cameraTarget = null;
    view = { ...view, x: (size.w || 800) / 2 - gx * view.k, y: (size.h || 500) / 2 - gy * view.k };
    applyView();
    onNodeMoved?.(null);
  }
  minimap.addEventListener("click", onMinimapClick);

  // -- selection ----------------------------------------------------------------------------

  function setSelection(ids) {
    selection = ids.slice();
    const chosen = new Set(selection);
    for (const [id, rec] of nodeEls) {
      const on = chosen.has(id);
      if (rec.pressed === on) continue; // unchanged: left alone (a write restyles the card)
      rec.pressed = on;
      if (rec.g.classList.contains("selected") !== on) {
        rec.g.classList.toggle("selected", on);
        rec.cls = rec.g.getAttribute("class");
      }
      rec.g.setAttribute("aria-pressed", on ? "true" : "false");
    }
    placeMinimap();
    placeCallout();
  }

  // -- view: pan, zoom, fit -----------------------------------------------------------------

  // Fit never goes below the zoom where the compact cards are readable: a graph too big for that
  // shows part of itself (the minimap says which). A big graph (BIG_GRAPH nodes) is the
  // exception: it opens smaller, as coloured cards without text, because drawing hundreds of
  // readable cards while its forward pass plays costs more than a frame on a slow machine; the
  // camera brings the backward pass to a readable zoom, and hover or focus shows any card.
  const MIN_FIT = COMPACT_K;
  const MIN_FIT_BIG = 0.3;

  function fit(ids = null) {
    if (!graph || !graph.nodes.length) return;
    const nodes = ids ? graph.nodes.filter((n) => ids.includes(n.id)) : graph.nodes;
    const b = bounds(nodes, pos);
    sizeToContainer();
    cameraTarget = null;
    const W = size.w > 1 ? size.w : 800;
    // the legend and the zoom buttons sit over the canvas's bottom: a fitted graph stays above them
    const H = Math.max(160, (size.h > 1 ? size.h : 500) - bottomInset());
    const pad = 40;
    const want = Math.min((W - 2 * pad) / b.w, (H - 2 * pad) / b.h);
    const least = big() ? MIN_FIT_BIG : MIN_FIT;
    const k = Math.min(MAX_FIT, Math.max(least, want));
    if (want >= least) {
      view = { k, x: W / 2 - (b.x + b.w / 2) * k, y: H / 2 - (b.y + b.h / 2) * k };
    } else {
      // too big to read whole: centred across where it fits; else its right end (where outputs
      // are and backward starts) and its top
      const x = b.w * k <= W - 2 * pad ? W / 2 - (b.x + b.w / 2) * k : W - pad - (b.x + b.w) * k;
      const y = b.h * k <= H - 2 * pad ? H / 2 - (b.y + b.h / 2) * k : pad - b.y * k;
      view = { k, x, y };
    }
    applyView();
  }

  // The camera while playing: where it is going (a view), reached over a few frames.
  let cameraTarget = null;
  let cameraFor = null;
  const CAMERA_PAD = 36;
  const CAMERA_MAX_K = 1.3;

  function onScreen(ids, margin = 0) {
    const W = size.w > 1 ? size.w : 800;
    const H = size.h > 1 ? size.h : 500;
    for (const id of ids) {
      const n = nodeEls.get(id)?.node;
      const p = pos.get(id);
      if (!n || !p) continue;
      const x0 = (p.x - n.w / 2) * view.k + view.x;
      const y0 = (p.y - n.h / 2) * view.k + view.y;
      const x1 = (p.x + n.w / 2) * view.k + view.x;
      const y1 = (p.y + n.h / 2) * view.k + view.y;
      if (x0 < margin || y0 < margin || x1 > W - margin || y1 > H - margin) return false;
    }
    return true;
  }

  /**
   * Keeps node `id` and its neighbours in view at a readable zoom while playing, moving there
   * smoothly: call it every frame (each call moves the camera part of the way).
   */
  function follow(id) {
    if (id !== cameraFor) {
      cameraFor = id;
      cameraTarget = null;
      const n = nodeEls.get(id)?.node;
      if (!n || !pos.get(id)) return;
      const near = [id];
      for (const eid of incident.get(id) || []) {
        const e = edgeEls.get(eid)?.edge;
        if (e) near.push(e.from === id ? e.to : e.from);
      }
      if (!(onScreen(near, 8) && view.k >= COMPACT_K)) {
        const W = size.w > 1 ? size.w : 800;
        const H = size.h > 1 ? size.h : 500;
        let b = bounds(
          graph.nodes.filter((m) => near.includes(m.id)),
          pos,
        );
        let k = Math.min(CAMERA_MAX_K, (W - 2 * CAMERA_PAD) / b.w, (H - 2 * CAMERA_PAD) / b.h);
        if (k < COMPACT_K) {
          // the neighbours do not fit at a readable zoom: the node itself, readable
          b = bounds([n], pos);
          k = Math.max(COMPACT_K, Math.min(CAMERA_MAX_K, view.k));
        }
        k = Math.max(k, Math.min(view.k, CAMERA_MAX_K), COMPACT_K);
        cameraTarget = { k, x: W / 2 - (b.x + b.w / 2) * k, y: H / 2 - (b.y + b.h / 2) * k };
      }
    }
    stepCamera(0.22);
  }

  /** Moves the camera `amount` of the way to its target (1: there at once). */
  function stepCamera(amount) {
    if (!cameraTarget) return;
    const t = cameraTarget;
    const next = {
      k: view.k + (t.k - view.k) * amount,
      x: view.x + (t.x - view.x) * amount,
      y: view.y + (t.y - view.y) * amount,
    };
    if (Math.abs(next.x - t.x) < 0.5 && Math.abs(next.y - t.y) < 0.5 && Math.abs(next.k - t.k) < 0.002) {
      view = t;
      cameraTarget = null;
    } else {
      view = next;
    }
    applyView();
  }

  /** Ends a camera move at its target (playback paused). */
  function settleCamera() {
    stepCamera(1);
    cameraFor = null;
  }

  /** Brings the graph into view when any of `ids` lies outside it (nodes an edit added): moved at the same zoom when it fits, else fitted. */
  function ensureVisible(ids) {
    const W = size.w > 1 ? size.w : 800;
    const H = size.h > 1 ? size.h : 500;
    for (const id of ids) {
      const n = nodeEls.get(id)?.node;
      const p = pos.get(id);
      if (!n || !p) continue;
      const x0 = (p.x - n.w / 2) * view.k + view.x;
      const y0 = (p.y - n.h / 2) * view.k + view.y;
      const x1 = (p.x + n.w / 2) * view.k + view.x;
      const y1 = (p.y + n.h / 2) * view.k + view.y;
      if (x0 < 0 || y0 < 0 || x1 > W || y1 > H) {
        // the zoom stays when the whole graph fits at it (the view only moves), else a fit
        const b = bounds(graph.nodes, pos);
        const pad = 40;
        if (b.w * view.k <= W - 2 * pad && b.h * view.k <= H - 2 * pad) {
          cameraTarget = null;
          view = { ...view, x: W / 2 - (b.x + b.w / 2) * view.k, y: H / 2 - (b.y + b.h / 2) * view.k };
          applyView();
        } else {
          fit();
        }
        return;
      }
    }
  }

  function zoomAt(factor, cx, cy) {
    cameraTarget = null;
    const k = Math.min(3, Math.max(0.08, view.k * factor));
    const f = k / view.k;
    view = { k, x: cx - (cx - view.x) * f, y: cy - (cy - view.y) * f };
    applyView();
  }

  function zoomBy(factor) {
    zoomAt(factor, (size.w || 800) / 2, (size.h || 500) / 2);
  }

  let drag = null;

  function svgPoint(ev) {
    const r = surface.getBoundingClientRect();
    return { x: ev.clientX - r.left, y: ev.clientY - r.top };
  }

  function onPointerDown(ev) {
    if (ev.button !== 0) return;
    if (ev.target.closest?.("[data-testid=close-call]")) return; // its click closes the call
    const nodeG = ev.target.closest?.("[data-testid=node]");
    const p = svgPoint(ev);
    if (nodeG) {
      const id = nodeG.dataset.id;
      const start = pos.get(id);
      drag = {
        kind: "node",
        id,
        p,
        start: start ? { ...start } : null,
        moved: false,
        additive: ev.shiftKey || ev.ctrlKey || ev.metaKey,
      };
    } else {
      drag = { kind: "pan", p, start: { x: view.x, y: view.y }, moved: false };
    }
    surface.setPointerCapture?.(ev.pointerId);
  }

  function onPointerMove(ev) {
    if (!drag) return;
    const p = svgPoint(ev);
    const dx = p.x - drag.p.x;
    const dy = p.y - drag.p.y;
    if (!drag.moved && Math.hypot(dx, dy) < 4) return;
    drag.moved = true;
    if (drag.kind === "pan") {
      cameraTarget = null;
      view = { ...view, x: drag.start.x + dx, y: drag.start.y + dy };
      applyView();
      surface.classList.add("panning");
    } else if (drag.start) {
      const next = { x: drag.start.x + dx / view.k, y: drag.start.y + dy / view.k };
      pos.set(drag.id, next);
      graphBox = null;
      const rec = nodeEls.get(drag.id);
      placeNode(rec);
      for (const eid of incident.get(drag.id) || []) routeEdge(edgeEls.get(eid));
      if (graph?.frames?.length) placeFrames();
      rec.g.classList.add("dragging");
    }
  }

  function onPointerUp(ev) {
    if (!drag) return;
    const d = drag;
    drag = null;
    surface.classList.remove("panning");
    surface.releasePointerCapture?.(ev.pointerId);
    if (d.kind === "node") {
      nodeEls.get(d.id)?.g.classList.remove("dragging");
      if (d.moved) onNodeMoved?.(d.id, pos.get(d.id));
      else onSelect?.(d.id, { additive: d.additive });
    } else if (!d.moved) {
      onBackground?.();
    }
  }

  function onWheel(ev) {
    ev.preventDefault();
    const p = svgPoint(ev);
    const delta = ev.deltaMode === 1 ? ev.deltaY * 16 : ev.deltaY;
    zoomAt(Math.exp(-delta * 0.0015), p.x, p.y);
  }

  function onFrameClick(ev) {
    const head = ev.target.closest?.("[data-testid=close-call]");
    if (head) onCloseCall?.(head.dataset.id);
  }

  function onKey(ev) {
    const head = ev.target.closest?.("[data-testid=close-call]");
    if (head && (ev.key === "Enter" || ev.key === " ")) {
      ev.preventDefault();
      onCloseCall?.(head.dataset.id);
      return;
    }
    const nodeG = ev.target.closest?.("[data-testid=node]");
    if (!nodeG) return;
    if (ev.key === "Enter" || ev.key === " ") {
      ev.preventDefault();
      ev.stopPropagation();
      onSelect?.(nodeG.dataset.id, { additive: ev.shiftKey || ev.ctrlKey || ev.metaKey });
    }
  }

  function onDblClick(ev) {
    if (!ev.target.closest?.("[data-testid=node]")) fit();
  }

  surface.addEventListener("pointerdown", onPointerDown);
  surface.addEventListener("pointermove", onPointerMove);
  surface.addEventListener("pointerup", onPointerUp);
  surface.addEventListener("pointercancel", onPointerUp);
  surface.addEventListener("wheel", onWheel, { passive: false });
  surface.addEventListener("keydown", onKey);
  surface.addEventListener("click", onFrameClick);
  surface.addEventListener("dblclick", onDblClick);
  const nodeIdAt = (ev) => ev.target.closest?.("[data-testid=node]")?.dataset.id ?? null;
  surface.addEventListener("pointerover", (ev) => {
    const id = nodeIdAt(ev);
    if (id && id !== detailId) showDetail(id);
  });
  surface.addEventListener("pointerout", (ev) => {
    if (nodeIdAt(ev) && !ev.relatedTarget?.closest?.(`[data-testid=node][data-id="${CSS.escape(detailId ?? "")}"]`)) {
      hideDetail();
    }
  });
  surface.addEventListener("focusin", (ev) => {
    const id = nodeIdAt(ev);
    if (id) showDetail(id);
  });
  surface.addEventListener("focusout", hideDetail);

  applyView();

  return {
    surface,
    setGraph,
    render,
    setFlight,
    setSelection,
    setActive,
    setCallout,
    fit,
    follow,
    settleCamera,
    ensureVisible,
    zoomBy,
    get positions() {
      return pos;
    },
    reveal,
    focusNode(id) {
      nodeEls.get(id)?.g.focus();
    },
    destroy() {
      resizeObserver?.disconnect();
      cancelAnimationFrame(minimapFrame);
      if (tween) cancelAnimationFrame(tween.frame);
      cancelAnimationFrame(calloutMeasure);
      surface.remove();
      flight.remove();
      detail.remove();
      callout.remove();
      minimap.remove();
      nodeEls.clear();
      edgeEls.clear();
    },
  };
}
