"""torch.autograd.gradcheck and gradgradcheck: compare a function's gradients (backward) with
finite differences, and raise GradcheckError, with torch's first line, where they disagree.

The check is torch's slow mode, step for step: every input element that requires grad is
moved by -eps and +eps in place (in its memory, without a version bump, as torch writes
through `.data`), the central difference (f(x+eps) - f(x-eps)) / (2 eps) is one row of the
numerical Jacobian; each row of the analytical Jacobian is a vector-Jacobian product with a
unit vector. They must agree as allclose(analytical, numerical, rtol, atol). fast_mode runs
the same slow check (torch's fast mode compares random projections instead: the verdict is
the same for a correct backward, its mismatch message differs).
"""

from __future__ import annotations

import warnings

from .. import backend as B
from .. import creation
from ..dtypes import float64
from ..tensor import Tensor
from . import grad_mode
from .api import grad as _grad


class GradcheckError(RuntimeError):
    """Raised by gradcheck and gradgradcheck when a gradient is wrong."""


GradcheckError.__module__ = "torch.autograd.gradcheck"


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _differentiable(outputs):
    return tuple(o for o in _as_tuple(outputs) if isinstance(o, Tensor) and o.requires_grad)


def _check_inputs(inputs) -> None:
    found = False
    for i, t in enumerate(inputs):
        if isinstance(t, Tensor) and t.requires_grad:
            if t.dtype.name != "float64":
                warnings.warn(f"Input #{i} requires gradient and is not a double precision "
                              "floating point or complex. This check will likely fail if all "
                              "the inputs are not of double precision floating point or "
                              "complex. ", UserWarning, stacklevel=4)
            if B.overlaps(t._data):
                raise RuntimeError(
                    f"The {i}th input has a dimension with stride 0. gradcheck only supports "
                    "inputs that are non-overlapping to be able to compute the numerical "
                    "gradients correctly. You should call .contiguous on the input before "
                    "passing it to gradcheck.")
            found = True
    if not found:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of them have requires_grad=True.")


def _positions(shape):
    """Every multi-index of shape, in row-major order."""
    out = [()]
    for s in shape:
        out = [p + (k,) for p in out for k in range(s)]
    return out


def _numerical(func, inputs, outputs_template, eps):
    """jac[i][j]: output i by input j as an (input numel, output numel) tensor, per input that
    requires grad."""
    per_input = []
    for x in inputs:
        if not (isinstance(x, Tensor) and x.requires_grad):
            continue
        rows = [[] for _ in outputs_template]
        data = x._data
        for pos in _positions(tuple(x.shape)):
            orig = B.item(B.getitem(data, pos))
            # grad mode stays as it is: gradgradcheck's function differentiates inside
            B.setitem(data, pos, B.scalar(orig - eps, B.dtype_name(data)))
            lo = _as_tuple(func(*inputs))
            B.setitem(data, pos, B.scalar(orig + eps, B.dtype_name(data)))
            hi = _as_tuple(func(*inputs))
            B.setitem(data, pos, B.scalar(orig, B.dtype_name(data)))
            with grad_mode.no_grad():
                for k, (a, b) in enumerate(zip(lo, hi)):
                    if isinstance(a, Tensor) and a.dtype.is_floating_point:
                        rows[k].append(((b.detach() - a.detach()) / (2 * eps)).reshape(-1))
        per_input.append(rows)
    result = []
    for k, o in enumerate(outputs_template):
        row = []
        for rows in per_input:
            from ..ops.shape import stack

            n_out = o.numel() if isinstance(o, Tensor) else 0
            row.append(stack(rows[k], 0) if rows[k] else
                       creation.zeros((0, n_out), dtype=o.dtype))
        result.append(row)
    return result


def _analytical(inputs, output):
    """For one output: per input that requires grad, the (input numel, output numel) Jacobian
    from one vector-Jacobian product per output element."""
    diff = [x for x in inputs if isinstance(x, Tensor) and x.requires_grad]
    cols = [[] for _ in diff]
    for j in range(output.numel()):
        v = creation.zeros_like(output).reshape(-1)
        v[j] = 1.0
        grads = _grad(output, diff, v.reshape(output.shape), retain_graph=True,
                      allow_unused=True)
        for k, (g, x) in enumerate(zip(grads, diff)):
            if g is None:
                g = creation.zeros_like(x)
            elif tuple(g.shape) != tuple(x.shape):
                raise GradcheckError("Analytical gradient has incorrect size")
            cols[k].append(g.detach().reshape(-1))
    from ..ops.shape import stack

    out = []
    for k, x in enumerate(diff):
        if cols[k]:
            out.append(stack(cols[k], 1))
        else:
            out.append(creation.zeros((x.numel(), 0), dtype=x.dtype))
    return out


