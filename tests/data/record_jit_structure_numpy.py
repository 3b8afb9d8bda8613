"""The jit equations JAX's jnp functions make under ``make_jaxpr`` (lax_numpy, ufuncs, indexing,
array_creation, tensor_contractions, setops, polynomial): tests/test_jit_structure_numpy.py
compares minijax's with them, because a partitioned program lowers each jit as a function call
through which Shardy propagates shardings differently from inlined ops.

    /work/venv_jax/bin/python tests/data/record_jit_structure_numpy.py  # jit_structure_numpy_jax.json

A structure is the nested list ``[name, [children...]]`` of the jit equations found in a jaxpr,
recursively, including inside other equations' sub-jaxprs (a loop body, a cond branch).
"""

import json
import os

import numpy as np


def jit_structure(jaxpr):
    """``[[name, children], ...]`` of the jit equations of ``jaxpr`` (open or closed), in order."""
    out = []
    for eqn in jaxpr.eqns:
        subs = [s for v in eqn.params.values() for s in _sub_jaxprs(v)]
        children = [c for s in subs for c in jit_structure(s)]
        if eqn.primitive.name == "jit":
            out.append([eqn.params["name"], children])
        else:
            out.extend(children)
    return out


def _sub_jaxprs(value):
    if hasattr(value, "eqns"):
        return [value]
    if hasattr(getattr(value, "jaxpr", None), "eqns"):
        return [value.jaxpr]
    if isinstance(value, (tuple, list)):
        return [s for v in value for s in _sub_jaxprs(v)]
    return []


