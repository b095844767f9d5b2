// The link in the address bar: `#p=<share token>&s=<step>&e=<event>&v=autograd` read and written (pure).

const count = (text) => (text != null && /^\d+$/.test(text) ? Number(text) : null);

/**
 * Parses a location hash ("#p=...&s=3&e=17") into {token, step, event, view}; missing parts are
 * null. `event` is the exact moment (how many of the run's events had happened, the scrub's
 * value); `step` the statement, which links made before `e` existed carry alone.
 */
export function parseHash(hash) {
  const text = (hash || "").replace(/^#/, "");
  const params = new URLSearchParams(text);
  const token = params.get("p") || null;
  const v = params.get("v");
  return {
    token,
    step: count(params.get("s")),
    event: count(params.get("e")),
    view: v === "autograd" ? "autograd" : v === "tensors" ? "tensors" : null,
  };
}

/** The hash for a program token at a step and event, in a view (the tensor view is the default, left out). */
export function formatHash({ token, step, event = null, view }) {
  if (!token) return "";
  // tokens are URL-safe base64 (docs/share-token.md), so they go in as they are
  let h = `#p=${token}`;
  if (step != null) h += `&s=${step}`;
  if (event != null) h += `&e=${event}`;
  if (view === "autograd") h += "&v=autograd";
  return h;
}

/** The full link: the page address without its hash, plus the hash. */
export function shareLink(href, state) {
  return href.replace(/#.*$/, "") + formatHash(state);
}
