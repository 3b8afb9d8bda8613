"""A value sweep of jax.scipy.special and jax.scipy.stats over special inputs.

Run it under each interpreter and compare the two outputs:

    /work/venv_jax/bin/python tools/difftest/sweep_scipy.py > /tmp/sweep_jax.txt
    python3 tools/difftest/sweep_scipy.py --minijax > /tmp/sweep_mj.txt
    python3 tools/difftest/sweep_scipy.py --compare /tmp/sweep_jax.txt /tmp/sweep_mj.txt

Each line is one case: ``function | configuration | dtype weak shape | values`` (or the error's
type). JAX 0.10.2's ``expn`` and ``exp1`` do not return for some inputs: those are left out
(see ``_TINY``). Options: ``--isolate`` runs every function in its own subprocess under a
timeout (``TIMEOUT`` where it ends there; slower, for new inputs that may hang); ``--only
NAME[,NAME]`` runs some functions; ``--x64`` sweeps under ``jax_enable_x64``; ``--from NAME`` /
``--to NAME`` start at / stop before a function (to split a sweep over processes); ``--full``
adds stats cases (strong low-precision parameters, integer parameters, jit, vmap), left out by
default to keep a sweep within an hour. ``--compare A B`` prints the cases whose dtype, weak
type, shape or error differ, or whose values differ by more than ``--ulps`` (default 0) units in
the last place (NaN only equals NaN), with the largest distance of each.

Round 23 (helper b) added negative integers and points between them, NumPy/bfloat16 scalars,
complex inputs and low-precision scalar pairs, and made ``--ulps`` 0 by default: both sides
evaluate the same formulas through XLA, so values are bit-exact unless a batch's fusions differ
(JAX's own scalar and vector values can differ there: ``tools/difftest/triage_27000_j.md``).
"""
from __future__ import annotations

import inspect
import math
import os
import subprocess
import sys

import numpy as np

_TIMEOUT_S = 120

# The variate's values: signed zeros, ±1, tiny, huge, the float32 limit, infinities, NaN, a
# float32 denormal and ordinary points inside and at the ends of the usual domains.
SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 0.25, 0.9, 2.0, -2.5, 5.0, 10.0, 30.0, 100.0,
           1e-30, -1e-30, 1e-40, 1e30, -1e30, 3.4e38, -3.4e38, math.inf, -math.inf, math.nan]
# A parameter's values (crossed with SPECIAL, the others held at their defaults).
PARAM = [0.0, -0.0, 1.0, -1.0, 0.5, 2.5, 7.0, 1e-30, 1e30, math.inf, -math.inf, math.nan]
SMALL = [0.0, -0.0, 1.0, -1.0, 0.5, 2.5, 1e-30, 1e30, math.inf, math.nan]
INTS = [0, 1, 2, -1, 5, 30]
# Negative integers (the poles of gamma-like functions) and points between them.
NEGATIVE = [-1.0, -2.0, -3.0, -10.0, -100.0, -0.5, -1.5, -3.75, -1e-5, -1e5]
# Points where gradients are taken (float32).
GRAD_AT = [0.3, 0.5, 0.9, 1.5, 2.0, 3.0, 7.5, 0.0, -0.7, 1e-30, 30.0, math.inf, math.nan]

# JAX 0.10.2's exp1 and expn do not return for an array holding a tiny x (1e-30, 1e-40) beside
# any other value (each of them alone returns): their vectors leave the tiny ones out, and
# those are swept one scalar at a time ("tiny scalars").
_TINY = (1e-30, -1e-30, 1e-40)

# Parameter defaults by name, for stats functions (crossed one at a time with PARAM).
STATS_DEFAULTS = {"loc": 0.5, "scale": 2.0, "a": 2.0, "b": 3.0, "df": 3.0, "beta": 1.5,
                  "p": 0.3, "n": 5.0, "mu": 2.5, "kappa": 1.5, "c": 0.5}
TRUNCNORM_DEFAULTS = {"a": -1.0, "b": 2.0}


def _jax():
    import jax
    return jax


def _weak(x):
    w = getattr(x, "weak_type", None)
    if w is None:
        w = x.aval.weak_type
    return bool(w)


