"""The pure-Python backend agrees with the numpy backend on every function of the backend
contract (engine/backend/contract.py), by hypothesis; the element-wise and reduction tests take
their function lists from the contract's groups, and a test checks that no entry goes uncompared."""

from __future__ import annotations

import math
import os
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from engine.backend import contract
from engine.backend import numpy_backend as N
from engine.backend import pure_backend as P

settings.register_profile(
    "parity", max_examples=60, deadline=None, database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("parity-long", parent=settings.get_profile("parity"), max_examples=600)
# GRADPLAY_PARITY=long runs ten times the examples (for changes to the pure backend)
settings.load_profile("parity-long" if os.environ.get("GRADPLAY_PARITY") == "long" else "parity")

DTYPES = ["float32", "float64", "int64", "bool"]
FLOATS = ["float32", "float64"]
NP = {"float32": np.float32, "float64": np.float64, "int64": np.int64, "bool": np.bool_}
SPECIAL = [0.0, -0.0, 1.0, -1.0, math.nan, math.inf, -math.inf]

shapes = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=3)


def elements(dtype, finite=False):
    if dtype == "bool":
        return st.booleans()
    if dtype == "int64":
        return st.integers(-20, 20)
    width = 32 if dtype == "float32" else 64
    plain = st.floats(-100, 100, width=width)
    if finite:
        return plain
    return st.one_of(plain, st.sampled_from(SPECIAL))


@st.composite
def arrays(draw, dtype=None, shape=None, finite=False):
    """(numpy array, pure array) holding the same values."""
    dtype = dtype or draw(st.sampled_from(DTYPES))
    shape = draw(shapes) if shape is None else shape
    n = draw(hnp.arrays(NP[dtype], shape, elements=elements(dtype, finite)))
    return n, P.reshape(P.array(n.ravel().tolist(), dtype), n.shape)


def pure_to_np(p):
    return np.array(P.tolist(p), dtype=NP[P.dtype_name(p)]).reshape(P.shape(p))


def check(p, n, rtol=None, atol=0.0):
    """p (pure) equals n (numpy) in dtype, shape and values; NaN equals NaN."""
    n = np.asarray(n)
    assert isinstance(p, P.ndarray)
    assert P.dtype_name(p) == N.dtype_name(n)
    assert P.shape(p) == n.shape
    pv = pure_to_np(p)
    if n.dtype.kind == "f":
        if rtol is None:
            rtol = 1e-6 if n.dtype == np.float32 else 1e-12
        np.testing.assert_allclose(pv, n, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(pv, n)


def both(fn_p, fn_n):
    """Run both; they must both succeed (results returned) or both raise the same type."""
    err_p = err_n = None
    rp = rn = None
    try:
        rp = fn_p()
    except Exception as e:  # noqa: BLE001 - the exception type itself is what is compared
        err_p = e
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            rn = fn_n()
        except Exception as e:  # noqa: BLE001
            err_n = e
    if err_n is not None or err_p is not None:
        assert err_p is not None and err_n is not None, (err_p, err_n)
        assert isinstance(err_p, type(err_n)) or isinstance(err_n, type(err_p)), (err_p, err_n)
        return None, None
    return rp, rn


def same_nested(x, y):
    """Nested lists equal, NaN equal to NaN, Python types equal too."""
    if isinstance(x, list) or isinstance(y, list):
        return (isinstance(x, list) and isinstance(y, list) and len(x) == len(y)
                and all(same_nested(a, b) for a, b in zip(x, y)))
    if type(x) is not type(y):
        return False
    return x == y or (x != x and y != y)


def test_both_backends_define_exactly_the_contract():
    contract.check(N)
    contract.check(P)
    assert (N.NAME, P.NAME) == ("numpy", "pure")


def test_a_backend_missing_a_contract_function_is_refused_when_selected():
    import types

    fake = types.ModuleType("fake_backend")
    vars(fake).update({k: v for k, v in vars(P).items() if not k.startswith("_")})
    del fake.sinh
    fake.extra = None
    with pytest.raises(TypeError, match=r"missing \['sinh'\], not in the contract \['extra'\]"):
        contract.check(fake)


def test_every_contract_function_is_compared_here():
    # a function is compared when a test below samples it from its contract group, or calls
    # it by name on both backends
    src = open(__file__, encoding="utf-8").read()
    sampled = {n for g in SAMPLED_GROUPS for n in contract.names(g)}
    called = {n for n in contract.NAMES if f"P.{n}(" in src and f"N.{n}(" in src}
    constants = set(contract.names("constant"))
    assert set(contract.NAMES) - sampled - called - constants == set()


def test_pure_backend_never_imports_numpy():
    src = open(P.__file__, encoding="utf-8").read()
    assert "import numpy" not in src and "from numpy" not in src


# -- element-wise ------------------------------------------------------------------------------

BINARY = contract.names("binary") + contract.names("compare")
UNARY = contract.names("unary")
SAMPLED_GROUPS = ("binary", "compare", "unary", "reduction", "argreduction", "softmax")


@st.composite
def broadcast_pair(draw, finite=False):
    sa, sb = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=4, max_side=3)).input_shapes
    da, db = draw(st.sampled_from(DTYPES)), draw(st.sampled_from(DTYPES))
    return draw(arrays(da, sa, finite)), draw(arrays(db, sb, finite))


