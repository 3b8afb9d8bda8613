"""Cases of tests/test_fidelity_r31_lead.py, evaluated by JAX 0.10.2 (the recorder) and by
minijax: `lax.convert_element_type` of a Python or NumPy scalar to a strong dtype converts with
NumPy before it binds, under any trace (so under `jit` a complex scalar to bool is NumPy's
nonzero test and a Python complex to a real dtype NumPy's TypeError), and only then folds;
`lax.dynamic_slice` & co.: `allow_negative_indices` (a bool or one per dimension; the `_in_dim`
forms apply it to their axis alone), each start index of its own dtype (a Python int the default
int) and a mix refused in JAX's words; jnp indexing converts its starts to int32 first; a
traced array's iteration (`index_in_dim` of each row: a strided slice and a squeeze);
`jnp.unwrap` (promoted with its period: integers with an integer period stay integers; complex
refused) (run 37000); an eager shard_map of a gradient whose jitted call has a literal output
(run 37000 s37009-90: a crash); the weak type of a gradient through bessel_i0e/i1e's JVP
(run 37000 s37006-580: JAX's rules use jnp's operators); polygamma's and betainc's refused
derivatives in JAX's words (polygamma in m gave 0).
Each is an expression over SETUP's names giving a JSON-able outcome.
"""

SETUP = """
import warnings
lax = jax.lax
def outcome(thunk):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = thunk()
        except Exception as e:
            return ["raises", type(e).__name__, str(e).split("\\n")[0][:60]]
    return [list(out.shape), str(out.dtype), np.asarray(out, np.float64).ravel().tolist()]
def values(out):
    return [list(out.shape), str(out.dtype), np.asarray(out, np.float64).ravel().tolist()]
def both(make):
    return [outcome(make), outcome(jax.jit(make))]
x34 = jnp.arange(12.).reshape(3, 4)
x30 = jnp.arange(30.)
def grads_in_shard_map(f):
    mesh = jax.make_mesh((4,), ("d",), axis_types=(jax.sharding.AxisType.Auto,))
    def shard(a, x):
        return jax.tree_util.tree_map(lambda l: lax.psum(l, "d"),
                                      jax.grad(f, argnums=(0, 1))(a, x))
    ga, gx = jax.shard_map(shard, mesh=mesh, in_specs=(jax.P(), jax.P()),
                           out_specs=jax.P())(2.0, x34 / 10)
    return [values(ga), ga.weak_type, values(gx)]
"""

