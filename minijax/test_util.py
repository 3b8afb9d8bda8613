"""``check_grads`` and friends: derivatives checked against finite differences (JAX semantics).

``check_jvp`` compares ``jvp`` with a central difference along a random tangent;
``check_vjp`` compares ``vjp`` with ``jvp``'s finite-difference estimate through the
dot-product identity ``<J u, v> == <u, J^T v>``; ``check_grads`` does both, recursively, up to
``order`` (the JVP and the VJP functions are themselves differentiated), as JAX's does.

``jit=True`` (a minijax addition) compiles each evaluated function once with XLA instead of
running it op by op: the same checks, much faster for tests; it needs ``f`` to be traceable
(no Python control flow on values).
"""

from __future__ import annotations

import functools

import numpy as np

from minijax import dtypes
from minijax.autodiff import jvp, vjp
from minijax.tree_util import _registry, tree_map

__all__ = ["check_close", "check_grads", "check_jvp", "check_vjp", "numerical_jvp"]

EPS = 1e-4

_default_gradient_tolerance = {
    dtypes.bfloat16: 1e-1, dtypes.float16: 1e-2, dtypes.float32: 2e-3, dtypes.float64: 1e-5,
    dtypes.complex64: 1e-3, dtypes.complex128: 1e-5,
}


def _tolerance(tol, dtype):
    if tol is None:
        return _default_gradient_tolerance.get(np.dtype(dtype), 0)
    if isinstance(tol, dict):
        return tol.get(np.dtype(dtype), _default_gradient_tolerance.get(np.dtype(dtype), 0))
    return tol


def _np(x):
    return np.asarray(x)


def check_close(xs, ys, atol=None, rtol=None, err_msg=""):
    """Pytrees ``xs`` and ``ys`` agree leaf by leaf (tolerances by dtype, JAX's defaults)."""
    x_leaves, x_tree = _registry.flatten(xs)
    y_leaves, y_tree = _registry.flatten(ys)
    assert x_tree == y_tree, f"{err_msg}: tree structures differ: {x_tree} vs {y_tree}"
    for x, y in zip(x_leaves, y_leaves):
        x, y = _np(x), _np(y)
        if x.dtype == dtypes.float0 or y.dtype == dtypes.float0:
            assert x.shape == y.shape, err_msg
            continue
        dtype = x.dtype
        a, r = _tolerance(atol, dtype), _tolerance(rtol, dtype)
        wide = np.complex128 if dtype.kind == "c" or y.dtype.kind == "c" else np.float64
        np.testing.assert_allclose(x.astype(wide), y.astype(wide), atol=a, rtol=r,
                                   err_msg=err_msg)


def _rand_like(rng, x):
    x = _np(x)
    if x.dtype.kind == "c":
        return np.asarray(rng.randn(*x.shape) + 1j * rng.randn(*x.shape)).astype(x.dtype)
    if not dtypes.is_inexact(x.dtype):
        return np.zeros(x.shape, dtypes.float0)
    return np.asarray(rng.randn(*x.shape)).astype(x.dtype)


def _add(xs, ys, scale=1.0):
    def add(x, y):
        x = _np(x)
        if not dtypes.is_inexact(x.dtype):
            return x  # integer inputs do not move
        return (x.astype(_wide(x.dtype)) + scale * _np(y).astype(_wide(x.dtype))).astype(x.dtype)

    return tree_map(add, xs, ys)


def _conj(x):
    """Complex conjugate of inexact leaves; float0 (no data) and integer leaves unchanged."""
    x = _np(x)
    return np.conj(x) if dtypes.is_inexact(x.dtype) else x


def _wide(dtype):
    return np.complex128 if np.dtype(dtype).kind == "c" else np.float64


def numerical_jvp(f, primals, tangents, eps=EPS):
    """The central difference ``(f(x + eps t) - f(x - eps t)) / (2 eps)``."""
    f_pos = f(*_add(primals, tangents, eps))
    f_neg = f(*_add(primals, tangents, -eps))

    def diff(a, b):
        a, b = _np(a), _np(b)
        if not dtypes.is_inexact(a.dtype):
            return np.zeros(a.shape, dtypes.float0)
        w = _wide(a.dtype)
        return ((a.astype(w) - b.astype(w)) * (0.5 / eps)).astype(a.dtype)

    return tree_map(diff, f_pos, f_neg)


def _inner(xs, ys):
    """Re(sum(conj(x) * y)) over all inexact leaves."""
    total = 0.0
    for x, y in zip(_registry.flatten(xs)[0], _registry.flatten(ys)[0]):
        x, y = _np(x), _np(y)
        if not dtypes.is_inexact(x.dtype) or not dtypes.is_inexact(y.dtype):
            continue
        total += float(np.real(np.vdot(x.astype(_wide(x.dtype)).ravel(),
                                       y.astype(_wide(y.dtype)).ravel())))
    return np.asarray(total)