def _allclose(a, b, rtol, atol) -> bool:
    if a.dtype is not b.dtype:
        a, b = a.double(), b.double()
    if a.numel() == 0:
        return True
    return bool(((a - b).abs() <= atol + rtol * b.abs()).all().item())


def _mismatch(a, n, i, j) -> str:
    return (f"Jacobian mismatch for output {i:d} with respect to input {j:d},\n"
            f"numerical:{n}\nanalytical:{a}\n")


def _check(func, inputs, eps, atol, rtol) -> bool:
    inputs = _as_tuple(inputs)
    _check_inputs(inputs)
    func_out = _as_tuple(func(*inputs))
    outputs = _differentiable(func_out)
    numerical = _numerical(func, inputs, func_out, eps)
    if not outputs:
        for per_input in numerical:
            for jac in per_input:
                if bool((jac != 0).any().item()):
                    raise GradcheckError("Numerical gradient for function expected to be zero")
        return True
    numerical = [n for o, n in zip(func_out, numerical)
                 if isinstance(o, Tensor) and o.requires_grad]
    for i, o in enumerate(outputs):
        analytical = _analytical(inputs, o)
        for j, (a, n) in enumerate(zip(analytical, numerical[i])):
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(_mismatch(a, n, i, j))
    _check_scaled_by_grad_output(outputs, inputs)
    return True


def _check_scaled_by_grad_output(outputs, inputs) -> None:
    """A zero grad_output must give zero gradients (torch's "backward not multiplied by
    grad_output" check)."""
    diff = [x for x in inputs if isinstance(x, Tensor) and x.requires_grad]
    grads = _grad(list(outputs), diff, [creation.zeros_like(o) for o in outputs],
                  allow_unused=True)
    for g, x in zip(grads, diff):
        if g is None:
            continue
        if tuple(g.shape) != tuple(x.shape):
            raise GradcheckError("grad is incorrect size")
        if bool((g != 0).any().item()):
            raise GradcheckError("backward not multiplied by grad_output")


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False, masked=None):
    """True when func's gradients at inputs agree with finite differences; otherwise raise
    GradcheckError (or return False with raise_exception=False)."""
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError(
            "Expected at least one of check_forward_ad or check_backward_ad to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError(
            "Setting check_batched_grad=True requires check_backward_ad to be True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError(
            "Setting check_batched_forward_grad=True requires check_forward_ad to be True")
    if not raise_exception:
        try:
            return _check(func, inputs, eps, atol, rtol)
        except GradcheckError:
            return False
    return _check(func, inputs, eps, atol, rtol)


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """gradcheck of the function that maps (inputs, grad_outputs) to func's gradients: checks
    second derivatives. Without grad_outputs, draws them as torch does, uniform in [-1, 1)
    from the default generator, one per differentiable output."""
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError(
            "Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError(
            "Setting check_undefined_grad=True requires check_rev_over_rev to be True")
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError(
            "Setting check_batched_grad=True requires check_rev_over_rev to be True")
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        outs = _differentiable(func(*inputs))
        grad_outputs = tuple(
            creation.empty(tuple(o.shape), dtype=o.dtype if o.dtype.is_floating_point
                           else float64).uniform_(-1, 1).requires_grad_()
            for o in outs)
    else:
        grad_outputs = _as_tuple(grad_outputs)
    n_out = len(grad_outputs)
    diff_in = {i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad}
    diff_go = {i for i, x in enumerate(grad_outputs) if x.requires_grad}

    def first_derivatives(*args):
        xs = tuple(x.requires_grad_() if i in diff_in else x
                   for i, x in enumerate(args[:-n_out]))
        outs = _differentiable(func(*xs))
        gos = tuple(g.requires_grad_() if i in diff_go else g
                    for i, g in enumerate(args[-n_out:]))
        wrt = [x for i, x in enumerate(xs) if i in diff_in]
        grads = _grad(list(outs), wrt, list(gos), create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivatives, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, check_batched_grad=check_batched_grad,
                     fast_mode=fast_mode, check_forward_ad=check_fwd_over_rev,
                     check_backward_ad=check_rev_over_rev, masked=masked)
