"""Differentiation at the edges, against JAX 0.10.2's behaviour (tools/difftest/FINDINGS.md):
a complex psum of a constant gradient in shard_map (#34), float0 tangents leaving a jit (#45),
value_and_grad of a function returning a Python float (#47)."""

import numpy as np
import pytest

import minijax as mj
import minijax.numpy as jnp
from minijax import dtypes, lax
from minijax.sharding import Mesh, NamedSharding
from minijax.sharding import PartitionSpec as P


@pytest.mark.devices(2)
def test_psum_of_complex_constant_gradient_in_shard_map():
    # XLA's CPU simplifier aborted the process on a complex all-reduce of a broadcast constant
    mesh = Mesh(np.array(mj.devices()[:2]), ("d",))
    f = mj.shard_map(lambda y: lax.psum(mj.grad(lambda z: 0.0)(y), "d"), mesh=mesh,
                     in_specs=(P(),), out_specs=P())
    out = mj.jit(f)(jnp.zeros((1, 3), jnp.complex64))
    assert out.dtype == np.complex64
    np.testing.assert_array_equal(np.asarray(out), np.zeros((1, 3), np.complex64))
    # a varying complex value: both parts summed over the axis
    x = (np.arange(6) + 1j * np.arange(6)[::-1]).astype(np.complex64).reshape(2, 3)
    g = mj.shard_map(lambda y: lax.psum(y * (1 - 2j), "d"), mesh=mesh, in_specs=(P("d"),),
                     out_specs=P())
    np.testing.assert_allclose(np.asarray(mj.jit(g)(x)), (x * (1 - 2j)).sum(0, keepdims=True),
                               rtol=1e-6)


def _int_linearize(x):
    out, lin = mj.linearize(lambda x: lax.convert_element_type(x, jnp.int8), x)
    return out, lin(x * 0.7)


def test_float0_tangent_leaves_jit():
    out, t = mj.jit(_int_linearize)(jnp.ones((1, 1)))
    assert out.dtype == np.int8 and int(out[0, 0]) == 1
    assert isinstance(t, np.ndarray) and t.dtype == dtypes.float0 and t.shape == (1, 1)
    # twice: the cached program gives the same (no fast path drops the float0 leaf)
    assert mj.jit(_int_linearize)(jnp.ones((1, 1)))[1].dtype == dtypes.float0


@pytest.mark.devices(2)
def test_float0_tangent_leaves_sharded_jit():
    mesh = Mesh(np.array(mj.devices()[:2]), ("d",))
    x = mj.device_put(np.ones((2, 1), np.float32), NamedSharding(mesh, P("d")))
    out, t = mj.jit(_int_linearize)(x)
    np.testing.assert_array_equal(np.asarray(out), np.ones((2, 1), np.int8))
    assert t.dtype == dtypes.float0 and t.shape == (2, 1)


def test_value_and_grad_returns_a_python_float_as_it_is():
    value, grad = mj.value_and_grad(lambda x: 0.0)(1.0)
    assert type(value) is float and value == 0.0 and float(grad) == 0.0
    (value, aux), _ = mj.value_and_grad(lambda x: (0.0, "a"), has_aux=True)(1.0)
    assert type(value) is float and aux == "a"
    value, _ = mj.value_and_grad(lambda x: np.float32(2.0))(1.0)
    assert type(value) is np.float32
    value, grad = mj.value_and_grad(lambda x: x * 3.0)(1.0)  # a traced output: an Array
    assert isinstance(value, mj.Array) and float(value) == 3.0 and float(grad) == 3.0
    # under jit the constant's weakly typed zero gradient is a program output
    value, grad = mj.jit(mj.value_and_grad(lambda x: 0.0))(1.0)
    assert float(value) == 0.0 and float(grad) == 0.0 and grad.weak_type
