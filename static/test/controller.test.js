// The view state the controller derives from replies and gestures, checked on recorded timelines.
import { test } from "node:test";
import assert from "node:assert/strict";
import { timeline } from "./helpers.js";
import { buildIndex, stateAt, initialMoment, advance } from "../src/timeline-state.js";
import { buildGraph } from "../src/graph-model.js";
import {
  AUTOPLAY_MAX_EVENTS,
  momentForReply,
  keepsLastGraph,
  toggleSelection,
  selectionAfterReply,
  selectedTensors,
  selectionInView,
  actionTarget,
  stepLinesAt,
  momentText,
  activeNode,
  cameraTarget,
  errorTitle,
  requestErrorTitle,
  consoleView,
  accumulationCallout,
} from "../src/controller.js";

const X = "t:81a373:0";

test("a reply opens where its mode says: example before backward, link at its event or step, new at the end", () => {
  const timelineIndex = buildIndex(timeline("seed"));
  assert.deepEqual(momentForReply(timelineIndex, "example"), { moment: initialMoment(timelineIndex), play: false });
  assert.deepEqual(momentForReply(timelineIndex, "new"), { moment: timelineIndex.count, play: false });
  assert.equal(momentForReply(timelineIndex, "open", { event: 7 }).moment, 7);
  assert.equal(momentForReply(timelineIndex, "open", { event: 10_000 }).moment, timelineIndex.count);
  assert.equal(momentForReply(timelineIndex, "open", { step: 2 }).moment, timelineIndex.stepEnd[2]);
  assert.equal(momentForReply(timelineIndex, "open").moment, timelineIndex.count);
  assert.equal(momentForReply(timelineIndex, "run").moment, timelineIndex.count);
});

test("an edit plays from its first changed line when the rest is short, else shows the end", () => {
  const seed = buildIndex(timeline("seed"));
  const edited = momentForReply(seed, "edit", { changedLines: [4] });
  assert.deepEqual(edited, { moment: seed.stepStart[3], play: true });
  assert.deepEqual(momentForReply(seed, "edit", { changedLines: [99] }), { moment: seed.count, play: false });
  const chain = buildIndex(timeline("chain"));
  assert.ok(chain.count > AUTOPLAY_MAX_EVENTS);
  assert.deepEqual(momentForReply(chain, "edit", { changedLines: [2] }), { moment: chain.count, play: false });
});

test("while typing, only a run that does not parse keeps the last graph", () => {
  const broken = { steps: [], error: { kind: "syntax" } };
  assert.ok(keepsLastGraph("run", true, broken));
  assert.ok(!keepsLastGraph("run", false, broken), "nothing to keep");
  assert.ok(!keepsLastGraph("example", true, broken));
  assert.ok(!keepsLastGraph("run", true, { steps: [], error: { kind: "runtime" } }));
});

test("clicks select one node; shift-clicks toggle nodes in and out", () => {
  assert.deepEqual(toggleSelection(["a", "b"], "c", false), ["c"]);
  assert.deepEqual(toggleSelection(["a"], "b", true), ["a", "b"]);
  assert.deepEqual(toggleSelection(["a", "b"], "a", true), ["b"]);
});

test("after a reply: nothing selected for a new program, the made tensor after an edit, else what exists", () => {
  const timelineIndex = buildIndex(timeline("seed"));
  const graph = buildGraph(timelineIndex, "tensors");
  const y = graph.nodes.find((n) => n.name === "y").id;
  assert.deepEqual(selectionAfterReply(timelineIndex, graph, "tensors", [y], { fresh: true }), []);
  assert.deepEqual(selectionAfterReply(timelineIndex, graph, "tensors", [y, "t:gone:0"], { fresh: false }), [y]);
  const made = selectionAfterReply(timelineIndex, graph, "tensors", [y], {
    fresh: false,
    intent: { op: "add_op" },
    madeName: "z",
  });
  assert.deepEqual(made, [graph.nodes.find((n) => n.name === "z").id]);
});

