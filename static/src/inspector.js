// The inspector: everything about the selected node at the moment shown (value, .grad, autograd links, .grad history, plot) and its edits.

import { h, clear, setText } from "./dom.js";
import {
  reprValue,
  shortValue,
  flatValues,
  num,
  ElementFormatter,
  scalarSummary,
  shapeText,
  pyLiteral,
} from "./format.js";
import { gradHistory, tensorExists, nodeExists } from "./timeline-state.js";
import { shortNodeName, tensorTitle } from "./graph-model.js";
import { createGradPlot } from "./plot.js";
import { chainRuleAt } from "./chain-rule.js";

/** Where in the program something happened; never "line null" (a tensor made inside a call has no line of its own). */
function lineText(line) {
  return line == null ? "inside a call" : `line ${line}`;
}

/** torch's repr of grad_fn.next_functions: ((<AccumulateGrad>, 0), (None, 0)). */
export function nextFunctionsText(timelineIndex, node) {
  const items = (node?.next || []).map(([id, nr]) => {
    const n = id ? timelineIndex.nodes.get(id) : null;
    return `(${n ? `<${shortNodeName(n.name)}>` : "None"}, ${nr})`;
  });
  return `(${items.join(", ")}${items.length === 1 ? "," : ""})`;
}

function heatColor(v, maxAbs) {
  if (!Number.isFinite(v)) return "#fde293";
  const t = maxAbs ? Math.max(-1, Math.min(1, v / maxAbs)) : 0;
  // blue for negative, red for positive, white at zero
  const a = Math.abs(t);
  const [r, g, b] = t >= 0 ? [217, 48, 37] : [26, 115, 232];
  const mix = (c) => Math.round(255 + (c - 255) * a * 0.75);
  return `rgb(${mix(r)},${mix(g)},${mix(b)})`;
}

/** A 2-D value as a table with each cell coloured by its sign and size. */
function heatmap(value, testid) {
  const rows = value.data.map((row) => row.map(num));
  const flat = rows.flat();
  const fmt = new ElementFormatter(flat, value.dtype);
  const maxAbs = Math.max(0, ...flat.filter(Number.isFinite).map(Math.abs));
  return h(
    "table",
    { class: "gp-heat", "data-testid": testid },
    h(
      "tbody",
      null,
      rows.map((row) =>
        h(
          "tr",
          null,
          row.map((v) => h("td", { style: { background: heatColor(v, maxAbs) }, title: String(v) }, fmt.bare(v))),
        ),
      ),
    ),
  );
}

function valueBlock(value, testid, reprOpts) {
  if (value == null) return h("pre", { class: "gp-pre", "data-testid": testid }, "None");
  if (!value.summary && value.shape.length === 2 && value.shape[0] * value.shape[1] > 0) {
    return h(
      "div",
      { class: "gp-heat-wrap" },
      heatmap(value, testid),
      h("pre", { class: "gp-pre small" }, reprValue(value, reprOpts)),
    );
  }
  return h("pre", { class: "gp-pre", "data-testid": testid }, reprValue(value, reprOpts));
}

function prop(k, v, testid) {
  return [h("dt", null, k), h("dd", { "data-testid": testid }, v)];
}

const pyBool = (b) => (b ? "True" : "False");

/**
 * `onEdit(intent)` receives zero_grad, grad_none, rename, set_value, set_requires_grad, delete.
 * show(ctx) draws the selection at a moment; ctx = {timelineIndex, state, gnode, view, chainRules} or null (chainRules: hello's table).
 */
