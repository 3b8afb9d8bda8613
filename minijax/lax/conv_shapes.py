"""The output shapes of convolutions, computed from shapes alone (JAX's
``conv_shape_tuple``, ``conv_general_shape_tuple`` and ``conv_transpose_shape_tuple``), and
the type of a convolution's dimension numbers."""

from __future__ import annotations

from typing import Union

import numpy as np

from minijax.lax.convolution import (
    ConvDimensionNumbers,
    conv_general_permutations,
    conv_transpose_padding,
    padtype_to_pads,
    strided_out_shape,
)

__all__ = ["ConvGeneralDilatedDimensionNumbers", "conv_general_shape_tuple", "conv_shape_tuple",
           "conv_transpose_shape_tuple"]

# What conv_general_dilated's dimension_numbers may be
ConvGeneralDilatedDimensionNumbers = Union[tuple[str, str, str], ConvDimensionNumbers, None]


def conv_shape_tuple(lhs_shape, rhs_shape, strides, pads, batch_group_count=1):
    """The output shape of a convolution of operands in canonical order (NC..., OI...)."""
    if isinstance(pads, str):
        pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    if len(pads) != len(lhs_shape) - 2:
        raise TypeError("Wrong number of explicit pads for convolution: expected "
                        f"{len(lhs_shape) - 2}, got {len(pads)}.")
    padded = np.add(lhs_shape[2:], np.sum(np.array(pads).reshape(-1, 2), axis=1))
    if np.any(padded < 0):
        raise ValueError("Negative padding is larger than the size of the corresponding "
                         f"dimension: got padding={pads} for lhs_shape[2:]={lhs_shape[2:]}")
    out_space = strided_out_shape(padded, rhs_shape[2:], strides)
    batch = lhs_shape[0] // batch_group_count if batch_group_count > 1 else lhs_shape[0]
    return (batch, rhs_shape[0], *out_space)


def conv_general_shape_tuple(lhs_shape, rhs_shape, window_strides, padding, dimension_numbers):
    """The output shape of a convolution whose layouts are a string triple such as
    ``('NHWC', 'HWIO', 'NHWC')``."""
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    out = conv_shape_tuple(np.take(lhs_shape, lhs_perm), np.take(rhs_shape, rhs_perm),
                           window_strides, padding)
    return tuple(np.take(out, np.argsort(out_perm)))


def conv_transpose_shape_tuple(lhs_shape, rhs_shape, window_strides, padding,
                               dimension_numbers):
    """The output shape of ``conv_transpose`` with the layouts of ``dimension_numbers``."""
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    lhs_t, rhs_t = np.take(lhs_shape, lhs_perm), np.take(rhs_shape, rhs_perm)
    if isinstance(padding, str):
        padding = [conv_transpose_padding(k, s, padding)
                   for k, s in zip(rhs_t[2:], window_strides)]
    padding = [int(np.sum(p)) for p in padding]
    out_space = [(i - 1) * s - k + 2 + p
                 for i, k, s, p in zip(lhs_t[2:], rhs_t[2:], window_strides, padding)]
    out = (lhs_t[0], rhs_t[0], *out_space)
    return tuple(np.take(out, np.argsort(out_perm)))
