// The in-browser host's transport to its Pyodide worker, with a deadline: a request the worker
// has not answered in time gets the worker replaced and a `limit` error in its place.
//
// Python in a Web Worker cannot be interrupted from outside, and a statement the interpreter's
// own clock does not see (one huge print, a hook inside backward) can run for minutes. The page
// is the only one that can stop it: by terminating the worker. So requests go to the worker one
// at a time (it answers them in order anyway), each with a timer; when one fires, `restart()`
// must terminate the worker and resolve once a new one can answer. Requests sent meanwhile wait.

export const DEFAULT_DEADLINE_MS = 10000; // the host's 5 s time limit and a margin for recording

/**
 * post(text) sends a request to the current worker; restart() -> Promise replaces it.
 * Returns a transport for static/src/host.js ({send, subscribe}) plus receive(text), to be
 * called with each reply the worker posts, and setDeadline(ms).
 */
export function deadlineTransport({ post, restart, deadlineMs = DEFAULT_DEADLINE_MS, onOverrun = null }) {
  const listeners = new Set();
  const waiting = [];
  let inFlight = null; // {msg, timer}
  let restarting = false;

  const deliver = (reply) => {
    for (const fn of listeners) fn(reply);
  };

  function pump() {
    if (inFlight || restarting || !waiting.length) return;
    const msg = waiting.shift();
    const ms = deadlineMs;
    inFlight = { msg, timer: setTimeout(() => overrun(msg, ms), ms) };
    post(JSON.stringify(msg));
  }

  function overrun(msg, ms) {
    inFlight = null;
    restarting = true;
    const seconds = ms / 1000;
    deliver({
      type: "error",
      id: msg.id ?? null,
      seconds,
      error: {
        kind: "limit",
        message:
          `the request ran longer than ${seconds} s (the program's time limit and a margin for ` +
          "recording it); it was stopped and Python was restarted in this page",
      },
    });
    onOverrun?.(msg, ms);
    Promise.resolve()
      .then(restart)
      .catch(() => {}) // a new worker that cannot start answers with its own errors
      .then(() => {
        restarting = false;
        pump();
      });
  }

  return {
    send(msg) {
      waiting.push(msg);
      pump();
    },
    subscribe(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    receive(text) {
      if (inFlight) {
        clearTimeout(inFlight.timer);
        inFlight = null;
      }
      deliver(text);
      pump();
    },
    setDeadline(ms) {
      if (Number.isFinite(ms) && ms > 0) deadlineMs = ms;
    },
    get deadlineMs() {
      return deadlineMs;
    },
  };
}
