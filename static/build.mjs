// Bundles the UI's ES modules into one file per entry with esbuild: `node static/build.mjs [--dev] [--watch]`.
//
// Panel loads a component's ESM from a blob: URL, where relative imports cannot resolve, so each
// entry becomes a single self-contained module. Entries whose source does not exist (yet) are
// skipped, so the in-browser host's entry can be added without touching this file.

import { existsSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

let esbuild;
try {
  esbuild = await import("esbuild");
} catch {
  console.error("esbuild is not installed: run `npm ci` in the repository root first");
  process.exit(1);
}

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));

export const ENTRIES = [
  { src: "static/src/panel_entry.js", out: "static/dist/panel.js" },
  { src: "static/src/site_entry.js", out: "static/dist/site.js" },
];

const args = new Set(process.argv.slice(2));
const dev = args.has("--dev");

function options(entry) {
  return {
    entryPoints: [join(ROOT, entry.src)],
    outfile: join(ROOT, entry.out),
    bundle: true,
    format: "esm",
    platform: "browser",
    target: ["chrome110", "firefox115", "safari16"],
    minify: !dev,
    // inline maps only: a linked .map would be looked up next to the blob: URL Panel loads from
    sourcemap: dev ? "inline" : false,
    legalComments: "none",
    logLevel: "warning",
    charset: "utf8",
  };
}

async function main() {
  const entries = ENTRIES.filter((e) => existsSync(join(ROOT, e.src)));
  if (!entries.length) throw new Error("no entry point found under static/src/");
  if (args.has("--watch")) {
    for (const e of entries) {
      const ctx = await esbuild.context(options(e));
      await ctx.watch();
    }
    console.log(`watching ${entries.map((e) => e.src).join(", ")}`);
    return;
  }
  for (const e of entries) {
    const result = await esbuild.build({ ...options(e), metafile: true });
    const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
    console.log(`${relative(ROOT, join(ROOT, e.src))} -> ${e.out} (${(bytes / 1024).toFixed(0)} KiB)`);
  }
}

main().catch((e) => {
  console.error(e.message || e);
  process.exit(1);
});
