"""``minijax.api_util``: the helpers of ``jax.api_util`` that libraries built on JAX call.

``shaped_abstractify``, ``flatten_axes``, ``donation_vector``, ``rebase_donate_argnums``,
``safe_map``, ``debug_info``, ``flatten_fun`` and ``flatten_fun_nokwargs`` have JAX's
semantics; the last two transform a ``minijax.extend.linear_util.WrappedFun`` (flax builds one
around ``partial_eval.trace_to_jaxpr_nounits``).
"""

from __future__ import annotations

import functools
import inspect
import re
from typing import Any, Callable, NamedTuple

from minijax import core
from minijax.extend import linear_util as lu
from minijax.tree_util import (path_name, tree_flatten, tree_flatten_with_path_internal,
                               tree_unflatten)
from minijax.api import ShapeDtypeStruct
from minijax.vmapping import flatten_axes as _flatten_axes

__all__ = ["DebugInfo", "debug_info", "donation_vector", "flatten_axes", "flatten_fun",
           "flatten_fun_nokwargs", "fun_signature", "fun_sourceinfo", "rebase_donate_argnums",
           "safe_map", "shaped_abstractify"]


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


# ------------------------------------------------------------------------------------------------
# Describing and flattening traced functions.


class InitialResultPaths:
    """The result paths of a DebugInfo made before tracing (unknown until the call)."""


initial_result_paths = InitialResultPaths()

_re_func_src_info = re.compile(r"([^ ]+)( at (.+):(\d+))?$")
_re_builtin_name = re.compile(r"(?:<built-in function (\S+)>)")


class DebugInfo(NamedTuple):
    """What a traced function is, for error messages: what traced it (``"jit"``, ``"scan"``),
    ``"name at file:line"``, the paths of its flat non-static arguments (``"x"``,
    ``"y['a']"``) and of its flat results."""

    traced_for: str
    func_src_info: str
    arg_names: tuple[str, ...] | None
    result_paths: Any

    def resolve_result_paths(self) -> DebugInfo:
        if callable(self.result_paths):
            return self._replace(result_paths=tuple(self.result_paths()))
        return self

    @property
    def func_name(self) -> str:
        return self.func_src_info.split(" ")[0]

    def replace_func_name(self, name: str) -> DebugInfo:
        parts = self.func_src_info.split(" ")
        parts[0] = name
        return self._replace(func_src_info=" ".join(parts))

    @property
    def func_filename(self) -> str | None:
        m = _re_func_src_info.match(self.func_src_info)
        return m.group(3) if m else None

    @property
    def func_lineno(self) -> int | None:
        m = _re_func_src_info.match(self.func_src_info)
        return None if not m or m.group(4) is None else int(m.group(4))

    def safe_arg_names(self, expected_count: int) -> tuple[str, ...]:
        if self.arg_names is not None:
            return self.arg_names
        return ("",) * expected_count


def fun_sourceinfo(fun: Callable) -> str:
    """``"name at file:line"`` of ``fun`` (through partials and ``functools.wraps``), the
    name of a builtin, else ``"<unknown>"``."""
    while isinstance(fun, functools.partial):
        fun = fun.func
    fun = inspect.unwrap(fun)
    try:
        code = fun.__code__
        return f"{fun.__name__} at {code.co_filename}:{code.co_firstlineno}"
    except AttributeError:
        try:
            m = _re_builtin_name.match(str(fun))
        except Exception:  # an object whose str raises: nothing to name it by
            return "<unknown>"
        return m.group(1) if m else "<unknown>"


def fun_signature(fun: Callable) -> inspect.Signature | None:
    try:
        return inspect.signature(fun)
    except (ValueError, TypeError):
        return None


def _non_static_arg_names(signature, args, kwargs, static_argnums, static_argnames):
    """The paths of the leaves of the non-static arguments: positional ones first, then the
    keyword ones sorted by keyword, as jit orders them; ``args[i]`` names when ``signature``
    is unknown or does not bind."""
    static = object()
    n = len(args)
    static_argnums_ = {i % n if n else i for i in static_argnums if -n <= i < n}
    args_ = [static if i in static_argnums_ else x for i, x in enumerate(args)]
    kwargs_ = {k: static if k in static_argnames else x for k, x in kwargs.items()}
    ordered_args = None
    if signature is not None:
        try:
            bound = signature.bind(*args_, **kwargs_)
        except (ValueError, TypeError):
            pass
        else:
            kwargs_name = next((name for name, p in signature.parameters.items()
                                if p.kind == inspect.Parameter.VAR_KEYWORD), None)
            positional = [(name, x) for name, x in bound.arguments.items()
                          if name not in kwargs and name != kwargs_name]
            keyword = [(name if name in bound.arguments else f"{kwargs_name}['{name}']", x)
                       for name, x in sorted(kwargs_.items(), key=lambda kv: kv[0])]
            ordered_args = positional + keyword
    if ordered_args is None:
        keyword = sorted((f"kwargs['{name}']", x) for name, x in kwargs_.items()
                         if x is not static)
        ordered_args = [("args", args_)] + keyword
    return tuple(f"{name}{path_name(path)}"
                 for name, x in ordered_args
                 for path, leaf in tree_flatten_with_path_internal(x)[0]
                 if leaf is not static)


def debug_info(traced_for: str, fun: Callable, args, kwargs, *, static_argnums=(),
               static_argnames=(), result_paths_thunk=initial_result_paths,
               sourceinfo: str | None = None,
               signature: inspect.Signature | None = None) -> DebugInfo:
    """The DebugInfo of ``fun`` called with the example ``args``/``kwargs`` (static ones
    included and named by ``static_argnums``/``static_argnames``)."""
    res = getattr(fun, "__fun_debug_info__", None)
    if res is not None:
        return res
    if sourceinfo is None:
        sourceinfo = fun_sourceinfo(fun)
    if signature is None:
        signature = fun_signature(fun)
    arg_names = _non_static_arg_names(signature, args, kwargs, static_argnums,
                                      set(static_argnames))
    return DebugInfo(traced_for, sourceinfo, arg_names, result_paths_thunk)


def _flatten_fun(f, store, in_tree, *args_flat):
    py_args, py_kwargs = tree_unflatten(in_tree, args_flat)
    ans, out_tree = tree_flatten(f(*py_args, **py_kwargs))
    store.store(out_tree)
    return ans


def _flatten_fun_nokwargs(f, store, in_tree, *args_flat):
    ans, out_tree = tree_flatten(f(*tree_unflatten(in_tree, args_flat)))
    store.store(out_tree)
    return ans


def flatten_fun(fun: lu.WrappedFun, in_tree):
    """``(flat_fun, out_tree)``: ``flat_fun`` calls ``fun(*args, **kwargs)`` with the leaves
    of ``(args, kwargs)`` (structure ``in_tree``) and returns the leaves of the answer;
    ``out_tree()`` is the answer's treedef once it has run."""
    return lu.transformation_with_aux2(_flatten_fun, fun, in_tree)


def flatten_fun_nokwargs(fun: lu.WrappedFun, in_tree):
    """:func:`flatten_fun` for ``fun(*args)``: ``in_tree`` is the structure of ``args``."""
    return lu.transformation_with_aux2(_flatten_fun_nokwargs, fun, in_tree)
