"""``jit``: stage a function once per signature, compile it with XLA, and call it fast.

The cache key is exactly what changes the program: the pytree structure of the dynamic
arguments, each leaf's aval (shape, dtype, weak type), the static arguments' values, and the
trace-affecting config (x64). A hit costs one C++ flatten, one tuple of avals, one dict lookup
and one XLA execute with C++ result handlers.

Under another transformation (``jit`` inside ``jit``, or inside ``make_jaxpr``) a jitted
function is simply traced inline: the outer jaxpr is one program, compiled once.

Sharded programs (``in_shardings``/``out_shardings``, committed multi-device Arrays, or
``with_sharding_constraint`` inside) lower with Shardy annotations and run as one SPMD
executable over the mesh's devices (``_ShardedEntry``, bottom of this module); the cache key
then also holds the committed arguments' shardings. The unsharded path is unchanged.
"""

from __future__ import annotations

import functools
import inspect
import logging
import weakref

import numpy as np

from minijax import core
from minijax.config import config
from minijax.core import Tracer, escaped_tracer_error, get_aval
from minijax.interpreters.partial_eval import trace_to_jaxpr
from minijax.lowering import backends, stablehlo
from minijax.lowering import compile as _compile
from minijax.lowering.array import (
    Array,
    _multi_device,
    default_device,
    device_put_value,
    put_global,
    relabel,
    same_layout,
)
from minijax.source_info import user_frame
from minijax.tree_util import _registry, keystr, tree_flatten_with_path_internal

logger = logging.getLogger("minijax")
_check_numerics = False  # jax_debug_nans / jax_debug_infs (set by minijax.debug_numerics)


class _NotAnArray(Exception):
    pass


def _put_numpy(x):
    if type(x) is not np.ndarray:
        return x
    try:
        return device_put_value(x)
    except TypeError:  # a dtype minijax does not support (strings, objects)
        raise _NotAnArray from None


def _leaf_aval(x):
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


def _with_leaf_path(err, args, kwargs):
    """``err`` (an invalid argument leaf) with the pytree path of the first such leaf."""
    for path, leaf in zip(_arg_paths(args, kwargs), _registry.flatten((args, kwargs))[0]):
        if not isinstance(leaf, Tracer):
            try:
                get_aval(leaf)
            except TypeError:
                return TypeError(
                    f"Argument {path} of type {type(leaf).__name__} ({leaf!r:.60}) is not a "
                    "valid jit argument: jit arguments must be arrays, scalars, or pytrees of "
                    "them. Mark configuration values static with static_argnums= / "
                    "static_argnames=."
                )
    return err


def _check_out_leaf(x, path):
    if isinstance(x, (Tracer, Array, np.ndarray, np.generic, bool, int, float, complex)):
        return
    raise TypeError(
        f"The jitted function returned a value of type {type(x).__name__} at output{path}; "
        "outputs of a jitted function must be arrays, scalars, or pytrees of them."
    )


def _normalize_argnums(argnums, nargs_hint=None):
    if argnums is None:
        return ()
    if isinstance(argnums, int):
        argnums = (argnums,)
    return tuple(argnums)


def _normalize_argnames(names):
    if names is None:
        return ()
    if isinstance(names, str):
        return (names,)
    return tuple(names)


class _Signature:
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


