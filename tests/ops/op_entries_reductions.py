"""Op-table entries: reductions, argmax/argmin, dot_general, cumulative ops, sort and top_k.

The op table passes only arrays to ``fn``/``ref``, so parameters (axes, dimension numbers, k)
are derived from the drawn shapes inside closures, one entry per configuration.

Float sums, products and contractions are compared with a tolerance relative to the magnitude
of what was summed (``n * eps * sum|terms|``, the classic bound for recursive summation), not
to the result, which can be near zero after cancellation; references are computed in float64.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minijax
from minijax import lax
from tests.ops.kinks import away, spread
from tests.ops.op_db import ZERO_DERIVATIVE, GradSpec, array, assert_close, shapes
# gradient checks run eagerly (CPU s on the dev VM, the 39 entries: 264 -> 83)
from tests.ops.op_db import register_eager_grads as register
from tests.ops.op_entries_elementwise import flush_subnormals

BF16 = np.dtype(ml_dtypes.bfloat16)
NUM_DTYPES = [np.float32, BF16, np.int32, np.uint8]
FLOAT_DTYPES = [np.float32, BF16]
INT_OR_BOOL_DTYPES = [np.int32, np.uint8, np.bool_]
NO_TIES = GradSpec(post=spread())  # maxima and minima: no ties, where they are not differentiable
LONG_PRODUCT = GradSpec(post=away(0.5), eps=1e-6)  # products of many factors: a smaller step

# ------------------------------------------------------------------------------------------------
# Strategies and comparison helpers


def _operands(dtypes, n=1, lo=-10.0, hi=10.0, min_dims=1, max_dims=3):
    """``n`` arrays of one drawn shape and dtype."""

    @st.composite
    def strat(draw):
        shape = draw(shapes(min_dims=min_dims, max_dims=max_dims))
        dtype = np.dtype(draw(st.sampled_from(dtypes)))
        return tuple(draw(array(shape, dtype, lo, hi)) for _ in range(n))

    return strat()


_TIE_FLOATS = [-2.0, -1.0, -0.0, 0.0, 1.0, 2.0, np.inf, -np.inf, np.nan]


def _tie_array(shape, dtype):
    """Few distinct values (so ties are common); floats include +-0, +-inf and NaN."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return hnp.arrays(np.bool_, shape)
    if dtype.kind in "iu":
        lo = 0 if dtype.kind == "u" else -2
        return hnp.arrays(dtype, shape, elements=st.integers(lo, 3))
    base = hnp.arrays(np.float32, shape, elements=st.sampled_from(_TIE_FLOATS))
    return base.map(lambda a: a.astype(dtype))


def _tie_operands(dtypes, n=1, max_dims=3, value_dtype=None):
    """``n`` tie-rich keys of one shape/dtype, plus an optional ``value_dtype`` payload."""

    @st.composite
    def strat(draw):
        shape = draw(shapes(min_dims=1, max_dims=max_dims))
        dtype = draw(st.sampled_from(dtypes))
        keys = tuple(draw(_tie_array(shape, dtype)) for _ in range(n))
        if value_dtype is None:
            return keys
        return (*keys, draw(array(shape, value_dtype, -100, 100)))

    return strat()


def _f64(x):
    return np.asarray(x).astype(np.float64)


def _eps(dtype):
    return float(ml_dtypes.finfo(dtype).eps)


def _check_magnitude(result, expected, magnitude, n, eps=None):
    """|result - expected| <= (n + 1) * (eps * magnitude + tiny).

    The ``tiny`` term covers XLA CPU flushing subnormal partial results to zero."""
    res, exp = np.asarray(result), np.asarray(expected)
    assert res.shape == exp.shape and res.dtype == exp.dtype, (res.shape, res.dtype, exp.dtype)
    if res.dtype.kind in "biu":
        np.testing.assert_array_equal(res, exp)
        return
    tiny = float(ml_dtypes.finfo(res.dtype).tiny)
    eps = _eps(res.dtype) if eps is None else eps
    bound = (n + 1) * (eps * _f64(magnitude) + tiny)
    err = np.abs(_f64(res) - _f64(exp))
    assert np.all(err <= bound), f"error {err.max()} exceeds bound; got {res}, expected {exp}"


def _axes_configs(ndim):
    """Named axes choices for a rank: all, first, last, none, first and last."""
    return {
        "all": tuple(range(ndim)),
        "axis0": (0,),
        "last": (ndim - 1,),
        "none": (),
        "outer": (0, ndim - 1) if ndim > 1 else (0,),
    }


def _size(shape, axes):
    return int(np.prod([shape[a] for a in axes], dtype=np.int64))


# ------------------------------------------------------------------------------------------------
# reduce_*


