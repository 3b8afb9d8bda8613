"""``jax._src.state.types``: ``AbstractRef``, the type of a ``Ref`` (flax.nnx tests for it)."""

from minijax.refs import AbstractRef

__all__ = ["AbstractRef"]
