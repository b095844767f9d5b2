"""torch's random functions and in-place samplers on engine tensors.

Factories (rand, randn, randint, randperm, the *_like ones, normal, bernoulli, multinomial) make
leaves; the in-place samplers (uniform_, normal_, bernoulli_, exponential_, random_) go through
the engine's in-place mechanism, so they bump `_version`, refuse a leaf that requires grad and,
on a tensor with history, become its grad_fn under torch's name (UniformBackward0, ...), whose
gradient is zero. Every draw comes from `generator=` or the current EngineState's default
generator, in the order sampling.py describes.
"""

from __future__ import annotations

import math

from .. import backend as B
from .. import creation
from .. import state as _state
from ..autograd.function import Function, apply
from ..device import check_device
from ..dtypes import bool_, by_name, float32, int64
from ..ops.inplace import run_inplace
from ..ops.registry import export
from ..tensor import Tensor
from . import sampling

_KERNEL_NAME = {"int64": "Long", "bool": "Bool", "float32": "Float", "float64": "Double"}


def _gen(generator):
    return generator if generator is not None else _state.current().default_generator


def _float_only(dt, kernel: str) -> None:
    if not dt.is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_KERNEL_NAME[dt.name]}\'')


def _shaped(values, shape, dt):
    return B.reshape(B.array(values, dt.name), shape)


def _numel(shape) -> int:
    return math.prod(shape)


# -- factories ---------------------------------------------------------------------------------

def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False):
    check_device(device)
    shape = creation._size(size)
    dt = dtype or float32
    _float_only(dt, "check_uniform_bounds")
    values = sampling.uniform(_gen(generator), _numel(shape), dt.name)
    return creation._leaf(_shaped(values, shape, dt), dt, requires_grad, "rand")


def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False):
    check_device(device)
    shape = creation._size(size)
    dt = dtype or float32
    _float_only(dt, "normal_kernel_cpu")
    values = sampling.normal(_gen(generator), _numel(shape), dt.name)
    return creation._leaf(_shaped(values, shape, dt), dt, requires_grad, "randn")


def _check_from_to(low: int, high: int) -> None:
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")


def _randint_values(gen, n: int, low, high, dt):
    low, high = int(low), int(high)
    _check_from_to(low, high)
    values = sampling.random_from_to(gen, n, low, high)
    return values if dt is int64 else B.astype(B.array(values, "int64"), dt.name)


def randint(*args, size=None, generator=None, out=None, dtype=None, layout=None, device=None,
            requires_grad=False, pin_memory=False, low=None, high=None):
    check_device(device)
    args = list(args)
    if size is None and args:
        size = args.pop()
    if high is None and args:
        high = args.pop()
    if low is None:
        low = args.pop() if args else 0
    if high is None or size is None:
        raise TypeError("randint() missing required arguments 'high' and 'size'")
    if not isinstance(size, (tuple, list)):
        pos = 3 if low is not None and len(args) == 0 and high is not None else 2
        raise TypeError(f"randint(): argument 'size' (position {pos}) must be tuple of ints, "
                        f"not {type(size).__name__}")
    shape = creation._size((size,))
    dt = dtype or int64
    values = _randint_values(_gen(generator), _numel(shape), low, high, dt)
    return creation._leaf(_shaped(values, shape, dt), dt, requires_grad, "randint")


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    check_device(device)
    n = int(n)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    dt = dtype or int64
    values = sampling.randperm(_gen(generator), n)
    return creation._leaf(_shaped(values, (n,), dt), dt, requires_grad, "randperm")


def _like_dtype(input, dtype):
    return dtype or input._dtype


def rand_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None, generator=None):
    check_device(device)
    dt = _like_dtype(input, dtype)
    return rand(*input.shape, dtype=dt, requires_grad=requires_grad, generator=generator)


def randn_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None, generator=None):
    check_device(device)
    dt = _like_dtype(input, dtype)
    return randn(*input.shape, dtype=dt, requires_grad=requires_grad, generator=generator)


