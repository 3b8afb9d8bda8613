"""Process-wide flags, read from the environment once and changed with ``config.update``.

Names follow JAX (``jax_enable_x64`` ...) so ``minijax.config.update("jax_enable_x64", True)``
works unchanged. Each flag can also be set from the environment, as ``MINIJAX_<NAME>`` or
JAX's ``JAX_<NAME>`` spelling (``MINIJAX_ENABLE_X64=1``).

Flags that change what a trace produces (``trace_affecting``) are part of the jit cache key,
so flipping x64 retraces instead of reusing a program built for the other setting.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import sys

from jaxlib._jax import guard_lib

_TRUE = {"1", "true", "yes", "on"}


def _parse(kind, text):
    if kind is bool:
        return text.strip().lower() in _TRUE
    if kind is int:
        return int(text)
    if kind is float:
        return float(text)
    return text


class _Flag:
    __slots__ = ("name", "kind", "value", "trace_affecting", "doc", "choices", "nullable")

    def __init__(self, name, default, kind, trace_affecting, doc, choices=None):
        self.name, self.kind, self.trace_affecting, self.doc = name, kind, trace_affecting, doc
        self.choices = choices
        self.nullable = default is None  # an enum flag takes None only if None is its default
        short = name[len("jax_"):] if name.startswith("jax_") else name
        for env in (f"MINIJAX_{short.upper()}", name.upper()):
            if env in os.environ:
                default = _parse(kind, os.environ[env])
                break
        self.value = self.check(default)

    def check(self, value):
        if self.choices is None or value in self.choices or (value is None and self.nullable):
            return value
        if self.nullable:
            raise ValueError(
                f"config option {self.name} must be None or one of {sorted(self.choices)}; "
                f"got {value!r}"
            )
        raise ValueError(f"new enum value must be in {list(self.choices)}, got {value} of type "
                         f"{type(value)}.")


class Config:
    """Holds the flags; ``config.jax_enable_x64`` reads one, ``config.update`` sets one."""

    def __init__(self):
        object.__setattr__(self, "_flags", {})
        object.__setattr__(self, "_listeners", [])
        object.__setattr__(self, "trace_state", ())

    def define(self, name, default, kind=bool, trace_affecting=False, doc="", choices=None):
        self._flags[name] = _Flag(name, default, kind, trace_affecting, doc, choices)
        self._refresh()

    def update(self, name, value):
        flag = self._flags.get(name)
        if flag is None:
            raise AttributeError(f"Unrecognized config option: {name}")
        if flag.kind is bool and not isinstance(value, (bool, int)):
            raise TypeError(f"config option {name} takes a bool, got {value!r}")
        flag.value = flag.check(flag.kind(value) if value is not None else None)
        self._refresh()
        for listener in self._listeners:
            listener(name, flag.value)

    def on_change(self, listener):
        """Calls ``listener(name, value)`` after every ``update`` (backends use it)."""
        self._listeners.append(listener)

    def _refresh(self):
        # Values are also plain attributes, so reading a flag on a hot path is one dict lookup.
        for name, flag in self._flags.items():
            object.__setattr__(self, name, flag.value)
        # A tuple of every trace-affecting value: the jit cache key includes it as one item.
        state = tuple(f.value for f in self._flags.values() if f.trace_affecting)
        object.__setattr__(self, "trace_state", state)

    def __getattr__(self, name):  # only reached for names that are not flags
        raise AttributeError(f"Unrecognized config option: {name}")

    def __setattr__(self, name, value):
        raise AttributeError("use config.update(name, value) to change a flag")

    def values(self):
        return {name: f.value for name, f in self._flags.items()}

    def parse_flags_with_absl(self):
        """Sets flags from the command line as JAX's does through absl: ``--jax_<name>=value``
        (a bool flag also ``--jax_<name>`` / ``--nojax_<name>``), the arguments before ``--``;
        the rest of the command line, flags minijax does not define included, is left alone."""
        for arg in itertools.takewhile(lambda a: a != "--", sys.argv[1:]):
            negated = arg.startswith("--nojax_")
            if not (arg.startswith("--jax_") or negated):
                continue
            name, eq, text = arg[len("--no") if negated else 2:].partition("=")
            flag = self._flags.get(name)
            if flag is None or (negated and (eq or flag.kind is not bool)):
                continue
            if eq:
                self.update(name, _parse(flag.kind, text))
            elif flag.kind is bool:
                self.update(name, not negated)


@contextlib.contextmanager
def config_context(name, value):
    """Sets flag ``name`` to ``value`` inside the ``with`` block, restoring it afterwards
    (process-wide, not per thread)."""
    old = getattr(config, name)
    config.update(name, value)
    try:
        yield
    finally:
        config.update(name, old)


_UNSET = object()


class State:
    """A flag as JAX's top-level state objects (``jax.numpy_rank_promotion``,
    ``jax.check_tracer_leaks``): calling it with a value gives a context manager (also a
    decorator) that sets the flag inside; ``.value`` reads it."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __call__(self, value=_UNSET):
        if value is _UNSET:  # JAX's boolean states default to turning the flag on
            if config._flags[self.name].kind is not bool:
                raise TypeError(f"Context manager for {self.name[len('jax_'):]} config option "
                                "requires an argument representing the new value for the "
                                "config option.")
            value = True
        return config_context(self.name, value)

    @property
    def value(self):
        return getattr(config, self.name)

    def __repr__(self):
        return f"State({self.name}={self.value!r})"


