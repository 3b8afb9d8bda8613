"""Cases of tests/test_fidelity_r30_a.py: psum/pmax/pmin/pmean with positional (int) axes,
eagerly, under jit, grad, vmap and shard_map (check_vma=False), with their errors for bad ints;
the jaxprs of psum/pmax/pmin/pmean (and named jnp reductions) under vmap(axis_name=...), where
the collective stays with the batch axis made positional, with grad and jit around; and
ppermute/pbroadcast over an unbound name under grad or vmap of another name with no jit, which
reach JAX's missing evaluation rule. Evaluated by JAX 0.10.2 (the recorder, with 4 virtual CPU
devices) and by minijax. Each is an expression over SETUP's names giving a JSON-able outcome.
"""

DEVICES = 4  # the shard_map cases' mesh takes jax.devices()[:4]

SETUP = """
lax = jax.lax
P = jax.P
x = jnp.arange(6.).reshape(2, 3)
x3 = jnp.arange(24.).reshape(2, 3, 4)
def outcome(thunk):
    try:
        out = thunk()
    except Exception as e:
        return [type(e).__name__, str(e).split(chr(10))[0]]
    if isinstance(out, str):
        return out
    return [[str(o.dtype), list(o.shape), values(o)] for o in jax.tree.leaves(out)]
def values(o):
    a = np.asarray(o)
    return (np.stack([a.real, a.imag], -1) if np.iscomplexobj(a) else a).tolist()
def message(thunk):
    try:
        thunk()
    except Exception as e:
        return [type(e).__name__, str(e)]
def jaxpr(f, *args):
    return outcome(lambda: str(jax.make_jaxpr(f)(*args)))
def va(f, **kw):
    return jax.vmap(f, axis_name='a', **kw)
mesh = jax.make_mesh((4,), ('x',), devices=jax.devices()[:4])
def sm(f, out=P()):
    return jax.shard_map(f, mesh=mesh, in_specs=P('x'), out_specs=out, check_vma=False)
m = jax.device_put(jnp.arange(16.).reshape(4, 4), jax.NamedSharding(mesh, P('x')))
pp = lambda v: lax.ppermute(v, 'a', [(0, 1), (1, 0)])
pb = lambda v: lax.pbroadcast(v, 'a', 0)
"""

# 1. positional axes: values, jaxprs and errors, outside any named axis
CASES = [f"outcome(lambda: {e})" for e in [
    "lax.psum(x, 0)",
    "lax.psum(x, (0, 1))",
    "lax.psum(x, -1)",
    "lax.psum(x, 5)",
    "lax.psum(x, (0, 0))",
    "lax.psum(x > 2, 0)",
    "lax.psum(np.ones((2, 3), np.float32), 0)",
    "lax.psum(1.0, 0)",
    "lax.psum({'a': x, 'b': x[0]}, 0)",
    "lax.psum(x, True)",
    "lax.psum(x, np.int64(0))",
    "lax.psum(x, 0, axis_index_groups=[[0]])",
    "lax.pmax(x, 0)",
    "lax.pmin(x, 1)",
    "lax.pmax(x, -1)",
    "lax.pmin(x, 5)",
    "lax.pmax(x, 0, axis_index_groups=[[0]])",
    "lax.pmin(x, (0, 'a'), axis_index_groups=[[0]])",
    "lax.pmean(x, 0)",
    "lax.pmean(x, 5)",
    "lax.psum(x, ('a', 0))",
    "jax.jit(lambda v: lax.psum(v, 0))(x)",
    "jax.jit(lambda v: lax.psum(v, (1, 0)))(x)",
    "jax.jit(lambda v: lax.psum(v, -1))(x)",
    "jax.jit(lambda v: lax.psum(v, 5))(x)",
    "jax.jit(lambda v: lax.psum(v, (0, 0)))(x)",
    "jax.jit(lambda v: lax.psum(v, (5, 'a')))(x)",
    "jax.jit(lambda v: lax.pmax(v.astype(jnp.int8), 0))(x)",
    "jax.jit(lambda v: lax.pmin(v, (1,)))(x)",
    "jax.jit(lambda v: lax.pmax(v, 5))(x)",
    "jax.jit(lambda v: lax.psum(v.astype(jnp.complex64), 0))(x)",
    "jax.jit(lambda v: lax.pmean(v, 1))(x)",
    "jax.grad(lambda v: lax.psum(v, 0).sum())(x)",
    "jax.grad(lambda v: (lax.psum(v, (0, 1)) * 2.0))(x)",
    "jax.jit(jax.grad(lambda v: jnp.sin(lax.psum(v, 1)).sum()))(x)",
    "jax.jvp(lambda v: lax.psum(v, 0), (x,), (x,))",
    "jax.vmap(lambda v: lax.psum(v, 0))(x)",
    "jax.vmap(lambda v: lax.pmax(v, 0), in_axes=1)(x)",
]]
CASES += [f"jaxpr({f}, x)" for f in [
    "lambda v: lax.psum(v, 0)",
    "lambda v: lax.pmax(v, 1)",
    "lambda v: lax.pmin(v, (1, 0))",
    "jax.grad(lambda v: lax.psum(v, 0).sum())",
    "jax.grad(lambda v: lax.psum(v, (0, 1)))",
    "lambda v: jax.jvp(lambda v: lax.psum(v, 0), (v,), (v,))",
    "jax.vmap(lambda v: lax.psum(v, 0))",
    "jax.vmap(lambda v: lax.pmin(v, 0), in_axes=1)",
]]

