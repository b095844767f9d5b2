// Marks on the graph: hooks that ran, retain_grad, no_grad, detach cuts, NaN/inf and the first place one appeared.
import { test } from "node:test";
import assert from "node:assert/strict";
import { timeline } from "./helpers.js";
import { buildIndex, stateAt } from "../src/timeline-state.js";
import { buildGraph, nodeDisplay } from "../src/graph-model.js";

const kinds = (d) => d.marks.map((m) => m.kind);

function cards(view, pos) {
  const timelineIndex = buildIndex(timeline("marks"));
  const g = buildGraph(timelineIndex, view);
  const s = stateAt(timelineIndex, pos ?? timelineIndex.count);
  const byName = new Map();
  for (const n of g.nodes) byName.set(n.name || n.id, nodeDisplay(timelineIndex, s, n));
  return { timelineIndex, g, s, byName };
}

test("each mark is on the tensor where it happens, at the end of the run", () => {
  const { byName } = cards("tensors");
  assert.deepEqual(kinds(byName.get("x")), ["hook"]);
  assert.match(byName.get("x").marks[0].text, /hook got \[3\., nan\], returned \[6\., nan\]/);
  assert.deepEqual(kinds(byName.get("y")), ["retain"]);
  assert.deepEqual(kinds(byName.get("c")), ["nograd"]);
  assert.deepEqual(kinds(byName.get("d")), ["detach"]);
  // log(0) = -inf is where the non-finite numbers begin; f = e * 0 only inherits a NaN
  assert.deepEqual(kinds(byName.get("e")), ["nan-origin", "nan-grad-origin"]);
  assert.deepEqual(kinds(byName.get("f")), ["nan"]);
  assert.deepEqual(kinds(byName.get("z")), ["nan"]);
});

test("a hook is marked where it was registered, then with what it did once it ran; the gradient's origin once it was sent", () => {
  const { timelineIndex } = cards("tensors");
  const registered = timelineIndex.steps.findIndex((st) => st.text.includes("register_hook"));
  assert.deepEqual(kinds(cards("tensors", timelineIndex.stepEnd[registered]).byName.get("x")), ["hook-waiting"]);
  const hookAt = timelineIndex.events.findIndex((ev) => ev.event === "hook");
  const before = cards("tensors", hookAt).byName;
  assert.deepEqual(kinds(before.get("x")), ["hook-waiting"]);
  assert.match(before.get("x").marks[0].text, /a hook will run when its gradient is computed/);
  assert.deepEqual(kinds(cards("tensors", hookAt + 1).byName.get("x")), ["hook"]);
  assert.deepEqual(kinds(before.get("e")), ["nan-origin", "nan-grad-origin"]);
  const bw = timelineIndex.events.findIndex((ev) => ev.event === "backward_begin");
  assert.deepEqual(kinds(cards("tensors", bw).byName.get("e")), ["nan-origin"]);
});

test("a detach is drawn as an edge that records nothing (the cut)", () => {
  const { g, timelineIndex } = cards("tensors");
  const d = [...timelineIndex.tensors.values()].find((t) => t.name === "d");
  const y = [...timelineIndex.tensors.values()].find((t) => t.name === "y");
  const cut = g.edges.find((e) => e.to === d.id);
  assert.equal(cut.from, y.id);
  assert.equal(cut.recorded, false);
});

test("in the autograd view the NaN gradient's origin is the grad_fn that sent it", () => {
  const { g, s, timelineIndex } = cards("autograd");
  const marked = g.nodes.filter((n) =>
    nodeDisplay(timelineIndex, s, n).marks.some((m) => m.kind === "nan-grad-origin"),
  );
  assert.deepEqual(
    marked.map((n) => timelineIndex.nodes.get(n.id).name),
    ["LogBackward0"],
  );
});

test("the detach edge is drawn as a cut; the no_grad edge only as recording nothing", async () => {
  const { edgeDisplay } = await import("../src/graph-model.js");
  const { g, s, timelineIndex } = cards("tensors");
  const name = (id) => timelineIndex.tensors.get(id).name;
  const cut = g.edges.filter((e) => edgeDisplay(timelineIndex, s, g, e).cut).map((e) => name(e.to));
  assert.deepEqual(cut, ["d"]);
  const c = g.edges.find((e) => name(e.to) === "c");
  assert.equal(edgeDisplay(timelineIndex, s, g, c).noGrad, true);
  assert.equal(edgeDisplay(timelineIndex, s, g, c).cut, false);
});
