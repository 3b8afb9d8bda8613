"""``from minijax.experimental.shard_map import shard_map``: JAX's deprecated signature."""

from minijax.shard_map import _shard_map

__all__ = ["shard_map"]


def shard_map(f, mesh, in_specs, out_specs, check_rep=True):
    """Please use ``minijax.shard_map``; this is JAX's deprecated
    ``jax.experimental.shard_map.shard_map``, manual over every mesh axis."""
    return _shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs,
                      axis_names=set(), check_vma=check_rep)
