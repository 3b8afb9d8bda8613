"""``from minijax.experimental.shard_map import shard_map``, as in JAX."""

from minijax.shard_map import shard_map

__all__ = ["shard_map"]