# 2. under vmap(axis_name='a'): the collective stays, the batch axis made positional
_VA = [
    ("va(lambda v: lax.psum(v, 'a'))", "x"),
    ("va(lambda v: lax.pmax(v, 'a'))", "x"),
    ("va(lambda v: lax.pmin(v, 'a'))", "x"),
    ("va(lambda v: lax.pmean(v, 'a'))", "x"),
    ("va(lambda v: lax.psum(v, 'a'), in_axes=1)", "x"),
    ("va(lambda v: lax.pmax(v, 'a'), in_axes=1)", "x"),
    ("va(lambda v: lax.psum(v, (0, 'a')))", "x"),
    ("va(lambda v: lax.pmax(v, ('a', 0)))", "x"),
    ("va(lambda v: lax.pmin(v, (0, 'a')))", "x3"),
    ("va(lambda v: jnp.sum(v, axis='a'))", "x"),
    ("va(lambda v: jnp.sum(v, axis=(0, 'a')))", "x3"),
    ("va(lambda v: jnp.sum(v, axis=('a', 0), keepdims=True))", "x"),
    ("va(lambda v: jnp.max(v, axis=(0, 'a')))", "x"),
    ("va(lambda v: jnp.min(v, axis=('a', -1)))", "x3"),
    ("va(lambda v: jnp.mean(v, axis=(0, 'a')))", "x"),
    ("va(lambda v: jnp.var(v, axis=(0, 'a')))", "x"),
    ("va(jax.jit(lambda v: lax.psum(v, 'a')))", "x"),
    ("jax.jit(va(lambda v: lax.pmax(v, (0, 'a'))))", "x3"),
    ("jax.grad(lambda v: va(lambda w: lax.psum(w, 'a'))(v).sum())", "x"),
    ("jax.grad(lambda v: va(lambda w: lax.pmean(jnp.sin(w), 'a'))(v).sum())", "x"),
    ("jax.grad(lambda v: va(lambda w: lax.psum(w, (0, 'a')))(v).sum())", "x3"),
    ("va(jax.grad(lambda v: lax.psum(v, 'a').sum()))", "x"),
    ("va(jax.grad(lambda v: lax.pmean(v * v, 'a').sum()))", "x"),
    ("jax.jit(va(jax.grad(lambda v: lax.psum(jnp.sin(v), ('a', 0)))))", "x"),
    ("va(jax.vmap(lambda v: lax.psum(v, 'a'), axis_name='b'))", "x3"),
    ("va(jax.vmap(lambda v: lax.psum(v, ('a', 'b')), axis_name='b'))", "x3"),
    ("va(jax.vmap(lambda v: lax.psum(v, ('b', 0)), axis_name='b'))", "x3"),
    ("va(jax.vmap(lambda v: lax.pmax(v, (0, 'a')), axis_name='b', in_axes=1))", "x3"),
]
CASES += [f"jaxpr({f}, {a})" for f, a in _VA]
CASES += [f"outcome(lambda: {f}({a}))" for f, a in _VA]
CASES += [f"outcome(lambda: {e})" for e in [
    # an unbatched operand: the rest of the axes, then times the size
    "va(lambda v, w: lax.psum(w, (1, 'a')) + v[0], in_axes=(0, None))(x, x)",
    "va(lambda v, w: lax.pmax(w, (1, 'a')) + v[0], in_axes=(0, None))(x, x)",
    "va(lambda v: lax.psum(x, (5, 'a')) + v)(x)",
    # bad ints: the batched collective's error
    "va(lambda v: lax.psum(v, 3))(x)",
    "va(lambda v: lax.pmax(v, (3, 'a')))(x)",
    "va(lambda v: lax.psum(v, (-1, 'a')))(x)",
    "va(lambda v: lax.pmean(v, (0, 'a')))(x)",
    "va(lambda v: lax.psum(v, (0, 'a'), axis_index_groups=[[0, 1]]))(x)",
]]
CASES += [
    "jaxpr(va(lambda v, w: lax.psum(w, (1, 'a')), in_axes=(0, None)), x, x)",
    "jaxpr(va(lambda v, w: lax.pmin(w, 'a') + v, in_axes=(0, None)), x, x)",
]

