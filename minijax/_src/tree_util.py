"""``jax._src.tree_util``: ``_registry``, every pytree node type and its (flatten, unflatten)
functions (flax.nnx asks ``type(x) in _registry``), and ``prefix_errors`` (flax's struct
tests build their key-path errors with it)."""

from minijax.tree_util import keystr
from minijax.tree_util import node_types as _registry
from minijax.tree_util import tree_flatten_with_path, tree_structure, treedef_is_leaf

__all__ = ["_registry", "prefix_errors"]

_NONE = tree_structure(None)


def _one_level(tree, is_leaf):
    """(children with their one-entry key paths, the node's one-level treedef)."""
    def stop(x):
        return x is not tree or (is_leaf is not None and is_leaf(x))

    children, treedef = tree_flatten_with_path(tree, is_leaf=stop)
    return [(path[0], child) for path, child in children], treedef


def prefix_errors(prefix_tree, full_tree, is_leaf=None):
    """One function per place where ``prefix_tree`` is not a pytree prefix of ``full_tree``;
    each takes the prefix's name (``"in_axes"``) and returns a ValueError naming the key path
    where the two differ (types, lengths, children or node metadata)."""
    return list(_errors((), prefix_tree, full_tree, is_leaf))


def _errors(path, prefix, full, is_leaf):
    prefix_def = tree_structure(prefix, is_leaf=is_leaf)
    if treedef_is_leaf(prefix_def) and prefix_def != _NONE:
        return  # a leaf (other than None) is a prefix of anything
    where = keystr(path)

    def error(what, detail):
        return lambda name: ValueError(
            f"pytree structure error: {what} at key path\n    {name}{where}\n{detail}")

    if type(prefix) is not type(full):
        yield error("different types", f"At that key path, the prefix pytree has a subtree "
                    f"of type\n    {type(prefix)}\nbut the full pytree has a subtree of "
                    f"type\n    {type(full)}.")
        return
    prefix_children, prefix_node = _one_level(prefix, is_leaf)
    full_children, full_node = _one_level(full, None)
    if isinstance(prefix, (list, tuple)) and len(prefix) != len(full):
        yield error(f"different lengths of {type(prefix).__name__}",
                    f"At that key path, the prefix pytree has length {len(prefix)} and the "
                    f"full pytree length {len(full)}.")
        return
    if len(prefix_children) != len(full_children):
        def keys(children):
            return " ".join(str(getattr(k, "key", k)) for k, _ in children)

        yield error("different numbers of pytree children",
                    f"At that key path, the prefix pytree has {len(prefix_children)} child "
                    f"keys\n    {keys(prefix_children)}\nbut the full pytree has "
                    f"{len(full_children)}\n    {keys(full_children)}")
        return
    if prefix_node != full_node:
        yield error("different pytree metadata",
                    f"At that key path, the prefix pytree's node is\n    {prefix_node}\nbut "
                    f"the full pytree's is\n    {full_node}")
        return
    for (key, p), (_, f) in zip(prefix_children, full_children):
        yield from _errors((*path, key), p, f, is_leaf)