class _Entry:
    """One compiled signature: the executable, hoisted constants, and the output pytree."""

    __slots__ = ("exe", "const_bufs", "out_tree", "sharding", "donated_leaves", "jaxpr")

    def __init__(self, exe, const_bufs, out_tree, donated_leaves, jaxpr):
        self.exe = exe
        self.const_bufs = const_bufs  # a list; copied per call, then the arguments appended
        self.out_tree = out_tree
        self.sharding = exe.sharding
        self.donated_leaves = donated_leaves
        self.jaxpr = jaxpr

    def __call__(self, leaves):
        sharding = self.sharding
        bufs = self.const_bufs.copy()
        for x in leaves:
            if type(x) is Array and x._sharding is sharding:
                bufs.append(x)
            else:  # numpy / Python scalar / Array on another device: the slow path
                bufs.append(self._put(x, self.exe.in_avals[len(bufs)]))
        return self.out_tree.unflatten(self.exe.execute(bufs))

    def fastpath(self, leaves):
        """The data the C++ fast path needs to run this entry without Python, or None when a
        leaf lives on another device (that signature then always takes the Python path)."""
        for x in leaves:
            if type(x) is Array and x._sharding is not self.sharding:
                return None
        n = len(self.const_bufs) + len(leaves)
        out_avals = self.exe.out_avals
        return backends.FastpathData(
            self.exe.xla,
            self.out_tree,
            [self.sharding] * n,
            [self.sharding] * len(out_avals),
            out_avals,
            [True] * len(out_avals),
            [True] * n,
            [None] * n,
            list(self.const_bufs),
        )

    def _put(self, x, aval):
        if type(x) is Array:
            if x.is_deleted():
                raise RuntimeError("an argument Array has been deleted or donated")
            x = x._value  # on another device: go through the host
        return device_put_value(x, self.exe.device, weak_type=aval.weak_type)


