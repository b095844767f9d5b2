// The loss series (each backward() root's value), checked on real timelines: a 3-step training loop, non-loss backward calls, one backward.
import { test } from "node:test";
import assert from "node:assert/strict";
import { timeline } from "./helpers.js";
import { buildIndex, stateAt, stepOfMoment } from "../src/timeline-state.js";
import {
  lossSeries,
  hasLossPlot,
  lossPointsAt,
  lossTip,
  scalarOf,
  formatLoss,
  currentLossPoint,
} from "../src/loss-series.js";

const close = (a, b) => assert.ok(Math.abs(a - b) < 1e-5, `${a} != ${b}`);

test("a 3-step training loop gives its loss at each step, with the loop iteration", () => {
  const timelineIndex = buildIndex(timeline("train"));
  const series = lossSeries(timelineIndex);
  assert.ok(hasLossPlot(series));
  assert.equal(series.name, "loss");
  assert.equal(series.loop, true);
  assert.equal(series.points.length, 3);
  // w = [1, -2] shrinks by (1 - 2 * lr) = 0.8 a step: loss 5, 3.2, 2.048
  [5, 3.2, 2.048].forEach((v, k) => close(series.points[k].value, v));
  assert.deepEqual(
    series.points.map((p) => p.k),
    [0, 1, 2],
  );
  assert.deepEqual(
    series.points.map((p) => p.loop),
    [[0], [1], [2]],
  );
  assert.deepEqual(
    series.points.map((p) => p.text),
    ["5.", "3.2000", "2.0480"],
  );
  for (const p of series.points) {
    const ev = timelineIndex.events[p.at];
    assert.equal(ev.event, "backward_begin");
    assert.equal(ev.root, p.root);
    assert.equal(timelineIndex.steps[p.step].text.trim(), "loss.backward()");
    assert.equal(p.line, 7);
    assert.equal(stepOfMoment(timelineIndex, p.at + 1), p.step);
    // each iteration's loss is a tensor of its own (ids carry the loop iteration)
    assert.match(p.root, new RegExp(`@${p.loop[0]}:`));
  }
});

test("the series agrees with the loss the program printed and with the state at each backward", () => {
  const timelineIndex = buildIndex(timeline("train"));
  const series = lossSeries(timelineIndex);
  const printed = timelineIndex.timeline.console.map((c) => Number(c.text.trim().split(" ")[1]));
  assert.deepEqual(
    series.points.map((p) => p.value),
    printed,
  );
  for (const p of series.points) {
    const s = stateAt(timelineIndex, p.at);
    assert.equal(scalarOf(s.t.get(p.root).value), p.value);
  }
});

test("points happen when their backward begins: the count at every moment", () => {
  const timelineIndex = buildIndex(timeline("train"));
  const series = lossSeries(timelineIndex);
  const at = series.points.map((p) => p.at);
  for (let pos = 0; pos <= timelineIndex.count; pos++) {
    assert.equal(lossPointsAt(series, pos), at.filter((a) => a < pos).length, `moment ${pos}`);
  }
  assert.equal(lossPointsAt(series, at[0]), 0, "just before the first backward: none");
  assert.equal(lossPointsAt(series, at[0] + 1), 1);
  assert.equal(lossPointsAt(series, timelineIndex.count), 3);
});

test("hover text: step, value and where", () => {
  const series = lossSeries(buildIndex(timeline("train")));
  assert.equal(lossTip(series, series.points[1]), "iteration 2: loss = 3.2000 (line 7, iteration 2)");
});

test("backward with gradient= on a non-scalar and autograd.grad are not a loss", () => {
  const timelineIndex = buildIndex(timeline("backward_kinds"));
  const begins = timelineIndex.events.filter((e) => e.event === "backward_begin");
  assert.deepEqual(
    begins.map((e) => e.api),
    ["backward", "grad", "backward"],
  );
  const series = lossSeries(timelineIndex);
  assert.equal(series.points.length, 1);
  assert.equal(series.points[0].value, 5); // s = 1 + 4
  assert.equal(series.name, "s");
  assert.equal(series.loop, false);
  assert.equal(hasLossPlot(series), false, "one scalar backward: no plot");
});

