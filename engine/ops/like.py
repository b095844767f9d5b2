"""Shapes and tensors taken from another tensor: view_as, broadcast_to, and the new_* family
(new_zeros, new_ones, new_full, new_empty, new_tensor: the dtype of self unless given)."""

from __future__ import annotations

from .. import creation
from ..batched_reads import derived
from .registry import export


@export(function=False)
def view_as(self, other):
    return self.view(other.shape)


@export()
def broadcast_to(input, size):
    return input.expand(size)


# (under torch.func.vmap, new_zeros/new_ones/new_full/new_empty of a tensor that holds the
# sample hold it too, as torch's batching rules make them; new_tensor's data holds none)
def _new(factory):
    def method(self, *size, dtype=None, device=None, requires_grad=False, **kw):
        return derived(factory(*size, dtype=dtype or self.dtype, device=device,
                               requires_grad=requires_grad), self)

    return method


new_zeros = export("new_zeros", function=False)(_new(creation.zeros))
new_ones = export("new_ones", function=False)(_new(creation.ones))


@export(function=False)
def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
    # torch leaves the memory uninitialised; zeros are one of the values it may hold
    return derived(creation.zeros(*size, dtype=dtype or self.dtype, device=device,
                                  requires_grad=requires_grad), self)


@export(function=False)
def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    return derived(creation.full(size, fill_value, dtype=dtype or self.dtype, device=device,
                                 requires_grad=requires_grad), self)


@export(function=False)
def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    return creation.tensor(data, dtype=dtype or self.dtype, device=device,
                           requires_grad=requires_grad)
