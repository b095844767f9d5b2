// The state at every moment of a run, checked on real timelines (seed, backward twice, retain_graph, ...).
import { test } from "node:test";
import assert from "node:assert/strict";
import { timeline } from "./helpers.js";
import {
  buildIndex,
  stateAt,
  advance,
  emptyChanges,
  initialMoment,
  momentOfStep,
  stepOfMoment,
  consoleAt,
  gradHistory,
  tensorExists,
  nodeExists,
  momentOfLines,
  edgeKey,
} from "../src/timeline-state.js";

const X = "t:81a373:0";
const grad = (s, id) => s.t.get(id).grad?.data;

test("the seed opens just before its backward pass, with the graph built and no grad", () => {
  const timelineIndex = buildIndex(timeline("seed"));
  const p = initialMoment(timelineIndex);
  assert.equal(timelineIndex.events[p].event, "backward_begin");
  const s = stateAt(timelineIndex, p);
  assert.equal(s.t.get(X).grad, null);
  assert.ok(tensorExists(timelineIndex, "t:be94c3:0", p));
  assert.ok(nodeExists(timelineIndex, "n:be94c3:0", p));
  assert.ok(nodeExists(timelineIndex, "a:81a373:0", p), "AccumulateGrad exists once x is used");
  assert.ok(!tensorExists(timelineIndex, X, 0));
});

test("stepping through the backward pass: torch's order, incoming gradients, accumulate", () => {
  const timelineIndex = buildIndex(timeline("seed"));
  const s = stateAt(timelineIndex, initialMoment(timelineIndex));
  const seen = [];
  while (s.pos < timelineIndex.count) {
    const ch = advance(timelineIndex, s);
    const ev = timelineIndex.events[s.pos - 1];
    if (ev.event === "node_begin") {
      assert.ok(s.running.has(ev.node));
      assert.ok(ch.nodes.has(ev.node));
      seen.push(ev.name);
    }
    if (ev.event === "edge") assert.equal(s.lastEdge, edgeKey(ev.from, ev.input_nr));
  }
  assert.deepEqual(seen, ["MulBackward0", "PowBackward0", "torch::autograd::AccumulateGrad"]);
  assert.deepEqual(grad(s, X), [8]);
  assert.deepEqual(s.incoming.get("n:e46251:0").data, [2]);
  assert.deepEqual(s.edgeGrad.get(edgeKey("n:e46251:0", 0)).data, [8]);
  const acc = s.accum.get(X);
  assert.equal(acc.before, null);
  assert.deepEqual(acc.after.data, [8]);
  assert.equal(s.running.size, 0);
});

test("stateAt agrees with advancing event by event at every moment", () => {
  for (const name of ["seed", "twice", "retain", "square", "chain"]) {
    const timelineIndex = buildIndex(timeline(name));
    const walk = stateAt(timelineIndex, 0);
    for (let p = 0; p <= timelineIndex.count; p += name === "chain" ? 37 : 1) {
      while (walk.pos < p) advance(timelineIndex, walk);
      const jump = stateAt(timelineIndex, p);
      assert.deepEqual([...jump.t.entries()], [...walk.t.entries()], `${name} at ${p}`);
      assert.deepEqual([...jump.incoming.keys()], [...walk.incoming.keys()]);
    }
  }
});

test("backward twice: the failing node and the root get the error state; console has torch's message", () => {
  const timelineIndex = buildIndex(timeline("twice"));
  const s = stateAt(timelineIndex, timelineIndex.count);
  assert.ok(s.error);
  assert.match(s.error.message, /backward through the graph a second time/);
  // torch frees what MulBackward0 saved for z = 2*y, so the second backward fails at z's node
  assert.ok(s.errorNodes.has("n:be94c3:0"), "MulBackward0 was running when it failed");
  assert.ok(s.errorNodes.has("t:be94c3:0"), "the root");
  const items = consoleAt(timelineIndex, timelineIndex.count);
  assert.equal(items.at(-1).kind, "error");
  assert.match(items.at(-1).text, /RuntimeError \(line 6\): Trying to backward/);
  assert.equal(consoleAt(timelineIndex, timelineIndex.count - 1).length, 0);
});

