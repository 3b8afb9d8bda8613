"""Regressions for lax-level differences from real JAX found by tools/difftest (FINDINGS.md
numbers in each test's name). Expected values were printed by JAX 0.10.2."""

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax import lax


def test_finding4_cumlogsumexp_complex():
    x = jnp.array([1 + 1j, 2 - 1j, 0.5j], jnp.complex64)
    t = jnp.array([1, 1j, 2 - 1j], jnp.complex64)
    # JAX 0.10.2
    np.testing.assert_allclose(lax.cumlogsumexp(jnp.ones(2, jnp.complex64)),
                               [1 + 0j, 1.6931472 + 0j], rtol=1e-6)
    out, tan = jax.jvp(lambda x: lax.cumlogsumexp(x, reverse=True), (x,), (t,))
    assert out.dtype == tan.dtype == np.complex64
    np.testing.assert_allclose(
        out, [1.9764532 - 0.49855328j, 2.0183887 - 0.86707234j, 0.5j], rtol=1e-6)
    np.testing.assert_allclose(
        tan, [0.78588516 + 1.4313815j, 0.31400692 + 1.2064795j, 2 - 1j], rtol=1e-6)
    np.testing.assert_allclose(
        jax.grad(lambda x: lax.cumlogsumexp(x).real.sum())(x),
        [1.0057709 + 0.7791009j, 1.9191966 - 0.89558655j, 0.07503279 + 0.11648563j], rtol=1e-5)


@pytest.mark.parametrize("op, init", [(lax.max, -np.inf), (lax.min, np.inf)])
def test_finding5_jvp_reduce_window_wider_than_input(op, init):
    f = lambda x: lax.reduce_window(x, init, op, (1, 3), (1, 2), "VALID")
    p, t = jax.jvp(f, (jnp.ones((1, 1)),), (jnp.ones((1, 1)),))
    # JAX 0.10.2: two f32[1,0]; the gradient is 0
    assert p.shape == t.shape == (1, 0) and p.dtype == t.dtype == np.float32
    np.testing.assert_array_equal(jax.grad(lambda x: f(x).sum())(jnp.ones((1, 1))), [[0.0]])


def test_finding6_lu_of_zero_size_batch():
    # JAX 0.10.2: empty results of the batch's shape
    out = jax.vmap(lambda a: jnp.linalg.solve(a, a), in_axes=1)(jnp.zeros((2, 0, 2)))
    assert out.shape == (0, 2, 2) and out.dtype == np.float32
    lu, piv, perm = lax.linalg.lu(jnp.zeros((0, 2, 2)))
    assert (lu.shape, piv.shape, perm.shape) == ((0, 2, 2), (0, 2), (0, 2))
    assert piv.dtype == perm.dtype == np.int32
    assert jnp.linalg.det(jnp.zeros((0, 3, 3))).shape == (0,)


_DN1 = lax.ScatterDimensionNumbers(update_window_dims=(0,), inserted_window_dims=(0,),
                                   scatter_dims_to_operand_dims=(0,))


@pytest.mark.parametrize("mode, i, u, want", [
    # JAX 0.10.2 (tangents 1 for the operand, 2 for the update)
    ("clip", 0, 3.0, 2.0), ("clip", 0, 1.0, 1.5), ("clip", 3, 3.0, np.nan),
    ("clip", 3, 0.0, np.nan), ("drop", 3, 3.0, 1.0), ("promise_in_bounds", 3, 3.0, 1.0)])
def test_finding15_scatter_max_jvp_as_jax(mode, i, u, want):
    f = lambda x, u: lax.scatter_max(x, jnp.array([i]), jnp.array([u]), _DN1, mode=mode)
    _, t = jax.jvp(f, (jnp.ones((1, 1)), u), (jnp.ones((1, 1)), 2.0))
    np.testing.assert_array_equal(t, [[want]])


def test_finding15_scatter_min_jvp_nan_operand_and_ties():
    dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                     scatter_dims_to_operand_dims=(0,))
    f = lambda x, u: lax.scatter_min(x, jnp.array([[0], [1], [0], [2], [7]]), u, dn)
    x, u = jnp.array([1.0, np.nan, 2.0, 5.0]), jnp.array([1.0, 3.0, 0.5, 2.0, 1.0])
    p, t = jax.jvp(f, (x, u), (jnp.arange(4.0) + 1, jnp.arange(5.0) * 10))
    # JAX 0.10.2
    np.testing.assert_array_equal(p, [0.5, np.nan, 2.0, 5.0])
    np.testing.assert_array_equal(t, [20.0, 0.0, 16.5, 4.0])


