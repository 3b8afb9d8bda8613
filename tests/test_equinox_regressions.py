"""What equinox's own test suite needs of minijax, checked without equinox: each behaviour as
JAX 0.10.2 has it (the facts were read off JAX 0.10.2 under /work/venv_jax)."""

import ml_dtypes
import numpy as np

import minijax
import minijax.numpy as jnp
from minijax import dtypes


def test_dtypes_bfloat16_is_the_scalar_type():
    # jax.dtypes.bfloat16 is ml_dtypes' scalar type: callable, and an isinstance target
    # (equinox's serialisation and tree_equal build and test scalars with it).
    assert dtypes.bfloat16 is ml_dtypes.bfloat16
    s = dtypes.bfloat16(1.5)
    assert isinstance(s, np.generic) and float(s) == 1.5
    x = jnp.ones(3, dtypes.bfloat16)
    assert x.dtype == np.dtype(ml_dtypes.bfloat16)
    assert isinstance(np.asarray(x)[0], dtypes.bfloat16)
    y = minijax.jit(lambda a: a * 2)(x)
    assert y.dtype == dtypes.bfloat16 and np.asarray(y, np.float32).tolist() == [2, 2, 2]
    assert dtypes.canonicalize_dtype(dtypes.bfloat16) == np.dtype(ml_dtypes.bfloat16)
    assert jnp.promote_types(dtypes.bfloat16, np.float16) == np.float32
    assert dtypes.scalar_type_of(x) is float
