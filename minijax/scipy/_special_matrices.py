"""SciPy's special matrices (``jax.scipy.linalg.circulant`` ... ``pascal``).

Two kinds: matrices built from array arguments (``circulant``, ``hankel``, ``leslie``,
``companion``, ``fiedler``, ``fiedler_companion``, ``convolution_matrix``) are traced code
with leading axes as a batch, as in JAX; matrices defined by a static size alone
(``hadamard``, ``helmert``, ``pascal``, ``invpascal``, ``invhilbert``, ``dft``) are integer
or closed-form tables computed exactly on the host at trace time and embedded as constants.
"""

from __future__ import annotations

import math
import operator
from functools import partial

import numpy as np

from minijax import dtypes, lax
from minijax import numpy as jnp
from minijax.jitting import jit
from minijax.numpy._util import check_arraylike, promote_dtypes, promote_dtypes_inexact

__all__ = [
    "circulant", "companion", "convolution_matrix", "dft", "fiedler", "fiedler_companion",
    "hadamard", "hankel", "helmert", "invhilbert", "invpascal", "leslie", "pascal",
]


def _last_axis_at_least(name, a, k):
    if a.ndim == 0 or a.shape[-1] < k:
        raise ValueError(f"The length of {name} along the last axis must be at least {k}; got "
                         f"shape {a.shape}.")


def _positive(n):
    n = operator.index(n)
    if n <= 0:
        raise ValueError(f"n must be a positive integer; got {n}.")
    return n


# ------------------------------------------------------------------------------------------------
# Built from arrays (batched over leading axes)


def circulant(c):
    """The circulant matrix whose first column is ``c``: C[i, j] = c[(i - j) mod n]."""
    check_arraylike("circulant", c)
    c = jnp.atleast_1d(jnp.asarray(c))
    n = c.shape[-1]
    idx = (np.arange(n)[:, None] - np.arange(n)[None, :]) % n
    return c[..., idx]


def hankel(c, r=None):
    """The Hankel matrix with first column ``c`` and last row ``r`` (default zeros; r[0] is
    ignored): H[i, j] = c[i + j] while i + j < len(c), else r[i + j - len(c) + 1]."""
    if r is None:
        check_arraylike("hankel", c)
        c = jnp.atleast_1d(jnp.asarray(c))
        r = jnp.zeros_like(c)
    else:
        check_arraylike("hankel", c, r)
        c, r = jnp.atleast_1d(jnp.asarray(c)), jnp.atleast_1d(jnp.asarray(r))
    c, r = promote_dtypes(c, r)
    m, n = c.shape[-1], r.shape[-1]
    batch = np.broadcast_shapes(c.shape[:-1], r.shape[:-1])
    c, r = jnp.broadcast_to(c, (*batch, m)), jnp.broadcast_to(r, (*batch, n))
    # elems = [c[0], ..., c[m-1], r[1], ..., r[n-1]]; H[i, j] = elems[i + j].
    elems = jnp.concatenate((c, r[..., 1:]), axis=-1)
    return elems[..., np.arange(m)[:, None] + np.arange(n)[None, :]]


def leslie(f, s):
    """The Leslie matrix: fecundities ``f`` (n) on the first row, survival rates ``s``
    (n - 1) on the subdiagonal."""
    check_arraylike("leslie", f, s)
    f, s = promote_dtypes(jnp.atleast_1d(jnp.asarray(f)), jnp.atleast_1d(jnp.asarray(s)))
    _last_axis_at_least("f", f, 2)
    n = f.shape[-1]
    if s.shape[-1] != n - 1:
        raise ValueError("Incorrect lengths for f and s. The length of s along the last axis "
                         "must be one less than the length of f; got f shape "
                         f"{f.shape} and s shape {s.shape}.")
    batch = np.broadcast_shapes(f.shape[:-1], s.shape[:-1])
    f, s = jnp.broadcast_to(f, (*batch, n)), jnp.broadcast_to(s, (*batch, n - 1))
    # Rows 1..n-1 are diag(s) padded with a zero column on the right.
    sub = s[..., :, None] * jnp.eye(n - 1, n, dtype=s.dtype)
    return jnp.concatenate((f[..., None, :], sub), axis=-2)


def companion(a):
    """The companion matrix of the polynomial with coefficients ``a`` (highest degree
    first): first row -a[1:] / a[0], ones on the subdiagonal; its eigenvalues are the roots."""
    check_arraylike("companion", a)
    (a,) = promote_dtypes_inexact(jnp.atleast_1d(jnp.asarray(a)))
    _last_axis_at_least("`a`", a, 2)
    n = a.shape[-1] - 1
    first = -a[..., 1:] / a[..., :1]
    sub = jnp.broadcast_to(jnp.eye(n - 1, n, dtype=a.dtype), (*a.shape[:-1], n - 1, n))
    return jnp.concatenate((first[..., None, :], sub), axis=-2)


