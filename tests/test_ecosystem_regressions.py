"""Differences from JAX found by running optax's and chex's own test suites on minijax
(benchmarks/ecosystem_suites.py), each pinned to what JAX 0.10.2 does."""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax.sharding import AbstractMesh, AxisType, NamedSharding, PartitionSpec


def test_typeof_sharding_is_a_named_sharding_over_the_abstract_mesh():
    # optax's tree_vdot and chex's assert_is_replicated read typeof(x).sharding.
    s = minijax.typeof(jnp.ones((2, 3))).sharding
    assert isinstance(s, NamedSharding) and s.spec == PartitionSpec(None, None)
    assert repr(s) .startswith("NamedSharding(mesh=AbstractMesh((), axis_types=())")
    assert s.mesh.empty and not s.mesh.are_all_axes_explicit and s.is_fully_replicated
    seen = []
    minijax.jit(lambda x: seen.append(minijax.typeof(x).sharding) or x)(jnp.ones(2))
    assert seen[0].spec == PartitionSpec(None)


def test_abstract_mesh_as_jax_prints_and_compares_it():
    m = AbstractMesh((2, 4), ("x", "y"))
    assert repr(m) == "AbstractMesh('x': 2, 'y': 4, axis_types=(Auto, Auto))"
    assert m.shape == {"x": 2, "y": 4} and m.size == 8 and not m.empty
    assert m.are_all_axes_auto and not m.are_all_axes_explicit
    e = AbstractMesh((2,), ("x",), axis_types=(AxisType.Explicit,))
    assert e.are_all_axes_explicit and e != AbstractMesh((2,), ("x",))
    assert hash(m) == hash(AbstractMesh((2, 4), ("x", "y")))
    with pytest.raises(ValueError, match="no devices"):
        NamedSharding(m, PartitionSpec("x")).device_set
    assert minijax.sharding.get_abstract_mesh().empty
    mesh = minijax.make_mesh((1,), ("d",))
    with minijax.set_mesh(mesh):  # make_mesh's axes are Explicit, as JAX 0.10.2's
        assert minijax.sharding.get_abstract_mesh() == AbstractMesh(
            (1,), ("d",), axis_types=(AxisType.Explicit,))


@pytest.mark.parametrize("fn", ["zeros_like", "ones_like", "empty_like"])
def test_like_functions_take_a_shape_dtype_struct(fn):
    # optax's factorized optimizer calls jnp.zeros_like on ShapeDtypeStructs (JAX reads the
    # type only); anything without shape and dtype is still refused.
    s = minijax.ShapeDtypeStruct((2, 3), jnp.bfloat16)
    out = getattr(jnp, fn)(s)
    assert out.shape == (2, 3) and out.dtype == jnp.bfloat16
    assert getattr(jnp, fn)(s, dtype=jnp.int32, shape=(4,)).dtype == jnp.int32
    if fn != "empty_like":
        np.testing.assert_array_equal(out, np.full((2, 3), fn == "ones_like"))
    with pytest.raises(TypeError, match="requires ndarray or scalar"):
        getattr(jnp, fn)([1, 2])


def test_full_like_takes_a_shape_dtype_struct():
    s = minijax.ShapeDtypeStruct((3,), jnp.float16)
    out = jnp.full_like(s, jnp.arange(3.0))
    assert out.dtype == jnp.float16
    np.testing.assert_array_equal(out, [0, 1, 2])


@pytest.mark.skipif(minijax.default_backend() != "cpu",
                    reason="checks the error for a missing 'gpu' platform, which only exists "
                           "where no GPU backend is present")
def test_asking_for_a_missing_platform_says_so_in_jax_words():
    # chex's assert_devices tests match JAX's "Unknown backend" / "failed to initialize".
    with pytest.raises(RuntimeError, match=r"Unknown backend: 'gpu' requested"):
        minijax.devices("gpu")
    with pytest.raises(RuntimeError, match=r"Backend 'tpu' failed to initialize"):
        minijax.devices("tpu")
    with pytest.raises(RuntimeError, match=r"Unknown backend foo\. Available backends"):
        minijax.devices("foo")
    assert minijax.devices("cpu")  # the process keeps working


