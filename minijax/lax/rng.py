"""``rng_bit_generator``: XLA's stateful-looking but functional random bit generator, and
``rng_uniform``: XLA's stateful uniform generator (``stablehlo.rng``), as JAX's: no
derivative rules, and a batching rule for ``rng_bit_generator`` only.

``rng_bit_generator(key, shape, dtype, algorithm) -> (new_key, bits)`` is exactly
``stablehlo.rng_bit_generator``. As in JAX, the key is a ``uint32[4]`` (two 64-bit words split
in 32-bit halves, so that it works with x64 off) that the lowering bitcasts to the ``u64[2]``
XLA's ThreeFry and Philox take; a ``uint64[2]`` key is accepted too where x64 is on. The bits
are generated as uint32 for uint8/uint16 outputs and truncated (as JAX does), since XLA only
generates 32- and 64-bit words. The bits are backend-dependent (XLA's RNG_DEFAULT differs
between CPU and GPU); only ``THREE_FRY`` and ``PHILOX`` name one algorithm.

Differentiation: integer outputs, so a zero JVP (JAX defines nothing more).

vmap: JAX 0.10.2's rule: one block of bits ``(batch, *shape)`` from the batch's *first* key,
which alone is advanced; the other keys are ignored and returned as they are. So vmap does not
equal stacking per-example draws (``rbg``/``unsafe_rbg`` keys under vmap inherit this).
"""

from __future__ import annotations

import enum

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import dtypes
from minijax.core import Primitive, ShapedArray
from minijax.interpreters import ad, batching
from minijax.lax.indexing import dynamic_update_index_in_dim
from minijax.lowering.array import device_put_value
from minijax.lowering.stablehlo import element_type, ir_constant, tensor_type

__all__ = ["RandomAlgorithm", "rng_bit_generator", "rng_bit_generator_p", "rng_uniform",
           "rng_uniform_p"]

_U32 = np.dtype(np.uint32)
_U64 = np.dtype(np.uint64)
_BIT_DTYPES = tuple(np.dtype(d) for d in (np.uint8, np.uint16, np.uint32, np.uint64))


class RandomAlgorithm(enum.IntEnum):
    """XLA's bit-generation algorithms (the numbering is XLA's)."""

    RNG_DEFAULT = 0
    RNG_THREE_FRY = 1
    RNG_PHILOX = 2

    def __str__(self):
        return self.name


_ATTR_NAME = {RandomAlgorithm.RNG_DEFAULT: "DEFAULT",
              RandomAlgorithm.RNG_THREE_FRY: "THREE_FRY",
              RandomAlgorithm.RNG_PHILOX: "PHILOX"}


def _abstract_eval(key, *, shape, dtype, algorithm):
    if not ((key.dtype == _U32 and key.shape == (4,)) or (key.dtype == _U64 and key.shape == (2,))):
        raise TypeError(f"rng_bit_generator: key must be uint32[4] (or uint64[2] with x64), got "
                        f"{key.str_short(True)}")
    if np.dtype(dtype) not in _BIT_DTYPES:
        raise TypeError(f"rng_bit_generator: dtype must be an unsigned integer type, got "
                        f"{np.dtype(dtype).name}")
    if any(d < 0 for d in shape):
        raise ValueError(f"rng_bit_generator: shape must be non-negative, got {shape}")
    return [ShapedArray(key.shape, key.dtype), ShapedArray(tuple(shape), np.dtype(dtype))]


def _lowering(ctx, key, *, shape, dtype, algorithm):
    key_aval, (_, bits_aval) = ctx.avals_in[0], ctx.avals_out
    u64 = element_type(_U64)
    u32 = element_type(_U32)
    if key_aval.dtype == _U32:  # u32[4] -> u32[2, 2] -> u64[2] (bitcast folds the last axis)
        pairs = hlo.reshape(ir.RankedTensorType.get([2, 2], u32), key)
        key = hlo.bitcast_convert(ir.RankedTensorType.get([2], u64), pairs)
    dtype = np.dtype(dtype)
    gen_etype = u32 if dtype.itemsize < 4 else element_type(dtype)
    attr = hlo.RngAlgorithmAttr.get(_ATTR_NAME[RandomAlgorithm(algorithm)])
    new_key, bits = hlo.RngBitGeneratorOp(
        key.type, ir.RankedTensorType.get(list(shape), gen_etype), attr, key).results
    if key_aval.dtype == _U32:
        pairs = hlo.bitcast_convert(ir.RankedTensorType.get([2, 2], u32), new_key)
        new_key = hlo.reshape(ir.RankedTensorType.get([4], u32), pairs)
    if dtype.itemsize < 4:
        bits = hlo.convert(tensor_type(bits_aval), bits)
    return [new_key, bits]


