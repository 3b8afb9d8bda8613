"""Elementwise and numerical functions composed from lax ops: diff, ediff1d, gradient, cross,
kron, trapezoid, interp, gcd, lcm, frexp, ldexp, modf, heaviside, sinc, i0, nan_to_num,
isclose, allclose, array_equal, array_equiv, copysign, nextafter, fmax, fmin, isposinf,
isneginf, isreal, iscomplex, isscalar, real_if_close, spacing, unwrap, packbits, unpackbits,
bitwise_count and the window functions (hamming, hanning, blackman, bartlett, kaiser).
"""

from __future__ import annotations

import operator

import numpy as np

import minijax.numpy as jnp
from minijax import dtypes, lax
from minijax.core import Tracer
from minijax.lowering.array import Array
from minijax.numpy._util import (
    canonicalize_axis,
    check_arraylike,
    convert,
    promote_args,
    promote_args_inexact,
    promote_dtypes,
    to_array,
    to_inexact_dtype,
)

__all__ = [
    "diff", "ediff1d", "gradient", "cross", "kron", "trapezoid", "interp", "gcd", "lcm",
    "frexp", "ldexp", "modf", "heaviside", "sinc", "i0", "nan_to_num", "isclose", "allclose",
    "array_equal", "array_equiv", "copysign", "nextafter", "fmax", "fmin", "isposinf",
    "isneginf", "isreal", "iscomplex", "isscalar", "real_if_close", "spacing", "unwrap",
    "packbits", "unpackbits", "bitwise_count", "hamming", "hanning", "blackman", "bartlett",
    "kaiser", "isdtype",
]


def _inexact(x):
    x = to_array(x)
    return convert(x, to_inexact_dtype(x.dtype))


# ------------------------------------------------------------------------------------------------
# Differences, integrals, products


def diff(a, n=1, axis=-1, prepend=None, append=None):
    """``n``-th discrete difference along ``axis`` (bool: ``!=``, as NumPy)."""
    check_arraylike("diff", a)
    a = to_array(a)
    n = operator.index(n)
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n}")
    if n == 0:
        return a
    axis = canonicalize_axis(axis, a.ndim)
    if prepend is not None or append is not None:
        parts = []
        for extra in (prepend, a, append):
            if extra is None:
                continue
            e = to_array(extra)
            if e.ndim == 0:
                shape = list(a.shape)
                shape[axis] = 1
                e = jnp.broadcast_to(e, tuple(shape))
            parts.append(e)
        a = jnp.concatenate(parts, axis=axis)
    for _ in range(n):
        m = a.shape[axis]
        if m == 0:
            break
        hi = lax.slice_in_dim(a, 1, m, axis=axis)
        lo = lax.slice_in_dim(a, 0, max(m - 1, 0), axis=axis)
        a = jnp.not_equal(hi, lo) if a.dtype == np.bool_ else jnp.subtract(hi, lo)
    return a


def ediff1d(ary, to_end=None, to_begin=None):
    check_arraylike("ediff1d", ary)
    a = jnp.ravel(to_array(ary))
    out = a[1:] - a[:-1]
    parts = []
    if to_begin is not None:
        parts.append(jnp.ravel(convert(to_array(to_begin), out.dtype)))
    parts.append(out)
    if to_end is not None:
        parts.append(jnp.ravel(convert(to_array(to_end), out.dtype)))
    return jnp.concatenate(parts) if len(parts) > 1 else out


