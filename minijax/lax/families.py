"""Rule factories and helpers shared by families of primitives, so a new member is a few lines.

- dtype categories (``FLOAT``, ``INT``, ``NUMBER`` ...) and the checks a shape rule makes with
  them (``check_same_dtypes``, ``check_dtype_allowed``).
- ``elementwise_shape(name, ...)``: operands of one dtype (weak types ignored) and one rank,
  whose sizes agree or are 1 (JAX's lax broadcasts size-1 axes: ``div f32[8,128] f32[8,1]``),
  where a rank-0 operand also broadcasts (JAX's lax lets ``mul x 2.0:f32[]`` through); the
  result is weak only if every operand is weak.
- ``hlo_elementwise(build)``: broadcasts rank-0 and size-1 operands to the result shape, then
  ``build``.
- ``naryop`` / ``elementwise_prim``: an elementwise primitive with its shape rule, lowering and
  vmap's elementwise rule (``batching.elementwise_rule``): one batching rule for the family.
- ``coerce_scalars``: Python scalars take their default dtype, weakly typed (as JAX's lax);
  ``const(x, value)``: a constant of ``x``'s dtype for minijax's own lax calls;
  ``rule_const(x, value)``: one typed as JAX's derivative rules type theirs.
- Lowering helpers for more than one StableHLO op: ``hlo_compare``, ``minmax_values``,
  ``full_like_shape``.
"""

from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax import dtypes
from minijax.core import Primitive, ShapedArray, WeakScalar, get_aval
from minijax.interpreters import batching
from minijax.lax import sharding_rules
from minijax.lowering.stablehlo import dense_i64, element_type, full_like_aval

# dtype categories a primitive may accept
BOOL = frozenset([dtypes.bool_])
SIGNED = frozenset(dtypes.int_types)
UNSIGNED = frozenset(dtypes.uint_types)
INT = SIGNED | UNSIGNED
FLOAT = frozenset(dtypes.float_types)
COMPLEX = frozenset(dtypes.complex_types)
INEXACT = FLOAT | COMPLEX
NUMBER = INT | INEXACT
ANY = NUMBER | BOOL
INT_OR_BOOL = INT | BOOL
REAL_NUMBER = INT | FLOAT
REAL = REAL_NUMBER | BOOL

# JAX's names of the NumPy types a category stands for, as its dtype errors list them
# ("Accepted dtypes are subtypes of integer, floating, complexfloating"), in its order
_CATEGORY_NAMES = [
    (ANY, "integer, floating, complexfloating, bool"),
    (NUMBER, "integer, floating, complexfloating"),
    (REAL_NUMBER, "integer, floating"),
    (REAL, "integer, floating, bool"),
    (INEXACT, "floating, complexfloating"),
    (SIGNED | INEXACT, "floating, complexfloating, signedinteger"),
    (COMPLEX | {np.dtype(np.float32), np.dtype(np.float64)}, "float32, complexfloating, float64"),
    (FLOAT, "floating"),
    (COMPLEX, "complexfloating"),
    (INT_OR_BOOL, "integer, bool"),
    (INT, "integer"),
    (SIGNED, "signedinteger"),
    (BOOL, "bool"),
]


def _category_name(allowed):
    for cat, name in _CATEGORY_NAMES:
        if allowed == cat:
            return name
    return ", ".join(sorted(d.name for d in allowed))


def check_dtype_allowed(name, dtype, allowed, position=None, type_names=None):
    """JAX's dtype error for an operand of ``name`` outside ``allowed``: ``position`` names
    an n-ary primitive's operand, ``type_names`` what JAX lists where it is not the
    category's name."""
    if dtype not in allowed:
        at = "" if position is None else f" at position {position}"
        raise TypeError(f"{name} does not accept dtype {dtype.name}{at}. Accepted dtypes{at} "
                        f"are subtypes of {type_names or _category_name(allowed)}.")


