"""``jax.experimental.multihost_utils``: host-side helpers for programs run by several
processes (``minijax.distributed.initialize``).

``sync_global_devices`` is a named barrier of the distributed runtime. The gathers
(``process_allgather``, ``broadcast_one_to_all``, ``assert_equal``) return NumPy values as
JAX's do; in a single process they need no communication (JAX's own fast path).
"""

from __future__ import annotations

import numpy as np

from minijax import distributed
from minijax.tree_util import tree_all, tree_map

__all__ = ["assert_equal", "broadcast_one_to_all", "process_allgather",
           "reached_preemption_sync_point", "sync_global_devices"]


def _needs_one_process(name):
    if distributed.process_count() != 1:
        raise RuntimeError(
            f"multihost_utils.{name} across {distributed.process_count()} processes is not "
            "implemented in minijax; gather with make_array_from_process_local_data and a "
            "jit whose out_shardings replicate instead.")


def sync_global_devices(name):
    """Blocks until every process has called ``sync_global_devices(name)``."""
    distributed.global_barrier(f"sync_global_devices:{name}")


def process_allgather(in_tree, tiled=False):
    """Every process's value of each leaf, as NumPy: stacked on a new leading axis of size
    ``process_count()`` (or concatenated along axis 0 with ``tiled=True``)."""
    _needs_one_process("process_allgather")

    def gather(x):
        out = np.asarray(x)
        return out if tiled else np.expand_dims(out, axis=0)

    return tree_map(gather, in_tree)


def broadcast_one_to_all(in_tree, is_source=None):
    """Process 0's value of each leaf (or the source's), on every process, as NumPy."""
    if distributed.process_count() == 1:
        return tree_map(np.asarray, in_tree)
    _needs_one_process("broadcast_one_to_all")


def assert_equal(in_tree, fail_message=""):
    """Raises AssertionError unless every process holds the same value of each leaf."""
    def tiled_copies(x):
        x = np.asarray(x)
        x = np.expand_dims(x, axis=0) if x.ndim == 0 else x
        return np.concatenate([x] * distributed.process_count())

    out = process_allgather(in_tree, tiled=True)
    expected = tree_map(tiled_copies, in_tree)
    if not tree_all(tree_map(lambda a, b: bool(np.all(np.equal(a, b))), expected, out)):
        raise AssertionError(f"{fail_message}. Expected: {out}; got: {in_tree}.")


def reached_preemption_sync_point(step_id):
    """Whether the job must save and stop at ``step_id``: False without a distributed
    runtime; with one, minijax has no preemption service, and JAX's error says so."""
    del step_id
    if not distributed.is_initialized():
        return False
    raise RuntimeError("Preemption sync manager has not been initialized. minijax's "
                       "distributed runtime does not run the preemption service.")
