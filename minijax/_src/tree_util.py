"""``jax._src.tree_util``: ``_registry``, every pytree node type and its (flatten, unflatten)
functions (flax.nnx asks ``type(x) in _registry``)."""

from minijax.tree_util import node_types as _registry

__all__ = ["_registry"]
