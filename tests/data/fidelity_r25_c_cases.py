"""Cases of tests/test_fidelity_r25_c.py, run under JAX 0.10.2 by record_fidelity_r25_c.py and
under minijax by the test (``jax``, ``jnp``, ``lax``, ``np`` are bound by the runner)."""

SETUP = '''
import re
X = np.arange(6, dtype=np.float32).reshape(2, 3)
S = np.float32(1.0)
V = np.ones(3, np.float32)
F = np.array([1.5, 2.0], np.float32)
I = np.array([1, 2], np.int32)
B = np.array([True, False])
C = np.array([1 + 2j, 3j], np.complex64)

def outcome(fn):
    """The error's class and message (addresses dropped), or the result's dtype and shape."""
    try:
        r = fn()
    except Exception as e:
        return [type(e).__name__, re.sub(r"0x[0-9a-f]+", "0x", str(e))]
    return ["ok", str(r.dtype), list(r.shape)]

def both(src):
    """The outcome eagerly and under jit of the thunk ``src``."""
    fn = eval(src)
    return [outcome(fn), outcome(lambda: jax.jit(fn)())]

def reprs(src):
    """repr and str of the tracers ``p`` sees when the transformation ``src`` runs it."""
    seen = []
    def p(t):
        seen.append([repr(t), str(t)])
        return t
    eval(src)(p)
    return seen

def f_xy(x, y=1, *args, **kw):
    return x

def warned(src):
    """The warnings the thunk ``src`` gives: class, message and whether it points at the
    caller's line (the thunk, compiled from a string)."""
    import warnings
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        eval(src)()
    return [[x.category.__name__, str(x.message), x.filename == "<string>"] for x in w]
'''

# 1. structural ops' checks and dtype errors, in JAX's words (no prefix, no user line)
ERRORS = [
    "lambda: jnp.permute_dims(X, (0, 2))",
    "lambda: jnp.transpose(X, (0, 0))",
    "lambda: jnp.moveaxis(X, (0, 0), (1, 0))",
    "lambda: lax.transpose(X, (0,))",
    "lambda: lax.transpose(X, (0.5, 1))",
    "lambda: lax.squeeze(X, (2,))",
    "lambda: lax.squeeze(X, (-3,))",
    "lambda: lax.squeeze(X, (0,))",
    "lambda: lax.squeeze(np.ones((1, 3)), (0, -2))",
    "lambda: lax.rev(X, (2,))",
    "lambda: lax.rev(X, (-1,))",
    "lambda: lax.rev(X, (0, 0))",
    "lambda: jnp.flip(X, (0, 0))",
    "lambda: lax.expand_dims(X, (4,))",
    "lambda: lax.expand_dims(X, (-5,))",
    "lambda: lax.expand_dims(X, (0, 0))",
    "lambda: lax.expand_dims(X, (0.5,))",
    "lambda: lax.expand_dims(np.ones(3), (0, -3))",
    "lambda: jnp.stack([X, X], axis=5)",
    "lambda: jnp.unstack(X, axis=5)",
    "lambda: jnp.median(jnp.zeros((0,)))",
    "lambda: jnp.median(jnp.zeros((0, 3)), axis=0)",
    "lambda: jnp.cross(np.array([True, False, True]), np.array([True, True, False]))",
    "lambda: jnp.tensordot(X, X, axes=(0, 0, 1))",
    "lambda: jnp.tensordot(X, X, axes='a')",
    "lambda: jnp.tensordot(X, X, axes=1.5)",
    "lambda: jnp.tensordot(X, X.T, axes=np.int64(1))",
    "lambda: jnp.tensordot(X, X, axes=3)",
    "lambda: jnp.tensordot(X, X, axes=(5, 0))",
    "lambda: jnp.tensordot(X, X, axes=(1, 1))",
    "lambda: jnp.power(B, B)",
    "lambda: jnp.power(I, -1)",
    "lambda: jnp.left_shift(F, 1)",
    "lambda: jnp.right_shift(F, 1)",
    "lambda: jnp.left_shift(C, 1)",
    "lambda: jnp.right_shift(B, 1)",
    "lambda: jnp.bitwise_and(F, F)",
    "lambda: jnp.bitwise_or(F, 1)",
    "lambda: jnp.bitwise_xor(F, F)",
    "lambda: jnp.bitwise_not(F)",
    "lambda: jnp.invert(F)",
    "lambda: jnp.bitwise_count(F)",
    "lambda: jnp.asarray(F) << 1",
    "lambda: jnp.remainder(C, C)",
    "lambda: jnp.fmod(C, C)",
    "lambda: jnp.divmod(C, C)",
    "lambda: jnp.asarray(C) % 1",
    "lambda: jnp.add(jnp.ones((2, 3)), jnp.ones((4,)))",
    "lambda: jnp.where(jnp.ones((2,)) > 0, jnp.ones((3,)), 0.0)",
]

