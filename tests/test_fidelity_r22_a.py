"""Issue 21's jaxpr structure (helper r22_a): what ``make_jaxpr`` returns is JAX 0.10.2's, text
and params, recorded by tests/data/record_fidelity_r22_a.py from the same programs:

- params JAX's primitives carry: ``out_sharding=None`` on ``reduce_sum`` and
  ``conv_general_dilated``, ``sharding=None`` on ``reshape``/``iota``/``broadcast_in_dim``,
  every scatter's ``update_jaxpr``/``update_consts``, the custom rules' ``symbolic_zeros`` (and
  their equations' printed ``name``, the rules by the user's names), ``psum_invariant``'s
  ``axes`` only, the jnp contractions' ``preferred_element_type`` (the promoted dtype), the
  shard_map mesh's ``axis_types``, sharding_constraint's ``context_mesh``/``layout``/
  ``unconstrained_dims`` (a frozenset param printed sorted, ``frozenset({})`` when empty);
- primitive names: ``scatter-add``/``-mul``/``-min``/``-max``, ``remat2`` (checkpoint);
- a filling gather's ``fill_value`` is the fill itself (``nan``), as ``lax.gather`` sets it;
- staged equations: grad(cond)'s branches hold JAX's ``empty2`` residual fillers, a no-op
  ``convert_element_type`` of a NumPy array is forwarded (no equation), ``jnp.tile`` is one
  ``tile``.
"""

import json
import os
import sys

import pytest

import minijax
import minijax.numpy as jnp
from minijax import lax

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "data"))
from record_fidelity_r22_a import eqn_params, programs  # noqa: E402

with open(os.path.join(os.path.dirname(__file__), "data", "fidelity_r22_a_jax.json")) as _fh:
    _JAX = json.load(_fh)
PROGRAMS = programs(minijax, jnp, lax)


def test_recorded_from_jax_0_10_2():
    assert _JAX["jax_version"] == "0.10.2"
    assert set(_JAX["cases"]) == set(PROGRAMS)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_jaxpr_text_and_params_match_jax(name):
    fn, args = PROGRAMS[name]
    closed = minijax.make_jaxpr(fn)(*args)
    assert str(closed) == _JAX["cases"][name]
    assert eqn_params(closed) == _JAX["params"][name]


def test_params_read_the_jax_way():
    x = jnp.ones((2, 3))
    (eqn,) = minijax.make_jaxpr(lambda v: lax.reduce_sum(v, (0,)))(x).jaxpr.eqns
    assert eqn.params["out_sharding"] is None
    (eqn,) = minijax.make_jaxpr(lambda v: v.reshape(6))(x).jaxpr.eqns
    assert eqn.params["sharding"] is None
    fn, args = PROGRAMS["custom_vjp_symbolic_zeros"]
    (eqn,) = minijax.make_jaxpr(fn)(*args).jaxpr.eqns
    assert eqn.params["symbolic_zeros"] is True
    assert lax.scatter_add_p.name == "scatter-add"  # JAX 0.10.2's name