@given(st.sampled_from(BINARY), broadcast_pair())
def test_binary_ops_match_numpy_with_broadcasting(op, pair):
    (na, pa), (nb, pb) = pair
    if (op in ("pow", "fmod", "remainder", "floor_divide")
            and "bool" in (P.dtype_name(pa), P.dtype_name(pb))):
        return  # numpy computes bool ** bool (and %, //) in int8, a dtype the engine never has
    rp, rn = both(lambda: getattr(P, op)(pa, pb), lambda: getattr(N, op)(na, nb))
    if rp is not None:
        check(rp, rn)


@given(st.sampled_from(["add", "sub", "mul", "div", "maximum", "minimum", "lt", "eq"]),
       arrays(), st.one_of(st.integers(-5, 5), st.floats(-5, 5), st.booleans()))
def test_binary_ops_with_a_python_scalar_promote_like_numpy(op, arr, s):
    na, pa = arr
    rp, rn = both(lambda: getattr(P, op)(pa, s), lambda: getattr(N, op)(na, s))
    if rp is not None:
        check(rp, rn)


def test_int64_arithmetic_wraps_like_numpy():
    big = [2**62, -(2**63), 2**63 - 1]
    na, pa = np.array(big, dtype=np.int64), P.array(big, "int64")
    for op in ("add", "mul", "sub"):
        check(getattr(P, op)(pa, pa), getattr(N, op)(na, na))
    check(P.neg(pa), N.neg(na))
    check(P.abs(pa), N.abs(na))
    e = P.array([70, 3, 0], "int64")
    check(P.pow(pa, e), N.pow(na, np.array([70, 3, 0])))


def test_ieee_special_cases_never_raise():
    x = P.array([0.0, 1.0, -1.0, -0.0, math.inf, math.nan], "float64")
    z = P.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0], "float64")
    assert [str(v) for v in P.tolist(P.div(x, z))] == ["nan", "inf", "-inf", "nan", "inf", "nan"]
    assert P.tolist(P.log(x))[:4] == [-math.inf, 0.0, P.tolist(P.log(x))[2], -math.inf]
    assert math.isnan(P.tolist(P.log(x))[2]) and math.isnan(P.tolist(P.sqrt(x))[2])
    assert P.tolist(P.exp(P.array([1000.0], "float64"))) == [math.inf]
    assert P.tolist(P.exp(P.array([100.0], "float32"))) == [math.inf]
    assert math.isnan(P.tolist(P.sin(P.array([math.inf], "float32")))[0])
    check(P.pow(x, P.scalar(-1.0, "float64")), N.pow(N.array(P.tolist(x), "float64"),
                                                    N.scalar(-1.0, "float64")))


@given(st.sampled_from(UNARY), arrays())
def test_unary_ops_match_numpy(op, arr):
    na, pa = arr
    if op not in ("abs", "neg", "sign", "sigmoid", "logical_not", "isnan") and na.dtype == np.bool_:
        return  # numpy answers in float16 for bools, a dtype the engine never has
    rp, rn = both(lambda: getattr(P, op)(pa), lambda: getattr(N, op)(na))
    if rp is not None:
        # float32 transcendental functions: numpy's SIMD versions are within a few ulp
        check(rp, rn, atol=1e-6 if na.dtype == np.float32 else 0.0)


