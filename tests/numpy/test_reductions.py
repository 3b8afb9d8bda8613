"""jnp reductions vs NumPy: axis (int, tuple, None, negative), keepdims, dtype, where, initial."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import minijax
import minijax.numpy as jnp
from tests.numpy._helpers import BF16, check
from tests.ops.op_db import shapes

F32 = np.float32


@st.composite
def array_and_axis(draw, dtypes=(np.float32, np.int32)):
    shape = draw(shapes(min_dims=1, max_dims=4, max_side=4))
    dtype = np.dtype(draw(st.sampled_from(dtypes)))
    n = int(np.prod(shape))
    x = (np.arange(n) * 7 % 11 - 5).reshape(shape)
    x = x.astype(dtype) if dtype.kind != "b" else (x > 0)
    ndim = len(shape)
    axis = draw(st.one_of(
        st.none(),
        st.integers(-ndim, ndim - 1),
        st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim).map(tuple),
    ))
    keepdims = draw(st.booleans())
    return x, axis, keepdims


REDUCTIONS = [
    ("sum", jnp.sum, np.sum), ("prod", jnp.prod, np.prod), ("max", jnp.max, np.max),
    ("min", jnp.min, np.min), ("mean", jnp.mean, np.mean), ("var", jnp.var, np.var),
    ("std", jnp.std, np.std), ("all", jnp.all, np.all), ("any", jnp.any, np.any),
]


@pytest.mark.parametrize("name,fn,ref", REDUCTIONS, ids=[r[0] for r in REDUCTIONS])
@given(array_and_axis(dtypes=(np.float32, np.int32, np.int8, np.bool_)))
def test_reduction_matches_numpy(name, fn, ref, case):
    x, axis, keepdims = case
    if name in ("max", "min") and x.size == 0:
        return
    if name == "prod" and x.dtype != np.bool_:
        x = np.clip(x, -2, 2).astype(x.dtype)  # keep products small enough for int32
    expected = ref(x, axis=axis, keepdims=keepdims)
    if x.dtype == np.int8 and name in ("sum", "prod"):
        dtype = np.int32  # JAX accumulates narrow ints in the default int
    elif x.dtype == np.bool_ and name in ("sum", "prod"):
        dtype = np.int32
    elif name in ("mean", "var", "std"):
        dtype = F32
    elif name in ("all", "any"):
        dtype = np.bool_
    else:
        dtype = x.dtype
    for got in (fn(x, axis=axis, keepdims=keepdims),
                minijax.jit(lambda a: fn(a, axis=axis, keepdims=keepdims))(x)):
        check(got, expected, dtype, tol=(2e-5, 2e-5))


@given(array_and_axis(dtypes=(np.float32, np.int32)), st.data())
def test_where_mask(case, data):
    x, axis, keepdims = case
    mask = data.draw(st.sampled_from([x > 0, (x > -2)[..., :1] if x.ndim else x > 0]))
    for fn, ref, kw in ((jnp.sum, np.sum, {}), (jnp.prod, np.prod, {}),
                        (jnp.max, np.max, {"initial": -100}), (jnp.min, np.min, {"initial": 50}),
                        (jnp.any, np.any, {}), (jnp.all, np.all, {})):
        xx = np.clip(x, -2, 2).astype(x.dtype) if fn is jnp.prod else x
        expected = ref(xx, axis=axis, keepdims=keepdims, where=np.broadcast_to(mask, x.shape), **kw)
        got = fn(xx, axis=axis, keepdims=keepdims, where=mask, **kw)
        check(got, expected, got.dtype)
    if mask.all() or not x.size:
        return
    got = jnp.mean(x, axis=axis, keepdims=keepdims, where=mask)
    with np.errstate(all="ignore"):
        expected = np.mean(x, axis=axis, keepdims=keepdims, where=np.broadcast_to(mask, x.shape))
    check(got, expected.astype(F32), F32)


def test_initial_and_dtype():
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    check(jnp.sum(x, axis=1, initial=10), np.sum(x, axis=1, initial=10))
    check(jnp.max(x, axis=0, initial=4), np.max(x, axis=0, initial=4))
    check(jnp.sum(x, dtype=jnp.float32), np.sum(x).astype(F32), F32)
    check(jnp.sum(np.ones(4, np.uint8)), np.array(4, np.uint32), np.uint32)
    check(jnp.sum(np.ones(4, BF16)), np.array(4.0, BF16), BF16)
    check(jnp.mean(np.array([1, 2], np.int32)), np.array(1.5, F32), F32)
    check(jnp.mean(np.array([1, 2], BF16)), np.array(1.5, BF16), BF16)
    check(jnp.var(x, ddof=1), np.var(x, ddof=1).astype(F32), F32)
    check(jnp.std(x, axis=0, ddof=1), np.std(x, axis=0, ddof=1).astype(F32), F32)


def test_reduction_errors():
    with pytest.raises(ValueError, match="does not have an identity"):
        jnp.max(np.ones(3), where=np.array([True, False, True]))
    with pytest.raises(ValueError, match="zero-size array"):
        jnp.min(np.ones((0, 2)), axis=0)
    with pytest.raises(ValueError, match="out of bounds"):
        jnp.sum(np.ones((2, 2)), axis=2)
    with pytest.raises(ValueError, match="duplicate"):
        jnp.sum(np.ones((2, 2)), axis=(0, -2))
    check(jnp.max(np.ones((0, 2)), axis=0, initial=-1.0), np.full(2, -1.0, F32))


@given(array_and_axis(dtypes=(np.float32, np.int32)))
def test_argmax_argmin(case):
    x, axis, keepdims = case
    if not isinstance(axis, (int, type(None))) or x.size == 0:
        return
    for fn, ref in ((jnp.argmax, np.argmax), (jnp.argmin, np.argmin)):
        expected = ref(x, axis=axis, keepdims=keepdims)
        check(fn(x, axis=axis, keepdims=keepdims), expected, np.int32)
        check(minijax.jit(lambda a, fn=fn: fn(a, axis))(x), ref(x, axis=axis), np.int32)
    with pytest.raises(ValueError, match="empty"):
        jnp.argmax(np.ones((0,)))


@given(array_and_axis(dtypes=(np.float32, np.int32, np.bool_)))
def test_cumsum_cumprod(case):
    x, axis, _ = case
    if not isinstance(axis, (int, type(None))):
        return
    expected = np.cumsum(x, axis=axis)
    check(jnp.cumsum(x, axis=axis), expected, x.dtype if x.dtype != np.bool_ else np.int32)
    xs = x if x.dtype == np.bool_ else np.clip(x, -2, 2)
    check(jnp.cumprod(xs, axis=axis), np.cumprod(xs, axis=axis),
          xs.dtype if xs.dtype != np.bool_ else np.int32)
    check(minijax.jit(lambda a: jnp.cumsum(a, axis))(x), expected,
          x.dtype if x.dtype != np.bool_ else np.int32)


def test_methods_on_arrays():
    x = jnp.arange(12.0).reshape(3, 4)
    n = np.arange(12.0, dtype=F32).reshape(3, 4)
    check(x.sum(0), n.sum(0))
    check(x.mean(axis=1, keepdims=True), n.mean(axis=1, keepdims=True))
    check(x.max(), n.max()), check(x.min(1), n.min(1)), check(x.prod(0), n.prod(0))
    check(x.var(), n.var()), check(x.std(1), n.std(1))
    check(x.argmax(1), n.argmax(1).astype(np.int32)), check(x.argmin(), np.int32(0))
    check((x > 3).all(1), (n > 3).all(1)), check((x > 3).any(), (n > 3).any())
    check(x.cumsum(1), n.cumsum(1)), check(x.cumprod(), n.cumprod())


@pytest.mark.parametrize("name", ["var", "std", "mean", "sum", "max"])
def test_reduction_methods_of_traced_values(name):
    """``x.var(1)`` under jit: a traced value's array methods (its jaxpr variable was once an
    attribute named ``var``, which shadowed the method)."""
    x = np.arange(32, dtype=F32).reshape(8, 4)
    got = minijax.jit(lambda a: getattr(a, name)(1))(x)
    np.testing.assert_allclose(np.asarray(got), getattr(np, name)(x, axis=1), rtol=1e-6)
