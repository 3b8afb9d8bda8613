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
from minijax.interpreters.mlir import lower_traced
from minijax.lowering.stablehlo import dense_i64, full_like_aval, ir_constant, tensor_type

__all__ = ["threefry2x32_p", "threefry_2x32", "threefry4x32_p", "iota_2x32_shape_p",
           "iota_2x32_shape"]

_U32 = np.dtype(np.uint32)
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = 0x1BD11BDA  # Threefry's key-schedule constant


def _broadcast_shapes(name, avals):
    try:
        # lax's, not NumPy's: NumPy refuses shapes of 2**63 or more elements
        return tuple(lax.broadcast_shapes(*(a.shape for a in avals)))
    except ValueError:
        shapes = ", ".join(a.str_short(True) for a in avals)
        raise TypeError(f"{name} got operands that do not broadcast: {shapes}") from None


def hash_abstract_eval(name, num_operands, num_results):
    """The abstract eval of a counter-based hash primitive: ``num_operands`` uint32 operands
    broadcast NumPy-style into ``num_results`` uint32 results of the broadcast shape."""

    def rule(*avals):
        if len(avals) != num_operands:
            raise TypeError(f"{name}_p expects {num_operands} arguments, got {len(avals)}.")
        if any(a.dtype != _U32 for a in avals):
            shapes = ", ".join(a.str_short(True) for a in avals)
            raise TypeError(f"{name} requires uint32 operands, got {shapes}")
        return [ShapedArray(_broadcast_shapes(name, avals), _U32)] * num_results

    return rule


def hash_lowering(rounds):
    """A hash primitive's lowering: ``rounds`` (lax code) on the operands broadcast to the
    output's shape, emitted in place (JAX lowers these through ``mlir.lower_fun``)."""

    def rule(ctx, *operands):
        shape = ctx.avals_out[0].shape
        return lower_traced(ctx.module_ctx, lambda *xs: rounds(*(jnp.broadcast_to(x, shape)
                                                                 for x in xs)),
                            ctx.avals_in, operands)

    return rule


def _lowering(ctx, k1, k2, x1, x2):
    aval_out = ctx.avals_out[0]
    out_t = tensor_type(aval_out)
    rank = len(aval_out.shape)
    if 0 in aval_out.shape:
        zeros = full_like_aval(0, aval_out)
        return [zeros, zeros]
    if ctx.module_ctx.platform == "cpu":
        k1, k2 = _opaque_keys(ctx.avals_in[:2], k1, k2)

    def bcast(x, aval):  # trailing-aligned, size-1 axes stretch (broadcast_in_dim allows it)
        if aval.shape == aval_out.shape:
            return x
        dims = range(rank - len(aval.shape), rank)
        return hlo.broadcast_in_dim(out_t, x, dense_i64(dims))

    return _rounds(aval_out, *(bcast(v, a) for v, a in zip((k1, k2, x1, x2), ctx.avals_in)))


def _opaque_keys(avals, k1, k2):
    """The keys passed through a loop of two trips that xors them with a constant (so gives
    them back), for XLA a value only known when the program runs. JAX's CPU lowering runs the
    rounds in a loop, so a draw is never a constant expression there: XLA (or LLVM, for a small
    fusion with no parameters) would fold a constant key's draw and round its float math
    otherwise than the compiled code (last bits of ``jit(lambda: random.normal(random.key(3),
    (8,)))()``), and Shardy would copy a constant-keyed draw per use instead of letting one
    use's sharding reach the others. Only the keys loop, not the rounds: the draw stays one
    fusion that XLA can slice (a slice of a 2**32-element draw computes only the slice).
    (XLA inlines a loop of one trip and drops a carried value a trip passes through.)"""
    i32 = tensor_type(ShapedArray((), np.int32))
    types = [i32] + [tensor_type(a) for a in avals]
    loop = hlo.WhileOp(types, [ir_constant(np.int32(0)), k1, k2])
    cond = loop.regions[0].blocks.append(*types)
    with ir.InsertionPoint(cond):
        hlo.return_([hlo.compare(cond.arguments[0], ir_constant(np.int32(2)),
                                 hlo.ComparisonDirectionAttr.get("LT"),
                                 compare_type=hlo.ComparisonTypeAttr.get("SIGNED"))])
    body = loop.regions[1].blocks.append(*types)
    with ir.InsertionPoint(body):
        i, *keys = body.arguments
        keys = [hlo.xor(k, full_like_aval(np.uint32(_PARITY), a)) for k, a in zip(keys, avals)]
        hlo.return_([hlo.add(i, ir_constant(np.int32(1))), *keys])
    return list(loop.results[1:])


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


