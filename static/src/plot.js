// The inspector's plot of a tensor's .grad over the run: BokehJS when it can be loaded locally, else a small SVG line.

import { h, s, clear } from "./dom.js";

let loading = null;

function sameOrigin(url) {
  try {
    return new URL(url, location.href).origin === location.origin;
  } catch {
    return false;
  }
}

function loadScript(url) {
  return new Promise((resolve, reject) => {
    const el = document.createElement("script");
    el.src = url;
    el.async = true;
    el.onload = () => resolve();
    el.onerror = () => reject(new Error(`could not load ${url}`));
    document.head.append(el);
  });
}

/** The address of bokeh-api.min.js beside the page's own bokeh.min.js (same version, same server). */
export function guessBokehApiUrl(doc = document) {
  for (const el of doc.querySelectorAll("script[src]")) {
    const src = el.getAttribute("src");
    const m = /^(.*\/)bokeh(\.min)?\.js(\?.*)?$/.exec(src);
    if (m) return `${m[1]}bokeh-api${m[2] || ""}.js${m[3] || ""}`;
  }
  return null;
}

/**
 * Resolves with window.Bokeh once Bokeh.Plotting is there, or null when it cannot be had.
 * Only same-origin URLs are ever loaded: the playground makes no request off its own server.
 */
export function loadBokehPlotting({ bokehUrl = null, bokehApiUrl = null } = {}) {
  if (window.Bokeh?.Plotting) return Promise.resolve(window.Bokeh);
  if (loading) return loading;
  loading = (async () => {
    if (!window.Bokeh) {
      if (!bokehUrl || !sameOrigin(bokehUrl)) return null;
      await loadScript(bokehUrl);
    }
    if (!window.Bokeh?.Plotting) {
      const url = bokehApiUrl || guessBokehApiUrl();
      if (!url || !sameOrigin(url)) return null;
      await loadScript(url);
    }
    return window.Bokeh?.Plotting ? window.Bokeh : null;
  })().catch(() => null);
  return loading;
}

const GRAD = "#8430ce";

/**
 * A plot in `el` of points [{x, y, past}] (past: at or before the moment shown).
 * update(points, title) redraws; destroy() removes it.
 */
