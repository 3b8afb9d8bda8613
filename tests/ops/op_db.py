"""The op table: every primitive / jnp function with a NumPy reference and input strategies.

Each entry is one ``register(...)`` call in a per-family module (``op_entries_*.py`` beside
this file); add an entry beside the family it tests. Everything the generic tests need to know
about an operation lives on its entry, so adding a primitive means editing that one place:

- ``test_op_db.py`` runs each entry eagerly and under jit and compares with the reference
  (and eager with jit, bit for bit, where ``exact_jit``);
- ``test_vmap_op_db.py`` runs it under vmap against a loop of the reference;
- ``test_op_grads.py`` checks its derivatives against finite differences as its ``grad``
  (a ``GradSpec``) says, or, for ``grad=ZERO_DERIVATIVE``, that its tangents are symbolic zeros;
- ``test_completeness.py`` checks every primitive has its rules and an entry exercising it.

``args`` is a hypothesis strategy producing a tuple of NumPy arrays (the operands; static
parameters are baked into ``fn``/``ref`` with a lambda); ``tol`` maps a dtype name to
(rtol, atol) for the comparison with NumPy (default exact for ints/bools, loose for floats).
"""

from __future__ import annotations

import dataclasses
import importlib
import pathlib
import pkgutil
from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp


@dataclasses.dataclass(frozen=True)
class GradSpec:
    """How ``test_op_grads.py`` checks an entry's derivatives: ``check_grads`` against central
    differences on the entry's drawn operands, widened to float64 / complex128 (integer and
    boolean operands held fixed). The fields move operands away from points where the op is
    not differentiable or near a singularity, where a finite difference says nothing."""

    domain: tuple | list | None = None  # redraw float operands in (lo, hi) (or one per operand)
    post: Callable | None = None  # args -> args: move away from kinks (tests/ops/kinks.py)
    eps: float | None = None
    tol: float | None = None
    order: int = 2
    fixed: tuple = ()  # float operands held fixed (not differentiable in them)
    modes: tuple = ("fwd", "rev")  # while_loop (no max_steps) is forward-differentiable only
    # False: check_grads runs eagerly, each primitive's executable compiled once per shape and
    # reused by every example (for ops whose lowering takes XLA seconds to compile)
    jit: bool = True
    # the derivative is zero wherever it exists (rounding, comparisons, integer ops, argmax):
    # checked to produce symbolic zero tangents (no equations) instead of finite differences
    zero: bool = False
    # JAX defines no derivative rule (nextafter): differentiating it is checked to raise
    # JAX's NotImplementedError
    refused: bool = False


ZERO_DERIVATIVE = GradSpec(zero=True)
NO_DERIVATIVE = GradSpec(refused=True)


@dataclasses.dataclass
class OpInfo:
    name: str
    fn: Callable  # minijax function: fn(*arrays) -> Array or tuple of Arrays
    ref: Callable  # NumPy reference with the same signature
    args: Any  # hypothesis strategy of tuples of NumPy arrays
    tol: dict = dataclasses.field(default_factory=dict)
    nan_ok: bool = True  # NaNs in the same places count as equal
    compare: Callable | None = None  # custom comparison(result, expected, args) instead of allclose
    exact_jit: bool = True  # a single primitive: jit and eager run the same program, bit for bit
    grad: GradSpec = GradSpec()  # how test_op_grads.py checks the derivatives


OPS: list[OpInfo] = []


def register(name, fn, ref, args, **kw):
    OPS.append(OpInfo(name, fn, ref, args, **kw))


def register_eager_grads(name, fn, ref, args, grad=GradSpec(), **kw):
    """``register`` with the entry's gradient checks run eagerly (``jit=False``), for families
    whose derivative programs are a few primitives: their executables are compiled once per
    shape and reused by every example of every entry, where jitted checks compile new programs
    (jvp, vjp, linearize, each to order 2) for each example. Not for control flow, whose eager
    application compiles each new body anyway (slower: tools/difftest/triage_r25_g.md)."""
    if not (grad.zero or grad.refused):
        grad = dataclasses.replace(grad, jit=False)
    register(name, fn, ref, args, grad=grad, **kw)


