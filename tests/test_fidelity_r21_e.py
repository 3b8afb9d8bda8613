"""JAX 0.10.2's PRNG implementations besides threefry2x32 (threefry4x32, philox2x32,
philox4x32, rbg, unsafe_rbg): key data after seed/split/fold_in, key dtypes and reprs, bits of
each width, samplers, jit, vmap, grad and ``jax_default_prng_impl``, bit for bit on CPU.
Expected outcomes were recorded from JAX 0.10.2 by tests/data/record_fidelity_r21_e.py over
the cases in tests/data/fidelity_r21_e_cases.py."""
import json
import pathlib
import sys

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp

_DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(_DATA))
from fidelity_r21_e_cases import CASES, SETUP, outcome  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r21_e_jax.json").read_text())
_ENV = {"jax": jax, "jnp": jnp, "np": np}
exec(SETUP, _ENV)


def _comparable(out):
    # JAX's PRNGImpl repr in an error lists its functions by address: compare up to it
    if out[0] == "error" and " for impl=" in out[2]:
        return out[:2] + [out[2].split(" for impl=")[0]]
    return out


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["cases"]] == CASES


@pytest.mark.parametrize("src,expected", _JAX["cases"], ids=range(len(_JAX["cases"])))
def test_outcome_as_jax(src, expected):
    got = json.loads(json.dumps(outcome(src, _ENV)))
    assert _comparable(got) == _comparable(expected)


@pytest.mark.devices(4)
def test_keys_of_another_impl_in_shard_map_and_sharded_jit():
    # recorded from JAX 0.10.2 on CPU with 4 devices (mesh ('x',), keys device_put on P('x'))
    P = jax.sharding.PartitionSpec
    mesh = jax.make_mesh((4,), ("x",))
    sharding = jax.sharding.NamedSharding(mesh, P("x"))
    k = jax.random.key(3, impl="threefry4x32")
    keys = jax.device_put(jax.random.split(k, 4), sharding)
    f = jax.shard_map(lambda kk: jax.random.normal(kk[0], (2,))[None], mesh=mesh,
                      in_specs=P("x"), out_specs=P("x"))
    np.testing.assert_array_equal(f(keys), np.array(
        [[0.5150628685951233, -0.16277462244033813], [-1.4316821098327637, -0.2796402871608734],
         [0.33959057927131653, 0.5095252394676208], [0.2942722737789154, 1.752421259880066]],
        np.float32))
    out = jax.jit(lambda k: jax.random.uniform(k, (8,)), out_shardings=sharding)(k)
    assert out.sharding.spec == P("x")
    np.testing.assert_array_equal(out, np.array(
        [0.8297340869903564, 0.9177027940750122, 0.25279104709625244, 0.8759868144989014,
         0.9315040111541748, 0.5159437656402588, 0.29831457138061523, 0.4319339990615845],
        np.float32))
