"""Run 22000's helper s (tools/difftest/triage_22000_s.md): two roundings where minijax's
program was not JAX 0.10.2's. s22013-377: a jit's nested jits (``nn.standardize`` and its
``clip``) are lowered as ``func.call``s of private functions in every program, as JAX's; the
inlined program was fused otherwise by XLA, which kept a bfloat16 primal in float32.
s22053-101: a scan's transpose adds each iteration's terms into the running cotangent of a
linear const, as JAX's ValAccum, not the iteration's sum to it afterwards. And ``add``'s and
``sub``'s JVPs are JAX's (seen beside s22013-377). Expected results were recorded from JAX
0.10.2 by tests/data/record_fidelity_r18_s.py."""
import json
import pathlib
import re
import sys

import numpy as np
import pytest

import minijax as jax

_DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(_DATA))
from fidelity_r18_s_cases import cases, describe  # noqa: E402

_JAX = json.loads((_DATA / "fidelity_r18_s_jax.json").read_text())
_CASES = cases(jax)


def test_recorded_from_jax_0_10_2_over_the_current_cases():
    assert _JAX["jax_version"] == "0.10.2"
    assert sorted(_JAX["cases"]) == sorted(_CASES)


@pytest.mark.parametrize("name", sorted(_CASES))
def test_bitwise_as_jax(name):
    assert describe(jax.tree_util.tree_leaves(_CASES[name]())) == _JAX["cases"][name]


def test_single_device_jit_calls_its_nested_jits():
    """JAX 0.10.2's module for this jit has private functions standardize and clip, each
    called once (read from its lower().as_text())."""
    x = np.ones((3, 3), np.float32)
    text = jax.jit(lambda a: jax.nn.standardize(a, axis=1)).lower(x).as_text()
    assert len(re.findall(r"call @standardize\(", text)) == 1
    assert len(re.findall(r"call @clip\(", text)) == 1


def test_add_and_sub_jvps_are_jaxs():
    """Seen beside s22013-377: with both tangents nonzero the tangent of ``x - y`` is ``sub``
    of them (of ``x + y``, ``add``), else the nonzero one (negated for ``y``), broadcast.
    The lists were printed by JAX 0.10.2 for the same calls."""
    x, y = np.ones(3, np.float32), np.ones((), np.float32)

    def names(f, *args):
        return [e.primitive.name for e in jax.make_jaxpr(f)(*args).eqns]

    assert names(lambda a, b: jax.jvp(lambda p, q: p - q, (a, b), (a, b)), x, x) == [
        "sub", "sub"]
    assert names(lambda a, b: jax.jvp(lambda p, q: p + q, (a, b), (a, b)), x, x) == [
        "add", "add"]
    assert names(lambda a, b: jax.jvp(lambda q: jax.lax.sub(a, q), (b,), (b,)), x, y) == [
        "sub", "neg", "broadcast_in_dim"]
