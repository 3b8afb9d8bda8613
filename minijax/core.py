"""The core: abstract values, primitives, the jaxpr IR, traces and tracers, eval and printing.

Tracing is *stackless*: there is one current trace (``current_trace()``), each trace knows its
parent, and ``Primitive.bind`` hands the primitive to the current trace. A trace that meets a
tracer it does not own treats it as a constant from outside; a tracer whose trace has finished
is detected and reported as ``UnexpectedTracerError``.

Rules live on the primitive objects (``prim.abstract_eval``, ``prim.lowering``, ``prim.jvp``,
``prim.transpose``, ``prim.batching``); interpreters only hold the machinery. The derivative
rules are attached with ``interpreters/ad.py``'s functions (``ad.defjvp``, ``ad.deflinear`` ...),
as in JAX.
"""

from __future__ import annotations

import collections
import contextlib
import enum
import itertools
import math
import re
import threading
import weakref

import numpy as np

from minijax import dtypes
from minijax.config import config
from minijax.errors import (
    ConcretizationTypeError,
    TracerArrayConversionError,
    TracerBoolConversionError,
    TracerIntegerConversionError,
    UnexpectedTracerError,
)
from minijax.source_info import (
    SourceInfo, jnp_function, note_user_line, user_frame, with_user_line)

# ------------------------------------------------------------------------------------------------
# Abstract values


class AbstractValue:
    """Base of every type a trace knows a value by (``ShapedArray``, a ref's ``AbstractRef``,
    the types libraries define on top)."""

    __slots__ = ()


class ManualAxisType:
    """The manual mesh axes a value's type carries inside shard_map: those it varies over,
    and those it holds unreduced / reduced partial results of (disjoint from ``varying``).
    Interned: equal ones are the same object (compared by identity, as JAX's)."""

    __slots__ = ("varying", "unreduced", "reduced", "__weakref__")
    _interned = weakref.WeakValueDictionary()

    def __new__(cls, *, varying=frozenset(), unreduced=frozenset(), reduced=frozenset()):
        varying, unreduced, reduced = frozenset(varying), frozenset(unreduced), frozenset(reduced)
        if varying & unreduced:
            raise ValueError("varying and unreduced cannot have common mesh axes. Got"
                             f" varying={varying} and unreduced={unreduced}")
        if varying & reduced:
            raise ValueError("varying and reduced cannot have common mesh axes. Got"
                             f" varying={varying} and reduced={reduced}")
        key = (varying, unreduced, reduced)
        obj = cls._interned.get(key)
        if obj is None:
            obj = object.__new__(cls)
            object.__setattr__(obj, "varying", varying)
            object.__setattr__(obj, "unreduced", unreduced)
            object.__setattr__(obj, "reduced", reduced)
            cls._interned[key] = obj
        return obj

    def __setattr__(self, name, value):
        raise AttributeError("ManualAxisType is immutable")

    def __repr__(self):
        return (f"ManualAxisType(varying={self.varying}, "
                f"unreduced={self.unreduced}, reduced={self.reduced})")

    def __getnewargs_ex__(self):
        return (), {"varying": self.varying, "unreduced": self.unreduced,
                    "reduced": self.reduced}

    def update(self, **kwargs):
        kwargs = {"varying": self.varying, "unreduced": self.unreduced,
                  "reduced": self.reduced, **kwargs}
        return ManualAxisType(**kwargs)

    def to_ct_mat(self):
        """The type of a cotangent: unreduced and reduced swap."""
        return self.update(unreduced=self.reduced, reduced=self.unreduced)

    @property
    def empty(self):
        return not (self.varying or self.unreduced or self.reduced)


class MemorySpace(enum.Enum):
    """The memory a value's type says it lives in (JAX's ``jax.memory.Space``): ``Device``, or
    ``Host`` for a value in pinned host memory (``memory_kind="pinned_host"``); ``Any`` is
    Pallas's (no minijax value has it)."""

    Device = enum.auto()
    Host = enum.auto()
    Any = enum.auto()

    def __repr__(self):
        return f"MemorySpace.{self.name}"

    __hash__ = object.__hash__  # as JAX's (Enum's hashes the name)


# The members as plain globals: reading ``MemorySpace.Device`` goes through Enum's descriptor
# (~90 ns), too slow for typing every traced op.
_DEVICE, _HOST = MemorySpace.Device, MemorySpace.Host


def mem_kind_to_space(memory_kind):
    """The memory space of a value placed with ``memory_kind``: only pinned host memory is
    ``Host`` in JAX 0.10.2's types ("unpinned_host" computes as device memory)."""
    return _HOST if memory_kind == "pinned_host" else _DEVICE


def mem_space_to_kind(memory_space):
    """The memory kind a value of ``memory_space`` is placed in (JAX's)."""
    if memory_space is _DEVICE:
        return "device"
    if memory_space is _HOST:
        return "pinned_host"
    raise ValueError(f"no memory kind places a value of {memory_space!r}")


