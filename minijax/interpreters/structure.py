"""A hashable key for what a jaxpr computes (the key of ``caches.BoundedCache`` entries).

Call-like primitives (``checkpoint``) differentiate and transpose their body jaxpr on every
call, yet a model calls the same function on the same types many times (64 identical layers):
each call traces a fresh jaxpr with fresh variables, but the same *structure*. ``structure_key``
names that structure: the operand types, each equation's primitive, params and operand wiring
(variables by position of definition, literals by value), and the outputs. Params that are not
plain values (nested jaxprs, user callables) enter the key as the objects themselves: they
compare by identity, and the cache holding the key keeps them alive, so an identity can not be
reused by another object while its entry exists. A param that cannot be hashed at all gives
``None``: no caching for that jaxpr.
"""

from __future__ import annotations

import numpy as np

from minijax.config import config
from minijax.core import Literal


class Unhashable(Exception):
    pass


def param_key(v, fallback=None):
    """``v`` (an equation's param) as a hashable value: lists and tuples element-wise, dicts
    sorted, arrays by their bytes. A value that cannot be hashed becomes ``fallback(v)``, or
    raises ``Unhashable`` without one."""
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, *(param_key(x, fallback) for x in v))
    if isinstance(v, dict):
        return ("dict", *sorted((k, param_key(x, fallback)) for k, x in v.items()))
    if isinstance(v, np.ndarray):
        return ("array", v.dtype.str, v.shape, v.tobytes())
    try:
        hash(v)
    except TypeError:
        if fallback is None:
            raise Unhashable from None
        return fallback(v)
    return v


def structure_key(jaxpr):
    """A hashable key equal for two open jaxprs (no constvars) that compute the same thing on
    the same types, or None when a param cannot be hashed."""
    index = {v: i for i, v in enumerate(jaxpr.invars)}

    def atom(a):
        if type(a) is Literal:
            val = np.asarray(a.val)
            return ("lit", val.dtype.str, val.tobytes(), a.aval.weak_type)
        return index[a]

    try:
        eqns = []
        for eqn in jaxpr.eqns:
            eqns.append((eqn.primitive, tuple(map(atom, eqn.invars)),
                         param_key(eqn.params), tuple(v.aval for v in eqn.outvars)))
            for v in eqn.outvars:
                index[v] = len(index)
        return (tuple(v.aval for v in jaxpr.invars), tuple(eqns),
                tuple(map(atom, jaxpr.outvars)), config.trace_state)
    except (Unhashable, KeyError):  # KeyError: a variable defined outside (not an open jaxpr)
        return None
