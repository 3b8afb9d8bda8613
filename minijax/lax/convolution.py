"""``conv_general_dilated``: N-d convolution with strides, padding, dilations and groups.

One primitive, exactly ``stablehlo.convolution``. ``dimension_numbers`` is held as a
``ConvDimensionNumbers(lhs_spec, rhs_spec, out_spec)`` of axis permutations: ``lhs_spec`` is
(batch axis, feature axis, spatial axes...), ``rhs_spec`` (output-feature axis, input-feature
axis, spatial axes...) and ``out_spec`` (batch, feature, spatial...); spatial axes are listed in
the kernel's order. ``padding`` is a tuple of (low, high) pairs (strings are resolved by the
wrapper against the shapes). Convolutions are cross-correlations: the kernel is not flipped.

Differentiation (as JAX's convolution.py): the primitive is bilinear. The lhs cotangent is a
convolution of the output cotangent with the spatially reversed kernel (input and output
feature axes swapped, window strides becoming lhs dilation); the rhs cotangent is a
convolution of the lhs with the output cotangent (strides becoming rhs dilation). Feature
groups of the forward pass become batch groups of the rhs transpose and vice versa.

vmap folds the batch axis into an existing axis (lhs batch, rhs output features, or the
feature-group axes when both are mapped), so a batched convolution is still one convolution.
"""

from __future__ import annotations

import operator
from typing import NamedTuple

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import core, dtypes
from minijax.core import Primitive, ShapedArray, get_aval
from minijax.interpreters import ad
from minijax.lax.convert import convert_element_type
from minijax.lax.dot import _precision_config, canonicalize_precision
from minijax.lax.elementwise import _real_dtype
from minijax.lax.families import ANY, check_dtype_allowed
from minijax.lax.sharding_constraint import lay_out
from minijax.lax.structural import full, reshape, rev
from minijax.lowering.stablehlo import tensor_type
from minijax.lax import sharding_rules

__all__ = [
    "ConvDimensionNumbers", "conv", "conv_dimension_numbers", "conv_general_dilated",
    "conv_general_dilated_p", "conv_general_permutations", "conv_transpose",
    "conv_with_general_padding", "padtype_to_pads",
]


class ConvDimensionNumbers(NamedTuple):
    """Axis permutations of lhs, rhs and output: (batch/out-feature, feature/in-feature,
    spatial...)."""

    lhs_spec: tuple
    rhs_spec: tuple
    out_spec: tuple


# ------------------------------------------------------------------------------------------------
# Dimension numbers and padding


