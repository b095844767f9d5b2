"""PyTorch-identical ``repr``/``str`` of tensors, written against plain Python values.

Nothing here imports numpy or torch: a backend hands over ``tolist()``-style nested
lists (or a bare scalar for a 0-dim tensor), the shape and the dtype name, and gets
back exactly the text ``torch`` 2.13 prints with its default print options.

The rules reproduced (default options: precision 4, threshold 1000, edgeitems 3,
linewidth 80):

* One formatter is built for the whole tensor (or, when ``numel > 1000``, for the
  elements that survive summarisation, i.e. the first/last 3 along every dim).
  For floats it looks only at the nonzero *finite* values:

  - *int mode* if every such value is integral: printed as ``"%.0f" + "."``
    (nan/inf get no dot);
  - *sci mode* if ``max/min > 1000`` or ``max > 1e8`` or ``min < 1e-4`` (on absolute
    values): printed as ``"%.4e"``;
  - otherwise fixed ``"%.4f"``.

  The column width is the longest of those strings (+1 for the dot in int mode);
  zeros, nan and inf do not take part in the width but are right-aligned to it.
  With no nonzero finite value at all the width is 1 and int mode is used.
* ints and bools are ``str()``-ed and right-aligned to the longest one.
* Rows wrap after ``floor((80 - indent) / (width + 2))`` elements, where indent is
  ``len(prefix)`` plus one per nesting level; summarised rows show ``" ..."`` as an
  element and summarised higher dims show a ``...`` block.
* Blocks of a k-dim tensor are separated by ``","`` plus ``k-1`` newlines.
* Suffixes, in order: ``size=`` (empty tensors that are not 1-D), ``dtype=`` (non-empty:
  anything but float32/int64/bool; empty: anything but float32), then
  ``grad_fn=<...>`` or else ``requires_grad=True``. A suffix goes on a new line,
  indented by ``len(prefix)``, when the current last line would pass 80 columns.
"""

from __future__ import annotations

import math

from . import state as _state
from .state import PRINT_DEFAULTS

__all__ = ["Size", "format_tensor", "format_parameter", "PRINT_OPTIONS", "print_options",
           "set_printoptions"]

# what a fresh torch process prints with; torch.set_printoptions changes the options of the
# engine's current state (state.py), so each run prints with its own
PRINT_OPTIONS = PRINT_DEFAULTS


def print_options() -> dict:
    return _state.current().print_options


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None) -> None:
    """torch.set_printoptions, as torch 2.13 applies it (an unknown profile changes nothing,
    and sci_mode is always set: leaving it out goes back to the automatic choice)."""
    options = print_options()
    if profile == "default":
        options.update(precision=4, threshold=1000, edgeitems=3, linewidth=80)
    elif profile == "short":
        options.update(precision=2, threshold=1000, edgeitems=2, linewidth=80)
    elif profile == "full":
        options.update(precision=4, threshold=math.inf, edgeitems=3, linewidth=80)
    for name, value in (("precision", precision), ("threshold", threshold),
                        ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if value is not None:
            options[name] = value
    options["sci_mode"] = sci_mode

_FLOAT_DTYPES = ("float32", "float64", "float16", "bfloat16")
_DEFAULT_DTYPE = "float32"
# dtypes that are never named for a non-empty tensor
_IMPLIED_DTYPES = ("float32", "int64", "bool")


# --------------------------------------------------------------------------- Size
class Size(tuple):
    """``torch.Size``: a tuple of ints that prints as ``torch.Size([2, 3])``."""

    def __new__(cls, sizes=()):
        items = tuple(sizes)
        for position, item in enumerate(items):
            if not hasattr(item, "__index__"):
                raise TypeError(
                    f"torch.Size() takes an iterable of 'int' (item {position} is "
                    f"'{type(item).__name__}')"
                )
        return super().__new__(cls, (item.__index__() for item in items))

    def __repr__(self):
        return "torch.Size([" + ", ".join(str(d) for d in self) + "])"

    __str__ = __repr__

    def numel(self):
        total = 1
        for d in self:
            total *= d
        return total

    def __getitem__(self, index):
        result = super().__getitem__(index)
        if isinstance(index, slice):
            return Size(result)
        return result

    def __add__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(other) + tuple(self))

    def __mul__(self, times):
        if not hasattr(times, "__index__"):
            return NotImplemented
        return Size(tuple(self) * times)

    __rmul__ = __mul__

    def __reduce__(self):
        return (Size, (tuple(self),))


# --------------------------------------------------------------------- helpers
def _normalise_dtype(dtype) -> str:
    name = str(dtype)
    if name.startswith("torch."):
        name = name[len("torch.") :]
    aliases = {"float": "float32", "double": "float64", "long": "int64", "half": "float16"}
    return aliases.get(name, name)


def _is_float_dtype(dtype: str) -> bool:
    return dtype in _FLOAT_DTYPES


def _coerce(value, dtype: str):
    if _is_float_dtype(dtype):
        return float(value)
    if dtype == "bool":
        return bool(value)
    return int(value)


def _edge_indices(length: int, summarize: bool) -> list[int | None]:
    """Indices kept along one dim; ``None`` marks the elided middle."""
    edge = print_options()["edgeitems"]
    if summarize and length > 2 * edge:
        return list(range(edge)) + [None] + list(range(length - edge, length))
    return list(range(length))


def _collect_shown(values, shape, summarize: bool, out: list) -> None:
    """Append (in order) every element that will actually be printed."""
    if not shape:
        out.append(values)
        return
    for i in _edge_indices(shape[0], summarize):
        if i is not None:
            _collect_shown(values[i], shape[1:], summarize, out)


