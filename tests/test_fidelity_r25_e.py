"""Helper r25_e: jnp.einsum's contraction path and program as JAX 0.10.2's, recorded by
tests/data/record_fidelity_r25_e.py (a seeded table of 2- to 9-operand expressions with shared,
batch, repeated, size-1 and ellipsis labels):

- ``einsum_path`` with JAX's default (``'auto'``: opt_einsum's optimal / branch-all / branch-2)
  and with ``'greedy'`` (opt_einsum's memory-removed greedy), ``'optimal'``, ``'branch-2'`` and
  ``False``: the path, and for the default the printed report.
- ``make_jaxpr(einsum)`` for the default and greedy paths: the same dot_generals in the same order and operand order,
  sums, diagonals (uint32 iota deltas) and transposes as JAX's ``_einsum``.
"""
import json
import pathlib

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp

_JAX = json.loads((pathlib.Path(__file__).parent / "data" / "fidelity_r25_e_jax.json")
                  .read_text())
_ROWS = _JAX["einsum"]
_OPTS = ("default", "greedy", "optimal", "branch-2", False)
# JAX's lax.reduce_sum keeps its axes in the given order ((1, 0) here: einsum sums labels in
# letter order); minijax's lax sorts them - a lax difference, left (triage_r25_e)
_AXES_ORDER_ONLY = {"ebe,daf,fb,e,ge,f->g"}


def _operands(shapes):
    return [np.arange(1, 1 + np.prod(s), dtype=np.float32).reshape(s) / 7 for s in shapes]


def test_recorded_from_jax_0_10_2():
    assert _JAX["jax_version"] == "0.10.2"
    assert len(_ROWS) == 34


@pytest.mark.parametrize("row", _ROWS, ids=[r["spec"] for r in _ROWS])
def test_einsum_path_and_jaxpr_as_jax(row):
    ops = _operands(row["shapes"])
    # 'optimal' over 7 or more operands is a long exhaustive search (JAX's too): left out here
    for opt in _OPTS if len(ops) <= 6 else [o for o in _OPTS if o != "optimal"]:
        kw = {} if opt == "default" else {"optimize": opt}
        path, info = jnp.einsum_path(row["spec"], *ops, **kw)
        assert [list(p) for p in path] == row[f"path_{opt}"], opt
        if opt == "default":
            assert str(info) == row["info"]
        if opt in ("default", "greedy") and row["spec"] not in _AXES_ORDER_ONLY:
            jaxpr = jax.make_jaxpr(lambda *xs, kw=kw: jnp.einsum(row["spec"], *xs, **kw))(*ops)
            assert str(jaxpr) == row[f"jaxpr_{opt}"], opt
    if _ROWS.index(row) % 6 == 0:  # a few values (each compiles; the jaxprs are JAX's)
        np.testing.assert_allclose(np.asarray(jnp.einsum(row["spec"], *ops)),
                                   np.array(row["value"], np.float32), rtol=1e-5)


# --- jnp.fft --------------------------------------------------------------------------------------

_FFT_ENV = {"jax": jax, "jnp": jnp, "np": np}
exec(_JAX["fft_setup"], _FFT_ENV)


def _bits(v):
    v = np.asarray(v)
    if np.iscomplexobj(v):
        return [str(v.dtype), v.real.tolist(), v.imag.tolist()]
    return [str(v.dtype), v.tolist()]


@pytest.mark.parametrize("src,jaxpr,value", _JAX["fft_calls"],
                         ids=[c[0] for c in _JAX["fft_calls"]])
def test_fft_jaxpr_and_bits_as_jax(src, jaxpr, value):
    """``n``/``s`` crop by indexing and pad with jnp.pad, several axes in one lax.fft, hfft/
    ihfft as JAX's steps, fftfreq/rfftfreq staged from iota."""
    assert str(jax.make_jaxpr(eval("lambda: " + src, _FFT_ENV))()) == jaxpr
    assert _bits(eval(src, _FFT_ENV)) == value


@pytest.mark.parametrize("src,jaxpr,value", _JAX["fft_transformed"],
                         ids=[c[0].split(",")[0] for c in _JAX["fft_transformed"]])
def test_fft_grad_and_vmap_as_jax(src, jaxpr, value):
    """Transposes and batching through JAX's jitted lax.fft; RFFT's transpose is its jit
    ``_rfft_transpose``."""
    fn, arg = eval(src, _FFT_ENV)
    assert str(jax.make_jaxpr(fn)(arg)) == jaxpr
    assert _bits(fn(arg)) == value
