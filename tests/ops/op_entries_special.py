"""Op-table entries for the special-function primitives of ``lax/special.py``, against
scipy.special in float64.

The shape parameter of igamma, igamma_grad_a, betainc and zeta is held fixed (a weak scalar of
the operand's dtype, since lax ops take one dtype): the table differentiates every float operand to second order, and JAX defines no
second derivative in those parameters (igamma_grad_a, betainc and zeta have none in them).
tests/scipy/test_special.py checks those operands' first derivatives and drawn values.
"""

from __future__ import annotations

import numpy as np
import scipy.special as ss

from minijax import lax
from minijax.lax.families import const
from tests.ops.op_db import GradSpec, register
from tests.ops.op_entries_elementwise import operands, wide

F32, F16 = np.float32, np.float16
TOL = {"float32": (1e-4, 1e-5), "float16": (4e-3, 4e-3)}


def _small(lo, hi):
    # vectors at most: each new shape compiles these slow-to-compile lowerings again (the
    # gradient checks run them eagerly, GradSpec(jit=False) below, to reuse executables)
    return operands([F32, F16], (lo, hi), max_dims=1)


def _igamma_grad_a_ref(x, a=2.5):
    a, x = np.float64(a), np.asarray(x, np.float64)
    h = 1e-6
    return (ss.gammainc(a + h, x) - ss.gammainc(a - h, x)) / (2 * h)


ENTRIES = [
    ("igamma", lambda x: lax.igamma(const(x, 2.5), x), wide(lambda x: ss.gammainc(2.5, x)), _small(0.5, 10)),
    ("igammac", lambda x: lax.igammac(const(x, 0.7), x), wide(lambda x: ss.gammaincc(0.7, x)),
     _small(0.5, 10)),
    ("igamma_grad_a", lambda x: lax.igamma_grad_a(const(x, 2.5), x), wide(_igamma_grad_a_ref),
     _small(0.5, 10)),
    ("regularized_incomplete_beta", lambda x: lax.betainc(const(x, 2.5), const(x, 1.5), x),
     wide(lambda x: ss.betainc(2.5, 1.5, x)), _small(0.1, 0.9)),
    ("zeta", lambda q: lax.zeta(const(q, 2.5), q), wide(lambda q: ss.zeta(2.5, q)), _small(0.5, 5)),
    ("bessel_i0e", lax.bessel_i0e, wide(ss.i0e), _small(0.5, 10)),
    ("bessel_i1e", lax.bessel_i1e, wide(ss.i1e), _small(0.5, 10)),
]

for _name, _fn, _ref, _args in ENTRIES:
    # exact_jit off: under jit the fixed parameter is a constant XLA may fold into the loops.
    # The loops compile for seconds: every gradient example jitted afresh cost minutes.
    register(_name, _fn, _ref, _args, tol=TOL, exact_jit=False, grad=GradSpec(jit=False))
