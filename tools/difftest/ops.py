"""The op table: each op name maps to a plain-JAX source template.

A case's program is a list of statements ``{"v": "t3", "op": "sum", "args": [...], "p":
{...}, "bodies": [...]}``; ``codegen`` turns each into ``t3 = <template>`` with ``{a0}``,
``{a1}``... the argument expressions, ``{b0}``... the names of generated body functions and
every other field a parameter, written as Python source. The runner executes that source with
``jax`` bound to real JAX or to minijax, and the minimizer prints the same source as the
reproducer, so what is compared is exactly what a user would run.

``PRELUDE`` defines the transform wrappers (``T_grad`` ...) and a few custom_jvp/custom_vjp
functions. It is plain JAX code too and is printed in every reproducer.

The recorded corpora (tests/data/difftest/) hold cases, not source: changing a template or the
prelude changes what their cases run, so re-record them (``record``) in the same commit.
(``T_jvp``'s tangents for bfloat16 inputs come out float32 (NumPy promotes ``bf16 * 0.7``):
those cases check both frameworks' refusal of mismatched tangents.)
"""

UNARY_FLOAT = {
    # jnp functions accept ints/bools and promote them to float.
    n: f"jnp.{n}({{a0}})"
    for n in ["sin", "cos", "tan", "tanh", "exp", "log", "log1p", "expm1", "sqrt", "cbrt",
              "arcsin", "arctan", "arcsinh", "sinh", "cosh", "exp2", "log2", "reciprocal",
              "sinc", "deg2rad", "i0", "arccos", "arccosh", "arctanh", "log10", "rad2deg"]
}
UNARY_FLOAT.update({
    "lax.rsqrt": "lax.rsqrt({a0})",
    "lax.logistic": "lax.logistic({a0})",
    "lax.erf": "lax.erf({a0})",
    "lax.erf_inv": "lax.erf_inv({a0})",
    "lax.lgamma": "lax.lgamma({a0})",
    "lax.digamma": "lax.digamma({a0})",
    "lax.exp": "lax.exp({a0})",
    "nn.sigmoid": "nn.sigmoid({a0})",
    "nn.softplus": "nn.softplus({a0})",
    "nn.silu": "nn.silu({a0})",
    "nn.log_sigmoid": "nn.log_sigmoid({a0})",
    "nn.elu": "nn.elu({a0})",
    "nn.celu": "nn.celu({a0})",
    "nn.selu": "nn.selu({a0})",
    "nn.leaky_relu": "nn.leaky_relu({a0}, {slope})",
    "nn.gelu": "nn.gelu({a0}, approximate={approximate})",
    "nn.hard_tanh": "nn.hard_tanh({a0})",
    "nn.sparse_plus": "nn.sparse_plus({a0})",
    "lax.erfc": "lax.erfc({a0})",
    "lax.bessel_i1e": "lax.bessel_i1e({a0})",
    "nn.mish": "nn.mish({a0})",
    "nn.soft_sign": "nn.soft_sign({a0})",
    "nn.hard_sigmoid": "nn.hard_sigmoid({a0})",
    "nn.hard_silu": "nn.hard_silu({a0})",
    "nn.squareplus": "nn.squareplus({a0})",
    "nn.log1mexp": "nn.log1mexp({a0})",
})
UNARY_KEEP = {
    "negative": "jnp.negative({a0})",
    "abs": "jnp.abs({a0})",
    "square": "jnp.square({a0})",
    "sign": "jnp.sign({a0})",
    "floor": "jnp.floor({a0})",
    "ceil": "jnp.ceil({a0})",
    "trunc": "jnp.trunc({a0})",
    "round": "jnp.round({a0}, {decimals})",
    "nn.relu": "nn.relu({a0})",
    "nn.relu6": "nn.relu6({a0})",
    "clip": "jnp.clip({a0}, {lo}, {hi})",
    "nan_to_num": "jnp.nan_to_num({a0})",
    "integer_pow": "lax.integer_pow({a0}, {y})",
    "pow_lit": "{a0} ** {y}",
    "neg_op": "-{a0}",
    "stop_gradient": "lax.stop_gradient({a0})",
    "real": "jnp.real({a0})",
    # one element of a range in the operand's dtype: JAX's arange arithmetic, not NumPy's
    "arange_pick": "{a0} + jnp.arange({start}, {stop}, {step}, "
                   "dtype=jnp.result_type({a0}, jnp.int8))[{k}]",
}
PREDICATES = {n: f"jnp.{n}({{a0}})" for n in ["isnan", "isinf", "isfinite", "signbit",
                                                 "logical_not"]}
