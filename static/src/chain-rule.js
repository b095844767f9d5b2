// The chain rule at a node, for the inspector: its grad_fn's text from the engine and the numbers at the moment shown (pure).

import { edgeKey } from "./timeline-state.js";
import { shortNodeName } from "./graph-model.js";
import { shortValue } from "./format.js";

/** The autograd node a drawn node stands for: itself, a tensor's grad_fn, or a leaf's AccumulateGrad. */
function autogradNodeOf(timelineIndex, state, gnode) {
  if (gnode.node) return gnode.node;
  const record = gnode.tensor ? state.t.get(gnode.tensor) : null;
  return record?.node || (gnode.tensor ? timelineIndex.accOfTensor.get(gnode.tensor) : null) || null;
}

function inputName(timelineIndex, nodeId) {
  const node = nodeId ? timelineIndex.nodes.get(nodeId) : null;
  if (!node) return "None";
  const tensor = timelineIndex.tensors.get(node.variable || node.tensor);
  return tensor?.name || `<${shortNodeName(node.name)}>`;
}

/**
 * What the inspector says about the chain rule at `gnode`: `{name, text, gradIn, gradsOut}` with
 * the engine's text for its grad_fn (`rules`, hello's chain_rules) with {grad} filled in by the
 * gradient that reached it by now; null when the node has no grad_fn or the table lacks it.
 */
export function chainRuleAt(timelineIndex, state, gnode, rules) {
  const id = autogradNodeOf(timelineIndex, state, gnode);
  const node = id ? timelineIndex.nodes.get(id) : null;
  // a program's own autograd.Function carries its rule on the node (the engine's table lacks it)
  const template = node ? node.rule || (rules ? rules[node.name] : null) : null;
  if (!template) return null;
  const incoming = state.incoming.get(id);
  const gradIn = incoming === undefined ? null : shortValue(incoming, 40);
  const gradsOut = [];
  (node.next || []).forEach(([to], i) => {
    const sent = state.edgeGrad.get(edgeKey(id, i));
    if (sent !== undefined) gradsOut.push({ to: inputName(timelineIndex, to), value: shortValue(sent, 40) });
  });
  return {
    name: shortNodeName(node.name),
    text: template.replaceAll("{grad}", gradIn ?? "grad"),
    gradIn,
    gradsOut,
  };
}
