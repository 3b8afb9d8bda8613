"""Cases of tests/test_fidelity_r28_lead.py: ``lax.dot_general``'s refusals of bad dimension
numbers, eager and under jit, dots JAX runs (bf16 accumulating in f32 on the CPU), ``jvp``'s
refusals of primals and tangents that do not match, and the errors of converting a tracer to a
Python value (the first ``n`` lines of the message: JAX's next line names the traced function
where minijax names the argument or equation the value depends on), and the jaxprs, values and
gradients of ``.at[].set/add(mode='clip')`` (the indices clamped in scatter's lowering),
evaluated by JAX 0.10.2 (the recorder) and by minijax. Each is an expression over SETUP's names
giving a JSON-able outcome: an error's type and first line, or a value's shape, dtype and
numbers.
"""

SETUP = """
dg = jax.lax.dot_general
def ones(*shape, dtype=jnp.float32):
    return jnp.arange(np.prod(shape), dtype=jnp.float32).reshape(shape).astype(dtype) / 7
def ints(*shape, dtype):
    return (jnp.arange(np.prod(shape)).reshape(shape) % 5 - 2).astype(dtype)
def outcome(thunk, n=1):
    try:
        out = thunk()
    except Exception as e:
        return [type(e).__name__, *str(e).split(chr(10))[:n]]
    return [list(out.shape), str(out.dtype), np.asarray(out, np.float64).ravel().tolist()]
"""

_BAD = [
    # (lhs shape, rhs shape, dimension numbers)
    ((3, 5, 7, 6), (3, 6, 5, 2), (((3,), (2,)), ((0,), (0,)))),   # contracting sizes
    ((2, 3, 4), (5, 4, 6), (((2,), (1,)), ((0,), (0,)))),         # batch sizes
    ((3, 4), (4, 2), (((2,), (0,)), ((), ()))),                   # lhs out of range
    ((3, 4), (4, 2), (((1,), (-1,)), ((), ()))),                  # rhs negative
    ((3, 4), (4, 2), (((4,), (5,)), ((), ()))),                   # both out of range
    ((2, 3, 4), (2, 4), (((2,), (1,)), ((0,), ()))),              # batch counts
    ((4, 4), (4, 4), (((1, 1), (0, 1)), ((), ()))),               # lhs contracting repeated
    ((4, 4), (4, 4), (((0, 1), (1, 1)), ((), ()))),               # rhs contracting repeated
    ((2, 2, 4), (2, 2, 4), (((2,), (2,)), ((0, 0), (0, 1)))),     # lhs batch repeated
    ((2, 2, 4), (2, 2, 4), (((2,), (2,)), ((0, 1), (1, 1)))),     # rhs batch repeated
    ((2, 4), (2, 4), (((0,), (1,)), ((0,), (0,)))),               # lhs batch in contracting
    ((2, 4), (2, 4), (((1,), (0,)), ((0,), (0,)))),               # rhs batch in contracting
    ((3, 5, 7, 6), (3, 6, 5, 2), (((3,), (1,)), ((0,), (1,)))),   # two faults: order
]

CASES = []
for _l, _r, _d in _BAD:
    CASES.append(f"outcome(lambda: dg(ones{_l}, ones{_r}, {_d}))")
    CASES.append(f"outcome(lambda: jax.jit(lambda a, b: dg(a, b, {_d}))(ones{_l}, ones{_r}))")
