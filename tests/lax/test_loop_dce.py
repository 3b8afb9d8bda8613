"""Dead-code elimination of loop carries, as JAX 0.10.2's scan DCE: a carry that no used output
needs (directly or through another live carry) goes, with what computes it; a while keeps its.
Expected values are JAX 0.10.2's (recorded by running the same programs under /work/venv_jax)."""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import lax
from minijax.interpreters.partial_eval import dce_jaxpr
from minijax.test_util import check_grads


@minijax.custom_vjp
def cv(a, b):
    return a * b


cv.defvjp(lambda a, b: (a * b, (a, b)), lambda r, g: (g * r[1], g * r[0]))


def dead_custom_vjp_carry(x, y):
    def body(i, c):
        c1, c2 = c
        return jnp.sin(c1) * 2.0, cv(c2, c2)

    return lax.fori_loop(0, 2, body, (x, y))[0]


def test_dead_carry_with_a_custom_vjp_tangent_lowers():
    # s4006-581's class (FINDINGS 97): the custom_vjp's forward tangent rides in carry c2,
    # which no output reads. JAX 0.10.2 drops it before lowering; minijax raised "can't apply
    # forward-mode autodiff (jvp) to a custom_vjp function".
    x, y = jnp.array([0.3, -1.2]), jnp.array([0.5, 2.0])
    out, tan = minijax.jit(lambda x, y: minijax.jvp(dead_custom_vjp_carry, (x, y), (x, y)))(x, y)
    np.testing.assert_allclose(out, [1.1144506, -1.9146005], rtol=1e-6)  # JAX 0.10.2
    np.testing.assert_allclose(tan, [0.9519295, 0.5028287], rtol=1e-6)


def _through_another(x):
    # c2 is read only by c1's update (live through c1); c3 is dead (sqrt of a negative),
    # and with it the closed-over x its update reads.
    def body(c, _):
        c1, c2, c3 = c
        return (c1 * jnp.cos(c2), c2 * 1.5, jnp.sqrt(c3) * x), None

    return lax.scan(body, (x, x * 0.5, -x), None, length=3)[0][0].sum()


def _while_dead(x):
    def body(c):
        i, c1, c3 = c
        return i + 1, c1 * jnp.sin(c1) + x, jnp.log(c3) * x

    return lax.while_loop(lambda c: c[0] < 3, body, (0, x, -x))[1].sum()


def _loop_eqn(closed, prim):
    (eqn,) = [e for e in closed.jaxpr.eqns if e.primitive.name == prim]
    return eqn


def test_scan_keeps_a_carry_needed_through_another_and_drops_the_dead_one(x64):
    closed = minijax.make_jaxpr(_through_another)(np.array([0.3, 1.2]))
    before = _loop_eqn(closed, "scan")
    assert before.params["num_carry"] == 3 and len(before.outvars) == 3
    after = _loop_eqn(dce_jaxpr(closed), "scan")
    assert after.params["num_carry"] == 2 and len(after.outvars) == 2
    body_before, body_after = before.params["jaxpr"].jaxpr, after.params["jaxpr"].jaxpr
    assert len(body_after.eqns) == len(body_before.eqns) - 2  # sqrt and its product
    assert not any(e.primitive.name == "sqrt" for e in body_after.eqns)
    assert len(body_after.invars) == len(body_before.invars) - 2  # c3 and the const x


def test_while_keeps_its_dead_carry(x64):
    # JAX 0.10.2 has no DCE rule for while (only scan's): a used while stays whole
    closed = minijax.make_jaxpr(_while_dead)(np.array([0.3, 1.2]))
    after = _loop_eqn(dce_jaxpr(closed), "while")
    assert len(after.outvars) == 3
    assert any(e.primitive.name == "log" for e in after.params["body_jaxpr"].jaxpr.eqns)


def test_results_and_derivatives_match_jax_and_finite_differences(x64):
    x = jnp.array([0.3, 1.2])
    np.testing.assert_allclose(minijax.jit(minijax.grad(_through_another))(x),
                               [0.7343041176423978, -0.7369789348505077], rtol=1e-12)
    np.testing.assert_allclose(minijax.grad(_through_another)(x),
                               [0.7343041176423978, -0.7369789348505077], rtol=1e-12)
    one = jnp.ones_like(x)
    jvp = lambda f: minijax.jit(lambda x: minijax.jvp(f, (x,), (one,)))(x)  # noqa: E731
    np.testing.assert_allclose(jvp(_through_another),
                               [0.40767214279777153, -0.002674817208109914], rtol=1e-12)
    np.testing.assert_allclose(jvp(_while_dead), [2.387045737676029, 6.377458513330881],
                               rtol=1e-12)
    # the live part only: the dead carry's NaNs (sqrt/log of negatives) do not reach these
    check_grads(_through_another, (x,), 1, modes=("fwd", "rev"), jit=True)
    check_grads(_while_dead, (x,), 1, modes=("fwd",), jit=True)


@pytest.mark.parametrize("num_dead", [1, 2])
def test_jit_drops_dead_carries_before_lowering(num_dead):
    # a dead carry whose body would fail to lower (the custom_vjp's tangent) under several
    # live ones; the scan's other outputs (ys) stay
    def f(x, y):
        def body(c, _):
            live, *dead = c
            return (live * 2.0, *[cv(d, d) for d in dead]), live + 1.0

        carry, ys = lax.scan(body, (x, *[y] * num_dead), None, length=2)
        return carry[0], ys

    x, y = jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0])
    (c, ys), (dc, dys) = minijax.jit(lambda x, y: minijax.jvp(f, (x, y), (x, y)))(x, y)
    np.testing.assert_allclose(c, [4.0, 8.0])
    np.testing.assert_allclose(dc, [4.0, 8.0])
    np.testing.assert_allclose(ys, [[2.0, 3.0], [3.0, 5.0]])
    np.testing.assert_allclose(dys, [[1.0, 2.0], [2.0, 4.0]])