export function createGradPlot(el, opts = {}) {
  let bokeh = null;
  let bview = null;
  let sources = null;
  let destroyed = false;
  let lastPoints = [];
  let lastTitle = "";
  const box = h("div", { class: "gp-plot", "data-testid": "grad-plot" });
  el.append(box);

  function split(points) {
    const past = points.filter((p) => p.past && p.y != null);
    const future = points.filter((p) => !p.past && p.y != null);
    const all = points.filter((p) => p.y != null);
    return {
      all: { x: all.map((p) => p.x), y: all.map((p) => p.y) },
      past: { x: past.map((p) => p.x), y: past.map((p) => p.y) },
      future: { x: future.map((p) => p.x), y: future.map((p) => p.y) },
    };
  }

  async function makeBokeh(points, title) {
    const B = bokeh;
    const P = B.Plotting;
    const d = split(points);
    sources = {
      all: new B.ColumnDataSource({ data: d.all }),
      past: new B.ColumnDataSource({ data: d.past }),
      future: new B.ColumnDataSource({ data: d.future }),
    };
    const fig = P.figure({
      height: 150,
      sizing_mode: "stretch_width",
      tools: "",
      toolbar_location: null,
      title,
      x_axis_label: ".grad change #",
      background_fill_color: "#fbfbfd",
      border_fill_color: null,
      outline_line_color: null,
      min_border_left: 36,
      min_border_right: 8,
      min_border_top: 6,
      min_border_bottom: 6,
    });
    fig.title.text_font_size = "11px";
    fig.title.text_font_style = "normal";
    fig.xaxis.axis_label_text_font_size = "10px";
    fig.xaxis.axis_label_text_font_style = "normal";
    fig.xaxis.major_label_text_font_size = "10px";
    fig.yaxis.major_label_text_font_size = "10px";
    fig.xgrid.grid_line_color = null;
    try {
      // whole-numbered changes: no 1.5 on the axis
      fig.xaxis.ticker = new B.SingleIntervalTicker({ interval: 1, num_minor_ticks: 0 });
    } catch {
      /* an older BokehJS without the proxy setter: the default ticker will do */
    }
    fig.line({ x: { field: "x" }, y: { field: "y" }, source: sources.all, line_color: GRAD, line_width: 2, line_alpha: 0.35 });
    fig.scatter({ x: { field: "x" }, y: { field: "y" }, source: sources.future, size: 7, fill_color: "white", line_color: GRAD, line_alpha: 0.5 });
    fig.scatter({ x: { field: "x" }, y: { field: "y" }, source: sources.past, size: 8, fill_color: GRAD, line_color: GRAD });
    clear(box);
    const target = h("div", { class: "gp-plot-bokeh" });
    box.append(target);
    const v = await P.show(fig, target);
    if (destroyed) {
      (Array.isArray(v) ? v : [v]).forEach((x) => x?.remove?.());
      return;
    }
    bview = v;
  }

  function sparkline(points, title) {
    clear(box);
    const pts = points.filter((p) => p.y != null && Number.isFinite(p.y));
    const W = 260;
    const H = 110;
    const svg = s("svg", { class: "gp-spark", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": title });
    svg.append(s("text", { x: 4, y: 12, class: "gp-spark-title" }, title));
    if (pts.length) {
      const xs = pts.map((p) => p.x);
      const ys = pts.map((p) => p.y);
      const x0 = Math.min(...xs);
      const x1 = Math.max(...xs);
      const y0 = Math.min(0, ...ys);
      const y1 = Math.max(0, ...ys);
      const sx = (x) => 24 + ((x - x0) / (x1 - x0 || 1)) * (W - 34);
      const sy = (y) => H - 14 - ((y - y0) / (y1 - y0 || 1)) * (H - 34);
      svg.append(s("line", { x1: 24, x2: W - 10, y1: sy(0), y2: sy(0), class: "gp-spark-axis" }));
      svg.append(s("path", { d: pts.map((p, i) => `${i ? "L" : "M"}${sx(p.x).toFixed(1)},${sy(p.y).toFixed(1)}`).join(" "), class: "gp-spark-line" }));
      for (const p of pts) svg.append(s("circle", { cx: sx(p.x), cy: sy(p.y), r: 3.5, class: p.past ? "gp-spark-dot past" : "gp-spark-dot" }));
      svg.append(s("text", { x: 2, y: sy(y1) + 4, class: "gp-spark-tick" }, fmt(y1)));
      svg.append(s("text", { x: 2, y: sy(y0) + 4, class: "gp-spark-tick" }, fmt(y0)));
    }
    box.append(svg);
  }

  function fmt(v) {
    return Math.abs(v) >= 1000 || (Math.abs(v) < 0.01 && v !== 0) ? v.toExponential(1) : String(Math.round(v * 100) / 100);
  }

  async function update(points, title) {
    const sameShape = bview && sources && title === lastTitle && points.length === lastPoints.length;
    lastPoints = points;
    lastTitle = title;
    if (sameShape) {
      const d = split(points);
      sources.all.data = d.all;
      sources.past.data = d.past;
      sources.future.data = d.future;
      return;
    }
    if (bokeh === null && opts.useBokeh !== false) {
      bokeh = (await loadBokehPlotting(opts)) || false;
      if (destroyed) return;
    }
    if (points !== lastPoints) return; // a newer update arrived while Bokeh was loading
    removeBokeh();
    if (bokeh) {
      try {
        await makeBokeh(points, title);
        return;
      } catch (e) {
        bokeh = false; // degrade for good: a plot that failed once would fail again
      }
    }
    sparkline(points, title);
  }

  function removeBokeh() {
    if (bview) (Array.isArray(bview) ? bview : [bview]).forEach((v) => v?.remove?.());
    bview = null;
    sources = null;
  }

  return {
    update,
    destroy() {
      destroyed = true;
      removeBokeh();
      box.remove();
    },
  };
}