def _fmt_values(v):
    a = np.asarray(v)
    if a.dtype == bool or np.issubdtype(a.dtype, np.integer):
        return " ".join(str(int(t)) for t in a.ravel())
    if np.issubdtype(a.dtype, np.complexfloating):
        return " ".join(f"{float(t.real)!r},{float(t.imag)!r}" for t in a.ravel())
    return " ".join(repr(float(t)) for t in a.astype(np.float64).ravel())


def _fmt(out):
    jax = _jax()
    if isinstance(out, (tuple, list)):
        return " || ".join(_fmt(o) for o in out)
    if not isinstance(out, jax.Array):
        return f"pytype={type(out).__name__} {_fmt_values(out)}"
    return f"{out.dtype} weak={int(_weak(out))} shape={tuple(out.shape)} | {_fmt_values(out)}"


def _case(name, config, thunk):
    try:
        text = _fmt(thunk())
    except Exception as e:  # the error's type is part of the behaviour compared
        text = f"ERROR {type(e).__name__}"
    print(f"{name} | {config} | {text}", flush=True)


def _arr(values, dtype):
    jnp = _jax().numpy
    with np.errstate(over="ignore"):
        return jnp.asarray(np.asarray(values, np.float64).astype(dtype))


def _dtypes():
    import ml_dtypes
    return [("float32", np.float32), ("float16", np.float16),
            ("bfloat16", ml_dtypes.bfloat16)]


# ----- jax.scipy.special ----------------------------------------------------------------

# name -> (arity, how the first argument is fixed): unary functions of floats, then binary and
# wider ones whose arguments are crossed by broadcasting.
UNARY = ["dawsn", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp1", "expi", "expit",
         "gamma", "gammaln", "gammasgn", "i0", "i0e", "i1", "i1e", "log_ndtr", "loggamma",
         "logit", "ndtr", "ndtri", "spence", "fresnel", "sici", "factorial", "wofz"]
BINARY = ["beta", "betaln", "boxcox", "boxcox1p", "gammainc", "gammaincc", "kl_div", "owens_t",
          "poch", "rel_entr", "xlog1py", "xlogy", "zeta", "polygamma", "expn", "comb"]
TERNARY = ["betainc", "hyp1f1"]
# Functions whose first argument is an order (crossed with INTS as floats and as ints).
ORDER_FIRST = {"polygamma", "expn"}


def _special_inputs(name, values=SPECIAL):
    """``values``, less the inputs on which JAX hangs for this function."""
    if name in ("exp1", "expn"):
        return [v for v in values if v not in _TINY]
    return values


