"""Cases of tests/test_fidelity_r31_k.py, evaluated by JAX 0.10.2 (the recorder) and by minijax.

(1) Weak types of linearized tangents: JAX linearizes a call of a jnp function it jits with
``inline=True`` (``+``, ``jnp.add``, ``sin``, ``where``...) by tracing the call's tangent jaxpr at
its primals' types and inlining it with those types kept, so the tangent ``add`` of a strong
tangent (``jnp.power(jnp.int32(3), b)``'s, converted to strong by pow's rule) and a weak one
(``b``'s) is weak, and a later ``astype``'s transpose converts the cotangent to weak: the
gradient is ``~float32`` (weak). Gradients, vjps, jvps, linearizations, hessians and the
jaxprs (their equations' result weak types too) of mixed weak/strong programs. A jnp function JAX
does not jit (``stack``, ``concatenate``) promotes with a no-op conversion that JAX binds on an
eager tracer, so there an eager gradient's tangent is retyped weak, under jit not.

(2) Second derivatives of ``scipy.special.exp1``/``expn`` (whose JVP rule calls ``expn`` on its
traced order inside the jitted ``expn_jvp``): JAX 0.10.2 raises TypeError ("No constant handler
for type: ...DynamicJaxprTracer"), recorded by class; ``expi`` computes.

Each case is an expression over SETUP's names giving a JSON-able outcome: an array as its dtype,
weak type and values (a NaN as 'nan'); an exception as its class and first line (``cls``: the class alone).
"""

SETUP = """
lax = jax.lax
sp = jax.scipy.special
i3 = jnp.int32(3)
f32 = jnp.float32
def show(r):
    if isinstance(r, (list, tuple)):
        return [show(x) for x in r]
    if isinstance(r, (int, float, str)):
        return [type(r).__name__, r]
    return [str(r.dtype), bool(getattr(r, 'weak_type', False)), nan_free(np.asarray(r).tolist())]
def nan_free(v):
    if isinstance(v, list):
        return [nan_free(x) for x in v]
    return 'nan' if v != v else v
def out(thunk):
    try:
        r = thunk()
    except Exception as e:
        return [type(e).__name__, str(e).split(chr(10))[0]]
    return show(r)
def cls(thunk):
    try:
        r = thunk()
    except Exception as e:
        return type(e).__name__
    return show(r)
def typed(j):
    return [[str(e.primitive), [v.aval.weak_type for v in e.outvars]] for e in j.jaxpr.eqns] + [
        [str(a.dtype), a.weak_type] for a in j.out_avals]
@jax.custom_jvp
def cj(x):
    return x * 2.0
cj.defjvp(lambda p, t: (cj(p[0]), (t[0] * 2.0).astype(jnp.float32)))
@jax.custom_jvp
def cs(x):
    return x * 2.0
cs.defjvp(lambda p, t: (cs(p[0]), 2.0))
@jax.custom_jvp
def cr(x):
    return x * 2.0
cr.defjvp(lambda p, t: (cr(p[0]), (jnp.power(i3, p[0]) * t[0]).astype(jnp.float32) + t[0]))
FS = {
    'powadd_astype': lambda b: (jnp.power(i3, b) + b).astype(jnp.float32),
    'powmul_astype': lambda b: (jnp.power(i3, b) * b).astype(jnp.float32),
    'powsub_astype': lambda b: (b - jnp.power(i3, b)).astype(jnp.float32),
    'powsin_astype': lambda b: (jnp.sin(jnp.power(i3, b)) + b).astype(jnp.float32),
    'powwhere_astype': lambda b: jnp.where(b > 0, jnp.power(i3, b), b).astype(jnp.float32),
    'powmax_astype': lambda b: jnp.maximum(jnp.power(i3, b), b).astype(jnp.float32),
    'powadd_conv': lambda b: lax.convert_element_type(jnp.power(i3, b) + b, jnp.float32),
    'powjnpadd_astype': lambda b: jnp.add(jnp.power(i3, b), b).astype(jnp.float32),
    'powlaxadd_conv': lambda b: lax.convert_element_type(lax.add(jnp.power(i3, b), b), jnp.float32),
    'powadd_f16': lambda b: (jnp.power(i3, b) + b).astype(jnp.float16),
    'powadd_mulf32': lambda b: (jnp.power(i3, b) + b) * jnp.float32(2),
    'powadd_sum': lambda b: jnp.sum(jnp.power(i3, b) + b * jnp.ones(3)).astype(jnp.float32),
    'powadd_jit': lambda b: jax.jit(lambda c: jnp.power(i3, c) + c)(b).astype(jnp.float32),
    'powadd2': lambda b: ((jnp.power(i3, b) + b) * b).astype(jnp.float32),
    'powarr': lambda b: (jnp.power(jnp.arange(3), b) + b).astype(jnp.float32).sum(),
    'powcos': lambda b: jnp.cos(jnp.power(i3, b) + b).astype(jnp.float32),
    'powlogaddexp': lambda b: jnp.logaddexp(jnp.power(i3, b), b).astype(jnp.float32),
    'powclip': lambda b: jnp.clip(jnp.power(i3, b), 0.0, 5.0).astype(jnp.float32),
    'pow_astype': lambda b: jnp.power(i3, b).astype(jnp.float32),
    'powadd': lambda b: jnp.power(i3, b) + b,
    'cj_add_astype': lambda b: (cj(b) + b).astype(jnp.float32),
    'cs_add_astype': lambda b: (cs(b) + b).astype(jnp.float32),
    'astype_add_astype': lambda b: (b.astype(jnp.float32) + b).astype(jnp.float32),
    'f32mul_add_astype': lambda b: (jnp.float32(2) * b + b).astype(jnp.float32),
    'lpowadd_astype': lambda b: (lax.pow(3.0, b) + b).astype(jnp.float32),
    # jnp functions JAX does not jit promote with a conversion that binds on an eager tracer
    # (a no-op on an abstract one): eagerly the strong tangent becomes weak, as its primal
    'stack': lambda b: jnp.stack([jnp.power(i3, b), b]).astype(jnp.float32).sum(),
    'concat': lambda b: jnp.concatenate([jnp.power(i3, b)[None], jnp.array([b])]).astype(jnp.float32).sum(),
    'mean_stack': lambda b: jnp.mean(jnp.stack([jnp.power(i3, b), b])).astype(jnp.float32),
    'cr_astype': lambda b: (cr(b) + b).astype(jnp.float32),
    'remat': lambda b: jax.checkpoint(lambda c: jnp.power(i3, c) + c)(b).astype(jnp.float32),
    'cond': lambda b: lax.cond(True, lambda c: jnp.power(i3, c) + c, lambda c: c * 1.0, b).astype(jnp.float32),
    'scan': lambda b: lax.scan(lambda c, _: ((jnp.power(i3, c) + c) * 0.5, None), b, None, length=2)[0].astype(jnp.float32),
    'fori': lambda b: lax.fori_loop(0, 2, lambda i, c: (jnp.power(i3, c) + c) * 0.5, b).astype(jnp.float32),
    'vmap': lambda b: jax.vmap(lambda c: jnp.power(i3, c) + c)(jnp.ones(2) * b).astype(jnp.float32).sum(),
    'jit_inner': lambda b: jax.jit(lambda c: (jnp.power(i3, c) + c).astype(jnp.float32))(b),
    'sqrt': lambda b: jnp.sqrt(jnp.power(i3, b) + b).astype(jnp.float32),
}
SP = {'exp1': sp.exp1, 'expi': sp.expi, 'expn3': lambda x: sp.expn(3, x),
      'expn1': lambda x: sp.expn(1, x), 'expn0': lambda x: sp.expn(0, x)}
"""

