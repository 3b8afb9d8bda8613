"""The jnp functions added for NumPy coverage (statistics, polynomials, convolution, numerical
and array helpers) vs NumPy on hypothesis-drawn inputs, eagerly and under jit, from one table;
then grad and vmap spot checks and the concrete-only / size= behaviours."""

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minijax
import minijax.numpy as jnp
from tests.numpy._helpers import check
from tests.ops.op_db import array, shapes

F32 = np.float32


_SHAPES = [(), (1,), (4,), (7,), (3, 4), (4, 4), (4, 3), (1, 1), (2, 3, 4), (3, 3, 3), (4, 10),
           (5,), (2, 5), (3,), (5, 2)]


def floats(min_dims=1, max_dims=2, max_side=5, lo=-4, hi=4, dtypes=(F32,)):
    @st.composite
    def strat(draw):
        dtype = draw(st.sampled_from(dtypes))
        shape = draw(st.sampled_from([s for s in _SHAPES if min_dims <= len(s) <= max_dims
                                      and all(d <= max_side for d in s)]))
        x = draw(array(shape, dtype, lo, hi))
        return (np.round(x.astype(F32) * 8) / 8).astype(dtype)  # no subnormals (XLA CPU FTZ)
    return strat()


def with_nans(strat):
    @st.composite
    def s(draw):
        x = np.array(draw(strat))
        mask = draw(array(x.shape, np.bool_))
        x[mask & (np.arange(x.size).reshape(x.shape) % 3 == 0)] = np.nan
        return x
    return s()


def tup(*strats):
    return st.tuples(*strats)


def vec(n_lo=1, n_hi=6, lo=-4, hi=4, dtype=F32):
    @st.composite
    def s(draw):
        x = draw(array((draw(st.integers(n_lo, n_hi)),), dtype, lo, hi))
        return np.round(x * 8) / 8 if dtype == F32 else x
    return s()


def ints(lo=-20, hi=20, min_dims=1, max_dims=2):
    @st.composite
    def s(draw):
        return draw(array(draw(shapes(min_dims, max_dims, 5)), np.int32, lo, hi))
    return s()


def same_shape_pair(strat_dtype=F32, lo=-4, hi=4):
    @st.composite
    def s(draw):
        shape = draw(shapes(1, 2, 5))
        a = np.round(draw(array(shape, strat_dtype, lo, hi)) * 8) / 8
        b = np.round(draw(array(shape, strat_dtype, lo, hi)) * 8) / 8
        return a.astype(strat_dtype), b.astype(strat_dtype)
    return s()


QMETHODS = ["linear", "lower", "higher", "midpoint", "nearest"]

