"""``minijax.typing``: the annotation types of ``jax.typing`` (``ArrayLike``, ``DTypeLike``)."""

from __future__ import annotations

from typing import Any, Protocol, Union, runtime_checkable

import numpy as np

from minijax.lowering.array import BaseArray as Array

__all__ = ["ArrayLike", "DTypeLike"]


@runtime_checkable
class SupportsDType(Protocol):
    """Anything with a ``dtype`` attribute, such as ``jnp.float32``."""

    @property
    def dtype(self) -> np.dtype: ...


# Values that minijax functions accept as arrays: Arrays (tracers of arrays are Arrays too, as in
# JAX), NumPy arrays and scalars, and Python scalars.
ArrayLike = Union[Array, np.ndarray, np.bool_, np.number, bool, int, float, complex]

DTypeLike = Union[str, type[Any], np.dtype, SupportsDType]
