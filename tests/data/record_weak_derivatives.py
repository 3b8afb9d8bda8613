"""Record JAX's dtype and weak_type of derivatives taken at Python-scalar inputs.

    /work/venv_jax/bin/python tests/data/record_weak_derivatives.py > tests/data/weak_derivatives_jax.json

For every differentiable jnp/lax/nn function of the difftest op tables (tools/difftest/ops.py)
this records, at Python-float inputs (weakly typed float32), the dtype and weak_type of
``grad``, of ``jvp``'s output tangent and of ``vjp``'s cotangents; binary functions are also
taken with one Python-scalar and one float32-array operand. tests/test_weak_derivatives.py
evaluates the same source expressions with minijax and compares. ``table()`` is shared by both.
"""

import json
import sys

X = 0.92  # a Python float: weakly typed float32
Y = -0.37

UNARY = [
    "jnp.sin(x)", "jnp.cos(x)", "jnp.tan(x)", "jnp.tanh(x)", "jnp.exp(x)", "jnp.log(x)",
    "jnp.log1p(x)", "jnp.expm1(x)", "jnp.sqrt(x)", "jnp.cbrt(x)", "jnp.arcsin(x)",
    "jnp.arctan(x)", "jnp.arcsinh(x)", "jnp.sinh(x)", "jnp.cosh(x)", "jnp.exp2(x)",
    "jnp.log2(x)", "jnp.reciprocal(x)", "jnp.sinc(x)", "jnp.deg2rad(x)", "jnp.i0(x)",
    "lax.rsqrt(x)", "lax.logistic(x)", "lax.erf(x)", "lax.erf_inv(x)", "lax.lgamma(x)",
    "lax.digamma(x)", "lax.exp(x)", "nn.sigmoid(x)", "nn.softplus(x)", "nn.silu(x)",
    "nn.log_sigmoid(x)", "nn.elu(x)", "nn.celu(x)", "nn.selu(x)", "nn.leaky_relu(x, 0.01)",
    "nn.gelu(x, approximate=True)", "nn.gelu(x, approximate=False)", "nn.hard_tanh(x)",
    "nn.sparse_plus(x)", "jnp.negative(x)", "jnp.abs(x)", "jnp.square(x)", "jnp.sign(x)",
    "jnp.floor(x)", "jnp.ceil(x)", "jnp.trunc(x)", "jnp.round(x, 1)", "nn.relu(x)",
    "nn.relu6(x)", "jnp.clip(x, -0.5, 0.5)", "jnp.clip(x, 0, 2)", "jnp.nan_to_num(x)",
    "lax.integer_pow(x, 3)", "x ** 2", "x ** 2.5", "x ** -1", "-x", "lax.stop_gradient(x)",
    "jnp.real(x)", "jnp.sum(x)", "jnp.prod(x)", "jnp.max(x)", "jnp.mean(x)", "jnp.var(x)",
    "jnp.std(x)", "nn.logsumexp(x)", "jnp.linalg.norm(x)", "jnp.cumsum(x)", "jnp.cumprod(x)",
    "jnp.where(True, x, x)", "jnp.where(x > 0, x, 0.0)", "lax.select(True, x, x)",
    "lax.max(x, 1e30)", "lax.min(x, 1e30)", "lax.abs(x)", "lax.sign(x)", "lax.sqrt(x)",
    "lax.cbrt(x)", "lax.log(x)", "lax.tan(x)", "lax.atan(x)", "lax.asinh(x)",
    "lax.acos(x)", "lax.asin(x)", "lax.acosh(x + 1.0)", "lax.atanh(x * 0.5)",
    "lax.pow(x, 2.5)", "lax.square(x)", "lax.reciprocal(x)", "lax.expm1(x)", "lax.log1p(x)",
    "lax.exp2(x)", "lax.cos(x)", "lax.sin(x)", "lax.tanh(x)", "lax.logistic(x)",
    "lax.erfc(x)", "lax.igamma(2.0, x)", "lax.igammac(2.0, x)", "lax.bessel_i0e(x)",
    "lax.bessel_i1e(x)", "lax.clamp(-0.5, x, 0.5)",
    "lax.reduce_precision(x, 5, 10)", "lax.round(x)",
    "jnp.heaviside(x, 0.5)", "jnp.hypot(x, 0.5)", "jnp.hypot(x, x)",
    "jnp.fmax(x, x)", "jnp.maximum(x, 0.5)", "jnp.minimum(x, 0.5)", "jnp.copysign(x, -1.0)",
    "jnp.remainder(x, 0.3)", "jnp.floor_divide(x, 0.3)", "jnp.logaddexp(x, 0.1)",
    "jnp.arctan2(x, 0.4)", "jnp.power(x, 2.5)", "x % 0.3", "jnp.triu(x * jnp.ones((2, 2)))",
]
BINARY = [
    "jnp.add(x, y)", "jnp.subtract(x, y)", "jnp.multiply(x, y)", "jnp.divide(x, y)",
    "jnp.floor_divide(x, y)", "jnp.remainder(x, y)", "jnp.power(x, y)", "jnp.maximum(x, y)",
    "jnp.minimum(x, y)", "jnp.arctan2(x, y)", "jnp.hypot(x, y)", "jnp.logaddexp(x, y)",
    "jnp.copysign(x, y)", "jnp.fmax(x, y)", "jnp.fmin(x, y)", "jnp.heaviside(x, y)",
    "x + y", "x * y", "x - y", "x / y", "x ** y", "x % y", "lax.add(x, y)", "lax.max(x, y)",
    "lax.min(x, y)", "lax.rem(x, y)", "lax.pow(x, y)", "lax.atan2(x, y)",
    "jnp.where(x > y, x, y)", "lax.select(x > y, x, y)",
]