def _register_reduce(name, lax_fn, np_ufunc, dtypes, lo=-10.0, hi=10.0, compare=None,
                     configs=("all", "axis0", "last", "outer"), **entry):
    for cfg in configs:
        def axes_of(x, cfg=cfg):
            return _axes_configs(x.ndim)[cfg]

        def fn(x, axes_of=axes_of):
            return lax_fn(x, axes_of(x))

        def ref(x, axes_of=axes_of):
            wide = _f64(x) if x.dtype.kind == "f" or x.dtype == BF16 else x
            return np.asarray(np_ufunc.reduce(wide, axis=axes_of(x))).astype(x.dtype)

        cmp = None if compare is None else (
            lambda r, e, args, axes_of=axes_of: compare(r, e, args[0], axes_of(args[0])))
        register(f"{name}_{cfg}", fn, ref, _operands(dtypes, lo=lo, hi=hi), compare=cmp, **entry)


def _sum_compare(result, expected, x, axes):
    _check_magnitude(result, expected, np.sum(np.abs(_f64(x)), axis=axes), _size(x.shape, axes))


def _prod_compare(result, expected, x, axes):
    _check_magnitude(result, expected, np.prod(np.abs(_f64(x)), axis=axes),
                     _size(x.shape, axes))


_register_reduce("reduce_sum", lax.reduce_sum, np.add, NUM_DTYPES, compare=_sum_compare,
                 configs=("all", "axis0", "last", "none", "outer"))
_register_reduce("reduce_prod", lax.reduce_prod, np.multiply, NUM_DTYPES, lo=-2, hi=2,
                 compare=_prod_compare, configs=("all", "last"), grad=LONG_PRODUCT)
_register_reduce("reduce_max", lax.reduce_max, np.maximum, [*NUM_DTYPES, np.bool_],
                 grad=NO_TIES)
_register_reduce("reduce_min", lax.reduce_min, np.minimum, [*NUM_DTYPES, np.bool_],
                 configs=("all", "last"), grad=NO_TIES)
_register_reduce("reduce_and", lax.reduce_and, np.bitwise_and, INT_OR_BOOL_DTYPES,
                 lo=-128, hi=127, configs=("all", "last"), grad=ZERO_DERIVATIVE)
_register_reduce("reduce_or", lax.reduce_or, np.bitwise_or, INT_OR_BOOL_DTYPES,
                 lo=-128, hi=127, configs=("all", "axis0"), grad=ZERO_DERIVATIVE)
_register_reduce("reduce_xor", lax.reduce_xor, np.bitwise_xor, INT_OR_BOOL_DTYPES,
                 lo=-128, hi=127, configs=("all", "outer"), grad=ZERO_DERIVATIVE)

# ------------------------------------------------------------------------------------------------
# argmax / argmin: tie-rich inputs with NaNs; NumPy returns the first extremum (or first NaN)


def _register_argminmax(name, lax_fn, np_fn):
    for cfg, axis_of in (("axis0", lambda nd: 0), ("last", lambda nd: nd - 1)):
        def fn(x, axis_of=axis_of):
            return lax_fn(x, axis_of(x.ndim), np.int32)

        def ref(x, axis_of=axis_of):
            wide = _f64(x) if x.dtype == BF16 else x
            return np_fn(wide, axis=axis_of(x.ndim)).astype(np.int32)

        register(f"{name}_{cfg}", fn, ref, _tie_operands([*NUM_DTYPES, np.bool_]),
                 grad=ZERO_DERIVATIVE)


_register_argminmax("argmax", lax.argmax, np.argmax)
_register_argminmax("argmin", lax.argmin, np.argmin)

# ------------------------------------------------------------------------------------------------
# dot_general: (lhs dims, rhs dims, dimension_numbers, einsum spec) with named sizes


_DOT_CONFIGS = {
    "matmul": ("mk", "kn", (((1,), (0,)), ((), ())), "mk,kn->mn"),
    "matvec": ("mk", "k", (((1,), (0,)), ((), ())), "mk,k->m"),
    "vecvec": ("k", "k", (((0,), (0,)), ((), ())), "k,k->"),
    "outer": ("m", "n", (((), ()), ((), ())), "m,n->mn"),
    "batched": ("bmk", "bkn", (((2,), (1,)), ((0,), (0,))), "bmk,bkn->bmn"),
    "batch_not_leading": ("kbm", "bnk", (((0,), (2,)), ((1,), (0,))), "kbm,bnk->bmn"),
    "two_contracting": ("mkj", "jnk", (((1, 2), (2, 0)), ((), ())), "mkj,jnk->mn"),
}


