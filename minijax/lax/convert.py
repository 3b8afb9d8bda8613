"""Dtype conversions: ``convert_element_type``, ``bitcast_convert_type``, ``reduce_precision``.

Semantics are XLA's, as in JAX:

- float → int rounds toward zero and *saturates*: values beyond the integer range become its
  min/max, NaN becomes 0 (XLA's ``convert`` clamps on every backend since 2023; C would be UB).
- anything → bool is ``x != 0`` (NaN → True), emitted as an explicit compare as JAX does. The
  StableHLO spec defines ``convert`` to ``i1`` the same way and XLA's CPU backend agrees
  (checked: 2 and 256 → True); the compare just does not depend on every backend getting it
  right.
- complex → real keeps the real part (with NumPy's ``ComplexWarning``, as JAX warns).
- ``bitcast_convert_type`` between widths adds (narrower) or removes (wider) a trailing axis.
"""

from __future__ import annotations

import operator
import warnings

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import core, dtypes
from minijax.core import Literal, Primitive, Tracer, concrete_or_error, get_aval
from minijax.interpreters import ad, batching
from minijax.interpreters.partial_eval import (
    DynamicJaxprTrace, DynamicJaxprTracer, lifting_trace)
from minijax.lax.families import FLOAT, check_dtype_allowed, full_like_shape, hlo_compare
from minijax.lowering.stablehlo import tensor_type
from minijax.lax import sharding_rules

__all__ = [
    "bitcast_convert_type",
    "bitcast_convert_type_p",
    "convert_element_type",
    "convert_element_type_p",
    "reduce_precision",
    "reduce_precision_p",
]

# ------------------------------------------------------------------------------------------------
# convert_element_type[new_dtype weak_type] (JAX's sharding param is dropped: shardings live on
# values here, not on this primitive)


def _convert_abstract_eval(operand, *, new_dtype, weak_type):
    return operand.update(dtype=new_dtype, weak_type=weak_type)


def _convert_lowering(ctx, x, *, new_dtype, weak_type):
    aval_in, aval_out = ctx.avals_in[0], ctx.avals_out[0]
    in_dtype = aval_in.dtype
    if in_dtype.kind == "c" and new_dtype.kind != "c":
        x = hlo.real(x)
        in_dtype = np.dtype(np.finfo(in_dtype).dtype)
    if new_dtype == dtypes.bool_ and in_dtype != dtypes.bool_:
        return hlo_compare(x, full_like_shape(0, aval_in.shape, in_dtype), "NE", in_dtype)
    if new_dtype == in_dtype:
        return x
    return hlo.convert(tensor_type(aval_out), x)


convert_element_type_p = Primitive("convert_element_type")
convert_element_type_p.def_abstract_eval(_convert_abstract_eval)
convert_element_type_p.def_lowering(_convert_lowering)
convert_element_type_p.def_batching(batching.elementwise_rule(convert_element_type_p))


def _convert_jvp(primals, tangents, *, new_dtype, weak_type):
    """Linear between inexact dtypes (complex -> real keeps the real part); a result of an
    integer or boolean dtype has a zero (float0) tangent."""
    (x,), (g,) = primals, tangents
    ans = convert_element_type_p.bind(x, new_dtype=new_dtype, weak_type=weak_type)
    if not dtypes.is_inexact(new_dtype):
        return ans, ad.Zero.from_primal_value(ans)
    return ans, _bind_folded(g, new_dtype, weak_type)


def _convert_transpose(ct, operand, *, new_dtype, weak_type):
    aval = operand.aval
    return [_bind_folded(ct, aval.dtype, aval.weak_type)]


def _bind_folded(operand, new_dtype, weak_type):
    """The conversion bound, or folded as JAX's const-folding rule folds a staged conversion
    of a constant (a scalar, a seed cotangent ``1.0``), whatever binds it: the jaxpr holds the
    converted literal."""
    # a tracer folds only as a literal of a jaxpr being built: the common traced operand
    # (a derivative rule's tangent) goes straight to bind
    if ((not isinstance(operand, Tracer) or type(operand) is DynamicJaxprTracer
         and type(operand.val) is Literal) and not core.is_eval_trace_current()):
        folded = _folded_constant(operand, get_aval(operand), new_dtype, weak_type)
        if folded is not None:
            return folded
    return convert_element_type_p.bind(operand, new_dtype=new_dtype, weak_type=weak_type)


