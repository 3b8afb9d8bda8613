"""Cases of tests/test_fidelity_r30_d.py: the jaxpr structure of ``jax.scipy.special``'s
``expn``/``exp1``/``expi`` as JAX 0.10.2's (``expn`` a ``custom_jvp(nondiff_argnums=(0,))`` of
``jnp.vectorize`` of a jit named expn promoting an int order inside, its rule the jit
``expn_jvp``; ``expi`` a custom_jvp of the jit ``expi``, its rule ``expi_jvp``), their values
and gradients bit for bit, and the pieces of lax/custom_jvp their jaxprs showed: a traced
non-differentiated custom_jvp argument through ``stop_gradient``, a ``fori_loop`` bound of the
other's dtype not converted, a vmapped ``switch``'s per-branch predicate. Each is an expression
over SETUP's names giving a JSON-able outcome (a jaxpr's text or outline, or a value's shape,
dtype and bits in hex), evaluated by JAX 0.10.2 (the recorder) and by minijax. The branches of
expn's piecewise are left out of the outlines: there minijax's hang guards add equations
(docs/sharp_bits.md).
"""

SETUP = """
sp = jax.scipy.special
lax = jax.lax
def jaxpr(f, *args):
    return str(jax.make_jaxpr(f)(*args))
def _outline(j, skip, deep):
    out = []
    for e in j.eqns:
        name = e.params.get("name")
        head = e.primitive.name + (f"[{name}]" if isinstance(name, str) else "")
        out.append(head + "(" + ", ".join(v.aval.str_short(short_dtypes=True) for v in e.invars) + ")")
        if name in skip:
            continue
        keys = ("jaxpr", "call_jaxpr") + (("cond_jaxpr", "body_jaxpr", "branches") if deep else ())
        for k in keys:
            sub = e.params.get(k)
            for s in (sub if isinstance(sub, tuple) else [] if sub is None else [sub]):
                out.append(_outline(getattr(s, "jaxpr", s), skip, deep))
    return out
def outline(f, *args, skip=(), deep=False):
    # the equations' primitives, jit names and operand types, nested (the while loops' and
    # conds' bodies only if deep)
    return _outline(jax.make_jaxpr(f)(*args).jaxpr, skip, deep)
def bits(x):
    x = np.asarray(x)
    u = {2: np.uint16, 4: np.uint32, 8: np.uint64}[x.dtype.itemsize]
    return [list(x.shape), str(x.dtype), [format(int(b), 'x') for b in x.view(u).ravel()]]
X = np.array([1e-3, 0.1, 0.5, 0.9, 1.0, 1.1, 1.7, 2.5, 3.9, 7.0, 12.0, 33.0, 70.0], np.float32)
XN = np.concatenate([-X[::-1], X])
XS = np.array([0.0, np.inf, np.nan, -1.0, 80.0, 100.0], np.float32)
N = np.array([0, 1, 2, 3, 5, 10, 50], np.int32)
def _cj(n, x):
    return x * n
cj = jax.custom_jvp(_cj, nondiff_argnums=(0,))
cj.defjvp(lambda n, p, t: (cj(n, *p), t[0] * n))
A = np.array([0.5, 1.5, -2.0, 3.0, 0.25, 1.0], np.float32)
B = np.array([1.5, 2.0, 1.0, -1.0, 0.75, 2.0], np.float32)
C = np.array([2.5, 3.5, 4.0, 2.0, 2.0, 4.0], np.float32)
XH = np.array([0.3, -0.7, 0.95, 0.999, 1.0, 0.1], np.float32)
def expn_grid(dt):
    n = jnp.asarray(N)[:, None]
    return bits(sp.expn(n, jnp.asarray(X, dt)[None, :]))
"""

