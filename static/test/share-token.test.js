// The browser's reading of share tokens agrees with playground/share.py and refuses what it refuses.
import { test } from "node:test";
import assert from "node:assert/strict";
import { programOfToken } from "../src/share-token.js";

// made by playground.share.encode
const PROGRAM = "import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\ny = (x * x).sum()\ny.backward()\n";
const TOKEN =
  "1.AAAAXW5QFx3LzC3ILypRKMkvSs7gqlCwhbD0SlLzivOLNKIN9Qx0FIz0DGJ1FIpSC0szi1KL49OLElNsQ4pKUzW5KoEaNCoUtBQqNPWKS3M1gCJ6SYnJ2eWJRSlADgA";
const EMPTY = "1.AAAAAOOwxEIDAA";
const UNICODE = "1.AAAAFiwygzsrVrBVUM84vDInJ1_hUdskhQ9zpzSqcwEA";

test("a token gives back the program's exact text", async () => {
  assert.equal(await programOfToken(TOKEN), PROGRAM);
  assert.equal(await programOfToken(`  ${TOKEN}\n`), PROGRAM);
  assert.equal(await programOfToken(EMPTY), "");
  assert.equal(await programOfToken(UNICODE), "s = 'héllo → 𝔁'\n");
});

test("a token that is not one, or not this program's, gives null", async () => {
  const b64 = TOKEN.slice(2);
  const payload = Buffer.from(b64, "base64url");
  const token = (bytes) => "1." + Buffer.from(bytes).toString("base64url");
  const flipped = Buffer.from(payload);
  flipped[5] ^= 1; // the checksum
  const bigger = Buffer.from(payload);
  bigger.writeUInt32BE(payload.readUInt32BE(0) + 1, 0); // a size that does not match
  const huge = Buffer.from(payload);
  huge.writeUInt32BE(80001, 0); // more than a program may have
  for (const bad of [
    null,
    42,
    "",
    "1.",
    "2." + b64,
    "x" + TOKEN,
    TOKEN + "!", // not a token
    token(flipped),
    token(bigger),
    token(huge),
    token(payload.subarray(0, payload.length - 3)), // cut short
    "1." + "A".repeat(107000), // longer than any valid token
  ]) {
    assert.equal(await programOfToken(bad), null, String(bad).slice(0, 40));
  }
});