def randint_like(input, low=0, high=None, *, dtype=None, layout=None, device=None,
                 requires_grad=False, memory_format=None, generator=None):
    check_device(device)
    if high is None:
        low, high = 0, low
    dt = _like_dtype(input, dtype)
    return randint(low, high, tuple(input.shape), dtype=dt, requires_grad=requires_grad,
                   generator=generator)


def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, requires_grad=False, pin_memory=False):
    """torch.normal's overloads: (float, float, size), (Tensor, float), (float, Tensor) and
    (Tensor, Tensor). The tensor ones draw as torch does, N(0, std) then + mean, or N(0, 1)
    then * std + mean; their gradient is zero (torch does not reparameterise)."""
    check_device(device)
    t_mean, t_std = isinstance(mean, Tensor), isinstance(std, Tensor)
    gen = _gen(generator)
    if not t_mean and not t_std:
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments")
        shape = creation._size((size,))
        dt = dtype or float32
        _check_std(std)
        values = sampling.normal(gen, _numel(shape), dt.name, float(mean), float(std))
        return creation._leaf(_shaped(values, shape, dt), dt, requires_grad, "normal")
    if t_mean and not t_std:
        _check_std(std)
        return apply(NormalBackward1, (mean,), gen, float(std))
    if t_std and not t_mean:
        return apply(NormalBackward2, (std,), gen, float(mean))
    return apply(NormalBackward3, (mean, std), gen)


def _check_std(std) -> None:
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(std)}")


def _num(v) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def _normals(gen, shape, dtype: str, std: float = 1.0):
    return _shaped(sampling.normal(gen, _numel(shape), dtype, 0.0, std), shape, by_name(dtype))


class NormalBackward1(Function):
    name_ = "NormalBackward1"
    chain_rule = "a random draw around mean: torch treats the noise as fixed and gives mean a zero gradient"

    def forward(self, mean, gen, std):
        shape = B.shape(mean._data)
        return B.add(_normals(gen, shape, mean._dtype.name, std), mean._data)

    def backward(self, grad):
        return (grad * 0,)


class NormalBackward2(Function):
    name_ = "NormalBackward2"
    chain_rule = "a random draw with spread std: torch gives std a zero gradient (no reparameterization)"

    def forward(self, std, gen, mean):
        shape = B.shape(std._data)
        return B.add(B.mul(_normals(gen, shape, std._dtype.name), std._data), mean)

    def backward(self, grad):
        return (grad * 0,)


class NormalBackward3(Function):
    name_ = "NormalBackward3"
    chain_rule = "a random draw from normal(mean, std): torch gives mean and std zero gradients"

    def forward(self, mean, std, gen):
        self.mean_shape, self.std_shape = B.shape(mean._data), B.shape(std._data)
        shape = B.broadcast_shapes(self.mean_shape, self.std_shape)
        z = _normals(gen, shape, mean._dtype.name)
        return B.add(B.mul(z, std._data), mean._data)

    def backward(self, grad):
        from ..ops.reduction import sum_to

        zero = grad * 0
        return (sum_to(zero, self.mean_shape), sum_to(zero, self.std_shape))


class BernoulliBackward0(Function):
    name_ = "BernoulliBackward0"
    chain_rule = "a random 0/1 draw with probabilities self: a draw has no slope, so self gets 0"

    def forward(self, probs, gen):
        flat = [float(v) for v in B.tolist(B.reshape(probs._data, (-1,)))]
        _check_probs(flat)
        values = sampling.bernoulli_tensor(gen, flat, probs._dtype.name)
        return B.astype(_shaped(values, B.shape(probs._data), bool_), probs._dtype.name)

    def backward(self, grad):
        return (grad * 0,)


def bernoulli(input, p=None, *, generator=None, out=None):
    gen = _gen(generator)
    if p is not None:
        return creation.empty(*input.shape, dtype=input._dtype).bernoulli_(p, generator=gen)
    return apply(BernoulliBackward0, (input,), gen)