# 2. the tracers' repr and str under each transformation
REPRS = [
    "lambda p: jax.jit(p)(S)",
    "lambda p: jax.jit(p)(np.ones((2, 3), np.int32))",
    "lambda p: jax.jit(lambda t: p(t > 0))(V)",
    "lambda p: jax.jit(lambda t: p(t * 0 + 1.0))(1.0)",
    "lambda p: jax.vmap(p)(V)",
    "lambda p: jax.vmap(p, in_axes=1)(np.ones((3, 2), np.float32))",
    "lambda p: jax.vmap(jax.vmap(p))(np.ones((3, 2), np.float32))",
    "lambda p: jax.jit(jax.vmap(p))(np.ones((3, 2), np.float32))",
    "lambda p: jax.grad(p)(S)",
    "lambda p: jax.grad(lambda t: p(t + 1))(2.0)",
    "lambda p: jax.grad(lambda t: p(t * 1.0).sum())(np.ones(2, np.float32))",
    "lambda p: jax.jvp(p, (S,), (S,))",
    "lambda p: jax.jvp(lambda t: p(jnp.sin(t)), (S,), (S,))",
    "lambda p: jax.jvp(p, (np.ones(2, np.float32),), (np.ones(2, np.float32),))",
    "lambda p: jax.linearize(lambda t: p(jnp.sin(p(t))), S)",
    "lambda p: jax.vjp(p, S)",
    "lambda p: jax.jit(jax.grad(lambda t: p(jnp.sin(t))))(S)",
    "lambda p: jax.jit(lambda t: jax.jvp(p, (t,), (t,)))(S)",
    "lambda p: jax.vmap(jax.grad(lambda t: p(jnp.sin(t))))(V)",
    "lambda p: jax.hessian(p)(S)",
    "lambda p: jax.grad(lambda t: p(jnp.sin(t)))(jnp.bfloat16(1))",
]

# 2. messages that show a tracer
TRACER_ERRORS = [
    "lambda: jax.jit(jnp.diff)(S)",
    "lambda: jax.jit(len)(S)",
    "lambda: jax.jit(hash)(S)",
    "lambda: jax.vmap(hash)(V)",
    "lambda: jax.grad(hash)(1.0)",
    "lambda: jax.jvp(hash, (1.0,), (1.0,))",
]

# 4. jit's refusal of an argument that is no array, naming the parameter's path
JIT_ARGS = [
    "lambda: jax.jit(f_xy)('a')",
    "lambda: jax.jit(f_xy)(1.0, 'a')",
    "lambda: jax.jit(f_xy)(1.0, y='a')",
    "lambda: jax.jit(f_xy)({'a': 1.0, 'b': [2.0, 'hello']})",
    "lambda: jax.jit(lambda t: t[0])((1.0, object()))",
    "lambda: jax.jit(f_xy)(b's')",
    "lambda: jax.jit(f_xy, static_argnums=0)(1, 'a')",
    "lambda: jax.jit(f_xy, static_argnames='y')('a', y=2)",
    "lambda: jax.jit(f_xy)(1, 2, 3, 'a')",
    "lambda: jax.jit(f_xy)(1, q='a')",
    "lambda: jax.jit(f_xy).lower('a')",
    "lambda: jax.eval_shape(f_xy, 'a')",
    "lambda: jnp.sin('a')",
]

