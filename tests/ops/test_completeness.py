"""Every registered primitive has its rules, and every lax primitive is exercised by the op table.

Each primitive minijax defines (in any module, found by reading the package's source) must have
an abstract-eval rule, a lowering, a batching rule (else vmap rejects it) and a JVP rule, where
a primitive whose outputs do not change with its inputs has the explicit not-differentiable
mark (``Primitive.not_differentiable``, with a JVP rule giving symbolic zero tangents, and no
transpose rule). A linear primitive (``Primitive.linear``), and one that its own JVP applies to
tangents, has a transpose rule, so reverse mode can run through it. The few exceptions are in
``MISSING_RULES``, each with its reason. The gradients themselves are checked numerically in
``test_op_grads.py``; ``NOT_IN_OP_TABLE`` names the lax primitives tested outside the table.
"""

import importlib
import pathlib
import sys
import warnings

import pytest
from hypothesis.errors import NonInteractiveExampleWarning

import minijax
from minijax import lax
from minijax.core import Primitive
from tests.ops.op_db import load_all


def lax_primitives():
    """The primitives of the ``minijax.lax`` namespace: the ones the op table covers."""
    prims = {}
    for name in dir(lax):
        obj = getattr(lax, name)
        if isinstance(obj, Primitive):
            prims[obj.name] = obj
    return prims


