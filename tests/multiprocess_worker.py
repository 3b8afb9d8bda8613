"""One process of tests/test_distributed.py's 2-process job (2 CPU devices each): a jitted
psum over all 4 devices through shard_map, a sharded jit, and a data-parallel training step,
each checked against NumPy. Prints "OK <rank>" at the end."""

import os
import sys

os.environ["MINIJAX_NUM_CPU_DEVICES"] = "2"
os.environ["MINIJAX_PLATFORMS"] = "cpu"

import numpy as np  # noqa: E402

import minijax as mj  # noqa: E402
import minijax.numpy as jnp  # noqa: E402
from minijax import distributed, lax  # noqa: E402
from minijax.sharding import NamedSharding  # noqa: E402
from minijax.sharding import PartitionSpec as P  # noqa: E402


def local_value(x):
    """The value of a replicated global Array, from this process's first shard."""
    return np.asarray(x.addressable_shards[0].data)


def main():
    port, rank = sys.argv[1], int(sys.argv[2])
    distributed.initialize(f"127.0.0.1:{port}", 2, rank, initialization_timeout=30)
    assert distributed.process_index() == rank and distributed.process_count() == 2
    assert len(mj.devices()) == 4 and len(mj.local_devices()) == 2
    assert all(d.process_index == rank for d in mj.local_devices())
    mesh = mj.make_mesh((4,), ("d",))

    # 1. psum over all 4 devices: device i contributes i + 1.
    local = np.arange(2 * rank, 2 * rank + 2, dtype=np.float32) + 1
    sh = NamedSharding(mesh, P("d"))
    x = distributed.make_array_from_process_local_data(sh, local)
    assert x.shape == (4,)
    total = mj.jit(mj.shard_map(lambda a: lax.psum(a, "d"), mesh=mesh, in_specs=P("d"),
                                out_specs=P()))(x)
    np.testing.assert_allclose(local_value(total), [10.0])

    # 2. A sharded jit (no shard_map): XLA partitions a reduction over the global array.
    big = np.arange(16, dtype=np.float32).reshape(8, 2)
    xs = distributed.make_array_from_process_local_data(sh, big[4 * rank:4 * rank + 4])
    out = mj.jit(lambda a: jnp.sum(a * a, axis=0), out_shardings=NamedSharding(mesh, P()))(xs)
    np.testing.assert_allclose(local_value(out), (big * big).sum(0))

    # 3. One data-parallel training step (linear regression), batch split over 4 devices.
    rng = np.random.default_rng(0)
    xb = rng.standard_normal((8, 3)).astype(np.float32)
    yb = rng.standard_normal((8,)).astype(np.float32)
    w0 = np.zeros(3, np.float32)

    def loss(w, x, y):
        return jnp.mean((x @ w - y) ** 2)

    @mj.jit
    def step(w, x, y):
        lv, g = mj.value_and_grad(loss)(w, x, y)
        return w - 0.1 * g, lv

    rep = NamedSharding(mesh, P())
    w = distributed.make_array_from_process_local_data(rep, w0, (3,))
    xsh = distributed.make_array_from_process_local_data(sh, xb[4 * rank:4 * rank + 4])
    ysh = distributed.make_array_from_process_local_data(sh, yb[4 * rank:4 * rank + 4])
    w1, l0 = step(w, xsh, ysh)
    g_ref = 2 * xb.T @ (xb @ w0 - yb) / 8
    np.testing.assert_allclose(float(local_value(l0)), np.mean(yb ** 2), rtol=1e-5)
    np.testing.assert_allclose(local_value(w1), w0 - 0.1 * g_ref, rtol=1e-5, atol=1e-6)
    distributed.global_barrier("done", 30)
    print(f"OK {rank}", flush=True)
    distributed.shutdown()


if __name__ == "__main__":
    main()
