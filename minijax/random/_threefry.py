"""The threefry2x32 primitive: JAX's counter-based block cipher, bit for bit.

``threefry2x32_p.bind(k1, k2, x1, x2)`` encrypts the counter pairs ``(x1, x2)`` under the key
``(k1, k2)`` (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11) with 20
rounds, as JAX's ``jax._src.prng.threefry2x32_p``. All four operands are uint32 and broadcast
NumPy-style (aligned on trailing axes); both results have the broadcast shape.

``iota_2x32_shape_p`` makes the counters of partitionable bit generation: each element's row-major
index as a 64-bit number split into (hi, lo) uint32 words, as JAX's ``prng.iota_2x32_shape_p``.

The primitives live here and not in ``minijax.lax``: they are implementation details of the PRNG
(JAX keeps them in ``jax._src.prng`` too), so the lax op table does not have to carry them.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import lax
from minijax import numpy as jnp
from minijax.core import Primitive, ShapedArray
from minijax.interpreters import ad, batching
from minijax.lowering.stablehlo import dense_i64, full_like_aval, ir_constant, tensor_type

__all__ = ["threefry2x32_p", "threefry_2x32", "iota_2x32_shape_p", "iota_2x32_shape"]

_U32 = np.dtype(np.uint32)
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = 0x1BD11BDA  # Threefry's key-schedule constant


def _broadcast_shapes(avals):
    try:
        # lax's, not NumPy's: NumPy refuses shapes of 2**63 or more elements
        return tuple(lax.broadcast_shapes(*(a.shape for a in avals)))
    except ValueError:
        shapes = ", ".join(a.str_short() for a in avals)
        raise TypeError(f"threefry2x32 got operands that do not broadcast: {shapes}") from None


def _abstract_eval(k1, k2, x1, x2):
    avals = (k1, k2, x1, x2)
    if any(a.dtype != _U32 for a in avals):
        shapes = ", ".join(a.str_short() for a in avals)
        raise TypeError(f"threefry2x32 requires uint32 operands, got {shapes}")
    out = ShapedArray(_broadcast_shapes(avals), _U32)
    return [out, out]


def _lowering(ctx, k1, k2, x1, x2):
    aval_out = ctx.avals_out[0]
    out_t = tensor_type(aval_out)
    rank = len(aval_out.shape)
    if 0 in aval_out.shape:
        zeros = full_like_aval(0, aval_out)
        return [zeros, zeros]

    def bcast(x, aval):  # trailing-aligned, size-1 axes stretch (broadcast_in_dim allows it)
        if aval.shape == aval_out.shape:
            return x
        dims = range(rank - len(aval.shape), rank)
        return hlo.broadcast_in_dim(out_t, x, dense_i64(dims))

    k1, k2, x1, x2 = (bcast(v, a) for v, a in zip((k1, k2, x1, x2), ctx.avals_in))
    if ctx.module_ctx.platform != "cpu" or not ctx.module_ctx.partitioned:
        return _rounds(aval_out, k1, k2, x1, x2)
    # JAX's CPU lowering runs the rounds in a loop (five trips of four rounds). A loop is no
    # constant expression: Shardy keeps a constant-keyed draw one value instead of copying it
    # per use, so one use's sharding reaches the others, as in JAX. Programs Shardy partitions
    # get one trip holding all twenty rounds (XLA fuses them; JAX's five trips run ~4x slower
    # at 1e7 draws); single-device ones no loop (its control costs ~30us a call).
    i32 = tensor_type(ShapedArray((), np.int32))
    types = [i32] + [out_t] * 4
    loop = hlo.WhileOp(types, [ir_constant(np.int32(0)), k1, k2, x1, x2])
    cond = loop.regions[0].blocks.append(*types)
    with ir.InsertionPoint(cond):
        hlo.return_([hlo.compare(cond.arguments[0], ir_constant(np.int32(1)),
                                 hlo.ComparisonDirectionAttr.get("LT"),
                                 compare_type=hlo.ComparisonTypeAttr.get("SIGNED"))])
    body = loop.regions[1].blocks.append(*types)
    with ir.InsertionPoint(body):
        i, k1, k2, x1, x2 = body.arguments
        v0, v1 = _rounds(aval_out, k1, k2, x1, x2)
        hlo.return_([hlo.add(i, ir_constant(np.int32(1))), k1, k2, v0, v1])
    return list(loop.results[3:])


def _rounds(aval_out, k1, k2, x1, x2):
    """The twenty rounds on operands of the output's shape."""
    const = lambda c: full_like_aval(np.uint32(c), aval_out)  # noqa: E731

    def rotate_left(v, r):
        return hlo.or_(hlo.shift_left(v, const(r)), hlo.shift_right_logical(v, const(32 - r)))

    def apply_round(v0, v1, r):
        v0 = hlo.add(v0, v1)
        v1 = hlo.xor(v0, rotate_left(v1, r))
        return v0, v1

    ks = [k1, k2, hlo.xor(hlo.xor(k1, k2), const(_PARITY))]
    v0, v1 = hlo.add(x1, ks[0]), hlo.add(x2, ks[1])
    # Five groups of four rounds; after group i the key schedule injects ks[i+1], ks[i+2] + i+1.
    for i in range(5):
        for r in _ROTATIONS[i % 2]:
            v0, v1 = apply_round(v0, v1, r)
        v0 = hlo.add(v0, ks[(i + 1) % 3])
        v1 = hlo.add(hlo.add(v1, ks[(i + 2) % 3]), const(i + 1))
    return [v0, v1]


