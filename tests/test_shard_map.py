"""shard_map on 8 virtual CPU devices (a 4 x 2 mesh): each collective inside it against NumPy
on the assembled global array, per-shard shapes, grad through it against the same loss
unsharded, vmap of it, eager calls, and the errors."""

import numpy as np
import pytest

import minijax as mj
import minijax.numpy as jnp
from minijax import lax
from minijax.experimental.shard_map import shard_map
from minijax.sharding import AxisType, NamedSharding
from minijax.sharding import PartitionSpec as P

pytestmark = pytest.mark.devices(8)

MESH = None


def mesh():
    global MESH
    if MESH is None:
        # Auto axes: these tests leave the placement outside the body to XLA
        MESH = mj.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
    return MESH


def arange(*shape):
    return np.arange(np.prod(shape), dtype=np.float32).reshape(shape) / 7.0 - 3.0


def run(f, in_specs, out_specs, *args, local_shapes=None, check_rep=True):
    seen = []

    def body(*xs):
        seen.append(tuple(x.shape for x in xs))
        return f(*xs)

    out = mj.jit(shard_map(body, mesh(), in_specs=in_specs, out_specs=out_specs,
                           check_rep=check_rep))(*args)
    if local_shapes is not None:
        assert seen[0] == tuple(local_shapes)
    return out


def blocks(x, nx=4, ny=2):
    """x (global, dims 0 over 'x' and 1 over 'y') as blocks[i][j]."""
    a, b = x.shape[0] // nx, x.shape[1] // ny
    return [[x[i * a:(i + 1) * a, j * b:(j + 1) * b] for j in range(ny)] for i in range(nx)]


def test_psum_pmean_pmax_pmin_per_shard_shapes():
    x = arange(8, 6)
    bl = blocks(x)
    out = run(lambda a: (lax.psum(a, "x"), lax.pmean(a, "y"), lax.pmax(a, ("x", "y")),
                         lax.pmin(a, "x")),
              P("x", "y"), (P(None, "y"), P("x"), P(), P(None, "y")), x,
              local_shapes=[(2, 3)])
    s, m, mx, mn = (np.asarray(o) for o in out)
    np.testing.assert_allclose(s, np.concatenate([sum(bl[i][j] for i in range(4))
                                                  for j in range(2)], 1), rtol=1e-6)
    np.testing.assert_allclose(m, np.concatenate([(bl[i][0] + bl[i][1]) / 2
                                                  for i in range(4)], 0), rtol=1e-6)
    allb = np.stack([bl[i][j] for i in range(4) for j in range(2)])
    np.testing.assert_allclose(mx, allb.max(0))
    np.testing.assert_allclose(mn, np.concatenate([np.min([bl[i][j] for i in range(4)], 0)
                                                   for j in range(2)], 1))


def test_all_gather_tiled_and_stacked():
    x = arange(8, 4)
    tiled, stacked = run(lambda a: (lax.all_gather(a, "x", tiled=True),
                                    lax.all_gather(a, "x", axis=1)),
                         P("x", "y"), (P(None, "y"), P(None, None, "y")), x,
                         local_shapes=[(2, 2)], check_rep=False)  # JAX 0.10 types it varying
    np.testing.assert_array_equal(np.asarray(tiled), x)
    assert stacked.shape == (2, 4, 4)
    want = np.stack([x[2 * i:2 * i + 2] for i in range(4)], axis=1)
    np.testing.assert_array_equal(np.asarray(stacked), want)


def test_psum_scatter_tiled_and_untiled():
    x = arange(16, 2)  # per shard (4, 2) over 'x' only: dim 1 unsplit, replicated over 'y'
    rs, rs_u = run(lambda a: (lax.psum_scatter(a, "x", tiled=True),
                              lax.psum_scatter(a, "x", scatter_dimension=0)),
                   P("x"), (P("x"), P("x")), x, local_shapes=[(4, 2)])
    total = x.reshape(4, 4, 2).sum(0)  # the psum of the four shards
    np.testing.assert_allclose(np.asarray(rs), total, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(rs_u), total.ravel(), rtol=1e-6)  # row i: device i


def test_ppermute_ring_and_axis_index():
    x = arange(8, 2)
    perm = [(i, (i + 1) % 4) for i in range(4)]
    shifted, idx = run(lambda a: (lax.ppermute(a, "x", perm),
                                  jnp.zeros((1,), jnp.int32) + lax.axis_index("x") * 10
                                  + lax.axis_index("y")),
                       P("x", "y"), (P("x", "y"), P(("x", "y"))), x)
    np.testing.assert_array_equal(np.asarray(shifted), np.roll(x, 2, axis=0))
    np.testing.assert_array_equal(np.asarray(idx), [0, 1, 10, 11, 20, 21, 30, 31])


