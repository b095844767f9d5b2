"""A module docstring first."""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import torch


def batch_means(batches: List[torch.Tensor], scale: Optional[float] = None) -> Dict[str, float]:
    out: Dict[str, float] = {}
    for i, b in enumerate(batches):
        m = b.mean().item()
        out[f"batch{i}"] = m * scale if scale is not None else m
    return out


def split_pair(t: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    return t[:1], t[1:]


class Meter:
    total: float
    count: int = 0

    def __init__(self) -> None:
        self.total = 0.0

    def add(self, v: float, n: int = 1) -> "Meter":
        self.total += v * n
        self.count += n
        return self


print(batch_means([torch.ones(2), torch.arange(4.0)], scale=2.0))
print(split_pair(torch.tensor([1.0, 2.0, 3.0])))
print(Meter().add(2.0, 3).add(1.0).count, annotations)
print(sum([[1], [2, 3]], []), sum([torch.ones(2)] * 3, torch.zeros(2)), sum(((1,), (2,)), ()))
try:
    sum(["a", "b"], "")
except TypeError as e:
    print(e)
