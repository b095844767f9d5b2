// The site's snapshot file (static/site/snapshot-file.js): what the build writes, the worker reads
// back byte for byte, however the bytes arrive; a file that is not one is refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import { PageReader, packPages, readSnapshotFile, writeSnapshotFile } from "../site/snapshot-file.js";

// Memory as a snapshot holds it: runs of zero pages between pages of data, a page with a single
// byte set at its end, and a length that is not a whole number of pages.
function memory(length, pageBytes) {
  const bytes = new Uint8Array(length);
  let seed = 12345;
  for (let page = 0; page * pageBytes < length; page++) {
    const from = page * pageBytes;
    const to = Math.min(from + pageBytes, length);
    if (page % 3 === 1) continue; // all zeros
    if (page % 5 === 2) {
      bytes[to - 1] = 7;
      continue;
    }
    for (let i = from; i < to; i++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      bytes[i] = seed % 4 === 0 ? 0 : seed >>> 24;
    }
  }
  return bytes;
}

function readInChunks(packed, size) {
  const reader = new PageReader();
  for (let i = 0; i < packed.length; i += size) reader.push(packed.subarray(i, i + size));
  return reader.finish();
}

test("the pages that are not all zeros are kept, and read back to the same memory", () => {
  for (const [length, pageBytes] of [
    [10 * 4096, 4096],
    [10 * 4096 + 123, 4096],
    [1001, 64],
    [3, 8],
    [0, 4096],
  ]) {
    const bytes = memory(length, pageBytes);
    const packed = packPages(bytes, pageBytes);
    const kept = Math.ceil(length / pageBytes) - Math.floor((Math.ceil(length / pageBytes) + 1) / 3);
    assert.ok(packed.length <= 12 + Math.ceil(length / pageBytes / 8) + kept * pageBytes, `${length}`);
    for (const size of [1, 7, 4096, 5000, packed.length || 1]) {
      assert.deepEqual(readInChunks(packed, size), bytes, `${length}/${pageBytes} in chunks of ${size}`);
    }
  }
});

test("memory of zeros keeps no page, and a misaligned view packs like an aligned one", () => {
  const zeros = new Uint8Array(5 * 4096);
  assert.equal(packPages(zeros).length, 12 + 1);
  assert.deepEqual(readInChunks(packPages(zeros), 3), zeros);
  const bytes = memory(3 * 4096 + 10, 4096);
  const shifted = new Uint8Array(bytes.length + 1);
  shifted.set(bytes, 1);
  assert.deepEqual(packPages(shifted.subarray(1)), packPages(bytes));
});

test("a file that is not a snapshot file, or is cut short or too long, is refused", () => {
  const packed = packPages(memory(4 * 4096, 4096));
  const other = packed.slice();
  other[3] = "2".charCodeAt(0);
  assert.throws(() => readInChunks(other, 100), /format GPS1/);
  assert.throws(() => readInChunks(packed.subarray(0, packed.length - 1), 100), /cut short/);
  assert.throws(() => readInChunks(packed.subarray(0, 8), 100), /cut short/);
  const longer = new Uint8Array(packed.length + 1);
  longer.set(packed);
  assert.throws(() => readInChunks(longer, 100), /longer than its pages/);
});

test("the compressed file, read as a stream, gives the memory back", async () => {
  const bytes = memory(64 * 4096 + 100, 4096);
  const file = await writeSnapshotFile(bytes);
  assert.equal(file[0], 0x1f); // gzip
  assert.equal(file[1], 0x8b);
  assert.ok(file.length < bytes.length);
  assert.deepEqual(await readSnapshotFile(new Blob([file]).stream()), bytes);
});