def test_all_to_all_matches_numpy():
    x = arange(8, 8)
    out = run(lambda a: lax.all_to_all(a, "x", split_axis=1, concat_axis=0, tiled=True),
              P("x"), P(None, "x"), x, local_shapes=[(2, 8)])
    # shard i holds rows 2i:2i+2; after the exchange, device k holds column block k of all rows
    np.testing.assert_array_equal(np.asarray(out), x)


def test_grad_through_shard_map_matches_unsharded():
    rng = np.random.default_rng(0)
    w = rng.standard_normal((6, 4)).astype(np.float32)
    xs = rng.standard_normal((16, 6)).astype(np.float32)
    ys = rng.standard_normal((16, 4)).astype(np.float32)

    def local_loss(w, x, y):
        err = jnp.tanh(x @ w) - y
        return lax.psum(jnp.sum(err * err), ("x", "y"))

    sharded = shard_map(local_loss, mesh(), in_specs=(P(), P(("x", "y")), P(("x", "y"))),
                        out_specs=P())

    def ref(w, x, y):
        err = jnp.tanh(x @ w) - y
        return jnp.sum(err * err)

    v, g = mj.jit(mj.value_and_grad(sharded, argnums=(0, 1)))(w, xs, ys)
    v_ref, g_ref = mj.value_and_grad(ref, argnums=(0, 1))(w, xs, ys)
    np.testing.assert_allclose(float(v), float(v_ref), rtol=1e-5)
    for a, b in zip(g, g_ref):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-4, atol=1e-5)


def test_grad_through_collectives():
    x = arange(8, 4)

    def f(a):
        g = lax.all_gather(a, "x", tiled=True)  # (8, 2): the column block of this 'y'
        p = lax.ppermute(a, "x", [(i, (i + 1) % 4) for i in range(4)])
        return lax.psum(jnp.sum(jnp.sin(g) * 0.5) + jnp.sum(p * p), ("x", "y"))

    sharded = shard_map(f, mesh(), in_specs=P("x", "y"), out_specs=P())
    gs = mj.grad(sharded)(x)
    # every global element appears in the gather of 4 'x' devices: d/dx = 4 * 0.5 cos(x) ...
    want = 4 * 0.5 * np.cos(x) + 2 * x
    np.testing.assert_allclose(np.asarray(gs), want, rtol=1e-5, atol=1e-5)


def test_eager_vmap_and_jaxpr():
    x = arange(8, 2)
    f = shard_map(lambda a: lax.psum(a * 2.0, "y"), mesh(), in_specs=P("x"),
                  out_specs=P("x"), check_rep=False)
    out = f(x)  # eager: runs the jit of the primitive
    np.testing.assert_allclose(np.asarray(out), 4 * x, rtol=1e-6)
    assert "shard_map" in str(mj.make_jaxpr(f)(x))
    batched = mj.vmap(f)(np.stack([x, -x]))
    np.testing.assert_allclose(np.asarray(batched), np.stack([4 * x, -4 * x]), rtol=1e-6)


def test_committed_sharded_input_and_output_sharding():
    x = arange(8, 4)
    xs = mj.device_put(x, NamedSharding(mesh(), P("x", "y")))
    out = mj.jit(shard_map(lambda a: a + lax.axis_index("x").astype(jnp.float32), mesh(),
                           in_specs=P("x", "y"), out_specs=P("x", "y")))(xs)
    want = x + np.repeat(np.arange(4), 2)[:, None]
    np.testing.assert_allclose(np.asarray(out), want)
    assert {s.data.shape for s in out.addressable_shards} == {(2, 2)}


def test_errors():
    x = arange(6, 4)
    with pytest.raises(ValueError, match="dimension 0 has size 6.*'x' \\(size 4\\)"):
        shard_map(lambda a: a, mesh(), in_specs=P("x"), out_specs=P("x"))(x)
    with pytest.raises(ValueError, match="'z'"):
        shard_map(lambda a: a, mesh(), in_specs=P("z"), out_specs=P())(arange(8, 4))
    with pytest.raises(NameError, match="^Found an unbound axis name: q. .* call pvary under"):
        shard_map(lambda a: lax.psum(a, "q"), mesh(), in_specs=P("x"),
                  out_specs=P("x"))(arange(8, 4))
    with pytest.raises(ValueError, match="check_vma"):  # varies along 'x' but out spec omits it
        shard_map(lambda a: a, mesh(), in_specs=P("x"), out_specs=P())(arange(8, 4))


