"""Count samplers: poisson, binomial, multinomial, with JAX 0.10's algorithms and key use.

Poisson: Knuth's product of uniforms for ``lam < 10``, Hormann's transformed rejection above.
Binomial: inversion by summing geometric waiting times when ``n * min(p, 1-p) <= 10``,
Hormann's BTRS rejection above. Both run every element of the batch in one ``while_loop`` over
whole arrays (each element stops changing once it is done), both branches with the same key,
and pick per element with ``select``, exactly as JAX does, so the samples are JAX's.
Multinomial is a ``scan`` of conditional binomials over the categories.
"""

from __future__ import annotations

import numpy as np

from minijax import dtypes, lax
from minijax import numpy as jnp
from minijax.lax.control_flow.common import vary_like
from minijax.numpy._eager import eager_jit
from minijax.numpy._util import broadcast_shapes, check_arraylike, promote_dtypes_inexact
from minijax.lax.sharding_constraint import lay_out
from minijax.random._compound import _user_dtype
from minijax.random._distributions import _as_array, _check_shape, _shape, _uniform
from minijax.random._keys import PRNGKeyArray, _shape_tuple, _single, _split

__all__ = ["poisson", "binomial", "multinomial"]


def _isnan(x):
    return lax.ne(x, x)


# ------------------------------------------------------------------------------------------------
# poisson


def _poisson_knuth(data, lam, shape, dtype, max_iters):
    def body_fn(carry):
        i, k, rng, log_prod = carry
        keys = _split(rng, (2,))
        k = lax.select(log_prod > -lam, k + 1, k)
        u = _uniform(keys[1], 0.0, 1.0, shape, np.dtype(np.float32))
        return i + 1, k, keys[0], log_prod + jnp.log(u)

    def cond_fn(carry):
        i, log_prod = carry[0], carry[3]
        return (log_prod > -lam).any() & (i < max_iters)

    k_init = lax.full_like(lam, 0, dtype, shape)
    log_rate_init = lax.full_like(lam, 0, np.float32, shape)
    k = lax.while_loop(cond_fn, body_fn, vary_like((0, k_init, data, log_rate_init), lam))[1]
    return (k - 1).astype(dtype)


def _poisson_rejection(data, lam, shape, dtype, max_iters):
    log_lam = lax.log(lam)
    b = 0.931 + 2.53 * lax.sqrt(lam)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)

    def body_fn(carry):
        i, k_out, accepted, rng = carry
        keys = _split(rng, (3,))
        u = _uniform(keys[1], 0.0, 1.0, shape, lam.dtype) - 0.5
        v = _uniform(keys[2], 0.0, 1.0, shape, lam.dtype)
        u_shifted = 0.5 - abs(u)
        k = lax.floor((2 * a / u_shifted + b) * u + lam + 0.43)
        s = lax.log(v * inv_alpha / (a / (u_shifted * u_shifted) + b))
        t = -lam + k * log_lam - lax.lgamma(k + 1)
        accept1 = (u_shifted >= 0.07) & (v <= v_r)
        reject = (k < 0) | ((u_shifted < 0.013) & (v > u_shifted))
        accept = accept1 | (~reject & (s <= t))
        return i + 1, lax.select(accept, k, k_out), accepted | accept, keys[0]

    def cond_fn(carry):
        i, accepted = carry[0], carry[2]
        return (~accepted).any() & (i < max_iters)

    k_init = lax.full_like(lam, -1, lam.dtype, shape)
    accepted = lax.full_like(lam, False, np.dtype(bool), shape)
    k = lax.while_loop(cond_fn, body_fn, vary_like((0, k_init, accepted, data), lam))[1]
    return k.astype(dtype)


@eager_jit(static_argnames=("shape", "dtype"), inline=False)
def _poisson(data, lam, shape, dtype):
    use_knuth = _isnan(lam) | (lam < 10)
    lam_knuth = lax.select(use_knuth, lam, lax.full_like(lam, 0.0))
    # Rejection sampling accepts at most ~89% as lam grows: any large lam does for the
    # elements that use Knuth's branch.
    lam_rejection = lax.select(use_knuth, lax.full_like(lam, 1e5), lam)
    max_iters = dtype.type(np.iinfo(dtype).max)  # no real bound, as in JAX
    result = lax.select(use_knuth,
                        _poisson_knuth(data, lam_knuth, shape, dtype, max_iters),
                        _poisson_rejection(data, lam_rejection, shape, dtype, max_iters))
    return lax.select(lam == 0, jnp.zeros_like(result), result)