def _dot_operands(lhs_dims, rhs_dims, dtypes):
    @st.composite
    def strat(draw):
        sizes = {c: draw(st.integers(1, 4)) for c in set(lhs_dims + rhs_dims)}
        dtype = np.dtype(draw(st.sampled_from(dtypes)))
        lo, hi = (0, 15) if dtype.kind == "u" else (-10, 10)
        # XLA CPU flushes subnormal inputs to zero; the error that leaves scales with the other
        # operand, beyond the magnitude bound's tiny term, so draw none.
        return tuple(draw(array(tuple(sizes[c] for c in dims), dtype, lo, hi).map(flush_subnormals))
                     for dims in (lhs_dims, rhs_dims))

    return strat()


def _dot_ref(spec, out_dtype):
    def ref(a, b):
        wide = np.int64 if a.dtype.kind in "iu" else np.float64
        out = np.einsum(spec, a.astype(wide), b.astype(wide))
        return np.asarray(out).astype(out_dtype or a.dtype)

    return ref


def _dot_eps(operand_dtype):
    """XLA on GPU multiplies float32 operands in TF32 (10-bit mantissa) by default, as JAX does;
    each product then carries up to 2^-10 relative error."""
    on_gpu = minijax.default_backend() != "cpu"
    if on_gpu and np.dtype(operand_dtype) in (np.dtype(np.float32), np.dtype(np.complex64)):
        return 2.0**-10
    return None  # the result dtype's own epsilon (integers: exact)


def _dot_compare(spec, lhs_dims):
    def compare(result, expected, args):
        a, b = args
        magnitude = np.einsum(spec, np.abs(_f64(a)), np.abs(_f64(b)))
        n = _size(a.shape, [i for i, c in enumerate(lhs_dims) if c not in spec.split("->")[1]])
        _check_magnitude(result, expected, magnitude, n, eps=_dot_eps(a.dtype))

    return compare


def _register_dot(name, cfg, dtypes, preferred=None, **entry):
    lhs_dims, rhs_dims, dims, spec = _DOT_CONFIGS[cfg]
    register(
        name,
        lambda a, b: lax.dot_general(a, b, dims, preferred_element_type=preferred),
        _dot_ref(spec, preferred),
        _dot_operands(lhs_dims, rhs_dims, dtypes),
        compare=_dot_compare(spec, lhs_dims),
        **entry,
    )


for _cfg in _DOT_CONFIGS:
    _register_dot(f"dot_general_{_cfg}", _cfg, NUM_DTYPES)
# bf16 operands and cotangents: a few bf16 ulps (2^-7 relative) on second-order checks
_register_dot("dot_general_bf16_preferred_f32", "batched", [BF16], preferred=np.float32,
              grad=GradSpec(eps=1e-2, tol=5e-2))
_register_dot("dot_general_i8_preferred_i32", "matmul", [np.int8], preferred=np.int32,
              grad=ZERO_DERIVATIVE)

# ------------------------------------------------------------------------------------------------
# cumulative ops (reverse = flip, accumulate, flip)


def _accumulate(np_fn, x, axis, reverse):
    wide = _f64(x) if x.dtype.kind == "f" or x.dtype == BF16 else x.astype(np.int64)
    if reverse:
        wide = np.flip(wide, axis)
    out = np_fn(wide, axis=axis)
    return (np.flip(out, axis) if reverse else out).astype(x.dtype)


def _cum_magnitude(x, axis, reverse, kind):
    absx = np.abs(_f64(x))
    if kind == "prod":
        return _accumulate(np.multiply.accumulate, absx, axis, reverse).astype(np.float64)
    if kind == "logsumexp":  # log1p/exp rounding: relative to the result, at least 1
        return np.maximum(1.0, np.abs(_accumulate(np.logaddexp.accumulate, _f64(x), axis,
                                                  reverse)))
    return _accumulate(np.add.accumulate, absx, axis, reverse).astype(np.float64)


_TINY_ONLY = {d.name: (0, float(ml_dtypes.finfo(d).tiny)) for d in map(np.dtype, FLOAT_DTYPES)}


def _register_cumulative(name, lax_fn, np_fn, dtypes, lo=-10.0, hi=10.0, kind="sum", **entry):
    for cfg, axis_of, reverse in (("axis0", lambda nd: 0, False),
                                  ("last_reverse", lambda nd: nd - 1, True)):
        def fn(x, axis_of=axis_of, reverse=reverse):
            return lax_fn(x, axis=axis_of(x.ndim), reverse=reverse)

        def ref(x, axis_of=axis_of, reverse=reverse):
            return _accumulate(np_fn, x, axis_of(x.ndim), reverse)

        def compare(result, expected, args, axis_of=axis_of, reverse=reverse):
            x = args[0]
            axis = axis_of(x.ndim)
            if kind == "exact":  # exact, up to XLA CPU flushing subnormal inputs to zero
                assert_close(result, expected, tol=_TINY_ONLY)
                return
            scale = 4 if kind == "logsumexp" else 1  # exp/log1p each add a few ulps per step
            _check_magnitude(result, expected, scale * _cum_magnitude(x, axis, reverse, kind),
                             x.shape[axis])

        register(f"{name}_{cfg}", fn, ref, _operands(dtypes, lo=lo, hi=hi), compare=compare,
                 **entry)


