"""Elementwise primitives: unary and binary math, comparisons, bitwise ops, select, clamp.

Each primitive is defined once here with all of its rules; the Python function of the same
name (``lax.sin``) binds it. Later issues add ``def_jvp``/``def_batching`` beside each one.
"""

from __future__ import annotations

from jaxlib.mlir.dialects import chlo  # noqa: F401  (used by members added later)
from jaxlib.mlir.dialects import stablehlo as hlo

from minijax.lax.families import (
    ANY,
    INEXACT,
    NUMBER,
    coerce_scalars,
    naryop,
)

__all__ = ["add", "add_p", "mul", "mul_p", "neg", "neg_p", "sin", "sin_p", "sub", "sub_p"]

# --- arithmetic ---------------------------------------------------------------------------------

add_p = naryop("add", hlo.add, NUMBER)
sub_p = naryop("sub", hlo.subtract, NUMBER)
mul_p = naryop("mul", hlo.multiply, NUMBER)
neg_p = naryop("neg", hlo.negate, NUMBER)

# --- transcendental -----------------------------------------------------------------------------

sin_p = naryop("sin", hlo.sine, INEXACT)


def add(x, y):
    return add_p.bind(*coerce_scalars(x, y))


def sub(x, y):
    return sub_p.bind(*coerce_scalars(x, y))


def mul(x, y):
    return mul_p.bind(*coerce_scalars(x, y))


def neg(x):
    return neg_p.bind(x)


def sin(x):
    return sin_p.bind(x)


_ = ANY
