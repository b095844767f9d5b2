"""torch.autograd.backward and torch.autograd.grad: argument checking, then the engine."""

from __future__ import annotations

from collections.abc import Mapping

from .. import backend as B
from .. import errors
from ..tensor import Tensor, warn
from .engine import run_backward


def _as_list(x):
    if x is None:
        return None
    if isinstance(x, Tensor):
        return [x]
    return list(x)


def _inputs_list(inputs, fn: str):
    """torch's reading of `inputs`: a tensor, a dict (its values) or any other iterable."""
    if isinstance(inputs, Tensor):
        return [inputs]
    if type(inputs) is dict:
        return list(inputs.values())
    if isinstance(inputs, Mapping):
        raise TypeError(f"`inputs` argument to `{fn}()` must be a dict, not "
                        f"{type(inputs).__name__}. Other Mapping types are not supported.")
    return list(inputs)


def _check_tensors(inputs) -> None:
    for t in inputs:
        if not isinstance(t, Tensor):
            raise RuntimeError("all inputs have to be Tensors or GradientEdges, but got "
                               f"{type(t).__name__}")


def _grads_for(outputs, grads):
    """grad_tensors / grad_outputs as torch reads them: None for each output, a tensor for
    one, else one per output (extra ones are ignored, as torch's zip does; too few raise)."""
    if grads is None:
        return [None] * len(outputs)
    grads = [grads] if isinstance(grads, Tensor) else list(grads)
    if len(grads) < len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")
    return grads[:len(outputs)]


def _make_grads(outputs, grads, is_grads_batched=False):
    out = []
    for i, (o, g) in enumerate(zip(outputs, grads)):
        if g is None:
            if o._requires_grad:
                if B.numel(o._data) != 1:
                    raise RuntimeError(errors.IMPLICIT_GRAD_SCALAR)
                g = Tensor._make(B.ones(B.shape(o._data), o._dtype.name), o._dtype)
            out.append(g)
            continue
        if not isinstance(g, Tensor):
            g = Tensor._make(B.scalar(g, o._dtype.name), o._dtype)
        if B.shape(g._data) != B.shape(o._data):
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape!r} and output[{i}] "
                f"has a shape of {o.shape!r}."
            )
        out.append(g)
    return out


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None):
    roots = _as_list(tensors)
    if inputs is not None:
        inputs = _inputs_list(inputs, "backward")
        if len(inputs) == 0:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        _check_tensors(inputs)
    grads = _grads_for(roots, grad_tensors)
    if retain_graph is None:
        retain_graph = create_graph
    for i, r in enumerate(roots):
        if r._grad_fn is None and not r._requires_grad:
            raise RuntimeError(errors.no_grad_fn(i))
    grads = _make_grads(roots, grads)
    if inputs is not None:
        for t in inputs:  # as torch: .grad is kept for non-leaf inputs too (raises if no grad)
            t.retain_grad()
    if create_graph:
        _warn_create_graph_once()
    from ..func import BACKWARD_INSIDE, inside_transform

    if inside_transform():  # torch.func's transforms differentiate with grad and vjp
        raise RuntimeError(BACKWARD_INSIDE)
    run_backward(roots, grads, retain_graph=retain_graph, create_graph=create_graph,
                 inputs=inputs, accumulate=True, api="backward")


def _warn_create_graph_once() -> None:
    """torch warns about the .grad reference cycle once per process (TORCH_WARN_ONCE): once
    per EngineState here, so each session sees it as a fresh process would."""
    from .. import state

    if state.current().first_warning("create_graph_cycle"):
        warn(errors.CREATE_GRAPH_CYCLE_WARNING, UserWarning, stacklevel=4)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    outs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    ins = _inputs_list(inputs, "grad")
    if len(ins) == 0:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    _check_tensors(ins)
    for t in ins:
        if not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    grads = _grads_for(outs, grad_outputs)
    if retain_graph is None:
        retain_graph = create_graph
    for i, o in enumerate(outs):
        if o._grad_fn is None and not o._requires_grad:
            raise RuntimeError(errors.no_grad_fn(i))
    grads = _make_grads(outs, grads)
    result = run_backward(outs, grads, retain_graph=retain_graph, create_graph=create_graph,
                          inputs=ins, accumulate=False, api="grad")
    for i, g in enumerate(result):
        if g is None:
            if materialize_grads:
                t = ins[i]
                result[i] = Tensor._make(B.zeros(B.shape(t._data), t._dtype.name), t._dtype)
            elif not allow_unused:
                raise RuntimeError(errors.unused_input(i))
    if type(inputs) is dict:  # torch hands the gradients back under the same keys
        return dict(zip(inputs.keys(), result))
    return tuple(result)
