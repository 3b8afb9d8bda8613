"""``ravel_pytree``: a pytree of arrays as one flat vector, and the function that undoes it
(``jax.flatten_util``)."""

from __future__ import annotations

import numpy as np

from minijax import dtypes, lax
from minijax.tree_util import tree_flatten, tree_unflatten

__all__ = ["ravel_pytree"]


class _HashablePartial:
    """``fun`` with leading arguments bound, equal (and hashing equal) to another with the same
    function and arguments, so the unravel function can be a static argument of ``jit``."""

    def __init__(self, fun, *args):
        self.fun, self.args = fun, args

    def __call__(self, *args):
        return self.fun(*self.args, *args)

    def __eq__(self, other):
        return (type(other) is _HashablePartial and self.fun is other.fun
                and self.args == other.args)

    def __hash__(self):
        return hash((self.fun, self.args))


def ravel_pytree(pytree):
    """``(flat, unravel)``: the leaves of ``pytree`` raveled and concatenated into one 1-D array
    of their promoted dtype (float32 and empty for a tree without leaves), and
    ``unravel(flat)`` rebuilding the tree, each leaf in its own shape and dtype."""
    leaves, treedef = tree_flatten(pytree)
    flat, unravel_list = _ravel_list(leaves)
    return flat, _HashablePartial(_unravel_pytree, treedef, unravel_list)


def _unravel_pytree(treedef, unravel_list, flat):
    return tree_unflatten(treedef, unravel_list(flat))


def _ravel_list(leaves):
    if not leaves:
        return lax.full((0,), 0, np.float32), _HashablePartial(_no_leaves)
    from_dtypes = tuple(dtypes.dtype_of(x)[0] for x in leaves)
    to_dtype = dtypes.result_type(*from_dtypes)
    sizes = tuple(int(np.size(x)) for x in leaves)
    shapes = tuple(tuple(np.shape(x)) for x in leaves)
    if all(dt == to_dtype for dt in from_dtypes):
        # No conversion: unravel then takes a vector of any dtype (as JAX's does).
        flat = lax.concatenate([lax.reshape(x, (n,)) for x, n in zip(leaves, sizes)], 0)
        return flat, _HashablePartial(_unravel_single_dtype, sizes, shapes)
    flat = lax.concatenate(
        [lax.reshape(lax.convert_element_type(x, to_dtype), (n,)) for x, n in zip(leaves, sizes)],
        0)
    return flat, _HashablePartial(_unravel_list, sizes, shapes, from_dtypes, to_dtype)


def _no_leaves(flat):
    return []


def _unravel_single_dtype(sizes, shapes, flat):
    return [lax.reshape(c, s) for c, s in zip(lax.split(flat, sizes), shapes)]


def _unravel_list(sizes, shapes, from_dtypes, to_dtype, flat):
    got = dtypes.dtype_of(flat)[0]
    if got != to_dtype:
        raise TypeError(f"unravel function given array of dtype {got}, "
                        f"but expected dtype {to_dtype}")
    return [lax.convert_element_type(lax.reshape(c, s), dt)
            for c, s, dt in zip(lax.split(flat, sizes), shapes, from_dtypes)]