class ShapedArray(AbstractValue):
    """The type of an array value: shape, dtype, whether the dtype is weak (a Python scalar),
    inside ``shard_map`` the manual mesh axes it varies over (``vma``), the memory it lives
    in (``memory_space``, a :class:`MemorySpace`) and, for a value split over ``Explicit`` mesh
    axes, its sharding (``explicit``: ``(abstract mesh, partitions)``, one entry per
    dimension, each None, an axis name or a tuple of names; None when no Explicit axis splits
    it, the common case, which costs nothing)."""

    __slots__ = ("shape", "dtype", "weak_type", "vma", "memory_space", "explicit", "_hash")

    # ``memory_space`` is keyword-only in JAX; here it may also come fifth (a positional
    # default costs less than a keyword-only one on this hot constructor)
    def __init__(self, shape, dtype, weak_type=False, vma=frozenset(), memory_space=_DEVICE,
                 explicit=None, *, sharding=None, manual_axis_type=None):
        if sharding is not None:  # JAX 0.10's keyword: a NamedSharding type
            explicit = explicit_of(sharding, tuple(shape))
        if manual_axis_type is not None:
            vma = manual_axis_type.varying
        self.shape = tuple(shape)
        # An extended dtype (a typed key's key<fry>) types a value but no operand of a primitive.
        self.dtype = dtype if isinstance(dtype, dtypes.ExtendedDType) else np.dtype(dtype)
        self.weak_type = bool(weak_type)
        self.vma = frozenset(vma)
        self.memory_space = memory_space
        self.explicit = explicit
        # the memory space and sharding stay out of the hash (types differing only there are
        # rare): no cost on the hot path of typing every traced op
        self._hash = hash((self.shape, self.dtype, self.weak_type, self.vma))

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))

    def update(self, shape=None, dtype=None, weak_type=None, vma=None, memory_space=None,
               explicit=False):
        """A copy with the given fields replaced. The sharding stays while the rank does
        (``explicit=None`` drops it, a ``(mesh, partitions)`` pair sets it)."""
        if explicit is False:
            explicit = self.explicit
            if explicit is not None and shape is not None and len(shape) != len(self.shape):
                explicit = None
        return ShapedArray(
            self.shape if shape is None else shape,
            self.dtype if dtype is None else dtype,
            self.weak_type if weak_type is None else weak_type,
            self.vma if vma is None else vma,
            self.memory_space if memory_space is None else memory_space,
            explicit,
        )

    @property
    def mat(self):
        """JAX 0.10's form of the manual axes this type varies over (``vma``)."""
        return ManualAxisType(varying=self.vma)

    def strip_weak_type(self):
        return self.update(weak_type=False) if self.weak_type else self

    def to_tangent_aval(self):
        """The type of a tangent of a value of this type: float0 for a dtype that is not
        inexact (integers, bools, typed keys), as in JAX."""
        if isinstance(self.dtype, dtypes.ExtendedDType) or not dtypes.is_inexact(self.dtype):
            return self.update(dtype=dtypes.float0)
        return self

    @property
    def manual_axis_type(self):
        return ManualAxisType(varying=self.vma)

    @property
    def sharding(self):
        """The sharding type: ``NamedSharding(abstract mesh, P(...))``; for a value no
        Explicit axis splits, the abstract mesh in context and ``P(None, ...)``."""
        if self.explicit is None:
            return unsharded_sharding(self.ndim)
        return typed_sharding(*self.explicit)

    def drop_dim(self, d):
        """The type of one slice along axis ``d`` (a scan's ``x``, a vmap example), its
        sharding kept on the other axes."""
        ex = self.explicit
        parts = None if ex is None else ex[1][:d] + ex[1][d + 1:]
        return self.update(shape=self.shape[:d] + self.shape[d + 1:],
                           explicit=None if parts is None or all(p is None for p in parts)
                           else (ex[0], parts))

    def add_dim(self, d, n):
        """The type of ``n`` values of this type stacked along a new axis ``d`` (a scan's
        ``ys``), its sharding kept on the other axes."""
        ex = self.explicit
        return self.update(shape=self.shape[:d] + (n,) + self.shape[d:],
                           explicit=None if ex is None else (ex[0], ex[1][:d] + (None,)
                                                             + ex[1][d:]))

    def parts(self):
        """The sharding's partitions, one per dimension (all None when unsharded)."""
        return (None,) * len(self.shape) if self.explicit is None else self.explicit[1]

    def __eq__(self, other):
        return (
            type(other) is ShapedArray
            and self.shape == other.shape
            and self.dtype == other.dtype
            and self.weak_type == other.weak_type
            and self.vma == other.vma
            and self.memory_space is other.memory_space
            and self.explicit == other.explicit
        )

    def __hash__(self):
        return self._hash

    def str_short(self, short_dtypes=False, mesh_axis_types=False):
        """JAX's type string: full dtype names unless ``short_dtypes`` (a jaxpr's ``f32[3]``);
        ``mesh_axis_types`` adds the mesh's axes by type (``({Explicit: ('x',)})``)."""
        dtype = (dtypes.short_name(self.dtype) if short_dtypes
                 and not isinstance(self.dtype, dtypes.ExtendedDType)
                 else dtypes.long_name(self.dtype))
        mesh = f"({self._axis_types_str()})" if mesh_axis_types else ""
        return f"{dtype}{self._space_str()}[{self._dims_str()}]{self._vma_str()}{mesh}"

    def _axis_types_str(self):
        """JAX's dict of the type's mesh axes by axis type: ``{Manual: ('i',)}``, ``{}``."""
        mesh = self.sharding.mesh
        by_type = {}
        for name, kind in zip(mesh.axis_names, mesh.axis_types):
            by_type.setdefault(kind, []).append(name)
        return repr({kind: tuple(names) for kind, names in by_type.items()})

    def _dims_str(self):
        """``8,4``; a dimension split over Explicit axes as JAX prints it: ``8@x``, ``32@(x,y)``."""
        if self.explicit is None:
            return ",".join(map(str, self.shape))
        return ",".join(str(d) if p is None else f"{d}@{p}" if isinstance(p, str)
                        else f"{d}@({','.join(p)})"
                        for d, p in zip(self.shape, self.explicit[1]))

    def _space_str(self):
        """``<host>`` after the dtype for a value in host memory, as JAX prints it."""
        space = self.memory_space
        return "" if space is _DEVICE else f"<{space.name.lower()}>"

    def _vma_str(self):
        """``{V:i}``, ``{V:(i,j)}`` as JAX prints it (JAX orders the axes as its type's mesh
        does; a minijax type has no mesh, so by name)."""
        if not self.vma:
            return ""
        names = ",".join(sorted(map(str, self.vma)))
        return f"{{V:{names}}}" if len(self.vma) == 1 else f"{{V:({names})}}"

    def __repr__(self):
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self.str_short()}{weak})"

    def __str__(self):  # as JAX's: a weak type is marked ``~`` (``~float32[]``)
        return ("~" if self.weak_type else "") + self.str_short()


dtypes.shaped_array = ShapedArray  # the type a TypedNdArray makes its aval of


class AbstractToken(AbstractValue):
    """The type of an XLA token (``lax.create_token``, ``lax.after_all``): no shape nor dtype,
    only an order between effects. JAX has one instance, ``abstract_token``, which its code
    tests by identity; an ``AbstractToken()`` made anew equals no other (no ``__eq__``)."""

    __slots__ = ()

    def str_short(self, short_dtypes=False, mesh_axis_types=False):
        return "Tok"

    def to_tangent_aval(self):
        return self

    def strip_weak_type(self):
        return self

    def __repr__(self):
        return "AbstractToken()"


abstract_token = AbstractToken()


class Token:
    """A concrete token. XLA passes a token-typed parameter or result as an empty boolean
    buffer (JAX's too): ``_buf`` is that Array, which jit's arguments and results carry."""

    __slots__ = ("_buf",)

    def __init__(self, buf):
        self._buf = buf

    def block_until_ready(self):
        self._buf.block_until_ready()


# The type of a token's buffer (JAX's ``get_token_aval()``).
token_buffer_aval = ShapedArray((0,), np.bool_)


class WeakScalar:
    """A Python scalar already converted to an array's dtype, still weakly typed.

    ``lax.mul(x_bf16, 2.0)`` passes ``WeakScalar(2.0 as bf16)``: it prints as the literal
    ``2.0:bf16[]`` and, like the Python scalar it came from, does not make the result strong.
    """

    __slots__ = ("val", "aval")

    def __init__(self, value, dtype):
        if type(value) is int:
            self.val = dtypes.python_scalar_as(value, dtype)  # JAX's overflow rule
        else:
            self.val = np.asarray(value, dtype)
        self.aval = ShapedArray((), self.val.dtype, weak_type=True)

    def __array__(self, dtype=None, copy=None):
        return self.val if dtype is None else self.val.astype(dtype)

    def __repr__(self):
        return f"WeakScalar({self.val!r})"