def _check_probs(probs) -> None:
    if any(not 0 <= v <= 1 for v in probs):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could "
                           "this error message be improved?  If so, please report an "
                           "enhancement request to PyTorch.)")


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    gen = _gen(generator)
    if input.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not input._dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{_KERNEL_NAME[input._dtype.name]}")
    n_cat = input.shape[-1]
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > n_cat:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    rows = B.tolist(B.reshape(input._data, (-1, n_cat)))
    for row in rows:
        if any(v < 0 for v in row):
            raise RuntimeError("invalid multinomial distribution (encountering probability "
                               "entry < 0)")
        if any(math.isinf(v) or math.isnan(v) for v in row):
            raise RuntimeError("invalid multinomial distribution (encountering probability "
                               "entry = infinity or NaN)")
        if sum(row) <= 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    if not replacement or num_samples == 1:
        picks = _multinomial_by_exponential(gen, rows, num_samples, input._dtype.name)
    else:
        picks = [_multinomial_with_replacement(gen, row, num_samples, input._dtype.name)
                 for row in rows]
    shape = (num_samples,) if input.ndim == 1 else (len(rows), num_samples)
    return creation._leaf(_shaped([v for r in picks for v in r], shape, int64), int64, False,
                          "multinomial")


def _multinomial_by_exponential(gen, rows, k, dtype):
    """torch's path without replacement (and for one sample): q ~ Exp(1) for every entry,
    then the k largest of p / q (argmax for one)."""
    n = sum(len(r) for r in rows)
    q = sampling.exponential(gen, n)
    q = [float(v) for v in B.tolist(B.array(q, dtype))]
    out, pos = [], 0
    for row in rows:
        ratios = B.tolist(B.div(B.array(row, dtype), B.array(q[pos:pos + len(row)], dtype)))
        pos += len(row)
        order = sorted(range(len(row)), key=lambda i: (-ratios[i], i))
        out.append(order[:k])
    return out


def _multinomial_with_replacement(gen, row, k, dtype):
    """torch's CPU kernel: a normalised running sum in the input's precision, then a binary
    search per sample for the first bucket whose cumulative value is >= a 53-bit uniform."""
    cum = B.tolist(B.cumsum(B.array(row, dtype), 0)) if hasattr(B, "cumsum") else None
    if cum is None:
        total, cum = 0.0, []
        for v in row:
            total = _round(total + v, dtype)
            cum.append(total)
    total = cum[-1]
    cum = [_round(c / total, dtype) for c in cum]
    cum[-1] = 1.0
    out = []
    for _ in range(k):
        u = (gen.random64() & 0x1FFFFFFFFFFFFF) * 1.1102230246251565e-16
        lo, hi = 0, len(cum)
        while hi - lo > 0:
            mid = lo + (hi - lo) // 2
            if cum[mid] < u:
                lo = mid + 1
            else:
                hi = mid
        out.append(lo)
    return out


def _round(v: float, dtype: str) -> float:
    if dtype == "float32":
        import struct
        return struct.unpack("<f", struct.pack("<f", v))[0]
    return v


# -- in-place samplers -------------------------------------------------------------------------

class _Sample(Function):
    """An in-place draw: forward returns the new values; the gradient to the old values is 0.
    The classes below carry torch's grad_fn names as their own, as torch's classes do."""

    chain_rule = "an in-place random draw: the new values do not depend on the old ones, so they get 0"

    def forward(self, a, draw):
        return draw(a)

    def backward(self, grad):
        return (grad * 0,)


class UniformBackward0(_Sample):
    name_ = "UniformBackward0"


class NormalBackward0(_Sample):
    name_ = "NormalBackward0"


class BernoulliBackward2(_Sample):
    name_ = "BernoulliBackward2"


class BernoulliBackward1(Function):
    name_ = "BernoulliBackward1"
    chain_rule = "an in-place random 0/1 draw: the old values and p get 0"

    def forward(self, a, p, draw):
        return draw(a)

    def backward(self, grad):
        return (grad * 0, None)


class ExponentialBackward0(_Sample):
    name_ = "ExponentialBackward0"


class RandomBackward0(_Sample):
    name_ = "RandomBackward0"


def _contiguous(t: Tensor) -> bool:
    return B.is_contiguous(t._data)


