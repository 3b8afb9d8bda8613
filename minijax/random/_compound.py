"""Samplers that transform uniform, normal, exponential or gamma samples: pareto, t,
chisquare, f, maxwell, double_sided_maxwell, weibull_min, generalized_normal, ball, rayleigh,
wald, geometric, triangular, lognormal.

Each is JAX 0.10's arithmetic step for step (same key splits, same operation order), so on
the same backend the samples are JAX's. ``out_sharding`` (where JAX takes it) lays the result
out so (``lay_out``: over Explicit mesh axes, its type).
"""

from __future__ import annotations

import operator

import numpy as np

from minijax import dtypes, lax
from minijax import numpy as jnp
from minijax.core import concrete_or_error
from minijax.lax.sharding_constraint import lay_out
from minijax.numpy._eager import eager_jit
from minijax.numpy._util import broadcast_shapes, check_arraylike, promote_dtypes_inexact
from minijax.random._distributions import (
    _as_array,
    _check_shape,
    _exponential,
    _normal,
    _shape,
    _uniform,
    rademacher,
)
from minijax.random._gamma import gamma, loggamma
from minijax.random._keys import _shape_tuple, _single, _split

__all__ = ["pareto", "t", "chisquare", "f", "maxwell", "double_sided_maxwell", "weibull_min",
           "generalized_normal", "ball", "rayleigh", "wald", "geometric", "triangular",
           "lognormal"]


# ------------------------------------------------------------------------------------------------
# Argument checks shared by the samplers here and in _counts.py


def _user_dtype(name, dtype, default, kind=np.floating, what="a float"):
    """JAX's ``check_and_canonicalize_user_dtype`` then its ValueError for the wrong kind."""
    dtype = dtypes.canonicalize_dtype(default if dtype is None else dtype)
    if kind is not None and not dtypes.issubdtype(dtype, kind):
        raise ValueError(f"dtype argument to `{name}` must be {what} dtype, got {dtype}")
    return dtype


def _broadcast_shape(name, shape, *args):
    """``shape`` checked against the parameters' shapes, or their broadcast when None."""
    arg_shapes = [tuple(_shape(a)) for a in args]
    if shape is None:
        return broadcast_shapes(*arg_shapes) if arg_shapes else ()
    shape = _shape_tuple(name, shape)
    _check_shape(name, shape, *arg_shapes)
    return shape


def _check_safe_to_cast(name, dtype, *args):
    """Parameters must convert to ``dtype`` without loss under JAX's promotion (a Python
    scalar always can; float32 into float16 cannot)."""
    for arg in args:
        arg = arg if not isinstance(arg, (list, tuple)) else np.asarray(arg)
        # dtype.type: a dtype object would compare equal to (and pass for) Python's float
        if dtypes.result_type(arg, dtype.type) != dtype:
            raise dtypes.TypePromotionError(
                f"In arguments to {name}, cannot safely cast argument of type "
                f"{dtypes.dtype_of(arg)[0]} to {dtype}")




# ------------------------------------------------------------------------------------------------
# Transforms of one exponential, normal or uniform


@eager_jit(static_argnames=("shape", "dtype"), inline=False)
def _pareto(data, b, shape, dtype):
    b = lax.convert_element_type(b, dtype)
    return lax.exp(_exponential(data, shape, dtype) / b)


def pareto(key, b, shape=None, dtype=None, *, out_sharding=None):
    """Pareto samples of shape parameter ``b`` on ``[1, inf)``: ``exp(Exponential / b)``."""
    data, _ = _single("pareto", key)
    dtype = _user_dtype("pareto", dtype, float)
    shape = _broadcast_shape("pareto", shape, b)
    _check_safe_to_cast("pareto", dtype, b)
    return lay_out(_pareto(data, b, shape, dtype), out_sharding)


@eager_jit(static_argnames=("shape", "dtype"), inline=False)
def _weibull_min(data, scale, concentration, shape, dtype):
    u = _uniform(data, 0, 1, shape, dtype)
    return jnp.power(-jnp.log1p(-u), 1.0 / concentration) * scale  # the inverse CDF


