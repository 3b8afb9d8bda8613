"""``dot_general``: contractions with batch dimensions, plus ``dot`` and ``batch_matmul``.

One primitive covers every matmul-like product: ``dimension_numbers`` is
``((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))`` and the result is laid out as
(batch dims, lhs free dims, rhs free dims), exactly ``stablehlo.dot_general``. XLA picks the
kernel (and fuses transposes into it), so we never transpose operands ourselves.

Dtypes follow XLA's shape inference (as JAX does): mixed operand dtypes are allowed and the
result is the "higher precision" one; ``preferred_element_type`` asks for another accumulation
and result type (bf16 x bf16 -> f32 accumulates in f32).
"""

from __future__ import annotations

import enum
import functools
import operator
from typing import Union

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import core, dtypes
from minijax.config import config
from minijax.core import Primitive, ShapedArray, get_aval
from minijax.interpreters import ad, batching
from minijax.lax.convert import _convert_element_type
from minijax.lax.dot_algorithm import (
    CPU_PRESETS,
    DotAlgorithm,
    DotAlgorithmPreset,
    algorithm_compute_types,
)
from minijax.lax.structural import transpose
from minijax.lowering.stablehlo import tensor_type
from minijax.lax.sharding_constraint import explicit_out_sharding, lay_out
from minijax.sharding_types import PartitionSpec as P
from minijax.lax import sharding_rules

__all__ = ["Precision", "PrecisionLike", "batch_matmul", "dot", "dot_general", "dot_general_p"]


# ------------------------------------------------------------------------------------------------
# Precision


class Precision(enum.Enum):
    """Matmul precision on accelerators (CPU always computes f32 products in f32)."""

    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    @classmethod
    def _missing_(cls, value):
        return _PRECISION_STRINGS.get(value)

    def __repr__(self):
        return f"{type(self).__name__}.{self.name}"

    def __str__(self):
        return self.name


_PRECISION_STRINGS = {
    "bfloat16": Precision.DEFAULT, "tensorfloat32": Precision.HIGH, "float32": Precision.HIGHEST,
    "default": Precision.DEFAULT, "high": Precision.HIGH, "highest": Precision.HIGHEST,
    "fastest": Precision.DEFAULT,
}


def canonicalize_precision(precision):
    """None, or a pair ``(Precision, Precision)`` (one per operand), from what users may pass.
    None takes ``jax_default_matmul_precision`` (part of the trace: the jit cache key holds it)."""
    if precision is None:
        default = config.jax_default_matmul_precision
        if default is None:
            return None
        p = _PRECISION_STRINGS[default]
        return (p, p)
    if isinstance(precision, (str, Precision)):
        p = _as_precision(precision)
        return (p, p)
    if isinstance(precision, (tuple, list)) and len(precision) == 2:
        return tuple(_as_precision(p) for p in precision)
    raise ValueError(_precision_error(precision))


PrecisionLike = Union[None, str, Precision, tuple[str, str], tuple[Precision, Precision],
                      DotAlgorithm, DotAlgorithmPreset]


def canonicalize_dot_precision(precision):
    """``canonicalize_precision`` for dot products, which also take an algorithm: a
    ``DotAlgorithm``, a ``DotAlgorithmPreset`` or a preset's name (kept as the param)."""
    if isinstance(precision, (DotAlgorithm, DotAlgorithmPreset)):
        return precision
    if isinstance(precision, str) and precision in DotAlgorithmPreset.__members__:
        return DotAlgorithmPreset[precision]
    return canonicalize_precision(precision)


def _as_precision(p):
    if isinstance(p, Precision):
        return p
    if isinstance(p, str) and p in _PRECISION_STRINGS:
        return _PRECISION_STRINGS[p]
    raise ValueError(_precision_error(p))


def _precision_error(p):
    return (
        "Precision argument must be None, a string in "
        f"{sorted(_PRECISION_STRINGS)}, a lax.Precision value or a pair of them; got {p!r}."
    )


# ------------------------------------------------------------------------------------------------
# Shape and dtype rules


