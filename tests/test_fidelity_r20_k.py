"""Host memory kinds, as JAX 0.10.2 has them on the CPU: shardings carry
``memory_kind="pinned_host"`` / ``"unpinned_host"`` (validated against the device's memories),
``device_put`` places values there, eager ops and jit compute on them (the lowering carries
``mhlo.memory_kind``; ``out_shardings`` and ``device_put`` inside jit move results), and
results carry the memory kind. Expected outcomes were recorded from JAX 0.10.2 by
tests/data/record_fidelity_r20_k.py over the cases in tests/data/fidelity_r20_k_cases.py.
"""
import json
import pathlib
import sys

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp

_DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(_DATA))
from fidelity_r20_k_cases import CASES, SETUP, describe  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r20_k_jax.json").read_text())
_ENV = {"jax": jax, "jnp": jnp, "np": np}
exec(SETUP, _ENV)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["cases"]] == CASES


@pytest.mark.parametrize("src,expected", _JAX["cases"], ids=range(len(_JAX["cases"])))
def test_memory_kinds_as_jax(src, expected):
    got = describe(lambda: eval(src, _ENV), jax.tree_util.tree_leaves)
    assert json.loads(json.dumps(got)) == expected


def test_the_buffers_are_in_host_memory():
    # what jaxlib says of the buffer itself, not only the sharding minijax names
    x = _ENV["x"]
    assert x._sharding._memory_kind == "pinned_host"
    assert (x + 1)._sharding._memory_kind == "pinned_host"
    assert jnp.ones(2)._sharding._memory_kind == "device"


def test_an_uncommitted_array_is_refused_where_in_shardings_names_another_memory():
    # As JAX 0.10.2 (recorded there): jit refuses an uncommitted Array whose memory is not the
    # one in_shardings names, as a committed one (a case above), but puts a NumPy array there
    # (tests/test_fidelity_r22_c.py has more)
    s = _ENV["s"]
    with pytest.raises(ValueError, match="Memory kinds passed to jax.jit does not match memory "
                       "kind on the respective arg. Got jit memory kind: pinned_host, arg memory "
                       r"kind: device for arg type: float32\[3\]"):
        jax.jit(lambda a: a * 2, in_shardings=s)(jnp.ones(3))
    out = jax.jit(lambda a: a * 2, in_shardings=s)(np.ones(3, np.float32))
    assert out.sharding.memory_kind == "device"  # computed in device memory, as JAX's
    np.testing.assert_array_equal(out, [2.0, 2.0, 2.0])


@pytest.mark.devices(4)
def test_a_sharded_array_in_host_memory():
    # Recorded from JAX 0.10.2 with JAX_NUM_CPU_DEVICES=4: every shard in pinned-host memory,
    # eager ops and jit keep it there, the lowering annotates the argument and the result.
    mesh = jax.make_mesh((4,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))
    n = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("x"),
                                   memory_kind="pinned_host")
    x = jax.device_put(np.arange(8.0, dtype=np.float32), n)
    assert [s.data.sharding.memory_kind for s in x.addressable_shards] == ["pinned_host"] * 4
    y = x * 2
    assert y.sharding.memory_kind == "pinned_host"
    np.testing.assert_array_equal(y, np.arange(8.0) * 2)
    f = jax.jit(lambda a: a + 1)
    assert f(x).sharding == n
    main = next(line for line in f.lower(x).as_text().splitlines() if "@main" in line)
    assert main.count('mhlo.memory_kind = "pinned_host"') == 2
    z = jax.jit(lambda a: a * 3, out_shardings=n)(jnp.arange(8.0))
    assert z.sharding == n
    np.testing.assert_array_equal(z, np.arange(8.0) * 3)