test("retain_graph: x.grad accumulates 8 -> 16, shown as before + delta = after", () => {
  const timelineIndex = buildIndex(timeline("retain"));
  const hist = gradHistory(timelineIndex, X);
  assert.deepEqual(
    hist.map((h) => h.after.data[0]),
    [8, 16],
  );
  assert.deepEqual(hist[1].before.data, [8]);
  assert.deepEqual(hist[1].delta.data, [8]);
  const s = stateAt(timelineIndex, timelineIndex.count);
  assert.deepEqual(s.accum.get(X).before.data, [8]);
  // a new backward clears the last one's gradients until they flow again
  const b2 = timelineIndex.backwardStarts[1];
  const mid = stateAt(timelineIndex, b2 + 1);
  assert.equal(mid.accum.size, 0);
  assert.deepEqual(grad(mid, X), [8]);
});

test("a * a: two edges into one AccumulateGrad; retain_grad, zero_ and grad = None", () => {
  const timelineIndex = buildIndex(timeline("square"));
  const A = timelineIndex.timeline.nodes.tensors.find((t) => t.name === "a").id;
  const B = timelineIndex.timeline.nodes.tensors.find((t) => t.name === "b").id;
  const end = timelineIndex.backwardStarts[0];
  let s = stateAt(timelineIndex, end);
  assert.equal(s.t.get(B).retains_grad, true, "retain_grad() (no event) comes from the step state");
  const hist = gradHistory(timelineIndex, A);
  assert.deepEqual(
    hist.map((h) => h.kind),
    ["accumulate", "grad_zeroed", "grad_assigned"],
  );
  s = stateAt(timelineIndex, hist[0].pos);
  assert.deepEqual(grad(s, A), [6, 12]);
  assert.deepEqual(grad(s, B), [3, 3]);
  s = stateAt(timelineIndex, hist[1].pos);
  assert.deepEqual(grad(s, A), [0, 0]);
  s = stateAt(timelineIndex, timelineIndex.count);
  assert.equal(s.t.get(A).grad, null);
});

test("an error outside backward marks the statement's tensor", () => {
  const timelineIndex = buildIndex(timeline("leaf_inplace"));
  const s = stateAt(timelineIndex, timelineIndex.count);
  const W = timelineIndex.timeline.nodes.tensors.find((t) => t.name === "w").id;
  assert.ok(s.errorNodes.has(W));
});

test("moments and steps for links: s=<step> reopens at the end of that step", () => {
  const timelineIndex = buildIndex(timeline("seed"));
  for (let s = 0; s < timelineIndex.steps.length; s++) {
    const p = momentOfStep(timelineIndex, s);
    assert.ok(stepOfMoment(timelineIndex, p) <= s || timelineIndex.stepStart[s] === timelineIndex.stepEnd[s]);
  }
  assert.equal(momentOfStep(timelineIndex, 3), initialMoment(timelineIndex));
  assert.equal(stepOfMoment(timelineIndex, timelineIndex.count), 5);
  assert.equal(momentOfLines(timelineIndex, [5]), timelineIndex.stepStart[4]);
});

test("a 300-tensor run: a scrub from a checkpoint equals playing every event from the start", () => {
  // Scrubbing jumps from the nearest checkpoint; it must land on the state playing reaches (its
  // speed is an e2e measurement, not asserted here).
  const timelineIndex = buildIndex(timeline("chain"));
  const plain = (state) =>
    JSON.stringify(state, (key, value) => (value instanceof Map || value instanceof Set ? [...value] : value));
  const played = stateAt(timelineIndex, 0);
  const scratch = emptyChanges();
  let checked = 0;
  for (let moment = 1; moment <= timelineIndex.count; moment++) {
    advance(timelineIndex, played, scratch);
    if (moment % 7 === 0 || moment === timelineIndex.count) {
      assert.equal(plain(stateAt(timelineIndex, moment)), plain(played), `moment ${moment}`);
      checked++;
    }
  }
  assert.ok(checked > 100);
});

test("advance reports only what an event touched", () => {
  const timelineIndex = buildIndex(timeline("chain"));
  const s = stateAt(timelineIndex, initialMoment(timelineIndex) + 1);
  const ch = advance(timelineIndex, s, emptyChanges());
  assert.ok(ch.nodes.size + ch.tensors.size + ch.edges.size <= 4);
});
