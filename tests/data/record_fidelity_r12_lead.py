"""Prints what JAX 0.10.2 gives for tests/test_fidelity_r12_lead.py (run under real JAX:
/work/venv_jax/bin/python tests/data/record_fidelity_r12_lead.py)."""
import io
import contextlib

import jax
import jax.numpy as jnp

print("jax", jax.__version__)
f = lambda x: jnp.sin(x) * 2  # noqa: E731
for name, fn in [("vjp_python_ct", lambda: jax.vjp(f, 1.0)[1](1.0)[0]),
                 ("vjp_checkpoint_python_ct", lambda: jax.vjp(jax.checkpoint(f), 1.0)[1](1.0)[0]),
                 ("vjp_array_ct", lambda: jax.vjp(f, 1.0)[1](jnp.float32(1.0))[0]),
                 ("grad_checkpoint", lambda: jax.grad(jax.checkpoint(f))(1.0))]:
    r = fn()
    print(name, float(r), r.weak_type)


def printing(policy, loop):
    def body(y):
        z = jnp.sin(y)
        jax.debug.print("ck {}", z)
        if loop:
            return jax.lax.fori_loop(0, 2, lambda i, c: c * z, y) * 2
        return z * 2
    return lambda x: jax.checkpoint(body, policy=policy)(x)


pols = {"none": None, "everything": jax.checkpoint_policies.everything_saveable,
        "nothing": jax.checkpoint_policies.nothing_saveable}
for pname, pol in pols.items():
    for loop in (False, True):
        for tname, t in [("grad", jax.grad), ("jit_grad", lambda g: jax.jit(jax.grad(g)))]:
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                t(printing(pol, loop))(1.0)
                jax.effects_barrier()
            print("prints", pname, loop, tname, buf.getvalue().count("ck "))


# An eager shard_map runs its body op by op (a custom_jvp function's body too); under jit XLA
# compiles it whole: float16 intermediates round differently (difftest s11038-13).
import numpy as np  # noqa: E402
from jax.sharding import Mesh, PartitionSpec as P  # noqa: E402


@jax.custom_jvp
def cj_pair(x, y):
    return x * y + jnp.sin(x)


cj_pair.defjvp(lambda p, t: (cj_pair(*p), t[0] * (p[1] + jnp.cos(p[0])) + t[1] * p[0]))
mesh = Mesh(np.array(jax.devices()[:2]), ("d",))
x = jnp.asarray(np.array([[[1.658203125, 4.58203125, 6.52734375]],
                          [[1.9775390625, 0.56982421875, 1.7216796875]]], np.float16))


def body(x):
    t = cj_pair(jnp.sort(x, axis=2, descending=True), jnp.sort(x, axis=2, descending=True))
    return jax.lax.psum(jnp.var(jnp.fft.ifft(t)), "d")


g = jax.shard_map(body, mesh=mesh, in_specs=P("d"), out_specs=P())
print("eager_shard_map", repr(float(g(x))), "jit", repr(float(jax.jit(g)(x))))
