"""Run one example in a torch-like module and describe the outcome; compare two descriptions.

The description is JSON: ``{"error": [type, first line]}`` when the call raises, else
``{"outputs": [...], "grads": [...]}``. An output tensor is described by its dtype, shape,
``grad_fn`` name and values (floats as JSON numbers, which keep every bit, with NaN and the
infinities as strings); anything else by its Python value. The gradients come from one
``autograd.grad`` of every floating output that requires grad, with an upstream gradient drawn
from the example's seed, into every tensor the example made that requires grad (``None`` where
the output does not depend on it); a backward that raises is described like a call that does.
"""

from __future__ import annotations

import math
import operator
import random
import struct
import warnings

from .catalogue import EXACT, decode_number, encode_number


def _first_line(e: BaseException) -> list:
    text = str(e)
    return [type(e).__name__, text.splitlines()[0] if text else ""]


class _Builder:
    """Turns an example's JSON arguments into the module's tensors, keeping the leaves."""

    def __init__(self, lib):
        self.lib = lib
        self.leaves = []

    def tensor(self, spec: dict):
        lib = self.lib
        values = [decode_number(v) for v in spec["values"]]
        base = lib.tensor(values, dtype=getattr(lib, spec["dtype"])).reshape(spec["base"])
        if spec["grad"]:
            base.requires_grad_()
            self.leaves.append(base)
        layout = spec["layout"]
        if layout == "transposed":
            return base.transpose(-1, -2)
        if layout == "sliced":
            return base[..., ::2]
        if layout == "expanded":
            return base.expand(*spec["shape"])
        return base

    def arg(self, a):
        if isinstance(a, dict):
            if "tensor" in a:
                return self.tensor(a["tensor"])
            if "tuple" in a:
                return tuple(self.arg(x) for x in a["tuple"])
            if "slice" in a:
                return slice(*a["slice"])
        if isinstance(a, list):
            return [self.arg(x) for x in a]
        return decode_number(a)


def _function(lib, call: str):
    where, name = call.split(".", 1)
    if where == "torch":
        return getattr(lib, name)
    if where == "F":
        return getattr(lib.nn.functional, name)
    if where == "linalg":
        return getattr(lib.linalg, name)
    if where == "op":
        return getattr(operator, name)
    return lambda self, *args, **kwargs: getattr(self, name)(*args, **kwargs)


def _is_tensor(lib, x) -> bool:
    return isinstance(x, lib.Tensor)


def _values(t):
    """Every element of ``t`` as JSON (a flat list, row-major)."""
    flat = t.detach().clone().reshape(-1).tolist()  # clone: torch may hand back a 0-dim
    # gradient without storage (sgn's), whose tolist() raises
    return [encode_number(v) for v in flat]


def _describe(lib, out):
    if _is_tensor(lib, out):
        return {"dtype": str(out.dtype), "shape": list(out.shape),
                "grad_fn": None if out.grad_fn is None else type(out.grad_fn).__name__,
                "values": _values(out)}
    if isinstance(out, (tuple, list)):
        return {"sequence": [_describe(lib, o) for o in out]}
    if isinstance(out, float):
        return {"py": encode_number(out)}
    return {"py": out}


def _flat_tensors(lib, out) -> list:
    if _is_tensor(lib, out):
        return [out]
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat_tensors(lib, o)]
    return []


def _upstream(lib, t, rng: random.Random):
    n = t.numel()
    values = [round(rng.gauss(0.0, 1.0), 3) for _ in range(n)]
    return lib.tensor(values, dtype=t.dtype).reshape(tuple(t.shape))


