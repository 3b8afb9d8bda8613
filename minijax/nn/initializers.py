"""``minijax.nn.initializers``: parameter initializers with JAX's names and conventions.

Every public factory returns ``init(key, shape, dtype=dtype)``; ``zeros`` and ``ones`` are
initializers themselves (as in JAX). Fans follow JAX: ``in_axis=-2``, ``out_axis=-1``, no batch
axes, and every other axis is a receptive-field axis that multiplies both fans (a conv kernel
``(kh, kw, in, out)`` has ``fan_in = kh * kw * in``). Samples are drawn with ``minijax.random``,
so an initializer gives the same values as JAX's for the same key.
"""

from __future__ import annotations

import math
from typing import Any, Protocol

import numpy as np

from minijax import dtypes, lax, random
from minijax import numpy as jnp

__all__ = [
    "Initializer", "constant", "delta_orthogonal", "glorot_normal", "glorot_uniform",
    "he_normal", "he_uniform", "kaiming_normal", "kaiming_uniform", "lecun_normal",
    "lecun_uniform", "normal", "ones", "orthogonal", "truncated_normal", "uniform",
    "variance_scaling", "xavier_normal", "xavier_uniform", "zeros",
]

_F32 = np.dtype(np.float32)


class Initializer(Protocol):
    def __call__(self, key: Any, shape: Any, dtype: Any = _F32) -> Any: ...


def _shape(shape):
    return tuple(int(d) for d in shape) if np.ndim(shape) else (int(shape),)


def _dtype(dtype):
    return dtypes.canonicalize_dtype(np.dtype(dtype))


def zeros(key, shape, dtype=_F32):
    """An initializer that returns zeros (ignores ``key``)."""
    return jnp.zeros(_shape(shape), _dtype(dtype))


def ones(key, shape, dtype=_F32):
    """An initializer that returns ones (ignores ``key``)."""
    return jnp.ones(_shape(shape), _dtype(dtype))


def constant(value, dtype=_F32):
    """Builds an initializer that fills the array with ``value``."""

    def init(key, shape, dtype=dtype):
        return jnp.full(_shape(shape), value, _dtype(dtype))

    return init


def uniform(scale=1e-2, dtype=_F32):
    """Builds an initializer of samples from U[0, scale)."""

    def init(key, shape, dtype=dtype):
        dtype = _dtype(dtype)
        return random.uniform(key, _shape(shape), dtype) * jnp.asarray(scale, dtype)

    return init


def normal(stddev=1e-2, dtype=_F32):
    """Builds an initializer of samples from N(0, stddev**2)."""

    def init(key, shape, dtype=dtype):
        dtype = _dtype(dtype)
        return random.normal(key, _shape(shape), dtype) * jnp.asarray(stddev, dtype)

    return init


def truncated_normal(stddev=1e-2, dtype=_F32, lower=-2.0, upper=2.0):
    """Builds an initializer of ``stddev`` times a standard normal truncated to [lower, upper]
    (so the samples' standard deviation is below ``stddev``, as in JAX)."""

    def init(key, shape, dtype=dtype):
        dtype = _dtype(dtype)
        return (random.truncated_normal(key, lower, upper, _shape(shape), dtype)
                * jnp.asarray(stddev, dtype))

    return init


def _axis_size(shape, axes):
    if isinstance(axes, int):
        return shape[axes]
    return math.prod(shape[a] for a in axes)


def _compute_fans(shape, in_axis=-2, out_axis=-1, batch_axis=()):
    """(fan_in, fan_out) of a weight ``shape``, JAX's ``_compute_fans``."""
    if len(shape) <= 1:
        raise ValueError(f"Can't compute input and output sizes of a {len(shape)}-dimensional "
                         "weights tensor. Must be at least 2D.")
    in_size = _axis_size(shape, in_axis)
    out_size = _axis_size(shape, out_axis)
    batch_size = _axis_size(shape, batch_axis)
    receptive_field_size = math.prod(shape) / in_size / out_size / batch_size
    return in_size * receptive_field_size, out_size * receptive_field_size


