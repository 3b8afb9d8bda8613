"""Run 19000's records of tools/difftest/triage_19000_c.md.

c1 (s19000-386): under a jit with sharded inputs nested jits become private functions; one
whose body calls another function of the same name (complex ``jnp.nan_to_num`` calls
``nan_to_num`` on the real and imaginary parts) gave both the same symbol, and the module
failed to verify ("redefinition of symbol named 'nan_to_num'").

c2 (s19029-300): vmap of a ``switch`` with a batched index selects among all branches' outputs
(select_n), weak only where every branch's is, while the primitive gives branch 0's weak type;
minijax's batching check refused that result.

Expected values were recorded from JAX 0.10.2 (/work/venv_jax, 4 virtual CPU devices) by
running these programs and printing the results, dtypes and weak types.
"""
import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax import lax


def _sharded(x):
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:2]), ("d",))
    return jax.device_put(x, jax.NamedSharding(mesh, jax.P("d")))


@pytest.mark.devices(2)
def test_c1_complex_nan_to_num_under_sharded_jit():
    x = _sharded(jnp.array([1 + 2j, np.nan, np.inf, -np.inf * 1j], jnp.complex64))
    r = jax.jit(jnp.nan_to_num)(x)
    big = np.finfo(np.float32).max
    assert r.dtype == np.complex64
    np.testing.assert_array_equal(r, np.array([1 + 2j, 0, big, -big * 1j], np.complex64))


@pytest.mark.devices(2)
def test_c1_nested_jits_of_one_name_under_sharded_jit():
    def make(k):
        def step(x):
            return x * k
        return step

    inner = jax.jit(make(3.0))

    def step(x):  # the same name as the jit it calls
        return inner(x) + 1.0

    outer = jax.jit(step)
    r = jax.jit(lambda x: outer(x) + inner(x))(_sharded(jnp.arange(4.0)))
    np.testing.assert_array_equal(r, np.array([1.0, 7.0, 13.0, 19.0], np.float32))  # JAX's
    assert r.sharding.spec == jax.P("d")


def _weak(v):
    return v * 2.0


def _strong(v):
    return jnp.float32(v) * 2.0


# (branches, JAX 0.10.2's weak type of the batched-index result)
@pytest.mark.parametrize("branches,weak", [
    ((_weak, _strong, _weak), False), ((_weak, _weak), True), ((_strong, _weak), False)])
@pytest.mark.parametrize("jit", [False, True])
def test_c2_batched_switch_is_weak_where_every_branch_is(branches, weak, jit):
    def run(idx):
        return jax.vmap(lambda i: lax.switch(i, list(branches), 1.5))(idx)

    r = (jax.jit(run) if jit else run)(jnp.array([0, 1, 1], jnp.int32))
    assert (r.dtype, r.aval.weak_type) == (np.float32, weak)
    np.testing.assert_array_equal(r, np.full(3, 3.0, np.float32))


def test_c2_s19029_300_empty_switch_under_vmap():
    x1 = jnp.zeros((0, 2), jnp.int32)
    x2 = jnp.zeros((0, 2), bool)

    def f(x1, x2):
        t4 = x1 / 3.0  # weak float32
        i = jnp.clip(jnp.floor(jnp.sum(x2)), -1, 3).astype(jnp.int32)
        t7 = lax.switch(i, [lambda x: x, lambda x: jax.nn.softmax(t4, axis=-1),
                            jnp.reciprocal], t4)
        return t7, t4

    t7, t4 = jax.vmap(f, (1, 1))(x1, x2)
    # JAX: both float32 (2, 0); the switch's result strong (softmax's branch is), t4 weak
    assert (t7.dtype, t7.shape, t7.aval.weak_type) == (np.float32, (2, 0), False)
    assert (t4.dtype, t4.shape, t4.aval.weak_type) == (np.float32, (2, 0), True)