def sweep_special(name):
    jax = _jax()
    jnp = jax.numpy
    f = getattr(jax.scipy.special, name)
    key = f"special.{name}"
    xs = _special_inputs(name)
    if name in UNARY:
        if name == "exp1":
            for t in _TINY:
                _case(key, f"tiny scalar {t}", lambda: f(np.float32(t)))
        for dn, dt in _dtypes():
            _case(key, dn, lambda: f(_arr(xs, dt)))
        _case(key, "int32", lambda: f(jnp.asarray(INTS, jnp.int32)))
        _case(key, "bool", lambda: f(jnp.asarray([True, False])))
        _case(key, "pyfloat", lambda: f(0.75))
        _case(key, "pyint", lambda: f(3))
        _case(key, "negative", lambda: f(_arr(NEGATIVE, np.float32)))
        _case(key, "npscalar float16", lambda: f(np.float16(0.75)))
        _case(key, "scalar bfloat16", lambda: f(_arr(0.75, _dtypes()[2][1])))
        if name != "wofz":  # complex values (gamma, loggamma) or the error's type
            _case(key, "complex64", lambda: f(jnp.asarray([1 + 2j, -0.5j, -2.5 + 0j], jnp.complex64)))
        _case(key, "jit", lambda: jax.jit(f)(_arr(xs, np.float32)))
        _case(key, "vmap", lambda: jax.vmap(f)(_arr(xs, np.float32)))
        if name == "wofz":
            z = _arr(xs, np.float32)[:, None] + 1j * _arr(SMALL, np.float32)[None, :]
            _case(key, "complex64", lambda: f(z))
            return
        if name in ("fresnel", "sici"):
            g = jax.vmap(jax.grad(lambda x: f(x)[0]))
        else:
            g = jax.vmap(jax.grad(f))
        _case(key, "grad", lambda: g(_arr(_special_inputs(name, GRAD_AT), np.float32)))
        return
    if name in BINARY:
        if name in ORDER_FIRST:
            firsts = [float(i) for i in INTS] + [0.5, math.nan]
        else:
            firsts = SMALL + [2.0, 5.0]
        a = _arr(firsts, np.float32)[:, None]
        b = _arr(xs, np.float32)[None, :]
        if name == "expn":
            for t in _TINY:
                _case(key, f"tiny scalar {t}", lambda: [f(n, np.float32(t)) for n in (0, 1, 2, 5)])
        _case(key, "float32 grid", lambda: f(a, b))
        for dn, dt in _dtypes()[1:]:
            _case(key, dn + " grid", lambda: f(_arr(firsts, dt)[:, None], _arr(xs, dt)[None, :]))
        _case(key, "int32", lambda: f(jnp.asarray(INTS, jnp.int32), jnp.asarray(INTS, jnp.int32)))
        _case(key, "int,float", lambda: f(jnp.asarray(INTS, jnp.int32)[:, None], b))
        _case(key, "pyscalars", lambda: f(2, 1.5))
        _case(key, "negative grid", lambda: f(_arr(NEGATIVE, np.float32)[:, None],
                                              _arr(NEGATIVE + [0.5, 3.0], np.float32)[None, :]))
        _case(key, "float16 scalars", lambda: f(np.float16(2), np.float16(0.9)))
        _case(key, "bfloat16 scalars", lambda: f(_arr(2, _dtypes()[2][1]), _arr(0.9, _dtypes()[2][1])))
        _case(key, "jit", lambda: jax.jit(f)(a, b))
        _case(key, "vmap", lambda: jax.vmap(f, (None, 0))(a[:, 0], b[0]))
        second = jax.vmap(jax.grad(f, argnums=1), (None, 0))
        _case(key, "grad x", lambda: second(a[3, 0] * 0 + 2.0,
                                            _arr(_special_inputs(name, GRAD_AT), np.float32)))
        first = jax.vmap(jax.grad(f, argnums=0), (0, None))
        _case(key, "grad a", lambda: first(_arr(GRAD_AT, np.float32), jnp.float32(1.5)))
        return
    if name in TERNARY:
        p = _arr(SMALL + [2.0], np.float32)
        x = _arr([0.0, 0.25, 0.5, 1.0, -0.5, 1.5, 3.0, math.inf, math.nan], np.float32)
        _case(key, "float32 grid", lambda: f(p[:, None, None], p[None, :, None], x[None, None]))
        _case(key, "float16", lambda: f(_arr([1.0, 2.0], np.float16), np.float16(3), _arr([0.5, 0.25], np.float16)))
        _case(key, "int32", lambda: f(1, 2, jnp.asarray([0, 1], jnp.int32)))
        _case(key, "jit", lambda: jax.jit(f)(p[:, None, None], p[None, :, None], x[None, None]))
        _case(key, "vmap", lambda: jax.vmap(f, (None, None, 0))(jnp.float32(2), jnp.float32(3), x))
        g = jax.vmap(jax.grad(f, argnums=2), (None, None, 0))
        _case(key, "grad x", lambda: g(jnp.float32(2), jnp.float32(3), _arr([0.1, 0.5, 0.9], np.float32)))
        return
    other = _OTHER_SPECIAL[name]
    other(key, f)


def _hyp2f1(key, f):
    jax = _jax()
    p = _arr([0.0, 1.0, -1.0, 0.5, 2.5, -2.0, math.nan], np.float32)
    x = _arr([0.0, 0.25, 0.5, -0.5, 0.99, 1.0, -3.0, 1.5, math.nan], np.float32)
    _case(key, "float32 grid", lambda: f(p[:, None, None, None], p[None, :, None, None],
                                         p[None, None, :, None], x[None, None, None]))
    _case(key, "jit", lambda: jax.jit(f)(1.5, 2.0, 3.0, x))
    _case(key, "vmap", lambda: jax.vmap(f, (None, None, None, 0))(1.5, 2.0, 3.0, x))
    g = jax.vmap(jax.grad(f, argnums=3), (None, None, None, 0))
    _case(key, "grad x", lambda: g(1.5, 2.0, 3.0, _arr([0.1, 0.5, -0.5], np.float32)))


