"""``nn.initializers``: shapes, dtypes, fans, statistics at a fixed seed, orthogonality,
determinism."""

import math

import ml_dtypes
import numpy as np
import pytest

import minijax
from minijax import random
from minijax.nn import initializers as init
from minijax.nn.initializers import _compute_fans

KEY = random.key(0)

# name, factory, (scale, mode, distribution) of the variance-scaling family
FAMILY = [
    ("glorot_uniform", init.glorot_uniform, 1.0, "fan_avg", "uniform"),
    ("glorot_normal", init.glorot_normal, 1.0, "fan_avg", "truncated_normal"),
    ("xavier_uniform", init.xavier_uniform, 1.0, "fan_avg", "uniform"),
    ("xavier_normal", init.xavier_normal, 1.0, "fan_avg", "truncated_normal"),
    ("lecun_uniform", init.lecun_uniform, 1.0, "fan_in", "uniform"),
    ("lecun_normal", init.lecun_normal, 1.0, "fan_in", "truncated_normal"),
    ("he_uniform", init.he_uniform, 2.0, "fan_in", "uniform"),
    ("he_normal", init.he_normal, 2.0, "fan_in", "truncated_normal"),
    ("kaiming_uniform", init.kaiming_uniform, 2.0, "fan_in", "uniform"),
    ("kaiming_normal", init.kaiming_normal, 2.0, "fan_in", "truncated_normal"),
]


def _std_tol(n):
    """Five standard errors of a sample standard deviation (relative) from n samples (the
    fourth moment of the uniform/truncated normal is below the normal's 3 sigma^4)."""
    return 5 * math.sqrt(2 / n)


def test_compute_fans():
    assert _compute_fans((3, 5)) == (3, 5)
    assert _compute_fans((3, 3, 16, 32)) == (144, 288)  # conv HWIO: receptive field 9
    assert _compute_fans((4, 6, 8), in_axis=1, out_axis=2, batch_axis=0) == (6, 8)
    assert _compute_fans((2, 3, 4, 5), in_axis=(0, 1), out_axis=-1) == (24, 20)
    with pytest.raises(ValueError, match="at least 2D"):
        _compute_fans((5,))


@pytest.mark.parametrize("name,factory,scale,mode,dist", FAMILY, ids=[f[0] for f in FAMILY])
@pytest.mark.parametrize("shape", [(256, 128), (3, 3, 32, 64)])
def test_variance_scaling_family_statistics(name, factory, scale, mode, dist, shape):
    w = np.asarray(factory()(KEY, shape), np.float64)
    assert w.shape == shape and w.dtype == np.float64
    fan_in, fan_out = _compute_fans(shape)
    n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[mode]
    std = math.sqrt(scale / n)
    assert abs(w.std() / std - 1) < _std_tol(w.size)
    assert abs(w.mean()) < 5 * std / math.sqrt(w.size)
    if dist == "uniform":
        assert np.abs(w).max() <= math.sqrt(3) * std * (1 + 1e-6)
    else:
        assert np.abs(w).max() <= 2 * std / 0.87962566103423978 * (1 + 1e-6)


@pytest.mark.parametrize("mode", ["fan_in", "fan_out", "fan_avg"])
@pytest.mark.parametrize("dist", ["normal", "uniform", "truncated_normal"])
def test_variance_scaling_modes_and_axes(mode, dist):
    shape = (8, 64, 32)  # batch axis 0, in 1, out 2 -> fans 64 / 32
    w = np.asarray(init.variance_scaling(0.5, mode, dist, in_axis=1, out_axis=2,
                                         batch_axis=0)(KEY, shape))
    n = {"fan_in": 64, "fan_out": 32, "fan_avg": 48}[mode]
    assert abs(w.std() / math.sqrt(0.5 / n) - 1) < _std_tol(w.size)


def test_variance_scaling_rejects_bad_arguments():
    with pytest.raises(ValueError, match="invalid mode"):
        init.variance_scaling(1.0, "fan_sum", "normal")
    with pytest.raises(ValueError, match="invalid distribution"):
        init.variance_scaling(1.0, "fan_in", "cauchy")