class JitFunction:
    """The callable ``jit(f)`` returns. ``lower`` / ``trace`` expose the stages."""

    def __init__(
        self,
        fun,
        static_argnums=None,
        static_argnames=None,
        donate_argnums=None,
        donate_argnames=None,
        keep_unused=False,
        device=None,
        backend=None,
        inline=False,
        in_shardings=None,
        out_shardings=None,
        **unsupported,
    ):
        if unsupported:
            raise TypeError(f"jit got unexpected keyword arguments: {sorted(unsupported)}")
        if not callable(fun):
            raise TypeError(f"jit expects a callable, got {fun!r}")
        functools.update_wrapper(self, fun)
        self._fun = fun
        sig = _Signature(fun)
        nums = _normalize_argnums(static_argnums)
        names = _normalize_argnames(static_argnames)
        self._static_argnums = frozenset(nums + sig.names_to_nums(names))
        self._static_argnames = frozenset(names + sig.nums_to_names(nums))
        dnums = _normalize_argnums(donate_argnums)
        dnames = _normalize_argnames(donate_argnames)
        self._donate_argnums = frozenset(dnums + sig.names_to_nums(dnames))
        if backend is not None and device is None:  # JAX's (deprecated) platform choice
            device = backends.get_backend(backend).local_devices()[0]
        self._device = device
        self._in_shardings = in_shardings
        self._out_shardings = out_shardings
        self._sharded = in_shardings is not None or out_shardings is not None
        # With every argument's sharding given, committed layouts do not change the program
        # (other layouts are resharded at the call), so they stay out of the cache key.
        self._committed_in_key = in_shardings is None or any(
            s is None for s in _registry.flatten(in_shardings, leaf_predicate=_is_spec_leaf)[0]
        )
        self._cache = {}
        self._trace_count = 0
        self._name = getattr(fun, "__name__", "fun")
        self.cpp = self._make_cpp(sig)
        _all_jit_functions.add(self)

    def _make_cpp(self, sig):
        """The C++ PjitFunction users get back from ``jit``, or None to stay in Python."""
        if not backends.HAS_CPP_JIT or self._device is not None:
            return None
        nums = set(self._static_argnums)
        if any(i < 0 for i in nums):
            if sig.params is None or any(p.kind == p.VAR_POSITIONAL for p in sig.params):
                return None  # negative static_argnums need the call's length: Python resolves them
            nums = {i % len(sig.params) if i < 0 else i for i in nums}
        cpp = backends.make_cpp_jit(
            self._name,
            self._fun,
            self._cpp_cache_miss,
            sorted(nums),
            sorted(self._static_argnames),
            _registry,
            _shard_arg,
        )
        functools.update_wrapper(cpp, self._fun)
        cpp._jit = self
        cpp._fun = self._fun
        cpp._trace_count = 0
        cpp.lower = self.lower
        cpp.trace = self.trace
        cpp.eval_shape = self.eval_shape
        cpp._cache_size = self._cache_size
        cpp._clear_cache = self._clear_cache
        return cpp

    def public(self):
        return self if self.cpp is None else self.cpp

    # --- calling ------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        return self._call(args, kwargs)[0]

    def _call(self, args, kwargs, flat=None):
        """The Python dispatch path: returns (outputs, entry or None, flat argument leaves).
        ``flat``: ``(leaves, treedef)`` of ``(args, kwargs)`` when the caller has them (only
        without static arguments, which are not leaves)."""
        if config.jax_disable_jit or core._ctx.trace is not core.eval_trace:
            return self._fun(*args, **kwargs), None, None  # inside a trace: inline
        if self._static_argnums or self._static_argnames:
            args, kwargs, static_key = self._split_static(args, kwargs)
            flat = None
        else:
            static_key = ()
        leaves, in_tree = _registry.flatten((args, kwargs)) if flat is None else flat
        try:
            avals = tuple([x.aval if type(x) is Array else _leaf_aval(x) for x in leaves])
        except TypeError as e:
            raise _with_leaf_path(e, args, kwargs) from None
        key = (in_tree, static_key, avals, config.trace_state)
        if self._committed_in_key and (self._sharded or _any_multi_device(leaves)):
            key += (_committed_key(leaves),)  # committed shardings shape the program
        entry = self._cache.get(key)
        if entry is None:
            entry = self._cache_miss(key, args, kwargs, static_key)
        outs = entry(leaves)
        if _check_numerics:
            from minijax.debug_numerics import check_jit

            check_jit(self._name, entry, leaves, outs)
        return outs, entry, leaves

    def _cpp_cache_miss(self, *args, **kwargs):
        # jaxlib's C++ path copies a NumPy argument's raw bytes with a signature that ignores
        # byte order: once cached, a big-endian array of the same shape and dtype would be read
        # as little-endian garbage (JAX 0.10 has this bug). So no fast-path entry ever has a
        # NumPy leaf: a call with one lands here every time, its NumPy leaves are put on the
        # default device here (converted), and the call goes back to the C++ path with device
        # Arrays only (which falls back to Python where the placement does not fit).
        flat = None
        if (not _check_numerics and not config.jax_disable_jit
                and core._ctx.trace is core.eval_trace):
            try:
                if any(type(x) is np.ndarray for x in args) or any(
                        type(x) is np.ndarray for x in kwargs.values()):
                    # the common case, a batch passed as a top-level argument: no flattening
                    # (a NumPy array nested deeper comes back here, to the branch below)
                    put_args = [_put_numpy(x) for x in args]
                    put_kwargs = {k: _put_numpy(x) for k, x in kwargs.items()}
                    return self.cpp(*put_args, **put_kwargs), None, False
                flat = _registry.flatten((args, kwargs))
                if any(type(x) is np.ndarray for x in flat[0]):
                    put_args, put_kwargs = flat[1].unflatten([_put_numpy(x) for x in flat[0]])
                    return self.cpp(*put_args, **put_kwargs), None, False
            except _NotAnArray:
                pass  # a NumPy array minijax has no dtype for: _call names its argument path
        outs, entry, leaves = self._call(args, kwargs, flat)  # flattened once
        if entry is None or _check_numerics:  # checked calls never take the C++ fast path
            return outs, None, False
        return outs, entry.fastpath(leaves), False

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self, obj)

    def _split_static(self, args, kwargs):
        nums = self._static_argnums
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
            if k in self._static_argnames:
                static.append((k, v))
            else:
                dyn_kwargs[k] = v
        static_key = tuple(static)
        try:
            hash(static_key)
        except TypeError:
            bad = [f"{k}={v!r}" for k, v in static if not _hashable(v)]
            raise ValueError(
                "Non-hashable static arguments are not supported; static arguments must be "
                f"hashable (they are part of the cache key). Got: {', '.join(bad)}. Use a tuple "
                "instead of a list, or pass arrays as dynamic arguments."
            ) from None
        return tuple(dyn_args), dyn_kwargs, static_key

    def _merge_static(self, dyn_args, dyn_kwargs, static_key):
        args = list(dyn_args)
        kwargs = dict(dyn_kwargs)
        for k, v in static_key:
            if isinstance(k, int):
                args.insert(k, v)
            else:
                kwargs[k] = v
        return args, kwargs

    # --- staging ------------------------------------------------------------------------------
    def _trace(self, args, kwargs, static_key):
        leaves, in_tree = _registry.flatten((args, kwargs))
        in_avals = [_leaf_aval(x) for x in leaves]
        out_tree_box = []

        def flat_fun(*tracers):
            dyn_args, dyn_kwargs = in_tree.unflatten(tracers)
            full_args, full_kwargs = self._merge_static(dyn_args, dyn_kwargs, static_key)
            out = self._fun(*full_args, **full_kwargs)
            out_leaves, out_tree = _registry.flatten(out)
            for path, leaf in tree_flatten_with_path_internal(out)[0]:
                _check_out_leaf(leaf, keystr(path))
            out_tree_box.append(out_tree)
            return out_leaves

        self._trace_count += 1
        if self.cpp is not None:
            self.cpp._trace_count = self._trace_count
        closed = trace_to_jaxpr(flat_fun, in_avals, self._arg_names(args, kwargs))
        return closed, out_tree_box[0], in_avals

    def _arg_names(self, args, kwargs):
        """Readable names of the dynamic argument leaves (``x``, ``params['w']``) for errors."""
        paths = _arg_paths(args, kwargs)
        params = _Signature(self._fun).params
        if not params or self._static_argnums:
            return paths
        names = [p.name for p in params]
        out = []
        for p in paths:
            if p.startswith("args["):
                i = int(p[5:p.index("]")])
                if i < len(names):
                    p = names[i] + p[p.index("]") + 1:]
            elif p.startswith("kwargs['"):
                p = p[8:p.index("']")] + p[p.index("']") + 2:]
            out.append(p)
        return out

    def _donated_leaf_indices(self, args):
        if not self._donate_argnums:
            return ()
        indices, start = [], 0
        for i, a in enumerate(args):
            n = len(_registry.flatten(a)[0])
            if i in self._donate_argnums:
                indices.extend(range(start, start + n))
            start += n
        return tuple(indices)

    def _lower(self, args, kwargs, static_key, timer):
        closed, out_tree, in_avals = self._trace(args, kwargs, static_key)
        timer.mark("trace")
        donated = self._donated_leaf_indices(args)
        plan = _sharding_plan(self, closed, out_tree, in_avals, args, kwargs)
        if plan is not None:
            mesh, in_sh, out_sh = plan
            replicated = _replicated(mesh)
            const_sh = [replicated] * len(closed.jaxpr.constvars)
            module = stablehlo.lower_jaxpr(
                closed, name=f"jit_{self._name}", platform=mesh._flat[0].platform,
                donated=set(donated), arg_shardings=const_sh + [s or replicated for s in in_sh],
                result_shardings=out_sh,
            )
            timer.mark("lower")
            return closed, out_tree, in_avals, donated, mesh, module
        device = self._device or default_device()
        module = stablehlo.lower_jaxpr(
            closed, name=f"jit_{self._name}", platform=device.platform, donated=set(donated)
        )
        timer.mark("lower")
        return closed, out_tree, in_avals, donated, device, module

    def _compile(self, closed, out_tree, in_avals, donated, device, module, timer):
        if not hasattr(device, "platform"):  # a Mesh: the SPMD program
            return _compile_sharded_entry(
                f"jit_{self._name}", closed, out_tree, in_avals, donated, device, module, timer
            )
        const_avals = [v.aval for v in closed.jaxpr.constvars]
        exe = _compile.compile_module(
            module,
            f"jit_{self._name}",
            device,
            const_avals + list(in_avals),
            closed.jaxpr.out_avals,
            donated,
            jaxpr=closed,
        )
        timer.mark("compile")
        const_bufs = []
        for c in closed.consts:
            if type(c) is Array and c._sharding is exe.sharding:
                const_bufs.append(c)
            else:
                value = c._value if type(c) is Array else c
                const_bufs.append(device_put_value(value, device, weak_type=get_aval(c).weak_type))
        return _Entry(exe, const_bufs, out_tree, donated, closed)

    def _cache_miss(self, key, args, kwargs, static_key):
        if config.jax_explain_cache_misses:
            self._explain_miss(key, args, kwargs)
        timer = _compile.PhaseTimer()
        lowered = self._lower(args, kwargs, static_key, timer)
        entry = self._compile(*lowered, timer)
        if config.jax_log_compiles:  # JAX's three lines (tools and tests match on them)
            t = timer.times
            logger.warning("Finished tracing %s for jit in %.6f sec", self._name, t["trace"])
            logger.warning("Finished jaxpr to MLIR module conversion jit(%s) in %.6f sec",
                           self._name, t["lower"])
            logger.warning("Finished XLA compilation of jit(%s) for %s in %.6f sec", self._name,
                           ", ".join(a.str_short() for a in key[2]), t["compile"])
        self._cache[key] = entry
        if config.jax_explain_cache_misses:
            self._last_args_paths = (key, _arg_paths(args, kwargs))
        return entry

    def _explain_miss(self, key, args, kwargs):
        where = user_frame()
        if not self._cache or not hasattr(self, "_last_args_paths"):
            logger.warning(
                "TRACING CACHE MISS at %s: jit(%s) is called for the first time.", where, self._name
            )
            return
        old_key, old_paths = self._last_args_paths
        reasons = _explain_difference(old_key, old_paths, key, _arg_paths(args, kwargs))
        logger.warning(
            "TRACING CACHE MISS at %s: jit(%s) retraces because:\n  %s",
            where,
            self._name,
            "\n  ".join(reasons),
        )

    # --- stages ---------------------------------------------------------------------------------
    def lower(self, *args, **kwargs):
        if self._static_argnums or self._static_argnames:
            args, kwargs, static_key = self._split_static(args, kwargs)
        else:
            static_key = ()
        timer = _compile.PhaseTimer()
        lowered = self._lower(args, kwargs, static_key, timer)
        closed, module = lowered[0], lowered[-1]
        _, in_tree = _registry.flatten((args, kwargs))
        in_avals = lowered[2]

        def compile_():
            entry = self._compile(*lowered, _compile.PhaseTimer())

            def call(*cargs, **ckwargs):
                if self._static_argnums or self._static_argnames:
                    cargs, ckwargs, _ = self._split_static(cargs, ckwargs)
                leaves, tree = _registry.flatten((cargs, ckwargs))
                got = [_leaf_aval(x) for x in leaves]
                if tree != in_tree or [a.strip_weak_type() for a in got] != [
                    a.strip_weak_type() for a in in_avals
                ]:
                    raise TypeError(
                        f"Compiled jit({self._name}) was compiled for arguments "
                        f"{[a.str_short() for a in in_avals]} with structure {in_tree}, but was "
                        f"called with {[a.str_short() for a in got]} and structure {tree}."
                    )
                return entry(leaves)

            return _compile.Compiled(entry.exe, call, lowered_stage)

        args_info, out_info = _stage_info(in_tree, in_avals, lowered[3], lowered[1],
                                          closed.out_avals)
        lowered_stage = _compile.Lowered(module, closed, f"jit_{self._name}", compile_,
                                         args_info=args_info, out_info=out_info)
        return lowered_stage

    def trace(self, *args, **kwargs):
        full_args, full_kwargs = args, kwargs
        if self._static_argnums or self._static_argnames:
            args, kwargs, static_key = self._split_static(args, kwargs)
        else:
            static_key = ()
        closed, out_tree, in_avals = self._trace(args, kwargs, static_key)
        in_tree = _registry.flatten((args, kwargs))[1]
        args_info, out_info = _stage_info(in_tree, in_avals, self._donated_leaf_indices(args),
                                          out_tree, closed.out_avals)
        return Traced(closed, self._name, args_info, out_info,
                      lambda: self.lower(*full_args, **full_kwargs))

    def eval_shape(self, *args, **kwargs):
        from minijax.api import eval_shape

        return eval_shape(self, *args, **kwargs)

    def _cache_size(self):
        return len(self._cache)

    def _clear_cache(self):
        self._cache.clear()
        if self.cpp is not None:
            type(self.cpp)._clear_cache(self.cpp)

    def __repr__(self):
        return f"<minijax.jit of {self._fun!r}>"