@given(broadcast_pair(), st.data())
def test_where_and_clip_match_numpy(pair, data):
    (na, pa), (nb, pb) = pair
    shp = np.broadcast_shapes(na.shape, nb.shape)
    nc, pc = data.draw(arrays("bool", shp))
    check(P.where(pc, pa, pb), N.where(nc, na, nb))
    lo = data.draw(st.one_of(st.none(), st.integers(-5, 5)))
    hi = data.draw(st.one_of(st.none(), st.integers(-5, 5)))
    dt = P.dtype_name(pa)
    plo = None if lo is None else P.scalar(lo, dt)
    phi = None if hi is None else P.scalar(hi, dt)
    nlo = None if lo is None else N.scalar(lo, dt)
    nhi = None if hi is None else N.scalar(hi, dt)
    out = P.clip(pa, plo, phi)
    check(out, N.clip(na, nlo, nhi))
    assert out is not pa


# -- reductions --------------------------------------------------------------------------------

@st.composite
def dims_for(draw, ndim):
    if draw(st.booleans()) or ndim == 0:
        return None if draw(st.booleans()) else ()
    ds = draw(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True))
    return tuple(d - ndim if draw(st.booleans()) else d for d in ds)


@given(st.sampled_from(contract.names("reduction")), arrays(), st.data(), st.booleans())
def test_reductions_match_numpy(op, arr, data, keepdim):
    na, pa = arr
    if op == "mean" and na.dtype == np.bool_:
        return  # numpy_backend divides by bool(count) there; torch refuses a bool mean anyway
    dims = data.draw(dims_for(na.ndim))
    rp, rn = both(lambda: getattr(P, op)(pa, dims, keepdim),
                  lambda: getattr(N, op)(na, dims, keepdim))
    if rp is not None:
        if op in ("sum", "mean") and na.dtype.kind == "f":
            # both backends add in torch's order (sum_order.py): the very same bits
            check(rp, rn)
            np.testing.assert_array_equal(pure_to_np(rp), np.asarray(rn))
        else:
            check(rp, rn)


@given(arrays(), st.data())
def test_cumsum_and_cumprod_match_numpy(arr, data):
    na, pa = arr
    dim = data.draw(st.integers(0, max(na.ndim - 1, 0)))
    check(P.cumsum(pa, dim), N.cumsum(na, dim))
    check(P.cumprod(pa, dim), N.cumprod(na, dim))


def test_float32_running_sums_are_accumulated_in_float64():
    big = [1e8, 1.0, 1.0, 1.0, -1e8]
    for mod in (P, N):
        assert mod.tolist(mod.cumsum(mod.array(big, "float32"), 0))[-1] == 3.0


@given(st.sampled_from(FLOATS), st.data(), st.booleans())
def test_float_sums_of_contiguous_arrays_match_numpy_bit_for_bit(dt, data, keepdim):
    # the oracle compares printed values, so the summation order must be numpy's own
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=40).filter(
        lambda s: int(np.prod(s)) <= 2000))
    na, pa = data.draw(arrays(dt, shape, finite=True))
    dims = data.draw(dims_for(na.ndim))
    for op in ("sum", "mean"):
        rp, rn = getattr(P, op)(pa, dims, keepdim), getattr(N, op)(na, dims, keepdim)
        check(rp, rn, rtol=0)


@given(st.sampled_from(contract.names("argreduction")), arrays(), st.data(), st.booleans())
def test_argmax_argmin_return_the_first_extreme_with_nan_as_extreme(op, arr, data, keepdim):
    na, pa = arr
    if na.ndim == 0:
        return
    dim = data.draw(st.integers(-na.ndim, na.ndim - 1))
    rp, rn = both(lambda: getattr(P, op)(pa, dim, keepdim),
                  lambda: getattr(N, op)(na, dim, keepdim))
    if rp is not None:
        check(rp, rn)


