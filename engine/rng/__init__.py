"""torch's CPU random numbers, bit for bit: the generator (generator.py), the order and
transforms of torch's sampling kernels (sampling.py), and their array code per backend
(kernels_numpy.py, kernels_pure.py)."""

from .generator import DEFAULT_SEED, Generator, nondeterministic_seed  # noqa: F401