class Traced(_compile.Stage):
    """``jit(f).trace(*args)``: the traced function's ClosedJaxpr, ready to lower."""

    def __init__(self, jaxpr, fun_name, args_info, out_info, lower):
        self.jaxpr = jaxpr
        self.fun_name = fun_name
        self.args_info, self.out_info = args_info, out_info
        self._lower = lower

    @property
    def out_avals(self):
        return self.out_tree.unflatten(self.jaxpr.out_avals)

    def lower(self):
        return self._lower()


def _stage_info(in_tree, in_avals, donated, out_tree, out_avals):
    """``args_info`` (ArgInfo leaves) and ``out_info`` (ShapeDtypeStruct leaves) of a stage."""
    from minijax.api import ShapeDtypeStruct  # the public struct lives in the API layer

    donated = set(donated)
    args_info = in_tree.unflatten(
        [_compile.ArgInfo(a, i in donated) for i, a in enumerate(in_avals)])
    out_info = out_tree.unflatten(
        [ShapeDtypeStruct(a.shape, a.dtype, a.weak_type) for a in out_avals])
    return args_info, out_info


def _hashable(v):
    try:
        hash(v)
        return True
    except TypeError:
        return False


def _arg_paths(args, kwargs):
    """Readable paths of the argument leaves: ``args[0]['w']``, ``kwargs['lr']``."""
    paths = []
    for path, _ in tree_flatten_with_path_internal((args, kwargs))[0]:
        head = "args" if path[0].idx == 0 else "kwargs"
        paths.append(head + keystr(path[1:]))
    return paths


