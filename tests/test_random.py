"""minijax.random: JAX's threefry PRNG bit for bit, samplers' statistics, jit/vmap agreement
and errors.

Known answers come from JAX itself (``tests/data/jax_prng_vectors.json``, made with jax 0.10.2)
and from the Random123 threefry2x32-20 test vectors; statistics are checked against NumPy/SciPy
distributions with bounds that a correct sampler fails with probability well under 1e-4 (the
seeds are fixed, so the tests are deterministic).
"""

import json
import os

import numpy as np
import pytest
import scipy.stats

import minijax
import minijax.numpy as jnp
from minijax import random

# A copy of shared/data/jax_prng_vectors.json, kept in the repository so a clean clone tests.
_VECTORS = os.path.join(os.path.dirname(__file__), "data", "jax_prng_vectors.json")
with open(_VECTORS) as f:
    CASES = json.load(f)["cases"]

ENV = dict(random=random, PRNGKey=random.PRNGKey, split=random.split, jnp=jnp,
           uint32=np.uint32, uint8=np.uint8)


def expected(case):
    if case["value_is_float32_bits"]:
        return np.array(case["value"], dtype=np.uint32).view(np.float32)
    return np.array(case["value"], dtype=case["dtype"])


# JAX's vectors were made on its CPU backend. On a GPU, XLA's transcendental functions (log,
# erf_inv) and its FMA contraction round differently by a few ulps (JAX's own GPU samples
# differ from its CPU ones the same way), so there floats are compared to a few ulps; bits,
# keys and integers are exact on every backend.
ON_CPU = minijax.default_backend() == "cpu"


def assert_bits_equal(got, want):
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
    if not ON_CPU and np.issubdtype(want.dtype, np.floating):
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-5)
        return
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


def assert_same_floats(got, want):
    """Exact on CPU (same program, same rounding); a few ulps elsewhere (see above)."""
    if ON_CPU:
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-5)


def A(x):
    return np.asarray(x)


# ------------------------------------------------------------------------------------------------
# Known answers


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_jax_vectors_eager(case):
    assert_bits_equal(eval(case["expr"], ENV), expected(case))


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_jax_vectors_jit(case):
    assert_bits_equal(minijax.jit(lambda: eval(case["expr"], ENV))(), expected(case))


def test_jax_vectors_with_traced_key():
    # The key as a jit argument (not a constant) and as a typed key.
    case = {c["name"]: c for c in CASES}
    f = minijax.jit(lambda k: random.normal(k, (10,)))
    assert_bits_equal(f(random.PRNGKey(0)), expected(case["normal0_10"]))
    g = minijax.jit(lambda k: random.uniform(k, (2, 3), minval=-2, maxval=3))
    assert_bits_equal(g(random.PRNGKey(1)), expected(case["uniform1_2x3"]))
    assert_bits_equal(random.randint(random.key(0), (10,), 0, 100), expected(case["randint0_10"]))
    seed = minijax.jit(random.PRNGKey)(-1)
    assert_bits_equal(seed, expected(case["key_neg1"]))


# Random123's kat_vectors for threefry2x32_20: (key, counter) -> ciphertext.
R123 = [
    ((0, 0), (0, 0), (0x6B200159, 0x99BA4EFE)),
    ((0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF), (0x1CB996FC, 0xBB002BE7)),
    ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0)),
]


def test_threefry_random123_vectors():
    u = lambda *v: np.array(v, np.uint32)  # noqa: E731
    k1, k2 = (u(*[k[i] for k, _, _ in R123]) for i in (0, 1))
    x1, x2 = (u(*[c[i] for _, c, _ in R123]) for i in (0, 1))
    y1, y2 = random.threefry2x32_p.bind(k1, k2, x1, x2)
    np.testing.assert_array_equal(A(y1), [o[0] for _, _, o in R123])
    np.testing.assert_array_equal(A(y2), [o[1] for _, _, o in R123])