def test_argmax_ties_and_nan():
    x = [[1.0, 3.0, 3.0, math.nan, math.nan], [2.0, -0.0, 0.0, 2.0, 1.0]]
    for op in ("argmax", "argmin"):
        check(getattr(P, op)(P.array(x, "float64"), 1, False),
              getattr(N, op)(np.array(x), 1, False))


@given(st.sampled_from(contract.names("softmax")), st.sampled_from(FLOATS), st.data())
def test_softmax_and_log_softmax_match_numpy(op, dt, data):
    na, pa = data.draw(arrays(dt))
    dim = data.draw(st.integers(-na.ndim, na.ndim - 1)) if na.ndim else data.draw(
        st.sampled_from([0, -1]))
    rp, rn = both(lambda: getattr(P, op)(pa, dim), lambda: getattr(N, op)(na, dim))
    if rp is not None:
        check(rp, rn, rtol=1e-5, atol=1e-5)


# -- linear algebra ----------------------------------------------------------------------------

@given(st.data(), st.sampled_from(DTYPES), st.sampled_from(DTYPES))
def test_matmul_matches_numpy_with_batch_broadcasting(data, da, db):
    k = data.draw(st.integers(0, 3))
    n, m = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    bshapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=2,
                                                          max_side=2)).input_shapes
    sa = (k,) if data.draw(st.booleans()) else bshapes[0] + (n, k)
    sb = (k,) if data.draw(st.booleans()) else bshapes[1] + (k, m)
    na, pa = data.draw(arrays(da, sa, finite=True))
    nb, pb = data.draw(arrays(db, sb, finite=True))
    rp, rn = both(lambda: P.matmul(pa, pb), lambda: N.matmul(na, nb))
    if rp is not None:
        check(rp, rn, rtol=1e-5, atol=1e-3)


def test_matmul_shape_errors_raise_value_error():
    for sa, sb in [((2, 3), (2, 3)), ((), (3,)), ((2, 2, 3), (3, 3, 1))]:
        pa, pb, na, nb = (P.zeros(sa, "float32"), P.zeros(sb, "float32"),
                          N.zeros(sa, "float32"), N.zeros(sb, "float32"))
        both(lambda pa=pa, pb=pb: P.matmul(pa, pb), lambda na=na, nb=nb: N.matmul(na, nb))
        with pytest.raises(ValueError):
            P.matmul(P.zeros(sa, "float32"), P.zeros(sb, "float32"))


# -- creation and conversion ------------------------------------------------------------------

@given(st.sampled_from(DTYPES), shapes, st.integers(-3, 3))
def test_creation_matches_numpy(dt, shape, v):
    check(P.zeros(shape, dt), N.zeros(shape, dt))
    check(P.ones(shape, dt), N.ones(shape, dt))
    check(P.full(shape, v, dt), N.full(shape, v, dt))
    check(P.scalar(v, dt), N.scalar(v, dt))
    check(P.eye(len(shape) + 1, 3, dt), N.eye(len(shape) + 1, 3, dt))


@given(st.sampled_from(["float32", "float64", "int64"]), st.integers(-5, 5), st.integers(-5, 10),
       st.sampled_from([1, 2, 3, -1, -2, 0.5, 0.1, -0.3]), st.integers(0, 7),
       st.floats(-3, 3), st.floats(-3, 3))
def test_arange_and_linspace_match_numpy(dt, start, end, step, steps, lo, hi):
    if dt != "int64" or isinstance(step, int):
        check(P.arange(start, end, step, dt), N.arange(start, end, step, dt))
    if dt != "int64":
        check(P.linspace(lo, hi, steps, dt), N.linspace(lo, hi, steps, dt), rtol=1e-12)
        check(P.linspace(lo, lo, steps, dt), N.linspace(lo, lo, steps, dt))


@given(arrays(), st.sampled_from(DTYPES))
def test_astype_copy_tolist_item_and_metadata_match_numpy(arr, dt):
    na, pa = arr
    check(P.astype(pa, dt), N.astype(na, dt))
    c = P.copy(pa)
    check(c, N.copy(na))
    assert P.is_contiguous(c)
    assert same_nested(P.tolist(P.astype(pa, dt)), N.tolist(N.astype(na, dt)))
    assert (P.shape(pa), P.ndim(pa), P.numel(pa)) == (N.shape(na), N.ndim(na), N.numel(na))
    assert (pa.shape, pa.ndim, pa.size, pa.dtype) == (na.shape, na.ndim, na.size,
                                                      N.dtype_name(na))
    if na.size == 1:
        assert P.item(pa) == pytest.approx(N.item(na), nan_ok=True)
        assert type(P.item(pa)) is type(N.item(na))
    else:
        both(lambda: P.item(pa), lambda: N.item(na))


