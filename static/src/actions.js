// The toolbar above the graph: what is selected, and the edits that act on it (backward, retain_grad, detach, in-place, no_grad).

import { h } from "./dom.js";
import { INPLACE_METHODS } from "./python-tables.js";

/**
 * `onEdit(intent)` receives the intents. update(target) sets what they act on:
 * {name, label, isDefault, scalar, numel, shape, line, endLine} or null.
 */
export function createActions(el, { onEdit }) {
  let target = null;

  const who = h("span", { class: "gp-target", "data-testid": "selected-name" }, "nothing selected");
  const retain = h("input", { type: "checkbox", "data-testid": "retain-graph" });
  const gradient = h("input", {
    type: "text",
    class: "gp-input mono",
    "data-testid": "backward-gradient",
    placeholder: "gradient, e.g. [1.0, 1.0]",
    "aria-label": "gradient for backward() on a non-scalar tensor",
    spellcheck: "false",
    autocomplete: "off",
    size: 14,
  });
  const gradBox = h("label", { class: "gp-field inline", hidden: true }, h("span", null, "gradient"), gradient);
  const backward = h(
    "button",
    { type: "button", class: "gp-btn primary", "data-testid": "backward", onclick: () => doBackward() },
    "Backward",
  );
  const retainGrad = h(
    "button",
    { type: "button", class: "gp-btn", "data-testid": "retain-grad", onclick: () => simple("retain_grad") },
    "retain_grad()",
  );
  const detach = h(
    "button",
    { type: "button", class: "gp-btn", "data-testid": "detach", onclick: () => simple("detach") },
    "detach()",
  );
  const method = h(
    "select",
    { class: "gp-select mono", "data-testid": "inplace-method", "aria-label": "in-place method" },
    INPLACE_METHODS.map((m) => h("option", { value: m.method }, m.method)),
  );
  const args = h("input", {
    type: "text",
    class: "gp-input mono",
    "data-testid": "inplace-args",
    value: INPLACE_METHODS[0].args,
    size: 7,
    "aria-label": "in-place arguments",
    spellcheck: "false",
    autocomplete: "off",
  });
  const inplace = h(
    "button",
    { type: "button", class: "gp-btn", "data-testid": "inplace", onclick: () => doInplace() },
    "In-place",
  );
  const noGrad = h(
    "button",
    { type: "button", class: "gp-btn", "data-testid": "no-grad", onclick: () => doNoGrad() },
    "Wrap in no_grad",
  );
  method.addEventListener("change", () => {
    args.value = INPLACE_METHODS.find((m) => m.method === method.value)?.args ?? "";
  });

  el.append(
    h("div", { class: "gp-actions-group" }, h("span", { class: "gp-muted" }, "Target"), who),
    h(
      "div",
      { class: "gp-actions-group" },
      backward,
      h("label", { class: "gp-check" }, retain, "retain_graph"),
      gradBox,
    ),
    h("div", { class: "gp-actions-group" }, retainGrad, detach),
    h("div", { class: "gp-actions-group" }, method, args, inplace),
    h("div", { class: "gp-actions-group" }, noGrad),
  );

  function simple(op) {
    if (target?.name) onEdit({ op, target: target.name });
  }

  function doBackward() {
    if (!target?.name) return;
    const intent = { op: "backward", target: target.name };
    if (retain.checked) intent.retain_graph = true;
    if (!target.scalar) {
      const g = gradient.value.trim();
      if (!g) {
        gradient.focus();
        gradBox.classList.add("want");
        return;
      }
      intent.gradient = g;
    }
    onEdit(intent);
  }

  function doInplace() {
    if (!target?.name) return;
    const intent = { op: "inplace", target: target.name, method: method.value };
    if (args.value.trim()) intent.args = args.value.trim();
    onEdit(intent);
  }

  function doNoGrad() {
    if (!target?.line) return;
    onEdit({ op: "no_grad", start_line: target.line, end_line: target.endLine ?? target.line });
  }

  function update(next) {
    const prevName = target?.name;
    target = next;
    const named = Boolean(next?.name);
    who.textContent = next ? next.label + (next.isDefault ? " (default)" : "") : "nothing selected";
    who.classList.toggle("unnamed", Boolean(next) && !named);
    for (const b of [backward, retainGrad, detach, inplace]) {
      b.disabled = !named;
      b.title = named ? "" : next ? "this tensor has no name to refer to" : "select a node first";
    }
    noGrad.disabled = !next?.line;
    backward.setAttribute("aria-label", named ? `Backward from ${next.name}` : "Backward");
    const showGrad = Boolean(next) && !next.scalar;
    gradBox.hidden = !showGrad;
    if (showGrad && (next.name !== prevName || !gradient.value)) {
      // a gradient of ones, the usual choice, written out for small tensors
      gradient.value = next.numel && next.numel <= 16 ? onesLiteral(next.shape) : "";
    }
    gradBox.classList.remove("want");
  }

  return {
    update,
    get retainGraph() {
      return retain.checked;
    },
  };
}

export function onesLiteral(shape) {
  if (!shape || !shape.length) return "1.0";
  const [d, ...rest] = shape;
  return "[" + Array.from({ length: d }, () => onesLiteral(rest)).join(", ") + "]";
}