def fiedler(a):
    """The symmetric Fiedler matrix F[i, j] = |a[i] - a[j]|."""
    check_arraylike("fiedler", a)
    a = jnp.atleast_1d(jnp.asarray(a))
    return jnp.abs(a[..., :, None] - a[..., None, :])


def fiedler_companion(a):
    """The Fiedler companion matrix of the polynomial ``a`` (highest degree first): a
    pentadiagonal matrix with the same characteristic polynomial as :func:`companion`."""
    check_arraylike("fiedler_companion", a)
    (a,) = promote_dtypes_inexact(jnp.atleast_1d(jnp.asarray(a)))
    batch, size = a.shape[:-1], a.shape[-1]
    if size <= 1:
        return jnp.zeros((*batch, 0, 0), a.dtype)
    a = a / a[..., :1]
    n = size - 1
    if n == 1:
        return -a[..., 1:, None]
    # Fiedler's product of elementary factors, written out: the monic coefficients -a[k]
    # alternate between the superdiagonal (even k) and the subdiagonal (odd k >= 3), with
    # ones two places off the diagonal beside them.
    c = jnp.zeros((*batch, n, n), a.dtype)
    c = c.at[..., 0, 0].set(-a[..., 1]).at[..., 1, 0].set(1)
    rows, cols = np.arange(0, n - 1, 2), np.arange(1, n, 2)
    c = c.at[..., rows, cols].set(-a[..., 2::2])
    c = c.at[..., np.arange(0, n - 2, 2), np.arange(2, n, 2)].set(1)
    c = c.at[..., np.arange(2, n, 2), np.arange(1, n - 1, 2)].set(-a[..., 3::2])
    c = c.at[..., np.arange(3, n, 2), np.arange(1, n - 2, 2)].set(1)
    return c


@partial(jit, static_argnames=("n", "mode"))  # a jit in JAX
def convolution_matrix(a, n: int, mode: str = "full"):
    """The matrix A with A @ v == numpy.convolve(a, v, mode) for every v of length ``n`` (as
    JAX's: the Toeplitz matrix of the zero-padded ``a`` and its reverse)."""
    n = operator.index(n)
    if n <= 0:
        raise ValueError(f"n must be a positive integer; got {n}.")
    check_arraylike("convolution_matrix", a)
    a_arr = jnp.asarray(a)
    if a_arr.ndim == 0:
        raise ValueError("convolution_matrix: a must be at least 1-dimensional, got a scalar.")
    m = a_arr.shape[-1]
    if m < 1:
        raise ValueError(f"len(a) must be at least 1; got shape {a_arr.shape}.")
    if mode not in ("full", "valid", "same"):
        raise ValueError(f"mode must be one of 'full', 'valid', 'same'; got {mode!r}.")
    pad_widths = [(0, 0)] * (a_arr.ndim - 1) + [(0, n - 1)]
    az = jnp.pad(a_arr, pad_widths)
    raz = jnp.pad(jnp.flip(a_arr, axis=-1), pad_widths)
    length = m + n - 1
    if mode == "same":
        trim = min(n, m) - 1
        tb = trim // 2
        te = trim - tb
    elif mode == "valid":
        tb = te = min(n, m) - 1
    else:
        tb = te = 0
    col0 = lax.slice_in_dim(az, tb, length - te, axis=-1)
    row0 = lax.slice_in_dim(raz, length - n - tb, length - tb, axis=-1)
    return toeplitz(col0, row0)


def toeplitz(c, r=None):
    """The Toeplitz matrix with first column ``c`` and first row ``r`` (default conj(c);
    r[0] is ignored): A[i, j] = c[i - j] for i >= j, r[j - i] above. Leading axes of ``c``
    and ``r`` are broadcast batch axes."""
    if r is None:
        check_arraylike("toeplitz", c)
        r = jnp.conjugate(jnp.asarray(c))
    else:
        check_arraylike("toeplitz", c, r)
    return _toeplitz(jnp.atleast_1d(jnp.asarray(c)), jnp.atleast_1d(jnp.asarray(r)))


def _toeplitz(c, r):  # not a jit: JAX's is a plain vectorize
    return jnp.vectorize(_toeplitz_2d, signature="(m),(n)->(m,n)")(c, r)


def _toeplitz_2d(c, r):
    """JAX's construction: the length-n windows of [c[::-1], r[1:]] (conv patches), flipped."""
    ncols, nrows = c.shape[0], r.shape[0]
    if ncols == 0 or nrows == 0:
        return jnp.empty((ncols, nrows), dtype=jnp.promote_types(c.dtype, r.dtype))
    nelems = ncols + nrows - 1
    elems = jnp.concatenate((c[::-1], r[1:]))
    patches = lax.conv_general_dilated_patches(
        elems.reshape((1, nelems, 1)), (nrows,), (1,), "VALID",
        dimension_numbers=("NTC", "IOT", "NTC"), precision=lax.Precision.HIGHEST)[0]
    return jnp.flip(patches, axis=0)


# ------------------------------------------------------------------------------------------------
# Tables of a static size (exact on the host)


