"""Cases of the oracle run of seeds 10000-10059 (helper G's share) where minijax differed from
JAX 0.10.2, each against JAX 0.10.2's recorded behaviour (the snippet that showed it is in each
test)."""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp


def test_index_into_empty_axis_under_an_empty_outer_vmap():
    # s10050-98. JAX checks a gather's slice sizes against its full, batched shapes only, and
    # accepts any slice size when the indices are empty: an outer vmap of size 0 makes them so.
    # x1 = jnp.zeros((0,), bool); f = lambda i: x1[i]
    # jax.vmap(jax.vmap(f, -1), 1)(jnp.zeros((2, 0, 1), jnp.int8)).shape  -> (0, 1, 2)
    # jax.checkpoint(jax.vmap(jax.vmap(f, -1), 1))(...)                   -> (0, 1, 2)
    # jax.vmap(lambda y: jax.vmap(f)(jnp.zeros((1, 2), jnp.int8)))(jnp.zeros((0,)))
    #     -> TypeError: Slice size at index 0 in gather op is out of range, ... got 1.
    x1 = jnp.zeros((0,), bool)

    def f(i):
        return x1[i]

    idx = jnp.zeros((2, 0, 1), jnp.int8)
    out = minijax.vmap(minijax.vmap(f, -1), 1)(idx)
    assert out.shape == (0, 1, 2) and out.dtype == np.bool_
    out = minijax.checkpoint(minijax.vmap(minijax.vmap(f, -1), 1))(idx)
    assert out.shape == (0, 1, 2)
    # The empty outer vmap does not map the indices: they are not empty, JAX refuses.
    with pytest.raises(TypeError, match="Slice size at index 0 in gather op is out of range"):
        minijax.vmap(lambda y: minijax.vmap(f)(jnp.zeros((1, 2), jnp.int8)))(jnp.zeros((0,)))
