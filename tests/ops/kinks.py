"""Moving drawn operands away from kinks and singularities, for the ``post`` of a ``GradSpec``:
near a point where an op is not differentiable (ties of max/sort, |x| = 0 for abs ...) a finite
difference says nothing about the derivative. Each takes and returns the tuple of operands;
the helpers one family alone needs live beside its entries."""

from __future__ import annotations

import numpy as np


def is_float(x):
    dtype = x.dtype if hasattr(x, "dtype") else np.asarray(x).dtype  # tracers have no __array__
    return np.dtype(dtype).kind in "fcV"


def away(gap, which=None):
    """|x| >= gap for the float operands in ``which`` (all by default)."""

    def post(args):
        out = list(args)
        for i, x in enumerate(out):
            if (which is None or i in which) and is_float(x):
                small = np.abs(x) < gap
                if x.dtype.kind == "c":  # keep the phase, set the magnitude to gap
                    mag = np.abs(x)
                    unit = np.where(mag > 0, x / np.where(mag > 0, mag, 1), 1)
                    out[i] = np.where(small, unit * gap, x).astype(x.dtype)
                else:
                    out[i] = np.where(small, np.where(x < 0, -gap, gap), x)
        return tuple(out)

    return post


def spread(which=(0,)):
    """Distinct values (>= 0.05 apart, order kept), so sorts and maxima have no ties."""

    def post(args):
        out = list(args)
        for i in which:
            x = out[i]
            if is_float(x) and x.size:
                ranks = np.argsort(np.argsort(x.ravel(), kind="stable"), kind="stable")
                out[i] = x + 0.05 * ranks.reshape(x.shape).astype(x.dtype)
        return tuple(out)

    return post


def spread_together(which):
    """Distinct values across all the float operands in ``which`` together (>= 0.05 apart,
    order kept), so a scatter_min/max never ties an update with the operand or another."""

    def post(args):
        out = list(args)
        flat = [np.ravel(out[i]) for i in which]
        sizes = np.cumsum([f.size for f in flat])[:-1]
        allv = np.concatenate(flat)
        if allv.size:
            ranks = np.argsort(np.argsort(allv, kind="stable"), kind="stable")
            allv = allv + 0.05 * ranks
        for i, part in zip(which, np.split(allv, sizes)):
            out[i] = part.reshape(np.shape(out[i])).astype(out[i].dtype)
        return tuple(out)

    return post