# name, jnp function, NumPy reference, strategy of argument tuples, kwargs for check()
TABLE = [
    ("median", lambda x: jnp.median(x, axis=-1), lambda x: np.median(x, axis=-1),
     tup(floats()), {}),
    ("nanmedian", lambda x: jnp.nanmedian(x, axis=0, keepdims=True),
     lambda x: np.nanmedian(x, axis=0, keepdims=True), tup(with_nans(floats())), {}),
    *[(f"quantile_{m}", (lambda m: lambda x: jnp.quantile(x, np.array([0.0, 0.3, 0.5, 1.0], F32),
                                                          axis=-1, method=m))(m),  # noqa: B023
       (lambda m: lambda x: np.quantile(x, np.array([0.0, 0.3, 0.5, 1.0], F32), axis=-1,  # noqa: B023
                                        method=m).astype(F32))(m), tup(floats()), {})  # noqa: B023
      for m in QMETHODS],  # noqa: B023
    *[(f"nanquantile_{m}", (lambda m: lambda x: jnp.nanquantile(x, 0.4, method=m))(m),  # noqa: B023
       (lambda m: lambda x: np.float32(np.nanquantile(x, 0.4, method=m)))(m),  # noqa: B023
       tup(with_nans(floats())), {})
      for m in QMETHODS],
    ("percentile", lambda x: jnp.percentile(x, 25.0, axis=0),
     lambda x: np.percentile(x, 25.0, axis=0).astype(F32), tup(floats()), {}),
    ("nanpercentile", lambda x: jnp.nanpercentile(x, np.array([10.0, 90.0], F32)),
     lambda x: np.nanpercentile(x, [10.0, 90.0]).astype(F32), tup(with_nans(floats())), {}),
    *[(name, (lambda n: lambda x: getattr(jnp, n)(x, axis=-1))(name),
       (lambda n: lambda x: getattr(np, n)(x, axis=-1))(name), tup(with_nans(floats())), {})
      for name in ["nanprod", "nanmin", "nanmax", "nanmean", "nanvar", "nanstd", "nancumsum",
                   "nancumprod"]],
    ("nanargmax", lambda x: jnp.nanargmax(x, axis=-1),
     lambda x: np.nanargmax(np.where(np.isnan(x).all(-1, keepdims=True), 0, x), axis=-1),
     tup(floats()), {}),
    ("nanargmin", lambda x: jnp.nanargmin(x), lambda x: np.nanargmin(x), tup(floats()), {}),
    ("bincount", lambda x: jnp.bincount(x, length=25), lambda x: np.bincount(x, minlength=25),
     tup(ints(0, 20, max_dims=1)), {}),
    ("bincount_w", lambda x, w: jnp.bincount(x, w, length=25),
     lambda x, w: np.bincount(x, w, minlength=25).astype(F32),
     tup(ints(0, 5, 1, 1), floats(1, 1, 1)).filter(lambda t: t[0].shape == t[1].shape)
     .map(lambda t: t), {}),
    ("histogram", lambda x: jnp.histogram(x, bins=4), lambda x: np.histogram(x, bins=4),
     tup(floats()), {"check_dtype": False}),
    ("histogram_range_weights", lambda x: jnp.histogram(x, 3, range=(-2, 2), weights=x),
     lambda x: np.histogram(x, 3, range=(-2, 2), weights=x), tup(floats()),
     {"check_dtype": False}),
    ("histogram_bin_edges", lambda x: jnp.histogram_bin_edges(x, 5),
     lambda x: np.histogram_bin_edges(x, 5), tup(floats()), {"check_dtype": False}),
    ("histogram2d", lambda x, y: jnp.histogram2d(x, y, bins=3),
     lambda x, y: np.histogram2d(x, y, bins=3),
     same_shape_pair().map(lambda t: (t[0].ravel(), t[1].ravel())), {"check_dtype": False}),
    ("histogramdd", lambda x: jnp.histogramdd(x, bins=(2, 3)),
     lambda x: np.histogramdd(x, bins=(2, 3)),
     tup(floats(2, 2).filter(lambda x: x.shape[1] == 2)), {"check_dtype": False}),
    ("cov", lambda x: jnp.cov(x), lambda x: np.cov(x).astype(F32),
     tup(floats(2, 2).filter(lambda x: x.shape[1] > 1)), {"tol": (1e-4, 1e-4)}),
    ("corrcoef", lambda x: jnp.corrcoef(x, rowvar=False),
     lambda x: np.corrcoef(x, rowvar=False).astype(F32),
     tup(floats(2, 2).filter(lambda x: x.shape[0] > 1 and (x.std(0) > 0.1).all())),
     {"tol": (1e-4, 1e-4)}),
    ("average_w", lambda x, w: jnp.average(x, weights=jnp.abs(w) + 1),
     lambda x, w: np.average(x, weights=np.abs(w) + 1).astype(F32), same_shape_pair(), {}),
    ("diff", lambda x: jnp.diff(x, n=2, axis=0), lambda x: np.diff(x, n=2, axis=0),
     tup(floats()), {}),
    ("diff_prepend", lambda x: jnp.diff(x, prepend=1.0), lambda x: np.diff(x, prepend=1.0)
     .astype(F32), tup(floats()), {}),
    ("ediff1d", lambda x: jnp.ediff1d(x, to_end=np.float32(3)),
     lambda x: np.ediff1d(x, to_end=3).astype(F32), tup(floats()), {}),
    ("gradient", lambda x: jnp.gradient(x, axis=-1),
     lambda x: np.gradient(x, axis=-1), tup(floats().filter(lambda x: x.shape[-1] > 1)), {}),
    ("cross", lambda a, b: jnp.cross(a, b), lambda a, b: np.cross(a, b),
     tup(floats(2, 2, 4).filter(lambda x: x.shape[-1] == 3),
         floats(1, 1, 3).filter(lambda x: x.shape[-1] == 3)), {"tol": (1e-5, 1e-5)}),
    ("kron", jnp.kron, np.kron, tup(floats(), floats()), {}),
    ("trapezoid", lambda y: jnp.trapezoid(y, dx=0.5), lambda y: np.trapezoid(y, dx=0.5),
     tup(floats()), {}),
    ("interp", lambda x, xp: jnp.interp(x, jnp.sort(xp), jnp.cos(xp)),
     lambda x, xp: np.interp(x, np.sort(xp), np.cos(xp)).astype(F32),
     tup(floats(), vec().map(np.unique)), {"tol": (1e-5, 1e-5)}),
    ("polyval", lambda p, x: jnp.polyval(p, x), lambda p, x: np.polyval(p, x).astype(F32),
     tup(vec(), floats()), {"tol": (1e-4, 1e-3)}),
    ("polyadd", jnp.polyadd, np.polyadd, tup(vec(), vec()), {}),
    ("polysub", jnp.polysub, np.polysub, tup(vec(), vec()), {}),
    ("polymul", jnp.polymul, np.polymul, tup(vec(), vec()), {"tol": (1e-5, 1e-5)}),
    ("polyder", lambda p: jnp.polyder(p, 2), lambda p: np.polyder(p, 2), tup(vec(3, 6)), {}),
    ("polyint", lambda p: jnp.polyint(p, 1, k=np.float32(2)),
     lambda p: np.polyint(p, 1, k=2).astype(F32), tup(vec()), {}),
    *[(f"convolve_{m}", (lambda m: lambda a, v: jnp.convolve(a, v, mode=m))(m),  # noqa: B023
       (lambda m: lambda a, v: np.convolve(a, v, mode=m))(m), tup(vec(), vec()),  # noqa: B023
       {"tol": (1e-5, 1e-5)}) for m in ("full", "same", "valid")],  # noqa: B023
    *[(f"correlate_{m}", (lambda m: lambda a, v: jnp.correlate(a, v, mode=m))(m),  # noqa: B023
       (lambda m: lambda a, v: np.correlate(a, v, mode=m))(m), tup(vec(), vec()),  # noqa: B023
       {"tol": (1e-5, 1e-5)}) for m in ("full", "same", "valid")],
    ("gcd", jnp.gcd, np.gcd, tup(ints(), ints(0, 30, 0, 0)), {}),
    ("lcm", jnp.lcm, np.lcm, tup(ints(), ints(1, 9, 0, 0)), {}),
    ("frexp", jnp.frexp, np.frexp, tup(floats(lo=-1e3, hi=1e3)), {}),
    ("ldexp", jnp.ldexp, np.ldexp, tup(floats(), ints(-5, 5, 0, 0)), {}),
    ("modf", jnp.modf, np.modf, tup(floats()), {}),
    ("heaviside", lambda x: jnp.heaviside(x, np.float32(0.5)),
     lambda x: np.heaviside(x, np.float32(0.5)), tup(floats()), {}),
    ("sinc", jnp.sinc, np.sinc, tup(floats()), {"tol": (1e-5, 1e-6)}),
    ("i0", jnp.i0, np.i0, tup(floats(lo=-10, hi=10)), {"tol": (1e-5, 1e-5)}),
    ("nan_to_num", jnp.nan_to_num, np.nan_to_num, tup(with_nans(floats())), {}),
    ("isclose", lambda a, b: jnp.isclose(a, b, atol=0.2), lambda a, b: np.isclose(a, b, atol=0.2),
     same_shape_pair(), {}),
    ("allclose", lambda a, b: jnp.allclose(a, a + b * 1e-9),
     lambda a, b: np.allclose(a, a + b * 1e-9), same_shape_pair(), {}),
    ("array_equal", lambda a, b: jnp.array_equal(a, b), lambda a, b: np.array_equal(a, b),
     same_shape_pair(np.int32, 0, 1), {}),
    ("copysign", jnp.copysign, np.copysign, same_shape_pair(), {}),
    ("fmax", jnp.fmax, np.fmax, tup(with_nans(floats()), with_nans(floats(0, 0))), {}),
    ("fmin", jnp.fmin, np.fmin, tup(with_nans(floats()), with_nans(floats(0, 0))), {}),
    ("nextafter", jnp.nextafter, np.nextafter, same_shape_pair(), {}),
    ("spacing", jnp.spacing, np.spacing, tup(floats(lo=0.5, hi=4)), {}),
    ("unwrap", jnp.unwrap, np.unwrap, tup(floats(lo=-10, hi=10)), {"tol": (1e-5, 1e-5)}),
    ("packbits", lambda x: jnp.packbits(x > 0, axis=-1), lambda x: np.packbits(x > 0, axis=-1),
     tup(floats(max_side=10)), {}),
    ("unpackbits", lambda x: jnp.unpackbits(x, axis=0, bitorder="little"),
     lambda x: np.unpackbits(x, axis=0, bitorder="little"),
     tup(ints(0, 255).map(lambda x: x.astype(np.uint8))), {}),
    ("bitwise_count", jnp.bitwise_count, np.bitwise_count, tup(ints(-50, 50)), {}),
    ("diag", lambda x: jnp.diag(x, 1), lambda x: np.diag(x, 1), tup(floats()), {}),
    ("diagonal", lambda x: jnp.diagonal(x, -1, 0, 1), lambda x: np.diagonal(x, -1, 0, 1),
     tup(floats(2, 3)), {}),
    ("trace", lambda x: jnp.trace(x, 1), lambda x: np.trace(x, 1), tup(floats(2, 3)), {}),
    ("rot90", lambda x: jnp.rot90(x, 3), lambda x: np.rot90(x, 3), tup(floats(2, 3)), {}),
    ("vander", lambda x: jnp.vander(x, 3), lambda x: np.vander(x, 3), tup(vec()), {}),
    ("select", lambda x: jnp.select([x < -1, x > 1], [x, 2 * x], 0.5),
     lambda x: np.select([x < -1, x > 1], [x, 2 * x], 0.5).astype(F32), tup(floats()), {}),
    ("piecewise", lambda x: jnp.piecewise(x, [x < 0], [lambda t: -t, lambda t: t * t]),
     lambda x: np.piecewise(x, [x < 0], [lambda t: -t, lambda t: t * t]), tup(floats()), {}),
    ("choose", lambda i, x: jnp.choose(i, [x, -x, 2 * x], mode="clip"),
     lambda i, x: np.choose(i, [x, -x, 2 * x], mode="clip"), tup(ints(-1, 3, 0, 0), floats()),
     {}),
    ("resize", lambda x: jnp.resize(x, (3, 4)), lambda x: np.resize(x, (3, 4)), tup(floats()),
     {}),
    ("insert", lambda x: jnp.insert(x, [0, 1], np.float32(7), axis=0),
     lambda x: np.insert(x, [0, 1], 7, axis=0), tup(floats()), {}),
    ("delete", lambda x: jnp.delete(x, 0, axis=-1), lambda x: np.delete(x, 0, axis=-1),
     tup(floats()), {}),
    ("append", lambda x: jnp.append(x, x), lambda x: np.append(x, x), tup(floats()), {}),
    ("place", lambda x: jnp.place(x, x > 0, np.float32([9, 8]), inplace=False),
     lambda x: (lambda z: (np.place(z, z > 0, [9, 8]), z)[1])(x.copy()), tup(floats()), {}),
    ("put", lambda x: jnp.put(x, np.array([0, -1]), np.float32(5), inplace=False),
     lambda x: (lambda z: (np.put(z, [0, -1], 5), z)[1])(x.copy()), tup(floats()), {}),
    ("fill_diagonal", lambda x: jnp.fill_diagonal(x, 3.0, inplace=False),
     lambda x: (lambda z: (np.fill_diagonal(z, 3.0), z)[1])(x.copy()), tup(floats(2, 2)), {}),
    ("unravel_index", lambda i: jnp.unravel_index(i, (3, 5)),
     lambda i: np.unravel_index(i, (3, 5)), tup(ints(0, 14)), {}),
    ("ravel_multi_index", lambda i, j: jnp.ravel_multi_index((i, j), (4, 5), mode="clip"),
     lambda i, j: np.ravel_multi_index((i, j), (4, 5), mode="clip"),
     tup(ints(-1, 4, 1, 1), ints(0, 6, 0, 0)), {}),
    ("apply_along_axis", lambda x: jnp.apply_along_axis(lambda v: v * v.sum(), 0, x),
     lambda x: np.apply_along_axis(lambda v: v * v.sum(), 0, x), tup(floats()),
     {"tol": (1e-5, 1e-5)}),
    ("isreal", jnp.isreal, np.isreal, tup(floats()), {}),
    ("iscomplex", jnp.iscomplex, np.iscomplex, tup(floats()), {}),
    ("isposinf", lambda x: jnp.isposinf(x / 0.0), lambda x: np.isposinf(x / np.float32(0)),
     tup(floats()), {}),
    ("isneginf", lambda x: jnp.isneginf(x / 0.0), lambda x: np.isneginf(x / np.float32(0)),
     tup(floats()), {}),
]


