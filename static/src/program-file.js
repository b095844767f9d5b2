// The program as a .py file that runs unchanged in real PyTorch (pure): what the playground gives every run, written out.
//
// A program here already imports what it uses (the language allows only real torch imports,
// docs/program-language.md), and torch starts from the same default seed in a fresh process as
// here. One thing differs: the playground seeds Python's `random` with 0 at the start of every
// run, where a Python process seeds it from the system. A program that uses `random` without
// seeding it gets `random.seed(0)` after its import, so the file prints what the playground
// showed.

const IMPORT_RANDOM = /^import random\s*(#.*)?$/m;
const SEEDS_RANDOM = /\brandom\.seed\s*\(/;

/** The file's text for `program`; `title`: what the first comment line calls it. */
export function programFile(program, { title = null } = {}) {
  let text = program.endsWith("\n") ? program : program + "\n";
  const imp = IMPORT_RANDOM.exec(text);
  if (imp && !SEEDS_RANDOM.test(text)) {
    const end = imp.index + imp[0].length;
    text =
      text.slice(0, end) + "\nrandom.seed(0)  # the playground seeds random with 0 for every run" + text.slice(end);
  }
  const head = `# ${title || "A gradplay program"}: runs as it is in PyTorch (pip install torch; python this_file.py)\n`;
  return head + text;
}

/** A file name for the program: the example's id, or program.py. */
export function programFileName(exampleId = null) {
  const base = (exampleId || "program").replace(/[^A-Za-z0-9_-]+/g, "_").replace(/^_+|_+$/g, "");
  return `${base || "program"}.py`;
}
