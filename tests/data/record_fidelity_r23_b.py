"""Records JAX 0.10.2's outcomes for tests/test_fidelity_r23_b.py (jax.scipy.special):

    /work/venv_jax/bin/python tests/data/record_fidelity_r23_b.py \
        > tests/data/fidelity_r23_b_jax.json

Each case is a Python expression over ``jax``, ``jnp``, ``np``, ``jsp`` (jax.scipy.special)
and the arrays of SETUP; the test evaluates the same text on minijax."""
import json
import math

import numpy as np

SETUP = """
X = jnp.asarray([0.0, 0.25, 0.5, -0.5, 0.99, 1.0, -3.0, 1.5, np.nan], jnp.float32)
P = jnp.asarray([0.0, 1.0, -1.0, 0.5, 2.5, -2.0, np.nan], jnp.float32)
C = jnp.asarray([0.5, 1.0, 2.5], jnp.float32)
Z = jnp.asarray([1+2j, 0.5-1j, -2.5+0j, 3j, -3+0j, 0j, complex(np.nan, 0), -0.3+0.2j, 10-5j,
                 -7.5+1e-3j, 25+0j], jnp.complex64)
BF = jnp.bfloat16
"""

# (dtype, weak type, values) of each
VALUES = [
    # the series' term update grouped as JAX's (yk * (z / xk)): bfloat16 rounds otherwise
    "jsp.expn(jnp.asarray([2, 5], BF), jnp.asarray(0.9, BF))",
    "jsp.expn(jnp.asarray([1, 2, 3], BF), jnp.asarray([0.25, 0.5, 0.9], BF))",
    # 2F1: JAX's product grouping (a diverging series' sign at x = -3) and its jits (fusions)
    "jsp.hyp2f1(P[:, None, None, None], P[None, :, None, None], C[None, None, :, None], X)",
    # spence's branches are a piecewise's: no NaN gradient at a tiny x
    "jax.vmap(jax.grad(jsp.spence))(jnp.asarray([1e-30, 0.3, 3.0, 1.7], jnp.float32))",
    # weak results of weak inputs
    "jsp.kl_div(2, 1.5)",
    "jsp.rel_entr(2.0, 1.5)",
    "jsp.rel_entr(jnp.asarray([0.0, -1.0, 2.0]), 1.5)",
    # the constants in a's dtype
    "jsp.multigammaln(jnp.asarray([1.5, 2.0], jnp.float16), 2)",
    "jax.jit(lambda a: jsp.multigammaln(a, 2))(jnp.asarray([0.9, 2.0, 30.0], jnp.float32))",
    # zeta's JVP: the series' primal (strong) and tangent
    "jax.jvp(jsp.zeta, (2.0, 1.5), (1.0, 0.0))",
    "jax.jvp(jsp.zeta, (jnp.float32(3.0), jnp.float32(0.7)), (jnp.float32(1.0), jnp.float32(1.0)))",
    # sici and its JVP rule are jits, as JAX's (their fusions round as JAX's)
    "jsp.sici(jnp.asarray([30.0, 10.0], jnp.float32))",
    "jax.vmap(jax.grad(lambda x: jsp.sici(x)[0]))(jnp.asarray([1.5, 3.0], jnp.float32))",
    # complex gamma and loggamma (Lanczos; SciPy's branch for loggamma)
    "jsp.gamma(Z)",
    "jsp.loggamma(Z)",
    "jax.jit(jsp.loggamma)(Z[:3])",
    "jsp.loggamma(1 + 2j)",
]

# the error's type and message
ERRORS = [f"jsp.{name}(Z)" for name in ("gammaln", "digamma", "erf", "erfc", "erfinv",
                                         "factorial", "i0", "i0e", "i1", "i1e")]
ERRORS += [f"jsp.{name}(Z, Z)" for name in ("betaln", "comb", "gammainc", "gammaincc")]

# printed jaxprs
JAXPRS = [
    "jax.make_jaxpr(jsp.xlogy)(2, 1.5)",
    "jax.make_jaxpr(jsp.xlog1py)(jnp.ones(2), jnp.ones(2))",
    "jax.make_jaxpr(jsp.logit)(0.75)",
    "jax.make_jaxpr(jsp.zeta)(2, 1.5)",
    "jax.make_jaxpr(jsp.kl_div)(2.0, 1.5)",
    "jax.make_jaxpr(jsp.entr)(jnp.ones(2))",
    "jax.make_jaxpr(jsp.loggamma)(jnp.ones(2))",
]

# dir(jax.scipy.special): its public names only
DIR = "sorted(n for n in dir(jsp) if not n.startswith('_'))"


def _float(v):
    return repr(float(v)) if math.isnan(v) or math.isinf(v) else float(v)


def _leaves(out):
    if isinstance(out, (tuple, list)):
        return [leaf for o in out for leaf in _leaves(o)]
    return [out]


def outcome(out, np):
    rows = []
    for x in _leaves(out):
        a = np.asarray(x)
        if np.iscomplexobj(a):
            vals = [[_float(v.real), _float(v.imag)] for v in a.ravel()]
        else:
            vals = [_float(v) for v in a.astype(np.float64).ravel()]
        rows.append([str(x.dtype), bool(x.weak_type), list(a.shape), vals])
    return rows


def error(src, env):
    try:
        eval(src, env)
    except Exception as e:  # the outcome recorded
        return [type(e).__name__, str(e).split("\n")[0]]
    return None


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp
    import jax.scipy.special as jsp

    env = {"jax": jax, "jnp": jnp, "np": np, "jsp": jsp}
    exec(SETUP, env)
    print(json.dumps({
        "jax_version": jax.__version__,
        "values": [[src, outcome(eval(src, env), np)] for src in VALUES],
        "errors": [[src, error(src, env)] for src in ERRORS],
        "jaxprs": [[src, str(eval(src, env))] for src in JAXPRS],
        "dir": eval(DIR, env),
    }, indent=1))
