"""Cases for tests/test_fidelity_r18_x.py: lax.linalg.tridiagonal, tridiagonal_solve,
symmetric_product, cholesky_update and ormqr.
Each case is an expression evaluated with jax (or minijax as jax), jnp, lax and np in scope,
after SETUP; ``describe`` turns its outcome into JSON."""
import numpy as np

SETUP = """
L = lax.linalg
rng = np.random.default_rng(0)
A = rng.standard_normal((2, 4, 4))
C = (A + 1j * rng.standard_normal((2, 4, 4))).astype(np.complex64)
DL, D, DU = rng.standard_normal((3, 2, 5))
D = D + 4.0
B = rng.standard_normal((2, 5, 3))
SA = rng.standard_normal((2, 4, 3))
SC = rng.standard_normal((2, 4, 4))
R = np.triu(rng.standard_normal((4, 4))) + 3 * np.eye(4)
W = rng.standard_normal(4)
import scipy.linalg as sl
QA = rng.standard_normal((2, 5, 3))
RAW = [sl.qr(q, mode="raw")[0] for q in QA]  # LAPACK geqrf's reflectors and factors
(H, T), H2, T2 = RAW[0], np.stack([h for h, _ in RAW]), np.stack([t for _, t in RAW])
(HC, TC), _ = sl.qr(QA[0] + 1j * QA[1], mode="raw")
QC = rng.standard_normal((2, 5, 2))
def solve_sum(dl, d, du, b):
    return jnp.sum(jnp.sin(L.tridiagonal_solve(dl, d, du, b)))
"""

