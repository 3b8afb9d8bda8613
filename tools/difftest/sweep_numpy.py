"""By-hand value sweep of jax.numpy / jax.nn functions that the random harness rarely reaches.

Runs under both interpreters, one line per case and mode, so the two outputs diff:

    cd /tmp && /work/venv_jax/bin/python /work/main/tools/difftest/sweep_numpy.py > jax.txt
    cd /tmp && PYTHONPATH=/work/main python3 -m minijax.run_as_jax \
        /work/main/tools/difftest/sweep_numpy.py > mj.txt
    diff jax.txt mj.txt

(an argument ``NAME`` runs the cases whose name holds NAME, ``from:NAME`` those from NAME on).

Each line: case name, mode (eager / jit / grad), then per output leaf dtype, weak type, shape,
values to 7 significant digits and a hash of the bits (so a last-bit difference shows as a
differing hash with equal printed values), or the error's type and message start.
"""
import hashlib
import sys
import warnings

import jax
import jax.numpy as jnp
import numpy as np

warnings.simplefilter("ignore")

f16, bf16, c64 = np.float16, jnp.bfloat16, np.complex64
SPECIAL = np.array([0.0, -0.0, 1.5, -2.5, np.inf, -np.inf, np.nan, 3e38, 1e-45, -7.0],
                   np.float32)
ORD = np.array([0.3, -1.2, 2.7, 4.0, -0.5, 1.0], np.float32)
NANS = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan], [4.0, -1.0, 2.0]], np.float32)
I8 = np.array([-128, -1, 0, 1, 127, 5], np.int8)
U64 = np.array([0, 1, 2**63, 2**64 - 1], np.uint64)
I32 = np.array([-7, -1, 0, 3, 7, 2**31 - 1], np.int32)
HALVES = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5], np.float32)
EMPTY = np.zeros((0,), np.float32)
M = np.arange(12, dtype=np.float32).reshape(3, 4) * 0.7 - 3.0

CASES = []


def case(name, *args, grad=False, jit=True):
    def deco(fn):
        CASES.append((name, fn, args, grad, jit))
        return fn
    return deco


def add(name, fn, *args, grad=False, jit=True):
    CASES.append((name, fn, args, grad, jit))


# ---- nan-functions
for nm in ["nanmean", "nanstd", "nanvar", "nanmedian", "nansum", "nanprod", "nanmin", "nanmax",
           "nancumsum", "nancumprod", "nanargmax", "nanargmin"]:
    add(nm, lambda x, nm=nm: getattr(jnp, nm)(x), NANS)
    add(nm + "_ax1", lambda x, nm=nm: getattr(jnp, nm)(x, axis=1), NANS)
for nm in ["nanmean", "nanstd", "nanvar", "nanmedian", "nansum", "nanmin", "nanmax"]:
    add(nm + "_keepdims", lambda x, nm=nm: getattr(jnp, nm)(x, axis=0, keepdims=True), NANS)
    add(nm + "_int", lambda x, nm=nm: getattr(jnp, nm)(x), I32)
    add(nm + "_f16", lambda x, nm=nm: getattr(jnp, nm)(x), NANS.astype(f16))
    add(nm + "_empty", lambda x, nm=nm: getattr(jnp, nm)(x), EMPTY, jit=False)
add("nanstd_ddof", lambda x: jnp.nanstd(x, axis=1, ddof=1), NANS)
add("nanvar_ddof2", lambda x: jnp.nanvar(x, axis=0, ddof=2), NANS)
add("nanmean_where", lambda x: jnp.nanmean(x, where=x > 1.5), NANS)
add("nanvar_c64", lambda x: jnp.nanvar(x), (NANS + 1j * NANS[::-1]).astype(c64))
add("nanpercentile", lambda x: jnp.nanpercentile(x, 40.0, axis=1), NANS)
add("nanquantile", lambda x: jnp.nanquantile(x, jnp.array([0.1, 0.5, 0.9]), axis=0), NANS)
add("nanmean_grad", lambda x: jnp.nanmean(x), ORD, grad=True)

# ---- percentile / quantile
for meth in ["linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf",
             "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf",
             "hazen", "weibull", "median_unbiased", "normal_unbiased"]:
    add("quantile_" + meth, lambda x, m=meth: jnp.quantile(x, jnp.array([0.0, 0.13, 0.5, 0.77, 1.0]),
                                                           method=m), ORD)
    add("percentile_" + meth, lambda x, m=meth: jnp.percentile(x, 37.0, axis=1, method=m), M)
    add("quantile_int_" + meth, lambda x, m=meth: jnp.quantile(x, 0.3, method=m), I32)
add("quantile_keepdims", lambda x: jnp.quantile(x, 0.5, axis=0, keepdims=True), M)
add("quantile_nan", lambda x: jnp.quantile(x, 0.5), SPECIAL)
add("quantile_f16", lambda x: jnp.quantile(x, 0.3), ORD.astype(f16))
add("quantile_bf16", lambda x: jnp.quantile(x, 0.3), ORD.astype(bf16))
add("quantile_pyq", lambda x: jnp.quantile(x, 0.25), ORD)
add("quantile_badq", lambda x: jnp.quantile(x, 1.5), ORD, jit=False)
add("quantile_badmethod", lambda x: jnp.quantile(x, 0.5, method="foo"), ORD, jit=False)
add("median", lambda x: jnp.median(x, axis=1), M)
add("median_int", lambda x: jnp.median(x), I32)
add("median_empty", lambda x: jnp.median(x), EMPTY, jit=False)
add("quantile_grad", lambda x: jnp.quantile(x, 0.3), ORD, grad=True)

# ---- histograms
add("histogram_int", lambda x: jnp.histogram(x, bins=4), ORD)
add("histogram_range", lambda x: jnp.histogram(x, bins=3, range=(-1.0, 2.0)), ORD)
add("histogram_arr", lambda x: jnp.histogram(x, bins=jnp.array([-2.0, 0.0, 1.0, 5.0])), ORD)
add("histogram_w", lambda x: jnp.histogram(x, bins=3, weights=x * 2), ORD)
add("histogram_density", lambda x: jnp.histogram(x, bins=3, density=True), ORD)
add("histogram_w_density", lambda x: jnp.histogram(x, bins=3, weights=jnp.abs(x), density=True), ORD)
add("histogram_int_in", lambda x: jnp.histogram(x, bins=3), I32)
add("histogram_str", lambda x: jnp.histogram(x, bins="auto"), ORD, jit=False)
add("histogram_bin_edges", lambda x: jnp.histogram_bin_edges(x, bins=5), ORD)
add("histogram_bin_edges_int", lambda x: jnp.histogram_bin_edges(x, bins=5), I32)
add("histogram_bin_edges_range", lambda x: jnp.histogram_bin_edges(x, bins=2, range=(0, 1)), ORD)
add("histogram_bin_edges_same", lambda x: jnp.histogram_bin_edges(x, bins=3), np.ones(4, np.float32))
add("histogram_bin_edges_f16", lambda x: jnp.histogram_bin_edges(x, bins=3), ORD.astype(f16))
add("histogram2d", lambda x, y: jnp.histogram2d(x, y, bins=3), ORD, ORD[::-1])
add("histogram2d_list", lambda x, y: jnp.histogram2d(x, y, bins=[2, 3], density=True), ORD, ORD[::-1])
add("histogram2d_range_w", lambda x, y: jnp.histogram2d(x, y, bins=2, range=[[-1, 1], [0, 3]],
                                                         weights=x), ORD, ORD[::-1])
add("histogramdd", lambda x: jnp.histogramdd(x, bins=2), M.T[:, :3])
add("histogramdd_density", lambda x: jnp.histogramdd(x, bins=[2, 3, 2], density=True), M.T[:, :3])
add("histogram_grad_w", lambda w: jnp.histogram(ORD, bins=3, weights=w)[0].sum(), ORD, grad=True)

# ---- bincount / digitize / searchsorted / interp
add("bincount", lambda x: jnp.bincount(x, length=6), np.array([0, 1, 1, 3, 5, 9], np.int32))
add("bincount_w", lambda x: jnp.bincount(x, weights=jnp.arange(6.0), length=4),
    np.array([0, 1, 1, 3, 2, 0], np.int32))
add("bincount_minlength", lambda x: jnp.bincount(x, minlength=3, length=5), np.array([0, 1, 4], np.int32))
add("bincount_eager", lambda x: jnp.bincount(x), np.array([0, 2, 2, 4], np.int32), jit=False)
add("bincount_neg", lambda x: jnp.bincount(x, length=3), np.array([-1, 0, 2], np.int32))
add("bincount_float", lambda x: jnp.bincount(x, length=3), ORD, jit=False)
add("bincount_u8", lambda x: jnp.bincount(x, length=4), np.array([0, 3, 3], np.uint8))
add("bincount_bool", lambda x: jnp.bincount(x, length=3), np.array([True, False, True]))
add("digitize", lambda x: jnp.digitize(x, jnp.array([-1.0, 0.0, 1.0, 3.0])), SPECIAL)
add("digitize_right", lambda x: jnp.digitize(x, jnp.array([-1.0, 0.0, 1.0, 3.0]), right=True), SPECIAL)
add("digitize_dec", lambda x: jnp.digitize(x, jnp.array([3.0, 1.0, 0.0, -1.0])), ORD)
add("digitize_int", lambda x: jnp.digitize(x, jnp.array([0, 3, 5])), I32)
for side in ["left", "right"]:
    for meth in ["scan", "scan_unrolled", "sort", "compare_all"]:
        add(f"searchsorted_{side}_{meth}",
            lambda x, s=side, m=meth: jnp.searchsorted(jnp.array([-1.0, 0.0, 0.0, 1.5, np.nan]), x,
                                                       side=s, method=m), SPECIAL)
