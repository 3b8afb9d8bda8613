"""Issue 21's jaxpr structure (helper r23_c): what ``make_jaxpr`` returns is JAX 0.10.2's, text
and param names, recorded by tests/data/record_fidelity_r23_c.py from the same programs:

- jax.nn.softmax/log_softmax/logsumexp: the max of x itself with ``initial=-inf`` (JAX's
  ``max -inf:f32[] b``, initial first as in every jnp reduction's ``initial``), stop_gradient
  after it, so grad stages reduce_max's JVP as JAX's does; logsumexp's NaN fill is an array of
  the result's dtype (no convert inside ``_where``);
- jnp.tri/tril/triu: JAX's order (row iota + k, column iota, ge), triu selects the other way
  round (no ``not``), the mask broadcast only over batch axes;
- jnp.linspace: JAX's sequence (the step is staged even without retstep, reshapes, no
  explicit broadcasts), for every num and retstep;
- static slices with a step: JAX's limit (the stop), reversed ones JAX's start;
- NumPy ints in params where JAX's rules leave them: reduce_sum's and slice's transposes
  (``broadcast_dimensions=(np.int64(0),)``, ``padding_config=((0, np.int64(1), 0),)``), and
  broadcast_in_dim/pad/slice keep the NumPy ints they are given, printed by their repr;
- jnp.fft: the input's conversion (to complex, or real for rfft) inside the transform's jit,
  as JAX's lax.fft; a ``norm`` multiplies by JAX's factor computed from the sizes in the
  result's dtype (``reduce_prod``, ``sqrt``, ``div``), "backward" by 1;
- logaddexp's custom_jvp under JAX's names (``name=logaddexp jvp=_logaddexp_jvp``, softplus's);
- ``mul``'s ``out_dtype`` param (``lax.mul(x, y, out_dtype=...)``), shown only when set.
"""

import json
import os
import sys

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import lax

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "data"))
from record_fidelity_r23_c import eqn_params, programs  # noqa: E402

with open(os.path.join(os.path.dirname(__file__), "data", "fidelity_r23_c_jax.json")) as _fh:
    _JAX = json.load(_fh)
PROGRAMS = programs(minijax, jnp, lax)


def test_recorded_from_jax_0_10_2():
    assert _JAX["jax_version"] == "0.10.2"
    assert set(_JAX["cases"]) == set(PROGRAMS)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_jaxpr_text_and_params_match_jax(name):
    fn, args = PROGRAMS[name]
    closed = minijax.make_jaxpr(fn)(*args)
    assert str(closed) == _JAX["cases"][name]
    assert eqn_params(closed) == _JAX["params"][name]


def test_values_unchanged():
    x = np.array([[1.0, 2.0, 3.0], [-1.0, 0.0, 5.0]], np.float32)
    np.testing.assert_allclose(minijax.nn.softmax(x), np.exp(x) / np.exp(x).sum(1, keepdims=True),
                               rtol=1e-6)
    np.testing.assert_allclose(minijax.nn.logsumexp(x), np.log(np.exp(x).sum()), rtol=1e-6)
    # JAX 0.10.2: jnp.linspace(2, 9, 4, retstep=True) gives these float32 values (.tolist())
    out, step = jnp.linspace(2, 9, 4, retstep=True)
    assert np.asarray(out).tolist() == [2.0, 4.3333330154418945, 6.666666507720947, 9.0]
    assert float(step) == 2.3333334922790527
    # JAX 0.10.2: lax.mul(f16 ones, 2.0, out_dtype=float32) is float32 [2., 2., 2.]
    y = lax.mul(np.ones(3, np.float16), 2.0, out_dtype=np.float32)
    assert y.dtype == np.float32 and y.tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(ValueError, match="Argument to jax.numpy.tril must be at least 2D"):
        jnp.tril(np.ones(3))
