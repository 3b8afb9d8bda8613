"""Regressions for the third difftest run's (issue 21) jnp/lax classes; every expected error or
value was recorded from real JAX 0.10.2 (the comments quote it)."""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import lax, nn

_C = jnp.array([[1 + 2j], [3 - 1j], [-2 + 3j]], jnp.complex64)


def test_complex_logaddexp_broadcasts_and_rounds_as_jax():
    # JAX 0.10.2, jnp.logaddexp(_C, jnp.complex64(0.5 + 3j)) (a scalar against a [3, 1])
    np.testing.assert_allclose(
        np.asarray(jnp.logaddexp(_C, jnp.complex64(0.5 + 3j))),
        [[1.3523648 + 2.3669903j], [2.9470026 - 1.0655501j], [0.5788897 + 3.0000002j]],
        rtol=1e-6)
    np.testing.assert_allclose(
        np.asarray(jnp.logaddexp2(_C, jnp.complex64(0.5 + 3j))),
        [[1.6858821 + 2.4107194j], [2.7442527 - 0.8900647j], [0.7348406 + 3.0j]], rtol=1e-6)
    # JAX 0.10.2: jvp of logaddexp(a, 1+0j) at _C along _C (its custom JVP)
    out, tan = minijax.jvp(lambda a: jnp.logaddexp(a, 1.0 + 0j), (_C,), (_C,))
    np.testing.assert_allclose(
        np.asarray(out), [[1.0775207 + 1.0000002j], [3.0761714 - 0.8942747j],
                          [0.9494823 + 0.00739002j]], rtol=1e-6)
    np.testing.assert_allclose(
        np.asarray(tan), [[-1.0574071 + 1.778704j], [2.666661 - 1.2148494j],
                          [0.08025467 - 0.17090598j]], rtol=1e-5)
    # s4002-1149: softplus of complex under vmap (JAX 0.10.2: 1.3132617+0j everywhere)
    got = minijax.vmap(nn.softplus)(jnp.ones((2, 3), jnp.complex64))
    np.testing.assert_allclose(np.asarray(got), np.full((2, 3), 1.3132617 + 0j), rtol=1e-6)
    # JAX 0.10.2: nan+nanj
    assert np.isnan(complex(jnp.logaddexp(jnp.complex64(complex(np.inf, 1)), jnp.complex64(1))))


def test_real_logaddexp2_rounds_as_jax():
    # JAX 0.10.2: [1.6920452 3.2065096 0.30912602] (float32, bit for bit)
    got = jnp.logaddexp2(jnp.array([1.0, 3.0, -7.0]), jnp.float32(0.3))
    np.testing.assert_array_equal(
        np.asarray(got), np.array([1.6920452, 3.2065096, 0.30912602], np.float32))
    # JAX 0.10.2: grad at (inf, 2) is 1.0; at a tie 1/2 + 1/2 = 1.0; of the complex real part
    assert float(minijax.grad(lambda x: jnp.logaddexp2(x, 2.0))(jnp.float32(np.inf))) == 1.0
    assert float(minijax.grad(lambda x: jnp.logaddexp2(x, x))(1.0)) == 1.0
    g = minijax.grad(lambda x: jnp.logaddexp2(x, 2.0).real)(jnp.complex64(1 + 1j))
    np.testing.assert_allclose(complex(g), 0.31428644 + 0.15821835j, rtol=1e-6)


def test_empty_where_is_x_so_a_constant_branch_has_no_derivative():
    # s4000-611. JAX 0.10.2: jnp.where of an empty result returns x itself, so heaviside's
    # (whose last where picks a constant) output tangent is a symbolic zero and the scatter's
    # JVP (a gather that cannot index an empty axis) never runs: grad is [], jvp (0., 0.)
    i = jnp.array([-1, 2])
    f = lambda x: jnp.heaviside(x, True).at[i].set(0.5).sum()  # noqa: E731
    assert minijax.grad(f)(jnp.zeros((0,))).shape == (0,)
    out, tan = minijax.jvp(f, (jnp.zeros((0,)),), (jnp.zeros((0,)),))
    assert float(out) == 0.0 and float(tan) == 0.0
    # ... while a tangent that does reach the scatter raises as JAX 0.10.2: TypeError: Slice
    # size at index 0 in gather op is out of range, must be within [0, 0 + 1), got 1.
    with pytest.raises(TypeError, match="Slice size at index 0 in gather op is out of range"):
        minijax.grad(lambda x: (x * 2).at[i].set(0.5).sum())(jnp.zeros((0,)))
    got = jnp.where(jnp.zeros((0, 2), bool), jnp.ones(2), jnp.float32(3))
    assert got.shape == (0, 2) and got.dtype == np.float32


