"""``jax.extend.core``: primitives, the jaxpr IR, and the trace queries libraries make.

``Primitive`` is minijax's own: its rules are attributes set with ``def_impl``,
``def_abstract_eval`` and the ``minijax.interpreters`` registries (views onto them).
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Set

import numpy as np

from minijax import dtypes
from minijax.core import (
    AbstractToken,
    ClosedJaxpr,
    Jaxpr,
    JaxprEqn,
    Literal,
    Primitive,
    Token,
    Var,
    current_trace,
    eval_jaxpr,
    get_aval,
    set_current_trace,
)
from minijax.core import concrete_or_error as _concrete_or_error
from minijax.interpreters import walk
from minijax.lowering.array import BaseArray
from minijax.source_info import user_frame

__all__ = [
    "AbstractToken", "ClosedJaxpr", "Effect", "Effects", "Jaxpr", "JaxprEqn", "Literal",
    "Primitive", "Token", "Var", "array_types", "concrete_or_error", "find_top_trace",
    "get_opaque_trace_state", "jaxpr_as_fun", "jaxprs_in_params", "mapped_aval",
    "new_jaxpr_eqn", "no_effects", "primal_dtype_to_tangent_dtype", "set_current_trace",
    "subjaxprs", "unmapped_aval", "valid_jaxtype",
]


class Effect:
    """A side effect a primitive may have (libraries subclass it to name their own)."""


Effects = Set[Effect]
no_effects: Effects = frozenset()

# The types that are arrays without conversion (Python scalars are converted).
array_types = {BaseArray, np.ndarray, *(np.dtype(t).type for t in dtypes.all_dtypes)}


def valid_jaxtype(x):
    try:
        get_aval(x)
    except TypeError:
        return False
    return True


def concrete_or_error(force, val, context=""):
    """``force(val)`` for a concrete value (``val`` itself when ``force`` is None); a
    ConcretizationTypeError naming ``context`` for a traced one."""
    return _concrete_or_error(force if force is not None else (lambda x: x), val, context)


def primal_dtype_to_tangent_dtype(dtype):
    return dtype if dtypes.is_inexact(dtype) else dtypes.float0


def mapped_aval(size, axis, aval):
    """``aval`` without its mapped ``axis`` (of length ``size``); ``aval`` if ``axis`` is None."""
    if axis is None:
        return aval
    if aval.shape[axis] != size:
        raise ValueError(
            f"mapped_aval: axis {axis} of {aval.str_short(True)} is not of size {size}")
    return aval.update(shape=aval.shape[:axis] + aval.shape[axis + 1:])


def unmapped_aval(size, axis, aval, explicit_mesh_axis=None):
    """``aval`` with a new ``axis`` of length ``size``; ``aval`` if ``axis`` is None."""
    del explicit_mesh_axis  # minijax's mesh axes are all Auto: nothing to record
    if axis is None:
        return aval
    if type(axis) is not int:
        raise TypeError(axis)
    return aval.update(shape=aval.shape[:axis] + (size,) + aval.shape[axis:])


def jaxpr_as_fun(closed_jaxpr, *args):
    """``closed_jaxpr`` as a function of its inputs returning the list of its outputs
    (curried as JAX's: extra arguments are bound first)."""
    return functools.partial(_eval_closed, closed_jaxpr, *args)


def _eval_closed(closed, *args):
    return eval_jaxpr(closed.jaxpr, closed.consts, *args)


def new_jaxpr_eqn(invars, outvars, primitive, params, effects=no_effects, source_info=None,
                  ctx=None):
    del effects, ctx  # minijax's equations record no effects or contexts
    return JaxprEqn(primitive, list(invars), list(outvars), dict(params),
                    source_info if source_info is not None else user_frame())


def jaxprs_in_params(params):
    """The jaxprs held in an equation's params (closed ones opened), in order."""
    for _, jaxpr in walk.sub_jaxprs(params):
        yield jaxpr.jaxpr if isinstance(jaxpr, ClosedJaxpr) else jaxpr


def subjaxprs(jaxpr):
    """The jaxprs nested in ``jaxpr``'s equations, one level deep."""
    for eqn in jaxpr.eqns:
        yield from jaxprs_in_params(eqn.params)


# ------------------------------------------------------------------------------------------------
# Which trace is running


def find_top_trace(xs):
    """The current trace (JAX's traces are stackless too; ``xs`` is not consulted)."""
    del xs
    return current_trace()


class OpaqueTraceState:
    """Identifies the running trace without keeping it alive: equal while the same trace is
    current (flax's nnx checks that a module is used in the trace it was made in)."""

    __slots__ = ("_trace_ref",)

    def __init__(self, trace_ref):
        self._trace_ref = trace_ref

    def __eq__(self, other):
        return isinstance(other, OpaqueTraceState) and self._trace_ref == other._trace_ref

    def __hash__(self):
        return hash(self._trace_ref)


def get_opaque_trace_state(convention=None):
    del convention
    return OpaqueTraceState(weakref.ref(current_trace()))

