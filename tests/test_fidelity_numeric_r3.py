"""Value / NaN-position differences from JAX 0.10.2 found by the difftest oracle run on seeds
5000-5059 (tools/difftest/FINDINGS.md 71, 98-103). Expected values are JAX 0.10.2's outputs, written
in by hand from the plain-JAX reproducers quoted in each test."""

import json
import os

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax import lax
from tools.difftest.compare import compare
from tools.difftest.worker import Runner

NAN, INF = np.nan, np.inf
TANGENT = np.array([1., 10., 100.], np.float32)


def _window_max(x, padding):
    return lax.reduce_window(x, -jnp.inf, lax.max, (2,), (1,), padding)


@pytest.mark.parametrize("x, padding, expected", [
    # JAX: jax.jvp(lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2,), (1,), padding),
    #              (x,), (jnp.array([1., 10., 100.]),))[1]
    ([1., NAN, 0.], "SAME", [10., 100., 100.]),   # a NaN is kept only until the next element
    ([NAN, NAN, NAN], "SAME", [10., 100., 100.]),  # padding is skipped, not compared
    ([2., 2., 1.], "VALID", [1., 10.]),            # ties: the first element's tangent
    ([-INF, -INF, 1.], "VALID", [0., 100.]),       # a window of identities: the zero init
    ([-INF, NAN, -INF], "SAME", [10., 100., 0.]),
])
def test_reduce_window_max_jvp_selects_like_select_and_gather_add(x, padding, expected):
    # FINDINGS 71: minijax split ties evenly and lost the tangent next to a NaN.
    _, t = jax.jvp(lambda v: _window_max(v, padding), (jnp.array(x, jnp.float32),),
                   (jnp.asarray(TANGENT),))
    np.testing.assert_array_equal(np.asarray(t), np.array(expected, np.float32))


def test_reduce_window_min_jvp_ties_take_the_first():
    # JAX: jax.jvp(lambda x: lax.reduce_window(x, jnp.inf, lax.min, (2,), (1,), 'VALID'),
    #              (jnp.array([1., 1., 2.]),), (jnp.array([1., 10., 100.]),))[1] -> [1., 10.]
    f = lambda v: lax.reduce_window(v, jnp.inf, lax.min, (2,), (1,), "VALID")
    _, t = jax.jvp(f, (jnp.array([1., 1., 2.]),), (jnp.asarray(TANGENT),))
    np.testing.assert_array_equal(np.asarray(t), [1., 10.])


def test_reduce_window_max_grad_of_ties_goes_to_the_first():
    # JAX: jax.grad(lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2,), (1,), 'VALID')[-1])(
    #          jnp.array([2., 2., 1.])) -> [0., 1., 0.]
    g = jax.grad(lambda v: _window_max(v, "VALID")[-1])(jnp.array([2., 2., 1.]))
    np.testing.assert_array_equal(np.asarray(g), [0., 1., 0.])


def test_reduce_window_max_linearize_next_to_nan():
    # s5036-298: T_linearize of a (1, 2) SAME window max over a row [nan, -0.46, 0.41, -2.08]
    x = jnp.array([[NAN, -0.4602697, 0.40787005, -2.0786421]], jnp.float32)
    f = lambda v: lax.reduce_window(v, -jnp.inf, lax.max, (1, 2), (1, 1), "SAME")
    _, f_jvp = jax.linearize(f, x)
    t = f_jvp(jnp.array([[0.75, 0.85, 0.95, 1.05]], jnp.float32))
    np.testing.assert_allclose(np.asarray(t), [[0.85, 0.95, 0.95, 1.05]], rtol=1e-6)


def test_scan_transpose_gives_a_dead_const_a_symbolic_zero():
    # FINDINGS 103 (s5002-264). JAX 0.10.2 -> [1., 1.]; minijax gave [nan, 1.] (the dead
    # rsqrt(-1)'s NaN derivative times an accumulated zero cotangent).
    def f(x):
        t1 = lax.rsqrt(x)

        def body(i, c):
            jnp.where(c > 0, t1, c)  # dead: JAX's DCE drops it from the loop
            return -c
        return lax.fori_loop(0, 2, body, x).sum()
    np.testing.assert_array_equal(np.asarray(jax.grad(f)(jnp.array([-1., 4.]))), [1., 1.])