add("searchsorted_int", lambda x: jnp.searchsorted(jnp.array([0, 3, 5], np.int8), x), I32)
add("searchsorted_scalar", lambda: jnp.searchsorted(jnp.array([1, 2, 3]), 2))
add("searchsorted_sorter", lambda x: jnp.searchsorted(x, 1.0, sorter=jnp.argsort(x)), ORD)
add("searchsorted_badside", lambda x: jnp.searchsorted(x, 1.0, side="middle"), ORD, jit=False)
add("searchsorted_u64", lambda x: jnp.searchsorted(x, np.uint64(2**63)), U64)
add("interp", lambda x: jnp.interp(x, jnp.array([-1.0, 0.0, 2.0]), jnp.array([5.0, 1.0, 3.0])), SPECIAL)
add("interp_lr", lambda x: jnp.interp(x, jnp.array([-1.0, 0.0, 2.0]), jnp.array([5.0, 1.0, 3.0]),
                                      left=-9.0, right=np.nan), ORD)
add("interp_period", lambda x: jnp.interp(x, jnp.array([0.0, 1.0, 2.5]), jnp.array([5.0, 1.0, 3.0]),
                                          period=3.0), ORD)
add("interp_period0", lambda x: jnp.interp(x, jnp.array([0.0, 1.0]), jnp.array([5.0, 1.0]),
                                           period=0.0), ORD, jit=False)
add("interp_int", lambda x: jnp.interp(x, jnp.array([0, 2, 8]), jnp.array([0, 4, 5])), I32)
add("interp_complex", lambda x: jnp.interp(x, jnp.array([0.0, 2.0]), jnp.array([1 + 1j, 3 - 2j])), ORD)
add("interp_dup", lambda x: jnp.interp(x, jnp.array([0.0, 1.0, 1.0, 2.0]),
                                       jnp.array([0.0, 1.0, 5.0, 6.0])), ORD)
add("interp_grad", lambda x: jnp.interp(x, jnp.array([-1.0, 0.0, 2.0]),
                                        jnp.array([5.0, 1.0, 3.0])).sum(), ORD, grad=True)

# ---- convolve / correlate
for mode in ["full", "same", "valid"]:
    add("convolve_" + mode, lambda a, v, m=mode: jnp.convolve(a, v, mode=m), ORD, ORD[:3])
    add("correlate_" + mode, lambda a, v, m=mode: jnp.correlate(a, v, mode=m), ORD, ORD[:4])
    add("convolve_c64_" + mode, lambda a, v, m=mode: jnp.convolve(a, v, mode=m),
        (ORD + 1j * ORD[::-1]).astype(c64), (ORD[:3] - 2j).astype(c64))
    add("correlate_c64_" + mode, lambda a, v, m=mode: jnp.correlate(a, v, mode=m),
        (ORD + 1j * ORD[::-1]).astype(c64), (ORD[:3] - 2j).astype(c64))
add("convolve_int", lambda a, v: jnp.convolve(a, v), I32[:4], I32[:2])
add("convolve_bool", lambda a, v: jnp.convolve(a, v), np.array([True, False, True]), np.array([True, True]))
add("convolve_f16", lambda a, v: jnp.convolve(a, v), ORD.astype(f16), ORD[:2].astype(f16))
add("convolve_prec", lambda a, v: jnp.convolve(a, v, precision="highest"), ORD, ORD[:3])
add("convolve_pet", lambda a, v: jnp.convolve(a, v, preferred_element_type=jnp.float32), I8, I8[:2])
add("convolve_short_first", lambda a, v: jnp.convolve(a, v, mode="same"), ORD[:2], ORD)
add("correlate_short_first", lambda a, v: jnp.correlate(a, v, mode="valid"), ORD[:2], ORD)
add("convolve_empty", lambda a, v: jnp.convolve(a, v), EMPTY, ORD, jit=False)
add("convolve_badmode", lambda a, v: jnp.convolve(a, v, mode="x"), ORD, ORD, jit=False)
add("convolve_2d", lambda a, v: jnp.convolve(a, v), M, ORD, jit=False)
add("convolve_grad", lambda a: jnp.convolve(a, ORD[:3]).sum(), ORD, grad=True)

# ---- polynomials
add("polyfit", lambda x, y: jnp.polyfit(x, y, 2), ORD, ORD ** 2 - ORD)
add("polyfit_w", lambda x, y: jnp.polyfit(x, y, 1, w=jnp.arange(1.0, 7.0)), ORD, ORD * 3 + 1)
add("polyfit_full", lambda x, y: jnp.polyfit(x, y, 1, full=True), ORD, ORD * 3 + 1, jit=False)
add("polyfit_cov", lambda x, y: jnp.polyfit(x, y, 1, cov=True), ORD, ORD * 3 + 1.5 * ORD ** 2)
add("polyfit_cov_unscaled", lambda x, y: jnp.polyfit(x, y, 1, cov="unscaled"), ORD, ORD * 3 + ORD ** 2)
add("polyfit_int", lambda x, y: jnp.polyfit(x, y, 1), I32[:5], I32[:5] * 2)
add("polyfit_2d", lambda x, y: jnp.polyfit(x, y, 1), ORD[:4], M.T)
add("polyval", lambda p, x: jnp.polyval(p, x), ORD[:3], SPECIAL)
add("polyval_int", lambda p, x: jnp.polyval(p, x), I32[:3], I32)
add("polyval_unroll", lambda p, x: jnp.polyval(p, x, unroll=2), ORD, ORD)
add("polyval_scalar", lambda: jnp.polyval(jnp.array([1, 2, 3]), 2))
add("polyval_empty", lambda x: jnp.polyval(jnp.zeros(0), x), ORD)
add("polyadd", lambda a, b: jnp.polyadd(a, b), ORD[:2], ORD)
add("polyadd_int", lambda a, b: jnp.polyadd(a, b), I32[:2], I8)
add("polysub", lambda a, b: jnp.polysub(a, b), ORD, ORD[:2])
add("polymul", lambda a, b: jnp.polymul(a, b), ORD[:3], ORD[:2])
add("polymul_trim", lambda a, b: jnp.polymul(a, b, trim_leading_zeros=True),
    np.array([0.0, 0.0, 1.0, 2.0], np.float32), ORD[:2], jit=False)
add("polymul_int", lambda a, b: jnp.polymul(a, b), I32[:3], I32[:2])
add("polydiv", lambda a, b: jnp.polydiv(a, b), ORD, ORD[:2])
add("polydiv_int", lambda a, b: jnp.polydiv(a, b), I32[1:], np.array([1, 2], np.int32))
add("polyder", lambda p: jnp.polyder(p), ORD)
add("polyder_m2", lambda p: jnp.polyder(p, m=2), I32)
add("polyder_m0", lambda p: jnp.polyder(p, m=0), ORD)
add("polyder_neg", lambda p: jnp.polyder(p, m=-1), ORD, jit=False)
add("polyint", lambda p: jnp.polyint(p), ORD)
add("polyint_k", lambda p: jnp.polyint(p, m=2, k=jnp.array([1.0, 2.0])), ORD)
add("polyint_int", lambda p: jnp.polyint(p), I32)
add("polyint_kscalar", lambda p: jnp.polyint(p, m=2, k=3.0), ORD)
add("roots", lambda p: jnp.sort_complex(jnp.roots(p)), np.array([1.0, -3.0, 2.0], np.float32), jit=False)
add("roots_lead0", lambda p: jnp.sort_complex(jnp.roots(p)),
    np.array([0.0, 0.0, 1.0, -3.0, 2.0, 0.0], np.float32), jit=False)
add("roots_nostrip", lambda p: jnp.sort_complex(jnp.roots(p, strip_zeros=False)),
    np.array([1.0, -3.0, 2.0, 0.0], np.float32))
add("roots_int", lambda p: jnp.sort_complex(jnp.roots(p)), np.array([1, 0, 1], np.int32), jit=False)
add("roots_const", lambda p: jnp.roots(p), np.array([5.0], np.float32), jit=False)
add("poly", lambda r: jnp.poly(r), ORD[:3])
add("poly_int", lambda r: jnp.poly(r), I32[:3])
add("poly_2d", lambda r: jnp.poly(r), np.eye(2, dtype=np.float32) * 2)

# ---- set operations
U = np.array([3, 1, 2, 3, 1, 0, 7], np.int32)
UF = np.array([np.nan, 1.0, np.nan, -0.0, 0.0, 2.0, np.inf], np.float32)
add("unique", lambda x: jnp.unique(x), U, jit=False)
add("unique_all", lambda x: jnp.unique(x, return_index=True, return_inverse=True,
                                       return_counts=True), U, jit=False)