test("a selection crosses views: a tensor <-> its grad_fn node, a leaf <-> its AccumulateGrad", () => {
  const timelineIndex = buildIndex(timeline("seed"));
  const state = stateAt(timelineIndex, timelineIndex.count);
  const tensors = buildGraph(timelineIndex, "tensors");
  const autograd = buildGraph(timelineIndex, "autograd");
  const ids = tensors.nodes.map((n) => n.id);
  const inAutograd = selectionInView(timelineIndex, state, autograd, selectedTensors(tensors, ids), "autograd");
  assert.ok(inAutograd.includes("a:81a373:0"), "x's AccumulateGrad");
  assert.ok(inAutograd.includes("n:e46251:0"), "y's PowBackward0");
  const back = selectionInView(timelineIndex, state, tensors, selectedTensors(autograd, inAutograd), "tensors");
  assert.deepEqual(back.sort(), ids.filter((id) => back.includes(id)).sort());
  assert.ok(back.includes(X));
});

test("the action bar acts on the selection, else on the program's last scalar", () => {
  const timelineIndex = buildIndex(timeline("seed"));
  const graph = buildGraph(timelineIndex, "tensors");
  const target = actionTarget(timelineIndex, graph, []);
  assert.equal(target.name, "z");
  assert.equal(target.isDefault, true);
  assert.equal(target.line, 4);
  const x = actionTarget(timelineIndex, graph, [X]);
  assert.equal(x.name, "x");
  assert.equal(x.isDefault, false);
  assert.equal(x.scalar, true);
});

test("the moment's statement: its lines in the program and the player bar's text", () => {
  const timelineIndex = buildIndex(timeline("seed"));
  assert.deepEqual(stepLinesAt(timelineIndex, 0), []);
  const moment = initialMoment(timelineIndex) + 1;
  assert.deepEqual(stepLinesAt(timelineIndex, moment), [5]);
  const text = momentText(timelineIndex, moment);
  assert.equal(text.line, 5);
  assert.equal(text.code, "z.backward()");
  assert.equal(text.events, `event ${moment}/${timelineIndex.count}`);
  // after a failed run the graph is the last successful run's: no line of its program is named
  const stale = momentText(timelineIndex, moment, true);
  assert.equal(stale.code, null);
  assert.equal(stale.line, null);
  assert.equal(stale.events, `event ${moment}/${timelineIndex.count} of the last successful run`);
});

test("the active node is the one the backward pass is at; the camera follows its card", () => {
  const timelineIndex = buildIndex(timeline("seed"));
  const state = stateAt(timelineIndex, initialMoment(timelineIndex));
  assert.equal(activeNode(state), null, "outside backward");
  const visited = [];
  while (state.pos < timelineIndex.count) {
    advance(timelineIndex, state);
    const ev = timelineIndex.events[state.pos - 1];
    if (ev.event === "edge" && !state.running.size && ev.to) assert.equal(activeNode(state), ev.to, "between nodes");
    if (ev.event === "node_begin") {
      assert.equal(activeNode(state), ev.node);
      assert.equal(cameraTarget(timelineIndex, state, "autograd"), ev.node);
      visited.push(cameraTarget(timelineIndex, state, "tensors"));
    }
  }
  assert.deepEqual(visited, ["t:be94c3:0", "t:e46251:0", X], "z, y, x: the gradient runs backward");
  assert.equal(activeNode(state), null, "after backward");
});

test("banner titles: Python's exception type and line; a host's refusal in words", () => {
  assert.equal(errorTitle({ type: "NameError", line: 3, kind: "runtime" }), "NameError at line 3");
  assert.equal(errorTitle({ kind: "syntax", line: 2 }), "SyntaxError at line 2");
  assert.equal(errorTitle({ kind: "not_allowed" }), "Not allowed");
  assert.equal(requestErrorTitle("share"), "That link cannot be opened");
  assert.equal(requestErrorTitle("something new"), "Error");
});

test("the console: printed text by the moment; a program that does not parse shows only its error", () => {
  const timelineIndex = buildIndex(timeline("seed"));
  const end = consoleView(timelineIndex, timelineIndex.count);
  assert.equal(end.items.length, 1);
  assert.equal(end.items[0].kind, "out");
  assert.equal(consoleView(timelineIndex, 0).items.length, 0);
  assert.equal(consoleView(timelineIndex, 0).empty, "(nothing printed yet at this moment)");
  const stale = consoleView(timelineIndex, timelineIndex.count, { kind: "syntax", line: 2, message: "invalid syntax" });
  assert.deepEqual(
    stale.items.map((it) => it.kind),
    ["error"],
    "the last run's output is not shown for a program that did not run",
  );
  assert.match(stale.items[0].text, /^SyntaxError \(line 2\): invalid syntax/);
  assert.notEqual(stale.key, end.key);
});

