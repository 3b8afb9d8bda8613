"""``jnp.matmul`` with unequal batch axes is one dot_general that never broadcasts an operand
(issue 9: a weight shared over a batch stays a plain (B*S, D) x (D, F) matmul)."""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp

SHAPES = [((3, 4, 5), (5, 6)), ((5,), (5, 6)), ((4, 5), (5,)), ((2, 3, 4, 5), (5, 6)),
          ((4, 5), (2, 3, 5, 6)), ((2, 1, 4, 5), (3, 5, 6)), ((1, 4, 5), (3, 5, 6)),
          ((3, 4, 5), (1, 5, 6)), ((2, 1, 4, 5), (1, 3, 5, 6)), ((3, 4, 5), (3, 5, 6)),
          ((5,), (2, 5, 6)), ((2, 3, 4, 5), (5,)), ((1, 1, 4, 5), (5, 6)), ((1, 4, 5), (5, 6)),
          ((4, 5), (1, 5, 6)), ((5,), (5,)), ((1, 5), (3, 2, 5, 1)), ((3, 1, 4, 5), (2, 5, 6))]


def _reduce_to(g, shape):
    g = g.sum(axis=tuple(range(g.ndim - len(shape))))
    return g.sum(axis=tuple(i for i, s in enumerate(shape) if s == 1), keepdims=True)


@pytest.mark.parametrize("sa,sb", SHAPES)
def test_matmul_broadcasting_values_and_grads(sa, sb):
    rng = np.random.default_rng(0)
    a = rng.normal(size=sa).astype(np.float32)
    b = rng.normal(size=sb).astype(np.float32)
    ref = a @ b
    for f in (jnp.matmul, minijax.jit(lambda a, b: a @ b)):
        out = np.asarray(f(a, b))
        assert out.shape == ref.shape
        np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)
    if a.ndim >= 2 and b.ndim >= 2:
        c = rng.normal(size=ref.shape).astype(np.float32)
        ga, gb = minijax.grad(lambda a, b: jnp.sum((a @ b) * c), argnums=(0, 1))(a, b)
        np.testing.assert_allclose(ga, _reduce_to(c @ np.swapaxes(b, -1, -2), sa), atol=1e-4)
        np.testing.assert_allclose(gb, _reduce_to(np.swapaxes(a, -1, -2) @ c, sb), atol=1e-4)


def test_shared_weight_is_not_broadcast():
    x = np.ones((2, 32, 64), np.float32)
    w = np.ones((64, 192), np.float32)
    jaxpr = minijax.make_jaxpr(minijax.grad(lambda w, x: jnp.sum(x @ w)))(w, x).jaxpr
    dots = [e for e in jaxpr.eqns if e.primitive.name == "dot_general"]
    assert len(dots) == 2
    for e in dots:
        assert e.params["dimension_numbers"][1] == ((), ())   # no batch axes
    # the weight's gradient is one contraction over (batch, sequence): no per-batch partials
    assert [e.outvars[0].aval.shape for e in dots] == [(2, 32, 192), (192, 64)]
    assert not any(e.primitive.name == "reduce_sum" and e.outvars[0].aval.ndim == 2
                   for e in jaxpr.eqns)
