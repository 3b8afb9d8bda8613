"""Cases of tests/test_fidelity_r29_g.py: the exception (class, first line) of collectives and
named jnp reductions over an axis name nothing binds, eagerly, under jit, grad, make_jaxpr and
vmap with another name bound, evaluated by JAX 0.10.2 (the recorder, with 8 virtual CPU devices)
and by minijax. Each is an expression over SETUP's names giving a JSON-able outcome.
"""

SETUP = """
lax = jax.lax
x = jnp.arange(4.)
def outcome(thunk):
    try:
        out = thunk()
    except Exception as e:
        return [type(e).__name__, str(e).split(chr(10))[0]]
    return [str(jax.typeof(o)) for o in jax.tree.leaves(out)]
MODES = {
    "eager": lambda f: f(x),
    "jit": lambda f: jax.jit(f)(x),
    "grad": lambda f: jax.grad(lambda v: jnp.sum(f(v)))(x),
    "vmap_b": lambda f: jax.vmap(f, axis_name="b")(x[None]),
    "make_jaxpr": lambda f: jax.make_jaxpr(f)(x),
}
def unbound(f, mode):
    return outcome(lambda: MODES[mode](f))
"""

_FUNS = [
    "lambda v: lax.psum(v, 'a')",
    "lambda v: lax.psum(v, ('b', 'a'))",
    "lambda v: lax.pmean(v, 'a')",
    "lambda v: lax.all_gather(v, 'a')",
    "lambda v: lax.axis_index('a')",
    "lambda v: lax.psum_scatter(v, 'a')",
    "lambda v: lax.all_to_all(v, 'a', 0, 0)",
    "lambda v: lax.axis_size('a')",
    "lambda v: jnp.sum(v, axis='a')",
    "lambda v: jnp.max(v, axis='a')",
    "lambda v: jnp.mean(v, axis='a')",
]
CASES = [f"unbound({f}, {m!r})" for f in _FUNS
         for m in ("eager", "jit", "grad", "vmap_b", "make_jaxpr")]
# pmax/pmin: JAX does not differentiate them (minijax does); ppermute/pbroadcast reach JAX's
# missing evaluation rule from grad and vmap of another name (FINDINGS 287)
CASES += [f"unbound({f}, {m!r})"
          for f in ["lambda v: lax.pmax(v, 'a')", "lambda v: lax.pmin(v, 'a')"]
          for m in ("eager", "jit", "vmap_b", "make_jaxpr")]
CASES += [f"unbound({f}, {m!r})"
          for f in ["lambda v: lax.ppermute(v, 'a', [(0, 1)])", "lambda v: lax.pbroadcast(v, 'a', 0)"]
          for m in ("eager", "jit", "make_jaxpr")]
_MESH = "jax.make_mesh((2, 2), ('x', 'y'), axis_types=(jax.sharding.AxisType.Explicit,) * 2)"
CASES += [
    f"outcome(lambda: jax.shard_map(lambda r: lax.psum(r, 'y'), mesh={_MESH}, in_specs=jax.P(), "
    f"out_specs=jax.P(), axis_names={{'x'}}, check_vma={c})(jnp.arange(8.)))"
    for c in (True,)
]
