"""Smaller JAX names the ecosystem libraries use: lax.dtype / pswapaxes /
conv_general_dilated_patches / conv_general_dilated_local, nn.identity / sparse_plus /
sparse_sigmoid, jnp.bool / load / save, tree_util.KeyPath, experimental.io_callback,
experimental.multihost_utils (one process) and checkify's check_error / debug_check /
init_error. References: NumPy loops, finite differences and JAX's documented values."""

import io

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import lax, nn
from minijax.experimental import checkify, io_callback, multihost_utils
from minijax.test_util import check_grads

RNG = np.random.RandomState(0)


# ------------------------------------------------------------------------------------------------
# lax


def test_lax_dtype():
    assert lax.dtype(1.0) == np.float32 and lax.dtype(1) == np.int32
    assert lax.dtype(True) == np.bool_ and lax.dtype(float) == np.float32
    assert lax.dtype(np.float64) == np.float32  # canonicalized, x64 off
    assert lax.dtype("int16") == np.int16
    assert lax.dtype(jnp.ones(2, jnp.bfloat16)) == jnp.bfloat16
    assert lax.dtype(np.zeros(2)) == np.float32
    with pytest.raises(ValueError):
        lax.dtype(None)


def _patches_reference(x, fh, fw):
    """NCHW 'VALID' patches, feature c * fh * fw + (i * fw + j)."""
    n, c, h, w = x.shape
    out = np.zeros((n, c * fh * fw, h - fh + 1, w - fw + 1), x.dtype)
    for ci in range(c):
        for i in range(fh):
            for j in range(fw):
                out[:, ci * fh * fw + i * fw + j] = x[:, ci, i:i + h - fh + 1, j:j + w - fw + 1]
    return out


def test_conv_general_dilated_patches_and_local():
    x = RNG.randn(2, 3, 5, 4).astype(np.float32)
    patches = lax.conv_general_dilated_patches(x, (2, 2), (1, 1), "VALID",
                                               precision=lax.Precision.HIGHEST)
    np.testing.assert_allclose(patches, _patches_reference(x, 2, 2), rtol=1e-6)
    # a locally connected layer: output (o, y, x) = sum over its own kernel's patch
    rhs = RNG.randn(3 * 4, 4, 3, 6).astype(np.float32)  # (in * window, out_h, out_w, out)
    out = lax.conv_general_dilated_local(x, rhs, (1, 1), "VALID", (2, 2),
                                         dimension_numbers=("NCHW", "IHWO", "NCHW"),
                                         precision="highest")
    p = _patches_reference(x, 2, 2)
    want = np.einsum("nkhw,khwo->nohw", p, rhs)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
    check_grads(lambda a, b: lax.conv_general_dilated_local(
        a, b, (1, 1), "VALID", (2, 2), dimension_numbers=("NCHW", "IHWO", "NCHW"),
        precision="highest"), (x, rhs), order=1, modes=["rev"], atol=2e-2, rtol=2e-2)


@pytest.mark.devices(4)
def test_pswapaxes_is_all_to_all_at_one_axis():
    x = np.arange(4 * 4 * 3, dtype=np.float32).reshape(4, 4, 3)
    out = minijax.pmap(lambda v: lax.pswapaxes(v, "i", 0), axis_name="i")(x)
    np.testing.assert_array_equal(out, np.swapaxes(x, 0, 1))


# ------------------------------------------------------------------------------------------------
# nn


def test_nn_identity_sparse_plus_sparse_sigmoid():
    x = np.array([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0], np.float32)
    np.testing.assert_array_equal(nn.identity(x), x)
    with pytest.raises(TypeError):
        nn.identity([1.0, 2.0])
    want_plus = np.where(x <= -1, 0.0, np.where(x >= 1, x, (x + 1) ** 2 / 4))
    np.testing.assert_allclose(nn.sparse_plus(x), want_plus, rtol=1e-6)
    np.testing.assert_allclose(nn.sparse_sigmoid(x), np.clip((x + 1) / 2, 0, 1), rtol=1e-6)
    # sparse_sigmoid is sparse_plus' derivative (away from the kinks)
    g = minijax.vmap(minijax.grad(nn.sparse_plus))(jnp.array([-1.5, -0.3, 0.4, 1.5]))
    np.testing.assert_allclose(g, nn.sparse_sigmoid(jnp.array([-1.5, -0.3, 0.4, 1.5])),
                               rtol=1e-6)
    assert nn.sparse_plus(jnp.arange(3)).dtype == np.float32


# ------------------------------------------------------------------------------------------------
# numpy