def _explain_difference(old_key, old_paths, new_key, new_paths):
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
            if a.shape != b.shape:
                what = f"shape changed from {a.str_short()} to {b.str_short()}"
            elif a.dtype != b.dtype:
                what = f"dtype changed from {a.dtype.name} to {b.dtype.name}"
            else:
                what = f"weak_type changed from {a.weak_type} to {b.weak_type}"
            reasons.append(f"{path}: {what}")
    return reasons or ["an argument's signature differs from every cached one"]


_all_jit_functions = weakref.WeakSet()


def _clear_all():
    for f in list(_all_jit_functions):
        f._clear_cache()


_compile.register_cache(type("_JitCaches", (), {"clear": staticmethod(_clear_all)})())


def jit(fun=None, **kwargs):
    """``jit(f, static_argnums=..., static_argnames=..., donate_argnums=...)``; also a decorator
    factory when called without ``fun`` (``@jit(static_argnums=0)``)."""
    if fun is None:
        return lambda f: JitFunction(f, **kwargs).public()
    return JitFunction(fun, **kwargs).public()


def _shard_arg(x, sharding, layout):
    """Called by the C++ fast path for an argument that is not already on the right device."""
    if sharding in _multi_device:
        aval = get_aval(x)
        value = x._value if type(x) is Array else np.asarray(x, dtype=aval.dtype)
        return put_global(value, aval, sharding)
    device = backends.sharding_devices(sharding)[0]
    if type(x) is Array:
        return device_put_value(x._value, device, weak_type=x.weak_type)
    return device_put_value(x, device)


