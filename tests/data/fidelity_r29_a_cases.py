"""Cases of tests/test_fidelity_r29_a.py: the ``axes`` of ``lax.reduce_*`` and ``argmax`` bound
as given (unsorted; NumPy ints stay NumPy ints), their refusals (a negative, repeated or
out-of-range axis, an int for a sequence, a wrong dtype) in JAX's classes, words and order of
checks, eager, under jit and under vmap (whose batching rule shifts the axes with NumPy), the
jaxprs and values of jnp's reductions (which normalize negative axes, keeping their order), and
the values, gradients, JVPs and vmaps of the reductions over unsorted axes, evaluated by JAX
0.10.2 (the recorder) and by minijax. Each is an expression over SETUP's names giving a
JSON-able outcome: a jaxpr's text, an error's type and first ``n`` lines, or a value's shape,
dtype and numbers.
"""

SETUP = """
lax = jax.lax
def ones(*shape, dtype=jnp.float32):
    return (jnp.arange(np.prod(shape), dtype=jnp.float32).reshape(shape) / 7).astype(dtype)
def ints(*shape, dtype=jnp.int32):
    return (jnp.arange(np.prod(shape)).reshape(shape) % 5 - 2).astype(dtype)
def outcome(thunk, n=1):
    try:
        out = thunk()
    except Exception as e:
        return [type(e).__name__, *str(e).split(chr(10))[:n]]
    return [list(out.shape), str(out.dtype), np.asarray(out, np.float64).ravel().tolist()]
def jaxpr(f, *args):
    try:
        return str(jax.make_jaxpr(f)(*args))
    except Exception as e:
        return [type(e).__name__, str(e).split(chr(10))[0]]
x = ones(2, 3)
y = ones(2, 3, 4)
b = ints(2, 3, 4) > 0
i = ints(2, 3, 4)
"""

CASES = []
# lax.reduce_*: the axes as given, unsorted, a list, NumPy ints
for _f, _a in [("reduce_sum", "y"), ("reduce_max", "y"), ("reduce_min", "y"),
               ("reduce_prod", "y"), ("reduce_and", "b"), ("reduce_or", "b"),
               ("reduce_xor", "i")]:
    CASES.append(f"jaxpr(lambda a: lax.{_f}(a, (2, 0)), {_a})")
    CASES.append(f"outcome(lambda: lax.{_f}({_a}, (2, 0)))")
    CASES.append(f"outcome(lambda: jax.jit(lambda a: lax.{_f}(a, (1, 2, 0)))({_a}))")
CASES += [
    "jaxpr(lambda a: lax.reduce_sum(a, [1, 0]), x)",
    "jaxpr(lambda a: lax.reduce_max(a, np.array([1, 0])), x)",
    "jaxpr(lambda a: lax.reduce_sum(a, ()), x)",
    "jaxpr(lambda a: lax.argmax(a, np.int64(1), jnp.int32), x)",
    "jaxpr(lambda a: lax.reduce(a, 0., lax.add, (2, 0)), y)",
    "jaxpr(lambda a: lax.reduce(a, -jnp.inf, lax.max, np.array([1, 0])), x)",
    "outcome(lambda: lax.reduce(y, 1., lambda p, q: p * q + 1, (2, 0)))",
]
# refusals: JAX's classes, words and order (the arithmetic reductions check the axes, then
# the dtype; the logical ones the dtype, then drop the axes with np.delete)
for _f in ["reduce_sum", "reduce_max", "reduce_min", "reduce_prod"]:
    CASES += [
        f"outcome(lambda: lax.{_f}(x, (-1,)))",
        f"outcome(lambda: lax.{_f}(x, (1, 1)))",
        f"outcome(lambda: lax.{_f}(x, (0, 2)))",
        f"outcome(lambda: jax.jit(lambda a: lax.{_f}(a, (1, -2)))(x))",
        f"outcome(lambda: lax.{_f}(x, 1))",
    ]
