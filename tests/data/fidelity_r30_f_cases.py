"""Cases of tests/test_fidelity_r30_f.py: an eagerly called shard_map (no jit around it) as
JAX 0.10.2 runs it, op by op, each primitive typed by its abstract evaluation on its operands'
actual types and a jitted call (every jnp function's) one primitive typed by its jaxpr:

- FINDINGS 272: the ``jvp`` of a ``fori_loop`` whose carry varies over 'd' while its NumPy
  tangent does not. scan's "mismatched varying manual axes" ValueError fires eagerly too, unless
  a jnp call before the loop gave the tangent its JVP's type (as varying as its primal): JAX
  returns values for ``x0 + 1.0`` but refuses ``x0`` itself or ``lax.add(x0, 1.0)``; under jit
  the call is inlined, so the check fires where its jaxpr forwards the tangent (``x0 + 1.0``)
  and not where an equation of it makes a varying one (``-x0``). The tangent types of a few
  calls' JVPs, eagerly and under jit.
- ``check_vma=False`` with ``axis_names`` a proper subset of the mesh axes: JAX's eager
  shard_map refuses it (its ``_unmatch`` shard_map's out_specs ValueError), also under grad and
  vmap, and with no argument once the body binds a constant; jit runs it. The neighbouring
  in/out spec validations.
- What running op by op shows: a bfloat16 ``pow``'s NaN sign (its exponent an argument of the
  program, not a constant XLA folds), and debug callbacks and prints called device by device in
  the mesh's order.

Each is an expression over SETUP's names giving a JSON-able outcome, evaluated by JAX 0.10.2
(the recorder, with 8 virtual CPU devices) and by minijax.
"""

DEVICES = 8

SETUP = """
import contextlib, io
lax = jax.lax
P = jax.P
mesh2 = jax.sharding.Mesh(np.array(jax.devices()[:2]), ("d",))
x4 = jnp.arange(4.0, dtype=jnp.float32) - 1.5
def tangent(x):
    return np.full(x.shape, 0.7, x.dtype)
def outcome(thunk):
    try:
        out = thunk()
    except Exception as e:
        return [type(e).__name__, str(e).split(chr(10))[0]]
    return [[str(jax.typeof(o)), np.asarray(o).astype(np.float32).round(5).tolist()]
            for o in jax.tree.leaves(out)]
INITS = {
    "x0": lambda x0: x0,
    "x0+1": lambda x0: x0 + 1.0,
    "x0*2": lambda x0: x0 * 2.0,
    "neg": lambda x0: -x0,
    "sin": jnp.sin,
    "lax.add": lambda x0: lax.add(x0, np.float32(1.0)),
    "lax.neg": lax.neg,
    "jit_id": jax.jit(lambda x0: x0),
}
BODIES = {
    "clip": lambda x0: lambda i, c: jnp.clip(c, -1.0, 1.0),
    "fmax": lambda x0: lambda i, c: jnp.fmax(c, x0 * 0.5),
}
def loop_jvp(init, body, trips, mode):
    def f(x0):
        return lax.fori_loop(0, trips, BODIES[body](x0), INITS[init](x0))
    def shard(x):
        return jax.jvp(f, (x,), (tangent(x),))
    g = jax.shard_map(shard, mesh=mesh2, in_specs=P("d"), out_specs=P("d"))
    if mode == "jit":
        g = jax.jit(g)
    if mode == "make_jaxpr":
        return outcome(lambda: str(jax.make_jaxpr(g)(x4)).count("scan"))
    return outcome(lambda: g(x4))
CALLS = {
    "add1": lambda x: x + 1.0, "lax.add": lambda x: lax.add(x, np.float32(1)),
    "mul2": lambda x: x * 2.0, "sub": lambda x: x - 1.0, "id": lambda x: x,
    "add_arr": lambda x: x + jnp.ones(2), "reshape": lambda x: x.reshape(2),
    "max": lambda x: jnp.maximum(x, 0.0), "cvt": lambda x: x.astype(jnp.float16),
    "jit_laxadd": jax.jit(lambda x: lax.add(x, np.float32(1))), "jit_id": jax.jit(lambda x: x),
    "sin": jnp.sin, "lax.sin": lax.sin, "abs": jnp.abs, "where": lambda x: jnp.where(True, x, 0.0),
    "neg": lambda x: -x, "sum": lambda x: x.sum(), "addx": lambda x: x + x,
}
def tangent_type(name, mode):
    out = []
    def shard(x):
        out.append(str(jax.typeof(jax.jvp(CALLS[name], (x,), (tangent(x),))[1])))
        return x
    g = jax.shard_map(shard, mesh=mesh2, in_specs=P("d"), out_specs=P("d"))
    (jax.jit(g) if mode == "jit" else g)(x4)
    return out
MESHES = {
    "explicit2": lambda: jax.make_mesh((2, 4), ("x", "y"),
                                       axis_types=(jax.sharding.AxisType.Explicit,) * 2),
    "auto2": lambda: jax.make_mesh((2, 4), ("x", "y"), axis_types=(jax.sharding.AxisType.Auto,) * 2),
    "auto3": lambda: jax.make_mesh((2, 2, 2), ("x", "y", "z"),
                                   axis_types=(jax.sharding.AxisType.Auto,) * 3),
}
x24 = jnp.arange(8.0).reshape(2, 4)
def partial(mesh, ins, outs, names, check, mode="eager", body=lambda a: a * 2):
    g = jax.shard_map(body, mesh=MESHES[mesh](), in_specs=ins, out_specs=outs, axis_names=names,
                      check_vma=check)
    if mode == "jit":
        return outcome(lambda: jax.jit(g)(x24))
    if mode == "grad":
        return outcome(lambda: jax.grad(lambda a: g(a).sum())(x24))
    if mode == "vmap":
        return outcome(lambda: jax.vmap(g)(x24[None]))
    if mode == "noargs":
        return outcome(lambda: jax.shard_map(lambda: jnp.ones(3), mesh=MESHES[mesh](), in_specs=(),
                                             out_specs=outs, axis_names=names, check_vma=check)())
    return outcome(lambda: g(x24))
def side_effects(kind):
    seen = []
    mesh8 = jax.sharding.Mesh(np.array(jax.devices()), ("d",))
    def body(x):
        if kind == "callback":
            jax.debug.callback(lambda v: seen.append(np.asarray(v).tolist()), x)
            y = jnp.sin(x)
            jax.debug.callback(lambda v: seen.append(np.asarray(v).round(4).tolist()), y)
        else:
            jax.debug.print("a {}", x)
            y = jnp.sin(x)
            jax.debug.print("b {} {}", y, x)
        return y
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        jax.shard_map(body, mesh=mesh8, in_specs=P("d"), out_specs=P("d"))(jnp.arange(8.0))
    return seen if kind == "callback" else out.getvalue().splitlines()
xb = jnp.array([-0.16, 0.3, -2.0, 4.0], jnp.bfloat16)
def signbit(fn, jitted=False):
    g = jax.shard_map(lambda x: jnp.signbit(fn(x)), mesh=mesh2, in_specs=P("d"), out_specs=P("d"))
    return np.asarray((jax.jit(g) if jitted else g)(xb)).tolist()
"""

