"""Cases of the oracle run of seeds 9000-9059 where minijax differed from JAX 0.10.2, each
against values recorded from JAX 0.10.2 (the snippet that made each is in its test)."""

import numpy as np

import minijax
import minijax.numpy as jnp


def test_asarray_with_a_dtype_makes_a_weak_array_strong():
    # s9053-200. JAX's asarray is array(copy=False): weak only when dtype is None, even where
    # the named dtype is the array's own:
    # x = jnp.asarray([[4, -1], [-2, 0]], jnp.int32) + 3.0          # float32, weak
    # [jnp.asarray(x, dtype=d).weak_type for d in (None, jnp.float32, jnp.float16)]
    # jax.jit(lambda x: jnp.asarray(x + 3.0, dtype=jnp.float32))(i).weak_type
    # jax.vmap(lambda x: jnp.asarray(x + 3.0, dtype=jnp.float32))(i).weak_type
    # JAX 0.10.2: [True, False, False], False, False
    i = jnp.asarray([[4, -1], [-2, 0]], jnp.int32)
    x = i + 3.0
    assert x.weak_type
    assert [jnp.asarray(x, dtype=d).weak_type for d in (None, jnp.float32, jnp.float16)] == [
        True, False, False]
    assert not minijax.jit(lambda x: jnp.asarray(x + 3.0, dtype=jnp.float32))(i).weak_type
    assert not minijax.vmap(lambda x: jnp.asarray(x + 3.0, dtype=jnp.float32))(i).weak_type
