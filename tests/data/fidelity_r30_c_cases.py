"""Cases of tests/test_fidelity_r30_c.py: jaxprs under vmap of dynamic_slice,
dynamic_update_slice, gather and scatter (JAX batches the dynamic ones as gather/scatter),
jnp.linalg.solve and broadcasts of constants under vmap of grad; jnp.average's values, dtypes,
errors and jaxprs; lax.slice's and dynamic_slice_in_dim's errors, evaluated by JAX 0.10.2 (the
recorder) and by minijax. Each is an expression over SETUP's names giving a JSON-able outcome.
"""

SETUP = """
lax = jax.lax
def outcome(thunk):
    try:
        out = thunk()
    except Exception as e:
        return [type(e).__name__, str(e).split(chr(10))[0]]
    return [[str(jax.typeof(o)), np.asarray(o).tolist()] for o in jax.tree.leaves(out)]
def vjaxpr(f, in_axes, *args):
    try:
        return str(jax.make_jaxpr(jax.vmap(f, in_axes=in_axes))(*args))
    except Exception as e:
        return [type(e).__name__, str(e).split(chr(10))[0]]
def jaxpr(f, *args):
    try:
        return str(jax.make_jaxpr(f)(*args))
    except Exception as e:
        return [type(e).__name__, str(e).split(chr(10))[0]]
x34 = jnp.arange(12.).reshape(3, 4)
u32 = jnp.arange(6.).reshape(3, 2) + 100
i3 = jnp.array([0, 1, 3])
x234 = jnp.arange(24.).reshape(2, 3, 4)
def dus(x, u, i):
    return lax.dynamic_update_slice(x, u, (i,))
def ds(x, i):
    return lax.dynamic_slice(x, (i,), (2,))
def pick(ax, full, one):
    return full if ax is not None else one
"""

_AXES3 = [(0, None, None), (None, 0, None), (None, None, 0), (0, 0, None), (0, None, 0),
          (None, 0, 0), (0, 0, 0)]
CASES = []
for _ax in _AXES3:
    _args = f"pick({_ax[0]}, x34, x34[0]), pick({_ax[1]}, u32, u32[0]), pick({_ax[2]}, i3, i3[0])"
    CASES += [f"vjaxpr(dus, {_ax}, {_args})",
              f"outcome(lambda: jax.vmap(dus, in_axes={_ax})({_args}))"]
for _ax in [(0, None), (None, 0), (0, 0)]:
    _args = f"pick({_ax[0]}, x34, x34[0]), pick({_ax[1]}, i3, i3[0])"
    CASES += [f"vjaxpr(ds, {_ax}, {_args})",
              f"outcome(lambda: jax.vmap(ds, in_axes={_ax})({_args}))"]
