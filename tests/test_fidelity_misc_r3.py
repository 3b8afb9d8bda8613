"""Round-3 fidelity regressions (brief r3_misc): classes of the JAX 0.10.2-oracle difftest run
(seeds 5000-5059). The expected values and errors are JAX 0.10.2's, as noted per test; see
tools/difftest/FINDINGS.md for the plain-JAX reproducers."""

import ml_dtypes
import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import lax

BF16 = np.dtype(ml_dtypes.bfloat16)
_A = np.array([[4.0, 1.0], [1.0, 3.0]])


# --- LAPACK-backed linalg of float16/bfloat16 ----------------------------------------------------
# JAX 0.10.2 refuses these at lowering, in jaxlib's build_lapack_fn_target:
#   NotImplementedError: (KeyError(<class 'ml_dtypes.bfloat16'>), 'Unsupported dtype bfloat16.')
# so an unused factorization inside jit (dropped before lowering) raises nothing.

_REFUSED = {
    "cholesky": lambda x: jnp.linalg.cholesky(x),
    "qr": lambda x: jnp.linalg.qr(x),
    "svdvals": lambda x: jnp.linalg.svd(x, compute_uv=False),
    "solve": lambda x: jnp.linalg.solve(x, x),
    "inv": lambda x: jnp.linalg.inv(x),
    "eigh": lambda x: jnp.linalg.eigh(x),
    "lu": lambda x: lax.linalg.lu(x),
    "pinv": lambda x: jnp.linalg.pinv(x),
}


@pytest.mark.parametrize("name", sorted(_REFUSED))
@pytest.mark.parametrize("dtype", [BF16, np.dtype(np.float16)])
def test_low_precision_lapack_ops_raise_jaxs_error(name, dtype):
    x = jnp.asarray(_A.astype(dtype))
    f = _REFUSED[name]
    expected = f"Unsupported dtype {dtype.name}."
    for g in (f, minijax.jit(f)):
        with pytest.raises(NotImplementedError) as info:
            g(x)
        key_error, msg = info.value.args
        assert msg == expected
        assert isinstance(key_error, KeyError) and key_error.args == (dtype.type,)


def test_unused_low_precision_factorization_under_jit_computes():
    # JAX 0.10.2 (cases s5033-169, s5053-257): jit drops the dead cholesky/svd; result 2*x
    def f(x, y):
        jnp.linalg.cholesky(x)
        jnp.linalg.svd(x, compute_uv=False)
        return y * 2

    x = jnp.asarray(_A.astype(BF16))
    out = minijax.jit(f)(x, jnp.float32(1.5))
    assert out.dtype == np.float32 and float(out) == 3.0


@pytest.mark.parametrize("dtype", [BF16, np.dtype(np.float16)])
def test_low_precision_triangular_solve_and_det_compute(dtype):
    # JAX 0.10.2 computes these (XLA's own triangular_solve; closed-form 2x2 determinant),
    # in the operand dtype (case s5034-314)
    a = np.array([[2.0, 0.0], [1.0, 4.0]], dtype)
    b = np.array([[2.0], [5.0]], dtype)
    x = lax.linalg.triangular_solve(a, b, left_side=True, lower=True)
    assert x.dtype == dtype
    np.testing.assert_allclose(np.asarray(x, np.float32), [[1.0], [1.0]])
    d = jnp.linalg.det(jnp.asarray(_A.astype(dtype)))
    assert d.dtype == dtype and float(d) == 11.0
    sign, logdet = jnp.linalg.slogdet(jnp.asarray(_A.astype(dtype)))
    assert sign.dtype == dtype and float(sign) == 1.0
    np.testing.assert_allclose(float(logdet), np.log(11.0), rtol=1e-2)


def test_grad_of_jit_does_not_compute_residuals_of_dead_equations():
    # JAX 0.10.2 (case s5048-14): grad(jit(f)) with an unused bf16 solve gives zeros; the
    # residuals (LU factors) only the dead tangent equations read are not computed
    def f(a, y):
        jnp.linalg.solve(a, a)
        return jnp.sin(y)

    a = jnp.asarray(np.array([[2.0, 0.0], [1.0, 4.0]], BF16))
    g = minijax.grad(minijax.jit(f))(a, 1.0)
    assert g.dtype == BF16
    np.testing.assert_array_equal(np.asarray(g, np.float32), np.zeros((2, 2)))
    with pytest.raises(NotImplementedError):  # eagerly, every operation runs (JAX alike)
        minijax.grad(f)(a, 1.0)


def test_empty_boolean_mask_axis_matches_any_axis():
    # JAX 0.10.2 (case s5001-18): a mask axis of length 0 selects nothing from any axis
    a = jnp.arange(3.0)
    assert a[np.zeros(0, bool)].shape == (0,)
    b = jnp.arange(6.0).reshape(2, 3)
    assert b[np.zeros(0, bool)].shape == (0, 3)
    assert b[np.zeros((2, 0), bool)].shape == (0,)
    assert b[np.zeros((0, 3), bool)].shape == (0,)
    with pytest.raises(IndexError):
        a[np.ones(2, bool)]