def default_matmul_precision(precision):
    """``with minijax.default_matmul_precision("float32"):`` as ``jax.default_matmul_precision``:
    the precision of every matmul and convolution traced inside that does not name its own."""
    return config_context("jax_default_matmul_precision", precision)


config = Config()
config.define("jax_enable_x64", False, trace_affecting=True,
              doc="Keep 64-bit dtypes; when off they are narrowed to 32 bits.")
# The names lax.Precision accepts (as in JAX): "float32"/"highest" makes XLA on a GPU multiply
# float32 in full float32 instead of its default TF32; XLA's CPU always does.
config.define("jax_default_matmul_precision", None, kind=str, trace_affecting=True,
              choices=("bfloat16", "tensorfloat32", "float32", "default", "high", "highest",
                       "fastest"),
              doc="Precision of matmuls and convolutions that do not pass precision=.")
# Read when eig is lowered for a GPU (so part of the jit key), as JAX's flag of this name.
config.define("jax_use_magma", "auto", kind=str, trace_affecting=True,
              choices=("off", "on", "auto"),
              doc="GPU eig with left eigenvectors: MAGMA's geev ('on'), host LAPACK's ('off'), "
                  "or MAGMA when its library is found ('auto').")
# Part of the jit key: a key seeded (or a raw key split) in a trace is of this impl.
config.define("jax_default_prng_impl", "threefry2x32", kind=str, trace_affecting=True,
              choices=("philox2x32", "philox4x32", "threefry2x32", "rbg", "unsafe_rbg",
                       "threefry4x32"),
              doc="The PRNG implementation of keys made without impl= (and of raw keys).")
config.define("jax_disable_jit", False, doc="Run jitted functions op by op (eagerly).")
config.define("jax_explain_cache_misses", False,
              doc="Log why a jitted call retraced: which argument's shape/dtype/static changed.")
config.define("jax_log_compiles", False, doc="Log each compilation with trace/lower/compile times.")
config.define("jax_num_cpu_devices", -1, kind=int,
              doc="Virtual CPU devices of the CPU client, read when the client is created; "
                  "-1 (as JAX): XLA_FLAGS' --xla_force_host_platform_device_count, else 1.")
config.define("jax_platforms", "", kind=str,
              doc="Comma-separated platforms in order of preference, e.g. 'cpu' or 'cuda,cpu'.")
config.define("jax_debug_nans", False,
              doc="Raise FloatingPointError naming the op and line that produced a NaN.")
config.define("jax_debug_infs", False,
              doc="Raise FloatingPointError naming the op and line that produced an Inf.")
# Tools (dumps, persistent compilation cache): see minijax/lowering/dumps.py, persistent_cache.py.
config.define("minijax_dump_dir", "", kind=str,
              doc="Directory for per-compilation dumps (jaxpr, StableHLO, optimized HLO, index).")
config.define("minijax_dump_eager", False,
              doc="Also dump the one-primitive programs that eager (op-by-op) execution compiles.")
config.define("minijax_dump_xla", False,
              doc="Also pass xla_dump_to=<minijax_dump_dir>/xla to XLA (all of XLA's own dumps).")
# Part of the jit key: a program traced with it on may hold the fused kernel.
config.define("minijax_fuse_attention", True, trace_affecting=True,
              doc="jit on a GPU replaces attention written by hand (q·kᵀ, mask, softmax, ·v) "
                  "by the fused cuDNN kernel (minijax/transforms/fuse_attention.py).")
config.define("jax_compilation_cache_dir", "", kind=str,
              doc="Directory of the persistent compilation cache (serialized executables).")
config.define("jax_enable_compilation_cache", True,
              doc="Use the persistent cache when jax_compilation_cache_dir is set.")
config.define("jax_persistent_cache_min_compile_time_secs", 1.0, kind=float,
              doc="Only executables that took at least this long to compile are written.")
config.define("jax_persistent_cache_min_entry_size_bytes", 0, kind=int,
              doc="Only executables whose serialized size is at least this are written.")
config.define("jax_check_tracer_leaks", False,
              doc="Raise when a tracer outlives the trace (jit, vmap, scan body ...) that made it.")
# Both change what a trace produces (an error, a warning), so both are part of the jit key.
config.define("jax_numpy_dtype_promotion", "standard", kind=str, trace_affecting=True,
              choices=("standard", "strict"),
              doc="'strict' refuses implicit promotion between different dtypes in jnp.")
config.define("jax_numpy_rank_promotion", "allow", kind=str, trace_affecting=True,
              choices=("allow", "warn", "raise"),
              doc="What jnp does when broadcasting promotes an operand's rank: allow, warn, raise.")