@pytest.mark.parametrize("name,fn,ref,args,kw", TABLE, ids=[t[0] for t in TABLE])
@settings(max_examples=1)  # each example compiles programs per function: keep the suite quick
@given(st.data())
def test_matches_numpy(name, fn, ref, args, kw, data):
    args = data.draw(args)
    with np.errstate(all="ignore"):
        expected = ref(*args)
    kw = {"check_dtype": False} if kw.get("check_dtype") is False else kw
    for got in (fn(*args), minijax.jit(fn)(*args)):
        if isinstance(expected, (tuple, list)):
            assert len(got) == len(expected)
            for g, e in zip(got, expected):
                if isinstance(e, (tuple, list)):  # histogramdd's edges
                    for gg, ee in zip(g, e):
                        check(gg, np.asarray(ee), check_dtype=False)
                else:
                    check(g, np.asarray(e), **{**kw, "check_dtype": False})
        else:
            check(got, expected, **kw)


def test_bf16_quantile_and_window_functions():
    x = np.linspace(-3, 3, 7).astype(ml_dtypes.bfloat16)
    got = jnp.median(x)
    assert got.dtype == x.dtype
    for name in ("hamming", "hanning", "blackman", "bartlett"):
        check(getattr(jnp, name)(7), getattr(np, name)(7).astype(F32))
    check(jnp.kaiser(6, 2.5), np.kaiser(6, 2.5).astype(F32), tol=(1e-5, 1e-5))