CASES += [
    "vjaxpr(lambda x: lax.dynamic_slice(x, (1, 2), (2, 2)), 1, x234)",
    "outcome(lambda: jax.vmap(lambda x: lax.dynamic_slice(x, (1, 2), (2, 2)), 1)(x234))",
    "vjaxpr(lambda x, u: lax.dynamic_update_slice(x, u, (1, 2)), (1, 2), x234, jnp.ones((2, 2, 3)))",
    "vjaxpr(lambda x, u, i: lax.dynamic_update_slice(x, u, (1, i)), (1, 2, 0), x234, "
    "jnp.ones((2, 2, 3)), jnp.array([0, 1, 2]))",
    "outcome(lambda: jax.vmap(lambda x, u, i: lax.dynamic_update_slice(x, u, (1, i)), (1, 2, 0))"
    "(x234, jnp.ones((2, 2, 3)), jnp.array([0, 1, 2])))",
    "vjaxpr(lambda x, u: lax.dynamic_update_slice(x, u, ()), 0, jnp.ones(3), jnp.arange(3.))",
    "outcome(lambda: jax.vmap(lambda x, u: lax.dynamic_update_slice(x, u, ()))(jnp.ones(3), "
    "jnp.arange(3.)))",
    "vjaxpr(lambda x: lax.dynamic_slice(x, (), ()), 0, jnp.ones(3))",
    "vjaxpr(lambda x, i: x[i], (0, 0), x34, jnp.array([1, -1, 2]))",
    "vjaxpr(lambda x, i: x[i], (0, None), x34, 2)",
    "vjaxpr(lambda x, i: x.at[i].set(5.), (0, 0), x34, jnp.array([1, -1, 2]))",
    "vjaxpr(lambda x, i: lax.scatter(x, i, jnp.ones((1,)), lax.ScatterDimensionNumbers((), (0,), "
    "(0,))), (0, None), x34, jnp.array([[1]]))",
    "vjaxpr(lambda x, i: lax.gather(x, i, lax.GatherDimensionNumbers((), (0,), (0,)), (1,)), "
    "(0, None), x34, jnp.array([[1]]))",
    "vjaxpr(lambda x, i: lax.gather(x, i, lax.GatherDimensionNumbers((), (0,), (0,)), (1,)), "
    "(0, 0), x34, jnp.array([[[1]]] * 3))",
    "vjaxpr(lambda x, i: lax.gather(x, i, lax.GatherDimensionNumbers((), (0,), (0,)), (1,), "
    "indices_are_sorted=True, unique_indices=True), (None, 0), x34[0], jnp.array([[[1]]] * 3))",
    "vjaxpr(lambda x, i: lax.scatter_add(x, i, jnp.ones((1,)), lax.ScatterDimensionNumbers((),"
    " (0,), (0,))), (1, 0), x34, jnp.array([[[1]]] * 4))",
    "jaxpr(lambda x, i: lax.dynamic_slice(x, (i,), (2,)), jnp.arange(4.), 2)",
    "jaxpr(lambda x, i: lax.dynamic_update_slice(x, jnp.ones(2), (i,)), jnp.arange(4.), 2)",
    "jaxpr(lambda x, i: lax.dynamic_slice(x, (i,), (2,)), jnp.arange(4.), jnp.int32(2))",
    "outcome(lambda: jax.jit(lambda x, i: lax.dynamic_slice(x, (i,), (2,)))(jnp.arange(4.), -1))",
]
# broadcasts of constants under vmap of grad: add/sub's JVP reshapes a tangent with size-1 axes
# before broadcasting it (JAX's _maybe_broadcast); a per-example scalar beside a full-rank
# operand gets size-1 axes after the batch axes are at the front (_handle_scalar_broadcasting)
_GRADS = [
    ("lambda x: jnp.sum(x * jnp.ones(3))", "jnp.ones((2, 3))"),
    ("lambda x: jnp.sum(x * jnp.ones(3))", "jnp.ones(2)"),
    ("lambda x: jnp.sum(jnp.ones(3) * x)", "jnp.ones(2)"),
    ("lambda x: (x * jnp.ones(3)).sum()", "jnp.ones(2)"),
    ("lambda x: jnp.sum(x + jnp.zeros((4, 3)))", "jnp.ones((2, 3))"),
    ("lambda x: jnp.sum(x - jnp.zeros((4, 3)))", "jnp.ones((2, 3))"),
    ("lambda x: jnp.sum(jnp.zeros((4, 3)) - x)", "jnp.ones((2, 3))"),
    ("lambda x: jnp.sum(x * jnp.arange(3.))", "jnp.ones((2, 3))"),
    ("lambda x: jnp.mean(x * jnp.ones((2, 3)))", "jnp.ones((2, 3))"),
    ("lambda x: jnp.sum(jnp.broadcast_to(x, (4, 3)))", "jnp.ones((2, 3))"),
    ("lambda x: jnp.sum(jnp.sin(x) / jnp.ones((4, 3)))", "jnp.ones((2, 3))"),
]
CASES += [f"jaxpr(jax.vmap(jax.grad({f})), {a})" for f, a in _GRADS]
CASES += [f"outcome(lambda: jax.vmap(jax.grad({f}))({a}))" for f, a in _GRADS]
CASES += [f"jaxpr(jax.grad({f}), {a}[0])" for f, a in _GRADS]
CASES += [
    "jaxpr(jax.vmap(lambda x, y: x * y, (0, None)), jnp.ones(2), jnp.ones((3, 4)))",
    "jaxpr(jax.vmap(lambda x, y: x + y, (None, 1)), jnp.ones((3, 4)), jnp.ones((3, 2)))",
    "jaxpr(jax.vmap(lambda x, y: x + y, (None, 1)), jnp.ones((3,)), jnp.ones((3, 2)))",
    "jaxpr(jax.vmap(lambda x, y: jnp.maximum(x, y), (0, 0)), jnp.ones(2), jnp.ones((2, 3)))",
    "jaxpr(jax.vmap(lambda x, y: lax.pow(y, x), (1, 0)), jnp.ones((3, 2)), jnp.ones(2))",
    "jaxpr(jax.vmap(lambda x, y: jnp.where(x > 0, x, y), (0, 0)), jnp.ones((2, 3)), jnp.ones(2))",
    "jaxpr(lambda x, t: jax.jvp(lambda v: v + jnp.zeros((4, 3)), (x,), (t,)), jnp.ones((1, 3)), "
    "jnp.ones((1, 3)))",
    "jaxpr(lambda x, t: jax.jvp(lambda v: jnp.zeros((4, 3)) - v, (x,), (t,)), jnp.ones((1, 3)), "
    "jnp.ones((1, 3)))",
]
# jnp.average: weights of one axis per averaged axis (unsorted, negative axes), of a's shape,
# integer operands, returned sums of weights, keepdims; values, dtypes, errors and jaxprs
SETUP += """
a234 = jnp.arange(24.).reshape(2, 3, 4)
ai234 = jnp.arange(24).reshape(2, 3, 4)
w_full = jnp.arange(1., 25.).reshape(2, 3, 4)
w42 = jnp.arange(1., 9.).reshape(4, 2)
w3 = jnp.array([1., 2., 3.])
wi42 = jnp.arange(1, 9).reshape(4, 2)
"""
_AVG = [
    "axis=(2, 0), weights=w42", "axis=(-1, 0), weights=w42", "axis=(0, 2), weights=w42.T",
    "axis=(2, 0), weights=w42, returned=True",
    "axis=(2, 0), weights=w42, returned=True, keepdims=True",
    "axis=(0, -1), weights=w42.T, returned=True, keepdims=True",
    "axis=1, weights=w3", "axis=1, weights=w3, returned=True", "axis=-2, weights=w3, keepdims=True",
    "axis=(2, 0), weights=w_full, returned=True", "axis=None, weights=w_full, returned=True",
    "axis=None, weights=w42", "axis=(2, 0), weights=w3", "axis=(2, 2), weights=w42",
    "axis=3, weights=w3", "returned=True", "axis=(2, 0), returned=True",
    "axis=(2, 0), returned=True, keepdims=True", "axis=[2, 0], weights=w42",
    "axis=(1,), weights=w3, returned=True",
]
CASES += [f"outcome(lambda: jnp.average(a234, {kw}))" for kw in _AVG]
CASES += [f"jaxpr(lambda a: jnp.average(a, {kw}), a234)" for kw in _AVG]
CASES += [
    "outcome(lambda: jnp.average(ai234, axis=(2, 0), weights=wi42, returned=True))",
    "outcome(lambda: jnp.average(ai234, returned=True))",
    "outcome(lambda: jnp.average(ai234, axis=1, weights=jnp.array([1, 2, 3], jnp.int8), "
    "returned=True))",
    "outcome(lambda: jnp.average(ai234.astype(jnp.float16), axis=1, weights=jnp.array([1, 2, 3]),"
    " returned=True))",
    "outcome(lambda: jnp.average(jnp.arange(3), weights=jnp.array([True, False, True]), "
    "returned=True))",
    "outcome(lambda: jnp.average([1., 2.], weights=[1., 2.]))",
    "outcome(lambda: jnp.average(jnp.ones(3), weights=[1., 2., 3.]))",
    "jaxpr(lambda a, w: jnp.average(a, axis=(2, 0), weights=w, returned=True), ai234, wi42)",
    "jaxpr(lambda a: jnp.average(a, returned=True), ai234)",
    "jaxpr(lambda a: jnp.average(a, axis=1, returned=True), ai234)",
    "outcome(lambda: jax.grad(lambda w: jnp.average(a234, axis=(2, 0), weights=w)[1])(w42))",
    "outcome(lambda: jax.vmap(lambda a: jnp.average(a, axis=(1, 0), weights=w42.T))(a234))",
]
# lax.slice's shape rule, the dynamic slices' rules and the *_in_dim axes, in JAX 0.10.2's
# words, staged (jit); JAX's eager lax.slice dispatches dynamic_slice (FINDINGS: open)
SETUP += """
x23 = jnp.ones((2, 3))
def jit_outcome(f):
    return outcome(lambda: jax.jit(f)(x23))
"""
_SLICES = [
    "(0,), (1,)", "(0, 0), (1, 1), (1,)", "(0, 0), (3, 1)", "(-1, 0), (1, 1)", "(1, 0), (0, 1)",
    "(0, 0), (2, 3), (0, 1)", "(0, 0), (2, 3), (-1, 1)", "(0, 0), (2, 4)", "(0, 0, 0), (1, 1, 1)",
    "(0, 0), (1, -1)", "(0.5, 0), (1, 1)", "(0, 0), (2, 3), (1, 2)", "(0, 0), (2, 3), (1, 0)",
    "(0, 0), (2, 3), (2, 2)", "(2, 3), (2, 3)", "[0, 0], [1, 1]", "(0, 0), (1, 1), None",
    "(np.int64(0), 0), (1, np.int32(1))", "(0, 0), (2, 3), (np.int64(2), 1)",
    "(0, 0), (2, 3), (1, 1, 1)",
]
CASES += [f"jit_outcome(lambda x: lax.slice(x, {a}))" for a in _SLICES]
CASES += [f"jaxpr(lambda x: lax.slice(x, {a}), x23)" for a in _SLICES[-4:]]
_IN_DIM = [
    "lax.dynamic_slice_in_dim(x, 0, 1, {ax})", "lax.dynamic_update_slice_in_dim(x, jnp.ones((1, 3)), 0, {ax})",
    "lax.dynamic_update_slice_in_dim(x, jnp.ones((2, 1)), 0, {ax})",
    "lax.dynamic_index_in_dim(x, 0, {ax})", "lax.dynamic_index_in_dim(x, 0, {ax}, keepdims=False)",
    "lax.dynamic_update_index_in_dim(x, jnp.ones(3), 0, {ax})",
    "lax.dynamic_update_index_in_dim(x, jnp.ones(2), 0, {ax})",
    "lax.slice_in_dim(x, 0, 1, axis={ax})", "lax.index_in_dim(x, 0, axis={ax})",
    "lax.index_in_dim(x, 0, axis={ax}, keepdims=False)", "lax.index_in_dim(x, 5, axis={ax})",
]
CASES += [f"outcome(lambda: (lambda x: {f.format(ax=ax)})(x23))" for f in _IN_DIM
          for ax in (0, 1, 2, -1, -2, -3, 5, 1.0)]
