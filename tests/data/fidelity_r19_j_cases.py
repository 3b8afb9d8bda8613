"""Cases for tests/test_fidelity_r19_j.py: lax.linalg.eigh's ``sort_eigenvalues`` and
``subset_by_index``, lax.linalg.svd's ``subset_by_index`` and jnp.linalg.svd's (with its
``hermitian`` route through eigh): on CPU, what JAX 0.10.2 computes and refuses, how and when,
and the shapes it gives. Each case is Python evaluated with ``jax``, ``jnp``, ``L``
(jax.lax.linalg) and ``np`` bound, after ``SETUP``; ``describe`` (r19_f's) turns its outcome
into JSON."""
from fidelity_r19_f_cases import describe

__all__ = ["CASES", "SETUP", "describe"]  # describe: r19_f's, for the test and recorder

SETUP = """
A = jnp.array([[2., 1.], [1., 3.]])
T = jnp.array([[2., 1., 0.], [1., 3., 1.], [0., 1., 5.]])
X = jnp.array([[1., 2.], [3., 4.], [5., 7.]])
C = jnp.array([[2., 1 - 1j], [1 + 1j, -3.]])
Z = jnp.zeros((0, 3))
def shapes(f, *args):
    return [(a.shape, str(a.dtype)) for a in jax.make_jaxpr(f)(*args).out_avals]
def params(f, *args):
    return jax.make_jaxpr(f)(*args).jaxpr.eqns[-1].params
"""

CASES = [
    # eigh: the whole range (0, n) computes; any other is refused when compiled (not traced)
    "L.eigh(A, subset_by_index=(0, 2))",
    "L.eigh(T, subset_by_index=(np.int64(0), np.int64(3)))",
    "L.eigh(T, subset_by_index=(0, 2))",
    "L.eigh(T, subset_by_index=(1, 3))",
    "jax.jit(lambda x: L.eigh(x, subset_by_index=(0, 1)))(T)",
    "shapes(lambda x: L.eigh(x, subset_by_index=(1, 3)), T)",
    "shapes(jax.vmap(lambda x: L.eigh(x, subset_by_index=(0, 1))), jnp.stack([T, T]))",
    "jax.jit(lambda x: (L.eigh(x, subset_by_index=(0, 2)), x)[1])(T)",
    "L.eigh(jnp.zeros((0, 0)), subset_by_index=(0, 0))",
    "L.eigh(jnp.zeros((0, 0)), subset_by_index=(0, 1))",
    "L.eigh(T, subset_by_index=(0, 2), implementation=L.EighImplementation.QDWH)",
    "L.eigh(T, subset_by_index=(0, None))",
    # its derivative refuses a partial range while tracing
    "jax.jvp(lambda x: L.eigh(x, subset_by_index=(0, 2)), (T,), (T,))",
    "jax.make_jaxpr(lambda x: jax.jvp(lambda y: L.eigh(y, subset_by_index=(0, 2)), (x,), (x,)))(T)",
    "jax.jvp(lambda x: L.eigh(x, subset_by_index=(0, 3)), (T,), (T,))",
    # sort_eigenvalues=False: CPU sorts anyway
    "L.eigh(T, sort_eigenvalues=False)",
    "jax.grad(lambda x: L.eigh(x, sort_eigenvalues=False)[1][0])(T)",
    "params(lambda x: L.eigh(x, sort_eigenvalues=False), T)",
    "params(lambda x: L.eigh(x, subset_by_index=(0, 1)), T)",
    # svd: full_matrices with a range other than (0, k) is refused while tracing (ValueError,
    # even without compute_uv); otherwise as eigh's
    "L.svd(X, subset_by_index=(0, 1))",
    "shapes(lambda x: L.svd(x, subset_by_index=(0, 1)), X)",
    "L.svd(X, compute_uv=False, subset_by_index=(0, 1))",
    "L.svd(X, subset_by_index=(0, 2))",
    "L.svd(X, full_matrices=False, subset_by_index=(0, 2))",
    "L.svd(X, full_matrices=False, compute_uv=False, subset_by_index=(0, 2))",
    "L.svd(X, full_matrices=False, subset_by_index=(0, 1))",
    "L.svd(X, full_matrices=False, compute_uv=False, subset_by_index=(1, 2))",
    "shapes(lambda x: L.svd(x, full_matrices=False, subset_by_index=(1, 2)), X)",
    "shapes(lambda x: L.svd(x, full_matrices=False, subset_by_index=(0, 5)), X)",
    "L.svd(X, full_matrices=False, subset_by_index=(0, 5))",
    "L.svd(Z, full_matrices=False, subset_by_index=(0, 0))",
    "L.svd(Z, full_matrices=False, subset_by_index=(0, 1))",
    "L.svd(X, full_matrices=False, subset_by_index=(0, 1), algorithm=L.SvdAlgorithm.JACOBI)",
    "jax.jit(lambda x: (L.svd(x, full_matrices=False, subset_by_index=(0, 1)), x)[1])(X)",
    # its derivative passes the range on: traced, then refused when compiled
    "shapes(lambda x: jax.jvp(lambda y: L.svd(y, full_matrices=False, subset_by_index=(0, 1)), (x,), (x,)), X)",
    "jax.jvp(lambda x: L.svd(x, full_matrices=False, subset_by_index=(0, 1)), (X,), (X,))",
    "jax.jvp(lambda x: L.svd(x, full_matrices=False, subset_by_index=(0, 2)), (X,), (X,))",
    "params(lambda x: L.svd(x, full_matrices=False, subset_by_index=(0, 2)), X)",
    # jnp.linalg.svd passes subset_by_index on (a static argument of its jit)
    "jnp.linalg.svd(X, full_matrices=False, subset_by_index=(0, 2))",
    "jnp.linalg.svd(X, subset_by_index=(0, 1))",
    "jnp.linalg.svd(X, compute_uv=False, subset_by_index=(0, 1))",
    "jnp.linalg.svd(X, full_matrices=False, subset_by_index=(0, 1))",
    # full_matrices reaches lax's svd without compute_uv too (matrix_rank's is False)
    "[f'full_matrices={b}' in str(jax.make_jaxpr(f)(X)) for b in (True, False) for f in "
    "(lambda x: jnp.linalg.svd(x, compute_uv=False), jnp.linalg.matrix_rank)]",
    # hermitian=True goes through eigh: |w| descending, U its eigenvectors, Vh = (U sign(w))^H
    "jnp.linalg.svd(T - 2.5 * jnp.eye(3), hermitian=True)",
    "jnp.linalg.svd(T - 2.5 * jnp.eye(3), hermitian=True, compute_uv=False)",
    "jnp.linalg.svd(C, hermitian=True)",
    "jnp.linalg.svd(jnp.stack([T, -T]), full_matrices=False, hermitian=True)",
    "jnp.linalg.svd(T, hermitian=True, subset_by_index=(0, 2))",
    "jnp.linalg.pinv(T - 2.5 * jnp.eye(3), hermitian=True)",
    "jnp.linalg.matrix_rank(jnp.ones((3, 3)), hermitian=True)",
    "jax.grad(lambda x: jnp.linalg.svd(x, hermitian=True, compute_uv=False)[0])(T)",
]
