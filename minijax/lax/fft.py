"""``fft``: discrete Fourier transforms over the trailing axes, exactly ``stablehlo.fft``.

``fft_type`` is a ``FftType``: FFT and IFFT (complex to complex), RFFT (real to the
``n // 2 + 1`` non-negative frequencies of the last axis) and IRFFT (back, to length
``fft_lengths[-1]``). IFFT and IRFFT are normalised by ``1 / prod(fft_lengths)``, as NumPy's.

Differentiation (as JAX's fft.py): every transform is linear over the reals. The DFT matrix is
symmetric, so FFT and IFFT are their own transposes. RFFT's transpose is an IRFFT of the
conjugated cotangent, the doubled frequencies halved, scaled by ``prod(fft_lengths)`` (JAX's
jit ``_rfft_transpose``). IRFFT's transpose is an RFFT of the cotangent, scaled by
``1 / prod(fft_lengths)``, with the frequencies that stand for two Hermitian-symmetric ones
doubled, and conjugated (JAX's convention for complex cotangents).

vmap moves the batch axis to the front: transforms only touch trailing axes. The transpose and
batching rules transform through JAX's jitted ``lax.fft`` (a ``jit[name=fft]`` equation), which
jnp.fft installs (``install_jits``).
"""

from __future__ import annotations

import enum
import math
import operator

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import dtypes
from minijax.core import Primitive, ShapedArray, get_aval
from minijax.interpreters import ad, batching
from minijax.lax.convert import convert_element_type
from minijax.lax.elementwise import conj, div, mul
from minijax.lax.families import const
from minijax.lax.indexing import dynamic_update_slice
from minijax.lax.structural import expand_dims, full, full_like
from minijax.lowering.stablehlo import dense_i64, tensor_type
from minijax.lax import sharding_rules

__all__ = ["FftType", "fft", "fft_p"]


class FftType(enum.IntEnum):
    """The kind of transform (the numbering is XLA's)."""

    FFT = 0
    IFFT = 1
    RFFT = 2
    IRFFT = 3


_COMPLEX_OF = {np.dtype(np.float32): np.dtype(np.complex64),
               np.dtype(np.float64): np.dtype(np.complex128)}
_REAL_OF = {c: r for r, c in _COMPLEX_OF.items()}