BINARY = {n: f"jnp.{n}({{a0}}, {{a1}})"
          for n in ["add", "subtract", "multiply", "divide", "floor_divide", "remainder",
                    "power", "maximum", "minimum", "arctan2", "hypot", "logaddexp",
                    "copysign", "fmax", "fmin", "heaviside", "fmod", "mod", "true_divide",
                    "float_power", "logaddexp2", "nextafter"]}
BINARY.update({
    "op_add": "{a0} + {a1}", "op_mul": "{a0} * {a1}", "op_sub": "{a0} - {a1}",
    "op_div": "{a0} / {a1}", "op_pow": "{a0} ** {a1}", "op_mod": "{a0} % {a1}",
    "lax.add": "lax.add({a0}, {a1})", "lax.max": "lax.max({a0}, {a1})",
    "lax.rem": "lax.rem({a0}, {a1})",
    "lax.sub": "lax.sub({a0}, {a1})", "lax.mul": "lax.mul({a0}, {a1})",
    "lax.pow": "lax.pow({a0}, {a1})", "lax.atan2": "lax.atan2({a0}, {a1})",
})
COMPARE = {n: f"jnp.{n}({{a0}}, {{a1}})"
           for n in ["greater", "less", "equal", "not_equal", "greater_equal"]}
COMPARE.update({"op_gt": "{a0} > {a1}", "op_le": "{a0} <= {a1}"})
LOGICAL = {n: f"jnp.{n}({{a0}}, {{a1}})"
           for n in ["logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or"]}
REDUCE = {n: f"jnp.{n}({{a0}}, axis={{axis}}, keepdims={{keepdims}})"
          for n in ["sum", "prod", "max", "min", "mean", "var", "std", "any", "all",
                    "nansum", "nanmax", "ptp", "median", "count_nonzero", "nanmin", "nanmean",
                    "nanstd", "nanvar", "nanprod", "amax", "amin", "nanargmax", "nanargmin",
                    "average"]}