CASES += [
    # bf16 x bf16 -> f32 and f16 x f16 -> f32 run (small integers: every partial sum is exact,
    # so the values do not depend on the CPU's summation order)
    "outcome(lambda: dg(ints(2, 8, 64, dtype=jnp.bfloat16), ints(2, 4, 64, dtype=jnp.bfloat16),"
    " (((2,), (2,)), ((0,), (0,))), preferred_element_type=jnp.float32))",
    "outcome(lambda: jax.jit(lambda a, b: dg(a, b, (((1,), (0,)), ((), ())),"
    " preferred_element_type=jnp.float32))(ints(8, 64, dtype=jnp.float16),"
    " ints(64, 4, dtype=jnp.float16)))",
]
CASES += [
    # jvp's checks: the tangent's dtype before its shape, in JAX's words
    "outcome(lambda: jax.jvp(jax.nn.relu, (jnp.arange(3),), (jnp.arange(3),)))",
    "outcome(lambda: jax.jvp(jnp.sin, (jnp.ones(3, jnp.bfloat16),), (jnp.ones(3),)))",
    "outcome(lambda: jax.jvp(jnp.sin, (jnp.ones(3),), (jnp.ones(2),)))",
    "outcome(lambda: jax.jvp(jnp.sin, (jnp.ones(3),), (jnp.ones(2, jnp.int32),)))",
    "outcome(lambda: jax.jvp(lambda a, b: a, (1., 2.), ((1., 2.),)))",
    "outcome(lambda: jax.jvp(jnp.sin, 1., (1.,)))",
    "outcome(lambda: jax.jvp(jnp.sin, [1.], 1.))",
    "outcome(lambda: jax.jvp(lambda x: x, (1,), (1.,)))",
]
CASES += [
    # converting a tracer to a Python value: JAX's classes, words and order of checks
    "outcome(lambda: jax.jit(lambda x: bool(x))(1.0))",
    "outcome(lambda: jax.jit(lambda x: 1 if x > 0 else 2)(1.0))",
    "outcome(lambda: jax.vmap(lambda x: x if x > 0 else -x)(jnp.ones(2)))",
    "outcome(lambda: jax.jit(lambda x: int(x))(1.0), 2)",
    "outcome(lambda: jax.jit(lambda x: float(x))(jnp.int8(1)), 2)",
    "outcome(lambda: jax.jit(lambda x: complex(x))(1.0), 2)",
    "outcome(lambda: jax.jit(lambda x: int(x))(jnp.ones(3)))",
    "outcome(lambda: jax.jit(lambda x: float(x))(jnp.ones((2, 2))))",
    "outcome(lambda: jax.jit(lambda x: [1, 2, 3][x])(1))",
    "outcome(lambda: jax.jit(lambda x: [1, 2][x])(1.0))",
    "outcome(lambda: jax.jit(lambda x: [1, 2][x])(jnp.ones(2, jnp.int32)))",
    "outcome(lambda: jax.jit(lambda x: hex(x))(1))",
    "outcome(lambda: jax.jit(lambda x: np.asarray(x))(jnp.ones(2, jnp.bfloat16)))",
    "outcome(lambda: jax.jit(lambda x: x.item())(jnp.ones(2)), 2)",
    "outcome(lambda: jax.jit(lambda x: x.tolist())(jnp.ones(2)), 2)",
    "outcome(lambda: jax.jit(lambda x: x.tobytes())(jnp.ones(2)), 2)",
    "outcome(lambda: jax.jit(lambda x: x.devices())(jnp.ones(2)), 2)",
    "outcome(lambda: jax.jit(lambda x: jnp.linspace(0, 1, x))(3), 2)",
]
CASES += [
    # .at[].set/.add with mode='clip': no clamp equation (scatter's lowering clamps)
    "str(jax.make_jaxpr(lambda a, i: a.at[i].set(1., mode='clip'))(jnp.zeros(4), 2))",
    "str(jax.make_jaxpr(lambda a, i: a.at[i].add(1., mode='clip'))(jnp.zeros((3, 4)), 2))",
    "outcome(lambda: jnp.arange(12.).reshape(3, 4).at[jnp.array([-5, 1, 9])].add("
    "jnp.ones((3, 4)) * 2, mode='clip'))",
    "outcome(lambda: jax.grad(lambda a: (a.at[jnp.array([-5, 1, 9]), 2].add(a[0, :3] * 2,"
    " mode='clip') * jnp.arange(1., 13.).reshape(3, 4)).sum())(jnp.arange(12.).reshape(3, 4)))",
    "outcome(lambda: jax.jvp(lambda a: a.at[jnp.array([0, 5]), jnp.array([7, -9])].set(3.,"
    " mode='clip'), (jnp.arange(12.).reshape(3, 4),), (jnp.ones((3, 4)),))[1])",
]
