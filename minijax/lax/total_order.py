"""The total-order comparisons ``eq_to``, ``le_to`` and ``lt_to`` (JAX's ``eq_to_p``,
``le_to_p``, ``lt_to_p``, what its sort comparators are made of): like ``eq``/``le``/``lt``,
but floats compare in XLA's TOTALORDER (-NaN < -inf < ... < -0.0 < 0.0 < ... < inf < NaN), so
``-0.0 < 0.0`` and a NaN equals itself."""

from __future__ import annotations

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import dtypes
from minijax.interpreters import ad
from minijax.lax.families import ANY, REAL, compare_type, elementwise_prim

__all__ = ["eq_to_p", "le_to_p", "lt_to_p"]


def _total_order(name, direction, allowed):
    def lower(ctx, x, y):
        dtype = ctx.avals_in[0].dtype
        kind = "TOTALORDER" if dtypes.issubdtype(dtype, np.inexact) else compare_type(dtype)
        return hlo.compare(x, y, hlo.ComparisonDirectionAttr.get(direction),
                           compare_type=hlo.ComparisonTypeAttr.get(kind))

    p = elementwise_prim(name, allowed, lower, result_dtype=lambda _: dtypes.bool_)
    ad.defjvp_zero(p)
    return p


eq_to_p = _total_order("eq_to", "EQ", ANY)
le_to_p = _total_order("le_to", "LE", REAL)
lt_to_p = _total_order("lt_to", "LT", REAL)
