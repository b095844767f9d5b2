"""Python reads of a tensor's data that torch.func.vmap refuses (.item(), float(t), bool(t), an
`if t:`): torch's vmap has no per-sample value to give Python there. func.vmap installs a check
for the duration of its call; Tensor.item and Tensor.__bool__ ask it (one attribute read when
no vmap runs)."""

from __future__ import annotations

import threading

ITEM_ERROR = ("vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over "
              "calling .item() on a Tensor, please try to rewrite what you're doing with other "
              "operations. If error is occurring somewhere inside PyTorch internals, please file "
              "a bug report.")
CONTROL_FLOW_ERROR = ("vmap: It looks like you're attempting to use a Tensor in some "
                      "data-dependent control flow. We don't support that yet, please file an "
                      "issue at https://github.com/pytorch/pytorch/issues .")

UNDER_GRAD_ERROR = (
    "vmap: It looks like you're either (1) calling .item() on a Tensor or (2) attempting to use "
    "a Tensor in some data-dependent control flow or (3) encountering this error in PyTorch "
    "internals. For (1): we don't support vmap over calling .item() on a Tensor, please try to "
    "rewrite what you're doing with other operations. For (2): we don't support data-dependent "
    "control flow in vmap yet, please file an issue at https://github.com/pytorch/pytorch/issues "
    ". For (3): please file an issue.")


class _State(threading.local):
    check = None  # check(tensor, message): raises RuntimeError(message) for a batched tensor


state = _State()


class _Derive(threading.local):
    derive = None  # derive(out, inputs): marks out batched when one of the inputs is


derivation = _Derive()


def derived(out, *inputs):
    """out, computed from inputs by an operation that reports nothing to observers (a
    comparison, any/all): under vmap it holds a sample when one of the inputs does."""
    if derivation.derive is not None:
        derivation.derive(out, inputs)
    return out
