"""The arguments of a ``jit`` call: how they split into static and dynamic ones, and
:class:`ArgRecord`, the dynamic ones flattened once on a cache miss for tracing, lowering,
compiling and explaining the miss.
"""

from __future__ import annotations

import inspect
import types

import numpy as np

from minijax.core import (Token, Tracer, WeakScalar, abstract_token, escaped_tracer_error,
                          get_aval)
from minijax.lowering.array import Array
from minijax.tree_util import _registry, keystr, tree_flatten_with_path_internal


def leaf_aval(x):
    """The aval of one dynamic argument leaf (an escaped tracer or a non-array raises)."""
    if isinstance(x, Tracer):
        raise escaped_tracer_error(x)
    try:
        return get_aval(x)
    except TypeError:
        raise TypeError(
            f"Argument {x!r} of type {type(x).__name__} is not a valid jit argument: jit "
            "arguments must be arrays, scalars, or pytrees of them. Mark configuration values "
            "static with static_argnums= / static_argnames=."
        ) from None


def with_leaf_path(err, fun, params, args, kwargs, static_key):
    """``err`` (an invalid argument leaf) in JAX 0.10.2's words, naming ``fun`` and the first
    such leaf by its ``debug_info.arg_names`` name (``x``, ``d['b'][1]``)."""
    leaves = _registry.flatten((args, kwargs))[0]
    for i, leaf in enumerate(leaves):
        if not isinstance(leaf, Tracer):
            try:
                get_aval(leaf)
            except TypeError:
                call = types.SimpleNamespace(args=args, kwargs=kwargs, static_key=static_key,
                                             paths=arg_paths(args, kwargs))
                name = debug_arg_names(params, call)[i]
                return TypeError(
                    f"Error interpreting argument to {fun} as an abstract array. The "
                    f"problematic value is of type {type(leaf)} and was passed to the function "
                    f"at path {name}.\nThis typically means that a jit-wrapped function was "
                    "called with a non-array argument, and this argument was not marked as "
                    "static using the static_argnums or static_argnames parameters of jax.jit."
                )
    return err


def check_out_leaf(x, path):
    # WeakScalar: a rule's weakly typed scalar (grad's zero cotangent of a constant function)
    if isinstance(x, (Tracer, Array, np.ndarray, np.generic, bool, int, float, complex,
                      WeakScalar, Token)):
        return
    raise TypeError(
        f"The jitted function returned a value of type {type(x).__name__} at output{path}; "
        "outputs of a jitted function must be arrays, scalars, or pytrees of them."
    )


def arg_paths(args, kwargs):
    """Readable paths of the argument leaves: ``args[0]['w']``, ``kwargs['lr']``."""
    paths = []
    for path, _ in tree_flatten_with_path_internal((args, kwargs))[0]:
        head = "args" if path[0].idx == 0 else "kwargs"
        paths.append(head + keystr(path[1:]))
    return paths


def normalize_argnums(argnums):
    if argnums is None:
        return ()
    if isinstance(argnums, int):
        argnums = (argnums,)
    return tuple(argnums)


def normalize_argnames(names):
    if names is None:
        return ()
    if isinstance(names, str):
        return (names,)
    return tuple(names)


class Signature:
    """How positional/keyword arguments map to parameter names, for static_argnames."""

    def __init__(self, fun):
        try:
            self.params = list(inspect.signature(fun).parameters.values())
        except (TypeError, ValueError):
            self.params = None

    def names_to_nums(self, names):
        if not self.params:
            return ()
        return tuple(
            i
            for i, p in enumerate(self.params)
            if p.name in names and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        )

    def nums_to_names(self, nums):
        if not self.params:
            return ()
        return tuple(
            p.name
            for i, p in enumerate(self.params)
            if i in nums and p.kind == p.POSITIONAL_OR_KEYWORD
        )