def test_astype_of_nan_and_inf_to_int64_gives_int64_min_like_numpy():
    x = [math.nan, math.inf, -math.inf, 1e30, -2.7, 2.7]
    check(P.astype(P.array(x, "float64"), "int64"), N.astype(np.array(x), "int64"))
    check(P.astype(P.array(x, "float64"), "bool"), N.astype(np.array(x), "bool"))
    check(P.astype(P.array([1e300, -1e300], "float64"), "float32"),
          N.astype(np.array([1e300, -1e300]), "float32"))


@given(st.sampled_from(["float16", "float32", "float64", "int8", "int32", "uint8", "int64",
                        "bool"]), shapes)
def test_from_numpy_like_matches_numpy(npdt, shape):
    x = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape).astype(npdt)
    ap, name_p = P.from_numpy_like(x)
    an, name_n = N.from_numpy_like(x)
    assert name_p == name_n
    check(ap, an)


@given(st.sampled_from(DTYPES), st.data())
def test_array_from_nested_lists_matches_numpy(dt, data):
    na, _ = data.draw(arrays(dt))
    nested = na.tolist()
    check(P.array(nested, dt), N.array(nested, dt))
    back = P.tolist(P.reshape(P.array(na.ravel().tolist(), dt), na.shape))
    assert same_nested(back, nested)


def test_is_array_and_to_numpy_match_numpy():
    pa, na = P.array([[1.5, -2.0]], "float64"), N.array([[1.5, -2.0]], "float64")
    assert P.is_array(pa) and N.is_array(na)
    assert not P.is_array(na) and not N.is_array(pa) and not N.is_array([1.0])
    assert P.tolist(P.to_numpy(pa)) == N.to_numpy(na).tolist()
    assert isinstance(N.to_numpy(na), np.ndarray)


def test_overlaps_matches_numpy_for_expanded_views():
    for shape, to in [((1, 3), (2, 3)), ((3,), (2, 3)), ((1, 1), (1, 1)), ((2, 1), (2, 4))]:
        pa, na = P.zeros(shape, "float32"), N.zeros(shape, "float32")
        assert P.overlaps(P.expand(pa, to)) == N.overlaps(N.expand(na, to))
        assert P.overlaps(pa) == N.overlaps(na) is False
    assert P.overlaps(P.expand(P.zeros((3,), "float32"), (2, 3))) is True


def test_ragged_array_raises_value_error_like_numpy():
    both(lambda: P.array([[1, 2], [3]], "float32"), lambda: N.array([[1, 2], [3]], "float32"))
    with pytest.raises(ValueError):
        P.array([[1, 2], [3]], "float32")


def test_quiet_is_a_context_manager():
    with P.quiet():
        P.div(P.scalar(0.0, "float32"), P.scalar(0.0, "float32"))
    assert P.to_numpy(P.scalar(1, "int64")).tolist() == 1
    assert P.is_array(P.zeros((1,), "bool")) and not P.is_array([1])


# -- shapes, views and indexing ---------------------------------------------------------------

@st.composite
def reshape_target(draw, shape):
    size = int(np.prod(shape))
    dims = []
    rest = size
    while rest > 1 and len(dims) < 4:
        divisors = [d for d in range(2, rest + 1) if rest % d == 0]
        d = draw(st.sampled_from(divisors))
        dims.append(d)
        rest //= d
    if size == 0:
        dims = draw(st.sampled_from([[0], [0, 2], [3, 0], [1, 0, 1]]))
    dims += [1] * draw(st.integers(0, 1))
    dims = draw(st.permutations(dims)) if dims else []
    if dims and draw(st.booleans()) and size:
        dims[draw(st.integers(0, len(dims) - 1))] = -1
    return tuple(dims)


