// The top bar: examples menu, New, Run, the view switch, Share and the host badge (renders what ui.js tells it).

import { h, clear } from "./dom.js";

/**
 * Builds the bar. `on`: example(id), new(), run(), toggleView(), share(). Options: hostKind,
 * otherHostUrl and otherHostLabel (a link to the same program in the other host).
 */
export function createTopBar({ hostKind, otherHostUrl = null, otherHostLabel = null }, on) {
  const examples = h(
    "select",
    { class: "gp-select", "data-testid": "examples", "aria-label": "examples" },
    h("option", { value: "" }, "Examples…"),
  );
  const runBtn = h(
    "button",
    { type: "button", class: "gp-btn", "data-testid": "run", title: "Run the program now (Ctrl+Enter)" },
    "Run",
  );
  const newBtn = h(
    "button",
    {
      type: "button",
      class: "gp-btn",
      "data-testid": "new",
      title: "Start an empty program and build a graph by clicking",
    },
    "New",
  );
  const viewBtn = h(
    "button",
    {
      type: "button",
      class: "gp-btn",
      "data-testid": "view-toggle",
      "aria-pressed": "false",
      "data-view": "tensors",
      title: "Switch between tensors and autograd nodes",
    },
    "View: tensors",
  );
  const shareBtn = h("button", { type: "button", class: "gp-btn", "data-testid": "share" }, "Share");
  const shareField = h("input", {
    type: "text",
    readonly: true,
    class: "gp-input mono gp-share-link",
    "data-testid": "share-link",
    "aria-label": "share link",
    hidden: true,
  });
  // The same link opens in the other host (docs/host-protocol.md, "The link"): the server app
  // offers the in-browser site it serves beside itself, kept pointing at what is on screen.
  const otherHost = otherHostUrl
    ? h(
        "a",
        {
          class: "gp-btn",
          "data-testid": "other-host",
          href: otherHostUrl,
          target: "_blank",
          rel: "noopener",
          title: "Open this program in the in-browser version (Python runs in your browser, no server)",
        },
        // short, so the top bar stays one row at 1024 px
        otherHostLabel || "In browser ↗",
      )
    : null;
  const status = h(
    "span",
    { class: "gp-badge", "data-testid": "host-status" },
    hostKind === "browser" ? "Python in your browser" : "Python on the server",
  );
  const el = h(
    "header",
    { class: "gp-top" },
    h(
      "div",
      { class: "gp-brand" },
      h("b", null, "grad", h("span", null, "play")),
      h("small", null, "watch autograd fill every .grad"),
    ),
    examples,
    newBtn,
    runBtn,
    viewBtn,
    h("span", { class: "gp-spacer" }),
    shareField,
    shareBtn,
    otherHost,
    status,
  );

  examples.addEventListener("change", () => {
    if (examples.value) on.example(examples.value);
  });
  newBtn.addEventListener("click", () => on.new());
  runBtn.addEventListener("click", () => on.run());
  viewBtn.addEventListener("click", () => on.toggleView());
  shareBtn.addEventListener("click", () => on.share());

  let shareTimer = null;

  return {
    el,
    /** The gallery, from hello; `current` stays chosen. */
    setExamples(list, current) {
      clear(examples);
      examples.append(h("option", { value: "" }, "Examples…"));
      for (const ex of list) {
        examples.append(
          h(
            "option",
            { value: ex.id, "data-torch-differs": ex.torch_differs ? "true" : "false", title: ex.summary },
            ex.title + (ex.torch_differs ? "  ≠ tutorial claim" : ""),
          ),
        );
      }
      if (current) examples.value = current;
    },
    /** Shows example `id` as chosen (none with null), when the menu has it. */
    chooseExample(id) {
      if (!id) examples.value = "";
      else if (examples.querySelector(`option[value="${CSS.escape(id)}"]`)) examples.value = id;
    },
    setView(view) {
      viewBtn.textContent = view === "autograd" ? "View: autograd" : "View: tensors";
      viewBtn.dataset.view = view;
      viewBtn.setAttribute("aria-pressed", view === "autograd" ? "true" : "false");
    },
    /** Shows the share link in its field; the button says whether it is on the clipboard. */
    showShareLink(link, copied) {
      shareField.hidden = false;
      shareField.value = link;
      shareField.select?.();
      shareBtn.textContent = copied ? "Copied ✓" : "Share";
      shareBtn.dataset.copied = copied ? "true" : "false";
      clearTimeout(shareTimer);
      shareTimer = setTimeout(() => (shareBtn.textContent = "Share"), 1800);
    },
    /** Keeps the other host's link at what is on screen. */
    setOtherHostHash(hash) {
      if (otherHost) otherHost.href = otherHostUrl + hash;
    },
    setBusy(on) {
      status.classList.toggle("busy", on);
    },
    destroy() {
      clearTimeout(shareTimer);
    },
  };
}
