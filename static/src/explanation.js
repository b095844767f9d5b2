// The example's explanation above the program: title, summary and text; marked once the program is edited.

import { h, clear, richText } from "./dom.js";

export function createExplanation() {
  const el = h("section", { class: "gp-explanation", "data-testid": "explanation", hidden: true });
  return {
    el,
    /** Shows example `ex` (null hides the section). */
    show(ex) {
      clear(el);
      el.hidden = !ex;
      if (!ex) return;
      el.append(
        h(
          "h2",
          { "data-testid": "explanation-title" },
          ex.title,
          ex.torch_differs
            ? h(
                "span",
                { class: "gp-differs", title: "a common tutorial claim that PyTorch contradicts" },
                "tutorial ≠ torch",
              )
            : null,
        ),
        ex.summary ? h("p", { class: "gp-summary" }, ex.summary) : null,
        h(
          "p",
          { class: "gp-edited-note" },
          "You have changed this example's program; the text below is about the original.",
        ),
        ...richText(ex.explanation),
      );
    },
    setEdited(edited) {
      el.classList.toggle("edited", edited);
    },
  };
}
