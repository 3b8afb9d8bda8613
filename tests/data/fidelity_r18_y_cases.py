"""Cases for tests/test_fidelity_r18_y.py: weak types of cotangents through dot_general-based
products (JAX hands dot_general its operands unpromoted), jnp.diagonal's platform_dependent
switch and pad's transpose, with their neighbours. ``make`` builds them over either framework;
weakly typed inputs come from ``lax.broadcast`` of a Python scalar."""
import numpy as np


def make(jax, jnp, lax):
    w = lax.broadcast(2.0, (3, 3))
    s = jnp.arange(9.0, dtype=jnp.float32).reshape(3, 3)
    wv, sv = lax.broadcast(1.5, (3,)), jnp.arange(3.0, dtype=jnp.float32)
    si = jnp.ones((3, 3), jnp.int32)
    w0, s0 = lax.broadcast(2.0, ()), jnp.float32(3.0)
    w4 = lax.broadcast(2.0, (2, 3, 3))

    def g(f, x):
        return jax.grad(lambda x: jnp.sum(f(x)).real)(x)

    bad = jnp.array([[1., np.inf, np.nan], [2., 3., -np.inf], [0., -0., 4.]], jnp.float32)
    return {
        "matmul ws": lambda: g(lambda x: x @ s, w),
        "matmul sw": lambda: g(lambda x: s @ x, w),
        "matmul ww": lambda: g(lambda x: x @ w, w),
        "matmul fwd ws": lambda: w @ s,
        "matmul fwd w int": lambda: w @ si,
        "matmul grad w int": lambda: g(lambda x: x @ si, w),
        "matmul fwd ww pref": lambda: jnp.matmul(w, w, preferred_element_type=jnp.float32),
        "matmul vec ws": lambda: g(lambda x: x @ s, wv),
        "matmul batch": lambda: g(lambda x: x @ s, w4),
        "dot ws": lambda: g(lambda x: jnp.dot(x, s), w),
        "dot scalar ws": lambda: g(lambda x: jnp.dot(x, s), w0),
        "dot scalar sw": lambda: g(lambda x: jnp.dot(s0, x), w),
        "dot pref": lambda: jnp.dot(w, w, preferred_element_type=jnp.float32),
        "vdot ws": lambda: g(lambda x: jnp.vdot(x, s), w),
        "vdot complex": lambda: jnp.vdot(s + 1j * s, w),
        "inner ws": lambda: g(lambda x: jnp.inner(x, s), w),
        "inner scalar": lambda: g(lambda x: jnp.inner(x, s), w0),
        "tensordot ws": lambda: g(lambda x: jnp.tensordot(x, s), w),
        "tensordot fwd int": lambda: jnp.tensordot(w, si),
        "einsum ws": lambda: g(lambda x: jnp.einsum("ij,jk->ik", x, s), w),
        "einsum outer": lambda: g(lambda x: jnp.einsum("i,j->ij", x, sv), wv),
        "einsum int": lambda: g(lambda x: jnp.einsum("ij,jk->ik", x, si), w),
        "matvec ws": lambda: g(lambda x: jnp.matvec(x, sv), w),
        "vecdot ws": lambda: g(lambda x: jnp.vecdot(x, s), w),
        "vjp matmul weak ct": lambda: jax.vjp(lambda x: x @ s, w)[1](lax.broadcast(1.0, (3, 3)))[0],
        "diag fwd w": lambda: jnp.diagonal(w),
        "diag grad w": lambda: g(jnp.diagonal, w),
        "diag off1 grad w": lambda: g(lambda x: jnp.diagonal(x, 1), w),
        "diag 3d grad w": lambda: g(jnp.diagonal, w4),
        "diag jit vals bad": lambda: jax.jit(jnp.diagonal)(bad),
        "diag grad bad": lambda: g(jnp.diagonal, bad),
        "diag int": lambda: jnp.diagonal(lax.broadcast(2, (3, 3))),
        "diag bool": lambda: jnp.diagonal(si > 0),
        "diag complex grad": lambda: g(jnp.diagonal, w.astype(jnp.complex64)),
        "diag empty grad": lambda: g(jnp.diagonal, lax.broadcast(1.0, (0, 0))),
        "diag vjp weak ct": lambda: jax.vjp(jnp.diagonal, w)[1](lax.broadcast(1.0, (3,)))[0],
        "diag jvp": lambda: jax.jvp(jnp.diagonal, (w,), (w,))[1],
        "diag jacfwd": lambda: jax.jacfwd(jnp.diagonal)(w),
        "diag vmap grad": lambda: jax.vmap(lambda x: g(jnp.diagonal, x))(w4),
        "jnp.diag of a vector grad": lambda: g(jnp.diag, wv),
        "linalg.diagonal grad": lambda: g(jnp.linalg.diagonal, w),
        "trace grad": lambda: g(jnp.trace, w),
        "pad grad": lambda: g(lambda x: lax.pad(x, 0.0, ((1, 2, 1),)), wv),
        "pad vjp weak ct": lambda: jax.vjp(lambda x: lax.pad(x, 0.0, ((0, 0, 0),)), wv)[1](wv)[0],
    }


def describe(jax, r):
    t = jax.typeof(r)
    return [str(t.dtype), bool(t.weak_type), list(t.shape), repr(np.asarray(r).tolist())]
