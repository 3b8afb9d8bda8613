"""``minijax.api_util``: the helpers of ``jax.api_util`` that libraries built on JAX call.

``shaped_abstractify``, ``flatten_axes``, ``donation_vector``, ``rebase_donate_argnums`` and
``safe_map`` have JAX's semantics. JAX's ``flatten_fun``, ``flatten_fun_nokwargs``,
``argnums_partial`` and ``debug_info`` transform or describe JAX's internal ``WrappedFun``
(``linear_util``), which minijax has no counterpart of, so they are not here.
"""

from __future__ import annotations

from minijax import core
from minijax.api import ShapeDtypeStruct
from minijax.vmapping import flatten_axes as _flatten_axes

__all__ = ["donation_vector", "flatten_axes", "rebase_donate_argnums", "safe_map",
           "shaped_abstractify"]


def shaped_abstractify(x):
    """The ShapedArray of ``x``: an Array, tracer, NumPy value, Python scalar (weakly typed)
    or ShapeDtypeStruct."""
    if isinstance(x, ShapeDtypeStruct):
        return x.aval
    try:
        return core.get_aval(x)
    except TypeError:
        raise TypeError(f"Argument '{x}' of type {type(x)} is not a valid JAX type") from None


def flatten_axes(name, treedef, axis_tree, *, kws=False, tupled_args=False):
    """One entry of ``axis_tree`` (a pytree prefix of ``treedef`` whose leaves are ints or
    None) per leaf of ``treedef``; ``name`` goes into the error when it is not a prefix."""
    return _flatten_axes(name, treedef, axis_tree)


def donation_vector(donate_argnums, donate_argnames, in_tree, kws=True):
    """One bool per leaf of ``in_tree`` (the structure of ``(args, kwargs)``, or of ``args``
    with ``kws=False``): whether its argument is donated."""
    if kws:
        args_tree, kwargs_tree = in_tree.children()
    else:
        args_tree, kwargs_tree = in_tree, None
    out = []
    for i, arg in enumerate(args_tree.children()):
        out.extend([i in donate_argnums] * arg.num_leaves)
    if kwargs_tree is not None:
        keys = kwargs_tree.node_data()[1]
        for key, val in zip(keys, kwargs_tree.children()):
            out.extend([key in donate_argnames] * val.num_leaves)
    return tuple(out)


def rebase_donate_argnums(donate_argnums, static_argnums):
    """``donate_argnums`` renumbered as positions among the non-static arguments:
    ``rebase_donate_argnums((3, 4), (0, 1)) == (1, 2)``."""
    static = set(static_argnums)
    donate = sorted(set(donate_argnums))
    if static & set(donate):
        raise ValueError(f"`static_argnums` {sorted(static)} and "
                         f"`donate_argnums` {donate} cannot intersect.")
    return tuple(d - sum(s < d for s in static) for d in donate)


def safe_map(f, *args):
    """``list(map(f, *args))`` that raises ValueError when the sequences differ in length."""
    args = list(map(list, args))
    n = len(args[0])
    for i, arg in enumerate(args[1:], 2):
        if len(arg) != n:
            raise ValueError(f"safe_map() argument {i} is {'shorter' if len(arg) < n else 'longer'}"
                             f" than argument 1")
    return list(map(f, *args))