def _shapes_str(avals):
    return ", ".join(a.str_short(True) for a in avals)


# The jnp function JAX's "same dtypes" error points to, per lax op (JAX's own table).
_JNP_EQUIVALENTS = {
    "abs": "fabs", "acos": "arccos", "acosh": "arccosh", "add": "add", "asin": "arcsin",
    "asinh": "arcsinh", "atan": "arctan", "atan2": "arctan2", "atanh": "arctanh",
    "bitwise_and": "bitwise_and", "bitwise_not": "bitwise_not", "bitwise_or": "bitwise_or",
    "bitwise_xor": "bitwise_xor", "cbrt": "cbrt", "ceil": "ceil", "concatenate": "concatenate",
    "cos": "cos", "cosh": "cosh", "div": "divide", "eq": "equal", "exp": "exp",
    "expm1": "expm1", "floor": "floor", "greater": "greater", "greater_equal": "greater_equal",
    "less": "less", "less_equal": "less_equal", "log": "log", "logical_and": "logical_and",
    "logical_not": "logical_not", "logical_or": "logical_or", "logical_xor": "logical_xor",
    "log1p": "log1p", "max": "maximum", "min": "minimum", "mul": "multiply", "ne": "not_equal",
    "neg": "negative", "nextafter": "nextafter", "pow": "float_power", "round": "round",
    "select": "where", "shift_left": "left_shift", "shift_right_logical": "right_shift",
    "shift_right_arithmetic": "right_shift", "sign": "sign", "sin": "sin", "sinh": "sinh",
    "sqrt": "sqrt", "sub": "subtract", "tan": "tan", "tanh": "tanh",
}


def check_same_dtypes(name, avals):
    """Operands of one dtype, exactly (weak types aside), with JAX's error and tip."""
    first = avals[0].dtype
    if any(a.dtype != first for a in avals[1:]):
        msg = (f"lax.{name} requires arguments to have the same dtypes, got "
               f"{', '.join(str(a.dtype) for a in avals)}.")  # float0 as JAX spells it
        if name in _JNP_EQUIVALENTS:
            msg += (f" (Tip: jnp.{_JNP_EQUIVALENTS[name]} is a similar function that does "
                    "automatic type promotion on inputs).")
        raise TypeError(msg)
    return first


def broadcast_elementwise_shapes(name, avals):
    """The result shape of an elementwise op: operands of one rank whose sizes agree or are 1
    (a size-1 axis broadcasts, as in JAX's lax), where a rank-0 operand also broadcasts."""
    shapes = [a.shape for a in avals if a.shape]
    if not shapes:
        return ()
    if all(s == shapes[0] for s in shapes):  # the common case, on every traced op
        return shapes[0]
    if any(len(s) != len(shapes[0]) for s in shapes):
        raise TypeError(
            f"{name} got operands of different ranks: {_shapes_str(avals)}. lax ops need one "
            "rank (size-1 axes and rank-0 operands broadcast); minijax.numpy broadcasts ranks."
        )
    result = []
    for sizes in zip(*shapes):
        larger = {d for d in sizes if d != 1}
        if len(larger) > 1:
            raise TypeError(
                f"{name} got incompatible shapes for broadcasting: {_shapes_str(avals)}. "
                "lax ops need equal sizes per axis (or size 1); minijax.numpy broadcasts."
            )
        result.append(larger.pop() if larger else 1)
    return tuple(result)


def elementwise_shape(name, allowed=ANY, result_dtype=None):
    """Abstract-eval rule for an elementwise primitive."""

    def rule(*avals, **params):
        for a in avals:  # each operand's dtype first, then their agreement, as JAX's naryop
            if a.dtype not in allowed:
                for i, b in enumerate(avals):
                    check_dtype_allowed(name, b.dtype, allowed, i if len(avals) > 1 else None)
        dtype = check_same_dtypes(name, avals)
        shape = broadcast_elementwise_shapes(name, avals)
        out_dtype = dtype if result_dtype is None else result_dtype(dtype)
        # as JAX's: a comparison of weakly typed operands is a weakly typed bool
        weak = all(a.weak_type for a in avals)
        return ShapedArray(shape, out_dtype, weak)

    return rule


