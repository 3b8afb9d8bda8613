"""Arrays of an extended dtype (typed PRNG keys, ``key<fry>``) in the structural functions.

JAX's structural lax primitives (reshape, slice, concatenate, select_n, eq ...) accept key
arrays, and so jnp's structural functions do. minijax's keys are no core dtype: a key array
(``random.PRNGKeyArray``, registered in ``extended_array_types``) is a pytree node over its
uint32 data ``uint32[*shape, *key_shape]``, so transformations trace the data. A structural
function only moves elements, so it runs on each key word's *plane* (``x._planes()``: one
uint32 array of the keys' shape per word) and the results are put back together
(``x._from_planes``). The structural lax functions look for a key operand themselves (one type
test on their common path); the jnp ones are wrapped by ``numpy._util.on_extended_arrays``,
which looks for keys only once the function has refused its arguments. Both run ``on_planes``.
"""

from __future__ import annotations

import functools
import inspect

import numpy as np

from minijax.core import get_aval

# Array types of an extended dtype (minijax.random registers its key arrays: lax cannot
# import random).
extended_array_types = set()

_signatures = {}  # fn -> (its signature, its parameters' names)


def is_extended(x):
    """An extended array, or a list/tuple holding one."""
    return type(x) in extended_array_types or (
        type(x) in (list, tuple) and any(type(y) in extended_array_types for y in x))


def lax_mix_error(name):
    """The error of a lax function given keys with other operands (JAX's check_same_dtypes
    words; JAX 0.10.2 itself fails later, in lowering)."""
    def error(values):
        names = ", ".join(str(getattr(x, "dtype", None) or get_aval(x).dtype) for x in values)
        return TypeError(f"lax.{name} requires arguments to have the same dtypes, got {names}.")
    return error


def promotion_error(values):
    """jnp's error for keys mixed with other operands (JAX's promotion refuses the key)."""
    dtype = next(x.dtype for x in values if type(x) in extended_array_types)
    return ValueError(f"dtype={dtype} is not a valid dtype for JAX type promotion.")


def arguments(fn, args, kwargs):
    """``fn``'s parameters bound to ``args`` and ``kwargs`` (name -> value, defaults left
    out)."""
    return _bound(fn, args, kwargs)[0].arguments


def _bound(fn, args, kwargs):
    entry = _signatures.get(fn)
    if entry is None:
        signature = inspect.signature(fn)
        entry = _signatures[fn] = (signature, list(signature.parameters))
    return entry[0].bind(*args, **kwargs), entry[1]


def on_planes(fn, operands, args, kwargs, join=None, mix_error=promotion_error):
    """``fn(*args, **kwargs)`` for arguments holding extended arrays: ``fn`` on each word
    plane, the uint32 results back together as extended arrays; results of another dtype
    (``full_like(keys, 0, float)``, ``isnan``) are plane 0's, or ``join(planes' results)``
    (``eq``: all words equal). ``operands`` are the positions of ``fn``'s parameters holding
    array operands (alone or in a sequence: positions, so a renamed parameter does not break
    the check): every one must be an extended array of one dtype, else
    ``mix_error(their values)`` is raised."""
    bound, names = _bound(fn, args, kwargs)
    extended = [x for v in bound.arguments.values()
                for x in (v if type(v) in (list, tuple) else (v,))
                if type(x) in extended_array_types]
    dtype = extended[0].dtype
    values = []
    for i in operands:
        value = bound.arguments.get(names[i], ())
        values += value if type(value) in (list, tuple) else (value,)
    if any(type(x) not in extended_array_types or x.dtype != dtype for x in values):
        raise mix_error(values)
    planes = {id(x): x._planes() for x in extended}

    def plane(v, j):
        if type(v) in extended_array_types:
            return planes[id(v)][j]
        if type(v) in (list, tuple) and any(type(x) in extended_array_types for x in v):
            return type(v)(plane(x, j) for x in v)
        return v

    results = [fn(*[plane(v, j) for v in bound.args],
                  **{k: plane(v, j) for k, v in bound.kwargs.items()})
               for j in range(len(planes[id(extended[0])]))]

    def rejoin(rs):
        if type(rs[0]) in (list, tuple):
            return type(rs[0])(rejoin(r) for r in zip(*rs))
        if get_aval(rs[0]).dtype == np.uint32:
            return extended[0]._from_planes(rs)
        return rs[0] if join is None else functools.reduce(join, rs)

    return rejoin(results)
