"""XLA tokens (``lax.create_token``, ``lax.after_all``, their primitives and
``extend.core.AbstractToken``/``Token``) as in JAX 0.10.2: the type ``AbstractToken()``
printed ``Tok`` in jaxprs, tokens as jit arguments and results (lowered to
``!stablehlo.token``), dead-code elimination, what grad/jvp/vmap do with them and the errors.
Expected outcomes were recorded from JAX 0.10.2 by tests/data/record_fidelity_r19_g.py over
the cases in tests/data/fidelity_r19_g_cases.py (tools/difftest/triage_23000_g.md).
"""
import json
import pathlib
import sys

import numpy as np
import pytest

import minijax as jax
import minijax.extend.core  # noqa: F401  (the cases name jax.extend.core.AbstractToken)
import minijax.numpy as jnp
from minijax import lax

_DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(_DATA))
from fidelity_r19_g_cases import CASES, SETUP, describe  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r19_g_jax.json").read_text())
_ENV = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
exec(SETUP, _ENV)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["cases"]] == CASES


# Errors whose type only is compared. JAX's AttributeErrors come from reading an array
# attribute off the token type deep in its own code (``.sharding``, ``.mat``, ``.dtype``):
# minijax fails the same way, naming its own attribute. jnp.asarray's TypeError for any
# non-array object has minijax's wording (not token-specific).
_TYPE_ONLY = {"jnp.asarray(t)"}


@pytest.mark.parametrize("src,expected", _JAX["cases"], ids=range(len(_JAX["cases"])))
def test_tokens_as_jax(src, expected):
    got = json.loads(json.dumps(describe(lambda: eval(src, _ENV), jax.tree_util.tree_leaves)))
    if src in _TYPE_ONLY or (isinstance(expected, list)
                             and expected[:2] == ["error", "AttributeError"]):
        assert got[:2] == expected[:2]
        return
    assert got == expected


@pytest.mark.devices(4)
def test_token_beside_sharded_arguments():
    # JAX 0.10.2 (recorded by hand: the same calls under 4 CPU devices) returns the sharded
    # product and a Token from both calls.
    from minijax.sharding import NamedSharding, PartitionSpec as P
    mesh = jax.make_mesh((4,), ("i",))
    x = jax.device_put(jnp.arange(8.0), NamedSharding(mesh, P("i")))
    t = lax.create_token()
    y, u = jax.jit(lambda x, a: (x * 2, lax.after_all(a)))(x, t)
    assert type(u) is type(t) and np.array_equal(np.asarray(y), np.arange(8.0) * 2)
    y, u = jax.jit(lambda x, a: (x * 2, a), in_shardings=(NamedSharding(mesh, P("i")), None))(x, t)
    assert type(u) is type(t) and np.array_equal(np.asarray(y), np.arange(8.0) * 2)