def hash_batching(prim):
    """The batching rule of a broadcasting hash primitive ``prim`` (JAX's ``defbroadcasting``)."""
    return lambda args, dims: _broadcast_batching(prim, args, dims)


def _broadcast_batching(prim, args, dims):
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
    out = prim.bind(*new)
    return out, [0] * len(out)


threefry2x32_p = Primitive("threefry2x32", multiple_results=True)
threefry2x32_p.def_abstract_eval(hash_abstract_eval("threefry2x32", 4, 2))
threefry2x32_p.def_lowering(_lowering)
threefry2x32_p.def_batching(hash_batching(threefry2x32_p))
ad.defjvp_zero(threefry2x32_p)  # integer bits: no tangent


# ------------------------------------------------------------------------------------------------
# threefry4x32: Random123's 4-word threefry (20 rounds), JAX 0.10.2's ``threefry4x32`` impl

_ROTATIONS_4X32 = ((10, 26), (11, 21), (13, 27), (23, 5), (6, 20), (17, 11), (25, 10), (18, 20))


def _rotate_left(x, d):
    return lax.bitwise_or(lax.shift_left(x, np.uint32(d)),
                          lax.shift_right_logical(x, np.uint32(32 - d)))


def _threefry4x32_rounds(k0, k1, k2, k3, x0, x1, x2, x3):
    ks = [k0, k1, k2, k3, functools.reduce(lax.bitwise_xor, (k0, k1, k2, k3, np.uint32(_PARITY)))]
    x0, x1, x2, x3 = (lax.add(x, k) for x, k in zip((x0, x1, x2, x3), ks))
    for rnd in range(20):
        r0, r1 = _ROTATIONS_4X32[rnd % 8]
        if rnd % 2 == 0:  # mix (0, 1) and (2, 3)
            x0 = lax.add(x0, x1)
            x1 = lax.bitwise_xor(x0, _rotate_left(x1, r0))
            x2 = lax.add(x2, x3)
            x3 = lax.bitwise_xor(x2, _rotate_left(x3, r1))
        else:  # mix (0, 3) and (2, 1): the 4-word permutation
            x0 = lax.add(x0, x3)
            x3 = lax.bitwise_xor(x0, _rotate_left(x3, r0))
            x2 = lax.add(x2, x1)
            x1 = lax.bitwise_xor(x2, _rotate_left(x1, r1))
        if rnd % 4 == 3:  # key injection every four rounds
            i = rnd // 4
            x0, x1, x2, x3 = (lax.add(x, ks[(j + 1 + i) % 5]) for j, x in enumerate((x0, x1, x2, x3)))
            x3 = lax.add(x3, np.uint32(i + 1))
    return [x0, x1, x2, x3]


threefry4x32_p = Primitive("threefry4x32", multiple_results=True)
threefry4x32_p.def_abstract_eval(hash_abstract_eval("threefry4x32", 8, 4))
threefry4x32_p.def_lowering(hash_lowering(_threefry4x32_rounds))
threefry4x32_p.def_batching(hash_batching(threefry4x32_p))
ad.defjvp_zero(threefry4x32_p)


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