# ------------------------------------------------------------------------------------------------
# SPMD programs: shardings become Shardy annotations and XLA partitions the program.


def _any_multi_device(leaves):
    for x in leaves:
        if type(x) is Array and (
            x._sharding in _multi_device or len(x._sharding._internal_device_list) > 1
        ):
            return True
    return False


def _is_spec_leaf(x):
    from minijax.sharding import _is_sharding_leaf

    return _is_sharding_leaf(x)


def _committed_key(leaves):
    return tuple([
        x._sharding if type(x) is Array and len(x._sharding._internal_device_list) > 1 else None
        for x in leaves
    ])


def _replicated(mesh):
    from minijax.sharding import NamedSharding, PartitionSpec

    return NamedSharding(mesh, PartitionSpec())


def _constraint_meshes(jaxpr, out):
    from minijax.sharding import with_sharding_constraint_p

    for eqn in jaxpr.eqns:
        if eqn.primitive is with_sharding_constraint_p:
            out.append(eqn.params["sharding"].mesh)
        elif eqn.primitive.name == "shard_map":  # its program runs on the mesh's devices
            out.append(eqn.params["mesh"])
        for v in eqn.params.values():
            for sub in v if isinstance(v, (list, tuple)) else (v,):
                if isinstance(sub, core.ClosedJaxpr):
                    _constraint_meshes(sub.jaxpr, out)
                elif isinstance(sub, core.Jaxpr):
                    _constraint_meshes(sub, out)
    return out


