"""torch.device and torch.cuda as a CPU-only torch has them, so that device boilerplate
(`device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')`, `.to(device)`)
runs unchanged, and asking for a GPU fails as torch built without CUDA fails."""

from __future__ import annotations

import re

# torch 2.13's list, in its order, for its error message
DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                "privateuseone")
NO_CUDA = "Torch not compiled with CUDA enabled"
_SPEC = re.compile(r"^([a-z_]+)(?::(\d+))?$")


class device:  # noqa: N801 - torch's name
    """torch.device: a type ('cpu', 'cuda', ...) and an optional index."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):  # noqa: A002 - torch's parameter name
        if isinstance(type, device):
            type, index = type.type, type.index if index is None else index
        elif isinstance(type, bool) or not isinstance(type, str):
            if isinstance(type, int):
                raise RuntimeError("Cannot access accelerator device when none is available.")
            raise TypeError(f"device() received an invalid combination of arguments - got "
                            f"({_type_name(type)}), but expected one of:")
        else:
            m = _SPEC.match(type)
            if m is None or m.group(1) not in DEVICE_TYPES:
                head = type.split(":")[0]
                raise RuntimeError(f"Expected one of {', '.join(DEVICE_TYPES)} device type at "
                                   f"start of device string: {head}")
            if m.group(2) is not None:
                if index is not None:
                    raise RuntimeError("type (string) must not include an index because index "
                                       f"was passed explicitly: {type}")
                index = int(m.group(2))
            type = m.group(1)
        if index is not None and (isinstance(index, bool) or not isinstance(index, int)):
            raise TypeError(f"device() received an invalid combination of arguments - got "
                            f"(str, {_type_name(index)})")
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "index", index)

    def __setattr__(self, name, value):
        raise AttributeError(f"attribute '{name}' of 'torch.device' objects is not writable")

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))


def _type_name(v) -> str:
    return type(v).__name__


CPU = device("cpu")


def check_device(d) -> None:
    """Refuse a device other than the CPU as torch without CUDA refuses it (None: the CPU)."""
    if d is None:
        return
    if not isinstance(d, device):
        d = device(d)
    if d.type == "cuda":
        raise AssertionError(NO_CUDA)
    if d.type != "cpu":
        raise RuntimeError(f"gradplay runs on the CPU only; cannot use device {str(d)!r}")
