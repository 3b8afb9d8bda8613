"""Collectives over named axes under ``vmap(..., axis_name=...)``: each one against a NumPy
reference computed over the stacked batch, nested vmaps (a collective over the outer name, over
both names), inside control flow, under jit (where batching leaves no collective in the staged
program), differentiated (``vmap(grad(f))`` is ``grad`` of the batch sum, as in JAX, and that
against finite differences), and the NameError for an unbound axis name."""

import os

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import minijax
import minijax.numpy as jnp
from minijax import lax
from minijax.test_util import check_grads

THIS_FILE = os.path.basename(__file__)
COLLECTIVES = {"psum", "pmax", "pmin", "all_gather", "reduce_scatter", "ppermute", "all_to_all",
               "axis_index"}

sizes = st.integers(1, 5)
shapes = st.lists(st.integers(1, 4), min_size=0, max_size=3).map(tuple)


def rand(rng, shape, dtype=np.float32):
    if np.dtype(dtype).kind == "i":
        return rng.integers(-5, 6, size=shape).astype(dtype)
    return rng.normal(size=shape).astype(dtype)


def vmapped(f, in_axes=0, jit=True, **kw):
    g = minijax.vmap(f, in_axes=in_axes, axis_name="i", **kw)
    return minijax.jit(g) if jit else g


def close(a, b, tol=1e-5):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def collective_names(jaxpr):
    """Primitive names of every equation over an axis name, nested jaxprs included (a
    psum/pmax/pmin over positional axes only is the vmap's, as JAX's)."""
    names = []
    for eqn in jaxpr.eqns:
        axes = eqn.params.get("axes")
        if axes is None or not all(isinstance(a, int) for a in axes):
            names.append(eqn.primitive.name)
        for v in eqn.params.values():
            for sub in v if isinstance(v, (tuple, list)) else [v]:
                if hasattr(sub, "eqns"):
                    names.extend(collective_names(sub))
    return set(names) & COLLECTIVES


# ------------------------------------------------------------------------------------------------
# Each collective against NumPy over the stacked batch


@given(n=sizes, shape=shapes, op=st.sampled_from(["psum", "pmean", "pmax", "pmin"]),
       dtype=st.sampled_from([np.float32, np.int32]), in_axis=st.integers(0, 3),
       seed=st.integers(0, 2**16))
def test_all_reduce(n, shape, op, dtype, in_axis, seed):
    rng = np.random.default_rng(seed)
    in_axis = min(in_axis, len(shape))
    xs = rand(rng, (n, *shape), dtype)
    ref = {"psum": xs.sum(0), "pmean": xs.mean(0), "pmax": xs.max(0), "pmin": xs.min(0)}[op]
    f = getattr(lax, op)
    out = vmapped(lambda x: f(x, "i"), in_axes=in_axis)(np.moveaxis(xs, 0, in_axis))
    close(out, np.broadcast_to(ref, xs.shape), tol=1e-5 if op != "pmean" else 1e-6)
    assert np.asarray(out).dtype == (np.float32 if op == "pmean" else dtype)


@given(n=sizes, shape=shapes, data=st.data())
def test_all_gather(n, shape, data):
    tiled = data.draw(st.booleans()) and len(shape) > 0
    axis = data.draw(st.integers(0, len(shape) - (1 if tiled else 0)))
    xs = rand(np.random.default_rng(n), (n, *shape))
    out = vmapped(lambda x: lax.all_gather(x, "i", axis=axis, tiled=tiled))(xs)
    one = np.concatenate(list(xs), axis) if tiled else np.stack(list(xs), axis)
    close(out, np.broadcast_to(one, (n, *one.shape)))