CASES += [f"jit_outcome(lambda x: {f.format(ax=ax)})" for f in _IN_DIM[:3] for ax in (2, -1)]
_DYN = [
    "lax.dynamic_update_slice(x, jnp.ones((3, 1)), (0, 0))",
    "lax.dynamic_update_slice(x, jnp.ones((3,)), (0, 0))",
    "lax.dynamic_update_slice(x, jnp.ones((1, 1)), (0,))",
    "lax.dynamic_update_slice(x, jnp.ones((1, 1), jnp.int32), (0, 0))",
    "lax.dynamic_update_slice(x, jnp.ones((1, 1)), (0., 0))",
    "lax.dynamic_update_slice(x, jnp.ones((1, 1)), jnp.array([0, 1]))",
    "lax.dynamic_update_slice(x, jnp.ones((1, 1)), np.array([1, 2]))",
    "lax.dynamic_slice(x, (0, 0), (3, 1))", "lax.dynamic_slice(x, (0, 0), (-1, 1))",
    "lax.dynamic_slice(x, (0,), (1, 1))", "lax.dynamic_slice(x, (0, 0), (1,))",
    "lax.dynamic_slice(x, (0, 0), (1, 1, 1))", "lax.dynamic_slice(x, (0., 0), (1, 1))",
    "lax.dynamic_slice(x, (jnp.zeros(2, int), 0), (1, 1))",
    "lax.dynamic_slice(x, jnp.array([1, 1]), (1, 2))",
    "lax.dynamic_slice(x, jnp.array([[1, 1]]), (1, 2))",
    "lax.dynamic_slice(x, jnp.array(1), (1, 2))",
    "lax.dynamic_update_slice(x, jnp.ones((1, 1)), (jnp.zeros(2, int), 0))",
    "lax.dynamic_slice_in_dim(x, 0, 4, 1)", "lax.dynamic_slice_in_dim(x, 0, -1, 1)",
    "lax.dynamic_update_index_in_dim(x, jnp.ones((3, 3)), 0, 0)",
]
CASES += [f"outcome(lambda: (lambda x: {f})(x23))" for f in _DYN]
CASES += [f"jit_outcome(lambda x: {f})" for f in _DYN]
CASES += [
    "outcome(lambda: jax.jit(lambda x, i: lax.dynamic_slice(x, i, (1, 2)))(x23, jnp.array([1, 2])))",
    "outcome(lambda: jax.jit(lambda x, i: lax.dynamic_update_slice(x, jnp.zeros((1, 2)), i))(x23, "
    "jnp.array([1, -1])))",
]