export function createInspector(el, { onEdit, plotOptions = {} }) {
  const empty = h(
    "div",
    { class: "gp-empty" },
    "Click a node to inspect its value, its gradient and how its .grad changed.",
  );
  const head = h("div", { class: "gp-insp-head" });
  const body = h("div", { class: "gp-insp-body" });
  const historyBox = h("div", { class: "gp-insp-history" });
  const plotBox = h("div", { class: "gp-insp-plot" });
  const editsBox = h("div", { class: "gp-insp-edits" });
  const root = h(
    "section",
    { class: "gp-inspector", "data-testid": "inspector", "aria-label": "inspector" },
    empty,
    head,
    body,
    historyBox,
    plotBox,
    editsBox,
  );
  el.append(root);
  let plot = null;
  let current = { key: null };

  // The edit controls are made once and updated for each tensor shown: rebuilding them after
  // an edit removed the button just clicked, and a focused element's removal made the browser
  // restyle the whole page there and then (about 30 ms with a 100-node graph drawn).
  let edits = null;
  let editTarget = null; // the tensor the controls act on

  function makeEdits() {
    const button = (testid, onclick, cls = "gp-btn") =>
      h("button", { type: "button", class: cls, "data-testid": testid, onclick });
    const input = (testid, label, size) =>
      h("input", {
        type: "text",
        class: "gp-input mono",
        "data-testid": testid,
        size,
        "aria-label": label,
        spellcheck: "false",
        autocomplete: "off",
      });
    const target = () => editTarget?.name;
    const e = {
      unnamed: h(
        "p",
        { class: "gp-muted small", "data-testid": "unnamed-note" },
        "This tensor has no name in the program. Assign it to a variable to edit it here.",
      ),
      zero: button("zero-grad", () => onEdit({ op: "zero_grad", target: target() })),
      none: button("grad-none", () => onEdit({ op: "grad_none", target: target() })),
      renameInput: input("rename-input", "new name", 8),
      rename: button("rename", () => {
        const name = e.renameInput.value.trim();
        if (name) onEdit({ op: "rename", target: target(), new_name: name });
      }),
      valueInput: input("set-value-input", "new value"),
      setValue: button("set-value", () => {
        const value = e.valueInput.value.trim();
        if (value) onEdit({ op: "set_value", target: target(), value });
      }),
      rg: button("set-requires-grad", () =>
        onEdit({ op: "set_requires_grad", target: target(), value: !editTarget.requires_grad }),
      ),
      del: button("delete", () => onEdit({ op: "delete", target: target() }), "gp-btn danger"),
    };
    e.rename.textContent = "Rename";
    e.setValue.textContent = "Set value";
    e.del.textContent = "Delete";
    e.valueRow = h("div", { class: "gp-row" }, e.valueInput, e.setValue);
    e.named = h(
      "div",
      null,
      h("h4", null, "Edit the program"),
      h("div", { class: "gp-row wrap" }, e.zero, e.none),
      h("div", { class: "gp-row" }, e.renameInput, e.rename),
      e.valueRow,
      h("div", { class: "gp-row wrap" }, e.rg, e.del),
    );
    editsBox.append(e.unnamed, e.named);
    return e;
  }

  /** The edit controls for tensor entry `t` (null: none): edits name what they change. */
  function showEdits(t) {
    editTarget = t;
    if (!t) {
      if (edits) edits.unnamed.hidden = edits.named.hidden = true;
      return;
    }
    edits ??= makeEdits();
    edits.unnamed.hidden = Boolean(t.name);
    edits.named.hidden = !t.name;
    if (!t.name) return; // a tensor with no name in the program has nothing to point at
    setText(edits.zero, `${t.name}.grad.zero_()`);
    setText(edits.none, `${t.name}.grad = None`);
    edits.renameInput.value = t.name;
    edits.valueRow.hidden = !t.is_leaf;
    edits.valueInput.value = pyLiteral(t.value);
    edits.rg.hidden = !t.is_leaf;
    setText(edits.rg, t.requires_grad ? "requires_grad = False" : "requires_grad = True");
  }

  function show(ctx) {
    const gnode = ctx?.gnode;
    if (!gnode) {
      empty.hidden = false;
      for (const b of [head, body, historyBox, plotBox]) clear(b);
      showEdits(null);
      plot?.destroy();
      plot = null;
      current = { key: null };
      return;
    }
    empty.hidden = true;
    const { timelineIndex, state } = ctx;
    const entry = gnode.tensor ? timelineIndex.tensors.get(gnode.tensor) : null;
    const rec = gnode.tensor ? state.t.get(gnode.tensor) : null;
    const anode = gnode.node
      ? timelineIndex.nodes.get(gnode.node)
      : rec?.node
        ? timelineIndex.nodes.get(rec.node)
        : null;
    const key = `${timelineIndex.timeline.program}|${gnode.id}`;
    const fresh = key !== current.key;
    if (fresh) {
      showEdits(entry && { ...entry });
      current = { key };
    }

    // header
    clear(head);
    const kind =
      gnode.kind === "tensor"
        ? rec?.is_leaf
          ? rec.requires_grad
            ? "leaf, requires grad"
            : "constant"
          : "non-leaf"
        : gnode.kind === "acc"
          ? "AccumulateGrad node"
          : "grad_fn node";
    const exists =
      gnode.kind === "tensor"
        ? tensorExists(timelineIndex, gnode.tensor, state.pos)
        : nodeExists(timelineIndex, gnode.node, state.pos);
    head.append(
      h(
        "h3",
        { "data-testid": "inspector-title" },
        gnode.kind === "tensor" ? tensorTitle(entry) || "(unnamed tensor)" : shortNodeName(anode?.name),
      ),
      h(
        "div",
        { class: "gp-chips" },
        h("span", { class: `gp-chip k-${gnode.kind}` }, kind),
        exists ? null : h("span", { class: "gp-chip ghost" }, "not created yet at this moment"),
      ),
    );

    clear(body);
    // the chain rule at this node, from the engine's text for its grad_fn, with this moment's numbers
    const rule = chainRuleAt(timelineIndex, state, gnode, ctx.chainRules);
    if (rule) {
      body.append(
        h(
          "div",
          { class: "gp-chain", "data-testid": "chain-rule" },
          h("b", null, `${rule.name}: `),
          rule.text,
          rule.gradIn != null || rule.gradsOut.length
            ? h(
                "div",
                { class: "gp-chain-numbers" },
                rule.gradIn != null ? `grad in ${rule.gradIn}` : "no gradient yet",
                ...rule.gradsOut.map((out) => ` → to ${out.to}: ${out.value}`),
              )
            : null,
        ),
      );
    }
    if (gnode.kind !== "tensor" && anode) {
      body.append(
        h(
          "dl",
          { class: "gp-props" },
          prop("name", anode.name, "inspector-node-name"),
          prop("next_functions", nextFunctionsText(timelineIndex, anode), "inspector-next-functions"),
          anode.variable
            ? prop("variable", entry?.name || "(unnamed)")
            : prop("output", entry?.name || (gnode.tensor ? "(unnamed)" : "(not visible)")),
          prop("recorded at", lineText(anode.line)),
          state.incoming.has(anode.id)
            ? prop("grad in", shortValue(state.incoming.get(anode.id), 40), "inspector-incoming")
            : null,
        ),
      );
    }
    if (entry && rec) {
      const gfn = rec.node ? timelineIndex.nodes.get(rec.node) : null;
      body.append(
        h(
          "dl",
          { class: "gp-props" },
          gnode.kind !== "tensor" ? prop("tensor", entry.name || "(unnamed)") : null,
          prop("dtype", `torch.${entry.dtype}`, "inspector-dtype"),
          prop("shape", `torch.Size(${shapeText(rec.value?.shape ?? entry.shape)})`, "inspector-shape"),
          prop("requires_grad", pyBool(rec.requires_grad), "inspector-requires-grad"),
          prop("is_leaf", pyBool(rec.is_leaf), "inspector-is-leaf"),
          prop("retains_grad", pyBool(rec.retains_grad), "inspector-retains-grad"),
          prop("_version", String(rec.version ?? 0), "inspector-version"),
          prop("grad_fn", rec.grad_fn ? `<${shortNodeName(rec.grad_fn)}>` : "None", "inspector-grad-fn"),
          gfn && gnode.kind === "tensor"
            ? prop("grad_fn.next_functions", nextFunctionsText(timelineIndex, gfn), "inspector-next-functions")
            : null,
          // a leaf has no grad_fn; the node that adds into its .grad is its AccumulateGrad
          timelineIndex.accOfTensor.get(entry.id)
            ? prop(".grad written by", "<AccumulateGrad>", "inspector-accumulator")
            : null,
          prop(
            gnode.kind === "tensor" ? "made at" : "tensor made at",
            `${lineText(entry.line)}${entry.names?.length > 1 ? ` · names: ${entry.names.join(", ")}` : ""}`,
          ),
        ),
        h("h4", null, "value"),
        valueBlock(rec.value, "inspector-value", {
          requiresGrad: rec.requires_grad,
          gradFn: rec.grad_fn ? shortNodeName(rec.grad_fn) : null,
        }),
        h("h4", null, ".grad"),
        valueBlock(rec.grad, "inspector-grad"),
      );
      const incoming =
        (timelineIndex.accOfTensor.get(gnode.tensor) &&
          state.incoming.get(timelineIndex.accOfTensor.get(gnode.tensor))) ||
        (rec.node && state.incoming.get(rec.node));
      if (incoming && gnode.kind === "tensor") {
        body.append(
          h("h4", null, "gradient that arrived in the last backward"),
          valueBlock(incoming, "inspector-incoming"),
        );
      }
    }

    // the .grad history: before + delta = after, for each change, up to now and after
    clear(historyBox);
    const hist = entry ? gradHistory(timelineIndex, entry.id) : [];
    if (hist.length) {
      const list = h("ol", { class: "gp-history", "data-testid": "grad-history" });
      for (const e of hist) {
        const past = e.pos <= state.pos;
        const line = timelineIndex.steps[e.step]?.line;
        let text;
        if (e.kind === "accumulate")
          text = `${shortValue(e.before, 22)} + ${shortValue(e.delta, 22)} = ${shortValue(e.after, 22)}`;
        else if (e.kind === "grad_assigned") text = `.grad = ${shortValue(e.after, 30)}`;
        else text = `.grad.${e.op || "in-place"}() → ${shortValue(e.after, 26)}`;
        list.append(
          h(
            "li",
            { class: past ? "past" : "future", "data-pos": e.pos },
            h("span", { class: "gp-hline" }, lineText(line)),
            h("code", null, text),
          ),
        );
      }
      historyBox.append(h("h4", null, ".grad over the run"), list);
      const multi = hist.some((e) => e.after && flatValues(e.after).length > 1);
      const pts = hist.map((e, i) => {
        const sv = scalarSummary(e.after);
        return { x: i + 1, y: e.after == null ? null : multi ? sv.norm : sv.first, past: e.pos <= state.pos };
      });
      if (!plot) {
        clear(plotBox);
        plot = createGradPlot(plotBox, plotOptions);
      }
      plot.update(pts, `${entry.name || "t"}.grad${multi ? " (L2 norm)" : "[0]"} after each change`);
    } else {
      plot?.destroy();
      plot = null;
      clear(plotBox);
      if (entry && rec?.requires_grad) {
        historyBox.append(
          h(
            "p",
            { class: "gp-muted small" },
            rec.is_leaf || rec.retains_grad
              ? ".grad has not changed in this run."
              : "A non-leaf's .grad stays None unless you call retain_grad() on it.",
          ),
        );
      }
    }
  }

  return {
    show,
    destroy() {
      plot?.destroy();
      root.remove();
    },
  };
}