@given(n=sizes, shape=shapes, data=st.data())
def test_psum_scatter(n, shape, data):
    tiled = data.draw(st.booleans())
    dim = data.draw(st.integers(0, len(shape)))
    k = data.draw(st.integers(1, 2)) if tiled else 1
    pe = shape[:dim] + (n * k,) + shape[dim:]  # the scattered axis: n (tiled: n chunks of k)
    xs = rand(np.random.default_rng(n), (n, *pe))
    out = vmapped(lambda x: lax.psum_scatter(x, "i", scatter_dimension=dim, tiled=tiled))(xs)
    total = xs.sum(0)
    parts = np.split(total, n, axis=dim)
    ref = np.stack([p if tiled else np.squeeze(p, dim) for p in parts])
    close(out, ref, tol=1e-5)


@given(n=sizes, shape=shapes, data=st.data())
def test_ppermute_and_pshuffle(n, shape, data):
    dsts = data.draw(st.permutations(range(n)))
    keep = data.draw(st.integers(0, n))  # a partial permutation: the rest receive zeros
    perm = list(zip(range(n), dsts))[:keep]
    xs = rand(np.random.default_rng(n), (n, *shape))
    out = vmapped(lambda x: lax.ppermute(x, "i", perm))(xs)
    ref = np.zeros_like(xs)
    for src, dst in perm:
        ref[dst] = xs[src]
    close(out, ref)
    sources = list(dsts)  # pshuffle: example i receives example sources[i]
    close(vmapped(lambda x: lax.pshuffle(x, "i", sources))(xs), xs[sources])


@given(n=sizes, shape=st.lists(st.integers(1, 3), min_size=1, max_size=3).map(tuple),
       data=st.data())
def test_all_to_all(n, shape, data):
    tiled = data.draw(st.booleans())
    split = data.draw(st.integers(0, len(shape) - 1))
    concat = data.draw(st.integers(0, len(shape) - 1))
    pe = list(shape)
    pe[split] = n * (pe[split] if tiled else 1)
    xs = rand(np.random.default_rng(n), (n, *pe))
    out = vmapped(lambda x: lax.all_to_all(x, "i", split, concat, tiled=tiled))(xs)
    chunks = [np.split(xs[p], n, axis=split) for p in range(n)]  # chunks[p][k]: p sends to k
    if tiled:
        ref = [np.concatenate([chunks[p][k] for p in range(n)], concat) for k in range(n)]
    else:
        ref = [np.stack([np.squeeze(chunks[p][k], split) for p in range(n)], concat)
               for k in range(n)]
    close(out, np.stack(ref))


@given(n=sizes)
def test_axis_index_and_axis_size(n):
    out = vmapped(lambda x: lax.axis_index("i") * 10 + lax.axis_size("i") + 0 * x,
                  jit=False)(np.zeros(n, np.int32))
    close(out, np.arange(n) * 10 + n)
    # axis_size= when nothing is mapped
    out = minijax.vmap(lambda: lax.axis_index("i"), axis_name="i", axis_size=n)()
    close(out, np.arange(n))
    assert isinstance(minijax.vmap(lambda x: lax.axis_size("i") + 0 * x, axis_name="i")(
        np.zeros(n)), minijax.Array)


def test_unbatched_operands_and_pytrees():
    c = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    xs = rand(np.random.default_rng(0), (4, 3))
    f = lambda x: {"s": lax.psum({"c": c, "x": x}, "i"), "g": lax.all_gather(c, "i"),
                   "n": lax.psum(1, "i"), "m": lax.pmax(c, "i"),
                   "p": lax.ppermute(c, "i", [(0, 1), (1, 0)])}
    for jit in (False, True):
        out = vmapped(f, jit=jit)(xs)
        close(out["s"]["c"], np.broadcast_to(4 * c, (4, 2, 3)))
        close(out["s"]["x"], np.broadcast_to(xs.sum(0), (4, 3)))
        close(out["g"], np.broadcast_to(c, (4, 4, 2, 3)))
        close(out["n"], np.full(4, 4))
        close(out["m"], np.broadcast_to(c, (4, 2, 3)))
        close(out["p"], np.stack([c, c, 0 * c, 0 * c]))
    # a constant's psum is known while tracing (JAX's constant case): a Python int
    assert minijax.vmap(lambda x: lax.psum(1, "i"), axis_name="i", out_axes=None)(xs) == 4


