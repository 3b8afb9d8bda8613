"""The strong-Wolfe line search with zoom (Nocedal and Wright, algorithms 3.5 and 3.6), as
JAX's: both loops are ``while_loop``s whose branches are computed and chosen with ``where``
(no ``cond``), so the step count and the evaluation counts match JAX's."""

from __future__ import annotations

from functools import partial
from typing import Any, NamedTuple

import numpy as np

from minijax import lax
from minijax import numpy as jnp
from minijax.autodiff import value_and_grad
from minijax.lax.control_flow.common import vary_like
from minijax.numpy._util import promote_dtypes_inexact

_dot = partial(jnp.dot, precision=lax.Precision.HIGHEST)


def _cubicmin(a, fa, fpa, b, fb, c, fc):
    """The minimizer of the cubic through (a, fa) with slope fpa, (b, fb) and (c, fc)."""
    dtype = jnp.result_type(a, fa, fpa, b, fb, c, fc)
    C = fpa
    db = b - a
    dc = c - a
    denom = (db * dc) ** 2 * (db - dc)
    d1 = jnp.array([[dc ** 2, -db ** 2], [-dc ** 3, db ** 3]], dtype=dtype)
    d2 = jnp.array([fb - fa - C * db, fc - fa - C * dc], dtype=dtype)
    A, B = _dot(d1, d2) / denom
    radical = B * B - 3. * A * C
    return a + (-B + jnp.sqrt(radical)) / (3. * A)


def _quadmin(a, fa, fpa, b, fb):
    """The minimizer of the quadratic through (a, fa) with slope fpa and (b, fb)."""
    db = b - a
    B = (fb - fa - fpa * db) / (db ** 2)
    return a - fpa / (2. * B)


def _binary_replace(replace_bit, original, new, keys=None):
    keys = new.keys() if keys is None else keys
    return {k: jnp.where(replace_bit, new[k], original[k]) for k in keys}


class _ZoomState(NamedTuple):
    done: Any
    failed: Any
    j: Any
    a_lo: Any
    phi_lo: Any
    dphi_lo: Any
    a_hi: Any
    phi_hi: Any
    dphi_hi: Any
    a_rec: Any
    phi_rec: Any
    a_star: Any
    phi_star: Any
    dphi_star: Any
    g_star: Any
    nfev: Any
    ngev: Any


