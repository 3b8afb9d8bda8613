"""Cases of tests/test_fidelity_r29_d.py: ``device_put`` to a ``jax.memory.Space`` and its
``src=``/``donate=``/``may_alias=`` keywords (a value or a pytree prefix; whether the result is
a new Array, whether the input stays alive on the CPU, the refusals), custom_jvp's tangent-type
error without weak types and ``jit(nn.relu)`` of integer tangents, ``lax.rev``'s refusal of a
non-integer dimension, ``slice_in_dim``/``index_in_dim``'s IndexErrors, and named-axis jnp
reductions under ``vmap(..., axis_name=...)`` (psum/pmax/pmin, or JAX's NotImplementedError),
evaluated by JAX 0.10.2 (the recorder) and by minijax, in one process with 4 CPU devices. Each
is an expression over SETUP's names giving a JSON-able outcome.
"""

SETUP = """
lax = jax.lax
x = jnp.arange(6.).reshape(2, 3) - 2
xi = jnp.arange(6).reshape(2, 3) - 2
xb = jnp.array([[True, False, True], [True, True, True]])
def outcome(thunk, n=1):
    try:
        out = thunk()
    except Exception as e:
        return [type(e).__name__, *str(e).split(chr(10))[:n]]
    return [[str(jax.typeof(o)), None if o.dtype == jax.dtypes.float0
             else np.asarray(o, np.float64).round(5).ravel().tolist()]
            for o in jax.tree.leaves(out)]
def placed(thunk):
    try:
        out = thunk()
    except Exception as e:
        return [type(e).__name__, str(e).split(chr(10))[0]]
    return [[str(jax.typeof(o)), str(o.sharding), o.committed] for o in jax.tree.leaves(out)]
def put_identity(make, **kw):
    t = make()
    try:
        out = jax.device_put(t, **kw)
    except Exception as e:
        return [type(e).__name__, str(e).split(chr(10))[0]]
    return [[o is i, bool(getattr(i, "is_deleted", lambda: False)()), np.asarray(o).tolist()]
            for o, i in zip(jax.tree.leaves(out), jax.tree.leaves(t))]
def vm(f, a=x):
    return outcome(lambda: jax.vmap(f, axis_name='a')(a))
def dot_int(v):
    b = jnp.eye(2)
    return lax.dot_general(v, b, (((1,), (0,)), ((), ())), preferred_element_type=jnp.int32)
a2 = jnp.array([[1., -2.], [3., 1.]])
H, D = jax.memory.Space.Host, jax.memory.Space.Device
"""

CASES = [
    "[n for n in dir(jax.memory) if not n.startswith('__')]",
    "[repr(s) for s in jax.memory.Space]",
]
# device_put to a memory space, eagerly and under jit
for _v in ["jnp.arange(3.)", "np.arange(2)", "3", "jax.device_put(jnp.arange(3.), jax.devices()[1])",
           "jax.device_put(jnp.arange(3.), H)"]:
    for _s in ["H", "D"]:
        CASES.append(f"placed(lambda: jax.device_put({_v}, {_s}))")
CASES += [
    "placed(lambda: jax.jit(lambda a: jax.device_put(a, H))(jnp.arange(3.)))",
    "placed(lambda: jax.jit(lambda a: jax.device_put(a, D))(jax.device_put(jnp.arange(3.), H)))",
    "placed(lambda: jax.device_put({'a': jnp.arange(3.), 'b': 2.0}, H))",
    "placed(lambda: jax.device_put({'a': jnp.arange(3.), 'b': 2.0}, {'a': H, 'b': None}))",
    "placed(lambda: jax.device_put(jnp.arange(3.), H) * 2)",
    "placed(lambda: jax.device_put(jnp.arange(3.), H, donate=True))",
    "placed(lambda: jax.jit(lambda a: jax.device_put(a, H, may_alias=False))(jnp.arange(3.)))",
    "str(jax.make_jaxpr(lambda a: jax.device_put(a, H))(jnp.arange(3.)).out_avals)",
]
# the keywords: a new Array or the input, the input alive, the refusals
_KW = ["dict()", "dict(donate=True)", "dict(donate=False)", "dict(may_alias=False)",
       "dict(may_alias=True)", "dict(donate=True, may_alias=True)",
       "dict(donate=True, may_alias=False)", "dict(donate=False, may_alias=False)",
       "dict(may_alias=None)", "dict(donate=True, may_alias=None)"]
