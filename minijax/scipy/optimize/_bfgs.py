"""BFGS (Nocedal and Wright, "Numerical Optimization", algorithm 6.1) as one ``while_loop``."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple

import numpy as np

from minijax import lax
from minijax import numpy as jnp
from minijax.autodiff import value_and_grad
from minijax.lax.control_flow.common import vary_like
from minijax.numpy import linalg as jnp_linalg
from minijax.scipy.optimize._line_search import line_search


class BFGSResults(NamedTuple):
    """converged; failed (a line search failed); k (iterations); nfev, ngev, nhev
    (objective, gradient and Hessian evaluations); x_k, f_k, g_k (the last point, its value
    and gradient); H_k (inverse Hessian estimate); old_old_fval (the value one step before);
    status; line_search_status (the failed line search's reason)."""

    converged: Any
    failed: Any
    k: Any
    nfev: Any
    ngev: Any
    nhev: Any
    x_k: Any
    f_k: Any
    g_k: Any
    H_k: Any
    old_old_fval: Any
    status: Any
    line_search_status: Any


_dot = partial(jnp.dot, precision=lax.Precision.HIGHEST)
_einsum = partial(jnp.einsum, precision=lax.Precision.HIGHEST)


def minimize_bfgs(fun: Callable, x0, maxiter: int | None = None, norm=np.inf,
                  gtol: float = 1e-5, line_search_maxiter: int = 10) -> BFGSResults:
    """Minimizes ``fun`` (flat array -> real scalar) from ``x0``: stops when the ``norm`` of
    the gradient is below ``gtol``, a line search fails, or after ``maxiter`` iterations."""
    if maxiter is None:
        maxiter = np.size(x0) * 200
    d = x0.shape[0]
    f_0, g_0 = value_and_grad(fun)(x0)
    state = BFGSResults(
        converged=jnp_linalg.norm(g_0, ord=norm) < gtol, failed=False, k=0, nfev=1, ngev=1,
        nhev=0, x_k=x0, f_k=f_0, g_k=g_0, H_k=jnp.eye(d, dtype=x0.dtype),
        old_old_fval=f_0 + jnp_linalg.norm(g_0) / 2, status=0, line_search_status=0)

    def cond_fun(state):
        return (jnp.logical_not(state.converged) & jnp.logical_not(state.failed)
                & (state.k < maxiter))

    def body_fun(state):
        p_k = -_dot(state.H_k, state.g_k)
        ls = line_search(fun, state.x_k, p_k, old_fval=state.f_k,
                         old_old_fval=state.old_old_fval, gfk=state.g_k,
                         maxiter=line_search_maxiter)
        state = state._replace(nfev=state.nfev + ls.nfev, ngev=state.ngev + ls.ngev,
                               failed=ls.failed, line_search_status=ls.status)
        s_k = ls.a_k * p_k
        x_kp1 = state.x_k + s_k
        y_k = ls.g_k - state.g_k
        rho_k = jnp.reciprocal(_dot(y_k, s_k))
        sy_k = s_k[:, None] * y_k[None, :]
        w = jnp.eye(d, dtype=rho_k.dtype) - rho_k * sy_k
        H_kp1 = _einsum("ij,jk,lk", w, state.H_k, w) + rho_k * s_k[:, None] * s_k[None, :]
        # A non-positive curvature step (y.s <= 0 gives an infinite rho) keeps the old H.
        H_kp1 = jnp.where(jnp.isfinite(rho_k), H_kp1, state.H_k)
        return state._replace(converged=jnp_linalg.norm(ls.g_k, ord=norm) < gtol,
                              k=state.k + 1, x_k=x_kp1, f_k=ls.f_k, g_k=ls.g_k, H_k=H_kp1,
                              old_old_fval=state.f_k)

    state = lax.while_loop(cond_fun, body_fun, vary_like(state))
    status = jnp.where(state.converged, 0,
                       jnp.where(state.k == maxiter, 1,
                                 jnp.where(state.failed, 2 + state.line_search_status, -1)))
    return state._replace(status=status)