def conv_general_permutations(dimension_numbers):
    """The permutations of a string triple such as ``('NHWC', 'HWIO', 'NHWC')``."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    pairs = (("N", "C"), ("O", "I"), ("N", "C"))
    for i, (a, b) in enumerate(pairs):
        spec = dimension_numbers[i]
        if not spec.count(a) == spec.count(b) == 1:
            raise TypeError(
                f"conv_general_dilated: dimension_numbers[{i}] must contain the characters "
                f"'{a}' and '{b}' exactly once, got {spec!r}"
            )
        if len(set(spec)) != len(spec):
            raise TypeError(
                f"conv_general_dilated: dimension_numbers[{i}] cannot have duplicate "
                f"characters, got {spec!r}"
            )
    if not (set(lhs_spec) - {"N", "C"} == set(rhs_spec) - {"O", "I"}
            == set(out_spec) - {"N", "C"}):
        raise TypeError(
            "conv_general_dilated: dimension_numbers must name the same spatial dimensions in "
            f"lhs, rhs and out, got {dimension_numbers!r}"
        )

    def perm(spec, pair):
        spatial = [i for i, c in enumerate(spec) if c not in pair]
        if spec is not rhs_spec:
            spatial = sorted(spatial, key=lambda i: rhs_spec.index(spec[i]))
        return (spec.index(pair[0]), spec.index(pair[1]), *spatial)

    return tuple(perm(s, p) for s, p in zip(dimension_numbers, pairs))


def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers):
    """A ``ConvDimensionNumbers`` from None (NCHW/OIHW/NCHW), a triple of strings, or one."""
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return ConvDimensionNumbers(*(tuple(operator.index(i) for i in s)
                                      for s in dimension_numbers))
    if len(lhs_shape) != len(rhs_shape):
        raise TypeError(
            "conv_general_dilated: lhs and rhs must have the same rank, got "
            f"{len(lhs_shape)} and {len(rhs_shape)} (shapes {tuple(lhs_shape)} and "
            f"{tuple(rhs_shape)})"
        )
    if dimension_numbers is None:
        iota = tuple(range(len(lhs_shape)))
        return ConvDimensionNumbers(iota, iota, iota)
    if isinstance(dimension_numbers, (list, tuple)) and len(dimension_numbers) == 3:
        if all(isinstance(s, str) for s in dimension_numbers):
            for s, shape, what in zip(dimension_numbers, (lhs_shape, rhs_shape, lhs_shape),
                                      ("lhs", "rhs", "out")):
                if len(s) != len(shape):
                    raise TypeError(
                        f"conv_general_dilated: {what} spec {s!r} has length {len(s)} but the "
                        f"operands have rank {len(shape)}"
                    )
            return ConvDimensionNumbers(*conv_general_permutations(dimension_numbers))
        return ConvDimensionNumbers(*(tuple(operator.index(i) for i in s)
                                      for s in dimension_numbers))
    raise TypeError(
        "conv_general_dilated: dimension_numbers must be None, a ConvDimensionNumbers or a "
        f"triple of strings such as ('NHWC', 'HWIO', 'NHWC'), got {dimension_numbers!r}"
    )


def padtype_to_pads(in_shape, window_shape, window_strides, padding):
    """Explicit (low, high) pads for 'SAME', 'SAME_LOWER' or 'VALID' (as XLA/JAX define them),
    a list as JAX's (a sequence of pairs comes back checked)."""
    if not isinstance(padding, str):
        return [(operator.index(lo), operator.index(hi)) for lo, hi in padding]
    kind = padding.upper()
    if kind == "VALID":
        return [(0, 0)] * len(in_shape)
    if kind in ("SAME", "SAME_LOWER"):
        pads = []
        for n, w, s in zip(in_shape, window_shape, window_strides):
            out = -(-n // s)
            total = max((out - 1) * s + w - n, 0)
            lo, hi = total // 2, total - total // 2
            pads.append((lo, hi) if kind == "SAME" else (hi, lo))
        return pads
    raise ValueError(f"Unknown padding type: {padding!r} (expected 'SAME', 'SAME_LOWER', "
                     "'VALID' or a sequence of (low, high) pairs)")


def dilate_shape(shape, dilation):
    return tuple(0 if d == 0 else 1 + r * (d - 1) for d, r in zip(shape, dilation))


def strided_out_shape(padded, window, strides):
    return tuple(max(0, (p - w) // s + 1) if p >= w else 0
                 for p, w, s in zip(padded, window, strides))


# ------------------------------------------------------------------------------------------------
# Shape rule


def _conv_rule(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
               dimension_numbers, feature_group_count, batch_group_count, precision,
               preferred_element_type, out_sharding):
    name = "conv_general_dilated"
    shapes = f"lhs {lhs.str_short(True)} and rhs {rhs.str_short(True)}"
    if lhs.dtype != rhs.dtype:
        raise TypeError(f"{name} requires lhs and rhs of the same dtype, got {shapes}")
    check_dtype_allowed(name, lhs.dtype, ANY)  # bool too: XLA convolves predicates (or of ands)
    if lhs.ndim != rhs.ndim or lhs.ndim < 2:
        raise TypeError(f"{name} requires lhs and rhs of equal rank >= 2, got {shapes}")
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    for spec, what in zip(dimension_numbers, ("lhs", "rhs", "out")):
        if sorted(spec) != list(range(lhs.ndim)):
            raise TypeError(f"{name}: {what}_spec {spec} is not a permutation of the "
                            f"{lhs.ndim} axes of {shapes}")
    nsp = lhs.ndim - 2
    for what, seq in (("window_strides", window_strides), ("lhs_dilation", lhs_dilation),
                      ("rhs_dilation", rhs_dilation), ("padding", padding)):
        if len(seq) != nsp:
            raise TypeError(f"{name}: {what} {seq} must have one entry per spatial dimension "
                            f"({nsp}) of {shapes}")
    for what, seq in (("window_strides", window_strides), ("lhs_dilation", lhs_dilation),
                      ("rhs_dilation", rhs_dilation)):
        if any(s < 1 for s in seq):
            raise ValueError(f"{name}: {what} must be positive, got {seq}")
    if feature_group_count < 1 or batch_group_count < 1:
        raise ValueError(f"{name}: feature_group_count ({feature_group_count}) and "
                         f"batch_group_count ({batch_group_count}) must be positive")
    if feature_group_count > 1 and batch_group_count > 1:
        raise ValueError(f"{name}: at most one of feature_group_count and batch_group_count "
                         f"may be > 1, got {feature_group_count} and {batch_group_count}")
    lhs_t = [lhs.shape[i] for i in lhs_spec]
    rhs_t = [rhs.shape[i] for i in rhs_spec]
    if lhs_t[1] % feature_group_count:
        raise ValueError(f"{name}: lhs feature dimension {lhs_t[1]} must be a multiple of "
                         f"feature_group_count={feature_group_count} for {shapes}")
    if lhs_t[1] // feature_group_count != rhs_t[1]:
        raise ValueError(
            f"{name}: lhs feature dimension divided by feature_group_count "
            f"({lhs_t[1]} // {feature_group_count}) must equal the rhs input feature dimension "
            f"{rhs_t[1]} for {shapes}"
        )
    if rhs_t[0] % feature_group_count:
        raise ValueError(f"{name}: rhs output feature dimension {rhs_t[0]} must be a multiple "
                         f"of feature_group_count={feature_group_count} for {shapes}")
    if lhs_t[0] % batch_group_count:
        raise ValueError(f"{name}: lhs batch dimension {lhs_t[0]} must be a multiple of "
                         f"batch_group_count={batch_group_count} for {shapes}")
    if rhs_t[0] % batch_group_count:
        raise ValueError(f"{name}: rhs output feature dimension {rhs_t[0]} must be a multiple "
                         f"of batch_group_count={batch_group_count} for {shapes}")
    lhs_sp = dilate_shape(lhs_t[2:], lhs_dilation)
    padded = [n + lo + hi for n, (lo, hi) in zip(lhs_sp, padding)]
    window = dilate_shape(rhs_t[2:], rhs_dilation)
    out_t = (lhs_t[0] // batch_group_count, rhs_t[0],
             *strided_out_shape(padded, window, window_strides))
    out_shape = [0] * lhs.ndim
    for axis, size in zip(out_spec, out_t):
        out_shape[axis] = size
    dtype = lhs.dtype
    if preferred_element_type is not None:
        _check_preferred_element_type(dtype, preferred_element_type)
        dtype = preferred_element_type
    # weak when both operands are (JAX's standard weak-type rule, preferred type or not)
    return ShapedArray(tuple(out_shape), dtype, weak_type=lhs.weak_type and rhs.weak_type)


def _check_preferred_element_type(input_dtype, preferred):
    """JAX's rule for a convolution's ``preferred_element_type`` (stricter than dot_general's,
    which accepts float operands with an integer preferred type): the same kind as the
    operands (integer operands may also accumulate in a float), a signed integer for signed
    operands, and never narrower."""
    sub = dtypes.issubdtype
    if not (sub(input_dtype, np.integer) and sub(preferred, np.floating)):
        kinds = (np.integer, np.floating, np.complexfloating)
        if any(sub(input_dtype, k) and not sub(preferred, k) for k in kinds):
            raise TypeError("Input type is incompatible with `preferred_element_type`. The "
                            "compatible combinations of (input_type, preferred_element_type) "
                            "are (integral, integral), (integral, floating), (floating, "
                            "floating), (complex, complex.")
        if sub(input_dtype, np.signedinteger) and not sub(preferred, np.signedinteger):
            raise TypeError("`preferred_element_type` must have the same signedness as the "
                            "original type.")
    if np.dtype(preferred).itemsize < np.dtype(input_dtype).itemsize:
        raise TypeError("`preferred_element_type` must not be narrower than the original "
                        "type.")


# ------------------------------------------------------------------------------------------------
# Lowering


def _conv_lowering(ctx, lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                   dimension_numbers, feature_group_count, batch_group_count, precision,
                   preferred_element_type, out_sharding):
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    dnums = hlo.ConvDimensionNumbers.get(
        input_batch_dimension=lhs_spec[0], input_feature_dimension=lhs_spec[1],
        input_spatial_dimensions=list(lhs_spec[2:]),
        kernel_output_feature_dimension=rhs_spec[0], kernel_input_feature_dimension=rhs_spec[1],
        kernel_spatial_dimensions=list(rhs_spec[2:]),
        output_batch_dimension=out_spec[0], output_feature_dimension=out_spec[1],
        output_spatial_dimensions=list(out_spec[2:]),
    )
    nsp = len(lhs_spec) - 2
    pads = ir.DenseIntElementsAttr.get(np.asarray(padding, np.int64).reshape(nsp, 2))
    in_dtype = ctx.avals_in[0].dtype
    out_aval = ctx.avals_out[0]

    def conv(out_type, lhs, rhs):
        return hlo.convolution(
            out_type, lhs, rhs, dnums, feature_group_count, batch_group_count,
            window_strides=list(window_strides), padding=pads,
            lhs_dilation=list(lhs_dilation), rhs_dilation=list(rhs_dilation),
            precision_config=_precision_config(precision),
        )

    if dtypes.is_complex(in_dtype):
        return _complex_conv(ctx, conv, lhs, rhs)
    if out_aval.dtype != in_dtype and not dtypes.is_float(out_aval.dtype):
        # integer accumulation in a wider type: convert first (XLA CPU/GPU codegen wants it)
        lhs = hlo.convert(tensor_type(ctx.avals_in[0].update(dtype=out_aval.dtype)), lhs)
        rhs = hlo.convert(tensor_type(ctx.avals_in[1].update(dtype=out_aval.dtype)), rhs)
    return conv(tensor_type(out_aval), lhs, rhs)


def _complex_conv(ctx, conv, lhs, rhs):
    """A complex convolution as three real ones (Gauss's trick), as JAX lowers it on CPU and
    GPU (XLA CPU has no complex convolution): ``k1 = (re l + im l) * re r``,
    ``k2 = re l * (im r - re r)``, ``k3 = im l * (re r + im r)``, result
    ``(k1 - k3) + i (k1 + k2)``. The rounding is JAX's, not the 4-product formula's."""
    out_aval = ctx.avals_out[0]
    out_part = tensor_type(out_aval.update(dtype=_real_dtype(out_aval.dtype)))
    l_re, l_im = hlo.real(lhs), hlo.imag(lhs)
    r_re, r_im = hlo.real(rhs), hlo.imag(rhs)
    k1 = conv(out_part, hlo.add(l_re, l_im), r_re)
    k2 = conv(out_part, l_re, hlo.subtract(r_im, r_re))
    k3 = conv(out_part, l_im, hlo.add(r_re, r_im))
    return hlo.complex(hlo.subtract(k1, k3), hlo.add(k1, k2))


conv_general_dilated_p = Primitive("conv_general_dilated")
conv_general_dilated_p.def_abstract_eval(_conv_rule)
conv_general_dilated_p.def_lowering(_conv_lowering)


def _bind(lhs, rhs, **params):
    return conv_general_dilated_p.bind(lhs, rhs, **params)


# ------------------------------------------------------------------------------------------------
# Axis folding helpers (shared by the transpose and batching rules)


def _shape(x):
    return get_aval(x).shape


def _reshape_axis_into(src, dst, x):
    """Merges axis ``src`` into axis ``dst`` (numbered after ``src`` is removed), ``src`` as
    the major part."""
    shape = _shape(x)
    perm = [i for i in range(len(shape)) if i != src]
    perm.insert(dst, src)
    new = [d for i, d in enumerate(shape) if i != src]
    new[dst] *= shape[src]
    return reshape(x, tuple(new), tuple(perm))


def _reshape_axis_out_of(src, size1, x):
    """Splits axis ``src`` into (size1, rest)."""
    shape = list(_shape(x))
    size2, ragged = divmod(shape[src], size1)
    assert not ragged, (shape, src, size1)
    shape[src:src + 1] = [size1, size2]
    return reshape(x, tuple(shape))


# ------------------------------------------------------------------------------------------------
# Differentiation


def _spec_transpose(spec):
    return (spec[1], spec[0], *spec[2:])


def _vjp_lhs_padding(in_shape, window, strides, out_shape, padding, lhs_dil, rhs_dil):
    lhs_d = dilate_shape(in_shape, lhs_dil)
    rhs_d = dilate_shape(window, rhs_dil)
    out_d = dilate_shape(out_shape, strides)
    before = [k - lo - 1 for k, (lo, _) in zip(rhs_d, padding)]
    after = [n + k - 1 - o - b for n, k, o, b in zip(lhs_d, rhs_d, out_d, before)]
    return tuple(zip(before, after))


def _vjp_rhs_padding(in_shape, window, strides, out_shape, padding, lhs_dil, rhs_dil):
    lhs_d = dilate_shape(in_shape, lhs_dil)
    rhs_d = dilate_shape(window, rhs_dil)
    out_d = dilate_shape(out_shape, strides)
    lows = [lo for lo, _ in padding]
    highs = [o - n + k - lo - 1 for o, n, k, lo in zip(out_d, lhs_d, rhs_d, lows)]
    return tuple(zip(lows, highs))


def _as_dtype(x, aval):
    if get_aval(x).dtype != aval.dtype:
        x = convert_element_type(x, aval.dtype)
    return x


def _transpose_lhs(g, lhs_aval, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                   dimension_numbers, feature_group_count, batch_group_count, precision,
                   preferred_element_type, out_sharding):
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    t_rhs_spec = _spec_transpose(rhs_spec)
    if feature_group_count > 1:
        rhs = _reshape_axis_out_of(rhs_spec[0], feature_group_count, rhs)
        rhs = _reshape_axis_into(rhs_spec[0], rhs_spec[1], rhs)
    elif batch_group_count > 1:
        rhs = _reshape_axis_out_of(rhs_spec[0], batch_group_count, rhs)
        rhs = _reshape_axis_into(rhs_spec[0], rhs_spec[1], rhs)
        feature_group_count = batch_group_count
    trans = ConvDimensionNumbers(out_spec, t_rhs_spec, lhs_spec)
    g = _as_dtype(g, get_aval(rhs))  # preferred_element_type: ct is wider than the operands
    rhs_shape = _shape(rhs)
    pads = _vjp_lhs_padding(
        [lhs_aval.shape[i] for i in lhs_spec[2:]], [rhs_shape[i] for i in rhs_spec[2:]],
        window_strides, [_shape(g)[i] for i in out_spec[2:]], padding, lhs_dilation,
        rhs_dilation)
    out = _bind(g, rev(rhs, tuple(rhs_spec[2:])), window_strides=lhs_dilation, padding=pads,
                lhs_dilation=window_strides, rhs_dilation=rhs_dilation,
                dimension_numbers=trans, feature_group_count=feature_group_count,
                batch_group_count=1, precision=precision,
                preferred_element_type=preferred_element_type, out_sharding=out_sharding)
    if batch_group_count > 1:
        out = _reshape_axis_out_of(lhs_spec[1], batch_group_count, out)
        out = _reshape_axis_into(lhs_spec[1], lhs_spec[0], out)
    return _as_dtype(out, lhs_aval)


def _transpose_rhs(g, lhs, rhs_aval, *, window_strides, padding, lhs_dilation, rhs_dilation,
                   dimension_numbers, feature_group_count, batch_group_count, precision,
                   preferred_element_type, out_sharding):
    if int(np.prod(_shape(g))) == 0:
        # a symbolic zero, as JAX's rule: no cotangent then reaches the kernel's producers, so
        # a NaN partial there (arcsin's beyond 1) is not multiplied by zeros (s22043-231)
        return ad.Zero(rhs_aval)
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    if batch_group_count > 1:
        feature_group_count, batch_group_count = batch_group_count, 1
    elif feature_group_count > 1:
        feature_group_count, batch_group_count = 1, feature_group_count
    trans = ConvDimensionNumbers(_spec_transpose(lhs_spec), _spec_transpose(out_spec),
                                 _spec_transpose(rhs_spec))
    lhs_shape = _shape(lhs)
    g = _as_dtype(g, get_aval(lhs))  # preferred_element_type: ct is wider than the operands
    pads = _vjp_rhs_padding(
        [lhs_shape[i] for i in lhs_spec[2:]], [rhs_aval.shape[i] for i in rhs_spec[2:]],
        window_strides, [_shape(g)[i] for i in out_spec[2:]], padding, lhs_dilation,
        rhs_dilation)
    out = _bind(lhs, g, window_strides=rhs_dilation, padding=pads, lhs_dilation=lhs_dilation,
                rhs_dilation=window_strides, dimension_numbers=trans,
                feature_group_count=feature_group_count, batch_group_count=batch_group_count,
                precision=precision, preferred_element_type=preferred_element_type,
                out_sharding=out_sharding)
    return _as_dtype(out, rhs_aval)


def _conv_transpose_rule(ct, lhs, rhs, **params):
    if ad.is_undefined_primal(lhs) and ad.is_undefined_primal(rhs):
        raise TypeError("conv_general_dilated is not linear in both operands at once")
    if ad.is_undefined_primal(lhs):
        return [_transpose_lhs(ct, lhs.aval, rhs, **params), None]
    return [None, _transpose_rhs(ct, lhs, rhs.aval, **params)]


ad.defjvp(conv_general_dilated_p,
          lambda g, lhs, rhs, **params: _bind(g, rhs, **params),
          lambda g, lhs, rhs, **params: _bind(lhs, g, **params))
ad.primitive_transposes[conv_general_dilated_p] = _conv_transpose_rule


# ------------------------------------------------------------------------------------------------
# Batching


def _conv_batching(args, dims, **params):
    (lhs, rhs), (ld, rd) = args, dims
    lhs_spec, rhs_spec, out_spec = params["dimension_numbers"]
    fgc, bgc = params["feature_group_count"], params["batch_group_count"]
    size = _shape(lhs)[ld] if ld is not None else _shape(rhs)[rd]
    if size == 0:  # no example to fold into a group/feature axis: the empty result, as JAX
        per_example = [ShapedArray(tuple(np.delete(_shape(x), d)) if d is not None
                                   else _shape(x), get_aval(x).dtype)
                       for x, d in ((lhs, ld), (rhs, rd))]
        out = _conv_rule(*per_example, **params)
        empty = full((0, *out.shape), 0, out.dtype)
        if any(get_aval(x).vma for x in (lhs, rhs)):  # in shard_map: varies as the operands
            empty = core.insert_pvary((empty, lhs, rhs))[0]
        return empty, 0
    if ld is not None and rd is not None:
        if bgc > 1:
            new_lhs = _reshape_axis_into(ld, lhs_spec[0], lhs)
            bgc *= size
        else:
            new_lhs = _reshape_axis_into(ld, lhs_spec[1], lhs)
            fgc *= size
        new_rhs = _reshape_axis_into(rd, rhs_spec[0], rhs)
        out = _bind(new_lhs, new_rhs, **{**params, "feature_group_count": fgc,
                                         "batch_group_count": bgc})
        return _reshape_axis_out_of(out_spec[1], size, out), out_spec[1]
    if ld is not None:
        if bgc == 1:
            new_lhs = _reshape_axis_into(ld, lhs_spec[0], lhs)
        else:  # keep the batch groups outermost in the lhs batch axis
            new_lhs = _reshape_axis_out_of(lhs_spec[0] + int(ld <= lhs_spec[0]), bgc, lhs)
            new_lhs = _reshape_axis_into(ld + int(lhs_spec[0] < ld), lhs_spec[0] + 1, new_lhs)
            new_lhs = _reshape_axis_into(lhs_spec[0], lhs_spec[0], new_lhs)
        out = _bind(new_lhs, rhs, **params)
        return _reshape_axis_out_of(out_spec[0], size, out), out_spec[0]
    if fgc == 1 and bgc == 1:
        new_rhs = _reshape_axis_into(rd, rhs_spec[0], rhs)
        out = _bind(lhs, new_rhs, **params)
        return _reshape_axis_out_of(out_spec[1], size, out), out_spec[1]
    # groups must stay outermost in the rhs output features: factor them out, fold the batch
    # into what remains, put the groups back; the same on the output
    groups = fgc if fgc > 1 else bgc
    new_rhs = _reshape_axis_out_of(rhs_spec[0] + int(rd <= rhs_spec[0]), groups, rhs)
    new_rhs = _reshape_axis_into(rd + int(rhs_spec[0] < rd), rhs_spec[0] + 1, new_rhs)
    new_rhs = _reshape_axis_into(rhs_spec[0], rhs_spec[0], new_rhs)
    out = _bind(lhs, new_rhs, **params)
    out = _reshape_axis_out_of(out_spec[1], groups, out)
    out = _reshape_axis_out_of(out_spec[1] + 1, size, out)
    out = _reshape_axis_into(out_spec[1], out_spec[1] + 1, out)
    return out, out_spec[1]


conv_general_dilated_p.def_batching(_conv_batching)


# ------------------------------------------------------------------------------------------------
# Wrappers


def _ints(seq, n, default=1):
    if seq is None:
        return (default,) * n
    return tuple(operator.index(s) for s in seq)


def conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=None,
                         rhs_dilation=None, dimension_numbers=None, feature_group_count=1,
                         batch_group_count=1, precision=None, preferred_element_type=None,
                         out_sharding=None):
    """General N-d convolution (cross-correlation), as ``jax.lax.conv_general_dilated``. The
    result is laid out as ``out_sharding`` when one is given (``lay_out``)."""
    lhs_shape, rhs_shape = _shape(lhs), _shape(rhs)
    dnums = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    nsp = len(lhs_shape) - 2
    window_strides = _ints(window_strides, nsp)
    lhs_dilation = _ints(lhs_dilation, nsp)
    rhs_dilation = _ints(rhs_dilation, nsp)
    if isinstance(padding, str):
        lhs_sp = [lhs_shape[i] for i in dnums.lhs_spec[2:]]
        window = dilate_shape([rhs_shape[i] for i in dnums.rhs_spec[2:]], rhs_dilation)
        padding = tuple(padtype_to_pads(lhs_sp, window, window_strides, padding))
    else:
        padding = tuple(padtype_to_pads(None, None, None, padding))
    if preferred_element_type is not None:
        preferred_element_type = dtypes.canonicalize_dtype(preferred_element_type)
    out = conv_general_dilated_p.bind(
        lhs, rhs, window_strides=window_strides, padding=padding, lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation, dimension_numbers=dnums,
        feature_group_count=operator.index(feature_group_count),
        batch_group_count=operator.index(batch_group_count),
        precision=canonicalize_precision(precision),
        preferred_element_type=preferred_element_type,
        out_sharding=None,  # JAX's param; the result is laid out after it (no sharding in types)
    )
    return lay_out(out, out_sharding)


def conv(lhs, rhs, window_strides, padding, precision=None, preferred_element_type=None):
    """NCHW/OIHW convolution with strides and padding only."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                              precision=None, preferred_element_type=None):
    """NCHW/OIHW convolution with explicit padding and dilations."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=lhs_dilation,
                                rhs_dilation=rhs_dilation, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_transpose_padding(k, s, padding):
    """The (low, high) padding of one spatial axis of a transposed convolution with (dilated)
    kernel size ``k`` and stride ``s``, for 'SAME' or 'VALID'."""
    if padding.upper() == "SAME":
        total = k + s - 2
        lo = k - 1 if s > k - 1 else -(-total // 2)
        return (lo, total - lo)
    if padding.upper() == "VALID":
        total = k + s - 2 + max(k - s, 0)
        return (k - 1, total - (k - 1))
    raise ValueError(f"conv_transpose: unknown padding {padding!r}")


def conv_transpose(lhs, rhs, strides, padding, rhs_dilation=None, dimension_numbers=None,
                   transpose_kernel=False, precision=None, preferred_element_type=None):
    """Transposed convolution ("deconvolution") as a fractionally strided convolution.

    ``transpose_kernel=True`` flips the kernel spatially and swaps its feature axes, giving
    the gradient of ``conv_general_dilated`` (as TensorFlow's conv2d_transpose).
    """
    lhs_shape, rhs_shape = _shape(lhs), _shape(rhs)
    ndims = len(lhs_shape)
    if ndims < 2:
        raise ValueError(f"conv_transpose requires operands of rank >= 2, got {lhs_shape}")
    if dimension_numbers is None:
        dimension_numbers = {3: ("NHC", "HIO", "NHC"), 4: ("NHWC", "HWIO", "NHWC"),
                             5: ("NHWDC", "HWDIO", "NHWDC")}.get(ndims)
        if dimension_numbers is None:
            raise ValueError("conv_transpose: give dimension_numbers for rank "
                             f"{ndims} operands")
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    k_sdims = [rhs_shape[i] for i in dn.rhs_spec[2:]]
    nsp = len(k_sdims)
    rhs_dilation = _ints(rhs_dilation, nsp)
    strides = _ints(strides, nsp)
    effective_k = dilate_shape(k_sdims, rhs_dilation)
    if isinstance(padding, str):
        padding = tuple(conv_transpose_padding(k, s, padding)
                        for k, s in zip(effective_k, strides))
    if transpose_kernel:
        rhs = rev(rhs, tuple(dn.rhs_spec[2:]))
        rhs_spec = list(dn.rhs_spec)
        rhs_spec[0], rhs_spec[1] = rhs_spec[1], rhs_spec[0]
        dn = ConvDimensionNumbers(dn.lhs_spec, tuple(rhs_spec), dn.out_spec)
    return conv_general_dilated(lhs, rhs, (1,) * nsp, padding, lhs_dilation=strides,
                                rhs_dilation=rhs_dilation, dimension_numbers=dn,
                                precision=precision,
                                preferred_element_type=preferred_element_type)

# (operands split over Explicit mesh axes)
conv_general_dilated_p.sharding_rule = sharding_rules.conv(_conv_rule)