def _maybe_jit(f, use_jit):
    """``jit(f)``, with float0 values (tangents of integers) kept out of the compiled program:
    they hold no data, so they cross the jit boundary as booleans and are restored after."""
    if not use_jit:
        return f
    from minijax.jitting import jit

    out_float0 = []

    def inner(*args):
        out = f(*_restore(args, _registry.flatten(args)[0]))
        leaves, tree = _registry.flatten(out)
        out_float0[:] = [_np_dtype(x) == dtypes.float0 for x in leaves]
        return tree.unflatten([np.zeros(np.shape(x), np.bool_) if z else x
                               for x, z in zip(leaves, out_float0)])

    jitted = jit(inner)

    def call(*args):
        leaves, tree = _registry.flatten(args)
        hidden = [np.zeros(np.shape(x), np.bool_) if _np_dtype(x) == dtypes.float0 else x
                  for x in leaves]
        _float0_args[:] = [_np_dtype(x) == dtypes.float0 for x in leaves]
        out = jitted(*tree.unflatten(hidden))
        out_leaves, out_tree = _registry.flatten(out)
        return out_tree.unflatten([np.zeros(np.shape(x), dtypes.float0) if z else x
                                   for x, z in zip(out_leaves, out_float0)])

    _float0_args = []

    def _restore(args, leaves):
        tree = _registry.flatten(args)[1]
        return tree.unflatten([np.zeros(np.shape(x), dtypes.float0) if z else x
                               for x, z in zip(leaves, _float0_args)])

    return call


def _np_dtype(x):
    dtype = getattr(x, "dtype", None)
    return np.dtype(dtype) if dtype is not None else None


def check_jvp(f, f_jvp, args, atol=None, rtol=None, eps=EPS, err_msg=""):
    """``f_jvp(args, tangents) -> (out, tangent_out)`` agrees with ``f`` and with a finite
    difference along a random tangent."""
    rng = np.random.RandomState(0)
    tangent = tree_map(functools.partial(_rand_like, rng), args)
    v_out, t_out = f_jvp(args, tangent)
    v_expected = f(*args)
    check_close(v_out, v_expected, atol, rtol, f"{err_msg} primal")
    t_expected = numerical_jvp(f, args, tangent, eps)
    check_close(t_out, t_expected, atol, rtol, f"{err_msg} tangent")


def check_vjp(f, f_vjp, args, atol=None, rtol=None, eps=EPS, err_msg=""):
    """``f_vjp(args, cotangent) -> (out, input cotangents)`` agrees with ``f`` and satisfies
    ``<J t, c> == <t, J^T c>`` with J t estimated by finite differences."""
    rng = np.random.RandomState(0)
    v_expected = f(*args)
    cotangent = tree_map(functools.partial(_rand_like, rng), v_expected)
    v_out, ct_out = f_vjp(args, tree_map(_conj, cotangent))
    check_close(v_out, v_expected, atol, rtol, f"{err_msg} primal")
    ct_out = tree_map(_conj, ct_out)
    tangent = tree_map(functools.partial(_rand_like, rng), args)
    t_out = numerical_jvp(f, args, tangent, eps)
    ip = _inner(tangent, ct_out)
    ip_expected = _inner(t_out, cotangent)
    check_close(ip, ip_expected, atol, rtol, f"{err_msg} cotangent projection")


def check_grads(f, args, order, modes=("fwd", "rev"), atol=None, rtol=None, eps=None,
                jit=False):
    """Checks ``f``'s derivatives at ``args`` (a tuple) against finite differences, in forward
    (``"fwd"``) and/or reverse (``"rev"``) mode, up to ``order``. Raises AssertionError."""
    args = tuple(args)
    eps = eps or EPS

    def check(f, args, order, err_msg=""):
        f_eval = _maybe_jit(f, jit)
        if "fwd" in modes:
            msg = f"JVP of {err_msg}" if err_msg else "JVP"
            f_jvp = _maybe_jit(lambda a, t: jvp(f, a, t), jit)
            check_jvp(f_eval, f_jvp, args, atol, rtol, eps, msg)
            if order > 1:
                check(lambda *a: jvp(f, a[: len(a) // 2], a[len(a) // 2:]), args + args,
                      order - 1, msg)
        if "rev" in modes:
            msg = f"VJP of {err_msg}" if err_msg else "VJP"

            def f_vjp(a, ct):
                out, pullback = vjp(f, *a)
                return out, pullback(ct)

            check_vjp(f_eval, _maybe_jit(f_vjp, jit), args, atol, rtol, eps, msg)
            if order > 1:
                def f_vjp_out(*a):
                    out, pullback = vjp(f, *a)
                    return pullback(out)

                check(f_vjp_out, args, order - 1, msg)

    check(f, args, order)
