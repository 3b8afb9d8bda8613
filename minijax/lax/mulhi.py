"""``mulhi``: the high half of integers' full-width product (``chlo.mulhi``), as JAX's
``mulhi_p``. Its result is integer, so its derivative is zero."""

from __future__ import annotations

from jaxlib.mlir.dialects import chlo

from minijax.interpreters import ad
from minijax.lax.families import INT, coerce_scalars, naryop

__all__ = ["mulhi", "mulhi_p"]

mulhi_p = naryop("mulhi", chlo.mulhi, INT)
ad.defjvp_zero(mulhi_p)


def mulhi(x, y, /):
    """The upper N bits of the 2N-bit product of N-bit integers ``x`` and ``y``, elementwise
    (signed or unsigned as their dtype)."""
    return mulhi_p.bind(*coerce_scalars(x, y))
