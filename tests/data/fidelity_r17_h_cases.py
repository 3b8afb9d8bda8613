"""Cases of tests/test_fidelity_r17_h.py: the Python types of outputs that are operands passed
through (run 20000's s20003-410, s20004-734, s20014-553, s20023-159, s20024-252;
tools/difftest/triage_20000_h.md). JAX's bind canonicalizes a Python scalar operand to its
TypedInt/TypedFloat/TypedComplex (a bool stays a bool), and ``checkpoint`` evaluates its body
on the operands, so one it returns as is comes back typed; jit's linearization forwards a known
operand to its known output as given (vjp's typed primal, linearize's plain one).

Each case is a source string over ``jax``, ``jnp`` and ``np``, evaluated as is under JAX
(tests/data/record_fidelity_r17_h.py) and under minijax (the test).
"""

CASES = [
    # s20003-410 / s20023-159 / s20024-252 reduced: remat forwarding an input
    "jax.checkpoint(lambda x: {'a': x, 'b': x})(-0.35)",
    # s20004-734 reduced: eager checkpoint of the identity
    "jax.checkpoint(lambda x: x)(0.13 * 0.13)",
    "jax.checkpoint(lambda x, y: (x, y * 2))(3, 3)",
    "jax.checkpoint(lambda x, y: (x, y * 2))(True, True)",
    "jax.checkpoint(lambda x, y: (x, y), static_argnums=1)(1j, 1j)",
    "jax.checkpoint(jax.checkpoint(lambda y: y))(-0.5)",
    "jax.jvp(jax.checkpoint(lambda x: x), (-0.5,), (-0.5,))",
    "jax.jvp(jax.checkpoint(lambda x: x), (1j,), (1j,))",
    "jax.jvp(jax.jit(lambda x: x), (-0.5,), (-0.5,))",
    "jax.linearize(jax.checkpoint(lambda x: x), 1j)[0]",
    "jax.linearize(jax.jit(lambda x: x), -0.5)[0]",
    "jax.vjp(jax.checkpoint(lambda x: {'b': x}), 1j)[0]",
    "jax.value_and_grad(lambda x: jax.checkpoint(lambda y: y)(x).real)(-0.5)",
    "jax.vmap(lambda a, x: (a, jax.checkpoint(lambda y: y)(x)), in_axes=(0, None))"
    "(jnp.ones(2), -0.5)",
    "jax.jit(lambda x: jax.checkpoint(lambda y: y)(x))(-0.5)",
    "jax.grad(lambda x: jax.checkpoint(lambda y: (y, 3))(x)[0])(1.0)",
    # s20014-553 reduced: vjp of a jit forwarding its input
    "jax.vjp(jax.jit(lambda x0: {'b': x0}), -0.5)[0]",
    "jax.vjp(jax.jit(lambda x0: {'b': x0}), 3)[0]",
    "jax.vjp(jax.jit(lambda x0: {'b': x0}), True)[0]",
    "jax.vjp(jax.jit(lambda x, y: (x, y)), 3, jnp.float32(1))[0]",
    "jax.vjp(jax.jit(lambda x: (x, x)), 1j)[0]",
    "jax.vjp(jax.jit(lambda x: (x, 2.0)), 1.0)[0]",
    "jax.vjp(jax.jit(jax.jit(lambda x: x)), -0.5)[0]",
    "jax.vjp(jax.checkpoint(jax.jit(lambda x: x)), -0.5)[0]",
    "jax.value_and_grad(jnp.real)(-0.5)",
    "jax.vjp(jax.jit(lambda x: x * 2.0), -0.5)[1](1.0)",
]