def test_bool_psum_counts_as_int32():
    xs = np.array([True, False, True])
    out = vmapped(lambda x: lax.psum(x, "i"))(xs)
    assert np.asarray(out).dtype == np.int32
    close(out, np.full(3, 2))


# ------------------------------------------------------------------------------------------------
# Nested vmaps over two names


@given(n=st.integers(1, 3), m=st.integers(1, 3), shape=shapes, seed=st.integers(0, 99))
def test_nested_names(n, m, shape, seed):
    xs = rand(np.random.default_rng(seed), (n, m, *shape))  # outer axis 'o' (n), inner 'i' (m)

    def nest(f, jit=True):
        g = minijax.vmap(minijax.vmap(f, axis_name="i"), axis_name="o")
        return minijax.jit(g) if jit else g

    full = (n, m, *shape)
    close(nest(lambda x: lax.psum(x, "i"))(xs), np.broadcast_to(xs.sum(1, keepdims=True), full))
    close(nest(lambda x: lax.psum(x, "o"))(xs), np.broadcast_to(xs.sum(0, keepdims=True), full))
    both = np.broadcast_to(xs.sum((0, 1), keepdims=True), full)
    close(nest(lambda x: lax.psum(x, ("o", "i")))(xs), both)
    close(nest(lambda x: lax.pmean(x, ("i", "o")), jit=False)(xs), both / (n * m), tol=1e-6)
    close(nest(lambda x: lax.pmax(x, "o"))(xs), np.broadcast_to(xs.max(0, keepdims=True), full))
    idx = nest(lambda x: lax.axis_index(("o", "i")) + 0 * jnp.sum(x))(xs)
    close(idx, np.arange(n * m).reshape(n, m))
    # all_gather over the outer name, inside the inner vmap: every (o, i) sees xs[:, i]
    ag = nest(lambda x: lax.all_gather(x, "o", axis=len(shape)))(xs)
    close(ag, np.broadcast_to(np.moveaxis(xs, 0, -1)[None], (n, m, *shape, n)))
    # ppermute over the outer name: a cyclic shift along o
    pp = nest(lambda x: lax.ppermute(x, "o", [(k, (k + 1) % n) for k in range(n)]))(xs)
    close(pp, np.roll(xs, 1, axis=0))


def test_nested_psum_scatter_and_all_to_all_over_outer_name():
    rng = np.random.default_rng(1)
    ys = rand(rng, (3, 4, 5, 3))  # outer 'o' = 3 over axis 0, inner 'i' = 5 over axis 2
    f = lambda x: lax.psum_scatter(x, "o", scatter_dimension=1)  # per example (4, 3)
    out = minijax.vmap(minijax.vmap(f, in_axes=1, axis_name="i"), axis_name="o")(ys)
    total = ys.sum(0)  # (4, 5, 3): example (o, i) gets total[:, i, o]
    close(out, np.transpose(total, (2, 1, 0)), tol=1e-5)
    g = lambda x: lax.all_to_all(x, "o", 1, 0)  # per example (4, 3)
    out = minijax.vmap(minijax.vmap(g, in_axes=1, axis_name="i"), axis_name="o")(ys)
    # example (o, i) gets rows p = 0..2 of ys[p, :, i, o] stacked at axis 0
    close(out, np.stack([np.stack([ys[:, :, i, o] for i in range(5)]) for o in range(3)]))


def test_inner_name_shadows_outer_of_the_same_name():
    xs = rand(np.random.default_rng(2), (2, 3))
    out = minijax.vmap(minijax.vmap(lambda x: lax.psum(x, "i"), axis_name="i"),
                       axis_name="i")(xs)
    close(out, np.broadcast_to(xs.sum(1, keepdims=True), (2, 3)))


# ------------------------------------------------------------------------------------------------
# jit, control flow, spmd_axis_name


