"""Records (dtype, weak_type) of jnp functions on weakly/strongly typed inputs from JAX.

Run with real JAX (0.10.2 recorded):
    /work/venv_jax/bin/python tests/data/record_r7_weak.py > tests/data/r7_weak_jax.json
tests/test_fidelity_r7_weak.py runs the same table (``cases``/``run``) on minijax.
"""
import json
import sys

import numpy as np

UNARY = """isinf isnan isfinite isposinf isneginf signbit round around rint floor ceil trunc
abs negative positive sign square sqrt cbrt exp exp2 expm1 log log1p log2 log10 sin cos tan
arcsin arccos arctan sinh cosh tanh arcsinh arccosh arctanh deg2rad rad2deg degrees radians
reciprocal logical_not sinc i0 real imag conj angle nan_to_num iscomplex isreal spacing frexp
modf fabs""".split()
BINARY = """float_power heaviside copysign nextafter ldexp hypot arctan2 logaddexp logaddexp2
maximum minimum fmax fmin fmod remainder floor_divide true_divide divide power mod gcd lcm
isposinf isneginf modf angle""".split()
REDUCTIONS = """sum mean var std prod max min argmax argmin median nanmean nansum nanmax
cumsum cumprod nancumsum ptp average all any count_nonzero""".split()
KINDS = ("wf", "wf_arr", "sf", "wi", "wi_arr", "si", "b", "wc", "sc")


def inputs(jnp):
    sel = jnp.array([True, False])
    return {
        "wf": jnp.asarray(1.5), "wf_arr": jnp.where(sel, 0.5, 1.5),
        "sf": jnp.array([0.5, 1.5], np.float32), "wi": jnp.asarray(3),
        "wi_arr": jnp.where(sel, 2, 3), "si": jnp.array([2, 3], np.int32),
        "b": jnp.array([True, False]), "wc": jnp.asarray(1.5 + 0.5j),
        "sc": jnp.array([1 + 1j, 2], np.complex64),
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
    return out


def _describe(r):
    rs = r if isinstance(r, tuple) else (r,)
    return [[np.dtype(v.dtype).name, bool(getattr(v, "weak_type", False))] for v in rs]


def run(jnp):
    xs = inputs(jnp)
    table = {}
    for name, kind, second, kw in cases():
        x = xs[kind]
        args = (x,) if second is None else (x, x if second == "x" else second)
        key = f"{name}|{kind}|{second!r}|{json.dumps(kw, sort_keys=True)}"
        try:
            table[key] = _describe(getattr(jnp, name)(*args, **kw))
        except Exception as e:  # noqa: BLE001 - the error type is the recorded outcome
            table[key] = type(e).__name__
    return table


if __name__ == "__main__":
    mod = sys.argv[1] if len(sys.argv) > 1 else "jax"
    jnp = __import__(mod + ".numpy", fromlist=["numpy"])
    if mod == "jax":
        import jax
        jax.config.update("jax_enable_x64", False)
        print(json.dumps({"jax_version": jax.__version__, "table": run(jnp)}, indent=0,
                         sort_keys=True))
    else:
        print(json.dumps({"table": run(jnp)}, indent=0, sort_keys=True))
