"""The order in which torch 2.13 adds up a float sum on the CPU, as a plan both backends follow.

Float addition is not associative, so a sum's last bits depend on the order of its additions,
and a training loop prints them. torch's CPU `sum` (and `mean`, which it computes as the sum
divided by the count, and everything built on them: the mean of a loss, the gradient of a
broadcast operand summed back to its shape, a bias gradient) adds in a fixed order, which this
module describes and the backends replay, addition for addition:

1. torch's TensorIterator lays the tensor out as a list of dimensions, innermost first: the
   reduced dimensions first (sorted by the input's strides), then the kept ones (in the
   output's order, which is C order), merging neighbours that are contiguous in memory.
2. Its kernel (`cascade_sum`, aten/src/ATen/native/cpu/SumKernel.cpp) is called for each 2-D
   slice of that layout and adds every run of values with one of three methods:
   - "casc": a 4-level cascade: the values are added one by one in chunks of 16 (2 ** 4; more
     for runs over a million), the chunk sums in blocks of 16 chunks, those in blocks of 16,
     and those one by one; then the unfinished chunk, block and block of blocks are added to
     the total, in that order;
   - "ilp": the run seen as rows of 4 values added as 4 independent cascades (one per
     column), then the leftover values (fewer than 4) into the first, then the 4 totals in
     order (torch's `row_sum`);
   - "vec": for a run contiguous in memory: "ilp" over vectors of 8 float32 (4 float64)
     values, so 32 (16) independent cascades, then the leftover values one by one, then the
     8 (4) lanes one by one (torch's AVX2 kernel; on an AVX512 CPU torch still uses it).
   Which method a run gets depends on its length, its stride and, for runs that are columns
   (summing along a non-innermost dimension), the column's place (`columns`).
3. The output starts at 0.0 and every run's total is added to its output element in
   iteration order (several runs feed one element when the reduced dimensions cannot merge).
4. With more than one thread and at least GRAIN elements, torch splits the work: a sum to one
   element is cut into one piece per thread (each summed as above), and the pieces' totals
   are then summed as a run of THREADS values; a sum to several elements is shared out by
   output columns, which changes the method of some of them (`_split_columns`).

`plan(shape, strides, dims, dtype)` returns the layout and the methods as plain numbers; the
numpy and the pure-Python backend each implement the three methods once and follow the plan.
Integer and bool sums are exact in any order and do not use this module.
"""

from __future__ import annotations

GRAIN = 32768  # at::internal::GRAIN_SIZE: below it torch reduces on one thread
# torch.get_num_threads() of the torch being modelled. It matters only for sums of more than
# GRAIN elements: up to 2 * GRAIN elements every thread count from 2 up gives the same bits;
# beyond that torch uses min(threads, ceil(n / GRAIN)) pieces. 2 is the thread count of the
# machine the reference values were recorded on (docs/semantics.md says what this means).
THREADS = 2
LEVEL_BITS = 4  # a cascade level gathers 2 ** 4 values (more for runs over 2 ** 20 rows)
ILP = 4  # torch's row_sum: 4 interleaved accumulators

VEC = "vec"
ILP_METHOD = "ilp"
CASC = "casc"


def lanes(dtype: str) -> int:
    """Values in one of torch's 256-bit vectors: 8 float32, 4 float64."""
    return 8 if dtype == "float32" else 4


