"""jnp functions' result dtypes and weak types (and their errors) on weakly/strongly typed
inputs, checked against tables recorded from JAX 0.10.2 (tests/data/record_r7_weak.py): every
case traced (``eval_shape``: no compilation), and the weak inputs' cases also run eagerly."""
import json
import pathlib
import sys

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp

DATA = pathlib.Path(__file__).parent / "data"
sys.path.insert(0, str(DATA))
import record_r7_weak  # noqa: E402 - the recorder's own case table

RECORDED = json.loads((DATA / "r7_weak_jax.json").read_text())
# eager runs compile every call: only the weakly typed inputs (the point of these tables)
EAGER_KINDS = ("wf", "wf_arr", "wi", "wf_2d")


def test_recorded_from_jax_0_10_2():
    assert RECORDED["jax_version"] == "0.10.2"
    assert len(RECORDED["table"]) == len(RECORDED["traced"]) == len(record_r7_weak.cases())


def _mismatches(expected, got):
    # an error is its class name: JAX's exactly (ValueError, or IndexError where JAX indexes a
    # shape with the axis first)
    return {k: (expected[k], v) for k, v in got.items() if v != expected[k]}


def test_traced_dtype_and_weak_type_as_jax():
    got = record_r7_weak.run(jnp, eval_shape=minijax.eval_shape)
    assert not _mismatches(RECORDED["traced"], got)


def test_eager_dtype_and_weak_type_as_jax():
    got = record_r7_weak.run(jnp, kinds=EAGER_KINDS)
    assert len(got) > 850
    assert not _mismatches(RECORDED["table"], got)


@pytest.mark.parametrize("fn", [jnp.isposinf, jnp.isneginf, jnp.modf])
def test_out_refused_as_jax(fn):
    with pytest.raises(NotImplementedError):
        fn(jnp.asarray(1.5), jnp.zeros(()))


def test_log10_of_powers_of_ten_is_exact_as_jax():
    # JAX 0.10.2 (log(x) * (1/ln 10)) gives exactly [1, 2, 3, -5]; log(x) / log(10) did not
    got = jnp.log10(np.array([10, 100, 1000, 1e-5], np.float32))
    np.testing.assert_array_equal(np.asarray(got), np.float32([1, 2, 3, -5]))