def _sharding_plan(jit_fn, closed, out_tree, in_avals, args, kwargs):
    """``(mesh, in shardings per argument leaf, out shardings per output leaf)`` with None for
    unspecified, or None when nothing is sharded (the single-device program).

    An argument's sharding comes from ``in_shardings``, else from the committed multi-device
    Array passed (if a NamedSharding), else it is replicated. Outputs without ``out_shardings``
    are left to Shardy's propagation; the executable says what it chose.
    """
    from minijax import sharding as shd

    leaves = _registry.flatten((args, kwargs))[0]
    paths = _arg_paths(args, kwargs)
    n_kw = len(leaves) - len(_registry.flatten(tuple(args))[0])
    if jit_fn._in_shardings is not None:
        given = shd.broadcast_prefix(jit_fn._in_shardings, tuple(args), "jit in_shardings")
        given += [None] * n_kw
    else:
        given = [None] * len(leaves)
    in_sh = []
    for x, g, path, aval in zip(leaves, given, paths, in_avals):
        if g is not None:
            g = shd.resolve(g, f"jit in_shardings for {path}")
        elif type(x) is Array and len(x._sharding._internal_device_list) > 1:
            g = shd.from_jaxlib(x._sharding, len(aval.shape))
        elif type(x) is not Array and isinstance(getattr(x, "sharding", None), shd.Sharding):
            g = x.sharding  # a ShapeDtypeStruct(..., sharding=...) given to lower()
        if not isinstance(g, shd.NamedSharding):
            g = None  # SingleDeviceSharding or an opaque layout: replicated, resharded at call
        else:
            shd.check_divisible(g, aval.shape, f"jit in_shardings for {path} of {aval.str_short()}")
        in_sh.append(g)
    out_avals = closed.jaxpr.out_avals
    if jit_fn._out_shardings is not None:
        out_struct = out_tree.unflatten([0] * len(out_avals))
        out_given = shd.broadcast_prefix(jit_fn._out_shardings, out_struct, "jit out_shardings")
    else:
        out_given = [None] * len(out_avals)
    out_paths = [
        "output" + keystr(p) for p, _ in tree_flatten_with_path_internal(out_tree.unflatten(out_avals))[0]
    ]
    out_sh = []
    for g, path, aval in zip(out_given, out_paths, out_avals):
        if g is not None:
            g = shd.resolve(g, f"jit out_shardings for {path}")
            if isinstance(g, shd.NamedSharding):
                shd.check_divisible(
                    g, aval.shape, f"jit out_shardings for {path} of {aval.str_short()}"
                )
            else:
                g = None
        out_sh.append(g)
    meshes = [s.mesh for s in in_sh + out_sh if s is not None]
    meshes += _constraint_meshes(closed.jaxpr, [])
    if not meshes:
        return None
    mesh = meshes[0]
    for m in meshes[1:]:
        if m._flat != mesh._flat:
            raise ValueError(
                f"jit({jit_fn._name}): all shardings must use the same devices in the same "
                f"order; got {mesh!r} (device ids {[d.id for d in mesh._flat]}) and {m!r} "
                f"(device ids {[d.id for d in m._flat]})"
            )
    return mesh, in_sh, out_sh


