// The console pane: what the program printed by the moment shown (controller.consoleView), kept scrolled to its end.

import { h, clear } from "./dom.js";

export function createConsolePane() {
  const el = h("pre", {
    class: "gp-console",
    "data-testid": "console",
    "aria-live": "polite",
    "aria-label": "console",
  });
  let shownKey = null;
  let scrollFrame = 0;

  return {
    el,
    /** Draws `view` unless it is what is shown already (called at every moment while playing). */
    show(view) {
      if (view.key === shownKey) return;
      shownKey = view.key;
      clear(el);
      // class names of their own: Panel's page styles reach into the shadow root (".error")
      for (const it of view.items) el.append(h("span", { class: `gp-c-${it.kind}`, "data-kind": it.kind }, it.text));
      if (!view.items.length) el.append(h("span", { class: "gp-c-empty" }, view.empty));
      // scrolled to the end in the next frame: scrolling now would make the browser lay out the
      // page (a new graph's every card) in the middle of drawing it
      if (!scrollFrame) {
        scrollFrame = requestAnimationFrame(() => {
          scrollFrame = 0;
          el.scrollTop = el.scrollHeight;
        });
      }
    },
    /** The next show() draws even an equal view (a new run). */
    invalidate() {
      shownKey = null;
    },
    destroy() {
      cancelAnimationFrame(scrollFrame);
    },
  };
}