def test_cumlogsumexp_of_integers_fails_when_lowered_as_jax():
    # s5004-2, s5000-127. JAX 0.10.2 accepts any number type, then its lowering cannot make
    # the -inf identity: OverflowError: cannot convert float infinity to integer
    x = jnp.array([[3, 0, 4], [-2, -4, 2]])
    for f in (lax.cumlogsumexp, minijax.jit(lax.cumlogsumexp, static_argnames="axis")):
        with pytest.raises(OverflowError, match="cannot convert float infinity to integer"):
            f(x, axis=1)
    with pytest.raises(OverflowError, match="cannot convert float infinity to integer"):
        lax.cumlogsumexp(jnp.array([1, 2], jnp.int8))
    # ... except over an empty axis (nothing to lower): JAX 0.10.2 int32 [] of shape (0, 3)
    got = lax.cumlogsumexp(jnp.zeros((0, 3), jnp.int32), axis=0)
    assert got.dtype == np.int32 and got.shape == (0, 3)
    # bool stays refused (JAX 0.10.2: TypeError: cumlogsumexp does not accept dtype bool)
    with pytest.raises(TypeError, match="cumlogsumexp does not accept dtype bool"):
        lax.cumlogsumexp(jnp.array([True, False]))


def test_var_without_degrees_of_freedom_differentiates_as_jax():
    # s5025-101, s5014-372, s5016-33, s5054-171, ... JAX 0.10.2 keeps sum / (n - ddof) in the
    # graph and selects NaN after it, so the cotangent through the division by 0 is NaN
    x = jnp.float32(2.0)
    assert np.isnan(float(jnp.var(x, ddof=1)))
    assert np.isnan(float(minijax.grad(lambda x: jnp.var(x, ddof=1))(x)))
    for f in (jnp.var, jnp.std):
        g = minijax.grad(lambda x: f(x, ddof=1, axis=0).sum())(jnp.ones((1, 3)))
        assert np.isnan(np.asarray(g)).all()
    # a negative count gives signed zeros: JAX 0.10.2 [[0, 0, 0], [-0, -0, -0]]
    g = np.asarray(minijax.grad(lambda x: jnp.var(x, ddof=3, axis=0).sum())(
        jnp.arange(6.0).reshape(2, 3)))
    np.testing.assert_array_equal(g, np.zeros((2, 3)))
    np.testing.assert_array_equal(np.signbit(g), [[False] * 3, [True] * 3])


def test_argmin_of_complex_fails_only_when_lowered():
    # s5007-295, s5010-352. JAX 0.10.2 traces argmin/argmax of complex values and fails
    # lowering its reducer's comparison, so an unused one under jit is dropped and runs:
    x = jnp.array([1 + 2j, 1 - 1j], jnp.complex64)
    out = minijax.jit(lambda x: (jnp.argmin(x), x)[1])(x)
    np.testing.assert_array_equal(np.asarray(out), [1 + 2j, 1 - 1j])
    assert "argmin" in str(minijax.make_jaxpr(jnp.argmin)(x))
    # ... and used ones raise JAX 0.10.2's TypeError: lt (gt) does not accept dtype complex64
    # at position 0. Accepted dtypes at position 0 are subtypes of integer, floating, bool.
    with pytest.raises(TypeError, match="lt does not accept dtype complex64 at position 0"):
        jnp.argmin(x)
    with pytest.raises(TypeError, match="gt does not accept dtype complex64 at position 0"):
        jnp.argmax(x.reshape(1, 2), axis=1)
    with pytest.raises(TypeError, match="lt does not accept dtype complex64 at position 0"):
        minijax.checkpoint(lambda x: (jnp.argmin(x), x)[1])(x)