add("unique_size", lambda x: jnp.unique(x, size=8), U)
add("unique_size_fill", lambda x: jnp.unique(x, size=8, fill_value=-5), U)
add("unique_size_small", lambda x: jnp.unique(x, size=2, return_counts=True, return_index=True), U)
add("unique_all_size", lambda x: jnp.unique(x, return_index=True, return_inverse=True,
                                            return_counts=True, size=6, fill_value=9), U)
add("unique_nan", lambda x: jnp.unique(x), UF, jit=False)
add("unique_nan_noeq", lambda x: jnp.unique(x, equal_nan=False), UF, jit=False)
add("unique_nan_size", lambda x: jnp.unique(x, size=7, return_counts=True), UF)
add("unique_2d_axis", lambda x: jnp.unique(x, axis=0, return_inverse=True),
    np.array([[1, 2], [0, 1], [1, 2]], np.int32), jit=False)
add("unique_2d_flat_inv", lambda x: jnp.unique(x, return_inverse=True),
    np.array([[1, 2], [0, 1], [1, 2]], np.int32), jit=False)
add("unique_bool", lambda x: jnp.unique(x), np.array([True, False, True]), jit=False)
add("unique_empty", lambda x: jnp.unique(x, return_counts=True), EMPTY, jit=False)
add("unique_c64", lambda x: jnp.unique(x), np.array([1 + 1j, 1 - 1j, 1 + 1j, 0], c64), jit=False)
add("unique_values", lambda x: jnp.unique_values(x), U, jit=False)
add("unique_counts", lambda x: jnp.unique_counts(x), U, jit=False)
add("unique_inverse", lambda x: jnp.unique_inverse(x), np.array([[1, 2], [0, 1]], np.int32), jit=False)
add("unique_all_fn", lambda x: jnp.unique_all(x), U, jit=False)
add("unique_nosize_jit", lambda x: jnp.unique(x), U, jit=True)
A1 = np.array([5, 1, 3, 3, 9], np.int32)
B1 = np.array([3, 4, 5, 5, 0], np.int32)
add("union1d", lambda a, b: jnp.union1d(a, b), A1, B1, jit=False)
add("union1d_size", lambda a, b: jnp.union1d(a, b, size=8, fill_value=-1), A1, B1)
add("intersect1d", lambda a, b: jnp.intersect1d(a, b), A1, B1, jit=False)
add("intersect1d_ind", lambda a, b: jnp.intersect1d(a, b, return_indices=True), A1, B1, jit=False)
add("intersect1d_size", lambda a, b: jnp.intersect1d(a, b, size=4, fill_value=0), A1, B1)
add("intersect1d_au", lambda a, b: jnp.intersect1d(a, b, assume_unique=True, return_indices=True),
    np.array([5, 1, 3], np.int32), np.array([3, 5, 0], np.int32), jit=False)
add("intersect1d_size_ind", lambda a, b: jnp.intersect1d(a, b, size=3, return_indices=True), A1, B1)
add("setdiff1d", lambda a, b: jnp.setdiff1d(a, b), A1, B1, jit=False)
add("setdiff1d_size", lambda a, b: jnp.setdiff1d(a, b, size=4), A1, B1)
add("setdiff1d_size_fill", lambda a, b: jnp.setdiff1d(a, b, size=4, fill_value=7), A1, B1)
add("setdiff1d_au", lambda a, b: jnp.setdiff1d(a, b, assume_unique=True), A1, B1, jit=False)
add("setxor1d", lambda a, b: jnp.setxor1d(a, b), A1, B1, jit=False)
add("setxor1d_size", lambda a, b: jnp.setxor1d(a, b, size=6, fill_value=-3), A1, B1)
add("setxor1d_au", lambda a, b: jnp.setxor1d(a, b, assume_unique=True),
    np.array([5, 1, 3], np.int32), np.array([3, 4, 0], np.int32), jit=False)
add("setops_float_nan", lambda a, b: jnp.union1d(a, b), UF, UF[:3], jit=False)
add("setdiff_mixed", lambda a, b: jnp.setdiff1d(a, b), A1, ORD, jit=False)
add("isin", lambda a, b: jnp.isin(a, b), A1, B1)
add("isin_invert", lambda a, b: jnp.isin(a, b, invert=True), A1, B1)
add("isin_au", lambda a, b: jnp.isin(a, b, assume_unique=True), A1, B1)
add("isin_2d", lambda a, b: jnp.isin(a, b), M, ORD)
add("isin_nan", lambda a, b: jnp.isin(a, b), UF, UF)
add("isin_method_sort", lambda a, b: jnp.isin(a, b, method="sort"), A1, B1)
add("isin_scalar", lambda: jnp.isin(3, jnp.array([1, 3])))

# ---- lexsort / partition / sorting
add("lexsort", lambda a, b: jnp.lexsort((a, b)), A1, B1)
add("lexsort_2d", lambda m: jnp.lexsort(m), M)
add("lexsort_axis0", lambda m: jnp.lexsort(m, axis=0), M)
add("lexsort_nan", lambda a, b: jnp.lexsort((a, b)), UF, UF[::-1])
add("lexsort_empty", lambda: jnp.lexsort(()), jit=False)
add("partition", lambda x: jnp.partition(x, 3), SPECIAL)
add("partition_neg", lambda x: jnp.partition(x, -2), SPECIAL)
add("partition_2d", lambda x: jnp.partition(x, 1, axis=0), M)
add("argpartition", lambda x: jnp.argpartition(x, 2), ORD)
add("argpartition_neg", lambda x: jnp.argpartition(x, -1, axis=1), M)
add("partition_int", lambda x: jnp.partition(x, 2), I8)
add("partition_bad", lambda x: jnp.partition(x, 10), ORD, jit=False)
add("partition_grad", lambda x: jnp.partition(x, 3)[3:].sum(), ORD, grad=True)
add("sort_complex", lambda x: jnp.sort_complex(x), I32)
add("sort_stable_desc", lambda x: jnp.sort(x, descending=True), SPECIAL)
add("argsort_desc", lambda x: jnp.argsort(x, descending=True, stable=True), U)
add("sort_bool", lambda x: jnp.sort(x), np.array([True, False, True]))

# ---- diff / gradient / trapezoid / cross / kron / tensordot
add("trapezoid", lambda y: jnp.trapezoid(y), ORD)
add("trapezoid_x", lambda y, x: jnp.trapezoid(y, x), ORD, np.cumsum(np.abs(ORD)))
add("trapezoid_dx", lambda y: jnp.trapezoid(y, dx=0.5, axis=0), M)
add("trapezoid_int", lambda y: jnp.trapezoid(y), I32)
add("trapezoid_bool", lambda y: jnp.trapezoid(y), np.array([True, False, True]))
add("trapezoid_empty", lambda y: jnp.trapezoid(y), EMPTY)
add("diff", lambda x: jnp.diff(x), SPECIAL)
add("diff_n2", lambda x: jnp.diff(x, n=2, axis=0), M)
add("diff_n0", lambda x: jnp.diff(x, n=0), ORD)
add("diff_prepend", lambda x: jnp.diff(x, prepend=0.0, append=jnp.array([9.0, 10.0])), ORD)
add("diff_prepend_int", lambda x: jnp.diff(x, prepend=1.5), I32)
add("diff_bool", lambda x: jnp.diff(x), np.array([True, False, False, True]))
add("diff_u8", lambda x: jnp.diff(x), np.array([3, 1, 250], np.uint8))
add("diff_neg_n", lambda x: jnp.diff(x, n=-1), ORD, jit=False)
add("diff_prepend_2d", lambda x: jnp.diff(x, axis=1, prepend=jnp.zeros((3, 1))), M)
add("ediff1d", lambda x: jnp.ediff1d(x), M)
add("ediff1d_tb", lambda x: jnp.ediff1d(x, to_begin=jnp.array([7, 8]), to_end=-1), ORD)
add("ediff1d_int_tb", lambda x: jnp.ediff1d(x, to_begin=1.5), I32)
add("ediff1d_empty", lambda x: jnp.ediff1d(x), EMPTY)
add("gradient", lambda x: jnp.gradient(x), ORD)
add("gradient_spacing", lambda x: jnp.gradient(x, 0.5), ORD)
add("gradient_coords", lambda x: jnp.gradient(x, jnp.cumsum(jnp.abs(x) + 0.1)), ORD)
add("gradient_2d", lambda x: jnp.gradient(x), M)
add("gradient_2d_axis", lambda x: jnp.gradient(x, axis=1), M)
add("gradient_2d_sp", lambda x: jnp.gradient(x, 2.0, 3.0), M)
add("gradient_int", lambda x: jnp.gradient(x), I32)
add("gradient_edge2", lambda x: jnp.gradient(x, edge_order=2), ORD, jit=False)
add("gradient_short", lambda x: jnp.gradient(x), ORD[:1], jit=False)
add("cross", lambda a, b: jnp.cross(a, b), ORD[:3], ORD[3:])
add("cross_2d", lambda a, b: jnp.cross(a, b), ORD[:2], ORD[3:5])
add("cross_23", lambda a, b: jnp.cross(a, b), ORD[:2], ORD[3:6])
add("cross_int", lambda a, b: jnp.cross(a, b), I32[:3], I32[3:])
add("cross_axis", lambda a, b: jnp.cross(a, b, axisa=0, axisb=0, axisc=0), M[:, :2], M[:, 2:])
add("cross_bool", lambda a, b: jnp.cross(a, b), np.array([True, False, True]),
    np.array([True, True, False]))