def table(jax):
    """[(expr, kind, case, dtype, weak_type)] for every expression and derivative."""
    jnp, lax, nn = jax.numpy, jax.lax, jax.nn
    env = {"jnp": jnp, "lax": lax, "nn": nn}
    a32 = jnp.array([X, 0.4], jnp.float32)
    b32 = jnp.array([Y, 0.6], jnp.float32)
    rows = []

    def describe(v):
        return [str(v.dtype), bool(v.weak_type)]

    def record(expr, kind, case, fn):
        try:
            out = fn()
            if not isinstance(out, (list, tuple)):
                out = (out,)
            rows.append([expr, kind, case, [describe(o) for o in out]])
        except Exception as e:  # noqa: BLE001 -- the error class is recorded and compared
            rows.append([expr, kind, case, "error " + type(e).__name__])

    def ct_like(o):
        return jax.tree_util.tree_map(jnp.ones_like, o)

    for expr in UNARY:
        f = eval("lambda x: " + expr, env)
        fs = eval("lambda x: jnp.sum(" + expr + ")", env)
        record(expr, "grad", "py", lambda: jax.grad(fs)(X))
        record(expr, "jvp", "py", lambda: jax.jvp(f, (X,), (0.5,))[1])
        record(expr, "vjp", "py", lambda: (lambda o, p: p(ct_like(o)))(*jax.vjp(f, X)))
    for expr in BINARY:
        f = eval("lambda x, y: " + expr, env)
        for case, (x, y) in [("py,py", (X, Y)), ("py,f32", (X, b32)), ("f32,py", (a32, Y))]:
            record(expr, "jvp", case, lambda: jax.jvp(f, (x, y), (
                jax.tree_util.tree_map(jnp.ones_like, x) if case != "py,py" else 0.5,
                jax.tree_util.tree_map(jnp.ones_like, y) if case != "py,py" else 0.5))[1])
            record(expr, "vjp", case, lambda: (lambda o, p: p(ct_like(o)))(*jax.vjp(f, x, y)))
        record(expr, "grad", "py,py", lambda: jax.grad(f, argnums=(0, 1))(X, Y))
    return rows


if __name__ == "__main__":
    import jax
    json.dump({"jax_version": jax.__version__, "rows": table(jax)}, sys.stdout, indent=0)
    sys.stdout.write("\n")
