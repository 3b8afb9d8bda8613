"""Issue 21, run 31000, helper j (tools/difftest/triage_31000_j.md). Expected values recorded
from JAX 0.10.2 (/work/venv_jax) with the same programs:

1. s31008-159: ``jit(jacfwd(f))`` of an integer output (``count_nonzero``): the output's block
   is its float0 tangent cast to int32 zeros. minijax folded the cast of the float0 constant
   with NumPy (``ValueError: invalid literal for int()``); JAX stages it.
2. s31057-348: an eagerly called ``shard_map`` whose body takes the ``jvp`` of a ``fori_loop``
   with a varying carry and a NumPy (unvarying) tangent: JAX runs the eager body op by op and
   returns; only when the body is staged (``make_jaxpr``, ``jit``) does it raise its "Scan
   carry input and output got mismatched varying manual axes" ValueError. minijax raises it
   eagerly too (FINDINGS 272: skipping the check in an eager body broke the eager refusals
   test_fidelity_r12_f/r13_e recorded), so only the staged refusal is tested here.
"""
import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax import lax
from minijax.sharding import Mesh
from minijax.sharding import PartitionSpec as P


@pytest.mark.parametrize("jitted", [True, False])
def test_jacfwd_integer_output_block_is_int_zeros(jitted):
    # JAX 0.10.2: {'a': Array(0, int32), 'b': Array(1., float32, weak_type=True)} (scalar);
    # (3,): a int32[1,3] zeros, b float32 eye(3)
    def f(x):
        return {"a": jnp.count_nonzero(x, axis=None, keepdims=True), "b": x}

    g = jax.jacfwd(f)
    g = jax.jit(g) if jitted else g
    r = g(1.5244313478469849)
    assert r["a"].dtype == np.int32 and r["a"].shape == () and int(r["a"]) == 0
    assert r["b"].dtype == np.float32 and r["b"].weak_type and float(r["b"]) == 1.0
    r = g(np.arange(3, dtype=np.float32))
    assert r["a"].dtype == np.int32 and r["a"].shape == (1, 3)
    np.testing.assert_array_equal(np.asarray(r["a"]), np.zeros((1, 3), np.int32))
    np.testing.assert_array_equal(np.asarray(r["b"]), np.eye(3, dtype=np.float32))


def _jvp_loop_smap():
    mesh = Mesh(np.array(jax.devices()[:2]), ("d",))

    def f(x0):
        return lax.fori_loop(0, 1, lambda i, c: jnp.fmax(c, x0 * 0.5), x0 + 1.0)

    def shard(x):
        out = jax.jvp(f, (x,), (np.full(x.shape, 0.7, np.float32),))
        return jax.tree_util.tree_map(lambda v: lax.psum(v, "d"), out)

    return jax.shard_map(shard, mesh=mesh, in_specs=(P("d"),), out_specs=P())


_X = jnp.arange(4.0).reshape(2, 2) - 1.5


@pytest.mark.parametrize("how", ["make_jaxpr", "jit"])
def test_staged_shard_map_jvp_loop_carry_vma_raises(how):
    # JAX 0.10.2: ValueError: Scan carry input and output got mismatched varying manual axes
    g = _jvp_loop_smap()
    with pytest.raises(ValueError, match="mismatched varying manual axes"):
        (jax.make_jaxpr(g) if how == "make_jaxpr" else jax.jit(g))(_X)
