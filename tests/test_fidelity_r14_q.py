"""Run 17000's s17121-467: `jit(vmap(f, in_axes=-1))` of `hard_tanh(jnp.roll(x, 1, axis=0))`
with x split on axis 0. JAX 0.10.2 returns P(); minijax returned P(None, 'd'), because its jit
batching rule moved each operand's batch axis to 0 before the call (a transpose of the split
operand outside it) and its concatenate rule kept the batch where the first operand had it.
JAX's jit rule (batch_jaxpr2) keeps the operands' batch axes and lets the callee place the
outputs' ones; its concatenate rule moves every operand's batch to 0.

tests/data/fidelity_r14_q_jax.json (tests/data/record_fidelity_r14_q.py, JAX 0.10.2) holds
each case's output spec, values and the primitives of its jaxpr.
"""
import json
import pathlib

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax.sharding import Mesh, NamedSharding, PartitionSpec as P

_REC = json.loads((pathlib.Path(__file__).parent / 'data' / 'fidelity_r14_q_jax.json').read_text())


def _cases():
    roll = lambda x: jnp.roll(x, 1, axis=0)
    return {
        'roll_hard_tanh': (lambda x: jax.nn.hard_tanh(roll(x)), -1),
        'roll': (roll, -1),
        'double': (jax.jit(lambda x: x * 2.0), 2),
        'concat_unbatched': (lambda x: jnp.concatenate([x, jnp.ones((2, 1, 1))], axis=0), 2),
    }


def _prims(jaxpr):
    outer = [e.primitive.name for e in jaxpr.eqns]
    inner = next(([e.primitive.name for e in eqn.params['jaxpr'].eqns]
                  for eqn in jaxpr.eqns if eqn.primitive.name == 'jit'), [])
    return outer, inner


@pytest.mark.devices(2)
@pytest.mark.parametrize('name', sorted(_cases()))
def test_batched_jit_and_concatenate_as_jax(name):
    rec = _REC[name]
    f, axis = _cases()[name]
    x_np = np.array(_REC['x'], np.float32)
    mesh = Mesh(np.array(jax.devices()[:2]), ('d',))
    x = jax.device_put(x_np, NamedSharding(mesh, P('d')))
    g = jax.vmap(f, in_axes=axis)
    r = jax.jit(g)(x)
    spec = [None if s is None else str(s) for s in r.sharding.spec]
    while spec and spec[-1] is None:
        spec.pop()
    assert spec == rec['spec']
    assert list(r.shape) == rec['shape'] and r.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(r), np.array(rec['value'], np.float32))
    assert list(_prims(jax.make_jaxpr(g)(x_np).jaxpr)) == [rec['outer'], rec['inner']]