def test_complex_variance_scaling():
    for dist in ("normal", "uniform", "truncated_normal"):
        w = np.asarray(init.variance_scaling(1.0, "fan_in", dist)(KEY, (200, 100),
                                                                  np.complex64))
        assert w.dtype == np.complex64
        # E|w|^2 = scale / fan_in
        assert abs(np.mean(np.abs(w) ** 2) * 200 - 1) < 0.05


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16])
def test_simple_initializers(dtype):
    shape = (64, 64)
    assert np.all(np.asarray(init.zeros(KEY, shape, dtype)) == 0)
    assert np.all(np.asarray(init.ones(KEY, shape, dtype)) == 1)
    c = init.constant(-3.5, dtype)(KEY, shape)
    assert c.dtype == np.dtype(dtype) and np.all(np.asarray(c, np.float32) == -3.5)
    u = np.asarray(init.uniform(0.5, dtype)(KEY, shape), np.float32)
    assert u.min() >= 0 and u.max() < 0.5 and abs(u.mean() - 0.25) < 0.01
    n = np.asarray(init.normal(2.0, dtype)(KEY, shape), np.float32)
    assert abs(n.std() / 2.0 - 1) < _std_tol(n.size) + 1e-2
    t = np.asarray(init.truncated_normal(2.0, dtype)(KEY, shape), np.float32)
    assert np.abs(t).max() <= 4.0 + 1e-2
    assert abs(t.std() / (2.0 * 0.87962566103423978) - 1) < _std_tol(t.size) + 1e-2
    for f in (init.uniform(dtype=dtype), init.normal(dtype=dtype), init.glorot_normal(dtype=dtype)):
        assert f(KEY, shape).dtype == np.dtype(dtype)


def test_default_dtype_and_override():
    assert init.normal()(KEY, (3, 4)).dtype == np.float32
    assert init.he_normal()(KEY, (3, 4), np.float16).dtype == np.float16
    assert init.zeros(KEY, (2, 3)).dtype == np.float32


def test_determinism_and_key_sensitivity():
    for factory in (init.normal(), init.uniform(), init.glorot_uniform(), init.he_normal(),
                    init.orthogonal()):
        a, b = factory(KEY, (6, 5)), factory(random.key(0), (6, 5))
        c = factory(random.key(1), (6, 5))
        np.testing.assert_array_equal(a, b)
        assert not np.array_equal(np.asarray(a), np.asarray(c))
    raw = init.lecun_normal()(random.PRNGKey(0), (6, 5))
    np.testing.assert_array_equal(raw, init.lecun_normal()(KEY, (6, 5)))


def test_matches_the_underlying_samplers():
    """The values are exactly scaled samples of minijax.random (JAX's bits)."""
    w = init.normal(0.3)(KEY, (4, 5))
    np.testing.assert_allclose(w, np.asarray(random.normal(KEY, (4, 5))) * np.float32(0.3))
    w = init.lecun_uniform()(KEY, (4, 5))
    expected = np.asarray(random.uniform(KEY, (4, 5), np.float32, -1)) * np.float32(
        math.sqrt(3 / 4))
    np.testing.assert_allclose(w, expected, rtol=1e-6)


@pytest.mark.parametrize("shape", [(8, 8), (10, 4), (4, 10), (3, 5, 6)])
def test_orthogonal(shape):
    w = np.asarray(init.orthogonal(scale=2.0)(KEY, shape), np.float64)
    assert w.shape == shape
    m = w.reshape(-1, shape[-1])
    small = min(m.shape)
    gram = m.T @ m if m.shape[0] >= m.shape[1] else m @ m.T
    np.testing.assert_allclose(gram, 4.0 * np.eye(small), atol=1e-4)


def test_orthogonal_column_axis():
    w = np.asarray(init.orthogonal(column_axis=0)(KEY, (4, 3, 5)), np.float64)
    m = np.moveaxis(w, 0, -1).reshape(-1, 4)  # 15 x 4: orthonormal columns
    np.testing.assert_allclose(m.T @ m, np.eye(4), atol=1e-5)
    with pytest.raises(ValueError, match="2D"):
        init.orthogonal()(KEY, (5,))


@pytest.mark.parametrize("shape", [(3, 4, 6), (3, 3, 4, 4), (3, 2, 3, 4, 5)])
def test_delta_orthogonal(shape):
    w = np.asarray(init.delta_orthogonal()(KEY, shape), np.float64)
    assert w.shape == shape
    centre = tuple((k - 1) // 2 for k in shape[:-2])
    m = w[centre]
    np.testing.assert_allclose(m @ m.T, np.eye(shape[-2]), atol=1e-5)
    rest = w.copy()
    rest[centre] = 0
    assert np.all(rest == 0)
    with pytest.raises(ValueError, match="3D, 4D or 5D"):
        init.delta_orthogonal()(KEY, (4, 4))
    with pytest.raises(ValueError, match="fan_in"):
        init.delta_orthogonal()(KEY, (3, 5, 4))


def test_under_jit_and_vmap():
    f = init.glorot_normal()
    np.testing.assert_allclose(minijax.jit(lambda k: f(k, (5, 7)))(KEY), f(KEY, (5, 7)),
                               rtol=1e-6, atol=1e-7)
    keys = random.split(KEY, 3)
    batched = minijax.vmap(lambda k: f(k, (5, 7)))(keys)
    np.testing.assert_allclose(batched, np.stack([np.asarray(f(k, (5, 7))) for k in keys]),
                               rtol=1e-6, atol=1e-7)


def test_module_surface():
    assert minijax.nn.initializers is init
    for name in init.__all__:
        assert hasattr(init, name)
