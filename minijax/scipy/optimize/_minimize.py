"""``minimize`` and its result type, as JAX's (the one method is BFGS)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from minijax import numpy as jnp
from minijax.scipy.optimize._bfgs import minimize_bfgs


class OptimizeResults(NamedTuple):
    """What :func:`minimize` found.

    x: the solution; success: converged and no line search failed; status: 0 converged,
    1 maximum BFGS iterations, 3 zoom failed, 4 saddle point, 5 maximum line search
    iterations, -1 undefined; fun, jac: the objective and its gradient at x; hess_inv: the
    final inverse Hessian estimate; nfev, njev: objective and gradient evaluations; nit: BFGS
    iterations.
    """

    x: Any
    success: Any
    status: Any
    fun: Any
    jac: Any
    hess_inv: Any
    nfev: Any
    njev: Any
    nit: Any


def minimize(fun: Callable, x0, args: tuple = (), *, method: str, tol: float | None = None,
             options: Mapping[str, Any] | None = None) -> OptimizeResults:
    """Minimizes ``fun(x, *args)`` over 1-D ``x`` from ``x0``; gradients by autodiff.

    ``method`` is required and must be ``"BFGS"`` (as in JAX). ``options``: ``maxiter``
    (default 200 * x0.size), ``norm`` (of the gradient for the convergence test, default
    inf), ``gtol`` (default 1e-5), ``line_search_maxiter`` (default 10). ``tol`` is accepted
    and, as in JAX, unused. The whole solve is one ``while_loop``, so it runs under ``jit``.
    """
    del tol
    if options is None:
        options = {}
    if not isinstance(args, tuple):
        raise TypeError(
            f"args argument to jax.scipy.optimize.minimize must be a tuple, got {args}")

    def fun_with_args(x):
        return fun(x, *args)

    if method.lower() == "bfgs":
        results = minimize_bfgs(fun_with_args, x0, **options)
        success = results.converged & jnp.logical_not(results.failed)
        return OptimizeResults(x=results.x_k, success=success, status=results.status,
                               fun=results.f_k, jac=results.g_k, hess_inv=results.H_k,
                               nfev=results.nfev, njev=results.ngev, nit=results.k)
    raise ValueError(f"Method {method} not recognized")
