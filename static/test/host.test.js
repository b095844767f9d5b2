// The host wrapper: ids added, replies matched by id, stale program replies dropped, JSON text accepted.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHost } from "../src/host.js";
import { parseHash, formatHash, shareLink } from "../src/link.js";

function loopback() {
  const sent = [];
  let listener = null;
  return {
    sent,
    transport: {
      send: (m) => sent.push(m),
      subscribe: (fn) => {
        listener = fn;
        return () => {
          listener = null;
        };
      },
    },
    reply: (r) => listener?.(r),
  };
}

test("requests get increasing ids and resolve with the matching reply", async () => {
  const t = loopback();
  const host = createHost(t.transport);
  const a = host.request({ type: "hello" });
  const b = host.request({ type: "share", program: "x" });
  assert.deepEqual(
    t.sent.map((m) => m.id),
    [1, 2],
  );
  t.reply(JSON.stringify({ type: "share", id: 2, token: "1.abc" }));
  t.reply({ type: "hello", id: 1, protocol: 1 });
  assert.equal((await a).protocol, 1);
  assert.equal((await b).token, "1.abc");
});

test("a run reply older than a newer program request is marked stale", async () => {
  const t = loopback();
  const host = createHost(t.transport);
  const first = host.request({ type: "run", program: "a" });
  const second = host.request({ type: "edit", program: "a", edit: {} });
  const share = host.request({ type: "share", program: "a" });
  t.reply({ type: "result", id: 1 });
  t.reply({ type: "share", id: 3, token: "t" });
  t.reply({ type: "result", id: 2 });
  assert.equal((await first).type, "stale");
  assert.equal((await second).type, "result");
  assert.equal((await share).type, "share", "share does not make runs stale");
});

test("error replies resolve; unknown ids are ignored; dispose rejects what is pending", async () => {
  const t = loopback();
  const host = createHost(t.transport);
  const r = host.request({ type: "open", token: "bad" });
  t.reply({ type: "error", id: 99, error: {} });
  t.reply({ type: "error", id: 1, error: { kind: "share", message: "no" } });
  assert.equal((await r).error.kind, "share");
  const p = host.request({ type: "hello" });
  host.dispose();
  await assert.rejects(p);
});

test("links: #p=<token>&s=<step>&e=<event>&v=autograd round-trips", () => {
  assert.deepEqual(parseHash("#p=1.AbC-_x&s=4"), { token: "1.AbC-_x", step: 4, event: null, view: null });
  assert.deepEqual(parseHash(""), { token: null, step: null, event: null, view: null });
  assert.deepEqual(parseHash("#p=1.x&s=4&e=17"), { token: "1.x", step: 4, event: 17, view: null });
  assert.equal(formatHash({ token: "1.x", step: 4, event: 17 }), "#p=1.x&s=4&e=17");
  assert.equal(parseHash("#p=1.x&e=-3").event, null, "not a moment");
  assert.equal(formatHash({ token: "1.x", step: 3, view: "autograd" }), "#p=1.x&s=3&v=autograd");
  assert.equal(
    shareLink("http://127.0.0.1:5006/app#p=old", { token: "1.y", step: 0 }),
    "http://127.0.0.1:5006/app#p=1.y&s=0",
  );
  assert.deepEqual(parseHash(formatHash({ token: "1.y", step: 7, view: "tensors" })), {
    token: "1.y",
    step: 7,
    event: null,
    view: null,
  });
});
