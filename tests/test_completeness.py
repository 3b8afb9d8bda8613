"""Every registered primitive has its rules and is exercised by the op table.

Later issues extend this: a JVP rule (or an explicit not-differentiable mark), a batching
rule, and transpose rules for linear primitives.
"""

import warnings

import pytest
from hypothesis.errors import NonInteractiveExampleWarning

import minijax
from minijax import lax
from minijax.core import Primitive
from tests.op_db import load_all


def all_primitives():
    prims = {}
    for name in dir(lax):
        obj = getattr(lax, name)
        if isinstance(obj, Primitive):
            prims[obj.name] = obj
    return prims


PRIMS = all_primitives()


@pytest.mark.parametrize("name", sorted(PRIMS))
def test_primitive_has_abstract_eval_and_lowering(name):
    prim = PRIMS[name]
    assert prim.abstract_eval is not None, f"{name} has no abstract-eval rule"
    assert prim.lowering is not None, f"{name} has no lowering rule"


@pytest.mark.parametrize("name", sorted(PRIMS))
def test_primitive_has_a_batching_rule(name):
    assert PRIMS[name].batching is not None, f"{name} has no batching rule, so vmap rejects it"


def test_every_primitive_is_exercised_by_the_op_table():
    seen = set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NonInteractiveExampleWarning)
        for op in load_all():
            args = op.args.example()
            jaxpr = minijax.make_jaxpr(op.fn)(*args)
            seen.update(e.primitive.name for e in jaxpr.eqns)
    missing = sorted(set(PRIMS) - seen)
    assert not missing, f"primitives with no op-table entry: {missing}"
