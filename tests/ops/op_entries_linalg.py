"""Op-table entries: the linear-algebra primitives (cholesky, triangular_solve, lu, qr, eigh, svd,
eig).

Decompositions are only unique up to signs, and their derivatives only exist away from
singular (or, for eigh/svd, degenerate) inputs, so each entry builds a well-posed matrix from
the drawn operand (entries in [-10, 10]) and returns sign-free quantities:

- a strictly diagonally dominant matrix ``x + 20 n I`` for triangular_solve, lu and qr (the
  unit-diagonal solve uses ``x / 20n``: its diagonal is ignored);
- ``x x^T + n I`` (symmetric positive definite) for cholesky;
- ``sym(x) + diag(50n, 100n, ...)`` for eigh and svd: ``|sym(x)| <= 20n``, so by Weyl's
  inequality the eigen/singular values are >= 10n apart and >= 30n, distinct and nonzero;
- squared entries of eigen/singular vectors (invariant under each vector's sign flip), Q R and
  Q^T Q for qr, P^T L U for lu. References are NumPy's, in float64.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import minijax.numpy as jnp
from minijax import lax
from tests.ops.op_db import GradSpec, array, register

TOL = {"float32": (2e-3, 2e-3)}


def _square(n_operands=1, rect=False):
    @st.composite
    def strat(draw):
        batch = draw(st.sampled_from([(), (2,)]))
        n = draw(st.integers(1, 4))
        shapes = [(*batch, n, n)]
        if n_operands == 2:
            shapes.append((*batch, n, draw(st.integers(1, 3))))
        return tuple(draw(array(s, np.float32)) for s in shapes)

    return strat()


def _eye_like(x, scale):
    n = x.shape[-1]
    return scale * jnp.eye(n, dtype=x.dtype)


def _dominant(x):
    return x + _eye_like(x, 20.0 * x.shape[-1])


def _spd(x):
    return x @ jnp.swapaxes(x, -1, -2) + _eye_like(x, float(x.shape[-1]))


def _spread(x):
    n = x.shape[-1]
    sym = x + jnp.swapaxes(x, -1, -2)
    return sym + jnp.eye(n, dtype=x.dtype) * ((jnp.arange(n, dtype=x.dtype) + 1.0) * (50.0 * n))


def _np(f):
    """A NumPy reference evaluated in float64, cast back to the operand dtype."""

    def ref(*args):
        out = f(*[np.asarray(a, np.float64) for a in args])
        cast = lambda o: np.asarray(o).astype(args[0].dtype)
        return tuple(cast(o) for o in out) if isinstance(out, tuple) else cast(out)

    return ref


def _np_eye(x, scale):
    return scale * np.eye(x.shape[-1])


def _np_spread(x):
    n = x.shape[-1]
    return x + np.swapaxes(x, -1, -2) + np.diag((np.arange(n) + 1.0) * (50.0 * n))


# --- entries --------------------------------------------------------------------------------------

register("linalg_cholesky", lambda x: lax.cholesky(_spd(x)),
         _np(lambda x: np.linalg.cholesky(x @ np.swapaxes(x, -1, -2) + _np_eye(x, x.shape[-1]))),
         _square(), tol=TOL, exact_jit=False)


def _tri_fn(a, b):
    return lax.triangular_solve(_dominant(a), b, left_side=True, lower=True)


def _tri_ref(a, b):
    return np.linalg.solve(np.tril(a + _np_eye(a, 20.0 * a.shape[-1])), b)


register("linalg_triangular_solve", _tri_fn, _np(_tri_ref), _square(2), tol=TOL,
         exact_jit=False)


# unit_diagonal ignores the diagonal, so dominance must come from small off-diagonal entries:
# scaled by 1/(20n) they sum to < 1/2 per row and the unit triangle is well conditioned.
def _tri_right_fn(a, b):
    bt = jnp.swapaxes(b, -1, -2)
    small = a / (20.0 * a.shape[-1])
    return lax.triangular_solve(small, bt, left_side=False, lower=False, transpose_a=True,
                                unit_diagonal=True)


def _tri_right_ref(a, b):
    n = a.shape[-1]
    t = np.triu(a / (20.0 * n), 1) + np.eye(n)
    # X t^T = B^T  <=>  t X^T = B
    return np.swapaxes(np.linalg.solve(t, b), -1, -2)


register("linalg_triangular_solve_right_transposed_unit", _tri_right_fn, _np(_tri_right_ref),
         _square(2), tol=TOL, exact_jit=False)


def _lu_fn(x):
    a = _dominant(x)
    lu, _, perm = lax.lu(a)
    n = a.shape[-1]
    lower = jnp.tril(lu, -1) + jnp.eye(n, dtype=a.dtype)
    p = (perm[..., :, None] == jnp.arange(n)).astype(a.dtype)  # P A = L U
    return jnp.swapaxes(p, -1, -2) @ (lower @ jnp.triu(lu))


register("linalg_lu", _lu_fn, _np(lambda x: x + _np_eye(x, 20.0 * x.shape[-1])), _square(),
         tol=TOL, exact_jit=False)


def _qr_fn(x):
    q, r = lax.qr(_dominant(x), full_matrices=False)
    return q @ r, jnp.swapaxes(q, -1, -2) @ q


def _qr_ref(x):
    n = x.shape[-1]
    return x + _np_eye(x, 20.0 * n), np.broadcast_to(np.eye(n), x.shape)


register("linalg_qr", _qr_fn, _np(_qr_ref), _square(), tol=TOL, exact_jit=False)


def _eigh_fn(x):
    v, w = lax.eigh(_spread(x))
    return w, v * v


def _eigh_ref(x):
    w, v = np.linalg.eigh(_np_spread(x))
    return w, v * v


register("linalg_eigh", _eigh_fn, _np(_eigh_ref), _square(), tol=TOL, exact_jit=False)


def _svd_fn(x):
    u, s, vt = lax.svd(_spread(x), full_matrices=False)
    return s, u * u, vt * vt


def _svd_ref(x):
    u, s, vt = np.linalg.svd(_np_spread(x))
    return s, u * u, vt * vt


register("linalg_svd", _svd_fn, _np(_svd_ref), _square(), tol=TOL, exact_jit=False)


# eig: x + diag(50n, 100n, ...) is non-symmetric with Gershgorin discs of radius <= 10(n-1)
# around centres 50n apart, so its eigenvalues are real, distinct and one per disc; sorted
# real parts are order-free (LAPACK returns them in no particular order).
def _shift(x):
    n = x.shape[-1]
    return x + jnp.eye(n, dtype=x.dtype) * ((jnp.arange(n, dtype=x.dtype) + 1.0) * (50.0 * n))


def _eig_fn(x):
    (w,) = lax.eig(_shift(x), compute_left_eigenvectors=False, compute_right_eigenvectors=False)
    return jnp.sort(jnp.real(w), axis=-1)


def _eig_ref(x):
    n = x.shape[-1]
    return np.sort(np.linalg.eigvals(x + np.diag((np.arange(n) + 1.0) * (50.0 * n))).real, -1)


# second order goes through the eigenvectors' derivative (an LU solve, argmax, ...): tens of
# seconds of compiling for hypothesis's examples; first order here
register("linalg_eig", _eig_fn, _np(_eig_ref), _square(), tol=TOL, exact_jit=False,
         grad=GradSpec(order=1))
