"""Cases of tests/test_fidelity_r28_lead.py: ``lax.dot_general``'s refusals of bad dimension
numbers, eager and under jit, and dots JAX runs (bf16 accumulating in f32 on the CPU),
evaluated by JAX 0.10.2 (the recorder) and by minijax. Each is an expression over SETUP's names
giving a JSON-able outcome: an error's type and first line, or a value's shape, dtype and
numbers.
"""

SETUP = """
dg = jax.lax.dot_general
def ones(*shape, dtype=jnp.float32):
    return jnp.arange(np.prod(shape), dtype=jnp.float32).reshape(shape).astype(dtype) / 7
def outcome(thunk):
    try:
        out = thunk()
    except Exception as e:
        return [type(e).__name__, str(e).split(chr(10))[0]]
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
    # bf16 x bf16 -> f32: one dot, summed in XLA:CPU's order (its bits)
    "outcome(lambda: dg(ones(2, 8, 64, dtype=jnp.bfloat16), ones(2, 4, 64, dtype=jnp.bfloat16)"
    " * 3 - 1, (((2,), (2,)), ((0,), (0,))), preferred_element_type=jnp.float32))",
    "outcome(lambda: jax.jit(lambda a, b: dg(a, b, (((1,), (0,)), ((), ())),"
    " preferred_element_type=jnp.float32))(ones(8, 64, dtype=jnp.float16) - 3,"
    " ones(64, 4, dtype=jnp.float16)))",
]
