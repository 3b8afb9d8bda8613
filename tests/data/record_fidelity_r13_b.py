"""Records JAX's outcomes for tests/test_fidelity_r13_b.py (run under /work/venv_jax).

    /work/venv_jax/bin/python tests/data/record_fidelity_r13_b.py > tests/data/fidelity_r13_b_jax.json

The derivative of each unary rule at a weak Python scalar, a weak f32[1] and a strong f32
scalar primal (tangent / cotangent as weakly typed as the primal): JAX's rules write their
constants with ``lax._const``, weak only for a weak scalar primal; and the transposes of
``real`` / ``imag``, whose zero is a strong NumPy scalar.
"""
import json

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

def _polygamma_m1(x):  # the order a weak f32[1]: JAX's rule adds a strong 1 to it
    return lax.polygamma(jnp.reshape(1.0, (1,)), x)


UNARY = {
    "sqrt": (lax.sqrt, 0.3), "rsqrt": (lax.rsqrt, 0.3), "cbrt": (lax.cbrt, 0.3),
    "square": (lax.square, 0.3), "integer_pow2": (lambda x: lax.integer_pow(x, 2), 0.3),
    "integer_pow3": (lambda x: lax.integer_pow(x, 3), 0.3), "tan": (lax.tan, 0.3),
    "asin": (lax.asin, 0.3), "acos": (lax.acos, 0.3), "atan": (lax.atan, 0.3),
    "erf": (lax.erf, 0.3), "erfc": (lax.erfc, 0.3), "erf_inv": (lax.erf_inv, 0.3),
    "digamma": (lax.digamma, 0.3), "polygamma": (lambda x: lax.polygamma(1.0, x), 0.3),
    "polygamma_m1": (_polygamma_m1, 0.3), "exp2": (lax.exp2, 0.3),
    "tanh": (lax.tanh, 0.3), "logistic": (lax.logistic, 0.3), "expm1": (lax.expm1, 0.3),
    "log1p": (lax.log1p, 0.3), "asinh": (lax.asinh, 0.3), "acosh": (lax.acosh, 1.3),
    "atanh": (lax.atanh, 0.3),
}


def primal(kind, v):
    return {"scalar": v, "rank1": jnp.reshape(v, (1,)), "strong": np.float32(v)}[kind]


def seed(kind, shape):
    """A tangent / cotangent of ``shape``: weak unless the primal is strong."""
    return np.ones(shape, np.float32) if kind == "strong" else jnp.reshape(1.0, shape)


def typed(x):
    x = jnp.asarray(x)
    v = np.asarray(x)
    value = [[z.real, z.imag] for z in v.ravel().tolist()] if v.dtype.kind == "c" else v.tolist()
    return {"dtype": str(x.dtype), "weak": bool(x.weak_type), "value": value}


def derivatives(f, x, kind):
    t = seed(kind, np.shape(x))
    vjp = jax.vjp(f, x)[1](seed(kind, np.shape(f(x))))[0]
    jvp = jax.jvp(f, (x,), (t,))[1]
    jit_vjp = jax.jit(lambda x, t: jax.vjp(f, x)[1](t)[0])(x, seed(kind, np.shape(f(x))))
    return {"vjp": typed(vjp), "jvp": typed(jvp), "jit_vjp": typed(jit_vjp)}


# The other operands strong f32[1]: JAX's rules multiply the weak tangent with `*` (jnp's
# promotion converts it), so the cotangent is weak and the tangent strong.
_S = {"a": np.float32([1.5]), "b": np.float32([2.0])}
SPECIAL = {
    "igamma_x": (lambda x: lax.igamma(_S["a"], x), 0.7),
    "igamma_a": (lambda a: lax.igamma(a, np.float32([0.7])), 1.5),
    "igammac_x": (lambda x: lax.igammac(_S["a"], x), 0.7),
    "igammac_a": (lambda a: lax.igammac(a, np.float32([0.7])), 1.5),
    "betainc_x": (lambda x: lax.betainc(_S["a"], _S["b"], x), 0.3),
}

W = np.linspace(0.5, 1.5, 2).astype(np.float32)


def erf_repeat(x):  # s13044-66
    return jnp.sum(lax.erf(jnp.repeat(x, 2)) * W)


def hypot_reshaped(x):  # s15020-344
    return jnp.sum(jnp.hypot(0.5, jnp.reshape(x, (-1,))))


out = {
    "jax_version": jax.__version__,
    "unary": {name: {kind: derivatives(f, primal(kind, v), kind)
                     for kind in ("scalar", "rank1", "strong")}
              for name, (f, v) in UNARY.items()},
    "special": {name: {kind: derivatives(f, primal(kind, v), kind) for kind in ("scalar", "rank1")}
                for name, (f, v) in SPECIAL.items()},
    "parts": {name: {kind: typed(jax.vjp(f, z)[1](seed(kind, np.shape(z)))[0])
                     for kind, z in (("scalar", complex(1.2, -0.7)),
                                     ("rank1", jnp.reshape(complex(1.2, -0.7), (1,))))}
              for name, f in (("real", lax.real), ("imag", lax.imag))},
    "programs": {
        "erf_repeat": [typed(v) for v in jax.jit(jax.value_and_grad(erf_repeat))(0.3)],
        "hypot_reshaped": typed(jax.grad(hypot_reshaped)(-1.39)),
    },
}
print(json.dumps(out, indent=1))