_register_cumulative("cumsum", lax.cumsum, np.add.accumulate, NUM_DTYPES)
_register_cumulative("cumprod", lax.cumprod, np.multiply.accumulate, NUM_DTYPES, lo=-2, hi=2,
                     kind="prod", grad=LONG_PRODUCT)
_register_cumulative("cummax", lax.cummax, np.maximum.accumulate, NUM_DTYPES, kind="exact",
                     grad=NO_TIES)
_register_cumulative("cummin", lax.cummin, np.minimum.accumulate, NUM_DTYPES, kind="exact",
                     grad=NO_TIES)
_register_cumulative("cumlogsumexp", lax.cumlogsumexp, np.logaddexp.accumulate, FLOAT_DTYPES,
                     kind="logsumexp")

# ------------------------------------------------------------------------------------------------
# sort, sort_key_val, top_k: stable, NaNs last (NumPy's order)


# np.testing.assert_array_equal calls two bfloat16 NaNs unequal, so the harness's bitwise
# jit-vs-eager check cannot take sorted bf16 NaNs; these entries compare jit with NumPy instead.
_NAN_SAFE = dict(exact_jit=False)
_SORT_GRAD = GradSpec(domain=(-3, 3), post=spread())


def _key(x):
    """A NumPy-sortable view of a key (bf16 widened; the order is the same)."""
    return _f64(x) if x.dtype == BF16 else x


def _register_sort(name, dimension_of):
    def fn(x):
        return lax.sort(x, dimension=dimension_of(x.ndim))

    def ref(x):
        d = dimension_of(x.ndim)
        return np.take_along_axis(x, np.argsort(_key(x), axis=d, kind="stable"), axis=d)

    register(name, fn, ref, _tie_operands([*NUM_DTYPES, np.bool_]), **_NAN_SAFE,
             grad=_SORT_GRAD)


_register_sort("sort_last", lambda nd: nd - 1)
_register_sort("sort_axis0", lambda nd: 0)


def _sort_key_val_ref(k, v):
    idx = np.argsort(_key(k), axis=-1, kind="stable")
    return np.take_along_axis(k, idx, axis=-1), np.take_along_axis(v, idx, axis=-1)


register("sort_key_val", lambda k, v: lax.sort_key_val(k, v), _sort_key_val_ref,
         _tie_operands(NUM_DTYPES, value_dtype=np.int32), **_NAN_SAFE, grad=_SORT_GRAD)


def _sort_two_keys_ref(k0, k1, v):
    idx = np.lexsort((_key(k1), _key(k0)), axis=0)  # the last key given is the primary one
    return tuple(np.take_along_axis(a, idx, axis=0) for a in (k0, k1, v))


register("sort_num_keys_2", lambda k0, k1, v: lax.sort((k0, k1, v), dimension=0, num_keys=2),
         _sort_two_keys_ref, _tie_operands(NUM_DTYPES, n=2, value_dtype=np.float32), **_NAN_SAFE,
         grad=_SORT_GRAD)


def _top_k_ref(x, k, axis):
    """Descending in XLA's total order (+0.0 ranks above -0.0, as in JAX); first index on ties."""
    keys = np.moveaxis(-_f64(x), axis, -1), np.moveaxis(np.signbit(_f64(x)), axis, -1)
    order = np.moveaxis(np.lexsort(keys[::-1], axis=-1), -1, axis)
    idx = np.take(order, np.arange(k), axis=axis)
    return np.take_along_axis(x, idx, axis=axis), idx.astype(np.int32)


def _k_of(x, axis):
    return min(2, x.shape[axis])


register("top_k_last", lambda x: lax.top_k(x, _k_of(x, -1)),
         lambda x: _top_k_ref(x, _k_of(x, -1), -1), _operands(NUM_DTYPES, lo=-3, hi=3),
         grad=NO_TIES)
register("top_k_axis0", lambda x: lax.top_k(x, _k_of(x, 0), axis=0),
         lambda x: _top_k_ref(x, _k_of(x, 0), 0), _operands(NUM_DTYPES, lo=-3, hi=3),
         grad=NO_TIES)


def _general_prod(x, axes):
    """lax.reduce with a computation that is no lax monoid: the general reduce_p."""
    return lax.reduce(x, np.ones((), x.dtype), lambda a, b: a * b, axes)


_register_reduce("reduce_general_mul", _general_prod, np.multiply, [np.float32], lo=-2, hi=2,
                 compare=_prod_compare, configs=("all", "last"), grad=LONG_PRODUCT)