def test_jit_of_vmap_equals_eager_and_stages_no_collective():
    xs = rand(np.random.default_rng(3), (4, 4, 2))

    def f(x):
        a = lax.pmean(jnp.sin(x), "i") + lax.axis_index("i")
        b = lax.all_gather(x, "i", axis=1).sum(1) + lax.psum_scatter(x, "i", tiled=True).sum()
        c = lax.all_to_all(x, "i", 0, 0) * lax.pmin(x, "i") + lax.pshuffle(x, "i", [1, 2, 3, 0])
        return a + b + c

    eager = minijax.vmap(f, axis_name="i")(xs)
    close(minijax.jit(minijax.vmap(f, axis_name="i"))(xs), eager, tol=1e-5)
    jaxpr = minijax.make_jaxpr(minijax.vmap(f, axis_name="i"))(xs)
    assert not collective_names(jaxpr)
    # and with vmap(grad) under jit
    gf = minijax.jit(minijax.vmap(minijax.grad(lambda x: f(x).sum()), axis_name="i"))
    assert not collective_names(gf.trace(xs).jaxpr)


def test_collectives_inside_control_flow():
    xs = rand(np.random.default_rng(4), (4, 3))
    step = lambda c, _: (lax.psum(c, "i") * 0.25, lax.axis_index("i"))
    carry, idx = vmapped(lambda x: lax.scan(step, x, None, length=2))(xs)
    close(carry, np.broadcast_to(xs.sum(0) / 4, xs.shape))
    close(idx, np.tile(np.arange(4)[:, None], (1, 2)))
    # an unbatched carry: the scan must still be batched to compute the psum
    out = vmapped(lambda x: x + lax.scan(lambda c, _: (lax.psum(c, "i"), None), 1.0, None,
                                         length=2)[0])(xs)
    close(out, xs + 16.0)
    out = vmapped(lambda x: lax.fori_loop(0, 3, lambda k, c: c + lax.axis_index("i"), 0))(xs)
    close(out, 3 * np.arange(4))
    out = vmapped(lambda x: lax.cond(x[0] > 0, lambda v: lax.pmax(v, "i"),
                                     lambda v: lax.pmin(v, "i"), x))(xs)
    close(out, np.where(xs[:, :1] > 0, xs.max(0), xs.min(0)))


def test_spmd_axis_name_is_accepted():
    xs = rand(np.random.default_rng(5), (4, 2))
    out = minijax.vmap(lambda x: lax.psum(x, "i"), axis_name="i", spmd_axis_name="d")(xs)
    close(out, np.broadcast_to(xs.sum(0), xs.shape))


# ------------------------------------------------------------------------------------------------
# Differentiation: vmap(grad(f)) is grad of the batch sum (JAX's convention: psum transposes to
# psum), which is checked against finite differences