_BUILTIN_SCALARS = (bool, int, float, complex)
# The weakly typed rank-0 type of a built-in Python scalar, per (type, x64): built once (a
# Python float constant stays one under tracing and is typed at every use)
_builtin_scalar_avals = {}


def get_aval(x) -> ShapedArray:
    """The abstract value of anything that can be an operand: Tracer, Array, NumPy, scalar."""
    aval = getattr(x, "aval", None)
    if aval is not None:
        return aval
    t = type(x)
    if t in _BUILTIN_SCALARS:
        key = (t, config.jax_enable_x64)
        aval = _builtin_scalar_avals.get(key)
        if aval is None:
            aval = _builtin_scalar_avals[key] = ShapedArray(
                (), dtypes.python_scalar_dtype(x), t is not bool)
        return aval
    if dtypes.is_python_scalar(x):  # a typed scalar (TypedFloat...) carries its own dtype
        return ShapedArray((), dtypes.python_scalar_dtype(x), True)
    if isinstance(x, (np.ndarray, np.generic)):
        return ShapedArray(x.shape, dtypes.canonicalize_dtype(x.dtype))
    typeof_fn = pytype_aval_mappings.get(type(x))
    if typeof_fn is not None:
        return typeof_fn(x)
    raise TypeError(f"Value {x!r} of type {type(x).__name__} is not a valid minijax type")


# Library types that know their own abstract value (``hijax.register_hitype``): type -> typeof.
pytype_aval_mappings = {}
pytype_aval_mappings[Token] = lambda _: abstract_token

# The sharding classes sit above core (they need the backends); sharding_types.py installs
# these three. ndim -> the sharding type of a value no mesh axis splits
# (``ShapedArray.sharding``); (abstract mesh, partitions) -> the NamedSharding of that type;
# (NamedSharding, shape) -> the ``explicit`` field of a value of that shape typed with it
# (None if no Explicit axis of its mesh splits it).
unsharded_sharding = None
typed_sharding = None
explicit_of = None

# (prim, args, params) -> outputs: how the eval trace runs a primitive that has no ``impl``
# (compile its lowering, execute it). lowering/dispatch.py, above core, installs this.
apply_primitive = None


# ------------------------------------------------------------------------------------------------
# Primitives


class Primitive:
    """An operation of the IR. Its rules are attributes, set with the ``def_*`` methods (the
    derivative rules with ``interpreters/ad.py``'s functions, as in JAX)."""

    multiple_results = False

    def __init__(self, name, multiple_results=False):
        self.name = name
        self.multiple_results = multiple_results
        self.abstract_eval = None  # (*avals, **params) -> aval | list of avals
        self.lowering = None  # (ctx, *ir values, **params) -> ir value | list of values
        # The derivative rules, attached with interpreters/ad.py's functions and registries:
        self.jvp = None  # (primals, tangents, **params) -> (primal_out, tangent_out)
        self.transpose = None  # (ct, *args, **params) -> cts; primitives linear in some operand
        self.linear = False  # linear in its inexact operands (ad.deflinear): has a transpose
        # Transposed even when no cotangent reaches it (custom_vjp's bwd may give nonzero
        # cotangents for zero ones, and JAX runs it); others are skipped then.
        self.transpose_zero_cotangents = False
        self.not_differentiable = False  # every output's tangent is zero (ad.defjvp_zero)
        # params -> whether partial evaluation stages the equation even when every operand is
        # known: a tangent-only op that cannot run forward (custom_lin), as JAX's linearize
        # stages every tangent op of its own.
        self.staged_when_known = False
        self.batching = None  # filled by vmap
        self.pp_params = None  # optional: params -> the params as a jaxpr should show them
        self.pp_callee = None  # optional: params -> the called Jaxpr, printed in the caller's names
        # A side effect: dead-code elimination keeps the equation, CSE never merges two.
        self.effectful = False
        # Collectives: params -> the named axes it uses (vmap and shard_map look for them).
        self.axis_names_of = None
        # Inside shard_map, its abstract eval sets its results' varying manual axes itself
        # (collectives, pvary, jit/checkpoint calls, cond and loops: no pvary of its operands
        # at bind); other primitives' results vary where an operand does.
        self.own_vma = False
        # Its abstract eval sets its results' memory space itself (device_put; a primitive
        # running a body, whose results are the body's); other primitives' results are in the
        # memory of their operands of rank > 0, which must agree (JAX's default rule).
        self.own_memory_space = False
        # (*avals, **params) -> the result's partitions when an operand is split over Explicit
        # mesh axes (see ``_with_sharding``); None: JAX's "sharding rule ... not implemented".
        self.sharding_rule = None
        self.impl = None  # eager implementation; default: compile the lowering (dispatch.py)
        # (trace, args, params) -> outs: how a PartialEvalTrace splits an equation whose operands
        # are partly known (control flow stages only its unknown part); default: stage it all
        self.partial_eval = None
        # (operand aval, result aval) -> whether the result of this one-operand primitive is
        # its operand: a jaxpr being built binds the operand instead of an equation (JAX's
        # forwarding rules, applied after the abstract eval has checked the params)
        self.forwards_operand = None

    def __repr__(self):
        return self.name

    def def_abstract_eval(self, rule):
        self.abstract_eval = rule
        return rule

    def def_lowering(self, rule):
        self.lowering = rule
        return rule

    def def_batching(self, rule):
        self.batching = rule
        return rule

    def def_impl(self, impl):
        self.impl = impl
        return impl

    def bind(self, *args, **params):
        if _ctx.check_vma and len(args) > 1 and not self.own_vma:
            args = insert_pvary(args)
        return _ctx.trace.process_primitive(self, args, params)

    def get_bind_params(self, params):
        """The keyword arguments that re-bind an equation with ``params``: its params
        themselves (minijax's equations keep their sub-jaxprs as params)."""
        return dict(params)

    def missing_rule(self, rule):
        """The error for a missing ``rule`` ("Abstract evaluation", "Batching rule",
        "Differentiation rule"), in JAX's words."""
        # JAX 0.10.2 refuses it too, in these words; the user's line is a note, so that the
        # message stays JAX's inside a jnp function too (no "jnp.nextafter: " prefix)
        e = NotImplementedError(f"{rule} for '{self.name}' not implemented")
        note_user_line(e)
        return e


