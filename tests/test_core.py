"""The IR, the staging trace and the printer: golden jaxprs, constants, pytrees, eval_jaxpr."""

import numpy as np
import pytest

import minijax
from minijax import lax
from minijax.core import ClosedJaxpr, ShapedArray, eval_jaxpr, jaxpr_as_fun


def f32(*shape):
    return np.zeros(shape, np.float32)


def test_printer_golden_one_line():
    jaxpr = minijax.make_jaxpr(lambda x: lax.mul(lax.sin(x), 2.0))(f32(3))
    assert (
        str(jaxpr)
        == "{ lambda ; a:f32[3]. let b:f32[3] = sin a; c:f32[3] = mul b 2.0:f32[] in (c,) }"
    )


def test_printer_golden_multi_line_when_long():
    def f(x, y):
        return lax.add(lax.mul(lax.sin(x), y), lax.neg(lax.sub(x, y)))

    jaxpr = minijax.make_jaxpr(f)(f32(2, 3), f32(2, 3))
    assert str(jaxpr) == (
        "{ lambda ; a:f32[2,3] b:f32[2,3]. let\n"
        "    c:f32[2,3] = sin a\n"
        "    d:f32[2,3] = mul c b\n"
        "    e:f32[2,3] = sub a b\n"
        "    f:f32[2,3] = neg e\n"
        "    g:f32[2,3] = add d f\n"
        "  in (g,) }"
    )


def test_closed_over_array_becomes_constvar_not_literal():
    w = minijax.device_put(np.arange(3, dtype=np.float32))
    jaxpr = minijax.make_jaxpr(lambda x: lax.add(x, w))(f32(3))
    assert str(jaxpr) == "{ lambda a:f32[3]; b:f32[3]. let c:f32[3] = add b a in (c,) }"
    assert len(jaxpr.consts) == 1 and jaxpr.consts[0] is w


def test_same_constant_used_twice_is_one_constvar():
    w = np.ones(3, np.float32)
    jaxpr = minijax.make_jaxpr(lambda x: lax.add(lax.mul(x, w), w))(f32(3))
    assert len(jaxpr.jaxpr.constvars) == 1


def test_pytrees_in_and_out():
    def f(params, x):
        return {"out": lax.mul(params["w"], x), "aux": (x, [params["b"]])}

    params = {"w": f32(3), "b": f32(3)}
    jaxpr, shapes = minijax.make_jaxpr(f, return_shape=True)(params, f32(3))
    assert len(jaxpr.jaxpr.invars) == 3
    assert len(jaxpr.jaxpr.outvars) == 3
    assert shapes["out"].shape == (3,) and shapes["aux"][1][0].dtype == np.float32


def test_python_scalar_argument_is_weakly_typed():
    jaxpr = minijax.make_jaxpr(lambda x, y: lax.mul(x, y))(2.0, 3.0)
    assert all(v.aval.weak_type for v in jaxpr.jaxpr.invars)
    assert jaxpr.out_avals[0].weak_type
    # mixing with a strong f32 gives a strong result
    jaxpr = minijax.make_jaxpr(lambda x: lax.mul(x, 2.0))(f32(2))
    assert not jaxpr.out_avals[0].weak_type


def test_static_argnums_in_make_jaxpr():
    def f(x, n):
        for _ in range(n):
            x = lax.sin(x)
        return x

    jaxpr = minijax.make_jaxpr(f, static_argnums=1)(f32(2), 3)
    assert [e.primitive.name for e in jaxpr.eqns] == ["sin"] * 3


def test_eqn_records_user_source_line():
    jaxpr = minijax.make_jaxpr(lambda x: lax.sin(x))(f32(2))
    info = jaxpr.eqns[0].source_info
    assert info.file == __file__
    assert "lax.sin(x)" in info.code_line()


def test_eval_jaxpr_runs_eagerly_and_matches():
    def f(x):
        return lax.add(lax.mul(lax.sin(x), x), 1.0)

    x = np.linspace(-1, 1, 5).astype(np.float32)
    closed = minijax.make_jaxpr(f)(x)
    (out,) = eval_jaxpr(closed.jaxpr, closed.consts, x)
    np.testing.assert_allclose(np.asarray(out), np.sin(x) * x + 1, rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(jaxpr_as_fun(closed)(x)[0]), np.asarray(out))


def test_make_jaxpr_of_jit_is_a_jit_equation():
    inner = minijax.jit(lambda x: lax.sin(x))
    jaxpr = minijax.make_jaxpr(lambda x: inner(inner(x)))(f32(2))
    assert [e.primitive.name for e in jaxpr.eqns] == ["jit", "jit"]  # as JAX's make_jaxpr
    bodies = [e.params["jaxpr"].jaxpr for e in jaxpr.eqns]
    assert bodies[0] is bodies[1]  # traced once
    assert [e.primitive.name for e in bodies[0].eqns] == ["sin"]


def test_nested_make_jaxpr_outer_tracer_becomes_constant():
    def outer(x):
        inner = minijax.make_jaxpr(lambda y: lax.add(y, x))(f32(2))
        assert isinstance(inner, ClosedJaxpr)
        assert len(inner.consts) == 1  # the outer tracer is a constant of the inner jaxpr
        return lax.sin(x)

    minijax.make_jaxpr(outer)(f32(2))


def test_output_that_is_an_input_or_literal():
    jaxpr = minijax.make_jaxpr(lambda x: (x, 1.0))(f32(2))
    assert str(jaxpr) == "{ lambda ; a:f32[2]. let  in (a, 1.0:f32[]) }"


def test_shaped_array_equality_and_str():
    a = ShapedArray((2, 3), np.float32)
    assert a == ShapedArray((2, 3), np.dtype("float32"))
    assert a != ShapedArray((2, 3), np.float32, weak_type=True)
    assert hash(a) == hash(ShapedArray((2, 3), np.float32))
    # JAX's default is full dtype names; a jaxpr's short ones are asked for (FINDINGS 280)
    assert a.str_short() == "float32[2,3]"
    assert a.str_short(True) == "f32[2,3]"
    assert ShapedArray((), np.int8).str_short(short_dtypes=True) == "i8[]"


@pytest.mark.parametrize("n", [0, 25, 26, 27, 700])
def test_var_names_follow_jax_encoding(n):
    from minijax.core import _encode_name

    expected = {0: "a", 25: "z", 26: "ba", 27: "bb", 700: "bay"}[n]
    assert _encode_name(n) == expected
