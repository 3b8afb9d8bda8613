"""Compiling StableHLO with PJRT, running executables, and the Lowered/Compiled stage objects.

``Executable`` (one class for a program on one device or over many) is the hot path of every
call: it takes device buffers, runs the XLA program and wraps the outputs through jaxlib's C++
result handlers (a few µs), never by splitting results into per-device arrays in Python.
"""

from __future__ import annotations

import logging
import os
import time

import numpy as np

from minijax import core, monitoring
from minijax.config import config
from minijax.errors import XlaRuntimeError
from minijax.lowering import array, backends, dumps, jaxlib_ext, persistent_cache, stablehlo
from minijax.lowering.array import deleted_error, interned_sharding, put_global
from minijax.tree_util import _registry, tree_map_internal, tree_structure

logger = logging.getLogger("minijax")


def _typed_as_laid_out(aval, jaxlib_sharding, mesh):
    if type(aval) is not core.ShapedArray:
        return aval
    sharding = array.user_sharding_of(jaxlib_sharding, aval.ndim, mesh)
    return aval.update(explicit=core.explicit_of(sharding, aval.shape))


class Executable:
    """A loaded XLA program over ``devices`` (partition i on ``devices[i]``; one device is a
    one-partition program), with the avals of its arguments and results.

    ``in_shardings`` are the jaxlib shardings the program expects (arguments must carry exactly
    these: ``execute_sharded`` does not check, and a different tile order would silently give
    wrong numbers); ``out_shardings`` are the ones XLA chose, read back from the executable.
    """

    __slots__ = (
        "xla", "name", "devices", "in_shardings", "out_shardings", "in_avals", "out_avals",
        "handlers", "loose_handlers", "synchronous", "n_tokens", "token_bufs",
    )

    def __init__(self, xla, name, devices, in_avals, out_avals, mesh=None, in_memory=None,
                 n_tokens=0, named_results=None):
        self.xla = xla
        self.name = name
        self.devices = tuple(devices)
        self.in_avals = in_avals
        self.out_avals = out_avals
        if len(self.devices) == 1:
            whole = backends.single_device_sharding(self.devices[0])
            self.in_shardings = [whole] * len(in_avals)
            self.out_shardings = [whole] * len(out_avals)
        else:
            self.in_shardings = self._shardings(xla.get_parameter_shardings(), in_avals, mesh)
            self.out_shardings = self._shardings(xla.get_output_shardings(), out_avals, mesh)
            if mesh is not None and any(t.name == "Explicit" for t in mesh.axis_types):
                # on Explicit axes a result's type is its layout's, as in JAX: a result the
                # program leaves to XLA is typed with the split XLA chose
                self.out_avals = out_avals = [
                    _typed_as_laid_out(a, s, mesh) for a, s in zip(out_avals, self.out_shardings)]
        if named_results is not None:  # jit's out_shardings: its results report them
            self.out_avals = out_avals = [array.named_result(a, s)
                                          for a, s in zip(out_avals, named_results)]
        # A program with ordered effects (one device) takes and returns a token per effect
        # before its arguments and outputs (stablehlo.lower_jaxpr): ``execute`` passes an
        # empty buffer for each, as JAX, and drops the tokens it gets back. ``in_avals`` and
        # the rest describe the other values only.
        self.n_tokens = n_tokens
        if in_memory is not None:  # a program with values in host memory
            self._place_in_memories(in_memory, mesh)
        whole = backends.single_device_sharding(self.devices[0])
        self.token_bufs = [put_global(np.zeros((0,), np.bool_), core.token_buffer_aval, whole)
                           for _ in range(n_tokens)]
        tokens = [backends.result_handler(core.abstract_token, whole)] * n_tokens
        self.handlers = tokens + [
            backends.result_handler(a, s) for a, s in zip(out_avals, self.out_shardings)
        ]
        self.loose_handlers = tokens + [  # for outputs JAX leaves uncommitted
            backends.result_handler(a, s, False) for a, s in zip(out_avals, self.out_shardings)
        ]
        # XLA:CPU runs the collectives of a multi-device program as in-process rendezvous on
        # a shared thread pool; with hundreds of such executions queued asynchronously the
        # participants of one collective can starve and the process aborts after 40 s
        # ("Termination timeout ... only 7 of them arrived"; JAX 0.10 does the same, e.g. 300
        # steps of a 64-layer data-parallel MLP on 8 virtual devices, 2 cores). So on the CPU
        # such a program runs synchronously: each call waits for its results (and takes jit's
        # Python path). GPUs (NCCL) keep asynchronous dispatch.
        self.synchronous = (self.devices[0].platform == "cpu" and len(self.devices) > 1
                            and _has_collectives(xla))

    def _shardings(self, protos, avals, mesh):
        """The interned sharding of each value from XLA's HloSharding protos. A program over
        several devices may come back without any (the CUDA client does this; the CPU one
        does not): each value is then whole on every device."""
        hlo = backends.xc.HloSharding
        if protos is None:
            return [interned_sharding(self.devices, hlo.replicate(), mesh) for _ in avals]
        return [interned_sharding(self.devices, hlo.from_proto(p), mesh) for p in protos]

    def _place_in_memories(self, in_memory, mesh):
        """The shardings in the memories of the program's values: the arguments' are
        ``in_memory`` (per argument, None for the default memory), the results' the
        executable's (as JAX reads them)."""
        default = self.devices[0].default_memory().kind
        out_memory = [None if k == default else k
                      for k in self.xla.get_output_memory_kinds()[0][self.n_tokens:]]
        self.in_shardings, self.out_shardings = (
            [s if k is None else self._in_memory(s, k, mesh) for s, k in zip(shardings, kinds)]
            for shardings, kinds in ((self.in_shardings, in_memory),
                                     (self.out_shardings, out_memory)))

    def _in_memory(self, sharding, kind, mesh):
        return interned_sharding(self.devices, sharding._hlo_sharding, mesh, kind)

    def execute(self, bufs, committed=True):
        """Runs on Arrays; the C++ result handlers build the output Arrays (avals attached),
        committed to their devices or not."""
        handlers = self.handlers if committed else self.loose_handlers
        if self.n_tokens:
            bufs = self.token_bufs + list(bufs)
        try:
            outs = self.xla.execute_sharded(bufs).consume_with_handlers(handlers)
        except (backends.JaxRuntimeError, ValueError) as e:
            for b in bufs:  # JAX's error for a deleted (or donated) operand, not jaxlib's
                if b.is_deleted():
                    raise deleted_error(b) from None
            raise XlaRuntimeError(f"XLA failed while running '{self.name}': {e}") from None
        if self.synchronous:
            for out in outs:
                out.block_until_ready()
        return outs[self.n_tokens:] if self.n_tokens else outs

    def as_text(self):
        return self.xla.hlo_modules()[0].to_string()