test("one backward shows no plot; the same root twice is two points, and no plot outside a loop", () => {
  assert.equal(hasLossPlot(lossSeries(buildIndex(timeline("seed")))), false);
  assert.equal(hasLossPlot(lossSeries(buildIndex(timeline("chain")))), false);
  const twice = lossSeries(buildIndex(timeline("twice")));
  assert.deepEqual(
    twice.points.map((p) => [p.value, p.root]),
    [
      [8, "t:be94c3:0"],
      [8, "t:be94c3:0"],
    ],
  );
  assert.equal(hasLossPlot(twice), false, "two backward() calls outside a loop are not a training curve");
  assert.equal(twice.loop, false);
  assert.equal(lossTip(twice, twice.points[0]), "step 0: z = 8. (line 5)");
});

test("scalarOf and formatLoss", () => {
  assert.equal(scalarOf({ shape: [], dtype: "float32", data: 2.5 }), 2.5);
  assert.equal(scalarOf({ shape: [1, 1], dtype: "float32", data: [[3]] }), 3);
  assert.ok(Number.isNaN(scalarOf({ shape: [], dtype: "float32", data: "nan" })));
  assert.equal(scalarOf({ shape: [2], dtype: "float32", data: [1, 2] }), null);
  assert.equal(scalarOf({ shape: [100], dtype: "float32", summary: { numel: 100, first: [0] } }), null);
  assert.equal(scalarOf(null), null);
  assert.equal(formatLoss(0.25123), "0.2512");
  assert.equal(formatLoss(1.23456e-5), "1.2346e-05");
  assert.equal(formatLoss(NaN), "nan");
});

test("a long loop's quiet iterations give their points from the loop's backward series", () => {
  const tl = timeline("long_train");
  const timelineIndex = buildIndex(tl);
  const quiet = tl.steps.filter((s) => s.kind === "iterations");
  assert.equal(quiet.length, 1);
  assert.deepEqual(quiet[0].iterations, [3, 37]);
  const series = lossSeries(timelineIndex);
  assert.equal(series.points.length, 40);
  assert.equal(series.name, "loss");
  // w shrinks by 0.8 a step: the loss is 5 * 0.64 ** k, for every iteration alike
  series.points.forEach((p, k) => {
    assert.equal(p.k, k);
    assert.deepEqual(p.loop, [k]);
    assert.ok(Math.abs(p.value - 5 * 0.64 ** k) < 1e-4 * 5 * 0.64 ** k, `${k}: ${p.value}`);
  });
  // the detailed iterations' points are backward_begin events, the quiet ones are not
  const evented = series.points.filter((p) => p.root !== null).map((p) => p.k);
  assert.deepEqual(evented, [0, 1, 2, 38, 39]);
  const quietStep = timelineIndex.steps.indexOf(quiet[0]);
  for (const p of series.points.slice(3, 38)) assert.equal(p.step, quietStep);
  // all of them are past once the player is at the end
  assert.equal(lossPointsAt(series, timelineIndex.count + 1), 40);
});

test("the ringed point is the drawn iteration's loss, even before that iteration computed it", () => {
  const timelineIndex = buildIndex(timeline("train"));
  const series = lossSeries(timelineIndex);
  const [first, second] = series.points;
  // just after the first backward began, in the second iteration's forward pass, at its backward
  const during = first.at + 1;
  const beforeSecond = second.at;
  assert.equal(currentLossPoint(series, during, 0), first);
  assert.equal(lossPointsAt(series, beforeSecond), 1, "the second loss is not computed yet");
  assert.equal(currentLossPoint(series, beforeSecond, 1), second, "but its iteration is the one drawn");
  assert.equal(currentLossPoint(series, beforeSecond, null), first, "no iteration: the last computed");
  assert.equal(currentLossPoint(series, 0, null), null);
});
