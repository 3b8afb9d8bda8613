"""Printed jaxprs name their variables as JAX 0.10.2 does: one naming context for the whole
printout (a nested jaxpr continues the sequence), ``_`` for a top-level binder nothing reads,
a jit callee's binders named after its caller's operands and results, and a jaxpr used twice
(or nested, of over 10 equations) printed once, first, as ``let name = { ... } in``, its name
never a variable's. Checked against
JAX's own text, recorded by tests/data/record_jaxpr_names.py from the same programs."""

import json
import os
import sys

import pytest

import minijax
import minijax.numpy as jnp
from minijax import lax

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "data"))
from record_jaxpr_names import programs  # noqa: E402  (the programs JAX's text came from)

DATA = os.path.join(os.path.dirname(__file__), "data", "jaxpr_names_0102.json")
PROGRAMS = programs(minijax, jnp, lax)

def _recorded():
    with open(DATA) as fh:
        data = json.load(fh)
    assert data["jax_version"] == "0.10.2"
    return data["cases"]


def test_corpus_is_covered():
    assert set(PROGRAMS) == set(_recorded())


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_names_match_jax(name):
    fn, x = PROGRAMS[name]
    assert str(minijax.make_jaxpr(fn)(x)) == _recorded()[name]


def test_eqn_repr_names_its_own_variables():
    closed = minijax.make_jaxpr(lambda x: minijax.jit(jnp.sin)(x) * 2)(1.0)
    call, mul = closed.jaxpr.eqns
    # JAX 0.10.2: b:f32[] = jit[name=sin jaxpr={ lambda ; a:f32[]. let b:f32[] = sin a in (b,) }] a
    assert repr(mul) == "a:f32[] = mul b 2.0:f32[]"
    assert repr(call).startswith("b:f32[] = jit[")
    assert "jaxpr={ lambda ; a:f32[]. let b:f32[] = sin a in (b,) }" in repr(call)
    assert repr(call).endswith("] a")


def test_equation_without_results_has_no_binders():
    def f(x):
        minijax.debug.print("x={}", x)
        return x * 2

    # JAX 0.10.2 prints "    debug_print[...] a" (its primitive is debug_print, minijax's is
    # debug_callback): no "_ = " before an equation with no results
    text = str(minijax.make_jaxpr(f)(1.0))
    assert "\n    debug_callback[" in text and "_ =" not in text, text
