"""Cases of the 13000-seed oracle run (tools/difftest/triage_13000_p.md).

Expected outcomes were recorded from JAX 0.10.2 by tests/data/record_fidelity_r13_p.py.
"""
import json
import math
import pathlib
import warnings

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp

_JAX = json.loads((pathlib.Path(__file__).parent / "data" / "fidelity_r13_p_jax.json").read_text())
_NAMES = {"nan": math.nan, "inf": math.inf}


def _outcome(thunk):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return {"value": np.asarray(thunk()).tolist()}
    except Exception as e:  # noqa: BLE001 - the error is the outcome compared
        return {"error": type(e).__name__, "msg": str(e)}


@pytest.mark.parametrize("value,dtype,expected", _JAX["asarray"])
def test_asarray_of_a_python_scalar_with_a_dtype_converts_as_numpy(value, dtype, expected):
    # s13008-197 & co: JAX's coerce_to_array converts the Python scalar with NumPy itself, so
    # -1 or -1.0 meeting uint32 is NumPy's OverflowError (minijax had wrapped to 4294967295)
    v = eval(value, {}, _NAMES)
    assert _outcome(lambda: jnp.asarray(v, dtype=dtype)) == expected


def _fold_in_data(spec):
    return {"np.int64(-1)": np.int64(-1), "f32(2.5)": jnp.float32(2.5),
            "c64(2+1j)": jnp.complex64(2 + 1j), "f32[2]": jnp.ones(2)}.get(spec, spec)


@pytest.mark.parametrize("spec,expected", _JAX["fold_in"])
def test_fold_in_data_is_asarray_uint32(spec, expected):
    # JAX's fold_in is jnp.asarray(data, dtype='uint32'): a negative Python int is refused,
    # an array of any dtype (float, complex) converts; a non-scalar is JAX's TypeError
    data = _fold_in_data(eval(spec))
    got = _outcome(lambda: jax.random.key_data(jax.random.fold_in(jax.random.key(0), data)))
    assert got == expected


def test_a_literal_output_of_a_jit_under_grad_is_an_array():
    # s13024-26: grad(jit(value_and_grad(f))) of an f with no float output, whose value is
    # the Python 0.0: the jit's known part returns it as an Array (f32[] weak, as JAX 0.10.2
    # printed), not minijax's internal WeakScalar (AttributeError: no attribute 'dtype')
    seen = []

    def g(x):
        v, y = jax.jit(lambda x: (0.0, x))(x)
        seen.append((v.dtype, v.aval.weak_type, v.shape))
        return jnp.sum(y) + v * 2

    np.testing.assert_array_equal(np.asarray(jax.grad(g)(jnp.ones(2))), [1.0, 1.0])
    assert seen == [(np.dtype("float32"), True, ())]


@jax.custom_vjp
def _clip_grad(x):
    return x


_clip_grad.defvjp(lambda x: (x, None), lambda _, ct: (jnp.clip(ct, -0.75, 0.75),))


def test_checkpoint_drops_an_operand_its_body_ignores_so_linearize_runs():
    # s13042-188: a checkpoint whose body ignores its operand, a custom_vjp's output. JAX's
    # remat DCE rule drops the operand, so the custom_vjp's tangent is dead and linearize's
    # map runs; minijax kept it and ran the custom_vjp forward (TypeError). JAX 0.10.2 printed
    # 1.0937333 and, for its grad, 0.5419847; a live custom_vjp tangent still raises.
    def f(x):
        return jax.checkpoint(lambda y: jnp.sin(x))(_clip_grad(x))

    def lin(x):
        out, f_jvp = jax.linearize(f, x)
        return out + f_jvp(0.7)

    np.testing.assert_allclose(np.asarray(lin(0.5)), 1.0937333, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jax.grad(lin)(0.5)), 0.5419847, rtol=1e-6)
    with pytest.raises(TypeError, match="forward-mode autodiff"):
        jax.linearize(lambda x: jnp.sin(x) + 0 * _clip_grad(x), 0.5)[1](0.7)


def test_jacfwd_of_a_checkpoint_of_a_python_float_keeps_the_body_weak_types():
    # s13002-88: jacfwd's strong basis meets a checkpoint traced with the Python float's weak
    # tangent; its eager impl gives the body's declared types (minijax: AssertionError from the
    # batching rule's type check). JAX 0.10.2: 0.34978145 and 2.0, both f32[] weak.
    def f(x):
        return jax.checkpoint(lambda x: jnp.logaddexp(x, 0))(x)

    for fn, expected in ((f, 0.34978145), (lambda x: jax.checkpoint(lambda x: x * 2.0)(x), 2.0)):
        r = jax.jacfwd(fn)(-0.62)
        assert (r.dtype, r.aval.weak_type) == (np.dtype("float32"), True)
        np.testing.assert_allclose(np.asarray(r), expected, rtol=1e-6)


@pytest.mark.devices(2)
def test_jacobian_bases_inside_shard_map_vary_as_their_leaves():
    # s13057-177: JAX's _std_basis pvarys each basis leaf to its leaf's varying axes, so a
    # loop's carry tangent under jacfwd varies as its primal does (minijax: ValueError "Scan
    # carry input and output got mismatched varying manual axes"). Values (signed zeros too)
    # printed by JAX 0.10.2 for jacfwd and jacrev.
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:2]), ("d",))

    def f(x):
        return jax.lax.fori_loop(0, 2, lambda i, c: jnp.sin(c), x)

    x = jnp.asarray([0.5, 1.0, -0.25, 2.0])
    expected = {jax.jacfwd: [[0.7786439061164856, 0.0], [0.0, 0.36003947257995605],
                             [0.9394104480743408, 0.0], [-0.0, -0.25563913583755493]],
                jax.jacrev: [[0.7786439061164856, 0.0], [0.0, 0.36003947257995605],
                             [0.9394104480743408, -0.0], [0.0, -0.25563913583755493]]}
    for jac, want in expected.items():
        got = jax.shard_map(lambda a: jac(f)(a), mesh=mesh, in_specs=jax.P("d"),
                            out_specs=jax.P("d"))(x)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want, np.float32))
        np.testing.assert_array_equal(np.signbit(np.asarray(got)), np.signbit(want))
