"""Samplers built on ``random_bits``, each the same arithmetic as JAX's, so they reproduce
JAX's numbers bit for bit (given XLA's identical ``erf_inv``/``log`` expansions).

Every public function takes a single key (raw or typed; batches go through ``vmap``, as in
JAX), checks shapes and dtypes at the call with ``TypeError``/``ValueError``, and runs its
arithmetic as one jitted program when called eagerly (``eager_jit``), inline under a trace.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence

import numpy as np

from minijax import dtypes, lax
from minijax import numpy as jnp
from minijax.core import Tracer, concrete_or_error, get_aval
from minijax.lax.sharding_constraint import lay_out
from minijax.numpy._eager import eager_jit
from minijax.random._keys import _UINT_DTYPES, _shape_tuple, _single, _split, random_bits

__all__ = ["uniform", "normal", "truncated_normal", "randint", "bernoulli", "categorical",
           "gumbel", "exponential", "permutation", "choice", "laplace", "logistic",
           "rademacher", "cauchy"]


# ------------------------------------------------------------------------------------------------
# Argument checks


def _shape(x):
    return get_aval(x).shape if not isinstance(x, (list, tuple)) else np.shape(x)


def _check_shape(name, shape, *param_shapes):
    """JAX's rule: parameters broadcast to exactly ``shape`` (never beyond it); incompatible
    ones are lax.broadcast_shapes' ValueError."""
    if param_shapes:
        result = lax.broadcast_shapes(shape, *param_shapes)
        if tuple(result) != tuple(shape):
            raise ValueError(
                f"{name} parameter shapes must be broadcast-compatible with shape argument, "
                f"and the result of broadcasting the shapes must equal the shape argument, but "
                f"got result {result} for shape argument {shape}."
            )


def _float_dtype(name, dtype, allow_complex=False):
    dtype = dtypes.default_float_dtype() if dtype is None else dtypes.canonicalize_dtype(dtype)
    ok = dtypes.is_float(dtype) or (allow_complex and dtypes.is_complex(dtype))
    if not ok:  # JAX's class and words
        kinds = "a float or complex" if allow_complex else "a float"
        raise ValueError(f"dtype argument to `{name}` must be {kinds} dtype, got {dtype}")
    return dtype


def _as_array(x):
    return x if isinstance(x, Tracer) or hasattr(x, "aval") else jnp.asarray(x)


# ------------------------------------------------------------------------------------------------
# uniform, normal, truncated_normal


@eager_jit(static_argnames=("shape", "dtype"), inline=False)
def _uniform(data, minval, maxval, shape, dtype):
    finfo = jnp.finfo(dtype)
    nbits, nmant = finfo.bits, finfo.nmant
    rng_bits = 8 if nmant < 8 else nbits  # float8: 8 bits, then widened, as JAX
    uint = _UINT_DTYPES[nbits]
    bits = random_bits(data, rng_bits, shape)
    if rng_bits != nbits:
        bits = lax.convert_element_type(bits, uint)
    # Random mantissa under the exponent of 1.0 gives a float in [1, 2); minus one, [0, 1).
    one_bits = np.array(1.0, dtype).view(uint)
    float_bits = lax.bitwise_or(lax.shift_right_logical(bits, np.array(rng_bits - nmant, uint)),
                                one_bits)
    floats = lax.sub(lax.bitcast_convert_type(float_bits, dtype), np.array(1.0, dtype))
    minval = lax.convert_element_type(minval, dtype)
    maxval = lax.convert_element_type(maxval, dtype)
    # max(minval, ...) guards against rounding up past maxval - minval; jnp ops broadcast the
    # bounds as JAX's lax does with its rank-promoted size-1 axes.
    return jnp.maximum(minval, floats * (maxval - minval) + minval)


def uniform(key, shape=(), dtype=None, minval=0.0, maxval=1.0, *, out_sharding=None):
    """Uniform floats in ``[minval, maxval)``."""
    data, _ = _single("uniform", key)
    shape = _shape_tuple("uniform", shape)
    dtype = _float_dtype("uniform", dtype)
    _check_shape("uniform", shape, _shape(minval), _shape(maxval))
    return lay_out(_uniform(data, minval, maxval, shape, dtype), out_sharding)


def _open_minus_one(dtype):
    """nextafter(-1, 0) in ``dtype``: -1 + 2**-(nmant+1), exact in every float format."""
    return np.array(-1.0 + float(jnp.finfo(dtype).epsneg), dtype)


