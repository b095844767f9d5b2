// What nodes and edges show in both views, and where gradients travel, on real timelines.
import { test } from "node:test";
import assert from "node:assert/strict";
import { timeline } from "./helpers.js";
import { buildIndex, stateAt, initialMoment, edgeKey } from "../src/timeline-state.js";
import {
  buildGraph,
  nodeDisplay,
  edgeDisplay,
  defaultTarget,
  accumText,
  EXTRA_CHARS,
  tensorTitle,
  firstName,
} from "../src/graph-model.js";

test("tensor view of the seed: three cards, x.grad reads 8. at the end", () => {
  const timelineIndex = buildIndex(timeline("seed"));
  const g = buildGraph(timelineIndex, "tensors");
  assert.deepEqual(
    g.nodes.map((n) => n.name),
    ["x", "y", "z"],
  );
  const x = g.nodes.find((n) => n.name === "x");
  const before = nodeDisplay(timelineIndex, stateAt(timelineIndex, initialMoment(timelineIndex)), x);
  assert.equal(before.grad, "None");
  assert.equal(before.gradFn, "None");
  assert.equal(before.cls, "leaf");
  const after = nodeDisplay(timelineIndex, stateAt(timelineIndex, timelineIndex.count), x);
  assert.equal(after.grad, "[8.]");
  assert.equal(after.extra, "= None + [8.]");
  const y = nodeDisplay(timelineIndex, stateAt(timelineIndex, timelineIndex.count), g.nodes[1]);
  assert.equal(y.gradFn, "PowBackward0");
  assert.equal(y.cls, "nonleaf");
  assert.equal(y.extra, "grad in [2.]");
  assert.equal(y.grad, "None", "a non-leaf's .grad stays None");
});

test("gradients travel along the tensor edge feeding the input, labelled with their value", () => {
  const timelineIndex = buildIndex(timeline("seed"));
  const g = buildGraph(timelineIndex, "tensors");
  const key = edgeKey("n:e46251:0", 0);
  const eid = g.flight.get(key);
  const edge = g.edges.find((e) => e.id === eid);
  assert.equal(edge.from, "t:81a373:0");
  assert.equal(edge.to, "t:e46251:0");
  const p = timelineIndex.events.findIndex((ev) => ev.event === "edge" && ev.to === "a:81a373:0") + 1;
  const d = edgeDisplay(timelineIndex, stateAt(timelineIndex, p), g, edge);
  assert.equal(d.label, "[8.]");
  assert.equal(d.current, true);
});

test("autograd view: torch's node names, AccumulateGrad apart, edges as next_functions", () => {
  const timelineIndex = buildIndex(timeline("square"));
  const g = buildGraph(timelineIndex, "autograd");
  const kinds = Object.fromEntries(g.nodes.map((n) => [n.id, n.kind]));
  assert.equal(Object.values(kinds).filter((k) => k === "acc").length, 1);
  const s = stateAt(timelineIndex, timelineIndex.backwardStarts[0]);
  const titles = g.nodes.map((n) => nodeDisplay(timelineIndex, s, n).title).sort();
  assert.deepEqual(titles, ["AccumulateGrad", "MulBackward0", "MulBackward0", "SumBackward0"]);
  // a * a: two parallel edges into the same AccumulateGrad, both with their own id
  const acc = g.nodes.find((n) => n.kind === "acc").id;
  assert.equal(g.edges.filter((e) => e.to === acc).length, 2);
  assert.equal(new Set(g.edges.map((e) => e.id)).size, g.edges.length);
  // leaves on the left: layout edges are reversed
  assert.ok(g.edges.every((e) => e.layoutFrom === e.to));
});

test("a * a in the tensor view: both input edges carry their own gradient", () => {
  const timelineIndex = buildIndex(timeline("square"));
  const g = buildGraph(timelineIndex, "tensors");
  const A = g.nodes.find((n) => n.name === "a").id;
  const B = g.nodes.find((n) => n.name === "b").id;
  const ids = g.edges.filter((e) => e.from === A && e.to === B).map((e) => e.id);
  assert.equal(ids.length, 2);
  const mapped = new Set([...g.flight.values()].filter((id) => ids.includes(id)));
  assert.equal(mapped.size, 2);
});

test("the default target is the last scalar non-leaf", () => {
  assert.equal(defaultTarget(buildIndex(timeline("seed"))), "t:be94c3:0");
  const timelineIndex = buildIndex(timeline("square"));
  assert.equal(timelineIndex.tensors.get(defaultTarget(timelineIndex)).name, "d");
});

test("error state reaches the node cards", () => {
  const timelineIndex = buildIndex(timeline("twice"));
  const g = buildGraph(timelineIndex, "tensors");
  const s = stateAt(timelineIndex, timelineIndex.count);
  const by = Object.fromEntries(g.nodes.map((n) => [n.name, nodeDisplay(timelineIndex, s, n)]));
  // torch frees MulBackward0's saved scalar (z = 2*y): the second backward fails at z's own node
  assert.equal(by.z.error, true);
  assert.equal(by.y.error, false);
  assert.equal(by.x.error, false);
});

test("inspector and toolbar helpers: next_functions as torch prints them, a gradient of ones", async () => {
  const { nextFunctionsText } = await import("../src/inspector.js");
  const { onesLiteral } = await import("../src/actions.js");
  const timelineIndex = buildIndex(timeline("seed"));
  assert.equal(
    nextFunctionsText(timelineIndex, timelineIndex.nodes.get("n:be94c3:0")),
    "((<PowBackward0>, 0), (None, 0))",
  );
  assert.equal(nextFunctionsText(timelineIndex, timelineIndex.nodes.get("n:e46251:0")), "((<AccumulateGrad>, 0),)");
  assert.equal(onesLiteral([2, 2]), "[[1.0, 1.0], [1.0, 1.0]]");
  assert.equal(onesLiteral([]), "1.0");
});

test("a card's accumulation line keeps both numbers whole when they fit, and never outgrows the card", () => {
  const v = (data) => ({ shape: [data.length], dtype: "float32", data });
  assert.equal(accumText({ before: null, delta: v([2, -4]), after: v([2, -4]) }), "= None + [2., -4.]");
  assert.equal(accumText({ before: v([2, -4]), delta: v([2, -4]), after: v([4, -8]) }), "= [2., -4.] + [2., -4.]");
  const long = accumText({ before: v([2.5, 4.25, 6.125, 1]), delta: v([3, 3, 3, 3]), after: v([5.5, 7.25, 9.125, 4]) });
  assert.ok(long.length <= EXTRA_CHARS, long);
  assert.match(long, /^= \[2\.5000, 4\.… \+ \[3\., 3\., 3…$/);
});

test("a tensor is titled by the name it was created with, the latest alias after it", () => {
  assert.equal(tensorTitle({ name: "h", names: ["x", "h"] }), "x (also h)");
  assert.equal(tensorTitle({ name: "x", names: ["x"] }), "x");
  assert.equal(tensorTitle({ name: null, names: [] }), "");
  assert.equal(firstName({ name: "h", names: ["x", "h"] }), "x");
});