def poisson(key, lam, shape=None, dtype=None, *, out_sharding=None):
    """Poisson samples of rate ``lam`` (integers; rates are computed in float32, as JAX)."""
    data, _ = _single("poisson", key)
    dtype = dtypes.canonicalize_dtype(int if dtype is None else dtype)
    if isinstance(data, PRNGKeyArray):  # a key of another impl than threefry2x32
        # JAX 0.10.2 raises the same
        raise NotImplementedError("`poisson` is only implemented for the threefry2x32 RNG, "
                                  f"not {data._impl.tag}")
    shape = tuple(_shape(lam)) if shape is None else _shape_tuple("poisson", shape)
    lam = lax.convert_element_type(jnp.broadcast_to(lam, shape), np.float32)
    return lay_out(_poisson(data, lam, shape, dtype), out_sharding)


# ------------------------------------------------------------------------------------------------
# binomial


_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                  0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                  0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                  0.00833056343336287)


def _stirling_approx_tail(k):
    """log(k!) minus Stirling's approximation: a table for k <= 9, the series above."""
    tail_vals = jnp.array(_STIRLING_TAIL, dtype=k.dtype)
    use_tail_values = k <= 9
    k = lax.clamp(np.array(0.0, k.dtype), k, np.array(9.0, k.dtype))
    kp1sq = (k + 1) * (k + 1)
    approx = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)
    k = jnp.floor(k)
    return lax.select(use_tail_values, tail_vals[jnp.asarray(k, dtype="int32")], approx)


def _binomial_inversion(data, count, prob, shape, dtype, max_iters):
    log1minusprob = jnp.log1p(-prob)

    def body_fn(carry):
        i, num_geom, geom_sum, rng = carry
        keys = _split(rng, (2,))  # JAX's order: (subkey, key)
        num_geom_out = lax.select(geom_sum <= count, num_geom + 1, num_geom)
        u = _uniform(keys[0], 0.0, 1.0, shape, prob.dtype)
        geom = jnp.ceil(jnp.log(u) / log1minusprob)
        return i + 1, num_geom_out, geom_sum + geom, keys[1]

    def cond_fn(carry):
        i, geom_sum = carry[0], carry[2]
        return (geom_sum <= count).any() & (i < max_iters)

    num_geom_init = lax.full_like(prob, 0, prob.dtype, shape)
    geom_sum_init = lax.full_like(prob, 0, prob.dtype, shape)
    k = lax.while_loop(cond_fn, body_fn,
                       vary_like((0, num_geom_init, geom_sum_init, data), count, prob))[1]
    return (k - 1).astype(dtype)


def _btrs(data, count, prob, shape, dtype, max_iters):
    stddev = jnp.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = jnp.floor((count + 1) * prob)

    def body_fn(carry):
        i, k_out, accepted, rng = carry
        keys = _split(rng, (3,))
        u = _uniform(keys[1], 0.0, 1.0, shape, prob.dtype)
        v = _uniform(keys[2], 0.0, 1.0, shape, prob.dtype)
        u = u - 0.5
        us = 0.5 - jnp.abs(u)
        accept1 = (us >= 0.07) & (v <= v_r)
        k = jnp.floor((2 * a / us + b) * u + c)
        reject = (k < 0) | (k > count)
        v = jnp.log(v * alpha / (a / (us * us) + b))
        ub = ((m + 0.5) * jnp.log((m + 1) / (r * (count - m + 1)))
              + (count + 1) * jnp.log((count - m + 1) / (count - k + 1))
              + (k + 0.5) * jnp.log(r * (count - k + 1) / (k + 1))
              + _stirling_approx_tail(m)
              + _stirling_approx_tail(count - m)
              - _stirling_approx_tail(k)
              - _stirling_approx_tail(count - k))
        accept = accept1 | (~reject & (v <= ub))
        return i + 1, lax.select(accept, k, k_out), accepted | accept, keys[0]

    def cond_fn(carry):
        i, accepted = carry[0], carry[2]
        return (~accepted).any() & (i < max_iters)

    k_init = lax.full_like(prob, -1, prob.dtype, shape)
    carry = (0, k_init, jnp.full(shape, False, bool), data)
    return lax.while_loop(cond_fn, body_fn, vary_like(carry, count, prob))[1].astype(dtype)


