"""Cases of tests/test_fidelity_r16_a.py: Python scalars through custom_jvp/custom_vjp and the
AD entry points (run 19000's s19000-455, s19025-57 and s19027-137,
tools/difftest/triage_19000_a.md).

JAX's ``bind`` canonicalizes a Python int/float/complex to its typed twin (TypedInt/TypedFloat/
TypedComplex) before a custom_jvp/custom_vjp function or rule sees it, ``vjp`` (so
``value_and_grad``) canonicalizes its primals, and ``jvp``/``linearize`` keep them as given: a
scalar that passes through untouched comes back so. Each case is a source string over ``jax``,
``jnp``, ``lax``, ``np`` and the functions of ``SETUP``, evaluated as is under JAX
(tests/data/record_fidelity_r16_a.py) and under minijax (the test).
"""
import numpy as np

SETUP = """
import functools
idv = jax.custom_vjp(lambda x: x)
idv.defvjp(lambda x: (x, None), lambda _, ct: (jnp.clip(ct, -0.75, 0.75),))
idj = jax.custom_jvp(lambda x: x)
idj.defjvp(lambda p, t: (p[0], t[0]))
mulv = jax.custom_vjp(lambda x, y: x * y)
mulv.defvjp(lambda x, y: (x * y, (x, y)), lambda r, ct: (3.0 * ct * r[1], ct * r[0]))
constv = jax.custom_vjp(lambda x: 2.0)
constv.defvjp(lambda x: (2.0, None), lambda _, ct: (0.0 * ct,))
pairj = jax.custom_jvp(lambda x, n: (x, n), nondiff_argnums=(1,))
pairj.defjvp(lambda n, p, t: ((p[0], n), (t[0], 0.0)))
pairv = jax.custom_vjp(lambda x, n: (x, n), nondiff_argnums=(1,))
pairv.defvjp(lambda x, n: ((x, n), None), lambda n, r, ct: (ct[0],))
"""

CASES = [
    # s19000-455 reduced: an eager custom_vjp identity of a Python float
    "idv(0.793256421412405)",
    "idv(3)", "idv(1+2j)", "idv(True)", "idj(0.5)", "idj(3)", "idj(1+2j)", "idj(True)",
    "idv((3, [2.5, {'a': 1j}]))", "mulv(0.5, 0.5)", "mulv(3, 3)", "constv(0.5)",
    "pairj(1.5, 2.5)", "pairv(1.5, 2)",
    "jax.jit(idv)(0.5)", "jax.vmap(lambda a: idj(0.5) * a)(jnp.ones(2))",
    "jax.jvp(lambda a: (a, idv(0.5), idj(3)), (1.0,), (1.0,))[0]",
    "jax.value_and_grad(lambda a: (a, idv(0.5)), has_aux=True)(1.0)",
    # s19025-57 reduced: vjp's primal outputs, through a custom_vjp and passed through
    "jax.vjp(lambda x: {'a': mulv(x, x), 'b': x}, -0.5)[0]",
    "jax.vjp(lambda x: (x, x * 2, jnp.sin(x), idv(x), idj(x), 2.0), -0.5)[0]",
    "jax.vjp(lambda x: (x, x * 2, idv(x)), 3)[0]",
    "jax.vjp(lambda x: (x, idj(x)), 1 + 1j)[0]",
    "jax.vjp(lambda x: (x, (x, 2.0)), -0.5, has_aux=True)[::2]",
    "jax.jvp(lambda x: (x, idj(x), x * 2), (-0.5,), (0.25,))",
    "jax.jvp(lambda x: (x, idj(x)), (1 + 1j,), (1j,))",
    "jax.linearize(lambda x: {'a': mulv(x, x), 'b': x, 'c': idv(x)}, -0.5)[0]",
    "jax.linearize(lambda x: (x, idv(x)), 3)[0]",
    "jax.linearize(lambda x: (x, x * 2), -0.5)[1](0.25)",
    "jax.value_and_grad(lambda x: x)(-0.5)",
    "jax.value_and_grad(lambda x: mulv(x, x))(-0.5)",
    "jax.value_and_grad(lambda x: (x, {'a': x, 'c': 2.0, 'i': idv(x)}), has_aux=True)(-0.5)",
    "jax.grad(lambda x: (x, x), has_aux=True)(-0.5)",
    # s19027-137 reduced: stop_gradient of vjp's TypedFloat input, under vjp of vjp too
    "jax.vjp(lambda x: lax.stop_gradient(x), 0.5)[0]",
    "jax.vjp(lambda x: jax.vjp(lambda y: lax.stop_gradient(y), x)[0], 0.5)[0]",
    "jax.linearize(lambda x: lax.stop_gradient(x), 0.5)[0]",
    "jax.jvp(lambda x: (x, lax.stop_gradient(x)), (0.5,), (1.0,))",
    "lax.stop_gradient(lax.stop_gradient(0.5))",
    "jax.jit(lambda: jax.vjp(lambda x: lax.stop_gradient(x), 0.5)[0])()",
]


def describe(x, tree_leaves):
    """Each leaf's Python type name (arrays as "Array"), dtype, weak type and value."""
    out = []
    for leaf in tree_leaves(x):
        weak = getattr(getattr(leaf, "aval", None), "weak_type", None)
        is_array = hasattr(leaf, "shape") and not isinstance(leaf, (int, float, complex))
        value = np.asarray(complex(leaf) if isinstance(leaf, complex) else leaf)
        value = np.stack([value.real, value.imag]) if np.iscomplexobj(value) else value
        out.append([type(leaf).__name__ if not is_array else "Array",
                    str(getattr(leaf, "dtype", None)), weak if is_array else None,
                    value.tolist()])
    return out
