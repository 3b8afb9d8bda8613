"""One process of tests/test_pmap.py's 2-process job (2 CPU devices each): pmap with each
process passing its own slices (JAX's host-local arrays), collectives over all 4 devices,
checked against NumPy. Prints "OK <rank>" at the end."""

import os
import sys

os.environ["MINIJAX_NUM_CPU_DEVICES"] = "2"
os.environ["MINIJAX_PLATFORMS"] = "cpu"

import numpy as np  # noqa: E402

import minijax as mj  # noqa: E402
from minijax import distributed, lax  # noqa: E402


def main():
    port, rank = sys.argv[1], int(sys.argv[2])
    distributed.initialize(f"127.0.0.1:{port}", 2, rank, initialization_timeout=30)
    everything = np.arange(4 * 3, dtype=np.float32).reshape(4, 3) + 1  # slot i: device i
    local = everything[2 * rank:2 * rank + 2]

    out = mj.pmap(lambda a: a / lax.psum(a, "i"), "i")(local)
    assert out.shape == (2, 3) and out.devices() == set(mj.local_devices())
    np.testing.assert_allclose(out, local / everything.sum(0), rtol=1e-6)

    idx = mj.pmap(lambda a: lax.axis_index("i"), "i")(local)
    np.testing.assert_array_equal(idx, [2 * rank, 2 * rank + 1])

    total = mj.pmap(lambda a, b: lax.psum(a, "i") * b, "i", in_axes=(0, None),
                    out_axes=None)(local, np.float32(2))
    assert total.shape == (3,)
    np.testing.assert_allclose(total, 2 * everything.sum(0), rtol=1e-6)

    with np.testing.assert_raises_regex(ValueError, "must have size 2, but it has size 4"):
        mj.pmap(lambda a: a)(everything)
    distributed.global_barrier("done", 30)
    print(f"OK {rank}", flush=True)
    distributed.shutdown()


if __name__ == "__main__":
    main()
