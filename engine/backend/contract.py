"""The array backend contract: every name a backend module must define, and what it means.

A backend is a module of plain functions over its own array type. The engine calls nothing
else on arrays, so a new backend is this list implemented. `engine.backend.use()` checks a
module against the list when it is selected, and tests/test_backend_parity.py compares the
backends on every entry (it fails when an entry has no comparison).

Shared conventions:
- dtypes are passed and returned as names: "float32", "float64", "int64", "bool";
- `a`, `b` are arrays; `dims` is None (all dims) or a tuple of dims in range (not negative);
  `dim` is one dim in range; shapes are tuples of ints;
- results are fresh arrays unless an entry says "view" (then the result shares memory with
  its argument, and writing through one shows in the other);
- element-wise functions broadcast like numpy and promote dtypes like numpy (the engine casts
  its operands to torch's result dtype first, so this only matters for Python scalars);
- float arithmetic follows IEEE 754 and never raises: 1/0 is inf, 0/0 and log(-1) are nan;
  int64 wraps around on overflow.
"""

from __future__ import annotations

from collections import namedtuple

Entry = namedtuple("Entry", "name group meaning")

# groups: "constant", "creation", "conversion", "metadata", "unary", "binary", "compare",
# "select", "fused", "reduction", "argreduction", "scan", "softmax", "linalg", "decomposition",
# "shape", "index"; the parity tests call every function of a group the same way (a new "unary"
# entry is compared without writing a test)
CONTRACT = (
    # -- constants -------------------------------------------------------------------------
    Entry("NAME", "constant", "the backend's name, as given to engine.use_backend"),
    Entry("ndarray", "constant", "the array type (isinstance checks)"),
    Entry("quiet", "constant",
          "quiet() -> context manager under which float errors (overflow, 0/0) are silent"),
    # -- creation --------------------------------------------------------------------------
    Entry("array", "creation", "array(nested lists or numbers, dtype) -> array of that dtype; "
          "ragged lists raise ValueError"),
    Entry("scalar", "creation", "scalar(number, dtype) -> 0-dim array"),
    Entry("zeros", "creation", "zeros(shape, dtype)"),
    Entry("ones", "creation", "ones(shape, dtype)"),
    Entry("full", "creation", "full(shape, value, dtype)"),
    Entry("arange", "creation", "arange(start, end, step, dtype): start + k*step computed in "
          "float64 (int64 for int64), then cast"),
    Entry("linspace", "creation", "linspace(start, end, steps, dtype): torch's CPU kernel, bit "
          "for bit: step = (end - start) / (steps - 1) in dtype's float type; the first steps // 2 "
          "points start + step*i, the rest end - step*(steps-1-i), each product and sum rounded "
          "once; int64 computes in float64 from the truncated bounds, then truncates"),
    Entry("eye", "creation", "eye(n, m, dtype): ones on the main diagonal of an n x m array"),
    Entry("from_numpy_like", "creation", "from_numpy_like(obj with __array__) -> (array, dtype "
          "name): float16 becomes float32, other floats float64, integers int64"),
    Entry("index_add", "creation", "index_add(shape, index, values, dtype) -> zeros(shape) "
          "with values added at index (a getitem index); repeated positions accumulate"),
    # -- conversion ------------------------------------------------------------------------
    Entry("astype", "conversion", "astype(a, dtype) -> a fresh array; float to int truncates, "
          "nan and inf become int64's minimum; nonzero is True"),
    Entry("copy", "conversion", "copy(a) -> a fresh contiguous array"),
    Entry("contiguous", "conversion", "contiguous(a) -> a itself when contiguous, else a copy"),
    Entry("tolist", "conversion", "tolist(a) -> nested Python lists of float, int or bool "
          "(a number for a 0-dim array)"),
    Entry("item", "conversion", "item(a) -> the Python number of a one-element array; "
          "ValueError otherwise"),
    Entry("to_numpy", "conversion", "to_numpy(a) -> what Tensor.numpy() returns: a numpy "
          "array sharing a's memory; the pure backend, which never imports numpy, returns a"),
    Entry("assign", "conversion", "assign(dst, src) -> None: write src, broadcast and cast to "
          "dst's dtype, into dst's memory (every view of dst sees it)"),
    Entry("setitem", "conversion", "setitem(a, index, values) -> None: a[index] = values in "
          "place"),
    # -- metadata --------------------------------------------------------------------------
    Entry("is_array", "metadata", "is_array(x) -> whether x is a backend array"),
    Entry("dtype_name", "metadata", "dtype_name(a) -> a's dtype name"),
    Entry("shape", "metadata", "shape(a) -> tuple of ints"),
    Entry("ndim", "metadata", "ndim(a) -> int"),
    Entry("numel", "metadata", "numel(a) -> number of elements"),
    Entry("is_contiguous", "metadata", "is_contiguous(a) -> whether a is laid out row-major "
          "without gaps"),
    Entry("overlaps", "metadata", "overlaps(a) -> whether two of a's elements are one memory "
          "location (a dim of size > 1 and stride 0, as expand makes; never when a is empty)"),
    Entry("strides", "metadata", "strides(a) -> tuple: how many elements one step along each "
          "dim moves in memory (0 along an expanded dim)"),
    Entry("offset", "metadata", "offset(a) -> int: where a's first element sits in the memory "
          "it shares with its views, counted in elements"),
    Entry("broadcast_shapes", "metadata", "broadcast_shapes(*shapes) -> the broadcast shape; "
          "ValueError when they do not broadcast"),
    # -- element-wise, one argument --------------------------------------------------------
    Entry("neg", "unary", "neg(a) -> -a (int64 wraps)"),
    Entry("abs", "unary", "abs(a) -> |a| (int64's minimum stays negative)"),
    Entry("sign", "unary", "sign(a) -> -1, 0 or 1 in a's dtype; nan stays nan"),
    Entry("exp", "unary", "exp(a); int and bool input compute in float64 (the engine passes "
          "floats)"),
    Entry("log", "unary", "log(a); log(0) = -inf, log(x<0) = nan"),
    Entry("sqrt", "unary", "sqrt(a); sqrt(x<0) = nan"),
    Entry("sin", "unary", "sin(a); sin(inf) = nan"),
    Entry("cos", "unary", "cos(a); cos(inf) = nan"),
    Entry("sinh", "unary", "sinh(a); overflows to +-inf"),
    Entry("cosh", "unary", "cosh(a); overflows to inf"),
    Entry("log1p", "unary", "log1p(a) = log(1 + a), exact for small a; -1 gives -inf, below "
          "-1 nan"),
    Entry("expm1", "unary", "expm1(a) = exp(a) - 1, exact for small a; overflows to inf"),
    Entry("floor", "unary", "floor(a); ints and bools compute in float64, as numpy"),
    Entry("ceil", "unary", "ceil(a); ceil(-0.5) is -0.0"),
    Entry("rint", "unary", "rint(a): round half to even; rint(-0.4) is -0.0"),
    Entry("trunc", "unary", "trunc(a): round toward zero; trunc(-0.5) is -0.0"),
    Entry("tan", "unary", "tan(a); tan(inf) = nan"),
    Entry("arcsin", "unary", "arcsin(a); outside [-1, 1] nan"),
    Entry("arccos", "unary", "arccos(a); outside [-1, 1] nan"),
    Entry("arctan", "unary", "arctan(a)"),
    Entry("log2", "unary", "log2(a); log2(0) = -inf, below 0 nan"),
    Entry("log10", "unary", "log10(a); log10(0) = -inf, below 0 nan"),
    Entry("erf", "unary", "erf(a), the error function, in float64 and rounded once to a's "
          "float dtype"),
    Entry("tanh", "unary", "tanh(a)"),
    Entry("sigmoid", "unary", "sigmoid(a) = 1 / (1 + exp(-a)) in a's dtype (0 for very "
          "negative a, no warning)"),
    Entry("logical_not", "unary", "logical_not(a) -> bool array"),
    Entry("isnan", "unary", "isnan(a) -> bool array"),
    # -- element-wise, two arguments (arrays or Python numbers) ----------------------------
    Entry("add", "binary", "add(a, b)"),
    Entry("arctan2", "binary", "arctan2(a, b): the angle of (b, a); integers and bools compute "
          "in float64"),
    Entry("sub", "binary", "sub(a, b)"),
    Entry("mul", "binary", "mul(a, b)"),
    Entry("div", "binary", "div(a, b): true division (ints give float64)"),
    Entry("pow", "binary", "pow(a, b): a ** b; int64 wraps"),
    Entry("fmod", "binary", "fmod(a, b): C's fmod, the remainder of a / b rounded toward zero (the "
          "sign of a); integers: a % b truncated, 0 when b is 0 (the engine raises first)"),
    Entry("remainder", "binary", "remainder(a, b): fmod(a, b), plus b where that is nonzero and "
          "of the other sign than b (torch's formula: a zero keeps fmod's sign); integers as "
          "Python's %, 0 when b is 0"),
    Entry("floor_divide", "binary", "floor_divide(a, b): Python's // (floor of a / b computed "
          "from fmod, as numpy and torch); a float b of 0 gives a / b, an integer one 0"),
    Entry("maximum", "binary", "maximum(a, b): nan if either is nan"),
    Entry("minimum", "binary", "minimum(a, b): nan if either is nan"),
    Entry("eq", "compare", "eq(a, b) -> bool array"),
    Entry("ne", "compare", "ne(a, b) -> bool array"),
    Entry("lt", "compare", "lt(a, b) -> bool array"),
    Entry("le", "compare", "le(a, b) -> bool array"),
    Entry("gt", "compare", "gt(a, b) -> bool array"),
    Entry("ge", "compare", "ge(a, b) -> bool array"),
    Entry("fma", "fused", "fma(a, b, c) -> a * b + c rounded once (torch's CPU kernels fuse "
          "them), for float32 or float64 arrays of one dtype, broadcast; inf and nan as a * b + c"),
    # -- selection -------------------------------------------------------------------------
    Entry("where", "select", "where(cond, a, b): a where cond else b, broadcast"),
    Entry("clip", "select", "clip(a, lo, hi): lo and hi are 0-dim arrays or None; always a "
          "fresh array"),
    # -- reductions ------------------------------------------------------------------------
    Entry("sum", "reduction", "sum(a, dims, keepdim): float sums in torch's CPU order of "
          "additions, bit for bit (sum_order.py); bool and int sum to int64"),
    Entry("mean", "reduction", "mean(a, dims, keepdim) = sum / count, in a's float dtype, as "
          "torch's CPU mean; mean of nothing is nan"),
    Entry("prod", "reduction", "prod(a, dims, keepdim): products; float32 multiplied in "
          "float64 and rounded once; int64 wraps (bools multiply as int64)"),
    Entry("amax", "reduction", "amax(a, dims, keepdim); nan wins; ValueError on empty"),
    Entry("amin", "reduction", "amin(a, dims, keepdim); nan wins; ValueError on empty"),
    Entry("argmax", "argreduction", "argmax(a, dim, keepdim) -> int64: the first maximum, nan "
          "counts as maximal"),
    Entry("argmin", "argreduction", "argmin(a, dim, keepdim) -> int64: the first minimum, nan "
          "counts as minimal"),
    Entry("cumsum", "scan", "cumsum(a, dim): running sums along dim, left to right; float32 "
          "accumulated in float64 and rounded per element (torch's CPU kernel); bool and int "
          "give int64"),
    Entry("cumprod", "scan", "cumprod(a, dim): running products along dim, as cumsum"),
    Entry("softmax", "softmax", "softmax(a, dim), shifted by the finite max"),
    Entry("log_softmax", "softmax", "log_softmax(a, dim), shifted by the finite max"),
    # -- linear algebra --------------------------------------------------------------------
    Entry("matmul", "linalg", "matmul(a, b) with numpy's rules (batch dims broadcast); "
          "ValueError on mismatched sizes; keeps the sign of zero products"),
    Entry("svd", "decomposition", "svd(a) -> (U, S, Vh) of the last two dims (batched over "
          "the others), reduced (k = min(m, n) columns of U, rows of Vh), S descending, "
          "float32 computed in float64 and rounded; a's dtype float32 or float64"),
    # -- shapes (views where the layout allows) --------------------------------------------
    Entry("reshape", "shape", "reshape(a, shape): a view when possible, else a copy"),
    Entry("view", "shape", "view(a, shape): a view, or None when the layout needs a copy"),
    Entry("transpose", "shape", "transpose(a, d0, d1): a view with two dims swapped"),
    Entry("permute", "shape", "permute(a, dims): a view with dims reordered"),
    Entry("expand", "shape", "expand(a, shape): a broadcast view (size-1 dims repeat without "
          "copying), writable when a is: the engine refuses the writes torch refuses"),
    Entry("diagonal", "shape", "diagonal(a, offset, d1, d2): a writable view of the diagonal of "
          "dims d1 and d2 (d1 != d2, in range) starting at column `offset` (row -offset when "
          "negative); the other dims first, the diagonal last, as numpy.diagonal"),
    Entry("concat", "shape", "concat(arrays, dim): joined along an existing dim"),
    Entry("stack", "shape", "stack(arrays, dim): joined along a new dim"),
    # -- indexing --------------------------------------------------------------------------
    Entry("getitem", "index", "getitem(a, index): numpy indexing (ints, slices, None, ..., "
          "int64 and bool arrays); a view for basic indices; always an array, 0-dim for "
          "all-int indices"),
)

NAMES = tuple(e.name for e in CONTRACT)


def names(group: str) -> tuple:
    """The names of one group, in contract order."""
    return tuple(e.name for e in CONTRACT if e.group == group)


def check(module) -> None:
    """Raise TypeError unless `module` defines every contract name and nothing else public."""
    public = {k for k in vars(module) if not k.startswith("_") and k not in ("annotations", "np")}
    missing = [n for n in NAMES if n not in public]
    extra = sorted(public - set(NAMES))
    if missing or extra:
        raise TypeError(
            f"array backend {module.__name__} does not match engine/backend/contract.py: "
            f"missing {missing or 'nothing'}, not in the contract {extra or 'nothing'}"
        )