ad.primitive_jvps[convert_element_type_p] = _convert_jvp
ad.primitive_transposes[convert_element_type_p] = _convert_transpose
# JAX's forwarding rule: a conversion to the operand's own type (a derivative rule's) is the
# operand in every jaxpr it stages
convert_element_type_p.forwards_operand = lambda operand, out: operand == out


def convert_element_type(operand, new_dtype):
    """``operand`` as ``new_dtype`` (canonicalized: float64 means float32 unless x64 is on)."""
    try:
        return _convert_element_type(operand, new_dtype, weak_type=False)
    except (AttributeError, ValueError):
        # typed keys (an extended dtype: no NumPy kind, no canonical form), looked for only
        # once the conversion failed: as JAX's, keys convert to their own dtype alone
        old, new = get_aval(operand).dtype, new_dtype
        old_keys, new_keys = (isinstance(d, dtypes.ExtendedDType) for d in (old, new))
        if not (old_keys or new_keys):
            raise
        if old == new:
            return operand
        if old_keys and new_keys:  # JAX's words
            raise ValueError(
                f"cannot directly convert between extended dtypes: from {old} to {new}. "
                "Instead, convert to and from their representation dtypes, e.g.:\n"
                f"{old} -> uint32 -> uint32 -> {new}") from None
        new = new if new_keys else dtypes.canonicalize_dtype(new)
        raise ValueError(f"Cannot convert_element_type from {old} to {new}") from None


def _convert_element_type(operand, new_dtype=None, weak_type=False,
                          warn_on_complex_to_real_cast=True):
    """The general form (jnp uses it): ``weak_type=True`` keeps a Python scalar's weakness;
    ``jnp.astype`` gives its own warning for a complex to real cast."""
    if type(operand) is int and new_dtype is not None:
        # A Python int may not fit int32 (2**40 → float32 is fine): convert on the host first.
        operand = np.asarray(operand).astype(dtypes.canonicalize_dtype(new_dtype))
    aval = get_aval(operand)
    new_dtype = aval.dtype if new_dtype is None else dtypes.canonicalize_dtype(new_dtype)
    weak_type = bool(weak_type)
    if warn_on_complex_to_real_cast and aval.dtype.kind == "c" and new_dtype.kind != "c":
        warnings.warn(
            "Casting complex values to real discards the imaginary part",
            np.exceptions.ComplexWarning,
            stacklevel=3,
        )
    if (aval.dtype, aval.weak_type) == (new_dtype, weak_type):
        if _is_array(operand) and not _tangent_retyped(operand):
            return operand  # a no-op on an array (or tracer) adds no equation, as in JAX
        if type(operand) is np.ndarray and operand.ndim:
            trace = lifting_trace()
            if type(trace) is DynamicJaxprTrace:
                # JAX stages the NumPy array as a constant and forwards the no-op conversion
                # of it (convert_element_type's forwarding rule): the constant, no equation
                var = trace.to_var(operand)
                return DynamicJaxprTracer(trace, var.aval, var)
    if _converts_on_host(operand, new_dtype, weak_type):
        # JAX converts a scalar to a strong dtype with NumPy before it binds, under any trace,
        # so NumPy's rules apply: a Python complex to a real dtype raises TypeError, a complex
        # to bool is NumPy's nonzero test, and a NumPy float beyond an integer range casts as
        # NumPy does. A Python value NumPy cannot fit (OverflowError) goes to XLA.
        try:
            operand = np.asarray(operand, dtype=new_dtype)
        except OverflowError:
            pass
    return _bind_folded(operand, new_dtype, weak_type)