def all_primitives():
    """Every primitive a minijax module defines at its top level. The modules are found in the
    source (those that construct a ``Primitive``), so one ``import minijax`` does not load
    (``minijax.experimental.checkify``) is not missed."""
    root = pathlib.Path(minijax.__file__).parent
    for path in sorted(root.rglob("*.py")):
        if "Primitive(" in path.read_text():
            parts = path.relative_to(root.parent).with_suffix("").parts
            importlib.import_module(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    prims = {}
    for name, module in list(sys.modules.items()):
        if name == "minijax" or name.startswith("minijax."):
            for obj in list(vars(module).values()):
                if isinstance(obj, Primitive):
                    prims[obj.name] = obj
    return prims


PRIMS = lax_primitives()
ALL_PRIMS = all_primitives()

# (primitive, rule) pairs that are deliberately absent, each with the reason (as in JAX 0.10.2).
MISSING_RULES = {
    **{(name, "jvp"): "JAX defines no derivative for it either (differentiating it raises)"
       for name in ("hessenberg", "householder_product", "schur")},
    ("nextafter", "jvp"): "JAX 0.10.2 defines no derivative for it either (\"Differentiation "
                          "rule for 'nextafter' not implemented\"; test_fidelity_r30_g)",
    **{(name, "jvp"): "cuDNN's attention kernels: nn.dot_product_attention differentiates "
                      "them through a custom_vjp (the backward kernel), as JAX does"
       for name in ("cudnn_fmha_fwd", "cudnn_fmha_bwd")},
    ("composite", "batching"): "JAX 0.10.2 defines no batching rule for it either (vmap of a "
                               "composite raises)",
    ("lu_pivots_to_permutation", "jvp"): "JAX 0.10.2 defines no derivative for it either; its "
                                         "int32 operand's tangent is always a symbolic zero, "
                                         "which jvp passes by (tests/test_fidelity_r19_f.py)",
    **{("rng_uniform", rule): "XLA's stateful generator: JAX 0.10.2 defines no derivative or "
                              "batching rule for it either"
       for rule in ("jvp", "batching")},
    **{(name, "jvp"): "JAX 0.10.2 defines no derivative for it either (differentiating it "
                      "raises); tests/test_fidelity_r18_x.py and r18_z hold JAX's refusals"
       for name in ("cholesky_update", "ormqr", "scaled_dot", "symmetric_product",
                    "tridiagonal")},
    **{(name, "jvp"): "JAX 0.10.2 defines no derivative for its internal geqrf/geqp3 either "
                      "(scipy.linalg.qr_multiply's grad raises); tests/test_fidelity_r20_m.py"
       for name in ("geqrf", "geqp3")},
    ("scaled_matmul_wrapper", "jvp"): "JAX 0.10.2 defines no derivative for nn.scaled_matmul "
                                      "either (differentiating it raises; nn.scaled_dot_general "
                                      "has its own custom_vjp); tests/test_fidelity_r19_h.py",
    ("cholesky_update", "batching"): "JAX 0.10.2 defines no batching rule for it either (vmap "
                                     "of it raises)",
    **{(name, rule): "XLA tokens: JAX 0.10.2 defines no derivative or batching rule for them "
                     "either (jvp of after_all raises; vmap refuses a token); "
                     "tests/test_fidelity_r19_g.py holds JAX's outcomes"
       for name in ("create_token", "after_all") for rule in ("jvp", "batching")},
}

# Primitives linear in some operands but not attached with the linear-rule helper (which marks
# ``Primitive.linear``): mul, div, dot_general, conv, triangular_solve in one operand, add and
# sub in both, convert_element_type in its float operand. Their JVPs apply them to tangents, so
# reverse mode transposes them. (sort's JVP gathers the tangents by the permutation, as JAX's.)
LINEAR_IN_AN_OPERAND = ("add", "sub", "mul", "div", "dot_general", "conv_general_dilated",
                        "triangular_solve", "convert_element_type")


def _is_linear(prim):
    return prim.linear or prim.name in LINEAR_IN_AN_OPERAND


def _check(name, rule, what):
    if (name, rule) in MISSING_RULES:
        assert getattr(ALL_PRIMS[name], rule) is None, f"stale MISSING_RULES entry {(name, rule)}"
        return
    assert getattr(ALL_PRIMS[name], rule) is not None, f"{name} has no {what}"


@pytest.mark.parametrize("name", sorted(ALL_PRIMS))
def test_primitive_has_abstract_eval_and_lowering(name):
    _check(name, "abstract_eval", "abstract-eval rule")
    _check(name, "lowering", "lowering rule")


@pytest.mark.parametrize("name", sorted(ALL_PRIMS))
def test_primitive_has_a_batching_rule(name):
    _check(name, "batching", "batching rule, so vmap rejects it")


@pytest.mark.parametrize("name", sorted(ALL_PRIMS))
def test_primitive_has_a_jvp_rule_and_linear_ones_a_transpose(name):
    prim = ALL_PRIMS[name]
    _check(name, "jvp", "JVP rule (nor the not-differentiable mark's zero-tangent rule)")
    if _is_linear(prim):
        _check(name, "transpose", "transpose rule, though linear")
    if prim.not_differentiable:
        assert prim.transpose is None, f"{name} is not differentiable but has a transpose rule"


def test_exception_tables_name_real_primitives():
    stale = {name for name, _ in MISSING_RULES} - set(ALL_PRIMS)
    stale |= set(LINEAR_IN_AN_OPERAND) - set(ALL_PRIMS)
    stale |= set(NOT_IN_OP_TABLE) - set(PRIMS)
    assert not stale, f"exception entries for primitives that do not exist: {sorted(stale)}"


# Primitives the op table cannot hold, each with the reason and where it is tested instead.
NOT_IN_OP_TABLE = {
    name: "a collective over a named axis: unbound at the op table's top level (a NameError "
          "outside vmap(axis_name=...) or shard_map); tested in tests/test_collectives_vmap.py"
    for name in ("psum", "pmax", "pmin", "all_gather", "reduce_scatter", "ppermute",
                 "all_to_all", "axis_index")
}
NOT_IN_OP_TABLE.update({
    name: "shard_map's varying-manual-axes bookkeeping, bound only inside a checked shard_map "
          "body; tested in tests/test_shard_map_vma.py"
    for name in ("psum_invariant", "pvary")})
NOT_IN_OP_TABLE.update({
    name: "checked against JAX 0.10.2's recorded values, errors and batching in "
          "tests/test_fidelity_r18_x.py (added after the op table's last extension)"
    for name in ("cholesky_update", "ormqr", "symmetric_product", "tridiagonal",
                 "tridiagonal_solve")})
NOT_IN_OP_TABLE.update({
    name: "makes or merges XLA tokens, which have no array value; checked against JAX 0.10.2's "
          "recorded outcomes in tests/test_fidelity_r19_g.py"
    for name in ("create_token", "after_all")})
NOT_IN_OP_TABLE["tile"] = (
    "checked against JAX 0.10.2's recorded values, errors, jit, vmap and grad in "
    "tests/test_fidelity_r18_z.py (added after the op table's last extension)")
NOT_IN_OP_TABLE["select_and_gather_add"] = (
    "bound only by the JVP of reduce_window max/min (the table traces forward functions); "
    "its values and derivatives are checked through those ops' grad entries")
NOT_IN_OP_TABLE["select_and_scatter_add"] = (
    "bound only by the transpose of select_and_gather_add (the VJP of reduce_window max/min); "
    "checked through those ops' grad entries and tests/test_fidelity_r16_d.py")
NOT_IN_OP_TABLE["mulhi"] = (
    "XLA on CPU refuses to compile a mulhi with a reshaped operand (as under JAX 0.10.2), "
    "which the table's vmap check builds; tested in tests/test_lax_names_r12.py")
NOT_IN_OP_TABLE.update({
    name: "a total-order comparison (signed zeros and NaNs ordered), which the table's NumPy "
          "references do not have; tested on those values in tests/test_lax_names_r12.py"
    for name in ("eq_to", "le_to", "lt_to")})
NOT_IN_OP_TABLE["rng_uniform"] = (
    "XLA's stateful generator has no NumPy reference; tested for range, dtype and JAX's "
    "errors in tests/test_lax_names_r12.py")
NOT_IN_OP_TABLE["approx_top_k"] = (
    "XLA's approximate top-k (exact on CPU); tested against NumPy's sort, with its grad and "
    "vmap, in tests/test_lax_names_r12.py")
NOT_IN_OP_TABLE["sharding_constraint"] = (
    "a layout annotation over a mesh, an identity on values; tested in tests/test_sharding.py")
NOT_IN_OP_TABLE["rng_bit_generator"] = (
    "XLA's random bits have no NumPy reference; tested for shapes, determinism, uniformity, "
    "jit/eager and vmap in tests/lax/test_rng_bit_generator.py")
NOT_IN_OP_TABLE["lu_pivots_to_permutation"] = (
    "integer row swaps, bound by lu's users (scipy.linalg.lu); checked against JAX 0.10.2's "
    "recorded values (out-of-range pivots included), errors, jit, vmap and jvp in "
    "tests/test_fidelity_r19_f.py")


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