@export(function=False)
def uniform_(self, from_=0.0, to=1.0, *, generator=None, **kw):
    from_ = kw.pop("from", from_)
    _float_only(self._dtype, "check_uniform_bounds")
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={_num(from_)} > to={_num(to)}")
    gen = _gen(generator)

    def draw(a):
        values = sampling.uniform(gen, a.numel(), a._dtype.name, float(from_), float(to))
        return _shaped(values, tuple(a.shape), a._dtype)

    return run_inplace(self, UniformBackward0, (), (draw,), "uniform_")


@export(function=False)
def normal_(self, mean=0.0, std=1.0, *, generator=None):
    _float_only(self._dtype, "normal_kernel_cpu")
    _check_std(std)
    gen = _gen(generator)
    contiguous = _contiguous(self)

    def draw(a):
        values = sampling.normal(gen, a.numel(), a._dtype.name, float(mean), float(std),
                                 contiguous=contiguous)
        return _shaped(values, tuple(a.shape), a._dtype)

    return run_inplace(self, NormalBackward0, (), (draw,), "normal_")


@export(function=False)
def bernoulli_(self, p=0.5, *, generator=None):
    gen = _gen(generator)
    if isinstance(p, Tensor):
        probs = [float(v) for v in B.tolist(B.reshape(
            B.expand(p._data, tuple(self.shape)), (-1,)))]
        _check_probs(probs)

        def draw_t(a):
            values = sampling.bernoulli_tensor(gen, probs, p._dtype.name)
            return B.astype(_shaped(values, tuple(a.shape), bool_), a._dtype.name)

        return run_inplace(self, BernoulliBackward1, (p,), (draw_t,), "bernoulli_")
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_num(p)}")

    def draw(a):
        values = sampling.bernoulli_scalar(gen, a.numel(), float(p))
        return B.astype(B.reshape(B.array(values, "bool"), tuple(a.shape)), a._dtype.name)

    return run_inplace(self, BernoulliBackward2, (), (draw,), "bernoulli_")


@export(function=False)
def exponential_(self, lambd=1.0, *, generator=None):
    _float_only(self._dtype, "exponential_cpu")
    gen = _gen(generator)

    def draw(a):
        return _shaped(sampling.exponential(gen, a.numel(), float(lambd)), tuple(a.shape),
                       a._dtype)

    return run_inplace(self, ExponentialBackward0, (), (draw,), "exponential_")


@export(function=False)
def random_(self, from_=None, to=None, *, generator=None, **kw):
    from_ = kw.pop("from", from_)
    if to is None and from_ is not None:
        from_, to = 0, from_
    gen = _gen(generator)

    def draw(a):
        if to is None:  # x.random_(): the dtype's whole range
            values = sampling.random_full_range(gen, a.numel(), a._dtype.name)
            if a._dtype is not int64:
                values = B.astype(B.array(values, "int64"), a._dtype.name)
        else:
            values = _randint_values(gen, a.numel(), from_, to, a._dtype)
        return _shaped(values, tuple(a.shape), a._dtype)

    return run_inplace(self, RandomBackward0, (), (draw,), "random_")


@export("bernoulli", function=False)
def bernoulli_method(self, p=None, *, generator=None):
    return bernoulli(self, p, generator=generator)


@export("multinomial", function=False)
def multinomial_method(self, num_samples, replacement=False, *, generator=None):
    return multinomial(self, num_samples, replacement, generator=generator)


# -- the generator functions of the torch namespace ---------------------------------------------

def manual_seed(seed):
    return _state.current().default_generator.manual_seed(seed)


def seed() -> int:
    return _state.current().default_generator.seed()


def initial_seed() -> int:
    return _state.current().default_generator.initial_seed()


def get_rng_state():
    return _state.current().default_generator.get_state()


def set_rng_state(new_state) -> None:
    _state.current().default_generator.set_state(new_state)


FACTORIES = {
    "rand": rand, "randn": randn, "randint": randint, "randperm": randperm,
    "rand_like": rand_like, "randn_like": randn_like, "randint_like": randint_like,
    "normal": normal, "bernoulli": bernoulli, "multinomial": multinomial,
    "manual_seed": manual_seed, "seed": seed, "initial_seed": initial_seed,
    "get_rng_state": get_rng_state, "set_rng_state": set_rng_state,
}