def _batching(args, dims):
    """Every mapped operand gets its batch axis in front, padded with size-1 axes to the
    per-example output rank plus one; unmapped operands then broadcast on their trailing axes
    exactly as they did per example."""
    size = batching.axis_size(args, dims)
    per_example = []
    for x, d in zip(args, dims):
        shape = batching.get_aval(x).shape
        per_example.append(shape if d is batching.not_mapped else shape[:d] + shape[d + 1 :])
    rank = max(map(len, per_example))
    new = []
    for x, d, pe in zip(args, dims, per_example):
        if d is batching.not_mapped:
            new.append(x)
            continue
        x = batching.moveaxis(x, d, 0)
        new.append(lax.reshape(x, (size,) + (1,) * (rank - len(pe)) + tuple(pe)))
    return threefry2x32_p.bind(*new), [0, 0]


threefry2x32_p = Primitive("threefry2x32", multiple_results=True)
threefry2x32_p.def_abstract_eval(_abstract_eval)
threefry2x32_p.def_lowering(_lowering)
threefry2x32_p.def_batching(_batching)
ad.defjvp_zero(threefry2x32_p)  # integer bits: no tangent


def threefry_2x32(keypair, count):
    """Applies threefry to the flat uint32 array ``count`` split into two halves (an odd size
    is padded with one zero), as JAX's ``threefry_2x32``; used by ``fold_in``."""
    k1, k2 = keypair
    flat = jnp.ravel(count)
    odd = flat.shape[0] % 2
    if odd:
        flat = lax.concatenate([flat, jnp.zeros((1,), _U32)], 0)
    half = flat.shape[0] // 2
    x = threefry2x32_p.bind(k1, k2, flat[:half], flat[half:])
    out = lax.concatenate(x, 0)
    return lax.reshape(out[:-1] if odd else out, count.shape)


def _row_major_index(aval):
    """sum_d(stride_d * iota_d) of ``aval``'s shape and dtype, as JAX's counters."""
    shape = aval.shape
    iotas = [hlo.iota(tensor_type(aval), d) for d in range(len(shape))]
    terms = [hlo.multiply(full_like_aval(math.prod(shape[d + 1:]), aval), iota)
             for d, iota in enumerate(iotas)]
    return functools.reduce(hlo.add, terms)


def _iota_2x32_lowering(ctx, *, shape):
    aval_out = ctx.avals_out[0]
    if math.prod(shape) < 2**32:
        # Every counter fits its lo word: uint32 arithmetic makes 2-D and 3-D draws of 1e6
        # elements ~10% faster on CPU than JAX's uint64, and the same values.
        return [full_like_aval(0, aval_out), _row_major_index(aval_out)]
    # As JAX's: the index in uint64, whatever the x64 flag (XLA has 64-bit integers
    # regardless), split into its hi and lo uint32 words.
    aval_u64 = ShapedArray(shape, np.dtype(np.uint64))
    counts = _row_major_index(aval_u64)
    shifted = hlo.shift_right_logical(counts, full_like_aval(32, aval_u64))
    out_t = tensor_type(aval_out)
    lo = hlo.convert(out_t, counts)
    return [hlo.convert(out_t, shifted), lo]


iota_2x32_shape_p = Primitive("iota_2x32_shape", multiple_results=True)
iota_2x32_shape_p.def_abstract_eval(lambda *, shape: [ShapedArray(shape, _U32)] * 2)
iota_2x32_shape_p.def_lowering(_iota_2x32_lowering)
iota_2x32_shape_p.def_batching(batching.never_batched_rule(iota_2x32_shape_p))
ad.defjvp_zero(iota_2x32_shape_p)


def iota_2x32_shape(shape):
    """The row-major index of every element of ``shape`` as a 64-bit counter split into (hi, lo)
    uint32 words: the counters of JAX's partitionable bit generation."""
    shape = tuple(shape)
    if not shape:
        zero = lax.full((), 0, _U32)
        return zero, zero
    return iota_2x32_shape_p.bind(shape=shape)
