"""Sharding differences of tests/test_explicit_sharding.py's KNOWN list (helper r25_f), each
recorded from JAX 0.10.2 by tests/data/record_fidelity_r25_f.py over the cases in
tests/data/fidelity_r25_f_cases.py:

1. PartitionSpec checks in JAX's words and types: a mesh axis named twice is a
   ``DuplicateSpecError`` (every repeated axis; "shardings"/"in_shardings"/"out_shardings" for
   the specs given to with_sharding_constraint and jit, checked when jit is applied), an
   unknown axis "Resource axis: ...", UNCONSTRAINED on a mesh without Auto axes; a bare spec
   given to jit outside any mesh is JAX's RuntimeError.
2. A spec longer than the rank drops its trailing None entries (else JAX's assertion), and
   reshard pads the spec to the rank.
3. jit(in_shardings=) refuses a committed argument laid out otherwise (any mesh).
4. lax.full(sharding=) on devices places the array outside a trace and is ignored under one.
5. jnp.unstack is lax.unstack; eager indexing that takes part of an axis of a multi-device
   Array gathers (gather's error, the avals' reprs in it).
"""
import json
import pathlib
import re
import sys

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax import lax

_DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(_DATA))
from fidelity_r25_f_cases import CASES, SETUP  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r25_f_jax.json").read_text())


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert [src for src, _ in _JAX["cases"]] == CASES


@pytest.mark.devices(8)
def test_outcomes_as_jax():
    env = {"jax": jax, "jnp": jnp, "lax": lax, "np": np}
    exec(SETUP, env)

    def outcome(src):  # minijax names the jnp function and the user's line; JAX does not
        got = env["outcome"](lambda: eval(src, env))
        return re.sub(r"^(ERR \w+: )jnp\.\w+: ", r"\1", got).split("\n  at ")[0]

    differ = [(src, want, got) for src, want in _JAX["cases"] if (got := outcome(src)) != want]
    assert not differ, "\n".join(f"{s}\n  JAX     {w}\n  minijax {g}" for s, w, g in differ)
