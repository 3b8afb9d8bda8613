"""Round 13, helper D: checkpoint's transpose typing (V5) and nested jits kept whole by
checkpoint's partial evaluation (Q1). Expected values were printed by JAX 0.10.2."""

import numpy as np

import minijax as jax
from minijax import lax


def _weak(x):
    return jax.core.get_aval(x).weak_type


# V5 (case s15057-29): staged, the transposed checkpoint body takes its cotangents at the
# body's output types (a strong cotangent of a weak output is weak); eagerly, at the values'.

def test_staged_checkpoint_transpose_types_cotangent_as_output():
    g = jax.jit(lambda x: jax.vjp(jax.checkpoint(lax.sin), x)[1](np.float32(1)))(-0.12)[0]
    assert g.dtype == np.float32 and _weak(g)  # JAX 0.10.2: f32, weak
    np.testing.assert_allclose(g, 0.99280864, rtol=1e-6)
    g = jax.jit(lambda x: jax.vjp(jax.checkpoint(lax.lgamma), x)[1](np.float32(1)))(-0.12)[0]
    assert g.dtype == np.float32 and _weak(g)  # JAX 0.10.2: f32, weak
    np.testing.assert_allclose(g, 7.5393023, rtol=1e-6)


def test_eager_checkpoint_transpose_keeps_cotangent_type():
    g = jax.vjp(jax.checkpoint(lax.lgamma), -0.12)[1](np.float32(1))[0]
    assert g.dtype == np.float32 and not _weak(g)  # JAX 0.10.2: f32, strong
    np.testing.assert_allclose(g, 7.5393023, rtol=1e-6)
    # without checkpoint the jitted cotangent stays strong (the jit's transpose is traced at
    # the actual cotangent types)
    g = jax.jit(lambda x: jax.vjp(lax.sin, x)[1](np.float32(1)))(-0.12)[0]
    assert not _weak(g)  # JAX 0.10.2: strong
