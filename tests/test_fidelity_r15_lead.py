"""Run 17000/18000 dtype records (s17117-383, s18003-515): eager ``lax.stop_gradient`` of a
Python scalar. Expected types were printed by JAX 0.10.2 (``type(r).__name__, r.dtype``)."""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import lax


@pytest.mark.parametrize("value, name, dtype", [
    (0.5, "TypedFloat", np.float32), (1, "TypedInt", np.int32),
    (1 + 2j, "TypedComplex", np.complex64)])
def test_eager_stop_gradient_of_a_python_scalar_carries_its_dtype(value, name, dtype):
    r = lax.stop_gradient(value)
    assert (type(r).__name__, r.dtype, r) == (name, np.dtype(dtype), value)
    assert jnp.asarray(r).weak_type  # still a Python scalar to promotion


def test_stop_gradient_keeps_the_other_cases():
    # JAX 0.10.2: a bool stays a bool; Arrays stay Arrays; under jit, grad and vmap an Array
    assert lax.stop_gradient(True) is True
    assert type(lax.stop_gradient(jnp.float32(2.0))).__name__ == "ArrayImpl"
    assert type(minijax.jit(lambda: lax.stop_gradient(0.5))()).__name__ == "ArrayImpl"
    assert type(minijax.grad(lambda x: lax.stop_gradient(0.5) * x)(1.0)).__name__ == "ArrayImpl"
    np.testing.assert_array_equal(
        minijax.vmap(lambda x: lax.stop_gradient(0.5) + x)(jnp.ones(2)), [1.5, 1.5])


def test_eager_stop_gradient_of_a_python_float_under_x64():
    with minijax.enable_x64(True):
        r = lax.stop_gradient(0.5)
        assert (type(r).__name__, r.dtype) == ("TypedFloat", np.dtype(np.float64))
