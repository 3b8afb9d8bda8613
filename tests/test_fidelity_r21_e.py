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