for _kw in _KW:
    CASES.append(f"put_identity(lambda: jnp.arange(3.), **{_kw})")
    CASES.append(f"put_identity(lambda: np.arange(3.), **{_kw})[0][1:]")
_TREE = "lambda: {'a': jnp.arange(3.), 'b': jnp.arange(2.)}"
for _kw in ["dict(donate={'a': True, 'b': False})", "dict(may_alias={'a': False, 'b': True})",
            "dict(donate=[True, False])", "dict(donate={'a': True})",
            "dict(may_alias={'a': True, 'b': None})",
            "dict(donate={'a': True, 'b': True}, may_alias={'a': True, 'b': False})",
            "dict(donate=1)", "dict(donate=None)", "dict(may_alias=0)",
            "dict(src=jax.devices()[0])", "dict(src=H)", "dict(src='x')",
            "dict(src=jax.sharding.PartitionSpec())", "dict(src=[None])", "dict(src={'a': None})",
            "dict(device=[None])", "dict(donate=(True, False))"]:
    CASES.append(f"put_identity({_TREE}, **{_kw})")
CASES += [
    "put_identity(lambda: jnp.arange(3.), device=jax.devices()[0], donate=True)",
    "put_identity(lambda: jnp.arange(3.), device=jax.devices()[0], may_alias=False)",
    "put_identity(lambda: jax.device_put(jnp.arange(3.), jax.devices()[0]), donate=True)",
    "put_identity(lambda: jax.device_put(jnp.arange(3.), jax.devices()[0]), may_alias=True)",
]
# integer tangents and custom_jvp's tangent-type error
f0 = "np.zeros(2, jax.dtypes.float0)"
CASES += [
    "outcome(lambda: jax.jvp(jax.jit(jax.nn.relu), (jnp.array([1, -2]),), (jnp.array([1, 1]),)))",
    "outcome(lambda: jax.jvp(jax.nn.relu, (jnp.array([1, -2]),), (jnp.array([1, 1]),)))",
    f"outcome(lambda: jax.jvp(jax.jit(jax.nn.relu), (jnp.array([1, -2]),), ({f0},)))",
    "outcome(lambda: jax.jvp(jax.jit(jax.nn.relu), (jnp.array([1., -2.]),), (jnp.array([1, 1]),)))",
    "outcome(lambda: jax.jvp(dot_int, (a2,), (a2,)))",
]
for _g in ["jax.nn.relu", "jax.nn.relu6", "lambda v: jnp.where(v > 0, v, 0)", "jnp.abs"]:
    CASES += [
        f"outcome(lambda: jax.jvp(lambda v: ({_g})(dot_int(v)), (a2,), (a2,)))",
        f"outcome(lambda: jax.jvp(lambda v: jax.jit({_g})(dot_int(v)), (a2,), (a2,)))",
        f"outcome(lambda: jax.jit(lambda p, t: jax.jvp(lambda v: ({_g})(dot_int(v)), (p,), (t,)))(a2, a2))",
    ]
# lax.rev's dimensions, slice_in_dim/index_in_dim's axis and index
CASES += [
    "outcome(lambda: lax.rev(x, (0.0,)))",
    "outcome(lambda: jax.jit(lambda a: lax.rev(a, (1.0,)))(x))",
    "outcome(lambda: lax.rev(x, ('a',)))",
    "outcome(lambda: lax.rev(x, (None,)))",
    "outcome(lambda: lax.rev(x, 0))",
    "outcome(lambda: lax.rev(x, (2,)))",
    "outcome(lambda: lax.rev(x, (-1,)))",
    "outcome(lambda: lax.rev(x, (1, 0)))",
]
for _args in ["1, 2, 1, 2", "1, 2, 1, -3", "1, 2, 1, -1", "0, 1, 1, 1.5", "0.5, 1", "1, 3, 1, 1",
              "0, 3, 2, 1", "None, None, 1, -2"]:
    CASES.append(f"outcome(lambda: lax.slice_in_dim(x, {_args}))")
    CASES.append(f"outcome(lambda: jax.jit(lambda a: lax.slice_in_dim(a, {_args}))(x))")
