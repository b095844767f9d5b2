// The loss panel: a training loop's loss at each backward() call, the calls made so far filled and the iteration drawn ringed.

import { h, clear, setText } from "./dom.js";
import { lossSeries, hasLossPlot, lossPointsAt, lossTip, lossX, lossName, currentLossPoint } from "./loss-series.js";
import { createSeriesPlot } from "./plot.js";

const LOSS_COLOR = "#1a73e8";

/**
 * Shown only for a training loop: MIN_LOSS_POINTS or more backward() calls on a scalar in loops.
 * setTimeline(timelineIndex) after each run; setMoment(pos) as often as the moment changes (the plot is
 * redrawn only when the moment crosses a backward call). `onPick(point)`: a click on the plot
 * chose that backward call (lossSeries's point).
 */
export function createLossPanel(el, { plotOptions = {}, onPick = null } = {}) {
  const now = h("span", { class: "gp-loss-now", "data-testid": "loss-now" });
  const label = h("span", { class: "gp-loss-label" }, "Loss");
  const head = h("div", { class: "gp-pane-head" }, label, h("span", { class: "gp-spacer" }), now);
  const body = h("div", { class: "gp-loss-body" });
  const root = h(
    "section",
    { class: "gp-loss", "data-testid": "loss-plot", "aria-label": "loss over the run", hidden: true },
    head,
    body,
  );
  el.append(root);
  let series = null;
  let plot = null;
  let shown = ""; // the moment drawn: points computed and the point ringed
  let title = "";
  let xLabel = "";

  function setTimeline(timelineIndex) {
    series = timelineIndex ? lossSeries(timelineIndex) : null;
    shown = "";
    if (!series || !hasLossPlot(series)) {
      series = null;
      root.hidden = true;
      el.classList.remove("gp-has-loss");
      root.dataset.points = "0";
      plot?.destroy();
      plot = null;
      clear(body);
      return;
    }
    root.hidden = false;
    el.classList.add("gp-has-loss"); // the console gives up some height to the plot
    root.dataset.points = String(series.points.length);
    const name = series.name;
    title = name ? `${name} at each ${name}.backward()` : "the root's value at each backward()";
    label.textContent = name && name !== "loss" ? `Loss (${name})` : "Loss";
    label.title = title;
    const axis = series.loop ? "iteration" : "backward() call";
    if (plot && axis !== xLabel) {
      plot.destroy();
      plot = null;
    }
    xLabel = axis;
    if (!plot) {
      plot = createSeriesPlot(body, {
        ...plotOptions,
        testid: "loss-chart",
        xLabel,
        color: LOSS_COLOR,
        height: 130,
        showTitle: false, // the pane's head says what it is
        unitTicks: false,
        hover: true,
        onPick: (k) => {
          const p = series?.points.find((pt) => lossX(series, pt) === k);
          if (p) onPick?.(p);
        },
      });
    }
  }

  /** The moment `pos`, with `iteration` the loop iteration whose graph is drawn (or null). */
  function setMoment(pos, iteration = null) {
    if (!series) return;
    const n = lossPointsAt(series, pos);
    const cur = currentLossPoint(series, pos, iteration);
    const key = `${n}:${cur ? cur.k : -1}`;
    if (key === shown) return;
    shown = key;
    root.dataset.past = String(n);
    root.dataset.current = cur ? String(lossX(series, cur)) : "";
    const pts = series.points;
    setText(
      now,
      cur ? `${lossName(series, cur)}: ${series.name || "loss"} = ${cur.text}` : "before the first backward()",
    );
    now.title = cur ? lossTip(series, cur) : "";
    plot.update(
      pts.map((p, i) => ({ x: lossX(series, p), y: p.value, past: i < n, now: p === cur, tip: lossTip(series, p) })),
      title,
    );
  }

  return {
    setTimeline,
    setMoment,
    get series() {
      return series;
    },
    destroy() {
      plot?.destroy();
      root.remove();
    },
  };
}
