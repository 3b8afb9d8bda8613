"""Issue 21's known differences of random (helper r22_d), each recorded from JAX 0.10.2 by
tests/data/record_fidelity_r22_d.py over the cases in tests/data/fidelity_r22_d_cases.py:

1. ``rbg``/``unsafe_rbg`` keys under ``vmap``: ``rng_bit_generator``'s batching rule draws one
   ``(batch, *shape)`` block from the batch's first key (which alone advances), as JAX's.
2. ``gamma``/``loggamma``/``beta``/``dirichlet`` under ``jit`` with a constant shape parameter:
   their bodies are jits named as JAX's (``_gamma``, ``_beta``, ``_dirichlet``) taking the
   parameter as an argument, so XLA keeps it out of the sampling loop as in JAX's program and
   the float32 samples agree to the bit.
3. ``vmap`` over a ``stateful_rng(...).split(n)`` generator (a mapped Ref is batched and its
   final value stored back); a generator made inside ``jit``, and any draw from a constant key
   under ``jit``: threefry2x32 on CPU is JAX's five-trip loop, so XLA does not fold the draw
   (its folding rounds the float math otherwise than the compiled program).
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
from fidelity_r22_d_cases import SETUP, VALUES  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r22_d_jax.json").read_text())
_ENV = {"jax": jax, "jnp": jnp, "np": np}
exec(SETUP, _ENV)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["values"]] == VALUES


@pytest.mark.parametrize("src,want", _JAX["values"], ids=range(len(_JAX["values"])))
def test_values_bit_for_bit(src, want):
    got = eval(src, _ENV)
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(want)
    for g, (dtype, values) in zip(got, want):
        g = np.asarray(g)
        assert str(g.dtype) == dtype
        w = np.asarray(values, dtype)
        np.testing.assert_array_equal(g.view(np.uint8), w.view(np.uint8), err_msg=src)