test("the common autograd errors get a plain explanation and, where one exists, the example that shows it", async () => {
  const { errorHelp } = await import("../src/error-help.js");
  const twice = buildIndex(timeline("twice")).timeline.error;
  assert.match(errorHelp(twice).text, /retain_graph=True/);
  const leaf = errorHelp({ message: "a leaf Variable that requires grad is being used in an in-place operation." });
  assert.equal(leaf.example, "tutorial-leaf-inplace-error");
  assert.equal(errorHelp({ message: "name 'xx' is not defined" }), null);
  assert.equal(errorHelp(null), null);
});

test("the accumulation callout: the leaf added to last, its whole sum, on its card in either view", () => {
  const timelineIndex = buildIndex(timeline("retain"));
  assert.equal(accumulationCallout(timelineIndex, stateAt(timelineIndex, 0), "tensors"), null);
  const end = stateAt(timelineIndex, timelineIndex.count);
  const callout = accumulationCallout(timelineIndex, end, "tensors");
  assert.equal(callout.id, X);
  assert.equal(callout.text, "x.grad: [8.] + [8.] = [16.]");
  assert.equal(accumulationCallout(timelineIndex, end, "autograd").id, "a:81a373:0");
});

test("a loop is drawn one iteration at a time: the one running, with its own graph and a moment to go to", async () => {
  const { buildGraph, iterationsOf, roleOf } = await import("../src/graph-model.js");
  const { iterationAt, momentOfIteration } = await import("../src/controller.js");
  const timelineIndex = buildIndex(timeline("train"));
  assert.deepEqual(iterationsOf(timelineIndex), [0, 1, 2]);
  assert.equal(iterationAt(timelineIndex, 0), 0, "before the loop: its first iteration");
  assert.equal(iterationAt(timelineIndex, timelineIndex.count), 2, "after it: the last");
  const second = momentOfIteration(timelineIndex, 1);
  assert.equal(timelineIndex.events[second].event, "backward_begin");
  assert.equal(iterationAt(timelineIndex, second), 1);
  const graph = buildGraph(timelineIndex, "tensors", { iteration: 1 });
  assert.deepEqual(
    graph.nodes.map((n) => n.id),
    ["t:d09b9b:0", "t:d1ac16@1:0", "t:d1ac16@1:1"],
    "w, and only the second iteration's w**2 and loss",
  );
  assert.ok(graph.edges.every((e) => !e.from.includes("@0") && !e.to.includes("@0")));
  const autograd = buildGraph(timelineIndex, "autograd", { iteration: 2 });
  assert.ok(
    autograd.nodes.some((n) => n.kind === "acc"),
    "w's AccumulateGrad stays in every iteration",
  );
  assert.equal(autograd.nodes.length, 3);
  assert.equal(roleOf("t:d1ac16@2:1"), "t:d1ac16:1");
  assert.equal(buildGraph(timelineIndex, "tensors").nodes.length, 7, "without an iteration: everything");
});

test("an error's banner waits for typing to pause; other replies show it at once", async () => {
  const { bannerDelay, BANNER_PAUSE_MS } = await import("../src/controller.js");
  assert.equal(bannerDelay("run", 1000, 900), BANNER_PAUSE_MS - 100);
  assert.equal(bannerDelay("run", 1000 + BANNER_PAUSE_MS, 1000), 0);
  assert.equal(bannerDelay("run", 5000, null), 0, "a run not started by typing (Run, Ctrl+Enter)");
  assert.equal(bannerDelay("edit", 1000, 990), 0);
  assert.equal(bannerDelay("example", 1000, 990), 0);
});

test("a matrix's accumulation callout also carries the three values for heatmaps", () => {
  const timelineIndex = buildIndex(timeline("matrix"));
  const callout = accumulationCallout(timelineIndex, stateAt(timelineIndex, timelineIndex.count), "tensors");
  assert.equal(callout.text, "W.grad: [[2., 4.], [6., 8.]] + [[3., 3.], [3., 3.]] = [[5., 7.], [9., 11.]]");
  assert.equal(callout.heatmaps.name, "W");
  assert.deepEqual(callout.heatmaps.after.data, [
    [5, 7],
    [9, 11],
  ]);
  const vector = buildIndex(timeline("retain"));
  assert.equal(accumulationCallout(vector, stateAt(vector, vector.count), "tensors").heatmaps, null);
});
