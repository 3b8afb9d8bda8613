"""Cases of tests/test_fidelity_r30_lead.py, evaluated by JAX 0.10.2 (the recorder) and by
minijax: the transpose of `select_n` with an integer `which` (JAX's `eq(which, i)` per case, so
an out-of-range `which` sends the cotangent to no case); the conversions derivative rules make,
folded on a constant cotangent and forwarded when to the operand's own type (JAX's const-folding
and forwarding rules of `convert_element_type`); abs's complex JVP's order; split sizes as NumPy
integers; jnp.astype of complex values (to bool `x != 0`, to real its own warning, None the
default float dtype). Each is an expression over SETUP's names giving a JSON-able outcome.
"""

SETUP = """
lax = jax.lax
def jaxpr(f, *args):
    return str(jax.make_jaxpr(f)(*args))
def values(out):
    return [list(out.shape), str(out.dtype), np.asarray(out, np.float64).ravel().tolist()]
cx = jnp.array([complex(-0.0, -1.5), 0j, complex(0.5, 0), complex(np.inf, 0)], jnp.complex64)
def warned(thunk):
    import warnings
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = thunk()
    return [values(out), [[c.category.__name__, str(c.message)] for c in w]]
def sel3(w):
    return lambda x: lax.select_n(w, x, 2 * x, 3 * x)
ws = jnp.array([0, 2, 1, 5, -1], jnp.int32)
xs = jnp.array([1.0, 2.0, 3.0, 4.0, 5.0], jnp.float32)
"""

CASES = [
    f"values(jax.grad(sel3(jnp.int32({w})))(1.5))" for w in (0, 1, 2, 3, -1)
] + [
    f"values(jax.jit(jax.grad(sel3(jnp.int32({w}))))(1.5))" for w in (2, 3)
] + [
    "values(jax.grad(lambda x: lax.select_n(jnp.int32(1), x, 2 * x))(1.5))",
    "values(jax.grad(lambda x: lax.select_n(jnp.nansum(jnp.array([True, True, True])), x, x))(1.0))",
    "values(jax.vmap(jax.grad(lambda w, x: lax.select_n(w, x, 2 * x, 3 * x), 1))(ws, xs))",
    "values(jax.grad(lambda x: lax.select_n(ws, x, 2 * x, 3 * x).sum())(xs))",
    "values(jax.grad(lambda x: lax.select_n(ws > 0, x, 2 * x).sum())(xs))",
    "jaxpr(jax.grad(sel3(jnp.int32(3))), 1.5)",
    "jaxpr(jax.grad(lambda x: lax.select_n(ws, x, 2 * x, 3 * x).sum()), xs)",
    "jaxpr(jax.grad(lambda x: lax.select_n(ws > 0, x, 2 * x).sum()), xs)",
    "jaxpr(lambda w, x: jax.vjp(lambda x: lax.select_n(w, x, 1.0), x)[1](1.0), jnp.int32(0), 2.0)",
    # convert_element_type's derivative rules: a constant cotangent's conversion folded, a
    # conversion to the operand's own type forwarded
    "jaxpr(jax.grad(lambda b: (b + b).astype(jnp.float32)), 1.0)",
    "jaxpr(jax.grad(lambda b: jnp.power(jnp.int32(3), b).astype(jnp.float32)), 1.0)",
    "jaxpr(jax.grad(lambda b: (jnp.power(jnp.int32(3), b) + b).astype(jnp.float32)), 1.0)",
    "jaxpr(lambda b: jax.linearize(lambda b: jnp.power(jnp.int32(3), b).astype(jnp.float32), b)[1](1.0), 1.0)",
    "jaxpr(lambda b: jax.vjp(lambda b: jnp.power(jnp.int32(3), b).astype(jnp.float32), b)[1](jnp.float32(1.0)), 1.0)",
    "jaxpr(jax.grad(lambda x: jnp.sum(x.astype(jnp.bfloat16).astype(jnp.float32))), jnp.ones(3))",
    "jaxpr(jax.grad(lambda x: jnp.real(x * (1 + 2j))), 1.5)",
    # abs's JVP for complex inputs stages conj(x) before converting |x| (fft's gradient)
    "jaxpr(jax.grad(lambda v: jnp.sum(jnp.abs(jnp.fft.fft(v)))), jnp.array([0.5, -1.25, 2.0]))",
    "jaxpr(jax.grad(lambda v: jnp.abs(v * (1 + 1j))), 1.5)",
    # split sizes as NumPy integers, as JAX's jnp.split/array_split/glu pass them
    "jaxpr(lambda x: jnp.split(x, 3), jnp.arange(12.0))",
    "jaxpr(lambda x: jnp.split(x, [2, 5]), jnp.arange(12.0))",
    "jaxpr(lambda x: jnp.array_split(x, 5), jnp.arange(12.0))",
    "jaxpr(lambda x: jax.lax.split(x, [4, np.int32(8)]), jnp.arange(12.0))",
    "jaxpr(jax.grad(lambda v: jnp.sum(jax.nn.glu(v))), jnp.arange(6.0))",
    "jaxpr(jax.vmap(lambda r: jnp.split(r, 2)), jnp.ones((3, 4)))",
    # jnp.astype of complex values (run 35000 s35042-173: astype(bool) of -1.5j was False)
    "warned(lambda: cx.astype(jnp.bool_))",
    "warned(lambda: jnp.astype(cx, bool))",
    "warned(lambda: jax.jit(lambda v: v.astype(bool))(cx))",
    "warned(lambda: jax.vmap(lambda v: v.astype(bool))(cx))",
    "warned(lambda: cx.astype(jnp.int32))",
    "warned(lambda: cx.astype(jnp.float32))",
    "warned(lambda: jnp.astype(cx, None))",
    "warned(lambda: jnp.astype(jnp.arange(3), None))",
    "warned(lambda: cx.astype(jnp.complex64))",
    "warned(lambda: jax.lax.convert_element_type(cx, jnp.bool_))",
    "jaxpr(lambda v: v.astype(bool), cx)",
]