@partial(jit, static_argnames=("n", "dtype"))  # a jit in JAX
def hadamard(n: int, dtype=int):
    """The (n, n) Hadamard matrix of Sylvester's construction; ``n`` a power of 2."""
    n = operator.index(n)
    if n < 1 or n & (n - 1):
        raise ValueError(f"n must be a positive power of 2; got {n}.")
    h = np.ones((1, 1), np.int64)
    while h.shape[0] < n:
        h = np.block([[h, h], [h, -h]])
    return jnp.asarray(h, dtype=dtypes.canonicalize_dtype(dtype))


@partial(jit, static_argnames=("n", "full"))  # a jit in JAX
def helmert(n: int, full: bool = False):
    """The (n, n) orthogonal Helmert matrix, or its last n - 1 rows (default)."""
    n = _positive(n)
    h = np.tril(np.ones((n, n)), -1) - np.diag(np.arange(n))
    h[0] = 1
    norms = np.sqrt(np.arange(n) * np.arange(1, n + 1))
    norms[0] = np.sqrt(n)
    h = h / norms[:, None]
    return jnp.asarray(h if full else h[1:], dtype=dtypes.default_float_dtype())


def _binomials(n):
    """The lower Pascal matrix L[i, j] = C(i, j) as exact Python integers."""
    return np.array([[math.comb(i, j) for j in range(n)] for i in range(n)], dtype=object)


_PASCAL_KINDS = ["symmetric", "lower", "upper"]


@partial(jit, static_argnames=("n", "kind"))  # a jit in JAX
def pascal(n: int, kind: str | None = None):
    """The (n, n) Pascal matrix: 'symmetric' (default) C(i + j, i), 'lower' C(i, j), 'upper'
    its transpose. float32, as JAX returns for any x64 setting."""
    kind = "symmetric" if kind is None else kind
    if kind not in _PASCAL_KINDS:
        raise ValueError(f"Expected kind to be on of: {_PASCAL_KINDS}; got {kind}")
    low = _binomials(operator.index(n))
    p = {"symmetric": low.dot(low.T), "lower": low, "upper": low.T}[kind]
    return jnp.asarray(p.astype(np.float64), dtype=np.float32)


@partial(jit, static_argnames=("n", "kind"))  # a jit in JAX
def invpascal(n: int, kind: str | None = None):
    """The inverse of :func:`pascal`: the lower factor's inverse is the factor with
    alternating signs, (-1)^(i+j) C(i, j), and P^-1 = L^-T L^-1 for the symmetric kind."""
    kind = "symmetric" if kind is None else kind
    if kind not in _PASCAL_KINDS:
        raise ValueError(f"Expected kind to be one of: {_PASCAL_KINDS}; got {kind}")
    n = operator.index(n)
    signs = np.array([[(-1) ** (i + j) for j in range(n)] for i in range(n)], dtype=object)
    inv_low = _binomials(n) * signs if n else np.zeros((0, 0), object)
    p = {"symmetric": inv_low.T.dot(inv_low), "lower": inv_low, "upper": inv_low.T}[kind]
    return jnp.asarray(p.astype(np.float64), dtype=dtypes.default_float_dtype())


@partial(jit, static_argnames=("n",))  # a jit in JAX
def invhilbert(n: int):
    """The exact inverse of the (n, n) Hilbert matrix (integer entries), as floats:
    (-1)^(i+j) (i+j+1) C(n+i, n-j-1) C(n+j, n-i-1) C(i+j, i)^2."""
    n = operator.index(n)
    inv = np.array([[(-1) ** (i + j) * (i + j + 1) * math.comb(n + i, n - j - 1)
                     * math.comb(n + j, n - i - 1) * math.comb(i + j, i) ** 2
                     for j in range(n)] for i in range(n)], dtype=object)
    return jnp.asarray(inv.reshape(n, n).astype(np.float64),
                       dtype=dtypes.default_float_dtype())


@partial(jit, static_argnames=("n", "scale", "dtype"))  # a jit in JAX
def dft(n: int, scale: str | None = None, *, dtype=None):
    """The (n, n) discrete Fourier transform matrix exp(-2 pi i j k / n), unscaled, divided
    by sqrt(n) ('sqrtn') or by n ('n'); ``dtype`` defaults to the default complex dtype."""
    if scale not in (None, "sqrtn", "n"):
        raise ValueError(f"scale must be None, 'sqrtn', or 'n'; got {scale!r}.")
    n = operator.index(n)
    dtype = dtypes.default_complex_dtype() if dtype is None else dtypes.canonicalize_dtype(dtype)
    # The phase from j*k mod n keeps the angle small, so large n stays accurate.
    jk = (np.arange(n)[:, None] * np.arange(n)[None, :]) % max(n, 1)
    m = np.exp(-2j * np.pi * jk / max(n, 1))
    if scale == "sqrtn":
        m = m / np.sqrt(n)
    elif scale == "n":
        m = m / n
    return jnp.asarray(m, dtype=dtype)
