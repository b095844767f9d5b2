// The file the site ships Pyodide's memory snapshot in (python.snapshot.gz): written by the build
// (scripts/compile_site_python.mjs), read by the worker (static/site/worker.js). No DOM, no
// worker globals: Node.js runs it at build time and in static/test/.
//
// A snapshot is Pyodide's whole WebAssembly memory (about 31 MB), half of it pages of zeros (the
// unused part of the C stack, the heap above its top). The file keeps only the other pages, and
// gzip-compresses all of it, so the worker downloads about 6 MB and inflates about 16 MB, where
// inflating the whole snapshot would take twice as long. Layout, inside one gzip stream:
//
//   bytes 0-3    "GPS1" (the format; another one is refused)
//   bytes 4-7    the snapshot's length in bytes (uint32, little-endian)
//   bytes 8-11   the page size in bytes (uint32, little-endian)
//   then         one bit per page, lowest bit first: 1 = the page is in the file, 0 = all zeros
//   then         the pages that are in the file, in order (the last one may be short)

export const SNAPSHOT_FORMAT = "GPS1";
export const SNAPSHOT_PAGE_BYTES = 4096;
const HEADER_BYTES = 12;

function pageCount(length, pageBytes) {
  return Math.ceil(length / pageBytes);
}

function isZero(words, from, to) {
  for (let i = from; i < to; i++) if (words[i] !== 0) return false;
  return true;
}

// The snapshot (a Uint8Array) -> the file's bytes before compression.
export function packPages(snapshot, pageBytes = SNAPSHOT_PAGE_BYTES) {
  if (pageBytes % 4 !== 0) throw new Error("the page size must be a multiple of 4");
  const length = snapshot.byteLength;
  const pages = pageCount(length, pageBytes);
  const bitmap = new Uint8Array(Math.ceil(pages / 8));
  const whole = Math.floor(length / 4); // the words that fit; a short tail is compared bytewise
  const words = snapshot.byteOffset % 4 ? new Uint32Array(0)
    : new Uint32Array(snapshot.buffer, snapshot.byteOffset, whole);
  const kept = [];
  let keptBytes = 0;
  for (let p = 0; p < pages; p++) {
    const from = p * pageBytes;
    const to = Math.min(from + pageBytes, length);
    let zero;
    if (words.length && to <= whole * 4) zero = isZero(words, from / 4, to / 4);
    else zero = snapshot.subarray(from, to).every((b) => b === 0);
    if (zero) continue;
    bitmap[p >> 3] |= 1 << (p & 7);
    kept.push(snapshot.subarray(from, to));
    keptBytes += to - from;
  }
  const out = new Uint8Array(HEADER_BYTES + bitmap.length + keptBytes);
  const view = new DataView(out.buffer);
  out.set(new TextEncoder().encode(SNAPSHOT_FORMAT), 0);
  view.setUint32(4, length, true);
  view.setUint32(8, pageBytes, true);
  out.set(bitmap, HEADER_BYTES);
  let at = HEADER_BYTES + bitmap.length;
  for (const page of kept) {
    out.set(page, at);
    at += page.length;
  }
  return out;
}

// The file's uncompressed bytes, arriving in chunks of any size, -> the snapshot. Each chunk is
// copied once, straight to its place; the pages left out stay zero (a new buffer is zeroed).
export class PageReader {
  constructor() {
    this.head = new Uint8Array(HEADER_BYTES);
    this.got = 0; // bytes of the header and bitmap read so far
    this.bitmap = null;
    this.snapshot = null;
    this.page = -1; // the page being filled, and how much of it is filled
    this.filled = 0;
  }

  push(chunk) {
    let i = 0;
    while (i < chunk.length) {
      if (this.snapshot === null) i += this._readHead(chunk, i);
      else i += this._readPages(chunk, i);
    }
  }

  _readHead(chunk, i) {
    if (this.got < HEADER_BYTES) {
      const n = Math.min(HEADER_BYTES - this.got, chunk.length - i);
      this.head.set(chunk.subarray(i, i + n), this.got);
      this.got += n;
      if (this.got === HEADER_BYTES) {
        const format = new TextDecoder().decode(this.head.subarray(0, 4));
        if (format !== SNAPSHOT_FORMAT) throw new Error(`not a snapshot file of format ${SNAPSHOT_FORMAT}`);
        const view = new DataView(this.head.buffer);
        this.length = view.getUint32(4, true);
        this.pageBytes = view.getUint32(8, true);
        if (!this.pageBytes) throw new Error("a snapshot file with a page size of 0");
        this.bitmap = new Uint8Array(Math.ceil(pageCount(this.length, this.pageBytes) / 8));
        if (this.bitmap.length === 0) this._begin();
      }
      return n;
    }
    const at = this.got - HEADER_BYTES;
    const n = Math.min(this.bitmap.length - at, chunk.length - i);
    this.bitmap.set(chunk.subarray(i, i + n), at);
    this.got += n;
    if (at + n === this.bitmap.length) this._begin();
    return n;
  }

  _begin() {
    this.snapshot = new Uint8Array(this.length);
    this._nextPage();
  }

  _nextPage() {
    const pages = pageCount(this.length, this.pageBytes);
    let p = this.page + 1;
    while (p < pages && !(this.bitmap[p >> 3] & (1 << (p & 7)))) p++;
    this.page = p;
    this.filled = 0;
  }

  _pageLength() {
    return Math.min(this.pageBytes, this.length - this.page * this.pageBytes);
  }

  _readPages(chunk, i) {
    if (this.page * this.pageBytes >= this.length) throw new Error("a snapshot file longer than its pages");
    const n = Math.min(this._pageLength() - this.filled, chunk.length - i);
    this.snapshot.set(chunk.subarray(i, i + n), this.page * this.pageBytes + this.filled);
    this.filled += n;
    if (this.filled === this._pageLength()) this._nextPage();
    return n;
  }

  // The snapshot, once every byte has been pushed.
  finish() {
    if (this.snapshot === null || this.page * this.pageBytes < this.length) {
      throw new Error("a snapshot file cut short");
    }
    return this.snapshot;
  }
}

// A gzip-compressed snapshot file as a stream (a fetch's body) -> the snapshot, inflated as the
// bytes arrive.
export async function readSnapshotFile(stream) {
  const reader = stream.pipeThrough(new DecompressionStream("gzip")).getReader();
  const pages = new PageReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return pages.finish();
    pages.push(value);
  }
}

// The snapshot -> the file's bytes (gzip), as the build writes them.
export async function writeSnapshotFile(snapshot) {
  const packed = packPages(snapshot);
  const compressed = new Blob([packed]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(compressed).arrayBuffer());
}