def _batching(args, dims, *, shape, dtype, algorithm):
    (keys,), (d,) = args, dims
    params = dict(shape=shape, dtype=dtype, algorithm=algorithm)
    if d is batching.not_mapped:
        return rng_bit_generator_p.bind(keys, **params), [batching.not_mapped] * 2

    keys = batching.moveaxis(keys, d, 0)
    new_key, bits = rng_bit_generator_p.bind(keys[0],
                                             **{**params, "shape": (keys.shape[0], *shape)})
    return [dynamic_update_index_in_dim(keys, new_key, 0, axis=0), bits], [0, 0]


rng_bit_generator_p = Primitive("rng_bit_generator", multiple_results=True)
rng_bit_generator_p.def_abstract_eval(_abstract_eval)
rng_bit_generator_p.def_lowering(_lowering)
rng_bit_generator_p.def_batching(_batching)
rng_bit_generator_p.pp_params = lambda p: {**p, "algorithm": RandomAlgorithm(p["algorithm"]).name,
                                           "dtype": np.dtype(p["dtype"]).name}
ad.defjvp_zero(rng_bit_generator_p)  # integer bits: no tangent


def rng_bit_generator(key, shape, dtype=np.uint32, algorithm=RandomAlgorithm.RNG_DEFAULT):
    """Returns ``(new_key, bits)``: ``bits`` of ``shape`` and unsigned ``dtype`` from XLA's
    generator ``algorithm`` seeded with ``key`` (uint32[4]), and the key to use next."""
    key = key if hasattr(key, "aval") else device_put_value(np.asarray(key))
    shape = tuple(int(d) for d in np.atleast_1d(shape)) if np.ndim(shape) else (int(shape),)
    dtype = dtypes.canonicalize_dtype(np.dtype(dtype))
    new_key, bits = rng_bit_generator_p.bind(key, shape=shape, dtype=dtype,
                                             algorithm=RandomAlgorithm(algorithm))
    return new_key, bits


# ------------------------------------------------------------------------------------------------
# rng_uniform[shape]


_RNG_UNIFORM_DTYPES = tuple(np.dtype(d) for d in (
    dtypes.bfloat16, np.float16, np.float32, np.float64, np.int32, np.int64, np.uint32,
    np.uint64))


def _rng_uniform_rule(a, b, *, shape):
    if a.dtype != b.dtype:
        raise ValueError("Arguments to rng_uniform must have identical dtypes, got "
                         f"{a.dtype} and {b.dtype}.")
    if a.shape != () or b.shape != ():
        raise ValueError("Arguments to rng_uniform must be scalars; got shapes "
                         f"{a.shape} and {b.shape}.")
    if a.dtype not in _RNG_UNIFORM_DTYPES:
        # XLA on CPU aborts the whole process on these (JAX 0.10.2 reaches that abort)
        raise TypeError(f"rng_uniform does not accept dtype {a.dtype.name}: XLA generates "
                        "floats and 32- or 64-bit integers only.")
    return ShapedArray(shape, a.dtype, a.weak_type and b.weak_type)


def _rng_uniform_lowering(ctx, a, b, *, shape):
    return hlo.rng(a, b, ir_constant(np.array(shape, np.int64)),
                   hlo.RngDistributionAttr.get("UNIFORM"))


rng_uniform_p = Primitive("rng_uniform")
rng_uniform_p.def_abstract_eval(_rng_uniform_rule)
rng_uniform_p.def_lowering(_rng_uniform_lowering)


def rng_uniform(a, b, shape):
    """Uniform random values in ``[a, b)`` (scalars of one dtype) of ``shape``, from XLA's
    stateful generator: experimental in JAX, and backend-dependent."""
    return rng_uniform_p.bind(a, b, shape=tuple(shape))
