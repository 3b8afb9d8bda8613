"""Cases of tests/test_fidelity_r18_p.py: diagonals of empty arrays (run 21000's s21000-362,
tools/difftest/triage_21000_p.md). JAX extracts them by indexing, and its indexing makes an
empty result a constant, so their tangents are symbolic zeros: reverse mode through
``grad(gamma sample)`` then never transposes the gamma sampler's rejection loop.

Each case is a source string over ``jax``, ``jnp``, ``lax``, ``np`` and the SETUP helpers,
evaluated as is under JAX (tests/data/record_fidelity_r18_p.py) and under minijax (the test).
"""
import numpy as np

SETUP = '''
def outcome(thunk):
    try:
        return thunk()
    except Exception as e:
        return "raises " + type(e).__name__

def vjp_grad_gamma(f, x):
    # vjp of grad of a gamma sample whose alphas are f(x): transposes random_gamma_grad's
    # while loops unless f(x)'s tangent is a symbolic zero
    g = jax.grad(lambda x: jnp.sum(jax.random.gamma(jax.random.key(1), f(x) + 0.5)))
    out, pullback = jax.vjp(g, x)
    return out, pullback(jnp.ones_like(out))

def s21000_362(x1):
    t1 = x1 @ x1.T + 3 * jnp.eye(3, dtype=x1.dtype)
    alpha = jnp.abs(jnp.linalg.eigh(t1)[0]) + 0.5
    return jnp.log2(jax.random.gamma(jax.random.key(729), alpha))

def d12(x):
    return jnp.diagonal(x, axis1=1, axis2=2)

W = lax.broadcast(1.0, (0, 3, 3))  # weakly typed
'''

CASES = [
    # the record, reduced: vjp(grad(vmap(f))) over an empty batch
    "outcome(lambda: vjp_grad_gamma(jax.vmap(s21000_362), jnp.ones((0, 3, 3), jnp.complex64)))",
    "outcome(lambda: vjp_grad_gamma(jnp.linalg.eigvalsh, jnp.ones((0, 3, 3))))",
    "outcome(lambda: vjp_grad_gamma(lambda x: jnp.linalg.eigh(x)[0], jnp.ones((0, 0))))",
    "outcome(lambda: vjp_grad_gamma(lambda x: jnp.linalg.svd(x)[1], jnp.ones((0, 3, 3))))",
    "outcome(lambda: vjp_grad_gamma(lambda x: jnp.linalg.svd(x, compute_uv=False),"
    " jnp.ones((0, 3, 3))))",
    "outcome(lambda: vjp_grad_gamma(lambda x: jnp.linalg.svd(x, full_matrices=False)[1],"
    " jnp.ones((3, 0))))",
    # jnp.diagonal: empty results are constants, except a square matrix's main diagonal
    "outcome(lambda: vjp_grad_gamma(d12, jnp.ones((0, 3, 3))))",
    "outcome(lambda: vjp_grad_gamma(jnp.diagonal, jnp.ones((3, 3, 0))))",
    "outcome(lambda: vjp_grad_gamma(jnp.diagonal, jnp.ones((0, 3))))",
    "outcome(lambda: vjp_grad_gamma(lambda x: jnp.diagonal(x, 3), jnp.ones((3, 3))))",
    "outcome(lambda: vjp_grad_gamma(jnp.diagonal, jnp.ones((0, 0))))",
    # the vjp of an eigenvector still transposes the loops, in both
    "outcome(lambda: vjp_grad_gamma(lambda x: jnp.linalg.eigh(x)[1][..., 0], jnp.ones((0, 3, 3))))",
    # the constant keeps the input's weak type
    "d12(W)", "jnp.diagonal(lax.broadcast(1.0, (2, 3, 0)))", "jnp.diagonal(lax.broadcast(1.0, (2, 3)), 5)",
]


def describe(x, tree_leaves):
    """Each leaf's dtype, shape, weak type and value (real and imaginary parts), JSON-ready;
    a string as is."""
    if isinstance(x, str):
        return x
    out = []
    for leaf in tree_leaves(x):
        value = np.asarray(leaf)
        value = np.stack([value.real, value.imag]) if np.iscomplexobj(value) else value
        out.append([str(leaf.dtype), list(leaf.shape), bool(leaf.aval.weak_type),
                    value.tolist()])
    return out
