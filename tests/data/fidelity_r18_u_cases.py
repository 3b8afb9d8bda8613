"""Cases for tests/test_fidelity_r18_u.py (run 22000: s22022-124, s22050-285, s22043-231),
evaluated by JAX 0.10.2 (tests/data/record_fidelity_r18_u.py) and by minijax. SETUP needs
``jax``, ``jnp``, ``lax``, ``np`` and two devices."""
import math

SETUP = '''
mesh = jax.sharding.Mesh(np.array(jax.devices()[:2]), ("d",))
P = jax.P
TYPES = []
p = np.arange(4.0, dtype=np.float32).reshape(2, 2) - 1.5        # split over 'd': varies
x = np.linspace(-1, 1, 6).reshape(3, 2).astype(np.float32)     # replicated

def pick(p, x):  # a cond whose batched predicate varies over 'd', its operand does not
    out = lax.cond(jnp.sum(p) > 0, jnp.sin, jnp.cos, x)
    TYPES.append(str(jax.typeof(out)))
    return out

def shmap_vmap(body, in_axes=(1, 1)):
    def shard(p, x):
        return jax.tree_util.tree_map(lambda l: lax.psum(l, 'd'),
                                      jax.vmap(body, in_axes=in_axes)(p, x))
    return jax.shard_map(shard, mesh=mesh, in_specs=(P('d'), P()), out_specs=P())(p, x)

def typed(out):
    return out, list(TYPES)

def while_body(p, x):
    return lax.while_loop(lambda c: c[0] < 2, lambda c: (c[0] + 1, pick(p, c[1])), (0, x))[1]

def scan_body(p, x):
    return lax.scan(lambda c, _: (pick(p, c), None), x, None, length=2)[0]

@jax.custom_vjp
def cv_mul3(x, y):  # the harness's: the cotangent of x is 3 ct y
    return x * y
cv_mul3.defvjp(lambda x, y: (x * y, (x, y)), lambda r, ct: (3.0 * ct * r[1], ct * r[0]))

@jax.custom_vjp
def unvarying_ct(x):
    return 2 * x
unvarying_ct.defvjp(lambda x: (2 * x, None), lambda r, ct: (jnp.ones(ct.shape, jnp.float16),))

def cv_grad(n):  # a replicated x0, a split x1 (n elements per shard; 0: empty shards)
    x0 = np.linspace(0.5, 1.5, 3 * n).reshape(3, n).astype(np.float16)
    x1 = np.linspace(-1, 1, 2 * n).astype(np.float16)
    f = lambda a, b: jax.nn.standardize(cv_mul3(a, b), axis=0).sum()
    def shard(x0, x1):
        g = jax.vmap(jax.grad(f, argnums=(0, 1)), in_axes=(0, None))(x0, x1)
        return jax.tree_util.tree_map(lambda l: lax.psum(l, 'd'), g)
    return jax.shard_map(shard, mesh=mesh, in_specs=(P(), P('d')), out_specs=P())(x0, x1)

x4 = np.arange(4.0, dtype=np.float32)
k = np.array([[[1.4316794, 0.57664806, -0.23342024]], [[-0.797944, 0.5680386, 0.2673067]]],
             np.float32)

def empty_conv(k):  # rhs_dilation 2 widens the kernel to 5 > 3: the output is (2, 2, 0)
    kernel = jnp.arcsin(jax.nn.gelu(k, approximate=False))  # NaN partial at gelu(1.43) > 1
    return jnp.sum(lax.conv_general_dilated(jnp.ones((2, 1, 3)), kernel, (1,), 'VALID',
                                            rhs_dilation=(2,)))
'''

CASES = [
    # s22022-124: vmap of a cond with a varying batched predicate inside shard_map computes;
    # the results vary over the predicate's axes (select_n's), and so do jit's and while's
    "typed(shmap_vmap(pick))",
    "typed(shmap_vmap(jax.jit(pick)))",
    "typed(shmap_vmap(jax.checkpoint(pick)))",
    "typed(shmap_vmap(pick, (1, None)))",
    "typed(shmap_vmap(while_body))",
    # ... but a scan carry may not start unvarying and come out varying, and a cotangent may
    # not vary where its primal does not
    "shmap_vmap(scan_body)",
    "shmap_vmap(jax.grad(lambda p, x: pick(p, x).sum(), argnums=1))",
    # s22050-285: custom_vjp's bwd must give each input's exact varying manual axes, on empty
    # shards as on others
    "cv_grad(0)",
    "cv_grad(2)",
    "jax.shard_map(lambda x: jax.grad(lambda x: unvarying_ct(x).sum())(x), mesh=mesh,"
    " in_specs=P('d'), out_specs=P('d'))(x4)",
    # s22043-231: conv's kernel cotangent from an empty output is a symbolic zero
    "jax.grad(empty_conv)(k)",
    "jax.jit(jax.grad(jax.checkpoint(empty_conv,"
    " policy=jax.checkpoint_policies.checkpoint_dots)))(k)",
]


def _leaf(x, np):
    a = np.asarray(x)
    vals = [None if math.isnan(v) else v for v in a.astype(np.float64).ravel().tolist()]
    return [str(a.dtype), list(a.shape), vals]


def describe(fn, leaves, np):
    """The outcome of ``fn()``: ["ok", leaves, rest] or ["error", type name, message]."""
    try:
        out = fn()
    except Exception as e:  # noqa: BLE001 -- the error is the outcome
        return ["error", type(e).__name__, str(e).split("\n")[0]]
    if isinstance(out, tuple) and len(out) == 2 and isinstance(out[1], list):
        out, types = out
    else:
        types = []
    return ["ok", [_leaf(x, np) for x in leaves(out)], sorted(set(types))]