def abstract_eval(prim, avals, params):
    """Runs a primitive's shape/dtype rule; its errors keep their message (JAX's) and get a
    note naming the user's file:line."""
    rule = prim.abstract_eval
    if rule is None:
        raise prim.missing_rule("Abstract evaluation")
    try:
        out = rule(*avals, **params)
    except (TypeError, ValueError) as e:
        note_user_line(e)
        raise
    vma = frozenset().union(*(getattr(a, "vma", ()) for a in avals))
    if vma and not prim.own_vma:
        # a value computed from varying operands varies (the own_vma primitives type their
        # results themselves)
        if prim.multiple_results:
            out = [_with_vma(a, vma) for a in out]
        else:
            out = _with_vma(out, vma)
    for a in avals:  # a plain loop: typing every traced op pays no call for these
        if type(a) is ShapedArray and (a.memory_space is not _DEVICE or a.explicit is not None):
            if any(type(b) is ShapedArray and b.explicit is not None for b in avals):
                out = _with_sharding(prim, avals, params, out)
            if not prim.own_memory_space:
                out = _in_memory_space(prim, avals, out)
            return out
    return out


class ShardingTypeError(Exception):
    """An operation's operands are split over Explicit mesh axes in a way its sharding rule
    refuses (JAX's ``core.ShardingTypeError``)."""


def _with_sharding(prim, avals, params, out):
    """``out`` typed with the sharding ``prim``'s rule gives for operands split over Explicit
    mesh axes (JAX's ``call_sharding_rule``). A rule returns the result's partitions (a list
    of them for several results), or None where the abstract eval typed its results itself
    (a primitive running a body)."""
    rule = prim.sharding_rule
    if rule is None:
        raise ShardingTypeError(with_user_line(
            f"sharding rule for {prim.name} is not implemented. Please file an issue at "
            "https://github.com/jax-ml/jax/issues. You can work around this error by dropping "
            "that operation into full auto sharding mode via: "
            "`jax.sharding.auto_axes(fun, out_shardings=...)`"))
    mesh = None
    for a in avals:
        if type(a) is ShapedArray and a.explicit is not None:
            if mesh is not None and a.explicit[0] != mesh:
                raise ShardingTypeError(with_user_line(
                    f"Mesh for all inputs should be equal. Got one mesh: {mesh} and another "
                    f"mesh: {a.explicit[0]}"))
            mesh = a.explicit[0]
    try:
        parts = rule(*avals, **params)
    except ShardingTypeError as e:
        raise ShardingTypeError(with_user_line(str(e))) from None
    if parts is None:
        return out
    if prim.multiple_results:
        if isinstance(parts, tuple):  # one prefix for every result (sharding_rules.Prefix)
            return [_typed(o, mesh, parts) for o in out]
        return [_typed(o, mesh, p) for o, p in zip(out, parts)]
    try:
        return _typed(out, mesh, parts)
    except DuplicateSpecError:
        shown = ", ".join(a.str_short(True) for a in avals if type(a) is ShapedArray)
        result = out.update(explicit=(mesh, _full_parts(parts, out.ndim)))
        raise ShardingTypeError(with_user_line(
            f"{prim.name} operation with inputs: {shown} produces an illegally sharded "
            f"result: {result.str_short(True)}")) from None


def _full_parts(parts, ndim):
    """A rule's partitions for a result of rank ``ndim`` (a rule may give only the leading
    dimensions': the others are whole)."""
    parts = tuple(parts)[:ndim]
    return parts + (None,) * (ndim - len(parts))


def _typed(aval, mesh, parts):
    if type(aval) is not ShapedArray:
        return aval
    parts = _full_parts(parts, aval.ndim)
    check_no_duplicate_axes(parts)
    return aval.update(explicit=None if all(p is None for p in parts) else (mesh, parts))


class DuplicateSpecError(Exception):
    """A sharding names a mesh axis for two dimensions (JAX's ``DuplicateSpecError``)."""


def check_no_duplicate_axes(parts, arg_name="NamedSharding spec", spec=None):
    """A mesh axis splits at most one dimension, in JAX's words (naming every repeated axis;
    ``spec`` is the PartitionSpec to show, default ``parts``')."""
    counts = {}
    for p in parts:
        for name in (() if p is None or not isinstance(p, (str, tuple)) else
                     (p,) if isinstance(p, str) else p):
            counts[name] = counts.get(name, 0) + 1
    twice = sorted(f"`{n}`" for n, c in counts.items() if c > 1)
    if twice:
        if spec is None:
            spec = "P(" + ", ".join(map(repr, parts)) + ("," if len(parts) == 1 else "") + ")"
        raise DuplicateSpecError(
            f"A single {arg_name} specification can map every mesh axis to at most one "
            f"positional dimension, but {spec} has duplicate entries for {', '.join(twice)}")


def _with_vma(aval, vma):
    return aval.update(vma=vma) if type(aval) is ShapedArray and aval.vma != vma else aval


def _in_memory_space(prim, avals, out):
    """``out`` in the memory space of the operands of rank > 0 (they must agree; scalars
    take any), else in device memory: JAX's default memory-space rule."""
    first = check_memory_spaces(prim.name, avals)
    space = _DEVICE if first is None else first.memory_space

    def put(aval):
        return (aval.update(memory_space=space)
                if type(aval) is ShapedArray and aval.memory_space is not space else aval)

    return [put(a) for a in out] if prim.multiple_results else put(out)


def check_memory_spaces(name, avals):
    """JAX's default memory-space rule's check for primitive ``name``: the operands of rank
    > 0 are in one memory space. Returns the first of them (None if none). Its error is JAX's
    text exactly (no jnp function or user line added: tests compare it whole)."""
    first = None
    for a in avals:
        if type(a) is not ShapedArray or not a.shape:
            continue
        if first is not None and first.memory_space is not a.memory_space:
            raise ValueError(
                f"memory_space of all inputs passed to `{name}` must be the same. Got one "
                f"operand with type: {first.str_short()} and another operand with type: "
                f"{a.str_short()}")
        first = a
    return first


# (args) -> args: inside a shard_map body traced with check_vma, an operand that varies over
# fewer manual axes than another is cast to varying over all of them with an explicit pvary
# (whose transpose is the psum that sums a replicated input's cotangents). lax/parallel.py,
# which defines pvary, installs this.
insert_pvary = None


# ------------------------------------------------------------------------------------------------
# The jaxpr IR


class Var:
    __slots__ = ("aval", "suffix")

    def __init__(self, aval, suffix=""):
        self.aval = aval
        self.suffix = suffix

    def __repr__(self):
        return f"Var({self.aval.str_short(True)})"


class Literal:
    """A scalar constant written inline in the jaxpr (``2.0:f32[]``)."""

    __slots__ = ("val", "aval")

    def __init__(self, val, aval):
        self.val = val
        self.aval = aval

    def __repr__(self):
        return f"Literal({self.val})"


