"""lax.reduce: monoid detection (the reduce_* primitives), reduce_p with a user's computation
(variadic, pytrees), its JVP/grad against closed forms, vmap, jit, and JAX 0.10.2's errors."""

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax import lax

X = (np.arange(12, dtype=np.float32).reshape(3, 4) - 5.0) / 2


def _prims(f, *args):
    return [e.primitive.name for e in jax.make_jaxpr(f)(*args).jaxpr.eqns]


@pytest.mark.parametrize("op,init,name,np_fn", [
    (lax.add, 0.0, "reduce_sum", np.sum),
    (lax.mul, 1.0, "reduce_prod", np.prod),
    (lax.max, -np.inf, "reduce_max", np.max),
    (lax.min, np.inf, "reduce_min", np.min),
])
def test_monoids_become_their_primitives(op, init, name, np_fn):
    f = lambda x: lax.reduce(x, init, op, (0,))  # noqa: E731
    assert _prims(f, X) == [name]
    np.testing.assert_allclose(f(X), np_fn(X, axis=0), rtol=1e-6)
    # not the identity: the general reduce
    assert _prims(lambda x: lax.reduce(x, np.float32(0.5), op, (0,)), X) == ["reduce"]


def test_bitwise_monoids_and_weak_type():
    i = np.array([[1, 2], [4, 8]], np.int32)
    assert _prims(lambda x: lax.reduce(x, 0, lax.bitwise_or, (0, 1)), i) == ["reduce_or"]
    assert _prims(lambda x: lax.reduce(x, -1, lax.bitwise_and, (0,)), i) == ["reduce_and"]
    assert _prims(lambda x: lax.reduce(x, 0, lax.bitwise_xor, (0,)), i) == ["reduce_xor"]
    assert int(lax.reduce(i, 0, lax.bitwise_or, (0, 1))) == 15
    # weak only where operand and init value both are, as JAX's
    assert lax.reduce(2.0, 0.0, lax.add, ()).aval.weak_type
    assert not lax.reduce(jnp.ones(3), 0.0, lax.add, (0,)).aval.weak_type


def _general_prod(x, dims=(1,)):
    return lax.reduce(x, np.float32(1.0), lambda a, b: a * b, dims)


def test_general_reduce_value_jit_vmap():
    assert _prims(_general_prod, X) == ["reduce"]
    np.testing.assert_allclose(_general_prod(X), np.prod(X, axis=1), rtol=1e-6)
    np.testing.assert_allclose(jax.jit(_general_prod)(X), np.prod(X, axis=1), rtol=1e-6)
    xs = np.stack([X, X + 1])
    np.testing.assert_allclose(jax.vmap(_general_prod)(xs), np.prod(xs, axis=2), rtol=1e-6)
    np.testing.assert_allclose(jax.vmap(_general_prod, in_axes=1)(xs),
                               np.prod(xs, axis=2).T, rtol=1e-6)
    # empty reduction: the init value
    np.testing.assert_allclose(_general_prod(np.ones((2, 0), np.float32)), [1.0, 1.0])


def test_general_reduce_grad():
    # d prod_j x_ij / d x_ik = prod_{j != k} x_ij (X has a zero: no division)
    g = jax.grad(lambda x: _general_prod(x).sum())(X)
    want = np.array([[np.prod(np.delete(row, k)) for k in range(4)] for row in X])
    np.testing.assert_allclose(g, want, rtol=1e-5)
    g = jax.grad(lambda x: _general_prod(x, (0, 1)))(X[:2, :3])
    sub = X[:2, :3].ravel()
    want = [np.prod(np.delete(sub, k)) for k in range(6)]
    np.testing.assert_allclose(g.ravel(), want, rtol=1e-5)
    t = jax.jvp(_general_prod, (X,), (np.ones_like(X),))[1]
    np.testing.assert_allclose(t, want_rows := want_row_sums(X), rtol=1e-5)
    assert want_rows.shape == (3,)


def want_row_sums(x):
    return np.array([sum(np.prod(np.delete(row, k)) for k in range(len(row))) for row in x])


def _argmax(v):
    idx = lax.broadcasted_iota(jnp.int32, v.shape, 0)

    def comp(a, b):
        (av, ai), (bv, bi) = a, b
        pick = av >= bv
        return lax.select(pick, av, bv), lax.select(pick, ai, bi)

    return lax.reduce((v, idx), (-np.inf, np.int32(0)), comp, (0,))


def test_variadic_pytree_reduce():
    v = np.array([1.0, 5.0, 3.0], np.float32)
    m, i = _argmax(v)
    assert float(m) == 5.0 and int(i) == 1
    ms, is_ = jax.jit(jax.vmap(_argmax))(np.array([[1.0, 5.0, 3.0], [7.0, 0.0, 1.0]], np.float32))
    np.testing.assert_array_equal(ms, [5.0, 7.0])
    np.testing.assert_array_equal(is_, [1, 0])
    # the gradient flows to the chosen element (JAX 0.10.2 fails here on the int operand's
    # symbolic-zero tangent; minijax computes it)
    np.testing.assert_allclose(jax.grad(lambda v: _argmax(v)[0])(v), [0.0, 1.0, 0.0])


def test_errors_as_jax():
    with pytest.raises(ValueError, match="reduce found non-scalar initial value"):
        lax.reduce(X, jnp.zeros(2), lambda a, b: a + b, (0,))
    with pytest.raises(TypeError, match="reduce operand dtypes should match"):
        lax.reduce(X, 0, lambda a, b: a + b, (0,))
    with pytest.raises(ValueError, match="same tree structure as init_values"):
        lax.reduce((X,), (0.0, 0.0), lax.add, (0,))


def test_out_sharding():
    mesh = jax.make_mesh((1,), ("x",))
    s = jax.sharding.NamedSharding(mesh, jax.P())
    np.testing.assert_allclose(lax.reduce(X, 0.0, lax.add, (0,), out_sharding=s), X.sum(0))
    # the general reduce ignores it, as JAX's
    np.testing.assert_allclose(lax.reduce(X, 0.0, lambda a, b: a + b, (0,), out_sharding=s),
                               X.sum(0))
    with pytest.raises(NotImplementedError):
        lax.reduce(X, 1.0, lax.mul, (0,), out_sharding=s)
