"""``JitFunction``: stage a function once per signature, compile it with XLA, and call it fast.

The cache key is exactly what changes the program: the pytree structure of the dynamic
arguments, each leaf's aval (shape, dtype, weak type), the static arguments' values, the
trace-affecting config (x64), and the layouts of committed multi-device arguments. A hit costs
one C++ flatten, one tuple of avals, one dict lookup and one XLA execute with C++ result
handlers (jaxlib's C++ ``PjitFunction`` does all of it without entering Python).

A miss flattens the arguments once into an :class:`~minijax.jitting.args.ArgRecord`, traces,
plans where the program runs (:mod:`minijax.jitting.placement`: one device, or a mesh's devices
with Shardy annotations), lowers and compiles one :class:`Executable`, and caches an
:class:`_Entry`. Single-device and SPMD programs take this one path.

Under another transformation (``jit`` inside ``jit``, ``make_jaxpr``, ``grad``, ``vmap`` ...)
a jitted function is one ``jit`` equation (:mod:`minijax.jitting.pjit`) holding its jaxpr,
traced once per signature and shared with the eager path's cache misses; the outer program
inlines it when lowered, so it is still compiled once.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import logging
import weakref

import numpy as np

from minijax import caches, core, debug_numerics, dtypes
from minijax import sharding_types as shd
from minijax.config import config
from minijax.core import Token, get_aval
from minijax.interpreters import walk
from minijax.interpreters.batching import bound_axes
from minijax.interpreters.partial_eval import DynamicJaxprTrace, inline_consts, trace_to_jaxpr
from minijax.jitting import pjit, placement
from minijax.jitting.prune import prune_unused
from minijax.lax import linalg as lax_linalg
from minijax.lax.control_flow import ref_writes
from minijax.jitting.args import (
    ArgRecord,
    Signature,
    check_out_leaf,
    debug_arg_names,
    explain_difference,
    leaf_aval,
    merge_static,
    normalize_argnames,
    normalize_argnums,
    split_static,
    with_leaf_path,
)
from minijax.lowering import backends, dispatch, stablehlo
from minijax.lowering import compile as _compile
from minijax.lowering.array import Array, device_put_value, put_global, relabel, same_layout
from minijax.refs import AbstractRef, Ref, type_str
from minijax.source_info import reset_name_stack, user_frame
from minijax.stages import Traced, result_structs, stage_info
from minijax.tree_util import _registry, keystr, path_name, tree_flatten_with_path_internal

logger = logging.getLogger("minijax")
# Passes ``(closed_jaxpr, devices) -> closed_jaxpr`` run on each traced program before it is
# lowered; higher layers register theirs (transforms/fuse_attention.py: cuDNN attention). The
# program holds its nested jits as calls: a pass that must see through them inlines them
# (``pjit.inline_calls``) when it applies.
PROGRAM_PASSES = []


class _NotAnArray(Exception):
    pass


def _put_numpy(x):
    if type(x) is not np.ndarray:
        return x
    try:
        return device_put_value(x)
    except TypeError:  # a dtype minijax does not support (strings, objects)
        raise _NotAnArray from None


def _put_arg(x, target, aval):
    """``x`` (an Array laid out otherwise, NumPy or a Python scalar) as an Array with jaxlib
    sharding ``target``: the same pieces relabelled where the layout is the same, else
    through the host."""
    if type(x) is Token:  # as JAX: once it is ready, a fresh empty buffer stands for it
        x.block_until_ready()
        return put_global(np.zeros((0,), np.bool_), core.token_buffer_aval, target)
    if type(x) is Array:
        if x._sharding is target:
            return x
        x._check_alive()
        if same_layout(x._sharding, target):  # the same layout named on another mesh
            return relabel(x, target)
        value = x._value
    else:
        value = np.asarray(x, dtype=aval.dtype)
    return put_global(value, aval, target)


def _shard_arg(x, sharding, layout):
    """Called by the C++ fast path for an argument that is not already laid out as needed."""
    return _put_arg(x, sharding, x.aval if type(x) is Array else get_aval(x))


class _Float0Outputs:
    """An output pytree with float0 leaves (tangents of integer outputs), which the program
    returns as booleans (XLA has no float0): ``unflatten`` puts float0 zeros back in
    their places, as JAX does. Otherwise it is the pytree it wraps."""

    def __init__(self, tree, float0):
        self.tree, self.float0 = tree, float0  # float0: [(leaf index, shape)]
        self.traced = []  # the program's variables those leaves were (``_float0_collectives``)

    def unflatten(self, leaves):
        leaves = list(leaves)
        for i, shape in self.float0:
            leaves[i] = dtypes.float0_zeros(shape)
        return self.tree.unflatten(leaves)

    def __getattr__(self, name):
        return getattr(self.tree, name)


# JAX lowers an all-reduce's combiner with lax's own op, whose dtype rule refuses a float0
_FLOAT0_REDUCERS = {"psum": "add", "psum_invariant": "add", "pmax": "max", "pmin": "min"}


def _float0_collectives(closed, out_tree):
    """JAX 0.10.2's refusal, when it lowers the program, of an all-reduce of a float0 value
    (``psum`` of an integer output's tangent in a shard_map, whose combiner is lax's ``add``):
    "Called add with a float0 at position 0". minijax returns a float0 output as host zeros
    (``_Float0Outputs``), so the equations making it are dead here and never lowered: those
    the float0 outputs depend on are searched (a dead one, as under JAX's jit, is not)."""
    if not isinstance(out_tree, _Float0Outputs) or not out_tree.traced:
        return
    jaxpr = closed.jaxpr
    need = set(out_tree.traced)
    for eqn in reversed(jaxpr.eqns):
        if not need.intersection(eqn.outvars):
            continue
        need.update(v for v in eqn.invars if isinstance(v, core.Var))
        for e in [eqn, *(e for _, sub in walk.sub_jaxprs(eqn.params)
                         for e in walk.iter_eqns(sub))]:
            name = _FLOAT0_REDUCERS.get(e.primitive.name)
            if name and any(getattr(v.aval, "dtype", None) == dtypes.float0
                            for v in e.invars):
                raise TypeError(
                    f"Called {name} with a float0 at position 0. float0s do not support any "
                    "operations by design, because they are not compatible with non-trivial "
                    "vector spaces. No implicit dtype conversion is done. You can use "
                    "np.zeros_like(arr, dtype=np.float) to cast a float0 array to a regular "
                    "zeros array. \nIf you didn't expect to get a float0 you might have "
                    "accidentally taken a gradient with respect to an integer argument.")


def _is_float0(x):
    """A NumPy float0 leaf, or a traced one (a float0 output of an inner transformation)."""
    aval = get_aval(x)
    return aval is not core.abstract_token and aval.dtype == dtypes.float0


class _RefOutputs:
    """The output pytree of a function taking Refs: after its outputs the program returns
    the final value of each Ref argument it wrote (leaf positions ``written``), which the
    call then stores in the caller's Refs, as JAX discharges them. ``unflatten`` gives
    ``(outputs, written values)``."""

    def __init__(self, tree, n_out, written):
        self.tree, self.n_out, self.written = tree, n_out, written

    def unflatten(self, leaves):
        leaves = list(leaves)
        return self.tree.unflatten(leaves[:self.n_out]), leaves[self.n_out:]

    def __getattr__(self, name):
        return getattr(self.tree, name)


def _result_names(out_tree, out_avals):
    """Each output's ``jax.result_info`` in the lowered module, as JAX names them: "result"
    and its path in the output pytree; none ("") in a program with Refs, whose written values
    are outputs too."""
    if type(out_tree) is _RefOutputs:
        return [""] * len(out_avals)
    if type(out_tree) is _Float0Outputs:
        out_tree = out_tree.tree
    return ["result" + path_name(path)
            for path, _ in tree_flatten_with_path_internal(out_tree.unflatten(out_avals))[0]]


def _arg_aval(aval):
    """The operand type of an argument: a Ref's value goes in as an array."""
    return aval.inner_aval if type(aval) is AbstractRef else aval


def _ref_positions(avals):
    return [i for i, a in enumerate(avals) if type(a) is AbstractRef]


def _fun_sourceinfo(fun):
    fun = inspect.unwrap(getattr(fun, "func", fun))
    code = getattr(fun, "__code__", None)
    name = getattr(fun, "__name__", "<unknown>")
    return f"{name} at {code.co_filename}:{code.co_firstlineno}" if code else name


def _check_distinct_refs(fun, leaves, at, names):
    """JAX's error for one Ref passed twice (its two cells would disagree)."""
    seen = {}
    for i in at:
        j = seen.setdefault(id(leaves[i]), i)
        if j != i:
            raise ValueError(
                "only one reference to a mutable array may be passed as an argument to a "
                f"function, but when tracing {_fun_sourceinfo(fun)} for jit the mutable array "
                f"reference of type {type_str(leaves[i])} appeared at both {names[j]} "
                f"and {names[i]}.")


class _WritesClosedRefs(Exception):
    """Raised by a trace that used Refs the function closes over (made outside it)."""

    def __init__(self, name, refs):
        super().__init__(f"jit({name}) uses Refs it closes over; call it to run it")
        self.refs = refs


def _shift(nums):
    return frozenset(i + 1 if i >= 0 else i for i in nums)


def _run_with_refs(run, out_tree, leaves, at):
    """``run`` (the program) on ``leaves`` with each Ref at positions ``at`` passed as its
    value; the values it wrote are stored back in those Refs."""
    if not at:  # (an outer trace's stand-in for a Ref, make_jaxpr's: its writes are dropped)
        outs = run(leaves)
        return outs[0] if type(out_tree) is _RefOutputs else outs
    vals = list(leaves)
    for i in at:
        vals[i] = leaves[i][...]
    outs = run(vals)
    if type(out_tree) is not _RefOutputs:
        return outs
    outs, written = outs
    for i, v in zip(out_tree.written, written):
        leaves[i][...] = v
    return outs


class _Entry:
    """One compiled signature: the executable, hoisted constants, and the output pytree.

    Every argument must carry exactly the sharding the program was compiled for
    (``execute_sharded`` does not check: a different tile order would give wrong numbers
    silently), so any other layout is put there before the call."""

    __slots__ = ("exe", "const_bufs", "out_tree", "in_shardings", "kept", "jaxpr", "committed")

    def __init__(self, exe, const_bufs, out_tree, kept, jaxpr, committed):
        self.exe = exe
        self.const_bufs = const_bufs  # a list; copied per call, then the arguments appended
        self.out_tree = out_tree
        self.in_shardings = exe.in_shardings
        self.kept = kept  # the argument leaves the program takes (None: all of them)
        self.jaxpr = jaxpr  # as traced, every argument an input (debug_numerics reruns it)
        self.committed = committed  # outputs committed whatever the arguments (a placement)

    def __call__(self, leaves):
        targets = self.in_shardings
        bufs = self.const_bufs.copy()
        if self.kept is not None:  # unused arguments are no operands (keep_unused=False)
            leaves = [leaves[i] for i in self.kept]
        committed = self.committed
        for x in leaves:
            i = len(bufs)
            if type(x) is Array:
                committed = committed or x._committed
                if x._sharding is targets[i]:
                    bufs.append(x)
                    continue
            # numpy / Python scalar / Array laid out otherwise: the slow path
            bufs.append(_put_arg(x, targets[i], self.exe.in_avals[i]))
        return self.out_tree.unflatten(self.exe.execute(bufs, committed))

    def fastpath(self, leaves):
        """The data the C++ fast path needs to run this entry without Python, or None when a
        leaf is laid out otherwise (that signature then always takes the Python path) or the
        program runs synchronously (see Executable.synchronous)."""
        if (self.exe.synchronous or type(self.out_tree) is _Float0Outputs or self.exe.n_tokens
                or core.abstract_token in self.exe.in_avals
                or core.abstract_token in self.exe.out_avals):
            return None  # C++ reads a dtype off each argument and output: tokens have none
        n0 = len(self.const_bufs)
        targets = self.in_shardings
        kept = range(len(leaves)) if self.kept is None else self.kept
        committed = self.committed
        for j, i in enumerate(kept):
            x = leaves[i]
            if type(x) is Array:
                if x._sharding is not targets[n0 + j]:
                    return None
                committed = committed or x._committed
        bitvec = [True] * n0 + [False] * len(leaves)  # consts, then the arguments it takes
        for i in kept:
            bitvec[n0 + i] = True
        out_avals = self.exe.out_avals
        return backends.FastpathData(
            self.exe.xla,
            self.out_tree,
            list(targets),
            list(self.exe.out_shardings),
            out_avals,
            [committed] * len(out_avals),
            bitvec,
            [None] * len(targets),
            list(self.const_bufs),
        )


class _Program:
    """A traced and lowered signature, ready to compile: what ``lower`` and a miss share.
    ``closed`` is the program compiled, on the argument leaves ``kept`` (None: all), and
    ``traced`` the function's jaxpr on all of them."""

    __slots__ = ("closed", "traced", "kept", "out_tree", "record", "placement", "lowered")

    def __init__(self, closed, traced, kept, out_tree, record, placement, lowered):
        self.closed, self.traced, self.kept = closed, traced, kept
        self.out_tree, self.record = out_tree, record
        self.placement, self.lowered = placement, lowered

    def kept_avals(self):
        """The operand types of the argument leaves the program takes."""
        avals = self.record.avals
        if self.kept is not None:
            avals = [avals[i] for i in self.kept]
        return [_arg_aval(a) for a in avals]


class _JitCompiled(_compile.Compiled):
    """``jit(f).lower(...).compile()``: also JAX's ``input_shardings`` (a pytree of the
    arguments; None for an argument the program does not take) and ``output_shardings``."""

    def __init__(self, executable, call, lowered, program):
        super().__init__(executable, call, lowered)
        self._program = program

    @property
    def input_shardings(self):
        p, exe = self._program, self._executable
        n0 = len(p.closed.consts)
        kept = range(len(p.record.avals)) if p.kept is None else p.kept
        given = p.placement.in_shardings
        # As JAX, what propagation chose for an open argument is named on a mesh only when
        # another argument's sharding names one; else it is XLA's GSPMDSharding.
        named = p.placement.mesh is None or any(
            isinstance(s, shd.NamedSharding) for s in given)
        flat = [None] * len(p.record.avals)
        for j, i in enumerate(kept):
            s = exe.in_shardings[n0 + j]
            flat[i] = (shd.from_jaxlib(s, len(exe.in_avals[n0 + j].shape), p.placement.mesh)
                       if named or given[j] is not None else shd.GSPMDSharding(s))
        return p.record.in_tree.unflatten(flat)

    @property
    def output_shardings(self):
        p, exe = self._program, self._executable
        flat = [shd.from_jaxlib(s, len(a.shape), p.placement.mesh)
                for s, a in zip(exe.out_shardings, exe.out_avals)]
        tree = p.out_tree
        if type(tree) is _RefOutputs:  # the written Refs' values are no outputs of the call
            tree, flat = tree.tree, flat[:tree.n_out]
        return getattr(tree, "tree", tree).unflatten(flat)


def _fun_name(fun):
    """JAX's name of a jitted function (its jaxpr equation's ``name``, its module
    ``jit_<name>``): ``__name__``, looked up through ``functools.partial``."""
    while (name := getattr(fun, "__name__", None)) is None and isinstance(fun, functools.partial):
        fun = fun.func
    return "<unnamed function>" if name is None else name


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
        sig = self._signature = Signature(fun)
        nums = normalize_argnums(static_argnums)
        names = normalize_argnames(static_argnames)
        self._static_argnums = frozenset(nums + sig.names_to_nums(names))
        self._static_argnames = frozenset(names + sig.nums_to_names(nums))
        dnums = normalize_argnums(donate_argnums)
        dnames = normalize_argnames(donate_argnames)
        self._donate_argnums = frozenset(dnums + sig.names_to_nums(dnames))
        if backend is not None and device is None:  # JAX's (deprecated) platform choice
            device = backends.get_backend(backend).local_devices()[0]
        self._device = device
        self._in_shardings = in_shardings
        self._out_shardings = out_shardings
        self._sharded = in_shardings is not None or out_shardings is not None
        if self._sharded:  # JAX checks the specs given when jit is called on a function
            shd.check_given(in_shardings, "in_shardings")
            shd.check_given(out_shardings, "out_shardings")
        self._committed_in_key = placement.in_shardings_in_key(in_shardings)
        # JAX puts a NumPy argument in the memory in_shardings names but refuses an Array from
        # another memory, even an uncommitted one: such a jit's NumPy arguments reach the
        # placement as NumPy, not as the Arrays of the C++ path's device_put
        self._numpy_to_memory = placement.names_other_memory(in_shardings)
        self._inline = inline
        self._keep_unused = keep_unused
        self._closing = None  # the jit threading the Refs ``fun`` closes over and writes
        self._serial = next(_serials)  # this function's part of `_programs` and `_traces`
        self._trace_count = 0
        self._name = _fun_name(fun)
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
            self._serial,
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
        if config.jax_disable_jit:
            return self._fun(*args, **kwargs), None, None
        if self._closing is not None:
            return self._call_closing(args, kwargs), None, None
        try:
            if not core.is_eval_trace_current():
                return self._call_traced(args, kwargs), None, None
            return self._call_eval(args, kwargs, flat)
        except _WritesClosedRefs as e:
            self._close_over(e.refs)
            return self._call_closing(args, kwargs), None, None

    def _close_over(self, refs):
        """From now on calls thread ``refs`` (outer Refs ``fun`` writes) through a jit that
        takes their values and returns their new ones, as JAX discharges them."""
        if self._closing is not None:
            refs = self._closing[0] + [r for r in refs if r not in self._closing[0]]

        def closing(vals, *args, **kwargs):
            ref_writes.adopt(refs, vals)
            out = self._fun(*args, **kwargs)
            return out, [r[...] for r in refs]

        closing.__name__ = self._name
        inner = JitFunction(closing, static_argnums=_shift(self._static_argnums),
                            static_argnames=self._static_argnames,
                            donate_argnums=_shift(self._donate_argnums), keep_unused=True,
                            device=self._device, inline=self._inline)
        self._closing = (refs, inner)

    def _call_closing(self, args, kwargs):
        refs, inner = self._closing
        out, vals = inner(list(r[...] for r in refs), *args, **kwargs)
        ref_writes.write_back(refs, vals)
        return out

    def _call_eval(self, args, kwargs, flat):
        if self._static_argnums or self._static_argnames:
            args, kwargs, static_key = split_static(
                args, kwargs, self._static_argnums, self._static_argnames)
            flat = None
        else:
            static_key = ()
        leaves, in_tree = _registry.flatten((args, kwargs)) if flat is None else flat
        try:
            avals = tuple([x.aval if type(x) is Array else leaf_aval(x) for x in leaves])
        except TypeError as e:
            raise with_leaf_path(e, self._fun, self._signature.params, args, kwargs,
                                 static_key) from None
        # set_mesh's mesh: bare specs name its axes, and the program runs on its devices
        key = (in_tree, static_key, avals, config.trace_state, shd.current_mesh())
        if self._committed_in_key and (self._sharded or placement.any_placed(leaves)):
            key += (placement.committed_key(leaves),)  # where arguments lie shapes the program
        entry = _programs.data.get((self._serial, key))
        at = _ref_positions(avals)
        if entry is None or at:
            record = ArgRecord(args, kwargs, static_key, leaves, in_tree, avals,
                               self._donate_argnums)
            if at:
                self._check_refs(record, at)
            if entry is None:
                entry = self._cache_miss(key, record)
        if at:  # the Refs' values in, their new values back: never the C++ fast path
            return _run_with_refs(entry, entry.out_tree, leaves, at), None, leaves
        outs = entry(leaves)
        if debug_numerics.checking:
            debug_numerics.check_jit(self._name, entry, leaves, outs)
        return outs, entry, leaves

    def _call_traced(self, args, kwargs):
        """Under another trace: one ``jit`` equation holding the traced function (JAX's
        ``pjit``), or the function itself with jit disabled or, with ``inline=True``, while a
        jaxpr is being built on the current trace (a transformation above it binds the equation,
        carrying ``inline``, and the staging trace inlines it, as JAX's does)."""
        trace = core.current_trace()
        if config.jax_disable_jit or (
                self._inline and type(trace) is DynamicJaxprTrace and not trace.runs_eagerly):
            return self._fun(*args, **kwargs)
        record = self._record(args, kwargs, get_aval)
        at = [i for i in _ref_positions(record.avals) if type(record.leaves[i]) is Ref]
        self._check_refs(record, at)
        closed, out_tree = self._trace(record)
        return _run_with_refs(
            lambda vals: out_tree.unflatten(
                pjit.bind(closed, vals, self._name, record.donated, self._inline)),
            out_tree, record.leaves, at)

    def _check_refs(self, record, at):
        if len(at) > 1:
            _check_distinct_refs(self._fun, record.leaves, at,
                                 record.names(self._signature.params, bool(self._static_argnums)))

    def _cpp_cache_miss(self, *args, **kwargs):
        # jaxlib's C++ path copies a NumPy argument's raw bytes with a signature that ignores
        # byte order: once cached, a big-endian array of the same shape and dtype would be read
        # as little-endian garbage (JAX 0.10 has this bug). So no fast-path entry ever has a
        # NumPy leaf: a call with one lands here every time, its NumPy leaves are put on the
        # default device here (converted), and the call goes back to the C++ path with device
        # Arrays only (which falls back to Python where the placement does not fit).
        flat = None
        checking = debug_numerics.checking
        if (not checking and not config.jax_disable_jit and not self._numpy_to_memory
                and core.is_eval_trace_current()):
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
        if entry is None or checking:  # checked calls never take the C++ fast path
            return outs, None, False
        if self._numpy_to_memory and any(type(x) is np.ndarray for x in leaves):
            return outs, None, False  # no fast-path entry has a NumPy leaf (see above)
        return outs, entry.fastpath(leaves), False

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self, obj)

    def _record(self, args, kwargs, aval_of=leaf_aval):
        """The ArgRecord of a call made through ``lower``/``trace``/``eval_shape``."""
        if self._static_argnums or self._static_argnames:
            args, kwargs, static_key = split_static(
                args, kwargs, self._static_argnums, self._static_argnames)
        else:
            static_key = ()
        try:
            return ArgRecord.of_call(args, kwargs, static_key, self._donate_argnums, aval_of)
        except TypeError as e:
            raise with_leaf_path(e, self._fun, self._signature.params, args, kwargs,
                                 static_key) from None

    # --- staging ------------------------------------------------------------------------------
    def _trace(self, record):
        """``(ClosedJaxpr, output pytree)`` of the function at ``record``'s signature, traced
        once per signature and the trace context that shapes it (the named axes bound around
        it, the vma-typed mesh axes), unless it closed over a tracer of an outer trace."""
        key = (record.in_tree, record.static_key, record.avals, config.trace_state,
               shd.current_mesh(), tuple(bound_axes()), core.vma_axes())
        found = _traces.data.get((self._serial, key))
        if found is not None:
            return found
        closed, out_tree = self._trace_now(record)
        if not any(isinstance(c, core.Tracer) for c in closed.consts):
            _traces.put((self._serial, key), (closed, out_tree))
        return closed, out_tree

    def _trace_now(self, record):
        in_tree, static_key = record.in_tree, record.static_key
        out_tree_box, float0_box = [], []
        at = _ref_positions(record.avals)
        names = record.names(self._signature.params, bool(self._static_argnums))

        def flat_fun(*tracers):
            args = list(tracers)
            for i in at:  # the function sees a Ref cell holding the value's tracer
                a = record.avals[i]
                args[i] = Ref(tracers[i], a.memory_space, a.kind)
            dyn_args, dyn_kwargs = in_tree.unflatten(args)
            full_args, full_kwargs = merge_static(dyn_args, dyn_kwargs, static_key)
            out = self._fun(*full_args, **full_kwargs)
            out_leaves, out_tree = _registry.flatten(out)
            for path, leaf in tree_flatten_with_path_internal(out)[0]:
                if type(leaf) is Ref:
                    self._returned_ref_error(leaf, args, names)
                check_out_leaf(leaf, keystr(path))
            float0 = [(i, x.shape) for i, x in enumerate(out_leaves) if _is_float0(x)]
            if float0:
                traced = [x for x in out_leaves
                          if isinstance(x, core.Tracer) and _is_float0(x)]
                out_leaves = [np.zeros(x.shape, np.bool_) if _is_float0(x) else x
                              for x in out_leaves]
                out_tree = _Float0Outputs(out_tree, float0)
                out_tree.traced = traced
                float0_box.append(out_tree)
            written = [i for i in at if args[i][...] is not tracers[i]]
            if at:  # what the Refs hold at the end: extra outputs, for written ones only
                out_tree = _RefOutputs(out_tree, len(out_leaves), written)
                out_leaves = out_leaves + [args[i][...] for i in written]
            out_tree_box.append(out_tree)
            return out_leaves

        self._trace_count += 1
        if self.cpp is not None:
            self.cpp._trace_count = self._trace_count
        with ref_writes.watch() as watched, reset_name_stack():
            closed = trace_to_jaxpr(flat_fun, [_arg_aval(a) for a in record.avals], names)
        for f0 in float0_box:  # the variables, not the tracers, are kept
            f0.traced = [v for v in (getattr(t, "val", None) for t in f0.traced)
                         if isinstance(v, core.Var)]
        if watched.written or watched.read:  # Refs made outside: their values become operands
            raise _WritesClosedRefs(
                self._name, watched.refs + [r for k, r in watched.read.items()
                                            if k not in watched.written])
        return closed, out_tree_box[0]

    def _returned_ref_error(self, ref, args, names):
        where = next((f"\n\nThe returned mutable array was passed in as the argument {n}."
                      for a, n in zip(args, names) if a is ref), "")
        raise ValueError(
            f"function {_fun_sourceinfo(self._fun)} traced for jit returned a mutable array "
            f"reference of type {type_str(ref)}, but mutable array references cannot be "
            f"returned.{where}")

    def _lower(self, record, timer):
        traced, out_tree = self._trace(record)
        timer.mark("trace")
        _float0_collectives(traced, getattr(out_tree, "tree", None)
                            if isinstance(out_tree, _RefOutputs) else out_tree)
        closed, kept = traced, None
        if not self._keep_unused:  # JAX's default: the arguments no output needs are dropped
            closed, kept = prune_unused(traced)
        place = placement.plan(
            self._name, record, closed, out_tree, self._in_shardings, self._out_shardings,
            self._device, kept,
            lambda: record.names(self._signature.params, bool(self._static_argnums)))
        for program_pass in PROGRAM_PASSES:
            closed = program_pass(closed, place.devices)
        # JAX bakes constants, whatever their size, into the module: XLA folds and simplifies
        # around them as in JAX's program (with a NumPy weight vector as an argument, a
        # jit(grad(grad(x / x))) rounded otherwise: s20024-151), and Shardy gives each use of
        # a constant its own copy, where an argument would carry one operand's sharding to
        # its other uses.
        closed = inline_consts(closed)
        arg_shardings, result_shardings = place.module_shardings(len(closed.jaxpr.constvars))
        donated = set(record.donated)
        names = debug_arg_names(self._signature.params, record)
        if kept is not None:  # an unused argument is not donated (JAX leaves it alive)
            donated = {j for j, i in enumerate(kept) if i in donated}
            names = [names[i] for i in kept]
        lowered = stablehlo.lower_jaxpr(
            closed, name=f"jit_{self._name}", platform=place.devices[0].platform,
            donated=donated, arg_shardings=arg_shardings, result_shardings=result_shardings,
            memory_kinds=place.memory_kinds(closed.jaxpr),
            result_names=_result_names(out_tree, closed.jaxpr.out_avals),
            num_partitions=len(place.devices), arg_names=names,
        )
        timer.mark("lower")
        return _Program(closed, traced, kept, out_tree, record, place, lowered)

    def _compile(self, program, timer):
        closed, place = program.closed, program.placement
        const_avals = [v.aval for v in closed.jaxpr.constvars]
        all_in = const_avals + program.kept_avals()
        exe = _compile.compile_module(
            program.lowered, f"jit_{self._name}", place.devices, all_in,
            closed.jaxpr.out_avals, mesh=place.mesh, jaxpr=closed,
            in_memory=place.argument_memory(len(const_avals)),
            named_results=None if self._out_shardings is None else place.out_shardings,
        )
        timer.mark("compile")
        # As in JAX, outputs are committed to their devices when a placement was named (a
        # device, shardings, a mesh, a device_put to a memory inside); else iff a taken
        # argument is committed (per call).
        committed = (place.mesh is not None or self._device is not None or place.moves
                     or self._out_shardings is not None
                     or (self._in_shardings is not None and bool(place.in_shardings)))
        if place.mesh is not None:  # Array.sharding names the layouts on this mesh
            for s, a in zip(exe.in_shardings + exe.out_shardings, all_in + exe.out_avals):
                if a is not core.abstract_token:  # a token is no Array: no sharding to name
                    shd.from_jaxlib(s, len(a.shape), place.mesh)
        const_bufs = [_put_arg(c, exe.in_shardings[i], get_aval(c))
                      for i, c in enumerate(closed.consts)]
        return _Entry(exe, const_bufs, program.out_tree, program.kept, program.traced, committed)

    def _cache_miss(self, key, record):
        if config.jax_explain_cache_misses:
            self._explain_miss(key, record)
        timer = _compile.PhaseTimer()
        entry = self._compile(self._lower(record, timer), timer)
        if config.jax_log_compiles:  # JAX's three lines (tools and tests match on them)
            t = timer.times
            logger.warning("Finished tracing %s for jit in %.6f sec", self._name, t["trace"])
            logger.warning("Finished jaxpr to MLIR module conversion jit(%s) in %.6f sec",
                           self._name, t["lower"])
            logger.warning("Finished XLA compilation of jit(%s) for %s in %.6f sec", self._name,
                           ", ".join(a.str_short(True) for a in key[2]), t["compile"])
        _programs.put((self._serial, key), entry)
        if config.jax_explain_cache_misses:
            self._last_args_paths = (key, record.paths)
        return entry

    def _explain_miss(self, key, record):
        where = user_frame()
        if not self._cache_size() or not hasattr(self, "_last_args_paths"):
            logger.warning(
                "TRACING CACHE MISS at %s: jit(%s) is called for the first time.", where, self._name
            )
            return
        old_key, old_paths = self._last_args_paths
        reasons = explain_difference(old_key, old_paths, key, record.paths)
        logger.warning(
            "TRACING CACHE MISS at %s: jit(%s) retraces because:\n  %s",
            where,
            self._name,
            "\n  ".join(reasons),
        )

    # --- stages ---------------------------------------------------------------------------------
    def lower(self, *args, **kwargs):
        record = self._record(args, kwargs)
        program = self._lower(record, _compile.PhaseTimer())
        in_tree, in_avals = record.in_tree, record.avals

        def compile_():
            entry = self._compile(program, _compile.PhaseTimer())

            def call(*cargs, **ckwargs):
                if self._static_argnums or self._static_argnames:
                    cargs, ckwargs, _ = split_static(
                        cargs, ckwargs, self._static_argnums, self._static_argnames)
                leaves, tree = _registry.flatten((cargs, ckwargs))
                got = [leaf_aval(x) for x in leaves]
                if tree != in_tree or [_arg_aval(a).strip_weak_type() for a in got] != [
                    _arg_aval(a).strip_weak_type() for a in in_avals
                ]:
                    raise TypeError(
                        f"Compiled jit({self._name}) was compiled for arguments "
                        f"{[a.str_short(True) for a in in_avals]} with structure {in_tree}, but "
                        f"was called with {[a.str_short(True) for a in got]} and structure {tree}."
                    )
                return _run_with_refs(entry, entry.out_tree, leaves, _ref_positions(got))

            return _JitCompiled(entry.exe, call, lowered_stage, program)

        args_info, out_info = stage_info(in_tree, in_avals, record.donated, program.out_tree,
                                         program.closed.out_avals)
        lowered_stage = _compile.Lowered(program.lowered, program.closed, f"jit_{self._name}",
                                         compile_, args_info=args_info, out_info=out_info)
        return lowered_stage

    def trace(self, *args, **kwargs):
        record = self._record(args, kwargs)
        closed, out_tree = self._trace(record)
        args_info, out_info = stage_info(record.in_tree, record.avals, record.donated,
                                         out_tree, closed.out_avals)
        return Traced(closed, self._name, args_info, out_info,
                      lambda: self.lower(*args, **kwargs))

    def eval_shape(self, *args, **kwargs):
        """The outputs as ShapeDtypeStructs, without running anything; with ``out_shardings``
        (as in JAX) each says where that output will be."""
        if self._closing is None:
            try:
                return self._eval_shape(args, kwargs)
            except _WritesClosedRefs as e:
                self._close_over(e.refs)
        refs, inner = self._closing
        return inner.eval_shape(list(r[...] for r in refs), *args, **kwargs)[0]

    def _eval_shape(self, args, kwargs):
        record = self._record(args, kwargs, get_aval)  # also under a trace, on its tracers
        closed, out_tree = self._trace(record)
        out_avals = closed.out_avals
        if type(out_tree) is _RefOutputs:  # the Refs' new values are no outputs of the call
            out_tree, out_avals = out_tree.tree, out_avals[:out_tree.n_out]
        shardings = [None] * len(out_avals)
        if self._out_shardings is not None:
            shardings = [
                None if g is None else placement.resolve_given(g, "out_shardings",
                                                               "jit out_shardings")
                for g in placement.result_sharding_leaves(self._out_shardings, out_tree,
                                                          len(out_avals))]
        return out_tree.unflatten(result_structs(out_avals, shardings))

    def _own_keys(self, cache):
        return [k for k in cache.data if k[0] == self._serial]

    def _cache_size(self):
        return len(self._own_keys(_programs))

    def _clear_cache(self):
        for cache in (_programs, _traces):
            for k in self._own_keys(cache):
                del cache.data[k]
        if self.cpp is not None:
            type(self.cpp)._clear_cache(self.cpp)

    def __repr__(self):
        return f"<minijax.jit of {self._fun!r}>"


