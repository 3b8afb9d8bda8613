"""Oracle run 24000, helper N (tools/difftest/triage_24000_n.md): FINDINGS 165, where JAX 0.10.2's
scan drops a custom_jvp rule from the known loop, so an outer derivative of the loop's primal
differentiates the function's implementation (here relu's `max(x, 0)`, 0.5 at the tie). minijax
keeps the rule, as JAX itself does without the scan. Expected values are JAX 0.10.2's for the
same programs unrolled (and its plain `grad`), not minijax's own."""

import numpy as np

import minijax
import minijax.numpy as jnp
from minijax import lax, nn

X = np.array([3.5, 1e-45, 0., -1.], np.float32)  # 1e-45: a subnormal, 0 on the CPU (DAZ)


def _scan(c):
    return lax.scan(lambda c, _: (nn.relu(c), None), c, None, length=3, reverse=True)[0]


def test_grad_of_value_and_grads_value_is_grad_through_a_relu_scan():
    # s24047-112 reduced. JAX 0.10.2: grad(L) = [1, 0, 0, 0] but grad of value_and_grad(L)'s
    # value (the same function) = [1, .125, .125, 0]: (1/2)^3, max's tie split per iteration.
    loss = lambda c: _scan(c).sum()  # noqa: E731
    want = np.array([1., 0., 0., 0.], np.float32)
    np.testing.assert_array_equal(np.asarray(minijax.grad(loss)(X)), want)
    got = minijax.grad(lambda c: minijax.value_and_grad(loss)(c)[0])(X)
    np.testing.assert_array_equal(np.asarray(got), want)


def test_jacfwd_of_grad_of_a_logaddexp_scan_is_the_unrolled_loops():
    # s24001-14 reduced: a bfloat16 carry through 3 steps of logaddexp(c ** c, c ** c). JAX
    # 0.10.2: scan 15744 at [0, 0], its unrolled loop -245760 (bfloat16 rounding in logaddexp's
    # rule; the exact value is 13706.3: neither side is accurate in bfloat16).
    x = jnp.array([[1.109375, .380859375, -.1689453125], [-.71484375, 1.6953125, -.6484375]],
                  jnp.bfloat16)
    w = np.linspace(.5, 1.5, 6).reshape(2, 3).astype(jnp.bfloat16)

    def body(c, _):
        t = jnp.power(c, c)
        return jnp.logaddexp(t, t), None

    h = minijax.jacfwd(minijax.grad(
        lambda c: jnp.sum(w * lax.scan(body, c, None, length=3)[0])))(x)
    h = np.asarray(h.astype(jnp.float32)).reshape(6, 6)
    assert h[0, 0] == -245760. and h[1, 1] == 30.  # JAX 0.10.2 unrolled: -245760, 30
