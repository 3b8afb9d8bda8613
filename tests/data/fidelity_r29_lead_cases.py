"""Cases of tests/test_fidelity_r29_lead.py: the jaxprs of jnp functions built on a custom_jvp
function, whose name JAX prints in the ``custom_jvp_call`` equation (``sinc``'s
``_sinc_maclaurin``, ``i0``'s ``_i0``), and their values and derivatives; where the results of
computations from host values land under ``set_mesh`` (on the mesh's devices, committed),
evaluated by JAX 0.10.2 (the recorder, with 8 virtual CPU devices) and by minijax. Each is an
expression over SETUP's names giving a JSON-able outcome.
"""

SETUP = """
def jaxpr(f, *args):
    return str(jax.make_jaxpr(f)(*args))
def values(out):
    return [list(out.shape), str(out.dtype), np.asarray(out, np.float64).ravel().tolist()]
xs = jnp.array([-2.5, -0.0, 0.0, 0.75, 3.0], jnp.float32)
lse_x = jnp.array([[0.5, -1.0, 2.0], [3.0, 0.25, -0.5]], jnp.float32)
lse_b = jnp.array([1.0, 0.5, 3.0], jnp.float32)
lse_w = jnp.array([True, False, True])
def placed(axis_type, thunk):
    mesh = jax.make_mesh((2,), ("x",), axis_types=(getattr(jax.sharding.AxisType, axis_type),))
    with jax.sharding.set_mesh(mesh):
        out = thunk()
        s = out.sharding
        return [out._committed, type(s).__name__, dict(s.mesh.shape) if hasattr(s, "mesh") else None,
                np.asarray(out, np.float64).ravel().tolist()]
"""

CASES = [
    "jaxpr(jnp.sinc, 1.0)",
    "jaxpr(jnp.i0, 1.0)",
    "jaxpr(jax.grad(jnp.i0), 1.0)",
    "values(jnp.sinc(xs))",
    "values(jax.vmap(jax.grad(jax.grad(jnp.sinc)))(xs))",
    "values(jnp.i0(xs))",
    "values(jax.vmap(jax.grad(jnp.i0))(xs))",
    # a Python float fill value staged unrounded, as JAX's lax.full
    "jaxpr(lambda: jnp.full((2,), 0.1))",
    "jaxpr(lambda x: jax.lax.full((2,), 0.1) * x, 1.0)",
    "jaxpr(lambda x: jnp.full_like(x, 0.1), jnp.ones(2))",
    "jaxpr(lambda x: jnp.full((2,), 0.1, jnp.float32) + x, 1.0)",
    "values(jnp.full((2,), 0.1) + jnp.ones(2, jnp.bfloat16))",
    "values(jax.grad(lambda x: (jnp.full((2,), 0.1) * x).sum())(2.0))",
    # the gradient of a jnp.where with a constant case: the zeros a residual of the known jit
    "jaxpr(jax.grad(lambda x: jnp.where(x > 0, x, 1.0)), 1.0)",
    "jaxpr(jax.grad(lambda x: jnp.clip(x, 0.1, 0.7)), 0.5)",
    "jaxpr(lambda x: jax.linearize(lambda x: jax.jit(lambda b, x: jax.lax.select(b, x, 1.0))"
    "(x > 0, x), x)[1](1.0), 1.0)",
] + [
    # logsumexp over the name of a vmapped axis (pmax and psum, as JAX's)
    f"values(jax.vmap(lambda r: {fn}(r, {kw}), axis_name='a')(lse_x))"
    for fn in ("jax.scipy.special.logsumexp", "jax.nn.logsumexp")
    for kw in ("axis='a'", "axis=(0, 'a')", "axis='a', keepdims=True", "axis='a', b=lse_b",
               "axis=('a',), where=lse_w")
] + [
    "[values(v) for v in jax.vmap(lambda r: jax.scipy.special.logsumexp(r, axis='a', "
    "return_sign=True), axis_name='a')(lse_x)]",
] + [
    f"placed({t!r}, lambda: {src})"
    for t in ("Explicit", "Auto")
    for src in ("jnp.zeros(3)", "jnp.ones((2, 2))", "jnp.arange(4.0)", "jnp.full((2,), 3.0)",
                "jnp.eye(2)", "jax.lax.iota(np.int32, 3)", "jax.lax.full((2,), 1.5)",
                "jnp.linspace(0.0, 1.0, 3)", "jnp.sin(np.ones(2, np.float32))",
                "jnp.array([1.0, 2.0]) * 2")
]
