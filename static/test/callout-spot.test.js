// The accumulation callout goes beside its card where it covers the least: controls, other cards, the canvas edge.
import { test } from "node:test";
import assert from "node:assert/strict";
import { bestCalloutSpot, calloutBox } from "../src/graph-view.js";

const rect = (x, y, w, h) => ({ x0: x, y0: y, x1: x + w, y1: y + h });
const covers = (spot, box, r) =>
  Math.min(spot.x + box.w, r.x1) > Math.max(spot.x, r.x0) && Math.min(spot.y + box.h, r.y1) > Math.max(spot.y, r.y0);

test("with room below, the callout goes under its card", () => {
  const card = rect(100, 100, 200, 110);
  assert.deepEqual(bestCalloutSpot(card, { w: 300, h: 40 }, { w: 1000, h: 700 }), { x: 100, y: 216 });
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

test("the callout's size is estimated from its text: short stays narrow, long wraps at the width limit", () => {
  const short = calloutBox("x.grad: None + [8.] = [8.]", null, 1000);
  assert.ok(short.w < 250 && short.h < 35);
  const long = calloutBox(`a.grad: ${"[2., 4., 6.] + ".repeat(20)}`, null, 390);
  assert.equal(long.w, 340);
  assert.ok(long.h > 60);
  const m = {
    shape: [2, 3],
    data: [
      [1, 2, 3],
      [4, 5, 6],
    ],
  };
  const heat = calloutBox("heat|W.grad", { name: "W", before: null, delta: m, after: m }, 1000);
  assert.ok(heat.w <= 340 && heat.h >= 44);
});
