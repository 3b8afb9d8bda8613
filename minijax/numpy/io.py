"""``jnp.save``/``jnp.savez``/``jnp.load``: NumPy's ``.npy``/``.npz`` files, with bfloat16
recovered on load."""

from __future__ import annotations

import numpy as np

from minijax import dtypes
from minijax.numpy.creation import asarray

__all__ = ["load", "save", "savez"]

# An Array converts itself with __array__: as in JAX, these are NumPy's own.
save = np.save
savez = np.savez


def load(file, *args, **kwargs):
    """``np.load``, returning a minijax array for a ``.npy`` file. NumPy writes bfloat16 as
    2-byte void (``V2``): such data is read back as bfloat16. Other results (``.npz``
    archives, object arrays) come back as NumPy gives them."""
    out = np.load(file, *args, **kwargs)
    if isinstance(out, np.ndarray):
        if out.dtype == "V2":
            out = out.view(dtypes.bfloat16)
        try:
            out = asarray(out)
        except (TypeError, AssertionError):  # a dtype minijax has no arrays of
            pass
    return out
