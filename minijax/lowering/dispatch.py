"""Eager execution: a primitive outside jit runs as its own tiny compiled program.

There is no second (NumPy) implementation: the eager result of ``sin`` is what the ``sin``
lowering computes under jit, bit for bit. Each (primitive, params, avals, device) compiles once.
"""

from __future__ import annotations

import numpy as np

from minijax import caches, core, dtypes
from minijax.core import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var
from minijax.lowering import backends, stablehlo
from minijax.lowering import compile as _compile
from minijax.lowering.array import (
    Array, _multi_device, default_device, device_put_value, in_other_memory)
from minijax.source_info import user_frame

_eager_cache = _compile.register_cache(caches.BoundedCache(caches.EXECUTABLES))
_eager_lookup = _eager_cache.data.get  # the hot path: one dict read (clear() keeps the dict)


class Hooks:
    """What eager dispatch needs from the layers above, installed by them at import (these
    modules sit above dispatch, which therefore never imports them).

    ``apply_sharded(prim, args, params)``: a primitive on operands laid out over several devices
    or in host memory (``minijax.jitting``: the jit of the op, as JAX).
    ``check_outputs(prim, outs)``: called with each primitive's outputs while
    ``jax_debug_nans``/``jax_debug_infs`` is on, else None (``minijax.debug_numerics``)."""

    apply_sharded = None
    check_outputs = None


def _params_key(params):
    return tuple(sorted(params.items())) if len(params) > 1 else tuple(params.items())


def apply_primitive(prim, args, params):
    # Run where the first committed Array operand lives, else the first Array (its interned
    # sharding names the device); other operands (NumPy, Python scalars, Arrays elsewhere) are
    # put there. As in JAX, the results are committed iff an operand is.
    sharding, committed, float0 = None, False, False
    for i, x in enumerate(args):
        if type(x) is Array:
            if x._committed:
                if committed and x._sharding is not sharding:
                    _check_same_devices(prim, args, i)
                sharding, committed = x._sharding, True
            elif sharding is None:
                sharding = x._sharding
        elif isinstance(x, np.ndarray) and x.dtype == dtypes.float0:  # a TypedNdArray
            float0 = True
    if sharding is None:
        if backends.context_mesh() is not None:
            # under set_mesh a computation from host values runs on the mesh's devices, its
            # results whole there, as JAX's (jnp.zeros, lax.iota, ... placed as jit places them)
            return Hooks.apply_sharded(prim, args, params)
        sharding = backends.single_device_sharding(default_device())
    elif sharding in _multi_device or sharding in in_other_memory:
        # a sharded operand, or one in host memory: run as the jit of the op (as JAX), whose
        # program carries the layouts and memory kinds
        return Hooks.apply_sharded(prim, args, params)
    if float0:
        # a float0 operand (a zero tangent) has no buffer, XLA having no zero-width type: its
        # only value enters the program as a constant (JAX passes booleans), so its lowering
        # runs as under jit, e.g. the cast of one to bool raises JAX's TypeError
        consts = {i: x for i, x in enumerate(args)
                  if isinstance(x, np.ndarray) and x.dtype == dtypes.float0}
        args = [x for i, x in enumerate(args) if i not in consts]
    else:
        consts = None
    try:
        arrays = [
            x if type(x) is Array and x._sharding is sharding else _put(x, sharding) for x in args
        ]
    except TypeError:
        avals = [core.get_aval(x) for x in args]
        if any(isinstance(a.dtype, dtypes.ExtendedDType) for a in avals):
            # typed keys (no buffer of theirs): the primitive's own refusal of their dtype,
            # as under jit (JAX's words: "sub does not accept dtype key<fry> ...")
            core.abstract_eval(prim, avals, params)
        raise
    avals = tuple([x.aval for x in arrays])
    try:
        key = (prim, avals, _params_key(params), sharding,
               consts and tuple((i, x.shape) for i, x in consts.items()))
        exe = _eager_lookup(key)
    except TypeError:  # an unhashable param: compile without caching
        key, exe = None, None
    if exe is None:
        exe = _compile_primitive(prim, avals, params, backends.sharding_devices(sharding),
                                 consts)
        _eager_cache.put(key, exe)
    outs = exe.execute(arrays, committed)
    if Hooks.check_outputs is not None:
        Hooks.check_outputs(prim, outs)
    return outs if prim.multiple_results else outs[0]


core.apply_primitive = apply_primitive


def _check_same_devices(prim, args, i):
    """JAX's refusal of committed operands on different devices (operand ``i`` and the first
    committed one)."""
    first = next(j for j, x in enumerate(args) if type(x) is Array and x._committed)
    a, b = args[first], args[i]
    da, db = (backends.buffer_devices(x) for x in (a, b))
    if da != db:
        ta, tb = (f"{x.dtype.name}[{','.join(map(str, x.shape))}]" for x in (a, b))
        raise ValueError(
            "Received incompatible devices for jitted computation. Got argument "
            f"args[{first}] of {prim.name} with shape {ta} and with device ids "
            f"{[d.id for d in da]} on platform {da[0].platform.upper()} and argument "
            f"args[{i}] of {prim.name} with shape {tb} and with device ids "
            f"{[d.id for d in db]} on platform {db[0].platform.upper()}")


def _put(x, sharding):
    device = backends.sharding_devices(sharding)[0]
    if type(x) is Array:
        x._check_alive()
        return device_put_value(x._value, device, weak_type=x.weak_type)
    return device_put_value(x, device)


def _compile_primitive(prim, avals, params, devices, consts=None):
    """``consts``: {operand position: NumPy value} of the operands baked into the program as
    literals (float0 ones); ``avals`` are the other operands'."""
    invars = [Var(a) for a in avals]
    operands = list(invars)
    for i, x in (consts or {}).items():  # by increasing position
        operands.insert(i, Literal(x, core.get_aval(x)))
    out = core.abstract_eval(prim, [v.aval for v in operands], params)
    out_avals = list(out) if prim.multiple_results else [out]
    outvars = [Var(a) for a in out_avals]
    eqn = JaxprEqn(prim, operands, outvars, params, user_frame())
    closed = ClosedJaxpr(Jaxpr([], invars, outvars, [eqn]), [])
    lowered = stablehlo.lower_jaxpr(closed, name=prim.name, platform=devices[0].platform,
                                    num_partitions=len(devices))
    return _compile.compile_module(
        lowered, prim.name, devices, list(avals), out_avals, jaxpr=closed, kind="eager"
    )