def test_top_k_derivatives_keep_nan_where_it_is():
    # FINDINGS 98 (s5009-30). JAX 0.10.2: vjp -> [nan, 0., 1.], jvp -> [1., 2.]; minijax's
    # one-hot contraction gave [nan, nan, nan] and [nan, nan].
    x = jnp.array([0.12, -5.4, -3.36])
    _, vjp = jax.vjp(lambda v: lax.top_k(v, 2)[0], x)
    np.testing.assert_array_equal(np.asarray(vjp(jnp.array([NAN, 1.]))[0]), [NAN, 0., 1.])
    _, t = jax.jvp(lambda v: lax.top_k(v, 2)[0], (x,), (jnp.array([1., NAN, 2.]),))
    np.testing.assert_array_equal(np.asarray(t), [1., 2.])


@pytest.mark.parametrize("fn, x, expected", [
    # JAX 0.10.2's values; minijax gave NaN for the first four (xlo + (xhi - xlo) * frac)
    (lambda a: jnp.median(a), [-INF, 1.], -INF),
    (lambda a: jnp.median(a), [-INF, 2., 3., -INF], -INF),
    (lambda a: jnp.quantile(a, 0.3), [-INF, -INF], -INF),
    (lambda a: jnp.percentile(a, 30.), [-INF, 1.], -INF),
    # median is the midpoint method: (x + x) / 2 overflows as JAX's does (minijax 3.4e38)
    (lambda a: jnp.median(a), [3.4e38, 3.4e38], INF),
    # an exact inf order statistic: inf * 0 in JAX's weighted sum (minijax inf)
    (lambda a: jnp.quantile(a, 1.0), [INF, 1.], NAN),
])
def test_quantile_weights_and_median_midpoint(fn, x, expected):
    # FINDINGS 99 (s5013-324, s5015-65)
    np.testing.assert_array_equal(np.asarray(fn(jnp.array(x, jnp.float32))),
                                  np.float32(expected))


def test_integer_remainder_by_zero_is_zero():
    # FINDINGS 100 (s5013-266). JAX 0.10.2 replaces an integer divisor 0 by 1: [0 0 0 0], [0];
    # minijax gave XLA's rem(x, 0) = x, so -4 % 0 was -4.
    r = jnp.remainder(jnp.array([-4, 5, 0, -2147483648]), jnp.array([0, 0, 0, -1]))
    np.testing.assert_array_equal(np.asarray(r), [0, 0, 0, 0])
    np.testing.assert_array_equal(np.asarray(jnp.mod(jnp.array([7], jnp.uint8), jnp.uint8(0))),
                                  [0])


def test_integer_power_uses_six_exponent_bits_as_jax():
    # FINDINGS 101 (s5028-165). JAX 0.10.2's _pow_int_int: 6 exponent bits, 0 ** n = 0.
    a = jnp.array([[1, -4, 0], [5, -4, -3]])
    np.testing.assert_array_equal(np.asarray(a ** a), [[1, 0, 1], [3125, 0, 1197088493]])
    np.testing.assert_array_equal(np.asarray(a ** jnp.array([0, 64, -1])),
                                  [[1, 1, 0], [1, 1, -2111105451]])
    np.testing.assert_array_equal(np.asarray(jnp.int32(0) ** jnp.array([0, 1, 64])), [1, 0, 0])
    np.testing.assert_array_equal(np.asarray(jnp.array([2, 3]) ** jnp.int32(70)),
                                  [0, -102221863])


def _oracle_cases():
    path = os.path.join(os.path.dirname(__file__), "data", "difftest", "numeric_r3.json")
    with open(path) as f:
        corpus = json.load(f)
    assert corpus["header"]["jax_version"] == "0.10.2"
    return corpus["cases"]


@pytest.fixture(scope="module")
def runner():
    r = Runner("minijax")
    yield r
    r.jax.config.update("jax_enable_x64", False)


@pytest.mark.parametrize("rec", _oracle_cases(), ids=lambda rec: rec["case"]["id"])
def test_oracle_case_agrees_with_jax(runner, rec):
    # the fixed cases themselves (FINDINGS 71, 98-103), JAX 0.10.2's outputs recorded by the run
    assert compare(rec["case"], rec["jax"], runner.run(rec["case"])) is None


def test_standardize_squares_integers_in_their_dtype():
    # FINDINGS 102 (s5040-2). JAX 0.10.2: jnp.square of the int8 input wraps, the "fast"
    # variance is clipped to 0: [[-14388.364, 0, 19606.123], [14388.364, 0, -19606.123]];
    # minijax converted to float32 first and gave [[-1, 0, 1], [1, 0, -1]].
    x = jnp.array([[-27, 125, 125], [64, 125, 1]], jnp.int8)
    np.testing.assert_allclose(np.asarray(jax.nn.standardize(x, axis=0)),
                               [[-14388.364, 0., 19606.123], [14388.364, 0., -19606.123]],
                               rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(jax.nn.standardize(x, axis=0, algorithm="stable")),
                                  [[-1., 0., 1.], [1., 0., -1.]])