def gradient(f, *varargs, axis=None, edge_order=None):
    """Second-order central differences inside, first-order one-sided at the edges."""
    check_arraylike("gradient", f)
    f = _inexact(f)
    if edge_order not in (None, 1):
        raise NotImplementedError("jnp.gradient only supports edge_order=1")
    axes = tuple(range(f.ndim)) if axis is None else (
        (canonicalize_axis(axis, f.ndim),) if isinstance(axis, int)
        else tuple(canonicalize_axis(ax, f.ndim) for ax in axis))
    if not varargs:
        spacings = [1.0] * len(axes)
    elif len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        spacings = list(varargs) * len(axes)
    elif len(varargs) == len(axes):
        spacings = list(varargs)
    else:
        raise TypeError("invalid number of arguments")
    outs = []
    for ax, h in zip(axes, spacings):
        n = f.shape[ax]
        if n < 2:
            raise ValueError("Shape of array too small to calculate a numerical gradient, at "
                             "least (edge_order + 1) elements are required.")

        def sl(a, b, _ax=ax):
            return lax.slice_in_dim(f, a, b, axis=_ax)

        if np.ndim(h) == 0:
            inner = (sl(2, n) - sl(0, n - 2)) / (2.0 * h) if n > 2 else None
            first = (sl(1, 2) - sl(0, 1)) / h
            last = (sl(n - 1, n) - sl(n - 2, n - 1)) / h
        else:  # coordinates: NumPy's non-uniform second-order formula
            x = _inexact(h)
            dx = jnp.diff(x)
            shape = [1] * f.ndim
            shape[ax] = n - 2

            def col(v, _shape=tuple(shape)):
                return jnp.reshape(v, _shape)

            if n > 2:
                h1, h2 = col(dx[:-1]), col(dx[1:])
                inner = (-h2 / (h1 * (h1 + h2)) * sl(0, n - 2)
                         + (h2 - h1) / (h1 * h2) * sl(1, n - 1)
                         + h1 / (h2 * (h1 + h2)) * sl(2, n))
            else:
                inner = None
            first = (sl(1, 2) - sl(0, 1)) / dx[0]
            last = (sl(n - 1, n) - sl(n - 2, n - 1)) / dx[-1]
        parts = [first] + ([inner] if inner is not None else []) + [last]
        outs.append(jnp.concatenate(parts, axis=ax))
    return outs[0] if len(outs) == 1 else outs


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    check_arraylike("cross", a, b)
    a, b = (to_array(x) for x in promote_dtypes(a, b))
    if axis is not None:
        axisa = axisb = axisc = axis
    a = jnp.moveaxis(a, axisa, -1)
    b = jnp.moveaxis(b, axisb, -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError("Dimension must be either 2 or 3 for cross product")
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    a0, a1 = a[..., 0], a[..., 1]
    a2 = a[..., 2] if a.shape[-1] == 3 else jnp.zeros_like(a0)
    b0, b1 = b[..., 0], b[..., 1]
    b2 = b[..., 2] if b.shape[-1] == 3 else jnp.zeros_like(b0)
    c = jnp.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)
    return jnp.moveaxis(c, -1, axisc)


def kron(a, b):
    """Kronecker product: an outer product by broadcasting, then one reshape."""
    check_arraylike("kron", a, b)
    a, b = (to_array(x) for x in promote_dtypes(a, b))
    nd = max(a.ndim, b.ndim)
    a = jnp.reshape(a, (1,) * (nd - a.ndim) + a.shape)
    b = jnp.reshape(b, (1,) * (nd - b.ndim) + b.shape)
    ai = jnp.reshape(a, tuple(d for s in a.shape for d in (s, 1)))
    bi = jnp.reshape(b, tuple(d for s in b.shape for d in (1, s)))
    return jnp.reshape(ai * bi, tuple(x * y for x, y in zip(a.shape, b.shape)))


def trapezoid(y, x=None, dx=1.0, axis=-1):
    check_arraylike("trapezoid", y)
    y = _inexact(y)
    axis = canonicalize_axis(axis, y.ndim)
    n = y.shape[axis]
    avg = (lax.slice_in_dim(y, 1, n, axis=axis) + lax.slice_in_dim(y, 0, max(n - 1, 0),
                                                                     axis=axis)) * 0.5
    if x is None:
        return jnp.sum(avg, axis=axis) * dx
    x = _inexact(x)
    if x.ndim == 1:
        d = jnp.diff(x)
        shape = [1] * y.ndim
        shape[axis] = d.shape[0]
        d = jnp.reshape(d, tuple(shape))
    else:
        d = jnp.diff(x, axis=axis)
    return jnp.sum(avg * d, axis=axis)