def _erf_inv_uniform(data, shape, dtype):
    """erfinv(u), u uniform in (-1, 1): a normal sample divided by sqrt(2)."""
    return lax.erf_inv(_uniform(data, _open_minus_one(dtype), np.array(1.0, dtype), shape, dtype))


@eager_jit(static_argnames=("shape", "dtype"), inline=False)
def _normal_real(data, shape, dtype):
    return lax.mul(np.array(np.sqrt(2), dtype), _erf_inv_uniform(data, shape, dtype))


@eager_jit(static_argnames=("shape", "dtype"), inline=False)
def _normal(data, shape, dtype):
    if not dtypes.is_complex(dtype):
        return _normal_real(data, shape, dtype)
    real = np.dtype(np.finfo(dtype).dtype)
    k_re, k_im = _split(data, (2,))
    re = lax.convert_element_type(_normal_real(k_re, shape, real), dtype)
    im = lax.convert_element_type(_normal_real(k_im, shape, real), dtype)
    return (re + 1j * im) / np.array(np.sqrt(2), dtype)


def normal(key, shape=(), dtype=None, *, out_sharding=None):
    """Standard normal samples (complex dtypes: real and imaginary parts each of variance 1/2)."""
    data, _ = _single("normal", key)
    shape = _shape_tuple("normal", shape)
    out = _normal(data, shape, _float_dtype("normal", dtype, allow_complex=True))
    return lay_out(out, out_sharding)


@eager_jit(static_argnames=("shape", "dtype"), inline=False)
def _truncated_normal(data, lower, upper, shape, dtype):
    sqrt2 = np.array(np.sqrt(2), dtype)
    lower = lax.convert_element_type(lower, dtype)
    upper = lax.convert_element_type(upper, dtype)
    a = lax.erf(lower / sqrt2)
    b = lax.erf(upper / sqrt2)
    u = _uniform(data, a, b, shape, dtype)
    out = sqrt2 * lax.erf_inv(u)
    # Rounding (or u == a) could land on a bound: clamp into the open interval, as JAX does.
    lo = _nextafter(lax.stop_gradient(lower), np.inf)
    hi = _nextafter(lax.stop_gradient(upper), -np.inf)
    return jnp.minimum(jnp.maximum(out, lo), hi)


def _nextafter(x, toward):
    return lax.nextafter(x, lax.full_like(x, toward))


def truncated_normal(key, lower, upper, shape=None, dtype=None, *, out_sharding=None):
    """Normal samples conditioned on ``lower < x < upper``."""
    data, _ = _single("truncated_normal", key)
    dtype = _float_dtype("truncated_normal", dtype)
    if shape is None:
        shape = tuple(np.broadcast_shapes(_shape(lower), _shape(upper)))
    else:
        shape = _shape_tuple("truncated_normal", shape)
        _check_shape("truncated_normal", shape, _shape(lower), _shape(upper))
    return lay_out(_truncated_normal(data, lower, upper, shape, dtype), out_sharding)


# ------------------------------------------------------------------------------------------------
# randint, bernoulli


def _convert_and_clip_integer(val, dtype):
    """``val`` clamped into the range both its dtype and ``dtype`` can hold, then cast."""
    vinfo, dinfo = np.iinfo(val.dtype), np.iinfo(dtype)
    lo = np.array(max(dinfo.min, vinfo.min), val.dtype)
    hi = np.array(min(dinfo.max, vinfo.max), val.dtype)
    return lax.convert_element_type(lax.clamp(lo, val, hi), dtype)


