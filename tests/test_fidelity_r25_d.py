"""Issue 21's differences of helper r25_d, recorded from JAX 0.10.2 by
tests/data/record_fidelity_r25_d.py (its cases) into tests/data/fidelity_r25_d_jax.json:

1. An integer tangent (a ``dot_general``'s with an integer ``preferred_element_type``) beside an
   integer operand without one: ``concatenate``, ``pad`` and ``dynamic_update_slice`` meet that
   operand's float0 zeros and raise their dtype TypeError; ``select_n`` gives the case zeros of
   the tangent's type and keeps ``which`` fixed whatever its tangent.
2. A float0 cotangent given to ``vjp`` of such a dot reaches the dot's transpose, where JAX's
   ``dot_general`` dtype rule raises AssertionError. Such a tangent given to an eager
   ``scan``/``fori_loop`` carry the body does not forward raises JAX's carry-type TypeError; a
   ``custom_jvp`` rule's tangent output not of its primal's tangent type (float0 for an integer
   output) raises JAX's TypeError.
3. ``lax.full_like`` of a concrete committed prototype takes its sharding (committed there; a
   host-memory prototype meets jaxlib's memory-kind refusal).
4. ``device_put`` to a device's memory (or a string, an int) raises JAX's ValueError.

Also: ``concatenate``'s transpose is one ``split`` into every operand's piece, as JAX's.
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
from record_fidelity_r25_d import JAXPRS, OUTCOMES, SETUP, outcome  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r25_d_jax.json").read_text())
_ENV = {"jax": jax, "jnp": jnp, "np": np}
exec(SETUP, _ENV)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["outcomes"]] == OUTCOMES
    assert [src for src, _ in _JAX["jaxprs"]] == JAXPRS


@pytest.mark.parametrize("src,expected", _JAX["outcomes"], ids=range(len(OUTCOMES)))
def test_outcome_as_jax(src, expected):
    assert json.loads(json.dumps(outcome(jax, src, _ENV))) == expected


@pytest.mark.parametrize("src,expected", _JAX["jaxprs"], ids=range(len(JAXPRS)))
def test_jaxpr_as_jax(src, expected):
    assert str(eval(src, _ENV)) == expected


@pytest.mark.devices(4)
def test_full_like_of_a_multi_device_prototype_as_jax():
    # recorded from JAX 0.10.2 with 4 CPU devices: a prototype's sharding is taken for its own
    # shape; for another shape only a replicated one (else the default device, uncommitted)
    from minijax.sharding import Mesh, NamedSharding, PartitionSpec as P
    mesh = Mesh(np.array(jax.devices()[:4]), ("x",))
    split = jax.device_put(jnp.arange(8.), NamedSharding(mesh, P("x")))
    repl = jax.device_put(jnp.arange(8.), NamedSharding(mesh, P()))
    on1 = jax.device_put(jnp.arange(8.), jax.devices()[1])
    for x, shape, sharding, committed in [
            (split, None, NamedSharding(mesh, P("x")), True),
            (split, (3,), jax.sharding.SingleDeviceSharding(jax.devices()[0]), False),
            (repl, (3,), NamedSharding(mesh, P()), True),
            (on1, (3,), jax.sharding.SingleDeviceSharding(jax.devices()[1]), True)]:
        for r in (jax.lax.full_like(x, 2., shape=shape), jnp.ones_like(x, shape=shape)):
            assert (r.sharding, r.committed) == (sharding, committed)
    assert jnp.zeros_like(repl, shape=(4,)).sharding == NamedSharding(mesh, P())
