"""The Fresnel integrals S(x) = int_0^x sin(pi t^2 / 2) dt and C(x) (cos), with Cephes'
rational approximations (polynomials only in single precision, as JAX)."""

import numpy as np

from minijax import dtypes
from minijax import numpy as jnp
from minijax.custom_derivatives import custom_jvp
from minijax.numpy._eager import eager_jit
from minijax.numpy._util import promote_args_inexact
from minijax.numpy.creation import to_array

_F32 = {
    "sn": np.array([
        1.6476294637887e-09, -1.522754752581096e-07, 8.4247488085024e-06,
        -0.0003120693124703272, 0.007244727626597022, -0.09228055941124598, 0.5235987735681432
    ], np.float32),
    "cn": np.array([
        1.416802502367354e-08, -1.157231412229871e-06, 5.387223446683264e-05,
        -0.001604381798862293, 0.02818489036795073, -0.2467398198317899, 0.9999999760004487
    ], np.float32),
    "fn": np.array([
        -1903009855649.792, 135594238805.0252, -4158143148.511033, 73438484.63587323,
        -873235.6681548485, 8560.51546627547, -103.2877601091159, 2.999401847870011
    ], np.float32),
    "gn": np.array([
        -186084399762.465, 12783506733.93208, -377938771.3202229, 6492611.570598858,
        -77877.89623358162, 860.2931494734327, -14.93439396592284, 0.9999841934744914
    ], np.float32),
}
_F64 = {
    "sn": np.array([
        -2991.8191940101983, 708840.0452577386, -62974148.62058625, 2548908805.7337637,
        -44297951805.96978, 318016297876.5678
    ], np.float64),
    "sd": np.array([
        1.0, 281.3762688899943, 45584.78108065326, 5173438.887700964, 419320245.8981112,
        22441179564.534092, 607366389490.0846
    ], np.float64),
    "cn": np.array([
        -4.9884311457357354e-08, 9.504280628298596e-06, -0.0006451914356839651,
        0.018884331939670384, -0.20552590095501388, 1.0
    ], np.float64),
    "cd": np.array([
        3.99982968972496e-12, 9.154392157746574e-10, 1.2500186247959882e-07,
        1.2226278902417902e-05, 0.0008680295429417843, 0.04121420907221998, 1.0
    ], np.float64),
    "fn": np.array([
        0.4215435550436775, 0.1434079197807589, 0.011522095507358577, 0.000345017939782574,
        4.6361374928786735e-06, 3.055689837902576e-08, 1.0230451416490724e-10,
        1.7201074326816183e-13, 1.3428327623306275e-16, 3.763297112699879e-20
    ], np.float64),
    "fd": np.array([
        1.0, 0.7515863983533789, 0.11688892585919138, 0.0064405152650885865,
        0.00015593440916415301, 1.8462756734893055e-06, 1.1269922476399903e-08,
        3.6014002958937136e-11, 5.887545336215784e-14, 4.5200143407412973e-17,
        1.2544323709001127e-20
    ], np.float64),
    "gn": np.array([
        0.5044420736433832, 0.1971028335255234, 0.018764858409257526, 0.0006840793809153931,
        1.1513882611188428e-05, 9.828524436884223e-08, 4.4534441586175015e-10,
        1.0826804113902088e-12, 1.375554606332618e-15, 8.363544356306774e-19,
        1.8695871016278324e-22
    ], np.float64),
    "gd": np.array([
        1.0, 1.4749575992512833, 0.33774898912002, 0.02536037414203388, 0.0008146791071843061,
        1.2754507566772912e-05, 1.0431458965757199e-07, 4.6068072814652043e-10,
        1.1027321506624028e-12, 1.3879653125957886e-15, 8.391588162831187e-19,
        1.8695871016278324e-22
    ], np.float64),
}


