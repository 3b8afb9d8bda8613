"""Run 29000, helper a: a checkpoint returning, eagerly, the scalar zeros a differentiation made
(the gradient of a Python float through jnp.round, roll's unused input, a vjp/jvp inside the
body) gives JAX 0.10.2's TypedNdArray (float32, weak where the input was a Python float), not a
Python scalar's TypedFloat (which the difftest harness read as float64: s29059-458,
s29051-201, s29020-99, s29020-120, s29058-281). A Python scalar the body returns stays a
TypedFloat, as JAX's. Expected values recorded from JAX 0.10.2 (type name, dtype, weak_type,
value)."""
import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp

RECORDED = [
    ('jax.checkpoint(jax.grad(lambda x: jnp.round(x, 1)), policy=jax.checkpoint_policies.everything_saveable)(1.0)', 'TypedNdArray', 'float32', True, 0.0),
    ('jax.checkpoint(jax.grad(lambda x: jnp.round(x)))(1.0)', 'TypedNdArray', 'float32', True, 0.0),
    ('jax.checkpoint(jax.grad(lambda x: jnp.round(x)))(jnp.float32(1.0))', 'TypedNdArray', 'float32', False, 0.0),
    ('jax.checkpoint(lambda x: jax.vjp(jnp.round, x)[1](1.0)[0])(1.0)', 'TypedNdArray', 'float32', True, 0.0),
    ('jax.checkpoint(lambda x: jax.jvp(jnp.round, (x,), (1.0,))[1])(1.0)', 'TypedNdArray', 'float32', True, 0.0),
    ('jax.checkpoint(jax.grad(lambda x, y: jnp.sum(jnp.roll(y, 5)), argnums=(0, 1)), policy=jax.checkpoint_policies.nothing_saveable)(0.85, jnp.ones(3))[0]', 'TypedNdArray', 'float32', True, 0.0),
    ('jax.checkpoint(lambda x: 2.0)(1.0)', 'TypedFloat', 'float32', False, 2.0),
    ('jax.checkpoint(lambda x: x)(1.0)', 'TypedFloat', 'float32', False, 1.0),
]


@pytest.mark.parametrize("src,type_name,dtype,weak,value", RECORDED)
def test_checkpoint_eager_scalar_result_types(src, type_name, dtype, weak, value):
    r = eval(src, {"jax": jax, "jnp": jnp})
    assert type(r).__name__ == type_name
    assert np.dtype(r.dtype).name == dtype
    assert bool(getattr(r, "weak_type", False)) == weak
    assert float(r) == value
