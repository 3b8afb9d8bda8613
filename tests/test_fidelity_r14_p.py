"""Run 17000's `.at[...].min/max(mode='clip')` gradients (s17105-137, s17116-177, s17129-173):
JAX 0.10.2 is wrong there (FINDINGS 118); minijax must keep the true derivative.

tests/data/fidelity_r14_p_jax.json (tests/data/record_fidelity_r14_p.py, JAX 0.10.2) holds each
case's inputs, JAX's gradient with the indices as given ('clip') and with the same indices
normalised and clipped by hand ('in_range'). JAX's 'clip' gradient passes the cotangent through
where a clipped index made the output constant: its `_scatter_extremal_jvp` gathers and
scatter-adds without `mode`, so the out-of-range index is dropped. The right derivative is
JAX's own 'in_range' one, which central differences confirm.
"""
import json
import pathlib

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp

_REC = json.loads((pathlib.Path(__file__).parent / 'data' / 'fidelity_r14_p_jax.json').read_text())
_CASES = sorted(k for k in _REC if k.startswith('s'))


def _loss(case, dtype):
    idx = jnp.array(case['idx'])
    shape = np.shape(case['x'])
    w = np.linspace(0.5, 1.5, int(np.prod(shape))).reshape(shape).astype(dtype)
    return lambda a: jnp.sum(getattr(a.at[idx], case['op'])(case['update'], mode='clip') * w)


@pytest.mark.parametrize('name', _CASES)
def test_clip_mode_extremal_scatter_gradient(name):
    case = _REC[name]
    x = np.array(case['x'], case['dtype'])
    g = jax.grad(_loss(case, case['dtype']))(jnp.asarray(x))
    assert g.dtype == x.dtype and g.shape == x.shape
    np.testing.assert_array_equal(np.asarray(g, np.float64), case['in_range'])
    # The true derivative, in float64 (the elements sit far from any tie; -65504 in the sum
    # costs a few 1e-6 of cancellation).
    with jax.enable_x64():
        f = _loss(case, np.float64)
        x64, h = x.astype(np.float64), 1e-6
        steps = np.eye(x.size).reshape((x.size,) + x.shape) * h
        fd = [(float(f(jnp.asarray(x64 + e))) - float(f(jnp.asarray(x64 - e)))) / (2 * h)
              for e in steps]
    np.testing.assert_allclose(np.reshape(fd, x.shape), case['in_range'], atol=1e-4)