_all_jit_functions = weakref.WeakSet()

# Every jitted function's executables ((serial, signature key) -> _CacheEntry) and traces
# ((serial, trace key) -> (ClosedJaxpr, output pytree)), bounded together as JAX bounds its
# compilation caches: a process meets ever new functions and shapes (caches.py says why).
_programs = caches.BoundedCache(caches.EXECUTABLES)
_traces = caches.BoundedCache(caches.EXECUTABLES)
_serials = itertools.count()


def _clear_all():
    _programs.clear()
    _traces.clear()
    for f in list(_all_jit_functions):
        if f.cpp is not None:
            type(f.cpp)._clear_cache(f.cpp)


_compile.register_cache(type("_JitCaches", (), {"clear": staticmethod(_clear_all)})())


def jit(fun=None, **kwargs):
    """``jit(f, static_argnums=..., static_argnames=..., donate_argnums=...)``; also a decorator
    factory when called without ``fun`` (``@jit(static_argnums=0)``)."""
    if fun is None:
        return lambda f: JitFunction(f, **kwargs).public()
    return JitFunction(fun, **kwargs).public()


def is_jitted(fun):
    """Whether ``fun`` is what ``jit`` returned (a JitFunction or its C++ PjitFunction)."""
    return isinstance(fun, JitFunction) or isinstance(getattr(fun, "_jit", None), JitFunction)


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
    return fn(*args)


dispatch.Hooks.apply_sharded = apply_sharded
lax_linalg.Hooks.jit = jit  # lax.linalg.qdwh is jitted, as JAX's
