"""Cumulative reductions along one axis: ``cumsum``, ``cumprod``, ``cummax``, ``cummin``,
``cumlogsumexp`` (params ``axis``, ``reverse``).

Each lowers as JAX does on CPU and GPU: a ``stablehlo.reduce_window`` whose window spans the
whole axis (size n) with n-1 elements of identity padding before each position (after it, for
``reverse``), so output i reduces elements 0..i. Written naively that is O(n^2), but XLA
recognises this pattern and rewrites it into an efficient parallel scan, so we emit the simple
form and let XLA choose the algorithm.
"""

from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax.core import Primitive, ShapedArray
from minijax.interpreters import ad, batching
from minijax.lax import elementwise as el
from minijax.lax.control_flow.associative_scan import associative_scan
from minijax.lax.families import (
    NUMBER,
    check_dtype_allowed,
    fill_region,
    highest,
    hlo_compare,
    is_nan,
    lowest,
    minmax_values,
    scalar_type,
)
from minijax.lowering.stablehlo import dense_i64, ir_constant
from minijax.lax import sharding_rules

__all__ = [
    "cumlogsumexp", "cumlogsumexp_p", "cummax", "cummax_p", "cummin", "cummin_p",
    "cumprod", "cumprod_p", "cumsum", "cumsum_p",
]


def _cumulative_rule(name, allowed):
    def rule(operand, *, axis, reverse):
        if axis < 0:  # JAX's shape rule, checked before the dtype, in its words
            raise ValueError("XLA operations do not allow negative axes")
        if axis >= operand.ndim:
            raise ValueError(f"axis {axis} is out of bounds for array of shape {operand.shape}")
        # JAX checks np.number here, naming it so
        check_dtype_allowed(name, operand.dtype, allowed,
                            type_names="number" if allowed == NUMBER else None)
        return ShapedArray(operand.shape, operand.dtype, operand.weak_type)

    return rule


def _padding_attr(ndim, axis, n, reverse):
    pads = np.zeros((ndim, 2), np.int64)
    pads[axis] = (0, n - 1) if reverse else (n - 1, 0)
    return ir.DenseIntElementsAttr.get(pads)


def _cumulative_lowering(combiner, identity):
    def rule(ctx, x, *, axis, reverse):
        aval = ctx.avals_in[0]
        n = aval.shape[axis]
        if n == 0:
            return x
        window = [1] * aval.ndim
        window[axis] = n
        init = ir_constant(np.array(identity(aval.dtype), aval.dtype))
        op = hlo.ReduceWindowOp(
            [x.type], [x], [init], dense_i64(window),
            window_strides=dense_i64([1] * aval.ndim),
            padding=_padding_attr(aval.ndim, axis, n, reverse),
        )
        dtype = aval.dtype
        fill_region(op.body, [scalar_type(dtype)] * 2, lambda a, b: combiner(a, b, dtype))
        return op.results[0]

    return rule


def _logaddexp(a, b, dtype):
    """log(exp(a) + exp(b)) without overflow: max + log1p(exp(-|a - b|)).

    When a - b is NaN (a NaN input, or two infinities of the same sign) the answer is a + b:
    NaN stays NaN, -inf + -inf = -inf (the identity), +inf + +inf = +inf.
    """
    if np.dtype(dtype).kind == "c":
        return _logaddexp_complex(a, b, dtype)
    delta = hlo.subtract(a, b)
    big = hlo.maximum(a, b)
    stable = hlo.add(big, hlo.log_plus_one(hlo.exponential(hlo.negate(hlo.abs(delta)))))
    return hlo.select(is_nan(delta, dtype), hlo.add(a, b), stable)


def _logaddexp_complex(a, b, dtype):
    """JAX's complex logaddexp: m + log1p(exp(a + b - 2m)) with m the lexicographic max, its
    imaginary part wrapped into [-pi, pi]."""
    part = np.dtype(np.finfo(dtype).dtype)
    const = lambda v, d=dtype: ir_constant(np.array(v, d))
    big = minmax_values(hlo.maximum, "GT", a, b, dtype)
    delta = hlo.subtract(hlo.add(a, b), hlo.multiply(big, const(2)))
    out = hlo.add(big, hlo.log_plus_one(hlo.exponential(delta)))
    pi, two_pi = const(np.pi, part), const(2 * np.pi, part)
    rem = hlo.remainder(hlo.add(hlo.imag(out), pi), two_pi)
    rem = hlo.select(hlo_compare(rem, const(0, part), "LT", part), hlo.add(rem, two_pi), rem)
    return hlo.complex(hlo.real(out), hlo.subtract(rem, pi))


