"""Cases for tests/test_fidelity_r19_f.py: jax.lax.linalg's EigImplementation,
EighImplementation and SvdAlgorithm with the keyword arguments of eig / eigh / svd that take
them (what JAX 0.10.2 accepts and refuses on CPU), lu_pivots_to_permutation_p and qdwh. Each
case is Python evaluated with ``jax``, ``jnp``, ``lax``, ``L`` (jax.lax.linalg) and ``np``
bound, after ``SETUP``; ``describe`` turns its outcome into JSON."""
import warnings

import numpy as np

SETUP = """
A = jnp.array([[2., 1.], [1., 3.]])
G = jnp.array([[1., 2.], [3., 4.]])
M = jnp.array([[1., 2., 3.], [4., 5., 7.]])
R = jnp.asarray(np.random.RandomState(0).randn(5, 4).astype(np.float32))
X = jnp.array([[1., 2.], [3., 4.], [5., 7.]])
P = L.lu_pivots_to_permutation
E, EH, S = L.EigImplementation, L.EighImplementation, L.SvdAlgorithm
"""

CASES = [
    # the enums
    "[(m.name, m.value) for m in E]",
    "[(m.name, m.value) for m in EH]",
    "[(m.name, m.value) for m in S]",
    "[repr(S('QR')), str(EH.QDWH), repr(E.LAPACK)]",
    # eig: on CPU only LAPACK (or None, or a falsy value) is taken, refused at lowering
    "L.eig(G, implementation=E.LAPACK)",
    "L.eig(G, implementation=E.MAGMA)",
    "L.eig(G, implementation='lapack')",
    "L.eig(jnp.ones((0, 0)), implementation=E.MAGMA)",
    "jax.jit(lambda x: L.eig(x, implementation=E.MAGMA)[0])(G)",
    "jax.make_jaxpr(lambda x: L.eig(x, implementation=E.MAGMA))(G).eqns[-1].params",
    "warned(lambda: L.eig(G, use_magma=False, compute_left_eigenvectors=False))",
    "warned(lambda: L.eig(G, use_magma=True))",
    # eigh: QR (or None, or a value outside the enum) on CPU; JACOBI and QDWH refused
    "L.eigh(A, implementation=EH.QR)",
    "L.eigh(A, implementation=EH.JACOBI)",
    "L.eigh(A, implementation=EH.QDWH)",
    "L.eigh(A, implementation='qdwh')",
    "L.eigh(jnp.ones((0, 0)), implementation=EH.QDWH)",
    "jax.jvp(lambda x: L.eigh(x, implementation=EH.JACOBI), (A,), (A,))",
    "jax.jit(lambda x: (L.eigh(x, implementation=EH.JACOBI), x)[1])(A)",
    "jax.jvp(lambda x: L.eigh(x, implementation=EH.QR), (A,), (A,))",
    "jax.make_jaxpr(lambda x: L.eigh(x, implementation=EH.QR))(A).eqns[-1].params['algorithm']",
    "L.eigh(A, True)",
    # svd: DEFAULT and DIVIDE_AND_CONQUER are gesdd, QR gesvd; JACOBI, POLAR refused
    "L.svd(R, algorithm=S.QR)",
    "L.svd(R, algorithm=S.DIVIDE_AND_CONQUER, full_matrices=False)",
    "L.svd(R, algorithm=S.QR, compute_uv=False)",
    "L.svd(M, algorithm=S.JACOBI)",
    "L.svd(M, algorithm=S.POLAR, compute_uv=False)",
    "L.svd(M, algorithm='QR')",
    "L.svd(jnp.ones((0, 3)), algorithm=S.JACOBI)",
    "jax.jvp(lambda x: L.svd(x, algorithm=S.QR, full_matrices=False), (M,), (M,))",
    "jax.make_jaxpr(lambda x: L.svd(x, algorithm=S.QR))(M).eqns[-1].params['algorithm']",
    "L.svd(M, True)",
    # lu_pivots_to_permutation_p
    "(L.lu_pivots_to_permutation_p.name, L.lu_pivots_to_permutation_p.multiple_results)",
    "P(jnp.array([2, 2, 3], jnp.int32), 5)",
    "P(jnp.array([[2, 2, 3], [1, 0, 4]], jnp.int32), 5)",
    "P(jnp.array([5, -1, 1], jnp.int32), 4)",
    "P(jnp.array([[5, -1], [-6, 9]], jnp.int32), 3)",
    "P(jnp.array([0, 1], jnp.int32), 1)",
    "P(jnp.array([0, 1.]), 3)",
    "P(jnp.array(1, jnp.int32), 3)",
    "P(jnp.array(1.0), 3)",
    "P(lax.broadcast(1, (2,)), 3)",
    "P(jnp.zeros((2, 0), jnp.int32), 3)",
    "P(jnp.zeros((2,), jnp.int32), 2.0)",
    "L.lu_pivots_to_permutation_p.bind(jnp.array([1, 2], jnp.int32), permutation_size=3)",
    "jax.vmap(lambda p: P(p, 4), in_axes=1)(jnp.array([[1, 2], [3, 3]], jnp.int32))",
    "jax.jvp(lambda p: P(p, 3), (jnp.array([1, 2], jnp.int32),), "
    "(np.zeros(2, jax.dtypes.float0),))[0]",
    "jax.make_jaxpr(lambda p: P(p, 4))(jnp.array([1, 2], jnp.int32)).eqns[-1].params",
    "jax.scipy.linalg.lu(jnp.array([[1., 2.], [3., 4.]]))",
    # qdwh: (u, h, num_iters weak int32, is_converged)
    "L.qdwh(X)",
    "L.qdwh(X, max_iterations=1)",
    "L.qdwh(X, eps=1e-3)",
    "L.qdwh(X, dynamic_shape=(2, 2))",
    "L.qdwh(X.T)",
    "L.qdwh(jnp.array([[1 + 1j, 2], [0, 1j]], jnp.complex64))",
    "L.qdwh(jnp.array([[1, 2], [3, 4]]))",
    "L.qdwh(jnp.ones((2, 3, 3)))",
    "L.qdwh(np.array([[1., 2.], [3., 4.]]))",
    "jax.jit(lambda a: L.qdwh(a, max_iterations=2))(X)",
]


def warned(fn):
    """(the warnings fn raised, as (category, message), and its value)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = fn()
    return [(w.category.__name__, str(w.message)) for w in caught], value


def describe(fn, leaves):
    """The outcome of ``fn()`` as JSON: the exception (type, message less minijax's user-line
    suffix), or each array leaf's dtype, weak type, shape and values (complex as [re, im]), or
    the repr of anything else."""
    try:
        value = fn()
    except Exception as e:  # noqa: BLE001 - the exception is the outcome
        return {"error": type(e).__name__, "message": str(e).split("\n  at ")[0]}
    if isinstance(value, dict):
        return {"params": {k: repr(v) for k, v in sorted(value.items())}}
    out = []
    for leaf in leaves(value):
        if not hasattr(leaf, "dtype"):
            out.append({"repr": repr(leaf)})
            continue
        a = np.asarray(leaf)
        if a.dtype.kind == "V":  # float0
            out.append({"dtype": "float0", "shape": list(a.shape)})
            continue
        vals = np.stack([a.real, a.imag], -1) if a.dtype.kind == "c" else a
        out.append({"dtype": str(a.dtype), "weak": bool(getattr(leaf, "weak_type", False)),
                    "shape": list(a.shape), "value": vals.astype(np.float64).tolist()
                    if a.dtype.kind in "fc" else vals.tolist()})
    return {"leaves": out}
