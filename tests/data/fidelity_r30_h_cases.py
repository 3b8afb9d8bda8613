"""Cases of tests/test_fidelity_r30_h.py: the printed jaxprs of grad (and vmap of grad) through
jnp.linalg's cholesky, eigvalsh, svd (singular values) and qr, of slogdet's primal, and of
grad through a jit whose residual is one of its outputs (JAX's output-to-output forwarding), with
a few of their values, evaluated by JAX 0.10.2 (the recorder) and by minijax. Each is an
expression over SETUP's names giving a JSON-able outcome.
"""

SETUP = """
x = jnp.array([0.5, -1.25, 2.0], jnp.float32)
m = jnp.array([[0.5, -1.25, 2.0], [1.0, 3.0, -0.5]], jnp.float32)
A = jnp.array([[2.0, 0.5, -0.3], [0.1, 3.0, 0.7], [-0.4, 0.2, 1.5]], jnp.float32)
B = jnp.stack([A, A.T + jnp.eye(3)])
T = jnp.array([[2.0, 0.5], [0.1, 3.0], [-0.4, 0.2]], jnp.float32)
def jaxprs(f):
    return [str(jax.make_jaxpr(jax.grad(f))(x)), str(jax.make_jaxpr(jax.vmap(jax.grad(f)))(m))]
def gjaxpr(f, a):
    return str(jax.make_jaxpr(jax.grad(f))(a))
F = {
    "cholesky": lambda v: jnp.sum(jnp.linalg.cholesky(jnp.outer(v, v) + 3 * jnp.eye(3))),
    "svd": lambda v: jnp.sum(jnp.linalg.svd(jnp.outer(v, v) + jnp.eye(3), compute_uv=False)),
    "qr": lambda v: jnp.sum(jnp.linalg.qr(jnp.outer(v, v) + jnp.eye(3))[1]),
}
def vals():
    return [round(float(v), 4) for v in [
        jax.grad(lambda a: jnp.sum(jnp.linalg.cholesky(a @ a.T + jnp.eye(3))))(A).sum(),
        jax.grad(lambda a: jnp.sum(jnp.linalg.eigh(a)[0] * jnp.arange(3.)))(A).sum(),
        jax.grad(lambda a: jnp.sum(jnp.linalg.svd(a, compute_uv=False) ** 2))(A).sum(),
        jax.grad(lambda a: jnp.sum(jnp.linalg.qr(a)[1] ** 2))(A).sum(),
        jax.grad(lambda a: jnp.sum(jnp.linalg.qr(a)[1]))(T.T).sum(),
        jax.grad(lambda a: jnp.linalg.slogdet(a)[1])(A).sum(),
        jax.grad(lambda a: jnp.sum(jnp.linalg.svd(a, full_matrices=False)[0] ** 3))(A).sum(),
        jax.grad(lambda a: jnp.sum(jnp.linalg.svd(a, full_matrices=False)[2] ** 3))(T).sum(),
        jax.grad(lambda a: jnp.sum(jnp.linalg.svd(a, full_matrices=False)[0] ** 3))(T.T).sum()]]
"""

# eigh's JVP (its eigenvectors' F) groups 1 + (w_j - w_i) where JAX sums left to right: minijax
# keeps the exact derivative for large eigenvalues (sharp_bits), so its jaxprs differ there
CASES = [f"jaxprs(F[{k!r}])" for k in ("cholesky", "svd", "qr")] + [
    "str(jax.make_jaxpr(jnp.linalg.slogdet)(A))",
    "str(jax.make_jaxpr(jnp.linalg.slogdet)(B))",
    "gjaxpr(lambda a: jnp.sum(jnp.linalg.cholesky(a @ jnp.swapaxes(a, -1, -2) + jnp.eye(3))), B)",
    "str(jax.make_jaxpr(lambda a, t: jax.jvp(jnp.linalg.cholesky, (a,), (t,)))(A @ A.T, A))",
    "gjaxpr(lambda a: jnp.sum(jnp.linalg.eigvalsh(a)), A)",
    "gjaxpr(lambda a: jnp.sum(jnp.linalg.svd(a, compute_uv=False)), B)",
    "gjaxpr(lambda a: jnp.sum(jnp.linalg.svd(a, compute_uv=False)), T)",
    "gjaxpr(lambda a: jnp.sum(jnp.linalg.qr(a)[1]), B)",
    "gjaxpr(lambda a: jnp.sum(jnp.linalg.qr(a)[0]), A)",
    "gjaxpr(lambda a: jnp.sum(jnp.linalg.qr(a, mode='reduced')[1]), T)",
    "gjaxpr(lambda a: jnp.sum(jnp.linalg.qr(a)[1]), T.T)",
    "gjaxpr(lambda v: jnp.sum(jax.jit(jnp.exp)(v)), x)",
    "gjaxpr(lambda v: jnp.sum(jax.jit(lambda u: (jnp.tanh(u), u * 2))(v)[0]), x)",
    "vals()",
]