add("cross_bad", lambda a, b: jnp.cross(a, b), ORD[:4], ORD[:4], jit=False)
add("kron", lambda a, b: jnp.kron(a, b), M[:2, :2], ORD[:3])
add("kron_int", lambda a, b: jnp.kron(a, b), I8[:2], I32[:3])
add("kron_bool", lambda a, b: jnp.kron(a, b), np.array([True, False]), np.array([1, 2], np.int8))
add("tensordot", lambda a, b: jnp.tensordot(a, b, axes=1), M, M.T)
add("tensordot_0", lambda a, b: jnp.tensordot(a, b, axes=0), ORD[:2], ORD[:3])
add("tensordot_pairs", lambda a, b: jnp.tensordot(a, b, axes=([0], [1])), M, M)
add("tensordot_int", lambda a, b: jnp.tensordot(a, b, axes=1), I8[:3], I8[:3])
add("tensordot_pet", lambda a, b: jnp.tensordot(a, b, axes=1, preferred_element_type=jnp.int32),
    I8[:3], I8[:3])
add("tensordot_bad", lambda a, b: jnp.tensordot(a, b, axes=3), M, M, jit=False)

# ---- einsum
add("einsum_mm", lambda a, b: jnp.einsum("ij,jk->ik", a, b), M, M.T)
add("einsum_trace", lambda a: jnp.einsum("ii", a), M[:3, :3])
add("einsum_diag", lambda a: jnp.einsum("ii->i", a), M[:3, :3])
add("einsum_outer", lambda a, b: jnp.einsum("i,j", a, b), ORD[:2], ORD[:3])
add("einsum_ell", lambda a, b: jnp.einsum("...j,j->...", a, b), M, ORD[:4])
add("einsum_int", lambda a, b: jnp.einsum("i,i", a, b), I8, I8)
add("einsum_bool", lambda a, b: jnp.einsum("i,i", a, b), np.array([True, False]), np.array([True, True]))
add("einsum_mixed", lambda a, b: jnp.einsum("i,i", a, b), I32, ORD)
add("einsum_pet", lambda a, b: jnp.einsum("i,i", a, b, preferred_element_type=jnp.int32), I8, I8)
add("einsum_pet_f", lambda a, b: jnp.einsum("ij,jk", a, b, preferred_element_type=jnp.float32),
    M.astype(bf16), M.T.astype(bf16))
for opt in ["greedy", "optimal", False, True, "auto"]:
    add(f"einsum_opt_{opt}", lambda a, b, c, o=opt: jnp.einsum("ij,jk,kl->il", a, b, c, optimize=o),
        M, M.T, M)
add("einsum_sum", lambda a: jnp.einsum("ij->", a), M)
add("einsum_repeat3", lambda a, b: jnp.einsum("iij,j->i", a, b), np.ones((2, 2, 3), np.float32), ORD[:3])
add("einsum_bad", lambda a: jnp.einsum("ij,jk", a), M, jit=False)
add("einsum_c64", lambda a, b: jnp.einsum("i,i", a, b), (ORD + 1j).astype(c64), ORD)
add("einsum_path", lambda a, b: jnp.einsum_path("ij,jk", a, b)[0], M, M.T, jit=False)
add("einsum_interleaved", lambda a, b: jnp.einsum(a, [0, 1], b, [1, 2], [0, 2]), M, M.T)

# ---- linspace & friends
add("linspace", lambda: jnp.linspace(0, 1, 5))
add("linspace_noend", lambda: jnp.linspace(0, 1, 5, endpoint=False, retstep=True))
add("linspace_1", lambda: jnp.linspace(2.0, 5.0, 1, retstep=True))
add("linspace_0", lambda: jnp.linspace(2.0, 5.0, 0, retstep=True))
add("linspace_int", lambda: jnp.linspace(0, 10, 4, dtype=int))
add("linspace_int_neg", lambda: jnp.linspace(-7, 3, 4, dtype=jnp.int32))
add("linspace_u8", lambda: jnp.linspace(0, 255, 7, dtype=jnp.uint8))
add("linspace_arr", lambda a, b: jnp.linspace(a, b, 3, axis=1), ORD[:2], ORD[2:4])
add("linspace_f16", lambda: jnp.linspace(0, 1, 7, dtype=f16))
add("linspace_bf16", lambda: jnp.linspace(-1, 3, 6, dtype=bf16))
add("linspace_c", lambda: jnp.linspace(0, 1 + 2j, 4))
add("linspace_inf", lambda: jnp.linspace(0, np.inf, 3))
add("linspace_neg", lambda: jnp.linspace(0, 1, -1), jit=False)
add("linspace_big", lambda: jnp.linspace(-3e38, 3e38, 5))
add("linspace_bool", lambda: jnp.linspace(0, 1, 3, dtype=bool))
add("logspace", lambda: jnp.logspace(0, 2, 4, base=3.0))
add("logspace_int", lambda: jnp.logspace(0, 3, 4, dtype=int))
add("geomspace_neg", lambda: jnp.geomspace(-1, -1000, 4))
add("geomspace_int", lambda: jnp.geomspace(1, 256, 9, dtype=jnp.int32))
add("geomspace_c", lambda: jnp.geomspace(1j, 16j, 3))
add("geomspace_0", lambda: jnp.geomspace(0, 1, 3), jit=False)

# ---- rounding
for nm in ["round", "around", "fix", "trunc", "rint", "floor", "ceil"]:
    add(nm + "_halves", lambda x, nm=nm: getattr(jnp, nm)(x), HALVES)
    add(nm + "_int", lambda x, nm=nm: getattr(jnp, nm)(x), I32)
    add(nm + "_u64", lambda x, nm=nm: getattr(jnp, nm)(x), U64)
    add(nm + "_bool", lambda x, nm=nm: getattr(jnp, nm)(x), np.array([True, False]))
    add(nm + "_special", lambda x, nm=nm: getattr(jnp, nm)(x), SPECIAL)
    add(nm + "_f16", lambda x, nm=nm: getattr(jnp, nm)(x), HALVES.astype(f16))
add("round_dec1", lambda x: jnp.round(x, 1), np.array([0.25, 0.35, -1.45, 2.675], np.float32))
add("round_decneg", lambda x: jnp.round(x, -1), np.array([15.0, 25.0, -35.0, 44.0], np.float32))
add("round_int_decneg", lambda x: jnp.round(x, -1), np.array([15, 25, -35, 44, -5], np.int32))
add("round_int_decneg2", lambda x: jnp.round(x, -2), I8)
add("round_c64", lambda x: jnp.round(x), np.array([0.5 + 1.5j, -2.5 - 0.5j], c64))
add("round_c64_dec", lambda x: jnp.round(x, 1), np.array([0.25 + 1.55j], c64))
add("round_bf16", lambda x: jnp.round(x, 2), ORD.astype(bf16))
add("round_u8_neg", lambda x: jnp.round(x, -1), np.array([5, 15, 250, 255], np.uint8))
add("fix_c64", lambda x: jnp.fix(x), np.array([0.5 + 1.5j], c64), jit=False)
add("round_grad", lambda x: jnp.round(x), ORD, grad=True)

# ---- division family
IA = np.array([7, -7, 7, -7, 0, -128, 5, -1], np.int8)
IB = np.array([2, 2, -2, -2, 3, -1, 0, 0], np.int8)
FA = np.array([7.0, -7.0, 7.0, -7.0, 0.0, -0.0, 5.0, np.inf, 1.0, np.nan, -5.0], np.float32)
FB = np.array([2.0, 2.0, -2.0, -2.0, 3.0, 3.0, 0.0, 2.0, np.inf, 1.0, -0.0], np.float32)
for nm in ["divmod", "fmod", "remainder", "mod", "floor_divide", "true_divide"]:
    add(nm + "_int", lambda a, b, nm=nm: getattr(jnp, nm)(a, b), IA, IB)
    add(nm + "_float", lambda a, b, nm=nm: getattr(jnp, nm)(a, b), FA, FB)
    add(nm + "_u8", lambda a, b, nm=nm: getattr(jnp, nm)(a, b), IA.view(np.uint8), IB.view(np.uint8))
    add(nm + "_u64", lambda a, b, nm=nm: getattr(jnp, nm)(a, b), U64, np.array([3, 0, 2, 2**64 - 1], np.uint64))
    add(nm + "_bool", lambda a, b, nm=nm: getattr(jnp, nm)(a, b), np.array([True, False, True]),
        np.array([True, True, False]))
    add(nm + "_f16", lambda a, b, nm=nm: getattr(jnp, nm)(a, b), FA.astype(f16), FB.astype(f16))
    add(nm + "_mixed", lambda a, b, nm=nm: getattr(jnp, nm)(a, b), IA, FB[:8])
    add(nm + "_pyscalar", lambda a, nm=nm: getattr(jnp, nm)(a, -3), IA)
    add(nm + "_pyfloat", lambda a, nm=nm: getattr(jnp, nm)(a, 2.5), IA)
