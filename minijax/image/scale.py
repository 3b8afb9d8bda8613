"""Image resampling as JAX 0.10.2 does it: per spatial dimension, a dense ``(in, out)``
weight matrix built from a kernel evaluated at the distances between input pixel centres and
the inverse-warped output sample positions (half-centred pixels), normalized per output
pixel, and contracted with the image in one ``einsum``. Being made of jnp operations, it is
differentiable in the image, the scale and the translation, and batches under vmap.
"""

from __future__ import annotations

import enum
import math
import operator

import numpy as np

from minijax import core, dtypes
from minijax import numpy as jnp
from minijax.jitting import jit
from minijax.lax import Precision
from minijax.numpy._util import canonicalize_axis, promote_dtypes_inexact

__all__ = ["ResizeMethod", "resize", "scale_and_translate"]


class ResizeMethod(enum.Enum):
    """Image resize method: NEAREST, LINEAR, LANCZOS3, LANCZOS5, CUBIC (Keys),
    CUBIC_PYTORCH (OpenCV/PyTorch's a=-0.75 kernel, with edge padding) and AREA."""
    NEAREST = 0
    LINEAR = 1
    LANCZOS3 = 2
    LANCZOS5 = 3
    CUBIC = 4
    CUBIC_PYTORCH = 5
    AREA = 6

    @staticmethod
    def from_string(s: str):
        method = _BY_NAME.get(s)
        if method is None:
            raise ValueError(f'Unknown resize method "{s}"')
        return method


_BY_NAME = {
    "nearest": ResizeMethod.NEAREST,
    **dict.fromkeys(["linear", "bilinear", "trilinear", "triangle"], ResizeMethod.LINEAR),
    "lanczos3": ResizeMethod.LANCZOS3,
    "lanczos5": ResizeMethod.LANCZOS5,
    **dict.fromkeys(["cubic", "bicubic", "tricubic"], ResizeMethod.CUBIC),
    **dict.fromkeys(["cubic-pytorch", "bicubic-pytorch"], ResizeMethod.CUBIC_PYTORCH),
    "area": ResizeMethod.AREA,
}


# ------------------------------------------------------------------------------------------------
# Kernels, of the (non-negative) distance x in input pixels


def _lanczos(radius):
    def kernel(x):
        y = radius * jnp.sin(np.pi * x) * jnp.sin(np.pi * x / radius)
        # sinc(x) sinc(x/r) with its limit 1 near 0 (the quotient loses precision there)
        out = jnp.where(x > 1e-3, jnp.divide(y, jnp.where(x != 0, np.pi**2 * x**2, 1)), 1)
        return jnp.where(x > radius, 0., out)
    return kernel


def _keys_cubic(x):
    out = ((1.5 * x - 2.5) * x) * x + 1.
    out = jnp.where(x >= 1., ((-0.5 * x + 2.5) * x - 4.) * x + 2., out)
    return jnp.where(x >= 2., 0., out)


def _opencv_cubic(x):
    a = -0.75
    out = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
    out = jnp.where(x >= 1.0, ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a, out)
    return jnp.where(x >= 2.0, 0.0, out)


def _triangle(x):
    return jnp.maximum(0, 1 - jnp.abs(x))


_AREA = object()  # the overlap of the output pixel's footprint with each input pixel

# method -> (radius, kernel)
_KERNELS = {
    ResizeMethod.LINEAR: (1, _triangle),
    ResizeMethod.LANCZOS3: (3, _lanczos(3.)),
    ResizeMethod.LANCZOS5: (5, _lanczos(5.)),
    ResizeMethod.CUBIC: (2, _keys_cubic),
    ResizeMethod.CUBIC_PYTORCH: (2, _opencv_cubic),
    ResizeMethod.AREA: (1, _AREA),
}

_MIN_WEIGHT_SUM = 1000. * float(np.finfo(np.float32).eps)


def _normalized(weights):
    """Each output pixel's weights divided by their sum (zero where the sum vanishes)."""
    total = jnp.sum(weights, axis=0, keepdims=True)
    return jnp.where(jnp.abs(total) > _MIN_WEIGHT_SUM,
                     jnp.divide(weights, jnp.where(total != 0, total, 1)), 0)