def test_grads():
    x = np.array([3.0, 1.0, 2.0, 5.0], F32)
    check(minijax.grad(lambda x: jnp.median(x))(x), np.array([0.5, 0, 0.5, 0], F32))
    check(minijax.grad(lambda x: jnp.quantile(x, 1.0))(x), np.array([0, 0, 0, 1], F32))
    check(minijax.grad(lambda x: jnp.nanmax(x))(x), np.array([0, 0, 0, 1], F32))
    check(minijax.grad(lambda x: jnp.sum(jnp.diff(x) ** 2))(x),
          np.array([4.0, -6.0, -4.0, 6.0], F32))
    check(minijax.grad(lambda x: jnp.sinc(x[1] - 1.0))(x), np.zeros(4, F32), tol=(0, 1e-6))
    check(minijax.grad(lambda x: jnp.sum(jnp.convolve(x, np.ones(2, F32))))(x),
          np.full(4, 2.0, F32))
    check(minijax.grad(lambda x: jnp.polyval(x, 2.0))(x), np.array([8.0, 4.0, 2.0, 1.0], F32))
    check(minijax.grad(lambda x: jnp.interp(1.5, np.arange(4, dtype=F32), x))(x),
          np.array([0, 0.5, 0.5, 0], F32))
    check(minijax.grad(lambda x: jnp.trace(jnp.outer(x, x)))(x), 2 * x)