def _compile_sharded_entry(name, closed, out_tree, in_avals, donated, mesh, module, timer):
    from minijax.sharding import from_jaxlib

    const_avals = [v.aval for v in closed.jaxpr.constvars]
    all_in = const_avals + list(in_avals)
    exe = _compile.compile_sharded(
        module, name, mesh, all_in, closed.jaxpr.out_avals, donated, jaxpr=closed
    )
    timer.mark("compile")
    for s, a in zip(exe.in_shardings, all_in):  # Array.sharding names them on this mesh
        from_jaxlib(s, len(a.shape), mesh)
    for s, a in zip(exe.out_shardings, exe.out_avals):
        from_jaxlib(s, len(a.shape), mesh)
    const_bufs = [
        _put_sharded_arg(c, exe.in_shardings[i], const_avals[i])
        for i, c in enumerate(closed.consts)
    ]
    return _ShardedEntry(exe, const_bufs, out_tree, donated, closed)


def _put_sharded_arg(x, target, aval):
    if type(x) is Array:
        if x._sharding is target:
            return x
        if x.is_deleted():
            raise RuntimeError("an argument Array has been deleted or donated")
        if same_layout(x._sharding, target):  # the same layout named on another mesh
            return relabel(x, target)
        value = x._value  # another layout: reshard through the host
    else:
        value = np.asarray(x, dtype=aval.dtype)
    return put_global(value, aval.update(weak_type=get_aval(x).weak_type), target)


class _ShardedEntry:
    """One compiled SPMD signature. Every argument must carry exactly the sharding the program
    was compiled for (``execute_sharded`` does not check: a different tile order would give
    wrong numbers silently), so any other layout is resharded before the call."""

    __slots__ = ("exe", "const_bufs", "out_tree", "in_shardings", "donated_leaves", "jaxpr")

    def __init__(self, exe, const_bufs, out_tree, donated_leaves, jaxpr):
        self.exe = exe
        self.const_bufs = const_bufs
        self.out_tree = out_tree
        self.in_shardings = exe.in_shardings
        self.donated_leaves = donated_leaves
        self.jaxpr = jaxpr

    def __call__(self, leaves):
        targets = self.in_shardings
        avals = self.exe.in_avals
        bufs = self.const_bufs.copy()
        for x in leaves:
            i = len(bufs)
            if type(x) is Array and x._sharding is targets[i]:
                bufs.append(x)
            else:
                bufs.append(_put_sharded_arg(x, targets[i], avals[i]))
        return self.out_tree.unflatten(self.exe.execute(bufs))

    def fastpath(self, leaves):
        if self.exe.synchronous:
            return None  # waits for its results each call (see ShardedExecutable)
        n0 = len(self.const_bufs)
        for i, x in enumerate(leaves):
            if type(x) is Array and x._sharding is not self.in_shardings[n0 + i]:
                return None
        n = n0 + len(leaves)
        out_avals = self.exe.out_avals
        return backends.FastpathData(
            self.exe.xla,
            self.out_tree,
            list(self.in_shardings),
            list(self.exe.out_shardings),
            out_avals,
            [True] * len(out_avals),
            [True] * n,
            [None] * n,
            list(self.const_bufs),
        )


_eager_sharded = {}


def apply_sharded(prim, args, params):
    """An eager primitive on sharded Arrays: the jit of the op, with the inputs' shardings
    (the output shardings are XLA's choice), as in JAX."""
    try:
        key = (prim, tuple(sorted(params.items())))
        fn = _eager_sharded.get(key)
    except TypeError:
        key, fn = None, None
    if fn is None:
        def op(*xs):
            return prim.bind(*xs, **params)

        op.__name__ = prim.name
        fn = jit(op)
        if key is not None:
            _eager_sharded[key] = fn
    out = fn(*args)
    return out