def test_threefry_broadcasts_and_batches():
    k = random.PRNGKey(7)
    x1 = np.arange(6, dtype=np.uint32).reshape(2, 3)
    x2 = np.arange(3, dtype=np.uint32) * np.uint32(1000)
    y1, y2 = random.threefry2x32_p.bind(k[0], k[1], x1, x2)
    assert y1.shape == y2.shape == (2, 3)
    for i in range(2):
        for j in range(3):
            z1, z2 = random.threefry2x32_p.bind(k[0], k[1], x1[i, j], x2[j])
            assert (int(z1), int(z2)) == (int(y1[i, j]), int(y2[i, j]))
    # vmap over the key words with an unbatched counter of higher rank
    keys = random.split(k, 3)
    f = lambda kk: random.threefry2x32_p.bind(kk[0], kk[1], x1, x2)  # noqa: E731
    b1, b2 = minijax.vmap(f)(keys)
    for i in range(3):
        r1, r2 = f(keys[i])
        np.testing.assert_array_equal(A(b1[i]), A(r1))
        np.testing.assert_array_equal(A(b2[i]), A(r2))


def test_threefry_is_one_primitive_in_the_jaxpr():
    jaxpr = minijax.make_jaxpr(lambda k: random.bits(k, (4,)))(random.PRNGKey(0))
    names = [e.primitive.name for e in jaxpr.eqns]
    assert names.count("threefry2x32") == 1


def test_split_shape_and_fold_in_data_wraps():
    k = random.PRNGKey(3)
    assert random.split(k, (2, 3)).shape == (2, 3, 2)
    np.testing.assert_array_equal(A(random.split(k, (2, 3)).reshape(6, 2)), A(random.split(k, 6)))
    # an integer array wraps (JAX's asarray(data, uint32)); a Python -1 is NumPy's OverflowError
    np.testing.assert_array_equal(A(random.fold_in(k, np.int64(-1))), A(random.fold_in(k, 2**32 - 1)))
    np.testing.assert_array_equal(A(random.fold_in(k, jnp.int32(5))), A(random.fold_in(k, 5)))
    np.testing.assert_array_equal(A(random.PRNGKey(2**32 + 5)), [0, 5])  # x64 off: low word


# ------------------------------------------------------------------------------------------------
# Typed keys


def test_typed_keys_wrap_the_raw_data():
    k = random.key(42)
    assert k.shape == () and k.dtype.name == "key<fry>"
    np.testing.assert_array_equal(A(random.key_data(k)), A(random.PRNGKey(42)))
    ks = random.split(k, 5)
    assert ks.shape == (5,) and len(ks) == 5
    np.testing.assert_array_equal(A(random.key_data(ks)), A(random.split(random.PRNGKey(42), 5)))
    w = random.wrap_key_data(random.key_data(ks))
    np.testing.assert_array_equal(A(random.key_data(w[2])), A(random.key_data(ks[2])))
    raw = random.PRNGKey(42)
    for f in (lambda kk: random.normal(kk, (4,)), lambda kk: random.bits(kk, (3,)),
              lambda kk: random.permutation(kk, 6)):
        np.testing.assert_array_equal(A(f(k)), A(f(raw)))
    np.testing.assert_array_equal(A(random.key_data(random.fold_in(k, 9))),
                                  A(random.fold_in(raw, 9)))


def test_typed_keys_through_jit_and_vmap():
    ks = random.split(random.key(0), 4)
    out = minijax.jit(lambda kk: random.split(kk[1]))(ks)
    assert isinstance(out, random.PRNGKeyArray) and out.shape == (2,)
    np.testing.assert_array_equal(A(random.key_data(out)),
                                  A(random.key_data(random.split(ks[1]))))
    got = minijax.vmap(lambda kk: random.uniform(kk, (3,)))(ks)
    want = np.stack([A(random.uniform(kk, (3,))) for kk in ks])
    np.testing.assert_array_equal(A(got), want)
    sub = minijax.vmap(random.split)(ks)
    assert isinstance(sub, random.PRNGKeyArray) and sub.shape == (4, 2)


# ------------------------------------------------------------------------------------------------
# jit and vmap agree with eager


