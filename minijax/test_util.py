"""``check_grads`` and friends: derivatives checked against finite differences, with
``jax.test_util``'s semantics and numbers.

``check_jvp`` compares ``jvp`` with a central difference along one random tangent;
``check_vjp`` compares ``vjp`` with that finite difference through the dot-product identity
``<J t, c> == <t, J^T c>``; ``check_grads`` does both (and ``"lin"``: ``linearize``),
recursively up to ``order``. As in JAX: the finite differences are computed in the arguments'
own dtypes with step ``eps`` (1e-4), the random directions come from ``RandomState(0)`` in
JAX's order, and the default tolerances depend on the dtype (float32: 2e-3 absolute and
relative) and are multiplied by the number of elements compared.

Two minijax additions: integer and boolean arguments get float0 tangents (they do not move;
JAX's check_grads would fail on them), and ``jit=True`` compiles each evaluated function once
with XLA instead of running it op by op (the same checks, faster; ``f`` must be traceable).
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from minijax import dtypes
from minijax.autodiff import jvp, linearize, vjp
from minijax.config import config
from minijax.jitting import jit
from minijax.tree_util import _registry, tree_map, tree_reduce

__all__ = ["check_close", "check_grads", "check_jvp", "check_vjp", "numerical_jvp"]

EPS = 1e-4

# The tolerance of a comparison by dtype, when the caller gives none (JAX's numbers).
_default_tolerance = {
    dtypes.float0: 0, np.dtype(np.bool_): 0,
    **{np.dtype(t): 0 for t in (*dtypes.int_types, *dtypes.uint_types)},
    **{t: 1e-1 for t in dtypes.float8_types},
    dtypes.bfloat16: 1e-2, np.dtype(np.float16): 1e-3, np.dtype(np.float32): 1e-6,
    np.dtype(np.float64): 1e-15, np.dtype(np.complex64): 1e-6, np.dtype(np.complex128): 1e-15,
}

# check_jvp/check_vjp's defaults, for both atol and rtol (JAX's numbers).
default_gradient_tolerance = {
    **{t: 1e-1 for t in dtypes.float8_types},
    dtypes.bfloat16: 1e-1, np.dtype(np.float16): 1e-2, np.dtype(np.float32): 2e-3,
    np.dtype(np.float64): 1e-5, np.dtype(np.complex64): 1e-3, np.dtype(np.complex128): 1e-5,
}


def default_tolerance():
    return _default_tolerance


def _dtype(x):
    if hasattr(x, "dtype"):
        return np.dtype(x.dtype)
    if dtypes.is_python_scalar(x):
        return dtypes.python_scalar_dtype(x)
    return np.asarray(x).dtype


def _is_python_scalar(x):
    return not isinstance(x, np.generic) and isinstance(x, (bool, int, float, complex))


def tolerance(dtype, tol=None):
    """``tol`` for ``dtype``: a number as is; from a dict by dtype, else the default."""
    tol = {} if tol is None else tol
    if not isinstance(tol, dict):
        return tol
    tol = {np.dtype(k): v for k, v in tol.items()}
    dtype = dtypes.canonicalize_dtype(np.dtype(dtype))
    return tol.get(dtype, _default_tolerance[dtype])


def _upcast(x):
    # NumPy's allclose has no arithmetic for ml_dtypes' small floats
    return x.astype(np.float32) if x.dtype in (dtypes.bfloat16, *dtypes.float8_types) else x


def _assert_numpy_close(a, b, atol=None, rtol=None, err_msg=""):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, f"{err_msg}: shapes differ: {a.shape} vs {b.shape}"
    if a.dtype == b.dtype == dtypes.float0:
        return  # no data
    atol = max(tolerance(a.dtype, atol), tolerance(b.dtype, atol))
    rtol = max(tolerance(a.dtype, rtol), tolerance(b.dtype, rtol))
    kw = {}
    # JAX scales the tolerances by the number of elements, and leaves NumPy's default rtol
    # (1e-7) where its own is 0
    if atol:
        kw["atol"] = atol * a.size
    if rtol:
        kw["rtol"] = rtol * b.size
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(_upcast(a), _upcast(b), **kw, err_msg=err_msg)


def check_close(xs, ys, atol=None, rtol=None, err_msg=""):
    """Pytrees ``xs`` and ``ys`` agree leaf by leaf (per-dtype tolerances times the size)."""
    tree_map(functools.partial(_assert_numpy_close, atol=atol, rtol=rtol, err_msg=err_msg),
             xs, ys)


def _check_dtypes_match(xs, ys):
    def check(x, y):
        dx, dy = _dtype(x), _dtype(y)
        if dx == dtypes.float0 or dy == dtypes.float0:
            return  # tangents of integer values
        if not config.jax_enable_x64:
            dx, dy = dtypes.canonicalize_dtype(dx), dtypes.canonicalize_dtype(dy)
        assert dx == dy, f"dtypes differ: {dx} vs {dy}"

    tree_map(check, xs, ys)


def _moves(x):
    return dtypes.is_inexact(_dtype(x))


def _preserve_input_types(f):
    def wrapped(*args):
        if not _moves(args[0]):
            return args[0]  # integer and boolean values stay put (their tangents are float0)
        dtype = _dtype(args[0])
        result = np.array(f(*map(_host, args)), dtype=dtype)
        return result.item() if all(_is_python_scalar(a) for a in args) else result

    return wrapped


def _host(x):
    return x if _is_python_scalar(x) else np.asarray(x)


def _safe_subtract(x, y):
    """``x - y`` in ``x``'s dtype with ``inf - inf == 0``."""
    if not _moves(x):
        return np.zeros(np.shape(x), dtypes.float0)
    dtype = _dtype(x)
    x, y = np.asarray(x), np.asarray(y)
    with np.errstate(invalid="ignore"):
        return np.where(np.equal(x, y), np.array(0, dtype), np.subtract(x, y, dtype=dtype))


