"""Run 31000, triage helper k (tools/difftest/triage_31000_k.md).

s31042-83: a checkpoint around a checkpoint of ``grad`` with respect to an unused Python float
returns that zero cotangent as a TypedNdArray (a literal of the inner body, which JAX's eager
``eval_jaxpr`` hands back as is), not a TypedFloat without ``.shape``. Expected values were
recorded from JAX 0.10.2 (/work/venv_jax) with the same calls.
"""
import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp

P = jax.checkpoint_policies
_X1 = np.array([0.76, 0.03, 0.57], np.float32)
_G1 = [1.3157894611358643, 33.333335876464844, 1.7543859481811523]


def _f(x1, x2):
    return jnp.sum(jnp.log(x1))


_g = jax.grad(_f, argnums=(0, 1))


def _desc(leaf):
    aval = getattr(leaf, "aval", None)
    return (type(leaf).__name__, tuple(leaf.shape) if hasattr(leaf, "shape") else None,
            str(leaf.dtype), None if aval is None else bool(aval.weak_type),
            np.asarray(leaf).tolist())


# name -> (call, the leaves as JAX 0.10.2 describes them)
_CASES = {
    "remat_remat_grad": (
        lambda: jax.checkpoint(jax.checkpoint(_g))(_X1, 1.0),
        [("ArrayImpl", (3,), "float32", False, _G1), ("TypedNdArray", (), "float32", True, 0.0)]),
    "remat_remat_grad_policies": (  # the case's own transform stack
        lambda: jax.checkpoint(jax.checkpoint(_g, policy=P.dots_with_no_batch_dims_saveable),
                               policy=P.nothing_saveable)(_X1, 1.0),
        [("ArrayImpl", (3,), "float32", False, _G1), ("TypedNdArray", (), "float32", True, 0.0)]),
    "remat3_grad": (
        lambda: jax.checkpoint(jax.checkpoint(jax.checkpoint(_g)))(_X1, 1.0),
        [("ArrayImpl", (3,), "float32", False, _G1), ("TypedNdArray", (), "float32", True, 0.0)]),
    "remat_remat_grad_then_add": (
        lambda: jax.checkpoint(lambda a, b: (lambda r: (r[0], r[1] + 1.0))(
            jax.checkpoint(_g)(a, b)))(_X1, 1.0),
        [("ArrayImpl", (3,), "float32", False, _G1), ("ArrayImpl", (), "float32", True, 1.0)]),
}


@pytest.mark.parametrize("name", list(_CASES))
def test_nested_checkpoint_returns_the_zero_cotangent_as_jax(name):
    call, expected = _CASES[name]
    got = [_desc(leaf) for leaf in jax.tree_util.tree_leaves(call())]
    assert got == [tuple(e) for e in expected]


def test_nested_checkpoint_passes_a_python_float_through_typed():
    # JAX 0.10.2: (TypedNdArray f32[3], TypedFloat(1.0, dtype=float32))
    a, b = jax.checkpoint(jax.checkpoint(lambda a, b: (a, b)))(_X1, 1.0)
    assert type(a).__name__ == "TypedNdArray" and a.shape == (3,)
    assert type(b).__name__ == "TypedFloat" and b == 1.0 and b.dtype == np.float32