def test_einsum_broadcasts_size_one_named_labels_in_any_order():
    # s4006-345, s5049-280. JAX 0.10.2 broadcasts a size-1 axis of a named label whichever
    # operand comes first; minijax refused a 1 after a 2 (ValueError: label 'j' has sizes 2, 1)
    a = jnp.arange(4.0).reshape(2, 2)
    b = jnp.arange(3.0).reshape(1, 3) + 1
    np.testing.assert_array_equal(np.asarray(jnp.einsum("ij,jk->ik", a, b)),
                                  [[1, 2, 3], [5, 10, 15]])
    np.testing.assert_array_equal(np.asarray(jnp.einsum("ij,ij->i", a, jnp.ones((1, 2)))), [1, 5])
    np.testing.assert_array_equal(np.asarray(jnp.einsum("ij,ij->ij", a, jnp.ones((2, 1)))),
                                  [[0, 1], [2, 3]])
    np.testing.assert_array_equal(np.asarray(jnp.einsum("ij,kj->ik", a, jnp.ones((3, 1)))),
                                  [[1, 1, 1], [5, 5, 5]])
    with pytest.raises(ValueError):  # JAX 0.10.2: ValueError (sizes 2 and 3)
        jnp.einsum("ij,jk->ik", a, jnp.ones((3, 3)))


def test_convolve_pads_per_mode_so_valid_has_no_inf_times_zero():
    # s5001-183. JAX 0.10.2 convolves with "valid"/"same" padding directly; minijax computed the
    # full convolution and sliced it, so an inf met zero cotangents outside the window (NaN)
    v = jnp.array([-0.1363525390625, -0.0, np.inf, -65504.0], jnp.float16)
    g = minijax.grad(lambda v: jnp.convolve(v, v, mode="valid").sum())(v)
    # JAX 0.10.2: [-inf, inf, 0, -0.2727]
    np.testing.assert_allclose(np.asarray(g, np.float32), [-np.inf, np.inf, 0, -0.2727],
                               rtol=1e-3)
    # JAX 0.10.2, a = [1, 2, 3, 4.5], v = [0.5, -1, 2]
    a, w = jnp.array([1.0, 2.0, 3.0, 4.5]), jnp.array([0.5, -1.0, 2.0])
    np.testing.assert_array_equal(np.asarray(jnp.convolve(a, w, mode="same")),
                                  [0.0, 1.5, 3.25, 1.5])
    np.testing.assert_array_equal(np.asarray(jnp.correlate(w, a, mode="full")),
                                  [2.25, -3.0, 7.0, 4.5, 3.0, 2.0])
    np.testing.assert_array_equal(
        np.asarray(minijax.grad(lambda a: jnp.correlate(a, w, mode="same").sum())(a)),
        [-0.5, 1.5, 1.5, 1.0])
    # JAX 0.10.2: [(3-3j), (2-4j), (6+0j), (2-2j)]
    c = jnp.array([1 + 1j, 2, 3j], jnp.complex64)
    np.testing.assert_allclose(np.asarray(jnp.correlate(c[:2], c, mode="full")),
                               [3 - 3j, 2 - 4j, 6, 2 - 2j], rtol=1e-6)


def test_conv_general_dilated_of_bool():
    # s4001-763, s4009-417. JAX 0.10.2 convolves predicates (an or of ands): [True]
    b = jnp.array([True, False, True])[None, None]
    out = lax.conv_general_dilated(b, b, (1,), "VALID")
    assert out.dtype == np.bool_ and out.tolist() == [[[True]]]
    # JAX 0.10.2: int32 [1, 0, 2, 0, 1] with a preferred element type
    out = jnp.convolve(jnp.array([True, False, True]), jnp.array([True, False, True]),
                       preferred_element_type=jnp.int32)
    assert out.dtype == np.int32 and out.tolist() == [1, 0, 2, 0, 1]