_TRANSFORMS = {
    "grad": "jax.grad(FS[{n!r}])(1.0)",
    "grad_f32": "jax.grad(FS[{n!r}])(jnp.float32(1.0))",
    "vjp": "jax.vjp(FS[{n!r}], 1.0)[1](jnp.float32(1.0))",
    "jvp": "jax.jvp(FS[{n!r}], (1.0,), (1.0,))",
    "jvp_strong_tangent": "jax.jvp(FS[{n!r}], (1.0,), (jnp.float32(1.0),))",
    "linearize": "jax.linearize(FS[{n!r}], 1.0)[1](1.0)",
    "jacrev": "jax.jacrev(FS[{n!r}])(1.0)",
    "hessian": "jax.hessian(FS[{n!r}])(1.0)",
    "jit_grad": "jax.jit(jax.grad(FS[{n!r}]))(1.0)",
    "vmap_grad": "jax.vmap(jax.grad(FS[{n!r}]))(jnp.ones(2))",
    "jaxpr_grad": "str(jax.make_jaxpr(jax.grad(FS[{n!r}]))(1.0))",
    "typed_jaxpr_grad": "typed(jax.make_jaxpr(jax.grad(FS[{n!r}]))(1.0))",
}

_NAMES = ["powadd_astype", "powmul_astype", "powsub_astype", "powsin_astype",
          "powwhere_astype", "powmax_astype", "powadd_conv", "powjnpadd_astype",
          "powlaxadd_conv", "powadd_f16", "powadd_mulf32", "powadd_sum", "powadd_jit",
          "powadd2", "powarr", "powcos", "powlogaddexp", "powclip", "pow_astype", "powadd",
          "cj_add_astype", "cs_add_astype", "astype_add_astype", "f32mul_add_astype",
          "lpowadd_astype", "stack", "concat", "mean_stack", "cr_astype", "remat", "cond",
          "scan", "fori", "vmap", "jit_inner", "sqrt"]

