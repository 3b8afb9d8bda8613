"""Cases for tests/test_fidelity_r18_v.py (tools/difftest/triage_22000_v.md): weak types through
linalg, dot_general and einsum, and jnp.linalg.diagonal/trace's axes. ``w``/``wi`` are weakly
typed matrices, ``s`` a strong one, ``w3`` a weak batch of matrices."""

SETUP = """
w = lax.broadcast(2.0, (3, 3))
wi = lax.broadcast(2, (3, 3))
w3 = lax.broadcast(2.0, (2, 3, 3))
w34 = lax.broadcast(2.0, (3, 4))
s = jnp.ones((3, 3), jnp.float32)
v = lax.broadcast(1.0, (3,))
dn = (((1,), (0,)), ((), ()))
x234 = jnp.arange(24.0).reshape(2, 3, 4)
"""

CASES = [
    # linalg primitives: weak when every operand is (lu's int32 outputs too)
    "lax.linalg.cholesky(w)",
    "lax.linalg.lu(w3)",
    "lax.linalg.qr(w34)",
    "lax.linalg.svd(w34)",
    "lax.linalg.svd(w, compute_uv=False)",
    "lax.linalg.eigh(w3)",
    "lax.linalg.eig(w)",
    "lax.linalg.schur(w)",
    "lax.linalg.hessenberg(w)",
    "lax.linalg.householder_product(w, lax.broadcast(1.0, (3,)))",
    "lax.linalg.householder_product(w, jnp.ones((3,)))",
    "lax.linalg.triangular_solve(w, s, left_side=True)",
    # jnp.linalg over them
    "jnp.linalg.eigh(w)",
    "jnp.linalg.eigvalsh(w3)",
    "jnp.linalg.cholesky(w3)",
    "jnp.linalg.svd(w34)",
    "jnp.linalg.qr(w)",
    "jnp.linalg.eigvals(w)",
    "jnp.linalg.solve(w, w)",
    "jnp.linalg.solve(w, v)",
    "jnp.linalg.solve(w, s)",
    "jnp.linalg.lstsq(w, w)",
    "jnp.linalg.matrix_power(w, 3)",
    "jnp.linalg.eigh(lax.broadcast(2, (3, 3)))",
    "jax.jvp(lax.linalg.eigh, (w,), (w,))",
    "jax.jvp(jnp.linalg.eigvalsh, (w,), (w,))",
    # diagonal: JAX's square 2-D main diagonal is platform_dependent's (strong) output
    "jnp.diagonal(w)",
    "jnp.diagonal(wi)",
    "jnp.diagonal(lax.broadcast(2.0, (0, 0)))",
    "jnp.diagonal(w, 1)",
    "jnp.diagonal(w3)",
    "jnp.diag(w)",
    "jnp.trace(w)",
    "jax.jit(jnp.diagonal)(w)",
    "jax.vmap(jnp.diagonal)(w3)",
    # jnp.linalg.diagonal/trace read the last two axes
    "jnp.linalg.diagonal(w)",
    "jnp.linalg.diagonal(x234, offset=1)",
    "jnp.linalg.diagonal(w3, offset=-1)",
    "jnp.linalg.trace(x234)",
    "jnp.linalg.trace(x234, offset=1, dtype=jnp.int32)",
    # dot_general and what builds on it
    "lax.dot(w, w)",
    "lax.dot(w, s)",
    "lax.dot_general(wi, wi, dn, preferred_element_type=jnp.float32)",
    "w @ w",
    "wi @ wi",
    "jnp.vdot(w, w)",
    "jnp.einsum('ij,jk->ik', w, w)",
    "jnp.einsum('ij,jk->ik', w, w, preferred_element_type=jnp.float32)",
    "jnp.einsum('ij,jk->ik', wi, w)",
    "jnp.einsum('ii->i', w)",
    "jnp.einsum('ij->ji', w)",
    "jnp.einsum('ij,jk,kl->il', w, w, s)",
]


def describe(out, leaves, typeof):
    """Each leaf's dtype, shape, weak type and values (real part, 4 decimals)."""
    import numpy as np
    return [[str(x.dtype), list(x.shape), bool(typeof(x).weak_type),
             np.round(np.asarray(x).astype(complex).real, 4).tolist()] for x in leaves(out)]