def test_scatter_mul_update_tangent_is_operand_times_scattered_tangents():
    # s5009-256. JAX 0.10.2's rule: operand * scatter_add(zeros, idx, t_updates), so an
    # infinite operand element where no update lands gets a NaN tangent
    x0 = jnp.array([[0.5, -np.inf, 0.5], [1.5, 0.5, 1.5]], jnp.float32)
    _, t = minijax.jvp(lambda x, y: x.at[1:].mul(y), (x0, jnp.float32(0.5)),
                       (jnp.ones_like(x0), jnp.float32(1.0)))
    # JAX 0.10.2: [[1, nan, 1], [2, 1, 2]]
    np.testing.assert_array_equal(np.asarray(t), [[1, np.nan, 1], [2, 1, 2]])
    # JAX 0.10.2, x = [1, 2, -inf, 4], u = [3, 5] at [0, 5] (unique): jvp along (1s, [1, 2]),
    # grads of the sum
    x, u, i = jnp.array([1.0, 2.0, -np.inf, 4.0]), jnp.array([3.0, 5.0]), jnp.array([0, 5])
    expect = {"drop": ([4, 1, np.nan, 1], [3, 1, 1, 1], [1, 0]),
              "clip": ([4, 1, np.nan, 13], [3, 1, 1, 5], [1, 4])}
    for mode, (tan, gx, gu) in expect.items():
        f = lambda x, u, mode=mode: x.at[i].mul(u, mode=mode, unique_indices=True)  # noqa: E731
        _, t = minijax.jvp(f, (x, u), (jnp.ones(4), jnp.array([1.0, 2.0])))
        np.testing.assert_array_equal(np.asarray(t), tan)
        g = minijax.grad(lambda x, u: f(x, u).sum(), argnums=(0, 1))(x, u)
        np.testing.assert_array_equal(np.asarray(g[0]), gx)
        np.testing.assert_array_equal(np.asarray(g[1]), gu)


def test_rfft_over_an_empty_axis_fails_only_when_lowered():
    # s4003-248, s4008-880. JAX 0.10.2 traces it (result c64[2, 1]) and fails lowering:
    # ValueError: Cannot lower jaxpr with verifier errors: ... So a jit that drops the unused
    # primal RFFT (the gradient of a sum) runs: float32 (2, 0)
    x = jnp.zeros((2, 0))
    assert minijax.eval_shape(jnp.fft.rfft, x).shape == (2, 1)
    with pytest.raises(ValueError, match="Cannot lower jaxpr with verifier errors"):
        jnp.fft.rfft(x)
    g = minijax.jit(minijax.grad(lambda x: jnp.fft.rfft(x).real.sum()))(x)
    assert g.shape == (2, 0) and g.dtype == np.float32
    assert jnp.fft.rfft(x, n=4).shape == (2, 3)  # JAX 0.10.2: complex64 (2, 3)


def test_slogdet_reads_the_lu_diagonal_without_nan_leaking_along_a_row():
    # s5015-198. JAX 0.10.2 takes the LU diagonal with jnp.diagonal; minijax multiplied by an
    # identity, so a NaN beside the diagonal made its pivot NaN and the negative-pivot count
    # (the sign) wrong. JAX 0.10.2: sign -1.0, logabsdet nan
    a = jnp.array([[4.2e-45, 0.42, 0.498], [1.23, 0.994, -2.75], [-0.235, -0.661, np.nan]],
                  jnp.float32)
    sign, logdet = jnp.linalg.slogdet(a)
    assert float(sign) == -1.0 and np.isnan(float(logdet))


def test_solve_and_inv_differentiate_around_the_factorization():
    # s5025-198. JAX 0.10.2 differentiates solve as custom_linear_solve (dx = a^-1 (db - da x)),
    # not through the LU: with an infinite entry the VJP of a zero cotangent is all zeros;
    # minijax's went through the LU's own derivative (NaN column)
    a = jnp.array([[0.0, -0.0, 1.301], [0.4788, 0.8758, 4.2e-45], [np.inf, 0.6054, 0.5876]],
                  jnp.float32)
    _, vjp = minijax.vjp(jnp.linalg.inv, a)
    np.testing.assert_array_equal(np.asarray(vjp(jnp.zeros((3, 3)))[0]), np.zeros((3, 3)))
    np.testing.assert_array_equal(
        np.asarray(vjp(jnp.zeros((3, 3)).at[0].set(1.0))[0]), np.zeros((3, 3)))
