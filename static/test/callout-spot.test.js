// The accumulation callout goes beside its card where it covers the least: controls, other cards, the canvas edge.
import { test } from "node:test";
import assert from "node:assert/strict";
import { bestCalloutSpot, calloutBox, calloutLines, calloutWidths } from "../src/callout-place.js";

const rect = (x, y, w, h) => ({ x0: x, y0: y, x1: x + w, y1: y + h });
const covers = (spot, box, r) =>
  Math.min(spot.x + box.w, r.x1) > Math.max(spot.x, r.x0) && Math.min(spot.y + box.h, r.y1) > Math.max(spot.y, r.y0);

test("with room below, the callout goes under its card", () => {
  const card = rect(100, 100, 200, 110);
  const spot = bestCalloutSpot(card, { w: 300, h: 40 }, { w: 1000, h: 700 });
  assert.deepEqual({ x: spot.x, y: spot.y }, { x: 100, y: 216 });
});

test("a card near the bottom of a phone: above it, not over the zoom buttons or out of the canvas", () => {
  const canvas = { w: 390, h: 500 };
  const card = rect(20, 380, 200, 110);
  const zoom = rect(230, 450, 150, 40);
  const box = { w: 340, h: 60 };
  const spot = bestCalloutSpot(card, box, canvas, [], [zoom]);
  assert.ok(spot.y + box.h <= card.y0, "above the card");
  assert.ok(!covers(spot, box, zoom) && !covers(spot, box, card));
  assert.ok(spot.x >= 0 && spot.x + box.w <= canvas.w);
});

test("another card under it sends the callout to a free side", () => {
  const card = rect(300, 100, 200, 110);
  const below = rect(300, 230, 200, 110);
  const spot = bestCalloutSpot(card, { w: 200, h: 50 }, { w: 1000, h: 700 }, [below]);
  assert.ok(!covers(spot, { w: 200, h: 50 }, below) && !covers(spot, { w: 200, h: 50 }, card));
});

test("in a chain at 1024x700 the callout takes a narrower box beside the card rather than cover the next one", () => {
  // a leaf at the top of a top-to-bottom chain, its next card 34 px under it, little room above
  const canvas = { w: 655, h: 470 };
  const card = rect(266, 40, 124, 66);
  const next = rect(266, 140, 124, 66);
  const text = "w.grad: None + [0.5467, -1.0935] = [0.5467, -1.0935]";
  const boxes = calloutWidths(canvas.w).map((w) => calloutBox(text, null, w));
  const spot = bestCalloutSpot(card, boxes, canvas, [next]);
  assert.ok(!covers(spot, spot.box, next), "the next card stays clear");
  assert.ok(!covers(spot, spot.box, card), "its own card stays clear");
  assert.ok(spot.x >= 0 && spot.x + spot.box.w <= canvas.w && spot.y >= 0, "inside the canvas");
});

test("the minimap is a control like any other: the callout keeps off it", () => {
  const canvas = { w: 390, h: 500 };
  const card = rect(138, 40, 114, 62);
  const minimap = rect(260, 10, 120, 80);
  const boxes = calloutWidths(canvas.w).map((w) =>
    calloutBox("h.grad: None + [0.0949, 0.6227] = [0.0949, 0.6227]", null, w),
  );
  const spot = bestCalloutSpot(card, boxes, canvas, [rect(138, 136, 114, 62)], [minimap]);
  assert.ok(!covers(spot, spot.box, minimap));
});

test("the callout's text: one line when it fits, else the sum read down (before, + delta, = after)", () => {
  assert.deepEqual(calloutLines("a.grad: [2.] + [3.] = [5.]", 340), ["a.grad: [2.] + [3.] = [5.]"]);
  assert.deepEqual(calloutLines("a.grad: [2., 4., 6.] + [3., 3., 3.] = [5., 7., 9.]", 250), [
    "a.grad: [2., 4., 6.]",
    "+ [3., 3., 3.]",
    "= [5., 7., 9.]",
  ]);
  // a part longer than a line wraps at spaces, and every number is kept
  const lines = calloutLines("a.grad: None + [0.0949, 0.6227, 0.0091] = [0.0949, 0.6227, 0.0091]", 140);
  assert.ok(lines.every((l) => l.length <= Math.floor((140 - 21) / 7.6)));
  assert.equal(lines.join(" "), "a.grad: None + [0.0949, 0.6227, 0.0091] = [0.0949, 0.6227, 0.0091]");
});

test("the callout's size is estimated from its text: short stays narrow, long wraps at the width limit", () => {
  const short = calloutBox("x.grad: None + [8.] = [8.]", null, 340);
  assert.ok(short.w < 250 && short.h < 35);
  const long = calloutBox(`a.grad: ${"[2., 4., 6.] + ".repeat(20)}`, null, 340);
  assert.ok(long.w <= 340);
  assert.ok(long.h > 60);
  const m = {
    shape: [2, 3],
    data: [
      [1, 2, 3],
      [4, 5, 6],
    ],
  };
  const heat = calloutBox("W.grad", { name: "W", before: null, delta: m, after: m }, 340);
  assert.ok(heat.w <= 340 && heat.h >= 44);
  assert.deepEqual(calloutWidths(390), [340, 260, 200, 160, 132]);
  assert.deepEqual(calloutWidths(200), [184, 160, 132]);
});

test("a matrix callout is never narrower than its name, and is taller when its grids wrap", () => {
  const m = {
    shape: [4, 3],
    data: [
      [0, 0, 0],
      [0, 0, 0],
      [1, 1, 1],
      [0, 0, 0],
    ],
  };
  const wide = calloutBox("", { name: "model.0.weight", before: null, delta: m, after: m }, 340);
  const narrow = calloutBox("", { name: "model.0.weight", before: null, delta: m, after: m }, 132);
  assert.ok(narrow.w >= "model.0.weight.grad:".length * 7.5 + 21, JSON.stringify(narrow));
  assert.ok(narrow.h > wide.h, "wrapped grids take more height");
  assert.ok(wide.w <= 340);
});
