// The chain rule the inspector shows: the engine's text for the node's grad_fn with the moment's numbers.
import { test } from "node:test";
import assert from "node:assert/strict";
import { timeline } from "./helpers.js";
import { buildIndex, stateAt, initialMoment } from "../src/timeline-state.js";
import { buildGraph } from "../src/graph-model.js";
import { chainRuleAt } from "../src/chain-rule.js";

const RULES = {
  PowBackward0: "∂(self^n)/∂self = n·self^(n−1): to self {grad}·n·self^(n−1)",
  MulBackward0: "to self {grad}·other, to other {grad}·self",
  "torch::autograd::AccumulateGrad": ".grad = .grad + {grad}",
};

test("y = x**2: PowBackward0's rule with the gradient that arrived and what it sent to x", () => {
  const timelineIndex = buildIndex(timeline("seed"));
  const graph = buildGraph(timelineIndex, "tensors");
  const y = graph.nodes.find((n) => n.name === "y");
  const before = chainRuleAt(timelineIndex, stateAt(timelineIndex, initialMoment(timelineIndex)), y, RULES);
  assert.equal(before.name, "PowBackward0");
  assert.equal(before.gradIn, null, "before backward");
  assert.match(before.text, /to self grad·n/);
  const end = chainRuleAt(timelineIndex, stateAt(timelineIndex, timelineIndex.count), y, RULES);
  assert.equal(end.gradIn, "[2.]");
  assert.equal(end.text, "∂(self^n)/∂self = n·self^(n−1): to self [2.]·n·self^(n−1)");
  assert.deepEqual(end.gradsOut, [{ to: "x", value: "[8.]" }]);
});

test("a leaf's card explains its AccumulateGrad; a grad_fn the table lacks explains nothing", () => {
  const timelineIndex = buildIndex(timeline("seed"));
  const state = stateAt(timelineIndex, timelineIndex.count);
  const x = buildGraph(timelineIndex, "tensors").nodes.find((n) => n.name === "x");
  assert.equal(chainRuleAt(timelineIndex, state, x, RULES).text, ".grad = .grad + [8.]");
  assert.equal(chainRuleAt(timelineIndex, state, x, {}), null);
  assert.equal(chainRuleAt(timelineIndex, state, x, undefined), null);
});

test("a program's own autograd.Function: the rule is its backward, carried on the node", () => {
  const timelineIndex = buildIndex(timeline("custom_fn"));
  const state = stateAt(timelineIndex, timelineIndex.count);
  const y = buildGraph(timelineIndex, "tensors").nodes.find((n) => n.name === "y");
  const rule = chainRuleAt(timelineIndex, state, y, RULES);
  assert.equal(rule.name, "TripleBackward");
  assert.equal(rule.gradIn, "[1.]");
  assert.equal(
    rule.text,
    "the program's own Triple.backward(ctx, grad_output) with grad_output = [1.] returns grad_output * 3",
  );
  assert.deepEqual(rule.gradsOut, [{ to: "x", value: "[3.]" }]);
});
