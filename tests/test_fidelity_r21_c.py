"""``jnp.arange`` computes JAX's values (``start + step * iota`` in the result dtype, floats
narrower than 32 bits in float32: ``arange(2.5, 9, 1.5, dtype=int32)`` is ``[2, 3, 4, 5, 6]``,
NumPy's ``[2, 4, 6, 8, 10]``; float ranges round as JAX's) and stages an iota, not a constant;
``jnp.diagonal`` is JAX's gather, so the gradient of a weak 3-D input is strong; a constant's
``convert_element_type`` under a staging trace is folded by NumPy as JAX folds it (a literal; inf
to int32 is INT_MIN under jit); ``full`` casts as JAX's (a Python int wraps, a non-finite value
saturates on the device); ``logspace``/``geomspace`` compute in the result's inexact dtype, with
no forced end points; random's complex normal and logistic samples are JAX's bit for bit.
Expected outcomes were recorded from JAX 0.10.2 by tests/data/record_fidelity_r21_c.py over
tests/data/fidelity_r21_c_cases.py.
"""
import json
import pathlib
import sys
import warnings

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax import lax

_DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(_DATA))
from fidelity_r21_c_cases import CASES, SETUP, describe  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r21_c_jax.json").read_text())
_ENV = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
exec(SETUP, _ENV)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["cases"]] == CASES


@pytest.mark.parametrize("src,expected", _JAX["cases"], ids=range(len(_JAX["cases"])))
def test_as_jax(src, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = describe(eval(src, _ENV), jax.tree_util.tree_leaves)
    assert json.loads(json.dumps(got)) == expected


def test_cached_jit_called_with_constants_under_a_trace_is_staged():
    """A jit already run eagerly, then called with only constant arguments inside another
    trace, is an equation of that trace (run each time the outer program runs), not a cached
    executable run while tracing: JAX 0.10.2 printed ``hi 2.0`` twice for ``g(); g()`` and
    staged a ``jit`` equation in ``make_jaxpr`` (run by hand; minijax's C++ fast path ran it at
    trace time, once)."""
    calls = []
    f = jax.jit(lambda x: (jax.debug.callback(lambda v: calls.append(float(v)), x), x + 1)[1])
    f(np.float32(1.0))
    g = jax.jit(lambda: f(np.float32(2.0)))
    g()
    g()
    jax.effects_barrier()
    assert calls == [1.0, 2.0, 2.0]
    closed = jax.make_jaxpr(lambda: f(np.float32(3.0)))()
    assert [e.primitive.name for e in closed.jaxpr.eqns] == ["jit"] and not closed.consts
    assert calls == [1.0, 2.0, 2.0]
