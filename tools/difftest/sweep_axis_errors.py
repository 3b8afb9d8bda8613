"""Axis-error sweep: every jnp function taking an axis, given out-of-range, negative, tuple,
repeated and non-integer axes, eagerly and under jit; one line per case and mode (the error's
type and message start, or the result's dtypes and shapes), so the two outputs diff:

    cd /tmp && /work/venv_jax/bin/python /work/main/tools/difftest/sweep_axis_errors.py > j.txt
    cd /tmp && PYTHONPATH=/work/main python3 -m minijax.run_as_jax \
        /work/main/tools/difftest/sweep_axis_errors.py > m.txt
    diff j.txt m.txt

(an argument NAME runs the cases whose name holds NAME). Known differences left: see
tools/difftest/triage_r23_a.md.
"""
import sys, warnings
import numpy as np
import jax, jax.numpy as jnp
warnings.simplefilter("ignore")
X = np.arange(6, dtype=np.float32).reshape(2, 3)
S = np.float32(2.0)
V = np.arange(4, dtype=np.float32)
I = np.array([[0, 1, 0], [1, 0, 1]], np.int32)
U8 = np.arange(6, dtype=np.uint8).reshape(2, 3)
CASES = []
def case(name, fn, *args):
    CASES.append((name, fn, args))

RED = ["sum", "prod", "mean", "var", "std", "max", "min", "amax", "amin", "all", "any",
       "argmax", "argmin", "nanargmax", "nanargmin", "nansum", "nanprod", "nanmean", "nanvar",
       "nanstd", "nanmax", "nanmin", "median", "nanmedian", "ptp", "count_nonzero",
       "cumsum", "cumprod", "nancumsum", "nancumprod", "cumulative_sum", "cumulative_prod",
       "sort", "argsort", "flip", "squeeze", "expand_dims", "unstack", "diff", "gradient",
       "trapezoid", "average", "unique", "packbits", "unpackbits", "flatnonzero", "logsumexp"]
for name in RED:
    f = getattr(jnp, name, None)
    if f is None: continue
    for ax in (2, -3, (0, 2), (0, 0), (0, -2)):
        for arr, an in ((X, "X"), (S, "S")):
            a = U8 if name in ("packbits", "unpackbits") else arr
            if an == "S" and name in ("packbits", "unpackbits"): a = np.uint8(3)
            case(f"{name}({an},axis={ax})", lambda x, f=f, ax=ax: f(x, axis=ax), a)
    case(f"{name}(S,axis=0)", lambda x, f=f: f(x, axis=0), np.uint8(3) if "bits" in name else S)
for name in ("quantile", "percentile", "nanquantile", "nanpercentile"):
    f = getattr(jnp, name)
    for ax in (2, -3, (0, 2), (0, 0)):
        case(f"{name}(X,axis={ax})", lambda x, f=f, ax=ax: f(x, 0.5, axis=ax), X)
    case(f"{name}(S,axis=0)", lambda x, f=f: f(x, 0.5, axis=0), S)
