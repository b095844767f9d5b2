// Module calls drawn as one box (timeline version 2's scopes): what is inside left out, inputs and outputs kept.
import { test } from "node:test";
import assert from "node:assert/strict";
import { timeline } from "./helpers.js";
import { buildIndex, stateAt } from "../src/timeline-state.js";
import { buildGraph, nodeDisplay, callTitle, callBoxWidth, COMPACT_CHAR_W, NODE_W } from "../src/graph-model.js";

const index = () => buildIndex(timeline("module"));
const names = (timelineIndex, g) => g.nodes.map((n) => (n.kind === "group" ? n.id : n.name || n.id));

test("a closed module call is one box between its inputs and what it returned", () => {
  const timelineIndex = index();
  const g = buildGraph(timelineIndex, "tensors");
  assert.deepEqual(g.groups, ["g:c1"]);
  assert.equal(g.ownerOf.get(timelineIndex.timeline.scopes[0].tensors[0]), "g:c1");
  const drawn = names(timelineIndex, g);
  assert.ok(drawn.includes("x") && drawn.includes("out") && drawn.includes("loss"));
  assert.ok(drawn.includes("model.0.weight"), "a parameter the call used stays, as an input");
  assert.equal(g.nodes.filter((n) => n.kind === "tensor" && !n.name).length, 0, "the inside is left out");
  const into = g.edges.filter((e) => e.to === "g:c1").map((e) => timelineIndex.tensors.get(e.from).name);
  // the returned tensor is drawn outside the box: the last layer's bias feeds it directly
  assert.deepEqual([...into].sort(), ["model.0.bias", "model.0.weight", "model.2.weight", "x"]);
  const out = g.edges.filter((e) => e.from === "g:c1").map((e) => timelineIndex.tensors.get(e.to).name);
  assert.deepEqual(out, ["out"]);
  const ids = g.edges.map((e) => e.id);
  assert.equal(new Set(ids).size, ids.length, "edge ids stay unique");
});

test("the box says what went in and came out, and runs while its nodes run", () => {
  const timelineIndex = index();
  const g = buildGraph(timelineIndex, "tensors");
  const box = g.nodes.find((n) => n.kind === "group");
  const end = nodeDisplay(timelineIndex, stateAt(timelineIndex, timelineIndex.count), box);
  assert.equal(end.title, "Sequential(x)");
  assert.equal(end.value, "x");
  assert.equal(end.grad, "out");
  assert.equal(end.ran, true);
  const inside = new Set(box.scope.nodes);
  const at = timelineIndex.events.findIndex((ev) => ev.event === "node_begin" && inside.has(ev.node)) + 1;
  assert.equal(nodeDisplay(timelineIndex, stateAt(timelineIndex, at), box).running, true);
  assert.equal(nodeDisplay(timelineIndex, stateAt(timelineIndex, 0), box).exists, false);
});

test("opened, the call's own tensors are drawn; the autograd view groups its grad_fn nodes", () => {
  const timelineIndex = index();
  const open = buildGraph(timelineIndex, "tensors", { expanded: new Set(["c1"]) });
  assert.deepEqual(open.groups, []);
  assert.ok(open.nodes.some((n) => n.kind === "tensor" && !n.name));
  const ag = buildGraph(timelineIndex, "autograd");
  assert.deepEqual(ag.groups, ["g:c1"]);
  const kept = ag.nodes.filter((n) => n.kind === "fn").map((n) => timelineIndex.nodes.get(n.id).name);
  assert.deepEqual(kept.sort(), ["AddmmBackward0", "SumBackward0"], "the returned tensor's node and loss's stay");
});

test("a timeline without scopes (version 1) draws no boxes", () => {
  const timelineIndex = buildIndex(timeline("seed"));
  assert.deepEqual(buildGraph(timelineIndex, "tensors").groups, []);
});

// The program's own functions (`calls` fixture): energy(a, b, scale) calls poly(t); Net.forward runs inside Net's call.
const calls = () => buildIndex(timeline("calls"));
const boxTitles = (timelineIndex, g) =>
  g.nodes
    .filter((n) => n.kind === "group")
    .map((n) => nodeDisplay(timelineIndex, stateAt(timelineIndex, timelineIndex.count), n).title);

test("a function call is one box too, named with what it was given; a module's forward is not a second box", () => {
  const timelineIndex = calls();
  const g = buildGraph(timelineIndex, "tensors");
  assert.deepEqual(boxTitles(timelineIndex, g), ["energy(x, b, 0.5)", "Net(x)"]);
  const drawn = names(timelineIndex, g);
  // Net.__init__ made the parameters, but they are used outside it: they stay, and it is no box
  assert.ok(drawn.includes("net.l1.weight") && drawn.includes("net.l1.bias"));
  const energy = g.nodes.find((n) => n.id === "g:c2");
  const display = nodeDisplay(timelineIndex, stateAt(timelineIndex, timelineIndex.count), energy);
  assert.match(display.gradFn, /^function call, line 18$/);
  assert.equal(display.value, "x, b, 0.5");
});

test("a nested call is a box inside its opened caller, and the caller's outline lists what is drawn in it", () => {
  const timelineIndex = calls();
  const open = buildGraph(timelineIndex, "tensors", { expanded: new Set(["c2"]) });
  assert.deepEqual(boxTitles(timelineIndex, open), ["poly(x)", "Net(x)"]);
  assert.equal(open.frames.length, 1);
  assert.equal(open.frames[0].title, "energy(x, b, 0.5)");
  assert.ok(open.frames[0].ids.includes("g:c3"), "the closed inner call's box is inside the outline");
  const both = buildGraph(timelineIndex, "tensors", { expanded: new Set(["c2", "c3"]) });
  assert.deepEqual(
    both.frames.map((f) => f.title),
    ["energy(x, b, 0.5)", "poly(x)"],
  );
  assert.deepEqual(buildGraph(timelineIndex, "tensors").frames, [], "no outline while every call is closed");
});

test("a closed call's box runs while any call inside it runs", () => {
  const timelineIndex = calls();
  const g = buildGraph(timelineIndex, "tensors");
  const energy = g.nodes.find((n) => n.id === "g:c2");
  const poly = timelineIndex.timeline.scopes.find((sc) => sc.name === "poly");
  const inner = new Set(poly.nodes);
  const at = timelineIndex.events.findIndex((ev) => ev.event === "node_begin" && inner.has(ev.node)) + 1;
  assert.ok(at > 0);
  assert.equal(nodeDisplay(timelineIndex, stateAt(timelineIndex, at), energy).running, true);
});

test("a call's box is as wide as its title needs, so the title is never cut at the compact level", () => {
  const timelineIndex = calls();
  const g = buildGraph(timelineIndex, "tensors");
  const energy = g.nodes.find((n) => n.id === "g:c2");
  const net = g.nodes.find((n) => n.id === "g:c4");
  assert.equal(callTitle(timelineIndex, energy.scope), "energy(x, b, 0.5)");
  assert.ok(energy.w >= 20 + COMPACT_CHAR_W * "energy(x, b, 0.5)".length, "room for every character");
  assert.equal(net.w, NODE_W, "a short title keeps the card's width");
  assert.equal(callBoxWidth("f(" + "a, ".repeat(80) + ")"), 400, "up to a limit");
});
