"""``jax._src.tree_util``: ``_registry``, every pytree node type and its (flatten, unflatten)
functions (flax.nnx asks ``type(x) in _registry``), and ``prefix_errors`` (flax's struct
tests build their key-path errors with it)."""

from minijax.tree_util import _prefix_errors as prefix_errors
from minijax.tree_util import node_types as _registry

__all__ = ["_registry", "prefix_errors"]
