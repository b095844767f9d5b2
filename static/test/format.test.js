// Checks the JS tensor printer against torch's own output (tests/fixtures/printing.json, recorded from torch 2.13).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { formatTensor, shortValue, reprValue, flatValues, num, pyLiteral } from "../src/format.js";

// Python's json writes NaN and Infinity bare; turn them into the strings timelines use.
const raw = readFileSync(new URL("../../tests/fixtures/printing.json", import.meta.url), "utf8");
const fixture = JSON.parse(
  raw.replace(/(?<=[[,:]\s*)(-?Infinity|NaN)(?=\s*[\],}])/g, (m) =>
    JSON.stringify({ NaN: "nan", Infinity: "inf", "-Infinity": "-inf" }[m]),
  ),
);

test("formatTensor reproduces every recorded torch repr", () => {
  const failures = [];
  for (const c of fixture.cases) {
    if (c.parameter) continue;
    // JSON numbers in JS lose int64 digits beyond 2**53; timelines never carry such ints
    if (c.dtype === "int64" && JSON.stringify(c.values).match(/\d{16,}/)) continue;
    const values = c.values;
    const got = formatTensor(values, c.shape, c.dtype, { requiresGrad: c.requires_grad, gradFn: c.grad_fn });
    if (got !== c.repr) failures.push(`${c.name}\n  want ${JSON.stringify(c.repr)}\n  got  ${JSON.stringify(got)}`);
  }
  assert.deepEqual(failures, []);
});

test("shortValue shows the numbers as torch prints them", () => {
  assert.equal(shortValue({ shape: [1], dtype: "float32", data: [8.0] }), "[8.]");
  assert.equal(shortValue({ shape: [], dtype: "float32", data: 8.0 }), "8.");
  assert.equal(shortValue({ shape: [2], dtype: "float32", data: [0.5, 1.25] }), "[0.5000, 1.2500]");
  assert.equal(
    shortValue({
      shape: [2, 2],
      dtype: "float32",
      data: [
        [1, 2],
        [3, 4],
      ],
    }),
    "[[1., 2.], [3., 4.]]",
  );
  assert.equal(shortValue({ shape: [2], dtype: "int64", data: [1, 2] }), "[1, 2]");
  assert.equal(shortValue({ shape: [2], dtype: "float32", data: ["nan", 1] }), "[nan, 1.]");
  assert.equal(shortValue(null), "None");
});

test("shortValue cuts long values and shows summaries", () => {
  const long = { shape: [20], dtype: "float32", data: Array.from({ length: 20 }, (_, i) => i + 0.5) };
  const s = shortValue(long, 20);
  assert.ok(s.length <= 20 && s.endsWith("…"), s);
  const summary = {
    shape: [100],
    dtype: "float32",
    summary: { numel: 100, min: 0, max: 99, mean: 49.5, first: [0, 1, 2, 3, 4, 5, 6, 7] },
  };
  assert.match(shortValue(summary, 60), /^\[0\., 1\., 2\., .*…\]$/);
  assert.match(reprValue(summary), /100 elements/);
});

test("flatValues and num read the JSON forms of non-finite floats", () => {
  assert.deepEqual(flatValues({ shape: [2, 1], dtype: "float32", data: [[1], ["inf"]] }), [1, Infinity]);
  assert.ok(Number.isNaN(num("nan")));
});

test("pyLiteral writes values back as Python literals with float points", () => {
  assert.equal(pyLiteral({ shape: [2], dtype: "float32", data: [2, 3.5] }), "[2.0, 3.5]");
  assert.equal(pyLiteral({ shape: [], dtype: "float32", data: 2 }), "2.0");
  assert.equal(pyLiteral({ shape: [2], dtype: "int64", data: [1, 2] }), "[1, 2]");
  assert.equal(pyLiteral({ shape: [1, 2], dtype: "bool", data: [[true, false]] }), "[[True, False]]");
});