def _bernoulli(key, f):
    for n in (0, 1, 2, 5, 10):
        _case(key, f"n={n}", lambda: f(n))


def _bessel_jn(key, f):
    jax = _jax()
    xs = _arr(SPECIAL, np.float32)
    for v in (0, 1, 3):
        _case(key, f"v={v}", lambda: f(xs, v=v))
    _case(key, "float16", lambda: f(_arr([0.5, 2.0], np.float16), v=1))
    _case(key, "int32", lambda: f(jax.numpy.asarray([1, 2]), v=1))
    _case(key, "jit", lambda: jax.jit(lambda x: f(x, v=2))(xs))
    _case(key, "grad", lambda: jax.vmap(jax.grad(lambda x: f(x, v=1)[1]))(_arr(GRAD_AT, np.float32)))


def _multigammaln(key, f):
    jax = _jax()
    xs = _arr(SPECIAL, np.float32)
    for d in (1, 2, 3):
        _case(key, f"d={d}", lambda: f(xs, d))
    _case(key, "float16", lambda: f(_arr([1.5, 2.0], np.float16), 2))
    _case(key, "int32", lambda: f(jax.numpy.asarray([2, 3]), 2))
    _case(key, "pyfloat", lambda: f(3.5, 2))
    _case(key, "jit", lambda: jax.jit(lambda x: f(x, 2))(xs))
    _case(key, "grad", lambda: jax.vmap(jax.grad(lambda x: f(x, 2)))(_arr(GRAD_AT, np.float32)))


def _reduction(key, f):
    jax = _jax()
    jnp = jax.numpy
    x = _arr(SPECIAL, np.float32).reshape(4, 6)
    for kw in ({}, {"axis": 0}, {"axis": 1}, {"axis": (0, 1)}):
        _case(key, f"{kw}", lambda: f(x, **kw))
    _case(key, "float16", lambda: f(_arr(SPECIAL, np.float16), axis=0))
    _case(key, "int32", lambda: f(jnp.asarray(INTS), axis=0))
    _case(key, "rows", lambda: f(_arr([[0.0, 1.0], [-math.inf, -math.inf], [math.inf, 0.0]], np.float32), axis=-1))
    _case(key, "jit", lambda: jax.jit(lambda t: f(t, axis=1))(x))
    _case(key, "grad", lambda: jax.grad(lambda t: f(t, axis=0)[0])(_arr([0.5, 1.0, -2.0], np.float32)))


def _logsumexp(key, f):
    jax = _jax()
    jnp = jax.numpy
    x = _arr(SPECIAL, np.float32).reshape(4, 6)
    for kw in ({}, {"axis": 0}, {"axis": 1}, {"axis": 1, "keepdims": True},
               {"axis": 1, "return_sign": True}):
        _case(key, f"{kw}", lambda: f(x, **kw))
    b = _arr([1.0, -1.0, 0.0, 2.0, -0.0, math.nan], np.float32)
    _case(key, "b", lambda: f(x, axis=1, b=b, return_sign=True))
    _case(key, "where", lambda: f(x, axis=1, where=jnp.asarray([True, False] * 3)))
    _case(key, "rows", lambda: f(_arr([[0.0, 1.0], [-math.inf, -math.inf], [math.inf, 0.0], [math.inf, -math.inf]], np.float32), axis=-1))
    _case(key, "float16", lambda: f(_arr(SPECIAL, np.float16)))
    _case(key, "int32", lambda: f(jnp.asarray(INTS)))
    _case(key, "pyfloat", lambda: f(2.0))
    _case(key, "complex", lambda: f(jnp.asarray([1 + 2j, -1 + 0.5j], jnp.complex64)))
    _case(key, "jit", lambda: jax.jit(lambda t: f(t, axis=1))(x))
    _case(key, "grad", lambda: jax.grad(lambda t: f(t))(_arr([0.5, 1.0, -2.0], np.float32)))
    _case(key, "grad b", lambda: jax.grad(lambda t: f(t, b=jnp.asarray([1.0, 2.0, 0.0])))(_arr([0.5, 1.0, -2.0], np.float32)))