def _dot_general_shape(lhs, rhs, dimension_numbers):
    """The result's shape, or JAX's TypeError (its words and order of checks)."""
    (lc, rc), (lb, rb) = dimension_numbers
    for side, aval, batch, contracting in (("lhs", lhs, lb, lc), ("rhs", rhs, rb, rc)):
        if not all(0 <= d < aval.ndim for d in (*contracting, *batch)):
            raise TypeError(
                f"dot_general requires {side} dimension numbers to be nonnegative and less "
                f"than the number of axes of the {side} value, got {side}_batch of {batch} "
                f"and {side}_contracting of {contracting} for {side} of rank {aval.ndim}")
    if len(lb) != len(rb):
        raise TypeError("dot_general requires equal numbers of lhs_batch and rhs_batch "
                        f"dimensions, got lhs_batch {lb} and rhs_batch {rb}.")
    for kind, side, dims in (("batch", "lhs", lb), ("batch", "rhs", rb),
                             ("contracting", "lhs", lc), ("contracting", "rhs", rc)):
        if len(set(dims)) != len(dims):
            raise TypeError(f"dot_general requires {side} {kind} dimensions to be distinct, "
                            f"got {side}_{kind} {dims}.")
    for side, batch, contracting in (("lhs", lb, lc), ("rhs", rb, rc)):
        if set(batch) & set(contracting):
            raise TypeError(
                f"dot_general requires {side} batch dimensions to be disjoint from contracting "
                f"dimensions, got {side}_batch {batch} and {side}_contracting {contracting}.")
    lb_shape = tuple(lhs.shape[i] for i in lb)
    rb_shape = tuple(rhs.shape[i] for i in rb)
    if lb_shape != rb_shape:
        raise TypeError("dot_general requires lhs batch dimensions and rhs batch dimensions "
                        f"to have the same shape, got {lb_shape} and {rb_shape}.")
    lc_shape = tuple(lhs.shape[i] for i in lc)
    rc_shape = tuple(rhs.shape[i] for i in rc)
    if lc_shape != rc_shape:
        raise TypeError("dot_general requires contracting dimensions to have the same shape, "
                        f"got {lc_shape} and {rc_shape}.")
    lhs_free = [d for i, d in enumerate(lhs.shape) if i not in lc and i not in lb]
    rhs_free = [d for i, d in enumerate(rhs.shape) if i not in rc and i not in rb]
    return (*lb_shape, *lhs_free, *rhs_free)


@functools.cache
def _type_properties(dtype):
    """XLA's order of "precision" among dtypes (primitive_util::HigherPrecisionType)."""
    if dtype == dtypes.float0:  # JAX's _bit_width asserts on it (a float0 cotangent's dot)
        raise AssertionError(str(dtype))
    real = dtype
    if dtype.kind == "c":
        real = np.dtype(np.float32 if dtype == np.complex64 else np.float64)
    floating = dtypes.is_float(real)
    info = dtypes.finfo(real) if floating else None
    return (
        dtype.kind == "c",
        info.maxexp if floating else -1,
        info.nmant if floating else -1,
        8 * real.itemsize if real != np.bool_ else 1,
        real.kind != "u",
    )


def _bit_width(dtype):
    if dtype == np.bool_:
        return 1
    return (dtypes.finfo if dtypes.is_inexact(dtype) else dtypes.iinfo)(dtype).bits


def _dot_general_dtype(lhs, rhs, preferred_element_type, check_bit_width):
    lp, rp = _type_properties(lhs.dtype), _type_properties(rhs.dtype)
    if lp == rp and lhs.dtype != rhs.dtype:
        raise TypeError(
            f"dot_general argument type error: {lhs.str_short(True)} and {rhs.str_short(True)} "
            "have no common result type. Convert one operand explicitly."
        )
    result = lhs.dtype if lp >= rp else rhs.dtype
    if preferred_element_type is None or preferred_element_type == result:
        return result
    pref = preferred_element_type
    # XLA's MaybeUpcast, as JAX's _maybe_upcast: any preferred type is accepted (float operands
    # with an integer one accumulate in the float type and convert the sum, saturating), except
    # one narrower than a non-floating result (a complex one counts its real part's bits).
    if check_bit_width and not dtypes.is_float(result) and _bit_width(pref) < _bit_width(result):
        raise TypeError(
            "`preferred_element_type` must not be narrower than the original type, got "
            f"preferred_element_type of {pref.name} for result type of {result.name}."
        )
    return pref


def _dot_general_rule(lhs, rhs, *, dimension_numbers, precision, preferred_element_type,
                      out_sharding=None):
    shape = _dot_general_shape(lhs, rhs, dimension_numbers)
    # JAX's standard weak-type rule: weak when both operands are (preferred type or not)
    # (an explicit algorithm skips the bit-width check, as in JAX)
    dtype = _dot_general_dtype(lhs, rhs, preferred_element_type,
                               not isinstance(precision, (DotAlgorithm, DotAlgorithmPreset)))
    # ``out_sharding``: the result's split over Explicit mesh axes, where the operands' would
    # be ambiguous (contracting dimensions split on both sides)
    explicit = None if out_sharding is None else core.explicit_of(out_sharding, shape)
    return ShapedArray(shape, dtype, lhs.weak_type and rhs.weak_type, explicit=explicit)