def test_vmap():
    xs = np.arange(12, dtype=F32).reshape(3, 4) % 5
    check(minijax.vmap(jnp.median)(xs), np.median(xs, axis=1))
    check(minijax.vmap(lambda r: jnp.histogram(r, 2, range=(0, 4))[0])(xs),
          np.stack([np.histogram(r, 2, range=(0, 4))[0] for r in xs]), check_dtype=False)
    check(minijax.vmap(lambda r: jnp.bincount(r.astype(np.int32), length=5))(xs),
          np.stack([np.bincount(r.astype(int), minlength=5) for r in xs]), np.int32)
    check(minijax.vmap(lambda r: jnp.convolve(r, np.array([1.0, -1.0], F32)))(xs),
          np.stack([np.convolve(r, [1.0, -1.0]) for r in xs]))
    check(minijax.vmap(jnp.diag)(xs), np.stack([np.diag(r) for r in xs]))


def test_concrete_only_and_size_errors():
    x = np.array([0, 1, 1, 3], np.int32)
    with pytest.raises(minijax.errors.ConcretizationTypeError, match="length="):
        minijax.jit(jnp.bincount)(x)
    check(jnp.bincount(x), np.bincount(x))
    with pytest.raises(minijax.errors.ConcretizationTypeError):
        minijax.jit(jnp.trim_zeros)(x)
    check(jnp.trim_zeros(np.array([0, 2, 0, 3, 0])), np.array([2, 0, 3]))
    check(jnp.extract(x > 0, x), np.extract(x > 0, x))
    check(minijax.jit(lambda x: jnp.extract(x > 0, x, size=4))(x), np.array([1, 1, 3, 0]))
    check(jnp.compress(np.array([True, False]), np.eye(2, dtype=F32), axis=0),
          np.compress([True, False], np.eye(2), axis=0).astype(F32))
    with pytest.raises(ValueError, match="inplace"):
        jnp.put_along_axis(x, x[:1], 0, axis=0)


