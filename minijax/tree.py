"""``minijax.tree``: the short names of :mod:`minijax.tree_util`'s functions, as ``jax.tree``.

Each is the ``tree_util`` function itself (``tree.map is tree_util.tree_map``): one
implementation, two spellings.
"""

import dataclasses

from minijax.tree_util import (
    tree_all as all,
    tree_broadcast as broadcast,
    tree_flatten as flatten,
    tree_flatten_with_path as flatten_with_path,
    tree_leaves as leaves,
    tree_leaves_with_path as leaves_with_path,
    tree_map as map,
    tree_map_with_path as map_with_path,
    tree_reduce as reduce,
    tree_reduce_associative as reduce_associative,
    tree_structure as structure,
    tree_transpose as transpose,
    tree_unflatten as unflatten,
)

__all__ = [
    "all", "broadcast", "flatten", "flatten_with_path", "leaves", "leaves_with_path", "map",
    "map_with_path", "reduce", "reduce_associative", "static", "structure", "transpose",
    "unflatten",
]


def static(**kwargs):
    """``dataclasses.field`` marked static (``metadata={"static": True}``), so
    :func:`minijax.tree_util.register_dataclass` puts the field in the treedef, not the leaves."""
    metadata = {"static": True, **(kwargs.pop("metadata", {}) or {})}
    return dataclasses.field(metadata=metadata, **kwargs)
