"""Cases of tests/test_fidelity_r31_l.py: the printed jaxprs of grad (and vmap of grad) through
jnp.pad and jnp.cumprod, whose linearized jits return the zero padding tangents as residuals
(JAX's `0.0:f32[]` outputs of the known jit); through jnp.linalg.solve, inv and slogdet (JAX's
custom_linear_solve with a jitted `_lu_solve`, vmapped over b's columns), vmap of convolve
(squeeze's batching), qr's full tall JVP and cumlogsumexp (its scan combines with jnp's logaddexp,
a custom_jvp function); solve's shape errors and jnp.vectorize's others (JAX's words); with a
few of their values, evaluated by JAX 0.10.2 (the recorder) and by minijax. Each is an
expression over SETUP's names giving a JSON-able outcome.
"""

SETUP = """
x = jnp.array([0.5, -1.25, 2.0], jnp.float32)
A = jnp.array([[2.0, 0.5, -0.3], [0.1, 3.0, 0.7], [-0.4, 0.2, 1.5]], jnp.float32)
B = jnp.stack([A, A.T + jnp.eye(3)])
T = jnp.array([[2.0, 0.5], [0.1, 3.0], [-0.4, 0.2]], jnp.float32)
def gjaxpr(f, a):
    return str(jax.make_jaxpr(jax.grad(f))(a))
def err(f, *a):
    try:
        f(*a)
    except Exception as e:
        return [type(e).__name__, str(e)]
    return "no error"
m = jnp.array([[0.5, -1.25, 2.0], [1.0, 3.0, -0.5]], jnp.float32)
def jaxprs(f):
    return [str(jax.make_jaxpr(jax.grad(f))(x)), str(jax.make_jaxpr(jax.vmap(jax.grad(f)))(m))]
F = {
    "pad": lambda v: jnp.sum(jnp.pad(v, 1) ** 2),
    "pad_const": lambda v: jnp.sum(jnp.pad(v, (2, 1), constant_values=1.5) * v[0]),
    "cumprod": lambda v: jnp.sum(jnp.cumprod(v, axis=0)),
    "solve": lambda v: jnp.sum(jnp.linalg.solve(jnp.outer(v, v) + 3 * jnp.eye(3), v)),
    "inv": lambda v: jnp.sum(jnp.linalg.inv(jnp.outer(v, v) + 3 * jnp.eye(3))),
    "slogdet": lambda v: jnp.linalg.slogdet(jnp.outer(v, v) + jnp.eye(3))[1],
    "convolve": lambda v: jnp.sum(jnp.convolve(v, v)),
    "cumlogsumexp": lambda v: jnp.sum(jax.lax.cumlogsumexp(v)),
    "cumlogsumexp_rev": lambda v: jnp.sum(jax.lax.cumlogsumexp(v, reverse=True) * v),
}
def cvals():
    z = jnp.array([0.5 + 1j, -1.25, 2.0 - 0.5j], jnp.complex64)
    w = jnp.array([1.0, jnp.inf, 3.0, -jnp.inf], jnp.float32)
    out = [[round(float(u), 4) for u in jax.grad(F[k])(x)]
           for k in ("cumlogsumexp", "cumlogsumexp_rev")]
    out.append([round(float(u), 4) for u in jax.grad(lambda v: jnp.sum(jax.lax.cumlogsumexp(v)))(w)])
    out.append([round(float(u), 4) for u in jax.hessian(lambda v: jnp.sum(jax.lax.cumlogsumexp(v)))(x).ravel()])
    g = jax.grad(lambda v: jnp.sum(jax.lax.cumlogsumexp(v)).real)(z)
    out.append([[round(float(u.real), 4), round(float(u.imag), 4)] for u in g])
    return out
XPF = (jnp.array([0., 1., 2.]), jnp.array([1., 3., 2.]))
def svals():
    a = jnp.array([-1.0, -0.0, 0.0, 1.0, jnp.nan], jnp.float32)
    q = jnp.array([-0.0, 0.0, jnp.nan, 0.5, -jnp.inf, 1.0], jnp.float32)
    ac = jnp.array([1 + 1j, 1 + 2j, 2 - 1j], jnp.complex64)
    qc = jnp.array([1 + 1.5j, 2 - 1j, 0j, 2 + 0j], jnp.complex64)
    return [[jnp.searchsorted(a, q, side=s, method=k).tolist(),
             jnp.searchsorted(ac, qc, side=s, method=k).tolist()]
            for s in ("left", "right") for k in ("scan", "scan_unrolled")] + [
        jnp.searchsorted(jnp.array([False, True]), jnp.array([True, False])).tolist(),
        [repr(round(float(v), 4)) for v in jnp.interp(q, *XPF, period=1.5)]]  # nan as 'nan'
def lvals():
    return [round(float(v), 4) for v in [
        jax.grad(lambda a: jnp.sum(jnp.linalg.solve(a, x) ** 2))(A).sum(),
        jax.grad(lambda a: jnp.sum(jnp.linalg.inv(a) ** 3))(B).sum(),
        jax.grad(lambda a: jnp.sum(jnp.linalg.solve(a, T) ** 2))(A).sum(),
        jax.grad(lambda b: jnp.sum(jnp.linalg.solve(B, b) ** 2))(T).sum(),
        jax.grad(lambda a: jnp.sum(jnp.linalg.slogdet(a)[1]))(B).sum(),
        jax.grad(lambda a: jnp.sum(jnp.linalg.qr(a, mode="complete")[0] ** 3))(T).sum(),
        jax.hessian(lambda a: jnp.sum(jnp.linalg.inv(a)))(A).sum(),
        jnp.linalg.solve(B, T).sum(), jnp.linalg.inv(B).sum()]]
def vals():
    return [[round(float(u), 4) for u in jax.grad(f)(x)] for f in F.values()]
"""

