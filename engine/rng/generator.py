"""torch's CPU random generator: a 32-bit Mersenne Twister (mt19937) seeded as torch seeds it.

torch seeds mt19937 with the low 32 bits of the seed (the reference `init_genrand`), not with
`init_by_array` as Python's `random.seed` does; the twist and tempering are the reference ones.
Python's `random.Random` runs that same mt19937 in C, so this module computes torch's initial
state, hands it to a `random.Random` with `setstate`, and draws 32-bit words from it in bulk
(`getrandbits(32 * n)` packs n successive outputs, the first in the lowest bits). That keeps both
array backends fast and needs no numpy.

A generator also holds torch's two cached normal samples (torch's scalar Box-Muller path makes
two values and keeps the second for the next call) and its seed; `get_state`/`set_state` use
torch's 5056-byte layout, so a state saved here restores there and back.
"""

from __future__ import annotations

import functools
import random as _random
import struct as _struct

N = 624
DEFAULT_SEED = 67280421310721  # c10's default_rng_seed_val: a torch.Generator() starts here
STATE_SIZE = 5056  # sizeof(CPUGeneratorImplState) on 64-bit platforms

# CPUGeneratorImplState: the_initial_seed u64, left i32, seeded i32, next u64, state u64[624],
# normal_x f64, normal_y f64, normal_rho f64, normal_is_valid i32 (+4 padding),
# next_float_normal_sample f32, is_next_float_normal_sample_valid bool (+3 padding).
_LAYOUT = _struct.Struct("<QiiQ624Qdddi4xf?3x")
assert _LAYOUT.size == STATE_SIZE


_BULK = 4096  # from this many words on, numpy's mt19937 (when numpy imports) draws them


def _numpy_bulk_words():
    """numpy's MT19937 is the same reference generator; handing it Python's state and taking
    the state back draws many words several times faster than getrandbits + to_bytes."""
    try:
        import numpy as np
    except ImportError:
        return None

    def draw(mt, n: int) -> bytes:
        _, internal, gauss = mt.getstate()
        bg = np.random.MT19937()
        bg.state = {"bit_generator": "MT19937",
                    "state": {"key": np.array(internal[:N], np.uint32), "pos": internal[N]}}
        out = bg.random_raw(n).astype("<u4").tobytes()
        st = bg.state["state"]
        mt.setstate((3, tuple(st["key"].tolist()) + (int(st["pos"]),), gauss))
        return out

    return draw


_bulk_words = _numpy_bulk_words()


@functools.lru_cache(maxsize=4)
def _initial_key(seed: int) -> tuple:
    # kept for the few seeds in use: every run's engine state makes a Generator at DEFAULT_SEED
    # (624 steps of Python arithmetic each time otherwise)
    key = [0] * N
    key[0] = prev = seed & 0xFFFFFFFF
    for j in range(1, N):
        prev = (1812433253 * (prev ^ (prev >> 30)) + j) & 0xFFFFFFFF
        key[j] = prev
    return tuple(key)


def nondeterministic_seed() -> int:
    """What torch's default generator starts from in a fresh process: 64 bits of /dev/urandom."""
    return _random.SystemRandom().getrandbits(64)


def _check_seed(seed) -> int:
    seed = int(seed)  # torch.manual_seed calls int() first: 1.5 seeds 1, "a" raises ValueError
    if not -0x8000_0000_0000_0000 <= seed <= 0xFFFF_FFFF_FFFF_FFFF:
        raise ValueError("Overflow when unpacking long long")
    return seed & 0xFFFF_FFFF_FFFF_FFFF  # a negative seed is its two's complement


class Generator:
    """torch.Generator on the CPU: manual_seed, seed, initial_seed, get_state, set_state."""

    def __init__(self, device="cpu"):
        if str(device) != "cpu":
            raise RuntimeError(f"Device type {str(device).upper()} is not supported for torch.Generator() api.")
        self._mt = _random.Random()
        self._set_seed(DEFAULT_SEED)

    @property
    def device(self):
        return "cpu"

    def __repr__(self):
        return f"<torch._C.Generator object at 0x{id(self):x}>"

    # -- seeding -------------------------------------------------------------------------------

    def _set_seed(self, seed: int) -> None:
        self._seed = seed
        # pos 624 makes the first draw twist the state first, as torch's `left = 1` does
        self._mt.setstate((3, _initial_key(seed) + (N,), None))
        self._fresh = True  # torch reports `next = 0` until the first draw
        self.next_double_normal = None
        self.next_float_normal = None

    def manual_seed(self, seed) -> Generator:
        self._set_seed(_check_seed(seed))
        return self

    def seed(self) -> int:
        s = nondeterministic_seed()
        self._set_seed(s)
        return s

    def initial_seed(self) -> int:
        return self._seed

    # -- drawing -------------------------------------------------------------------------------

    def words(self, n: int) -> bytes:
        """The next n 32-bit outputs, little-endian packed (4 n bytes)."""
        if n <= 0:
            return b""
        self._fresh = False
        if n >= _BULK and _bulk_words is not None:
            return _bulk_words(self._mt, n)
        return self._mt.getrandbits(32 * n).to_bytes(4 * n, "little")

    def random(self) -> int:
        """One 32-bit output (torch's `random()`)."""
        self._fresh = False
        return self._mt.getrandbits(32)

    def random64(self) -> int:
        """Two outputs, the first as the high half (torch's `random64()`)."""
        self._fresh = False
        hi = self._mt.getrandbits(32)
        return (hi << 32) | self._mt.getrandbits(32)

    # -- state ---------------------------------------------------------------------------------

    def get_state_bytes(self) -> bytes:
        _, internal, _ = self._mt.getstate()
        key, pos = internal[:N], internal[N]
        nxt = 0 if self._fresh else pos
        dbl, flt = self.next_double_normal, self.next_float_normal
        return _LAYOUT.pack(self._seed, N + 1 - pos, 1, nxt, *key, 0.0,
                            0.0 if dbl is None else dbl, 0.0, dbl is not None,
                            0.0 if flt is None else flt, flt is not None)

    def set_state_bytes(self, data: bytes) -> None:
        if len(data) != STATE_SIZE:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {STATE_SIZE} but found "
                               f"the input RNG state size to be {len(data)}")
        fields = _LAYOUT.unpack(data)
        seed, left, seeded, nxt = fields[:4]
        key = [k & 0xFFFFFFFF for k in fields[4:4 + N]]
        _, normal_y, _, normal_valid, float_sample, float_valid = fields[4 + N:]
        if not (seeded and 0 < left <= N and nxt <= N):
            raise RuntimeError("Invalid mt19937 state")
        self._seed = seed
        self._mt.setstate((3, tuple(key) + (N + 1 - left,), None))
        self._fresh = nxt == 0 and left == 1
        self.next_double_normal = normal_y if normal_valid else None
        self.next_float_normal = float_sample if float_valid else None

    def get_state(self):
        # torch returns a uint8 tensor; the engine has no uint8, so the same bytes come as int64
        from .. import creation
        return creation.tensor(list(self.get_state_bytes()))

    def set_state(self, new_state) -> Generator:
        self.set_state_bytes(bytes(int(v) & 0xFF for v in new_state.tolist()))
        return self

    def clone_state(self) -> Generator:
        g = Generator()
        g.set_state_bytes(self.get_state_bytes())
        return g

