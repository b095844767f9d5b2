// Building a graph by clicking: the "Add leaf" form and the op palette (from the host's hello reply).

import { h, clear } from "./dom.js";

const GROUP_ORDER = ["arithmetic", "unary", "reduction", "linear algebra", "shape", "select", "graph", "in-place"];

/**
 * `onEdit(intent)` receives add_leaf / add_op intents. update({inputs}) tells the palette which
 * named nodes are selected (in click order), enabling the ops whose arity fits.
 */
export function createBuildPanel(el, { onEdit }) {
  let palette = [];
  let inputs = [];
  const paramInputs = new Map();

  // -- add a leaf ---------------------------------------------------------------------------
  const name = h("input", {
    type: "text",
    class: "gp-input",
    "data-testid": "leaf-name",
    placeholder: "auto",
    "aria-label": "leaf name",
    size: 6,
    spellcheck: "false",
    autocomplete: "off",
  });
  const value = h("input", {
    type: "text",
    class: "gp-input mono",
    "data-testid": "leaf-value",
    value: "[2.0, 3.0]",
    "aria-label": "leaf value",
    spellcheck: "false",
    autocomplete: "off",
  });
  const rg = h("input", { type: "checkbox", "data-testid": "leaf-requires-grad", checked: true });
  const submit = h("button", { type: "submit", class: "gp-btn", "data-testid": "leaf-submit" }, "Add leaf");
  const form = h(
    "form",
    { class: "gp-leaf-form", "data-testid": "add-leaf", "aria-label": "add a leaf tensor" },
    h(
      "div",
      { class: "gp-row" },
      h("label", { class: "gp-field grow" }, h("span", null, "value"), value),
      h("label", { class: "gp-field" }, h("span", null, "name"), name),
    ),
    h("div", { class: "gp-row" }, h("label", { class: "gp-check" }, rg, "requires_grad"), submit),
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const intent = { op: "add_leaf", value: value.value.trim(), requires_grad: rg.checked };
    if (name.value.trim()) intent.name = name.value.trim();
    onEdit(intent);
    name.value = "";
  });

  // -- palette ------------------------------------------------------------------------------
  const hint = h("div", { class: "gp-hint", "data-testid": "palette-inputs" }, "Select a node to apply an op to it.");
  const groupsBox = h("div", { class: "gp-palette-groups" });
  const paramsBox = h("details", { class: "gp-params", "data-testid": "op-params" });
  const paletteEl = h(
    "section",
    { class: "gp-palette", "data-testid": "palette", "aria-label": "operations" },
    hint,
    groupsBox,
    paramsBox,
  );

  el.append(
    h("section", { class: "gp-card-section" }, h("h3", null, "Add a leaf"), form),
    h("section", { class: "gp-card-section" }, h("h3", null, "Apply an op"), paletteEl),
  );

  function paramValue(k, def) {
    const input = paramInputs.get(k);
    const raw = input ? input.value.trim() : String(def);
    if (typeof def === "number") {
      const n = Number(raw);
      return raw !== "" && Number.isFinite(n) ? n : def;
    }
    return raw || def;
  }

  function apply(op) {
    const names = inputs.slice(0, op.arity);
    if (names.length < op.arity) return;
    const intent = { op: "add_op", op_name: op.name, inputs: names };
    const keys = Object.keys(op.params || {});
    if (keys.length) intent.params = Object.fromEntries(keys.map((k) => [k, paramValue(k, op.params[k])]));
    onEdit(intent);
  }

  function setPalette(entries) {
    palette = entries || [];
    clear(groupsBox);
    const groups = new Map();
    for (const op of palette) {
      if (!groups.has(op.group)) groups.set(op.group, []);
      groups.get(op.group).push(op);
    }
    const order = [...groups.keys()].sort(
      (a, b) => ((GROUP_ORDER.indexOf(a) + 99) % 99) - ((GROUP_ORDER.indexOf(b) + 99) % 99),
    );
    for (const g of order) {
      const buttons = groups.get(g).map((op) =>
        h(
          "button",
          {
            type: "button",
            class: "gp-op",
            "data-testid": `op-${op.name}`,
            "data-arity": op.arity,
            title: op.code.replace(/\{(\d)\}/g, (_, i) => "abc"[i]).replace(/\{(\w+)\}/g, "$1"),
            "aria-label": `${op.label}: add ${op.code}`,
            onclick: () => apply(op),
          },
          op.label,
        ),
      );
      groupsBox.append(
        h(
          "div",
          { class: "gp-group" },
          h("div", { class: "gp-group-name" }, g),
          h("div", { class: "gp-group-ops" }, buttons),
        ),
      );
    }
    // one field per distinct parameter (exponent, dim, min, max, shape), shared by the ops
    clear(paramsBox);
    paramInputs.clear();
    paramsBox.append(h("summary", null, "Op parameters"));
    const seen = new Map();
    for (const op of palette) for (const [k, v] of Object.entries(op.params || {})) if (!seen.has(k)) seen.set(k, v);
    const row = h("div", { class: "gp-param-row" });
    for (const [k, v] of seen) {
      const input = h("input", {
        type: "text",
        class: "gp-input mono",
        value: String(v),
        "data-testid": `param-${k}`,
        "aria-label": `parameter ${k}`,
        size: 4,
        spellcheck: "false",
      });
      paramInputs.set(k, input);
      row.append(h("label", { class: "gp-field" }, h("span", null, k), input));
    }
    paramsBox.append(row);
    update({ inputs });
  }

  function update(next) {
    inputs = next.inputs || [];
    for (const b of groupsBox.querySelectorAll("button.gp-op")) {
      const arity = Number(b.dataset.arity);
      b.disabled = inputs.length < arity;
    }
    if (!inputs.length)
      hint.textContent = "Click a node to apply an op to it; shift-click a second node for two-input ops.";
    else if (inputs.length === 1) hint.textContent = `Input: ${inputs[0]}  (shift-click a second node for a, b ops)`;
    else hint.textContent = `Inputs: a = ${inputs[0]}, b = ${inputs[1]}`;
  }

  return { setPalette, update };
}
