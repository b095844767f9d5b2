"""The legacy constructors people still paste: `torch.Tensor([...])`, `torch.FloatTensor`,
`torch.DoubleTensor`, `torch.LongTensor`. Each makes a tensor of its own dtype from data (a
list or tuple) or from a size; the size form gives zeros, as `torch.empty` does here (torch
leaves that memory uninitialised, so its values are whatever was there)."""

from __future__ import annotations

import collections

from . import creation
from .device import check_device
from .dtypes import float32, float64, int64
from .tensor import Tensor


def legacy_new(dtype, args: tuple, kwargs: dict) -> Tensor:
    """What `torch.<Type>Tensor(*args, device=...)` makes."""
    for key in kwargs:
        if key != "device":
            raise TypeError(f"new() received an invalid combination of arguments - got "
                            f"({_arg_types(args)}, {key}={_type_of(kwargs[key])}), but expected "
                            "one of:")
    check_device(kwargs.get("device"))
    if not args:
        return creation.zeros(0, dtype=dtype)
    if len(args) == 1 and isinstance(args[0], Tensor):
        src = args[0]
        if src._dtype is not dtype:
            raise TypeError(f"expected TensorOptions(dtype={_c_name(dtype)}, device=cpu, "
                            "layout=Strided, requires_grad=false (default), pinned_memory=false "
                            "(default), memory_format=(nullopt)) (got TensorOptions(dtype="
                            f"{_c_name(src._dtype)}, device=cpu, layout=Strided, "
                            "requires_grad=false (default), pinned_memory=false (default), "
                            "memory_format=(nullopt)))")
        return src.detach()
    if len(args) == 1 and isinstance(args[0], (list, tuple, range, collections.deque)):
        return creation.tensor(_as_numbers(args[0]), dtype=dtype)
    sizes = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
    for pos, s in enumerate(sizes):
        if isinstance(s, bool) or not isinstance(s, int):
            if len(sizes) == 1:
                raise TypeError(f"new(): data must be a sequence (got {type(s).__name__})")
            raise TypeError(f"new(): argument 'size' failed to unpack the object at pos "
                            f"{pos + 1} with error \"type must be tuple of ints,but got "
                            f"{type(s).__name__}\"")
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"[{', '.join(map(str, sizes))}]")
    return creation.zeros(*sizes, dtype=dtype)


def _as_numbers(data):
    """bools count as numbers here (torch.Tensor([True]) is tensor([1.]))."""
    if isinstance(data, (list, tuple, range, collections.deque)):
        return [_as_numbers(d) for d in data]
    if isinstance(data, bool):
        return int(data)
    return data


def _c_name(dtype) -> str:
    return {"float32": "float", "float64": "double", "int64": "long int"}.get(dtype.name,
                                                                            dtype.name)


def _type_of(v) -> str:
    return type(v).__name__


def _arg_types(args) -> str:
    return ", ".join(_type_of(a) for a in args)


class LegacyTensorType(type):
    """The metaclass of torch.FloatTensor and its kin: calling one makes a tensor of its dtype,
    and isinstance(x, torch.FloatTensor) asks for a float32 tensor, as in torch."""

    def __call__(cls, *args, **kwargs):
        return legacy_new(cls.dtype, args, kwargs)

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Tensor) and obj._dtype is cls.dtype

    def __repr__(cls) -> str:
        return f"<class 'torch.{cls.__name__}'>"


FloatTensor = LegacyTensorType("FloatTensor", (), {"dtype": float32, "__slots__": ()})
DoubleTensor = LegacyTensorType("DoubleTensor", (), {"dtype": float64, "__slots__": ()})
LongTensor = LegacyTensorType("LongTensor", (), {"dtype": int64, "__slots__": ()})

