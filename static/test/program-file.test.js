// The downloaded .py: the program as it is, a first comment line, and random seeded as the playground seeds it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { programFile, programFileName } from "../src/program-file.js";

test("a program is written as it is, after one comment line", () => {
  const program = "import torch\nx = torch.tensor([2.0], requires_grad=True)\n(x ** 2).backward()\nprint(x.grad)\n";
  const text = programFile(program, { title: "x.grad after x**2" });
  const [first, ...rest] = text.split("\n");
  assert.match(first, /^# x\.grad after x\*\*2: runs as it is in PyTorch/);
  assert.equal(rest.join("\n"), program);
});

test("a missing last newline is added", () => {
  assert.ok(programFile("import torch").endsWith("import torch\n"));
});

test("random is seeded with 0 after its import, as every run here is, unless the program seeds it", () => {
  const text = programFile("import torch\nimport random\nprint(random.random())\n");
  assert.match(text, /import random\nrandom\.seed\(0\) {2}# the playground seeds random with 0 for every run\nprint/);
  const seeded = "import random\nrandom.seed(3)\nprint(random.random())\n";
  assert.ok(!programFile(seeded).includes("random.seed(0)"));
  assert.ok(!programFile("import torch\n# import random\n").includes("random.seed(0)"));
});

test("file names come from the example's id", () => {
  assert.equal(programFileName("seed-square"), "seed-square.py");
  assert.equal(programFileName(null), "program.py");
  assert.equal(programFileName("a b/c"), "a_b_c.py");
});
