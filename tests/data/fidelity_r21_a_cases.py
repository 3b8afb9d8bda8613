"""Programs whose printed jaxprs tests/test_fidelity_r21_a.py compares with JAX 0.10.2's: each
a source string evaluating to the text (``str`` of ``make_jaxpr(f)(args)``, or a narrower
``pretty_print``), run as is by JAX (tests/data/record_fidelity_r21_a.py) and by minijax. Each
program's equations and params are the same in both, so the texts differ only by printing."""

SETUP = """
x4 = jnp.arange(4.0)
x3 = jnp.ones(3)
m = jnp.ones((3, 4))
idx = jnp.array([[0], [2]])
gdn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                 start_index_map=(0,))

def chain(a):
    for _ in range(6):
        a = jnp.sin(a) * 2.0 + jnp.cos(a)
    return a

def loop_body(i, c):
    return c * 2.0 + jnp.sin(c)

@jax.jit
def inner(a):
    return jnp.sin(a) + 1.0

def twice(a):
    return inner(a) * inner(a + 1.0)

def nested(a):
    def body(carry, y):
        small = lambda z: z + y
        big = lambda z: lax.while_loop(lambda w: w[0] < 5.0, lambda w: w * 2.0 + jnp.sin(w), z)
        return lax.cond(carry[0] > 0, small, big, carry), carry * 2.0
    return lax.scan(body, a, x3)

exp_tan = jax.make_jaxpr(lambda a: jnp.sin(jnp.cos(jnp.tan(a))) * 3.0 + 2.0)(x3)
"""

CASES = [
    "str(jax.make_jaxpr(lambda a: a + 1.0)(x4))",
    "str(jax.make_jaxpr(chain)(x4))",
    "str(jax.make_jaxpr(chain)(m))",
    "str(jax.make_jaxpr(lambda a, b: lax.dot_general(a, b, (([1], [0]), ([], [])), "
    "preferred_element_type=jnp.float32))(m, m.T))",
    "str(jax.make_jaxpr(lambda a, b: lax.dot_general(a, b, (([1], [1]), ([], [])), "
    "precision=lax.Precision.HIGHEST, preferred_element_type=jnp.float32))(m, m))",
    "str(jax.make_jaxpr(lambda a, i: lax.gather(a, i, gdn, (1, 4), "
    "mode=lax.GatherScatterMode.CLIP))(m, idx))",
    "str(jax.make_jaxpr(lambda a: jnp.broadcast_to(a, (3, 4)))(x4))",
    "str(jax.make_jaxpr(lambda a: jnp.zeros((2, 3)) + a[0])(x4))",
    "str(jax.make_jaxpr(lambda a: a.astype(jnp.int32))(x4))",
    "str(jax.make_jaxpr(lambda p, a: lax.cond(p, jnp.sin, jnp.cos, a))(True, x4))",
    "str(jax.make_jaxpr(lambda p, a: lax.cond(p, chain, lambda b: b * 2.0, a))(True, x4))",
    "str(jax.make_jaxpr(lambda i, a: lax.switch(i, [jnp.sin, jnp.cos, jnp.tan], a))(1, x4))",
    "str(jax.make_jaxpr(lambda a: lax.fori_loop(0, 3, loop_body, a))(x4))",
    "str(jax.make_jaxpr(lambda a: lax.while_loop(lambda c: c[0] < 10.0, lambda c: c * 2.0, a))"
    "(x4))",
    "str(jax.make_jaxpr(lambda a: lax.scan(lambda c, y: (c + y, c * y), 0.0, a))(x4))",
    "str(jax.make_jaxpr(lambda a: lax.scan(lambda c, y: (chain(c) + y, c * y), 0.0, a))(x4))",
    "str(jax.make_jaxpr(nested)(x3))",
    "str(jax.make_jaxpr(lambda a: jax.jit(chain)(a))(x4))",
    "str(jax.make_jaxpr(lambda a: jax.jit(lambda b: b * 2.0)(a))(x4))",
    "str(jax.make_jaxpr(lambda a: jax.jit(lambda b, c: (b * c, c - b, b + c))(a, a * 2.0))(x3))",
    "str(jax.make_jaxpr(jax.jit(lambda a, b: a * b + 1.0, donate_argnums=0))(x3, x3))",
    "str(jax.make_jaxpr(twice)(x4))",
    "str(jax.make_jaxpr(lambda a: jnp.cumsum(a))(x4))",
    "str(jax.make_jaxpr(lambda a: jnp.where(a > 1.0, a, 0.0))(x4))",
    "str(jax.make_jaxpr(lambda a: lax.reduce_window(a, 0.0, lax.add, (2, 2), (1, 1), 'VALID'))"
    "(m))",
    "str(jax.make_jaxpr(lambda a: lax.reduce(a, 0.0, lambda p, q: p * q, (0,)))(x4))",
    "str(jax.make_jaxpr(lambda *a: sum(a[1:], a[0]))(*[x3] * 30))",
    "str(jax.make_jaxpr(lambda a: tuple(a + i for i in range(25)))(x3))",
    "exp_tan.pretty_print(width=40)",
    "exp_tan.jaxpr.pretty_print(width=30)",
    "repr(exp_tan.eqns[0])",
]