SAMPLERS = {
    "bits": lambda k: random.bits(k, (5,)),
    "uniform": lambda k: random.uniform(k, (2, 3), minval=-1.0, maxval=2.0),
    "normal": lambda k: random.normal(k, (3,)),
    "normal_c64": lambda k: random.normal(k, (3,), jnp.complex64),
    "truncated_normal": lambda k: random.truncated_normal(k, -0.5, 2.0, (4,)),
    "randint": lambda k: random.randint(k, (6,), -3, 9),
    "bernoulli": lambda k: random.bernoulli(k, 0.3, (6,)),
    "categorical": lambda k: random.categorical(k, jnp.array([[0.0, 1.0, -1.0], [2.0, 0, 0]])),
    "gumbel": lambda k: random.gumbel(k, (3,)),
    "exponential": lambda k: random.exponential(k, (3,)),
    "laplace": lambda k: random.laplace(k, (3,)),
    "permutation": lambda k: random.permutation(k, 7),
    "permutation_2d": lambda k: random.permutation(k, jnp.arange(12.0).reshape(3, 4), axis=1),
    "choice_p": lambda k: random.choice(k, 5, (4,), p=jnp.array([0.1, 0.2, 0.3, 0.2, 0.2])),
    "choice_arr": lambda k: random.choice(k, jnp.arange(10.0).reshape(5, 2), (3,)),
    "split": lambda k: random.split(k, 3),
    "fold_in": lambda k: random.fold_in(k, 11),
}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_jit_and_vmap_agree_with_eager(name):
    """Bits agree exactly everywhere. Floats agree exactly between compiled programs (eager
    calls run each sampler as one jitted program, as JAX does); eager vmap runs op by op, and
    XLA's CPU backend rounds ``a*b + c`` fused (FMA) and unfused differently, so there floats
    may differ by an ulp."""
    f = SAMPLERS[name]
    keys = random.split(random.PRNGKey(5), 3)
    eager = np.stack([A(f(k)) for k in keys])
    assert_same_floats(A(minijax.jit(f)(keys[0])), eager[0])
    assert_same_floats(A(minijax.jit(minijax.vmap(f))(keys)), eager)
    batched = A(minijax.vmap(f)(keys))
    if np.issubdtype(eager.dtype, np.inexact):
        np.testing.assert_allclose(batched, eager, rtol=1e-6, atol=1e-7)
    else:
        np.testing.assert_array_equal(batched, eager)


def test_vmap_over_parameters_and_nested():
    k = random.PRNGKey(0)
    mins = jnp.array([0.0, 10.0, 20.0])
    got = minijax.jit(minijax.vmap(lambda m: random.uniform(k, (2,), minval=m, maxval=m + 1)))(mins)
    want = np.stack([A(random.uniform(k, (2,), minval=m, maxval=m + 1)) for m in (0.0, 10.0, 20.0)])
    np.testing.assert_array_equal(A(got), want)
    keys = random.split(k, 6).reshape(2, 3, 2)
    nested = minijax.vmap(minijax.vmap(lambda kk: random.bits(kk, (2,))))(keys)
    flat = minijax.vmap(lambda kk: random.bits(kk, (2,)))(keys.reshape(6, 2))
    np.testing.assert_array_equal(A(nested).reshape(6, 2), A(flat))
    folded = minijax.vmap(random.fold_in, in_axes=(None, 0))(k, jnp.arange(3))
    np.testing.assert_array_equal(A(folded), np.stack([A(random.fold_in(k, i)) for i in range(3)]))


def test_gradients_flow_around_the_bits():
    k = random.PRNGKey(0)
    g = minijax.grad(lambda m: random.uniform(k, (), minval=m, maxval=m + 1.0))(0.5)
    assert float(g) == 1.0
    s = random.normal(k, (3,))
    g = minijax.grad(lambda a: (a * random.normal(k, (3,))).sum())(2.0)
    np.testing.assert_allclose(float(g), float(A(s).sum()), rtol=1e-6)


# ------------------------------------------------------------------------------------------------
# Statistics (fixed seeds: deterministic)

N = 20000


def ks_ok(sample, cdf):
    return scipy.stats.kstest(np.asarray(sample, np.float64).ravel(), cdf).pvalue > 1e-4


def test_uniform_statistics():
    x = A(random.uniform(random.PRNGKey(1), (N,), minval=-2.0, maxval=3.0))
    assert x.min() >= -2.0 and x.max() < 3.0
    assert ks_ok(x, scipy.stats.uniform(-2.0, 5.0).cdf)
    bf = A(random.uniform(random.PRNGKey(2), (1000,), jnp.bfloat16)).astype(np.float32)
    assert bf.min() >= 0 and bf.max() < 1 and abs(bf.mean() - 0.5) < 0.05
    h = A(random.uniform(random.PRNGKey(2), (1000,), jnp.float16)).astype(np.float32)
    assert h.min() >= 0 and h.max() < 1 and abs(h.mean() - 0.5) < 0.05