@eager_jit(static_argnames=("shape", "dtype"))
def _binomial(data, count, prob, shape, dtype):
    (prob,) = promote_dtypes_inexact(_as_array(prob))
    count = jnp.broadcast_to(lax.convert_element_type(count, prob.dtype), shape)
    prob = jnp.broadcast_to(prob, shape)
    p_lt_half = prob < 0.5
    q = lax.select(p_lt_half, prob, 1.0 - prob)
    count_nan_or_neg = _isnan(count) | (count < 0.0)
    count_inf = jnp.isinf(count)
    q_is_nan = _isnan(q)
    q_l_0 = q < 0.0
    q = lax.select(q_is_nan | q_l_0, lax.full_like(q, 0.01), q)
    use_inversion = count_nan_or_neg | (count * q <= 10.0)
    count = jnp.floor(count)  # a float count is floored, as np.random.binomial does
    count_inv = lax.select(use_inversion, count, lax.full_like(count, 0.0))
    count_btrs = lax.select(use_inversion, lax.full_like(count, 1e4), count)
    q_btrs = lax.select(use_inversion, lax.full_like(q, 0.5), q)
    max_iters = dtype.type(dtypes.finfo(dtype).max)
    samples = lax.select(use_inversion,
                         _binomial_inversion(data, count_inv, q, shape, dtype, max_iters),
                         _btrs(data, count_btrs, q_btrs, shape, dtype, max_iters))
    # nan or negative n, and nan or negative p, give nan; an infinite n gives inf
    invalid = q_l_0 | q_is_nan | count_nan_or_neg
    samples = lax.select(invalid, jnp.full_like(samples, np.nan, dtype), samples)
    samples = lax.select(count_inf & ~invalid, jnp.full_like(samples, np.inf, dtype), samples)
    # sampled with q = 1 - p when p >= 1/2: count the failures instead
    return lax.select(p_lt_half | count_nan_or_neg | q_is_nan | count_inf,
                      samples, count.astype(dtype) - samples)


def binomial(key, n, p, shape=None, dtype=None):
    """Binomial(``n``, ``p``) samples, as floats (``n`` may be a float; it is floored)."""
    data, _ = _single("binomial", key)
    check_arraylike("binomial", n, p)
    dtype = _user_dtype("binomial", dtype, float)
    if shape is None:
        shape = broadcast_shapes(tuple(_shape(n)), tuple(_shape(p)))
    else:
        shape = _shape_tuple("binomial", shape)
        _check_shape("binomial", shape, tuple(_shape(n)), tuple(_shape(p)))
    return _binomial(data, n, p, shape, dtype)


# ------------------------------------------------------------------------------------------------
# multinomial


def multinomial(key, n, p, *, shape=None, dtype=None, unroll=1):
    """Counts of ``n`` draws over the categories of ``p``'s last axis: one conditional
    binomial per category (a ``scan``), shape ``p.shape`` or ``shape + p.shape[-1:]``."""
    data, _ = _single("multinomial", key)
    check_arraylike("multinomial", n, p)
    n, p = promote_dtypes_inexact(_as_array(n), _as_array(p))
    if shape is None:
        shape = p.shape
    else:
        shape = _shape_tuple("multinomial", shape)
    n = jnp.broadcast_to(n, shape[:-1])
    p = jnp.broadcast_to(p, shape)

    def draw(remainder, ratio_key):
        ratio, k = ratio_key
        count = binomial(k, remainder, ratio.clip(0, 1), dtype=remainder.dtype)
        return remainder - count, count

    p = jnp.moveaxis(p, -1, 0)
    remaining_probs = lax.cumsum(p, 0, reverse=True)
    ratios = p / jnp.where(remaining_probs == 0, 1, remaining_probs)
    keys = _split(data, (ratios.shape[0],))
    _, counts = lax.scan(draw, vary_like(n, ratios, keys), (ratios, keys), unroll=unroll)
    out_dtype = dtypes.default_float_dtype() if dtype is None else dtype
    return jnp.moveaxis(counts, 0, -1).astype(out_dtype)
