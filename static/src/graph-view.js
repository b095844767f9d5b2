// The SVG graph canvas: node cards and edges keyed by timeline ids, pan/zoom/drag/select, the gradient in flight.
//
// Drawing is incremental: a card or edge is written only when what it shows changed, and only
// the elements an event touched are looked at while playing, so a 300-node graph stays at 60 fps.

import { h, s, setText } from "./dom.js";
import { edgeCurve, curveAt, lanesOf, bounds } from "./layout.js";
import { nodeDisplay, edgeDisplay } from "./graph-model.js";

const BIG_GRAPH = 120;
const CHUNK = 40;
const CHAR_W = 6.2; // monospace label width per character at 10.5px, to size pills without measuring

function ease(t) {
  return t < 0.5 ? 2 * t * t : 1 - (-2 * t + 2) ** 2 / 2;
}

export function createGraphView(container, { onSelect, onBackground, onNodeMoved, onResize } = {}) {
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
  const edgeL = makeLayer("gp-layer-edges");
  edgeL.svg.prepend(defs);
  const edgeLayer = edgeL.viewport;
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
  container.append(surface, flight);

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

  function applyView() {
    for (const layer of layers) applyViewTo(layer);
  }

  // -- building -----------------------------------------------------------------------------

  // A card's elements are built once for each kind and size and cloned for each node: a deep
  // clone is several times faster than making its 14 elements an attribute at a time.
  const cardTemplates = new Map();

  function cardTemplate(n) {
    const key = `${n.kind}|${n.w}|${n.h}`;
    if (cardTemplates.has(key)) return cardTemplates.get(key);
    const lab = (y, t) => s("text", { class: "gp-label", x: 14, y }, t);
    const val = (y, testid) => s("text", { class: "gp-val", x: 62, y, "data-testid": testid });
    const g = s(
      "g",
      { class: "gp-node", "data-testid": "node", tabindex: 0, role: "button" },
      s("rect", { class: "gp-glow", x: -6, y: -6, width: n.w + 12, height: n.h + 12, rx: 14 }),
      s("rect", { class: "gp-sel", x: -4, y: -4, width: n.w + 8, height: n.h + 8, rx: 12 }),
      s("rect", { class: "gp-card", width: n.w, height: n.h, rx: n.kind === "acc" ? 16 : 9 }),
      s("rect", { class: "gp-stripe", x: 0, y: 8, width: 4, height: n.h - 16, rx: 2 }),
      s("text", { class: "gp-title", x: 14, y: 20 }),
      s("text", { class: "gp-shape", x: n.w - 10, y: 20, "text-anchor": "end" }),
      s("text", { class: "gp-badges", x: 14, y: 36 }),
      lab(55, n.kind === "tensor" ? "grad_fn" : "node"),
      val(55, "grad_fn"),
      lab(72, "value"),
      val(72, "value"),
      lab(89, ".grad"),
      val(89, "grad"),
      s("text", { class: "gp-extra", x: 14, y: 106, "data-testid": "incoming" }),
    );
    cardTemplates.set(key, g);
    return g;
  }

  function makeNode(n) {
    const g = cardTemplate(n).cloneNode(true);
    g.setAttribute("data-id", n.id);
    g.setAttribute("data-name", n.name || "");
    const [, , card, , title, shape, badges, , gradFn, , value, , grad, extra] = g.children;
    return { g, node: n, els: { title, shape, badges, gradFn, value, grad, extra, card }, disp: null, cls: "" };
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
  function setGraph(next, positions, { fit: fitNow = false } = {}) {
    graph = next;
    pos = positions;
    // On big graphs every SVG transition repaints the whole drawing for its duration; without
    // them a frame repaints only when an event changed something (the dot in flight is apart).
    surface.classList.toggle("gp-big", next.nodes.length > BIG_GRAPH);
    const keepN = new Set(next.nodes.map((n) => n.id));
    for (const [id, rec] of nodeEls) if (!keepN.has(id)) (rec.g.remove(), nodeEls.delete(id), releaseChunk(id));
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
    const frags = new Map(); // chunk -> fragment, to insert each chunk's cards in one go
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
      if (!frags.has(chunk)) frags.set(chunk, document.createDocumentFragment());
      frags.get(chunk).append(rec.g); // re-appending keeps the timeline's order within a chunk
      add(byTensor, n.tensor, n.id);
      add(byNode, n.node, n.id);
      placeNode(rec);
    }
    for (const [chunk, frag] of frags) chunk.viewport.append(frag);
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
      efrag.append(rec.g);
      lfrag.append(rec.label);
      add(incident, e.from, e.id);
      add(incident, e.to, e.id);
      routeEdge(rec);
    }
    edgeLayer.append(efrag);
    labelLayer.append(lfrag);
    currentEdge = null;
    setSelection(selection.filter((id) => nodeEls.has(id)));
  }

  function placeNode(rec) {
    const p = pos.get(rec.node.id);
    if (!p) return;
    rec.g.setAttribute(
      "transform",
      `translate(${(p.x - rec.node.w / 2).toFixed(1)},${(p.y - rec.node.h / 2).toFixed(1)})`,
    );
  }

  function routeEdge(rec) {
    const e = rec.edge;
    const a = nodeEls.get(e.from)?.node;
    const b = nodeEls.get(e.to)?.node;
    const pa = pos.get(e.from);
    const pb = pos.get(e.to);
    if (!a || !b || !pa || !pb) return;
    rec.curve = edgeCurve(pa, pb, a.w, a.h, b.w, b.h, rec.lane?.lane ?? 0, rec.lane?.lanes ?? 1);
    rec.path.setAttribute("d", rec.curve.d);
    placeLabel(rec);
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

  function drawNode(rec, idx, state, animate) {
    const d = nodeDisplay(idx, state, rec.node);
    const old = rec.disp;
    const { els } = rec;
    const room = d.shape ? 18 : 25; // characters of the title that fit beside the shape, or alone
    setText(els.title, d.title.length > room ? d.title.slice(0, room - 1) + "…" : d.title);
    setText(els.shape, d.shape.length > 16 ? d.shape.slice(0, 15) + "…" : d.shape);
    setText(els.badges, d.badges);
    setText(els.gradFn, d.gradFn);
    setText(els.value, d.value);
    setText(els.grad, d.grad);
    setText(els.extra, d.extra);
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

  function big() {
    return graph && graph.nodes.length > BIG_GRAPH;
  }

  function flash(el, cls) {
    // removed now and added next frame, so the CSS animation restarts without a forced reflow
    el.classList.remove(cls);
    requestAnimationFrame(() => el.classList.add(cls));
  }

  function drawEdge(rec, idx, state) {
    const d = edgeDisplay(idx, state, graph, rec.edge);
    const labelChanged = !rec.disp || rec.disp.label !== d.label;
    rec.disp = d;
    const cls = [
      "gp-edge",
      d.exists ? "" : "ghost",
      d.carried ? "carried" : "",
      d.current ? "current" : "",
      d.noGrad ? "nograd" : "",
      d.inplace ? "inplace" : "",
    ]
      .filter(Boolean)
      .join(" ");
    if (cls !== rec.cls) {
      rec.g.setAttribute("class", cls);
      rec.path.setAttribute("marker-end", d.carried ? "url(#gp-arrow-hot)" : "url(#gp-arrow)");
      rec.label.setAttribute("class", "gp-edge-label" + (d.current ? " current" : ""));
      rec.cls = cls;
    }
    if (labelChanged) {
      setText(rec.text, d.label);
      rec.label.setAttribute("visibility", d.label && d.exists && rec !== flying ? "visible" : "hidden");
      placeLabel(rec);
    }
    if (d.current) currentEdge = rec.edge.id;
  }

  /**
   * Draws moment `state`. With `changes` (what one or more events touched) only those cards and
   * edges are looked at; without, everything is (a jump). `animate` is on while playing.
   */
  function render(idx, state, changes = null, { animate = false } = {}) {
    if (!graph) return;
    if (!changes || changes.all) {
      currentEdge = null;
      for (const rec of nodeEls.values()) drawNode(rec, idx, state, animate);
      for (const rec of edgeEls.values()) drawEdge(rec, idx, state);
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
    for (const id of nodes) drawNode(nodeEls.get(id), idx, state, animate);
    for (const id of edges) {
      const rec = edgeEls.get(id);
      if (rec) drawEdge(rec, idx, state);
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

  // -- selection ----------------------------------------------------------------------------

  function setSelection(ids) {
    selection = ids.slice();
    for (const [id, rec] of nodeEls) {
      const on = selection.includes(id);
      if (rec.g.classList.contains("selected") !== on) {
        rec.g.classList.toggle("selected", on);
        rec.cls = rec.g.getAttribute("class");
      }
      rec.g.setAttribute("aria-pressed", on ? "true" : "false");
    }
  }

  // -- view: pan, zoom, fit -----------------------------------------------------------------

  const MIN_FIT = 0.3; // below this cards are unreadable: show part of the graph instead

  function fit(ids = null) {
    if (!graph || !graph.nodes.length) return;
    const nodes = ids ? graph.nodes.filter((n) => ids.includes(n.id)) : graph.nodes;
    const b = bounds(nodes, pos);
    sizeToContainer();
    const W = size.w > 1 ? size.w : 800;
    const H = size.h > 1 ? size.h : 500;
    const pad = 40;
    const want = Math.min((W - 2 * pad) / b.w, (H - 2 * pad) / b.h);
    const k = Math.min(1.15, Math.max(MIN_FIT, want));
    if (want >= MIN_FIT) {
      view = { k, x: W / 2 - (b.x + b.w / 2) * k, y: H / 2 - (b.y + b.h / 2) * k };
    } else {
      // too big to read whole: show its right end, where outputs are and backward starts
      const y = b.h * k <= H - 2 * pad ? H / 2 - (b.y + b.h / 2) * k : pad - b.y * k;
      view = { k, x: W - pad - (b.x + b.w) * k, y };
    }
    applyView();
  }

  /** Brings node `id` into view (centred on it) if it is off screen; used to follow playback. */
  function follow(id) {
    const n = nodeEls.get(id)?.node;
    const p = pos.get(id);
    if (!n || !p) return;
    const W = size.w > 1 ? size.w : 800;
    const H = size.h > 1 ? size.h : 500;
    const x0 = (p.x - n.w / 2) * view.k + view.x;
    const y0 = (p.y - n.h / 2) * view.k + view.y;
    const x1 = (p.x + n.w / 2) * view.k + view.x;
    const y1 = (p.y + n.h / 2) * view.k + view.y;
    if (x0 >= 0 && y0 >= 0 && x1 <= W && y1 <= H) return;
    view = { ...view, x: W / 2 - p.x * view.k, y: H / 2 - p.y * view.k };
    applyView();
  }

  /** Fits the whole graph when any of `ids` lies outside what is on screen (nodes an edit added). */
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
        fit();
        return;
      }
    }
  }

  function zoomAt(factor, cx, cy) {
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
      view = { ...view, x: drag.start.x + dx, y: drag.start.y + dy };
      applyView();
      surface.classList.add("panning");
    } else if (drag.start) {
      const next = { x: drag.start.x + dx / view.k, y: drag.start.y + dy / view.k };
      pos.set(drag.id, next);
      const rec = nodeEls.get(drag.id);
      placeNode(rec);
      for (const eid of incident.get(drag.id) || []) routeEdge(edgeEls.get(eid));
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

  function onKey(ev) {
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
  surface.addEventListener("dblclick", onDblClick);

  return {
    surface,
    setGraph,
    render,
    setFlight,
    setSelection,
    fit,
    follow,
    ensureVisible,
    zoomBy,
    get positions() {
      return pos;
    },
    focusNode(id) {
      nodeEls.get(id)?.g.focus();
    },
    destroy() {
      resizeObserver?.disconnect();
      surface.remove();
      flight.remove();
      nodeEls.clear();
      edgeEls.clear();
    },
  };
}