# An equation's operand: a variable or an inline constant.
Atom = Var | Literal


class JaxprEqn:
    __slots__ = ("primitive", "invars", "outvars", "params", "source_info")

    def __init__(self, primitive, invars, outvars, params, source_info):
        self.primitive = primitive
        self.invars = invars
        self.outvars = outvars
        self.params = params
        self.source_info: SourceInfo | None = source_info

    # minijax's equations record no effects: a primitive with one is marked on the primitive
    # (Primitive.effectful), which is what dead-code elimination and CSE read.
    effects = frozenset()

    def __repr__(self):
        return pp_eqn(self, _Namer()).strip()


class Jaxpr:
    __slots__ = ("constvars", "invars", "outvars", "eqns")

    def __init__(self, constvars, invars, outvars, eqns):
        self.constvars = list(constvars)
        self.invars = list(invars)
        self.outvars = list(outvars)
        self.eqns = list(eqns)

    in_avals = property(lambda self: [v.aval for v in self.invars])
    out_avals = property(lambda self: [v.aval for v in self.outvars])

    def __str__(self):
        return pp_jaxpr(self)

    __repr__ = __str__

    def pretty_print(self, width=80):
        return pp_jaxpr(self, width=width)


class ClosedJaxpr:
    """A jaxpr with values for its constvars (closed-over arrays)."""

    __slots__ = ("jaxpr", "consts")

    def __init__(self, jaxpr, consts):
        self.jaxpr = jaxpr
        self.consts = list(consts)

    in_avals = property(lambda self: self.jaxpr.in_avals)
    out_avals = property(lambda self: self.jaxpr.out_avals)
    eqns = property(lambda self: self.jaxpr.eqns)

    def __str__(self):
        return pp_jaxpr(self.jaxpr)

    __repr__ = __str__

    def pretty_print(self, width=80):
        return pp_jaxpr(self.jaxpr, width=width)


def literal_value(lit):
    """The operand a Literal stands for. A weak literal stays weak: re-staged, batched or
    transposed, ``max b 0:i32[]`` or ``mul ct 2.0:f32[]`` keeps the weak type the traced
    program had. A Python float or complex (weak of its own dtype) stays one, unrounded."""
    if lit.aval.weak_type and type(lit.val) not in (float, complex):
        return WeakScalar(lit.val, lit.aval.dtype)
    return lit.val


def eval_jaxpr(jaxpr: Jaxpr, consts, *args):
    """Interprets a jaxpr with ``bind``, so it runs under whatever trace is current."""
    env = {}

    def read(v):
        return literal_value(v) if type(v) is Literal else env[v]

    for v, x in zip(jaxpr.constvars, consts):
        env[v] = x
    if len(args) != len(jaxpr.invars):
        raise TypeError(f"eval_jaxpr: expected {len(jaxpr.invars)} arguments, got {len(args)}")
    for v, x in zip(jaxpr.invars, args):
        env[v] = x
    for eqn in jaxpr.eqns:
        outs = eqn.primitive.bind(*map(read, eqn.invars), **eqn.params)
        if not eqn.primitive.multiple_results:
            outs = (outs,)
        for v, x in zip(eqn.outvars, outs):
            env[v] = x
    return [read(v) for v in jaxpr.outvars]


def jaxpr_as_fun(closed: ClosedJaxpr):
    return lambda *args: eval_jaxpr(closed.jaxpr, closed.consts, *args)


# ------------------------------------------------------------------------------------------------
# Printing, in JAX's style: { lambda c:f32[3]; a:f32[3]. let b:f32[3] = sin a in (b,) }


class _Namer:
    """One naming context for a whole printout, as JAX's ``JaxprPpContext``: a nested jaxpr's
    variables continue the sequence (``a b c ...``) instead of restarting, so a name means one
    variable wherever it appears. ``names`` may start with some variables named (``_`` drops)."""

    def __init__(self, names=None, shared=None):
        self.names = dict(names or {})
        self.shared = shared or {}  # Jaxpr -> the name it is printed under, first (let ... in)
        taken = set(self.shared.values())  # a variable is never named as a shared jaxpr
        self.fresh = (n for n in map(_encode_name, itertools.count()) if n not in taken)

    def __call__(self, v):
        if type(v) is Literal:
            return f"{_pp_literal(v.val)}:{v.aval.str_short(True)}"
        name = self.names.get(v)
        if name is None:
            name = self.names[v] = next(self.fresh) + v.suffix
        return name

    def binder(self, v):
        return f"{self(v)}:{v.aval.str_short(True)}"

    def same_names(self, for_vars, like_vars):
        """Names each of ``for_vars`` (a callee's binders) after the matching ``like_vars`` (the
        caller's atoms aliased with them), as JAX's ``suggest_same_var_names``: skipped where
        either is a literal, the callee variable is already named, or the caller's variable
        already lent its name (``jit(f)(x, x)``: the callee's second operand gets a new one)."""
        if len(for_vars) != len(like_vars):
            return
        lent = set()
        for for_v, like_v in zip(for_vars, like_vars):
            if (type(like_v) is Var and like_v not in lent and type(for_v) is Var
                    and for_v not in self.names):
                lent.add(like_v)
                self.names[for_v] = self(like_v)


def _jaxprs_in_params(params):
    for val in params.values():
        for v in val if isinstance(val, tuple) else (val,):
            if isinstance(v, Jaxpr):
                yield v
            elif isinstance(v, ClosedJaxpr):
                yield v.jaxpr


def _shared_jaxprs(top):
    """The nested jaxprs JAX prints once, before ``top``, as ``let name = { ... } in``: those
    reached more than once, and those of over 10 equations; each is named after the call that
    holds it (``jit``'s ``name``, else ``jaxpr``), numbered where names repeat."""
    names = {}
    counts = collections.Counter()
    queue = collections.deque([top])
    while queue:
        jaxpr = queue.popleft()
        counts[jaxpr] += 1 + (jaxpr is not top and len(jaxpr.eqns) > 10)
        for eqn in jaxpr.eqns:
            name = eqn.params.get("name")
            for sub in _jaxprs_in_params(eqn.params):
                queue.append(sub)
                if isinstance(name, str):
                    names.setdefault(sub, name.strip("<>"))
    shared, used = {}, collections.Counter()
    for jaxpr, count in counts.items():
        if count == 1:
            continue
        name = names.get(jaxpr, "jaxpr")
        if used[name]:
            used[name] += 1
            name += str(used[name] - 1)
        used[name] += 1
        shared[jaxpr] = name
    return shared


def _dropvars(jaxpr):
    """The names ``_`` of the top-level binders that no equation reads and no output is."""
    used = {v for v in jaxpr.outvars if type(v) is Var}
    dropped = {}
    for eqn in reversed(jaxpr.eqns):
        for v in eqn.outvars:
            if v not in used:
                dropped[v] = "_"
        used.update(v for v in eqn.invars if type(v) is Var)
    return dropped