def weibull_min(key, scale, concentration, shape=(), dtype=None):
    """Weibull samples (scale ``scale``, shape ``concentration``) by the inverse CDF."""
    data, _ = _single("weibull_min", key)
    dtype = _user_dtype("weibull_min", dtype, float)
    return _weibull_min(data, scale, concentration, _shape_tuple("weibull_min", shape), dtype)


@eager_jit(static_argnames=("shape", "dtype"), inline=False)
def _rayleigh(data, scale, shape, dtype):
    u = _uniform(data, 0.0, 1.0, shape, dtype)
    scale = jnp.broadcast_to(lax.convert_element_type(scale, dtype), shape)
    sqrt_u = lax.sqrt(lax.mul(lax.log(u), np.array(-2, dtype)))
    return lax.mul(scale, sqrt_u)


def rayleigh(key, scale, shape=None, dtype=None, *, out_sharding=None):
    """Rayleigh samples of scale ``scale``: ``scale * sqrt(-2 log U)``."""
    data, _ = _single("rayleigh", key)
    dtype = _user_dtype("rayleigh", dtype, float)
    shape = _broadcast_shape("rayleigh", shape, scale)
    _check_safe_to_cast("rayleigh", dtype, scale)
    return lay_out(_rayleigh(data, scale, shape, dtype), out_sharding)


@eager_jit(static_argnames=("shape", "dtype"))
def _triangular(data, left, mode, right, shape, dtype):
    left = jnp.broadcast_to(lax.convert_element_type(left, dtype), shape)
    right = jnp.broadcast_to(lax.convert_element_type(right, dtype), shape)
    mode = jnp.broadcast_to(lax.convert_element_type(mode, dtype), shape)
    fc = (mode - left) / (right - left)
    u = _uniform(data, 0.0, 1.0, shape, dtype)
    out1 = left + lax.sqrt(u * (right - left) * (mode - left))
    out2 = right - lax.sqrt((1 - u) * (right - left) * (right - mode))
    return lax.select(u < fc, out1, out2)


def triangular(key, left, mode, right, shape=None, dtype=None, *, out_sharding=None):
    """Triangular samples on ``[left, right]`` peaking at ``mode`` (the inverse CDF)."""
    data, _ = _single("triangular", key)
    dtype = _user_dtype("triangular", dtype, float)
    shape = _broadcast_shape("triangular", shape, left, mode, right)
    _check_safe_to_cast("triangular", dtype, left, mode, right)
    return lay_out(_triangular(data, left, mode, right, shape, dtype), out_sharding)


@eager_jit(static_argnames=("shape", "dtype"))
def _lognormal(data, sigma, shape, dtype):
    sigma = lax.convert_element_type(sigma, dtype)
    return lax.exp(_normal(data, shape, dtype) * sigma)


def lognormal(key, sigma=np.float32(1), shape=None, dtype=None, *, out_sharding=None):
    """``exp(sigma * Normal)`` samples (complex dtypes allowed, as in JAX)."""
    data, _ = _single("lognormal", key)
    dtype = _user_dtype("lognormal", dtype, float, np.inexact, "a float or complex")
    shape = _broadcast_shape("lognormal", shape, sigma)
    _check_safe_to_cast("lognormal", dtype, sigma)
    return lay_out(_lognormal(data, sigma, shape, dtype), out_sharding)


@eager_jit(static_argnames=("shape", "dtype"), inline=False)
def _wald(data, mean, shape, dtype):
    k1, k2 = _split(data, (2,))
    mean = jnp.broadcast_to(lax.convert_element_type(mean, dtype), shape)
    v = _normal(k1, shape, dtype)
    z = _uniform(k2, 0.0, 1.0, shape, dtype)
    y = lax.integer_pow(v, 2)
    y_sq = lax.integer_pow(y, 2)
    mean_sq = lax.integer_pow(mean, 2)
    sqrt_term = lax.sqrt(4 * mean * y + mean_sq * y_sq)
    x = mean + mean_sq * y / 2 - mean / 2 * sqrt_term
    return lax.select(lax.le(z, mean / (mean + x)), x, mean_sq / x)