# shard_map (check_vma=False) with positional axes beside the mesh axis
CASES += [f"outcome(lambda: {e})" for e in [
    "sm(lambda v: lax.psum(v, (0, 'x')))(m)",
    "sm(lambda v: lax.psum(v, 0), P('x'))(m)",
    "sm(lambda v: lax.pmax(v, (1, 'x')))(m)",
    "sm(lambda v: lax.pmin(v, 1), P('x'))(m)",
    "sm(lambda v: jnp.sum(v, axis=(0, 'x')))(m)",
    "jax.jit(sm(lambda v: lax.psum(v, (1, 'x'))))(m)",
    "str(jax.make_jaxpr(sm(lambda v: lax.psum(v, (0, 'x'))))(m))",
]]

# 3. ppermute/pbroadcast over an unbound name: evaluated (grad, vmap of another name) or staged
_MODES = {
    "grad": "jax.grad(lambda v: f(v).sum())(v4)",
    "vjp": "jax.vjp(f, v4)[0]",
    "jvp": "jax.jvp(f, (v4,), (v4,))",
    "vmap_b": "jax.vmap(f, axis_name='b')(v4)",
    "vmap": "jax.vmap(f)(v4)",
    "vmap_grad": "jax.vmap(jax.grad(lambda v: f(v).sum()), axis_name='b')(v4)",
    "grad_vmap_b": "jax.grad(lambda v: jax.vmap(f, axis_name='b')(v).sum())(v4)",
    "grad_const": "jax.grad(lambda v: f(jnp.ones(4)).sum() + v.sum())(v4)",
    "vmap_b_const": "jax.vmap(lambda v: f(jnp.ones(4)) + v, axis_name='b')(v4)",
    "jit_grad": "jax.jit(jax.grad(lambda v: f(v).sum()))(v4)",
    "grad_jit": "jax.grad(lambda v: jax.jit(f)(v).sum())(v4)",
    "vmap_b_jit": "jax.vmap(jax.jit(f), axis_name='b')(v4)",
    "jaxpr_grad": "str(jax.make_jaxpr(jax.grad(lambda v: f(v).sum()))(v4))",
}
CASES += [f"outcome(lambda: (lambda f, v4: {e})({f}, jnp.arange(4.)))"
          for f in ("pp", "pb") for e in _MODES.values()]
CASES += [
    "outcome(lambda: jax.grad(lambda v: lax.ppermute(v, 'a', [(0, 1), (0, 1)]).sum())(x))",
    "outcome(lambda: va(pp)(jnp.arange(2.)))",
    "outcome(lambda: jax.grad(lambda v: va(pp)(v).sum())(jnp.arange(2.)))",
    "outcome(lambda: va(jax.grad(lambda v: pp(v).sum()))(x[:, :2]))",
]

# positional axes through jit(grad) of shard_map, vmap of shard_map, second derivatives,
# control flow under vmap, linear_transpose
CASES += [f"outcome(lambda: {e})" for e in [
    "jax.jit(jax.grad(lambda v: (sm(lambda w: lax.psum(w * w, (0, 'x')))(v)"
    " * jnp.arange(4.)).sum()))(m)",
    "jax.jit(jax.grad(lambda v: sm(lambda w: jnp.mean(jnp.sin(w), axis=(1, 'x')))(v).sum()))(m)",
    "jax.jit(jax.vmap(sm(lambda w: lax.psum(w, (0, 'x')))))(jnp.stack([m, m]))",
    "jax.hessian(lambda v: (lax.psum(v * v, 0) ** 2).sum())(jnp.arange(3.))",
    "jax.jacfwd(va(lambda v: lax.psum(v * v, (0, 'a'))))(x)",
    "va(lambda v: lax.scan(lambda c, r: (c + lax.psum(r, (0, 'a')), None), 0., v)[0])"
    "(jnp.arange(12.).reshape(2, 3, 2))",
    "va(lambda v: lax.cond(True, lambda u: lax.pmax(u, (0, 'a')), lambda u: u.sum(), v))(x)",
    "jax.linear_transpose(lambda v: lax.psum(v, 1), jnp.ones((2, 3)))(jnp.ones(2))",
]]

# a batching rule's refusal: JAX's whole message (the user's line is a note)
CASES += [f"message(lambda: {e})" for e in [
    "va(lambda v: lax.psum(v, 'a', axis_index_groups=[[0, 1]]))(x)",
    "va(lambda v: lax.pmax(v, 'a', axis_index_groups=[[0], [1]]))(x)",
    "va(lambda v: lax.all_gather(v, 'a', axis_index_groups=[[0, 1]]))(x)",
]]