def _zoom(restricted_func_and_grad, wolfe_one, wolfe_two, a_lo, phi_lo, dphi_lo, a_hi, phi_hi,
          dphi_hi, g_0, pass_through):
    """Shrinks [a_lo, a_hi] (which brackets a strong-Wolfe step) by cubic, quadratic or
    bisection steps; ``pass_through`` skips it (the caller chose another branch)."""
    state = _ZoomState(
        done=False, failed=False, j=0, a_lo=a_lo, phi_lo=phi_lo, dphi_lo=dphi_lo, a_hi=a_hi,
        phi_hi=phi_hi, dphi_hi=dphi_hi, a_rec=(a_lo + a_hi) / 2.,
        phi_rec=(phi_lo + phi_hi) / 2., a_star=1., phi_star=phi_lo, dphi_star=dphi_lo,
        g_star=g_0, nfev=0, ngev=0)
    delta1, delta2 = 0.2, 0.1

    def body(state):
        dalpha = state.a_hi - state.a_lo
        a = jnp.minimum(state.a_hi, state.a_lo)
        b = jnp.maximum(state.a_hi, state.a_lo)
        cchk = delta1 * dalpha
        qchk = delta2 * dalpha
        # An interval this small stops the search (and, the Wolfe conditions unmet, BFGS).
        threshold = 1e-5 if np.finfo(dalpha.dtype).bits < 64 else 1e-10
        state = state._replace(failed=state.failed | (dalpha <= threshold))

        # The cubic step is sometimes NaN; then its bounds check fails.
        a_j_cubic = _cubicmin(state.a_lo, state.phi_lo, state.dphi_lo, state.a_hi,
                              state.phi_hi, state.a_rec, state.phi_rec)
        use_cubic = (state.j > 0) & (a_j_cubic > a + cchk) & (a_j_cubic < b - cchk)
        a_j_quad = _quadmin(state.a_lo, state.phi_lo, state.dphi_lo, state.a_hi, state.phi_hi)
        use_quad = (~use_cubic) & (a_j_quad > a + qchk) & (a_j_quad < b - qchk)
        a_j_bisection = (state.a_lo + state.a_hi) / 2.
        use_bisection = (~use_cubic) & (~use_quad)

        a_j = jnp.where(use_cubic, a_j_cubic, state.a_rec)
        a_j = jnp.where(use_quad, a_j_quad, a_j)
        a_j = jnp.where(use_bisection, a_j_bisection, a_j)

        phi_j, dphi_j, g_j = restricted_func_and_grad(a_j)
        phi_j = phi_j.astype(state.phi_lo.dtype)
        dphi_j = dphi_j.astype(state.dphi_lo.dtype)
        g_j = g_j.astype(state.g_star.dtype)
        state = state._replace(nfev=state.nfev + 1, ngev=state.ngev + 1)

        hi_to_j = wolfe_one(a_j, phi_j) | (phi_j >= state.phi_lo)
        star_to_j = wolfe_two(dphi_j) & (~hi_to_j)
        hi_to_lo = (dphi_j * (state.a_hi - state.a_lo) >= 0.) & (~hi_to_j) & (~star_to_j)
        lo_to_j = (~hi_to_j) & (~star_to_j)

        state = state._replace(**_binary_replace(
            hi_to_j, state._asdict(),
            dict(a_hi=a_j, phi_hi=phi_j, dphi_hi=dphi_j, a_rec=state.a_hi,
                 phi_rec=state.phi_hi)))
        state = state._replace(done=star_to_j | state.done, **_binary_replace(
            star_to_j, state._asdict(),
            dict(a_star=a_j, phi_star=phi_j, dphi_star=dphi_j, g_star=g_j)))
        state = state._replace(**_binary_replace(
            hi_to_lo, state._asdict(),
            dict(a_hi=state.a_lo, phi_hi=state.phi_lo, dphi_hi=state.dphi_lo,
                 a_rec=state.a_hi, phi_rec=state.phi_hi)))
        state = state._replace(**_binary_replace(
            lo_to_j & ~hi_to_lo, state._asdict(), dict(a_rec=state.a_lo, phi_rec=state.phi_lo)))
        state = state._replace(**_binary_replace(
            lo_to_j, state._asdict(), dict(a_lo=a_j, phi_lo=phi_j, dphi_lo=dphi_j)))
        state = state._replace(j=state.j + 1)
        # A higher cap than SciPy's 10, as JAX's (float32 rounding needs more steps).
        return state._replace(failed=state.failed | (state.j >= 30))

    return lax.while_loop(
        lambda state: (~state.done) & (~pass_through) & (~state.failed), body, vary_like(state))


class _LineSearchState(NamedTuple):
    done: Any
    failed: Any
    i: Any
    a_i1: Any
    phi_i1: Any
    dphi_i1: Any
    nfev: Any
    ngev: Any
    a_star: Any
    phi_star: Any
    dphi_star: Any
    g_star: Any


class LineSearchResults(NamedTuple):
    """failed; nit (iterations); nfev, ngev (evaluations); k (the final iteration index);
    a_k (the step); f_k, g_k (value and gradient there); status (0 passed, 1 zoom failed,
    3 maximum iterations)."""

    failed: Any
    nit: Any
    nfev: Any
    ngev: Any
    k: Any
    a_k: Any
    f_k: Any
    g_k: Any
    status: Any