_WEAK = [f"out(lambda: {t.format(n=n)})" for n in _NAMES for t in _TRANSFORMS.values()]

# the linear function's own jaxpr, and its types, applied to a weak and a strong tangent
_LINEAR = [
    "str(jax.make_jaxpr(jax.linearize(FS['powadd_astype'], 1.0)[1])(1.0))",
    "typed(jax.make_jaxpr(jax.linearize(FS['powadd_astype'], 1.0)[1])(1.0))",
    "typed(jax.make_jaxpr(lambda x: jax.linearize(FS['powadd_astype'], x)[1](x))(1.0))",
    "typed(jax.make_jaxpr(jax.vjp(FS['powadd_astype'], 1.0)[1])(jnp.float32(1.0)))",
    "typed(jax.make_jaxpr(jax.grad(jax.grad(FS['powadd'])))(1.0))",
    "out(lambda: jax.grad(jax.grad(FS['powadd_astype']))(1.0))",
    "out(lambda: jax.value_and_grad(FS['powadd_astype'])(1.0))",
]

_SP_TRANSFORMS = {
    "grad": "jax.grad(SP[{n!r}])(1.0)",
    "grad_grad": "jax.grad(jax.grad(SP[{n!r}]))(1.0)",
    "grad_grad_2": "jax.grad(jax.grad(SP[{n!r}]))(2.0)",
    "jacfwd_grad": "jax.jacfwd(jax.grad(SP[{n!r}]))(1.0)",
    "jacrev_grad": "jax.jacrev(jax.grad(SP[{n!r}]))(1.0)",
    "hessian": "jax.hessian(SP[{n!r}])(1.0)",
    "jvp_grad": "jax.jvp(jax.grad(SP[{n!r}]), (1.0,), (1.0,))",
    "jit_grad_grad": "jax.jit(jax.grad(jax.grad(SP[{n!r}])))(1.0)",
    "vmap_grad_grad": "jax.vmap(jax.grad(jax.grad(SP[{n!r}])))(jnp.array([1.0, 2.0]))",
    "grad_jit_grad": "jax.grad(jax.jit(jax.grad(SP[{n!r}])))(1.0)",
    "grad3": "jax.grad(jax.grad(jax.grad(SP[{n!r}])))(1.0)",
    "jacfwd_jacfwd": "jax.jacfwd(jax.jacfwd(SP[{n!r}]))(1.0)",
    "jvp_jvp": "jax.jvp(lambda x: jax.jvp(SP[{n!r}], (x,), (1.0,))[1], (1.0,), (1.0,))",
    "vmap_grad": "jax.vmap(jax.grad(SP[{n!r}]))(jnp.array([1.0, 2.0]))",
}

_SPECIAL = [f"cls(lambda: {t.format(n=n)})"
            for n in ["exp1", "expi", "expn3", "expn1", "expn0"] for t in _SP_TRANSFORMS.values()]

_SPECIAL += [
    # a traced order, differentiated once inside the jit, computes; twice, the same TypeError
    "cls(lambda: jax.jit(lambda n, x: jax.grad(lambda y: sp.expn(n, y))(x))(3, 1.0))",
    "cls(lambda: jax.jit(lambda n, x: jax.grad(jax.grad(lambda y: sp.expn(n, y)))(x))(3, 1.0))",
    "cls(lambda: jax.grad(lambda x: jnp.sum(jax.grad(lambda y: jnp.sum(sp.exp1(y)))(x)))"
    "(jnp.array([1.0, 2.0])))",
]

# a weak tangent of a strong primal (a Python float's) reaching a non-jitted promotion: eagerly
# retyped strong, as its primal
_STRONG = [f"out(lambda: jax.{t}({f}, {a}))"
           for f in ["lambda b: jnp.stack([b, b * 2]).sum()", "lambda b: jnp.stack([b, f32(2.0)])",
                     "lambda b: jnp.concatenate([b[None], b[None]])",
                     "lambda b: jnp.stack([b, b]) + 1.0"]
           for t, a in [("jvp", "(f32(1.0),), (1.0,)"), ("jvp", "(1.0,), (f32(1.0),)")]] + [
    "out(lambda: jax.linearize(lambda b: jnp.concatenate([b[None], b[None]]), f32(1.0))[1](1.0))",
    "out(lambda: jax.jit(lambda x, t: jax.jvp(lambda b: jnp.concatenate([b[None], b[None]]), "
    "(x,), (t,)))(f32(1.0), 1.0))",
]

CASES = _WEAK + _LINEAR + _SPECIAL + _STRONG