for ax in (2, -3):
    case(f"partition(X,{ax})", lambda x, ax=ax: jnp.partition(x, 1, axis=ax), X)
    case(f"argpartition(X,{ax})", lambda x, ax=ax: jnp.argpartition(x, 1, axis=ax), X)
    case(f"take_along_axis({ax})", lambda x, ax=ax: jnp.take_along_axis(x, I, axis=ax), X)
    case(f"put_along_axis({ax})", lambda x, ax=ax: jnp.put_along_axis(x, I, 1.0, axis=ax, inplace=False), X)
    case(f"take({ax})", lambda x, ax=ax: jnp.take(x, I, axis=ax), X)
    case(f"concatenate({ax})", lambda x, ax=ax: jnp.concatenate([x, x], axis=ax), X)
    case(f"concat({ax})", lambda x, ax=ax: jnp.concat([x, x], axis=ax), X)
    case(f"stack({ax+1})", lambda x, ax=ax: jnp.stack([x, x], axis=ax + (1 if ax > 0 else -1)), X)
    case(f"append({ax})", lambda x, ax=ax: jnp.append(x, x, axis=ax), X)
    case(f"roll({ax})", lambda x, ax=ax: jnp.roll(x, 1, axis=ax), X)
    case(f"roll_tuple({ax})", lambda x, ax=ax: jnp.roll(x, (1, 1), axis=(0, ax)), X)
    case(f"moveaxis_src({ax})", lambda x, ax=ax: jnp.moveaxis(x, ax, 0), X)
    case(f"moveaxis_dst({ax})", lambda x, ax=ax: jnp.moveaxis(x, 0, ax), X)
    case(f"swapaxes({ax})", lambda x, ax=ax: jnp.swapaxes(x, 0, ax), X)
    case(f"rollaxis({ax})", lambda x, ax=ax: jnp.rollaxis(x, ax), X)
    case(f"rollaxis_start({ax+1})", lambda x, ax=ax: jnp.rollaxis(x, 0, ax + (1 if ax > 0 else -1)), X)
    case(f"split({ax})", lambda x, ax=ax: jnp.split(x, 1, axis=ax), X)
    case(f"array_split({ax})", lambda x, ax=ax: jnp.array_split(x, 1, axis=ax), X)
    case(f"delete({ax})", lambda x, ax=ax: jnp.delete(x, 0, axis=ax), X)
    case(f"insert({ax})", lambda x, ax=ax: jnp.insert(x, 0, 1.0, axis=ax), X)
    case(f"repeat({ax})", lambda x, ax=ax: jnp.repeat(x, 2, axis=ax), X)
    case(f"compress({ax})", lambda x, ax=ax: jnp.compress(np.array([True, False]), x, axis=ax), X)
    case(f"apply_along_axis({ax})", lambda x, ax=ax: jnp.apply_along_axis(jnp.sum, ax, x), X)
    case(f"apply_over_axes({ax})", lambda x, ax=ax: jnp.apply_over_axes(jnp.sum, x, [ax]), X)
    case(f"diagonal({ax})", lambda x, ax=ax: jnp.diagonal(x, axis1=0, axis2=ax), X)
    case(f"trace({ax})", lambda x, ax=ax: jnp.trace(x, axis1=0, axis2=ax), X)
    case(f"rot90({ax})", lambda x, ax=ax: jnp.rot90(x, axes=(0, ax)), X)
    case(f"cross({ax})", lambda x, ax=ax: jnp.cross(x, x, axis=ax), X)
    case(f"crossa({ax})", lambda x, ax=ax: jnp.cross(x, x, axisa=ax), X)
    case(f"vecdot({ax})", lambda x, ax=ax: jnp.vecdot(x, x, axis=ax), X)
    case(f"linalg.vecdot({ax})", lambda x, ax=ax: jnp.linalg.vecdot(x, x, axis=ax), X)
    case(f"tensordot({ax})", lambda x, ax=ax: jnp.tensordot(x, x, axes=([ax], [0])), X)
    case(f"norm({ax})", lambda x, ax=ax: jnp.linalg.norm(x, axis=ax), X)
    case(f"norm2({ax})", lambda x, ax=ax: jnp.linalg.norm(x, axis=(0, ax)), X)
    case(f"vector_norm({ax})", lambda x, ax=ax: jnp.linalg.vector_norm(x, axis=ax), X)
    case(f"matrix_norm({ax})", lambda x, ax=ax: jnp.linalg.matrix_norm(x), S)
    case(f"add.reduce({ax})", lambda x, ax=ax: jnp.add.reduce(x, axis=ax), X)
    case(f"add.accumulate({ax})", lambda x, ax=ax: jnp.add.accumulate(x, axis=ax), X)
    case(f"add.reduceat({ax})", lambda x, ax=ax: jnp.add.reduceat(x, np.array([0]), axis=ax), X)
    case(f"transpose({ax})", lambda x, ax=ax: jnp.transpose(x, (0, ax)), X)
    case(f"permute_dims({ax})", lambda x, ax=ax: jnp.permute_dims(x, (0, ax)), X)
    case(f"unique_axis({ax})", lambda x, ax=ax: jnp.unique(x, axis=ax, size=2), X)
    case(f"lexsort({ax})", lambda x, ax=ax: jnp.lexsort([x], axis=ax), X)
    case(f"sort_stable({ax})", lambda x, ax=ax: jnp.sort(x, axis=ax, stable=False), X)
    case(f"argsort_desc({ax})", lambda x, ax=ax: jnp.argsort(x, axis=ax, descending=True), X)
    case(f"cumulative_sum_init({ax})", lambda x, ax=ax: jnp.cumulative_sum(x, axis=ax, include_initial=True), X)
    case(f"diff_prepend({ax})", lambda x, ax=ax: jnp.diff(x, axis=ax, prepend=0.0), X)
    case(f"flip_tuple({ax})", lambda x, ax=ax: jnp.flip(x, axis=(0, ax)), X)
    case(f"expand_dims_tuple({ax})", lambda x, ax=ax: jnp.expand_dims(x, axis=(0, ax + (2 if ax > 0 else -2))), X)
    case(f"count_nonzero_k({ax})", lambda x, ax=ax: jnp.count_nonzero(x, axis=ax, keepdims=True), X)
    case(f"mean_where({ax})", lambda x, ax=ax: jnp.mean(x, axis=ax, where=x > 1), X)
    case(f"sum_keep({ax})", lambda x, ax=ax: jnp.sum(x, axis=ax, keepdims=True), X)
    case(f"average_w({ax})", lambda x, ax=ax: jnp.average(x, axis=ax, weights=x), X)
    case(f"average_w1({ax})", lambda x, ax=ax: jnp.average(x, axis=ax, weights=x[0]), X)
    case(f"ptp_keep({ax})", lambda x, ax=ax: jnp.ptp(x, axis=ax, keepdims=True), X)
    case(f"gradient_tuple({ax})", lambda x, ax=ax: jnp.gradient(x, axis=(0, ax)), X)
    case(f"median_keep({ax})", lambda x, ax=ax: jnp.median(x, axis=ax, keepdims=True), X)
    case(f"select_n ({ax})", lambda x, ax=ax: jnp.piecewise(x, [x > 1], [1.0, 0.0]), X)
