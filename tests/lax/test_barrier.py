"""``lax.optimization_barrier`` against what JAX 0.10.2 gives for the same calls (values and
jaxpr text written here from a JAX 0.10.2 session), and in the compiled program."""

import numpy as np

import minijax
import minijax.numpy as jnp
from minijax import lax


def test_pytree_of_mixed_values_is_one_equation():
    text = str(minijax.make_jaxpr(lambda x, y: lax.optimization_barrier((x, [y, 2.0])))(1., 2))
    # JAX 0.10.2: c:f32[] d:i32[] e:f32[] = optimization_barrier a b 2.0:f32[]
    assert "c:f32[] d:i32[] e:f32[] = optimization_barrier a b 2.0:f32[]" in text
    out = minijax.jit(lambda x, y: lax.optimization_barrier((x, [y, 2.0])))(1., 2)
    assert isinstance(out, tuple) and isinstance(out[1], list)
    assert [float(out[0]), int(out[1][0]), float(out[1][1])] == [1.0, 2, 2.0]


def test_eager_returns_arrays():
    out = lax.optimization_barrier(3.0)  # JAX 0.10.2: Array(3., dtype=float32, weak_type=True)
    assert isinstance(out, minijax.Array) and float(out) == 3.0


def test_derivatives_and_batching():
    sq = lambda x: lax.optimization_barrier(x * x)  # noqa: E731
    assert float(minijax.grad(sq)(3.0)) == 6.0  # JAX 0.10.2: 6.0
    np.testing.assert_array_equal(minijax.vmap(sq)(jnp.arange(3.0)), [0.0, 1.0, 4.0])
    primal, tangent = minijax.jvp(sq, (3.0,), (1.0,))
    assert (float(primal), float(tangent)) == (9.0, 6.0)
    # JAX 0.10.2: (Array(2., dtype=float32, weak_type=True),)
    (ct,) = minijax.linear_transpose(lax.optimization_barrier, 1.0)(2.0)
    assert float(ct) == 2.0
    # the tangent gets its own barrier, as in JAX
    text = str(minijax.make_jaxpr(minijax.grad(sq))(3.0))
    assert text.count("optimization_barrier") == 2


def test_lowers_to_stablehlo_barrier_and_keeps_both_computations():
    f = minijax.jit(lambda x: lax.optimization_barrier(jnp.sin(x)) + jnp.sin(x))
    assert "stablehlo.optimization_barrier" in f.lower(1.0).as_text()
    np.testing.assert_allclose(float(f(1.0)), 2 * np.sin(1.0), rtol=1e-6)