def _sph_harm_y(key, f):
    jax = _jax()
    jnp = jax.numpy
    n = jnp.asarray([0, 1, 2, 3, 3])
    m = jnp.asarray([0, 1, -1, 2, -3])
    th = _arr([0.0, 0.5, 1.0, math.pi, 2.0], np.float32)
    ph = _arr([0.0, 0.3, -1.0, 2.0, 7.0], np.float32)
    _case(key, "n_max=3", lambda: f(n, m, th, ph, n_max=3))
    _case(key, "float64in", lambda: f(n, m, th, ph, n_max=3))
    _case(key, "jit", lambda: jax.jit(lambda a, b: f(n, m, a, b, n_max=3))(th, ph))


_OTHER_SPECIAL = {"hyp2f1": _hyp2f1, "bernoulli": _bernoulli, "bessel_jn": _bessel_jn,
                  "multigammaln": _multigammaln, "softmax": _reduction,
                  "log_softmax": _reduction, "logsumexp": _logsumexp, "sph_harm_y": _sph_harm_y}


# ----- jax.scipy.stats -----------------------------------------------------------------

_MULTIVARIATE = {"dirichlet", "multinomial", "multivariate_normal"}


def _stats_params(dist, fn):
    params = [p for p in inspect.signature(fn).parameters.values()][1:]
    defaults = dict(STATS_DEFAULTS)
    if dist == "truncnorm":
        defaults.update(TRUNCNORM_DEFAULTS)
    return [(p.name, defaults[p.name]) for p in params]


def sweep_stats(dist, fname):
    jax = _jax()
    jnp = jax.numpy
    key = f"stats.{dist}.{fname}"
    f = getattr(getattr(jax.scipy.stats, dist), fname)
    if dist in _MULTIVARIATE:
        return _multivariate(key, dist, f)
    params = _stats_params(dist, f)
    vals = [v for _, v in params]
    xs = _arr(SPECIAL, np.float32)
    _case(key, "float32", lambda: f(xs, *vals))
    for i, (pname, _) in enumerate(params):
        def grid(i=i):
            args = [jnp.float32(v) for v in vals]
            args[i] = _arr(PARAM, np.float32)[None, :]
            return f(xs[:, None], *args)
        _case(key, f"{pname} grid", grid)
    for dn, dt in _dtypes()[1:]:
        _case(key, dn + " weak params", lambda: f(_arr(SPECIAL, dt), *vals))
    _case(key, "bool", lambda: f(jnp.asarray([True, False]), *vals))
    _case(key, "pyscalars", lambda: f(1.5, *vals))
    _case(key, "int x", lambda: f(jnp.asarray(INTS), *vals))
    g = jax.vmap(jax.grad(f, argnums=(0, 1) if vals else 0), (0,) + (None,) * len(vals))
    _case(key, "grad", lambda: g(_arr(GRAD_AT, np.float32), *[jnp.float32(v) for v in vals]))
    if "--full" in sys.argv:
        for dn, dt in _dtypes()[1:]:
            _case(key, dn, lambda: f(_arr(SPECIAL, dt), *[dt(v) for v in vals]))
        _case(key, "int32", lambda: f(jnp.asarray(INTS), *[int(round(v)) or 1 for v in vals]))
        _case(key, "jit", lambda: jax.jit(f)(xs, *vals))
        _case(key, "vmap", lambda: jax.vmap(f, (0,) + (None,) * len(vals))(xs, *vals))


