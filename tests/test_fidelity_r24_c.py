"""Run 29000, helper c: an all-reduce of a float0 value (an integer output's tangent) inside a
shard_map. JAX 0.10.2 lowers psum/pmax/pmin's combiner with lax's add/max/min, whose dtype
rule refuses float0, so a program returning such a sum raises (eagerly and under jit)
``TypeError: Called add with a float0 at position 0 ...`` (s29036-215, s29056-304:
``shard_map(checkpoint(jvp))`` of a bool output). minijax returned float0 zeros. Expected
outcomes recorded from JAX 0.10.2 (tools/difftest/triage_29000_c.md)."""
import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax import lax
from minijax.sharding import Mesh
from minijax.sharding import PartitionSpec as P

_X = np.array([1.0, 2.0, 3.0], np.float32)


def _mesh():
    return Mesh(np.array(jax.devices()[:2]), ("d",))


def _tangent(x):  # a float0 tracer: the remat callee's zero tangent of a bool output
    return jax.checkpoint(lambda x: jax.jvp(lambda x: x > 1, (x,), (x,)))(x)[1]


def _smap(body, **kw):
    return jax.shard_map(body, mesh=_mesh(), in_specs=(P(),), out_specs=P(), **kw)


# (collective, its combiner's name in JAX's message)
_CASES = [(lambda t: lax.psum(t, "d"), "add"), (lambda t: lax.pmax(t, "d"), "max"),
          (lambda t: lax.pmin(t, "d"), "min")]


@pytest.mark.parametrize("coll,name", _CASES)
@pytest.mark.parametrize("jitted", [False, True])
def test_float0_all_reduce_refused(coll, name, jitted):
    f = _smap(lambda x: coll(_tangent(x)))
    f = jax.jit(f) if jitted else f
    with pytest.raises(TypeError, match=f"Called {name} with a float0 at position 0"):
        f(jnp.asarray(_X))


def test_float0_psum_unchecked_refused():
    f = _smap(lambda x: lax.psum(_tangent(x), "d"), check_vma=False)
    with pytest.raises(TypeError, match="Called add with a float0 at position 0"):
        f(jnp.asarray(_X))


def test_dead_float0_psum():
    # JAX: jit drops the dead sum and computes; the eager body runs it and raises
    f = _smap(lambda x: (lax.psum(_tangent(x), "d"), x.sum())[1])
    assert float(jax.jit(f)(jnp.asarray(_X))) == 6.0
    with pytest.raises(TypeError, match="Called add with a float0 at position 0"):
        f(jnp.asarray(_X))


def test_float0_psum_make_jaxpr_and_trace():
    # JAX refuses only when lowering: make_jaxpr and .trace() give the program, which prints
    f = _smap(lambda x: lax.psum(_tangent(x), "d"))
    text = str(jax.make_jaxpr(f)(_X))
    assert "psum_invariant" in text and "float0[3]" in text
    jax.jit(f).trace(_X)
    with pytest.raises(TypeError, match="Called add with a float0"):
        jax.jit(f).lower(_X)


def test_float0_concrete_psum_unchanged():
    # jvp's own float0 (no remat) is a host zero in minijax: JAX's NumPy error there
    f = _smap(lambda x: lax.psum(jax.jvp(lambda x: x > 1, (x,), (x,))[1], "d"))
    with pytest.raises(TypeError):
        f(jnp.asarray(_X))


def test_int_output_tangent_outside_collective_unchanged():
    out = jax.jit(lambda x: jax.checkpoint(lambda x: jax.jvp(lambda x: x > 1, (x,), (x,)))(x))(
        jnp.asarray(_X))
    assert out[1].dtype == jax.dtypes.float0 and out[1].shape == (3,)
    np.testing.assert_array_equal(out[0], [False, True, True])