def cumulative(name, combiner, identity, allowed):
    """A cumulative primitive: ``combiner(a, b, dtype)`` builds the scalar op."""
    p = Primitive(name)
    p.def_abstract_eval(_cumulative_rule(name, allowed))
    p.def_lowering(_cumulative_lowering(combiner, identity))
    p.def_batching(batching.axis_param_rule(p))
    return p


cumsum_p = cumulative("cumsum", lambda a, b, dt: hlo.add(a, b), lambda dt: 0, NUMBER)
cumprod_p = cumulative("cumprod", lambda a, b, dt: hlo.multiply(a, b), lambda dt: 1, NUMBER)
# complex numbers compare lexicographically, as lax.max/min (JAX's identity is then -inf+0j)
cummax_p = cumulative("cummax", lambda a, b, dt: minmax_values(hlo.maximum, "GT", a, b, dt),
                      lowest, NUMBER)
cummin_p = cumulative("cummin", lambda a, b, dt: minmax_values(hlo.minimum, "LT", a, b, dt),
                      highest, NUMBER)


def _logsumexp_identity(dtype):
    """-inf. Like JAX, integers pass the dtype check and fail here, when lowered over a
    nonempty axis: ``int(-inf)`` raises JAX's ``OverflowError: cannot convert float infinity
    to integer``."""
    return lowest(dtype) if np.dtype(dtype).kind in "fcV" else int(-np.inf)


cumlogsumexp_p = cumulative("cumlogsumexp", _logaddexp, _logsumexp_identity, NUMBER)

# Differentiation. cumsum is linear: its transpose is the cumsum running the other way. The
# others differentiate the parallel prefix scan ``associative_scan`` of their combiner, as JAX
# does, so each uses its combiner's JVP rule (mul's is exact where elements are zero, max's
# splits ties evenly) and ties and infinities split exactly as in JAX.
ad.deflinear(cumsum_p, lambda ct, x, *, axis, reverse: [cumsum_p.bind(ct, axis=axis,
                                                                      reverse=not reverse)])


def _scan_jvp(combine):
    def rule(primals, tangents, *, axis, reverse):
        # the primal is the scan's too, as JAX's: its first element is the input's own
        # (complex cumprod's reduce_window multiplies it by 1 + 0j, NaN + 0j becomes NaN + NaNj)
        scan = lambda v: [associative_scan(combine, v, reverse=reverse, axis=axis)]
        (ans,), (t,) = ad.jvp_flat(scan, list(primals), list(tangents))
        return ans, t

    return rule


# JAX's scan combines with ``lax.logaddexp``, a custom_jvp function (printed
# ``custom_jvp_call[name=logaddexp jvp=_logaddexp_jvp]``, its rule's weights at every order):
# jnp's, put here when minijax.numpy.math is imported (custom_jvp is a layer above lax)
LOGADDEXP: list = []


def _cumlogsumexp_jvp(primals, tangents, *, axis, reverse):
    """JAX's rule: the JVP of ``associative_scan`` of ``logaddexp``. The primal is the scan's
    too (over a size-1 axis the input itself, where the primitive's -inf + x is NaN at
    x = +-3.4e38 + 0j)."""
    scan = lambda v: [associative_scan(LOGADDEXP[0], v, reverse=reverse, axis=axis)]  # noqa: E731
    (out,), (t,) = ad.jvp_flat(scan, list(primals), list(tangents))
    return out, t


def _lax_op(name):
    def combine(a, b):
        return getattr(el, name)(a, b)

    return combine


ad.primitive_jvps[cumprod_p] = _scan_jvp(_lax_op("mul"))
ad.primitive_jvps[cummax_p] = _scan_jvp(_lax_op("max"))
ad.primitive_jvps[cummin_p] = _scan_jvp(_lax_op("min"))
ad.primitive_jvps[cumlogsumexp_p] = _cumlogsumexp_jvp


def _params(axis, reverse):
    # JAX's lax takes the axis through int() (1.0 is axis 1, a list int()'s TypeError) and
    # otherwise as given (a negative one is an error); jnp normalizes.
    return dict(axis=int(axis), reverse=bool(reverse))


def cumsum(operand, axis=0, reverse=False):
    return cumsum_p.bind(operand, **_params(axis, reverse))


def cumprod(operand, axis=0, reverse=False):
    return cumprod_p.bind(operand, **_params(axis, reverse))


def cummax(operand, axis=0, reverse=False):
    return cummax_p.bind(operand, **_params(axis, reverse))


def cummin(operand, axis=0, reverse=False):
    return cummin_p.bind(operand, **_params(axis, reverse))


def cumlogsumexp(operand, axis=0, reverse=False):
    return cumlogsumexp_p.bind(operand, **_params(axis, reverse))

# Sharding rules (operands split over Explicit mesh axes)
for _p in (cumsum_p, cumprod_p, cummax_p, cummin_p, cumlogsumexp_p):
    _p.sharding_rule = sharding_rules.cumulative
