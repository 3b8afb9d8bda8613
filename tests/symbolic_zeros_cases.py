"""custom_jvp/custom_vjp with symbolic_zeros=True: scenarios run on real JAX by
tests/data/record_symbolic_zeros.py (the recorded outcomes are in
tests/data/symbolic_zeros_jax.json) and on minijax by tests/test_extend.py.

Each scenario returns a JSON-able dict: what the rules saw (which tangents/cotangents were
symbolic zeros, which primals were perturbed) and the numbers the transformations produced.
"""

import numpy as np


def _sorted_unique(seen):
    return sorted({tuple(s) for s in seen})


def custom_jvp_case(jax):
    jnp = jax.numpy
    SymbolicZero = jax.custom_derivatives.SymbolicZero
    seen = []

    @jax.custom_jvp
    def f(x, y):
        return jnp.sin(x) * y, x * 2.0

    def f_jvp(primals, tangents):
        x, y = primals
        tx, ty = tangents
        seen.append([type(tx) is SymbolicZero, type(ty) is SymbolicZero])
        out = f(x, y)
        t0 = 0.0
        if type(tx) is not SymbolicZero:
            t0 = t0 + jnp.cos(x) * tx * y
        if type(ty) is not SymbolicZero:
            t0 = t0 + jnp.sin(x) * ty
        # The second output does not depend on y: a symbolic zero unless x is perturbed.
        t1 = tx * 2.0 if type(tx) is not SymbolicZero else SymbolicZero.from_primal_value(out[1])
        if isinstance(t0, float):
            t0 = SymbolicZero.from_primal_value(out[0])
        return out, (t0, t1)

    f.defjvp(f_jvp, symbolic_zeros=True)

    x = np.array([0.5, 1.0, 2.0], np.float32)
    y = np.array([1.5, -1.0, 0.25], np.float32)
    out = {}
    _, tangents = jax.jvp(lambda y: f(x, y), (y,), (np.ones_like(y),))
    out["jvp_y"] = [np.asarray(t).tolist() for t in tangents]
    out["grad_x"] = np.asarray(jax.grad(lambda x: f(x, y)[0].sum())(x)).tolist()
    out["grad_y"] = np.asarray(jax.grad(lambda y: f(x, y)[0].sum())(y)).tolist()
    out["jit_grad_xy"] = [np.asarray(g).tolist() for g in jax.jit(jax.grad(
        lambda x, y: (f(x, y)[0] + f(x, y)[1]).sum(), argnums=(0, 1)))(x, y)]
    out["vmap_grad_y"] = np.asarray(jax.vmap(jax.grad(lambda y, x: f(x, y)[0].sum()),
                                             in_axes=(0, None))(np.stack([y, 2 * y]), x)).tolist()
    out["seen"] = _sorted_unique(seen)
    return out


def custom_vjp_case(jax):
    jnp = jax.numpy
    cd = jax.custom_derivatives
    seen_fwd, seen_bwd = [], []

    @jax.custom_vjp
    def g(x, y):
        return x * y, jnp.sin(x)

    def g_fwd(x, y):
        seen_fwd.append([type(x) is cd.CustomVJPPrimal, bool(x.perturbed), bool(y.perturbed)])
        xv, yv = cd.custom_vjp_primal_tree_values((x, y))
        return g(xv, yv), (xv, yv)

    def g_bwd(res, cts):
        xv, yv = res
        c0, c1 = cts
        seen_bwd.append([type(c0) is cd.SymbolicZero, type(c1) is cd.SymbolicZero])
        gx = jnp.zeros_like(xv)
        gy = cd.SymbolicZero(jax.core.ShapedArray(yv.shape, yv.dtype))
        if type(c0) is not cd.SymbolicZero:
            gx = gx + c0 * yv
            gy = c0 * xv
        if type(c1) is not cd.SymbolicZero:
            gx = gx + c1 * jnp.cos(xv)
        return gx, gy

    g.defvjp(g_fwd, g_bwd, symbolic_zeros=True)
    x = np.array([0.5, 1.0, 2.0], np.float32)
    y = np.array([1.5, -1.0, 0.25], np.float32)
    out = {}
    out["grad_x_first"] = np.asarray(jax.grad(lambda x: g(x, y)[0].sum())(x)).tolist()
    out["grad_x_second"] = np.asarray(jax.grad(lambda x: g(x, y)[1].sum())(x)).tolist()
    out["grad_y_second"] = np.asarray(jax.grad(lambda y: g(x, y)[1].sum())(y)).tolist()
    out["jit_grad_both"] = [np.asarray(a).tolist() for a in jax.jit(jax.grad(
        lambda x, y: (g(x, y)[0] * g(x, y)[1]).sum(), argnums=(0, 1)))(x, y)]
    grad_second = jax.grad(lambda x, y: g(x, y)[1].sum())
    out["vmap_grad_x_second"] = np.asarray(
        jax.vmap(grad_second, in_axes=(0, None))(np.stack([x, -x]), y)).tolist()
    out["seen_fwd"] = _sorted_unique(seen_fwd)
    out["seen_bwd"] = _sorted_unique(seen_bwd)
    return out


def zero_from_primal_case(jax):
    cd = jax.custom_derivatives
    tree = {"a": np.ones(2, np.float32), "b": np.int32(3)}
    sym = cd.zero_from_primal(tree, symbolic_zeros=True)
    dense = cd.zero_from_primal(tree)
    return {
        "sym_types": [type(sym["a"]).__name__, type(sym["b"]).__name__],
        "sym_avals": [[list(z.aval.shape), str(z.aval.dtype)] for z in (sym["a"], sym["b"])],
        "sym_shape_dtype": [list(sym["a"].shape), str(sym["a"].dtype)],
        "dense": [np.asarray(dense["a"]).tolist(), str(np.asarray(dense["b"]).dtype)],
        "repr": repr(sym["a"]),
    }


CASES = {"custom_jvp": custom_jvp_case, "custom_vjp": custom_vjp_case,
         "zero_from_primal": zero_from_primal_case}
