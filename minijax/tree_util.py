"""Pytree utilities: ``jax.tree_util``'s public API on jaxlib's C++ registry.

Two private :class:`PyTreeRegistry` instances (never jaxlib's process-global
default registry, which a real ``jax`` in the same process would share), as JAX
keeps a dispatch registry beside its default one:

- ``_public_registry``, behind every ``tree_*`` function: what users see;
- ``_registry``, the internal one, used by ``jit`` (its C++ fast path gets it)
  and every transformation entry point.

Every ``register_*`` call registers into both.  They differ in typed PRNG key
arrays only: a leaf for users, as JAX's ``key<fry>`` arrays are, but a node over
its uint32 data internally, so transformations trace keys as ordinary arrays and
rebuild them when they unflatten.  ``tree_map_internal`` and
``tree_flatten_with_path_internal`` are the internal twins that transformation
code needs besides ``_registry.flatten``.

Built in: ``None`` (an empty node), tuples, lists, dicts (keys sorted),
namedtuples; registered below: ``OrderedDict`` (insertion order),
``defaultdict`` (keys sorted) and :class:`Partial`.  Everything else is a leaf
unless registered with one of the ``register_*`` functions.

Key paths come straight from C++ ``flatten_with_path``; nodes registered
without a key function get ``FlattenedIndexKey(i)`` keys, as in JAX.
Structure mismatches in multi-tree functions surface as the ``ValueError``
raised by C++ ``PyTreeDef.flatten_up_to`` ("Tuple arity mismatch: ...",
"Custom node type mismatch: ...", "Dict key mismatch; ...").
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import operator
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from jaxlib._jax import pytree

__all__ = [
    "DictKey",
    "FlattenedIndexKey",
    "GetAttrKey",
    "KeyEntry",
    "KeyPath",
    "Partial",
    "PyTreeDef",
    "SequenceKey",
    "all_leaves",
    "default_registry",
    "flatten_one_level",
    "flatten_one_level_with_keys",
    "is_tree_node",
    "keystr",
    "register_dataclass",
    "register_pytree_node",
    "register_pytree_node_class",
    "register_pytree_with_keys",
    "register_pytree_with_keys_class",
    "register_static",
    "tree_all",
    "tree_broadcast",
    "tree_flatten",
    "tree_flatten_with_path",
    "tree_leaves",
    "tree_leaves_with_path",
    "tree_map",
    "tree_map_with_path",
    "tree_reduce",
    "tree_reduce_associative",
    "tree_structure",
    "tree_transpose",
    "tree_unflatten",
    "treedef_children",
    "treedef_is_leaf",
    "treedef_tuple",
]

T = TypeVar("T")
Typ = TypeVar("Typ", bound=type)
KeyEntry = TypeVar("KeyEntry", bound=Any)  # SequenceKey, DictKey, GetAttrKey, ...
KeyPath = tuple[KeyEntry, ...]  # what the *_with_path functions pair with each leaf

PyTreeDef = pytree.PyTreeDef
SequenceKey = pytree.SequenceKey
DictKey = pytree.DictKey
GetAttrKey = pytree.GetAttrKey
FlattenedIndexKey = pytree.FlattenedIndexKey


def _new_registry(name):
    registry = pytree.PyTreeRegistry()
    # Treedefs pickle their registry by reference (module + name lookup).
    registry.__module__ = __name__
    registry.__name__ = name
    return registry


_public_registry = _new_registry("_public_registry")
_registry = _new_registry("_registry")
_REGISTRIES = (_public_registry, _registry)
default_registry = _public_registry  # JAX's name for the registry users register into

# The node types of the public registry (which C++ does not list): type -> (flatten, unflatten),
# as ``(children, aux) = flatten(x)`` and ``unflatten(aux, children)``.
node_types = {
    tuple: (lambda x: (x, None), lambda _, xs: tuple(xs)),
    list: (lambda x: (x, None), lambda _, xs: list(xs)),
    dict: (lambda x: (tuple(x[k] for k in sorted(x)), tuple(sorted(x))),
           lambda keys, xs: dict(zip(keys, xs))),
    type(None): (lambda _: ((), None), lambda _, __: None),
}


# --------------------------------------------------------------- flattening


def is_tree_node(typ: type) -> bool:
    """Whether ``typ`` is a registered pytree node type (built-in, custom or a namedtuple)."""
    return _public_registry.is_node(typ)


def flatten_one_level(tree: Any) -> tuple[Iterable[Any], Any]:
    """``(children, aux_data)`` of the pytree node ``tree``, flattened one level only.

    Raises ValueError if ``tree`` is a leaf (not a registered container).
    """
    out = _public_registry.flatten_one_level(tree)
    if out is None:
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    return out


def flatten_one_level_with_keys(tree: Any) -> tuple[Iterable[tuple[Any, Any]], Any]:
    """:func:`flatten_one_level` with each child paired with its key."""
    out = _public_registry.flatten_one_level_with_keys(tree)
    if out is None:
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    return out


def tree_flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None
                 ) -> tuple[list[Any], PyTreeDef]:
    """Flatten ``tree`` into ``(leaves, treedef)``.

    ``is_leaf(x)`` returning True stops the descent at ``x`` (which becomes a
    leaf).  ``None`` is an empty node and contributes no leaves.
    """
    return _public_registry.flatten(tree, is_leaf)


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> Any:
    """Rebuild a pytree of structure ``treedef`` from ``leaves``."""
    return treedef.unflatten(leaves)


def tree_leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None
                ) -> list[Any]:
    """The leaves of ``tree``, in flattening order."""
    return _public_registry.flatten(tree, is_leaf)[0]


def tree_structure(tree: Any, is_leaf: Callable[[Any], bool] | None = None
                   ) -> PyTreeDef:
    """The treedef of ``tree``."""
    return _public_registry.flatten(tree, is_leaf)[1]


def treedef_tuple(treedefs: Iterable[PyTreeDef]) -> PyTreeDef:
    """The treedef of a tuple whose children have structures ``treedefs``."""
    return pytree.treedef_tuple(_public_registry, list(treedefs))


def treedef_children(treedef: PyTreeDef) -> list[PyTreeDef]:
    """Treedefs of the immediate children of ``treedef``'s root."""
    return treedef.children()


