// The in-browser host's deadline: one request in the worker at a time; an overrun answered with a
// `limit` error, the worker restarted, the requests that waited sent to the new one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { deadlineTransport } from "../src/deadline-transport.js";
import { createHost } from "../src/host.js";

function fakeWorker() {
  const w = { posted: [], restarts: 0, finishRestart: null };
  w.transport = deadlineTransport({
    post: (text) => w.posted.push(JSON.parse(text)),
    restart: () =>
      new Promise((resolve) => {
        w.restarts += 1;
        w.finishRestart = resolve;
      }),
    deadlineMs: 30,
  });
  return w;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

test("requests reach the worker one at a time, in order", async () => {
  const w = fakeWorker();
  const host = createHost(w.transport);
  const a = host.request({ type: "run", program: "a" });
  const b = host.request({ type: "share", program: "b" });
  assert.deepEqual(
    w.posted.map((m) => m.program),
    ["a"],
  ); // b waits for a's reply
  w.transport.receive(JSON.stringify({ type: "result", id: 1 }));
  assert.deepEqual(
    w.posted.map((m) => m.program),
    ["a", "b"],
  );
  w.transport.receive(JSON.stringify({ type: "share", id: 2, token: "t" }));
  assert.equal((await a).type, "result");
  assert.equal((await b).token, "t");
  host.dispose();
});

test("an overrun is a limit error, the worker restarts, waiting requests go to the new one", async () => {
  const w = fakeWorker();
  const host = createHost(w.transport);
  const slow = host.request({ type: "run", program: "slow" });
  const next = host.request({ type: "share", program: "next" });
  const reply = await slow;
  assert.equal(reply.type, "error");
  assert.equal(reply.error.kind, "limit");
  assert.match(reply.error.message, /restarted/);
  await sleep(50);
  assert.equal(w.restarts, 1);
  assert.equal(w.posted.length, 1); // nothing is sent while the new worker starts
  w.finishRestart();
  await sleep(0);
  assert.deepEqual(
    w.posted.map((m) => m.program),
    ["slow", "next"],
  );
  w.transport.receive(JSON.stringify({ type: "share", id: 2, token: "t" }));
  assert.equal((await next).token, "t");
  host.dispose();
});

test("a reply in time clears the deadline; setDeadline changes it for later requests", async () => {
  const w = fakeWorker();
  w.transport.setDeadline(1000);
  assert.equal(w.transport.deadlineMs, 1000);
  const host = createHost(w.transport);
  const a = host.request({ type: "hello" });
  w.transport.receive(JSON.stringify({ type: "hello", id: 1 }));
  assert.equal((await a).type, "hello");
  await sleep(40);
  assert.equal(w.restarts, 0);
  host.dispose();
});