# ------------------------------------------------------------------------------------------------
# Lowering


def _convert(x, aval, dtype):
    if aval.dtype == dtype:
        return x
    return hlo.convert(tensor_type(aval.update(dtype=dtype)), x)


def _precision_config(precision):
    if precision is None or isinstance(precision, (DotAlgorithm, DotAlgorithmPreset)):
        return None
    return ir.ArrayAttr.get([hlo.PrecisionAttr.get(p.name) for p in precision])


def _algorithm_lowering(ctx, lhs, rhs, dnums, algorithm):
    """A dot with an explicit algorithm: the operands converted to its input types, the
    product in its accumulation type, then converted to the result type (as JAX)."""
    if ctx.module_ctx.platform == "cpu" and algorithm not in CPU_PRESETS:
        raise ValueError(f"The precision '{algorithm}' is not supported by dot_general on CPU")
    lhs_aval, rhs_aval = ctx.avals_in
    out_aval = ctx.avals_out[0]
    lhs_t, rhs_t, acc_t = algorithm_compute_types(algorithm, lhs_aval.dtype, rhs_aval.dtype,
                                                  out_aval.dtype)
    lhs = _convert(lhs, lhs_aval, np.dtype(lhs_t))
    rhs = _convert(rhs, rhs_aval, np.dtype(rhs_t))
    acc_aval = out_aval if acc_t is None else out_aval.update(dtype=np.dtype(acc_t))
    kw = {}
    if algorithm is not DotAlgorithmPreset.DEFAULT:
        kw["algorithm"] = algorithm._convert_to_hlo_attr(lhs_t, rhs_t)
    out = hlo.dot_general(tensor_type(acc_aval), lhs, rhs, dnums, **kw)
    return _convert(out, acc_aval, out_aval.dtype)


def _dot_general_lowering(ctx, lhs, rhs, *, dimension_numbers, precision, preferred_element_type,
                          out_sharding=None):
    (lc, rc), (lb, rb) = dimension_numbers
    lhs_aval, rhs_aval = ctx.avals_in
    out_aval = ctx.avals_out[0]
    if isinstance(precision, (DotAlgorithm, DotAlgorithmPreset)):
        return _algorithm_lowering(ctx, lhs, rhs, hlo.DotDimensionNumbers.get(
            lhs_batching_dimensions=list(lb), rhs_batching_dimensions=list(rb),
            lhs_contracting_dimensions=list(lc), rhs_contracting_dimensions=list(rc)), precision)
    widening_ints_on_gpu = (
        ctx.module_ctx.platform == "gpu" and lhs_aval.dtype.kind in "iub"
        and out_aval.dtype != lhs_aval.dtype
    )
    # bf16 x bf16 -> f32 stays one dot on the CPU too, as JAX emits it: XLA:CPU sums it in
    # its own order, which widening the operands first changes in the last bits
    if lhs_aval.dtype != rhs_aval.dtype or widening_ints_on_gpu:
        # XLA's type system accepts mixed operands but CPU/GPU codegen does not: convert both to
        # the result type (what JAX does on CPU and GPU). On GPU, XLA's Triton gemm also gets
        # integer dots with a wider result wrong (s8 x s8 -> s32 doubles every sum; s8 -> f32
        # crashes the process, jaxlib 0.11.2 on an H100, JAX included): widen first there too.
        lhs = _convert(lhs, lhs_aval, out_aval.dtype)
        rhs = _convert(rhs, rhs_aval, out_aval.dtype)
    dnums = hlo.DotDimensionNumbers.get(
        lhs_batching_dimensions=list(lb), rhs_batching_dimensions=list(rb),
        lhs_contracting_dimensions=list(lc), rhs_contracting_dimensions=list(rc),
    )
    return hlo.dot_general(tensor_type(out_aval), lhs, rhs, dnums,
                           precision_config=_precision_config(precision))


