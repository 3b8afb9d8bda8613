"""Records JAX's outcomes for tests/test_fidelity_r22_i.py (run under /work/venv_jax):

    /work/venv_jax/bin/python tests/data/record_fidelity_r22_i.py \
        > tests/data/fidelity_r22_i_jax.json

Each case is a source string evaluated with ``jax``, ``jnp``, ``np``, ``stats``, ``special``
and the arrays below; its outcome (or each of a tuple's) is dtype, weak type, shape and the
values' bit patterns (bit-for-bit comparison, float16/bfloat16 included)."""
import json

import jax
import jax.numpy as jnp
import jax.scipy.special  # noqa: F401
import jax.scipy.stats  # noqa: F401
import numpy as np

ARRAYS = """
i = np.array([0, 1, 2, 3, 5])
b = np.array([True, False])
f = np.linspace(-2, 6, 13).astype(np.float32)
q = np.linspace(0.05, 0.95, 7).astype(np.float32)
h = np.array([0.05, 0.3, 0.9, 1.7, 3.0, 7.5], np.float16)
bh = jnp.array([0.05, 0.3, 0.9, 1.7, 3.0, 7.5], jnp.bfloat16)
k = np.arange(13).astype(np.float32)
v = np.array([0.6, 0.66], np.float32)
"""

CASES = [
    # weak types: an int/bool array with Python-float parameters (JAX's lax._const: strong for
    # a weak array; a NumPy bool array beside Python floats is a weak float array)
    "stats.geom.logpmf(i, 0.3)", "stats.geom.pmf(b, 0.3)",
    "stats.gumbel_r.sf(i, 0.3, 1.7)", "stats.gumbel_r.logpdf(b, 0.3, 1.7)",
    "stats.gumbel_l.cdf(b, 0.3, 1.7)", "stats.gumbel_l.ppf(b, 0.3, 1.7)",
    "stats.logistic.ppf(b, 0.3, 1.7)", "stats.logistic.isf(b, 0.3, 1.7)",
    "stats.logistic.cdf(b, 0.3, 1.7)", "stats.logistic.ppf(0.3)",
    "stats.nbinom.pmf(i, 3.5, 0.4)", "stats.nbinom.logpmf(b, 3.5, 0.4)",
    "stats.pareto.logcdf(i, 2.5)", "stats.pareto.ppf(b, 2.5)", "stats.pareto.cdf(b, 2.5)",
    "stats.poisson.logpmf(i, 3.2)", "stats.poisson.cdf(i, 3.2)", "stats.poisson.pmf(b, 3.2)",
    "stats.t.logpdf(i, 4.5)", "stats.t.pdf(b, 4.5)", "special.logit(b)",
    # values: JAX's order of operations (these differed by up to 16 ulp)
    "stats.nbinom.pmf(k, np.float32(3.5), np.linspace(0.05, 0.95, 13).astype(np.float32))",
    "stats.nbinom.logpmf(i, 3.5, 0.4)", "stats.nbinom.pmf(h, 3.5, 0.4)",
    "stats.nbinom.pmf(bh, 3.5, 0.4)",
    "stats.gumbel_l.pdf(f, np.float32(0.3), np.float32(1.7))",
    "stats.gumbel_l.logpdf(f, np.float32(0.3), np.float32(1.7))",
    "stats.gumbel_r.logsf(i, 0.3, 1.7)", "stats.gumbel_r.logsf(h, 0.3, 1.7)",
    "stats.t.logpdf(f, np.float32(4.5), np.float32(0.3), np.float32(1.7))",
    "stats.t.pdf(bh, 4.5)", "stats.pareto.logpdf(f + 2, np.float32(2.5), 0.3, 1.7)",
    "stats.pareto.ppf(q, np.float32(2.5), 0.3, 1.7)", "stats.geom.logpmf(h, 0.3)",
    "stats.logistic.logpdf(bh, 0.3, 1.7)",
    # gradients (gumbel_r.logsf through jax.nn.log1mexp's custom derivative)
    "jax.vmap(jax.grad(stats.gumbel_r.logsf, argnums=(0, 1)))(v * 2, v / 2, v * 3)",
    "jax.grad(stats.t.logpdf, argnums=(0, 1, 2, 3))(np.float32(1.3), np.float32(4.5), "
    "np.float32(0.3), np.float32(1.7))",
    "jax.grad(stats.nbinom.pmf, argnums=(0, 1, 2))(np.float32(3.0), np.float32(3.5), "
    "np.float32(0.4))",
    "jax.vmap(jax.grad(stats.gumbel_r.ppf, argnums=(1, 2)))(v, v / 2, v * 3)",
    "jax.vmap(jax.grad(stats.gumbel_l.ppf, argnums=(1, 2)))(v, v / 2, v * 3)",
    # the derivative in p: JAX 0.10.2 raises here (its xlogy/xlog1py differentiate an integer
    # -1 through a float0 tangent); these record the same formula with -1.0, which JAX does
    # differentiate: minijax's gumbel_r/gumbel_l.ppf must give these values
    "jax.vmap(jax.grad(lambda p, l, s: l - s * jnp.log(special.xlogy(-1.0, p)), "
    "argnums=(0, 1)))(v, v / 2, v * 3)",
    "jax.vmap(jax.grad(lambda p, l, s: l + s * jnp.log(special.xlog1py(-1.0, -p)), "
    "argnums=(0, 1)))(v, v / 2, v * 3)",
]


def outcome(x):
    if isinstance(x, tuple):
        return [outcome(t) for t in x]
    a = np.asarray(x)
    bits = a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])
    return [str(a.dtype), bool(x.aval.weak_type), list(a.shape), bits.ravel().tolist()]


if __name__ == "__main__":
    env = {"jax": jax, "jnp": jnp, "np": np, "special": jax.scipy.special,
           "stats": jax.scipy.stats}
    exec(ARRAYS, env)
    cases = [json.dumps([src, outcome(eval(src, env))]) for src in CASES]
    print('{"jax_version": %s, "arrays": %s, "cases": [\n%s\n]}'
          % (json.dumps(jax.__version__), json.dumps(ARRAYS), ",\n".join(cases)))