def _real_dtype(dtype):
    return np.dtype(np.zeros((), dtype).real.dtype)


def _complex_uniform(key, shape, dtype):
    """Uniform on the disk of radius sqrt(2): E|z|^2 = 1."""
    key_r, key_theta = random.split(key)
    real = _real_dtype(dtype)
    r = jnp.sqrt(2 * random.uniform(key_r, shape, real)).astype(dtype)
    theta = 2 * np.pi * random.uniform(key_theta, shape, real).astype(dtype)
    return r * jnp.exp(1j * theta)


def _complex_truncated_normal(key, upper, shape, dtype):
    """Complex normal with |z| truncated to ``upper`` (inverse-CDF sampling of the radius)."""
    key_r, key_theta = random.split(key)
    real = _real_dtype(dtype)
    t = (1 - np.exp(-(upper**2))) * random.uniform(key_r, shape, real)
    r = jnp.sqrt(-jnp.log(1 - t)).astype(dtype)
    theta = 2 * np.pi * random.uniform(key_theta, shape, real).astype(dtype)
    return r * jnp.exp(1j * theta)


# Standard deviation of a standard normal truncated to (-2, 2), and of the complex one.
_TRUNC_STD = 0.87962566103423978
_COMPLEX_TRUNC_STD = 0.95311164380491208


def variance_scaling(scale, mode, distribution, in_axis=-2, out_axis=-1, batch_axis=(),
                     dtype=_F32):
    """Builds an initializer whose samples have variance ``scale / n``, with ``n`` the fan-in
    (``mode='fan_in'``), fan-out (``'fan_out'``) or their mean (``'fan_avg'``), drawn from a
    ``'truncated_normal'`` (truncated at two standard deviations, rescaled), ``'normal'`` or
    ``'uniform'`` distribution."""
    if mode not in ("fan_in", "fan_out", "fan_avg"):
        raise ValueError(f"invalid mode for variance scaling initializer: {mode}")
    if distribution not in ("truncated_normal", "normal", "uniform"):
        raise ValueError(f"invalid distribution for variance scaling initializer: {distribution}")

    def init(key, shape, dtype=dtype):
        shape = _shape(shape)
        dtype = _dtype(dtype)
        fan_in, fan_out = _compute_fans(shape, in_axis, out_axis, batch_axis)
        denominator = {"fan_in": fan_in, "fan_out": fan_out,
                       "fan_avg": (fan_in + fan_out) / 2}[mode]
        variance = scale / denominator
        is_complex = dtype.kind == "c"
        if distribution == "truncated_normal":
            if not is_complex:
                stddev = jnp.asarray(math.sqrt(variance) / _TRUNC_STD, dtype)
                return random.truncated_normal(key, -2, 2, shape, dtype) * stddev
            stddev = jnp.asarray(math.sqrt(variance) / _COMPLEX_TRUNC_STD, dtype)
            return _complex_truncated_normal(key, 2, shape, dtype) * stddev
        if distribution == "normal":
            return random.normal(key, shape, dtype) * jnp.asarray(math.sqrt(variance), dtype)
        if not is_complex:
            bound = jnp.asarray(math.sqrt(3 * variance), dtype)
            return random.uniform(key, shape, dtype, -1) * bound
        return _complex_uniform(key, shape, dtype) * jnp.asarray(math.sqrt(variance), dtype)

    return init


def glorot_uniform(in_axis=-2, out_axis=-1, batch_axis=(), dtype=_F32):
    """Glorot (Xavier) uniform: variance ``1 / fan_avg``."""
    return variance_scaling(1.0, "fan_avg", "uniform", in_axis, out_axis, batch_axis, dtype)


