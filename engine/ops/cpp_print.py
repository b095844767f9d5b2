"""A tensor as torch's C++ `operator<<` prints it (ATen's Formatting.cpp), for the errors that
put a tensor in their message (torch.meshgrid's): values converted to double, one common
format (integers with `g`, else four decimals fixed or scientific, with a scale factor when the
magnitudes allow), rows of at most 80 characters, then `[ torch.FloatTensor{2,2} ]`."""

from __future__ import annotations

import math

from .. import backend as B

_LEGACY = {"float32": "Float", "float64": "Double", "int64": "Long", "bool": "Bool"}


def _shortest(x: float) -> str:
    """A double as fmt's `{}` prints it: the shortest round-trip digits, no trailing '.0'."""
    r = repr(float(x))
    return r[:-2] if r.endswith(".0") else r


def _format(vals):
    """(scale, width, kind) for the values, as __printFormat."""
    if not vals:
        return 1.0, 0, "g"
    int_mode = all(not math.isfinite(z) or z == math.ceil(z) for z in vals)
    finite = [abs(z) for z in vals if math.isfinite(z)]
    exp_min = exp_max = 1.0
    if finite:
        lo, hi = min(finite), max(finite)
        exp_min = math.floor(math.log10(lo)) + 1 if lo != 0 else 1
        exp_max = math.floor(math.log10(hi)) + 1 if hi != 0 else 1
    if int_mode:
        return (1.0, 11, "e") if exp_max > 9 else (1.0, int(exp_max) + 1, "g")
    if exp_max - exp_min > 4:
        return 1.0, 12 if abs(exp_max) > 99 or abs(exp_min) > 99 else 11, "e"
    if exp_max > 5 or exp_max < 0:
        return 10.0 ** (exp_max - 1), 7, "f"
    return 1.0, 7 if exp_max == 0 else int(exp_max) + 6, "f"


def _value(v: float, fmt) -> str:
    scale, width, kind = fmt
    v = v / scale
    spec = {"g": "g", "e": ".4e", "f": ".4f"}[kind]
    return format(v, f">{width}{spec}")


def _matrix(rows, ncols, indent, linesize=80) -> str:
    fmt = _format([v for r in rows for v in r])
    out = []
    per_line = (linesize - indent) // (fmt[1] + 1)
    first = 0
    while first < ncols:
        last = first + per_line - 1 if first + per_line <= ncols else ncols - 1
        if per_line < ncols:
            if first != 0:
                out.append("\n")
            out.append(f"Columns {first + 1} to {last + 1}" + " " * indent)
        if fmt[0] != 1:
            out.append(f"{_shortest(fmt[0])} *\n" + " " * indent)
        for i, row in enumerate(rows):
            for c in range(first, last + 1):
                out.append(_value(row[c], fmt))
                if c == last:
                    out.append("\n")
                    if i != len(rows) - 1:
                        out.append(" " * (indent + (1 if fmt[0] != 1 else 0)))
                else:
                    out.append(" ")
        first = last + 1
    return "".join(out)


def cpp_str(t) -> str:
    data = t._data
    shape = tuple(B.shape(data))
    vals = [float(v) for v in B.tolist(B.reshape(data, (-1,)))]
    name = f"torch.{_LEGACY[B.dtype_name(data)]}Tensor"
    if not shape:
        return f"{_shortest(vals[0])}\n[ {name}{{}} ]"
    if len(shape) == 1:
        fmt = _format(vals)
        head = f"{_shortest(fmt[0])} *\n" if vals and fmt[0] != 1 else ""
        body = "".join(_value(v, fmt) + "\n" for v in vals)
        return f"{head}{body}[ {name}{{{shape[0]}}} ]"
    rows_of = shape[-2] * shape[-1]
    if len(shape) == 2:
        body = _matrix([vals[r * shape[1]:(r + 1) * shape[1]] for r in range(shape[0])],
                       shape[1], 0) if vals else ""
        return f"{body}[ {name}{{{shape[0]},{shape[1]}}} ]"
    parts = []
    lead = shape[:-2]
    for k in range(len(vals) // rows_of if rows_of else 0):
        counter, rest = [], k  # torch's counter turns its first dim fastest
        for s in lead:
            counter.append(rest % s)
            rest //= s
        at = 0
        for c, s in zip(counter, lead):
            at = at * s + c
        block = vals[at * rows_of:(at + 1) * rows_of]
        rows = [block[r * shape[-1]:(r + 1) * shape[-1]] for r in range(shape[-2])]
        label = "".join(f"{c + 1}," for c in counter)
        parts.append(f"({label}.,.) = \n" + _matrix(rows, shape[-1], 1))
    dims = ",".join(str(s) for s in shape)
    return "\n".join(parts) + f"[ {name}{{{dims}}} ]"