# ------------------------------------------------------------------- formatter
class _ElementFormatter:
    """Decides one common style/width for all printed elements of a tensor."""

    def __init__(self, shown: list, dtype: str):
        options = print_options()
        precision = options["precision"]
        self.is_float = _is_float_dtype(dtype)
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        self._fixed = f".{precision}f"
        self._sci = f".{precision}e"

        if not self.is_float:
            for v in shown:
                self.width = max(self.width, len(str(v)))
            return

        finite_nonzero = [v for v in shown if v != 0 and math.isfinite(v)]
        if not finite_nonzero:
            return

        magnitudes = [abs(v) for v in finite_nonzero]
        smallest, largest = min(magnitudes), max(magnitudes)
        self.int_mode = all(v == math.ceil(v) for v in finite_nonzero)
        self.sci_mode = largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4
        if options["sci_mode"] is not None:  # set_printoptions(sci_mode=...), before the widths
            self.sci_mode = bool(options["sci_mode"])

        if self.sci_mode:
            self.width = max(self.width, *(len(format(v, self._sci)) for v in finite_nonzero))
        elif self.int_mode:
            # one extra column for the trailing "." that marks a float
            self.width = max(self.width, *(len(format(v, ".0f")) + 1 for v in finite_nonzero))
        else:
            self.width = max(self.width, *(len(format(v, self._fixed)) for v in finite_nonzero))

    def __call__(self, value) -> str:
        if not self.is_float:
            text = str(value)
        elif self.sci_mode:
            text = format(value, f"{self.width}{self._sci}")
        elif self.int_mode:
            text = format(value, ".0f")
            if math.isfinite(value):
                text += "."
        else:
            text = format(value, self._fixed)
        return text.rjust(self.width)


# -------------------------------------------------------------------- layout
def _render_row(row, indent: int, summarize: bool, fmt: _ElementFormatter) -> str:
    per_line = max(1, int((print_options()["linewidth"] - indent) // (fmt.width + 2)))
    cells = [" ..." if i is None else fmt(row[i]) for i in _edge_indices(len(row), summarize)]
    lines = [", ".join(cells[k : k + per_line]) for k in range(0, len(cells), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _render(values, shape, indent: int, summarize: bool, fmt: _ElementFormatter) -> str:
    if not shape:
        return fmt(values)
    if len(shape) == 1:
        return _render_row(values, indent, summarize, fmt)
    blocks = [
        "..." if i is None else _render(values[i], shape[1:], indent + 1, summarize, fmt)
        for i in _edge_indices(shape[0], summarize)
    ]
    separator = "," + "\n" * (len(shape) - 1) + " " * (indent + 1)
    return "[" + separator.join(blocks) + "]"


def _coerce_all(values, shape, dtype):
    if values is None:  # an element a summarised print does not show (tensor.py reads only those)
        return None
    if not shape:
        if isinstance(values, (list, tuple)):  # tolerate a 1-element wrapper
            while isinstance(values, (list, tuple)):
                values = values[0]
        return _coerce(values, dtype)
    return [_coerce_all(v, shape[1:], dtype) for v in values]


def _append_suffixes(body: str, suffixes: list[str], indent: int) -> str:
    linewidth = print_options()["linewidth"]
    # torch over-counts the current last line by 2 (len - rfind("\n") + 1), but
    # after it has wrapped a suffix it counts the new line exactly; mirror both.
    line_len = len(body) - body.rfind("\n") + 1
    parts = [body]
    for suffix in suffixes:
        if line_len + len(suffix) + 2 > linewidth:
            parts.append(",\n" + " " * indent + suffix)
            line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def _shape_text(shape) -> str:
    return str(tuple(int(d) for d in shape))


# ---------------------------------------------------------------------- API
def format_tensor(
    values,
    shape,
    dtype,
    *,
    requires_grad: bool = False,
    grad_fn: str | None = None,
    prefix: str = "tensor(",
) -> str:
    """Return exactly what ``repr(t)`` / ``str(t)`` prints in torch 2.13.

    ``values`` is ``t.tolist()`` (bare scalar for 0-dim), ``shape`` a tuple of ints,
    ``dtype`` one of ``"float32"``, ``"float64"``, ``"int64"``, ``"bool"`` (a
    ``"torch."`` prefix is accepted), ``grad_fn`` a node name like ``"AddBackward0"``.
    """
    shape = tuple(int(d) for d in shape)
    dtype = _normalise_dtype(dtype)
    indent = len(prefix)
    numel = 1
    for d in shape:
        numel *= d

    suffixes: list[str] = []
    if numel == 0:
        body = "[]"
        if len(shape) != 1:
            suffixes.append("size=" + _shape_text(shape))
        if dtype != _DEFAULT_DTYPE:
            suffixes.append("dtype=torch." + dtype)
    else:
        if dtype not in _IMPLIED_DTYPES:
            suffixes.append("dtype=torch." + dtype)
        values = _coerce_all(values, shape, dtype)
        summarize = numel > print_options()["threshold"]
        shown: list = []
        _collect_shown(values, shape, summarize, shown)
        fmt = _ElementFormatter(shown, dtype)
        body = _render(values, shape, indent, summarize, fmt)

    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")

    return _append_suffixes(prefix + body, suffixes, indent)


def format_parameter(values, shape, dtype, *, requires_grad: bool = True) -> str:
    """``repr`` of an ``nn.Parameter``: a header line then the plain tensor repr."""
    return "Parameter containing:\n" + format_tensor(
        values, shape, dtype, requires_grad=requires_grad
    )