def interp(x, xp, fp, left=None, right=None, period=None):
    """Piecewise-linear interpolation of (``xp``, ``fp``) at ``x`` (``xp`` increasing)."""
    check_arraylike("interp", x, xp, fp)
    x, xp, fp = _inexact(x), _inexact(xp), to_array(fp)
    if not dtypes.is_inexact(np.dtype(fp.dtype)):
        fp = convert(fp, to_inexact_dtype(fp.dtype))
    if xp.ndim != 1 or fp.ndim != 1 or xp.shape != fp.shape:
        raise ValueError("xp and fp must be one-dimensional arrays of equal size")
    if period is not None:
        period = jnp.abs(convert(period, x.dtype))
        x = jnp.mod(x, period)
        xp = jnp.mod(xp, period)
        order = jnp.argsort(xp)
        xp, fp = jnp.take(xp, order), jnp.take(fp, order)
        xp = jnp.concatenate([xp[-1:] - period, xp, xp[:1] + period])
        fp = jnp.concatenate([fp[-1:], fp, fp[:1]])
    n = xp.shape[0]
    i = jnp.clip(jnp.searchsorted(xp, x, side="right"), 1, n - 1)
    x0, x1 = jnp.take(xp, i - 1), jnp.take(xp, i)
    f0, f1 = jnp.take(fp, i - 1), jnp.take(fp, i)
    dx = x1 - x0
    t = jnp.where(dx == 0, 0.0, (x - x0) / jnp.where(dx == 0, 1.0, dx))
    f = f0 + t * (f1 - f0)
    f = jnp.where(dx == 0, f1, f)
    if period is None:
        lv = fp[0] if left is None else convert(left, fp.dtype)
        rv = fp[-1] if right is None else convert(right, fp.dtype)
        f = jnp.where(x < xp[0], lv, f)
        f = jnp.where(x > xp[-1], rv, f)
    return f


# ------------------------------------------------------------------------------------------------
# Integer and floating-point helpers


def gcd(x1, x2):
    """Euclid's algorithm in a ``while_loop`` over the whole (broadcast) array."""
    x1, x2 = promote_args("gcd", x1, x2)
    x1, x2 = jnp.broadcast_arrays(to_array(x1), to_array(x2))
    if not dtypes.is_int(np.dtype(x1.dtype)):
        raise ValueError("Arguments to jax.numpy.gcd must be integers.")
    a, b = jnp.abs(x1), jnp.abs(x2)

    def cond(state):
        return jnp.any(state[1] != 0)

    def body(state):
        a, b = state
        safe = jnp.where(b == 0, 1, b)
        return jnp.where(b == 0, a, b), jnp.where(b == 0, 0, jnp.remainder(a, safe))

    return lax.while_loop(cond, body, (a, b))[0]


