"""Basic indexing against NumPy on drawn shapes and index tuples; traced integer indices."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import minijax
import minijax.numpy as jnp
from tests.numpy._helpers import check
from tests.ops.op_db import shapes


@st.composite
def one_index(draw, n):
    if draw(st.booleans()):
        return draw(st.integers(-n, n - 1))
    bound = st.one_of(st.none(), st.integers(-n - 2, n + 2))
    step = draw(st.one_of(st.none(), st.integers(-3, 3).filter(lambda s: s != 0)))
    return slice(draw(bound), draw(bound), step)


@st.composite
def index_for(draw, shape):
    """A basic index for ``shape``: ints and slices (any step) for ``p`` leading and ``q``
    trailing axes, an Ellipsis between them when ``q > 0`` (or by choice), Nones anywhere."""
    ndim = len(shape)
    p = draw(st.integers(0, ndim))
    q = draw(st.integers(0, ndim - p))
    ellipsis = q > 0 or draw(st.booleans())
    parts = [draw(one_index(n)) for n in shape[:p]]
    if ellipsis:
        parts.append(Ellipsis)
        parts += [draw(one_index(n)) for n in shape[ndim - q:]]
    for _ in range(draw(st.integers(0, 2))):
        parts.insert(draw(st.integers(0, len(parts))), None)
    if len(parts) == 1 and draw(st.booleans()):
        return parts[0]
    return tuple(parts)


@given(st.data())
def test_basic_indexing_matches_numpy(data):
    shape = data.draw(shapes(min_dims=1, max_dims=4, max_side=5))
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    idx = data.draw(index_for(shape))
    expected = x[idx]
    check(jnp.asarray(x)[idx], expected)
    check(minijax.jit(lambda a: a[idx])(x), expected)


def test_negative_steps_and_newaxis():
    x = np.arange(24).reshape(2, 3, 4).astype(np.int32)
    a = jnp.asarray(x)
    for idx in [(slice(None, None, -1),), (0, slice(None, None, -2)), (Ellipsis, slice(3, 0, -2)),
                (None, 1, None, Ellipsis, None), (slice(5, -5, -1), 2), (-1, -1, -1),
                (slice(1, 1),), (Ellipsis,), ()]:
        check(a[idx], x[idx])
    check(a[np.int32(1), np.int64(-2)], x[1, -2])


def test_out_of_range_int_clamps_and_bad_indices_raise():
    a = jnp.arange(3)
    # JAX 0.10.2: a static integer out of bounds clamps (a[3] == 2, a[-4] == 0)
    assert int(a[3]) == 2 and int(a[-4]) == 0 and int(a[10]) == 2
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 0"):
        jnp.zeros((0, 2))[0]
    with pytest.raises(IndexError, match="Too many indices"):
        a[0, 0]
    with pytest.raises(IndexError, match="single ellipsis"):
        jnp.ones((2, 2))[..., ...]


def test_advanced_indexing_is_one_gather():
    a = np.arange(6, dtype=np.float32)
    # (a list index is refused, as JAX's: test_a_list_index_is_refused_as_in_jax)
    for idx in (np.array([0, 1]), np.array([1, -2]), np.array([True, False] * 3),
                np.array([[5], [0]])):
        check(jnp.asarray(a)[idx], a[idx])
    check(jnp.asarray(a)[jnp.arange(2)], a[np.arange(2)])
    jaxpr = str(minijax.make_jaxpr(lambda x, i: x[i])(a, np.array([1, 2])))
    assert jaxpr.count("gather") == 1
    with pytest.raises(IndexError, match="jnp.where"):
        minijax.jit(lambda x: x[x > 2])(a)


@pytest.mark.parametrize("idx", [
    True, False, (0, True), (Ellipsis, True), np.bool_(True), np.array(False), (True, [0, 1]),
    (slice(None), None, False, 1), (True, False), (np.array(False), Ellipsis, True),
    (True, np.array([[True, False, True], [False, True, True]])),
])
def test_boolean_scalar_index_matches_numpy(idx):
    # NumPy: a boolean scalar is a 0-d mask, a new axis of size 1 (True) or 0 (False).
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    check(jnp.asarray(a)[idx], a[idx])
    check(minijax.jit(lambda x: x[idx])(a), a[idx])


def test_boolean_scalar_index_updates_and_errors():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    check(jnp.asarray(a).at[True].set(7.0), np.full((2, 3), 7.0, np.float32))
    check(jnp.asarray(a).at[False].set(7.0), a)
    check(jnp.asarray(a)[jnp.asarray(True)], a[None])
    with pytest.raises(IndexError, match="boolean indices must be concrete; got bool\[\]"):
        minijax.jit(lambda x, b: x[b])(a, True)


def test_traced_integer_index():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    f = minijax.jit(lambda a, i: a[i])
    for i in (0, 2, -1, -3):
        check(f(x, i), x[i])
        check(f(x, np.int32(i)), x[i])
    g = minijax.jit(lambda a, i, j: a[i, 1:, None, j])
    x3 = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    check(g(x3, 1, -1), x3[1, 1:, None, -1])
    jaxpr = str(minijax.make_jaxpr(lambda a, i: a[i])(x, 1))
    assert "dynamic_slice" in jaxpr and "squeeze" in jaxpr
    # An Array scalar index outside jit takes the same path.
    check(jnp.asarray(x)[jnp.array(-2)], x[-2])


def test_iteration_uses_indexing():
    x = np.arange(6).reshape(3, 2).astype(np.int32)
    rows = list(jnp.asarray(x))
    assert len(rows) == 3
    for r, e in zip(rows, x):
        check(r, e)


@pytest.mark.parametrize("index, advice", [
    ([0, 1], "array"), ([0], "array"), ([], "array"), ([True, False], "array"),
    ([0, slice(None)], "tuple"), ([np.array([0, 1])], "tuple"), ([None], "tuple"),
])
def test_a_list_index_is_refused_as_in_jax(index, advice):
    # JAX 0.10.2 (recorded from it) refuses every non-tuple sequence, for x[...] and .at[...]
    x = jnp.arange(6.0).reshape(2, 3)
    msg = (r"^Using a non-tuple sequence for multidimensional indexing is not allowed; use "
           rf"`arr\[{advice}\(seq\)\]` instead of `arr\[seq\]`\. See "
           r"https://github\.com/jax-ml/jax/issues/4564 for more information\.$")
    with pytest.raises(TypeError, match=msg):
        x[index]
    with pytest.raises(TypeError, match=msg):
        minijax.jit(lambda a: a[index])(x)
    with pytest.raises(TypeError, match=msg):
        x.at[index].set(1.0)
    check(x[tuple(index)] if advice == "tuple" else x[np.array(index, dtype=int)],
          np.arange(6.0).reshape(2, 3)[tuple(index) if advice == "tuple"
                                       else np.array(index, dtype=int)])
