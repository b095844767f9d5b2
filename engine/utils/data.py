"""torch.utils.data as a training loop uses it: Dataset, TensorDataset, Subset, random_split,
DataLoader (batching, shuffling, drop_last, a collate function) and default_collate.

Loading runs in the calling process, one batch at a time, as torch's DataLoader does with
num_workers=0. The random numbers are torch's, drawn at the same moments, so a seeded program
shuffles into the same batches and the generator is left in the same state: iter(loader) draws
a base seed (`torch.empty((), dtype=torch.int64).random_(generator=loader.generator)`); with
shuffle=True the first batch of each pass draws the permutation, from the loader's generator
if it has one, else from a fresh generator seeded by one more draw from the default generator,
and the batch that finds the end of the pass draws one more permutation, unused (torch's
RandomSampler does).
"""

from __future__ import annotations

import itertools
import math
import warnings

from ..creation import empty, tensor
from ..dtypes import float64, int64
from ..ops import FUNCTIONS
from ..rng import Generator
from ..rng.ops import randperm
from ..tensor import Tensor

_stack = FUNCTIONS["stack"]

_COLLATE_ERROR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
                  "lists; found {}")


class Dataset:
    """A map-style dataset: a subclass defines __getitem__ (and __len__ to be shuffled or
    batched by a DataLoader)."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")


class TensorDataset(Dataset):
    """Samples are the tensors' rows: dataset[i] is (t[i] for each tensor)."""

    def __init__(self, *tensors) -> None:
        if any(tensors[0].size(0) != t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class Subset(Dataset):
    """The samples of `dataset` at `indices`, in that order."""

    def __init__(self, dataset, indices) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(dataset, lengths, generator=None):
    """Split into Subsets of the given lengths (or fractions summing to 1) after one randperm."""
    if generator is None:
        from .. import state

        generator = state.current().default_generator
    lengths = list(lengths)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        sizes = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            sizes.append(math.floor(len(dataset) * frac))
        for i in range(len(dataset) - sum(sizes)):
            sizes[i % len(sizes)] += 1
        lengths = sizes
        for i, length in enumerate(lengths):
            if length == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an "
                              "empty dataset.", UserWarning, stacklevel=2)
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = randperm(sum(lengths), generator=generator).tolist()
    return [Subset(dataset, indices[offset - length:offset])
            for offset, length in zip(itertools.accumulate(lengths), lengths)]


def default_collate(batch):
    """Stack a list of samples into a batch, keeping the samples' structure: tensors are
    stacked (StackBackward0 when they need grad), Python floats become a float64 tensor, ints
    an int64 one, strings stay a list, dicts and sequences are collated field by field (a
    tuple of fields gives a list, as torch)."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return _stack(batch, 0)
    if isinstance(elem, bool) or isinstance(elem, int):
        return tensor(batch)
    if isinstance(elem, float):
        return tensor(batch, dtype=float64)
    if isinstance(elem, str):
        return batch
    if isinstance(elem, dict):
        return {key: default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, (tuple, list)):
        size = len(elem)
        if not all(len(e) == size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(list(samples)) for samples in zip(*batch)]
    raise TypeError(_COLLATE_ERROR.format(type(elem)))


def _draw_seed(generator) -> int:
    return int(empty((), dtype=int64).random_(generator=generator).item())


class DataLoader:
    """Batches of a map-style dataset, in order or shuffled."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        if sampler is not None or batch_sampler is not None:
            raise NotImplementedError("DataLoader(sampler=..., batch_sampler=...) is not "
                                      "available in the playground: use shuffle=True or False")
        if not isinstance(num_workers, int) or num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                             "disable multiprocessing.")
        if batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if batch_size is not None and (isinstance(batch_size, bool)
                                       or not isinstance(batch_size, int) or batch_size <= 0):
            raise ValueError("batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError("drop_last should be a boolean value, but got "
                             f"drop_last={drop_last}")
        self.dataset = dataset
        self.batch_size = batch_size
        self.shuffle = bool(shuffle)
        self.drop_last = drop_last
        self.num_workers = num_workers
        self.pin_memory = pin_memory
        self.generator = generator
        self.collate_fn = collate_fn if collate_fn is not None else (
            default_collate if batch_size is not None else _convert)

    def __len__(self) -> int:
        n = len(self.dataset)
        if self.batch_size is None:
            return n
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def __iter__(self):
        return LoaderIterator(self)


def _convert(sample):
    return sample


class LoaderIterator:
    """One pass over a DataLoader (what `for batch in loader` walks)."""

    def __init__(self, loader: DataLoader):
        self.loader = loader
        self.order = None  # the sample indices of this pass, made at the first batch
        self.position = 0
        self.generator = None  # the generator the pass's permutation came from
        self.past_end = False  # the sampler was asked past its end
        if loader.pin_memory:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then "
                          "device pinned memory won't be used.", UserWarning, stacklevel=3)
        self.base_seed = _draw_seed(loader.generator)

    def __iter__(self):
        return self

    def _indices(self) -> list:
        loader = self.loader
        n = len(loader.dataset)
        if not loader.shuffle:
            return list(range(n))
        generator = loader.generator
        if generator is None:
            generator = Generator()
            generator.manual_seed(_draw_seed(None))
        self.generator = generator
        return randperm(n, generator=generator).tolist()

    def _take(self, k: int) -> list:
        """The sampler's next k indices (fewer at the end). torch's RandomSampler, asked past
        the end of its permutation, draws one more permutation and uses none of it
        (`randperm(n)[:0]`), so the loader's generator moves on then, as here."""
        if self.order is None:
            self.order = self._indices()
        start = self.position
        taken = self.order[start:start + k]
        self.position += len(taken)
        if len(taken) < k and not self.past_end:
            self.past_end = True
            if self.generator is not None:
                randperm(len(self.order), generator=self.generator)
        return taken

    def __next__(self):
        loader = self.loader
        if loader.batch_size is None:
            taken = self._take(1)
            if not taken:
                raise StopIteration
            return loader.collate_fn(loader.dataset[taken[0]])
        batch = self._take(loader.batch_size)
        if not batch or (loader.drop_last and len(batch) < loader.batch_size):
            raise StopIteration
        return loader.collate_fn([loader.dataset[i] for i in batch])
