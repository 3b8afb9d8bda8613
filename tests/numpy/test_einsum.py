"""jnp.einsum / einsum_path vs NumPy on hypothesis-drawn subscripts, shapes and dtypes: eager and
under jit; the contraction order (one dot_general per pair), grad, vmap, ellipses, implicit
output, the interleaved form and preferred_element_type."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import minijax
import minijax.numpy as jnp
from tests.numpy._helpers import check


@st.composite
def einsum_case(draw):
    """1-3 operands over labels 'abcd' (repeats allowed), explicit or implicit output."""
    sizes = {lab: draw(st.integers(1, 4)) for lab in "abcd"}
    n_ops = draw(st.integers(1, 3))
    terms = [draw(st.lists(st.sampled_from("abcd"), min_size=0, max_size=3)) for _ in range(n_ops)]
    used = sorted({lab for t in terms for lab in t})
    if draw(st.booleans()):
        out = draw(st.lists(st.sampled_from(used), unique=True, max_size=len(used))) if used \
            else []
        spec = ",".join("".join(t) for t in terms) + "->" + "".join(out)
    else:
        spec = ",".join("".join(t) for t in terms)
    dtype = draw(st.sampled_from([np.float32, np.int32]))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    ops = [rng.integers(-3, 4, [sizes[lab] for lab in t]).astype(dtype) for t in terms]
    return spec, ops


@given(einsum_case())
def test_einsum_matches_numpy(case):
    spec, ops = case
    expected = np.einsum(spec, *ops)
    for got in (jnp.einsum(spec, *ops), minijax.jit(lambda *o: jnp.einsum(spec, *o))(*ops)):
        check(got, expected, tol=(1e-5, 1e-5))
    path, _ = jnp.einsum_path(spec, *ops)
    # opt_einsum's path, as JAX's (NumPy's own starts with "einsum_path")
    assert all(isinstance(p, tuple) for p in path)
    if len(ops) > 1:
        np.testing.assert_allclose(np.einsum(spec, *ops, optimize=["einsum_path", *path]),
                                   expected)
        check(jnp.einsum(spec, *ops, optimize=path), expected)


ELLIPSIS_CASES = [
    ("...ij,...jk->...ik", [(5, 2, 3), (1, 3, 4)]),
    ("...i,...i", [(2, 3), (3,)]),
    ("a...,b...", [(2, 3), (4, 3)]),
    ("...ii->...i", [(2, 3, 3)]),
    ("i...->...", [(3, 2, 2)]),
    ("ij...,jk...->ik...", [(2, 3, 2), (3, 4, 1)]),
]


@pytest.mark.parametrize("spec,shapes", ELLIPSIS_CASES)
def test_einsum_ellipsis(spec, shapes):
    rng = np.random.default_rng(0)
    ops = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    expected = np.einsum(spec, *ops)
    for got in (jnp.einsum(spec, *ops), minijax.jit(lambda *o: jnp.einsum(spec, *o))(*ops)):
        check(got, expected, tol=(1e-5, 1e-5))


def test_each_pair_is_one_dot_general():
    a = np.ones((2, 3), np.float32)
    b = np.ones((3, 4), np.float32)
    c = np.ones((4, 5), np.float32)
    jaxpr = str(minijax.make_jaxpr(lambda a, b, c: jnp.einsum("ij,jk,kl->il", a, b, c))(a, b, c))
    assert jaxpr.count("dot_general") == 2
    assert "transpose" not in jaxpr
    # a batch contraction: batch dims, not a broadcast-multiply-reduce
    x = np.ones((6, 2, 3), np.float32)
    y = np.ones((6, 3, 4), np.float32)
    jaxpr = str(minijax.make_jaxpr(lambda x, y: jnp.einsum("bij,bjk->bik", x, y))(x, y))
    assert jaxpr.count("dot_general") == 1 and "mul" not in jaxpr


def test_last_contraction_orders_operands_as_jax():
    """(a, b) when that gives the output's axis order, else (b, a) then a transpose: the same
    dots XLA gets from JAX, whose layouts decide cuBLAS vs fused GEMMs on a GPU."""
    q = k = v = np.ones((2, 5, 3, 4), np.float32)  # (batch, seq, heads, head_dim)
    a = np.ones((2, 3, 5, 5), np.float32)  # (batch, heads, q, k)
    scores = minijax.make_jaxpr(lambda q, k: jnp.einsum("bqhd,bkhd->bhqk", q, k))(q, k)
    (dot,) = [e for e in scores.eqns if e.primitive.name == "dot_general"]
    assert dot.invars == scores.jaxpr.invars and len(scores.eqns) == 1  # (q, k), no transpose
    mixed = minijax.make_jaxpr(lambda a, v: jnp.einsum("bhqk,bkhd->bqhd", a, v))(a, v)
    (dot,) = [e for e in mixed.eqns if e.primitive.name == "dot_general"]
    assert dot.invars == mixed.jaxpr.invars[::-1]  # (v, a): (b, h, d, q), then transposed
    assert dot.outvars[0].aval.shape == (2, 3, 4, 5)
    assert [e.primitive.name for e in mixed.eqns] == ["dot_general", "transpose"]
    np.testing.assert_allclose(
        np.asarray(jnp.einsum("bhqk,bkhd->bqhd", a, v)), np.einsum("bhqk,bkhd->bqhd", a, v))


def test_greedy_order_avoids_large_intermediate():
    # (a: 2x100, b: 100x100, c: 100x2): contracting a with b first keeps the intermediates small;
    # a left-to-right order would be the same; check that b and c (a 100x2 result) or a and b
    # (2x100) are paired, never an outer product.
    ops = [np.ones((2, 100)), np.ones((100, 100)), np.ones((100, 2))]
    path, report = jnp.einsum_path("ij,jk,kl->il", *ops)
    assert path[0] in ((0, 1), (1, 2))
    assert "elements" in str(report)  # opt_einsum's PathInfo, as JAX's
    # an outer product is deferred: 'i,j,ij->' pairs the matrix first
    ops = [np.ones(50), np.ones(60), np.ones((50, 60))]
    path, _ = jnp.einsum_path("i,j,ij->", *ops)
    assert path[0] in ((0, 2), (1, 2))


def test_einsum_interleaved_and_options():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((2, 3)).astype(np.float32)
    b = rng.standard_normal((3, 4)).astype(np.float32)
    check(jnp.einsum(a, [0, 1], b, [1, 2], [0, 2]), a @ b, tol=(1e-5, 1e-5))
    check(jnp.einsum(a, [0, 1], b, [1, 2]), np.einsum(a, [0, 1], b, [1, 2]), tol=(1e-5, 1e-5))
    for optimize in (False, True, "greedy", "optimal", [(0, 1)]):
        check(jnp.einsum("ij,jk", a, b, optimize=optimize), a @ b, tol=(1e-5, 1e-5))
    got = jnp.einsum("ij,jk->ik", a.astype(np.int8), b.astype(np.int8),
                     preferred_element_type=np.int32)
    check(got, a.astype(np.int8).astype(np.int32) @ b.astype(np.int8).astype(np.int32), np.int32)
    got = jnp.einsum("ij,jk->ik", a, b, precision=minijax.lax.Precision.HIGHEST)
    check(got, a @ b, tol=(1e-5, 1e-5))
    bf = jnp.einsum("ij,jk->ik", a.astype(jnp.bfloat16), b.astype(jnp.bfloat16),
                    preferred_element_type=np.float32)
    assert bf.dtype == np.float32


def test_einsum_grad_and_vmap():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((2, 3)).astype(np.float32)
    b = rng.standard_normal((3, 4)).astype(np.float32)
    ga, gb = minijax.grad(lambda a, b: jnp.einsum("ij,jk->", a, b), argnums=(0, 1))(a, b)
    check(ga, np.broadcast_to(b.sum(1), (2, 3)), tol=(1e-5, 1e-5))
    check(gb, np.broadcast_to(a.sum(0)[:, None], (3, 4)), tol=(1e-5, 1e-5))
    g = minijax.grad(lambda a: jnp.einsum("ii->", a))(np.ones((3, 3), np.float32))
    check(g, np.eye(3, dtype=np.float32))
    xs = np.stack([a, 2 * a])
    check(minijax.vmap(lambda x: jnp.einsum("ij,jk->ik", x, b))(xs), xs @ b, tol=(1e-5, 1e-5))


def test_einsum_errors():
    a = np.ones((2, 3), np.float32)
    with pytest.raises(ValueError, match="operand"):
        jnp.einsum("ij,jk", a)
    with pytest.raises(ValueError):
        jnp.einsum("ijk", a)
    with pytest.raises(ValueError):
        jnp.einsum("ij,jk->ik", a, np.ones((4, 2), np.float32))
    with pytest.raises(ValueError, match="output"):
        jnp.einsum("ij->iz", a)


def _brute_force_min_cost(shapes_by_label, inputs, out):
    """The fewest multiply-adds over EVERY pairwise contraction order (a plain recursion)."""
    def rec(groups):
        if len(groups) == 1:
            return 0
        best = None
        for i in range(len(groups)):
            for j in range(i + 1, len(groups)):
                rest = [g for k, g in enumerate(groups) if k not in (i, j)]
                both = groups[i] | groups[j]
                cost = int(np.prod([shapes_by_label[c] for c in both]))
                needed = set(out).union(*rest)
                total = cost + rec(rest + [frozenset(both & needed)])
                best = total if best is None else min(best, total)
        return best
    return rec([frozenset(s) for s in inputs])


@pytest.mark.parametrize("spec,sizes", [
    ("ab,bc,cd,de->ae", dict(a=2, b=30, c=40, d=3, e=50)),
    ("ab,bc,cd,de,ef->af", dict(a=20, b=2, c=30, d=2, e=40, f=3)),
    ("abc,cd,bde,ea->", dict(a=4, b=5, c=6, d=7, e=3)),
    ("ij,jk,kl,lm,mn,ni->", dict(i=3, j=9, k=2, l=8, m=4, n=7)),
])
def test_einsum_optimize_values(spec, sizes):
    from minijax.numpy.einsum import path_cost

    rng = np.random.default_rng(0)
    inputs, out = spec.split("->")
    inputs = inputs.split(",")
    ops = [rng.normal(size=[sizes[c] for c in s]).astype(np.float32) for s in inputs]
    want = np.einsum(spec, *[o.astype(np.float64) for o in ops])
    scale = np.abs(want).max() + 1
    best = _brute_force_min_cost(sizes, inputs, out)
    costs = {}
    for optimize in (False, True, "greedy", "optimal", "auto", "dp"):
        path, _ = jnp.einsum_path(spec, *ops, optimize=optimize)
        costs[optimize] = path_cost(path, inputs, out, sizes)
        got = minijax.jit(lambda *xs, o=optimize: jnp.einsum(spec, *xs, optimize=o))(*ops)
        np.testing.assert_allclose(np.asarray(got) / scale, want / scale, atol=2e-5)
    assert costs["optimal"] == costs[True] == costs["dp"] == best
    assert costs["greedy"] >= best and costs[False] >= best
    with pytest.raises(KeyError, match="Path optimizer 'fastest' not found"):  # opt_einsum's
        jnp.einsum(spec, *ops, optimize="fastest")