def _encode_name(i):
    letters = ""
    while True:
        i, r = divmod(i, 26)
        letters = chr(ord("a") + r) + letters
        if i == 0:
            return letters


def _pp_literal(val):
    x = np.asarray(val)
    if x.dtype == dtypes.float0:  # a zero tangent's literal, of any shape: JAX's (b'',)
        return str(x.reshape(-1)[0]) if x.size else "(b'',)"
    if x.dtype == np.bool_:
        return str(bool(x))
    if x.dtype.kind in "iu":
        return str(int(x))
    if x.dtype.kind == "c":
        return str(complex(x))
    return repr(float(x))


def pp_param(value):
    """The text of a param value that is not a jaxpr."""
    if isinstance(value, np.dtype):
        return value.name
    if isinstance(value, type) and issubclass(value, np.generic):
        return np.dtype(value).name
    if isinstance(value, frozenset):  # sorted, an empty one too, as JAX's: frozenset({})
        return "frozenset({" + ", ".join(repr(e) for e in sorted(value)) + "})"
    # A tuple or list shows as its str does in JAX, a string item quoted (``axes=('i',)``); a
    # named tuple shows its repr, as JAX's.
    if type(value) is tuple:
        inner = ", ".join(map(_pp_item, value))
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return "[" + ", ".join(map(_pp_item, value)) + "]"
    return str(value)


def _pp_item(value):
    # A NumPy scalar item shows its repr too (``(np.int64(0),)``), as Python's str of a tuple,
    # and so does a device (``devices=(CpuDevice(id=0),)``)
    if isinstance(value, (str, np.generic)) or (hasattr(value, "platform")
                                                and hasattr(value, "id")):
        return repr(value)
    return pp_param(value)


# JAX's layout is a Wadler-Lindig document laid out at a width (80): text, concatenations,
# breaks, nesting (indentation after a broken break) and groups. A group prints its breaks as
# their text when all of it, flat, fits in what is left of the line, else as newlines. The
# documents are tuples, tagged by their first item.
def _text(s):
    return ("text", s)


def _brk(s=" "):
    return ("brk", s)


def _concat(*docs):
    return ("concat", docs)


def _nest(n, doc):
    return ("nest", n, doc)


def _group(doc):
    return ("group", doc)


def _join(sep, docs):
    out = []
    for d in docs:
        out += [sep, d] if out else [d]
    return ("concat", out)


def _fits(doc, room):
    """Whether ``doc``, flat, takes at most ``room`` columns (stops once it cannot)."""
    stack = [doc]
    while stack and room >= 0:
        d = stack.pop()
        if d[0] in ("text", "brk"):
            room -= len(d[1])
        elif d[0] == "concat":
            stack.extend(reversed(d[1]))
        else:  # nest, group: flat, their child
            stack.append(d[-1])
    return room >= 0


def _layout(doc, width):
    out, col = [], 0
    stack = [(0, True, doc)]  # (indentation, whether its breaks are newlines, document)
    while stack:
        indent, broken, d = stack.pop()
        tag = d[0]
        if tag == "text" or (tag == "brk" and not broken):
            out.append(d[1])
            col += len(d[1])
        elif tag == "brk":
            out.append("\n" + " " * indent)
            col = indent
        elif tag == "concat":
            stack.extend((indent, broken, c) for c in reversed(d[1]))
        elif tag == "nest":
            stack.append((indent + d[1], broken, d[2]))
        else:
            stack.append((indent, not _fits(d[1], width - col), d[1]))
    return "".join(out)


def _pp_vars(texts, sep=""):
    """Atoms as JAX lays them out: a line breaks only where the next one no longer fits."""
    return _nest(2, _group(_join(_concat(_text(sep), _group(_brk())), map(_text, texts))))


def _pp_value(value, namer):
    if isinstance(value, ClosedJaxpr):
        value = value.jaxpr
    if isinstance(value, Jaxpr):
        name = namer.shared.get(value)
        return _text(name) if name else _pp_body(value, namer)
    if type(value) is tuple and all(isinstance(j, (Jaxpr, ClosedJaxpr)) for j in value):
        inner = _join(_brk(), [_pp_value(j, namer) for j in value])
        return _group(_concat(_nest(2, _concat(_text("("), _brk(""), inner)), _brk(""), _text(")")))
    # as JAX's: an object's address (``<... object at 0x7f...>``) is masked, for stable text
    return _text(re.sub(r" at 0x([0-9a-fA-F]+)", lambda m: " at 0x" + "X" * len(m[1]),
                        pp_param(value)))


def _pp_eqn(eqn, namer):
    callee = eqn.primitive.pp_callee  # a call's body is named after its operands and results
    if callee is not None and callee(eqn.params) not in namer.shared:
        body = callee(eqn.params)
        namer.same_names(body.invars, eqn.invars)
        namer.same_names(body.outvars, eqn.outvars)
    lhs = _pp_vars([namer.binder(v) for v in eqn.outvars])
    shown = eqn.params
    hook = eqn.primitive.pp_params  # a primitive may print params as JAX does
    if hook is not None:
        shown = hook(shown)
    # a hook's list of pairs keeps its order (JAX's ``jit`` shows ``name`` first), else sorted
    items = shown if isinstance(shown, list) else sorted(shown.items())
    params = _concat()
    if items:
        pairs = _join(_brk(), [_concat(_text(f"{k}="), _pp_value(v, namer)) for k, v in items])
        params = _group(_concat(_nest(2, _concat(_text("["), _brk(""), pairs)),
                                _brk(""), _text("]")))
    rhs = (_text(eqn.primitive.name), params, _text(" "),
           _pp_vars([namer(v) for v in eqn.invars]))
    # JAX shows no binders, not ``_``, for no results
    return _concat(lhs, _text(" = "), *rhs) if eqn.outvars else _concat(*rhs)


def pp_eqn(eqn, namer):
    return _layout(_pp_eqn(eqn, namer), 80)


def _pp_body(jaxpr, namer):
    """``{ lambda ... }``: one line if it fits, else one equation a line, nested 4 in."""
    consts = _pp_vars([namer.binder(v) for v in jaxpr.constvars])
    invars = _pp_vars([namer.binder(v) for v in jaxpr.invars])
    eqns = _join(_brk("; "), [_pp_eqn(e, namer) for e in jaxpr.eqns])
    outs = _pp_vars([namer(v) for v in jaxpr.outvars], sep=",")
    close = ",)" if len(jaxpr.outvars) == 1 else ")"
    return _group(_concat(
        _nest(2, _concat(_text("{ lambda "), consts, _text("; "), invars, _text(". let"),
                         _nest(2, _concat(_brk(), eqns)), _brk(), _text("in ("), outs,
                         _text(close))),
        _text(" }")))


