"""Cases of tests/test_fidelity_r20_m.py: ``lax.linalg.qr`` with JAX 0.10.2's ``pivoting`` and
``use_magma`` (LAPACK's geqp3 on the CPU), and ``scipy.linalg.qr`` / ``qr_multiply`` on it.

Each case is a source string over ``jax``, ``jnp``, ``lax``, ``np``, ``scipy_linalg`` and the
matrices of SETUP, evaluated as is under JAX (tests/data/record_fidelity_r20_m.py) and under
minijax (the test).
"""
import re

import numpy as np

# The matrices share their shapes where the shape is not what a case checks (T and E are S's
# 4 x 4, D and D.T are W's and A's): each shape of an eager qr compiles once.
SETUP = """
rng = np.random.RandomState(20)
A = rng.randn(5, 3).astype(np.float32)                       # tall
W = rng.randn(3, 5).astype(np.float32)                       # wide
S = rng.randn(4, 4).astype(np.float32)                       # square
C = (rng.randn(4, 3) + 1j * rng.randn(4, 3)).astype(np.complex64)
B = rng.randn(2, 4, 3).astype(np.float32)                    # batched
T = np.array([[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0], [0, 0, 1, 1]],
             np.float32)                                     # equal column norms: ties
E = np.eye(4, dtype=np.float32)[:, [2, 0, 3, 1]]             # ties, already orthonormal
u = rng.randn(3).astype(np.float32)
v = rng.randn(3).astype(np.float32)
D = np.stack([u, 2 * u, v, u - v, np.zeros(3, np.float32)], 1)  # rank 2, 3 x 5
P = lambda x, **kw: lax.linalg.qr(x, pivoting=True, **kw)
"""

