"""Cases of tests/test_fidelity_r19_h.py: JAX 0.10.2 public names added in run 23000.

Each case is a source string over ``jax``, ``jnp``, ``np`` and SETUP's names, evaluated as is
under JAX (tests/data/record_fidelity_r19_h.py) and under minijax (the test); ``Q`` is each
one's block quantization (JAX's ``jax._src.cudnn.scaled_matmul_stablehlo.quantize``)."""
import numpy as np

SETUP = """\
A = jnp.array([0.5, 1.0, 2.0, 7.5])
L = jnp.asarray(np.random.default_rng(0).normal(size=(2, 8, 64)).astype(np.float32) * 3)
R = jnp.asarray(np.random.default_rng(1).normal(size=(2, 4, 64)).astype(np.float32))
LS, RS = L[:, :, :2], R[:, :, :2]
DN = (((2,), (2,)), ((0,), (0,)))
MX = jax.nn.get_scaled_dot_general_config('mxfp8')
NV = jax.nn.get_scaled_dot_general_config('nvfp4', jnp.array([0.5], jnp.float32))
SDG = lambda *a, **k: str(jax.eval_shape(lambda l, r: jax.nn.scaled_dot_general(l, r, *a, **k),
                                         L, R))
"""

CASES = [
    # random.random_gamma_p: JAX's primitive, bound on typed keys (as random.gamma binds it)
    "jax.random.random_gamma_p.name",
    "jax.random.random_gamma_p.bind(jax.random.key(0), A, log_space=False)",
    "jax.random.random_gamma_p.bind(jax.random.split(jax.random.key(1), 4), A, log_space=True)",
    "jax.vmap(lambda k: jax.random.random_gamma_p.bind(k, A, log_space=False))("
    "jax.random.split(jax.random.key(3), 2))",
    "jax.grad(lambda a: jax.random.random_gamma_p.bind(jax.random.key(4), a, "
    "log_space=False).sum())(A)",
    "jax.random.random_gamma_p.multiple_results",
    # nn.scaled_matmul: JAX 0.10.2 lowers it for CUDA/ROCm only; on the CPU it traces, and
    # compiling it is refused
    "jax.nn.scaled_matmul(L, R, LS, RS)",
    "jax.jit(jax.nn.scaled_matmul)(L, R, LS, RS)",
    "str(jax.eval_shape(jax.nn.scaled_matmul, L, R, LS, RS))",
    "str(jax.eval_shape(lambda *a: jax.nn.scaled_matmul(*a, jnp.bfloat16), L, R, LS, RS))",
    "str(jax.eval_shape(jax.vmap(jax.nn.scaled_matmul), L[None], R[None], LS[None], RS[None]))",
    "jax.nn.scaled_matmul(L[0], R, LS, RS)",
    "jax.nn.scaled_matmul(L, R[:, :, :32], LS, RS)",
    "jax.nn.scaled_matmul(L, R, LS, R[:, :, :4])",
    "jax.nn.scaled_matmul(L, R, LS[:, :4], RS)",
    "jax.grad(lambda a: jax.nn.scaled_matmul(a, R, LS, RS).sum())(L)",
    # nn.get_scaled_dot_general_config and the quantization scaled_dot_general applies
    "repr(MX)", "repr(jax.nn.get_scaled_dot_general_config('nvfp4'))",
    "jax.nn.get_scaled_dot_general_config('fp8')",
    "Q(L[:1, :2], MX)", "Q(R[:1, :1], MX)", "Q(L[1:, :2], NV)", "Q(L[:1, :1] * 1e-30, MX)",
    "Q(L[:1, :1], MX)[0].view(jnp.uint8)", "Q(L[:1, :1] / 3, NV)[1].view(jnp.uint8)",
    # nn.scaled_dot_general: plain dot_general without configs; else traced, shaped and
    # refused (on the CPU) as JAX's
    "jax.nn.scaled_dot_general(L, R, DN)",
    "jax.nn.scaled_dot_general(L.astype(jnp.bfloat16), R.astype(jnp.bfloat16), DN)",
    "jax.nn.scaled_dot_general(L, R, DN, preferred_element_type=None)",
    "jax.jit(lambda l, r: jax.nn.scaled_dot_general(l, r, DN, configs=[MX] * 3))(L, R)",
    "jax.nn.scaled_dot_general(L, R, DN, preferred_element_type=jnp.int32, configs=[MX] * 3)",
    "SDG(DN, configs=[MX] * 3)", "SDG(DN, configs=[NV] * 3)",
    "SDG((((2,), (2,)), ((), ())), configs=[MX] * 3)",
    "SDG(([[2], [2]], [[0], [0]]), configs=[NV] * 3)",
    "SDG(DN, preferred_element_type=jnp.bfloat16, configs=[NV] * 3)",
    "SDG(DN, preferred_element_type=None, configs=[MX] * 3)",
    "str(jax.eval_shape(lambda l, r: jax.nn.scaled_dot_general(l, r, DN, configs=[MX] * 3), "
    "L[:, :, :16], R[:, :, :16]))",
    "str(jax.eval_shape(jax.grad(lambda l, r: jax.nn.scaled_dot_general(l, r, DN, configs=[NV] "
    "* 3).sum(), argnums=(0, 1)), L, R))",
    "str(jax.eval_shape(jax.grad(lambda l, r: jax.nn.scaled_dot_general(l, r, (((2,), (2,)), "
    "((), ())), configs=[MX] * 3).sum(), argnums=(0, 1)), L, R))",
]


def describe(x, tree_leaves):
    """Each leaf's dtype, shape and value, JSON-ready (a bool or str as itself)."""
    out = []
    for leaf in tree_leaves(x):
        if isinstance(leaf, (bool, str)):
            out.append(leaf)
            continue
        value = np.asarray(leaf)
        out.append([str(value.dtype), list(value.shape), value.astype(np.float64).tolist()])
    return out