def split_static(args, kwargs, static_argnums, static_argnames):
    """``(dynamic args, dynamic kwargs, static_key)``; the key holds ``(position or name,
    value)`` of each static argument and must hash (it is part of the cache key)."""
    nums = static_argnums
    if any(i < 0 for i in nums):
        nums = {i % len(args) if i < 0 else i for i in nums}
    static, dyn_args = [], []
    for i, x in enumerate(args):
        if i in nums:
            static.append((i, x))
        else:
            dyn_args.append(x)
    dyn_kwargs = {}
    for k, v in kwargs.items():
        if k in static_argnames:
            static.append((k, v))
        else:
            dyn_kwargs[k] = v
    static_key = tuple(static)
    try:
        hash(static_key)
    except TypeError:
        _raise_unhashable(static)
    return tuple(dyn_args), dyn_kwargs, static_key


def _raise_unhashable(static):
    """The error of jaxlib's C++ jit (which JAX raises under a trace too) for the first static
    argument that does not hash, in its words."""
    for _, v in static:
        try:
            hash(v)
        except TypeError as e:
            raise ValueError(
                "Non-hashable static arguments are not supported. An error occurred while trying "
                f"to hash an object of type {type(v)}, {v}. The error was:\nTypeError: {e}\n"
            ) from None


def merge_static(dyn_args, dyn_kwargs, static_key):
    """The full ``(args, kwargs)`` of a call from its dynamic part and its static key."""
    args = list(dyn_args)
    kwargs = dict(dyn_kwargs)
    for k, v in static_key:
        if isinstance(k, int):
            args.insert(k, v)
        else:
            kwargs[k] = v
    return args, kwargs


class ArgRecord:
    """The dynamic arguments of one call, flattened once: ``leaves`` and ``in_tree`` (of
    ``(args, kwargs)``), each leaf's ``aval``, the ``static_key``, the donated leaf indices,
    and (computed on first use) each leaf's readable ``paths``."""

    __slots__ = ("args", "kwargs", "static_key", "leaves", "in_tree", "avals", "donated",
                 "_paths")

    def __init__(self, args, kwargs, static_key, leaves, in_tree, avals, donate_argnums):
        self.args, self.kwargs, self.static_key = args, kwargs, static_key
        self.leaves, self.in_tree, self.avals = leaves, in_tree, avals
        self.donated = _donated_leaves(in_tree, donate_argnums)
        self._paths = None

    @classmethod
    def of_call(cls, args, kwargs, static_key, donate_argnums, aval_of=leaf_aval):
        """``aval_of``: how a leaf's aval is found (``get_aval`` also takes tracers)."""
        leaves, in_tree = _registry.flatten((args, kwargs))
        avals = tuple([aval_of(x) for x in leaves])  # an invalid leaf: see with_leaf_path
        return cls(args, kwargs, static_key, leaves, in_tree, avals, donate_argnums)

    @property
    def paths(self):
        if self._paths is None:
            self._paths = arg_paths(self.args, self.kwargs)
        return self._paths

    @property
    def num_kwarg_leaves(self):
        return self.in_tree.children()[1].num_leaves

    def names(self, params, has_static_argnums):
        """Readable names of the leaves (``x``, ``params['w']``) for trace-time errors:
        the paths with positions replaced by ``params``' names where they are known."""
        if not params or has_static_argnums:
            return self.paths
        names = [p.name for p in params]
        out = []
        for p in self.paths:
            if p.startswith("args["):
                i = int(p[5:p.index("]")])
                if i < len(names):
                    p = names[i] + p[p.index("]") + 1:]
            elif p.startswith("kwargs['"):
                p = p[8:p.index("']")] + p[p.index("']") + 2:]
            out.append(p)
        return out