def _add(xs, ys):
    return tree_map(_preserve_input_types(operator.add), xs, ys)


def _sub(xs, ys):
    return tree_map(_preserve_input_types(operator.sub), xs, ys)


def _conj(xs):
    return tree_map(_preserve_input_types(np.conj), xs)


def _scalar_mul(xs, a):
    def mul(x):
        if not _moves(x):
            return x
        dtype = _dtype(x)
        result = np.multiply(_host(x), np.array(a, dtype=dtype), dtype=dtype)
        return result.item() if _is_python_scalar(x) else result

    return tree_map(mul, xs)


def _rand_like(rng, x):
    shape, dtype = np.shape(x), _dtype(x)
    result = np.asarray(rng.randn(*shape), dtype=dtype if _moves(x) else np.float64)
    if not _moves(x):  # the draw is made all the same, so later directions match JAX's
        return np.zeros(shape, dtypes.float0)
    if dtypes.issubdtype(dtype, np.complexfloating):
        result = result + dtype.type(1.0j) * np.asarray(rng.randn(*shape), dtype=dtype)
    return result.item() if _is_python_scalar(x) else result


def _inner_prod(xs, ys):
    def contract(x, y):
        if not (_moves(x) and _moves(y)):
            return np.float32(0)
        return np.real(np.dot(np.conj(np.asarray(x)).reshape(-1), np.asarray(y).reshape(-1)))

    return tree_reduce(np.add, tree_map(contract, xs, ys))


def numerical_jvp(f, primals, tangents, eps=EPS):
    """The central difference ``(f(x + eps t) - f(x - eps t)) / (2 eps)``, in the dtypes of
    the arguments and outputs."""
    delta = _scalar_mul(tangents, eps)
    f_pos = f(*_add(primals, delta))
    f_neg = f(*_sub(primals, delta))
    return _scalar_mul(tree_map(_safe_subtract, f_pos, f_neg), 0.5 / eps)


def _merge_tolerance(tol, default):
    if tol is None:
        return default
    if not isinstance(tol, dict):
        return tol
    out = dict(default)
    out.update({np.dtype(k): v for k, v in tol.items()})
    return out


def check_jvp(f, f_jvp, args, atol=None, rtol=None, eps=EPS, err_msg=""):
    """``f_jvp(args, tangents) -> (out, tangent_out)`` (e.g. ``partial(jvp, f)``) agrees with
    ``f`` and with a finite difference along one random tangent. Raises AssertionError."""
    atol = _merge_tolerance(atol, default_gradient_tolerance)
    rtol = _merge_tolerance(rtol, default_gradient_tolerance)
    rng = np.random.RandomState(0)
    tangent = tree_map(functools.partial(_rand_like, rng), args)
    v_out, t_out = f_jvp(args, tangent)
    _check_dtypes_match(v_out, t_out)
    v_out_expected = f(*args)
    _check_dtypes_match(v_out, v_out_expected)
    t_out_expected = numerical_jvp(f, args, tangent, eps=eps)
    check_close(v_out, v_out_expected, atol=atol, rtol=rtol,
                err_msg=f"{err_msg} primal" if err_msg else "primal")
    check_close(t_out, t_out_expected, atol=atol, rtol=rtol,
                err_msg=f"{err_msg} tangent" if err_msg else "tangent")


def check_vjp(f, f_vjp, args, atol=None, rtol=None, eps=EPS, err_msg=""):
    """``f_vjp(*args) -> (out, vjp_fun)`` (e.g. ``partial(vjp, f)``) agrees with ``f`` and
    satisfies ``<J t, c> == <t, J^T c>`` for random ``t`` and ``c``, ``J t`` estimated by finite
    differences. Raises AssertionError."""
    atol = _merge_tolerance(atol, default_gradient_tolerance)
    rtol = _merge_tolerance(rtol, default_gradient_tolerance)
    rand_like = functools.partial(_rand_like, np.random.RandomState(0))
    v_out, vjpfun = f_vjp(*args)
    v_out_expected = f(*args)
    check_close(v_out, v_out_expected, atol=atol, rtol=rtol,
                err_msg=f"{err_msg} primal" if err_msg else "primal")
    tangent = tree_map(rand_like, args)
    tangent_out = numerical_jvp(f, args, tangent, eps=eps)
    cotangent = tree_map(rand_like, v_out)
    cotangent_out = _conj(vjpfun(_conj(cotangent)))
    ip = _inner_prod(tangent, cotangent_out)
    ip_expected = _inner_prod(tangent_out, cotangent)
    check_close(ip, ip_expected, atol=atol, rtol=rtol,
                err_msg=f"{err_msg} cotangent projection" if err_msg
                else "cotangent projection")


