"""lax.Tolerance, lax.AccuracyMode and the ``accuracy=`` of the unary ops, against JAX 0.10.2.

The expected jaxprs, lowered attributes and errors were printed by JAX 0.10.2 (jaxlib 0.10.2)
for the same programs; values are checked against NumPy.
"""

import numpy as np
import pytest

import minijax
from minijax import lax

HIGHEST = lax.AccuracyMode.HIGHEST
X = np.array([0.25, 0.5, 1.5], np.float32)

_NUMPY = {
    "exp": np.exp, "exp2": np.exp2, "log": np.log, "log1p": np.log1p, "expm1": np.expm1,
    "tanh": np.tanh, "logistic": lambda x: 1 / (1 + np.exp(-x)), "sin": np.sin, "cos": np.cos,
    "tan": np.tan, "sqrt": np.sqrt, "rsqrt": lambda x: 1 / np.sqrt(x), "cbrt": np.cbrt,
}


def _jaxpr(f, *args):
    return str(minijax.make_jaxpr(f)(*args))


def test_tolerance_validation():
    t = lax.Tolerance(atol=1e-3, rtol=1e-2, ulps=3)
    assert (t.atol, t.rtol, t.ulps) == (1e-3, 1e-2, 3)
    for kwargs in [dict(atol=-1.0), dict(rtol=-1e-3), dict(ulps=-1)]:
        with pytest.raises(ValueError, match="^Tolerances must be non-negative.$"):
            lax.Tolerance(**kwargs)
    for kwargs in [dict(), dict(atol=0.0, rtol=0.0, ulps=0)]:
        with pytest.raises(ValueError, match="^At least one of atol, rtol, or ulps must be set.$"):
            lax.Tolerance(**kwargs)
    assert [m.name for m in lax.AccuracyMode] == ["HIGHEST", "DEFAULT"]
    assert (HIGHEST.value, lax.AccuracyMode.DEFAULT.value) == (1, 2)


@pytest.mark.parametrize("name", sorted(_NUMPY))
def test_values_with_accuracy(name):
    fn = getattr(lax, name)
    with pytest.raises(TypeError):
        fn(X, HIGHEST)  # keyword-only, as JAX's
    out = fn(X, accuracy=HIGHEST)
    assert out.dtype == np.float32
    np.testing.assert_allclose(np.asarray(out), _NUMPY[name](X.astype(np.float64)), rtol=2e-6)


def test_tolerance_and_default_values_and_weak_type():
    np.testing.assert_allclose(np.asarray(lax.exp(X, accuracy=lax.Tolerance(atol=1e-3))),
                               np.exp(X), rtol=2e-6)
    np.testing.assert_allclose(np.asarray(lax.sin(X, accuracy=lax.AccuracyMode.DEFAULT)),
                               np.sin(X), rtol=2e-6)
    r = lax.exp(2.0, accuracy=HIGHEST)
    assert r.dtype == np.float32 and r.weak_type


def test_jaxpr_shows_accuracy_only_when_set():
    assert _jaxpr(lambda x: lax.exp(x), 1.0) == "{ lambda ; a:f32[]. let b:f32[] = exp a in (b,) }"
    assert _jaxpr(lambda x: lax.exp(x, accuracy=HIGHEST), 1.0) == (
        "{ lambda ; a:f32[]. let b:f32[] = exp[accuracy=AccuracyMode.HIGHEST] a in (b,) }")
    text = _jaxpr(lambda x: lax.sin(x, accuracy=lax.Tolerance(atol=1e-3)), 1.0)
    # JAX 0.10.2: "sin[\n      accuracy=<jax._src.lax.lax.Tolerance object at 0xXXXXXXXXXXXX>\n    ]"
    assert "sin[\n      accuracy=<" in text and "Tolerance object at 0xXXXXXXXXXXXX>\n" in text


def _lowered(f):
    return minijax.jit(f).lower(1.0).as_text()


def test_lowering_result_accuracy():
    # JAX emits the op without the attribute, then the one with it that the function returns
    text = _lowered(lambda x: lax.exp(x, accuracy=HIGHEST))
    assert "%0 = stablehlo.exponential %arg0 : tensor<f32>" in text
    assert ("%1 = stablehlo.exponential %arg0 {result_accuracy = #stablehlo.result_accuracy"
            "<mode = #stablehlo.result_accuracy_mode<HIGHEST>>} : tensor<f32>") in text
    assert "return %1" in text
    text = _lowered(lambda x: lax.sin(x, accuracy=lax.Tolerance(atol=1e-3, ulps=2)))
    assert ("stablehlo.sine %arg0 {result_accuracy = #stablehlo.result_accuracy<atol = "
            "1.000000e-03, ulps = 2, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>}") in text
    # none asked, DEFAULT (the attribute's default, not printed), logistic (its lowering
    # drops the accuracy) and complex sin (JAX's formula) carry no attribute
    for f in [lambda x: lax.exp(x), lambda x: lax.exp2(x, accuracy=lax.AccuracyMode.DEFAULT),
              lambda x: lax.logistic(x, accuracy=HIGHEST),
              lambda x: lax.sin(x + 0j, accuracy=HIGHEST)]:
        assert "result_accuracy" not in _lowered(f)


