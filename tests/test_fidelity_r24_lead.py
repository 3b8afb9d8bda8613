"""Round 24 (lead): differences found while triaging run 29000. Expected values were recorded
from JAX 0.10.2 (/work/venv_jax, CPU) with the same calls and pasted here."""

import warnings

import numpy as np

import minijax.numpy as jnp
from minijax import random


def test_bits_default_dtype_is_jnp_uint(x64):
    # JAX 0.10.2 under x64: random.bits(random.key(0), (2,)) is uint64
    # [7719171245655871230, 3989946895414531357]
    out = random.bits(random.key(0), (2,))
    assert out.dtype == np.uint64
    np.testing.assert_array_equal(np.asarray(out), [7719171245655871230, 3989946895414531357])


def test_bits_uint64_without_x64_truncates_with_jax_warning():
    # JAX 0.10.2 without x64: random.bits(key, (2,), jnp.uint64) is uint32
    # [4070199207, 4202968722] with this UserWarning; with no dtype, uint32 and no warning
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = random.bits(random.key(0), (2,), jnp.uint64)
    assert out.dtype == np.uint32
    np.testing.assert_array_equal(np.asarray(out), [4070199207, 4202968722])
    assert [str(x.message) for x in w] == [
        "Explicitly requested dtype uint64 is not available, and will be truncated to dtype "
        "uint32. To enable more dtypes, set the jax_enable_x64 configuration option or the "
        "JAX_ENABLE_X64 shell environment variable. See "
        "https://github.com/jax-ml/jax#current-gotchas for more."]
    assert random.bits(random.key(0), (2,)).dtype == np.uint32