def treedef_is_leaf(treedef: PyTreeDef) -> bool:
    """True when ``treedef`` has a single node (a leaf, or an empty node such as None)."""
    return treedef.num_nodes == 1


def all_leaves(iterable: Iterable[Any],
               is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """True when every element of ``iterable`` is a leaf (``None`` is not)."""
    if is_leaf is None:
        return pytree.all_leaves(_public_registry, iterable)
    items = list(iterable)
    leaves = tree_leaves(items, is_leaf)
    return len(leaves) == len(items) and all(
        a is b for a, b in zip(items, leaves))


# ------------------------------------------------------------------ mapping


def tree_map(f: Callable[..., Any], tree: Any, *rest: Any,
             is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """``f`` applied leafwise; ``tree`` must be a prefix of every tree in ``rest``.

    Mismatched structures raise ``ValueError`` from ``flatten_up_to``.
    """
    leaves, treedef = _public_registry.flatten(tree, is_leaf)
    if not rest:
        return treedef.unflatten(map(f, leaves))
    others = [treedef.flatten_up_to(r) for r in rest]
    return treedef.unflatten(map(f, leaves, *others))


def tree_map_internal(f: Callable[..., Any], tree: Any, *rest: Any,
                      is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """:func:`tree_map` on the internal registry: ``f`` sees a typed key's uint32 data."""
    leaves, treedef = _registry.flatten(tree, is_leaf)
    others = [treedef.flatten_up_to(r) for r in rest]
    return treedef.unflatten(map(f, leaves, *others))


_NO_INITIALIZER = object()


def tree_reduce(function: Callable[[T, Any], T], tree: Any,
                initializer: Any = _NO_INITIALIZER,
                is_leaf: Callable[[Any], bool] | None = None) -> T:
    """``functools.reduce`` over the leaves of ``tree``.

    Without ``initializer`` an empty tree raises ``TypeError``, as
    ``functools.reduce`` does.
    """
    leaves = tree_leaves(tree, is_leaf)
    if initializer is _NO_INITIALIZER:
        return functools.reduce(function, leaves)
    return functools.reduce(function, leaves, initializer)


def tree_reduce_associative(operation: Callable[[T, T], T], tree: Any, *,
                            identity: Any = _NO_INITIALIZER,
                            is_leaf: Callable[[Any], bool] | None = None) -> T:
    """Reduce the leaves of ``tree`` pairwise as a balanced binary tree (``operation`` must be
    associative); an empty tree gives ``identity``, or raises ``TypeError`` without one."""
    def reduce(leaves):
        if len(leaves) == 1:
            return leaves[0]
        half = len(leaves) // 2
        return operation(reduce(leaves[:half]), reduce(leaves[half:]))

    leaves = tree_leaves(tree, is_leaf)
    if not leaves:
        if identity is _NO_INITIALIZER:
            raise TypeError("Must specify identity for parallel reduction of empty sequence.")
        return identity
    return reduce(leaves)


def tree_all(tree: Any, *, is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """``all()`` over the leaves of ``tree``."""
    return all(tree_leaves(tree, is_leaf))


def tree_transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None,
                   pytree_to_transpose: Any) -> Any:
    """Turn an outer-of-inner pytree into an inner-of-outer one.

    ``inner_treedef=None`` infers it from the first outer child.
    """
    flat, treedef = _public_registry.flatten(pytree_to_transpose)
    if inner_treedef is None:
        inner_treedef = tree_structure(
            outer_treedef.flatten_up_to(pytree_to_transpose)[0])
    inner_size = inner_treedef.num_leaves
    outer_size = outer_treedef.num_leaves
    if treedef.num_leaves != inner_size * outer_size:
        expected = outer_treedef.compose(inner_treedef)
        raise TypeError(f"Mismatch\n{treedef}\n != \n{expected}")
    rows = [flat[i * inner_size:(i + 1) * inner_size] for i in range(outer_size)]
    return inner_treedef.unflatten(
        outer_treedef.unflatten(col) for col in zip(*rows))


def tree_broadcast(prefix_tree: Any, full_tree: Any,
                   is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """``full_tree``'s structure with each leaf of ``prefix_tree`` repeated over the leaves of
    the subtree it stands for: ``tree_broadcast(1, {"a": 0, "b": (0, 0)})`` gives
    ``{"a": 1, "b": (1, 1)}``."""
    full_treedef = tree_structure(full_tree)
    leaves = []
    tree_map(lambda x, sub: leaves.extend([x] * tree_structure(sub).num_leaves),
             prefix_tree, full_tree, is_leaf=is_leaf)
    return full_treedef.unflatten(leaves)


# ---------------------------------------------------------------- key paths


def _path_predicate(is_leaf, is_leaf_takes_path):
    # C++ flatten_with_path calls its predicate as pred(path, x).
    if is_leaf is None or is_leaf_takes_path:
        return is_leaf
    return lambda _, x: is_leaf(x)


def tree_flatten_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                           is_leaf_takes_path: bool = False
                           ) -> tuple[list[tuple[tuple, Any]], PyTreeDef]:
    """Like :func:`tree_flatten`, but leaves come as ``(key_path, leaf)`` pairs."""
    return _public_registry.flatten_with_path(
        tree, _path_predicate(is_leaf, is_leaf_takes_path))


def tree_flatten_with_path_internal(tree: Any) -> tuple[list[tuple[tuple, Any]], PyTreeDef]:
    """:func:`tree_flatten_with_path` on the internal registry (paths of the leaves that
    transformations see, for their error messages)."""
    return _registry.flatten_with_path(tree)


def tree_leaves_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                          is_leaf_takes_path: bool = False
                          ) -> list[tuple[tuple, Any]]:
    """``(key_path, leaf)`` pairs of ``tree``."""
    return _public_registry.flatten_with_path(
        tree, _path_predicate(is_leaf, is_leaf_takes_path))[0]


def tree_map_with_path(f: Callable[..., Any], tree: Any, *rest: Any,
                       is_leaf: Callable[..., bool] | None = None,
                       is_leaf_takes_path: bool = False) -> Any:
    """Like :func:`tree_map`, but calls ``f(key_path, leaf, *other_leaves)``."""
    pairs, treedef = _public_registry.flatten_with_path(
        tree, _path_predicate(is_leaf, is_leaf_takes_path))
    others = [treedef.flatten_up_to(r) for r in rest]
    paths = [p for p, _ in pairs]
    leaves = [x for _, x in pairs]
    return treedef.unflatten(map(f, paths, leaves, *others))


def keystr(keys: tuple, *, simple: bool = False, separator: str = "") -> str:
    """Render a key path: ``(DictKey('a'), SequenceKey(0))`` -> ``"['a'][0]"``.

    ``simple=True`` drops brackets/quotes/dots (``"a", "0"``), which with
    ``separator="/"`` gives ``"a/0"``.
    """
    str_fn = _simple_entrystr if simple else str
    return separator.join(map(str_fn, keys))


def path_name(keys: tuple) -> str:
    """``keystr`` as JAX writes the paths of arguments and results in its names and errors
    (``"['a'][0]"``): the child of a node without keys is ``[i]``, not ``[<flat index i>]``."""
    return "".join(f"[{k.key}]" if isinstance(k, FlattenedIndexKey) else str(k) for k in keys)


def _simple_entrystr(key: Any) -> str:
    if isinstance(key, SequenceKey):
        return str(key.idx)
    if isinstance(key, (DictKey, FlattenedIndexKey)):
        return str(key.key)
    if isinstance(key, GetAttrKey):
        return str(key.name)
    return str(key)


# ------------------------------------------------------------- registration


def register_pytree_node(nodetype: type, flatten_func: Callable,
                         unflatten_func: Callable,
                         flatten_with_keys_func: Callable | None = None) -> None:
    """Make ``nodetype`` a pytree node.

    ``flatten_func(x) -> (children, aux_data)`` (aux_data hashable, it is part
    of the treedef); ``unflatten_func(aux_data, children) -> x``;
    ``flatten_with_keys_func(x) -> (((key, child), ...), aux_data)``.  Without
    the latter, key paths use ``FlattenedIndexKey(i)``.  Registering a type
    twice raises ``ValueError``.
    """
    for registry in _REGISTRIES:
        registry.register_node(nodetype, flatten_func, unflatten_func,
                               flatten_with_keys_func)
    node_types[nodetype] = (flatten_func, unflatten_func)


def register_pytree_with_keys(nodetype: type, flatten_with_keys: Callable,
                              unflatten_func: Callable,
                              flatten_func: Callable | None = None) -> None:
    """Register ``nodetype`` given a key-aware flatten function.

    ``flatten_func`` (optional, same children order and aux data) speeds up
    key-less flattening; it is derived from ``flatten_with_keys`` if omitted.
    """
    if flatten_func is None:
        def flatten_func(x):
            pairs, aux = flatten_with_keys(x)
            return [c for _, c in pairs], aux
    register_pytree_node(nodetype, flatten_func, unflatten_func,
                         flatten_with_keys)


def register_pytree_node_class(cls: Typ) -> Typ:
    """Class decorator: register ``cls`` via its ``tree_flatten`` method and
    ``tree_unflatten(aux_data, children)`` classmethod."""
    register_pytree_node(cls, operator.methodcaller("tree_flatten"),
                         cls.tree_unflatten)
    return cls


def register_pytree_with_keys_class(cls: Typ) -> Typ:
    """Class decorator: register ``cls`` via ``tree_flatten_with_keys``,
    ``tree_unflatten`` and (if present) ``tree_flatten``."""
    flatten_func = (operator.methodcaller("tree_flatten")
                    if hasattr(cls, "tree_flatten") else None)
    register_pytree_with_keys(cls, operator.methodcaller("tree_flatten_with_keys"),
                              cls.tree_unflatten, flatten_func)
    return cls


def register_dataclass(nodetype: Typ, data_fields: Sequence[str] | None = None,
                       meta_fields: Sequence[str] | None = None,
                       drop_fields: Sequence[str] = ()) -> Typ:
    """Register a dataclass-like type; usable as a decorator.

    ``data_fields`` become children (keyed ``GetAttrKey(name)``);
    ``meta_fields`` are static and go into the treedef (must be hashable).
    Unflattening calls ``nodetype(**fields)``.  When both are None,
    ``nodetype`` must be a dataclass: fields with ``metadata={'static': True}``
    are meta, the rest data (minus ``drop_fields``).
    """
    if data_fields is None or meta_fields is None:
        if (data_fields is None) != (meta_fields is None):
            raise TypeError(
                "register_dataclass: data_fields and meta_fields must both be "
                f"specified when either is specified. Got {data_fields=} "
                f"{meta_fields=}.")
        if not dataclasses.is_dataclass(nodetype):
            raise TypeError(
                "register_dataclass: data_fields and meta_fields are required "
                f"when nodetype is not a dataclass. Got {nodetype=}.")
        fields = [f for f in dataclasses.fields(nodetype)
                  if f.name not in drop_fields]
        data_fields = [f.name for f in fields if not f.metadata.get("static", False)]
        meta_fields = [f.name for f in fields if f.metadata.get("static", False)]
    data_fields, meta_fields = list(data_fields), list(meta_fields)

    if dataclasses.is_dataclass(nodetype):
        init_fields = {f.name for f in dataclasses.fields(nodetype) if f.init}
        init_fields.difference_update(drop_fields)
        given = {*data_fields, *meta_fields}
        if given != init_fields:
            msg = ("data_fields and meta_fields must include all dataclass "
                   "fields with ``init=True`` and only them.")
            if missing := init_fields - given:
                msg += (f" Missing fields: {missing}. Add them to drop_fields "
                        "to suppress this error.")
            if unexpected := given - init_fields:
                msg += f" Unexpected fields: {unexpected}."
            raise ValueError(msg)
    if overlap := set(data_fields) & set(meta_fields):
        raise ValueError("data_fields and meta_fields must not overlap. "
                         f"Overlapping fields: {overlap}.")
    for registry in _REGISTRIES:
        registry.register_dataclass_node(nodetype, data_fields, meta_fields)
    node_types[nodetype] = (
        lambda x: (tuple(getattr(x, f) for f in data_fields),
                   tuple(getattr(x, f) for f in meta_fields)),
        lambda meta, data: nodetype(**dict(zip(meta_fields, meta)),
                                    **dict(zip(data_fields, data))))
    return nodetype


def register_static(cls: Typ) -> Typ:
    """Register ``cls`` as a leafless node: instances (which must be
    hashable) live in the treedef, i.e. are static under ``jit``."""
    register_pytree_with_keys(cls, lambda x: ((), x), lambda x, _: x)
    return cls


register_pytree_with_keys(
    collections.OrderedDict,
    lambda x: (tuple((DictKey(k), v) for k, v in x.items()), tuple(x)),
    lambda keys, values: collections.OrderedDict(zip(keys, values)),
    lambda x: (tuple(x.values()), tuple(x)),
)


def _defaultdict_flatten(d):
    keys = tuple(sorted(d))
    return tuple(d[k] for k in keys), (d.default_factory, keys)


def _defaultdict_flatten_with_keys(d):
    keys = tuple(sorted(d))
    return tuple((DictKey(k), d[k]) for k in keys), (d.default_factory, keys)


register_pytree_with_keys(
    collections.defaultdict,
    _defaultdict_flatten_with_keys,
    lambda aux, values: collections.defaultdict(aux[0], zip(aux[1], values)),
    _defaultdict_flatten,
)


# ------------------------------------------------------------------ Partial


class _HashableCallableShim:
    """Wraps a callable (here a functools.partial) delegating call/hash/eq."""

    def __init__(self, fun):
        self.fun = fun

    def __call__(self, *args, **kw):
        return self.fun(*args, **kw)

    def __hash__(self):
        return hash(self.fun)

    def __eq__(self, other):
        if isinstance(other, _HashableCallableShim):
            return self.fun == other.fun
        return self.fun == other

    def __repr__(self):
        return f"_HashableCallableShim({self.fun!r})"


class Partial(functools.partial):
    """A ``functools.partial`` that is a pytree.

    ``func`` is static (it lives in the treedef and must be hashable); the
    bound ``args`` and ``keywords`` are children, so e.g. ``jit`` traces them.
    """

    def __new__(cls, func, *args, **kw):
        # functools.partial.__new__ merges a partial ``func``'s arguments into
        # ours; hide it behind a shim so exactly ``args``/``kw`` are children.
        if isinstance(func, functools.partial):
            original = func
            func = _HashableCallableShim(original)
            out = super().__new__(cls, func, *args, **kw)
            func.func = original.func
            func.args = original.args
            func.keywords = original.keywords
            return out
        return super().__new__(cls, func, *args, **kw)


register_pytree_node(
    Partial,
    lambda p: ((p.args, p.keywords), p.func),
    lambda func, xs: Partial(func, *xs[0], **xs[1]),
)


# ------------------------------------------------------------------------------------------------
# Prefix errors: where one pytree is not a prefix of another (JAX's ``_src.tree_util``
# ``prefix_errors``, which device_put's and flax's messages name key paths with)

_NONE_TREEDEF = tree_structure(None)


def _one_level(tree, is_leaf):
    """(children with their one-entry key paths, the node's one-level treedef)."""
    def stop(x):
        return x is not tree or (is_leaf is not None and is_leaf(x))

    children, treedef = tree_flatten_with_path(tree, is_leaf=stop)
    return [(path[0], child) for path, child in children], treedef


def _prefix_errors(prefix_tree, full_tree, is_leaf=None):
    """One function per place where ``prefix_tree`` is not a pytree prefix of ``full_tree``;
    each takes the prefix's name (``"in_axes"``) and returns a ValueError naming the key path
    where the two differ (types, lengths, children or node metadata)."""
    return list(_errors((), prefix_tree, full_tree, is_leaf))


def _errors(path, prefix, full, is_leaf):
    prefix_def = tree_structure(prefix, is_leaf=is_leaf)
    if treedef_is_leaf(prefix_def) and prefix_def != _NONE_TREEDEF:
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
