"""Cases of tests/test_fidelity_r29_c.py: Python float constants staged unrounded as JAX 0.10.2
stages them (a weakly typed Python float or complex meeting a value of its own default dtype
stays the Python value in the jaxpr: ``add 0.5772156649015329:f32[] x``, ``lax.add(x, 0.1)``,
a jit's argument, ``lax._const`` of a weak scalar, a JVP's literal), which the jaxprs of
``sici``/``spence``/``fresnel`` and their gradients showed, and ``sph_harm_y``'s values bit for
bit (JAX's rounding order in the Legendre recurrence), with ``gammainc``/``gammaincc`` values
and gradients. Each is an expression over SETUP's names giving a JSON-able outcome: a jaxpr's
text, or a value's shape, dtype and bits (hex), evaluated by JAX 0.10.2 (the recorder) and by
minijax.
"""

SETUP = """
sp = jax.scipy.special
def jaxpr(f, *args):
    return str(jax.make_jaxpr(f)(*args))
def bits(x):
    x = np.asarray(x)
    u = {2: np.uint16, 4: np.uint32, 8: np.uint64}[x.dtype.itemsize // (2 if x.dtype.kind == 'c' else 1)]
    return [list(x.shape), str(x.dtype), [format(int(b), 'x') for b in x.view(u).ravel()]]
def sph_grid(dt):
    ns, ms = [], []
    for n in range(0, 7):
        for m in range(-n, n + 1):
            ns.append(n); ms.append(m)
    out = []
    for t in np.linspace(0, np.pi, 7).astype(dt):
        for p in np.linspace(0, 2 * np.pi, 4).astype(dt):
            k = len(ns)
            out.append(sp.sph_harm_y(jnp.array(ns), jnp.array(ms), jnp.full(k, t, dt),
                                     jnp.full(k, p, dt), n_max=6))
    return bits(jnp.stack(out))
A = np.array([0.1, 0.5, 1.0, 1.5, 3.7, 7.0, 30.0, 1e-3], np.float32)
X = np.array([1e-5, 0.1, 1.0, 1.5, 2.0, 3.7, 12.0, 100.0], np.float32)
"""

CASES = [
    # Python floats meeting weak values: the literal keeps the Python value
    "jaxpr(lambda x: np.euler_gamma + jnp.log(x), 1.0)",
    "jaxpr(lambda x: np.euler_gamma + jnp.log(x), np.float32(1.0))",
    "jaxpr(lambda x: jax.lax.add(x, 0.1), 1.0)",
    "jaxpr(lambda x: jax.lax.add(x, 0.1), np.float32(1.0))",
    "jaxpr(lambda x: jax.lax.mul(x, 0.1 + 0.2j), np.complex64(1.0))",
    "jaxpr(lambda x: jnp.where(x > 0, np.pi / 2, x), np.float32(1.0))",
    "jaxpr(jax.jit(lambda x: np.euler_gamma + jnp.log(x)), 1.0)",
    "jaxpr(jax.grad(lambda x: x * 0.1), 1.0)",
    "jaxpr(lambda x: jnp.sinc(x / np.pi), 1.5)",
    # the special functions whose jaxprs printed rounded constants
    "jaxpr(sp.sici, 1.0)",
    "jaxpr(sp.sici, np.float32(1.0))",
    "jaxpr(sp.spence, 1.0)",
    "jaxpr(sp.spence, np.float32(0.3))",
    "jaxpr(jax.grad(lambda x: sp.sici(x)[0]), 1.5)",
    "jaxpr(jax.grad(lambda x: sp.sici(x)[1]), 1.5)",
    "jaxpr(jax.grad(lambda x: sp.fresnel(x)[0]), 1.5)",
    "jaxpr(jax.grad(lambda x: sp.fresnel(x)[1]), 1.5)",
    # values
    "bits(sp.sici(jnp.linspace(-20.0, 20.0, 41)))",
    "bits(sp.spence(jnp.linspace(0.0, 5.0, 21)))",
    "bits(jax.vmap(jax.grad(lambda x: sp.sici(x)[0]))(jnp.linspace(0.5, 20.0, 9)))",
    # sph_harm_y: JAX's order of rounding in the Legendre recurrence and P_m^m
    "sph_grid(np.float32)",
    "bits(sp.sph_harm_y(jnp.array([3, 5, 8]), jnp.array([1, -2, 8]), "
    "jnp.array([0.3, 1.1, 2.9], np.float32), jnp.array([0.7, 2.0, 5.5], np.float32)))",
    # gammainc/gammaincc, values and gradients
    "bits(sp.gammainc(A[:, None], X[None, :]))",
    "bits(sp.gammaincc(A[:, None], X[None, :]))",
    "bits(jax.vmap(jax.grad(sp.gammainc, 0))(A, X))",
    "bits(jax.vmap(jax.grad(sp.gammainc, 1))(A, X))",
    "bits(jax.vmap(jax.grad(sp.gammaincc, 0))(A, X))",
    "bits(jax.vmap(jax.grad(sp.gammaincc, 1))(A, X))",
]