@eager_jit(static_argnames=("shape", "dtype"), inline=False)
def _randint(data, minval, maxval, shape, dtype):
    minval, maxval = jnp.asarray(minval), jnp.asarray(maxval)
    if not dtypes.is_int(minval.dtype):
        minval = minval.astype(dtypes.default_int_dtype())
    if not dtypes.is_int(maxval.dtype):
        maxval = maxval.astype(dtypes.default_int_dtype())
    # randint(key, s, 0, 256, uint8): maxval beyond the dtype's range is flagged, not clipped.
    top = _convert_and_clip_integer(jnp.asarray(np.iinfo(dtype).max, dtype), maxval.dtype)
    maxval_out_of_range = lax.gt(maxval, top)
    minval = _convert_and_clip_integer(minval, dtype)
    maxval = _convert_and_clip_integer(maxval, dtype)
    nbits = np.iinfo(dtype).bits
    # Twice the bits the dtype needs, to shrink the modulo bias (JAX's algorithm).
    k1, k2 = _split(data, (2,))
    higher_bits = random_bits(k1, nbits, shape)
    lower_bits = random_bits(k2, nbits, shape)
    unsigned = _UINT_DTYPES[nbits]
    span = lax.convert_element_type(maxval - minval, unsigned)
    span = jnp.where(maxval <= minval, np.array(1, unsigned), span)  # empty range: minval
    span = jnp.where(maxval_out_of_range & (maxval > minval), span + np.array(1, unsigned), span)
    span = jnp.broadcast_to(span, shape)
    # (hi * 2**nbits + lo) % span without wider ints: (a * b) % n == ((a % n) * (b % n)) % n.
    multiplier = lax.rem(lax.full_like(span, 2 ** (nbits // 2)), span)
    multiplier = lax.rem(lax.mul(multiplier, multiplier), span)
    offset = lax.add(lax.mul(lax.rem(higher_bits, span), multiplier), lax.rem(lower_bits, span))
    offset = lax.rem(offset, span)
    return jnp.broadcast_to(minval, shape) + lax.convert_element_type(offset, dtype)


def randint(key, shape, minval, maxval, dtype=None, *, out_sharding=None):
    """Integers uniform in ``[minval, maxval)``."""
    data, _ = _single("randint", key)
    shape = _shape_tuple("randint", shape)
    dtype = dtypes.default_int_dtype() if dtype is None else dtypes.canonicalize_dtype(dtype)
    if not dtypes.is_int(dtype):
        raise TypeError(f"randint only accepts integer dtypes, got {dtype}")
    _check_shape("randint", shape, _shape(minval), _shape(maxval))
    return lay_out(_randint(data, minval, maxval, shape, dtype), out_sharding)


@eager_jit(static_argnames=("shape", "mode"), inline=False)
def _bernoulli(data, p, shape, mode):
    dtype = get_aval(p).dtype
    if mode == "high":
        # a second uniform refines the first below its resolution, 2**-nmant, so p < 1e-7
        # still comes out right in float32
        u1, u2 = _uniform(data, 0.0, 1.0, (2, *shape), dtype)
        u2 = u2 * np.array(2.0 ** -jnp.finfo(dtype).nmant, dtype)
        return jnp.less(u2, p - u1)
    return jnp.less(_uniform(data, 0.0, 1.0, shape, dtype), p)


def bernoulli(key, p=0.5, shape=None, mode="low", *, out_sharding=None):
    """Booleans that are True with probability ``p``; ``mode='high'`` spends two uniforms per
    sample, for probabilities below float resolution."""
    if mode not in ("high", "low"):
        raise ValueError(f"got mode={mode!r}, expected 'high' or 'low'")
    data, _ = _single("bernoulli", key)
    dtype = dtypes.canonicalize_dtype(get_aval(p).dtype)
    if not dtypes.is_float(dtype):
        raise TypeError(f"bernoulli probability `p` must have a floating dtype, got {dtype}.")
    if shape is None:
        shape = _shape(p)
    else:
        shape = _shape_tuple("bernoulli", shape)
        _check_shape("bernoulli", shape, _shape(p))
    out = _bernoulli(data, lax.convert_element_type(p, dtype), tuple(shape), mode)
    return lay_out(out, out_sharding)


# ------------------------------------------------------------------------------------------------
# gumbel, exponential and other one-uniform transforms


@eager_jit(static_argnames=("shape", "dtype", "mode"), inline=False)
def _gumbel(data, shape, dtype, mode):
    tiny = np.array(jnp.finfo(dtype).tiny, dtype)
    if mode == "high":
        high, low = _uniform(data, 0.0, 1.0, (2,) + shape, dtype)
        nmant = jnp.finfo(dtype).nmant
        x = jnp.where(high >= 0.5, high, high + 2.0 ** -nmant * low + tiny)
        return -jnp.log(-jnp.log1p(-x))
    return -jnp.log(-jnp.log(_uniform(data, tiny, 1.0, shape, dtype)))


def gumbel(key, shape=(), dtype=None, mode=None):
    """Standard Gumbel samples. ``mode='high'`` spends two uniforms per sample for more
    resolution near 0."""
    data, _ = _single("gumbel", key)
    mode = "low" if mode is None else mode
    if mode not in ("low", "high"):
        raise ValueError(f"gumbel mode must be 'low' or 'high', got {mode!r}")
    return _gumbel(data, _shape_tuple("gumbel", shape), _float_dtype("gumbel", dtype), mode)


def _one_uniform(name, transform):
    @eager_jit(static_argnames=("shape", "dtype"))
    def sample(data, shape, dtype):
        return transform(data, shape, dtype)

    def public(key, shape=(), dtype=None):
        data, _ = _single(name, key)
        return sample(data, _shape_tuple(name, shape), _float_dtype(name, dtype))

    public.__name__ = public.__qualname__ = name
    return public


def _exponential(data, shape, dtype):
    u = _uniform(data, 0.0, 1.0, shape, dtype)
    return lax.neg(lax.log1p(lax.neg(u)))  # log(1 - u): u < 1, so never log(0)


def _laplace(data, shape, dtype):
    u = _uniform(data, _open_minus_one(dtype), 1.0, shape, dtype)
    return lax.mul(lax.sign(u), lax.log1p(lax.neg(lax.abs(u))))


def _logistic(data, shape, dtype):
    x = _uniform(data, np.array(jnp.finfo(dtype).tiny, dtype), 1.0, shape, dtype)
    return lax.sub(lax.log(x), lax.log1p(lax.neg(x)))


def _cauchy(data, shape, dtype):
    u = _uniform(data, np.array(jnp.finfo(dtype).eps, dtype), 1.0, shape, dtype)
    pi = np.array(np.pi, dtype)
    return lax.tan(lax.mul(pi, lax.sub(u, np.array(0.5, dtype))))


exponential = _one_uniform("exponential", _exponential)
exponential.__doc__ = "Standard exponential samples (rate 1)."
laplace = _one_uniform("laplace", _laplace)
laplace.__doc__ = "Standard Laplace samples."
logistic = _one_uniform("logistic", _logistic)
logistic.__doc__ = "Standard logistic samples."
cauchy = _one_uniform("cauchy", _cauchy)
cauchy.__doc__ = "Standard Cauchy samples."


def rademacher(key, shape=(), dtype=None):
    """Samples of -1 and +1 with equal probability."""
    data, _ = _single("rademacher", key)
    dtype = dtypes.default_int_dtype() if dtype is None else dtypes.canonicalize_dtype(dtype)
    b = bernoulli(data, 0.5, _shape_tuple("rademacher", shape))
    return (2 * lax.convert_element_type(b, dtype) - 1).astype(dtype)


# ------------------------------------------------------------------------------------------------
# categorical


def categorical(key, logits, axis=-1, shape=None, replace=True, mode=None, *,
                out_sharding=None):
    """Indices drawn with probabilities ``softmax(logits)`` along ``axis`` (Gumbel-max)."""
    data, _ = _single("categorical", key)
    logits = _as_array(logits)
    ndim = logits.ndim
    if not -ndim <= axis < ndim:
        # JAX's words: its np.delete of the axis from the logits' shape raises
        raise IndexError(f"index {axis} is out of bounds for axis 0 with size {ndim}")
    if axis >= 0:
        axis -= ndim
    batch_shape = tuple(np.delete(logits.shape, axis))
    if shape is None:
        shape = batch_shape
    else:
        shape = _shape_tuple("categorical", shape)
        _check_shape("categorical", shape, batch_shape)
    prefix = shape[: len(shape) - len(batch_shape)]
    logits_shape = list(shape[len(shape) - len(batch_shape):])
    logits_shape.insert(axis % ndim, logits.shape[axis])
    dtype = _float_dtype("gumbel", logits.dtype)  # JAX samples gumbel noise of this dtype
    if replace:
        g = gumbel(data, (*prefix, *logits_shape), dtype, mode)
        expanded = lax.expand_dims(logits, tuple(range(len(prefix)))) if prefix else logits
        return lay_out(jnp.argmax(g + expanded, axis=axis), out_sharding)
    # Without replacement: Gumbel top-k over the category axis, k = the number of draws per
    # batch element (the draws come out along the prefix axes).
    k = math.prod(prefix)
    if k > logits.shape[axis]:
        raise ValueError(f"Number of samples without replacement ({k}) cannot exceed number of "
                         f"categories ({logits.shape[axis]}).")
    g = gumbel(data, tuple(logits_shape), dtype, mode) + logits
    idx = lax.top_k(jnp.moveaxis(g, axis, -1), k)[1]
    return lay_out(jnp.reshape(jnp.moveaxis(idx, -1, 0), shape), out_sharding)


# ------------------------------------------------------------------------------------------------
# permutation, choice


def _shuffle(data, x, axis):
    # Sorting by random 32-bit keys: 3 * log(size) / log(2**32 - 1) rounds make a collision of
    # sort keys (which would bias the order) unlikely (JAX's analysis).
    size = math.prod(x.shape)
    rounds = int(np.ceil(3 * np.log(max(1, size)) / np.log(np.iinfo(np.uint32).max)))
    for _ in range(rounds):
        keys = _split(data, (2,))
        data, sub = keys[0], keys[1]
        sort_keys = random_bits(sub, 32, tuple(x.shape))
        _, x = lax.sort_key_val(sort_keys, x, axis)
    return x


def _take(arr, ind, axis):
    """``jnp.take(arr, ind, axis)`` for in-range indices, as one gather."""
    ind = jnp.asarray(ind)
    offset = tuple(range(axis)) + tuple(range(axis + ind.ndim, arr.ndim + ind.ndim - 1))
    dnums = lax.GatherDimensionNumbers(offset_dims=offset, collapsed_slice_dims=(axis,),
                                       start_index_map=(axis,))
    sizes = tuple(1 if i == axis else d for i, d in enumerate(arr.shape))
    return lax.gather(arr, ind[..., None], dnums, sizes, mode="promise_in_bounds")


def _canonical_axis(name, axis, ndim):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"{name}: axis {axis} is out of bounds for an array of rank {ndim}")
    return axis % ndim


def permutation(key, x, axis=0, independent=False):
    """A random permutation of ``range(x)`` (integer ``x``) or of ``x`` along ``axis``."""
    data, _ = _single("permutation", key)
    if isinstance(x, (int, np.integer)) or (not isinstance(x, (list, tuple))
                                            and get_aval(x).ndim == 0):
        if not dtypes.is_int(get_aval(x).dtype):
            raise TypeError("x must be an integer or at least 1-dimensional")
        n = concrete_or_error(int, x, "argument x of minijax.random.permutation()")
        return _shuffle(data, jnp.arange(n), 0)
    x = _as_array(x)
    axis = _canonical_axis("permutation", axis, x.ndim)
    if independent or x.ndim == 1:
        return _shuffle(data, x, axis)
    ind = _shuffle(data, jnp.arange(x.shape[axis]), 0)
    return _take(x, ind, axis)


def choice(key, a, shape=(), replace=True, p=None, axis=0, mode=None):
    """Samples of ``a`` (or of ``range(a)`` for an integer), with or without replacement,
    uniformly or with probabilities ``p``."""
    data, _ = _single("choice", key)
    if not isinstance(shape, Sequence):
        raise TypeError(f"shape argument of random.choice must be a sequence, got {shape}")
    shape = _shape_tuple("choice", shape)
    arr = _as_array(a)
    if arr.ndim == 0:
        n_inputs = concrete_or_error(int, a, "The error occurred in minijax.random.choice()")
    else:
        axis = _canonical_axis("choice", axis, arr.ndim)
        n_inputs = arr.shape[axis]
    n_draws = math.prod(shape)
    if n_draws == 0:
        return jnp.zeros(shape, dtype=arr.dtype)
    if n_inputs <= 0:
        raise ValueError("a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ValueError(f"Cannot take a larger sample (size {n_draws}) than population "
                         f"(size {n_inputs}) when 'replace=False'")
    if p is None:
        if replace:
            ind = randint(data, shape, 0, n_inputs)
            result = ind if arr.ndim == 0 else _take(arr, ind, axis)
        else:
            perm = permutation(data, n_inputs if arr.ndim == 0 else arr, axis)
            result = lax.slice_in_dim(perm, 0, n_draws, axis=0 if arr.ndim == 0 else axis)
    else:
        p_arr = _as_array(p)
        if not dtypes.is_inexact(p_arr.dtype):
            p_arr = p_arr.astype(dtypes.default_float_dtype())
        if p_arr.shape != (n_inputs,):
            raise ValueError("p must be None or a 1D vector with the same size as a.shape[axis]. "
                             f"p has shape {p_arr.shape} and a.shape[axis] is {n_inputs}.")
        if replace:
            p_cuml = jnp.cumsum(p_arr)
            r = p_cuml[-1] * (1 - uniform(data, shape, dtype=p_cuml.dtype))
            # searchsorted(p_cuml, r, side='left'): the number of cumulative sums below r
            ind = jnp.sum(p_cuml < r[..., None], axis=-1).astype(dtypes.default_int_dtype())
        else:
            g = gumbel(data, (n_inputs,), dtype=p_arr.dtype, mode=mode) + jnp.log(p_arr)
            ind = lax.top_k(g, n_draws)[1].astype(dtypes.default_int_dtype())
        result = ind if arr.ndim == 0 else _take(arr, ind, axis)
    out_shape = shape if arr.ndim == 0 else arr.shape[:axis] + shape + arr.shape[axis + 1:]
    return jnp.reshape(result, out_shape)
