"""jax.scipy.stats geom, gumbel_r, gumbel_l, logistic, nbinom, pareto, poisson and t written
term by term as JAX 0.10.2's (helper r22_i): weak types (JAX's lax._const constants; a NumPy
bool array beside Python floats promotes to a weak float array), values bit for bit (float16
and bfloat16 too) and gradients, each recorded from JAX 0.10.2 by
tests/data/record_fidelity_r22_i.py."""
import json
import pathlib

import numpy as np
import pytest

import minijax as jax
import minijax.numpy as jnp
from minijax.scipy import special, stats

_JAX = json.loads((pathlib.Path(__file__).parent / "data" / "fidelity_r22_i_jax.json").read_text())
_ENV = {"jax": jax, "jnp": jnp, "np": np, "special": special, "stats": stats}
exec(_JAX["arrays"], _ENV)


def _outcome(x):
    if isinstance(x, tuple):
        return [_outcome(t) for t in x]
    a = np.asarray(x)
    bits = a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])
    return [str(a.dtype), bool(x.aval.weak_type), list(a.shape), bits.ravel().tolist()]


def test_recorded_from_jax_0_10_2():
    assert _JAX["jax_version"] == "0.10.2"


@pytest.mark.parametrize("src,expected", _JAX["cases"], ids=range(len(_JAX["cases"])))
def test_as_jax(src, expected):
    assert _outcome(eval(src, _ENV)) == expected


def test_ppf_gradient_in_p_where_jax_0_10_2_raises():
    # JAX 0.10.2 raises TypeError ("Called multiply with a float0 array") here: its
    # xlogy/xlog1py promote inside their custom_jvp, so the literal -1 of gumbel's ppf is an
    # integer primal with a float0 tangent that its jvp rule multiplies (a JAX bug). minijax
    # differentiates it, equal to JAX's derivative of the same formula with -1.0 (recorded).
    v = _ENV["v"]
    for ppf, formula in [(stats.gumbel_r.ppf, -2), (stats.gumbel_l.ppf, -1)]:
        got = jax.vmap(jax.grad(ppf, argnums=(0, 1)))(v, v / 2, v * 3)
        assert _outcome(got) == _JAX["cases"][formula][1]