def test_finding17_gather_fill_tangent_is_zero():
    dn = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,),
                                    start_index_map=(0,))
    f = lambda x: lax.gather(x, jnp.array([[0], [5], [1]]), dn, (1,), mode="fill",
                             fill_value=7.0)
    p, t = jax.jvp(f, (jnp.arange(3.0),), (jnp.ones(3),))
    # JAX 0.10.2
    np.testing.assert_array_equal(p, [0.0, 7.0, 1.0])
    np.testing.assert_array_equal(t, [1.0, 0.0, 1.0])
    np.testing.assert_array_equal(jax.linearize(f, jnp.arange(3.0))[1](jnp.ones(3)), [1, 0, 1])
    np.testing.assert_array_equal(jax.grad(lambda x: f(x).sum())(jnp.arange(3.0)), [1, 1, 0])
    jac = jax.jacfwd(lambda x: jnp.take_along_axis(x, jnp.array([4, -2, 4]), axis=-1))
    np.testing.assert_array_equal(jac(jnp.ones(1)), np.zeros((3, 1)))


def test_finding13_gather_slice_larger_than_operand():
    dn = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,),
                                    start_index_map=(0,))
    # JAX 0.10.2's error; with no index vectors it gathers nothing and accepts
    with pytest.raises(TypeError, match=r"Slice size at index 0 in gather op is out of range, "
                                        r"must be within \[0, 0 \+ 1\), got 1\."):
        lax.gather(jnp.zeros(0), jnp.array([[0]]), dn, (1,))
    assert lax.gather(jnp.zeros(0), jnp.zeros((0, 1), jnp.int32), dn, (1,)).shape == (0,)


def test_gather_default_mode_promises_in_bounds():
    # JAX 0.10.2: lax.gather's mode=None is PROMISE_IN_BOUNDS (XLA clamps: 4.), the scatters'
    # None is FILL_OR_DROP (the update is dropped)
    dn = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,),
                                    start_index_map=(0,))
    x = jnp.arange(5.0)
    np.testing.assert_array_equal(lax.gather(x, jnp.array([[7]]), dn, (1,)), [4.0])
    np.testing.assert_array_equal(
        jax.jit(lambda x: lax.gather(x, jnp.array([[7]]), dn, (1,)))(x), [4.0])
    sdn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                      scatter_dims_to_operand_dims=(0,))
    np.testing.assert_array_equal(lax.scatter(x, jnp.array([[7]]), jnp.array([9.0]), sdn), x)
    np.testing.assert_array_equal(
        lax.scatter_add(x, jnp.array([[7]]), jnp.array([9.0]), sdn), x)


@pytest.mark.parametrize("name, shape, dtype, out_dtype", [
    # JAX 0.10.2: empty results; irfft's default length max(0, 2 * (m - 1)) is 0
    ("fft", (2, 0), np.float32, np.complex64), ("ifft", (0,), np.complex64, np.complex64),
    ("fft2", (0, 3), np.float32, np.complex64), ("fftn", (2, 0), np.float32, np.complex64),
    ("irfft", (2, 0), np.complex64, np.float32), ("hfft", (3, 0), np.complex64, np.float32),
    ("irfftn", (0, 0), np.float32, np.float32)])
def test_finding3_fft_of_zero_size(name, shape, dtype, out_dtype):
    f = getattr(jnp.fft, name)
    for norm in (None, "ortho", "forward"):
        out = f(jnp.zeros(shape, dtype), norm=norm)
        assert out.shape == shape and out.dtype == out_dtype


def test_finding3_fft_refusals_as_jax():
    # JAX 0.10.2: ValueError for each (an rfft over an empty last axis fails to lower there)
    with pytest.raises(ValueError, match="Shape should be positive"):
        jnp.fft.fft(jnp.ones(3), n=0)
    with pytest.raises(ValueError, match="only real valued inputs supported for rfft"):
        jnp.fft.rfft(jnp.ones(3, jnp.complex64))
    with pytest.raises(ValueError):
        jnp.fft.rfft(jnp.zeros((2, 0)))
    p, t = jax.jvp(jnp.fft.fft, (jnp.zeros((2, 0)),), (jnp.zeros((2, 0)),))
    assert p.shape == t.shape == (2, 0) and t.dtype == np.complex64