def test_unsupported_accuracy_raises_at_lowering():
    # JAX's accuracy_attr: the jaxpr is fine, the lowering refuses
    assert "exp[accuracy=3] a" in _jaxpr(lambda x: lax.exp(x, accuracy=3), 1.0)
    with pytest.raises(NotImplementedError, match="^Accuracy 3 not supported$"):
        lax.exp(1.0, accuracy=3)
    with pytest.raises(NotImplementedError, match="^Accuracy HIGHEST not supported$"):
        _lowered(lambda x: lax.exp2(x, accuracy="HIGHEST"))


def test_jvp_rules_pass_accuracy_as_jax():
    one = (1.0,)
    assert _jaxpr(lambda x: minijax.jvp(lambda y: lax.sin(y, accuracy=HIGHEST), (x,), one),
                  1.0) == (
        "{ lambda ; a:f32[]. let\n"
        "    b:f32[] = sin[accuracy=AccuracyMode.HIGHEST] a\n"
        "    c:f32[] = cos[accuracy=AccuracyMode.HIGHEST] a\n"
        "    d:f32[] = mul 1.0:f32[] c\n"
        "  in (b, d) }")
    assert _jaxpr(lambda x: minijax.jvp(lambda y: lax.tanh(y, accuracy=HIGHEST), (x,), one),
                  1.0) == (
        "{ lambda ; a:f32[]. let\n"
        "    b:f32[] = tanh[accuracy=AccuracyMode.HIGHEST] a\n"
        "    c:f32[] = mul 2.0:f32[] a\n"
        "    d:f32[] = logistic[accuracy=AccuracyMode.HIGHEST] c\n"
        "    e:f32[] = mul -2.0:f32[] a\n"
        "    f:f32[] = logistic[accuracy=AccuracyMode.HIGHEST] e\n"
        "    g:f32[] = mul d f\n"
        "    h:f32[] = mul 4.0:f32[] g\n"
        "    i:f32[] = mul 1.0:f32[] h\n"
        "  in (b, i) }")
    assert _jaxpr(lambda x: minijax.jvp(lambda y: lax.logistic(y, accuracy=HIGHEST), (x,), one),
                  1.0) == (
        "{ lambda ; a:f32[]. let\n"
        "    b:f32[] = logistic[accuracy=AccuracyMode.HIGHEST] a\n"
        "    c:f32[] = neg a\n"
        "    d:f32[] = logistic c\n"
        "    e:f32[] = mul b d\n"
        "    f:f32[] = mul 1.0:f32[] e\n"
        "  in (b, f) }")
    assert _jaxpr(lambda x: minijax.jvp(lambda y: lax.expm1(y, accuracy=HIGHEST), (x,), one),
                  1.0) == (
        "{ lambda ; a:f32[]. let\n"
        "    b:f32[] = expm1[accuracy=AccuracyMode.HIGHEST] a\n"
        "    c:f32[] = exp[accuracy=AccuracyMode.HIGHEST] a\n"
        "    d:f32[] = mul 1.0:f32[] c\n"
        "  in (b, d) }")


def test_grad_of_sin_takes_cos_without_accuracy():
    # JAX's _sin_lin: a linearization uses cos(x); cos's rule keeps the accuracy on sin
    assert _jaxpr(minijax.grad(lambda y: lax.sin(y, accuracy=HIGHEST)), 1.0) == (
        "{ lambda ; a:f32[]. let\n"
        "    _:f32[] = sin[accuracy=AccuracyMode.HIGHEST] a\n"
        "    b:f32[] = cos a\n"
        "    c:f32[] = mul 1.0:f32[] b\n"
        "  in (c,) }")
    assert "sin[accuracy=AccuracyMode.HIGHEST]" in _jaxpr(
        minijax.grad(lambda y: lax.cos(y, accuracy=HIGHEST)), 1.0)


@pytest.mark.jax_cpu_values
def test_derivative_values():
    # JAX 0.10.2's values
    assert np.float32(minijax.grad(lambda y: lax.tanh(y, accuracy=HIGHEST))(0.5)) == np.float32(
        0.78644776)
    assert np.float32(minijax.grad(lambda y: lax.logistic(y, accuracy=HIGHEST))(0.5)) == (
        np.float32(0.23500372))
    assert np.float32(minijax.grad(lambda y: lax.expm1(y, accuracy=HIGHEST))(0.5)) == np.float32(
        1.6487212)
    assert np.float32(minijax.grad(lambda y: lax.cos(y, accuracy=HIGHEST))(0.5)) == np.float32(
        -0.47942555)


def test_vmap_keeps_accuracy():
    assert _jaxpr(minijax.vmap(lambda y: lax.cos(y, accuracy=HIGHEST)), X) == (
        "{ lambda ; a:f32[3]. let\n    b:f32[3] = cos[accuracy=AccuracyMode.HIGHEST] a\n"
        "  in (b,) }")
