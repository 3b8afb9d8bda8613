"""Cases of the 12000-seed oracle run (tools/difftest/triage_12000_d.md).

Expected values were printed by JAX 0.10.2 (/work/venv_jax) on CPU for the same inputs
(tests/data/record_fidelity_r12_d.py prints them).
"""
import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax import lax, nn

_INF = float("inf")
_NAN = float("nan")


@pytest.mark.parametrize("dtype,x,soft,log_soft", [
    # unsigned: x - max(x) wraps around to a huge value whose exp overflows
    ("uint32", [[2, 1], [3, 4]], [[0.0, _NAN], [_NAN, 0.0]], [[-_INF, -_INF], [-_INF, -_INF]]),
    ("uint8", [[200, 1], [5, 5]], [[1.7587921355053135e-25, 0.9999999403953552], [0.5, 0.5]],
     [[-57.0, 0.0], [-0.6931471824645996, -0.6931471824645996]]),
    # int8: -100 - 100 wraps to 56
    ("int8", [[100, -100], [5, 5]], [[4.780892995206139e-25, 1.0], [0.5, 0.5]],
     [[-56.0, 0.0], [-0.6931471824645996, -0.6931471824645996]]),
    ("int32", [[1, 2], [3, 4]], [[0.2689414322376251, 0.7310585975646973]] * 2,
     [[-1.31326162815094, -0.31326162815093994]] * 2),
])
def test_softmax_of_integers_shifts_in_the_integer_dtype(dtype, x, soft, log_soft):
    # s12030-65: JAX subtracts max(x) before any promotion, so an integer x - max(x) wraps
    # around as the integer does (log_softmax of random.key_data was -inf in JAX, finite here).
    x = jnp.array(x, dtype)
    for f, expected in ((nn.softmax, soft), (nn.log_softmax, log_soft)):
        for got in (f(x), jax.jit(f)(x)):
            assert got.dtype == np.float32
            np.testing.assert_allclose(np.asarray(got), np.array(expected, np.float32),
                                       rtol=1e-6)


def test_log_softmax_of_integers_with_where_promotes_through_the_mask():
    # with ``where`` JAX's x_safe is where(mask, x, -inf): a float, so nothing wraps
    mask = jnp.array([[True, False], [True, True]])
    got = nn.log_softmax(jnp.array([[2, 1], [3, 4]], "uint32"), where=mask)
    np.testing.assert_allclose(np.asarray(got), np.array(
        [[0.0, -_INF], [-1.31326162815094, -0.31326162815093994]], np.float32), rtol=1e-6)


def test_pow_jvp_takes_y_minus_one_in_the_float_dtype():
    # s12012-31: JAX's pow JVP converts an integer exponent to x's dtype before ``y - 1``, so
    # for y = int32 min, y - 1 rounds back to -2**31 (an even power: 0.5 -> -inf, -2.5 -> -0)
    # where an int32 subtraction wrapped to int32 max (odd: 0.5 -> -0, -2.5 -> -inf).
    x = jnp.array([0.5, -2.5, 2.0, -3.0, 0.0], jnp.float32)
    y = jnp.array([-2**31, -2**31, 2**31 - 1, 3, 0], jnp.int32)
    expected = np.array([-_INF, -0.0, _INF, 27.0, 0.0], np.float32)
    tangent = jax.jvp(lambda x: lax.pow(x, y), (x,), (jnp.ones_like(x),))[1]
    np.testing.assert_array_equal(np.asarray(tangent), expected)
    assert np.signbit(np.asarray(tangent)[1])
    np.testing.assert_array_equal(np.asarray(jax.jit(jax.grad(lambda x: (x ** y).sum()))(x)),
                                  expected)
    # float16: 70000 converts to inf, so inf * 0.5**inf is NaN and inf * (-2.5)**inf inf
    xh = jnp.array([0.5, -2.5, 3.0], jnp.float16)
    yh = jnp.array([70000, 70000, -2**31], jnp.int32)
    tangent = jax.jvp(lambda x: lax.pow(x, yh), (xh,), (jnp.ones_like(xh),))[1]
    np.testing.assert_array_equal(np.asarray(tangent, np.float32), [_NAN, _INF, _NAN])


def test_qr_jvp_adds_the_diagonal_correction_for_real_inputs_too():
    # s12027-41: JAX's QR JVP adds I * (M - re(M)) (M = Q^H dX R^-1) for every dtype; for a
    # real M that is 0 * (M - M), NaN wherever M is not finite, and the VJP's transpose then
    # makes the whole cotangent NaN. minijax added it only for complex M: -inf at [1, 2] and
    # [2, 2] here.
    big = 3.4028234663852886e+38
    x = jnp.array([[-0.32724982500076294, -2.5751304626464844, -big],
                   [big, 0.5513923168182373, 0.18049247562885284],
                   [0.2591884732246399, -0.9602075219154358, 0.8826934099197388]], jnp.float32)
    # det's cotangent for R at this x (JAX 0.10.2's, equal to minijax's)
    ct_r = jnp.array([[-0.330010324716568, 0.0, 0.0], [0.0, 1.0141822401198266e+38, 0.0],
                      [0.0, -1.149442384581043e+38, -_INF]], jnp.float32)
    pullback = jax.vjp(lambda x: jnp.linalg.qr(x)[1], x)[1]
    assert np.isnan(np.asarray(pullback(ct_r)[0])).all()
    whole = jax.jit(jax.grad(lambda x: jnp.linalg.det(jnp.linalg.qr(x)[1]) * 0.5))(x)
    assert np.isnan(np.asarray(whole)).all()