def cases(jnp):
    """name -> (function, args): one public call each, with small arrays."""
    x = jnp.asarray(np.arange(12, dtype=np.float32).reshape(3, 4) / 3 - 1.5)
    y = jnp.asarray(np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4))
    v = jnp.asarray(np.array([0.5, -1.0, 2.0, 3.0, -0.25], np.float32))
    w = jnp.asarray(np.array([1.0, 2.0, -1.0], np.float32))
    i = jnp.asarray(np.array([[3, 6, 9], [4, 8, 2]], np.int32))
    k = jnp.asarray(np.array([2, 4, 3], np.int32))
    u8 = jnp.asarray(np.array([[1, 255], [7, 128]], np.uint8))
    idx = jnp.asarray(np.array([[0, 2], [1, 3], [3, 0]], np.int32))
    s = jnp.asarray(np.array([-1.0, 0.0, 1.0, 2.5], np.float32))
    v3 = jnp.asarray(np.array([[1.0, 2.0, 3.0], [0.0, -1.0, 4.0]], np.float32))
    return {
        # lax_numpy
        "roll": (lambda a: jnp.roll(a, 1), (x,)),
        "roll_axis": (lambda a: jnp.roll(a, 2, axis=1), (x,)),
        "roll_tuple": (lambda a: jnp.roll(a, (1, 2), axis=(0, 1)), (x,)),
        "roll_traced_shift": (lambda a, n: jnp.roll(a, n, axis=0), (x, k[0])),
        "flip": (lambda a: jnp.flip(a), (x,)),
        "flip_axis": (lambda a: jnp.flip(a, 1), (x,)),
        "fliplr": (jnp.fliplr, (x,)),
        "flipud": (jnp.flipud, (x,)),
        "rot90": (jnp.rot90, (x,)),
        "diagonal": (jnp.diagonal, (x,)),
        "diagonal_offset": (lambda a: jnp.diagonal(a, 1), (x,)),
        "trace": (jnp.trace, (x,)),
        "tril": (jnp.tril, (x,)),
        "triu": (lambda a: jnp.triu(a, 1), (x,)),
        "diag_1d": (jnp.diag, (v,)),
        "diag_2d": (jnp.diag, (x,)),
        "diagflat": (jnp.diagflat, (w,)),
        "diff": (jnp.diff, (x,)),
        "diff_n2": (lambda a: jnp.diff(a, n=2, axis=0), (x,)),
        "ediff1d": (jnp.ediff1d, (v,)),
        "trunc": (jnp.trunc, (x,)),
        "round": (jnp.round, (x,)),
        "around": (lambda a: jnp.around(a, 1), (x,)),
        "angle": (jnp.angle, (x,)),
        "i0": (jnp.i0, (x,)),
        "nan_to_num": (jnp.nan_to_num, (x,)),
        "isreal": (jnp.isreal, (x,)),
        "iscomplex": (jnp.iscomplex, (x,)),
        "clip": (lambda a: jnp.clip(a, -1.0, 1.0), (x,)),
        "sort": (jnp.sort, (x,)),
        "argsort": (jnp.argsort, (x,)),
        "searchsorted": (jnp.searchsorted, (s, v)),
        "digitize": (jnp.digitize, (v, s)),
        "atleast_1d": (jnp.atleast_1d, (v[0],)),
        "atleast_2d": (jnp.atleast_2d, (v,)),
        "atleast_3d": (jnp.atleast_3d, (x,)),
        "append": (jnp.append, (v, w)),
        "resize": (lambda a: jnp.resize(a, (2, 7)), (x,)),
        "rollaxis": (lambda a: jnp.rollaxis(a, 1), (x,)),
        "cross": (jnp.cross, (v3, v3[::-1])),
        "kron": (jnp.kron, (w, v)),
        "convolve": (jnp.convolve, (v, w)),
        "correlate": (jnp.correlate, (v, w)),
        "cov": (jnp.cov, (x,)),
        "corrcoef": (jnp.corrcoef, (x,)),
        "gradient": (jnp.gradient, (v,)),
        "trapezoid": (jnp.trapezoid, (x,)),
        "unwrap": (jnp.unwrap, (v,)),
        "vander": (jnp.vander, (w,)),
        "packbits": (jnp.packbits, (u8,)),
        "unpackbits": (jnp.unpackbits, (u8,)),
        "isclose": (jnp.isclose, (x, y)),
        "allclose": (jnp.allclose, (x, y)),
        "gcd": (jnp.gcd, (i, k)),
        "lcm": (jnp.lcm, (i, k)),
        "fmin": (jnp.fmin, (x, y)),
        "fmax": (jnp.fmax, (x, y)),
        "pad": (lambda a: jnp.pad(a, 1), (x,)),
        "pad_reflect": (lambda a: jnp.pad(a, ((1, 0), (0, 2)), mode="reflect"), (x,)),
        "nanargmax": (jnp.nanargmax, (x,)),
        "nanargmin": (lambda a: jnp.nanargmin(a, axis=1), (x,)),
        "argmax": (jnp.argmax, (x,)),
        "piecewise": (lambda a: jnp.piecewise(a, [a < 0], [lambda t: -t, lambda t: t * 2]), (v,)),
        "block": (lambda a, b: jnp.block([[a, b]]), (x, y)),
        "interp": (jnp.interp, (v, s, s * 2)),
        "meshgrid": (jnp.meshgrid, (w, v)),
        "tile": (lambda a: jnp.tile(a, 2), (w,)),
        "repeat": (lambda a: jnp.repeat(a, 2), (w,)),
        "select": (lambda a: jnp.select([a < 0, a > 1], [a, a * 2], 0.0), (x,)),
        "where3": (lambda a, b: jnp.where(a > 0, a, b), (x, y)),
        "moveaxis": (lambda a: jnp.moveaxis(a, 0, 1), (x,)),
        "swapaxes": (lambda a: jnp.swapaxes(a, 0, 1), (x,)),
        "squeeze": (lambda a: jnp.squeeze(a[None]), (x,)),
        "ravel": (jnp.ravel, (x,)),
        "tri": (lambda a: jnp.tri(3) * a[0, 0], (x,)),
        "eye": (lambda a: jnp.eye(3) * a[0, 0], (x,)),
        "identity": (lambda a: jnp.identity(3) * a[0, 0], (x,)),
        "expand_dims": (lambda a: jnp.expand_dims(a, 0), (x,)),
        "concatenate": (lambda a, b: jnp.concatenate([a, b]), (x, y)),
        "stack": (lambda a, b: jnp.stack([a, b]), (x, y)),
        "split": (lambda a: jnp.split(a, 2, axis=1), (x,)),
        "broadcast_arrays": (jnp.broadcast_arrays, (x, w[:1])),
        "copy": (jnp.copy, (x,)),
        "ravel_multi_index_clip": (lambda a: jnp.ravel_multi_index((a, a), (4, 5), mode="clip"),
                                   (k,)),
        "ravel_multi_index_wrap": (lambda a: jnp.ravel_multi_index((a, a), (4, 5), mode="wrap"),
                                   (k,)),
        "unravel_index": (lambda a: jnp.unravel_index(a, (3, 4)), (k,)),
        "histogram": (lambda a: jnp.histogram(a, bins=3, range=(-2.0, 4.0)), (v,)),
        "bincount": (lambda a: jnp.bincount(a, length=10), (k,)),
        "argwhere_size": (lambda a: jnp.argwhere(a > 0, size=3), (v,)),
        "nonzero_size": (lambda a: jnp.nonzero(a > 0, size=3), (v,)),
        "compress": (lambda a: jnp.compress(np.array([True, False, True]), a, axis=0), (x,)),
        "extract_size": (lambda a: jnp.extract(a > 0, a, size=3), (v,)),
        "polyval_array": (jnp.polyval, (w, v)),
        "fill_diagonal": (lambda a: jnp.fill_diagonal(a, 0.0, inplace=False), (x,)),
        "linspace": (lambda a: jnp.linspace(a, 1.0, 5), (v[0],)),
        "logspace": (lambda a: jnp.logspace(a, 1.0, 5), (v[0],)),
        "geomspace": (lambda a: jnp.geomspace(a, 4.0, 5), (v[0] * -2,)),
        "arange_mul": (lambda a: jnp.arange(5) * a, (v[0],)),
        # ufuncs
        "floor_divide": (jnp.floor_divide, (x, y)),
        "remainder": (jnp.remainder, (x, y)),
        "fmod": (jnp.fmod, (x, y)),
        "divmod": (jnp.divmod, (x, y)),
        "power": (jnp.power, (x, y)),
        "power_int": (lambda a: jnp.power(a, 3), (x,)),
        "power_intarray": (jnp.power, (i, k)),
        "float_power": (jnp.float_power, (x, y)),
        "heaviside": (jnp.heaviside, (x, y)),
        "hypot": (jnp.hypot, (x, y)),
        "copysign": (jnp.copysign, (x, y)),
        "ldexp": (jnp.ldexp, (x, idx[:, :1])),
        "frexp": (jnp.frexp, (x,)),
        "modf": (jnp.modf, (x,)),
        "rint": (jnp.rint, (x,)),
        "signbit": (jnp.signbit, (x,)),
        "sinc": (jnp.sinc, (x,)),
        "isinf": (jnp.isinf, (x,)),
        "isposinf": (jnp.isposinf, (x,)),
        "isneginf": (jnp.isneginf, (x,)),
        "arccosh": (jnp.arccosh, (x,)),
        "arcsinh": (jnp.arcsinh, (x,)),
        "bitwise_count": (jnp.bitwise_count, (i,)),
        "deg2rad": (jnp.deg2rad, (x,)),
        "rad2deg": (jnp.rad2deg, (x,)),
        "log2": (jnp.log2, (x,)),
        "log10": (jnp.log10, (x,)),
        "logaddexp": (jnp.logaddexp, (x, y)),
        "logaddexp2": (jnp.logaddexp2, (x, y)),
        "nextafter": (jnp.nextafter, (x, y)),
        "spacing": (jnp.spacing, (x,)),
        "cbrt": (jnp.cbrt, (x,)),
        "square": (jnp.square, (x,)),
        "sign": (jnp.sign, (x,)),
        "reciprocal": (jnp.reciprocal, (x,)),
        "exp2": (jnp.exp2, (x,)),
        "conjugate": (jnp.conjugate, (x,)),
        # indexing
        "take": (lambda a, j: jnp.take(a, j), (x, k)),
        "take_axis": (lambda a, j: jnp.take(a, j, axis=1), (x, k)),
        "take_along_axis": (lambda a, j: jnp.take_along_axis(a, j, axis=1), (x, idx)),
        "put_along_axis": (lambda a, j: jnp.put_along_axis(a, j, 0.0, axis=1, inplace=False), (x, idx)),
        "getitem_int": (lambda a: a[1], (x,)),
        "getitem_array": (lambda a, j: a[j], (x, k[:2] - 2)),
        "at_set": (lambda a: a.at[0, 1].set(5.0), (x,)),
        # tensor_contractions
        "matvec": (jnp.matvec, (x, y[0])),
        "vecmat": (jnp.vecmat, (x[:, 0], y)),
        "dot": (jnp.dot, (x, y.T)),
        "matmul": (jnp.matmul, (x, y.T)),
        "inner": (jnp.inner, (x, y)),
        "outer": (jnp.outer, (w, v)),
        "vdot": (jnp.vdot, (x, y)),
        "vecdot": (jnp.vecdot, (x, y)),
        "tensordot": (lambda a, b: jnp.tensordot(a, b, 1), (x, y.T)),
        "einsum": (lambda a, b: jnp.einsum("ij,kj->ik", a, b), (x, y)),
        # setops
        "unique_size": (lambda a: jnp.unique(a, size=5), (v,)),
        "unique_values_size": (lambda a: jnp.unique_values(a, size=5), (v,)) if hasattr(jnp, "unique_values") else None,
        "isin": (jnp.isin, (v, w)),
        "intersect1d_size": (lambda a, b: jnp.intersect1d(a, b, size=3), (v, w)),
        "setxor1d_size": (lambda a, b: jnp.setxor1d(a, b, size=3), (v, w)),
        "setdiff1d_size": (lambda a, b: jnp.setdiff1d(a, b, size=3), (v, w)),
        "union1d_size": (lambda a, b: jnp.union1d(a, b, size=3), (v, w)),
        "lexsort": (lambda a, b: jnp.lexsort((a, b)), (v, v * 2)),
        "partition": (lambda a: jnp.partition(a, 2), (x,)),
        "argpartition": (lambda a: jnp.argpartition(a, 1, axis=0), (x,)),
        "sort_complex": (jnp.sort_complex, (v,)),
        # polynomial
        "roots": (lambda p: jnp.roots(p, strip_zeros=False), (w,)),
        "poly": (jnp.poly, (w,)),
        "polyadd": (jnp.polyadd, (w, v)),
        "polysub": (jnp.polysub, (w, v)),
        "polymul": (jnp.polymul, (w, v)),
        "polyder": (jnp.polyder, (v,)),
        "polyint": (jnp.polyint, (v,)),
        "polyval": (jnp.polyval, (w, v)),
        "polyfit": (lambda a, b: jnp.polyfit(a, b, 2), (v, v * 2)),
        "polydiv": (jnp.polydiv, (v, w)),
        # window functions
        "hamming": (lambda a: jnp.hamming(5) * a, (v[0],)),
        "hanning": (lambda a: jnp.hanning(5) * a, (v[0],)),
        "blackman": (lambda a: jnp.blackman(5) * a, (v[0],)),
        "bartlett": (lambda a: jnp.bartlett(5) * a, (v[0],)),
        "kaiser": (lambda a: jnp.kaiser(5, 2.0) * a, (v[0],)),
    }


def record(jax):
    out = {}
    for name, case in cases(jax.numpy).items():
        if case is None:
            continue
        fn, args = case
        try:
            out[name] = jit_structure(jax.make_jaxpr(fn)(*args).jaxpr)
        except Exception as e:  # noqa: BLE001 - recorded: the test skips what JAX cannot stage
            out[name] = ["error", type(e).__name__]
    return out


if __name__ == "__main__":
    import jax

    data = {"jax_version": jax.__version__, "cases": record(jax)}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jit_structure_numpy_jax.json")
    with open(path, "w") as fh:
        json.dump(data, fh, indent=0)
