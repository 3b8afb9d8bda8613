"""Records (dtype, weak_type) of jnp functions on weakly/strongly typed inputs from JAX.

Run with real JAX (0.10.2 recorded):
    /work/venv_jax/bin/python tests/data/record_r7_weak.py > tests/data/r7_weak_jax.json
"table" holds eager calls, "traced" the same calls under ``jax.eval_shape`` (traced as under
jit: a concrete exponent or axis argument no longer picks a special path).
tests/test_fidelity_r7_weak.py runs the same cases (``cases``/``run``) on minijax.
"""
import json

import numpy as np

UNARY = """isinf isnan isfinite isposinf isneginf signbit round around rint floor ceil trunc
abs negative positive sign square sqrt cbrt exp exp2 expm1 log log1p log2 log10 sin cos tan
arcsin arccos arctan sinh cosh tanh arcsinh arccosh arctanh deg2rad rad2deg degrees radians
reciprocal logical_not sinc i0 real imag conj angle nan_to_num iscomplex isreal spacing frexp
modf fabs""".split()
BINARY = """float_power heaviside copysign nextafter ldexp hypot arctan2 logaddexp logaddexp2
maximum minimum fmax fmin fmod remainder floor_divide true_divide divide power mod gcd lcm
isposinf isneginf modf angle logical_and logical_or logical_xor add subtract multiply equal
less""".split()
REDUCTIONS = """sum mean var std prod max min argmax argmin median nanmean nansum nanmax
cumsum cumprod nancumsum ptp average all any count_nonzero nanmin nanprod nanvar nanstd
nanargmax nanmedian amax nancumprod cumulative_sum""".split()
WITH_DTYPE = "sum mean prod var std nansum nanmean cumsum cumprod".split()
KINDS = ("wf", "wf_arr", "sf", "wi", "wi_arr", "si", "b", "wc", "sc")


def inputs(jnp):
    sel = jnp.array([True, False])
    return {
        "wf": jnp.asarray(1.5), "wf_arr": jnp.where(sel, 0.5, 1.5),
        "sf": jnp.array([0.5, 1.5], np.float32), "wi": jnp.asarray(3),
        "wi_arr": jnp.where(sel, 2, 3), "si": jnp.array([2, 3], np.int32),
        "b": jnp.array([True, False]), "wc": jnp.asarray(1.5 + 0.5j),
        "sc": jnp.array([1 + 1j, 2], np.complex64),
        "wf_2d": jnp.where(jnp.array([[True, False], [False, True]]), 0.5, 1.5),
    }


def cases():
    """(name, kind, second positional or None, kwargs) for every probed call."""
    out = []
    for k in KINDS:
        out += [(n, k, None, {}) for n in UNARY]
        out += [(n, k, s, {}) for n in BINARY for s in ("x", 2, 1.5)]
        out += [(n, k, None, {"decimals": d}) for n in ("round", "around") for d in (1, -1)]
        for n in REDUCTIONS:
            out += [(n, k, None, {}), (n, k, None, {"axis": 0}),
                    (n, k, None, {"keepdims": True})]
        # (var/std with an integer dtype: JAX computes in it and returns a weak float; minijax
        # refuses, a known difference left out of the table)
        out += [(n, k, None, {"dtype": d}) for n in WITH_DTYPE for d in ("float32", "int32")
                if d == "float32" or n not in ("var", "std")]
    for n in REDUCTIONS:  # a weak rank-2 array: reduced over one axis, both, kept dims
        out += [(n, "wf_2d", None, kw) for kw in ({}, {"axis": 1}, {"axis": -1, "keepdims": True},
                                                  {"axis": (0, 1)})]
    return out


def _describe(r):
    """``"dtype:weak_type"`` per result, space-separated (modf and frexp return two)."""
    rs = r if isinstance(r, tuple) else (r,)
    return " ".join(f"{np.dtype(v.dtype).name}:{bool(getattr(v, 'weak_type', False))}" for v in rs)


def run(jnp, kinds=None, eval_shape=None):
    """The table for the cases on ``kinds`` (None: all): eager calls, or abstract ones through
    ``eval_shape`` (no compilation; ``x`` is traced as under jit, scalars stay Python's)."""
    xs = inputs(jnp)
    table = {}
    for name, kind, second, kw in cases():
        if kinds is not None and kind not in kinds:
            continue
        key = f"{name}|{kind}|{second!r}|{json.dumps(kw, sort_keys=True)}"

        def call(x, fn=getattr(jnp, name), second=second, kw=kw):
            args = (x,) if second is None else (x, x if second == "x" else second)
            return fn(*args, **kw)

        try:
            out = call(xs[kind]) if eval_shape is None else eval_shape(call, xs[kind])
            table[key] = _describe(out)
        except Exception as e:  # noqa: BLE001 - the error type is the recorded outcome
            table[key] = type(e).__name__
    return table


if __name__ == "__main__":
    import jax

    jax.config.update("jax_enable_x64", False)
    print(json.dumps({"jax_version": jax.__version__, "table": run(jax.numpy),
                      "traced": run(jax.numpy, eval_shape=jax.eval_shape)},
                     indent=1, sort_keys=True))
