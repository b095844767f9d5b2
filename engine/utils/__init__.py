"""torch.utils: the data loading part (torch.utils.data)."""

from . import data  # noqa: F401
