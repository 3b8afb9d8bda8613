"""Records JAX's results for tests/test_fidelity_r14_q.py (run 17000, case s17121-467: a jit
under vmap whose operand is split and batched on another axis).

For each case: the output's PartitionSpec (trailing Nones dropped), its values, and the
primitives of the jaxpr (outer equations, then those of the first inner jit), which show
where JAX's batching puts the transposes: jit's rule keeps each operand's batch axis, and
concatenate's moves every operand's batch to axis 0.

    XLA_FLAGS=--xla_force_host_platform_device_count=4 /work/venv_jax/bin/python \
        tests/data/record_fidelity_r14_q.py > tests/data/fidelity_r14_q_jax.json
"""
import json

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update('jax_enable_x64', False)

X = np.linspace(-1.5, 1.5, 6, dtype=np.float32).reshape(2, 1, 3, 1)


def cases():
    roll = lambda x: jnp.roll(x, 1, axis=0)
    return {
        # s17121-467 reduced: hard_tanh(roll(x0)) under vmap(in_axes=-1), x0 split on axis 0
        'roll_hard_tanh': (lambda x: jax.nn.hard_tanh(roll(x)), -1),
        'roll': (roll, -1),
        'double': (jax.jit(lambda x: x * 2.0), 2),
        'concat_unbatched': (lambda x: jnp.concatenate([x, jnp.ones((2, 1, 1))], axis=0), 2),
    }


def prims(jaxpr):
    outer = [e.primitive.name for e in jaxpr.eqns]
    inner = next(([e.primitive.name for e in eqn.params['jaxpr'].eqns]
                  for eqn in jaxpr.eqns if eqn.primitive.name == 'jit'), [])
    return outer, inner


def main():
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:2]), ('d',))
    x = jax.device_put(X, jax.NamedSharding(mesh, jax.P('d')))
    out = {'jax_version': jax.__version__, 'x': X.tolist()}
    for name, (f, axis) in cases().items():
        g = jax.vmap(f, in_axes=axis)
        r = jax.jit(g)(x)
        spec = [None if s is None else str(s) for s in r.sharding.spec]
        while spec and spec[-1] is None:
            spec.pop()
        outer, inner = prims(jax.make_jaxpr(g)(X).jaxpr)
        out[name] = {'spec': spec, 'shape': list(r.shape), 'value': np.asarray(r).tolist(),
                     'outer': outer, 'inner': inner}
    print(json.dumps(out, indent=1))


if __name__ == '__main__':
    main()