add("remainder_c64", lambda a, b: jnp.remainder(a, b), np.array([1 + 1j], c64), np.array([2 + 0j], c64),
    jit=False)
add("floor_divide_c64", lambda a, b: jnp.floor_divide(a, b), np.array([5 + 1j], c64),
    np.array([2 + 0j], c64), jit=False)
add("fmod_grad", lambda a: jnp.fmod(a, 1.3).sum(), ORD, grad=True)
add("remainder_grad", lambda a: jnp.remainder(a, -1.3).sum(), ORD, grad=True)
add("floor_divide_grad", lambda a: jnp.floor_divide(a, 1.3).sum(), ORD, grad=True)

# ---- power
PB = np.array([2, -2, 0, -3, 3, -1, 1], np.int32)
add("power_int_neg", lambda a, b: jnp.power(a, b), np.array([2, 2, 0, -1, -2, 0, 1], np.int32), PB)
add("power_int_neg_one", lambda a, b: jnp.power(a, b), np.array([1, -1, 1, -1, 3, 1, 0], np.int32), PB)
add("power_pyneg", lambda a: jnp.power(a, -2), I32, jit=False)
add("power_pyneg_jit", lambda a: jnp.power(a, -2), I32)
add("power_u8", lambda a, b: jnp.power(a, b), np.array([2, 3, 16, 255], np.uint8), np.array([7, 5, 2, 2], np.uint8))
add("power_u64", lambda a, b: jnp.power(a, b), U64, np.array([3, 65, 2, 2], np.uint64))
add("power_int_big", lambda a: jnp.power(a, 40), np.array([2, 3, -3], np.int32))
add("power_bool", lambda a, b: jnp.power(a, b), np.array([True, False, True]), np.array([True, True, False]))
add("power_float_special", lambda a, b: jnp.power(a, b), FA, FB)
add("power_neg_base_frac", lambda a: jnp.power(a, 0.5), SPECIAL)
add("power_f_int", lambda a, b: jnp.power(a, b), SPECIAL[:7], PB)
add("power_c64", lambda a, b: jnp.power(a, b), np.array([0j, 1 + 1j, -2 + 0j], c64), np.array([0j, 2j, 0.5], c64))
add("power_c64_int", lambda a: jnp.power(a, 3), np.array([0j, 1 + 1j, -2 + 0j], c64))
add("power_c64_negint", lambda a: jnp.power(a, -2), np.array([0j, 1 + 1j, -2 + 0j], c64))
add("power_0_0", lambda a: jnp.power(a, 0), SPECIAL)
add("power_grad", lambda a: jnp.power(a, 3).sum(), ORD, grad=True)
add("power_grad_exp", lambda b: jnp.power(2.0, b).sum(), ORD, grad=True)
add("power_grad_0base", lambda b: jnp.power(jnp.array([0.0, -1.0, 2.0, 0.0, 3.0, 1.0]), b).sum(), ORD,
    grad=True)
add("float_power", lambda a, b: jnp.float_power(a, b), I32[:6], PB[:6])
add("float_power_f16", lambda a, b: jnp.float_power(a, b), ORD.astype(f16), ORD.astype(f16))
add("float_power_c", lambda a, b: jnp.float_power(a, b), np.array([1j, -1], c64), np.array([2, 0.5], np.float32))
add("float_power_neg", lambda a: jnp.float_power(a, 0.5), SPECIAL)
add("float_power_bool", lambda a: jnp.float_power(a, 2), np.array([True, False]))

# ---- ldexp/frexp/nextafter/spacing
add("ldexp", lambda a, b: jnp.ldexp(a, b), SPECIAL, np.array([1, 2, 0, -1, 3, 3, 0, 10, 1, -200], np.int32))
add("ldexp_big", lambda a, b: jnp.ldexp(a, b), np.array([1.0, 1.0, 1.5, 1e-45, 3e38], np.float32),
    np.array([128, -149, -150, 149, -277], np.int32))
add("ldexp_f16", lambda a, b: jnp.ldexp(a, b), ORD.astype(f16), np.array([1, 2, 3, 20, -20, -30], np.int32))
add("ldexp_int", lambda a, b: jnp.ldexp(a, b), I32, np.array([1, 2, 3, 4, 5, 6], np.int32))
add("ldexp_float_exp", lambda a, b: jnp.ldexp(a, b), ORD, ORD, jit=False)
add("ldexp_u8_exp", lambda a, b: jnp.ldexp(a, b), ORD, np.array([1, 2, 3, 4, 5, 6], np.uint8))
add("frexp", lambda a: jnp.frexp(a), SPECIAL)
add("frexp_f16", lambda a: jnp.frexp(a), np.array([0, 6e-8, 65504, -3.5, np.inf, np.nan], f16))
add("frexp_bf16", lambda a: jnp.frexp(a), SPECIAL.astype(bf16))
add("frexp_int", lambda a: jnp.frexp(a), I32)
add("frexp_denorm", lambda a: jnp.frexp(a), np.array([1e-45, 1.17e-38, 5e-40, -2e-42], np.float32))
add("frexp_c", lambda a: jnp.frexp(a), np.array([1j], c64), jit=False)
add("nextafter", lambda a, b: jnp.nextafter(a, b), SPECIAL, SPECIAL[::-1])
add("nextafter_zero", lambda a, b: jnp.nextafter(a, b), np.array([0.0, -0.0, 0.0, -0.0], np.float32),
    np.array([1.0, 1.0, -1.0, 0.0], np.float32))
add("nextafter_f16", lambda a, b: jnp.nextafter(a, b), ORD.astype(f16), np.zeros(6, f16))
add("nextafter_bf16", lambda a, b: jnp.nextafter(a, b), ORD.astype(bf16), np.zeros(6, bf16))
add("nextafter_int", lambda a, b: jnp.nextafter(a, b), I32, I32[::-1])
add("spacing", lambda a: jnp.spacing(a), SPECIAL)
add("spacing_f16", lambda a: jnp.spacing(a), np.array([0, 1, -1, 65504, np.inf, np.nan, 6e-8], f16))
add("spacing_bf16", lambda a: jnp.spacing(a), ORD.astype(bf16))
add("spacing_int", lambda a: jnp.spacing(a), I32)
add("spacing_denorm", lambda a: jnp.spacing(a), np.array([1e-45, -1e-45, 1.1754942e-38, 3.4028235e38],
                                                         np.float32))

# ---- misc ufuncs
add("heaviside", lambda a, b: jnp.heaviside(a, b), SPECIAL, np.full(10, 0.5, np.float32))
add("heaviside_nanh", lambda a: jnp.heaviside(a, np.nan), SPECIAL)
add("heaviside_int", lambda a, b: jnp.heaviside(a, b), I32, I32[::-1])
add("heaviside_grad", lambda a: jnp.heaviside(a, 0.5).sum(), ORD, grad=True)
add("sinc", lambda a: jnp.sinc(a), SPECIAL)
add("sinc_int", lambda a: jnp.sinc(a), I32)
add("sinc_f16", lambda a: jnp.sinc(a), HALVES.astype(f16))
add("sinc_c64", lambda a: jnp.sinc(a), np.array([0j, 0.5 + 0.5j, 1j], c64))
add("sinc_grad", lambda a: jnp.sinc(a).sum(), np.array([0.0, 0.5, 1.0, -2.0], np.float32), grad=True)
add("sinc_grad2", lambda a: jax.grad(lambda t: jnp.sinc(t))(a), np.float32(0.0), grad=True)
add("i0", lambda a: jnp.i0(a), SPECIAL)
add("i0_int", lambda a: jnp.i0(a), I32[:5])
add("i0_f16", lambda a: jnp.i0(a), HALVES.astype(f16))
add("i0_grad", lambda a: jnp.i0(a).sum(), np.array([0.0, -0.0, 1.0, -2.0, 30.0], np.float32), grad=True)
add("i0_c", lambda a: jnp.i0(a), np.array([1j], c64), jit=False)
add("logaddexp", lambda a, b: jnp.logaddexp(a, b), SPECIAL, SPECIAL[::-1])
add("logaddexp2", lambda a, b: jnp.logaddexp2(a, b), SPECIAL, SPECIAL[::-1])
add("logaddexp2_int", lambda a, b: jnp.logaddexp2(a, b), I32, I32[::-1])
add("logaddexp2_f16", lambda a, b: jnp.logaddexp2(a, b), ORD.astype(f16), ORD[::-1].astype(f16))
add("logaddexp2_inf", lambda a, b: jnp.logaddexp2(a, b), np.array([np.inf, -np.inf, -np.inf, np.inf], np.float32),
    np.array([np.inf, -np.inf, 1.0, -np.inf], np.float32))