def level_step(size: int) -> int:
    """Values per cascade chunk for a run of `size` rows (multi_row_sum's level_step)."""
    ceil_log2 = (size - 1).bit_length() if size > 1 else 0
    return 1 << max(LEVEL_BITS, ceil_log2 // 4)


class Plan:
    """How torch adds up one reduction; every count is in elements.

    The backend permutes the input by `perm` and reshapes it (C order) to `sizes`: then the
    values lie in torch's iteration order, viewed as (outer, middle, size1, size0): `size0`
    values per run, `size1` runs per kernel call, `middle` calls feeding the same outputs,
    `outer` independent groups. `columns` gives each run's method by its index j < size1, as
    (start, stop, method) ranges.

    - fold False (one reduced dimension in the layout): every run is one output element;
      the result, in iteration order, has shape `kept` and is transposed by `out_axes`.
    - fold True: the `middle * size1` run totals of a group are added one by one into one
      output element (from 0.0); `outer` outputs, shaped and transposed the same way.
    - `pieces` (only for a sum to one element above GRAIN elements): a list, per thread, of
      kernel calls (start, size0, size1, columns) over the flat values; each piece's run
      totals are added one by one, then the THREADS piece totals form a run of their own,
      summed with `pieces_method`.
    - identity True: nothing is reduced (0 + x for every element); empty True: no elements.
    """

    __slots__ = ("perm", "sizes", "outer", "middle", "size1", "size0", "columns", "fold",
                 "kept", "out_axes", "out_shape", "pieces", "pieces_method", "identity",
                 "empty")

    def __init__(self):
        self.pieces = None
        self.identity = False
        self.empty = False


def _contiguous_strides(shape):
    out = [0] * len(shape)
    acc = 1
    for d in range(len(shape) - 1, -1, -1):
        out[d] = acc
        acc *= shape[d]
    return out


def reorder_dimensions(shape, operands, reduction_output: bool = False) -> list:
    """torch's TensorIterator::reorder_dimensions: the dims of `shape`, innermost first, as its
    insertion sort orders them by the operands' strides (`operands`: one stride list per
    operand, the output first), ambiguous comparisons and ties going on to the next operand
    included. With `reduction_output`, the first operand is a reduction's output, whose reduced
    dims (stride 0) torch puts innermost."""
    perm = list(range(len(shape) - 1, -1, -1))

    def should_swap(d0, d1):
        for k, st in enumerate(operands):
            s0, s1 = st[d0], st[d1]
            if reduction_output and k == 0 and (s0 == 0) != (s1 == 0):
                return 1 if s1 == 0 else -1
            if s0 == 0 or s1 == 0:
                continue
            if s0 < s1:
                return -1
            if s0 > s1:
                return 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    for i in range(1, len(shape)):
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            c = should_swap(perm[dim0], perm[dim1])
            if c > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif c < 0:
                break
    return perm


def _iterator_dims(shape, strides, reduced):
    """torch's TensorIterator dims for a reduction, innermost first, after its reordering and
    coalescing: a list of [size, output stride, input stride, torch dims (outermost first)]."""
    nd = len(shape)
    keep_shape = [1 if d in reduced else shape[d] for d in range(nd)]
    ost = _contiguous_strides(keep_shape)
    ost = [0 if (d in reduced and shape[d] != 1) else ost[d] for d in range(nd)]
    perm = reorder_dimensions(shape, (ost, strides), reduction_output=True)
    dims = []
    for p in perm:
        size, o, i = shape[p], ost[p], strides[p]
        if dims:
            prev = dims[-1]
            if prev[0] == 1 or size == 1 or (prev[0] * prev[1] == o and prev[0] * prev[2] == i):
                if prev[0] == 1:
                    prev[1], prev[2] = o, i
                prev[0] *= size
                prev[3].insert(0, p)
                continue
        dims.append([size, o, i, [p]])
    return dims


def columns(size0, size1, in0, in1, w, first=0):
    """The method of each of size1 runs of size0 values in one kernel call, as (start, stop,
    method) ranges offset by `first` (cascade_sum's four branches)."""
    if in0 == 1 and size0 >= w:
        return ((first, first + size1, VEC),)
    if in1 == 1 and size1 >= w:
        # columns contiguous in memory: 4 vectors of columns at a time get a plain cascade
        # each (multi_row_sum), the remaining columns torch's row_sum
        j0 = size1 // (4 * w) * (4 * w)
    elif in0 < in1:
        return ((first, first + size1, ILP_METHOD),)
    else:
        j0 = size1 // 4 * 4  # scalar columns, 4 at a time in a plain cascade
    out = []
    if j0:
        out.append((first, first + j0, CASC))
    if j0 < size1:
        out.append((first + j0, first + size1, ILP_METHOD))
    return tuple(out)


def _split_columns(dims, size0, size1, in0, in1, w, itemsize):
    """Methods per column when torch shares a many-output sum between threads
    (parallel_dim_reduction): each thread's share of the split dimension is a call of its own."""
    nd = len(dims)
    best = nd - 1
    split = None
    for d in range(nd - 1, -1, -1):  # find_split_dim: the outermost kept dim with >= threads
        if dims[d][1] == 0:
            break
        if dims[d][0] >= THREADS:
            split = d
            break
        if dims[d][0] > dims[best][0]:
            best = d
    if split is None:
        split = best
    if split != 1:
        return columns(size0, size1, in0, in1, w)
    cols = size1
    per_128_bytes = 128 // itemsize if in1 == 1 else 0
    n = min(THREADS, cols)
    chunk = -(-cols // n)
    out = []
    for t in range(n):
        b, e = t * chunk, min(cols, t * chunk + chunk)
        if b >= cols:
            continue
        if per_128_bytes:  # round_columns
            b -= b % per_128_bytes
            if e != cols:
                e -= e % per_128_bytes
        if b < e:
            out.extend(columns(size0, e - b, in0, in1, w, b))
    return tuple(out)


def _calls(sizes_inner, begin, end):
    """(start, size0, size1) of each kernel call over the linear range [begin, end) of a
    layout (innermost first), as torch's serial_for_each and DimCounter walk it."""
    nd = len(sizes_inner)
    if nd == 1:
        return [(begin, end - begin, 1)]
    vals = []
    rest = begin
    for s in sizes_inner:
        vals.append(rest % s)
        rest //= s
    out = []
    off = begin
    while off < end:
        step0 = min(sizes_inner[0] - vals[0], end - off)
        step1 = 1
        if step0 == sizes_inner[0]:
            step1 = min(sizes_inner[1] - vals[1], (end - off) // sizes_inner[0])
        out.append((off, step0, step1))
        off += step0 * step1
        i, overflow = (1, step1) if step1 != 1 else (0, step0)
        while i < nd and overflow > 0:
            v = vals[i] + overflow
            if v >= sizes_inner[i]:
                overflow, v = 1, v - sizes_inner[i]
            else:
                overflow = 0
            vals[i] = v
            i += 1
    return out


def _prod(xs):
    out = 1
    for x in xs:
        out *= x
    return out


_CACHE: dict = {}


def plan(shape, strides, unit: int, dims, keepdim: bool, width: int) -> Plan:
    """How torch 2.13 sums an array of `shape` and `strides` (counted in units of `unit`:
    numpy's bytes or the pure backend's elements; non-negative) over `dims` (None for all, an
    int, or a tuple), for vectors of `width` values (`lanes`)."""
    key = (shape, strides, unit, dims, keepdim, width, THREADS)
    p = _CACHE.get(key)
    if p is None:
        nd = len(shape)
        if dims is None:
            dims = range(nd)
        elif type(dims) is int:
            dims = (dims,) if nd else ()
        dims = tuple(sorted({d % nd for d in dims})) if nd else ()
        p = _plan(tuple(shape), tuple(st // unit for st in strides), dims, width, keepdim)
        if len(_CACHE) > 2048:
            _CACHE.clear()
        _CACHE[key] = p
    return p


def _plan(shape, strides, dims, w, keepdim):
    nd = len(shape)
    reduced = set(dims)
    p = Plan()
    out_shape = []
    for d in range(nd):
        if d in reduced:
            if keepdim:
                out_shape.append(1)
        else:
            out_shape.append(shape[d])
    p.out_shape = tuple(out_shape)
    numel = 1
    for s in shape:
        numel *= s
    if numel == 0:
        p.empty = True
        return p
    layout = _iterator_dims(list(shape), list(strides), reduced) if nd else [[1, 0, 0, []]]
    r = 0
    while r < len(layout) and layout[r][1] == 0 and layout[r][0] > 1:
        r += 1
    perm = []
    for entry in reversed(layout):
        perm.extend(entry[3])
    p.perm = tuple(perm)
    p.sizes = tuple(entry[0] for entry in reversed(layout))
    # the kept dims in iteration order (outermost first) and their place in the output
    kept_dims = [d for d in perm if d not in reduced]
    p.kept = tuple(shape[d] for d in kept_dims)
    order = sorted(range(len(kept_dims)), key=lambda i: kept_dims[i])
    p.out_axes = tuple(order)
    if r == 0:
        p.identity = True
        return p
    size0, in0 = layout[0][0], layout[0][2]
    size1, in1 = (layout[1][0], layout[1][2]) if len(layout) > 1 else (1, 0)
    p.size0, p.size1 = size0, size1
    p.fold = r >= 2
    middle = 1
    for entry in layout[2:r]:
        middle *= entry[0]
    p.middle = middle
    p.outer = numel // (middle * size1 * size0)
    itemsize = 32 // w  # bytes per value
    threaded = numel >= GRAIN and THREADS > 1
    if threaded and numel == p.outer * p.middle * p.size1 * p.size0 and _prod(p.kept) == 1:
        p.pieces = _pieces(layout, numel, w)
        p.pieces_method = columns(THREADS, 1, 1, 0, w)[0][2]
    elif threaded and p.fold is False:
        p.columns = _split_columns(layout, size0, size1, in0, in1, w, itemsize)
    else:
        p.columns = columns(size0, size1, in0, in1, w)
    return p


def _pieces(layout, numel, w):
    """Each thread's kernel calls for a sum to one element (two_pass_reduction)."""
    sizes_inner = [entry[0] for entry in layout]
    in0 = layout[0][2]
    in1 = layout[1][2] if len(layout) > 1 else 0
    n = min(THREADS, -(-numel // GRAIN))
    chunk = -(-numel // n)
    out = []
    for t in range(THREADS):
        b = t * chunk
        if t >= n or b >= numel:
            out.append(())
            continue
        calls = []
        for start, s0, s1 in _calls(sizes_inner, b, min(numel, b + chunk)):
            calls.append((start, s0, s1, columns(s0, s1, in0, in1, w)))
        out.append(tuple(calls))
    return tuple(out)