def _fft_rule(x, *, fft_type, fft_lengths):
    name = "fft"
    n = len(fft_lengths)
    if n < 1 or n > 3:
        raise ValueError(f"{name}: fft_lengths must name 1 to 3 axes, got {fft_lengths}")
    if n > x.ndim:
        raise ValueError(f"{name}: fft_lengths {fft_lengths} names more axes than operand "
                         f"{x.str_short(True)} has")
    if any(d < 0 for d in fft_lengths):
        raise ValueError(f"{name}: fft_lengths must be non-negative, got {fft_lengths}")
    lead, tail = x.shape[:-n], x.shape[-n:]
    if fft_type == FftType.RFFT:
        if x.dtype not in _COMPLEX_OF:
            raise TypeError(f"{name}: RFFT requires a float32 or float64 operand, got "
                            f"{x.str_short(True)}")
        if tail != fft_lengths:
            raise ValueError(f"{name}: RFFT operand {x.str_short(True)} must end with the axes "
                             f"fft_lengths={fft_lengths}")
        shape = (*lead, *fft_lengths[:-1], fft_lengths[-1] // 2 + 1)
        return ShapedArray(shape, _COMPLEX_OF[x.dtype])
    if x.dtype not in _REAL_OF:
        raise TypeError(f"{name}: {FftType(fft_type).name} requires a complex64 or complex128 "
                        f"operand, got {x.str_short(True)}")
    if fft_type == FftType.IRFFT:
        expected = (*fft_lengths[:-1], fft_lengths[-1] // 2 + 1)
        # a zero output length takes an empty last axis too (jnp.fft.irfft of an empty array)
        empty = fft_lengths[-1] == 0 and tail == (*fft_lengths[:-1], 0)
        if tail != expected and not empty:
            raise ValueError(f"{name}: IRFFT operand {x.str_short(True)} must end with the axes "
                             f"{expected} for fft_lengths={fft_lengths}")
        return ShapedArray((*lead, *fft_lengths), _REAL_OF[x.dtype])
    if tail != fft_lengths:
        raise ValueError(f"{name}: {FftType(fft_type).name} operand {x.str_short(True)} must end "
                         f"with the axes fft_lengths={fft_lengths}")
    return ShapedArray(x.shape, x.dtype)


def _fft_lowering(ctx, x, *, fft_type, fft_lengths):
    if fft_type == FftType.RFFT and fft_lengths[-1] == 0:
        # XLA infers a last axis of 0 where the shape rule (as JAX's) says 1. JAX 0.10.2 fails
        # here, when lowering, so an RFFT that jit drops as unused never fails.
        raise ValueError(
            "Cannot lower jaxpr with verifier errors: fft: RFFT over a zero-length axis "
            f"(operand {ctx.avals_in[0].str_short(True)}) makes an empty result where its type "
            f"says {ctx.avals_out[0].str_short(True)}")
    kind = hlo.FftTypeAttr.get(FftType(fft_type).name)
    return hlo.FftOp(x, kind, dense_i64(fft_lengths),
                     results=[tensor_type(ctx.avals_out[0])]).result


fft_p = Primitive("fft")
fft_p.def_abstract_eval(_fft_rule)
fft_p.def_lowering(_fft_lowering)


def _fft_batching(args, dims, *, fft_type, fft_lengths):
    (x,), (d,) = args, dims
    size = batching.axis_size(args, dims)
    x = batching.bdim_at_front(x, d, size)
    return jitted_fft(x, fft_type, fft_lengths), 0  # JAX's rule calls its jitted lax.fft


fft_p.def_batching(_fft_batching)


# JAX's lax.fft is a jit named ``fft`` and its RFFT transpose a jit named ``_rfft_transpose``:
# the transpose rules below call them so, as JAX's do. lax cannot hold a jit (layers), so
# minijax.numpy.fft fills these slots at its import (``install_jits``), before any trace.
jitted_fft = None
_jitted_rfft_transpose = None


def install_jits(jit, fft):
    """Fills the slots: ``jit`` is numpy's ``eager_jit``, ``fft`` its jitted transform."""
    global jitted_fft, _jitted_rfft_transpose
    jitted_fft = fft
    _jitted_rfft_transpose = jit(_rfft_transpose, static_argnames=("fft_lengths",),
                                 inline=False)


def _hermitian_mask(like, m, n, dtype=None):
    """2 for the frequencies that stand for two Hermitian-symmetric ones, 1 for DC and (n
    even) Nyquist: JAX's full_like and dynamic_update_slices."""
    mask = full_like(like, 2.0, shape=(m,), dtype=dtype)
    mask = dynamic_update_slice(mask, full_like(like, 1.0, shape=(1,), dtype=dtype), (0,))
    if not n % 2:
        mask = dynamic_update_slice(mask, full_like(like, 1.0, shape=(1,), dtype=dtype),
                                    (m - 1,))
    return mask


def _rfft_transpose(t, fft_lengths):
    """Transpose of x -> FFT(complex(x))[..., :n // 2 + 1], as JAX's: an IRFFT of the
    conjugated cotangent, with the frequencies that stand for two Hermitian-symmetric ones
    halved (a complex division) and scaled by ``prod(fft_lengths)``. The values equal a padded
    FFT's real part, but NaN spreads as JAX's: IRFFT mixes a NaN imaginary part into every
    output, where the DC output of an FFT keeps only the real parts."""
    mask = _hermitian_mask(t, t.shape[-1], fft_lengths[-1])
    mask = expand_dims(mask, range(t.ndim - 1))
    out = jitted_fft(div(conj(t), mask), FftType.IRFFT, fft_lengths)
    return mul(const(out, math.prod(fft_lengths)), out)  # a weak scalar, as JAX's `N * out`


def _irfft_transpose(t, x_aval, fft_lengths):
    """An RFFT of the cotangent, scaled by ``1 / prod(fft_lengths)`` with the Hermitian pairs
    doubled, conjugated (JAX's convention for complex cotangents)."""
    if fft_lengths[-1] == 0:  # an empty output: nothing flows back
        return full(x_aval.shape, 0, x_aval.dtype)
    x = jitted_fft(t, FftType.RFFT, fft_lengths)
    mask = _hermitian_mask(t, x.shape[-1], fft_lengths[-1], x.dtype)
    mask = expand_dims(mask, range(x.ndim - 1))
    scale = mul(const(mask, 1 / math.prod(fft_lengths)), mask)  # weak, as JAX's `scale * mask`
    return conj(mul(scale, x))


def _fft_transpose(t, x, *, fft_type, fft_lengths):
    if fft_type == FftType.RFFT:
        return [_jitted_rfft_transpose(t, fft_lengths)]
    if fft_type == FftType.IRFFT:
        return [_irfft_transpose(t, x.aval, fft_lengths)]
    return [jitted_fft(t, fft_type, fft_lengths)]


ad.deflinear(fft_p, _fft_transpose)


def _canonical_fft_type(fft_type):
    if isinstance(fft_type, str):
        try:
            return FftType[fft_type.upper()]
        except KeyError:
            raise ValueError(f"fft: unknown fft_type {fft_type!r}; expected one of "
                             f"{[t.name for t in FftType]}") from None
    return FftType(fft_type)


def fft(x, fft_type, fft_lengths):
    """The ``fft_type`` transform over the last ``len(fft_lengths)`` axes of ``x``.

    FFT/IFFT convert real operands to complex first, as JAX does.
    """
    fft_type = _canonical_fft_type(fft_type)
    if isinstance(fft_lengths, (int, np.integer)):
        fft_lengths = (fft_lengths,)
    fft_lengths = tuple(operator.index(n) for n in fft_lengths)
    dtype = get_aval(x).dtype
    if fft_type in (FftType.FFT, FftType.IFFT) and not dtypes.is_complex(dtype):
        x = convert_element_type(x, np.complex128 if dtype == np.float64 else np.complex64)
    return fft_p.bind(x, fft_type=fft_type, fft_lengths=fft_lengths)

fft_p.sharding_rule = sharding_rules.operand(0)  # (operands split over Explicit mesh axes)
