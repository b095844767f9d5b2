"""torch.autograd.functional: jacobian, hessian, vjp, jvp, vhp and hvp of a user function.

Each runs the function on fresh copies of the inputs and differentiates it with
autograd.grad, as torch's reverse-mode implementation does, so values, the shapes of the
results, which results carry a graph (create_graph) and the errors (strict) are torch's:
- an input that requires grad is passed on as a view of itself when create_graph=True (the
  result stays connected to it), else as a detached copy that requires grad;
- gradients that do not reach an input become zeros, or an error under strict=True;
- without create_graph every result is detached.
jvp and hvp use the "double backward trick": the gradient of a vjp with respect to its vector.
vectorize=True and strategy="forward-mode" give the same numbers through the same loop.
"""

from __future__ import annotations

from .. import creation
from ..tensor import Tensor
from . import grad_mode
from .api import grad as _grad

# -- argument handling ----------------------------------------------------------------------


def _as_tuple(value, what: str, fn: str):
    """(was it a tuple, the tensors as a tuple), checking that each is a Tensor."""
    is_tuple = isinstance(value, tuple)
    items = value if is_tuple else (value,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            where = f"value at index {i}" if is_tuple else f"given {what}"
            raise TypeError(f"The {what} given to {fn} must be either a Tensor or a tuple of "
                            f"Tensors but the {where} has type {type(el)}.")
    return is_tuple, items


def _unpack(result, is_tuple):
    return result if is_tuple else result[0]


def _unpack2(result, outer_tuple, inner_tuple):
    if not inner_tuple:
        result = tuple(el[0] for el in result)
    return result if outer_tuple else result[0]


def _prepare(inputs, create_graph: bool, need_graph: bool):
    out = []
    for t in inputs:
        if create_graph and t.requires_grad:
            out.append(t.view(t.shape))
        else:
            out.append(t.detach().requires_grad_(need_graph))
    return tuple(out)


def _finish(values, create_graph: bool):
    if values and isinstance(values[0], Tensor):
        return values if create_graph else tuple(v.detach() for v in values)
    return tuple(_finish(v, create_graph) for v in values)


def _check_v(v, other, other_is_tuple):
    if len(v) != len(other):
        if other_is_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got "
                               f"{len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, other)):
        if a.size() != b.size():
            where = f"Entry {i} in " if other_is_tuple else ""
            raise RuntimeError(f"{where}v has invalid size: should be {b.size()} but got "
                               f"{a.size()}.")


_STRICT_NO_GRAD = {
    "outputs": ("Output {i} of the user-provided function does not require gradients. The "
                "outputs must be computed in a differentiable manner from the input when "
                "running in strict mode."),
    "grad_inputs": ("The gradient with respect to input {i} is independent of the inputs of "
                    "the user-provided function. This is not allowed in strict mode."),
    "jacobian": ("While computing the hessian, found that the jacobian of the user-provided "
                 "function with respect to input {i} is independent of the input. This is not "
                 "allowed in strict mode. You should ensure that your function is twice "
                 "differentiable and that the jacobian depends on the inputs (this would be "
                 "violated by a linear function for example)."),
    "hessian": ("The hessian of the user-provided function with respect to input {i} is "
                "independent of the input. This is not allowed in strict mode. You should "
                "ensure that your function is thrice differentiable and that the hessian "
                "depends on the inputs."),
}


def _check_requires_grad(tensors, kind: str, strict: bool) -> None:
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")
        if not t.requires_grad:
            raise RuntimeError(_STRICT_NO_GRAD[kind].format(i=i))


def _grad_of(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """autograd.grad over the outputs that require grad (allow_unused); all None if none does."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    keep = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not keep:
        return (None,) * len(inputs)
    return _grad([o for o, _ in keep], list(inputs), [g for _, g in keep],
                 retain_graph=retain_graph, create_graph=create_graph, allow_unused=True)


_MISSING = {
    "back": "The output of the user-provided function is independent of input {i}. This is not "
            "allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. "
                   "This is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry "
                         "{i} in the grad_jacobian. This is not allowed in strict mode as it "
                         "prevents from using the double backward trick to replace forward mode "
                         "AD.",
}


def _zeros_for_none(grads, refs, strict, create_graph, stage):
    out = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_MISSING[stage].format(i=i))
            g = creation.zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               "create_graph=True.")
        out.append(g)
    return tuple(out)


def _run(func, inputs, fn: str):
    outputs = func(*inputs)
    return _as_tuple(outputs, "outputs of the user-provided function", fn)


def _v_or_single(v, against, against_is_tuple, create_graph, fn, none_message):
    if v is not None:
        _, v = _as_tuple(v, "v", fn)
        v = _prepare(v, create_graph, False)
        _check_v(v, against, against_is_tuple)
        return v
    if len(against) != 1 or against[0].nelement() != 1:
        raise RuntimeError(none_message)
    return None


_V_NONE_INPUT = ("The vector v can only be None if the input to the user-provided function is a "
                 "single Tensor with a single element.")

# -- the functions --------------------------------------------------------------------------


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J): the vector-Jacobian product."""
    with grad_mode.enable_grad():
        in_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prepare(inputs, create_graph, True)
        out_tuple, outputs = _run(func, inputs, "vjp")
        _check_requires_grad(outputs, "outputs", strict)
        v = _v_or_single(v, outputs, out_tuple, create_graph, "vjp",
                         "The vector v can only be None if the user-provided function returns a "
                         "single Tensor with a single element.")
    with grad_mode.set_grad_enabled(create_graph or grad_mode.is_grad_enabled()):
        res = _grad_of(outputs, inputs, v, create_graph=create_graph)
        res = _zeros_for_none(res, inputs, strict, create_graph, "back")
    return (_unpack(_finish(outputs, create_graph), out_tuple),
            _unpack(_finish(res, create_graph), in_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v): the Jacobian-vector product, by the double backward trick."""
    with grad_mode.enable_grad():
        in_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _prepare(inputs, create_graph, True)
        v = _v_or_single(v, inputs, in_tuple, create_graph, "jvp",
                         "The vector v can only be None if the input to the user-provided "
                         "function is a single Tensor with a single element.")
        out_tuple, outputs = _run(func, inputs, "jvp")
        _check_requires_grad(outputs, "outputs", strict)
        # J^T u is linear in u: differentiating it with respect to u at u = 0 gives J v
        u = tuple(creation.zeros_like(o, requires_grad=True) for o in outputs)
        grad_inputs = _grad_of(outputs, inputs, u, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    with grad_mode.set_grad_enabled(create_graph or grad_mode.is_grad_enabled()):
        res = _grad_of(grad_inputs, u, v, create_graph=create_graph)
        res = _zeros_for_none(res, outputs, strict, create_graph, "back_trick")
    return (_unpack(_finish(outputs, create_graph), out_tuple),
            _unpack(_finish(res, create_graph), out_tuple))


_STRATEGIES = ("forward-mode", "reverse-mode")


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """d outputs / d inputs, one row per output element (shape output.shape + input.shape);
    a tuple per output and per input when func returns or takes tuples."""
    if strategy not in _STRATEGIES:
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                             'Hint: If your function has more outputs than inputs, '
                             '"forward-mode" tends to be more performant. Otherwise, prefer to '
                             'use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`create_graph=False` or `strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`strict=False` or `strategy="reverse-mode"`.')
        if not vectorize:
            raise NotImplementedError(
                "Computing Jacobian using forward-AD or forward-over-reverse Hessian "
                "isonly implemented for `vectorize=True`.")
    with grad_mode.enable_grad():
        in_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph, True)
        out_tuple, outputs = _run(func, inputs, "jacobian")
        _check_requires_grad(outputs, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are "
                "not supported together. Please either set `strict=False` or "
                "`vectorize=False`.")
        result = []
        for i, out in enumerate(outputs):
            rows = [[] for _ in inputs]
            flat = out.reshape(-1)
            for j in range(out.nelement()):
                row = _grad_of((flat[j],), inputs, retain_graph=True, create_graph=create_graph)
                for k, (g, inp) in enumerate(zip(row, inputs)):
                    if g is None:
                        if strict:
                            raise RuntimeError(
                                f"Output {i} of the user-provided function is independent of "
                                f"input {k}. This is not allowed in strict mode.")
                        g = creation.zeros_like(inp)
                    elif strict and create_graph and not g.requires_grad:
                        raise RuntimeError(
                            f"The jacobian of the user-provided function is independent of "
                            f"input {i}. This is not allowed in strict mode when "
                            "create_graph=True.")
                    rows[k].append(g)
            result.append(tuple(_stack_rows(r, out, inp) for r, inp in zip(rows, inputs)))
        return _unpack2(_finish(tuple(result), create_graph), out_tuple, in_tuple)


def _stack_rows(rows, out, inp):
    from ..ops.shape import stack

    shape = tuple(out.shape) + tuple(inp.shape)
    if not rows:  # an output with no elements
        return creation.zeros(shape, dtype=inp.dtype)
    return stack(rows, 0).view(shape)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The second derivatives of a function with one output element: the jacobian of its
    jacobian (a tuple of tuples for several inputs)."""
    in_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in _STRATEGIES:
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def single_output(*xs):
        out = func(*xs)
        out_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(outs, "outputs", strict)
        if out_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should "
                               "contain a single element")
        return out.squeeze()

    def jac(*xs):
        if outer_jacobian_strategy == "forward-mode":
            xs = tuple(t.requires_grad_(True) for t in xs)
        j = jacobian(single_output, xs, create_graph=True)
        _check_requires_grad(j, "jacobian", strict)
        return j

    res = jacobian(jac, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)
    return _unpack2(res, in_tuple, in_tuple)


def _scalar_function_checks(outputs, out_tuple, fn):
    if out_tuple or not isinstance(outputs[0], Tensor):
        raise RuntimeError(f"The function given to {fn} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn} should contain a "
                           "single element")


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H) for a function with one output element."""
    with grad_mode.enable_grad():
        in_tuple, inputs = _as_tuple(inputs, "inputs", "vhp")
        inputs = _prepare(inputs, create_graph, True)
        v = _v_or_single(v, inputs, in_tuple, create_graph, "vhp", _V_NONE_INPUT)
        out_tuple, outputs = _run(func, inputs, "vhp")
        _check_requires_grad(outputs, "outputs", strict)
        _scalar_function_checks(outputs, out_tuple, "vhp")
        jac = _grad_of(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
    with grad_mode.set_grad_enabled(create_graph or grad_mode.is_grad_enabled()):
        res = _grad_of(jac, inputs, v, create_graph=create_graph)
        res = _zeros_for_none(res, inputs, strict, create_graph, "double_back")
    return (_unpack(_finish(outputs, create_graph), out_tuple),
            _unpack(_finish(res, create_graph), in_tuple))


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v) for a function with one output element, by the double backward
    trick (equal to vhp's for a symmetric Hessian, as it is for twice smooth functions)."""
    with grad_mode.enable_grad():
        in_tuple, inputs = _as_tuple(inputs, "inputs", "hvp")
        inputs = _prepare(inputs, create_graph, True)
        v = _v_or_single(v, inputs, in_tuple, create_graph, "hvp", _V_NONE_INPUT)
        out_tuple, outputs = _run(func, inputs, "hvp")
        _check_requires_grad(outputs, "outputs", strict)
        _scalar_function_checks(outputs, out_tuple, "hvp")
        jac = _grad_of(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        u = tuple(creation.zeros_like(t, requires_grad=True) for t in inputs)
        double_back = _grad_of(jac, inputs, u, create_graph=True)
        _check_requires_grad(jac, "hessian", strict)
    with grad_mode.set_grad_enabled(create_graph or grad_mode.is_grad_enabled()):
        res = _grad_of(double_back, u, v, create_graph=create_graph)
        res = _zeros_for_none(res, inputs, strict, create_graph, "double_back_trick")
    return (_unpack(_finish(outputs, create_graph), out_tuple),
            _unpack(_finish(res, create_graph), in_tuple))