CASES = [
    f"both(lambda: lax.convert_element_type({v}, {t}))" for v, t in [
        ("np.complex64(1j)", "bool"), ("np.complex64(-1.5j)", "bool"), ("1j", "bool"),
        ("1j", "jnp.float32"), ("1 + 2j", "jnp.int32"), ("np.complex64(1 + 2j)", "jnp.float32"),
        ("np.float32(300.7)", "jnp.int8"), ("2 ** 40", "jnp.float32"),
        ("float('inf')", "jnp.int32"), ("float('nan')", "bool"), ("np.float64(-0.0)", "bool"),
        ("True", "jnp.float32"), ("np.int8(-3)", "jnp.uint8")]
] + [
    "str(jax.make_jaxpr(lambda x: x + lax.convert_element_type(np.complex64(1j), bool))(True))",
    "str(jax.make_jaxpr(lambda x: x * lax.convert_element_type(2.5, jnp.int32))(3))",
] + [
    f"both(lambda: {e})" for e in [
        "lax.dynamic_slice(x34, (jnp.int8(1), jnp.int16(1)), (1, 2))",
        "lax.dynamic_slice(x34, (jnp.int8(1), 1), (1, 2))",
        "lax.dynamic_slice(x34, (jnp.int32(1), 1), (1, 2))",
        "lax.dynamic_slice(x34, (jnp.int8(1), np.int64(1)), (1, 2))",
        "lax.dynamic_slice(x34, (jnp.uint8(1), jnp.int8(1)), (1, 2))",
        "lax.dynamic_slice(x34, (np.int64(1), 1), (1, 2))",
        "lax.dynamic_update_slice(x34, jnp.ones((1, 2)), (jnp.int8(1), 1))",
        "lax.dynamic_slice_in_dim(x34, jnp.int8(1), 2, 1)",
        "lax.dynamic_index_in_dim(x34, jnp.int8(-1), 1)",
        "x34[jnp.int8(1), 1:3]",
        "x34[jnp.int8(-1)]",
        "x34[jnp.uint8(2), jnp.int16(-1)]",
        "lax.dynamic_slice(x30, (-1,), (1,), allow_negative_indices=False)",
        "lax.dynamic_slice(x30, (jnp.int32(-1),), (1,), allow_negative_indices=False)",
        "lax.dynamic_slice(x30.reshape(3, 10), (jnp.int32(-1), -1), (1, 1),"
        " allow_negative_indices=[True, False])",
        "lax.dynamic_slice(x30.reshape(3, 10), (jnp.int32(-1), 1), (1, 1),"
        " allow_negative_indices=[True, False])",
        "lax.dynamic_slice_in_dim(x30, -2, 1, allow_negative_indices=False)",
        "lax.dynamic_slice_in_dim(x30, -2, 1)",
        "lax.dynamic_index_in_dim(x30, jnp.int32(-2), allow_negative_indices=False)",
        "lax.dynamic_index_in_dim(x30, jnp.int32(-2), keepdims=False)",
        "lax.dynamic_update_slice(x30, jnp.ones(2), (jnp.int32(-1),),"
        " allow_negative_indices=False)[-3:]",
        "lax.dynamic_update_slice(x30, jnp.ones(2), (-1,), allow_negative_indices=False)",
        "lax.dynamic_update_slice_in_dim(x30, jnp.ones(2), jnp.int32(-1), 0,"
        " allow_negative_indices=False)[-3:]",
        "lax.dynamic_update_index_in_dim(x30, 7., jnp.int32(-1), 0,"
        " allow_negative_indices=False)[-3:]",
        "lax.dynamic_update_index_in_dim(x30, 7., jnp.int32(-1), 0)[-3:]",
        "lax.dynamic_update_index_in_dim(x34, jnp.ones(3), -1, 1,"
        " allow_negative_indices=False)",
        "lax.dynamic_index_in_dim(x34, -1, 1, allow_negative_indices=False)",
        "lax.dynamic_index_in_dim(x34, np.int8(-3), 0, False, allow_negative_indices=False)",
        "lax.dynamic_index_in_dim(x34, -5, 1)",
    ]
] + [
    "str(jax.make_jaxpr(lambda i: lax.dynamic_slice(x30, (i,), (1,),"
    " allow_negative_indices=False))(1))",
    "str(jax.make_jaxpr(lambda i: lax.dynamic_slice(x30, (i,), (1,)))(jnp.int8(1)))",
    "str(jax.make_jaxpr(lambda i: x34[i])(jnp.int8(1)))",
    "str(jax.make_jaxpr(lambda i: x34[i, i.astype(jnp.int16)])(jnp.int8(1)))",
] + [
    "str(jax.make_jaxpr(lambda x: list(x))(jnp.ones((2, 3))))",
    "str(jax.make_jaxpr(lambda x: [a for a in x][1])(jnp.ones((3,))))",
    "values(jax.jit(lambda x: sum(r.sum() * i for i, r in enumerate(x)))(x34))",
] + [
    f"both(lambda: jnp.unwrap({e}))" for e in [
        "jnp.array([True, False, True, True])",
        "jnp.array([0, 400, 10, -300], jnp.int32)",
        "jnp.array([0, 400, 10, -300], jnp.int32), period=360",
        "jnp.array([0, 100, 10, -30], jnp.int8), period=360",
        "jnp.array([0., 4., 7., -3.], jnp.float32)",
        "jnp.array([0., 4., 7., -3.], jnp.float16)",
        "jnp.array([0., 4., 7., -3.], jnp.float32), discont=1.0",
        "jnp.array([0., 4., 7., -3.], jnp.complex64)",
        "jnp.zeros((2, 0))",
        "x34, axis=0",
        "[0., 7.]",
    ]
] + [
    "jax.vmap(jnp.unwrap)(jnp.array([[True, False, True]] * 2)).weak_type",
    "values(jax.grad(lambda x: jnp.unwrap(x).sum())(jnp.array([0., 4., 7., -3.])))",
] + [
    "grads_in_shard_map(lambda a, x: jnp.sum(jnp.prod(x, keepdims=True)) + jnp.sum(jnp.exp(x)))",
    "grads_in_shard_map(lambda a, x: (jnp.astype(a, bool), jnp.prod(x, axis=0, keepdims=True),"
    " jnp.sum(jnp.exp(x)))[2])",
    "grads_in_shard_map(lambda a, x: jnp.sum(jnp.pad(x, 1) * a))",
] + [
    f"[[r.dtype.name, r.weak_type] for r in [jax.grad(lambda x: jax.jvp({f}, (x,),"
    f" (jnp.float32(0.7),))[{k}])(1.0)]]"
    for f in ("lax.bessel_i1e", "lax.bessel_i0e", "lax.erf") for k in (0, 1)
] + [
    "outcome(lambda: jax.grad(lambda m: lax.polygamma(m, 2.0))(1.0))",
    "outcome(lambda: jax.grad(lambda x: lax.polygamma(1.0, x))(2.0))",
    "outcome(lambda: jax.grad(lambda a: lax.betainc(a, 2.0, 0.5))(1.5))",
    "outcome(lambda: jax.grad(lambda b: lax.betainc(1.5, b, 0.5))(2.0))",
    "outcome(lambda: jax.grad(lambda x: lax.betainc(1.5, 2.0, x))(0.5))",
]
