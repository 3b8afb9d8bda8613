"""``jnp.ufunc`` and ``jnp.frompyfunc``: JAX 0.10.2's universal functions, with ``reduce``,
``accumulate``, ``at`` (``inplace=False`` only: arrays are immutable), ``reduceat`` and
``outer``.

A ufunc made from a jnp function passes its call straight to that function: each instance is
of its own subclass whose ``__call__`` *is* the function, so ``jnp.add(x, y)`` costs what the
plain function did. A ufunc from ``frompyfunc`` calls ``jnp.vectorize`` of the scalar
function. The generic ``reduce``/``accumulate``/``at``/``reduceat`` loop over the axis with
``fori_loop``/``scan`` as JAX's do; the jnp ufuncs pass faster ones (``add.reduce`` is ``sum``).
"""

from __future__ import annotations

import inspect
import math
import operator

import numpy as np

from minijax import lax
from minijax.jitting import jit
from minijax.numpy._util import canonicalize_axis, check_arraylike
from minijax.numpy.creation import asarray
from minijax.numpy.functional import vectorize
from minijax.numpy.indexing_routines import take
from minijax.numpy.manipulation import append, broadcast_to, moveaxis
from minijax.numpy.sorting import where as _where
from minijax.vmapping import vmap

__all__ = ["frompyfunc", "ufunc"]

_AT_INPLACE_WARNING = """\
Because JAX arrays are immutable, jnp.ufunc.at() cannot operate inplace like
np.ufunc.at(). Instead, you can pass inplace=False and capture the result; e.g.
>>> arr = jnp.add.at(arr, ind, val, inplace=False)
"""


