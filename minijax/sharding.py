"""``minijax.sharding``: meshes, shardings, ``with_sharding_constraint``, ``reshard``,
``auto_axes`` and ``shard_map``, at JAX's path.

The types live in ``sharding_types.py`` (beside the lowering, which needs them), the
constraint primitive in ``lax/sharding_constraint.py``; this module gathers the public names.
"""

from __future__ import annotations

import functools

from minijax.lax.sharding_constraint import reshard, with_sharding_constraint
from minijax.shard_map import shard_map
from minijax.sharding_types import current_mesh  # noqa: F401  (not JAX's; tests read it here)
from minijax.sharding_types import (
    AbstractMesh,
    AxisType,
    GSPMDSharding,
    Mesh,
    NamedSharding,
    PartitionSpec,
    Sharding,
    SingleDeviceSharding,
    get_abstract_mesh,
    make_mesh,
    set_mesh,
)

__all__ = [
    "AbstractMesh", "AxisType", "GSPMDSharding", "Mesh", "NamedSharding", "PartitionSpec",
    "Sharding", "SingleDeviceSharding", "auto_axes", "get_abstract_mesh", "make_mesh", "reshard",
    "set_mesh", "shard_map", "with_sharding_constraint",
]


def auto_axes(f=None, /, *, axes=None, out_sharding=None):
    """``f`` run with mesh ``axes`` in Auto mode, its outputs resharded to ``out_sharding``
    (given here or as the call's ``out_sharding=`` keyword). Every minijax mesh axis is
    already Auto, so ``f`` runs as it is and only the outputs are resharded."""
    if f is None:
        return lambda g: auto_axes(g, axes=axes, out_sharding=out_sharding)

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        if out_sharding is None:
            if "out_sharding" not in kwargs:
                raise TypeError("Missing required keyword argument: 'out_sharding'")
            out = kwargs.pop("out_sharding")
        else:
            out = out_sharding
        return reshard(f(*args, **kwargs), out)

    return wrapped