def pp_jaxpr(jaxpr: Jaxpr, width=80):
    """``jaxpr`` as text, laid out as JAX 0.10.2 lays it out in ``width`` columns: the shared
    jaxprs first (``let name = { ... } in``), then ``jaxpr``, one naming sequence throughout."""
    shared = _shared_jaxprs(jaxpr)
    namer = _Namer(_dropvars(jaxpr), shared)
    docs = []
    for sub, name in shared.items():
        docs += [_text(f"let {name} = "), _pp_body(sub, namer), _text(" in"), _brk()]
    docs.append(_pp_body(jaxpr, namer))
    return _layout(_concat(*docs), width)


# ------------------------------------------------------------------------------------------------
# Traces and tracers


class Trace:
    """An interpreter. ``process_primitive`` is called by ``bind`` while this trace is current."""

    def __init__(self, parent=None):
        self.parent = parent
        self.valid = True

    # Whether a constant lifted into this trace (``jnp.asarray(2.0)``) is its parent's: JAX's
    # ``stage_value`` of the JVP and batching traces, which hand a non-tracer down unchanged.
    lifts_to_parent = False

    def process_primitive(self, prim, args, params):
        # internal: every concrete trace overrides it (JAX's core.Trace has the same raise)
        raise NotImplementedError

    def invalidate(self):
        self.valid = False

    @property
    def main(self):
        """What names this transformation's level (JAX's ``Trace.main``, its trace tag, read by
        libraries such as equinox to tell their tracers apart): a minijax trace is its own."""
        return self


class _TraceContext(threading.local):
    """The current trace, one slot per thread: each thread traces its own functions (JAX's
    trace state is thread-local too). Written only by ``set_current_trace``; a new thread
    starts at the eval trace."""

    def __init__(self):
        self.trace = eval_trace
        self.check_vma = frozenset()  # the manual axes typed by vma here (see check_vma)


def current_trace():
    return _ctx.trace


def swap_current_trace(trace):
    """Makes ``trace`` current in this thread and returns the one it replaces: the only
    write to the slot (interpreters' hot paths call it directly, around a rule, and put the
    previous trace back in a ``finally``)."""
    ctx = _ctx
    prev = ctx.trace
    ctx.trace = trace
    if (prev is eval_trace) is not (trace is eval_trace) and on_tracing_change is not None:
        on_tracing_change(trace is not eval_trace)
    return prev


# Told True when this thread leaves the eval trace, False when it comes back: the C++ jit fast
# path keys on it (lowering/backends.py), so a jit called with constant arguments under a
# trace stages its equation rather than running a cached executable (JAX's fast path keys on
# its trace state likewise).
on_tracing_change = None


@contextlib.contextmanager
def set_current_trace(trace):
    """``trace`` is current inside the block."""
    prev = swap_current_trace(trace)
    try:
        yield trace
    finally:
        swap_current_trace(prev)


def escaped_tracer_error(tracer):
    source = getattr(tracer._trace, "source", None)
    made = f" It was created at {source}." if source else ""
    return UnexpectedTracerError(
        with_user_line(
            f"Encountered an unexpected tracer: {tracer.aval.str_short(True)} from a "
            f"transformation ({type(tracer._trace).__name__}) that has already finished.{made} "
            "A traced value escaped the function being transformed, for example by being "
            "stored in a global or an attribute. Return it as an output instead. To catch the "
            "leak where it happens, set JAX_CHECK_TRACER_LEAKS=1 or use "
            "`with minijax.checking_leaks():`."
        )
    )


class EvalTrace(Trace):
    """The trace at the bottom: primitives run now, each through its compiled lowering."""

    def process_primitive(self, prim, args, params):
        for x in args:
            if isinstance(x, Tracer):
                raise escaped_tracer_error(x)
        impl = prim.impl
        if impl is None:
            return apply_primitive(prim, args, params)  # the slot lowering/dispatch.py fills
        return impl(*args, **params)


eval_trace = EvalTrace()
_ctx = _TraceContext()  # after eval_trace: each thread's slot starts there


@contextlib.contextmanager
def eval_context():
    """Inside the block, primitives run now (tracers of an outer trace are refused)."""
    with set_current_trace(eval_trace):
        yield


class _CompileTimeEvalTrace(Trace):
    """Runs a primitive now when none of its operands is a tracer (a constant expression under
    ``jit`` folds instead of being staged); otherwise hands it to the enclosing trace."""

    def process_primitive(self, prim, args, params):
        if not any(isinstance(x, Tracer) for x in args):
            return eval_trace.process_primitive(prim, args, params)
        with set_current_trace(self.parent):
            return prim.bind(*args, **params)


@contextlib.contextmanager
def ensure_compile_time_eval():
    """``with ensure_compile_time_eval():`` inside a traced function: operations on concrete
    values (not tracers) run eagerly, so their results stay concrete (usable in Python control
    flow, as static shapes) instead of becoming part of the staged program."""
    parent = current_trace()
    if parent is eval_trace:
        yield  # already eager
        return
    with set_current_trace(_CompileTimeEvalTrace(parent)):
        yield


@contextlib.contextmanager
def check_vma(axes):
    """Inside the block, the manual mesh axes ``axes`` are typed (a value knows which of them it
    varies over): binding a primitive inserts ``pvary`` where operands vary over different axes
    (``insert_pvary``). shard_map traces its body in it; empty ``axes``: no checking."""
    prev, _ctx.check_vma = _ctx.check_vma, frozenset(axes)
    try:
        yield
    finally:
        _ctx.check_vma = prev


def vma_axes():
    """The manual mesh axes whose variance values are typed with here (``check_vma``)."""
    return _ctx.check_vma


def is_eval_trace_current():
    return _ctx.trace is eval_trace