def _weight_matrix(in_size, out_size, scale, translation, kernel, antialias, edge_padding,
                   radius):
    """The ``(in_size, out_size)`` resampling weights of one dimension."""
    dtype = dtypes.result_type(scale, translation)
    inv_scale = 1. / scale
    # downsampling with antialias widens the kernel to the output pixel's footprint
    kernel_scale = jnp.maximum(inv_scale, 1.) if antialias else 1.
    sample_f = ((jnp.arange(out_size, dtype=dtype) + 0.5) * inv_scale
                - translation * inv_scale - 0.5)
    if edge_padding:
        if antialias:
            static_scale = core.concrete_or_error(
                None, scale, "Antialiasing with edge padding requires a static scale.")
            pad = math.ceil(radius * max(1.0 / float(static_scale), 1.0))
        else:
            pad = radius
    else:
        pad = 0
    positions = jnp.arange(-pad, in_size + pad, dtype=dtype)
    if kernel is _AREA:
        left_out = jnp.arange(out_size, dtype=dtype) * inv_scale - translation * inv_scale
        left_in = jnp.arange(in_size, dtype=dtype)
        weights = jnp.maximum(0.0, jnp.minimum(left_out[None, :] + inv_scale, left_in[:, None] + 1.0)
                              - jnp.maximum(left_out[None, :], left_in[:, None]))
    else:
        weights = kernel(jnp.abs(sample_f[None, :] - positions[:, None]) / kernel_scale)
    if edge_padding:
        # the padding positions' weights go to the edge pixels they repeat
        clamped = jnp.clip(positions.astype(jnp.int32), 0, in_size - 1)
        columns = jnp.broadcast_to(jnp.arange(out_size)[None, :], weights.shape)
        folded = jnp.zeros((in_size, out_size), dtype=dtype).at[
            clamped[:, None], columns].add(weights)
        return _normalized(folded)
    weights = _normalized(weights)
    # samples outside the input get nothing
    inside = jnp.logical_and(sample_f >= -0.5, sample_f <= in_size - 0.5)
    return jnp.where(inside[None, :], weights, 0)


def _scale_and_translate(x, shape, spatial_dims, scale, translation, kernel, antialias,
                         precision, edge_padding, radius):
    if not spatial_dims:
        return x
    ndim = len(shape)
    operands, out_indices = [], list(range(ndim))
    for i, d in enumerate(spatial_dims):
        d = canonicalize_axis(d, x.ndim)
        w = _weight_matrix(x.shape[d], shape[d], scale[i], translation[i], kernel, antialias,
                           edge_padding, radius).astype(x.dtype)
        operands += [w, [d, ndim + i]]
        out_indices[d] = ndim + i
    return jnp.einsum(x, list(range(ndim)), *operands, out_indices, precision=precision)


def _canonical_shape(shape):
    return tuple(operator.index(d) for d in shape)


def _check_rank(shape, image):
    if len(shape) != np.ndim(image):
        raise ValueError("shape must have length equal to the number of dimensions of x; "
                         f" {shape} vs {np.shape(image)}")


def _kernel_of(method, antialias):
    """``(radius, kernel, edge_padding)``; CUBIC_PYTORCH is CUBIC when antialiasing."""
    if method == ResizeMethod.CUBIC_PYTORCH and antialias:
        method = ResizeMethod.CUBIC
    radius, kernel = _KERNELS[method]
    return radius, kernel, method == ResizeMethod.CUBIC_PYTORCH and not antialias


def scale_and_translate(image, shape, spatial_dims, scale, translation, method,
                        antialias=True, precision=Precision.HIGHEST):
    """Resamples ``image`` to ``shape``: the point ``x`` of dimension ``spatial_dims[i]`` of the
    input lands at ``x * scale[i] + translation[i]`` of the output (half-centred pixels);
    output samples outside the input are zero. Any method but NEAREST."""
    shape = _canonical_shape(shape)
    _check_rank(shape, image)
    if isinstance(method, str):
        method = ResizeMethod.from_string(method)
    if method == ResizeMethod.NEAREST:
        raise ValueError("Nearest neighbor resampling is not currently supported "
                         "for scale_and_translate.")
    radius, kernel, edge_padding = _kernel_of(method, antialias)
    image, = promote_dtypes_inexact(image)
    scale, translation = promote_dtypes_inexact(scale, translation)
    return _scale_and_translate(image, shape, spatial_dims, scale, translation, kernel,
                                antialias, precision, edge_padding, radius)


def _resize_nearest(x, shape):
    for d, (m, n) in enumerate(zip(x.shape, shape)):
        if m == n:
            continue
        # float32 offsets, as JAX's (which avoids an XLA float64 floor bug)
        offsets = (jnp.arange(n, dtype=np.float32) + 0.5) * m / n
        offsets = jnp.floor(offsets.astype(np.float32)).astype(np.int32)
        index = [slice(None)] * x.ndim
        index[d] = offsets
        x = x[tuple(index)]
    return x


@jit(static_argnums=(1, 2, 3, 4))
def _resize(image, shape, method, antialias, precision):
    _check_rank(shape, image)
    if isinstance(method, str):
        method = ResizeMethod.from_string(method)
    if method == ResizeMethod.NEAREST:
        return _resize_nearest(image, shape)
    image, = promote_dtypes_inexact(image)
    # an unchanged dimension is an identity warp, which every kernel interpolates exactly
    spatial_dims = tuple(d for d in range(len(shape)) if image.shape[d] != shape[d])
    radius, kernel, edge_padding = _kernel_of(method, antialias)
    scale = [1.0 if shape[d] == 0 else shape[d] / image.shape[d] for d in spatial_dims]
    return _scale_and_translate(image, shape, spatial_dims, scale, [0.] * len(spatial_dims),
                                kernel, antialias, precision, edge_padding, radius)


def resize(image, shape, method, antialias=True, precision=Precision.HIGHEST):
    """``image`` resampled to ``shape`` (every dimension, batch and channel ones included:
    keep those unchanged). NEAREST keeps the dtype; the other methods give a float."""
    return _resize(image, _canonical_shape(shape), method, antialias, precision)