# --- strategies -----------------------------------------------------------------------------------

FLOAT_DTYPES = [np.float32, np.float16, ml_dtypes.bfloat16]
INT_DTYPES = [np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32]
DEFAULT_TOL = {
    "float32": (1e-5, 1e-6),
    "float16": (2e-3, 1e-3),
    "bfloat16": (2e-2, 1e-2),
    "float64": (1e-12, 1e-14),
    "complex64": (1e-5, 1e-6),
}


def shapes(min_dims=0, max_dims=3, max_side=5):
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=1, max_side=max_side)


def array(shape, dtype, lo=-10.0, hi=10.0):
    """A strategy of arrays with ``shape`` and ``dtype``, elements in [lo, hi] (no NaN/inf)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return hnp.arrays(np.bool_, shape)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return hnp.arrays(
            dtype, shape, elements=st.integers(max(info.min, int(lo)), min(info.max, int(hi)))
        )
    if (
        dtype in (np.dtype(ml_dtypes.bfloat16),)
        or dtype.kind == "V"
        or dtype.name.startswith("float8")
    ):
        base = hnp.arrays(np.float32, shape, elements=st.floats(lo, hi, width=32))
        return base.map(lambda a: a.astype(dtype))
    if dtype.kind == "c":
        part = st.floats(lo, hi, width=32)
        return hnp.arrays(dtype, shape, elements=st.builds(complex, part, part))
    width = 16 if dtype == np.float16 else 32 if dtype == np.float32 else 64
    lo, hi = _inward_bounds(lo, hi, dtype)
    return hnp.arrays(dtype, shape, elements=st.floats(lo, hi, width=width))


def _inward_bounds(lo, hi, dtype):
    """Rounds float bounds inward to values ``dtype`` represents (hypothesis insists on it)."""
    lo_d, hi_d = dtype.type(lo), dtype.type(hi)
    if float(lo_d) < lo:
        lo_d = np.nextafter(lo_d, dtype.type(np.inf))
    if float(hi_d) > hi:
        hi_d = np.nextafter(hi_d, dtype.type(-np.inf))
    return float(lo_d), float(hi_d)


def same_shape_args(n, dtypes, lo=-10.0, hi=10.0, max_dims=3):
    """``n`` operands of one drawn shape and one drawn dtype from ``dtypes``."""

    @st.composite
    def strat(draw):
        shape = draw(shapes(max_dims=max_dims))
        dtype = draw(st.sampled_from(dtypes))
        return tuple(draw(array(shape, dtype, lo, hi)) for _ in range(n))

    return strat()


def assert_close(result, expected, tol=None, nan_ok=True, err_msg=""):
    """Compares a minijax result with a NumPy reference: dtype, shape, then values."""
    res = np.asarray(result)
    exp = np.asarray(expected)
    assert res.shape == exp.shape, f"{err_msg} shape {res.shape} != {exp.shape}"
    assert res.dtype == exp.dtype, f"{err_msg} dtype {res.dtype} != {exp.dtype}"
    if res.dtype.kind in "biu":
        np.testing.assert_array_equal(res, exp, err_msg=err_msg)
        return
    rtol, atol = (tol or {}).get(res.dtype.name, DEFAULT_TOL.get(res.dtype.name, (1e-5, 1e-6)))
    np.testing.assert_allclose(
        res.astype(np.float64) if res.dtype.kind == "f" or res.dtype.kind == "V" else res,
        exp.astype(np.float64) if exp.dtype.kind in "fV" else exp,
        rtol=rtol,
        atol=atol,
        equal_nan=nan_ok,
        err_msg=err_msg,
    )


def load_all():
    """Imports every entry module of this folder (each registers into OPS once)."""
    for mod in pkgutil.iter_modules([str(pathlib.Path(__file__).parent)]):
        if mod.name.startswith("op_entries_"):
            importlib.import_module(f"{__package__}.{mod.name}")
    return OPS
