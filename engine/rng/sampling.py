"""What torch's CPU kernels draw, in which order, for each dtype and size.

Every function takes a Generator and returns a flat sequence of values (a numpy array or a list,
from the active backend's kernels) in the tensor's C order; callers shape it. The choices below
are torch 2.13's (aten/src/ATen/native/cpu/DistributionTemplates.h and friends):

- uniform_: one draw per element: float32 takes one 32-bit word (24 bits used), float64 one
  random64() (53 bits used); then `x * (to - from) + from`, fused, in the tensor's precision, and
  a value that rounded up to `to` becomes `from`.
- normal_ with 16 or more elements on a contiguous tensor: first every element gets a uniform as
  above, then Box-Muller turns each block of 16 into 16 normals (element j with j + 8); if the
  size is not a multiple of 16, the last 16 elements are drawn afresh and transformed again.
  float32 runs torch's AVX2 version (avx_mathfun's polynomial log and sincos), float64 the C
  library's log, sin and cos.
- normal_ with fewer than 16 elements (or a non-contiguous tensor): one element at a time with
  normal_distribution<double>: two random64() uniforms make two normals, the second is cached
  in the generator and used by the next element, even across calls, until reseeded.
- random_(from, to) (randint): one word per element, or one random64() when to - from >= 2**28;
  value = word % (to - from) + from.
- randperm(n): Fisher-Yates from the front, swap i with i + random() % (n - i).
- bernoulli_(p) with a float p: one random64() per element, 1 when its 53-bit uniform < p.
  bernoulli(p_tensor): float32 probabilities draw one word (24 bits), float64 one random64().
- exponential_ (multinomial draws through it): one random64() per element, -log1p(-u) / lambda.
"""

from __future__ import annotations

import math
import sys

from .. import backend as B

# In the browser, Python's math module is Pyodide's C library (musl), which rounds sin, cos and
# log differently from the glibc torch uses on Linux in the last bit of a few percent of doubles:
# float64 normals drawn there can be one ulp off torch's. The run is told so, once per session.
_LAST_BIT_MAY_DIFFER = sys.platform == "emscripten"
BROWSER_NORMALS_NOTE = (
    "float64 random normal numbers drawn in this browser can differ from PyTorch's in the last "
    "digit: the browser's math library rounds log, sin and cos differently from the one "
    "PyTorch uses on Linux. The playground served by Python (gradplay serve) gives PyTorch's "
    "exact numbers.")


class PlaygroundNote(UserWarning):
    """A remark of the playground's own about its numbers (not one of torch's warnings)."""


def _note_inexact_normals() -> None:
    from .. import state
    from ..tensor import warn

    if state.current().first_warning("browser_normals"):
        warn(BROWSER_NORMALS_NOTE, PlaygroundNote, stacklevel=4)

_NUMPY_FROM = 256  # below this many values the list kernels beat numpy's per-call overhead


def kernels(n: int = _NUMPY_FROM):
    """The kernels for n values: both give the same bits, so the choice is only speed."""
    if B.NAME == "numpy" and n >= _NUMPY_FROM:
        from . import kernels_numpy as k
    else:
        from . import kernels_pure as k
    return k


def uniform(gen, n: int, dtype: str, low: float = 0.0, high: float = 1.0):
    k = kernels(n)
    if dtype == "float32":
        return k.uniform_f32(gen.words(n), low, high)
    return k.uniform_f64(gen.words(2 * n), low, high)


def _scalar_normal(gen, mean: float, std: float) -> float:
    """normal_distribution<double>: Box-Muller on two 53-bit uniforms, second value cached."""
    cached = gen.next_double_normal
    if cached is not None:
        gen.next_double_normal = None
        ret = cached
    else:
        u1 = (gen.random64() & 0x1FFFFFFFFFFFFF) * 1.1102230246251565e-16
        u2 = (gen.random64() & 0x1FFFFFFFFFFFFF) * 1.1102230246251565e-16
        r = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        gen.next_double_normal = r * math.sin(theta)
        ret = r * math.cos(theta)
    return _fma(ret, std, mean)


def _fma(a: float, b: float, c: float) -> float:
    from .kernels_pure import _fma64_one
    return _fma64_one(a, b, c)


def normal(gen, n: int, dtype: str, mean: float = 0.0, std: float = 1.0,
           contiguous: bool = True):
    if _LAST_BIT_MAY_DIFFER and dtype == "float64" and n:
        _note_inexact_normals()
    k = kernels(n)
    if n >= 16 and contiguous:
        if dtype == "float32":
            u = k.unit_f32(gen.words(n))
            fill = k.normal16_f32
        else:
            u = k.unit_f64(gen.words(2 * n))
            fill = k.normal16_f64
        body = fill(u[:n - n % 16], mean, std)
        if n % 16:
            fresh = k.unit_f32(gen.words(16)) if dtype == "float32" else k.unit_f64(gen.words(32))
            body = k.concat(body[:n - 16], fill(fresh, mean, std))
        return body
    return [_scalar_normal(gen, mean, std) for _ in range(n)]


def random_from_to(gen, n: int, low: int, high: int):
    span = high - low
    wide = span >= 1 << 28
    return kernels(n).randint_from_words(gen.words(2 * n if wide else n), wide, span, low)


def random_full_range(gen, n: int, dtype: str) -> list:
    """random_() with no bounds: uniform_int_distribution over the dtype's own range. int64 and
    float64 take one random64() per element, float32 and bool one 32-bit word; the value is
    word % 2**63 (int64), % (2**53 + 1) (float64), % (2**24 + 1) (float32), & 1 (bool)."""
    k = kernels(n)
    if dtype in ("int64", "float64"):
        words = [int(w) for w in k.u64(gen.words(2 * n))]
        modulus = 1 << 63 if dtype == "int64" else (1 << 53) + 1
    else:
        words = [int(w) for w in k.u32(gen.words(n))]
        modulus = 2 if dtype == "bool" else (1 << 24) + 1
    return [w % modulus for w in words]


def randperm(gen, n: int) -> list:
    perm = list(range(n))
    if n > 1:
        words = kernels(n).u32(gen.words(n - 1))
        for i in range(n - 1):
            z = i + int(words[i]) % (n - i)
            perm[i], perm[z] = perm[z], perm[i]
    return perm


def bernoulli_scalar(gen, n: int, p: float):
    k = kernels(n)
    return k.below(k.unit_f64(gen.words(2 * n)), p)


def bernoulli_tensor(gen, probs, p_dtype: str):
    """One draw per probability (probs: plain floats in C order)."""
    n = len(probs)
    k = kernels(n)
    if p_dtype == "float64":
        u = k.unit_f64(gen.words(2 * n))
    else:
        u = k.unit_f32(gen.words(n))
    return [bool(a < b) for a, b in zip(list(u), probs)]


def exponential(gen, n: int, lambd: float = 1.0) -> list:
    words = kernels(n).u64(gen.words(2 * n))
    return [-1.0 / lambd * math.log1p(-((int(v) & 0x1FFFFFFFFFFFFF) * 1.1102230246251565e-16))
            for v in words]
