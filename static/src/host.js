// The UI's side of the host protocol (docs/host-protocol.md): ids, replies matched to requests, stale replies dropped.

export const PROTOCOL_VERSION = 4;

// Requests whose reply replaces the program and timeline on screen. Only the newest one may be
// drawn: a reply to an older run or edit (typing raced ahead of the host) is dropped.
const PROGRAM_REQUESTS = new Set(["run", "edit", "example", "open"]);

/**
 * A host over any transport. `transport.send(obj)` delivers a request; `transport.subscribe(fn)`
 * calls fn(reply) for each reply (an object, or its JSON text) and returns an unsubscribe.
 * request(msg) resolves with the reply; a superseded program reply resolves with
 * `{type: "stale", id, reply}` so the caller can ignore it, and never rejects for a reply the
 * host sends (an `error` reply is a reply). It rejects only when the transport fails or times out.
 */
export function createHost(transport, { timeoutMs = 60000 } = {}) {
  let nextId = 1;
  let latestProgram = 0;
  const pending = new Map();

  function onReply(raw) {
    let reply = raw;
    if (typeof raw === "string") {
      try {
        reply = JSON.parse(raw);
      } catch {
        return;
      }
    }
    if (!reply || typeof reply !== "object") return;
    const p = pending.get(reply.id);
    if (!p) return;
    pending.delete(reply.id);
    clearTimeout(p.timer);
    if (p.seq && p.seq < latestProgram) p.resolve({ type: "stale", id: reply.id, reply });
    else p.resolve(reply);
  }

  const unsubscribe = transport.subscribe(onReply);

  function request(msg) {
    const id = nextId++;
    const seq = PROGRAM_REQUESTS.has(msg.type) ? ++latestProgram : 0;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`the engine host did not answer a '${msg.type}' request in ${timeoutMs / 1000} s`));
      }, timeoutMs);
      pending.set(id, { resolve, reject, seq, timer });
      try {
        transport.send({ ...msg, id });
      } catch (e) {
        clearTimeout(timer);
        pending.delete(id);
        reject(e);
      }
    });
  }

  function dispose() {
    unsubscribe?.();
    for (const p of pending.values()) {
      clearTimeout(p.timer);
      p.reject(new Error("the playground was closed"));
    }
    pending.clear();
  }

  return {
    request,
    dispose,
    get pendingCount() {
      return pending.size;
    },
  };
}
