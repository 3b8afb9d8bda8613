"""Cases of tests/test_fidelity_r18_n.py: ``jnp.linalg.det`` and its derivatives on singular,
near-singular, denormal, zero, batched and complex matrices (run 21000's s21025-444).

``inputs(np)`` names the matrices; ``program(jax, jnp)`` the transformations applied to each,
run as is under JAX (tests/data/record_fidelity_r18_n.py) and under minijax (the test).
"""


def inputs(np):
    rng = np.random.RandomState(1)

    def low_rank(n, k):
        return (rng.randn(n, k) @ rng.randn(k, n)).astype(np.float32)

    full = rng.randn(4, 4).astype(np.float32)
    return {
        # s21025-444: a denormal 1x1 (its determinant flushes to 0), a zero, a plain one
        "1x1": np.array([[[4.2e-45]], [[0.0]], [[-2.5]]], np.float32),
        # closed-form sizes, differentiated through the formula
        "2x2_singular": np.array([[1.0, 2.0], [2.0, 4.0]], np.float32),
        # LU sizes: rank n, n - 1, n - 2 and 0 in one batch
        "4x4_ranks": np.stack([full, low_rank(4, 3), low_rank(4, 2), np.zeros((4, 4), np.float32)]),
        "4x4_rank3": low_rank(4, 3),
        "4x4_complex_rank3": (low_rank(4, 3) + 1j * low_rank(4, 3)).astype(np.complex64),
    }


def program(jax, jnp):
    """det and its derivatives of one input, as one jit (one compile per input keeps the test
    fast; JAX's det is itself a jit, so eager calls lower the same rule)."""
    det = jnp.linalg.det

    def weighted(x):
        y = jnp.real(det(x))
        return jnp.sum(y * (1.0 + jnp.arange(y.size, dtype=y.dtype).reshape(y.shape)))

    def run(x):
        out = {"det": det(x), "value_and_grad": jax.value_and_grad(weighted)(x),
               "jvp": jax.jvp(det, (x,), (jnp.full_like(x, 0.7),)),
               "vmap_grad": jax.vmap(jax.grad(lambda m: jnp.real(det(m))))(
                   x.reshape((-1, *x.shape[-2:])))}
        if x.ndim == 2 and x.dtype != "complex64":
            # second order through JAX's rule (lu's and triangular_solve's JVPs)
            out["hessian"] = jax.hessian(weighted)(x)
        return out

    return jax.jit(run)


def describe(out, tree_leaves, np):
    """Per result, each leaf's dtype, shape and exact values (repr, so NaN and -0.0 compare),
    JSON-ready."""
    return {key: [[str(leaf.dtype), list(leaf.shape),
                   [repr(v) for v in np.asarray(leaf).ravel().tolist()]]
                  for leaf in tree_leaves(value)]
            for key, value in out.items()}
