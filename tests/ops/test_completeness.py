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
from tests.ops.op_db import load_all


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


# Primitives the op table cannot hold, each with the reason and where it is tested instead.
NOT_IN_OP_TABLE = {
    name: "a collective over a named axis: unbound at the op table's top level (a NameError "
          "outside vmap(axis_name=...) or shard_map); tested in tests/test_collectives_vmap.py"
    for name in ("psum", "pmax", "pmin", "all_gather", "reduce_scatter", "ppermute",
                 "all_to_all", "axis_index")
}
NOT_IN_OP_TABLE["rng_bit_generator"] = (
    "XLA's random bits have no NumPy reference; tested for shapes, determinism, uniformity, "
    "jit/eager and vmap in tests/lax/test_rng_bit_generator.py")


def test_every_primitive_is_exercised_by_the_op_table():
    seen = set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NonInteractiveExampleWarning)
        for op in load_all():
            args = op.args.example()
            jaxpr = minijax.make_jaxpr(op.fn)(*args)
            seen.update(e.primitive.name for e in jaxpr.eqns)
    assert set(NOT_IN_OP_TABLE) <= set(PRIMS), "stale NOT_IN_OP_TABLE entries"
    missing = sorted(set(PRIMS) - seen - set(NOT_IN_OP_TABLE))
    assert not missing, f"primitives with no op-table entry: {missing}"
