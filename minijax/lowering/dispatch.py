"""Eager execution: a primitive outside jit runs as its own tiny compiled program.

There is no second (NumPy) implementation: the eager result of ``sin`` is what the ``sin``
lowering computes under jit, bit for bit. Each (primitive, params, avals, device) compiles once.
"""

from __future__ import annotations

from minijax import core
from minijax.core import ClosedJaxpr, Jaxpr, JaxprEqn, Var
from minijax.lowering import compile as _compile
from minijax.lowering import stablehlo
from minijax.lowering.array import Array, default_device, device_put_value
from minijax.source_info import user_frame

_eager_cache = _compile.register_cache({})


def _as_array(x, device):
    if type(x) is Array:
        return x
    return device_put_value(x, device)


def _device_of(args):
    for x in args:
        if type(x) is Array:
            return x.device
    return default_device()


def apply_primitive(prim, args, params):
    device = _device_of(args)
    arrays = [_as_array(x, device) for x in args]
    avals = tuple(x.aval for x in arrays)
    try:
        key = (prim, avals, tuple(sorted(params.items())), device)
        exe = _eager_cache.get(key)
    except TypeError:  # an unhashable param: compile without caching
        key, exe = None, None
    if exe is None:
        exe = _compile_primitive(prim, avals, params, device)
        if key is not None:
            _eager_cache[key] = exe
    bufs = []
    for x in arrays:
        if x.is_deleted():
            raise RuntimeError(f"{prim.name}: an operand Array has been deleted or donated")
        if x._sharding is not exe.sharding:  # on another device: move it
            x = device_put_value(x._value, device, weak_type=x.weak_type)
        bufs.append(x)
    outs = exe.execute(bufs)
    return outs if prim.multiple_results else outs[0]


def _compile_primitive(prim, avals, params, device):
    out = core.abstract_eval(prim, list(avals), params)
    out_avals = list(out) if prim.multiple_results else [out]
    invars = [Var(a) for a in avals]
    outvars = [Var(a) for a in out_avals]
    eqn = JaxprEqn(prim, invars, outvars, params, user_frame())
    closed = ClosedJaxpr(Jaxpr([], invars, outvars, [eqn]), [])
    module = stablehlo.lower_jaxpr(closed, name=prim.name, platform=device.platform)
    return _compile.compile_module(module, prim.name, device, list(avals), out_avals)