GRAD_CASES = {
    "psum": lambda x: jnp.sum(jnp.sin(lax.psum(x, "i")) * x),
    "pmean": lambda x: jnp.sum(lax.pmean(x, "i") ** 3),
    "pmax": lambda x: jnp.sum(lax.pmax(x, "i") * x),
    "all_gather": lambda x: jnp.sum(jnp.cos(lax.all_gather(x, "i", axis=1)) * x[:, None]),
    "all_gather_tiled": lambda x: jnp.sum(lax.all_gather(x, "i", tiled=True) ** 2),
    "psum_scatter": lambda x: jnp.sum(jnp.sin(lax.psum_scatter(x, "i", tiled=True)) * x[:1]),
    "ppermute": lambda x: jnp.sum(lax.ppermute(x, "i", [(0, 1), (1, 2), (2, 0)]) ** 2 * x),
    "all_to_all": lambda x: jnp.sum(jnp.sin(lax.all_to_all(x, "i", 0, 1)) * x[0]),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_grad_under_vmap(name):
    f = GRAD_CASES[name]
    xs = rand(np.random.default_rng(6), (3, 3, 3))
    if name == "pmax":  # distinct values: no ties, where pmax is not differentiable
        xs = (np.arange(27, dtype=np.float32).reshape(3, 3, 3) * 0.37) % 5
    total = lambda xs: jnp.sum(minijax.vmap(f, axis_name="i")(xs))
    per_example = minijax.jit(minijax.vmap(minijax.grad(f), axis_name="i"))(xs)
    close(per_example, minijax.grad(total)(xs), tol=1e-4)
    check_grads(total, (xs,), order=1, modes=("fwd", "rev"), jit=True, atol=2e-2, rtol=2e-2)


def test_psum_transpose_is_psum():
    xs = rand(np.random.default_rng(7), (4, 3))
    # f is linear: its VJP at any point applies the transpose, psum, to the cotangent
    vjp = minijax.vmap(lambda x, ct: minijax.vjp(lambda v: lax.psum(v, "i"), x)[1](ct)[0],
                       axis_name="i")
    close(vjp(xs, xs), np.broadcast_to(xs.sum(0), xs.shape))
    lin = minijax.vmap(lambda x, ct: minijax.vjp(lambda v: lax.all_gather(v, "i"), x)[1](ct)[0],
                       axis_name="i")
    cts = rand(np.random.default_rng(8), (4, 4, 3))
    close(lin(xs, cts), cts.sum(0), tol=1e-5)  # all_gather's transpose is psum_scatter


# ------------------------------------------------------------------------------------------------
# Errors


def test_unbound_axis_name_is_a_name_error_at_the_users_line():
    xs = np.zeros((2, 3), np.float32)
    with pytest.raises(NameError) as e:
        minijax.vmap(minijax.vmap(lambda x: lax.psum(x, "k"), axis_name="i"), axis_name="o")(xs)
    # JAX 0.10.2's words: psum types its equation ("Found an ..."), all_gather and axis_size
    # look the size up, as pmean does; the user's line is a note
    assert str(e.value) == ("Found an unbound axis name: k. To fix this, please call psum under "
                            "`jax.shard_map`.")
    notes = "\n".join(e.value.__notes__)
    assert THIS_FILE in notes and 'lax.psum(x, "k")' in notes, notes
    for fun, msg in [(lambda: lax.all_gather(xs, "i"), "unbound axis name: i"),
                     (lambda: lax.axis_index("i"), "Found an unbound axis name: i. "),
                     (lambda: minijax.jit(lambda x: lax.pmean(x, "i"))(xs),
                      "Found an unbound axis name: i. "),
                     (lambda: lax.pmean(xs, "i"), "unbound axis name: i"),
                     (lambda: lax.axis_size("i"), "unbound axis name: i")]:
        with pytest.raises(NameError, match=f"^{msg}"):
            fun()
    # an eager bind evaluates it: JAX's abstract evaluation's words (its impl dispatches)
    with pytest.raises(NameError, match="^Found an unbound axis name: i. "):
        lax.psum_p.bind(xs, axes=("i",), axis_index_groups=None)
    with pytest.raises(NameError, match="no enclosing vmap"):  # bound by nothing at lowering
        lax.all_gather_p.bind(xs, all_gather_dimension=0, axis_name=("i",),
                              axis_index_groups=None, axis_size=2, tiled=False)


def test_argument_errors():
    xs = np.zeros((4, 3), np.float32)
    with pytest.raises(ValueError, match="all_to_all requires the size"):
        vmapped(lambda x: lax.all_to_all(x, "i", 0, 0), jit=False)(xs)
    with pytest.raises(ValueError, match="sources and destinations must be unique"):
        vmapped(lambda x: lax.ppermute(x, "i", [(0, 1), (2, 1)]), jit=False)(xs)
    with pytest.raises(ValueError, match="out of range"):
        vmapped(lambda x: lax.ppermute(x, "i", [(0, 4)]), jit=False)(xs)
    with pytest.raises(ValueError, match="must match the axis size"):
        vmapped(lambda x: lax.psum_scatter(x, "i"), jit=False)(xs)
    with pytest.raises(NotImplementedError, match="axis_index_groups"):
        vmapped(lambda x: lax.psum(x, "i", axis_index_groups=[[0, 1], [2, 3]]), jit=False)(xs)