def test_normal_statistics():
    x = A(random.normal(random.PRNGKey(2), (N,)))
    assert abs(x.mean()) < 0.04 and abs(x.var() - 1) < 0.05 and np.isfinite(x).all()
    assert ks_ok(x, scipy.stats.norm.cdf)
    z = A(random.normal(random.PRNGKey(3), (N,), jnp.complex64))
    assert z.dtype == np.complex64
    assert abs(z.real.var() - 0.5) < 0.03 and abs(z.imag.var() - 0.5) < 0.03
    assert abs(np.corrcoef(z.real, z.imag)[0, 1]) < 0.04


def test_truncated_normal_statistics():
    x = A(random.truncated_normal(random.PRNGKey(3), -1.0, 2.0, (N,)))
    assert x.min() > -1.0 and x.max() < 2.0
    assert ks_ok(x, scipy.stats.truncnorm(-1.0, 2.0).cdf)
    b = A(random.truncated_normal(random.PRNGKey(4), jnp.array([0.0, -3.0]), 1.0))
    assert b.shape == (2,) and 0.0 < b[0] < 1.0 and -3.0 < b[1] < 1.0


def test_randint_range_and_uniformity():
    x = A(random.randint(random.PRNGKey(4), (N,), -3, 7))
    assert x.dtype == np.int32 and x.min() == -3 and x.max() == 6
    counts = np.bincount(x + 3, minlength=10)
    assert scipy.stats.chisquare(counts).pvalue > 1e-4
    u8 = A(random.randint(random.PRNGKey(5), (N,), 0, 256, jnp.uint8))  # maxval past uint8
    assert u8.dtype == np.uint8 and u8.min() == 0 and u8.max() == 255
    assert (A(random.randint(random.PRNGKey(5), (5,), 4, 4)) == 4).all()  # empty range: minval
    per_row = A(random.randint(random.PRNGKey(6), (3, 100), jnp.array([[0], [10], [20]]), 25))
    assert (per_row[0] < 25).all() and (per_row[1] >= 10).all() and (per_row[2] >= 20).all()


def test_bernoulli_and_categorical_frequencies():
    b = A(random.bernoulli(random.PRNGKey(6), 0.3, (N,)))
    assert b.dtype == np.bool_ and abs(b.mean() - 0.3) < 0.015
    p = np.array([0.1, 0.2, 0.7])
    c = A(random.categorical(random.PRNGKey(7), jnp.log(jnp.asarray(p)), shape=(N,)))
    assert scipy.stats.chisquare(np.bincount(c, minlength=3), N * p).pvalue > 1e-4
    logits = jnp.log(jnp.array([[0.5, 0.5, 0.0 + 1e-30], [0.0 + 1e-30, 0.2, 0.8]]))
    c2 = A(random.categorical(random.PRNGKey(8), logits, axis=1, shape=(5000, 2)))
    assert c2.shape == (5000, 2) and (c2[:, 0] != 2).all() and (c2[:, 1] != 0).all()
    nr = A(random.categorical(random.PRNGKey(8), jnp.zeros(6), shape=(6,), replace=False))
    assert sorted(nr.tolist()) == list(range(6))


def test_gumbel_exponential_laplace_statistics():
    g = A(random.gumbel(random.PRNGKey(9), (N,)))
    assert ks_ok(g, scipy.stats.gumbel_r.cdf)
    gh = A(random.gumbel(random.PRNGKey(9), (N,), mode="high"))
    assert ks_ok(gh, scipy.stats.gumbel_r.cdf)
    e = A(random.exponential(random.PRNGKey(10), (N,)))
    assert e.min() >= 0 and ks_ok(e, scipy.stats.expon.cdf)
    lap = A(random.laplace(random.PRNGKey(11), (N,)))
    assert ks_ok(lap, scipy.stats.laplace.cdf)
    lo = A(random.logistic(random.PRNGKey(12), (N,)))
    assert ks_ok(lo, scipy.stats.logistic.cdf)
    r = A(random.rademacher(random.PRNGKey(13), (1000,)))
    assert set(np.unique(r).tolist()) == {-1, 1}


