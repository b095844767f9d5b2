// A share token's program text read in the browser (docs/share-token.md, version 1), to show a link's program while the host opens it.
//
// The host decides what a token holds: its `open` reply (the program, or an error) replaces what
// this showed. This reader answers only with text whose size, checksum and UTF-8 are those the
// token declares, i.e. the program in it; otherwise, or where the browser lacks what it needs to
// check (DecompressionStream, crypto.subtle outside a secure context), with null.

import { SHARE_TOKEN } from "./python-tables.js";

const { maxProgramChars: MAX_CHARS, maxProgramBytes: MAX_BYTES, maxTokenChars: MAX_TOKEN_CHARS } = SHARE_TOKEN;

/** The program in a share token, or null (not a valid version-1 token, or it cannot be checked here). */
export async function programOfToken(token) {
  try {
    if (typeof token !== "string" || typeof DecompressionStream !== "function" || !globalThis.crypto?.subtle)
      return null;
    const trimmed = token.trim();
    const m = trimmed.length <= MAX_TOKEN_CHARS && /^1\.([A-Za-z0-9_-]+)$/.exec(trimmed);
    if (!m || m[1].length % 4 === 1) return null;
    const b64 = m[1].replace(/-/g, "+").replace(/_/g, "/");
    const payload = Uint8Array.from(atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4)), (c) => c.charCodeAt(0));
    if (payload.length < 9) return null;
    const size = new DataView(payload.buffer).getUint32(0);
    if (size > MAX_BYTES) return null;
    const raw = await inflate(payload.subarray(8), size);
    if (!raw || raw.length !== size) return null;
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", raw));
    if (digest.subarray(0, 4).some((b, i) => b !== payload[4 + i])) return null;
    const text = new TextDecoder("utf-8", { fatal: true }).decode(raw);
    return Array.from(text).length <= MAX_CHARS ? text : null;
  } catch {
    return null;
  }
}

// Raw DEFLATE, stopped as soon as it gives more than `size` bytes (no zip bombs).
async function inflate(body, size) {
  const reader = new Blob([body]).stream().pipeThrough(new DecompressionStream("deflate-raw")).getReader();
  const out = new Uint8Array(size);
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out.subarray(0, n);
    if (n + value.length > size) {
      reader.cancel().catch(() => {});
      return null;
    }
    out.set(value, n);
    n += value.length;
  }
}