def test_finding20_triangular_solve_singular_as_lapack():
    # JAX 0.10.2 on CPU solves with LAPACK's trsm: the zero pivot divides to inf, then NaN
    a, b = jnp.zeros((3, 3)), jnp.ones((3, 1))
    np.testing.assert_array_equal(
        lax.linalg.triangular_solve(a, b, left_side=True, lower=True), [[np.inf], [np.nan],
                                                                        [np.nan]])
    np.testing.assert_array_equal(
        lax.linalg.triangular_solve(a, b, left_side=True, lower=False), [[np.nan], [np.nan],
                                                                         [np.inf]])
    np.testing.assert_array_equal(
        lax.linalg.triangular_solve(a, b.T, left_side=False, lower=True), [[np.nan, np.nan,
                                                                           np.inf]])


@pytest.mark.parametrize("left_side, lower, transpose_a, conjugate_a, unit_diagonal", [
    (True, True, False, False, False), (False, False, True, True, False),
    (True, False, True, False, True), (False, True, False, True, True)])
def test_triangular_solve_variants_against_numpy(left_side, lower, transpose_a, conjugate_a,
                                                 unit_diagonal):
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((2, 3, 3)) + 1j * rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)
         ).astype(np.complex64)
    b = rng.standard_normal((2, 3, 2) if left_side else (2, 2, 3)).astype(np.complex64)
    t = np.tril(a) if lower else np.triu(a)
    if unit_diagonal:
        t = t - t * np.eye(3) + np.eye(3)
    op = t.swapaxes(-1, -2) if transpose_a else t
    op = op.conj() if conjugate_a else op
    want = np.linalg.solve(op, b) if left_side else np.linalg.solve(
        op.swapaxes(-1, -2), b.swapaxes(-1, -2)).swapaxes(-1, -2)
    got = lax.linalg.triangular_solve(a, b, left_side=left_side, lower=lower,
                                      transpose_a=transpose_a, conjugate_a=conjugate_a,
                                      unit_diagonal=unit_diagonal)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_triangular_solve_float16():
    # JAX 0.10.2 takes float16 (XLA's own triangular solve)
    out = lax.linalg.triangular_solve(jnp.eye(3, dtype=jnp.float16) * 2,
                                      jnp.ones((3, 2), jnp.float16), left_side=True)
    assert out.dtype == np.float16
    np.testing.assert_array_equal(out, np.full((3, 2), 0.5))
    with pytest.raises(TypeError):
        lax.linalg.triangular_solve(jnp.eye(2, dtype=jnp.int32), jnp.eye(2, dtype=jnp.int32))