def _multivariate(key, dist, f):
    jax = _jax()
    jnp = jax.numpy
    if dist == "dirichlet":
        x = _arr([[0.2, 0.3, 0.5], [0.0, 0.5, 0.5], [1.0, 0.0, 0.0], [0.5, 0.5, 0.5],
                  [-0.1, 0.6, 0.5], [math.nan, 0.5, 0.5]], np.float32).T
        for alpha in ([1.0, 2.0, 3.0], [1.0, 1.0, 1.0], [0.5, 0.5, 0.5], [0.0, 1.0, 1.0],
                      [-1.0, 2.0, 3.0], [math.inf, 1.0, 1.0]):
            _case(key, f"alpha={alpha}", lambda: f(x, _arr(alpha, np.float32)))
        _case(key, "float16", lambda: f(_arr([0.2, 0.8], np.float16), _arr([1.0, 2.0], np.float16)))
        _case(key, "jit", lambda: jax.jit(f)(x, _arr([1.0, 2.0, 3.0], np.float32)))
        _case(key, "grad", lambda: jax.grad(f, argnums=1)(x[:, 0], _arr([1.0, 2.0, 3.0], np.float32)))
    elif dist == "multinomial":
        x = jnp.asarray([[1, 2, 2], [0, 0, 5], [5, 0, 0], [1, 1, 1], [-1, 3, 3], [0, 0, 0]], jnp.float32)
        for n, p in ((5, [0.2, 0.3, 0.5]), (5, [0.0, 0.0, 1.0]), (5, [1.0, 0.0, 0.0]),
                     (3, [0.5, 0.5, 0.5]), (0, [0.2, 0.3, 0.5]), (5.5, [0.2, 0.3, 0.5])):
            _case(key, f"n={n} p={p}", lambda: f(x, n, _arr(p, np.float32)))
        _case(key, "int", lambda: f(jnp.asarray([1, 2, 2]), 5, jnp.asarray([0.2, 0.3, 0.5])))
        _case(key, "jit", lambda: jax.jit(f)(x, 5, _arr([0.2, 0.3, 0.5], np.float32)))
        _case(key, "grad", lambda: jax.grad(f, argnums=2)(x[0], 5.0, _arr([0.2, 0.3, 0.5], np.float32)))
    else:
        cov = _arr([[2.0, 0.5], [0.5, 1.0]], np.float32)
        x = _arr([[0.0, 0.0], [1.0, -1.0], [1e30, 0.0], [math.inf, 0.0], [math.nan, 1.0]], np.float32)
        mean = _arr([0.5, -0.5], np.float32)
        _case(key, "cov", lambda: f(x, mean, cov))
        _case(key, "scalar cov", lambda: f(x, mean, 2.0))
        _case(key, "1d", lambda: f(_arr([0.0, 1.0, math.inf], np.float32), 0.5, 2.0))
        _case(key, "singular", lambda: f(x, mean, _arr([[1.0, 1.0], [1.0, 1.0]], np.float32)))
        _case(key, "float16", lambda: f(x.astype(jnp.float16), mean, cov))
        _case(key, "int", lambda: f(jnp.asarray([1, 2]), jnp.asarray([0, 0]), jnp.asarray([[2, 0], [0, 1]])))
        _case(key, "jit", lambda: jax.jit(f)(x, mean, cov))
        _case(key, "grad", lambda: jax.grad(f)(x[1], mean, cov))
        _case(key, "grad cov", lambda: jax.grad(f, argnums=2)(x[1], mean, cov))


# ----- driver -----------------------------------------------------------------------------

def all_names():
    jax = _jax()
    names = [f"special.{n}" for n in sorted(dir(jax.scipy.special)) if not n.startswith("_")
             and callable(getattr(jax.scipy.special, n))
             and getattr(getattr(jax.scipy.special, n), "__module__", "").endswith("special")]
    for dist in sorted(dir(jax.scipy.stats)):
        mod = getattr(jax.scipy.stats, dist)
        if dist.startswith("_") or not inspect.ismodule(mod):
            continue
        names += [f"stats.{dist}.{n}" for n in sorted(getattr(mod, "__all__", dir(mod)))
                  if not n.startswith("_") and inspect.isfunction(getattr(mod, n))
                  and n in _DIST_FUNCTIONS]
    return names


_DIST_FUNCTIONS = {"logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf", "pmf",
                   "logpmf", "entropy"}


def run_one(full):
    if full.startswith("special."):
        sweep_special(full.split(".", 1)[1])
    else:
        _, dist, fname = full.split(".")
        sweep_stats(dist, fname)