def test_grad_through_all_to_all_and_psum_scatter():
    x8, c8 = arange(8, 8), np.cos(arange(8, 8))

    def f(a, c):  # the all_to_all is the identity on the global layout (see test above)
        return lax.psum(jnp.sum(c * lax.all_to_all(a, "x", 1, 0, tiled=True)), "x")

    g = mj.grad(shard_map(f, mesh(), in_specs=(P("x"), P(None, "x")), out_specs=P()))(x8, c8)
    np.testing.assert_allclose(np.asarray(g), c8, rtol=1e-6)

    x16, c4 = arange(16, 2), np.sin(arange(4, 2))

    def h(a, c):  # the scatter of the sum of the four row blocks: d/da = c for every block
        return lax.psum(jnp.sum(c * lax.psum_scatter(a, "x", tiled=True)), "x")

    g = mj.grad(shard_map(h, mesh(), in_specs=(P("x"), P("x")), out_specs=P()))(x16, c4)
    np.testing.assert_allclose(np.asarray(g), np.concatenate([c4] * 4), rtol=1e-6)


def test_eager_calls_compile_once():
    from minijax.lowering.compile import cache_stats

    f = shard_map(lambda a: lax.psum(a, "x"), mesh(), in_specs=P("x"), out_specs=P())
    x = arange(8, 2)
    f(x)
    before = cache_stats()["xla_compiles"]
    for _ in range(3):
        np.testing.assert_allclose(np.asarray(f(x)), x.reshape(4, 2, 2).sum(0), rtol=1e-6)
    assert cache_stats()["xla_compiles"] == before


# --- auto axes: manual over some mesh axes, XLA's partitioner over the rest ----------------------


def test_auto_axes_partition_the_body_and_match_numpy():
    m = mesh()  # x: 4, y: 2
    rng = np.random.default_rng(0)
    x = rng.normal(size=(8, 16)).astype(np.float32)
    w = rng.normal(size=(16, 6)).astype(np.float32)
    seen = []

    def body(x, w):
        seen.append((x.shape, w.shape))
        return lax.psum(jnp.tanh(x @ w).sum(0, keepdims=True), "x")

    f = mj.shard_map(body, mesh=m, in_specs=(P("x"), P()), out_specs=P(), axis_names={"x"})
    jf = mj.jit(f)
    ws = mj.device_put(w, NamedSharding(m, P(None, "y")))  # committed over the auto axis
    xs = mj.device_put(x, NamedSharding(m, P("x")))
    want = np.tanh(x.astype(np.float64) @ w).sum(0, keepdims=True)
    np.testing.assert_allclose(jf(xs, ws), want, rtol=1e-5, atol=1e-5)
    assert seen[0] == ((2, 16), (16, 6))  # split by the manual axis only
    # the partitioner split the body's matmul over y: each device computes (2, 3)
    hlo = jf.lower(xs, ws).compile().as_text()
    assert "f32[2,3]{1,0} dot(" in hlo, hlo
    text = str(mj.make_jaxpr(f)(x, w))
    assert "newly_manual_axes=frozenset({'x'})" in text and "psum_invariant[axes=('x',)" in text
    # grad through it (partial eval, transpose) against NumPy, and vmap of it
    g = mj.jit(mj.grad(lambda x, w: f(x, w).sum(), argnums=(0, 1)))(xs, ws)
    d = 1 - np.tanh(x.astype(np.float64) @ w) ** 2
    np.testing.assert_allclose(g[0], d @ w.T, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(g[1], x.T @ d, rtol=1e-4, atol=1e-5)
    stacked = np.stack([x, 2 * x])
    vm = mj.jit(mj.vmap(f, in_axes=(0, None)))(stacked, w)
    np.testing.assert_allclose(vm, [np.tanh(s @ w).sum(0, keepdims=True) for s in stacked],
                               rtol=1e-5, atol=1e-5)


def test_auto_axes_errors():
    m = mesh()
    x = arange(8, 4)
    with pytest.raises(ValueError, match="requires axis_names=frozenset\\({'z'}\\) to be a subset"):
        mj.shard_map(lambda x: x, mesh=m, in_specs=P("x"), out_specs=P("x"),
                     axis_names={"z"})(x)
    with pytest.raises(ValueError, match="must refer to an axis marked as manual"):
        mj.shard_map(lambda x: x, mesh=m, in_specs=P("x", "y"), out_specs=P("x"),
                     axis_names={"x"})(x)
    with pytest.raises(NameError, match="^Found an unbound axis name: y. .* call pvary under"):
        mj.shard_map(lambda x: lax.psum(x, "y"), mesh=m, in_specs=P("x"), out_specs=P("x"),
                     axis_names={"x"})(x)
