// An edit's new program goes into the editor as the smallest replaced span, not the whole text.
import { test } from "node:test";
import assert from "node:assert/strict";
import { smallestChange } from "../src/code-pane.js";

const apply = (text, c) => text.slice(0, c.from) + c.insert + text.slice(c.to);

test("one changed line is one small change, and applying it gives the new program", () => {
  const cur = "import torch\nx = torch.tensor([0.1, -0.25], requires_grad=True)\ny = x * 2\n";
  const next = cur.replace("[0.1, -0.25]", "[0.2, -0.25]");
  const c = smallestChange(cur, next);
  assert.equal(apply(cur, c), next);
  assert.ok(c.to - c.from <= 1 && c.insert.length <= 1, JSON.stringify(c));
});

test("insertions, deletions, repeated text and the empty program", () => {
  for (const [cur, next] of [
    ["", "import torch\n"],
    ["import torch\n", ""],
    ["a\na\na\n", "a\na\n"],
    ["x = 1\n", "x = 1\ny = 2\n"],
    ["aaaa", "aa"],
    ["same", "same"],
  ]) {
    const c = smallestChange(cur, next);
    assert.equal(apply(cur, c), next, JSON.stringify([cur, next, c]));
    assert.ok(c.from <= c.to && c.to <= cur.length);
  }
});