CASES = [
    # the structure: custom_jvp of vectorize of the jit expn, an int order promoted inside
    "outline(sp.exp1, 0.5)",
    "outline(sp.exp1, np.float32(0.5))",
    "outline(lambda x: sp.expn(3, x), np.float32(0.5))",
    "outline(lambda n, x: sp.expn(n, x), 3, np.float32(0.5))",
    "outline(sp.expi, np.float32(0.5))",
    "outline(sp.expi, np.float32(-0.5))",
    "outline(sp.exp1, jnp.ones(3), skip=('_piecewise',))",
    "outline(lambda n, x: sp.expn(n, x), jnp.asarray([1, 2]), jnp.ones(2), skip=('_piecewise',))",
    "outline(jax.grad(sp.exp1), np.float32(0.5))",
    "outline(jax.grad(lambda x: sp.expn(3, x)), np.float32(0.5))",
    "outline(jax.grad(sp.expi), np.float32(0.5))",
    "outline(jax.grad(sp.expi), np.float32(-0.5))",
    # the custom_jvp, fori_loop and switch pieces, whole jaxprs
    "jaxpr(cj, 2.0, 1.0)",
    "jaxpr(jax.grad(cj, 1), 2.0, 1.0)",
    "jaxpr(lambda n, x: lax.fori_loop(jnp.float32(1.0), n, lambda i, p: p + 1.0 / i, x), 3.0, 0.5)",
    "jaxpr(lambda n: lax.fori_loop(0, n, lambda i, p: p + i, 0), 3)",
    "jaxpr(jax.vmap(lambda i, x, k: lax.switch(i, [lambda x, k: x - k, lambda x, k: x * k], x, k)),"
    " jnp.asarray([0, 1]), jnp.ones(2), jnp.asarray([1, 2]))",
    "jaxpr(jax.vmap(lambda i, x: lax.switch(i, [jnp.sin, jnp.cos], x)), jnp.asarray([0, 1]), jnp.ones((2, 3)))",
    # hyp2f1: custom_jvp of the jit hyp2f1 of vectorize (promoting inside), JAX's loops
    "outline(sp.hyp2f1, *map(np.float32, (0.5, 1.5, 2.5, 0.3)), deep=True)",
    "outline(sp.hyp2f1, 1, 2, 3, 0.5, deep=True)",
    "outline(sp.hyp2f1, jnp.ones(2), *map(np.float32, (1.5, 2.5, 0.3)))",
    "outline(jax.grad(sp.hyp2f1, argnums=(0, 1, 2, 3)), *map(np.float32, (0.5, 1.5, 2.5, 0.3)), deep=True)",
    "bits(sp.hyp2f1(A, B, C, XH))",
    "bits(sp.hyp2f1(A[:, None], B[:, None], C[:, None], XH[None, :]))",
    "bits(jax.vmap(jax.grad(sp.hyp2f1, argnums=(0, 1, 2, 3)))(A, B, C, XH))",
    # values, bit for bit
    "bits(sp.exp1(X))",
    "bits(sp.exp1(XS))",
    "bits(sp.expi(XN))",
    "bits(sp.expi(XS))",
    "expn_grid(jnp.float32)",
    "expn_grid(jnp.float16)",
    "expn_grid(jnp.bfloat16)",
    "bits(sp.exp1(jnp.asarray(X, jnp.float16)))",
    "bits(sp.exp1(jnp.asarray(X, jnp.bfloat16)))",
    "bits(sp.expi(jnp.asarray(XN, jnp.bfloat16)))",
    "bits(sp.exp1(0.5))",
    "bits(sp.expn(2, 0.5))",
    "bits(jax.jit(sp.exp1)(X))",
    "bits(jax.vmap(jax.grad(sp.exp1))(X))",
    "bits(jax.vmap(jax.grad(sp.expi))(XN))",
    "bits(jax.vmap(jax.grad(lambda x: sp.expn(3, x)))(X))",
    "bits(jax.grad(lambda x: sp.expn(2, x).sum())(X))",
    "bits(jax.jacfwd(sp.exp1)(X[:4]))",
    "bits(jax.grad(jax.grad(sp.expi))(np.float32(0.7)))",
    "[str(jax.typeof(sp.exp1(1))), str(jax.typeof(sp.expn(2, 1))), str(jax.typeof(sp.expi(jnp.int32(2))))]",
]