def test_findings14_37_43_det_and_slogdet_as_jax():
    inf = np.inf
    # JAX 0.10.2: slogdet from LU lets a zero pivot decide, and counts negative pivots
    s, l = jnp.linalg.slogdet(jnp.array([[1.0, 1, 1], [1, inf, 1], [1, 1, 1]]))
    assert (float(s), float(l)) == (0.0, -inf)
    s, l = jnp.linalg.slogdet(jnp.array([[1.0, 1, 0], [1, 0, 1], [1, 1, -inf]]))
    assert (float(s), float(l)) == (1.0, inf)
    # JAX 0.10.2: 2x2 and 3x3 determinants are the closed-form expansions (inf - inf = NaN)
    assert np.isnan(jnp.linalg.det(jnp.array([[1.0, 1, 1], [0, 1, 1], [0, -inf, 1]])))
    d = jnp.linalg.det(jnp.ones((3, 3), jnp.float16))
    assert d.dtype == np.float16 and float(d) == 0.0
    d = jnp.linalg.det(jnp.array([[1.0, 2], [3, 4]], jnp.float16))
    assert d.dtype == np.float16 and float(d) == -2.0
    s, l = jnp.linalg.slogdet(jnp.array([[1.0, 2], [3, 4]], jnp.float16))
    assert s.dtype == l.dtype == np.float16 and (float(s), float(l)) == (-1.0, 0.693359375)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_det_slogdet_values_and_derivatives(n):
    rng = np.random.default_rng(n)
    a = rng.standard_normal((2, n, n)).astype(np.float32)
    c = (a + 1j * rng.standard_normal((2, n, n))).astype(np.complex64)
    np.testing.assert_allclose(jnp.linalg.det(a), np.linalg.det(a), rtol=1e-4)
    for x in (a, c):
        s, l = jnp.linalg.slogdet(x)
        ws, wl = np.linalg.slogdet(x)
        np.testing.assert_allclose(s, ws, rtol=1e-4)
        np.testing.assert_allclose(l, wl, rtol=1e-4, atol=1e-5)
    # d det = det tr(A^-1 dA); d slogdet: the log's real part and the sign's phase turn
    # together (i Im(tr(A^-1 dA)) sign)
    g = jax.grad(lambda x: jnp.linalg.det(x).sum())(a)
    np.testing.assert_allclose(g, np.linalg.det(a)[:, None, None] *
                               np.linalg.inv(a).swapaxes(-1, -2), rtol=2e-3, atol=1e-4)
    dc = (0.5 * c + 1j).astype(np.complex64)
    (s, l), (ds, dl) = jax.jvp(lambda x: tuple(jnp.linalg.slogdet(x)), (c,), (dc,))
    tr = np.trace(np.linalg.solve(c, dc), axis1=-2, axis2=-1)
    np.testing.assert_allclose(dl, tr.real, rtol=2e-3, atol=1e-4)
    np.testing.assert_allclose(ds, 1j * tr.imag * np.asarray(s), rtol=2e-3, atol=1e-4)


def test_finding32_complex_cummin_cummax_and_leaky_relu():
    inf = np.inf
    x = jnp.array([[1 + 2j, 1j, 2 + 0j, 2 + 1j], [-inf - 1j, -inf + 0j, -inf - 2j, 3 + 0j]],
                  jnp.complex64)
    # JAX 0.10.2: lexicographic order (and its -inf+0j identity wins over -inf-1j)
    np.testing.assert_array_equal(lax.cummin(x[0, :3]), [1 + 2j, 1j, 1j])
    np.testing.assert_array_equal(lax.cummax(x, axis=1), [
        [1 + 2j, 1 + 2j, 2 + 0j, 2 + 1j], [-inf + 0j, -inf + 0j, -inf + 0j, 3 + 0j]])
    np.testing.assert_array_equal(lax.cummax(x[0], reverse=True), [2 + 1j] * 4)
    p, t = jax.jvp(lambda x: lax.cummin(x, axis=1), (x[:1],), (jnp.ones_like(x[:1]),))
    np.testing.assert_array_equal(p, [[1 + 2j, 1j, 1j, 1j]])
    np.testing.assert_array_equal(t, [[1 + 0j] * 4])
    np.testing.assert_allclose(
        jax.nn.leaky_relu(jnp.array([1 + 2j, -1 + 1j, 0j, -0.0 + 3j, 2 - 5j], jnp.complex64)),
        [1 + 2j, -0.01 + 0.01j, 0j, 3j, 2 - 5j], rtol=1e-6)


@pytest.mark.parametrize("shape, axis, keepdims, at", [
    # JAX 0.10.2: the gather's slice check names the reduced axis (the merged last one for a
    # tuple of axes, 0 for None)
    ((0,), -1, True, 0), ((0,), None, False, 0), ((2, 0), 1, False, 1),
    ((3, 0, 2), -2, True, 1), ((2, 0, 3), (2, 1), False, 1)])
def test_finding13_median_of_empty_axis_raises_as_jax(shape, axis, keepdims, at):
    with pytest.raises(TypeError, match=rf"Slice size at index {at} in gather op is out of "
                                        r"range, must be within \[0, 0 \+ 1\), got 1\."):
        jnp.median(jnp.zeros(shape), axis=axis, keepdims=keepdims)
    with pytest.raises(TypeError, match="Slice size"):
        jax.vmap(jnp.median)(jnp.zeros((2, 0)))


def test_median_of_empty_batch_is_empty():
    # JAX 0.10.2: reducing a non-empty axis of an array with an empty one gives an empty result
    assert jnp.median(jnp.zeros((3, 0)), axis=0).shape == (0,)
    assert jnp.quantile(jnp.zeros((3, 0)), jnp.array([0.5, 0.7]), axis=0).shape == (2, 0)