REDUCE.update({
    "argmax": "jnp.argmax({a0}, axis={axis}, keepdims={keepdims})",
    "argmin": "jnp.argmin({a0}, axis={axis}, keepdims={keepdims})",
    "nn.logsumexp": "nn.logsumexp({a0}, axis={axis}, keepdims={keepdims})",
    "var_ddof": "jnp.var({a0}, axis={axis}, ddof=1, keepdims={keepdims})",
    "linalg.norm": "jnp.linalg.norm({a0}, axis={axis}, keepdims={keepdims})",
})
AXIS_OPS = {  # shape-preserving along an axis
    "cumsum": "jnp.cumsum({a0}, axis={axis})",
    "cumprod": "jnp.cumprod({a0}, axis={axis})",
    "lax.cummax": "lax.cummax({a0}, axis={axis_nn}, reverse={reverse})",
    "lax.cummin": "lax.cummin({a0}, axis={axis_nn}, reverse={reverse})",
    "lax.cumlogsumexp": "lax.cumlogsumexp({a0}, axis={axis_nn}, reverse={reverse})",
    "sort": "jnp.sort({a0}, axis={axis})",
    "sort_desc": "jnp.sort({a0}, axis={axis}, descending=True)",
    "argsort": "jnp.argsort({a0}, axis={axis})",
    "nn.softmax": "nn.softmax({a0}, axis={axis})",
    "nn.log_softmax": "nn.log_softmax({a0}, axis={axis})",
    "nn.standardize": "nn.standardize({a0}, axis={axis})",
    "flip": "jnp.flip({a0}, axis={axis})",
    "roll": "jnp.roll({a0}, {shift}, axis={axis})",
    "diff": "jnp.diff({a0}, axis={axis})",
    "nancumsum": "jnp.nancumsum({a0}, axis={axis})",
    "nancumprod": "jnp.nancumprod({a0}, axis={axis})",
    "cumulative_sum": "jnp.cumulative_sum({a0}, axis={axis})",
    "lax.cumsum": "lax.cumsum({a0}, axis={axis_nn}, reverse={reverse})",
    "lax.cumprod": "lax.cumprod({a0}, axis={axis_nn}, reverse={reverse})",
    "unwrap": "jnp.unwrap({a0}, axis={axis})",
}
SHAPE_OPS = {
    "ravel": "jnp.ravel({a0})",
    "reshape": "jnp.reshape({a0}, {shape})",
    "transpose": "jnp.transpose({a0})",
    "expand_dims": "jnp.expand_dims({a0}, {axis})",
    "concat_self": "jnp.concatenate([{a0}, {a0}], axis={axis})",
    "stack2": "jnp.stack([{a0}, {a1}], axis={axis})",
    "tile": "jnp.tile({a0}, {reps})",
    "repeat": "jnp.repeat({a0}, {repeats}, axis={axis})",
    "broadcast_to": "jnp.broadcast_to({a0}, {shape})",
    "pad": "jnp.pad({a0}, {pad_width}, mode={mode})",
    "slice_tail": "{a0}[1:]",
    "slice_rev": "{a0}[::-1]",
    "slice_last": "{a0}[..., :2]",
    "moveaxis": "jnp.moveaxis({a0}, 0, -1)",
    "top_k": "lax.top_k({a0}, {k})[{which}]",
    "one_hot": "nn.one_hot({a0}, {num_classes})",
    "outer": "jnp.outer({a0}, {a1})",
}
CAST = {
    "astype": "{a0}.astype({dtype})",
    "convert_element_type": "lax.convert_element_type({a0}, {dtype})",
    "asarray_dtype": "jnp.asarray({a0}, dtype={dtype})",
}
SELECT = {
    "where": "jnp.where({a0}, {a1}, {a2})",
    "lax.select": "lax.select({a0}, {a1}, {a2})",
}
INDEX = {
    "getitem_int": "{a0}[{idx}]",
    "getitem_arr": "{a0}[{a1}]",
    "getitem_bool": "{a0}[{a1}]",  # a concrete bool mask: JAX refuses under jit/vmap/grad
    "take": "jnp.take({a0}, {a1}, axis={axis}, mode={mode})",
    "take_along_axis": "jnp.take_along_axis({a0}, {a1}, axis={axis})",
    "at_get_arr": "{a0}.at[{a1}].get(mode={mode})",
    "at_static": "{a0}.at[{idx}].{method}({a1})",
    "at_static_get": "{a0}.at[{idx}].get()",
    "at_arr": "{a0}.at[{a2}].{method}({a1}, mode={mode})",
    "at_slice": "{a0}.at[1:].{method}({a1})",
    "dyn_slice": ("lax.dynamic_slice_in_dim({a0}, {a1}, {size}, axis=0, "
                  "allow_negative_indices={neg})"),
    "dyn_index": ("lax.dynamic_index_in_dim({a0}, {a1}, axis=0, keepdims={keepdims}, "
                  "allow_negative_indices={neg})"),
    "dyn_update": ("lax.dynamic_update_slice_in_dim({a0}, {a2}, {a1}, axis=0, "
                   "allow_negative_indices={neg})"),
    "dyn_slice2": ("lax.dynamic_slice({a0}, ({a1}, {a2}) + (0,) * ({a0}.ndim - 2), "
                   "(1, 1) + {a0}.shape[2:])"),
}
LINALG = {
    "matmul": "{a0} @ {a1}",
    "dot": "jnp.dot({a0}, {a1})",
    "einsum_ij_jk": "jnp.einsum('ij,jk->ik', {a0}, {a1})",
    "spd": "{a0} @ {a0}.T + {n} * jnp.eye({n}, dtype={a0}.dtype)",
    "solve": "jnp.linalg.solve({a0}, {a1})",
    "inv": "jnp.linalg.inv({a0})",
    "cholesky": "jnp.linalg.cholesky({a0})",
    "qr_r": "jnp.linalg.qr({a0})[1]",
    "qr": "jnp.linalg.qr({a0})",
    "svdvals": "jnp.linalg.svd({a0}, compute_uv=False)",
    "eigvalsh": "jnp.linalg.eigvalsh({a0})",
    "eigh_vals": "jnp.linalg.eigh({a0})[0]",
    "det": "jnp.linalg.det({a0})",
    "slogdet": "jnp.linalg.slogdet({a0})",
    "triangular_solve": "lax.linalg.triangular_solve({a0}, {a1}, left_side=True, lower=True)",
    "trace": "jnp.trace({a0})",
}
FFT = {
    "fft": "jnp.fft.fft({a0})",
    "ifft": "jnp.fft.ifft({a0})",
    "rfft": "jnp.fft.rfft({a0})",
    "irfft": "jnp.fft.irfft({a0})",
    "fft2": "jnp.fft.fft2({a0})",
    "abs_c": "jnp.abs({a0})",
    "angle": "jnp.angle({a0})",
    "imag": "jnp.imag({a0})",
}
CONV = {
    "conv1d": ("lax.conv_general_dilated({a0}, {a1}, window_strides={strides}, "
               "padding={padding}, rhs_dilation={dil})"),
    "convolve": "jnp.convolve({a0}, {a1}, mode={mode})",
    "reduce_window_max": ("lax.reduce_window({a0}, -jnp.inf, lax.max, {window}, {strides}, "
                          "{padding})"),
    "reduce_window_add": "lax.reduce_window({a0}, 0.0, lax.add, {window}, {strides}, {padding})",
}
CONTROL = {
    "fori_loop": "lax.fori_loop(0, {n}, {b0}, {a0})",
    "fori_loop2": "lax.fori_loop(0, {n}, {b0}, ({a0}, {a1}))[{which}]",
    "scan": "lax.scan({b0}, {a0}, {a1}, reverse={reverse})[{which}]",
    "while_loop": "lax.while_loop(lambda ic: ic[0] < {n}, {b0}, (0, {a0}))[1]",
    "cond": "lax.cond(jnp.sum({a0}) > 0, {b0}, {b1}, {a1})",
    "switch": ("lax.switch(jnp.clip(jnp.floor(jnp.sum({a0})), -1, 3).astype(jnp.int32), "
               "[{b0}, {b1}, {b2}], {a1})"),
    "remat": "jax.checkpoint({b0}, policy=POLICY({policy}), prevent_cse={prevent_cse})({a0})",
    "jit_inner": "jax.jit({b0})({a0})",
    "vmap_inner": "jax.vmap({b0})({a0})",
}
CUSTOM = {
    "cj_sin2": "cj_sin2({a0})",
    "cj_safe_log": "cj_safe_log({a0})",
    "cv_clip_grad": "cv_clip_grad({a0})",
    "cv_mul3": "cv_mul3({a0}, {a1})",
    "cj_pair": "cj_pair({a0}, {a1})['s']",
}
RANDOM = {
    "rnd_uniform": "{a0} * random.uniform(KEY({seed}, {typed}), {a0}.shape, {a0}.dtype)",
    "rnd_normal": ("{a0} + random.normal(random.split(KEY({seed}, {typed}))[1], {a0}.shape, "
                   "{a0}.dtype)"),
    "rnd_bernoulli": "random.bernoulli(KEY({seed}, {typed}), nn.sigmoid({a0}))",
    "rnd_categorical": "random.categorical(KEY({seed}, {typed}), {a0}, axis=-1)",
    "rnd_fold_in": "random.uniform(random.fold_in(KEY({seed}, {typed}), {a0}), (3,))",
    "rnd_randint": "random.randint(KEY({seed}, {typed}), {a0}.shape, -5, 5) + {a0}",
    "rnd_permutation": "random.permutation(KEY({seed}, {typed}), {a0})",
    "rnd_split_data": "random.key_data(random.split(random.key({seed}), {n}))",
    "rnd_gamma": "random.gamma(KEY({seed}, {typed}), jnp.abs({a0}) + 0.5)",
    "rnd_truncated_normal": "random.truncated_normal(KEY({seed}, {typed}), -1.0, {a0})",
}
MISC = {
    "id": "{a0}",  # the minimizer's replacement of a statement by one operand
}