def test_permutation_and_choice():
    for n in (1, 2, 10, 1000):
        assert sorted(A(random.permutation(random.PRNGKey(n), n)).tolist()) == list(range(n))
    x = np.arange(20.0).reshape(4, 5)
    rows = A(random.permutation(random.PRNGKey(1), x))
    assert sorted(rows[:, 0].tolist()) == [0, 5, 10, 15]
    np.testing.assert_array_equal(rows[:, 1:] - rows[:, :1], np.tile(np.arange(1, 5.0), (4, 1)))
    ind = A(random.permutation(random.PRNGKey(1), x, axis=1, independent=True))
    assert all(sorted(ind[i].tolist()) == x[i].tolist() for i in range(4))
    assert not hasattr(random, "shuffle")  # JAX 0.10.2 has none (removed after deprecation)
    # first-position frequencies of a permutation are uniform
    firsts = A(minijax.vmap(lambda k: random.permutation(k, 4)[0])(random.split(
        random.PRNGKey(3), 4000)))
    assert scipy.stats.chisquare(np.bincount(firsts, minlength=4)).pvalue > 1e-4
    c = A(random.choice(random.PRNGKey(4), 10, (7,), replace=False))
    assert len(set(c.tolist())) == 7 and c.min() >= 0 and c.max() < 10
    p = np.array([0.5, 0.0, 0.25, 0.25], np.float32)
    cp = A(random.choice(random.PRNGKey(5), 4, (N,), p=jnp.asarray(p)))
    assert (cp != 1).all() and scipy.stats.chisquare(
        np.bincount(cp, minlength=4)[[0, 2, 3]], N * p[[0, 2, 3]]).pvalue > 1e-4
    cnr = A(random.choice(random.PRNGKey(6), 4, (3,), replace=False, p=jnp.asarray(p)))
    assert len(set(cnr.tolist())) == 3 and 1 not in cnr.tolist()
    arr = np.arange(12).reshape(3, 4)
    ca = A(random.choice(random.PRNGKey(7), jnp.asarray(arr), (2, 5), axis=1))
    assert ca.shape == (3, 2, 5) and ((ca - ca[:1]) == np.array([[0], [4], [8]])[..., None]).all()
    assert random.choice(random.PRNGKey(0), 5, (0,)).shape == (0,)


# ------------------------------------------------------------------------------------------------
# Errors


def test_errors_are_clear():
    k = random.PRNGKey(0)
    # JAX 0.10.2's messages
    with pytest.raises(TypeError, match=r"invalid PRNG key data: expected key_data.shape to end "
                                        r"with \(2,\); got shape=\(3,\)"):
        random.normal(np.zeros(3, np.float32), (2,))
    with pytest.raises(TypeError, match="invalid PRNG key data: expected key_data.dtype = uint32; "
                                        "got dtype=int32"):
        random.split(np.zeros(2, np.int32))
    with pytest.raises(TypeError, match=r"single key.*vmap"):
        random.uniform(random.split(k, 3), (2,))
    with pytest.raises(ValueError, match="must be a float dtype"):  # JAX's class and words
        random.uniform(k, (2,), jnp.int32)
    with pytest.raises(TypeError, match="integer dtypes"):
        random.randint(k, (2,), 0, 3, jnp.float32)
    with pytest.raises(TypeError, match="floating dtype"):
        random.bernoulli(k, 1)
    with pytest.raises(ValueError, match=r"Incompatible shapes for broadcasting: "
                                         r"shapes=\[\(3,\), \(4,\)"):
        random.uniform(k, (3,), minval=jnp.zeros(4))
    with pytest.raises(ValueError, match="broadcast-compatible"):
        random.randint(k, (2,), jnp.zeros((3, 2), jnp.int32), 5)
    with pytest.raises(ValueError, match="larger sample"):
        random.choice(k, 3, (4,), replace=False)
    with pytest.raises(ValueError, match="p must be None"):
        random.choice(k, 3, (2,), p=jnp.ones(4) / 4)
    with pytest.raises(TypeError, match="must be a sequence"):
        random.choice(k, 3, 2)
    with pytest.raises(TypeError, match="seed must be an integer"):
        random.PRNGKey(1.5)
    with pytest.raises(TypeError, match="seed must be a scalar"):
        random.PRNGKey(jnp.arange(2))
    with pytest.raises(ValueError, match="nonnegative"):
        random.normal(k, (-1,))
    with pytest.raises(TypeError, match="uint32"):
        random.threefry2x32_p.bind(k[0], k[1], np.zeros(2, np.int32), np.zeros(2, np.uint32))
    with pytest.raises(TypeError, match="do not broadcast"):
        random.threefry2x32_p.bind(k[0], k[1], np.zeros(2, np.uint32), np.zeros(3, np.uint32))
    with pytest.raises(TypeError, match="key data"):
        random.wrap_key_data(np.zeros((3,), np.uint32))