def _use_minijax():
    """Make ``import jax`` answer minijax (this tree's), as ``minijax.run_as_jax`` does."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    sys.path.insert(0, root)
    from minijax import compat
    compat.install()


def _dist(a, b, dtype):
    """Units in the last place between two floats of ``dtype`` (inf where one is NaN)."""
    if math.isnan(a) or math.isnan(b):
        return 0 if math.isnan(a) and math.isnan(b) else math.inf
    if a == b:
        return 0
    if math.isinf(a) or math.isinf(b):
        return math.inf
    import ml_dtypes
    dt = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16, "float32": np.float32,
          "float64": np.float64}.get(dtype, np.float32)
    ints = {2: np.int16, 4: np.int32, 8: np.int64}[np.dtype(dt).itemsize]

    def ordered(v):
        i = int(np.asarray(v, dt).view(ints))
        return i if i >= 0 else -(i & (2 ** (8 * np.dtype(dt).itemsize - 1) - 1))
    return abs(ordered(a) - ordered(b))


def compare(path_a, path_b, ulps):
    def load(p):
        out = {}
        for line in open(p):
            parts = line.rstrip("\n").split(" | ")
            if len(parts) >= 3:
                out[(parts[0], parts[1])] = parts[2:]
        return out
    a, b = load(path_a), load(path_b)
    for k in a.keys() | b.keys():
        if k not in a or k not in b:
            print("ONLY IN", path_a if k in a else path_b, *k)
    for k in sorted(a.keys() & b.keys()):
        ra, rb = a[k], b[k]
        if ra == rb:
            continue
        if len(ra) != len(rb) or ra[0::2] != rb[0::2]:
            print("META", *k, "\n   a:", " | ".join(ra)[:300], "\n   b:", " | ".join(rb)[:300])
            continue
        worst, where = 0, None
        for meta, va, vb in zip(ra[0::2], ra[1::2], rb[1::2]):
            dtype = meta.split()[0]
            ta, tb = va.replace("||", " ").split(), vb.replace("||", " ").split()
            for i, (x, y) in enumerate(zip(ta, tb)):
                for xx, yy in zip(x.split(","), y.split(",")):
                    try:
                        d = _dist(float(xx), float(yy), dtype)
                    except ValueError:
                        d = 0 if xx == yy else math.inf
                    if d > worst:
                        worst, where = d, (i, xx, yy)
        if worst > ulps:
            print("VALUES", *k, f"max {worst} ulp at", where)


def main(argv):
    if "--compare" in argv:
        i = argv.index("--compare")
        ulps = float(argv[argv.index("--ulps") + 1]) if "--ulps" in argv else 0
        compare(argv[i + 1], argv[i + 2], ulps)
        return 0
    if "--x64" in argv:
        os.environ["JAX_ENABLE_X64"] = "1"
    if "--minijax" in argv:
        _use_minijax()
    if "--x64" in argv:
        _jax().config.update("jax_enable_x64", True)
    if "--only" in argv:
        for full in argv[argv.index("--only") + 1].split(","):
            run_one(full)
        return 0
    names = all_names()
    if "--to" in argv:  # stop before this function
        names = names[:names.index(argv[argv.index("--to") + 1])]
    if "--from" in argv:  # resume a sweep at this function
        names = names[names.index(argv[argv.index("--from") + 1]):]
    if "--isolate" not in argv:  # one process: the inputs on which JAX hangs are left out
        for full in names:
            run_one(full)
        return 0
    cmd = [sys.executable, os.path.abspath(__file__)]
    extra = [flag for flag in ("--x64", "--minijax") if flag in argv]
    for full in names:
        try:
            res = subprocess.run(cmd + ["--only", full] + extra, capture_output=True, text=True,
                                 timeout=_TIMEOUT_S)
            sys.stdout.write(res.stdout)
            if res.returncode:
                print(f"{full} | CRASH | rc={res.returncode} {res.stderr.strip()[-200:]}")
        except subprocess.TimeoutExpired:
            print(f"{full} | TIMEOUT | {_TIMEOUT_S}s")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
