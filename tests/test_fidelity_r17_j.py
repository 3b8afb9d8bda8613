"""Run 20000's s20015-185 (tools/difftest/triage_20000_j.md), a case where JAX 0.10.2 is the odd
one and minijax keeps its own rule: inside ``shard_map``, a differentiated ``jnp.prod`` over an
axis that is empty on each shard keeps the operand's varying manual axes, as the primitive's own
type (and the non-empty shards) say. JAX's ``_reduce_jvp`` returns ``lax.full`` there, an
unvarying value, so its primal under ``jvp`` is typed differently from the same ``prod``
without ``jvp``, and a jacobian w.r.t. a replicated input loses its psum only when the shard is
empty. These tests hold minijax to what JAX does everywhere else.
"""
import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax import lax

pytestmark = pytest.mark.devices(4)


def _mesh():
    return jax.sharding.Mesh(np.array(jax.devices()[:2]), ("d",))


def _jac_wrt_replicated(n):
    """The case's program: the jacobian of ``where(False, sigmoid(prod(x1)), x3)`` w.r.t. the
    replicated ``x3``, with ``x1`` f32[n] split over 'd', psummed over 'd'."""
    x2 = jnp.array([False])

    def shard(x1, x3):
        f = lambda a, c: jnp.where(x2, jax.nn.sigmoid(jnp.prod(a, axis=0, keepdims=True)), c)
        return lax.psum(jax.jacrev(f, argnums=1)(x1, x3), "d")

    g = jax.shard_map(shard, mesh=_mesh(), in_specs=(jax.P("d"), jax.P()), out_specs=jax.P())
    return g(jnp.linspace(0.5, 1.5, n, dtype=jnp.float32), jnp.array([1.3076203], jnp.float32))


def test_s20015_185_jacobian_does_not_depend_on_an_empty_shard():
    # JAX 0.10.2 gives [[4.]] for n = 2 and 4 (one or two elements a shard: the transpose of
    # x3's implicit pvary is a psum, then the harness's psum); for n = 0 it gives [[2.]] (its
    # unvarying `full` drops that psum). minijax gives [[4.]] for all three.
    for n in (0, 2, 4):
        np.testing.assert_array_equal(np.asarray(_jac_wrt_replicated(n)), [[4.0]])


def test_jvp_primal_of_prod_over_an_empty_shard_is_typed_as_prod():
    # JAX 0.10.2 refuses out_specs=P() for `jnp.prod` of a varying empty shard (its result is
    # varying), but accepts it for the same prod's primal under `jax.jvp`; minijax refuses both.
    x1 = jnp.zeros((0,), jnp.float32)
    prod = lambda a: jnp.prod(a, keepdims=True)
    for h in (prod, lambda a: jax.jvp(prod, (a,), (a,))[0]):
        sm = jax.shard_map(h, mesh=_mesh(), in_specs=jax.P("d"), out_specs=jax.P())
        with pytest.raises(ValueError, match="out_specs which require replication"):
            sm(x1)
