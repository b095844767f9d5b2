// Small line plots (a tensor's .grad over the run, the loss over a training loop): BokehJS when it can be loaded locally, else an SVG line.

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
 * A plot in `el` of points [{x, y, past, now?, tip?}] (past: at or before the moment shown; the
 * point marked `now`, else the last past one, is ringed as the current one; tip: the hover
 * text, when opts.hover). Options:
 * testid, xLabel, color, height, unitTicks (one tick per whole x), hover, showTitle (else the
 * title is only the box's label), onPick(x) (a click on the plot picks the point nearest in x),
 * and the Bokeh URLs of loadBokehPlotting. update(points, title) redraws; destroy() removes it.
 */
export function createSeriesPlot(el, opts = {}) {
  const o = {
    testid: "grad-plot",
    xLabel: ".grad change #",
    color: GRAD,
    height: 150,
    unitTicks: true,
    hover: false,
    showTitle: true,
    onPick: null,
    ...opts,
  };
  let bokeh = null;
  let bview = null;
  let sources = null;
  let destroyed = false;
  let lastPoints = [];
  let lastTitle = "";
  let generation = 0; // of Bokeh figures: one whose show() ends after a newer began is dropped
  const box = h("div", { class: "gp-plot", "data-testid": o.testid });
  if (o.onPick) box.classList.add("pickable");
  el.append(box);

  // A click on a Bokeh plot: its x in data units from the plot's own scale (a function given to
  // Bokeh's on_event is not kept: its callbacks must be Bokeh models).
  if (o.onPick) {
    box.addEventListener("click", (ev) => {
      const v = (Array.isArray(bview) ? bview : [bview]).find((x) => x?.frame?.x_scale);
      if (!v) return;
      const rect = v.el.getBoundingClientRect();
      const sx = ev.clientX - rect.left;
      const { bbox } = v.frame;
      if (sx < bbox.left - 8 || sx > bbox.right + 8) return;
      pickNear(v.frame.x_scale.invert(sx));
    });
  }

  /** The point nearest to data x `x` (among those with a value), picked. */
  function pickNear(x) {
    let best = null;
    for (const p of lastPoints) {
      if (p.y == null || !Number.isFinite(p.y)) continue;
      if (!best || Math.abs(p.x - x) < Math.abs(best.x - x)) best = p;
    }
    if (best) o.onPick(best.x);
  }

  function columns(pts) {
    return { x: pts.map((p) => p.x), y: pts.map((p) => p.y), tip: pts.map((p) => p.tip ?? `${p.x}: ${p.y}`) };
  }

  function split(points) {
    const all = points.filter((p) => p.y != null && Number.isFinite(p.y));
    const past = all.filter((p) => p.past);
    const ringed = points.find((p) => p.now) ?? [...points].reverse().find((p) => p.past);
    const now = ringed && all.includes(ringed) ? [ringed] : [];
    return {
      all: columns(all),
      past: columns(past),
      future: columns(all.filter((p) => !p.past)),
      now: columns(now),
    };
  }

  async function makeBokeh(points, title) {
    const gen = ++generation;
    const B = bokeh;
    const P = B.Plotting;
    const d = split(points);
    sources = {
      all: new B.ColumnDataSource({ data: d.all }),
      past: new B.ColumnDataSource({ data: d.past }),
      future: new B.ColumnDataSource({ data: d.future }),
      now: new B.ColumnDataSource({ data: d.now }),
    };
    // the page's colours (light or dark theme) and no text under 12 px, as everywhere else
    const css = getComputedStyle(box);
    const color = (name, fallback) => css.getPropertyValue(name).trim() || fallback;
    const panel = color("--gp-panel", "#ffffff");
    const muted = color("--gp-muted", "#646b75");
    const line = color("--gp-line", "#e0e3e8");
    const fig = P.figure({
      height: o.height,
      sizing_mode: "stretch_width",
      tools: "",
      toolbar_location: null,
      title: o.showTitle ? title : null,
      x_axis_label: o.xLabel,
      background_fill_color: panel,
      border_fill_color: null,
      outline_line_color: null,
      min_border_left: 36,
      min_border_right: 8,
      min_border_top: 6,
      min_border_bottom: 6,
    });
    if (o.showTitle) {
      fig.title.text_font_size = "12px";
      fig.title.text_font_style = "normal";
      fig.title.text_color = muted;
    }
    for (const axis of [fig.xaxis, fig.yaxis]) {
      axis.axis_label_text_font_size = "12px";
      axis.axis_label_text_font_style = "normal";
      axis.axis_label_text_color = muted;
      axis.major_label_text_font_size = "12px";
      axis.major_label_text_color = muted;
      axis.axis_line_color = line;
      axis.major_tick_line_color = line;
    }
    fig.ygrid.grid_line_color = line;
    fig.xgrid.grid_line_color = null;
    try {
      fig.yaxis.minor_tick_line_color = null;
      // room for the dots at the top and bottom of the range
      fig.y_range.range_padding = 0.2;
      // a label every 26 px or more of height: Bokeh's default of six crowds a short plot
      const yTicks = Math.max(2, Math.min(6, Math.floor((o.height - 50) / 26)));
      const yTicker = new B.BasicTicker({ desired_num_ticks: yTicks, num_minor_ticks: 0 });
      fig.yaxis.ticker = yTicker;
      fig.ygrid.ticker = yTicker; // the grid keeps the axis's first ticker otherwise
      // whole-numbered x: no 1.5 on the axis
      fig.xaxis.ticker = o.unitTicks
        ? new B.SingleIntervalTicker({ interval: 1, num_minor_ticks: 0 })
        : new B.BasicTicker({ min_interval: 1, num_minor_ticks: 0 });
    } catch {
      /* an older BokehJS without the proxy setter: the default ticker will do */
    }
    const c = o.color;
    fig.line({
      x: { field: "x" },
      y: { field: "y" },
      source: sources.all,
      line_color: c,
      line_width: 2,
      line_alpha: 0.35,
    });
    const future = fig.scatter({
      x: { field: "x" },
      y: { field: "y" },
      source: sources.future,
      size: 7,
      fill_color: "white",
      line_color: c,
      line_alpha: 0.5,
    });
    const past = fig.scatter({
      x: { field: "x" },
      y: { field: "y" },
      source: sources.past,
      size: 8,
      fill_color: c,
      line_color: c,
    });
    fig.scatter({
      x: { field: "x" },
      y: { field: "y" },
      source: sources.now,
      size: 14,
      fill_color: null,
      line_color: c,
      line_width: 2,
    });
    if (o.hover) {
      try {
        fig.add_tools(
          new B.HoverTool({
            renderers: [past, future],
            tooltips: "@tip",
            point_policy: "snap_to_data",
            attachment: "above",
          }),
        );
      } catch {
        /* no hover in this BokehJS: the plot still shows */
      }
    }
    clear(box);
    const target = h("div", { class: "gp-plot-bokeh" });
    box.append(target);
    box.dataset.renderer = "bokeh";
    box.setAttribute("aria-label", title);
    const v = await P.show(fig, target);
    if (destroyed || gen !== generation) {
      (Array.isArray(v) ? v : [v]).forEach((x) => x?.remove?.());
      return;
    }
    bview = v;
  }

  function sparkline(points, title) {
    clear(box);
    box.dataset.renderer = "svg";
    const pts = points.filter((p) => p.y != null && Number.isFinite(p.y));
    const W = 260;
    const H = o.height > 130 ? 110 : o.height - 20;
    const svg = s("svg", {
      class: "gp-spark",
      viewBox: `0 0 ${W} ${H}`,
      style: { height: `${H}px` },
      role: "img",
      "aria-label": title,
    });
    if (o.showTitle) svg.append(s("text", { x: 4, y: 12, class: "gp-spark-title" }, title));
    const readout = s("text", {
      x: W - 6,
      y: 12,
      class: "gp-spark-readout",
      "text-anchor": "end",
      "data-testid": "plot-readout",
    });
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
      svg.append(
        s("path", {
          d: pts.map((p, i) => `${i ? "L" : "M"}${sx(p.x).toFixed(1)},${sy(p.y).toFixed(1)}`).join(" "),
          class: "gp-spark-line",
          style: { stroke: o.color },
        }),
      );
      const ringed = pts.find((p) => p.now) ?? [...pts].reverse().find((p) => p.past);
      if (ringed)
        svg.append(
          s("circle", {
            cx: sx(ringed.x),
            cy: sy(ringed.y),
            r: 6.5,
            class: "gp-spark-now",
            style: { stroke: o.color },
          }),
        );
      for (const p of pts) {
        const tip = p.tip ?? `${p.x}: ${fmt(p.y)}`;
        const dot = s(
          "circle",
          {
            cx: sx(p.x),
            cy: sy(p.y),
            r: 3.5,
            class: p.past ? "gp-spark-dot past" : "gp-spark-dot",
            style: p.past ? { stroke: o.color, fill: o.color } : { stroke: o.color },
          },
          s("title", null, tip),
        );
        if (o.onPick) {
          dot.setAttribute("data-testid", "plot-point");
          dot.setAttribute("data-x", String(p.x));
          dot.addEventListener("click", () => o.onPick(p.x));
        }
        if (o.hover) {
          // the hover value, also where a native tooltip does not show (touch, screenshots)
          dot.addEventListener("pointerenter", () => {
            readout.textContent = tip;
          });
          dot.addEventListener("pointerleave", () => {
            readout.textContent = "";
          });
        }
        svg.append(dot);
      }
      svg.append(s("text", { x: 2, y: sy(y1) + 4, class: "gp-spark-tick" }, fmt(y1)));
      svg.append(s("text", { x: 2, y: sy(y0) + 4, class: "gp-spark-tick" }, fmt(y0)));
    }
    svg.append(readout);
    box.append(svg);
  }

  function fmt(v) {
    return Math.abs(v) >= 1000 || (Math.abs(v) < 0.01 && v !== 0)
      ? v.toExponential(1)
      : String(Math.round(v * 100) / 100);
  }

  // New values for a plot already drawn go in after the page has painted what changed with
  // them: Bokeh redraws its canvas at once (20 ms and more), which is worth one frame's delay
  // behind the graph and the numbers a reply or a step changed.
  let queued = null;

  function setSources() {
    queued = null;
    if (!sources) return;
    const d = split(lastPoints);
    sources.all.data = d.all;
    sources.past.data = d.past;
    sources.future.data = d.future;
    sources.now.data = d.now;
  }

  async function update(points, title) {
    const sameShape = bview && sources && title === lastTitle && points.length === lastPoints.length;
    lastPoints = points;
    lastTitle = title;
    if (sameShape) {
      if (!queued) {
        queued = requestAnimationFrame(() => {
          queued = setTimeout(setSources, 0); // after the paint this frame makes
        });
      }
      return;
    }
    if (bokeh === null && o.useBokeh !== false) {
      bokeh = (await loadBokehPlotting(o)) || false;
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
    if (queued) {
      cancelAnimationFrame(queued);
      clearTimeout(queued);
      queued = null;
    }
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

/** The inspector's plot of a tensor's .grad after each change. */
export function createGradPlot(el, opts = {}) {
  return createSeriesPlot(el, opts);
}