# FINDINGS 272: which eager forms scan's carry check refuses (JAX checks every eager primitive
# on its operands' types; only a jnp call's JVP types the tangent as its primal)
CASES = [f"loop_jvp({i!r}, {b!r}, {t}, {m!r})"
         for i in ("x0", "x0+1", "x0*2", "neg", "sin", "lax.add", "lax.neg", "jit_id")
         for b in ("clip", "fmax") for t in (0, 1, 2) for m in ("eager",)]
CASES += [f"loop_jvp({i!r}, 'fmax', 1, {m!r})"
          for i in ("x0", "x0+1", "sin", "lax.add", "jit_id") for m in ("jit", "make_jaxpr")]
# the tangent's type after one call's JVP: eagerly the call's jaxpr's; under jit inlined, so a
# tangent the jaxpr forwards (x + 1.0's) keeps its own type
CASES += [f"tangent_type({n!r}, {m!r})" for n in
          ("add1", "lax.add", "mul2", "sub", "id", "add_arr", "reshape", "max", "cvt",
           "jit_laxadd", "jit_id", "sin", "lax.sin", "abs", "where", "neg", "sum", "addx")
          for m in ("eager", "jit")]
CASES += [f"loop_jvp({i!r}, 'clip', 2, 'jit')" for i in ("neg", "x0*2")]
# check_vma=False on a partly manual mesh; the neighbouring spec checks
_SPECS = [("P()", "P()"), ("P('x')", "P()"), ("P('x')", "P('x')"), ("P()", "P('y')"),
          ("P('y')", "P()")]
# (not P('x') -> P() with check_vma: minijax words that refusal its own way)
CASES += [f"partial({m!r}, {i}, {o}, {{'x'}}, {c}, {mode!r})"
          for m in ("explicit2", "auto2") for i, o in _SPECS for c in (False, True)
          for mode in ("eager", "jit") if not (c and (i, o) == ("P('x')", "P()"))]
CASES += [
    "partial('auto3', P('x'), P('x'), {'x'}, False)",
    "partial('auto3', P('y'), P('y'), {'y'}, False)",
    "partial('auto3', P('y'), P('y'), {'y', 'z'}, False, 'jit')",
    "partial('auto3', P('y'), P('y'), {'x', 'y', 'z'}, False)",
    "partial('auto2', P('x'), P('x'), {'x'}, False, 'grad')",
    "partial('auto2', P('x'), P('x'), {'x'}, False, 'vmap')",
    "partial('auto2', P('x'), P('x'), {'x'}, True, 'grad')",
    "partial('auto2', P(), P(), {'x'}, False, 'noargs')",
    "partial('auto2', P(), P(), {'x', 'y'}, False, 'noargs')",
    "partial('explicit2', P('x'), P('x'), {'x'}, False, 'eager', lambda a: a.reshape(3))",
]
# running op by op: NaN signs, host callbacks in device order
CASES += [
    "signbit(lambda x: jnp.power(x, 0.5))",
    "signbit(lambda x: jnp.power(x, 0.5), jitted=True)",
    "signbit(lambda x: lax.pow(x, jnp.bfloat16(0.5)))",
    "signbit(jnp.sqrt)",
    "signbit(jnp.log)",
    "side_effects('callback')",
    "side_effects('print')",
]