for _args in ["5, 0", "-3, 0", "-1, 0", "0, 3", "0, -1", "2, 1, False", "-3, 1"]:
    CASES.append(f"outcome(lambda: lax.index_in_dim(x, {_args}))")
# named-axis jnp reductions
for _name in ["sum", "mean", "max", "min", "prod", "any", "all", "var", "std", "argmax", "argmin",
              "nansum", "nanmean", "nanmax", "nanmin", "amax", "count_nonzero", "ptp", "median",
              "cumsum", "average"]:
    CASES.append(f"vm(lambda r: jnp.{_name}(r, axis='a'))")
    CASES.append(f"vm(lambda r: jnp.{_name}(r, axis=('a',)))")
    CASES.append(f"vm(lambda r: jnp.{_name}(r, axis=(0, 'a')))")
for _name in ["sum", "max", "mean", "any", "all"]:
    CASES.append(f"vm(lambda r: jnp.{_name}(r, axis='a'), xi)")
    CASES.append(f"vm(lambda r: jnp.{_name}(r, axis='a'), xb)")
CASES += [
    "vm(lambda r: jnp.sum(r, axis='a', keepdims=True))",
    "vm(lambda r: jnp.sum(r, axis=(0, 'a'), keepdims=True))",
    "vm(lambda r: jnp.sum(r, axis='a', dtype=jnp.int32))",
    "vm(lambda r: jnp.sum(r, axis='a', where=r > 0))",
    "vm(lambda r: jnp.mean(r, axis='a', where=r > 0))",
    "vm(lambda r: jnp.sum(r, axis='a', initial=1.0))",
    "vm(lambda r: jnp.max(r, axis='a', initial=0.0, where=r < 1))",
    "vm(lambda r: jnp.sum(r[0], axis='a'))",
    "vm(lambda r: jnp.var(r, axis='a', ddof=1))",
    "vm(lambda r: jnp.sum(r, axis=('a', 'a')))",
    "vm(lambda r: jnp.sum(r, axis=(0, 0)))",
    "vm(lambda r: jnp.max(r, axis=('a', 1)))",
    "outcome(lambda: jax.grad(lambda v: jax.vmap(lambda r: jnp.sum(r, axis='a'), axis_name='a')(v).sum())(x))",
    "outcome(lambda: jax.jit(jax.vmap(lambda r: jnp.mean(r, axis='a'), axis_name='a'))(x))",
    "outcome(lambda: jax.vmap(jax.vmap(lambda r: jnp.sum(r, axis=('a', 'b')), axis_name='b'), axis_name='a')(x))",
    # the unbound name: a NameError (psum's words differ, FINDINGS 282)
    "outcome(lambda: jnp.sum(x, axis='a'))[:1]",
    "outcome(lambda: jnp.mean(x, axis='a'))[:1]",
    "outcome(lambda: jax.vmap(lambda r: jnp.sum(r, axis='b'), axis_name='a')(x))[:1]",
    "outcome(lambda: jnp.sum(x, axis=1.5))",
    "outcome(lambda: jnp.mean(x, axis=1.5))",
    "outcome(lambda: jnp.mean(x, axis=(0, 1.5)))",
    "outcome(lambda: jnp.var(x, axis=(0, 1.5)))",
    "outcome(lambda: jnp.mean(x, axis=5))",
]
_MESH = "jax.sharding.Mesh(np.array(jax.devices()[:4]), ('a',))"
for _name in ["sum", "mean", "max", "min", "var", "prod"]:
    CASES.append(f"outcome(lambda: jax.shard_map(lambda r: jnp.{_name}(r, axis='a', keepdims=True), "
                 f"mesh={_MESH}, in_specs=jax.P('a'), out_specs=jax.P())(jnp.arange(8.) - 3))")
DEVICES = 4  # recorded on a 4-device CPU (its meshes take jax.devices()[:4])