def wald(key, mean, shape=None, dtype=None, *, out_sharding=None):
    """Wald (inverse Gaussian, unit shape) samples of mean ``mean``
    (Michael, Schucany and Haas)."""
    data, _ = _single("wald", key)
    dtype = _user_dtype("wald", dtype, float)
    shape = _broadcast_shape("wald", shape, mean)
    _check_safe_to_cast("wald", dtype, mean)
    return lay_out(_wald(data, mean, shape, dtype), out_sharding)


@eager_jit(static_argnames=("shape", "dtype"), inline=False)
def _geometric(data, p, shape, dtype):
    (p,) = promote_dtypes_inexact(_as_array(p))
    u = _uniform(data, 0.0, 1.0, shape, p.dtype)
    # JAX maps u == 0 to 1 (not log1p(u - 1)) so that its samples stay what they were.
    u = jnp.where(u == 0, 1, u)
    log_one_minus_p = jnp.broadcast_to(lax.log1p(-p), shape)
    g = lax.floor(lax.div(lax.log(u), log_one_minus_p)) + 1
    return g.astype(dtype)


def geometric(key, p, shape=None, dtype=None, *, out_sharding=None):
    """The number of Bernoulli(``p``) trials up to the first success (integers >= 1)."""
    data, _ = _single("geometric", key)
    dtype = _user_dtype("geometric", dtype, int, np.integer, "an int")
    shape = _broadcast_shape("geometric", shape, p)
    check_arraylike("geometric", p)
    return lay_out(_geometric(data, p, shape, dtype), out_sharding)


@eager_jit(static_argnames=("shape", "dtype"), inline=False)
def _maxwell(data, shape, dtype):
    return jnp.linalg.norm(_normal(data, shape + (3,), dtype), axis=-1)


def maxwell(key, shape=(), dtype=None, *, out_sharding=None):
    """One-sided Maxwell samples: the length of a standard normal 3-vector."""
    data, _ = _single("maxwell", key)
    dtype = _user_dtype("maxwell", dtype, float)
    return lay_out(_maxwell(data, _shape_tuple("maxwell", shape), dtype), out_sharding)


@eager_jit(static_argnames=("shape", "dtype"), inline=False)
def _double_sided_maxwell(data, loc, scale, shape, dtype):
    params_shape = broadcast_shapes(tuple(_shape(loc)), tuple(_shape(scale)))
    # JAX's rule, kept as is: the parameters' shape is appended to ``shape`` (and stands in
    # for an empty one), so shape=() with (2,)-shaped parameters gives (2, 2) samples.
    if not shape:
        shape = params_shape
    shape = shape + params_shape
    maxwell_key, rademacher_key = _split(data, (2,))
    maxwell_rvs = _maxwell(maxwell_key, shape, dtype)
    random_sign = rademacher(rademacher_key, shape, dtype)
    return random_sign * maxwell_rvs * scale + loc


def double_sided_maxwell(key, loc, scale, shape=(), dtype=None):
    """Maxwell samples with a random sign, scaled by ``scale`` around ``loc``."""
    data, _ = _single("double_sided_maxwell", key)
    dtype = _user_dtype("double_sided_maxwell", dtype, float)
    shape = _shape_tuple("double_sided_maxwell", shape)
    return _double_sided_maxwell(data, loc, scale, shape, dtype)


# ------------------------------------------------------------------------------------------------
# Transforms of gamma samples


@eager_jit(static_argnames=("shape", "dtype"), inline=False)
def _t(data, df, shape, dtype):
    df = lax.convert_element_type(df, dtype)
    key_n, key_g = _split(data, (2,))
    n = _normal(key_n, shape, dtype)
    half_df = lax.div(df, np.array(2, dtype))
    g = gamma(key_g, half_df, shape, dtype)
    return n * jnp.sqrt(half_df / g)


