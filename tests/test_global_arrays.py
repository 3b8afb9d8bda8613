"""Global Arrays built from their pieces in one process (8 virtual CPU devices):
``make_array_from_callback``, ``make_array_from_process_local_data`` and
``make_array_from_single_device_arrays``, as JAX names them at the top level. Each result is
compared shard by shard with slices of the NumPy array it stands for, and used in a jit.
(tests/test_distributed.py runs them across two processes.)"""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import distributed
from minijax.sharding import NamedSharding
from minijax.sharding import PartitionSpec as P

pytestmark = pytest.mark.devices(8)

SPECS = [P("x", "y"), P("x", None), P(None, "y"), P(), P("y", "x")]


@pytest.fixture(scope="module")
def mesh():
    return minijax.make_mesh((4, 2), ("x", "y"))


def _check(arr, sharding, value):
    assert arr.shape == value.shape and arr.sharding == sharding
    idx = sharding.devices_indices_map(value.shape)
    assert len(arr.addressable_shards) == 8
    for shard in arr.addressable_shards:
        assert shard.index == idx[shard.device]
        np.testing.assert_array_equal(np.asarray(shard.data), value[shard.index])
    np.testing.assert_array_equal(np.asarray(arr), value)
    total = minijax.jit(lambda a: jnp.sum(a * 2, axis=0))(arr)
    np.testing.assert_allclose(np.asarray(total), (value * 2).sum(0), rtol=1e-5, atol=1e-5)


def test_top_level_names_are_the_distributed_functions():
    assert minijax.make_array_from_callback is distributed.make_array_from_callback
    assert (minijax.make_array_from_process_local_data
            is distributed.make_array_from_process_local_data)
    assert (minijax.make_array_from_single_device_arrays
            is distributed.make_array_from_single_device_arrays)
    assert minijax.process_indices() == [0] and minijax.process_count() == 1


@pytest.mark.parametrize("spec", SPECS, ids=str)
def test_make_array_from_callback(mesh, spec):
    value = np.arange(8 * 4, dtype=np.float32).reshape(8, 4)
    sharding = NamedSharding(mesh, spec)
    seen = []

    def callback(index):
        seen.append(index)
        return value[index]

    arr = minijax.make_array_from_callback(value.shape, sharding, callback)
    assert len(seen) == 8  # once per device, with that device's slice
    _check(arr, sharding, value)


def test_make_array_from_callback_canonicalizes_64_bit_data(mesh):
    value = np.linspace(0, 1, 16).reshape(8, 2)  # float64: float32 with x64 off, as device_put
    sharding = NamedSharding(mesh, P("x"))
    arr = minijax.make_array_from_callback(value.shape, sharding, lambda i: value[i])
    assert arr.dtype == np.float32
    _check(arr, sharding, value.astype(np.float32))
    ints = minijax.make_array_from_callback((8,), NamedSharding(mesh, P("x")),
                                            lambda i: np.arange(8)[i], dtype=np.int16)
    assert ints.dtype == np.int16
    np.testing.assert_array_equal(np.asarray(ints + 1), np.arange(1, 9))


@pytest.mark.parametrize("spec", SPECS, ids=str)
def test_make_array_from_process_local_data_one_process(mesh, spec):
    value = np.random.default_rng(0).normal(size=(8, 4))  # float64 in: float32 out
    sharding = NamedSharding(mesh, spec)
    arr = minijax.make_array_from_process_local_data(sharding, value)
    assert arr.dtype == np.float32
    _check(arr, sharding, value.astype(np.float32))


def test_make_array_from_single_device_arrays(mesh):
    value = np.arange(24, dtype=np.int32).reshape(8, 3)
    sharding = NamedSharding(mesh, P("x"))
    idx = sharding.devices_indices_map(value.shape)
    pieces = [minijax.device_put(value[i], d) for d, i in idx.items()]
    _check(minijax.make_array_from_single_device_arrays(value.shape, sharding, pieces),
           sharding, value)

    with pytest.raises(ValueError, match=r"has shape \(3,\), but its shard of \(8, 3\) is"):
        bad = [minijax.device_put(value[0], d) for d in idx]
        minijax.make_array_from_single_device_arrays(value.shape, sharding, bad)
    with pytest.raises(ValueError, match="different dtypes"):
        mixed = [minijax.device_put(value[i].astype(np.float32 if k else np.int32), d)
                 for k, (d, i) in enumerate(idx.items())]
        minijax.make_array_from_single_device_arrays(value.shape, sharding, mixed)
    one_device = NamedSharding(minijax.make_mesh((1,), ("x",)), P())
    with pytest.raises(ValueError, match="not a device of"):
        minijax.make_array_from_single_device_arrays(value.shape, one_device, pieces[1:2])
