"""Every op-table entry, eagerly and under jit, against NumPy; eager and jit agree bit for bit."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import minijax
from tests.ops.op_db import assert_close, load_all

OPS = load_all()


def assert_same_bits(a, b, err_msg=""):
    """Bitwise equality (NaN == NaN with the same payload; works for bfloat16 and float8)."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape, err_msg
    if a.dtype.itemsize in (1, 2, 4, 8) and a.dtype.kind not in "bc":
        view = np.dtype(f"u{a.dtype.itemsize}")
        a, b = a.view(view), b.view(view)
    np.testing.assert_array_equal(a, b, err_msg=err_msg)


def _outputs(x):
    return list(x) if isinstance(x, (tuple, list)) else [x]


@pytest.mark.parametrize("op", OPS, ids=[op.name for op in OPS])
@given(data=st.data())
def test_op_matches_numpy_eager_and_jit(op, data):
    args = data.draw(op.args, label="args")
    expected = _outputs(op.ref(*args))
    eager = _outputs(op.fn(*args))
    jitted = _outputs(minijax.jit(op.fn)(*args))
    assert len(eager) == len(expected) == len(jitted)
    for e, j, ref in zip(eager, jitted, expected):
        if op.compare is not None:
            op.compare(e, ref, args)
        else:
            assert_close(e, ref, op.tol, op.nan_ok, err_msg=f"{op.name} eager")
        if op.exact_jit:  # one implementation (the lowering) for both paths: identical bits
            assert_same_bits(e, j, err_msg=f"{op.name} jit vs eager")
        else:  # a composite that XLA may fuse differently under jit
            assert_close(j, ref, op.tol, op.nan_ok, err_msg=f"{op.name} jit")


def test_op_table_is_broad():
    assert len(OPS) >= 1
