"""The few lax operations the interpreters apply themselves: adding tangents, materializing
zero tangents, broadcasting and summing for elementwise rules, moving batch axes.

lax defines its primitives with rules built from the interpreters (``ad``, ``batching``), so
the interpreters cannot import lax. ``minijax.lax`` fills these slots at its import instead
(``install``). Every value an interpreter meets comes from a primitive that lax defines, so the
slots are filled before they are read.
"""

from __future__ import annotations

add = broadcast_in_dim = full = reduce_sum = reshape = transpose = None
# (x, axes) -> x typed as varying over the manual axes ``axes`` (lax/parallel.py fills it)
pvary = None


def install(*, add, broadcast_in_dim, full, reduce_sum, reshape, transpose):
    """Fills the slots with lax's functions (called by ``minijax.lax`` at its import)."""
    globals().update(add=add, broadcast_in_dim=broadcast_in_dim, full=full,
                     reduce_sum=reduce_sum, reshape=reshape, transpose=transpose)