CASES += [
    "outcome(lambda: lax.reduce(x, 0., lax.add, (-1,)))",
    "outcome(lambda: lax.reduce_sum(x > 0, (0,)))",
    "outcome(lambda: lax.reduce_prod(x > 0, (0,)))",
    "outcome(lambda: lax.reduce_sum(x > 0, (5,)))",
    "outcome(lambda: lax.reduce_or(x, (0,)))",
    "outcome(lambda: lax.reduce_and(x, (7,)))",
    "outcome(lambda: lax.reduce_xor(ints(2, 3), (2,)))",
    "outcome(lambda: lax.reduce_or(x > 0, 0))",
    "jaxpr(lambda a: lax.reduce_or(a, (-1,)), x > 0)",
    "jaxpr(lambda a: lax.reduce_and(a, (1, 1)), x > 0)",
    "outcome(lambda: lax.reduce_or(x > 0, (-1,)), 2)",
    "outcome(lambda: jax.jit(lambda a: lax.reduce_and(a, (1, 1)))(x > 0), 2)",
    "outcome(lambda: lax.reduce(x, 1., lambda p, q: p * q + 1, (-1,)), 2)",
    "outcome(lambda: lax.reduce(x, 1., lambda p, q: p * q + 1, (2,)))",
    "outcome(lambda: lax.argmax(x, -1, jnp.int32))",
    "outcome(lambda: lax.argmin(x, 2, jnp.int32))",
    # under vmap: JAX checks only the batched reduction, its axes shifted by NumPy (axes
    # no eager case above binds: JAX's eager executables are cached by params, and
    # (np.int64(-1),) == (-1,) would reuse an earlier one, which prints its own ints)
    "outcome(lambda: jax.vmap(lambda a: lax.reduce_sum(a, (-2,)))(x))",
    "outcome(lambda: jax.vmap(lambda a: lax.reduce_max(a, (5,)))(x))",
    "outcome(lambda: jax.vmap(lambda a: lax.reduce_min(a, (1, 1)))(y))",
    "outcome(lambda: jax.vmap(lambda a: lax.reduce_sum(a > 0, (0,)))(x))",
    "outcome(lambda: jax.vmap(lambda a: lax.reduce_or(a, (0,)))(x))",
    "outcome(lambda: jax.vmap(lambda a: lax.argmax(a, 5, jnp.int32))(x))",
    "outcome(lambda: jax.vmap(lambda a: lax.argmax(a, -1, jnp.int32), in_axes=1)(y))",
]
# jnp's reductions: negative axes normalized, the order kept
for _src in ["jnp.sum(a, axis=(1, 0))", "jnp.sum(a, axis=-1)", "jnp.max(a, axis=(-1, 0))",
             "jnp.min(a, axis=(1, -3))", "jnp.prod(a, axis=(-1, 0))",
             "jnp.any(a > 0.5, axis=(-1, 0))", "jnp.all(a > 0.5, axis=(2, 1))",
             "jnp.mean(a, axis=(2, 0))", "jnp.sum(a, axis=(2, 0), keepdims=True)",
             "jnp.max(a, axis=(-1, -3), keepdims=True)", "jnp.argmax(a, axis=-1)",
             "jnp.argmin(a, axis=-3, keepdims=True)", "jnp.count_nonzero(a, axis=(2, 0))",
             "jnp.einsum('kji->j', a)", "jnp.sum(a, axis=(1, -2))"]:
    CASES.append(f"jaxpr(lambda a: {_src}, y)")
    CASES.append(f"outcome(lambda: (lambda a: {_src})(y))")
# derivatives and vmap over unsorted axes
CASES += [
    "jaxpr(jax.grad(lambda a: lax.reduce_sum(jnp.sin(a), (2, 0)).sum()), y)",
    "outcome(lambda: jax.grad(lambda a: lax.reduce_sum(jnp.sin(a), (2, 0)).sum())(y))",
    "jaxpr(jax.grad(lambda a: lax.reduce_max(a, (2, 0)).sum()), y)",
    "outcome(lambda: jax.grad(lambda a: (lax.reduce_max(jnp.round(a), (2, 0)) * "
    "jnp.arange(3.)).sum())(y))",
    "outcome(lambda: jax.grad(lambda a: (lax.reduce_min(jnp.round(a), (1, 0)) * "
    "jnp.arange(4.)).sum())(y))",
    "jaxpr(lambda a, t: jax.jvp(lambda v: lax.reduce_prod(v, (2, 0)), (a,), (t,)), y, y)",
    "outcome(lambda: jax.grad(lambda a: lax.reduce_prod(a + 0.5, (2, 0)).sum())(y))",
    "outcome(lambda: jax.jvp(lambda v: lax.reduce_prod(v + 0.5, (2, 1)), (y,), (y,))[1])",
    "outcome(lambda: jax.grad(lambda a: lax.reduce(a, 1., lax.mul, (2, 0)).sum())(y))",
    "jaxpr(jax.vmap(lambda a: lax.reduce_sum(a, (1, 0))), y)",
    "jaxpr(jax.vmap(lambda a: lax.reduce_sum(a, (1, 0)), in_axes=1), y)",
    "jaxpr(jax.vmap(lambda a: lax.reduce_max(a, (1, 0)), in_axes=2), y)",
    "jaxpr(jax.vmap(lambda a: lax.reduce_prod(a, (0, 1)), in_axes=1), y)",
    "jaxpr(jax.vmap(lambda a: lax.reduce_or(a, (1, 0)), in_axes=1), b)",
    "jaxpr(jax.vmap(lambda a: lax.reduce_sum(a, ()), in_axes=1), y)",
    "jaxpr(jax.vmap(lambda a: jnp.argmax(a, -1), in_axes=1), y)",
    "jaxpr(jax.vmap(lambda a: jnp.mean(a, axis=(1, 0)), in_axes=2), y)",
    "outcome(lambda: jax.vmap(lambda a: lax.reduce_sum(a, (1, 0)), in_axes=1)(y))",
    "outcome(lambda: jax.vmap(lambda a: lax.reduce_prod(a + 0.5, (1, 0)), in_axes=2)(y))",
    "outcome(lambda: jax.vmap(lambda a: lax.reduce_xor(a, (1, 0)), in_axes=1)(i))",
    "outcome(lambda: jax.vmap(lambda a: lax.argmin(a, 1, jnp.int32), in_axes=2)(y))",
    "outcome(lambda: jax.vmap(jax.grad(lambda a: lax.reduce_max(jnp.round(a), (1, 0))),"
    " in_axes=1)(y))",
]
