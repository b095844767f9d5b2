// The link in the address bar: `#p=<share token>&s=<step>&v=autograd` read and written (pure).

/** Parses a location hash ("#p=...&s=3") into {token, step, view}; missing parts are null. */
export function parseHash(hash) {
  const text = (hash || "").replace(/^#/, "");
  const params = new URLSearchParams(text);
  const token = params.get("p") || null;
  const s = params.get("s");
  const step = s != null && /^\d+$/.test(s) ? Number(s) : null;
  const v = params.get("v");
  return { token, step, view: v === "autograd" ? "autograd" : v === "tensors" ? "tensors" : null };
}

/** The hash for a program token at a step, in a view (the tensor view is the default, left out). */
export function formatHash({ token, step, view }) {
  if (!token) return "";
  // tokens are URL-safe base64 (docs/share-token.md), so they go in as they are
  let h = `#p=${token}`;
  if (step != null) h += `&s=${step}`;
  if (view === "autograd") h += "&v=autograd";
  return h;
}

/** The full link: the page address without its hash, plus the hash. */
export function shareLink(href, state) {
  return href.replace(/#.*$/, "") + formatHash(state);
}