CASES = [
    "L.tridiagonal(A)",
    "L.tridiagonal(A, lower=False)",
    "L.tridiagonal(A[0].astype(np.float32))",
    "L.tridiagonal(C)",
    "L.tridiagonal(C, lower=False)",
    "jax.vmap(lambda a: L.tridiagonal(a, lower=False), in_axes=2)(A)",
    "jax.vmap(lambda a: L.tridiagonal(a, lower=False))(A)",
    "L.tridiagonal(jnp.ones((1, 1)))",
    "L.tridiagonal(lax.broadcast(2.0, (2, 2)))",
    "L.tridiagonal(jnp.ones((3, 3), jnp.int32))",
    "L.tridiagonal(jnp.ones(3))",
    "L.tridiagonal(jnp.ones((3, 4)))",
    "L.tridiagonal(jnp.ones((0, 0)))",
    "L.tridiagonal(jnp.ones((3, 3), jnp.float16))",
    "jax.jvp(lambda a: L.tridiagonal(a)[1], (A[0],), (A[1],))",
    "L.tridiagonal_solve(DL, D, DU, B)",
    "L.tridiagonal_solve(*(x.astype(np.complex64) for x in (DL, D, DU, B)))",
    "jax.jit(L.tridiagonal_solve)(DL, D, DU, B)",
    "L.tridiagonal_solve(*[lax.broadcast(1.0, (3,))] * 3, lax.broadcast(2.0, (3, 1)))",
    "L.tridiagonal_solve(*[lax.broadcast(1.0, (3,))] * 3, jnp.ones((3, 1)))",
    "L.tridiagonal_solve(DL[0], 0 * D[0], DU[0], B[0])",
    "L.tridiagonal_solve(DL[0], 0 * D[0], DU[0], B[0], perturb_singular=True)",
    "jax.grad(solve_sum, argnums=(0, 1, 2, 3))(DL, D, DU, B)",
    "jax.jvp(solve_sum, (DL, D, DU, B), (B[..., 0], DL, D, B))",
    "jax.jvp(lambda b: L.tridiagonal_solve(DL, D, DU, b), (B,), (B * 2,))",
    "jax.vmap(L.tridiagonal_solve, in_axes=(None, None, None, 2))(DL[0], D[0], DU[0], B)",
    "jax.vmap(L.tridiagonal_solve, in_axes=(0, 0, None, 0))(DL, D, DU[0], B)",
    "jax.vmap(L.tridiagonal_solve, in_axes=(None, None, None, 2))(DL, D, DU, B)",
    "jax.vmap(jax.grad(solve_sum, argnums=(1, 3)))(DL, D, DU, B)",
    "L.tridiagonal_solve(jnp.ones(3), jnp.ones(3), jnp.ones(3), jnp.ones(3))",
    "L.tridiagonal_solve(jnp.ones(3), jnp.ones(3), jnp.ones(2), jnp.ones((3, 1)))",
    "L.tridiagonal_solve(jnp.ones(3), jnp.ones(3), jnp.ones(3), jnp.ones((4, 1)))",
    "L.tridiagonal_solve(jnp.ones(3, jnp.int32), jnp.ones(3), jnp.ones(3), jnp.ones((3, 1)))",
    "L.tridiagonal_solve(jnp.ones(3, jnp.float32), jnp.ones(3), jnp.ones(3), jnp.ones((3, 1)))",
    "L.tridiagonal_solve(1.0, 2.0, 3.0, 4.0)",
    "L.symmetric_product(SA, SC)",
    "L.symmetric_product(SA, SC, alpha=2, beta=-0.5, symmetrize_output=True)",
    "jax.jit(lambda a, c: L.symmetric_product(a, c, alpha=0.3))(SA[0].astype(np.float32), SC[0])",
    "L.symmetric_product(SA[0].astype(np.float32), SC[0].astype(np.float32), beta=1)",
    "jax.vmap(L.symmetric_product, in_axes=(0, None))(SA, SC[0])",
    "L.symmetric_product(lax.broadcast(1.0, (2, 2)), lax.broadcast(1.0, (2, 2)))",
    "L.symmetric_product(SA.astype(np.complex64), SC.astype(np.complex64))",
    "L.symmetric_product(SA, SC[..., :3, :3])",
    "L.symmetric_product(SA, SC[0])",
    "L.symmetric_product(SA, SC.astype(np.int32))",
    "jax.jvp(lambda a: L.symmetric_product(a, SC), (SA,), (SA,))",
    "L.cholesky_update(R, W)",
    "jax.jit(L.cholesky_update)(R, 0 * W)",
    "L.cholesky_update(np.zeros((3, 3)), np.array([0.0, 2.0, 0.0]))",
    "L.cholesky_update(lax.broadcast(1.0, (2, 2)), lax.broadcast(1.0, (2,)))",
    "L.cholesky_update(R, W[:3])",
    "L.cholesky_update(R[None], W[None])",
    "L.cholesky_update(R.astype(np.complex64), W.astype(np.complex64))",
    "jax.vmap(L.cholesky_update)(R[None], W[None])",
    "jax.jvp(lambda r: L.cholesky_update(r, W), (R,), (R,))",
    "[L.ormqr(H, T, c, left=l, transpose=t) for l, c in ((True, QC[0]), (False, QC[0].T))"
    " for t in (False, True)]",
    "L.ormqr(H2, T2, QC)",
    "L.ormqr(H.astype(np.float32), T.astype(np.float32), QC[0].astype(np.float32))",
    "[L.ormqr(HC, TC, QC[0] + 0j, transpose=t) for t in (False, True)]",
    "jax.jit(lambda c: L.ormqr(H2, T2, c, left=False, transpose=True))(QC.transpose(0, 2, 1))",
    "jax.vmap(L.ormqr, in_axes=(None, None, 0))(H, T, QC)",
    "jax.vmap(L.ormqr, in_axes=(0, 0, None))(H2, T2, QC[0])",
    "L.ormqr(H, T, QC[0].T)",
    "L.ormqr(H, T, QC[0], left=False)",
    "L.ormqr(H, T, QC[0].astype(np.int32))",
    "L.ormqr(H, T2, QC[0])",
    "jax.jvp(lambda c: L.ormqr(H, T, c), (QC[0],), (QC[0],))",
]


def describe(thunk, leaves):
    """Dtype, shape, weak type and values of each leaf (rounded to 10 significant digits), or
    the error's type and message."""
    try:
        out = thunk()
    except Exception as e:  # noqa: BLE001 - the error is the outcome
        return {"error": type(e).__name__, "message": str(e).split("\n")[0]}
    res = []
    for x in leaves(out):
        v = np.asarray(x)
        vals = np.stack([v.real, v.imag], -1) if v.dtype.kind == "c" else v
        res.append({"dtype": str(v.dtype), "shape": list(v.shape),
                    "weak": bool(getattr(x, "weak_type", False)),
                    "values": [float(f"{t:.10g}") for t in vals.astype(np.float64).ravel()]})
    return res
