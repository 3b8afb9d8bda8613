"""jax.scipy.special's leftovers (helper r25_b), each recorded from JAX 0.10.2 by
tests/data/record_fidelity_r25_b.py over tests/data/fidelity_r25_b_cases.py:

1. Printed jaxprs of dawsn, erfcx, gamma/gammasgn, log_ndtr, poch, beta, owens_t, fresnel as
   JAX's (its operations in its order, its custom_jvp names), and the jnp pieces under them:
   signbit's shift, a list of traced values as expand_dims + concatenate, jnp.array's copy of
   a traced value, an identity broadcast forwarded.
2. owens_t over special points (0, inf, NaN, negative, huge), values and
   gradients, bit for bit.
3. hyp2f1 of complex input fails in rem with JAX's words (no jnp function named).
"""
import json
import pathlib
import sys

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
import minijax.scipy.special as special
from minijax import lax

_DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(_DATA))
from fidelity_r25_b_cases import ERRORS, JAXPRS, VALUES  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r25_b_jax.json").read_text())
_ENV = {"jax": jax, "jnp": jnp, "np": np, "lax": lax, "special": special}


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["jaxprs"]] == JAXPRS
    assert [src for src, _ in _JAX["values"]] == VALUES
    assert [src for src, _ in _JAX["errors"]] == ERRORS


@pytest.mark.parametrize("src,expected", _JAX["jaxprs"], ids=range(len(JAXPRS)))
def test_printed_jaxpr_as_jax(src, expected):
    assert str(eval(src, _ENV)) == expected


@pytest.mark.parametrize("src,expected", _JAX["values"], ids=range(len(VALUES)))
def test_values_bit_for_bit(src, expected):
    with np.errstate(over="ignore"):
        leaves = jax.tree.leaves(eval(src, _ENV))
    assert len(leaves) == len(expected)
    for leaf, (dtype, want) in zip(leaves, expected):
        assert str(leaf.dtype) == dtype
        np.testing.assert_array_equal(np.asarray(leaf), np.asarray(want, dtype=dtype))


@pytest.mark.parametrize("src,expected", _JAX["errors"], ids=range(len(ERRORS)))
def test_errors_as_jax(src, expected):
    with pytest.raises(Exception) as info:
        eval(src, _ENV)
    assert [type(info.value).__name__, str(info.value).split("\n  at ")[0]] == expected


def test_python_scalar_inputs_and_eager_grads():
    # recorded from JAX 0.10.2 (jax.scipy.special on Python floats, printed with tolist())
    d = jax.grad(special.dawsn)(0.5)
    assert (d.dtype, d.item()) == (np.float32, 0.5755636096000671)
    g = jax.grad(special.owens_t)(0.5, 0.3)
    assert (g.dtype, g.item()) == (np.float32, -0.020989324897527695)
    s, c = special.fresnel(0.5)
    assert (s.dtype, s.weak_type, s.item(), c.item()) == (
        np.float32, False, 0.06473243236541748, 0.4923442304134369)
