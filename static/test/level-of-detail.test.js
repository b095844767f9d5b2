// The graph's level of detail keeps every drawn text at 12 px or more on screen, at any zoom.
import { test } from "node:test";
import assert from "node:assert/strict";
import { levelOfDetail, FULL_K, COMPACT_K, MIN_SCREEN_PX } from "../src/graph-view.js";

test("each zoom shows the most detail that stays readable", () => {
  assert.equal(MIN_SCREEN_PX, 12);
  for (let k = 0.05; k <= 3; k += 0.01) {
    const level = levelOfDetail(k);
    if (level === "full") assert.ok(k >= FULL_K - 1e-9, `full detail at ${k}`);
    else if (level === "compact") assert.ok(k >= COMPACT_K - 1e-9 && k < FULL_K, `compact at ${k}`);
    else assert.ok(k < COMPACT_K, `no text at ${k}`);
  }
  assert.equal(levelOfDetail(1.5), "full");
  assert.equal(levelOfDetail(0.8), "compact");
  assert.equal(levelOfDetail(0.3), "dots");
});
