"""Records real JAX's results for two tests at the end of tests/test_shard_map_vma.py: vmap of
a while_loop whose predicate varies, and pcast of a typed key (run with the JAX venv:
XLA_FLAGS=--xla_force_host_platform_device_count=4 /work/venv_jax/bin/python THIS). JAX 0.10.2."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax, random
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

mesh = Mesh(np.array(jax.devices()[:4]), ("d",))
x = jnp.arange(8.0)


def counted(x):
    r = jax.vmap(lambda x: lax.while_loop(lambda c: c[1] < x, lambda c: (c[0] + 1, c[1] + 1.0),
                                          (0, 0.0)))(x)
    print("while typeof", [str(jax.typeof(a)) for a in r])
    return r


out = jax.shard_map(counted, mesh=mesh, in_specs=P("d"), out_specs=P("d"))(x)
print("while", [np.asarray(a).tolist() for a in out], [a.dtype for a in out])


def keyed(x):
    k = lax.pcast(random.key(0), "d", to="varying")
    print("pcast key typeof", jax.typeof(k), jax.typeof(random.key_data(k)))
    return random.uniform(random.fold_in(k, lax.axis_index("d")), (2,))


out = jax.shard_map(keyed, mesh=mesh, in_specs=P("d"), out_specs=P("d"))(x)
print("uniform", np.asarray(out).tolist())