@st.composite
def strided_view(draw, dtype=None):
    """(numpy view, pure view): a random array after random transposes and stepped slices."""
    na, pa = draw(arrays(dtype))
    for _ in range(draw(st.integers(0, 2))):
        if na.ndim >= 2 and draw(st.booleans()):
            d0, d1 = draw(st.integers(0, na.ndim - 1)), draw(st.integers(0, na.ndim - 1))
            na, pa = N.transpose(na, d0, d1), P.transpose(pa, d0, d1)
        elif na.ndim >= 1:
            d = draw(st.integers(0, na.ndim - 1))
            sl = slice(draw(st.one_of(st.none(), st.integers(-4, 4))),
                       draw(st.one_of(st.none(), st.integers(-4, 4))),
                       draw(st.sampled_from([None, 1, 2, -1, -2])))
            ix = (slice(None),) * d + (sl,)
            na, pa = N.getitem(na, ix), P.getitem(pa, ix)
    return na, pa


@given(strided_view(), st.data())
def test_reshape_and_view_match_numpy_including_when_no_view_exists(arr, data):
    na, pa = arr
    target = data.draw(reshape_target(na.shape))
    check(P.reshape(pa, target), N.reshape(na, target))
    vp, vn = both(lambda: P.view(pa, target), lambda: N.view(na, target))
    assert (vp is None) == (vn is None)
    if vp is not None:
        check(vp, vn)
        assert P.is_contiguous(vp) == N.is_contiguous(vn)
    assert P.is_contiguous(pa) == N.is_contiguous(na)
    check(P.contiguous(pa), N.contiguous(na))
    assert P.is_contiguous(P.contiguous(pa))


@given(strided_view(), st.data())
def test_transpose_permute_expand_match_numpy(arr, data):
    na, pa = arr
    if na.ndim:
        d0, d1 = data.draw(st.integers(-na.ndim, na.ndim - 1)), data.draw(
            st.integers(-na.ndim, na.ndim - 1))
        check(P.transpose(pa, d0, d1), N.transpose(na, d0, d1))
        perm = data.draw(st.permutations(range(na.ndim)))
        check(P.permute(pa, perm), N.permute(na, perm))
        assert P.is_contiguous(P.permute(pa, perm)) == N.is_contiguous(N.permute(na, perm))
    lead = data.draw(st.lists(st.integers(0, 3), max_size=2))
    target = tuple(lead) + tuple(
        data.draw(st.integers(0, 3)) if d == 1 else d for d in na.shape)
    rp, rn = both(lambda: P.expand(pa, target), lambda: N.expand(na, target))
    if rp is not None:
        check(rp, rn)
        assert P.is_contiguous(rp) == N.is_contiguous(rn)


@given(strided_view(), st.data())
def test_diagonal_matches_numpy_and_writes_through(arr, data):
    na, pa = arr
    if na.ndim < 2:
        return
    d1 = data.draw(st.integers(0, na.ndim - 1))
    d2 = data.draw(st.integers(0, na.ndim - 1).filter(lambda d: d != d1))
    offset = data.draw(st.integers(-4, 4))
    dp, dn = P.diagonal(pa, offset, d1, d2), N.diagonal(na, offset, d1, d2)
    check(dp, dn)
    assert dn.shape == np.diagonal(na, offset, d1, d2).shape
    np.testing.assert_array_equal(dn, np.diagonal(na, offset, d1, d2))
    # a view: a write through it shows in the array it was taken from, on both backends
    cp, cn = P.copy(pa), N.copy(na)
    P.assign(P.diagonal(cp, offset, d1, d2), 1)
    N.assign(N.diagonal(cn, offset, d1, d2), 1)
    check(cp, cn)


@given(st.lists(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3), min_size=1,
                max_size=3))
def test_broadcast_shapes_match_numpy_including_the_error(shape_list):
    rp, rn = both(lambda: P.broadcast_shapes(*shape_list),
                  lambda: N.broadcast_shapes(*shape_list))
    assert rp == rn
    if rp is None:
        with pytest.raises(ValueError) as ep:
            P.broadcast_shapes(*shape_list)
        with pytest.raises(ValueError) as en:
            N.broadcast_shapes(*shape_list)
        assert str(ep.value) == str(en.value)


