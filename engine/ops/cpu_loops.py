"""Which elements torch 2.13's CPU element-wise loop computes in its vectorised blocks.

torch runs an element-wise kernel (`cpu_kernel_vec`, aten/src/ATen/native/cpu/Loops.h) in two
versions: a vectorised one over blocks of two vectors, and a scalar one for what is left of a
row and for rows that are not contiguous. A few kernels give another value in each version at
NaN: `hardtanh_backward` (so `hardtanh` and `relu6`) writes 0 at a NaN input in a block and
passes the gradient in the scalar loop; `elu_backward` and `hardswish_backward` give NaN in a
block and the positive branch's gradient in the scalar loop. Which elements fall in a block is
deterministic for a CPU and a layout, so the engine replays it:

1. The operands' strides over the broadcast shape (0 along a broadcast dim), in elements.
2. torch's TensorIterator orders the dims innermost first by the inputs' strides
   (`reorder_dimensions`: the first input whose strides differ decides, a stride of 0 defers to
   the next input, equal strides put the smaller size first) and merges neighbours that are
   contiguous for every operand (`coalesce_dimensions`); the output is allocated contiguous in
   that order.
3. Each row (the innermost dim) is vectorised when every input has stride 1 along it, or one
   input has stride 0 and the others 1; blocks of `2 * lanes` elements start at the row's
   first element, and the rest of the row is scalar.
4. From GRAIN elements on, torch's two threads each take half of the elements (rounded up),
   and each half's first and last rows are rows of their own.

Vector widths are per kernel: torch 2.13 on x86-64 runs most kernels with AVX2 (8 float32 or
4 float64 lanes) even on an AVX512 CPU, and the ones registered for AVX512 (`hardswish`'s and
`elu`'s backward, for instance) with 16 or 8 lanes. Measured on this project's reference
machine (docs/semantics.md); tests/test_cpu_loops.py checks the replay against torch.
"""

from __future__ import annotations

from .. import backend as B
from ..backend.sum_order import GRAIN, THREADS, reorder_dimensions

AVX2, AVX512 = "avx2", "avx512"


def block_size(dtype: str, isa: str = AVX2) -> int:
    """Elements per vectorised block: two vectors of the kernel's width."""
    lanes = (8 if dtype == "float32" else 4) * (2 if isa == AVX512 else 1)
    return 2 * lanes


def _operand_strides(shape: tuple, arrays) -> list:
    out = []
    nd = len(shape)
    for a in arrays:
        ash, ast = B.shape(a), B.strides(a)
        lead = nd - len(ash)
        st = [0] * lead
        for i, (s, t) in enumerate(zip(ash, ast)):
            st.append(0 if s == 1 and shape[lead + i] != 1 else t)
        out.append(st)
    return out


def _rows(shape: tuple, strides: list, perm: list):
    """The innermost dim after coalescing: (its size, each input's stride along it)."""
    sizes = [shape[d] for d in perm]
    ops = [[st[d] for d in perm] for st in strides]
    # the output, allocated contiguous in this order
    out, acc = [], 1
    for s in sizes:
        out.append(acc)
        acc *= s
    ops.append(out)
    prev = 0
    for d in range(1, len(sizes)):
        s0, s1 = sizes[prev], sizes[d]
        if s0 == 1 or s1 == 1 or all(s0 * st[prev] == st[d] for st in ops):
            if s0 == 1:
                for st in ops:
                    st[prev] = st[d]
            sizes[prev] *= s1
        else:
            prev += 1
            if prev != d:
                for st in ops:
                    st[prev] = st[d]
                sizes[prev] = s1
    return sizes[0], [st[0] for st in ops[:-1]]


def _vectorisable(inner_strides: list) -> bool:
    if all(s == 1 for s in inner_strides):
        return True
    zeros = [s for s in inner_strides if s == 0]
    return len(zeros) == 1 and all(s in (0, 1) for s in inner_strides)


def vectorised(shape: tuple, arrays, block: int):
    """A bool array of `shape`: True where torch's loop over inputs `arrays` (backend arrays
    that broadcast to `shape`, in the kernel's argument order) computes the element in a
    vectorised block of `block` elements."""
    shape = tuple(shape)
    numel = 1
    for s in shape:
        numel *= s
    if numel == 0 or not shape:
        return B.zeros(shape, "bool")
    strides = _operand_strides(shape, arrays)
    perm = reorder_dimensions(shape, strides)
    size0, inner = _rows(shape, strides, perm)
    flags = [False] * numel
    if _vectorisable(inner) and size0 > 1:
        ranges = [(0, numel)]
        if numel >= GRAIN and THREADS > 1:
            chunk = -(-numel // min(THREADS, -(-numel // GRAIN)))
            ranges = [(b, min(numel, b + chunk)) for b in range(0, numel, chunk)]
        for begin, end in ranges:
            p = begin
            while p < end:
                stop = min(end, (p // size0 + 1) * size0)  # this row's part of the range
                full = (stop - p) // block * block
                flags[p:p + full] = [True] * full
                p = stop
    mask = B.reshape(B.array(flags, "bool"), tuple(shape[d] for d in reversed(perm)))
    nd = len(shape)
    return B.permute(mask, tuple(nd - 1 - perm.index(d) for d in range(nd)))