for ax in (1.5, "a", None):
    case(f"sum_badtype({ax!r})", lambda x, ax=ax: jnp.sum(x, axis=ax), X)
    case(f"expand_dims_badtype({ax!r})", lambda x, ax=ax: jnp.expand_dims(x, axis=ax), X)
    case(f"sort_badtype({ax!r})", lambda x, ax=ax: jnp.sort(x, axis=ax), X)
    case(f"cumsum_badtype({ax!r})", lambda x, ax=ax: jnp.cumsum(x, axis=ax), X)
    case(f"squeeze_badtype({ax!r})", lambda x, ax=ax: jnp.squeeze(x, axis=ax), X)
case("squeeze_non1", lambda x: jnp.squeeze(x, axis=0), X)
case("squeeze_non1t", lambda x: jnp.squeeze(x, axis=(0, 1)), X)

sel = sys.argv[1] if len(sys.argv) > 1 else ""
for name, fn, args in CASES:
    if sel not in name: continue
    for mode in ("eager", "jit"):
        g = fn if mode == "eager" else jax.jit(fn)
        try:
            out = g(*args)
            leaves = jax.tree_util.tree_leaves(out)
            r = "OK " + " ".join(f"{l.dtype}{list(l.shape)}" for l in leaves)
        except Exception as e:
            r = f"{type(e).__module__}.{type(e).__name__}: {str(e)[:200]}".replace("\n", " | ")
        print(f"{name} {mode}: {r}")
