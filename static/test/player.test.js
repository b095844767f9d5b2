// The player's clock with a fake clock: events apply in order, each for its duration, and it stops at the end.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createPlayer, eventDuration, timeScaleFor, MAX_PLAY_MS } from "../src/player.js";

function fakeClock() {
  let t = 0;
  let queue = [];
  return {
    now: () => t,
    request: (fn) => {
      queue.push(fn);
      return queue.length;
    },
    cancel: () => {
      queue = [];
    },
    advance(ms) {
      t += ms;
      const q = queue;
      queue = [];
      q.forEach((fn) => fn());
    },
    get waiting() {
      return queue.length;
    },
  };
}

function setup(events) {
  const clock = fakeClock();
  const log = [];
  const player = createPlayer({
    getCount: () => events.length,
    getEvent: (i) => events[i],
    onAdvance: (p) => log.push(["advance", p]),
    onSeek: (p) => log.push(["seek", p]),
    onFrame: () => {},
    onPlayState: (v) => log.push(["playing", v]),
    clock,
  });
  return { clock, log, player };
}

const evs = [
  { event: "backward_begin" },
  { event: "node_begin" },
  { event: "edge" },
  { event: "node_end" },
  { event: "accumulate" },
];

test("play applies the next event at once, then one per duration, and stops at the end", () => {
  const { clock, log, player } = setup(evs);
  player.play();
  assert.equal(player.pos, 1);
  assert.ok(player.playing);
  clock.advance(eventDuration(evs[0]) - 1);
  assert.equal(player.pos, 1);
  clock.advance(2);
  assert.equal(player.pos, 2);
  for (let k = 0; k < 100 && player.playing; k++) clock.advance(100);
  assert.equal(player.pos, 5);
  assert.equal(player.playing, false);
  assert.deepEqual(
    log.filter((l) => l[0] === "advance").map((l) => l[1]),
    [1, 2, 3, 4, 5],
  );
});

test("the button reads Play once the last event is applied, while its animation finishes", () => {
  const clock = fakeClock();
  const frames = [];
  const states = [];
  const player = createPlayer({
    getCount: () => evs.length,
    getEvent: (i) => evs[i],
    onAdvance: () => {},
    onSeek: () => {},
    onFrame: (p, frac) => frames.push([p, frac]),
    onPlayState: (v) => states.push(v),
    clock,
  });
  player.seek(4);
  player.play();
  assert.equal(player.pos, 5);
  assert.equal(player.playing, false, "at the end, not playing");
  assert.deepEqual(states, [true, false]);
  assert.ok(clock.waiting > 0, "the last event's animation still runs");
  for (let k = 0; k < 100 && clock.waiting; k++) clock.advance(50);
  assert.deepEqual(frames.at(-1), [5, 1]);
  assert.deepEqual(states, [true, false]);
});

test("speed scales time; a fast frame applies several events", () => {
  const { clock, player } = setup(evs);
  player.setSpeed(16);
  player.play();
  clock.advance(200);
  assert.ok(player.pos >= 4, `pos ${player.pos}`);
});

test("play at the end restarts from the start; play until stops early", () => {
  const { clock, log, player } = setup(evs);
  player.seek(5);
  player.play({ until: 2 });
  assert.deepEqual(log.slice(-3), [
    ["seek", 0],
    ["playing", true],
    ["advance", 1],
  ]);
  for (let k = 0; k < 50; k++) clock.advance(100);
  assert.equal(player.pos, 2);
  assert.equal(player.playing, false);
});

test("step forward/back and seek pause the player", () => {
  const { player } = setup(evs);
  player.play();
  player.stepForward();
  assert.equal(player.playing, false);
  assert.equal(player.pos, 2);
  player.stepBack();
  assert.equal(player.pos, 1);
  player.seek(99);
  assert.equal(player.pos, 5);
  player.stepForward();
  assert.equal(player.pos, 5);
});

test("a long timeline is shortened to play in MAX_PLAY_MS at 1x; a short one is not", () => {
  assert.equal(timeScaleFor(evs), 1);
  const many = Array.from({ length: 5000 }, () => ({ event: "edge" }));
  const k = timeScaleFor(many);
  assert.ok(Math.abs(k * 5000 * eventDuration(many[0]) - MAX_PLAY_MS) < 1);
});
