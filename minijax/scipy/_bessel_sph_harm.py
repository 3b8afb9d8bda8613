"""``bessel_jn`` (Bessel functions of the first kind by Miller's backward recurrence) and
``sph_harm_y`` (spherical harmonics from normalized associated Legendre functions), as JAX."""

from functools import partial

import numpy as np

from minijax import dtypes, lax
from minijax import numpy as jnp
from minijax.core import concrete_or_error
from minijax.jitting import jit
from minijax.numpy._util import promote_dtypes_inexact
from minijax.vmapping import vmap


def _bessel_jn_scalar(z, *, v, n_iter):
    """J_0(z) ... J_v(z): the recurrence f_(k-1) = 2k f_k / z - f_(k+1) run down from
    k = n_iter with an arbitrary tiny start, normalized by J_0 + 2 sum_k J_2k = 1."""

    def body(carry, k):
        f0, f1, bs = carry
        f = 2.0 * (k + 1.0) * f1 / z - f0
        # a cond on the (unbatched) step, as JAX's: no where jit per step
        bs = lax.cond(jnp.mod(k, 2) == 0, lambda u: u[0] + 2.0 * u[1], lambda u: u[0], (bs, f))
        return (f1, f, bs), f

    init = (jnp.zeros_like(z), jnp.full_like(z, 1e-16), jnp.zeros_like(z))
    (_, _, bs), j_vals = lax.scan(body, init, lax.iota(z.dtype, n_iter + 1), reverse=True)
    return j_vals[: v + 1] / (bs - j_vals[0])


@partial(jit, static_argnames=("v", "n_iter"))
def bessel_jn(z, *, v, n_iter=50):
    """J_0(z), ..., J_v(z) stacked on a new leading axis; ``n_iter`` recurrence steps (enough
    for |z| well below it)."""
    (z,) = promote_dtypes_inexact(jnp.asarray(z))
    if dtypes.is_complex(z.dtype):
        raise ValueError("complex input not supported.")
    v = concrete_or_error(int, v, "Argument v of bessel_jn.")
    n_iter = concrete_or_error(int, n_iter, "Argument n_iter of bessel_jn.")
    fun = partial(_bessel_jn_scalar, v=v, n_iter=n_iter)
    for _ in range(z.ndim):
        fun = vmap(fun)
    return jnp.moveaxis(fun(z), -1, 0)


def _recurrence_masks(l_max, dtype):
    """The coefficients of P_l^m = d0(l, m) x P_(l-1)^m - d1(l, m) P_(l-2)^m (normalized),
    laid out so step i of the loop updates degree i only."""
    m_mat, l_mat = jnp.meshgrid(jnp.arange(l_max + 1, dtype=dtype),
                                jnp.arange(l_max + 1, dtype=dtype), indexing="ij")
    c0, c1 = l_mat * l_mat, m_mat * m_mat
    c2, c3 = 2.0 * l_mat, (l_mat - 1.0) * (l_mat - 1.0)
    d0 = jnp.sqrt((4.0 * c0 - 1.0) / (c0 - c1))
    d1 = jnp.sqrt((c2 + 1.0) * (c3 - c1) / ((c2 - 3.0) * (c0 - c1)))
    d0_mask = jnp.where(jnp.triu(jnp.ones((l_max + 1, l_max + 1), bool), 1), d0, 0.0)
    d1_mask = jnp.where(jnp.triu(jnp.ones((l_max + 1, l_max + 1), bool), 2), d1, 0.0)
    i = np.arange(l_max + 1)
    mask = (i[:, None, None] + i[None, :, None] - i[None, None, :] == 0).astype(dtype)
    return d0_mask[None] * mask, d1_mask[None] * mask


def _normalized_legendre(l_max, x):
    """p[m, l, k] = the normalized associated Legendre function P_l^m(x[k]) (m <= l)."""
    p = jnp.zeros((l_max + 1, l_max + 1, x.shape[0]), dtype=x.dtype)
    a_idx = jnp.arange(1, l_max + 1, dtype=x.dtype)
    b_idx = jnp.arange(l_max, dtype=x.dtype)
    initial = 0.5 / jnp.sqrt(np.pi)  # in the working precision, as JAX's
    f_a = jnp.cumprod(-1 * jnp.sqrt(1.0 + 0.5 / a_idx))
    f_b = jnp.sqrt(2.0 * b_idx + 3.0)
    p = p.at[0, 0].set(initial)
    y = jnp.cumprod(jnp.broadcast_to(jnp.sqrt(1.0 - x * x), (l_max, x.shape[0])), axis=0)
    diag = np.arange(1, l_max + 1)
    p = p.at[diag, diag].set(initial * (f_a[:, None] * y))  # P_m^m, JAX's rounding order
    sub = np.arange(l_max)
    p = p.at[sub, sub + 1].set(f_b[:, None] * x[None, :] * p[sub, sub])  # P_(m+1)^m
    d0_mask, d1_mask = _recurrence_masks(l_max, x.dtype)

    def body(i, p):
        # JAX's order of rounding: d0 (p_(l-1) x), not (d0 p_(l-1)) x
        h = (d0_mask[i][..., None] * (jnp.roll(p, shift=1, axis=1) * x)
             - d1_mask[i][..., None] * jnp.roll(p, shift=2, axis=1))
        return p + h

    if l_max > 1:
        p = lax.fori_loop(2, l_max + 1, body, p)
    return p


@partial(jit, static_argnums=(4,))
def _sph_harm(n, m, theta, phi, n_max):
    legendre = _normalized_legendre(n_max, jnp.cos(theta))
    legendre_val = legendre.at[abs(m), n, jnp.arange(len(n))].get(mode="clip")
    angle = abs(m) * phi
    harmonics = lax.complex(legendre_val * jnp.cos(angle), legendre_val * jnp.sin(angle))
    return jnp.where(m < 0, (-1.0) ** abs(m) * jnp.conjugate(harmonics), harmonics)


def sph_harm_y(n, m, theta, phi, diff_n=None, n_max=None):
    """The spherical harmonic Y_n^m(theta, phi) (theta the polar angle, phi the azimuth), as
    SciPy's; ``n_max`` (static) bounds the degrees, by default max(n) (then ``n`` must be
    concrete)."""
    if diff_n is not None:
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError(
            "The 'diff_n' argument to jax.scipy.special.sph_harm_y is not supported.")
    if jnp.isscalar(theta):
        theta = jnp.array([theta])
    if n_max is None:
        n_max = np.max(n)
    n_max = concrete_or_error(
        int, n_max, "The `n_max` argument of `jnp.scipy.special.sph_harm` must be statically "
        "specified to use `sph_harm` within JAX transformations.")
    return _sph_harm(n, m, theta, phi, n_max)
