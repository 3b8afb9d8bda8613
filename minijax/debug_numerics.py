"""``jax_debug_nans`` / ``jax_debug_infs``: find the operation that produced a NaN or an Inf.

With a flag on, every eager primitive checks its floating outputs, and a jitted function that
returns a NaN/Inf re-runs its jaxpr op by op (each equation as its own eager program) so the
``FloatingPointError`` names the first primitive that produced it and the user's ``file:line``
recorded on that equation. As in JAX, only the *outputs* of the jitted function are inspected
before the re-run: a NaN that a ``where`` masks away inside the program goes unreported.

Cost when both flags are off: one hook test in eager dispatch (``dispatch.Hooks.check_outputs``,
installed here while a flag is on) and one test of ``checking`` in jit's Python path; the C++
jit fast path carries a ``minijax_debug_numerics`` config in its cache key, so turning a flag
on misses that cache and the call is checked in Python.
"""

from __future__ import annotations

import numpy as np

from minijax.config import config
from minijax.core import Literal, literal_value
from minijax.lowering import backends, dispatch
from minijax.source_info import user_frame, with_user_line
from minijax.tree_util import _registry

_suppress = [0]  # >0 while a jaxpr re-run does its own checking (with equation source info)
checking = False  # jax_debug_nans or jax_debug_infs is on (jit's Python path reads it)


def _bad_kind(x):
    """'nan' / 'inf' if ``x`` (an Array or NumPy value) holds one that a flag asks about."""
    dtype = getattr(x, "dtype", None)
    if dtype is None or np.dtype(dtype).kind not in "fcV":  # V: bfloat16 and float8
        return None
    if getattr(x, "is_deleted", None) is not None and x.is_deleted():
        return None
    value = np.asarray(x)
    if value.dtype.kind == "V":
        value = value.astype(np.float32)
    if config.jax_debug_nans and np.isnan(value).any():
        return "nan"
    if config.jax_debug_infs and np.isinf(value).any():
        return "inf"
    return None


def check_eager(prim, outs):
    """Called by eager dispatch when a flag is on, with the list of one primitive's outputs."""
    if _suppress[0]:
        return
    for x in outs:
        kind = _bad_kind(x)
        if kind is not None:
            raise FloatingPointError(
                with_user_line(f"invalid value ({kind}) encountered in {prim.name}", user_frame())
            )


def check_jit(name, entry, leaves, outs):
    """Called by jit's Python path when a flag is on: re-run op by op if an output is bad."""
    flat = _registry.flatten(outs)[0]
    kinds = [k for k in map(_bad_kind, flat) if k is not None]
    if not kinds:
        return
    kind = kinds[0]
    if any(type(x).__name__ == "Array" and x.is_deleted() for x in leaves):
        raise FloatingPointError(
            f"invalid value ({kind}) encountered in the output of jit({name}); its arguments "
            "were donated, so it cannot be re-run op by op to find the operation"
        )
    rerun(entry.jaxpr, leaves, f"jit({name})")
    raise FloatingPointError(
        f"invalid value ({kind}) encountered in the output of jit({name}), but re-running it "
        "op by op did not reproduce it (XLA's fused program rounds differently); look at the "
        "jaxpr (minijax.make_jaxpr) for the operations that can produce it"
    )


def rerun(closed, args, where):
    """Evaluates ``closed`` equation by equation eagerly; raises at the first bad output."""
    jaxpr = closed.jaxpr
    env = {}

    def read(v):
        return literal_value(v) if type(v) is Literal else env[v]

    for v, x in zip(jaxpr.constvars, closed.consts):
        env[v] = x
    for v, x in zip(jaxpr.invars, args):
        env[v] = x
    _suppress[0] += 1
    try:
        for eqn in jaxpr.eqns:
            outs = eqn.primitive.bind(*map(read, eqn.invars), **eqn.params)
            if not eqn.primitive.multiple_results:
                outs = (outs,)
            for v, x in zip(eqn.outvars, outs):
                env[v] = x
                kind = _bad_kind(x)
                if kind is not None:
                    at = eqn.source_info.describe() if eqn.source_info is not None else "?"
                    raise FloatingPointError(
                        f"invalid value ({kind}) encountered in {eqn.primitive.name} "
                        f"(re-running {where} op by op)\n  at {at}"
                    )
    finally:
        _suppress[0] -= 1


def _on_change(name, value):
    global checking
    if name not in ("jax_debug_nans", "jax_debug_infs"):
        return
    checking = bool(config.jax_debug_nans or config.jax_debug_infs)
    dispatch.Hooks.check_outputs = check_eager if checking else None
    backends._cpp_debug_numerics.set_global(checking)


config.on_change(_on_change)
_on_change("jax_debug_nans", None)  # flags set from the environment