def check_grads(f, args, order, modes=("fwd", "rev"), atol=None, rtol=None, eps=None,
                jit=False):
    """Checks ``f``'s derivatives at ``args`` (a tuple) against finite differences, in forward
    (``"fwd"``), reverse (``"rev"``) and/or linearized (``"lin"``) mode, up to ``order``.
    Raises AssertionError."""
    args = tuple(args)
    eps = eps or EPS
    _check_jvp = functools.partial(check_jvp, atol=atol, rtol=rtol, eps=eps)
    _check_vjp = functools.partial(check_vjp, atol=atol, rtol=rtol, eps=eps)

    def _check_grads(f, args, order, err_msg=""):
        f_eval = _maybe_jit(f, jit)
        if "fwd" in modes:
            fwd_msg = f"JVP of {err_msg}" if err_msg else "JVP"
            _check_jvp(f_eval, _maybe_jit(functools.partial(jvp, f), jit), args,
                       err_msg=fwd_msg)
            if order > 1:
                _check_grads(functools.partial(jvp, f), (args, _as_tangents(args)), order - 1,
                             fwd_msg)
        if "rev" in modes:
            rev_msg = f"VJP of {err_msg}" if err_msg else "VJP"
            _check_vjp(f_eval, _vjp_maybe_jit(f, jit), args, err_msg=rev_msg)
            if order > 1:
                def f_vjp(*args):
                    out_primal, vjp_fun = vjp(f, *args)
                    return vjp_fun(out_primal)

                _check_grads(f_vjp, args, order - 1, rev_msg)
        if "lin" in modes:
            lin_msg = f"LIN of {err_msg}" if err_msg else "LIN"
            _check_jvp(f_eval, _maybe_jit(functools.partial(_jvp_from_lin, f), jit), args,
                       err_msg=lin_msg)
            if order > 1:
                _check_grads(functools.partial(_jvp_from_lin, f), (args, _as_tangents(args)),
                             order - 1, lin_msg)

    _check_grads(f, args, order)


def _as_tangents(args):
    """``args`` as tangents of themselves: integer and boolean leaves become float0."""
    return tree_map(lambda x: x if _moves(x) else np.zeros(np.shape(x), dtypes.float0), args)


def _jvp_from_lin(f, primals, tangents):
    primal_out, f_lin = linearize(f, *primals)
    return primal_out, f_lin(*tangents)


def _vjp_maybe_jit(f, use_jit):
    """``partial(vjp, f)``; with ``use_jit`` the primal and the pullback each run compiled."""
    if not use_jit:
        return functools.partial(vjp, f)
    pullback = _maybe_jit(lambda args, ct: vjp(f, *args)[1](ct), True)

    def f_vjp(*args):
        return _maybe_jit(f, True)(*args), lambda ct: pullback(args, ct)

    return f_vjp


def _np_dtype(x):
    dtype = getattr(x, "dtype", None)
    return np.dtype(dtype) if dtype is not None else None


def _maybe_jit(f, use_jit):
    """``jit(f)``, with float0 values (tangents of integers) kept out of the compiled program:
    they hold no data, so they cross the jit boundary as booleans and are restored after."""
    if not use_jit:
        return f

    out_float0 = []
    arg_float0 = []

    def restore(leaves, flags):
        return [np.zeros(np.shape(x), dtypes.float0) if z else x for x, z in zip(leaves, flags)]

    def hide(leaves, flags):
        return [np.zeros(np.shape(x), np.bool_) if z else x for x, z in zip(leaves, flags)]

    def inner(*args):
        leaves, tree = _registry.flatten(args)
        out = f(*tree.unflatten(restore(leaves, arg_float0)))
        out_leaves, out_tree = _registry.flatten(out)
        out_float0[:] = [_np_dtype(x) == dtypes.float0 for x in out_leaves]
        return out_tree.unflatten(hide(out_leaves, out_float0))

    jitted = jit(inner)

    def call(*args):
        leaves, tree = _registry.flatten(args)
        arg_float0[:] = [_np_dtype(x) == dtypes.float0 for x in leaves]
        out = jitted(*tree.unflatten(hide(leaves, arg_float0)))
        out_leaves, out_tree = _registry.flatten(out)
        return out_tree.unflatten(restore(out_leaves, out_float0))

    return call