class Tracer:
    """A value standing for an array inside a transformation. Operators come from the mixin."""

    __slots__ = ("_trace",)
    __array_priority__ = 1000

    @property
    def aval(self):
        # internal: every concrete tracer overrides it (JAX's core.Tracer has the same raise)
        raise NotImplementedError

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: self.aval.ndim)
    size = property(lambda self: self.aval.size)
    weak_type = property(lambda self: self.aval.weak_type)
    nbytes = property(lambda self: self.aval.size * self.aval.dtype.itemsize)
    itemsize = property(lambda self: self.aval.dtype.itemsize)

    def _is_traced_array(self):
        """jaxlib's ``isinstance(x, minijax.Array)`` asks this of instances of this class."""
        return isinstance(self.aval, ShapedArray)

    def __len__(self):
        if not self.aval.shape:
            raise TypeError("len() of unsized object")
        return self.aval.shape[0]

    def _error_repr(self):
        return f"traced array with shape {self.aval.str_short()}"  # JAX's

    def _conversion_error(self, first, cls=ConcretizationTypeError, advice=None):
        """``cls`` with JAX 0.10.2's message ``first``, then where the value came from (the
        argument or equation it depends on), what to do instead, and the user's line."""
        origin = getattr(self._trace, "describe_origin", None)
        origin = origin(self) if origin is not None else None
        text = f"{first}\n" + (f"{origin} " if origin else "") + (advice or (
            "The value depends on the function's inputs, which are abstract while tracing. "
            "For value-dependent control flow use lax.cond / lax.while_loop / jnp.where; if "
            "the value only depends on a configuration argument, mark that argument static "
            "with static_argnums= or static_argnames= in jit."))
        fn = jnp_function()  # named after JAX's words, which open the message
        info = user_frame()
        if fn:
            text += f" (in {fn})"
        return cls(text + (f"\n  at {info.describe()}" if info is not None else ""))

    def _abstract_value_error(self, context):
        return self._conversion_error(
            "Abstract tracer value encountered where concrete value is expected: "
            f"{self._error_repr()}\n{context}")

    def _concretization_error(self, what):
        """``what`` (a function needing a concrete value, named by the caller) was given this
        tracer: a ConcretizationTypeError."""
        return self._abstract_value_error(f"{what} was called on {self._error_repr()}.")

    def _method_error(self, method):
        return self._abstract_value_error(
            f"The {method}() method was called on {self._error_repr()}.")

    def _scalar_conversion_error(self, fun):
        # JAX's order: a non-scalar is refused for its shape before its abstractness
        if self.aval.ndim > 0:
            raise TypeError("Only scalar arrays can be converted to Python scalars; "
                            f"got arr.ndim={self.aval.ndim}")
        return self._abstract_value_error(
            f"The problem arose with the `{fun}` function. If trying to convert the data type "
            f"of a value, try using `x.astype({fun})` or `jnp.array(x, {fun})` instead.")

    def __bool__(self):
        # A non-scalar has no truth value even once concrete: NumPy's and JAX's ValueError.
        size = math.prod(getattr(self.aval, "shape", ()))
        if size == 0:
            raise ValueError("The truth value of an empty array is ambiguous. Use"
                             " `array.size > 0` to check that an array is not empty.")
        if size > 1:
            raise ValueError("The truth value of an array with more than one element"
                             " is ambiguous. Use a.any() or a.all()")
        raise self._conversion_error(
            f"Attempted boolean conversion of {self._error_repr()}.", TracerBoolConversionError)

    def __int__(self):
        raise self._scalar_conversion_error("int")

    def __index__(self):
        if self.aval.shape != () or not dtypes.is_int(self.aval.dtype):
            raise TypeError("Only integer scalar arrays can be converted to a scalar index.")
        raise self._conversion_error(
            f"The __index__() method was called on {self._error_repr()}",
            TracerIntegerConversionError)

    def __float__(self):
        raise self._scalar_conversion_error("float")

    def __complex__(self):
        raise self._scalar_conversion_error("complex")

    def __array__(self, *args, **kwargs):
        raise self._conversion_error(
            "The numpy.ndarray conversion method __array__() was called on "
            f"{self._error_repr()}", TracerArrayConversionError,
            "Use minijax.numpy (jnp) functions instead of numpy functions inside transformed "
            "code.")

    def __hash__(self):
        raise TypeError(f"unhashable type: '{type(self).__name__}'")  # JAX 0.10.2's words

    def __repr__(self):  # JAX 0.10.2's default (each tracer class may say more)
        return f"{type(self).__name__}<{self.aval}>"

    def __hex__(self):
        return hex(self.__index__())

    def __oct__(self):
        return oct(self.__index__())

    def __reduce__(self):
        raise self._abstract_value_error(
            "The error occurred in the __reduce__ method, which may indicate an attempt to "
            "serialize/pickle a traced value.")

    # The parts of the Array API that need a buffer: a ConcretizationTypeError naming the
    # user's line, as in JAX. ``sharding``, ``device``, ``block_until_ready`` and
    # ``copy_to_host_async`` raise AttributeError instead (as JAX's do), so that
    # ``getattr(x, "sharding", None)`` and ``hasattr`` keep working on tracers.
    def item(self, *args):
        raise self._abstract_value_error("This occurred in the item() method of jax.Array")

    def tolist(self):
        raise self._method_error("tolist")

    def tobytes(self, order="C"):
        raise self._method_error("tobytes")

    def __dlpack__(self, *args, **kwargs):
        raise self._method_error("__dlpack__")

    def addressable_data(self, index):
        raise self._method_error("addressable_data")

    def delete(self):
        raise self._method_error("delete")

    def devices(self):
        raise self._method_error("devices")

    def is_deleted(self):
        raise self._method_error("is_deleted")

    def on_device_size_in_bytes(self):
        raise self._method_error("on_device_size_in_bytes")

    def unsafe_buffer_pointer(self):
        raise self._method_error("unsafe_buffer_pointer")

    committed = property(lambda self: self._raise_concretization("the 'committed' attribute"))
    addressable_shards = property(
        lambda self: self._raise_concretization("the 'addressable_shards' attribute"))
    global_shards = property(
        lambda self: self._raise_concretization("the 'global_shards' attribute"))
    is_fully_addressable = property(
        lambda self: self._raise_concretization("the 'is_fully_addressable' attribute"))
    is_fully_replicated = property(
        lambda self: self._raise_concretization("the 'is_fully_replicated' attribute"))
    traceback = property(lambda self: self._raise_concretization("the 'traceback' attribute"))

    def _raise_concretization(self, what):
        raise self._concretization_error(what)

    @property
    def sharding(self):
        raise AttributeError(
            f"The 'sharding' attribute is not available on traced array "
            f"{self.aval.str_short(True)}. To query sharding information on tracers, use "
            "x.aval.")

    @property
    def device(self):
        raise AttributeError(
            f"The 'device' attribute is not available on traced array {self.aval.str_short(True)}.")

    @property
    def block_until_ready(self):
        raise AttributeError(
            f"The 'block_until_ready' method is not available on traced array "
            f"{self.aval.str_short(True)}.")

    @property
    def copy_to_host_async(self):
        raise AttributeError(
            f"The 'copy_to_host_async' method is not available on traced array "
            f"{self.aval.str_short(True)}.")


def concrete_or_error(fn, x, context=""):
    """``fn(x)`` for a concrete value (``x`` itself when ``fn`` is None, as JAX), a
    ConcretizationTypeError naming ``context`` for a tracer."""
    if isinstance(x, Tracer):
        raise x._abstract_value_error(context)  # JAX's message: the tracer, then the context
    return x if fn is None else fn(x)
