"""The threefry2x32 primitive: JAX's counter-based block cipher, bit for bit.

``threefry2x32_p.bind(k1, k2, x1, x2)`` encrypts the counter pairs ``(x1, x2)`` under the key
``(k1, k2)`` (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11) with 20
rounds, as JAX's ``jax._src.prng.threefry2x32_p``. All four operands are uint32 and broadcast
NumPy-style (aligned on trailing axes); both results have the broadcast shape.

The primitive lives here and not in ``minijax.lax``: it is an implementation detail of the PRNG
(JAX keeps it in ``jax._src.prng`` too), so the lax op table does not have to carry it.
"""

from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import lax
from minijax import numpy as jnp
from minijax.core import Primitive, ShapedArray
from minijax.interpreters import ad, batching
from minijax.lowering.stablehlo import dense_i64, full_like_aval, ir_constant, tensor_type

__all__ = ["threefry2x32_p", "threefry_2x32", "iota_2x32_shape"]

_U32 = np.dtype(np.uint32)
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = 0x1BD11BDA  # Threefry's key-schedule constant


def _broadcast_shapes(avals):
    try:
        return tuple(np.broadcast_shapes(*(a.shape for a in avals)))
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
    rank = len(np.broadcast_shapes(*per_example))
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


def iota_2x32_shape(shape):
    """The row-major index of every element of ``shape`` as a 64-bit counter split into (hi, lo)
    uint32 words: the counters of JAX's partitionable bit generation."""
    shape = tuple(shape)
    if not shape:
        zero = lax.full((), 0, _U32)
        return zero, zero
    strides = [int(np.prod(shape[d + 1:], dtype=object)) for d in range(len(shape))]
    if int(np.prod(shape, dtype=object)) < 2**32:  # every counter fits its lo word
        lo = None
        for d, stride in enumerate(strides):
            term = lax.broadcasted_iota(_U32, shape, d)
            if stride != 1:
                term = lax.mul(term, np.uint32(stride))
            lo = term if lo is None else lax.add(lo, term)
        return lax.full(shape, 0, _U32), lo
    if max(shape) >= 2**32:
        # differs from JAX 0.10.2 (its uint64 iota computes it): no uint32 iota spans the axis
        raise NotImplementedError(f"random bits along an axis of {max(shape)} >= 2**32 elements")
    return wide_counters(shape, strides)


def wide_counters(shape, strides):
    """The (hi, lo) uint32 words of the 64-bit sum over axes d of ``index_d * strides[d]``."""
    hi, lo = lax.full(shape, 0, _U32), lax.full(shape, 0, _U32)
    for d, stride in enumerate(strides):
        t_hi, t_lo = mul_wide(lax.broadcasted_iota(_U32, shape, d), stride)
        lo_sum = lax.add(lo, t_lo)
        carry = lax.convert_element_type(lax.lt(lo_sum, lo), _U32)  # the lo words wrapped
        hi, lo = lax.add(lax.add(hi, t_hi), carry), lo_sum
    return hi, lo


def mul_wide(a, c):
    """The (hi, lo) uint32 words of ``a * c`` modulo 2**64, for a uint32 array ``a`` and an
    integer ``0 <= c < 2**64``: 16-bit halves keep each partial product within 32 bits."""
    c_hi, c1, c0 = c >> 32, (c >> 16) & 0xFFFF, c & 0xFFFF
    mask = np.uint32(0xFFFF)
    a1, a0 = lax.shift_right_logical(a, np.uint32(16)), lax.bitwise_and(a, mask)
    p00, p01 = lax.mul(a0, np.uint32(c0)), lax.mul(a0, np.uint32(c1))
    p10, p11 = lax.mul(a1, np.uint32(c0)), lax.mul(a1, np.uint32(c1))
    low16 = lambda x: lax.bitwise_and(x, mask)  # noqa: E731
    high16 = lambda x: lax.shift_right_logical(x, np.uint32(16))  # noqa: E731
    mid = lax.add(lax.add(high16(p00), low16(p01)), low16(p10))  # < 3 * 2**16
    lo = lax.bitwise_or(low16(p00), lax.shift_left(mid, np.uint32(16)))
    hi = lax.add(lax.add(lax.add(p11, high16(p01)), high16(p10)), high16(mid))
    if c_hi:
        hi = lax.add(hi, lax.mul(a, np.uint32(c_hi)))
    return hi, lo
