"""F.pad(mode="circular") (and Conv's padding_mode="circular"), made as torch makes it: an empty
output, the input copied into its middle through slices, then each padded dim's two ends copied
from the other side of the output. So its graph is torch's: CopySlices over SliceBackward0 nodes,
one per copy, and the gradient of a wrapped element adds up from every place it went."""

from __future__ import annotations

from ..batched_reads import derived


def pad_circular(input, pad: tuple):
    """pad: (left, right) pairs, the last dim first, as F.pad takes them."""
    from ..creation import zeros  # the output's start: every element is overwritten below

    shape = tuple(input.shape)
    ndim = len(shape)
    nd = len(pad) // 2
    out_shape = list(shape)
    for d in range(ndim - nd, ndim):  # torch checks the dims first to last
        lo, hi = pad[2 * (ndim - 1 - d)], pad[2 * (ndim - 1 - d) + 1]
        out_shape[d] = shape[d] + lo + hi
        if lo > shape[d] or hi > shape[d]:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if out_shape[d] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    # the result is filled in place below: under vmap it holds the sample, as the input does
    out = derived(zeros(out_shape, dtype=input.dtype), input)
    out_slice, in_slice = out, input
    for i in range(nd):
        d = ndim - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        start = max(lo, 0)
        out_slice = out_slice.narrow(d, start, out_shape[d] - max(hi, 0) - start)
        start = max(-lo, 0)
        in_slice = in_slice.narrow(d, start, shape[d] - max(-hi, 0) - start)
    out_slice.copy_(in_slice)
    for i in range(nd):
        d = ndim - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        size = out_shape[d]
        if lo > 0:
            out.narrow(d, 0, lo).copy_(out.narrow(d, size - lo - max(hi, 0), lo))
        if hi > 0:
            out.narrow(d, size - hi, hi).copy_(out.narrow(d, max(lo, 0), hi))
    return out
