"""Round-9 fidelity fixes, helper C (the oracle run of seeds 9000-9059 against JAX 0.10.2).

Every expected value or error was recorded from real JAX 0.10.2 (/work/venv_jax) running the
same program; each block names the case it came from.
"""

import json
import pathlib

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import lax

_FWD_ERROR = r"^can't apply forward-mode autodiff \(jvp\) to a custom_vjp function\."


@minijax.custom_vjp
def _cv(x):
    return x


_cv.defvjp(lambda x: (x, None), lambda _, g: (3.0 * g,))


# --- a plain jvp's custom_lin under an outer linearization (s9000-198, s9033-261, s9048-196):
# JAX's JVPTrace binds a custom_vjp's tangent (custom_lin) on its parent, and a linearization
# below (grad, linearize, vjp) passes it on when its operands are known (a constant tangent), so
# it runs and raises. Only a linearization's own custom_lin is staged on known operands.

_X = jnp.array([1.5, -2.0])
_T = np.full(2, 0.7, np.float32)


def _jvp_sum(f):
    return lambda x: sum(o.sum() for o in minijax.jvp(f, (x,), (_T,)))


def _switch(x):
    return lax.cond(x[0] > 0, _cv, jnp.sin, x)


@pytest.mark.parametrize("program", [
    lambda: minijax.grad(_jvp_sum(_cv))(_X),
    lambda: minijax.grad(lambda x: minijax.jvp(_cv, (x,), (_T,))[1].sum())(_X),
    lambda: minijax.linearize(lambda x: minijax.jvp(_cv, (x,), (_T,)), _X)[1](_X),
    lambda: minijax.vjp(lambda x: minijax.jvp(_cv, (x,), (_T,)), _X)[1]((_X, _X)),
    lambda: minijax.grad(_jvp_sum(_switch))(_X),
    lambda: minijax.grad(_jvp_sum(minijax.jit(_cv)))(_X),
    lambda: minijax.grad(_jvp_sum(minijax.checkpoint(_cv)))(_X),
    lambda: minijax.grad(_jvp_sum(
        lambda x: lax.scan(lambda c, _: (_cv(c), None), x, None, length=2)[0]))(_X),
    lambda: minijax.grad(lambda x: (minijax.checkpoint(
        lambda x: _cv(lax.integer_pow(x, 0)))(x) * x).sum())(_X),
])
def test_a_jvps_custom_vjp_tangent_under_a_linearization_raises(program):
    with pytest.raises(TypeError, match=_FWD_ERROR):
        program()


def test_a_linearizations_own_custom_vjp_tangent_still_computes():
    # JAX 0.10.2: [1, 1] for each (jit: the custom_lin is staged and pruned as unused)
    np.testing.assert_array_equal(minijax.jit(minijax.grad(_jvp_sum(_cv)))(_X), [1.0, 1.0])
    np.testing.assert_array_equal(
        minijax.jit(minijax.grad(lambda x: minijax.jvp(_switch, (x,), (_T,))[1].sum()))(_X),
        [0.0, 0.0])
    g = minijax.grad(lambda x: lax.scan(lambda c, _: (_cv(lax.integer_pow(c, 0)) * c, None),
                                        x, None, length=2)[0].sum())(_X)
    np.testing.assert_array_equal(g, [1.0, 1.0])
    g = minijax.grad(lambda x: lax.cond(True, lambda x: (_cv(lax.integer_pow(x, 0)) * x).sum(),
                                        lambda x: x.sum(), x))(_X)
    np.testing.assert_array_equal(g, [1.0, 1.0])
    np.testing.assert_array_equal(minijax.jit(lambda x: minijax.jvp(_cv, (x,), (_T,))[0])(_X),
                                  [1.5, -2.0])
    with pytest.raises(NotImplementedError, match="Differentiation rule for 'custom_lin'"):
        minijax.grad(lambda x: minijax.jvp(_cv, (x,), (x,))[1].sum())(_X)


def test_a_jit_bodys_cached_jvp_keeps_its_context():
    # the jit's JVP is cached: a plain jvp's body must not be reused inside a linearization
    g = minijax.jit(lambda x: (_cv(lax.integer_pow(x, 0)) * x).sum())
    with pytest.raises(TypeError, match=_FWD_ERROR):
        minijax.jvp(g, (_X,), (_X,))
    np.testing.assert_array_equal(minijax.grad(g)(_X), [1.0, 1.0])  # JAX 0.10.2
    with pytest.raises(TypeError, match=_FWD_ERROR):
        minijax.grad(lambda x: minijax.jvp(g, (x,), (np.ones(2, np.float32),))[1])(_X)


