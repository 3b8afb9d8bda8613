"""``jax.Ref``, ``jax.new_ref``, ``jax.freeze``: a mutable array cell.

A ``Ref`` holds one array; ``ref[idx]`` reads it and ``ref[idx] = v`` writes it, with
JAX's checks (the value must have the ref's dtype and the indexed shape). Its type,
``typeof(ref)``, is an ``AbstractRef`` over the array's ``ShapedArray``.

minijax's refs are host-side cells: one created and used inside a traced function works like
any local variable. A ref passed to ``jit`` (or ``eval_shape``) goes in as its value: the
traced function sees a Ref cell holding the value's tracer, the values of the refs it wrote
come out as extra outputs, and the call stores them in the caller's refs (JAX's discharge;
jitting/function.py). The cache key is the ref's type (``AbstractRef``), not the ref. A ref
cannot be an output of ``jit``, and one ref cannot be passed twice (JAX's errors).

A ref made outside a ``scan``/``fori_loop``/``while_loop`` body and written in it joins the
loop's carry, and holds the final value after the loop (lax/control_flow/ref_writes.py).
A jitted function that closes over a ref reads its current value and writes it back, the
same way. Under ``grad``, writing a differentiated value into a ref made outside the
differentiated function raises JAX's error.
"""

from __future__ import annotations

import numpy as np

from minijax import core
from minijax.interpreters import ad
from minijax.lax.control_flow import ref_writes
from minijax.lowering.array import Array, device_put_value

__all__ = ["AbstractRef", "Ref", "freeze", "new_ref"]


class AbstractRef(core.AbstractValue):
    """The type of a ``Ref`` holding arrays of type ``inner_aval``."""

    __slots__ = ("inner_aval", "memory_space", "kind")

    def __init__(self, inner_aval, memory_space=None, kind=None):
        self.inner_aval = inner_aval
        self.memory_space = memory_space
        self.kind = kind

    shape = property(lambda self: self.inner_aval.shape)
    dtype = property(lambda self: self.inner_aval.dtype)
    ndim = property(lambda self: self.inner_aval.ndim)
    size = property(lambda self: self.inner_aval.size)
    weak_type = property(lambda self: self.inner_aval.weak_type)
    vma = property(lambda self: self.inner_aval.vma)

    def __eq__(self, other):
        return (type(other) is AbstractRef and self.inner_aval == other.inner_aval
                and self.memory_space == other.memory_space and self.kind == other.kind)

    def __hash__(self):
        return hash((AbstractRef, self.inner_aval, self.memory_space, self.kind))

    def str_short(self, short_dtypes=False, mesh_axis_types=False):
        inner = self.inner_aval.str_short(short_dtypes, mesh_axis_types)
        space = "" if self.memory_space is None else f"<{self.memory_space}>"
        return f"Ref{space}{{{inner}}}"

    __repr__ = __str__ = str_short


class Ref:
    """A mutable cell holding one array (``new_ref`` makes one)."""

    __slots__ = ("_value", "_aval", "_made_in")

    def __init__(self, value, memory_space=None, kind=None):
        self._value = value
        self._made_in = core.current_trace()  # what differentiates it: see __setitem__
        self._aval = AbstractRef(core.get_aval(value), memory_space, kind)
        ref_writes.made(self)

    aval = property(lambda self: self._aval)
    shape = property(lambda self: self._aval.shape)
    dtype = property(lambda self: self._aval.dtype)
    ndim = property(lambda self: self._aval.ndim)
    size = property(lambda self: self._aval.size)

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __getitem__(self, idx):
        ref_writes.read(self)
        if idx is Ellipsis or (isinstance(idx, tuple) and not idx):
            return self._value
        _check_int_bounds(idx, self.shape)
        return self._value[idx]

    def __setitem__(self, idx, value):
        _check_int_bounds(idx, self.shape)
        value = _as_value(value)
        if (type(value) is ad.JVPTracer and type(value.tangent) is not ad.Zero
                and value._trace is not self._made_in):
            raise Exception(  # JAX 0.10.2's error, of type Exception
                "performing a set/swap operation with a differentiated value on a "
                f"non-differentiated array reference of type {type_str(self)}. Move the array "
                "reference to be an argument of the differentiated function?")
        target = core.get_aval(self[idx])
        if value.dtype != self.dtype:
            raise ValueError(f"Invalid dtype for `swap`. Ref dtype: {self.dtype}. "
                             f"Value dtype: {value.dtype}. ")
        if value.shape != target.shape:
            raise ValueError(f"Invalid shape for `swap`. Ref shape: {self.shape}. Expected "
                             f"shape: {target.shape}. Value shape: {value.shape}. Transforms: (). ")
        ref_writes.wrote(self, self._value)  # a loop being traced threads an outer ref
        if idx is Ellipsis or (isinstance(idx, tuple) and not idx):
            self._value = value
        else:
            self._value = self._value.at[idx].set(value)

    def _store(self, value):
        """Holds ``value`` (of this ref's type), unchecked and unreported: a loop's carry."""
        self._value = value

    def addupdate(self, value, idx=Ellipsis):
        """``ref[idx] += value``."""
        self[idx] = self[idx] + value

    def __repr__(self):  # the Array's repr (weak_type=True included), renamed
        body = repr(self._value)
        return "Ref" + body[len("Array"):] if body.startswith("Array(") else f"Ref({body})"

    __str__ = __repr__


def type_str(ref):
    """A Ref's type as JAX's errors print it: ``Ref{float32[3]}``."""
    return f"Ref{{{ref.dtype.name}[{','.join(map(str, ref.shape))}]}}"


def _check_int_bounds(idx, shape):
    """JAX's error for an integer index past the end of its axis (a negative one is clamped,
    as in JAX). Without it, ``np.asarray(ref)`` and ``list(ref)`` would never stop: an
    array's out-of-range index clamps rather than raising IndexError."""
    idx = idx if isinstance(idx, tuple) else (idx,)
    if any(i is Ellipsis for i in idx):
        at = next(k for k, i in enumerate(idx) if i is Ellipsis)
        consumed = sum(i is not None and i is not Ellipsis for i in idx)
        idx = idx[:at] + (slice(None),) * (len(shape) - consumed) + idx[at + 1:]
    axis = 0
    for i in idx:
        if i is None:
            continue
        if isinstance(i, (int, np.integer)) and not isinstance(i, bool) and axis < len(shape) \
                and i >= shape[axis]:
            raise ValueError(f"Out of bound indexer: idx={i}, dim={shape[axis]}.")
        axis += 1


def new_ref(init_val, *, memory_space=None, kind=None) -> Ref:
    """A new ``Ref`` holding ``init_val`` (an array, a scalar or a NumPy value)."""
    return Ref(_as_value(init_val), memory_space, kind)


def _as_value(x):
    """``x`` as an Array or tracer: Python scalars (weakly typed) and NumPy values go to the
    device, as ``jnp.asarray`` puts them; a list is refused, as JAX's refs refuse it."""
    return x if isinstance(x, (core.Tracer, Array)) else device_put_value(x)


def freeze(ref: Ref):
    """The array ``ref`` holds."""
    return ref[...]