# 5. a 64-bit dtype asked for with x64 off: JAX's UserWarning, where JAX gives it (a Python
# type or a NumPy float64 value's own dtype is no request)
WARNINGS = [
    "lambda: jnp.zeros(3, jnp.float64)",
    "lambda: jnp.ones(3, np.float64)",
    "lambda: jnp.empty(3, 'float64')",
    "lambda: jnp.full(3, 1.0, jnp.float64)",
    "lambda: jnp.full((2,), np.ones(2), jnp.float64)",
    "lambda: jnp.zeros_like(V, jnp.float64)",
    "lambda: jnp.ones_like(V, dtype=jnp.float64)",
    "lambda: jnp.full_like(V, 1, dtype=jnp.float64)",
    "lambda: jnp.full_like(V, np.ones(3), dtype=jnp.float64)",
    "lambda: jnp.empty_like(V, dtype=jnp.float64)",
    "lambda: jnp.array([1.0], jnp.float64)",
    "lambda: jnp.asarray([1.0], jnp.float64)",
    "lambda: jnp.asarray(1.0, np.dtype('float64'))",
    "lambda: jnp.array(np.ones(3))",
    "lambda: jnp.asarray(np.ones(3))",
    "lambda: jnp.array(np.float64(1.0))",
    "lambda: jnp.copy(np.ones(2))",
    "lambda: jnp.ones(3).astype(jnp.float64)",
    "lambda: jnp.astype(jnp.ones(3), jnp.float64)",
    "lambda: jnp.arange(3, dtype=jnp.float64)",
    "lambda: jnp.arange(3, dtype=jnp.int64)",
    "lambda: jnp.linspace(0, 1, 3, dtype=jnp.float64)",
    "lambda: jnp.logspace(0, 1, 3, dtype=jnp.float64)",
    "lambda: jnp.geomspace(1, 2, 3, dtype=jnp.float64)",
    "lambda: jnp.eye(2, dtype=jnp.float64)",
    "lambda: jnp.identity(2, dtype=jnp.float64)",
    "lambda: jnp.tri(2, dtype=jnp.int64)",
    "lambda: jnp.zeros(3, jnp.uint64)",
    "lambda: jnp.zeros(3, jnp.complex128)",
    "lambda: jnp.zeros(3, float)",
    "lambda: jnp.zeros(3, int)",
    "lambda: jnp.ones(2, dtype=complex)",
    "lambda: jnp.float64(1.0)",
    "lambda: jnp.ones(4, jnp.float32).view(jnp.float64)",
    "lambda: jnp.fromfunction(lambda i: i, (3,), dtype=jnp.float64)",
    "lambda: jnp.result_type(jnp.float64)",
    "lambda: jnp.promote_types(jnp.float32, jnp.float64)",
    "lambda: jnp.finfo(jnp.float64)",
    "lambda: jnp.zeros(3, jnp.float32)",
    # reductions given dtype= (shapes of their own: a jitted one warns as it traces)
    "lambda: jnp.mean(jnp.ones(11), dtype=jnp.float64)",
    "lambda: jnp.var(jnp.ones(12), dtype=jnp.float64)",
    "lambda: jnp.std(jnp.ones(13), dtype=jnp.float64)",
    "lambda: jnp.nanvar(jnp.ones(14), dtype=jnp.float64)",
    "lambda: jnp.nanstd(jnp.ones(15), dtype=jnp.float64)",
    "lambda: jnp.cumsum(jnp.ones(16), dtype=jnp.float64)",
    "lambda: jnp.cumprod(jnp.ones(17), dtype=jnp.int64)",
    "lambda: jnp.nancumsum(jnp.ones(18), dtype=jnp.float64)",
    "lambda: jnp.sum(jnp.ones(19), dtype=jnp.float64)",
    "lambda: jnp.prod(jnp.ones(20), dtype=jnp.int64)",
    "lambda: jnp.sum(jnp.ones(21), dtype=float)",
    "lambda: jnp.nansum(jnp.ones(22), dtype=jnp.float64)",
    "lambda: jnp.nanprod(jnp.ones(23), dtype=jnp.float64)",
    "lambda: jnp.nanmean(jnp.ones(24), dtype=jnp.float64)",
    "lambda: jnp.nanmean(jnp.ones(25, jnp.int32), dtype=jnp.float64)",
    "lambda: jnp.cumulative_sum(jnp.ones(26), dtype=jnp.float64)",
    "lambda: jnp.cumulative_prod(jnp.ones(27), dtype=jnp.float64, include_initial=True)",
]