# --- vmap of a lax binary op with an unbatched operand of a lower nonzero rank, over an empty
# batch (s9056-45): JAX's broadcast batcher does not pad an unbatched operand, so lax refuses
# the ranks whatever the batch size; a batched lower-rank operand is padded and computes.

@pytest.mark.parametrize("op", [lax.max, lax.add, lax.sub])
def test_vmap_over_an_empty_batch_refuses_an_unbatched_lower_rank_operand(op):
    with pytest.raises(TypeError, match="rank|number of dimensions"):
        minijax.vmap(op, (0, None))(jnp.zeros((0, 3, 1)), jnp.ones(1))
    with pytest.raises(TypeError, match="rank|number of dimensions"):
        minijax.grad(lambda a, b: minijax.vmap(op, (0, None))(a, b).sum(), (0, 1))(
            jnp.zeros((0, 3, 1)), jnp.ones(1))
    out = minijax.vmap(op, (0, 0))(jnp.zeros((0, 3, 1)), jnp.ones((0, 1)))
    assert out.shape == (0, 3, 1) and out.dtype == jnp.float32


# --- var/std/nanvar/nanstd with an integer or bool dtype= (FINDINGS 157's leftover): JAX
# computes in the dtype (an integer mean, a sum that wraps in int8/uint8); var's result is then
# weak float32 (its final where with NaN), nanvar's is cast to the dtype (NaN becomes 0); std's
# own check refuses a non-inexact dtype (ValueError), nanstd's lax.sqrt refuses an integer one
# (TypeError), and a bool dtype is lax.div's TypeError. Also jnp.mean(dtype=int) is an integer
# mean. Recorded by tests/data/record_r9_c_var.py.

_VAR = json.loads((pathlib.Path(__file__).parent / "data" / "r9_c_var_jax.json").read_text())


@pytest.mark.parametrize("fn", ["var", "std", "nanvar", "nanstd"])
def test_var_std_dtypes_as_jax(fn):
    assert _VAR["jax_version"] == "0.10.2"
    inputs = {k: np.array(v["value"], v["dtype"]) for k, v in _VAR["inputs"].items()}
    wrong = []
    for row in (r for r in _VAR["rows"] if r["fn"] == fn):
        want = row["jax"]
        try:
            out = getattr(jnp, fn)(inputs[row["input"]], dtype=row["dtype"], **row["opts"])
        except (TypeError, ValueError) as e:
            if want.get("error") != type(e).__name__:
                wrong.append((row, type(e).__name__))
            continue
        got = (str(out.dtype), bool(out.weak_type), list(out.shape))
        if "error" in want or got != (want["dtype"], want["weak"], want["shape"]) or not (
                np.allclose(np.asarray(out, np.float64).ravel(), want["value"], rtol=1e-6,
                            equal_nan=True)):
            wrong.append((row, got, np.asarray(out).tolist()))
    assert not wrong, wrong


def test_integer_mean_sums_and_divides_in_its_dtype():
    x = jnp.array([[3, -1, 4], [1, 5, -9]], jnp.int32)
    # JAX 0.10.2: the uint8 sum wraps (515 -> 3), then 3 // 6
    out = jnp.mean(x, dtype=jnp.uint8)
    assert out.dtype == jnp.uint8 and int(out) == 0
    np.testing.assert_array_equal(jnp.mean(x, axis=0, dtype=jnp.int8), [2, 2, -2])


# --- checkpoint of a function returning a Python bool (s9024-303's family, FINDINGS 77): JAX
# returns its jaxpr's literal as the Python bool it was (an Array under jit); minijax returned
# a NumPy array.

def test_checkpoint_returns_a_python_bool_as_it_was():
    b = jnp.array([False, True])
    for policy in (None, minijax.checkpoint_policies.checkpoint_dots):
        out = minijax.checkpoint(lambda b: True, policy=policy)(b)
        assert type(out) is bool and out
        out = minijax.checkpoint(lambda b: (False, b), policy=policy)(b)
        assert type(out[0]) is bool and not out[0]
        np.testing.assert_array_equal(out[1], [False, True])
    assert isinstance(minijax.jit(minijax.checkpoint(lambda b: True))(b), minijax.Array)