def broadcast_to_aval(ctx_aval_out, value, aval_in):
    """Broadcasts a rank-0 operand, or one with size-1 axes, to the output shape (no-op when
    shapes match)."""
    if aval_in.shape == ctx_aval_out.shape:
        return value
    element_type = ir.RankedTensorType(value.type).element_type
    out_t = ir.RankedTensorType.get(ctx_aval_out.shape, element_type)
    return hlo.broadcast_in_dim(out_t, value, dense_i64(range(len(aval_in.shape))))


def hlo_elementwise(build):
    """Lowering rule: broadcast rank-0 and size-1 operands, then
    ``build(ctx, *values, **params)``."""

    def rule(ctx, *args, **params):
        aval_out = ctx.avals_out[0]
        args = [broadcast_to_aval(aval_out, x, a) for x, a in zip(args, ctx.avals_in)]
        return build(ctx, *args, **params)

    return rule


def naryop(name, build, allowed=ANY, result_dtype=None):
    """A primitive for an elementwise op whose StableHLO op is ``build(*values)``."""
    p = Primitive(name)
    p.def_abstract_eval(elementwise_shape(name, allowed, result_dtype))
    p.def_lowering(hlo_elementwise(lambda ctx, *xs, **params: build(*xs)))
    p.def_batching(batching.elementwise_rule(p))
    p.sharding_rule = sharding_rules.broadcasting(name)
    return p


# ------------------------------------------------------------------------------------------------
# Operand preparation for the lax wrappers


def coerce_scalars(*args):
    """Python scalars become weakly typed scalars of their default dtype (int32, float32,
    complex64; 64-bit under x64), as in JAX's lax: ``lax.add(x_f16, 1.5)`` is an error (lax
    ops take operands of one dtype), and an int that does not fit the default int raises
    OverflowError. A float or complex already is such a scalar: it stays as it is, so a jaxpr
    prints it unrounded as JAX's does (``add a 0.1:f32[]``). Constants of minijax's own code go
    through ``const``."""
    return tuple(
        WeakScalar(x, dtypes.python_scalar_dtype(x))
        if dtypes.is_python_scalar(x) and type(x) not in (bool, float, complex) else x
        for x in args
    )


def const(x, value):
    """``value`` as a weakly typed rank-0 operand of ``x``'s dtype: how minijax's own code
    writes a constant into a lax op (``lax.mul(x, const(x, 0.5))``), since lax ops refuse
    operands of other dtypes. Like a Python scalar, it does not make the result strong."""
    return WeakScalar(value, dtypes.dtype_of(x)[0])


def rule_const(x, value):
    """``value`` as a rank-0 operand of ``x``'s dtype, typed as JAX's derivative rules type
    their constants (``lax._const``): weak only when ``x`` is a weakly typed scalar whose dtype
    is its Python scalar type's default, else strong. So ``sqrt``'s JVP constant makes the
    tangent of a weak ``f32[1]`` primal strong, as in JAX, where ``const`` would keep it weak."""
    aval = get_aval(x)
    if aval.weak_type and not aval.shape:
        value = dtypes.scalar_type_of(aval.dtype)(value)
        if dtypes.python_scalar_dtype(value) == aval.dtype:
            return WeakScalar(value, aval.dtype)
    return np.asarray(value, aval.dtype)


# ------------------------------------------------------------------------------------------------
# Helpers for lowering rules that need more than one StableHLO op


