"""Records JAX's results for tests/test_jit_open_args.py (jit arguments left open).

Run with real JAX on 4 virtual CPU devices:
  XLA_FLAGS=--xla_force_host_platform_device_count=4 /work/venv_jax/bin/python \
      tests/data/record_jit_open_args.py > tests/data/jit_open_args_jax.json
"""

import json
import re

import jax
import numpy as np
from jax import lax
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

mesh = Mesh(np.array(jax.devices()[:2]), ("d",))
x0 = np.array([-.0666, .0632, .0655, .0569], np.float32)
x1 = np.array([0, -4], np.int32)
clamped = jax.jit(jax.shard_map(lambda a, i: lax.dynamic_slice(a, (i[0],), (1,)), mesh=mesh,
                                in_specs=(P("d"), P("d")), out_specs=P("d")))
scaled = jax.jit(jax.shard_map(lambda a, i: a * i[0], mesh=mesh, in_specs=(P("d"), P("d")),
                               out_specs=P("d")))
added = jax.jit(lambda a, b: a * 2 + b)


def signature(lowered):
    """The argument list of the module's main function."""
    return re.search(r"@main\((.*)\) ->", lowered.as_text()).group(1)


def shardings(compiled):
    """Each input's sharding: ("named", spec) or ("gspmd", its HLO sharding)."""
    return [("named", [e for e in s.spec]) if isinstance(s, NamedSharding)
            else ("gspmd", str(s._hlo_sharding)) for s in compiled.input_shardings[0]]


def case(fun, *args):
    lowered = fun.lower(*args)
    return {"value": np.asarray(fun(*args)).tolist(), "signature": signature(lowered),
            "input_shardings": shardings(lowered.compile())}


replicated = jax.device_put(x0, NamedSharding(mesh, P()))
split = jax.device_put(x0, NamedSharding(mesh, P("d")))
out = {
    "jax_version": jax.__version__,
    "open": case(clamped, x0, x1),
    "committed_replicated": case(clamped, replicated, x1),
    "committed_beside_open": case(added, split, x0[::-1].copy()),
    "grad_clamped": np.asarray(jax.grad(lambda a, i: clamped(a, i).sum())(x0, x1)).tolist(),
    "grad_scaled": np.asarray(
        jax.grad(lambda a: scaled(a, x1.astype(np.float32)).sum())(x0)).tolist(),
}
print(json.dumps(out, indent=1))