add("logaddexp2_grad", lambda a: jnp.logaddexp2(a, a[::-1]).sum(), ORD, grad=True)
add("logaddexp_grad_inf", lambda a: jnp.logaddexp(a, jnp.float32(-np.inf)).sum(),
    np.array([-np.inf, 0.0], np.float32), grad=True)
add("hypot", lambda a, b: jnp.hypot(a, b), SPECIAL, SPECIAL[::-1])
add("hypot_int", lambda a, b: jnp.hypot(a, b), I32, I32[::-1])
add("hypot_big", lambda a, b: jnp.hypot(a, b), np.array([3e38, 1e-45, 0.0], np.float32),
    np.array([3e38, 1e-45, 0.0], np.float32))
add("hypot_grad", lambda a: jnp.hypot(a, 2.0 * a).sum(), np.array([0.0, 1.0, -3.0], np.float32), grad=True)
add("hypot_c", lambda a, b: jnp.hypot(a, b), np.array([1j], c64), np.array([1j], c64), jit=False)
add("copysign", lambda a, b: jnp.copysign(a, b), SPECIAL, SPECIAL[::-1])
add("copysign_negzero", lambda a: jnp.copysign(a, -0.0), SPECIAL)
add("copysign_nan", lambda a: jnp.copysign(a, jnp.float32(-np.nan)), SPECIAL)
add("copysign_int", lambda a, b: jnp.copysign(a, b), I32, I32[::-1])
add("copysign_c", lambda a, b: jnp.copysign(a, b), np.array([1j], c64), np.array([1j], c64), jit=False)
add("copysign_grad", lambda a: jnp.copysign(a, -1.0).sum(), ORD, grad=True)
add("signbit", lambda a: jnp.signbit(a), SPECIAL)
add("signbit_int", lambda a: jnp.signbit(a), I8)
add("sign_special", lambda a: jnp.sign(a), SPECIAL)
add("sign_c64", lambda a: jnp.sign(a), np.array([0j, 3 + 4j, -1j, np.nan + 0j], c64))
add("sign_u64", lambda a: jnp.sign(a), U64)
add("gcd", lambda a, b: jnp.gcd(a, b), IA, IB)
# not run: jnp.gcd of int8 -128 with 0/-128/2 never returns in JAX 0.10.2 (nor in minijax)
add("lcm", lambda a, b: jnp.lcm(a, b), IA, IB)
add("lcm_i8_ext", lambda a, b: jnp.lcm(a, b), np.array([-128, 127, 100, -4], np.int8),
    np.array([1, 126, 3, 6], np.int8))
add("gcd_u64", lambda a, b: jnp.gcd(a, b), U64, np.array([6, 4, 2**62, 3], np.uint64))
add("lcm_u64", lambda a, b: jnp.lcm(a, b), U64, np.array([6, 4, 2, 3], np.uint64))
add("gcd_bool", lambda a, b: jnp.gcd(a, b), np.array([True, False]), np.array([True, True]), jit=False)
add("gcd_float", lambda a, b: jnp.gcd(a, b), ORD, ORD, jit=False)
add("gcd_mixed", lambda a, b: jnp.gcd(a, b), I8, I32)
add("gcd_pyint", lambda a: jnp.gcd(a, 12), I32)

# ---- bitwise and shifts
SH = np.array([0, 1, 7, 8, 9, 31, 32, 33, 64, -1, -8], np.int32)
add("left_shift_i8", lambda a, b: jnp.left_shift(a, b), np.full(11, 3, np.int8), SH.astype(np.int8))
add("right_shift_i8", lambda a, b: jnp.right_shift(a, b), np.full(11, -100, np.int8), SH.astype(np.int8))
add("right_shift_u8", lambda a, b: jnp.right_shift(a, b), np.full(11, 200, np.uint8), (SH % 256).astype(np.uint8))
add("left_shift_i32", lambda a, b: jnp.left_shift(a, b), np.full(11, -3, np.int32), SH)
add("right_shift_i32", lambda a, b: jnp.right_shift(a, b), np.full(11, -3, np.int32), SH)
add("left_shift_u64", lambda a, b: jnp.left_shift(a, b), np.full(6, 2**64 - 1, np.uint64),
    np.array([0, 1, 63, 64, 65, 2**63], np.uint64))
add("right_shift_u64", lambda a, b: jnp.right_shift(a, b), np.full(6, 2**64 - 1, np.uint64),
    np.array([0, 1, 63, 64, 65, 2**63], np.uint64))
add("left_shift_u64_py", lambda a: jnp.left_shift(a, 3), U64)
add("left_shift_mixed", lambda a, b: jnp.left_shift(a, b), I8, np.array([1, 2, 3, 4, 5, 6], np.uint8))
add("left_shift_bool", lambda a, b: jnp.left_shift(a, b), np.array([True, False]), np.array([True, True]),
    jit=False)
add("bitwise_left_shift", lambda a: jnp.bitwise_left_shift(a, 2), I8)
add("bitwise_right_shift", lambda a: jnp.bitwise_right_shift(a, 2), I8)
add("shift_float", lambda a: jnp.left_shift(a, 1), ORD, jit=False)
for nm in ["bitwise_and", "bitwise_or", "bitwise_xor"]:
    add(nm + "_i8", lambda a, b, nm=nm: getattr(jnp, nm)(a, b), I8, I8[::-1])
    add(nm + "_bool", lambda a, b, nm=nm: getattr(jnp, nm)(a, b), np.array([True, False]),
        np.array([True, True]))
    add(nm + "_u64", lambda a, b, nm=nm: getattr(jnp, nm)(a, b), U64, U64[::-1])
    add(nm + "_pyint", lambda a, nm=nm: getattr(jnp, nm)(a, 255), I8)
    add(nm + "_float", lambda a, nm=nm: getattr(jnp, nm)(a, a), ORD, jit=False)
for nm in ["bitwise_not", "invert", "bitwise_invert", "bitwise_count"]:
    add(nm + "_i8", lambda a, nm=nm: getattr(jnp, nm)(a), I8)
    add(nm + "_u64", lambda a, nm=nm: getattr(jnp, nm)(a), U64)
    add(nm + "_bool", lambda a, nm=nm: getattr(jnp, nm)(a), np.array([True, False]))
add("packbits", lambda a: jnp.packbits(a), np.array([1, 0, 1, 1, 0, 0, 0, 1, 1, 1], np.uint8))
add("packbits_little", lambda a: jnp.packbits(a, bitorder="little"), np.array([1, 0, 1, 1, 0, 0, 0, 1, 1, 1], np.uint8))
add("packbits_axis", lambda a: jnp.packbits(a, axis=1), (M > 0))
add("packbits_int", lambda a: jnp.packbits(a), np.array([2, 0, -1, 3], np.int32))
add("packbits_bool", lambda a: jnp.packbits(a), np.array([True, False, True]))
add("packbits_float", lambda a: jnp.packbits(a), ORD, jit=False)
add("packbits_bad_order", lambda a: jnp.packbits(a, bitorder="x"), np.array([1, 0], np.uint8), jit=False)
add("unpackbits", lambda a: jnp.unpackbits(a), np.array([5, 255, 128], np.uint8))
add("unpackbits_little", lambda a: jnp.unpackbits(a, bitorder="little"), np.array([5, 255, 128], np.uint8))
add("unpackbits_count", lambda a: jnp.unpackbits(a, count=10), np.array([5, 255, 128], np.uint8))
add("unpackbits_count_neg", lambda a: jnp.unpackbits(a, count=-3), np.array([5, 255, 128], np.uint8))
add("unpackbits_count_big", lambda a: jnp.unpackbits(a, count=30), np.array([5, 255, 128], np.uint8))
add("unpackbits_axis", lambda a: jnp.unpackbits(a, axis=0), np.array([[5, 3], [255, 128]], np.uint8))
add("unpackbits_int", lambda a: jnp.unpackbits(a), np.array([5], np.int32), jit=False)

# ---- clip / nan_to_num / isclose
add("clip", lambda a: jnp.clip(a, -1.0, 2.0), SPECIAL)
add("clip_min_none", lambda a: jnp.clip(a, max=1.0), SPECIAL)
add("clip_max_none", lambda a: jnp.clip(a, min=1.0), SPECIAL)
add("clip_both_none", lambda a: jnp.clip(a), SPECIAL)
add("clip_swapped", lambda a: jnp.clip(a, 2.0, -1.0), SPECIAL)
add("clip_int_float", lambda a: jnp.clip(a, -1.5, 2.5), I32)
add("clip_u8_neg", lambda a: jnp.clip(a, -5, 300), np.array([0, 100, 255], np.uint8))
add("clip_nan_bound", lambda a: jnp.clip(a, np.nan, 1.0), ORD)
add("clip_arr_bounds", lambda a, lo, hi: jnp.clip(a, lo, hi), ORD, ORD * 0, ORD * 0 + 1)
add("clip_old_kw", lambda a: jnp.clip(a, a_min=0.0, a_max=1.0), ORD)
add("clip_bool", lambda a: jnp.clip(a, 0, 1), np.array([True, False]))
add("clip_c64", lambda a: jnp.clip(a, 0, 1), np.array([2 + 1j], c64), jit=False)
add("clip_grad", lambda a: jnp.clip(a, -1.0, 1.0).sum(), np.array([-1.0, 0.0, 1.0, 2.0], np.float32), grad=True)
add("nan_to_num", lambda a: jnp.nan_to_num(a), SPECIAL)
add("nan_to_num_kw", lambda a: jnp.nan_to_num(a, nan=-1.0, posinf=9.0, neginf=-9.0), SPECIAL)
add("nan_to_num_f16", lambda a: jnp.nan_to_num(a), SPECIAL.astype(f16))
add("nan_to_num_bf16", lambda a: jnp.nan_to_num(a), SPECIAL.astype(bf16))
add("nan_to_num_int", lambda a: jnp.nan_to_num(a, nan=1.5), I32)
add("nan_to_num_bool", lambda a: jnp.nan_to_num(a), np.array([True, False]))
add("nan_to_num_c64", lambda a: jnp.nan_to_num(a, posinf=5.0), np.array([complex(np.nan, np.inf),
                                                                           complex(-np.inf, 1)], c64))