def test_grids_and_misc():
    check(jnp.indices((2, 3)), np.indices((2, 3)))
    for a, b in zip(jnp.ix_(np.array([0, 1]), np.array([2, 0, 1])),
                    np.ix_(np.array([0, 1]), np.array([2, 0, 1]))):
        check(a, b)
    for ij in ("xy", "ij"):
        for a, b in zip(jnp.meshgrid(np.arange(3), np.arange(2.0), indexing=ij),
                        np.meshgrid(np.arange(3), np.arange(2.0), indexing=ij)):
            check(a, b)
    check(jnp.logspace(0, 2, 5), np.logspace(0, 2, 5), check_dtype=False, tol=(1e-5, 1e-5))
    check(jnp.geomspace(1, 1000, 4), np.geomspace(1, 1000, 4), check_dtype=False,
          tol=(1e-5, 1e-5))
    for a, b in zip(jnp.tril_indices(4, -1, 5), np.tril_indices(4, -1, 5)):
        check(a, b)
    for a, b in zip(jnp.triu_indices_from(np.ones((3, 4))), np.triu_indices_from(np.ones((3, 4)))):
        check(a, b)
    blocks = [[np.ones((2, 2)), np.zeros((2, 3))], [np.full((1, 5), 2.0)]]
    check(jnp.block(blocks), np.block(blocks), check_dtype=False)
    check(jnp.row_stack([np.ones(2), np.zeros(2)]), np.vstack([np.ones(2), np.zeros(2)]),
          check_dtype=False)
    check(jnp.fromfunction(lambda i, j: i * 10 + j, (2, 3)),
          np.fromfunction(lambda i, j: i * 10 + j, (2, 3)), check_dtype=False)
    check(jnp.vectorize(lambda a, b: a * b + 1)(np.ones((2, 3), F32), np.arange(3.0, dtype=F32)),
          np.ones((2, 3)) * np.arange(3.0) + 1, check_dtype=False)
    assert jnp.isscalar(1.0) and jnp.isscalar(jnp.float32(1)) and not jnp.isscalar(np.ones(2))
    check(jnp.real_if_close(np.array([1 + 1e-12j], np.complex64)), np.array([1.0], F32))
    check(jnp.sort_complex(np.array([3, 1, 2], np.int32)), np.sort_complex([3, 1, 2]),
          check_dtype=False)
    check(jnp.polydiv(np.array([1.0, 3, 2, 5], F32), np.array([1.0, 1], F32))[0],
          np.array([1.0, 2.0, 0.0], F32))
    check(jnp.polyfit(np.arange(5.0, dtype=F32), np.arange(5.0, dtype=F32) ** 2, 2),
          np.array([1.0, 0.0, 0.0], F32), tol=(1e-3, 1e-3))
    check(jnp.poly(np.array([1.0, 2.0], F32)), np.poly([1.0, 2.0]).astype(F32))


