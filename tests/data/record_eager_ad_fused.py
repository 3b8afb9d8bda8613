"""Records JAX's eager-AD values for tests/test_eager_ad_fused.py (FINDINGS 62).

    /work/venv_jax/bin/python tests/data/record_eager_ad_fused.py > tests/data/eager_ad_fused.json

Each case is a float32 computation under an eager ``grad``/``jvp``/``vmap``/``hessian`` whose
result rounds differently when the jnp function's derivative runs op by op instead of fused.
"""

import json

import jax
import jax.numpy as jnp
import numpy as np

SINC_X = [-0.0033149505]
I0_X = [0.39857155, -0.6465865, 0.06992284, 0.0, 9.5, -30.0]
SLOGDET_A = [[0.3455, -0.2183], [0.2779, -0.1759]]
STANDARDIZE_X = [[-0.5742907524108887], [-0.7229952216148376], [-0.34849730134010315]]


def f32(x):
    return np.asarray(x, np.float32).tolist()


def record():
    x = jnp.array(SINC_X, jnp.float32)
    total = lambda x: jnp.sinc(x).sum()  # noqa: E731
    grad0 = jnp.sinc
    derivs = []
    for _ in range(5):
        grad0 = jax.grad(grad0)
        derivs.append(float(grad0(0.0)))
    i = jnp.array(I0_X, jnp.float32)
    i_total = lambda x: jnp.i0(x).sum()  # noqa: E731
    a = jnp.array(SLOGDET_A, jnp.float32)
    s = jnp.array(STANDARDIZE_X, jnp.float32)
    return {
        "jax_version": jax.__version__,
        "sinc_grad": f32(jax.grad(total)(x)),
        "sinc_jvp": f32(jax.jvp(jnp.sinc, (x,), (jnp.ones_like(x),))[1]),
        "sinc_vmap_grad": f32(jax.vmap(jax.grad(jnp.sinc))(x)),
        "sinc_hessian": f32(jax.hessian(total)(x)),
        "sinc_jit_hessian": f32(jax.jit(jax.hessian(total))(x)),
        "sinc_grad_grad": f32(jax.grad(lambda x: jax.grad(total)(x).sum())(x)),
        "sinc_derivs_at_0": derivs,
        "i0": f32(jnp.i0(i)),
        "i0_grad": f32(jax.grad(i_total)(i)),
        "i0_vmap_grad": f32(jax.vmap(jax.grad(jnp.i0))(i)),
        "i0_hessian_diag": f32(jnp.diag(jax.hessian(i_total)(i))),
        "i0_f16_grad": np.asarray(jax.grad(
            lambda h: jnp.logaddexp(jnp.i0(h), 0.5).sum())(i.astype(jnp.float16)),
            np.float32).tolist(),
        "slogdet_grad": f32(jax.grad(lambda a: jnp.linalg.slogdet(a)[1])(a)),
        "standardize_grad": f32(jax.grad(
            lambda x: jax.nn.standardize(jnp.cosh(x), axis=0).sum())(s)),
        "log_softmax_grad": f32(jax.grad(
            lambda x: (jax.nn.log_softmax(jnp.cosh(x), axis=0) * x).sum())(s)),
    }


if __name__ == "__main__":
    print(json.dumps(record(), indent=1))