# A Device or a platform name; part of the jit key: uncommitted computations run there.
config.define("jax_default_device", None, kind=lambda value: value, trace_affecting=True,
              doc="Device (or platform name) for computations and values not committed to one.")

# JAX's top-level state objects for the flags minijax has (``with jax.log_compiles():``).
check_tracer_leaks = State("jax_check_tracer_leaks")
debug_infs = State("jax_debug_infs")
debug_nans = State("jax_debug_nans")
default_prng_impl = State("jax_default_prng_impl")
enable_x64 = State("jax_enable_x64")
explain_cache_misses = State("jax_explain_cache_misses")
log_compiles = State("jax_log_compiles")
numpy_dtype_promotion = State("jax_numpy_dtype_promotion")
numpy_rank_promotion = State("jax_numpy_rank_promotion")
default_device = State("jax_default_device")


def checking_leaks():
    """``with minijax.checking_leaks():`` is ``with minijax.check_tracer_leaks(True):``."""
    return config_context("jax_check_tracer_leaks", True)


# ------------------------------------------------------------------------------------------------
# Transfer guards: jaxlib enforces them on every host-to-device copy it makes (device_put of a
# NumPy value, a jit argument); minijax sets jaxlib's guard state as JAX does. On CPU an
# Array's memory is host memory, so device-to-host reads are never guarded (as in JAX).

_GUARD_LEVELS = ("allow", "log", "disallow", "log_explicit", "disallow_explicit")
_GUARD_KINDS = ("host_to_device", "device_to_device", "device_to_host")


def _guard_level(value):
    if value is None:
        return None
    return getattr(guard_lib.TransferGuardLevel, value.upper())


def _check_guard_level(value):
    if value is not None and value not in _GUARD_LEVELS:
        raise ValueError(f"new enum value must be None or in {list(_GUARD_LEVELS)}, got "
                         f"{value} of type {type(value)}.")


def _set_global_guard(name, value):
    kind = name[len("jax_transfer_guard_"):]
    if name == "jax_transfer_guard":
        for k in _GUARD_KINDS:  # the per-kind flags, where set, take precedence
            if getattr(config, f"jax_transfer_guard_{k}") is None:
                setattr(guard_lib.global_state(), k, _guard_level(value))
    elif kind in _GUARD_KINDS:
        general = config.jax_transfer_guard
        setattr(guard_lib.global_state(), kind, _guard_level(value if value is not None
                                                               else general))


for _kind in ("", *(f"_{k}" for k in _GUARD_KINDS)):
    config.define(f"jax_transfer_guard{_kind}", None, kind=str, choices=_GUARD_LEVELS,
                  doc="Transfer guard level ('allow', 'log', 'disallow', 'log_explicit', "
                      "'disallow_explicit'); None: the general flag's, else 'allow'.")
config.on_change(lambda name, value: name.startswith("jax_transfer_guard")
                 and _set_global_guard(name, value))
for _kind in ("", *(f"_{k}" for k in _GUARD_KINDS)):
    if getattr(config, f"jax_transfer_guard{_kind}") is not None:  # set from the environment
        _set_global_guard(f"jax_transfer_guard{_kind}", getattr(config, f"jax_transfer_guard{_kind}"))


@contextlib.contextmanager
def _thread_guard(kinds, value):
    """This thread's guard level for ``kinds`` is ``value`` inside the block."""
    _check_guard_level(value)
    state = guard_lib.thread_local_state()
    prev = [getattr(state, k) for k in kinds]
    for k in kinds:
        setattr(state, k, _guard_level(value))
    try:
        yield
    finally:
        for k, p in zip(kinds, prev):
            setattr(state, k, p)


def transfer_guard_host_to_device(new_val):
    """``with transfer_guard_host_to_device("disallow"):`` this thread's guard for copies
    from host values to devices (``"disallow"`` refuses implicit ones, such as a NumPy
    argument of a jitted function; ``device_put`` is explicit)."""
    return _thread_guard(("host_to_device",), new_val)


def transfer_guard_device_to_device(new_val):
    """This thread's guard for copies between devices."""
    return _thread_guard(("device_to_device",), new_val)


def transfer_guard_device_to_host(new_val):
    """This thread's guard for copies from devices to the host."""
    return _thread_guard(("device_to_host",), new_val)


def transfer_guard(new_val):
    """This thread's guard level for every kind of transfer."""
    return _thread_guard(_GUARD_KINDS, new_val)


@contextlib.contextmanager
def _explicit(flag):
    """jaxlib's thread-local guard ``flag`` set inside the block."""
    state = guard_lib.thread_local_state()
    prev = getattr(state, flag)
    setattr(state, flag, True)
    try:
        yield
    finally:
        setattr(state, flag, prev)


def explicit_device_put_scope():
    """Copies inside the block are explicit ``device_put``s (allowed by ``"disallow"``)."""
    return _explicit("explicit_device_put")


def explicit_device_get_scope():
    """Reads inside the block are explicit ``device_get``s."""
    return _explicit("explicit_device_get")