CASES = [f"jaxprs(F[{k!r}])" for k in ("pad", "pad_const", "cumprod", "solve", "inv", "slogdet",
                                         "convolve", "cumlogsumexp", "cumlogsumexp_rev")] + [
    "str(jax.make_jaxpr(jnp.linalg.solve)(A, x))",
    "str(jax.make_jaxpr(jnp.linalg.solve)(A, T))",
    "str(jax.make_jaxpr(jnp.linalg.solve)(B, T))",
    "str(jax.make_jaxpr(jnp.linalg.inv)(B))",
    "gjaxpr(lambda a: jnp.sum(jnp.linalg.solve(a, T)), A)",
    "gjaxpr(lambda a: jnp.sum(jnp.linalg.inv(a)), B)",
    "gjaxpr(lambda a: jnp.sum(jnp.linalg.qr(a, mode='complete')[0]), T)",
    "gjaxpr(lambda a: jnp.sum(jnp.linalg.qr(a, mode='complete')[1]), T)",
    "str(jax.make_jaxpr(jax.vmap(lambda u, v: jnp.linalg.solve(A, u)[0] * v[0]))(m, m))",
    "err(jnp.linalg.solve, jnp.ones((3, 3)), jnp.ones(4))",
    "err(jnp.linalg.solve, jnp.ones((2, 3, 3)), jnp.ones((4, 2)))",
    "err(jnp.linalg.solve, jnp.ones((3, 3)), jnp.ones((2, 3)))",
    "err(jnp.vectorize(lambda a, b: a, signature='(n),(n)->()'), jnp.ones(3), jnp.ones(2))",
    "err(jnp.vectorize(lambda a: a, signature='(n,n)->()'), jnp.ones(3))",
    "err(jnp.vectorize(lambda a, b: a, signature='(n)->()'), jnp.ones(3), jnp.ones(2))",
    "err(jnp.vectorize(lambda a: (a, a), signature='(n)->()'), m)",
    "err(jnp.vectorize(lambda a: a, signature='(n)->()'), m)",
    "err(jnp.vectorize(lambda a: a[:2], signature='(n)->(n)'), m)",
    "err(jnp.vectorize(lambda a: a[:2], signature='(n)->(n)'), x)",
    "err(jnp.vectorize(lambda a: a.sum(), signature='(n)->(),()'), m)[0]",
    "str(jax.make_jaxpr(lambda v: jnp.searchsorted(jnp.array([0., 1., 2.]), v))(x))",
    "str(jax.make_jaxpr(lambda v: jnp.searchsorted(x, v, side='right'))(m))",
    "str(jax.make_jaxpr(lambda v: jnp.searchsorted(v.astype(jnp.complex64), v[0]))(x))",
    "str(jax.make_jaxpr(lambda v: jnp.interp(v, jnp.array([0., 1., 2.]), XPF[1]))(x))",
    "str(jax.make_jaxpr(lambda v: jnp.interp(v, x, x, period=2.0))(x))",
    "svals()",
    "lvals()",
    "cvals()",
    "str(jax.make_jaxpr(jax.grad(lambda v: jnp.sum(jax.jit(lambda u: jnp.pad(u, 1))(v) ** 3)))(x))",
    "vals()",
]