_COLLECTIVES = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all",
                "collective-permute", "collective-broadcast")


def _has_collectives(xla):
    text = xla.hlo_modules()[0].to_string()
    return any(f" {name}(" in text or f" {name}-start(" in text for name in _COLLECTIVES)


def compile_module(lowered, name, devices, in_avals, out_avals, *, mesh=None, jaxpr=None,
                   kind="jit", in_memory=None, named_results=None):
    """Compiles (or loads from the persistent cache) ``lowered`` (a LoweredModule) for
    ``devices``, partition i on ``devices[i]``.

    ``mesh``: the module carries Shardy annotations over this mesh, so XLA's SPMD partitioner
    runs (even for one device), and the executable's shardings are named on it. ``jaxpr`` (what
    was lowered) and ``kind`` ("jit" or "eager") only feed the dumps. ``in_memory``: for a
    program with values in host memory, each argument's memory kind (None: the default).
    ``named_results``: per result the user-facing sharding its Arrays report (jit's
    out_shardings, as given) or None.
    Never on a dispatch hot
    path: jit and eager dispatch keep their own in-memory caches of the result.
    """
    devices = list(devices)
    start = time.perf_counter()
    xla, loaded, key = _compile_or_load(lowered, name, devices, mesh)
    seconds = time.perf_counter() - start
    exe = Executable(xla, name, devices, in_avals, out_avals, mesh, in_memory,
                     lowered.n_tokens, named_results)
    dump_dir = config.minijax_dump_dir
    if dump_dir and (kind != "eager" or config.minijax_dump_eager):
        dumps.dump_compilation(dump_dir, name, lowered.module, jaxpr, xla, in_avals, out_avals,
                               seconds, kind, loaded, key)
    return exe


