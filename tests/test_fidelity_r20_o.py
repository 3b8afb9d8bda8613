"""Run 24000, helper o: derivatives of `.at[idx].min/max(..., mode='clip')` with out-of-range
array indices (s24019-129, s24030-233, s24039-65, s24042-169; triage_24000_o.md).

All four are FINDINGS 118's class, where JAX 0.10.2 is wrong: its `_scatter_extremal_jvp`
counts the winning updates with fill/drop `scatter_add`s, which drop the indices that the
primitive's CLIP mode would have clamped. minijax differentiates the clamped program. Each
expected value is JAX 0.10.2's own answer (/work/venv_jax, CPU) for the same program with the
indices already clamped (in range), where its rule is right; the central differences agree.
"""
import ml_dtypes
import numpy as np

import minijax as jax
import minijax.numpy as jnp


def test_scatter_min_nan_update_clip_jacrev_is_zero_at_clamped_rows():
    # s24019-129: uint8 [5, 1, 4] clamp to [3, 1, 3]; min with NaN makes outputs 1 and 3 the
    # constant NaN. JAX 0.10.2: diag [1, 0, 1, 1] (the clamped row's cotangent passes
    # through); with the indices [3, 1, 3]: [1, 0, 1, 0].
    x = jnp.asarray(np.array([-1.640625, 2.96875, -0.036376953125, 8.4375], ml_dtypes.bfloat16))
    idx = np.array([5, 1, 4], np.uint8)
    jac = jax.jacrev(lambda a: a.at[idx].min(float('nan'), mode='clip'))(x)
    np.testing.assert_array_equal(np.asarray(jac, np.float32), np.diag([1., 0., 1., 0.]))


def test_scatter_max_clip_grad_of_update_counts_clamped_winners():
    # s24030-233: int32 [3, -1, 1] all land on row 1, where the update u wins three times.
    # JAX 0.10.2: 5.85 (it counts two winners and gives each ct/2); with [1, 1, 1]: 3.9, the
    # central difference (3.9000034).
    t = jnp.asarray(np.array([[[0.47463304, -0.06920694, 0.21972555]],
                              [[-0.44562683, 0.06293067, 0.8296846]]], np.float32))
    w = np.linspace(0.5, 1.5, 6).reshape(2, 1, 3).astype(np.float32)
    idx = np.array([3, -1, 1], np.int32)
    g = jax.grad(lambda u: jnp.sum(t.at[idx].max(u, mode='clip') * w))(np.float32(1.6403079))
    assert float(g) == np.float32(3.9)


def test_scatter_min_clip_jacfwd_has_no_nan_at_clamped_row():
    # s24039-65: uint8 [0, 0, 2] on 2 rows; 2 clamps to row 1, where -1.5 wins everywhere.
    # JAX 0.10.2: the Jacobian's 9 entries of row 1 are NaN (0 * inf); with [0, 0, 1]: 0.
    x = jnp.asarray(np.array([[0.44777068, 0.9668754, 0.35047972],
                              [0.07963668, 0.6084622, 3.4028235e38]], np.float32))
    idx = np.array([0, 0, 2], np.uint8)
    jac = jax.jacfwd(lambda a: a.at[0].mul(-1.5).at[idx].min(-1.5, mode='clip'))(x)
    np.testing.assert_array_equal(np.asarray(jac), np.zeros((2, 3, 2, 3), np.float32))


def test_scatter_min_clip_negative_index_vjp_is_zero():
    # s24042-169: int8 -2 on a length-1 axis normalizes to -1 and clamps to 0, where -2 wins.
    # JAX 0.10.2: the cotangent 0.5 passes into the sum's inputs ([0, .5, .5]); with index 0:
    # [0, 0, 0].
    x = jnp.asarray(np.array([[-0.39994985, 4.2e-45, -0.99508703]], np.float32))
    mask = np.array([[False, True, True]])
    f = lambda a: jnp.sum(jnp.where(mask, a, 2), keepdims=True, axis=None).at[np.int8(-2)].min(
        np.float32(-2.0), mode='clip')
    out, pullback = jax.vjp(f, x)
    np.testing.assert_array_equal(np.asarray(out), [[-2.0]])
    np.testing.assert_array_equal(np.asarray(pullback(jnp.full((1, 1), 0.5))[0]), [[0, 0, 0]])