class ufunc:
    """A universal function: ``ufunc(func, nin, nout, *, name, nargs, identity, call, reduce,
    accumulate, at, reduceat)`` as ``jax.numpy.ufunc``."""

    def __new__(cls, func, /, nin, nout, *, name=None, nargs=None, identity=None, call=None,
                reduce=None, accumulate=None, at=None, reduceat=None):
        if cls is ufunc:
            # An instance's own subclass: the type's __call__ is the function itself.
            cls = type("ufunc", (ufunc,), {"__call__": staticmethod(
                call if call is not None else _vectorized_call(func, name or func.__name__)),
                "__module__": "minijax.numpy"})
        return super().__new__(cls)

    def __init__(self, func, /, nin, nout, *, name=None, nargs=None, identity=None, call=None,
                 reduce=None, accumulate=None, at=None, reduceat=None):
        self.__doc__ = func.__doc__
        self.__name__ = name or func.__name__
        # inspect would otherwise drop the first parameter of the static __call__
        self.__signature__ = inspect.signature(type(self).__call__)
        # Read-only properties keep a ufunc usable as a static (hashed) argument.
        self.__props = {
            "func": func, "nin": operator.index(nin), "nout": operator.index(nout),
            "nargs": operator.index(nargs or nin), "identity": identity, "reduce": reduce,
            "accumulate": accumulate, "at": at, "reduceat": reduceat,
        }

    _func = property(lambda self: self.__props["func"])
    nin = property(lambda self: self.__props["nin"])
    nout = property(lambda self: self.__props["nout"])
    nargs = property(lambda self: self.__props["nargs"])
    identity = property(lambda self: self.__props["identity"])

    def __hash__(self):
        return hash((self._func, self.__name__, self.identity, self.nin, self.nout, self.nargs))

    def __eq__(self, other):
        return isinstance(other, ufunc) and (
            (self._func, self.__name__, self.identity, self.nin, self.nout, self.nargs)
            == (other._func, other.__name__, other.identity, other.nin, other.nout, other.nargs))

    def __repr__(self):
        return f"<jnp.ufunc '{self.__name__}'>"

    def __reduce__(self):  # pickles as the module-level jnp ufunc of that name
        return self.__name__

    def _check_binary(self, method):
        if self.nin != 2:
            raise ValueError(f"{method} only supported for binary ufuncs")
        if self.nout != 1:
            raise ValueError(f"{method} only supported for functions returning a single value")

    def _result_dtype(self, *args):
        ones = [lax.full((), 1, asarray(a).dtype) for a in args]
        return self._func(*ones).dtype

    # ---------------------------------------------------------------------------------- reduce
    def reduce(self, a, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=None):
        """Reduces ``a`` along ``axis`` by repeated application of the ufunc."""
        check_arraylike(f"{self.__name__}.reduce", a)
        self._check_binary("reduce")
        if out is not None:
            # JAX 0.10.2 refuses it too: NotImplementedError("out argument of add.reduce()")
            raise NotImplementedError(f"out argument of {self.__name__}.reduce()")
        if initial is not None:
            check_arraylike(f"{self.__name__}.reduce", initial)
        if where is not None:
            check_arraylike(f"{self.__name__}.reduce", where)
            if self.identity is None and initial is None:
                raise ValueError(f"reduction operation {self.__name__!r} does not have an "
                                 "identity, so to use a where mask one has to specify 'initial'.")
            if asarray(where).dtype != bool:
                raise ValueError(f"where argument must have dtype=bool; got "
                                 f"dtype={asarray(where).dtype}")
        reduce = self.__props["reduce"] or self._reduce_via_scan
        return reduce(a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial, where=where)

    def _reduce_via_scan(self, arr, axis=0, dtype=None, keepdims=False, initial=None,
                         where=None):
        arr = asarray(arr)
        if initial is None:
            initial = self.identity
        if dtype is None:
            dtype = self._result_dtype(arr, arr)
        if where is not None:
            where = broadcast_to(where, arr.shape)
        if isinstance(axis, tuple):
            # JAX 0.10.2 refuses it too: NotImplementedError("tuple of axes")
            raise NotImplementedError("tuple of axes")
        if axis is None:
            final_shape = (1,) * arr.ndim if keepdims else ()
            arr = arr.ravel()
            where = None if where is None else where.ravel()
            axis = 0
        else:
            axis = canonicalize_axis(axis, arr.ndim)
            final_shape = ((*arr.shape[:axis], 1, *arr.shape[axis + 1:]) if keepdims
                           else (*arr.shape[:axis], *arr.shape[axis + 1:]))
        if axis != 0:
            arr = moveaxis(arr, axis, 0)
            where = None if where is None else moveaxis(where, axis, 0)
        if arr.shape[0] == 0:
            if initial is None:
                raise ValueError(f"zero-size array to reduction operation {self.__name__} "
                                 "which has no identity")
            return lax.full(final_shape, initial, dtype)

        def body(i, val):
            new = self(val, arr[i].astype(dtype))
            return new if where is None else _where(where[i], new, val)

        start, value = (1, arr[0]) if initial is None else (0, initial)
        value = broadcast_to(asarray(value).astype(dtype), arr.shape[1:])
        result = lax.fori_loop(start, arr.shape[0], body, value)
        return result.reshape(final_shape) if keepdims else result

    # ------------------------------------------------------------------------------ accumulate
    def accumulate(self, a, axis=0, dtype=None, out=None):
        """The running reduction of ``a`` along ``axis``."""
        self._check_binary("accumulate")
        if out is not None:
            # JAX 0.10.2 refuses it too: NotImplementedError("out argument of add.accumulate()")
            raise NotImplementedError(f"out argument of {self.__name__}.accumulate()")
        accumulate = self.__props["accumulate"] or self._accumulate_via_scan
        return accumulate(a, axis=axis, dtype=dtype)

    def _accumulate_via_scan(self, arr, axis=0, dtype=None):
        check_arraylike(f"{self.__name__}.accumulate", arr)
        arr = asarray(arr)
        if dtype is None:
            dtype = self._result_dtype(arr, arr)
        if axis is None or isinstance(axis, tuple):
            raise ValueError("accumulate does not allow multiple axes")
        axis = canonicalize_axis(axis, arr.ndim)
        if arr.size == 0:
            return lax.full(arr.shape, 0, dtype)
        arr = moveaxis(arr, axis, 0)

        def step(carry, _):
            i, x = carry
            y = _where(i == 0, arr[0].astype(dtype), self(x.astype(dtype), arr[i].astype(dtype)))
            return (i + 1, y), y

        _, result = lax.scan(step, (0, arr[0].astype(dtype)), None, length=arr.shape[0])
        return moveaxis(result, 0, axis)

    # -------------------------------------------------------------------------------------- at
    def at(self, a, indices, b=None, /, *, inplace=True):
        """``a`` with the ufunc applied at ``indices`` (with ``b``), unbuffered: repeated
        indices apply it repeatedly. Only ``inplace=False``."""
        if inplace:
            # JAX 0.10.2 refuses it too: NotImplementedError("Because JAX arrays are immutable..")
            raise NotImplementedError(_AT_INPLACE_WARNING)
        at = self.__props["at"] or self._at_via_scan
        return at(a, indices) if b is None else at(a, indices, b)

    def _at_via_scan(self, a, indices, *args):
        check_arraylike(f"{self.__name__}.at", a, *args)
        dtype = self._result_dtype(a, *args)
        a = asarray(a).astype(dtype)
        args = tuple(asarray(arg).astype(dtype) for arg in args)
        if not isinstance(indices, tuple):
            indices = (indices,)
        if not indices:
            return a
        shapes = [np.shape(i) for i in indices if not isinstance(i, slice)]
        shape = shapes and lax.broadcast_shapes(*shapes)
        if not shape:
            return a.at[indices].set(self(a.at[indices].get(), *args))
        if args:
            arg = broadcast_to(args[0], (*shape, *args[0].shape[len(shape):]))
            args = (arg.reshape(math.prod(shape), *args[0].shape[len(shape):]),)
        indices = [i if isinstance(i, slice) else broadcast_to(i, shape).ravel()
                   for i in indices]

        def step(carry, _):
            i, a = carry
            idx = tuple(ind if isinstance(ind, slice) else ind[i] for ind in indices)
            a = a.at[idx].set(self(a.at[idx].get(), *(arg[i] for arg in args)))
            return (i + 1, a), None

        (_, out), _ = lax.scan(step, (0, a), None, length=len(indices[0]))
        return out

    # -------------------------------------------------------------------------------- reduceat
    def reduceat(self, a, indices, axis=0, dtype=None, out=None):
        """Reductions of ``a`` over the slices ``indices[i]:indices[i+1]`` along ``axis``."""
        self._check_binary("reduceat")
        if out is not None:
            # JAX 0.10.2 refuses it too: NotImplementedError("out argument of add.reduceat()")
            raise NotImplementedError(f"out argument of {self.__name__}.reduceat()")
        reduceat = self.__props["reduceat"] or self._reduceat_via_scan
        return reduceat(a, indices, axis=axis, dtype=dtype)

    def _reduceat_via_scan(self, a, indices, axis=0, dtype=None):
        check_arraylike(f"{self.__name__}.reduceat", a, indices)
        a, indices = asarray(a), asarray(indices)
        if a.ndim == 0:
            raise ValueError(f"reduceat: a must have 1 or more dimension, got {a.shape=}")
        if indices.ndim != 1:
            raise ValueError(f"reduceat: indices must be one-dimensional, got {indices.shape=}")
        if axis is None or isinstance(axis, (tuple, list)):
            raise ValueError("reduceat requires a single integer axis.")
        axis = canonicalize_axis(axis, a.ndim)
        out = take(a, indices, axis=axis)
        others = [d for d in range(out.ndim) if d != axis]
        ind = lax.expand_dims(append(indices, a.shape[axis]), others)
        start = lax.slice_in_dim(ind, 0, ind.shape[axis] - 1, axis=axis)
        stop = lax.slice_in_dim(ind, 1, ind.shape[axis], axis=axis)

        def body(i, out):
            return _where((i > start) & (i < stop),
                          self(out, take(a, lax.expand_dims(i, (0,)), axis=axis)), out)

        return lax.fori_loop(0, a.shape[axis], body, out)

    # ----------------------------------------------------------------------------------- outer
    def outer(self, A, B, /):
        """The ufunc of every pair of elements: shape ``A.shape + B.shape``."""
        self._check_binary("outer")
        check_arraylike(f"{self.__name__}.outer", A, B)
        flat_a, flat_b = asarray(A).ravel(), asarray(B).ravel()
        result = vmap(vmap(self, (None, 0)), (0, None))(flat_a, flat_b)
        return result.reshape(*np.shape(A), *np.shape(B))


def _vectorized_call(func, name):
    fn = jit(vectorize(func))

    def call(*args, out=None, where=None):
        if out is not None:
            # JAX 0.10.2 refuses it too: NotImplementedError("out argument of <jnp.ufunc 'f'>")
            raise NotImplementedError(f"out argument of <jnp.ufunc '{name}'>")
        if where is not None:
            # JAX 0.10.2 refuses it too: NotImplementedError("where argument of <jnp.ufunc ...")
            raise NotImplementedError(f"where argument of <jnp.ufunc '{name}'>")
        return fn(*args)

    return call


def frompyfunc(func, /, nin, nout, *, identity=None):
    """A ufunc from a scalar function of ``nin`` arguments (``jnp.vectorize`` of it)."""
    return ufunc(func, nin, nout, identity=identity)
