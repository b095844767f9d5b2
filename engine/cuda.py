"""torch.cuda on a machine without a GPU: nothing is available, seeding is a no-op (torch
defers it until a GPU is used, which never happens here)."""

from __future__ import annotations

from .device import NO_CUDA


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def manual_seed(seed) -> None:
    int(seed)


def manual_seed_all(seed) -> None:
    int(seed)


def current_device() -> int:
    raise AssertionError(NO_CUDA)


def empty_cache() -> None:
    """Frees nothing: there is no GPU memory (torch does nothing either then)."""


def synchronize(device=None) -> None:
    raise AssertionError(NO_CUDA)