def lcm(x1, x2):
    x1, x2 = promote_args("lcm", x1, x2)
    x1, x2 = to_array(x1), to_array(x2)
    g = gcd(x1, x2)
    safe = jnp.where(g == 0, 1, g)
    return jnp.where(g == 0, 0, jnp.abs(jnp.multiply(x1 // safe, x2)))


def frexp(x):
    """Mantissa in [0.5, 1) and integer exponent, from the bits. Subnormals are scaled into the
    normal range first (XLA on CPU flushes subnormal *arithmetic* to zero, so results for them
    follow the backend)."""
    check_arraylike("frexp", x)
    x = _inexact(x)
    if dtypes.is_complex(np.dtype(x.dtype)):
        raise TypeError("frexp does not support complex-valued inputs")
    info = np.finfo(x.dtype)
    nmant, bits = info.nmant, info.bits
    int_t = {16: np.int16, 32: np.int32, 64: np.int64}[bits]
    big = jnp.abs(x) < info.smallest_normal
    scale = convert(2.0 ** nmant, x.dtype)
    xs = jnp.where(big, x * scale, x)
    ib = lax.bitcast_convert_type(xs, int_t)
    exp_mask = (1 << (bits - 1 - nmant)) - 1
    e = lax.bitwise_and(lax.shift_right_logical(ib, convert(nmant, int_t)),
                        convert(exp_mask, int_t))
    bias = exp_mask // 2
    exponent = convert(e, np.int32) - (bias - 1) - jnp.where(big, nmant, 0)
    mant_bits = lax.bitwise_or(
        lax.bitwise_and(ib, convert(~(exp_mask << nmant), int_t)),
        convert((bias - 1) << nmant, int_t))
    mantissa = lax.bitcast_convert_type(mant_bits, np.dtype(x.dtype))
    special = (x == 0) | jnp.isinf(x) | jnp.isnan(x)
    return (jnp.where(special, x, mantissa),
            jnp.where(special, 0, exponent).astype(dtypes.default_int_dtype()))


def ldexp(x1, x2):
    check_arraylike("ldexp", x1, x2)
    x1 = _inexact(x1)
    x2 = to_array(x2)
    if not dtypes.is_int(np.dtype(x2.dtype)):
        raise ValueError(f"ldexp exponent must be an integer, got {x2.dtype}")
    # two steps keep 2**e finite for exponents near the range ends
    e = convert(x2, x1.dtype)
    half = jnp.floor(e / 2)
    return x1 * jnp.exp2(half) * jnp.exp2(e - half)


def modf(x, /, out=None):
    x = _inexact(x)
    whole = jnp.trunc(x)
    return x - whole, whole


def heaviside(x1, x2):
    x1, x2 = promote_args_inexact("heaviside", x1, x2)
    zero = jnp.zeros_like(x1)
    return jnp.where(x1 < 0, zero, jnp.where(x1 > 0, jnp.ones_like(x1), x2))


def sinc(x):
    """sin(pi x) / (pi x), 1 at 0, with the right derivatives at 0 (a safe denominator)."""
    x = _inexact(x)
    eq0 = x == 0
    safe = jnp.where(eq0, jnp.ones_like(x), x)
    pix = jnp.pi * safe
    return jnp.where(eq0, jnp.ones_like(x) - (jnp.pi * x) ** 2 / 6, jnp.sin(pix) / pix)


def i0(x):
    """Modified Bessel function of order 0: Cephes' Chebyshev expansions, as NumPy."""
    x = _inexact(x)
    a_coef = [-4.41534164647933937950e-18, 3.33079451882223809783e-17,
              -2.43127984654795469359e-16, 1.71539128555513303061e-15,
              -1.16853328779934516808e-14, 7.67618549860493561688e-14,
              -4.85644678311192946090e-13, 2.95505266312963983461e-12,
              -1.72682629144155570723e-11, 9.67580903537323691224e-11,
              -5.18979560163526290666e-10, 2.65982372468238665035e-9,
              -1.30002500998624804212e-8, 6.04699502254191894932e-8,
              -2.67079385394061173391e-7, 1.11738753912010371815e-6,
              -4.41673835845875056359e-6, 1.64484480707288970893e-5,
              -5.75419501008210370398e-5, 1.88502885095841655729e-4,
              -5.76375574538582365885e-4, 1.63947561694133579842e-3,
              -4.32430999505057594430e-3, 1.05464603945949983183e-2,
              -2.37374148058994688156e-2, 4.93052842396707084878e-2,
              -9.49010970480476444210e-2, 1.71620901522208775349e-1,
              -3.04682672343198398683e-1, 6.76795274409476084995e-1]
    b_coef = [-7.23318048787475395456e-18, -4.83050448594418207126e-18,
              4.46562142029675999901e-17, 3.46122286769746109310e-17,
              -2.82762398051658348494e-16, -3.42548561967721913462e-16,
              1.77256013305652638360e-15, 3.81168066935262242075e-15,
              -9.55484669882830764870e-15, -4.15056934728722208663e-14,
              1.54008621752140982691e-14, 3.85277838274214270114e-13,
              7.18012445138366623367e-13, -1.79417853150680611778e-12,
              -1.32158118404477131188e-11, -3.14991652796324136454e-11,
              1.18891471078464383424e-11, 4.94060238822496958910e-10,
              3.39623202570838634515e-9, 2.26666899049817806459e-8,
              2.04891858946906374183e-7, 2.89137052083475648297e-6,
              6.88975834691682398426e-5, 3.36911647825569408990e-3,
              8.04490411014108831608e-1]

    def chbevl(t, coef):
        b0, b1, b2 = jnp.zeros_like(t), jnp.zeros_like(t), jnp.zeros_like(t)
        for c in coef:
            b2, b1 = b1, b0
            b0 = t * b1 - b2 + c
        return 0.5 * (b0 - b2)

    ax = jnp.abs(x)
    small = chbevl(ax / 2.0 - 2.0, a_coef)
    safe = jnp.where(ax <= 8.0, 8.0, ax)
    large = chbevl(32.0 / safe - 2.0, b_coef) / jnp.sqrt(safe)
    return jnp.exp(ax) * jnp.where(ax <= 8.0, small, large)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    check_arraylike("nan_to_num", x)
    x = to_array(x)
    dt = np.dtype(x.dtype)
    if not dtypes.is_inexact(dt):
        return x
    if dtypes.is_complex(dt):
        re = nan_to_num(jnp.real(x), nan=nan, posinf=posinf, neginf=neginf)
        im = nan_to_num(jnp.imag(x), nan=nan, posinf=posinf, neginf=neginf)
        return lax.complex(re, im)
    info = dtypes.finfo(dt) if hasattr(dtypes, "finfo") else jnp.finfo(dt)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    out = jnp.where(jnp.isnan(x), convert(nan, dt), x)
    out = jnp.where(jnp.isposinf(out), convert(posinf, dt), out)
    return jnp.where(jnp.isneginf(out), convert(neginf, dt), out)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    a, b = promote_args("isclose", a, b)
    a, b = to_array(a), to_array(b)
    dt = np.dtype(a.dtype)
    if not dtypes.is_inexact(dt):
        return jnp.equal(a, b)
    rtol = convert(rtol, jnp.real(a).dtype if dtypes.is_complex(dt) else dt)
    atol = convert(atol, rtol.dtype)
    out = jnp.less_equal(jnp.abs(a - b), atol + rtol * jnp.abs(b))
    out = out & jnp.isfinite(a) & jnp.isfinite(b) | (a == b)
    if dtypes.is_complex(dt):
        infs = ~(jnp.isfinite(a) & jnp.isfinite(b))
        out = jnp.where(infs, a == b, out)
    else:
        out = jnp.where(jnp.isinf(a) | jnp.isinf(b), a == b, out)
    if equal_nan:
        out = out | (jnp.isnan(a) & jnp.isnan(b))
    return out


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return jnp.all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1, a2, equal_nan=False):
    """Same shape and elements (a Python-level shape check, as JAX)."""
    if any(isinstance(getattr(a, "dtype", None), dtypes.ExtendedDType) for a in (a1, a2)):
        # typed PRNG keys compare with their own elementwise ==
        return jnp.asarray(False) if a1.shape != a2.shape else jnp.all(a1 == a2)
    a1, a2 = to_array(a1), to_array(a2)
    if a1.shape != a2.shape:
        return jnp.asarray(False)
    eq = jnp.equal(a1, a2)
    if equal_nan and dtypes.is_inexact(np.dtype(dtypes.result_type(a1, a2))):
        eq = eq | (jnp.isnan(a1) & jnp.isnan(a2))
    return jnp.all(eq)


def array_equiv(a1, a2):
    a1, a2 = to_array(a1), to_array(a2)
    try:
        jnp.broadcast_shapes(a1.shape, a2.shape)
    except ValueError:
        return jnp.asarray(False)
    return jnp.all(jnp.equal(a1, a2))


def copysign(x1, x2):
    x1, x2 = promote_args_inexact("copysign", x1, x2)
    if dtypes.is_complex(np.dtype(to_array(x1).dtype)):
        raise TypeError("copysign does not support complex-valued inputs")
    return jnp.where(jnp.signbit(x2), -jnp.abs(x1), jnp.abs(x1))


def nextafter(x1, x2):
    x1, x2 = promote_args_inexact("nextafter", x1, x2)
    return lax.nextafter(x1, x2)


def fmax(x1, x2):
    """Maximum that ignores a NaN (NaN only when both are)."""
    x1, x2 = promote_args("fmax", x1, x2)
    return jnp.where((x1 > x2) | jnp.isnan(x2), x1, x2)


def fmin(x1, x2):
    x1, x2 = promote_args("fmin", x1, x2)
    return jnp.where((x1 < x2) | jnp.isnan(x2), x1, x2)


def isposinf(x, /, out=None):
    x = to_array(x)
    if dtypes.is_complex(np.dtype(x.dtype)):
        raise ValueError("isposinf does not support complex inputs")
    return jnp.isinf(x) & ~jnp.signbit(x) if dtypes.is_inexact(np.dtype(x.dtype)) else \
        jnp.zeros(x.shape, bool)


def isneginf(x, /, out=None):
    x = to_array(x)
    if dtypes.is_complex(np.dtype(x.dtype)):
        raise ValueError("isneginf does not support complex inputs")
    return jnp.isinf(x) & jnp.signbit(x) if dtypes.is_inexact(np.dtype(x.dtype)) else \
        jnp.zeros(x.shape, bool)


def isreal(x):
    x = to_array(x)
    if dtypes.is_complex(np.dtype(x.dtype)):
        return jnp.imag(x) == 0
    return jnp.ones(x.shape, bool)


def iscomplex(x):
    x = to_array(x)
    if dtypes.is_complex(np.dtype(x.dtype)):
        return jnp.imag(x) != 0
    return jnp.zeros(x.shape, bool)


def isscalar(element):
    """True for Python/NumPy scalars and for rank-0 arrays (JAX's rule)."""
    if isinstance(element, (Array, Tracer)):
        return element.ndim == 0
    if isinstance(element, (np.ndarray, np.generic)):
        return np.ndim(element) == 0
    return isinstance(element, (bool, int, float, complex))


def real_if_close(a, tol=100):
    """Real part when every imaginary part is within ``tol`` machine epsilons of 0 (a concrete
    decision: the output dtype depends on it)."""
    a = to_array(a)
    if not dtypes.is_complex(np.dtype(a.dtype)):
        return a
    if isinstance(a, Tracer):
        raise a._concretization_error("jnp.real_if_close (its output dtype depends on values)")
    eps = np.finfo(np.asarray(a).real.dtype).eps
    tol = tol * eps if tol > 1 else tol
    return jnp.real(a) if bool(np.all(np.abs(np.asarray(a).imag) < tol)) else a


def spacing(x, /):
    x = _inexact(x)
    inf = convert(np.inf, x.dtype)
    return jnp.where(jnp.signbit(x), lax.nextafter(x, -inf) - x, lax.nextafter(x, inf) - x)


def unwrap(p, discont=None, axis=-1, period=2 * np.pi):
    p = _inexact(p)
    axis = canonicalize_axis(axis, p.ndim)
    if p.shape[axis] == 0:
        return p
    if discont is None:
        discont = period / 2
    interval = period / 2
    dd = diff(p, axis=axis)
    ddmod = jnp.mod(dd + interval, period) - interval
    ddmod = jnp.where((ddmod == -interval) & (dd > 0), interval, ddmod)
    correct = jnp.where(jnp.abs(dd) < discont, 0, ddmod - dd)
    first = lax.slice_in_dim(p, 0, 1, axis=axis)
    return jnp.concatenate([first, lax.slice_in_dim(p, 1, p.shape[axis], axis=axis)
                            + jnp.cumsum(correct, axis=axis)], axis=axis)


# ------------------------------------------------------------------------------------------------
# Bits


def packbits(a, axis=None, bitorder="big"):
    check_arraylike("packbits", a)
    a = to_array(a)
    if not (dtypes.is_int(np.dtype(a.dtype)) or a.dtype == np.bool_):
        raise TypeError("Expected an input array of integer or boolean data type")
    if bitorder not in ("big", "little"):
        raise ValueError("'order' must be either 'little' or 'big'")
    bits = convert(a != 0, np.uint8)
    if axis is None:
        bits, axis = jnp.ravel(bits), 0
    axis = canonicalize_axis(axis, bits.ndim)
    n = bits.shape[axis]
    pad = (-n) % 8
    if pad:
        widths = [(0, 0)] * bits.ndim
        widths[axis] = (0, pad)
        bits = jnp.pad(bits, widths)
    bits = jnp.moveaxis(bits, axis, -1)
    bits = jnp.reshape(bits, bits.shape[:-1] + ((n + pad) // 8, 8))
    shifts = np.arange(7, -1, -1) if bitorder == "big" else np.arange(8)
    weights = convert(np.left_shift(1, shifts).astype(np.uint8), np.uint8)
    packed = jnp.sum(bits * weights, axis=-1, dtype=np.uint8)
    return jnp.moveaxis(packed, -1, axis)


def unpackbits(a, axis=None, count=None, bitorder="big"):
    check_arraylike("unpackbits", a)
    a = to_array(a)
    if a.dtype != np.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    if bitorder not in ("big", "little"):
        raise ValueError("'order' must be either 'little' or 'big'")
    shifts = np.arange(7, -1, -1) if bitorder == "big" else np.arange(8)
    shifts = convert(shifts.astype(np.uint8), np.uint8)
    bits = jnp.bitwise_and(jnp.right_shift(a[..., None], shifts), convert(1, np.uint8))
    if axis is None:
        bits, axis = jnp.ravel(bits), 0
    else:
        axis = canonicalize_axis(axis, a.ndim)
        bits = jnp.moveaxis(bits, -1, axis + 1)
        bits = jnp.reshape(bits, a.shape[:axis] + (a.shape[axis] * 8,) + a.shape[axis + 1:])
    if count is not None:
        n = bits.shape[axis]
        if count <= n:
            bits = lax.slice_in_dim(bits, 0, count, axis=axis)
        else:
            widths = [(0, 0)] * bits.ndim
            widths[axis] = (0, count - n)
            bits = jnp.pad(bits, widths)
    return bits


def bitwise_count(x, /):
    x = to_array(x)
    if dtypes.is_int(np.dtype(x.dtype)) and np.dtype(x.dtype).kind == "i":
        x = jnp.abs(x)
    out = lax.population_count(x)
    return convert(out, np.uint8)


# ------------------------------------------------------------------------------------------------
# Window functions


def _cosine_window(M, terms):
    """``sum_k a_k cos(2 pi k n / (M - 1))`` for ``n < M`` (ones for ``M <= 1``, as NumPy):
    the generalized cosine windows (hamming, hanning, blackman)."""
    M = operator.index(M)
    if M <= 1:
        return jnp.ones((max(M, 0),), dtypes.default_float_dtype())
    n = jnp.arange(M, dtype=dtypes.default_float_dtype())
    out = terms[0]
    for k, a in enumerate(terms[1:], start=1):
        out = out + a * jnp.cos(2 * k * jnp.pi * n / (M - 1))
    return out


def hamming(M):
    return _cosine_window(M, (0.54, -0.46))


def hanning(M):
    return _cosine_window(M, (0.5, -0.5))


def blackman(M):
    return _cosine_window(M, (0.42, -0.5, 0.08))


def bartlett(M):
    M = operator.index(M)
    if M <= 1:
        return jnp.ones((max(M, 0),), dtypes.default_float_dtype())
    n = jnp.arange(M, dtype=dtypes.default_float_dtype())
    return 1 - jnp.abs(2 * n - M + 1) / (M - 1)


def kaiser(M, beta):
    M = operator.index(M)
    if M <= 1:
        return jnp.ones((max(M, 0),), dtypes.default_float_dtype())
    n = jnp.arange(M, dtype=dtypes.default_float_dtype())
    alpha = (M - 1) / 2.0
    return i0(beta * jnp.sqrt(1 - ((n - alpha) / alpha) ** 2)) / i0(
        convert(beta, dtypes.default_float_dtype()))


def isdtype(dtype, kind):
    """The array API's dtype-kind test (``'real floating'``, ``'integral'``, a dtype, a tuple)."""
    dtype = np.dtype(dtype)
    if isinstance(kind, tuple):
        return any(isdtype(dtype, k) for k in kind)
    if not isinstance(kind, str):
        return dtype == np.dtype(kind)
    is_float = dtypes.is_float(dtype) if hasattr(dtypes, "is_float") else dtype.kind == "f"
    kinds = {
        "bool": dtype == np.bool_,
        "signed integer": dtype.kind == "i",
        "unsigned integer": dtype.kind == "u",
        "integral": dtype.kind in "iu",
        "real floating": bool(is_float),
        "complex floating": dtype.kind == "c",
    }
    kinds["numeric"] = kinds["integral"] or kinds["real floating"] or kinds["complex floating"]
    if kind not in kinds:
        raise ValueError(f"Unrecognized kind {kind!r}; expected one of {sorted(kinds)}")
    return kinds[kind]
