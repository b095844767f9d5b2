// The program pane's tools: undo and redo (the editor's history), copy the program, download it as a .py (renders what ui.js tells it).

import { h } from "./dom.js";

/**
 * Builds the tools. `on`: undo(), redo(), copy() -> Promise<boolean> (whether the clipboard has
 * it), download(). setHistory({undo, redo}) enables the buttons that can do something.
 */
export function createProgramTools(on) {
  const button = (testid, text, title, onclick) =>
    h(
      "button",
      { type: "button", class: "gp-btn icon small-btn", "data-testid": testid, title, "aria-label": title, onclick },
      text,
    );
  const undoBtn = button("undo", "↶", "Undo (Ctrl+Z)", () => on.undo());
  const redoBtn = button("redo", "↷", "Redo (Ctrl+Shift+Z)", () => on.redo());
  const copyBtn = button("copy-program", "Copy", "Copy the program", async () => {
    const copied = await on.copy();
    copyBtn.textContent = copied ? "Copied ✓" : "Select and copy";
    copyBtn.dataset.copied = copied ? "true" : "false";
    clearTimeout(copyTimer);
    copyTimer = setTimeout(() => (copyBtn.textContent = "Copy"), 1800);
  });
  const downloadBtn = button("download-program", ".py", "Download the program as a .py file that runs in PyTorch", () =>
    on.download(),
  );
  let copyTimer = null;
  undoBtn.disabled = true;
  redoBtn.disabled = true;
  const el = h(
    "span",
    { class: "gp-program-tools", role: "toolbar", "aria-label": "program" },
    undoBtn,
    redoBtn,
    copyBtn,
    downloadBtn,
  );
  return {
    el,
    setHistory({ undo, redo }) {
      undoBtn.disabled = !undo;
      redoBtn.disabled = !redo;
    },
    destroy() {
      clearTimeout(copyTimer);
    },
  };
}