def _folded_constant(operand, aval, new_dtype, weak_type):
    """JAX's constant folding of ``convert_element_type`` on a staging trace: a Python or NumPy
    scalar, or a literal of the jaxpr being built (``jnp.asarray(2.0)``), converted by NumPy
    into a new literal. So ``jnp.asarray(2.0) + x`` stages no conversion, and inf to int32 is
    NumPy's INT_MIN (with its warning) under jit where eager XLA saturates. A complex value to
    a real dtype keeps its real part. None where nothing folds."""
    trace = lifting_trace()
    if type(trace) is not DynamicJaxprTrace:
        return None
    if type(operand) is DynamicJaxprTracer and type(operand.val) is Literal:
        if operand._trace is not trace:
            return None
        val = np.asarray(operand.val.val)
    elif type(operand) in (float, complex) and (aval.dtype, aval.weak_type) == (new_dtype,
                                                                          weak_type):
        # a no-op conversion stages the Python value itself, unrounded (JAX's ``stage``)
        return DynamicJaxprTracer(trace, aval, Literal(operand, aval))
    elif ((type(operand) in _FOLDABLE or isinstance(operand, np.generic))
          and new_dtype != dtypes.float0 and not np.shape(operand)):
        val = np.asarray(operand)
    else:
        return None
    if val.dtype == dtypes.float0:
        return None  # NumPy cannot cast float0; JAX stages it (jacfwd's integer output blocks)
    if val.dtype.kind == "c" and new_dtype.kind != "c":
        val = val.real
    new_aval = aval.update(dtype=new_dtype, weak_type=weak_type)
    return DynamicJaxprTracer(trace, new_aval, Literal(val.astype(new_dtype), new_aval))


# What JAX folds (with NumPy scalars, which its trace holds as NumPy arrays): Python scalars and
# NumPy arrays, scalars only; never device values. A WeakScalar is a Python scalar a lax op
# received (``lax.pow(x, 3)``'s exponent, seen again by its derivative rule).
_FOLDABLE = frozenset({bool, int, float, complex, np.ndarray, core.WeakScalar})


def _converts_on_host(operand, new_dtype, weak_type):
    """JAX's test for host conversion: a Python or NumPy scalar to a strong dtype other than
    float0, except a non-finite inexact one to an integer dtype (XLA saturates those)."""
    if weak_type or new_dtype == dtypes.float0:
        return False
    if not isinstance(operand, (bool, int, float, complex, np.generic)):
        return False
    return not (
        isinstance(operand, (float, complex, np.inexact))
        and not np.isfinite(operand)
        and new_dtype.kind in "iu"
    )


def _is_array(x):
    return isinstance(x, Tracer) or (hasattr(x, "aval") and not isinstance(x, np.ndarray))


def _tangent_retyped(x):
    """Whether ``x`` is a JVP tracer over a concrete value (an eager grad, jvp or linearize:
    nothing staged under it) carrying a tangent of another weak type than its primal
    (``jnp.power(jnp.int32(3), b)``'s strong tangent of a weak primal). JAX's no-op conversion
    skips an array or an abstract tracer, but binds on a concrete tracer, and the rule converts
    such a tangent to the primal's type (eager ``jnp.stack([p, b])``'s promotion makes ``p``'s
    tangent weak as its primal; under jit the tangent stays strong); a matching tangent forwards,
    so only these bind."""
    bottom = x
    while type(bottom) is ad.JVPTracer:
        bottom = bottom.primal
    if bottom is x or type(bottom) is DynamicJaxprTracer or isinstance(bottom, Tracer):
        return False  # abstract (under jit, make_jaxpr): JAX's conversion skips it
    while x is not bottom:
        t = x.tangent
        if type(t) is not ad.Zero and get_aval(t).weak_type != get_aval(x.primal).weak_type:
            return True
        x = x.primal
    return False


# ------------------------------------------------------------------------------------------------
# bitcast_convert_type[new_dtype]