def glorot_normal(in_axis=-2, out_axis=-1, batch_axis=(), dtype=_F32):
    """Glorot (Xavier) normal: truncated normal of variance ``1 / fan_avg``."""
    return variance_scaling(1.0, "fan_avg", "truncated_normal", in_axis, out_axis, batch_axis,
                            dtype)


def lecun_uniform(in_axis=-2, out_axis=-1, batch_axis=(), dtype=_F32):
    """LeCun uniform: variance ``1 / fan_in``."""
    return variance_scaling(1.0, "fan_in", "uniform", in_axis, out_axis, batch_axis, dtype)


def lecun_normal(in_axis=-2, out_axis=-1, batch_axis=(), dtype=_F32):
    """LeCun normal: truncated normal of variance ``1 / fan_in``."""
    return variance_scaling(1.0, "fan_in", "truncated_normal", in_axis, out_axis, batch_axis,
                            dtype)


def he_uniform(in_axis=-2, out_axis=-1, batch_axis=(), dtype=_F32):
    """He (Kaiming) uniform: variance ``2 / fan_in``."""
    return variance_scaling(2.0, "fan_in", "uniform", in_axis, out_axis, batch_axis, dtype)


def he_normal(in_axis=-2, out_axis=-1, batch_axis=(), dtype=_F32):
    """He (Kaiming) normal: truncated normal of variance ``2 / fan_in``."""
    return variance_scaling(2.0, "fan_in", "truncated_normal", in_axis, out_axis, batch_axis,
                            dtype)


xavier_uniform = glorot_uniform
xavier_normal = glorot_normal
kaiming_uniform = he_uniform
kaiming_normal = he_normal


def orthogonal(scale=1.0, column_axis=-1, dtype=_F32):
    """Builds an initializer of (semi-)orthogonal matrices: the array, flattened to a matrix of
    ``shape[column_axis]`` columns, has orthonormal rows or columns (whichever are fewer),
    times ``scale``; uniform over such matrices (QR of a Gaussian, signs fixed by R's diagonal)."""

    def init(key, shape, dtype=dtype):
        shape = _shape(shape)
        dtype = _dtype(dtype)
        if len(shape) < 2:
            raise ValueError("orthogonal initializer requires at least a 2D shape")
        n_cols = shape[column_axis]
        n_rows = math.prod(shape) // n_cols
        matrix_shape = (n_cols, n_rows) if n_rows < n_cols else (n_rows, n_cols)
        a = random.normal(key, matrix_shape, dtype)
        q, r = jnp.linalg.qr(a)
        q = q * jnp.sign(jnp.diagonal(r))[None, :]
        if n_rows < n_cols:
            q = q.T
        rest = tuple(np.delete(np.array(shape), column_axis % len(shape)))
        q = jnp.reshape(q, rest + (n_cols,))
        q = jnp.moveaxis(q, -1, column_axis)
        return jnp.asarray(scale, dtype) * q

    return init


def delta_orthogonal(scale=1.0, column_axis=-1, dtype=_F32):
    """Builds an initializer for 3D, 4D or 5D convolution kernels (spatial..., in, out): zero
    except the spatial centre, which holds an orthogonal ``(in, out)`` matrix (Xiao et al.,
    2018); requires ``in <= out``."""

    def init(key, shape, dtype=dtype):
        shape = _shape(shape)
        dtype = _dtype(dtype)
        if len(shape) not in (3, 4, 5):
            raise ValueError("Delta orthogonal initializer requires a 3D, 4D or 5D shape.")
        if shape[-1] < shape[-2]:
            raise ValueError("`fan_in` must be less or equal than `fan_out`. ")
        ortho = orthogonal(scale=scale, column_axis=column_axis, dtype=dtype)(key, shape[-2:])
        spatial = shape[:-2]
        centre = tuple((k - 1) // 2 for k in spatial)
        update = jnp.reshape(ortho, (1,) * len(spatial) + shape[-2:])
        return lax.dynamic_update_slice(jnp.zeros(shape, dtype), update, centre + (0, 0))

    return init