def line_search(f, xk, pk, old_fval=None, old_old_fval=None, gfk=None, c1=1e-4, c2=0.9,
                maxiter=20):
    """A step a along ``pk`` from ``xk`` meeting the strong Wolfe conditions
    (sufficient decrease ``c1``, curvature ``c2``), by doubling then zooming."""
    xk, pk = (jnp.asarray(x) for x in promote_dtypes_inexact(xk, pk))

    def restricted_func_and_grad(t):
        t = jnp.array(t, dtype=pk.dtype)
        phi, g = value_and_grad(f)(xk + t * pk)
        return phi, jnp.real(_dot(g, pk)), g

    if old_fval is None or gfk is None:
        phi_0, dphi_0, gfk = restricted_func_and_grad(0)
    else:
        phi_0 = old_fval
        dphi_0 = jnp.real(_dot(gfk, pk))
    if old_old_fval is not None:
        candidate_start_value = 1.01 * 2 * (phi_0 - old_old_fval) / dphi_0
        start_value = jnp.where(candidate_start_value > 1, 1.0, candidate_start_value)
    else:
        start_value = 1

    def wolfe_one(a_i, phi_i):  # the negation of sufficient decrease
        return phi_i > phi_0 + c1 * a_i * dphi_0

    def wolfe_two(dphi_i):
        return jnp.abs(dphi_i) <= -c2 * dphi_0

    evaluated = 1 if (old_fval is None or gfk is None) else 0
    state = _LineSearchState(
        done=jnp.array(False), failed=jnp.array(False),
        # Wright and Nocedal start at 1 (SciPy starts at 0: scipy/scipy#12157).
        i=1, a_i1=0., phi_i1=phi_0, dphi_i1=dphi_0, nfev=evaluated, ngev=evaluated,
        a_star=0., phi_star=phi_0, dphi_star=dphi_0, g_star=gfk)

    def body(state):
        # No amax: the trial step doubles, as in SciPy.
        a_i = jnp.where(state.i == 1, start_value, state.a_i1 * 2.)
        phi_i, dphi_i, g_i = restricted_func_and_grad(a_i)
        state = state._replace(nfev=state.nfev + 1, ngev=state.ngev + 1)

        star_to_zoom1 = wolfe_one(a_i, phi_i) | ((phi_i >= state.phi_i1) & (state.i > 1))
        star_to_i = wolfe_two(dphi_i) & (~star_to_zoom1)
        star_to_zoom2 = (dphi_i >= 0.) & (~star_to_zoom1) & (~star_to_i)

        zoom1 = _zoom(restricted_func_and_grad, wolfe_one, wolfe_two, state.a_i1, state.phi_i1,
                      state.dphi_i1, a_i, phi_i, dphi_i, gfk, ~star_to_zoom1)
        state = state._replace(nfev=state.nfev + zoom1.nfev, ngev=state.ngev + zoom1.ngev)
        zoom2 = _zoom(restricted_func_and_grad, wolfe_one, wolfe_two, a_i, phi_i, dphi_i,
                      state.a_i1, state.phi_i1, state.dphi_i1, gfk, ~star_to_zoom2)
        state = state._replace(nfev=state.nfev + zoom2.nfev, ngev=state.ngev + zoom2.ngev)

        star = ["a_star", "phi_star", "dphi_star", "g_star"]
        state = state._replace(
            done=star_to_zoom1 | state.done, failed=(star_to_zoom1 & zoom1.failed) | state.failed,
            **_binary_replace(star_to_zoom1, state._asdict(), zoom1._asdict(), keys=star))
        state = state._replace(done=star_to_i | state.done, **_binary_replace(
            star_to_i, state._asdict(),
            dict(a_star=a_i, phi_star=phi_i, dphi_star=dphi_i, g_star=g_i)))
        state = state._replace(
            done=star_to_zoom2 | state.done, failed=(star_to_zoom2 & zoom2.failed) | state.failed,
            **_binary_replace(star_to_zoom2, state._asdict(), zoom2._asdict(), keys=star))
        return state._replace(i=state.i + 1, a_i1=a_i, phi_i1=phi_i, dphi_i1=dphi_i)

    state = lax.while_loop(
        lambda state: (~state.done) & (state.i <= maxiter) & (~state.failed), body,
        vary_like(state, xk, pk))

    status = jnp.where(state.failed, jnp.array(1),  # zoom failed
                       jnp.where(state.i > maxiter, jnp.array(3), jnp.array(0)))
    # Below 64 bits a tiny step would leave BFGS stuck on a zero direction: floor it.
    alpha_k = jnp.asarray(state.a_star)
    if np.finfo(alpha_k.dtype).bits != 64:
        alpha_k = jnp.where(jnp.abs(alpha_k) < 1e-8, jnp.sign(alpha_k) * 1e-8, alpha_k)
    return LineSearchResults(
        failed=state.failed | (~state.done), nit=state.i - 1, nfev=state.nfev,
        ngev=state.ngev, k=state.i, a_k=alpha_k, f_k=state.phi_star, g_k=state.g_star,
        status=status)