_counts = {"xla_compiles": 0}


def _compile_or_load(lowered, name, devices, mesh=None):
    _mappings.before_compile()
    options = backends.compile_options(devices)
    if mesh is not None:  # Shardy annotations need the SPMD partitioner even on one device
        build = options.executable_build_options
        build.use_spmd_partitioning = True
        build.use_shardy_partitioner = True
    if config.minijax_dump_xla and config.minijax_dump_dir:
        jaxlib_ext.set_xla_dump_to(options, os.path.join(config.minijax_dump_dir, "xla"))

    module, host_callbacks = lowered.module, lowered.host_callbacks
    for hook in lowered.compile_hooks:
        hook(devices, mesh)

    def compile_():
        _counts["xla_compiles"] += 1
        try:
            return backends.compile_module(module, devices, options, host_callbacks)
        except backends.JaxRuntimeError as e:
            raise XlaRuntimeError(f"XLA failed to compile '{name}': {e}") from None

    # Executables with host callbacks are never cached: their Python functions cannot be saved.
    # Nor are those with compile hooks, whose callbacks run during compilation, as in JAX.
    if persistent_cache.cache_dir() is None or host_callbacks or lowered.compile_hooks:
        return compile_(), False, None
    return persistent_cache.compile_or_load(module, devices, options, name, compile_)


def cache_stats():
    """Compilation counters: ``xla_compiles`` (real XLA compiles in this process) and the
    persistent cache's ``persistent_hits`` (executables loaded from disk), ``persistent_misses``,
    ``persistent_writes``, ``persistent_skipped``, ``persistent_corrupt``, ``persistent_stale``,
    ``persistent_errors``."""
    out = dict(_counts)
    out.update({f"persistent_{k}": v for k, v in persistent_cache.stats().items()})
    return out


def reset_cache_stats():
    _counts["xla_compiles"] = 0
    persistent_cache.reset_stats()


class ArgInfo:
    """One argument leaf of a staged function: its abstract value and whether it is donated."""

    __slots__ = ("_aval", "donated")

    def __init__(self, aval, donated):
        self._aval = aval
        self.donated = donated

    shape = property(lambda self: self._aval.shape)
    dtype = property(lambda self: self._aval.dtype)

    def __repr__(self):
        return f"ArgInfo(_aval={self._aval!r}, donated={self.donated})"

    def __eq__(self, other):
        return (type(other) is ArgInfo and self._aval == other._aval
                and self.donated == other.donated)

    def __hash__(self):
        return hash((self._aval, self.donated))


class Stage:
    """What the stages of ``jit(f)`` share: ``args_info``, a pytree of :class:`ArgInfo` shaped
    as ``(args, kwargs)`` of the dynamic (non-static) arguments, and ``out_info``, the outputs as
    a pytree of ShapeDtypeStructs. Either is None where the stage was built without them."""

    args_info = None
    out_info = None

    @property
    def in_tree(self):
        """The pytree structure of ``(args, kwargs)``."""
        return tree_structure(self.args_info)

    @property
    def in_avals(self):
        return tree_map_internal(lambda info: info._aval, self.args_info)

    @property
    def out_tree(self):
        return tree_structure(self.out_info)

    @property
    def donate_argnums(self):
        """Positions of positional arguments that have a donated leaf."""
        args = self.args_info[0] if self.args_info is not None else ()
        return tuple(i for i, a in enumerate(args)
                     if any(x.donated for x in _registry.flatten(a)[0]))


class Compiled(Stage):
    """``jit(f).lower(*args).compile()``: a compiled program callable with the same arguments."""

    def __init__(self, executable, call, lowered):
        self._executable = executable
        self._call = call
        self._lowered = lowered
        if lowered is not None:
            self.args_info, self.out_info = lowered.args_info, lowered.out_info

    def __call__(self, *args, **kwargs):
        return self._call(*args, **kwargs)

    call = __call__

    def as_text(self):
        """XLA's optimized HLO for this program."""
        return self._executable.as_text()

    def cost_analysis(self):
        return self._executable.xla.cost_analysis()

    def memory_analysis(self):
        return self._executable.xla.get_compiled_memory_stats()

    def runtime_executable(self):
        """jaxlib's loaded executable."""
        return self._executable.xla

    @property
    def in_avals(self):
        if self.args_info is None:
            return self._executable.in_avals
        return super().in_avals

    @property
    def out_avals(self):
        return self._executable.out_avals


