// A plain one-line explanation and fix for the common autograd errors, under torch's own message (pure).
//
// Matched on the start of torch's message, which the engine reproduces word for word; `example`
// is the gallery example that shows the error (null when none does).

const HELP = [
  {
    match: /^Trying to backward through the graph a second time/,
    text:
      "The first backward() freed the values this graph saved. Pass retain_graph=True to the first " +
      "backward() to go through the graph again, or run the forward pass again.",
    example: null,
  },
  {
    match: /^grad can be implicitly created only for scalar outputs/,
    text:
      "backward() with no argument needs a single number. Reduce first (y.sum().backward()) or pass " +
      "a gradient shaped like y (y.backward(torch.ones_like(y))).",
    example: "tutorial-non-scalar-backward",
  },
  {
    match: /^a leaf Variable that requires grad is being used in an in-place operation/,
    text:
      "A leaf that requires grad cannot be changed in place while autograd records. Change it inside " +
      "`with torch.no_grad():` (as optimizers do), or make a new tensor (x = x + 1).",
    example: "tutorial-leaf-inplace-error",
  },
  {
    match: /^one of the variables needed for gradient computation has been modified by an inplace operation/,
    text:
      "backward() needs a value that was changed in place after the forward pass saved it. Use the " +
      "out-of-place op (y = y + 1), or clone() the tensor before changing it.",
    example: "inplace-modified-error",
  },
  {
    match: /does not require grad and does not have a grad_fn/,
    text:
      "Nothing this result was computed from requires grad (or it was computed under torch.no_grad()), " +
      "so there is no graph to go back through. Create the leaf with requires_grad=True.",
    example: "tutorial-requires-grad-false",
  },
  {
    match: /^The size of tensor a \(\d+\) must match the size of tensor b|^mat1 and mat2 shapes cannot be multiplied/,
    text:
      "The two tensors' shapes do not fit together. Check each one's .shape: broadcasting only " +
      "stretches dimensions of size 1.",
    example: "broadcast-sum-to-shape",
  },
];

/** The explanation of a program error, {text, example}, or null when it is not a common one. */
export function errorHelp(err) {
  const message = err?.message || "";
  const found = HELP.find((h) => h.match.test(message));
  return found ? { text: found.text, example: found.example } : null;
}