def _bitcast_abstract_eval(operand, *, new_dtype):
    old_dtype = operand.dtype
    if (
        old_dtype.kind in "bc" or new_dtype.kind in "bc"
    ) and old_dtype != new_dtype:
        raise TypeError(
            "bitcast_convert_type does not support bool or complex values unless the operand "
            f"and destination types match, got {operand.str_short(True)} to {new_dtype.name}. "
            "Consider using the arr.view() method instead."
        )
    old_bits, new_bits = 8 * old_dtype.itemsize, 8 * new_dtype.itemsize
    if old_bits == new_bits:
        shape = operand.shape
    elif old_bits > new_bits:  # each element splits into a trailing axis of narrower ones
        shape = (*operand.shape, old_bits // new_bits)
    else:  # the trailing axis merges into one wider element
        last = operand.shape[-1] if operand.shape else 1
        if last * old_bits != new_bits:
            raise ValueError(
                f"bitcast_convert_type: attempting to convert {operand.str_short(True)} from "
                f"{old_dtype.name} of {old_bits} bits to {new_dtype.name} of {new_bits} bits, "
                f"but the last axis has {last} elements and {last} * {old_bits} != {new_bits}."
            )
        shape = operand.shape[:-1]
    return operand.update(shape=shape, dtype=new_dtype, weak_type=False)


bitcast_convert_type_p = Primitive("bitcast_convert_type")
bitcast_convert_type_p.def_abstract_eval(_bitcast_abstract_eval)
bitcast_convert_type_p.def_lowering(
    lambda ctx, x, *, new_dtype: hlo.bitcast_convert(tensor_type(ctx.avals_out[0]), x)
)


def _bitcast_batching(args, dims, *, new_dtype):
    """Elementwise, except that a widening bitcast merges the trailing axis, which must be a
    per-example one: a batch axis there moves to the front first."""
    (x,), (d,) = args, dims
    aval = get_aval(x)
    if aval.dtype.itemsize < new_dtype.itemsize and d == aval.ndim - 1:
        x, d = batching.moveaxis(x, d, 0), 0
    return bitcast_convert_type_p.bind(x, new_dtype=new_dtype), d


bitcast_convert_type_p.def_batching(_bitcast_batching)
ad.defjvp_zero(bitcast_convert_type_p)  # reinterpreted bits have no meaningful derivative


def bitcast_convert_type(operand, new_dtype):
    """The bits of ``operand`` reinterpreted as ``new_dtype`` (no value conversion)."""
    return bitcast_convert_type_p.bind(operand, new_dtype=dtypes.canonicalize_dtype(new_dtype))


# ------------------------------------------------------------------------------------------------
# reduce_precision[exponent_bits mantissa_bits]


def _reduce_precision_abstract_eval(operand, *, exponent_bits, mantissa_bits):
    check_dtype_allowed("reduce_precision", operand.dtype, FLOAT)
    if exponent_bits < 1:
        raise ValueError(f"reduce_precision: exponent_bits must be positive; got {exponent_bits}")
    if mantissa_bits < 0:
        raise ValueError(
            f"reduce_precision: mantissa_bits must be non-negative; got {mantissa_bits}"
        )
    return operand


reduce_precision_p = Primitive("reduce_precision")
reduce_precision_p.def_abstract_eval(_reduce_precision_abstract_eval)
reduce_precision_p.def_lowering(
    lambda ctx, x, *, exponent_bits, mantissa_bits: hlo.reduce_precision(
        x, exponent_bits, mantissa_bits
    )
)
reduce_precision_p.def_batching(batching.elementwise_rule(reduce_precision_p))
# Treated as the identity for differentiation (as JAX does): rounding's jumps are ignored.
ad.deflinear(reduce_precision_p, lambda ct, x, **params: [reduce_precision_p.bind(ct, **params)])


def reduce_precision(operand, exponent_bits, mantissa_bits):
    """Rounds ``operand`` to the precision of a float with the given exponent/mantissa bits
    (``reduce_precision(x, 8, 7)`` rounds float32 values to bfloat16's, keeping float32)."""
    exponent_bits = concrete_or_error(
        operator.index, exponent_bits, "exponent_bits argument of lax.reduce_precision"
    )
    mantissa_bits = concrete_or_error(
        operator.index, mantissa_bits, "mantissa_bits argument of lax.reduce_precision"
    )
    return reduce_precision_p.bind(
        operand, exponent_bits=exponent_bits, mantissa_bits=mantissa_bits
    )

# Sharding rules (operands split over Explicit mesh axes)
convert_element_type_p.sharding_rule = sharding_rules.operand(0)
reduce_precision_p.sharding_rule = sharding_rules.operand(0)
bitcast_convert_type_p.sharding_rule = sharding_rules.bitcast_convert_type