def t(key, df, shape=None, dtype=None, *, out_sharding=None):
    """Student's t samples with ``df`` degrees of freedom: ``N * sqrt(df / 2 / Gamma(df/2))``."""
    data, _ = _single("t", key)
    dtype = _user_dtype("t", dtype, float)
    shape = _broadcast_shape("t", shape, df)
    _check_safe_to_cast("t", dtype, df)
    return lay_out(_t(data, df, shape, dtype), out_sharding)


@eager_jit(static_argnames=("shape", "dtype"), inline=False)
def _chisquare(data, df, shape, dtype):
    df = lax.convert_element_type(df, dtype)
    two = np.array(2, dtype)
    log_g = loggamma(data, lax.div(df, two), shape, dtype)
    return lax.mul(jnp.exp(log_g), two)


def chisquare(key, df, shape=None, dtype=None, *, out_sharding=None):
    """Chi-square samples with ``df`` degrees of freedom: ``2 * Gamma(df / 2)``."""
    data, _ = _single("chisquare", key)
    dtype = _user_dtype("chisquare", dtype, float)
    shape = _broadcast_shape("chisquare", shape, df)
    _check_safe_to_cast("chisquare", dtype, df)
    return lay_out(_chisquare(data, df, shape, dtype), out_sharding)


@eager_jit(static_argnames=("shape", "dtype"), inline=False)
def _f(data, dfnum, dfden, shape, dtype):
    dfden = lax.convert_element_type(dfden, dtype)
    dfnum = lax.convert_element_type(dfnum, dtype)
    key_dfd, key_dfn = _split(data, (2,))
    num = lax.div(_chisquare(key_dfn, dfnum, shape, dtype), dfnum)
    den = lax.div(_chisquare(key_dfd, dfden, shape, dtype), dfden)
    return lax.div(num, den)


def f(key, dfnum, dfden, shape=None, dtype=None, *, out_sharding=None):
    """F-distribution samples: the ratio of two chi-squares over their degrees of freedom."""
    data, _ = _single("f", key)
    dtype = _user_dtype("f", dtype, float)
    shape = _broadcast_shape("f", shape, dfnum, dfden)
    _check_safe_to_cast("f", dtype, dfnum, dfden)
    return lay_out(_f(data, dfnum, dfden, shape, dtype), out_sharding)


@eager_jit(static_argnames=("shape", "dtype"), inline=False)
def _generalized_normal(data, p, shape, dtype):
    keys = _split(data, (2,))
    g = gamma(keys[0], 1 / p, shape, dtype)
    r = rademacher(keys[1], shape, dtype)
    return r * g ** (1 / p)


def generalized_normal(key, p, shape=(), dtype=None, *, out_sharding=None):
    """Samples of density proportional to ``exp(-|x|**p)``: a random sign times
    ``Gamma(1/p) ** (1/p)``."""
    data, _ = _single("generalized_normal", key)
    shape = _shape_tuple("generalized_normal", shape)
    dtype = dtypes.canonicalize_dtype(float if dtype is None else dtype)
    return lay_out(_generalized_normal(data, p, shape, dtype), out_sharding)


@eager_jit(static_argnames=("d", "shape", "dtype"), inline=False)
def _ball(data, p, d, shape, dtype):
    k1, k2 = _split(data, (2,))
    g = generalized_normal(k1, p, (*shape, d), dtype)
    e = _exponential(k2, shape, dtype)
    return g / (((jnp.abs(g) ** p).sum(-1) + e) ** (1 / p))[..., None]


def ball(key, d, p=2, shape=(), dtype=None, *, out_sharding=None):
    """Points uniform in the unit Lp ball of dimension ``d`` (Barthe, Guedon, Mendelson and
    Naor): shape ``(*shape, d)``."""
    data, _ = _single("ball", key)
    shape = _shape_tuple("ball", shape)
    dtype = dtypes.canonicalize_dtype(float if dtype is None else dtype)
    d = concrete_or_error(operator.index, d, "The error occurred in minijax.random.ball()")
    return lay_out(_ball(data, p, d, shape, dtype), out_sharding)