def test_jnp_bool_save_load(tmp_path):
    assert jnp.bool is jnp.bool_
    assert jnp.zeros(2, jnp.bool).dtype == np.bool_
    for x in (jnp.array([2, 4, 6], dtype=jnp.bfloat16), jnp.arange(5, dtype=jnp.int16)):
        f = io.BytesIO()
        jnp.save(f, x)
        f.seek(0)
        y = jnp.load(f)
        assert isinstance(y, minijax.Array) and y.dtype == x.dtype
        np.testing.assert_array_equal(y, x)
    path = tmp_path / "a.npy"
    jnp.save(path, jnp.ones((2, 2)))
    np.testing.assert_array_equal(np.load(path), np.ones((2, 2)))


def test_tree_util_keypath():
    from minijax import tree_util

    leaves = tree_util.tree_flatten_with_path({"a": [1, 2]})[0]
    path, _ = leaves[0]
    assert isinstance(path, tuple)
    assert tree_util.KeyPath == tuple[tree_util.KeyEntry, ...]


# ------------------------------------------------------------------------------------------------
# io_callback


def test_io_callback_runs_once_per_call_in_order():
    seen = []

    def cb(x):
        seen.append(np.asarray(x).copy())
        return (2 * np.asarray(x)).astype(np.float32)

    spec = minijax.ShapeDtypeStruct((3,), np.float32)
    np.testing.assert_array_equal(io_callback(cb, spec, jnp.ones(3)), 2 * np.ones(3))

    @minijax.jit
    def f(x):
        io_callback(cb, spec, x, ordered=True)  # result unused: still runs
        return io_callback(cb, spec, x + 1, ordered=True)

    np.testing.assert_array_equal(f(jnp.zeros(3)), 2 * np.ones(3))
    np.testing.assert_array_equal(np.stack(seen[1:]), [[0, 0, 0], [1, 1, 1]])
    out = minijax.vmap(lambda x: io_callback(cb, spec, x))(jnp.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(out, 2 * np.arange(6.0).reshape(2, 3))
    with pytest.raises(ValueError, match="ordered"):
        minijax.vmap(lambda x: io_callback(cb, spec, x, ordered=True))(jnp.ones((2, 3)))
    with pytest.raises(ValueError, match="JVP"):
        minijax.grad(lambda x: io_callback(cb, minijax.ShapeDtypeStruct((), np.float32),
                                           x))(1.0)


# ------------------------------------------------------------------------------------------------
# multihost_utils (one process)


def test_multihost_utils_single_process():
    multihost_utils.sync_global_devices("step")
    tree = {"a": jnp.arange(3), "b": 2.0}
    g = multihost_utils.process_allgather(tree)
    assert isinstance(g["a"], np.ndarray) and g["a"].shape == (1, 3) and g["b"].shape == (1,)
    assert multihost_utils.process_allgather(tree, tiled=True)["a"].shape == (3,)
    b = multihost_utils.broadcast_one_to_all(tree)
    np.testing.assert_array_equal(b["a"], [0, 1, 2])
    multihost_utils.assert_equal(tree)
    assert multihost_utils.reached_preemption_sync_point(0) is False


# ------------------------------------------------------------------------------------------------
# checkify


def _positive(x):
    checkify.debug_check(x > 0, "x must be positive, got {}", x)
    return 2 * x


def test_debug_check_only_under_checkify():
    assert _positive(-1.0) == -2.0  # dropped eagerly
    assert minijax.jit(_positive)(-1.0) == -2.0  # and under a plain jit
    err, out = checkify.checkify(_positive)(-1.0)
    assert err.get() == "x must be positive, got -1.0 (`check` failed)" and out == -2.0
    assert minijax.jit(checkify.checkify(_positive))(1.0)[0].get() is None


def test_check_error_raises_and_refunctionalizes():
    assert checkify.init_error.get() is None
    checkify.check_error(checkify.init_error)
    err, _ = checkify.checkify(_positive)(-3.0)
    with pytest.raises(checkify.JaxRuntimeError, match="got -3.0"):
        checkify.check_error(err)

    def outer(x):
        e, y = checkify.checkify(_positive)(x)
        checkify.check_error(e)
        return y + 1

    assert (minijax.jit(checkify.checkify(outer))(-4.0)[0].get()
            == "x must be positive, got -4.0 (`check` failed)")
    assert checkify.checkify(outer)(4.0)[0].get() is None
    with pytest.raises(ValueError, match="functionalized"):
        minijax.jit(outer)(1.0)

    def nan_outer(x):
        e, y = checkify.checkify(jnp.log, errors=checkify.nan_checks)(x)
        checkify.check_error(e)
        return y

    assert "nan generated by primitive: log" in checkify.checkify(nan_outer)(-1.0)[0].get()
    with pytest.raises(TypeError):
        checkify.check_error("no")
    assert checkify.ErrorCategory is str and "user" in checkify.user_checks


def test_top_level_named_sharding():
    from minijax.sharding import NamedSharding

    assert minijax.NamedSharding is NamedSharding
    mesh = minijax.make_mesh((1,), ("x",))
    x = minijax.device_put(jnp.ones(4), minijax.NamedSharding(mesh, minijax.P("x")))
    np.testing.assert_array_equal(x, np.ones(4))
