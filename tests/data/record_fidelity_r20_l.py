"""Records JAX 0.10.2's random bits along axes of >= 2**32 elements for
tests/test_fidelity_r20_l.py (run under /work/venv_jax):

    /work/venv_jax/bin/python tests/data/record_fidelity_r20_l.py \
        > tests/data/fidelity_r20_l_jax.json

Such arrays cannot be materialized, and JAX's CPU threefry runs its rounds in a loop, which keeps
XLA from computing only a slice of them. So each case takes JAX's own counters
(``prng.iota_2x32_shape``, whose slice XLA computes alone) at the sliced indices, encrypts them
with JAX's ``threefry2x32_p`` and combines the two words as JAX's
``_threefry_random_bits_partitionable`` (bits) or ``_threefry_split_foldlike`` (split) does.
"""
import json

import jax
import jax.numpy as jnp
import numpy as np
from jax._src.random import prng
from jax._src.random.threefry2x32 import threefry2x32_p

SEED = 7
# (function, shape, dtype of bits or None for split, the slice taken: Python index source)
CASES = [
    ("bits", (2**32 + 8,), "uint8", "[-8:]"),
    ("bits", (3, 2**32 + 5), "uint32", "[:, -3:]"),
    ("bits", (2**32 + 2, 3), "uint16", "[-2:, 1:]"),
    # more than 2**32 elements, each axis shorter
    ("bits", (5, 2**31 + 3), "uint16", "[-1, -4:]"),
    ("bits", (2**11, 2**11, 2**11 + 1), "uint32", "[-1, -1, -3:]"),
    ("split", (2**32 + 2,), None, "[-2:]"),
]


def value(fn, shape, dtype, index):
    k1, k2 = np.asarray(jax.random.key_data(jax.random.key(SEED)))
    hi, lo = jax.jit(lambda: [eval(f"c{index}", {"c": c}) for c in prng.iota_2x32_shape(shape)])()
    b1, b2 = threefry2x32_p.bind(jnp.uint32(k1), jnp.uint32(k2), hi, lo)
    if fn == "split":
        return np.stack([b1, b2], axis=-1).tolist()
    return np.asarray(b1 ^ b2).astype(dtype).tolist()


def u64_lines(shape):
    """The lowered program's lines on uint64 tensors: the counters."""
    text = jax.jit(lambda k: jax.random.bits(k, shape, jnp.uint8)).lower(
        jax.random.key(SEED)).as_text()
    return [line.strip() for line in text.splitlines() if "ui64" in line]


def lower(shape):
    """"lowered", or the exception's type and message."""
    try:
        jax.jit(lambda k: jax.random.bits(k, shape)).lower(jax.random.key(0))
    except Exception as e:  # noqa: BLE001 - the exception is the record
        return [type(e).__name__, str(e)]
    return "lowered"


print(json.dumps({
    "jax_version": jax.__version__,
    "seed": SEED,
    "values": [[fn, list(shape), dtype, index, value(fn, shape, dtype, index)]
               for fn, shape, dtype, index in CASES],
    "u64_lines": {str(shape): u64_lines(shape) for shape in [(2**32 + 8,), (3, 2**32 + 5)]},
    # JAX counts up to 2**64 elements; beyond, its counters would repeat and it refuses
    "lower": [[list(shape), lower(shape)] for shape in [(2**33, 2**31), (2**33, 2**32)]],
}, indent=1))