def _pp_params(params):
    """JAX's printing: dimension numbers as lists, ``None`` params left out."""
    (lc, rc), (lb, rb) = params["dimension_numbers"]
    printed = {k: v for k, v in params.items() if v is not None and k != "out_sharding"}
    printed["dimension_numbers"] = ((list(lc), list(rc)), (list(lb), list(rb)))
    if isinstance(params["precision"], tuple) and not isinstance(params["precision"],
                                                                 DotAlgorithm):
        printed["precision"] = "(" + ", ".join(repr(p) for p in params["precision"]) + ")"
    return printed


dot_general_p = Primitive("dot_general")
dot_general_p.def_abstract_eval(_dot_general_rule)
dot_general_p.def_lowering(_dot_general_lowering)
# Read by the jaxpr printer when it supports per-primitive parameter printing (see core.pp_eqn).
dot_general_p.pp_params = _pp_params


def _dot_general_batching(args, dims, *, dimension_numbers, precision, preferred_element_type,
                          out_sharding=None):
    """One dot_general, never a loop and no transposes: when both operands are mapped, their
    batch axes become a new (leading) batch dimension; when one is, its batch axis is one more
    free dimension of it, which lands among that operand's free dims in the result."""
    (lhs, rhs), (ld, rd) = args, dims
    (lc, rc), (lb, rb) = dimension_numbers
    if ld is not batching.not_mapped:
        lc, lb = (tuple(batching.to_val_axis(a, ld) for a in axes) for axes in (lc, lb))
    if rd is not batching.not_mapped:
        rc, rb = (tuple(batching.to_val_axis(a, rd) for a in axes) for axes in (rc, rb))
    if ld is not batching.not_mapped and rd is not batching.not_mapped:
        dnums, out_dim = ((lc, rc), ((ld, *lb), (rd, *rb))), 0
    elif ld is not batching.not_mapped:
        dnums = ((lc, rc), (lb, rb))
        out_dim = len(lb) + sum(1 for i in range(ld) if i not in lc and i not in lb)
    else:
        dnums = ((lc, rc), (lb, rb))
        lhs_free = get_aval(lhs).ndim - len(lc) - len(lb)
        out_dim = len(lb) + lhs_free + sum(1 for i in range(rd) if i not in rc and i not in rb)
    if out_sharding is not None:  # the batch axis keeps its split
        x, xd = (lhs, ld) if ld is not batching.not_mapped else (rhs, rd)
        spec = list(out_sharding.spec) + [None] * (out_dim + 1 - len(out_sharding.spec))
        spec.insert(out_dim, get_aval(x).parts()[xd])
        out_sharding = out_sharding.update(spec=P(*spec))
    out = dot_general_p.bind(lhs, rhs, dimension_numbers=dnums, precision=precision,
                             preferred_element_type=preferred_element_type,
                             out_sharding=out_sharding)
    return out, out_dim


dot_general_p.def_batching(_dot_general_batching)


# Differentiation: dot_general is bilinear. Each operand's cotangent is one more dot_general of
# the output cotangent with the other operand, then a transpose into the operand's layout
# (XLA folds the transpose into the dot).


def _ranges(*lengths):
    out, start = [], 0
    for n in lengths:
        out.append(tuple(range(start, start + n)))
        start += n
    return out


def _dot_transpose_lhs(ct, x_aval, y, dimension_numbers, precision, preferred_element_type,
                       swap_ans=False):
    """``x``'s cotangent: a dot of ``ct`` with ``y``, split as ``x`` over Explicit mesh axes
    (JAX passes the operand's split as the dot's ``out_sharding``), transposed to ``x``'s
    layout."""
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    y_ndim = get_aval(y).ndim
    x_kept = [i for i in range(x_aval.ndim) if i not in x_contract and i not in x_batch]
    y_kept = [i for i in range(y_ndim) if i not in y_contract and i not in y_batch]
    if swap_ans:
        ans_batch, ans_y, _ = _ranges(len(x_batch), len(y_kept), len(x_kept))
    else:
        ans_batch, _, ans_y = _ranges(len(x_batch), len(x_kept), len(y_kept))
    dims = ((ans_y, tuple(y_kept)), (ans_batch, tuple(y_batch)))
    x_contract_by_y = [x_contract[i] for i in np.argsort(y_contract)]
    out_axes = tuple(int(i) for i in np.argsort(list(x_batch) + x_kept + x_contract_by_y))
    out_sharding = None
    mesh = next((a.explicit[0] for a in (x_aval, get_aval(ct), get_aval(y))
                 if getattr(a, "explicit", None) is not None), None)
    if mesh is not None:
        parts = x_aval.parts()
        order = list(x_batch) + x_kept + x_contract_by_y
        out_sharding = core.typed_sharding(mesh, tuple(parts[i] for i in order))
    x_bar = dot_general_p.bind(ct, y, dimension_numbers=dims, precision=precision,
                               preferred_element_type=preferred_element_type,
                               out_sharding=out_sharding)
    x_bar = transpose(x_bar, out_axes)
    if get_aval(x_bar).dtype != x_aval.dtype:  # preferred_element_type or mixed operands
        x_bar = _convert_element_type(x_bar, x_aval.dtype, x_aval.weak_type)
    return x_bar


