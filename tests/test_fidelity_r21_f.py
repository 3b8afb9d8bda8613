"""Run 25000's s25006-20 (tools/difftest/triage_25000_f.md): the JVP of a ``checkpoint`` keeps
its ``differentiated`` parameter, as JAX 0.10.2's ``remat_jvp`` does. minijax set it, so the
jitted JVP lowered the body's operands through an ``optimization_barrier`` and Shardy gave a
tangent the body only forwards (a replicated constant) the sharding of the split primal.

Expected values hard-coded from JAX 0.10.2 (8 virtual CPU devices, x64): running this test's
program with ``import jax`` prints ``differentiated=False`` in the jaxpr, and the specs
``P('d',)`` for the primal and for the ``'a'`` tangent, ``P()`` for the ``'b'`` tangent.
"""
import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax.sharding import Mesh, NamedSharding, PartitionSpec as P


def _f(x):
    return {"a": jnp.sin(x), "b": x}


def test_checkpoint_jvp_keeps_differentiated():
    jaxpr = jax.make_jaxpr(lambda x, t: jax.jvp(jax.checkpoint(_f), (x,), (t,)))(
        np.ones((2, 3), np.float32), np.ones((2, 3), np.float32))
    (eqn,) = jaxpr.eqns
    assert eqn.params["differentiated"] is False


@pytest.mark.devices(2)
def test_jit_jvp_checkpoint_forwarded_tangent_sharding():
    mesh = Mesh(np.array(jax.devices()[:2]), ("d",))
    x = jax.device_put(jnp.arange(6.0).reshape(2, 3), NamedSharding(mesh, P("d")))
    t = np.full((2, 3), 0.7, np.float32)
    fn = jax.checkpoint(_f, policy=jax.checkpoint_policies.checkpoint_dots)
    p, tan = jax.jit(lambda x: jax.jvp(fn, (x,), (t,)))(x)
    assert p["b"].sharding.spec == P("d")
    assert tan["a"].sharding.spec == P("d")
    assert tan["b"].sharding.spec == P()
