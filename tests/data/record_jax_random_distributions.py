"""Records JAX's samples of the jax.random distributions that tests/test_random_distributions.py
compares bit for bit (CPU): run with JAX's venv, not minijax's python:

    /work/venv_jax/bin/python tests/data/record_jax_random_distributions.py

Writes tests/data/jax_random_distributions.json: for each case (a Python expression over
``random``, ``jnp``, ``np`` and the key ``k``), the result's dtype, shape and raw bytes in hex.
"""

import json
import os

import jax

jax.config.update("jax_platforms", "cpu")

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import random  # noqa: E402

# (expression, key seed, whether the key is typed, x64)
CASES = [
    ("random.pareto(k, 3.0, (5,))", 0, False, False),
    ("random.pareto(k, jnp.array([1.0, 2.0, 3.0]))", 1, True, False),
    ("random.t(k, 4.0, (5,))", 2, False, False),
    ("random.t(k, jnp.array([0.5, 1.0, 30.0]))", 3, False, False),
    ("random.chisquare(k, 3.0, (5,))", 4, False, False),
    ("random.f(k, 3.0, 5.0, (5,))", 5, True, False),
    ("random.maxwell(k, (4,))", 6, False, False),
    ("random.double_sided_maxwell(k, 1.0, 2.0, (4,))", 7, False, False),
    ("random.double_sided_maxwell(k, jnp.zeros(2), 1.0)", 8, False, False),
    ("random.weibull_min(k, 2.0, 1.5, (5,))", 9, False, False),
    ("random.generalized_normal(k, 1.5, (5,))", 10, False, False),
    ("random.ball(k, 3, 2, (2,))", 11, False, False),
    ("random.ball(k, 2, 1.0)", 12, True, False),
    ("random.rayleigh(k, 2.0, (5,))", 13, False, False),
    ("random.wald(k, 1.5, (5,))", 14, False, False),
    ("random.geometric(k, 0.3, (6,))", 15, False, False),
    ("random.geometric(k, jnp.array([0.1, 0.5, 0.9]))", 16, False, False),
    ("random.triangular(k, 0.0, 0.3, 1.0, (5,))", 17, False, False),
    ("random.lognormal(k, 0.5, (5,))", 18, False, False),
    ("random.lognormal(k)", 19, False, False),
    ("random.lognormal(k, shape=(3,), dtype=jnp.complex64)", 20, False, False),
    ("random.poisson(k, 3.0, (6,))", 21, False, False),
    ("random.poisson(k, jnp.array([0.0, 1.0, 20.0, 100.0]))", 22, True, False),
    ("random.poisson(k, 12.0, (4,), dtype=jnp.int16)", 23, False, False),
    ("random.binomial(k, 10, 0.3, (6,))", 24, False, False),
    ("random.binomial(k, jnp.array([5.0, 50.0, 100.0]), jnp.array([0.2, 0.7, 0.5]))", 25, False,
     False),
    ("random.binomial(k, jnp.array([-1.0, 3.0, jnp.inf, 4.0]), "
     "jnp.array([0.5, jnp.nan, 0.5, 0.8]))", 26, False, False),
    ("random.multinomial(k, 10.0, jnp.array([0.2, 0.3, 0.5]))", 27, False, False),
    ("random.multinomial(k, jnp.array([5.0, 200.0]), jnp.array([[0.1, 0.9], [0.5, 0.5]]))", 28,
     True, False),
    ("random.multinomial(k, 7.0, jnp.array([0.25, 0.25, 0.5]), shape=(2, 3))", 29, False,
     False),
    ("random.pareto(k, 2.0, (4,), dtype=jnp.float64)", 30, False, True),
    ("random.weibull_min(k, 1.0, 0.5, (4,), dtype=jnp.float64)", 31, False, True),
    ("random.rayleigh(k, 1.0, (4,), dtype=jnp.float64)", 32, False, True),
    ("random.geometric(k, 0.2, (4,))", 33, False, True),
    ("random.poisson(k, 5.0, (4,))", 34, False, True),
    ("random.binomial(k, 20.0, 0.4, (4,))", 35, False, True),
    ("random.t(k, 3.0, (4,), dtype=jnp.float64)", 36, False, True),
    ("random.double_sided_maxwell(k, 0.0, 1.0, (3,), dtype=jnp.float64)", 37, False, True),
    ("random.pareto(k, 3.0, (3,), dtype=jnp.bfloat16)", 38, False, False),
    ("random.triangular(k, -1.0, 0.0, 2.0, (3,), dtype=jnp.float16)", 39, False, False),
]


def record(expr, seed, typed, x64):
    jax.config.update("jax_enable_x64", x64)
    k = random.key(seed) if typed else random.PRNGKey(seed)
    out = np.asarray(eval(expr, dict(random=random, jnp=jnp, np=np, k=k)))
    jax.config.update("jax_enable_x64", False)
    return dict(expr=expr, seed=seed, typed=typed, x64=x64, dtype=str(out.dtype),
                shape=list(out.shape), hex=out.tobytes().hex())


def main():
    out = dict(jax_version=jax.__version__, backend="cpu",
               cases=[record(*c) for c in CASES])
    path = os.path.join(os.path.dirname(__file__), "jax_random_distributions.json")
    with open(path, "w") as f:
        # one case per line: small diffs when a case changes
        cases = ",\n".join(json.dumps(c) for c in out.pop("cases"))
        f.write(json.dumps(out)[:-1] + ', "cases": [\n' + cases + "\n]}\n")
    print(f"wrote {len(CASES)} cases to {path}")


if __name__ == "__main__":
    main()
