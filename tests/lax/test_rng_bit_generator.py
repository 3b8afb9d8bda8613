"""``lax.rng_bit_generator``: shapes, dtypes, determinism, uniformity, jit, vmap, grad."""

import numpy as np
import pytest

import minijax
from minijax import lax

KEY = np.array([1, 2, 3, 4], np.uint32)
ALGS = list(lax.RandomAlgorithm)


@pytest.mark.parametrize("alg", ALGS)
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32])
def test_shapes_and_dtypes(alg, dtype):
    new_key, bits = lax.rng_bit_generator(KEY, (3, 5), dtype=dtype, algorithm=alg)
    assert new_key.shape == (4,) and new_key.dtype == np.uint32
    assert bits.shape == (3, 5) and bits.dtype == np.dtype(dtype)
    assert not np.array_equal(np.asarray(new_key), KEY)


def test_scalar_and_empty_shapes():
    assert lax.rng_bit_generator(KEY, ())[1].shape == ()
    assert lax.rng_bit_generator(KEY, (0, 3))[1].shape == (0, 3)


@pytest.mark.parametrize("alg", ALGS)
def test_deterministic_and_key_sensitive(alg):
    _, a = lax.rng_bit_generator(KEY, (64,), algorithm=alg)
    _, b = lax.rng_bit_generator(KEY.copy(), (64,), algorithm=alg)
    _, c = lax.rng_bit_generator(KEY + 1, (64,), algorithm=alg)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(np.asarray(a), np.asarray(c))


@pytest.mark.parametrize("alg", ALGS)
def test_new_key_gives_new_bits(alg):
    k1, a = lax.rng_bit_generator(KEY, (64,), algorithm=alg)
    _, b = lax.rng_bit_generator(k1, (64,), algorithm=alg)
    assert not np.array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.parametrize("alg", ALGS)
def test_uniformity(alg):
    n = 1 << 16
    _, bits = lax.rng_bit_generator(KEY, (n,), algorithm=alg)
    u = np.asarray(bits).astype(np.float64) / 2.0**32
    # mean and variance of U(0, 1) within ~5 standard errors
    assert abs(u.mean() - 0.5) < 5 * np.sqrt(1 / 12 / n)
    assert abs(u.var() - 1 / 12) < 5 * np.sqrt(1 / 180 / n)
    # every bit is set about half of the time; 16 equal bins are about equally full
    b = np.asarray(bits)
    frac = np.array([((b >> i) & 1).mean() for i in range(32)])
    assert np.all(np.abs(frac - 0.5) < 5 * 0.5 / np.sqrt(n))
    counts = np.bincount(b >> 28, minlength=16)
    chi2 = ((counts - n / 16) ** 2 / (n / 16)).sum()
    assert chi2 < 50  # 15 degrees of freedom: P(chi2 > 50) ~ 1e-5


def test_jit_agrees_with_eager():
    f = lambda k: lax.rng_bit_generator(k, (4, 7), dtype=np.uint16,  # noqa: E731
                                        algorithm=lax.RandomAlgorithm.RNG_PHILOX)
    for x, y in zip(f(KEY), minijax.jit(f)(KEY)):
        np.testing.assert_array_equal(x, y)


def test_jaxpr_shows_the_primitive():
    jaxpr = minijax.make_jaxpr(lambda k: lax.rng_bit_generator(k, (2,)))(KEY)
    assert [e.primitive.name for e in jaxpr.eqns] == ["rng_bit_generator"]


@pytest.mark.parametrize("in_axes", [0, 1])
def test_vmap_draws_from_the_first_key(in_axes):
    # JAX 0.10.2's batching rule: one (batch, *shape) block from the first key, which alone
    # advances; the other keys come back unchanged
    keys = np.arange(12, dtype=np.uint32).reshape(3, 4)
    f = lambda k: lax.rng_bit_generator(k, (2, 3), algorithm=lax.RandomAlgorithm.RNG_THREE_FRY)  # noqa: E731,E501
    arg = keys if in_axes == 0 else keys.T
    new_keys, bits = minijax.vmap(f, in_axes=in_axes)(arg)
    first_key, block = lax.rng_bit_generator(keys[0], (3, 2, 3),
                                             algorithm=lax.RandomAlgorithm.RNG_THREE_FRY)
    np.testing.assert_array_equal(new_keys, np.concatenate([np.asarray(first_key)[None],
                                                            keys[1:]]))
    np.testing.assert_array_equal(bits, block)
    jitted = minijax.jit(minijax.vmap(f, in_axes=in_axes))(arg)
    np.testing.assert_array_equal(jitted[1], bits)


def test_vmap_unmapped_key_inside_other_batch():
    f = lambda k, x: (lax.rng_bit_generator(k, (2,))[1], x)  # noqa: E731
    bits, _ = minijax.vmap(f, in_axes=(None, 0))(KEY, np.arange(3.0))
    expected = np.asarray(lax.rng_bit_generator(KEY, (2,))[1])
    np.testing.assert_array_equal(bits, np.broadcast_to(expected, (3, 2)))


def test_grad_of_a_function_using_bits_is_zero_through_key():
    def f(x):
        _, bits = lax.rng_bit_generator(KEY, (3,))
        return (x * lax.convert_element_type(bits, np.float32) / 2.0**32).sum()

    g = minijax.grad(f)(np.ones(3, np.float32))
    _, bits = lax.rng_bit_generator(KEY, (3,))
    np.testing.assert_allclose(g, np.asarray(bits, np.float32) / 2.0**32, rtol=1e-6)
    jvp_out = minijax.jvp(lambda k: lax.rng_bit_generator(k, (3,))[1], (KEY,),
                          (np.zeros(4, minijax.dtypes.float0),))
    assert jvp_out[1].shape == (3,)


def test_bad_key_and_dtype():
    with pytest.raises(TypeError, match="uint32\\[4\\]"):
        lax.rng_bit_generator(np.zeros(2, np.uint32), (3,))
    with pytest.raises(TypeError, match="unsigned"):
        lax.rng_bit_generator(KEY, (3,), dtype=np.int32)