def elementwise_prim(name, allowed, lower, result_dtype=None):
    """Like ``naryop``, but ``lower(ctx, *values, **params)`` sees the rule context and params
    (for lowerings that build constants or pick an op by dtype). Rank-0 operands arrive
    already broadcast to the result shape."""
    p = Primitive(name)
    p.def_abstract_eval(elementwise_shape(name, allowed, result_dtype))
    p.def_lowering(hlo_elementwise(lower))
    p.def_batching(batching.elementwise_rule(p))
    p.sharding_rule = sharding_rules.broadcasting(name)
    return p


def compare_type(dtype):
    """StableHLO ``compare_type`` for operands of ``dtype``, as JAX picks it."""
    dtype = np.dtype(dtype)
    if dtypes.is_inexact(dtype):
        return "FLOAT"
    if dtype.kind == "i":
        return "SIGNED"
    return "UNSIGNED"  # unsigned ints and bool


def hlo_compare(x, y, direction, dtype):
    """``stablehlo.compare`` of two values of ``dtype`` (``direction``: "EQ", "LT" ...)."""
    return hlo.compare(
        x, y, hlo.ComparisonDirectionAttr.get(direction),
        compare_type=hlo.ComparisonTypeAttr.get(compare_type(dtype)),
    )


def minmax_values(hlo_op, pick_x_direction, x, y, dtype):
    """``hlo_op(x, y)`` (maximum/minimum) of two values of ``dtype``; complex numbers compare
    lexicographically (real part, then imaginary), as in JAX. ``pick_x_direction`` is "GT" for
    max, "LT" for min."""
    if np.dtype(dtype).kind != "c":
        return hlo_op(x, y)
    part = np.dtype(np.finfo(dtype).dtype)
    rx, ry, ix, iy = hlo.real(x), hlo.real(y), hlo.imag(x), hlo.imag(y)
    pick_x = hlo.select(
        hlo_compare(rx, ry, "EQ", part),
        hlo_compare(ix, iy, pick_x_direction, part),
        hlo_compare(rx, ry, pick_x_direction, part),
    )
    return hlo.select(pick_x, x, y)


def full_like_shape(value, shape, dtype):
    """A constant tensor of ``shape`` and ``dtype`` filled with ``value``."""
    return full_like_aval(value, ShapedArray(shape, dtype))


# ------------------------------------------------------------------------------------------------
# Identities of max/min (reductions, cumulative and windowed reductions)


# JAX's ``supports_inf``: every inexact dtype but these float8s. The narrow floats without an
# infinity (float8_e8m0fnu, float4, float6) are not listed, so, as in JAX, their max/min start
# from -inf/inf cast to the dtype.
_NO_INF = frozenset((dtypes.float8_e4m3b11fnuz, dtypes.float8_e4m3fn, dtypes.float8_e4m3fnuz,
                     dtypes.float8_e5m2fnuz))


def _has_inf(dtype):
    return dtype not in _NO_INF


def lowest(dtype):
    """The identity of ``max``: -inf, or the smallest finite/integer value, or False."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return False
    if dtypes.is_int(dtype):  # int4 & co. are kind 'V'
        return dtypes.iinfo(dtype).min
    return -np.inf if _has_inf(dtype) else dtypes.finfo(dtype).min


def highest(dtype):
    """The identity of ``min``: +inf, or the largest finite/integer value, or True."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return True
    if dtypes.is_int(dtype):
        return dtypes.iinfo(dtype).max
    return np.inf if _has_inf(dtype) else dtypes.finfo(dtype).max


# ------------------------------------------------------------------------------------------------
# Region helpers for ops that carry a combining region (reduce, sort, scatter, windows)


def scalar_type(dtype):
    return ir.RankedTensorType.get([], element_type(dtype))


def fill_region(region, arg_types, body):
    """Gives ``region`` its block of ``arg_types`` arguments: ``body(*args)``, then return."""
    block = region.blocks.append(*arg_types)
    with ir.InsertionPoint(block):
        outs = body(*block.arguments)
        hlo.return_(list(outs) if isinstance(outs, (list, tuple)) else [outs])


def is_nan(x, dtype):
    return hlo_compare(x, x, "NE", dtype)