def run(example: dict, lib) -> dict:
    """The outcome of ``example`` in ``lib`` (the engine, or torch)."""
    builder = _Builder(lib)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            args = [builder.arg(a) for a in example["args"]]
            # sorted: the leaves' order must not depend on how the JSON was written
            kwargs = {k: builder.arg(v) for k, v in sorted(example["kwargs"].items())}
        except Exception as e:  # noqa: BLE001 - an example the module cannot even build
            return {"error": ["(building the arguments)"] + _first_line(e)}
        try:
            out = _function(lib, example["call"])(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 - the exception is the outcome compared
            return {"error": _first_line(e)}
        result = {"outputs": _describe(lib, out), "grads": None}
        outs = [t for t in _flat_tensors(lib, out)
                if t.dtype.is_floating_point and t.requires_grad]
        if outs and builder.leaves:
            rng = random.Random(example["seed"])
            ups = [_upstream(lib, t, rng) for t in outs]
            try:
                grads = lib.autograd.grad(outs, builder.leaves, ups, allow_unused=True)
            except Exception as e:  # noqa: BLE001
                result["grads"] = {"error": _first_line(e)}
            else:
                result["grads"] = [None if g is None else _describe(lib, g) for g in grads]
    return result


# -- comparing ---------------------------------------------------------------------------------

# Where the engine's last bit may differ (docs/semantics.md): a few float32 ulps of the largest
# value of the tensor, and a few float64 ulps; a zero's sign (a sum of x and -x is +0.0 or -0.0
# by the order). A wrong formula misses these by far.
TOLERANCE = {"torch.float32": 2e-6, "torch.float64": 1e-13}


def _bits(v) -> bytes:
    return struct.pack("<d", v)


def _same_number(a, b, dtype: str, exact: bool, scale: float) -> bool:
    a, b = decode_number(a), decode_number(b)
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        if exact or math.isinf(a) or math.isinf(b):  # (the sign of a zero is a last bit too)
            return _bits(a) == _bits(b)
        return abs(a - b) <= TOLERANCE.get(dtype, 0.0) * max(abs(b), scale)
    return type(a) is type(b) and a == b


def _scale(values) -> float:
    finite = [abs(v) for v in values if isinstance(v, float) and math.isfinite(v)]
    return max(finite, default=0.0)


def differences(mine, theirs, exact: bool, path: str = "", loose: str = "",
                floor: float = 0.0) -> list:
    """Where ``mine`` differs from ``theirs`` (descriptions from ``run``), as readable lines."""
    if isinstance(theirs, dict) and "values" in theirs:
        if not (isinstance(mine, dict) and "values" in mine):
            return [f"{path}: expected a tensor, got {mine!r:.200}"]
        out = [f"{path}.{k}: {mine[k]!r} != {theirs[k]!r}" for k in ("dtype", "shape", "grad_fn")
               if mine[k] != theirs[k]]
        if out or len(mine["values"]) != len(theirs["values"]):
            return out or [f"{path}: {len(mine['values'])} values != {len(theirs['values'])}"]
        scale = max(floor, _scale([decode_number(v) for v in theirs["values"]]))
        bad = [i for i, (a, b) in enumerate(zip(mine["values"], theirs["values"]))
               if not _same_number(a, b, loose or theirs["dtype"], exact, scale)]
        if bad:
            i = bad[0]
            return [f"{path}.values: {len(bad)} of {len(bad) and len(theirs['values'])} differ, "
                    f"first at {i}: {mine['values'][i]!r} != {theirs['values'][i]!r}"]
        return []
    if isinstance(theirs, dict) and isinstance(mine, dict):
        if sorted(theirs) != sorted(mine):
            return [f"{path}: {mine!r:.300} != {theirs!r:.300}"]
        return [line for k in theirs for line in differences(mine[k], theirs[k], exact,
                                                                f"{path}.{k}", loose, floor)]
    if isinstance(theirs, list) and isinstance(mine, list) and len(theirs) == len(mine):
        return [line for i, (m, t) in enumerate(zip(mine, theirs))
                for line in differences(m, t, exact, f"{path}[{i}]", loose, floor)]
    if isinstance(theirs, float) or isinstance(mine, float):
        ok = _same_number(mine, theirs, "torch.float64", exact, 0.0)
        return [] if ok else [f"{path}: {mine!r} != {theirs!r}"]
    return [] if mine == theirs and type(mine) is type(theirs) else [
        f"{path}: {mine!r:.300} != {theirs!r:.300}"]


# Ops whose backward adds several gradients into one place (so in an order of its own), though
# their forward is exact.
ADDS_IN_BACKWARD = {"repeat_tile", "views", "gather", "index_select", "embedding", "F.embedding",
                    "indexing", "masked_select", "outer", "F.pad", "F.max_pool2d", "F.prelu",
                    "diagonal", "diag", "split_chunk", "cat_stack"}


def _tensor_args(example: dict) -> list:
    def walk(a):
        if isinstance(a, dict) and "tensor" in a:
            yield a["tensor"]
        elif isinstance(a, dict):
            for v in a.values():
                yield from walk(v)
        elif isinstance(a, list):
            for v in a:
                yield from walk(v)
    return list(walk([example["args"], example["kwargs"]]))


def gradients_exact(example: dict, exactness: str) -> bool:
    """The gradients of an exact op are exact too unless backward adds: a broadcast operand
    (or an expanded one) gets the sum of the gradients of the places it was copied to."""
    if exactness != EXACT or example["op"] in ADDS_IN_BACKWARD:
        return False
    tensors = _tensor_args(example)
    return all(t["layout"] != "expanded" and t["shape"] == tensors[0]["shape"] for t in tensors)


def compare(example: dict, mine: dict, theirs: dict, exactness: str) -> list:
    """Where the engine's outcome ``mine`` differs from torch's ``theirs``."""
    if "error" in mine or "error" in theirs:
        return differences(mine, theirs, True)
    # a float64 leaf's gradient may have been added up in float32 first (torch sums a float32
    # gradient, then casts it), so mixed dtypes take float32's tolerance
    loose = ("torch.float32" if any(t["dtype"] == "float32" for t in _tensor_args(example))
             else "")
    return (differences(mine["outputs"], theirs["outputs"], exactness == EXACT, ".outputs")
            # gradients scale with the upstream one (about 1): a difference of terms that
            # cancel is measured against that, not against the tiny result
            + differences(mine["grads"], theirs["grads"],
                          gradients_exact(example, exactness), ".grads", loose, 1.0))