@eager_jit(inline=False)  # a jit in JAX, under this name
def sincospisquaredhalf(x):
    """sin and cos of pi x^2 / 2, reducing x^2 / 2 modulo 2 exactly enough for large x."""
    x = jnp.abs(x)
    s = jnp.fmod(x, 2.0)
    r = jnp.fmod(s * (x - s / 2), 2.0)
    sinpi = jnp.where(r < 0.5, jnp.sin(np.pi * r),
                      jnp.where(r > 1.5, jnp.sin(np.pi * (r - 2.0)), -jnp.sin(np.pi * (r - 1.0))))
    cospi = jnp.where(r == 0.5, 0.0,
                      jnp.where(r < 1.0, -jnp.sin(np.pi * (r - 0.5)), jnp.sin(np.pi * (r - 1.5))))
    return sinpi, cospi


# A custom_jvp of the whole function, promoting inside, as JAX's (its equation is named
# fresnel); its operations in JAX's order, so the jaxpr prints as JAX's.
@custom_jvp
def fresnel(x):
    """The Fresnel integrals (S(x), C(x)) of real ``x`` (float16/bfloat16 computed in float32)."""
    (xxa,) = promote_args_inexact("fresnel", x)
    xxa = to_array(xxa)
    original_dtype = xxa.dtype
    if dtypes.is_complex(xxa.dtype):
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError("Support for complex-valued inputs is not implemented yet.")
    if xxa.dtype != np.float64:
        xxa = xxa.astype(np.float32)  # half precision: Cephes' single-precision tables
    single = xxa.dtype == np.float32
    if single:
        # the tables as JAX makes them in the trace (no denominators in single precision: JAX
        # makes them as empty arrays all the same)
        c = {k: jnp.array(v, dtype=np.float32) for k, v in _F32.items()}
        for _ in range(4):
            jnp.empty(0)
    else:
        c = {k: jnp.array(v, dtype=np.float64) for k, v in _F64.items()}
    x = jnp.abs(xxa)
    x2 = x * x
    t = x2 * x2
    if single:
        s_small = x * x2 * jnp.polyval(c["sn"], t)
        c_small = x * jnp.polyval(c["cn"], t)
    else:
        s_small = x * x2 * jnp.polyval(c["sn"], t) / jnp.polyval(c["sd"], t)
        c_small = x * jnp.polyval(c["cn"], t) / jnp.polyval(c["cd"], t)
    sinpi, cospi = sincospisquaredhalf(x)
    if single:
        s_large = c_large = 0.5
    else:
        c_large = 0.5 + 1 / (np.pi * x) * sinpi
        s_large = 0.5 - 1 / (np.pi * x) * cospi
    # the auxiliary functions f and g of the asymptotic expansion, in between
    t = np.pi * x2
    u = 1.0 / (t * t)
    t = 1.0 / t
    if single:
        f = 1.0 - u * jnp.polyval(c["fn"], u)
        g = t * jnp.polyval(c["gn"], u)
    else:
        f = 1.0 - u * jnp.polyval(c["fn"], u) / jnp.polyval(c["fd"], u)
        g = t * jnp.polyval(c["gn"], u) / jnp.polyval(c["gd"], u)
    t = np.pi * x
    c_other = 0.5 + (f * sinpi - g * cospi) / t
    s_other = 0.5 - (f * cospi + g * sinpi) / t
    isinf = jnp.isinf(xxa)
    small = x2 < 2.5625
    large = x > 36974.0
    s = jnp.where(isinf, 0.5, jnp.where(small, s_small, jnp.where(large, s_large, s_other)))
    c = jnp.where(isinf, 0.5, jnp.where(small, c_small, jnp.where(large, c_large, c_other)))
    neg = xxa < 0.0
    s = jnp.where(neg, -s, s)
    c = jnp.where(neg, -c, c)
    if original_dtype != xxa.dtype:
        s, c = s.astype(original_dtype), c.astype(original_dtype)
    return s, c


@fresnel.defjvp
def _fresnel_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    result = fresnel(x)
    sinpi, cospi = sincospisquaredhalf(x)
    return result, (sinpi * x_dot, cospi * x_dot)