class Lowered(Stage):
    """``jit(f).lower(*args)``: the StableHLO module of a traced function, not yet compiled."""

    def __init__(self, lowering, closed_jaxpr, name, compile_fn, *, args_info=None,
                 out_info=None):
        self._lowering = lowering  # a stablehlo.LoweredModule
        self.jaxpr = closed_jaxpr
        self.name = name
        self._compile_fn = compile_fn
        self.args_info, self.out_info = args_info, out_info

    def as_text(self, dialect=None, *, debug_info=False):
        """The module as StableHLO text, or (``dialect="hlo"``) as XLA HLO before optimization."""
        if dialect == "hlo":
            return jaxlib_ext.stablehlo_to_hlo_text(stablehlo.module_to_text(self._lowering.module))
        if dialect not in (None, "stablehlo"):
            raise ValueError(f"unknown dialect: {dialect}")
        return stablehlo.module_to_text(self._lowering.module, debug_info=debug_info)

    def compiler_ir(self, dialect=None):
        """The MLIR module (``"stablehlo"``, the default), or XLA's ``XlaComputation``
        (``"hlo"``: ``.as_hlo_text()``, ``.as_serialized_hlo_module_proto()`` ...)."""
        if dialect == "hlo":
            return jaxlib_ext.stablehlo_to_xla_computation(
                stablehlo.module_to_text(self._lowering.module))
        if dialect not in (None, "stablehlo"):
            raise ValueError(f"unknown dialect: {dialect}")
        return self._lowering.module

    def cost_analysis(self):
        """XLA's cost estimate (flops, bytes accessed ...) of the compiled program."""
        return self.compile().cost_analysis()

    def compile(self, compiler_options=None):
        if compiler_options:
            raise TypeError("Lowered.compile: minijax takes XLA options from the environment "
                            "(XLA_FLAGS), not compiler_options=")
        return self._compile_fn()


# The monitoring events JAX records for the same phases (minijax.monitoring listeners get them).
_PHASE_EVENTS = {
    "trace": "/jax/core/compile/jaxpr_trace_duration",
    "lower": "/jax/core/compile/jaxpr_to_mlir_module_duration",
    "compile": "/jax/core/compile/backend_compile_duration",
}


class PhaseTimer:
    """Times trace/lower/compile for ``jax_log_compiles``."""

    def __init__(self):
        self.times = {}
        self._start = time.perf_counter()

    def mark(self, phase):
        now = time.perf_counter()
        self.times[phase] = now - self._start
        self._start = now
        monitoring.record_event_duration_secs(_PHASE_EVENTS[phase], self.times[phase])


_caches = []


class _Mappings:
    """Empties the executable caches before the process runs out of memory mappings.

    Each XLA:CPU executable holds ~3 mappings per kernel of JIT code (93 for one program of a
    few special functions, 3 for a tiny one; jaxlib 0.10.2), which the caches' entry bounds
    cannot see; past the kernel's ``vm.max_map_count`` (65,530 by default) the next compile
    segfaults inside LLVM. Every ``EVERY`` compiles the count is read (~30 ms at 30,000
    mappings) and, above half the limit, every registered cache is emptied: what runs again
    compiles again. Off where ``/proc`` does not say (not Linux)."""

    EVERY = 64

    def __init__(self):
        try:
            with open("/proc/sys/vm/max_map_count") as f:
                self.limit = int(f.read()) // 2
        except (OSError, ValueError):
            self.limit = None
        self.compiles = 0

    @staticmethod
    def count():
        with open("/proc/self/maps", "rb") as f:
            return f.read().count(b"\n")

    def before_compile(self):
        self.compiles += 1
        if self.limit is not None and self.compiles % self.EVERY == 0:
            n = self.count()
            if n > self.limit:
                logger.warning("%d memory mappings (the kernel allows %d): emptying the "
                               "executable caches", n, 2 * self.limit)
                clear_caches()


_mappings = _Mappings()


def register_cache(cache):
    """Caches holding executables register here so a new CPU client can drop them all."""
    _caches.append(cache)
    return cache


def clear_caches():
    for cache in _caches:
        cache.clear()


backends.client_replaced_listeners.append(clear_caches)
