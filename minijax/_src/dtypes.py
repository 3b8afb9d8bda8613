"""``jax._src.dtypes``: the dtype names flax's fp8 extended dtype and equinox reach for."""

from __future__ import annotations

import numpy as np

from minijax.dtypes import ExtendedDType, TypePromotionError, extended, finfo, issubdtype

__all__ = ["DType", "ExtendedDType", "TypePromotionError", "extended", "finfo", "supports_inf"]

DType = np.dtype


def supports_inf(dtype) -> bool:
    """Whether ``dtype`` has an infinity (the ``fn``/``fnuz`` float8 types have none)."""
    if not issubdtype(dtype, np.inexact):
        return False
    with np.errstate(invalid="ignore"):
        return bool(np.isinf(np.array(np.inf).astype(dtype)))