def test_convolve_of_complex_is_one_convolution():
    """convolve of complex operands is one conv_general_dilated, as JAX's (lowered as three
    real convolutions, since XLA's takes no complex operands)."""
    a = (np.arange(5.0) + 1j * np.arange(5.0)[::-1]).astype(np.complex64)
    v = np.array([1.0, -2.0j, 0.5], np.complex64)
    for mode in ("full", "same", "valid"):
        check(jnp.convolve(a, v, mode=mode), np.convolve(a, v, mode=mode))
        check(minijax.jit(lambda a, v, mode=mode: jnp.correlate(a, v, mode=mode))(v, a),
              np.correlate(v, a, mode=mode))
    jaxpr = str(minijax.make_jaxpr(lambda a: jnp.convolve(a, v))(a))
    assert jaxpr.count("conv_general_dilated") == 1 and "gather" not in jaxpr
    check(minijax.grad(lambda a: jnp.sum(jnp.convolve(a, v)).real)(a.real),
          np.full(5, v.sum().real, F32))


def test_isdtype():
    assert jnp.isdtype(np.float32, "real floating")
    assert jnp.isdtype(jnp.bfloat16, "real floating")
    assert jnp.isdtype(np.int8, ("bool", "integral")) and not jnp.isdtype(np.int8, "bool")
    assert jnp.isdtype(np.complex64, "numeric") and jnp.isdtype(np.uint8, np.uint8)


def test_vectorize_signature_against_numpy():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(4, 1, 3, 2)).astype(F32)
    b = rng.normal(size=(5, 2)).astype(F32)
    sig = "(m,n),(n)->(m)"
    want = np.vectorize(np.matmul, signature=sig)(a, b)
    mv = jnp.vectorize(jnp.matmul, signature=sig)
    np.testing.assert_allclose(np.asarray(mv(a, b)), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(minijax.jit(mv)(a, b)), want, rtol=1e-5, atol=1e-5)
    # several outputs, a new core dimension in the output, excluded arguments
    stats = jnp.vectorize(lambda x: (x.sum(), x.max()), signature="(n)->(),()")(a)
    np.testing.assert_allclose(np.asarray(stats[0]), a.sum(-1), rtol=1e-5)
    np.testing.assert_array_equal(np.asarray(stats[1]), a.max(-1))
    outer = jnp.vectorize(lambda v: jnp.outer(v, v), signature="(n)->(n,n)")(a[:, 0])
    np.testing.assert_allclose(np.asarray(outer), np.einsum("...i,...j->...ij", a[:, 0], a[:, 0]),
                               rtol=1e-6)
    power = jnp.vectorize(lambda x, p, mode: x ** p if mode == "pow" else x,
                          excluded={1, "mode"})
    np.testing.assert_allclose(np.asarray(power(a, 2, mode="pow")), a ** 2, rtol=1e-6)
    with pytest.raises(ValueError, match="core dimension 'n'"):
        mv(a, np.ones((5, 3), F32))
    with pytest.raises(ValueError, match="signature"):
        jnp.vectorize(jnp.sum, signature="(n->()")
    with pytest.raises(ValueError, match="output"):
        jnp.vectorize(lambda x: x, signature="(n)->()")(a)


def test_diag_of_an_empty_vector():
    """NumPy gives an |k| x |k| zero matrix (the gather that places values has nothing to
    read from an empty vector, so this is its own case)."""
    for k in (-2, -1, 0, 1, 3):
        got = jnp.diag(jnp.zeros((0,), jnp.float32), k)
        np.testing.assert_array_equal(np.asarray(got), np.diag(np.zeros(0, np.float32), k))
        assert got.dtype == np.float32
