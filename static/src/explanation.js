// The example's explanation above the program: title, summary and text; folded once the program is edited.

import { h, clear, richText } from "./dom.js";

/**
 * Whether `program` still holds any of `example`'s statements (imports aside): a program that
 * holds none is the learner's own code, and the example's text is about something else.
 */
export function keepsExample(program, example) {
  const lines = (text) =>
    new Set(
      (text || "")
        .split("\n")
        .map((l) => l.trim())
        .filter((l) => l && !l.startsWith("#") && !/^(import|from)\s/.test(l)),
    );
  const mine = lines(program);
  for (const l of lines(example)) if (mine.has(l)) return true;
  return false;
}

export function createExplanation() {
  const el = h("section", { class: "gp-explanation", "data-testid": "explanation", hidden: true });
  let example = null;
  let edited = false;
  let replaced = false;
  let opened = false; // the learner asked to read the original's text after an edit
  const toggle = h("button", { class: "gp-link-btn", type: "button", "data-testid": "explanation-toggle" });
  toggle.addEventListener("click", () => {
    opened = !opened;
    apply();
  });
  const body = h("div", { class: "gp-explanation-body" });

  function apply() {
    el.hidden = !example || replaced;
    el.classList.toggle("edited", edited);
    body.hidden = edited && !opened;
    toggle.textContent = opened ? "Hide the example's text ▴" : "Show the example's text ▸";
    toggle.setAttribute("aria-expanded", String(!body.hidden));
  }

  return {
    el,
    /** Shows example `ex` (null hides the section). */
    show(ex) {
      clear(el);
      clear(body);
      example = ex;
      edited = false;
      replaced = false;
      opened = false;
      if (ex) {
        body.append(ex.summary ? h("p", { class: "gp-summary" }, ex.summary) : null, ...richText(ex.explanation));
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
          h(
            "p",
            { class: "gp-edited-note", "data-testid": "edited-note" },
            "You changed this example's program; its text is about the original. ",
            toggle,
          ),
          body,
        );
      }
      apply();
    },
    /**
     * `isEdited`: the program differs from the example's; `isReplaced`: it keeps none of its
     * statements (the section hides: the text would explain code that is not there).
     */
    setEdited(isEdited, isReplaced = false) {
      if (isEdited && !edited) opened = false;
      edited = isEdited;
      replaced = isEdited && isReplaced;
      apply();
    },
  };
}
