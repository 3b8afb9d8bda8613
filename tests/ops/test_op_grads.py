"""Derivatives of every op-table entry, against finite differences.

Each differentiable entry runs ``check_grads`` (to order 2 in forward and reverse mode unless
its ``GradSpec`` says otherwise: JVP rules, transpose rules and the rules of the ops *those*
emit are all exercised) on its own hypothesis-drawn operands, widened to float64 / complex128
so central differences are accurate. Operands the entry draws as integers or booleans
(indices, predicates, exponents) are held fixed. The entry's ``grad`` (tests/ops/op_db.py),
set on its ``register`` call, moves operands away from the points where the op is not
differentiable or near a singularity (tests/ops/kinks.py), where a finite difference says
nothing about the derivative.

Entries whose derivative is zero everywhere it exists (rounding, comparisons, integer ops,
argmax ...: ``grad=ZERO_DERIVATIVE``) are checked to produce *symbolic* zero tangents
instead: no equations at all. Entries JAX has no derivative rule for (``grad=NO_DERIVATIVE``)
are checked to raise its NotImplementedError.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.errors import NonInteractiveExampleWarning

import minijax
from minijax.interpreters import ad
from minijax.test_util import check_grads
from tests.ops.kinks import is_float
from tests.ops.op_db import NO_DERIVATIVE, ZERO_DERIVATIVE, array, load_all

OPS = load_all()
ZERO_OPS = [op for op in OPS if op.grad.zero]
REFUSED_OPS = [op for op in OPS if op.grad.refused]
GRAD_OPS = [op for op in OPS if not (op.grad.zero or op.grad.refused)]

pytestmark = pytest.mark.usefixtures("x64")  # tests/conftest.py


def _widen(x):
    x = np.asarray(x)
    if x.dtype.kind == "c":
        return x.astype(np.complex128)
    if x.dtype.kind in "fV":
        return x.astype(np.float64)
    return x


def _has_float(args):
    return any(is_float(x) for x in args)


def _draw_args(op, spec, data):
    args = tuple(_widen(x) for x in data.draw(op.args.filter(_has_float), label="args"))
    if spec.domain is not None:
        floats = [i for i, x in enumerate(args) if is_float(x) and i not in spec.fixed]
        domains = spec.domain if isinstance(spec.domain, list) else [spec.domain] * len(args)
        args = list(args)
        for k, i in enumerate(floats):
            lo, hi = domains[k]
            new = data.draw(array(args[i].shape, np.float64, lo, hi), label=f"arg{i}")
            if args[i].dtype.kind == "c":
                new = new + 1j * data.draw(array(args[i].shape, np.float64, lo, hi))
            args[i] = new
        args = tuple(args)
    return spec.post(args) if spec.post else args


def _float_fn(op, args, fixed=()):
    """``op.fn`` as a function of the float operands only (the others held fixed)."""
    pos = [i for i, x in enumerate(args) if is_float(x) and i not in fixed]

    def f(*floats):
        full = list(args)
        for i, x in zip(pos, floats):
            full[i] = x
        return op.fn(*full)

    return f, tuple(args[i] for i in pos)


@pytest.mark.parametrize("op", GRAD_OPS, ids=[op.name for op in GRAD_OPS])
@given(data=st.data())
def test_check_grads(op, data):
    spec = op.grad
    args = _draw_args(op, spec, data)
    f, floats = _float_fn(op, args, spec.fixed)
    check_grads(f, floats, spec.order, modes=spec.modes, atol=spec.tol, rtol=spec.tol,
                eps=spec.eps, jit=spec.jit)


@pytest.mark.parametrize("op", ZERO_OPS, ids=[op.name for op in ZERO_OPS])
@given(data=st.data())
def test_zero_derivative_is_symbolic(op, data):
    """Tangents of the outputs are symbolic zeros, whatever the input tangents: the JVP adds
    no equation (checked while tracing, so nothing is compiled)."""
    args = tuple(_widen(x) for x in data.draw(op.args, label="args"))
    seen = []

    def jvp_of(*xs):
        tangents = [minijax.numpy.ones_like(x) if is_float(x) else ad.Zero.from_primal_value(x)
                    for x in xs]
        outs, ts = ad.jvp_flat(lambda *a: list(_as_tuple(op.fn(*a))), list(xs), tangents)
        seen.extend((t, minijax.core.get_aval(o)) for o, t in zip(outs, ts))
        return outs

    minijax.make_jaxpr(jvp_of)(*args)
    assert seen and all(type(t) is ad.Zero for t, _ in seen), f"{op.name}: {seen}"
    for t, aval in seen:
        assert t.aval == ad.tangent_aval(aval)


@pytest.mark.parametrize("op", REFUSED_OPS, ids=[op.name for op in REFUSED_OPS])
@given(data=st.data())
def test_no_derivative_is_refused(op, data):
    """JAX's words for an op without a derivative rule, raised while tracing the JVP."""
    args = tuple(_widen(x) for x in data.draw(op.args, label="args"))
    tangents = [minijax.numpy.ones_like(x) if is_float(x) else ad.Zero.from_primal_value(x)
                for x in args]
    with pytest.raises(NotImplementedError,
                       match=f"Differentiation rule for '{op.name}' not implemented"):
        minijax.make_jaxpr(lambda *a: ad.jvp_flat(op.fn, list(a), tangents))(*args)


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def test_every_entry_is_classified():
    """Every entry is either checked with check_grads or marked zero-derivative, and its spec
    fits its operands: a checked entry draws float operands (else nothing is differentiated),
    ``fixed`` names float operands and a per-operand ``domain`` has one range per
    differentiated operand; a zero mark carries no check_grads settings."""
    assert len(GRAD_OPS) + len(ZERO_OPS) + len(REFUSED_OPS) == len(OPS)
    assert all(op.grad == ZERO_DERIVATIVE for op in ZERO_OPS)
    assert all(op.grad == NO_DERIVATIVE for op in REFUSED_OPS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NonInteractiveExampleWarning)
        for op in GRAD_OPS:
            spec = op.grad
            floats = [i for i, x in enumerate(op.args.filter(_has_float).example())
                      if is_float(x)]
            assert set(spec.fixed) <= set(floats), f"{op.name}: fixed {spec.fixed} not float"
            if isinstance(spec.domain, list):
                assert len(spec.domain) == len(floats) - len(spec.fixed), op.name