add("nan_to_num_big_posinf", lambda a: jnp.nan_to_num(a, posinf=1e300), SPECIAL.astype(f16))
add("nan_to_num_grad", lambda a: jnp.nan_to_num(a).sum(), ORD, grad=True)
add("isclose", lambda a, b: jnp.isclose(a, b), SPECIAL, SPECIAL * (1 + 1e-6))
add("isclose_nan", lambda a, b: jnp.isclose(a, b, equal_nan=True), SPECIAL, SPECIAL)
add("isclose_tol", lambda a, b: jnp.isclose(a, b, rtol=0.0, atol=0.5), ORD, ORD + 0.4)
add("isclose_int", lambda a, b: jnp.isclose(a, b), I32, I32[::-1])
add("isclose_mixed", lambda a, b: jnp.isclose(a, b), I32, I32.astype(np.float32) + 1e-6)
add("isclose_c64", lambda a, b: jnp.isclose(a, b, equal_nan=True),
    np.array([complex(np.nan, 1), complex(np.inf, 0), 1 + 1j], c64),
    np.array([complex(1, np.nan), complex(np.inf, 0), 1 + 1.000001j], c64))
add("isclose_inf", lambda a, b: jnp.isclose(a, b), np.array([np.inf, -np.inf, np.inf], np.float32),
    np.array([np.inf, np.inf, 1e38], np.float32))
add("isclose_bool", lambda a, b: jnp.isclose(a, b), np.array([True, False]), np.array([True, True]))
add("isclose_f16", lambda a, b: jnp.isclose(a, b), ORD.astype(f16), (ORD + 1e-4).astype(f16))
add("allclose", lambda a, b: jnp.allclose(a, b, equal_nan=True), SPECIAL, SPECIAL)
add("allclose_no", lambda a, b: jnp.allclose(a, b), SPECIAL, SPECIAL)
add("allclose_bcast", lambda a: jnp.allclose(a, 1.0), np.ones((2, 3), np.float32))
add("array_equal", lambda a, b: jnp.array_equal(a, b), SPECIAL, SPECIAL)
add("array_equal_nan", lambda a, b: jnp.array_equal(a, b, equal_nan=True), SPECIAL, SPECIAL)
add("array_equal_shape", lambda a, b: jnp.array_equal(a, b), ORD, ORD[:3])
add("array_equal_dtype", lambda a, b: jnp.array_equal(a, b), I32, I32.astype(np.float32))
add("array_equal_list", lambda: jnp.array_equal([1, 2], [1, 2]), jit=False)
add("array_equiv", lambda a, b: jnp.array_equiv(a, b), np.ones((2, 3), np.float32), np.ones(3, np.float32))
add("array_equiv_bad", lambda a, b: jnp.array_equiv(a, b), np.ones((2, 3), np.float32), np.ones(2, np.float32))

# ---- jax.nn activations
ACT = np.array([0.0, -0.0, 1.5, -2.5, np.inf, -np.inf, np.nan, 30.0, -30.0, 1e-6, -100.0, 100.0],
               np.float32)
for nm in ["gelu", "celu", "selu", "elu", "silu", "swish", "mish", "log_sigmoid", "softplus",
           "sparse_plus", "squareplus", "hard_tanh", "relu6", "relu", "sigmoid", "hard_sigmoid",
           "hard_silu", "hard_swish", "soft_sign", "leaky_relu", "tanh", "sparse_sigmoid",
           "identity"]:
    fn = getattr(jax.nn, nm, None)
    if fn is None:
        continue
    add("nn_" + nm, lambda x, fn=fn: fn(x), ACT)
    add("nn_" + nm + "_f16", lambda x, fn=fn: fn(x), ACT.astype(f16))
    add("nn_" + nm + "_bf16", lambda x, fn=fn: fn(x), ACT.astype(bf16))
    add("nn_" + nm + "_int", lambda x, fn=fn: fn(x), I32[:5], jit=False)
    add("nn_" + nm + "_grad", lambda x, fn=fn: fn(x).sum(), ACT[:4], grad=True)
    add("nn_" + nm + "_grad_edge", lambda x, fn=fn: fn(x).sum(),
        np.array([0.0, 6.0, -1.0, 1.0, 30.0, -30.0, 100.0], np.float32), grad=True)
    add("nn_" + nm + "_py", lambda fn=fn: fn(1.5))
add("nn_gelu_exact", lambda x: jax.nn.gelu(x, approximate=False), ACT)
add("nn_gelu_exact_f16", lambda x: jax.nn.gelu(x, approximate=False), ACT.astype(f16))
add("nn_gelu_exact_grad", lambda x: jax.nn.gelu(x, approximate=False).sum(), ACT[:4], grad=True)
add("nn_celu_alpha", lambda x: jax.nn.celu(x, alpha=0.5), ACT)
add("nn_elu_alpha", lambda x: jax.nn.elu(x, alpha=2.0), ACT)
add("nn_leaky_relu_slope", lambda x: jax.nn.leaky_relu(x, negative_slope=0.2), ACT)
add("nn_squareplus_b", lambda x: jax.nn.squareplus(x, b=0.0), ACT)
add("nn_glu", lambda x: jax.nn.glu(x), M)
add("nn_glu_axis0", lambda x: jax.nn.glu(x, axis=0), M[:2])
add("nn_glu_odd", lambda x: jax.nn.glu(x, axis=0), M, jit=False)
add("nn_log_softmax", lambda x: jax.nn.log_softmax(x), M)
add("nn_log_softmax_special", lambda x: jax.nn.log_softmax(x), SPECIAL)
add("nn_log_softmax_ninf", lambda x: jax.nn.log_softmax(x), np.array([-np.inf, -np.inf], np.float32))
add("nn_softmax_ninf", lambda x: jax.nn.softmax(x), np.array([-np.inf, -np.inf], np.float32))
add("nn_softmax_inf", lambda x: jax.nn.softmax(x), np.array([np.inf, 1.0], np.float32))
add("nn_softmax", lambda x: jax.nn.softmax(x, axis=0), M)
add("nn_softmax_axes", lambda x: jax.nn.softmax(x, axis=(0, 1)), M)
add("nn_softmax_where", lambda x: jax.nn.softmax(x, where=x > 0), M)
add("nn_log_softmax_where", lambda x: jax.nn.log_softmax(x, where=x > 0), M)
add("nn_softmax_where_grad", lambda x: (jax.nn.softmax(x, where=x > 0) * jnp.arange(4.0)).sum(), M,
    grad=True)
add("nn_softmax_where_allfalse", lambda x: jax.nn.softmax(x, where=jnp.zeros_like(x, bool)), M)
add("nn_log_softmax_where_grad", lambda x: jnp.where(x > 0, jax.nn.log_softmax(x, where=x > 0), 0).sum(),
    M, grad=True)
add("nn_softmax_f16", lambda x: jax.nn.softmax(x), M.astype(f16))
add("nn_softmax_bf16", lambda x: jax.nn.softmax(x), M.astype(bf16))
add("nn_softmax_int", lambda x: jax.nn.softmax(x), I32, jit=False)
add("nn_softmax_grad", lambda x: (jax.nn.softmax(x) * jnp.arange(4.0)).sum(), M, grad=True)
add("nn_log_softmax_grad", lambda x: (jax.nn.log_softmax(x) * jnp.arange(4.0)).sum(), M, grad=True)
add("nn_softmax_initial", lambda x: jax.nn.softmax(x, where=x > 0, initial=-jnp.inf), M, jit=False)
add("nn_logsumexp", lambda x: jax.nn.logsumexp(x), SPECIAL[:6])
add("nn_logsumexp_nan", lambda x: jax.nn.logsumexp(x), SPECIAL)
add("nn_logsumexp_axis", lambda x: jax.nn.logsumexp(x, axis=1, keepdims=True), M)
add("nn_logsumexp_b", lambda x: jax.nn.logsumexp(x, axis=0, b=jnp.array([1.0, -2.0, 0.5])[:, None]), M)
add("nn_logsumexp_sign", lambda x: jax.nn.logsumexp(x, axis=0, b=jnp.array([1.0, -2.0, 0.5])[:, None],
                                                    return_sign=True), M)
