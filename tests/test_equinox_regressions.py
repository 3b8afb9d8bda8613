"""What equinox's own test suite needs of minijax, checked without equinox: each behaviour as
JAX 0.10.2 has it (the facts were read off JAX 0.10.2 under /work/venv_jax)."""

import ml_dtypes
import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import dtypes


def test_dtypes_bfloat16_is_the_scalar_type():
    # jax.dtypes.bfloat16 is ml_dtypes' scalar type: callable, and an isinstance target
    # (equinox's serialisation and tree_equal build and test scalars with it).
    assert dtypes.bfloat16 is ml_dtypes.bfloat16
    s = dtypes.bfloat16(1.5)
    assert isinstance(s, np.generic) and float(s) == 1.5
    x = jnp.ones(3, dtypes.bfloat16)
    assert x.dtype == np.dtype(ml_dtypes.bfloat16)
    assert isinstance(np.asarray(x)[0], dtypes.bfloat16)
    y = minijax.jit(lambda a: a * 2)(x)
    assert y.dtype == dtypes.bfloat16 and np.asarray(y, np.float32).tolist() == [2, 2, 2]
    assert dtypes.canonicalize_dtype(dtypes.bfloat16) == np.dtype(ml_dtypes.bfloat16)
    assert jnp.promote_types(dtypes.bfloat16, np.float16) == np.float32
    assert dtypes.scalar_type_of(x) is float


def _scaled_by_residuals():
    seen = []

    @minijax.custom_vjp
    def f(x, skip):
        return x * 2

    def fwd(x, skip):
        return x * 2, (True, 1.5, jnp.full(3, 2.0), x)

    def bwd(res, g):
        flag, scale, const, x = res
        seen.append((type(flag), isinstance(scale, float), const.shape))
        return (g * scale * x if flag else g, None)  # `if flag`: a Python bool, even under vmap

    f.defvjp(fwd, bwd)
    return f, seen


def test_custom_vjp_python_scalar_residuals_reach_bwd_as_python_scalars():
    # JAX 0.10.2 prints 4.5, 4.5, [0, 1.5, 3], [0, 1.5, 3], and (bool, True, (3,)) per call.
    f, seen = _scaled_by_residuals()
    assert float(minijax.grad(f)(3.0, None)) == 4.5
    assert float(minijax.jit(minijax.grad(f))(3.0, None)) == 4.5
    x = jnp.arange(3.0)
    np.testing.assert_array_equal(minijax.vmap(minijax.grad(f), (0, None))(x, None),
                                  [0, 1.5, 3])
    np.testing.assert_array_equal(
        minijax.grad(lambda x: minijax.vmap(f, (0, None))(x, None).sum())(x), [0, 1.5, 3])
    assert seen == [(bool, True, (3,))] * 4


def test_custom_vjp_bwd_gives_none_for_a_none_input_inside_a_tuple():
    # equinox's checkpointed while_loop: the input (None, (None, x)) gets back (None, (None, g))
    @minijax.custom_vjp
    def ident(t):
        return t

    ident.defvjp(lambda t: (t, None), lambda _, g: (g,))
    g = minijax.grad(lambda x: ident((None, (None, x)))[1][1] * 3.0)(2.0)
    assert float(g) == 3.0


def test_emit_python_callback_from_a_library_lowering():
    # equinox's noinline lowers its primitive to mlir.emit_python_callback(ctx, callback,
    # token, operands, operand_avals, result_avals, has_side_effect=...) -> (results, token,
    # keepalive), and hands the keepalive to ctx.module_context.add_keepalive.
    from minijax.extend.core import Primitive
    from minijax.interpreters import mlir

    calls = []
    host_sin_p = Primitive("host_sin_for_test")
    host_sin_p.def_impl(lambda x: jnp.asarray(np.sin(np.asarray(x))))
    host_sin_p.def_abstract_eval(lambda x: x)

    def lowering(ctx, x):
        def callback(a):
            calls.append(type(a))
            return [np.sin(a)]

        results, token, keepalive = mlir.emit_python_callback(
            ctx, callback, None, [x], ctx.avals_in, ctx.avals_out, has_side_effect=False)
        ctx.module_context.add_keepalive(keepalive)
        assert token is None
        return results

    mlir.register_lowering(host_sin_p, lowering)
    x = np.linspace(-2, 2, 5, dtype=np.float32)
    out = minijax.jit(lambda v: host_sin_p.bind(v) * 2)(x)
    np.testing.assert_allclose(out, 2 * np.sin(x), rtol=1e-6)
    assert calls == [np.ndarray]


@pytest.mark.parametrize("shapes", [((2, 3), (3,)), ((3,), (3, 4)), ((3,), (3,)),
                                    ((5, 2, 3), (3,)), ((3,), (5, 3, 4))])
def test_matmul_with_a_vector_is_one_dot_general(shapes):
    # JAX 0.10.2's make_jaxpr(jnp.matmul) for these shapes is one dot_general (equinox's
    # test_make_jaxpr counts the primitives of an MLP); values as NumPy's
    rng = np.random.default_rng(0)
    a, b = (rng.normal(size=s).astype(np.float32) for s in shapes)
    jaxpr = minijax.make_jaxpr(jnp.matmul)(a, b)
    assert [e.primitive.name for e in jaxpr.eqns] == ["dot_general"]
    np.testing.assert_allclose(jnp.matmul(a, b), np.matmul(a, b), rtol=1e-5, atol=1e-6)
    ga, gb = minijax.grad(lambda a, b: jnp.sum(jnp.matmul(a, b)), argnums=(0, 1))(a, b)
    # sum(a @ b) is linear in each operand: <grad, d> is sum(d @ b) (resp. sum(a @ d))
    da, db = (rng.normal(size=s).astype(np.float32) for s in shapes)
    np.testing.assert_allclose(np.sum(ga * da), np.sum(np.matmul(da, b)), rtol=1e-4)
    np.testing.assert_allclose(np.sum(gb * db), np.sum(np.matmul(a, db)), rtol=1e-4)