def test_shard_map_and_pmap_over_one_device_run_the_body_as_the_program():
    # chex's fake_pmap tests pmap over the one CPU device: a one-device manual computation
    # has nothing to partition, and XLA's CPU cannot run Shardy's manual-computation calls.
    from minijax import lax

    # an Auto axis: on make_mesh's Explicit one, JAX refuses in_specs P("i") for an unsplit x
    mesh = minijax.make_mesh((1,), ("i",), axis_types=(AxisType.Auto,))

    def body(x):
        return (lax.psum(x, "i"), lax.all_gather(x, "i"), lax.axis_index("i"),
                lax.ppermute(x, "i", [(0, 0)]), lax.psum_scatter(x[None], "i"))

    f = minijax.shard_map(body, mesh=mesh, in_specs=PartitionSpec("i"),
                          out_specs=(PartitionSpec(),) * 5, check_vma=False)
    x = jnp.arange(3.0)
    s, g, i, p, r = minijax.jit(f)(x)
    np.testing.assert_array_equal(s, [0, 1, 2])
    assert g.shape == (1, 3) and int(i) == 0
    np.testing.assert_array_equal(p, [0, 1, 2])
    np.testing.assert_array_equal(r, [0, 1, 2])
    grad = minijax.grad(lambda x: minijax.jit(f)(x)[0].sum())(x)
    np.testing.assert_array_equal(grad, [1, 1, 1])
    one = minijax.devices()[:1]
    out = minijax.pmap(lambda x, y: x * 2 + y, devices=one)(jnp.ones((1, 2)), y=jnp.ones((1, 2)))
    np.testing.assert_array_equal(out, [[3, 3]])


def test_pmap_and_shard_map_run_under_disable_jit():
    # chex's fake_jit is disable_jit: pmap (shard_map in a jit) must still run, not recurse.
    with minijax.disable_jit():
        out = minijax.pmap(lambda x: x * 2, devices=minijax.devices()[:1])(jnp.ones((1, 4)))
    np.testing.assert_array_equal(out, np.full((1, 4), 2.0))


def test_grad_takes_complex_inputs_of_a_real_function():
    # optax's complex-valued optimizer tests; JAX 0.10.2's values for this function.
    z = jnp.array([1 + 2j, -0.5 + 0.25j], jnp.complex64)

    def f(z):
        return jnp.sum(jnp.abs(z) ** 2 + jnp.real(z * jnp.sin(z)))

    expected = [13.302298 - 1.0268509j, -1.9773381 - 0.11257875j]  # JAX 0.10.2
    np.testing.assert_allclose(minijax.grad(f)(z), expected, rtol=1e-6)
    np.testing.assert_allclose(minijax.value_and_grad(f)(z)[1], expected, rtol=1e-6)
    with pytest.raises(TypeError, match="real- or complex-valued inputs"):
        minijax.grad(lambda i: i * 1.0)(1)


_YS = np.array([[10.0, 1.0, -2.0], [1.0, 4.0, 0.2], [0.5, -1.0, 2.0]], np.float32)
_MASK = np.array([[True, True, False], [False, False, False], [True, False, True]])
_W = np.arange(1.0, 10.0, dtype=np.float32).reshape(3, 3)


@pytest.mark.parametrize("fn, fill", [(minijax.nn.softmax, 0.0),
                                      (minijax.nn.log_softmax, -np.inf)])
def test_masked_softmax_rows_masked_entirely_are_fill_with_zero_gradient(fn, fill):
    # optax's softmax_cross_entropy(where=...) test: JAX 0.10.2 gives finite gradients.
    out = fn(_YS, where=_MASK)
    np.testing.assert_array_equal(out[1], [fill] * 3)
    loss = lambda y: jnp.sum(jnp.where(_MASK, fn(y, where=_MASK), 0) * _W)
    g = minijax.grad(loss)(_YS)
    np.testing.assert_array_equal(g[1], [0, 0, 0])
    np.testing.assert_array_equal(g[~_MASK], 0)
    expected_row2 = {"softmax": [-0.29829299, 0.0, 0.29829264],  # JAX 0.10.2
                     "log_softmax": [4.0811915, 0.0, -4.081191]}[fn.__name__]
    np.testing.assert_allclose(g[2], expected_row2, rtol=1e-5, atol=1e-6)