add("nn_logsumexp_sign_noB", lambda x: jax.nn.logsumexp(x, return_sign=True), M)
add("nn_logsumexp_neg_nosign", lambda x: jax.nn.logsumexp(x, b=-1.0), M)
add("nn_logsumexp_b0", lambda x: jax.nn.logsumexp(x, b=jnp.zeros_like(x), return_sign=True), M)
add("nn_logsumexp_where", lambda x: jax.nn.logsumexp(x, axis=1, where=x > 0), M)
add("nn_logsumexp_where_b", lambda x: jax.nn.logsumexp(x, axis=1, where=x > 0, b=2.0), M)
add("nn_logsumexp_ninf", lambda x: jax.nn.logsumexp(x), np.array([-np.inf, -np.inf], np.float32))
add("nn_logsumexp_int", lambda x: jax.nn.logsumexp(x), I32)
add("nn_logsumexp_f16", lambda x: jax.nn.logsumexp(x), M.astype(f16))
add("nn_logsumexp_c64", lambda x: jax.nn.logsumexp(x), np.array([1 + 1j, 2 - 1j], c64))
add("nn_logsumexp_grad", lambda x: jax.nn.logsumexp(x), M, grad=True)
add("nn_logsumexp_grad_b", lambda x: jax.nn.logsumexp(x, b=jnp.arange(4.0)), M, grad=True)
add("nn_logsumexp_grad_inf", lambda x: jax.nn.logsumexp(x), np.array([np.inf, 1.0], np.float32), grad=True)
add("nn_logsumexp_empty", lambda x: jax.nn.logsumexp(x), EMPTY)
add("nn_one_hot", lambda x: jax.nn.one_hot(x, 4), np.array([0, 3, -1, 4, 2], np.int32))
add("nn_one_hot_dtype", lambda x: jax.nn.one_hot(x, 3, dtype=jnp.int8), np.array([0, 2, 1], np.int32))
add("nn_one_hot_axis", lambda x: jax.nn.one_hot(x, 3, axis=0), np.array([[0, 2], [1, 1]], np.int32))
add("nn_one_hot_axis_neg2", lambda x: jax.nn.one_hot(x, 3, axis=-2), np.array([[0, 2], [1, 1]], np.int32))
add("nn_one_hot_float", lambda x: jax.nn.one_hot(x, 3), np.array([0.0, 1.5, 2.0, -0.0], np.float32))
add("nn_one_hot_bool", lambda x: jax.nn.one_hot(x, 3, dtype=bool), np.array([0, 2], np.int32))
add("nn_one_hot_u8", lambda x: jax.nn.one_hot(x, 3), np.array([0, 2, 255], np.uint8))
add("nn_one_hot_scalar", lambda: jax.nn.one_hot(2, 3))
add("nn_one_hot_bad", lambda x: jax.nn.one_hot(x, 3.5), np.array([0], np.int32), jit=False)
add("nn_standardize", lambda x: jax.nn.standardize(x), M)
add("nn_standardize_axis0", lambda x: jax.nn.standardize(x, axis=0, epsilon=0.1), M)
add("nn_standardize_mv", lambda x: jax.nn.standardize(x, mean=1.0, variance=4.0), M)
add("nn_standardize_where", lambda x: jax.nn.standardize(x, where=x > -1), M)
add("nn_standardize_int", lambda x: jax.nn.standardize(x), I32)
add("nn_standardize_f16", lambda x: jax.nn.standardize(x), M.astype(f16))
add("nn_standardize_grad", lambda x: (jax.nn.standardize(x) * jnp.arange(4.0)).sum(), M, grad=True)

# ---- dot_product_attention (xla)
_r = np.random.RandomState(0)
Q = _r.randn(2, 5, 4, 8).astype(np.float32)
K = _r.randn(2, 7, 2, 8).astype(np.float32)
V = _r.randn(2, 7, 2, 8).astype(np.float32)
add("dpa", lambda q, k, v: jax.nn.dot_product_attention(q, k, v, implementation="xla"), Q, K, V)
add("dpa_default", lambda q, k, v: jax.nn.dot_product_attention(q, k, v), Q, K, V)
add("dpa_causal", lambda q, k, v: jax.nn.dot_product_attention(q, k, v, is_causal=True), Q, K, V)
add("dpa_scale", lambda q, k, v: jax.nn.dot_product_attention(q, k, v, scale=0.5), Q, K, V)
add("dpa_bias", lambda q, k, v, b: jax.nn.dot_product_attention(q, k, v, bias=b), Q, K, V,
    _r.randn(1, 4, 5, 7).astype(np.float32))
add("dpa_mask", lambda q, k, v, m: jax.nn.dot_product_attention(q, k, v, mask=m), Q, K, V,
    _r.rand(2, 1, 5, 7) > 0.4)
add("dpa_mask_allfalse", lambda q, k, v, m: jax.nn.dot_product_attention(q, k, v, mask=m), Q, K, V,
    np.zeros((5, 7), bool))
add("dpa_window", lambda q, k, v: jax.nn.dot_product_attention(q, k, v, local_window_size=(1, 2)), Q, K, V)
add("dpa_window_int", lambda q, k, v: jax.nn.dot_product_attention(q, k, v, local_window_size=1), Q, K, V)
add("dpa_window_causal", lambda q, k, v: jax.nn.dot_product_attention(q, k, v, is_causal=True,
                                                                      local_window_size=(2, 0)), Q, K, V)
add("dpa_seqlen", lambda q, k, v: jax.nn.dot_product_attention(
    q, k, v, query_seq_lengths=jnp.array([3, 5]), key_value_seq_lengths=jnp.array([7, 2])), Q, K, V)
add("dpa_3d", lambda q, k, v: jax.nn.dot_product_attention(q, k, v), Q[0], K[0], V[0])
add("dpa_f16", lambda q, k, v: jax.nn.dot_product_attention(q, k, v), Q.astype(f16), K.astype(f16),
    V.astype(f16))
add("dpa_bf16", lambda q, k, v: jax.nn.dot_product_attention(q, k, v), Q.astype(bf16), K.astype(bf16),
    V.astype(bf16))
add("dpa_grad", lambda q: jax.nn.dot_product_attention(q, K, V, is_causal=True).sum(), Q, grad=True)
add("dpa_bad_heads", lambda q, k, v: jax.nn.dot_product_attention(q, k, v), Q[:, :, :3], K, V, jit=False)
add("dpa_bad_impl", lambda q, k, v: jax.nn.dot_product_attention(q, k, v, implementation="foo"), Q, K, V,
    jit=False)
add("dpa_mixed_dtype", lambda q, k, v: jax.nn.dot_product_attention(q, k, v), Q, K.astype(f16), V,
    jit=False)


def fmt_leaf(x):
    if isinstance(x, (bool, int, float, complex, str, tuple, list)) or x is None:
        return f"py:{type(x).__name__}:{x!r}"
    weak = getattr(getattr(x, "aval", None), "weak_type", "?")
    a = np.asarray(x)
    if a.dtype == object:
        return f"obj:{a!r}"
    vals = a.astype(np.complex128 if a.dtype.kind == "c" else
                    np.float64 if a.dtype.kind == "f" or a.dtype == bf16 else a.dtype)
    flat = vals.ravel()[:24]
    if a.dtype.kind in "fc" or a.dtype == bf16:
        s = " ".join(np.format_float_positional(v, precision=7, unique=False, fractional=False,
                                                trim="-") if a.dtype.kind != "c" else
                     f"{v.real:.7g}{v.imag:+.7g}j" for v in flat)
    else:
        s = " ".join(str(v) for v in flat)
    h = hashlib.md5(np.ascontiguousarray(a).tobytes()).hexdigest()[:8]
    return f"{type(x).__name__ if not isinstance(x, np.ndarray) else 'np'} {a.dtype} w={weak} " \
           f"{a.shape} [{s}] #{h}"


def fmt(out):
    leaves = jax.tree_util.tree_leaves(out, is_leaf=lambda t: t is None)
    return " | ".join(fmt_leaf(leaf) for leaf in leaves)


def run(fn):
    try:
        return fmt(fn())
    except Exception as e:  # noqa: BLE001 -- any error is a recorded outcome
        return f"ERR {type(e).__name__}: {str(e).splitlines()[0][:90] if str(e) else ''}"


def main(only=None):
    """``only``: run the cases whose name holds it; ``from:NAME``: those from case NAME on."""
    started = not (only and only.startswith("from:"))
    for name, fn, args, grad, jit in CASES:
        if not started:
            started = name == only[5:]
        elif only and not only.startswith("from:") and only not in name:
            continue
        if not started:
            continue
        if grad:
            print(name, "grad", run(lambda: jax.grad(fn)(*args)))
            print(name, "jitgrad", run(lambda: jax.jit(jax.grad(fn))(*args)))
            continue
        print(name, "eager", run(lambda: fn(*args)))
        if jit:
            print(name, "jit", run(lambda: jax.jit(fn)(*args)))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