def test_scatter_into_an_empty_slice_returns_the_operand():
    # JAX 0.10.2's _scatter_impl returns x when the indexed slice is empty: no broadcast check,
    # no scatter (cases s5038-339: scatter_mul's update derivative; s5052-78: bool add)
    x = jnp.zeros((3, 0))
    idx = np.array([0, 0, 2])
    g = minijax.grad(lambda u: x.at[idx].mul(u).sum())(2.0)
    assert float(g) == 0.0
    assert x.at[idx].set(jnp.ones(5)).shape == (3, 0)
    m = jnp.zeros((2, 0), bool)
    out = m.at[np.array([1, 0])].add(True, mode="clip")
    assert out.dtype == np.bool_ and out.shape == (2, 0)


def test_vmap_of_empty_conv_inside_shard_map_varies():
    # JAX 0.10.2 (case s5057-22): f32[0,2,2] from vmapped jnp.convolve over an empty batch;
    # the harness's mesh has an Auto axis (on make_mesh's Explicit one, JAX refuses in_specs
    # P("d") for the unsplit v)
    mesh = minijax.make_mesh((1,), ("d",), axis_types=(minijax.sharding.AxisType.Auto,))
    P = minijax.sharding.PartitionSpec

    def body(a, v):
        return lax.psum(minijax.vmap(lambda r: jnp.convolve(r, v, mode="valid"))(a), "d")

    a = jnp.zeros((0, 4), jnp.float32)
    v = jnp.ones(2, jnp.float32)
    out = minijax.shard_map(body, mesh=mesh, in_specs=(P(), P("d")), out_specs=P())(a, v)
    assert out.shape == (0, 3) and out.dtype == np.float32


def test_jacfwd_of_a_jvp_with_an_integer_output():
    # JAX 0.10.2 (case s5050-169): the int output's block is weak int32 zeros, its float0
    # tangent's block float0 of shape out + in
    f = lambda x: jnp.where(x > 0, 1, 2)
    (y, t) = minijax.jacfwd(lambda x: minijax.jvp(f, (x,), (x,)))(jnp.ones(2))
    assert y.dtype == np.int32 and y.shape == (2, 2) and y.weak_type
    np.testing.assert_array_equal(np.asarray(y), np.zeros((2, 2)))
    assert t.dtype == minijax.dtypes.float0 and t.shape == (2, 2)


def test_vmap_over_an_empty_batch_checks_only_the_batched_operation():
    # JAX 0.10.2 (case s5035-62): f32[0,4]; an example would index an empty axis (unbatched,
    # JAX's TypeError "Slice size at index 0 in gather op is out of range"), but none exists
    x = jnp.zeros((0, 0))
    i = jnp.zeros((4, 0), jnp.int32)
    out = minijax.vmap(lambda a, k: a[k], (-1, -1))(x, i)
    assert out.shape == (0, 4) and out.dtype == np.float32
    with pytest.raises(TypeError, match="Slice size at index 0 in gather op is out of range"):
        jnp.zeros((0,))[jnp.zeros(4, jnp.int32)]


def test_same_rank_incompatible_shapes_are_the_lax_ops_type_error():
    # JAX 0.10.2 (case s5051-9): jnp leaves one-rank operands to lax, "TypeError: add got
    # incompatible shapes for broadcasting: (0,), (5,)."; different ranks: ValueError
    with pytest.raises(TypeError, match="add got incompatible shapes for broadcasting"):
        jnp.zeros(0, jnp.float16) + jnp.ones(5)
    with pytest.raises(TypeError, match="incompatible shapes for broadcasting"):
        jnp.multiply(jnp.ones(2), jnp.ones(5))
    with pytest.raises(ValueError, match="Incompatible shapes for broadcasting"):
        jnp.ones((2, 3)) * jnp.ones((4, 1, 2))
    np.testing.assert_array_equal(jnp.ones((1, 3)) + jnp.ones((2, 1)), np.full((2, 3), 2.0))


def test_matmul_contracting_mismatch_is_dot_generals_type_error():
    # JAX 0.10.2 (case s5031-336): "TypeError: dot_general requires contracting dimensions to
    # have the same shape, got (2,) and (1,)."
    for a, b, got in [((1, 2), (1, 1), "(2,) and (1,)"), ((3,), (2, 3), "(3,) and (2,)")]:
        with pytest.raises(TypeError) as info:
            jnp.ones(a) @ jnp.ones(b)
        assert str(info.value) == ("dot_general requires contracting dimensions to have the "
                                   f"same shape, got {got}.")


def test_verifier_errors_are_jaxs_value_error():
    # JAX 0.10.2 (case s5044-82): a conv over a zero-size window fails the StableHLO verifier:
    # "ValueError: Cannot lower jaxpr with verifier errors:" (not XLA's compile error)
    x = jnp.zeros((0, 2, 0), jnp.bfloat16)
    f = minijax.jit(lambda x: lax.conv_general_dilated(x, x, window_strides=(1,),
                                                       padding="VALID"))
    with pytest.raises(ValueError, match="Cannot lower jaxpr with verifier errors:"):
        f(x)
