"""What a Ref accepts as its value, as JAX 0.10.2's ``jax.new_ref`` (checked by hand there):
``new_ref(1.0)`` holds a weakly typed float32, NumPy float64 values are canonicalized to
float32, and a Python list is refused with a TypeError, when created and when written."""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp


def test_scalar_keeps_its_weak_type():
    r = minijax.new_ref(1.0)
    assert r.dtype == np.float32 and r[...].aval.weak_type  # JAX: Ref(1., weak_type=True)
    r[...] = 2.0
    np.testing.assert_array_equal(r[...], 2.0)


def test_numpy_value_is_canonicalized():
    r = minijax.new_ref(np.arange(3.0))  # float64 on the host
    assert r.dtype == np.float32 and not r[...].aval.weak_type
    np.testing.assert_array_equal(minijax.freeze(r), [0.0, 1.0, 2.0])


def test_list_is_refused_as_jax():
    with pytest.raises(TypeError, match="list"):
        minijax.new_ref([1.0, 2.0])
    r = minijax.new_ref(jnp.zeros(2))
    with pytest.raises(TypeError, match="list"):
        r[...] = [1.0, 2.0]