def debug_arg_names(params, record):
    """JAX's names of the argument leaves (its ``debug_info.arg_names``: ``x``, ``d['a']``,
    ``args[0]`` of ``*args``, ``kw['k']`` of ``**kw``), which main's arguments carry as
    locations: ``record.paths`` with each top-level argument named by the parameter the call
    binds it to (positions counted with the static arguments); ``args[i]``/``kwargs['k']``
    where the call does not bind to the signature ``params``."""
    static_pos = {k for k, _ in record.static_key if isinstance(k, int)}
    n_pos = len(record.args) + len(static_pos)
    position = [j for j in range(n_pos) if j not in static_pos]  # dynamic -> call position
    names = [k for k, _ in record.static_key if not isinstance(k, int)] + list(record.kwargs)
    try:
        bound = inspect.Signature(params).bind(*[None] * n_pos, **dict.fromkeys(names))
    except (TypeError, ValueError):  # no signature, or one the call does not bind to
        bound = None
    by_position, star, var_kw = [], None, None
    for p in params if bound is not None else ():
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            by_position.append(p.name)
        elif p.kind == p.VAR_POSITIONAL:
            star = (p.name, len(by_position))
        elif p.kind == p.VAR_KEYWORD:
            var_kw = p.name
    out = []
    for path in record.paths:
        end = path.index("]") + 1
        if path.startswith("args["):
            j = position[int(path[5:end - 1])]
            if bound is None:
                head = f"args[{j}]"
            elif j < len(by_position):
                head = by_position[j]
            else:
                head = f"{star[0]}[{j - star[1]}]"
        else:  # kwargs['k']
            k = path[8:end - 2]
            if bound is None:
                head = path[:end]
            elif k in bound.signature.parameters:
                head = k
            else:
                head = f"{var_kw}['{k}']"
        out.append(head + path[end:])
    return out


def _donated_leaves(in_tree, donate_argnums):
    if not donate_argnums:
        return ()
    indices, start = [], 0
    for i, arg_tree in enumerate(in_tree.children()[0].children()):
        n = arg_tree.num_leaves
        if i in donate_argnums:
            indices.extend(range(start, start + n))
        start += n
    return tuple(indices)


def explain_difference(old_key, old_paths, new_key, new_paths):
    """Why the cache key ``new_key`` missed the last one, ``old_key``: a list of sentences."""
    old_tree, old_static, old_avals, old_cfg = old_key[:4]
    new_tree, new_static, new_avals, new_cfg = new_key[:4]
    reasons = []
    if old_key[4:] != new_key[4:]:
        reasons.append("the shardings of committed (multi-device) arguments changed")
    if old_cfg != new_cfg:
        reasons.append(f"trace-affecting config changed (x64 and friends): {old_cfg} -> {new_cfg}")
    if old_static != new_static:
        olds, news = dict(old_static), dict(new_static)
        for k in sorted(set(olds) | set(news), key=str):
            if olds.get(k, "<absent>") != news.get(k, "<absent>"):
                name = f"argument {k}" if isinstance(k, int) else f"argument '{k}'"
                reasons.append(
                    f"static {name} changed from {olds.get(k, '<absent>')!r} to "
                    f"{news.get(k, '<absent>')!r}"
                )
    if old_tree != new_tree:
        reasons.append(
            f"the pytree structure of the arguments changed from {old_tree} to {new_tree}"
        )
    else:
        for path, a, b in zip(new_paths, old_avals, new_avals):
            if a == b:
                continue
            if a is abstract_token or b is abstract_token:  # no shape nor dtype
                what = f"type changed from {a.str_short(True)} to {b.str_short(True)}"
            elif a.shape != b.shape:
                what = f"shape changed from {a.str_short(True)} to {b.str_short(True)}"
            elif a.dtype != b.dtype:
                what = f"dtype changed from {a.dtype.name} to {b.dtype.name}"
            else:
                what = f"weak_type changed from {a.weak_type} to {b.weak_type}"
            reasons.append(f"{path}: {what}")
    return reasons or ["an argument's signature differs from every cached one"]
