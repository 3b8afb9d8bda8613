"""Regressions from oracle run 14000 (triage_14000_s S3, S5). Expected values, dtypes,
shardings and errors are JAX 0.10.2's, printed by tests/data/record_fidelity_r14_t2.py."""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import lax
from minijax.sharding import Mesh, NamedSharding, PartitionSpec as P


def _sh(a, spec=P("d")):
    mesh = Mesh(np.array(minijax.devices()[:2]), ("d",))
    return minijax.device_put(a, NamedSharding(mesh, spec))


# -- S3: sort's JVP gathers each tangent by the sort permutation ------------------------------


def test_sort_jvp_is_an_unsigned_iota_sort_and_a_gather():
    jaxpr = minijax.make_jaxpr(lambda x: minijax.jvp(jnp.sort, (x,), (x,)))(
        np.zeros(4, np.float32))
    (inner,) = [e for e in jaxpr.jaxpr.eqns if "jaxpr" in e.params]
    eqns = inner.params["jaxpr"].jaxpr.eqns
    names = [e.primitive.name for e in eqns]
    assert names.count("sort") == 1 and "gather" in names  # JAX: iota, sort, index, gather
    (iota,) = [e for e in eqns if e.primitive.name == "iota"]
    assert iota.outvars[0].aval.dtype == np.uint32


@pytest.mark.devices(2)
def test_sort_grad_split_on_the_sorted_axis_is_replicated():
    # s14032-16
    x = np.array([[3.0, 1.0, 2.0], [0.5, -1.0, 4.0]], np.float32)
    W = np.linspace(0.5, 1.5, 6).reshape(2, 3).astype(np.float32)
    g = minijax.jit(minijax.grad(lambda x: jnp.sum(jnp.sort(x, axis=0) * W)))(_sh(x))
    np.testing.assert_allclose(g, [[1.1, 1.3, 0.9], [0.5, 0.7, 1.5]], rtol=1e-6)
    assert g.dtype == np.float32
    assert isinstance(g.sharding, NamedSharding) and g.sharding.spec == P()


@pytest.mark.devices(2)
def test_sort_jacfwd_split_is_replicated():
    # s14058-164
    j = minijax.jit(minijax.jacfwd(jnp.sort))(_sh(np.array([3.0, 1.0, 2.0, 1.0], np.float32)))
    np.testing.assert_array_equal(j, [[0, 1, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0], [1, 0, 0, 0]])
    assert isinstance(j.sharding, NamedSharding) and j.sharding.spec == P()


# -- S5: no DCE rule for while (JAX 0.10.2 has scan's only) ----------------------------------


@pytest.mark.devices(2)
def test_while_dead_carry_keeps_the_split_argument():
    # s14049-359: the loop still carries the split x, so the program runs on the mesh
    r = minijax.jit(lambda x: lax.while_loop(
        lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2.0, c[2] + 1.0),
        (0, x, jnp.zeros(4)))[2])(_sh(np.arange(4.0, dtype=np.float32)))
    np.testing.assert_array_equal(r, [3.0, 3.0, 3.0, 3.0])
    assert isinstance(r.sharding, NamedSharding) and r.sharding.spec == P()


@minijax.custom_vjp
def _cv(a, b):
    return a * b


_cv.defvjp(lambda a, b: (a * b, (a, b)), lambda r, g: (g * r[1], g * r[0]))


def test_jvp_of_a_traced_bound_fori_loop_with_a_dead_custom_vjp_carry_raises():
    # traced bounds make the fori_loop a while, whose dead carry (the custom_vjp's tangent) JAX
    # keeps and refuses to differentiate forward
    def body(i, c):
        c1, c2 = c
        return jnp.sin(c1) * 2.0, _cv(c2, c2)

    x, y = jnp.array([0.3, -1.2]), jnp.array([0.5, 2.0])
    f = minijax.jit(lambda x, y, n: minijax.jvp(
        lambda x, y: lax.fori_loop(0, n, body, (x, y))[0], (x, y), (x, y)))
    with pytest.raises(TypeError, match=r"can't apply forward-mode autodiff \(jvp\) to a "
                       r"custom_vjp function\."):
        f(x, y, 2)
