"""Cases of tests/test_fidelity_r22_b.py, evaluated by JAX 0.10.2 (the recorder) and by minijax.

LOWERED: programs whose ``jit(...).lower(...).as_text()`` (or ``pmap``'s) is compared whole:
ordered effects' tokens through main, cond, while, inlined calls and private functions; host
callbacks' layouts and shardings; pmap's module; a nested jit's private function. Each is an
expression over SETUP's names giving the Lowered object.
NAMES: programs whose ``as_text(debug_info=True)`` op names under the program's root
(``jit(f)/...``) are compared; file paths, columns and call-site chains aside.
ARG_NAMES: programs whose main's argument locations (``loc("d['a']")``) are compared.
"""

SETUP = """
import re
io_callback = jax.experimental.io_callback
P = jax.sharding.PartitionSpec
mesh = jax.sharding.Mesh(np.array(jax.devices()[:4]), ('x',))
xs = jax.sharding.NamedSharding(mesh, P('x'))
x3 = jnp.ones(3)
f32 = jax.ShapeDtypeStruct((), jnp.float32)
def dbg(a):
    jax.debug.print("a={a}", a=a, ordered=True)
    return a + 1
def dbg_unordered(a):
    jax.debug.print("a={a}", a=a)
    return a + 1
def dbg_twice(a):
    jax.debug.print("a={a}", a=a, ordered=True)
    jax.debug.print("b={a}", a=a, ordered=True)
    return a + 1
def dbg_cond(p, a):
    def t(v):
        jax.debug.print("t={v}", v=v, ordered=True)
        return v
    return jax.lax.cond(p, t, lambda v: v * 2, a)
def dbg_while(a):
    def body(c):
        jax.debug.print("c={c}", c=c, ordered=True)
        return c + 1
    return jax.lax.while_loop(lambda c: c < 3, body, a)
def io_ordered(a):
    return io_callback(lambda v: v, f32, a, ordered=True)
def io_no_result(a):
    return io_callback(lambda v: None, None, a)
def pure_two(a):
    return jax.pure_callback(lambda v: (v, v[0]), (jax.ShapeDtypeStruct((2, 3), jnp.float32),
                                                   jax.ShapeDtypeStruct((3,), jnp.float32)), a)
def in_shard_map(a):
    def body(b):
        jax.debug.print("{}", b)
        return jax.pure_callback(lambda v: v, jax.ShapeDtypeStruct((2,), jnp.float32), b)
    return jax.shard_map(body, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(a)
@jax.custom_jvp
def dbg_jvp(a):
    return dbg(a)
dbg_jvp.defjvp(lambda p, t: (dbg_jvp(p[0]), t[0]))
def nested_dbg(a):
    return jax.jit(dbg)(a) * 2
def nested_unordered(a):
    return jax.jit(dbg_unordered)(a) * 2
def nested(a):
    return jax.jit(lambda b: b * 2)(a) + 1
def scoped(x):
    with jax.named_scope("outer"):
        y = jnp.cos(x)
        return jax.named_call(jnp.sin, name="layer")(y) + nested(y)
def control_flow(a):
    with jax.named_scope("s"):
        b = jax.lax.while_loop(lambda c: c < 3, lambda c: jnp.sin(c) + 1, a)
        return b + jax.lax.cond(a > 0, jnp.sin, jnp.cos, a)
def arg_names(a, *rest, **kw):
    return a + rest[1] + kw['z']
def main_arg_locations(lowered):
    text = lowered.as_text(debug_info=True)
    return re.findall(r'loc\\(([^)]*)\\)', re.search(r"@main\\((.*?)\\) ->", text).group(1))
def op_names(lowered):
    text = lowered.as_text(debug_info=True)
    return sorted(set(n for n in re.findall(r'loc\\("([^"]*)"', text) if n.startswith("jit(")
                      and "/" in n))
"""

LOWERED = [
    "jax.jit(dbg).lower(1.0)",
    "jax.jit(dbg_unordered).lower(1.0)",
    "jax.jit(dbg_twice).lower(1.0)",
    "jax.jit(dbg_cond).lower(True, 1.0)",
    "jax.jit(dbg_while).lower(1.0)",
    "jax.jit(io_ordered).lower(1.0)",
    "jax.jit(io_no_result).lower(jnp.ones((2, 3)))",
    "jax.jit(pure_two).lower(jnp.ones((2, 3)))",
    "jax.jit(dbg, donate_argnums=0).lower(x3)",
    "jax.jit(in_shard_map).lower(jnp.ones(8))",
    "jax.jit(lambda a: jax.pure_callback(lambda v: v, jax.ShapeDtypeStruct((8,), jnp.float32), "
    "a * 2), in_shardings=xs).lower(jnp.ones(8))",
    "jax.pmap(lambda a: a * 2).lower(jnp.ones((4, 3)))",
    "jax.pmap(lambda a: jax.lax.psum(a, 'i'), axis_name='i').lower(jnp.ones((4, 3)))",
    "jax.pmap(lambda a, b: (a * 2, b)).lower(jnp.ones((4, 3)), jnp.ones((4,)))",
    "jax.pmap(jnp.sin, out_axes=1).lower(jnp.ones((4, 3)))",
    "jax.jit(nested).lower(1.0)",
    "jax.jit(jax.checkpoint(dbg)).lower(1.0)",
    "jax.jit(dbg_jvp).lower(1.0)",
    "jax.jit(nested_dbg).lower(1.0)",
    "jax.jit(nested_unordered).lower(1.0)",
]

NAMES = [
    "jax.jit(scoped).lower(jnp.ones(2))",
    "jax.jit(control_flow).lower(1.0)",
]

ARG_NAMES = [
    "jax.jit(lambda d, *args, k: d['a'] + args[0] + k).lower({'a': 1.0, 'b': 2.0}, 3.0, 4.0, "
    "k=5.0)",
    "jax.jit(arg_names, static_argnums=1).lower(1.0, 2, 3.0, z=4.0, w=5.0)",
    "jax.jit(lambda a, b, c: a + c['q'], static_argnames='b').lower(1.0, b=2, c={'q': 3.0})",
    "jax.jit(dbg).lower(1.0)",
]