CASES = [
    "P(A)", "P(A, full_matrices=False)", "P(W)", "P(W, full_matrices=False)", "P(S)",
    "P(C)", "P(C, full_matrices=False)", "P(B)", "P(B, full_matrices=False)",
    "P(T)", "P(E)", "P(D)", "P(D.T)", "P(D, full_matrices=False)",
    "P(np.zeros((3, 5), np.float32))", "P(np.ones((4, 4), np.float32))",
    "P(np.zeros((0, 3), np.float32))", "P(np.zeros((3, 0), np.float32))",
    "P(np.zeros((2, 0, 3), np.float32), full_matrices=False)",
    "P(A, use_magma=True)", "lax.linalg.qr(A, use_magma=False)",
    "lax.linalg.qr(A, pivoting=False)", "lax.linalg.qr(W, full_matrices=False)",
    "jax.jit(P)(A)", "jax.jit(P, static_argnames='full_matrices')(C, full_matrices=False)",
    "jax.vmap(P)(B)", "jax.vmap(P, in_axes=2)(B.transpose(1, 2, 0))",
    "jax.vmap(lambda x: P(x, full_matrices=False), in_axes=1)(B.transpose(1, 0, 2))",
    # JVPs: square, tall full (the thin rule and the arXiv 2409.13374 block), wide, complex,
    # and gradients; all under one jit: one compile, where eager dispatch compiles each of the
    # rule's ~40 ops
    "jax.jit(lambda S, A, W, C: ("
    "jax.jvp(P, (S,), (S.T,)), jax.jvp(P, (A,), (A[::-1],)), jax.jvp(P, (W,), (W[::-1],)),"
    " jax.jvp(lambda x: P(x, full_matrices=False), (C,), (1j * C[::-1],)),"
    " jax.grad(lambda x: P(x)[1].sum())(S), jax.grad(lambda x: P(x)[1].sum())(W)))(S, A, W, C)",
    # scipy
    "scipy_linalg.qr(A, pivoting=True)", "scipy_linalg.qr(W, pivoting=True, mode='economic')",
    "scipy_linalg.qr(C, pivoting=True, mode='r')", "scipy_linalg.qr(B, pivoting=True)",
    "scipy_linalg.qr(np.arange(12).reshape(4, 3), pivoting=True)", "scipy_linalg.qr(A)",
    # under jit: one compile, where eager dispatch compiles each of its ~8 ops
    "jax.jit(lambda a, c: scipy_linalg.qr_multiply(a, c, pivoting=True))"
    "(A, np.ones((2, 5), np.float32))",
    "jax.jit(lambda a, c: scipy_linalg.qr_multiply(a, c, mode='left', pivoting=True))"
    "(W, np.ones(3, np.float32))",
    "jax.jit(lambda a, c: scipy_linalg.qr_multiply(a, c, mode='left', pivoting=True,"
    " conjugate=True))(C, np.ones((3, 2), np.complex64))",
    "jax.jit(scipy_linalg.qr_multiply)(A, np.ones((2, 5), np.float32))",
    "jax.jit(lambda a, c: scipy_linalg.qr_multiply(a, c, conjugate=True))"
    "(C, np.ones((2, 3, 4), np.float32))",
    "jax.jit(lambda a, c: scipy_linalg.qr_multiply(a, c, mode='left'))"
    "(B, np.ones(3, np.float32))",
    "scipy_linalg.qr_multiply(A, np.ones((2, 4), np.float32))",
    "scipy_linalg.qr_multiply(A, np.ones((2, 5)), mode='up')",
    "jax.grad(lambda a: scipy_linalg.qr_multiply(a, np.ones((2, 5), np.float32))[0].sum())(A)",
    "[e.primitive.name for e in jax.make_jaxpr(lambda a: scipy_linalg.qr_multiply("
    "a, np.ones((2, 5), np.float32), pivoting=True))(A).jaxpr.eqns[:4]]",
    "[str(e.params) for e in jax.make_jaxpr(lambda a: scipy_linalg.qr_multiply("
    "a, np.ones((2, 5), np.float32), pivoting=True))(A).jaxpr.eqns[1:4:2]]",
    # the primitive's parameters and the keyword-only signature
    "str(jax.make_jaxpr(lax.linalg.qr)(A))",
    "str(jax.make_jaxpr(lambda x: lax.linalg.qr(x, full_matrices=False))(A))",
    "str(jax.make_jaxpr(P)(A))",
    "str(jax.make_jaxpr(lambda x: P(x, full_matrices=False, use_magma=True))(B))",
    "str(jax.make_jaxpr(lambda x: scipy_linalg.qr(x, pivoting=True, mode='r'))(A))",
    "lax.linalg.qr(A, True)", "lax.linalg.qr(np.arange(6).reshape(2, 3), pivoting=True)",
    "lax.linalg.qr(np.ones(3, np.float32), pivoting=True)",
]


def _jaxpr_text(s):
    """A jaxpr's text with JAX's line breaks inside an equation's parameters undone (minijax
    prints an equation's parameters on one line whatever their width)."""
    s = re.sub(r"\[\n\s*", "[", s)
    s = re.sub(r"\n\s*\]", "]", s)
    return re.sub(r"(\w=[^\n\[\]]*?)\n\s+(?=\w+=)", r"\1 ", s)


def describe(thunk, tree_leaves):
    """Each leaf's type, dtype, weak type, shape and value (complex as [re, im]), JSON-ready;
    an error as its type and message."""
    try:
        x = thunk()
    except Exception as e:  # noqa: BLE001 - the error is the outcome recorded
        return ["error", type(e).__name__, str(e).split("\n")[0]]
    out = []
    for leaf in tree_leaves(x):
        if isinstance(leaf, str):
            out.append(["str", _jaxpr_text(leaf)])
            continue
        weak = getattr(getattr(leaf, "aval", None), "weak_type", None)
        value = np.asarray(leaf)
        if value.dtype.kind == "V":  # float0, an integer output's tangent: no values (and JAX's
            # TypedNdArray where minijax has a NumPy array, both without a weak type)
            out.append(["Array", "float0", None, list(value.shape), None])
            continue
        shape = list(value.shape)
        value = np.stack([value.real, value.imag]) if np.iscomplexobj(value) else value
        out.append(["Array", str(leaf.dtype), weak, shape, value.tolist()])
    return out