@st.composite
def index_for(draw, shape):
    """A random numpy-style index for an array of `shape` (sometimes out of bounds)."""
    items = []
    nd = len(shape)
    used = draw(st.integers(0, nd))
    for d in range(used):
        size = shape[d]
        kind = draw(st.sampled_from(["int", "slice", "slice", "list", "array", "mask", "none"]))
        if kind == "int":
            items.append(draw(st.integers(-size - 1, size)))
        elif kind == "slice":
            items.append(slice(draw(st.one_of(st.none(), st.integers(-size - 2, size + 2))),
                               draw(st.one_of(st.none(), st.integers(-size - 2, size + 2))),
                               draw(st.sampled_from([None, 1, 2, 3, -1, -2]))))
        elif kind in ("list", "array"):
            n = draw(st.integers(0, 3))
            vals = draw(st.lists(st.integers(-size, max(size - 1, -size)), min_size=n,
                                 max_size=n)) if size else []
            if kind == "list":
                items.append(vals)
            else:
                two_d = len(vals) == 2 and draw(st.booleans())
                items.append(("arr", vals, two_d))
        elif kind == "mask":
            items.append(("mask", draw(st.lists(st.booleans(), min_size=size, max_size=size))))
        else:
            items.append(None)
            items.append(slice(None))
    if draw(st.booleans()) and used < nd:
        items.append(Ellipsis)
        if draw(st.booleans()):
            items.append(None)
    return items


def realize(items, mod):
    out = []
    for it in items:
        if isinstance(it, tuple) and it[0] == "arr":
            vals = it[1]
            if mod is P:
                a = P.array(vals, "int64")
                out.append(P.reshape(a, (2, 1)) if it[2] else a)
            else:
                a = np.array(vals, dtype=np.int64)
                out.append(a.reshape(2, 1) if it[2] else a)
        elif isinstance(it, tuple) and it[0] == "mask":
            out.append(P.array(it[1], "bool") if mod is P else np.array(it[1], dtype=bool))
        else:
            out.append(it)
    return tuple(out)


@given(strided_view(), st.data())
def test_getitem_matches_numpy(arr, data):
    na, pa = arr
    items = data.draw(index_for(na.shape))
    rp, rn = both(lambda: P.getitem(pa, realize(items, P)), lambda: N.getitem(na, realize(items, N)))
    if rp is not None:
        check(rp, rn)


@given(strided_view(), st.data(), st.booleans())
def test_setitem_and_index_add_match_numpy(arr, data, scalar_value):
    na, pa = arr
    na = na.copy()
    pa = P.copy(pa)
    items = data.draw(index_for(na.shape))
    rp, rn = both(lambda: P.getitem(pa, realize(items, P)), lambda: N.getitem(na, realize(items, N)))
    if rp is None:
        return
    dt = P.dtype_name(pa)
    vshape = () if scalar_value else np.asarray(rn).shape
    nv, pv = data.draw(arrays(dt, vshape))
    P.setitem(pa, realize(items, P), pv)
    N.setitem(na, realize(items, N), nv)
    check(pa, na)
    if dt == "bool":
        return
    rp, rn = both(lambda: P.index_add(na.shape, realize(items, P), pv, dt),
                  lambda: N.index_add(na.shape, realize(items, N), nv, dt))
    if rp is not None:
        check(rp, rn, rtol=1e-5, atol=1e-4)


def test_index_add_accumulates_repeated_indices():
    idx = [0, 2, 0, 0]
    v = [1.5, 2.0, 3.0, 4.0]
    check(P.index_add((3,), P.array(idx, "int64"), P.array(v, "float32"), "float32"),
          N.index_add((3,), np.array(idx), np.array(v, dtype=np.float32), "float32"))