OPS = {}
for _table in [UNARY_FLOAT, UNARY_KEEP, PREDICATES, BINARY, COMPARE, LOGICAL, REDUCE, AXIS_OPS,
               SHAPE_OPS, CAST, SELECT, INDEX, LINALG, FFT, CONV, CONTROL, CUSTOM, RANDOM, MISC]:
    OPS.update(_table)

PRELUDE = '''\
import numpy as np
jnp, lax, nn, random = jax.numpy, jax.lax, jax.nn, jax.random


def KEY(seed, typed):
    return random.key(seed) if typed else random.PRNGKey(seed)


def POLICY(name):
    return None if name is None else getattr(jax.checkpoint_policies, name)


def W(shape, dtype):
    """A fixed, non-constant weight pattern (a plain sum would hide e.g. softmax's grads)."""
    return np.linspace(0.5, 1.5, int(np.prod(shape))).reshape(shape).astype(dtype)


def inexact(x):
    return jnp.issubdtype(x.dtype, jnp.inexact)


def scalarize(out):
    s = 0.0
    for leaf in jax.tree_util.tree_leaves(out):
        if inexact(leaf):
            r = jnp.real(leaf)
            s = s + jnp.sum(r * W(r.shape, r.dtype))
    return s


def _diff(f, xs):
    """f restricted to the float arguments (the others are closed over) and those arguments."""
    idx = [i for i, x in enumerate(xs) if inexact(jnp.asarray(x))]

    def fd(*ds):
        full = list(xs)
        for i, d in zip(idx, ds):
            full[i] = d
        return f(*full)
    return fd, [xs[i] for i in idx]


def T_jit(f):
    return jax.jit(f)


def T_vmap(f, in_axes):
    return jax.vmap(f, in_axes=in_axes)


def T_remat(f, policy):
    return jax.checkpoint(f, policy=POLICY(policy))


def T_grad(f):
    def g(*xs):
        fd, ds = _diff(f, xs)
        return jax.grad(lambda *d: scalarize(fd(*d)), argnums=tuple(range(len(ds))))(*ds)
    return g


def T_vag(f):
    def g(*xs):
        fd, ds = _diff(f, xs)
        return jax.value_and_grad(lambda *d: scalarize(fd(*d)),
                                  argnums=tuple(range(len(ds))))(*ds)
    return g


def T_jvp(f):
    def g(*xs):
        fd, ds = _diff(f, xs)
        return jax.jvp(fd, tuple(ds), tuple(W(d.shape, d.dtype) * 0.7 for d in ds))
    return g


def T_linearize(f):
    def g(*xs):
        fd, ds = _diff(f, xs)
        out, lin = jax.linearize(fd, *ds)
        return out, lin(*[W(d.shape, d.dtype) * 0.7 for d in ds])
    return g


def T_vjp(f):
    def g(*xs):
        fd, ds = _diff(f, xs)
        out, pullback = jax.vjp(fd, *ds)
        ct = jax.tree_util.tree_map(
            lambda l: W(l.shape, l.dtype) if inexact(l)
            else np.zeros(l.shape, jax.dtypes.float0), out)
        return out, pullback(ct)
    return g


def T_jacfwd(f):
    def g(*xs):
        fd, ds = _diff(f, xs)
        return jax.jacfwd(fd, argnums=tuple(range(len(ds))))(*ds)
    return g


def T_jacrev(f):
    def g(*xs):
        fd, ds = _diff(f, xs)
        return jax.jacrev(fd, argnums=tuple(range(len(ds))))(*ds)
    return g


def T_hessian(f):
    def g(*xs):
        fd, ds = _diff(f, xs)
        return jax.hessian(lambda *d: scalarize(fd(*d)), argnums=tuple(range(len(ds))))(*ds)
    return g


_MESH = []


def MESH():
    """Two of the four virtual CPU devices, one Auto axis 'd' (JAX 0.10's make_mesh would make
    it Explicit, which minijax does not model: FINDINGS.md). Made once: meshes are cached."""
    if not _MESH:
        _MESH.append(jax.sharding.Mesh(np.array(jax.devices()[:2]), ("d",)))
    return _MESH[0]


def SPEC(x):
    return jax.P("d") if jnp.ndim(x) and x.shape[0] % 2 == 0 else jax.P()


def T_shard(f):
    """Inputs placed on the mesh (split along axis 0 where it divides), then jit."""
    def g(*xs):
        ys = [jax.device_put(x, jax.NamedSharding(MESH(), SPEC(x))) for x in xs]
        return jax.jit(f)(*ys)
    return g


def T_shmap(f):
    """shard_map over the mesh; each shard's outputs summed over 'd' (data-parallel style)."""
    def g(*xs):
        def shard(*ys):
            return jax.tree_util.tree_map(
                lambda l: lax.psum(l.astype(jnp.int32) if l.dtype == jnp.bool_ else l, "d"),
                f(*ys))
        return jax.shard_map(shard, mesh=MESH(), in_specs=tuple(SPEC(x) for x in xs),
                             out_specs=jax.P())(*xs)
    return g


@jax.custom_jvp
def cj_sin2(x):
    return jnp.sin(x)


@cj_sin2.defjvp
def _cj_sin2_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return jnp.sin(x), 2.0 * jnp.cos(x) * t


@jax.custom_jvp
def cj_safe_log(x):
    return jnp.log(jnp.maximum(x, 1e-3))


@cj_safe_log.defjvp
def _cj_safe_log_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return cj_safe_log(x), jnp.where(x > 1e-3, t / jnp.maximum(x, 1e-3), 0.0)


@jax.custom_jvp
def cj_pair(x, y):
    return {"s": x * y + jnp.sin(x)}


@cj_pair.defjvp
def _cj_pair_jvp(primals, tangents):
    (x, y), (tx, ty) = primals, tangents
    return cj_pair(x, y), {"s": tx * (y + jnp.cos(x)) + ty * x}


@jax.custom_vjp
def cv_clip_grad(x):
    return x


def _cv_clip_fwd(x):
    return x, None


def _cv_clip_bwd(_, ct):
    return (jnp.clip(ct, -0.75, 0.75),)


cv_clip_grad.defvjp(_cv_clip_fwd, _cv_clip_bwd)


@jax.custom_vjp
def cv_mul3(x, y):
    return x * y


def _cv_mul3_fwd(x, y):
    return x * y, (x, y)


def _cv_mul3_bwd(res, ct):
    x, y = res
    return 3.0 * ct * y, ct * x


cv_mul3.defvjp(_cv_mul3_fwd, _cv_mul3_bwd)
'''
