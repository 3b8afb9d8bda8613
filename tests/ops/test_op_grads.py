"""Derivatives of every op-table entry, against finite differences.

Each differentiable entry runs ``check_grads`` to order 2 in forward and reverse mode (so JVP
rules, transpose rules and the rules of the ops *those* emit are all exercised) on its own
hypothesis-drawn operands, widened to float64 / complex128 so central differences are accurate.
Operands the entry draws as integers or booleans (indices, predicates, exponents) are held
fixed. ``SPECS`` moves operands away from the points where an op is not differentiable (ties
of max/sort, |x| = 0 for abs, integer boundaries of rem ...) or near a singularity, where a
finite difference says nothing about the derivative.

Entries whose derivative is zero everywhere it exists (rounding, comparisons, integer ops,
argmax ...) are checked to produce *symbolic* zero tangents instead: no equations at all.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import minijax
from minijax.interpreters import ad
from minijax.test_util import check_grads
from tests.ops.op_db import array, load_all

OPS = load_all()


@dataclasses.dataclass
class Spec:
    domain: tuple | list | None = None  # redraw float operands in (lo, hi) (or one per operand)
    post: Callable | None = None  # args -> args: move away from kinks
    eps: float | None = None
    tol: float | None = None
    order: int = 2
    fixed: tuple = ()  # float operands held fixed (not differentiable in them)
    modes: tuple = ("fwd", "rev")  # while_loop (no max_steps) is forward-differentiable only
    # False: check_grads runs eagerly, each primitive's executable compiled once per shape and
    # reused by every example (for ops whose lowering takes XLA seconds to compile)
    jit: bool = True


# --- moving operands away from kinks and singularities -----------------------------------------


def _away(gap, which=None):
    """|x| >= gap for the float operands in ``which`` (all by default)."""

    def post(args):
        out = list(args)
        for i, x in enumerate(out):
            if (which is None or i in which) and _is_float(x):
                small = np.abs(x) < gap
                if x.dtype.kind == "c":  # keep the phase, set the magnitude to gap
                    mag = np.abs(x)
                    unit = np.where(mag > 0, x / np.where(mag > 0, mag, 1), 1)
                    out[i] = np.where(small, unit * gap, x).astype(x.dtype)
                else:
                    out[i] = np.where(small, np.where(x < 0, -gap, gap), x)
        return tuple(out)

    return post


def _spread(which=(0,)):
    """Distinct values (>= 0.05 apart, order kept), so sorts and maxima have no ties."""

    def post(args):
        out = list(args)
        for i in which:
            x = out[i]
            if _is_float(x) and x.size:
                ranks = np.argsort(np.argsort(x.ravel(), kind="stable"), kind="stable")
                out[i] = x + 0.05 * ranks.reshape(x.shape).astype(x.dtype)
        return tuple(out)

    return post


def _spread_together(which):
    """Distinct values across all the float operands in ``which`` together (>= 0.05 apart,
    order kept), so a scatter_min/max never ties an update with the operand or another."""

    def post(args):
        out = list(args)
        flat = [np.ravel(out[i]) for i in which]
        sizes = np.cumsum([f.size for f in flat])[:-1]
        allv = np.concatenate(flat)
        if allv.size:
            ranks = np.argsort(np.argsort(allv, kind="stable"), kind="stable")
            allv = allv + 0.05 * ranks
        for i, part in zip(which, np.split(allv, sizes)):
            out[i] = part.reshape(np.shape(out[i])).astype(out[i].dtype)
        return tuple(out)

    return post


def _separate(args):
    """max/min: the operands differ by >= 0.1 (in the real part) everywhere."""
    x, y = args
    close = np.abs(np.real(x - y)) < 0.1
    return x, np.where(close, y + 0.5, y)


def _rem_post(args):
    """|y| >= 0.5 and x / y at least 0.1 away from an integer (where rem jumps)."""
    x, y = args
    y = np.where(np.abs(y) < 0.5, np.where(y < 0, -0.5, 0.5), y)
    q = x / y
    whole = np.trunc(q)
    frac = np.clip(np.abs(q - whole), 0.1, 0.9)
    frac = np.where(q == whole, 0.5, frac)
    return (whole + np.where(q < 0, -frac, frac)) * y, y


def _atan2_post(args):
    """Away from the origin and from the branch cut (x = 0, y < 0), where atan2 jumps by 2 pi."""
    x, y = args
    near = np.hypot(x, y) < 0.5
    x = np.where(near, x + 1.0, x)
    on_cut = (np.abs(x) < 0.2) & (y < 0)
    return np.where(on_cut, np.where(x < 0, x - 0.5, x + 0.5), x), y


def _clamp_post(args):
    """lo + 0.5 <= hi, and x at least 0.1 away from both bounds."""
    lo, x, hi = args
    hi = np.maximum(hi, lo + 0.5)
    for bound in (lo, hi):
        x = np.where(np.abs(x - bound) < 0.1, bound + 0.2 * np.sign(x - bound + 1e-9), x)
    return lo, x, hi


def _in_bounds(window):
    """gather: indices moved in bounds (``window`` = the slice size along each indexed axis).
    Out of bounds, "fill" returns NaN (whose finite difference says nothing) and
    "promise_in_bounds" is undefined."""

    def post(args):
        x, idx = args
        hi = np.asarray([x.shape[a] - w for a, w in enumerate(window)], idx.dtype)
        return x, np.clip(idx, 0, hi[: idx.shape[-1]])

    return post


def _compose(*posts):
    def post(args):
        for p in posts:
            args = p(args)
        return args

    return post


# linear ops with a float16/bfloat16 result: small values, so the rounding grid (<= 0.03 for
# bfloat16 below 4) stays well under the tolerance of the difference quotient
LOW_PRECISION = Spec(domain=(-4, 4), eps=0.5, tol=0.1, order=1)

SPECS = {
    "div": Spec(post=_away(0.5, which=(1,))),
    "rem": Spec(post=_rem_post),
    "pow": Spec(domain=[(0.5, 5), (-2, 2)]),
    "pow_complex": Spec(domain=[(0.5, 3), (-1, 1)]),
    "pow_int_exponent": Spec(post=_away(0.5)),
    "max": Spec(post=_separate),
    "min": Spec(post=_separate),
    "atan2": Spec(post=_atan2_post),
    "abs": Spec(post=_away(0.2)),
    "reciprocal": Spec(domain=(0.5, 10)),
    "log": Spec(domain=(0.5, 10)),
    "log_complex": Spec(domain=(0.5, 10)),
    "log1p": Spec(domain=(-0.5, 10)),
    "tan": Spec(domain=(-1.2, 1.2)),
    "asin": Spec(domain=(-0.8, 0.8)),
    "acos": Spec(domain=(-0.8, 0.8)),
    "tanh": Spec(domain=(-1, 1)),  # complex tanh has poles at +-i pi/2
    "acosh": Spec(domain=(1.5, 10)),
    "atanh": Spec(domain=(-0.7, 0.7)),
    "sqrt": Spec(domain=(0.5, 10)),
    "sqrt_complex": Spec(domain=(0.5, 10)),
    "rsqrt": Spec(domain=(0.5, 10)),
    "cbrt": Spec(post=_away(0.5)),
    "erf_inv": Spec(domain=(-0.8, 0.8)),
    "lgamma": Spec(domain=(0.5, 10)),
    "digamma": Spec(domain=(0.5, 10)),
    "polygamma": Spec(domain=[(0.5, 10)], fixed=(0,)),  # the order m is not differentiable
    "clamp": Spec(post=_clamp_post),
    "gather_rows_fill": Spec(post=_in_bounds((1,))),
    "gather_rows_promise_in_bounds": Spec(post=_in_bounds((1,))),
    "gather_windows_fill": Spec(post=_in_bounds((2, 2))),
    "clamp_scalar_bounds": Spec(post=_clamp_post),
    "convert_element_type[float16]": LOW_PRECISION,
    "convert_element_type[bfloat16]": LOW_PRECISION,
    # float32 round trips are linear up to rounding, so a unit difference step is exact but
    # for that rounding: on values up to 300 (ulp 3e-5) it keeps ~1e-5 accuracy per element
    # (a 1e-2 step let 40 elements of 128 drift by 2e-3 in hypothesis's hands)
    "convert_element_type[float32]": Spec(eps=1.0, tol=2e-3),
    "structural_full_as_float32": Spec(eps=1.0, tol=2e-3),
    "reduce_precision_bf16": Spec(domain=(-1, 1), eps=0.5, tol=0.1, order=1),
    "reduce_precision_f16": Spec(domain=(-1, 1), eps=0.5, tol=0.1, order=1),
    # bf16 operands and cotangents: a few bf16 ulps (2^-7 relative) on second-order checks
    "dot_general_bf16_preferred_f32": Spec(eps=1e-2, tol=5e-2),
    "sort_last": Spec(domain=(-3, 3), post=_spread()),
    "sort_axis0": Spec(domain=(-3, 3), post=_spread()),
    "sort_key_val": Spec(domain=(-3, 3), post=_spread()),
    "sort_num_keys_2": Spec(domain=(-3, 3), post=_spread()),
    "top_k_last": Spec(post=_spread()),
    "top_k_axis0": Spec(post=_spread()),
    "while": Spec(modes=("fwd",)),
    # second order goes through the eigenvectors' derivative (an LU solve, argmax, ...): tens
    # of seconds of compiling for hypothesis's examples; first order here
    "linalg_eig": Spec(order=1),
    # convolutions compile slowly on XLA CPU: second order only where the transposes are most
    # intricate (dilations, strides, explicit padding: conv_nhwc_hwio_dilated); first order for
    # the other configurations
    "conv_valid_nchw": Spec(order=1),
    "conv_same_strided": Spec(order=1),
    "conv_feature_groups": Spec(order=1),
    "conv_batch_groups": Spec(order=1),
    "conv_with_general_padding": Spec(order=1),
    "conv_transpose_same": Spec(order=1),
    # the special functions' loops compile for seconds: every example jitted afresh cost minutes
    **{name: Spec(jit=False) for name in ("igamma", "igammac", "igamma_grad_a",
                                          "regularized_incomplete_beta", "zeta", "bessel_i0e",
                                          "bessel_i1e")},
    # the init values are identities of the computation (XLA requires it): held fixed
    "reduce_window_generic_mul": Spec(fixed=(1,)),
    "reduce_window_generic_variadic": Spec(fixed=(2, 3)),
}
for _op in OPS:
    if _op.name.startswith(("reduce_window_max_", "reduce_window_min_")):  # second order: valid
        SPECS[_op.name] = Spec(post=_spread(), order=2 if _op.name.endswith("_valid") else 1)
for _name in ("reduce_max", "reduce_min", "cummax", "cummin"):
    for _op in OPS:
        if _op.name.startswith(_name + "_"):
            SPECS[_op.name] = Spec(post=_spread())
for _op in OPS:
    if _op.name.startswith(("scatter_min_", "scatter_max_")):
        SPECS[_op.name] = Spec(post=_spread_together((0, 2)))
for _op in OPS:
    if _op.name.startswith(("reduce_prod_", "cumprod_")):  # long products: a smaller step
        SPECS[_op.name] = Spec(post=_away(0.5), eps=1e-6)

# Zero derivative wherever one exists: checked for symbolic-zero tangents instead.
ZERO = re.compile(
    r"^(nextafter|sign|floor|ceil|round|round_even|is_finite|eq|ne|lt|le|gt|ge|div_int|not|and"
    r"|or|xor|population_count|clz|shift_.*|argmax_.*|argmin_.*|reduce_(and|or|xor)_.*"
    r"|bitcast_convert_type.*|convert_element_type\[(u?int\d+|bool)\]|structural_iota"
    r"|structural_broadcasted_iota|structural_full_like|structural_zeros_like_array"
    r"|dot_general_i8_preferred_i32|stop_gradient)$"
)
ZERO_OPS = [op for op in OPS if ZERO.match(op.name)]
GRAD_OPS = [op for op in OPS if not ZERO.match(op.name)]


pytestmark = pytest.mark.usefixtures("x64")  # tests/conftest.py


def _is_float(x):
    dtype = x.dtype if hasattr(x, "dtype") else np.asarray(x).dtype  # tracers have no __array__
    return np.dtype(dtype).kind in "fcV"


def _widen(x):
    x = np.asarray(x)
    if x.dtype.kind == "c":
        return x.astype(np.complex128)
    if x.dtype.kind in "fV":
        return x.astype(np.float64)
    return x


def _has_float(args):
    return any(_is_float(x) for x in args)


def _draw_args(op, spec, data):
    args = tuple(_widen(x) for x in data.draw(op.args.filter(_has_float), label="args"))
    if spec.domain is not None:
        floats = [i for i, x in enumerate(args) if _is_float(x) and i not in spec.fixed]
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
    pos = [i for i, x in enumerate(args) if _is_float(x) and i not in fixed]

    def f(*floats):
        full = list(args)
        for i, x in zip(pos, floats):
            full[i] = x
        return op.fn(*full)

    return f, tuple(args[i] for i in pos)


@pytest.mark.parametrize("op", GRAD_OPS, ids=[op.name for op in GRAD_OPS])
@given(data=st.data())
def test_check_grads(op, data):
    spec = SPECS.get(op.name, Spec())
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
        tangents = [minijax.numpy.ones_like(x) if _is_float(x) else ad.Zero.from_primal_value(x)
                    for x in xs]
        outs, ts = ad.jvp_flat(lambda *a: list(_as_tuple(op.fn(*a))), list(xs), tangents)
        seen.extend((t, minijax.core.get_aval(o)) for o, t in zip(outs, ts))
        return outs

    minijax.make_jaxpr(jvp_of)(*args)
    assert seen and all(type(t) is ad.Zero for t, _ in seen), f"{op.name}: {seen}"
    for t, aval in seen:
        assert t.aval == ad.tangent_aval(aval)


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def test_every_entry_is_classified():
    """Every entry is either checked with check_grads or has zero derivative; the zero ones
    really are marked not differentiable (their primitives use defjvp_zero)."""
    assert len(GRAD_OPS) + len(ZERO_OPS) == len(OPS)
    unknown = set(SPECS) - {op.name for op in OPS}
    assert not unknown, f"specs for entries that do not exist: {unknown}"


def test_every_primitive_has_a_jvp_rule_and_linear_ones_a_transpose():
    from tests.ops.test_completeness import PRIMS

    missing = sorted(name for name, p in PRIMS.items() if p.jvp is None)
    assert not missing, f"primitives without a JVP rule (or defjvp_zero): {missing}"
    linear = ["add", "sub", "neg", "mul", "div", "dot_general", "broadcast_in_dim", "reshape",
              "squeeze", "transpose", "rev", "slice", "pad", "concatenate", "reduce_sum",
              "convert_element_type", "select_n", "dynamic_slice", "dynamic_update_slice",
              "cumsum", "real", "imag", "complex", "conj", "reduce_precision", "sort", "split"]
    no_transpose = [n for n in linear if PRIMS[n].transpose is None]
    assert not no_transpose, f"linear primitives without a transpose rule: {no_transpose}"
    flagged = sorted(n for n, p in PRIMS.items() if p.not_differentiable and p.transpose)
    assert not flagged, f"not-differentiable primitives with a transpose rule: {flagged}"