def test_logsumexp_zero_weight_terms_have_finite_higher_derivatives():
    # optax's sigmoid_focal_loss: logsumexp(b=[1 - y, y]) with y in {0, 1} and |logits| = 50.
    logits = jnp.array([100.0, -100.0, 75.0, -75.0, 50.0, -50.0])
    labels = jnp.array([0.9, 0.1, 0.8, 0.2, 1.0, 0.0])

    def loss(x):
        lp, lq = minijax.nn.log_sigmoid(x), minijax.nn.log_sigmoid(-x)
        lse = minijax.nn.logsumexp(jnp.stack([lp, lq], -1), axis=-1,
                                   b=jnp.stack([1 - labels, labels], -1))
        return jnp.sum(jnp.exp(0.5 * lse))

    h = minijax.hessian(loss)(logits)
    assert np.isfinite(np.asarray(h)).all()
    expected = [0.0, 0.0, 1.7968845e-33, 1.7968845e-33, 3.4719859e-12, 3.4719859e-12]  # JAX
    np.testing.assert_allclose(np.diag(h), expected, rtol=1e-5)


def test_config_states_at_the_top_level_as_context_managers():
    # optax's test_utils: `with jax.log_compiles():` (a boolean state turns on without a value)
    assert not minijax.config.jax_log_compiles
    with minijax.log_compiles():
        assert minijax.config.jax_log_compiles and minijax.log_compiles.value
    assert not minijax.config.jax_log_compiles
    with minijax.enable_x64(True):
        assert jnp.ones(1).dtype == np.float64
    with minijax.debug_nans(True), minijax.explain_cache_misses(True):
        assert minijax.config.jax_debug_nans and minijax.config.jax_explain_cache_misses
    assert not minijax.config.jax_debug_nans
    with pytest.raises(TypeError, match="requires an argument"):
        minijax.numpy_rank_promotion()


def test_max_and_min_of_complex_order_lexicographically():
    # optax's tree_max/tree_min tests reduce complex leaves; values from JAX 0.10.2.
    x = jnp.array([[1 + 2j, 1 + 3j, 0.5 + 9j], [-1 - 1j, 2 - 5j, 2 - 4j]], jnp.complex64)
    assert complex(jnp.max(x)) == 2 - 4j and complex(jnp.min(x)) == -1 - 1j
    np.testing.assert_array_equal(jnp.max(x, axis=0), [1 + 2j, 2 - 5j, 2 - 4j])
    np.testing.assert_array_equal(jnp.min(x, axis=1), [0.5 + 9j, -1 - 1j])
    assert complex(minijax.jit(jnp.max)(x)) == 2 - 4j
    g = minijax.grad(lambda x: jnp.real(jnp.max(x * 2)))(x)
    np.testing.assert_array_equal(g, [[0, 0, 0], [0, 0, 2]])


def test_a_python_scalar_carry_stays_weak_in_loops():
    # optax's nnls (bfloat16 values, a Python-float carry): JAX 0.10.2 keeps the carry weak,
    # so the bfloat16 values stay bfloat16.
    from minijax import lax

    x = jnp.ones(3, jnp.bfloat16)

    def body(c, _):
        a, b, k = c
        return (a, b * (k + 1) / 2 + a, k + 1), None

    (_, b, k), _ = lax.scan(body, (x, x, 0.0), length=2)
    assert b.dtype == jnp.bfloat16 and k.dtype == np.float32 and k.weak_type
    c, _ = lax.scan(lambda c, _: (c * jnp.float32(2), None), 1.0, length=3)
    assert not c.weak_type and float(c) == 8.0  # the body makes it strong: strong, as JAX
    assert lax.fori_loop(0, 3, lambda i, c: c + 1.0, 0.0).weak_type
    assert lax.while_loop(lambda c: c < 3, lambda c: c + 1, 0.0).weak_type


def test_jnp_orderings_of_complex_are_lexicographic_and_lax_refuses_them():
    # optax's alias tests compare complex values with jnp.greater; values from JAX 0.10.2.
    a = jnp.array([1 + 2j, 1 + 3j, 2 - 1j, 1 + 2j])
    b = jnp.array([1 + 3j, 1 + 2j, 1 + 5j, 1 + 2j])
    np.testing.assert_array_equal(a > b, [False, True, True, False])
    np.testing.assert_array_equal(a >= b, [False, True, True, True])
    np.testing.assert_array_equal(jnp.less(a, b), [True, False, False, False])
    np.testing.assert_array_equal(minijax.jit(jnp.less_equal)(a, b), [True, False, False, True])
    with pytest.raises(TypeError, match="lt does not accept dtype complex"):
        minijax.lax.lt(a, b)