@given(strided_view(), st.data())
def test_writes_through_a_view_are_seen_by_the_base_and_other_views(arr, data):
    na, pa = arr
    if na.size == 0:
        return
    base_n, base_p = na.copy(), P.copy(pa)
    # two overlapping views of one base: a transpose and a stepped slice of it
    vn = N.transpose(base_n, 0, -1) if base_n.ndim else base_n
    vp = P.transpose(base_p, 0, -1) if P.ndim(base_p) else base_p
    ix = (slice(None, None, data.draw(st.sampled_from([1, 2, -1]))),) if base_n.ndim else ()
    wn, wp = N.getitem(vn, ix), P.getitem(vp, ix)
    dt = P.dtype_name(base_p)
    nv, pv = data.draw(arrays(dt, data.draw(st.sampled_from([(), np.asarray(wn).shape]))))
    N.assign(wn, nv)
    P.assign(wp, pv)
    check(base_p, base_n)
    check(vp, vn)
    # a view's own storage written onto a transposed view of it (overlapping source)
    if base_n.ndim >= 2 and base_n.shape[0] == base_n.shape[-1]:
        N.assign(base_n, N.transpose(base_n, 0, -1).copy())
        P.assign(base_p, P.transpose(base_p, 0, -1))
        check(base_p, base_n)


def test_assign_broadcasts_and_casts():
    n = np.zeros((2, 3), dtype=np.int64)
    p = P.zeros((2, 3), "int64")
    N.assign(n, np.array([1.7, -2.7, 3.2]))
    P.assign(p, P.array([1.7, -2.7, 3.2], "float64"))
    check(p, n)
    with pytest.raises(ValueError):
        P.assign(p, P.zeros((3, 2), "int64"))


@given(st.data(), st.integers(1, 3), st.sampled_from(DTYPES), st.sampled_from(DTYPES))
def test_concat_and_stack_match_numpy(data, count, da, db):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=3))
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    ns, ps = [], []
    for i in range(count):
        s = list(shape)
        s[dim] = data.draw(st.integers(0, 3))
        n, p = data.draw(arrays(da if i % 2 == 0 else db, tuple(s)))
        ns.append(n)
        ps.append(p)
    check(P.concat(ps, dim), N.concat(ns, dim))
    sd = data.draw(st.integers(-len(shape) - 1, len(shape)))
    rp, rn = both(lambda: P.stack(ps, sd), lambda: N.stack(ns, sd))
    if rp is not None:
        check(rp, rn)


@given(strided_view())
def test_strides_and_offset_match_numpy(arr):
    na, pa = arr
    if na.size == 0:  # numpy's pointer into no memory at all means nothing
        return
    stepped = [s for s, n in zip(N.strides(na), na.shape) if n > 1]
    assert [s for s, n in zip(P.strides(pa), na.shape) if n > 1] == stepped
    assert P.offset(pa) == N.offset(na)


@given(st.sampled_from(FLOATS), st.data())
def test_fma_rounds_once_on_both_backends(dt, data):
    (na, pa), (nb, pb), (nc, pc) = (data.draw(arrays(dt, shape=s)) for s in ((3,), (2, 3), (1,)))
    rp, rn = P.fma(pa, pb, pc), N.fma(na, nb, nc)
    check(rp, rn, rtol=0.0)
    if dt == "float64":  # one rounding of the exact value
        from fractions import Fraction
        for got, x, y, z in zip(rn.ravel().tolist(), np.broadcast_to(na, (2, 3)).ravel().tolist(),
                                nb.ravel().tolist(), np.broadcast_to(nc, (2, 3)).ravel().tolist()):
            if all(math.isfinite(v) for v in (x, y, z, got)):
                assert got == float(Fraction(x) * Fraction(y) + Fraction(z))


@given(st.sampled_from(FLOATS), st.sampled_from([(1, 1), (2, 2), (3, 2), (2, 4), (2, 3, 3)]),
       st.data())
def test_svd_matches_numpy(dt, shape, data):
    na, pa = data.draw(arrays(dt, shape=shape, finite=True))
    pu, ps, pvh = P.svd(pa)
    nu, ns, nvh = N.svd(na)
    check(ps, ns, rtol=1e-5 if dt == "float32" else 1e-12, atol=1e-12 * max(1.0, ns.max()))
    # the singular vectors' signs are each library's choice: compare U diag(S) Vh instead
    back = np.matmul(pure_to_np(pu) * pure_to_np(ps)[..., None, :], pure_to_np(pvh))
    np.testing.assert_allclose(back, na, atol=1e-4 * max(1.0, float(np.abs(na).max())))