def _dot_general_transpose(ct, x, y, *, dimension_numbers, precision, preferred_element_type,
                           out_sharding=None):
    if ad.is_undefined_primal(x) and ad.is_undefined_primal(y):
        raise TypeError("dot_general is not linear in both operands at once")
    if ad.is_undefined_primal(x):
        return [_dot_transpose_lhs(ct, x.aval, y, dimension_numbers, precision,
                                   preferred_element_type), None]
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    swapped = ((y_contract, x_contract), (y_batch, x_batch))
    return [None, _dot_transpose_lhs(ct, y.aval, x, swapped, precision, preferred_element_type,
                                     swap_ans=True)]


ad.defjvp(dot_general_p,
          lambda g, x, y, **params: dot_general_p.bind(g, y, **params),
          lambda g, x, y, **params: dot_general_p.bind(x, g, **params))
ad.primitive_transposes[dot_general_p] = _dot_general_transpose


# ------------------------------------------------------------------------------------------------
# Wrappers


def _index_tuple(dims):
    if isinstance(dims, (int, np.integer)):
        return (operator.index(dims),)
    return tuple(operator.index(d) for d in dims)


def _canonical_dimension_numbers(dimension_numbers):
    try:
        (lc, rc), (lb, rb) = dimension_numbers
    except (TypeError, ValueError):
        raise TypeError(
            "dot_general dimension_numbers must be ((lhs_contracting, rhs_contracting), "
            f"(lhs_batch, rhs_batch)), got {dimension_numbers!r}"
        ) from None
    return (_index_tuple(lc), _index_tuple(rc)), (_index_tuple(lb), _index_tuple(rb))


def _canonical_preferred(preferred_element_type):
    if preferred_element_type is None:
        return None
    return dtypes.canonicalize_dtype(preferred_element_type)


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None, *,
                out_sharding=None):
    """General contraction: see the module docstring for ``dimension_numbers``. The result
    is split as ``out_sharding`` over Explicit mesh axes (its type), else laid out so
    (``lay_out``)."""
    typed = explicit_out_sharding(out_sharding)
    out = dot_general_p.bind(
        lhs, rhs,
        dimension_numbers=_canonical_dimension_numbers(dimension_numbers),
        precision=canonicalize_dot_precision(precision),
        preferred_element_type=_canonical_preferred(preferred_element_type),
        out_sharding=typed,
    )
    return out if typed is not None else lay_out(out, out_sharding)


def dot(lhs, rhs, precision=None, preferred_element_type=None):
    """Vector·vector, matrix·vector or matrix·matrix product (rank 1 or 2 operands)."""
    lhs_ndim, rhs_ndim = get_aval(lhs).ndim, get_aval(rhs).ndim
    if not (1 <= lhs_ndim <= 2 and 1 <= rhs_ndim <= 2):
        raise TypeError(
            f"dot requires operands of rank 1 or 2, got {get_aval(lhs).str_short(True)} and "
            f"{get_aval(rhs).str_short(True)}; use dot_general for other ranks"
        )
    dims = (((lhs_ndim - 1,), (0,)), ((), ()))
    return dot_general(lhs, rhs, dims, precision, preferred_element_type)


def batch_matmul(lhs, rhs, precision=None):
    """Matmul over the last two axes, batched over the leading ones (which must be equal)."""
    lhs_ndim, rhs_ndim = get_aval(lhs).ndim, get_aval(rhs).ndim
    if lhs_ndim < 2 or lhs_ndim != rhs_ndim:
        raise ValueError(
            f"batch_matmul requires arrays of equal rank >= 2, got {get_aval(lhs).str_short(True)} "
            f"and {get_aval(rhs).str_short(True)}"
        )
    batch = tuple(range(lhs_ndim - 2))
    dims = (((lhs_ndim - 1,), (rhs_ndim - 2,)), (batch, batch))
    return dot_general(lhs, rhs, dims, precision)

dot_general_p.sharding_rule = sharding_rules.dot_general  # (operands split over Explicit axes)
