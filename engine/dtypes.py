"""The four dtypes the engine supports, and torch's type-promotion rules between them."""

from __future__ import annotations


class dtype:  # noqa: N801 - torch spells it lower-case
    __slots__ = ("name", "is_floating_point", "itemsize", "_rank")

    def __init__(self, name: str, is_floating_point: bool, itemsize: int, rank: int):
        self.name = name
        self.is_floating_point = is_floating_point
        self.itemsize = itemsize
        self._rank = rank  # order used by promote_types: bool < int64 < float32 < float64

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self):
        return (by_name, (self.name,))

    @property
    def is_complex(self) -> bool:
        return False

    @property
    def is_signed(self) -> bool:
        return self.name != "bool"


bool_ = dtype("bool", False, 1, 0)
int64 = dtype("int64", False, 8, 1)
float32 = dtype("float32", True, 4, 2)
float64 = dtype("float64", True, 8, 3)

ALL = (bool_, int64, float32, float64)
_BY_NAME = {d.name: d for d in ALL}
# torch's aliases for the same objects
_BY_NAME.update({"float": float32, "double": float64, "long": int64})


def by_name(name: str) -> dtype:
    return _BY_NAME[name]


def default_float() -> dtype:
    return float32


def promote_types(a: dtype, b: dtype) -> dtype:
    return a if a._rank >= b._rank else b


def _category(d: dtype) -> int:
    return 0 if d is bool_ else (1 if d is int64 else 2)


def _combine(higher: dtype | None, lower: dtype | None) -> dtype | None:
    """torch's combine_categories: a lower-priority operand only matters when it is of a
    higher category (bool < integer < floating) than the higher-priority one."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.is_floating_point:
        return higher
    if higher is bool_ or lower.is_floating_point:
        return promote_types(higher, lower)
    return higher


def result_type(operands) -> dtype:
    """torch.result_type over tensors and Python scalars.

    Three priority classes, as in torch: tensors with dim > 0, zero-dim tensors, and Python
    numbers ("wrapped numbers"). A Python float counts as the default float dtype.
    """
    dim_res = zero_res = wrapped_res = None
    for x in operands:
        if isinstance(x, bool):
            d = bool_
            wrapped_res = d if wrapped_res is None else promote_types(wrapped_res, d)
        elif isinstance(x, int):
            d = int64
            wrapped_res = d if wrapped_res is None else promote_types(wrapped_res, d)
        elif isinstance(x, float):
            d = float32
            wrapped_res = d if wrapped_res is None else promote_types(wrapped_res, d)
        else:
            d = x.dtype
            if getattr(x, "_wrapped", False):
                if d.is_floating_point:
                    d = float32
                wrapped_res = d if wrapped_res is None else promote_types(wrapped_res, d)
            elif x.ndim == 0:
                zero_res = d if zero_res is None else promote_types(zero_res, d)
            else:
                dim_res = d if dim_res is None else promote_types(dim_res, d)
    return _combine(dim_res, _combine(zero_res, wrapped_res))
