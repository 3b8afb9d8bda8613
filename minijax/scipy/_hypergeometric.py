"""Confluent (``hyp1f1``) and Gauss (``hyp2f1``) hypergeometric functions, as JAX computes them:
power series summed in ``while_loop``s per element (``jnp.vectorize``), an asymptotic series
for large |x| (1F1), and the transformations of 2F1 near and beyond x = 1. Derivatives in every
parameter by the term-wise differentiated series (JAX's rules)."""

import numpy as np

from minijax import dtypes, lax
from minijax import numpy as jnp
from minijax.custom_derivatives import custom_jvp
from minijax.lax.control_flow.common import vary_like
from minijax.numpy._eager import eager_jit
from minijax.numpy._util import promote_args_inexact
from minijax.numpy.creation import to_array
from minijax.scipy.special import digamma, gamma

_MAX_TERMS = 250


def _real(name, *args):
    args = [to_array(a) for a in promote_args_inexact(name, *args)]
    if dtypes.is_complex(args[0].dtype):
        raise ValueError(f"{name} does not support complex-valued inputs.")
    return args


def _sum_series(first, ratio, weight=None):
    """sum_k t_k (weight(k) t_k if ``weight``) with t_1 = ``first``, t_(k+1) = t_k ratio(k),
    from 1 without weights (0 with), until a term falls below eps relative; JAX's loop (an
    integer k, its updates in its order), so the jaxpr is JAX's."""
    eps = dtypes.finfo(first.dtype).eps

    def body(state):
        serie, k, term = state
        serie += term if weight is None else term * weight(k)
        term *= ratio(k)
        k += 1
        return serie, k, term

    def cond(state):
        serie, k, term = state
        return (k < _MAX_TERMS) & (lax.abs(term) / lax.abs(serie) > eps)

    init = (1 if weight is None else 0), 1, first
    return lax.while_loop(cond, body, vary_like(init))[0]


# --- 1F1(a; b; x) ------------------------------------------------------------------------------


def _hyp1f1_series(a, b, x):
    return _sum_series(a / b * x, lambda k: (a + k) / (b + k) * x / (k + 1))


def _hyp1f1_asymptotic(a, b, x):
    series = _sum_series((b - a) * (1 - a) / x, lambda k: (b - a + k) * (1 - a + k) / (k + 1) / x)
    return gamma(b) / gamma(a) * lax.exp(x) * x ** (a - b) * series


# JAX's hyp1f1 is a custom_jvp of a jit named hyp1f1 of a vectorized function promoting inside;
# its a and b derivatives are jits of vectorized series, its x derivative a jit calling hyp1f1
@custom_jvp
@eager_jit(inline=False)
@jnp.vectorize
def hyp1f1(a, b, x):
    """Kummer's confluent hypergeometric function 1F1(a; b; x) = sum_k (a)_k / (b)_k x^k / k!"""
    a, b, x = promote_args_inexact("hyp1f1", a, b, x)
    if dtypes.is_complex(x.dtype):
        raise ValueError("hyp1f1 does not support complex-valued inputs.")
    result = lax.cond(lax.abs(x) < 100, _hyp1f1_series, _hyp1f1_asymptotic, a, b, x)
    index = (a == 0) * 1 + ((a == b) & (a != 0)) * 2 + ((b == 0) & (a != 0)) * 3
    return lax.select_n(index, result, jnp.array(1, dtype=x.dtype), jnp.exp(x),
                        jnp.array(np.inf, dtype=x.dtype))


@eager_jit(inline=False)
@jnp.vectorize
def _hyp1f1_a_derivative(a, b, x):
    return _sum_series(a / b * x, lambda k: (a + k) / (b + k) * x / (k + 1),
                       lambda k: digamma(a + k) - digamma(a))


@eager_jit(inline=False)
@jnp.vectorize
def _hyp1f1_b_derivative(a, b, x):
    return _sum_series(a / b * x, lambda k: (a + k) / (b + k) * x / (k + 1),
                       lambda k: digamma(b) - digamma(b + k))


@eager_jit(inline=False)
def _hyp1f1_x_derivative(a, b, x):
    return a / b * hyp1f1(a + 1, b + 1, x)


hyp1f1.defjvps(
    lambda a_dot, ans, a, b, x: _hyp1f1_a_derivative(a, b, x) * a_dot,
    lambda b_dot, ans, a, b, x: _hyp1f1_b_derivative(a, b, x) * b_dot,
    lambda x_dot, ans, a, b, x: _hyp1f1_x_derivative(a, b, x) * x_dot,
)


# --- 2F1(a, b; c; x) ---------------------------------------------------------------------------


def _hyp2f1_terminal(a, b, c, x):
    """The polynomial when a (or b, swapped in) is a non-positive integer: |a| + 1 terms.
    Here and below JAX's code: its jaxpr, and its rounding (``term *= r`` multiplies by the
    whole ratio r: float32 rounds, and a diverging series overflows, otherwise)."""
    eps = dtypes.finfo(x.dtype).eps * 50
    ib = jnp.round(b)
    mask = jnp.logical_and(b < a, jnp.logical_and(jnp.abs(b - ib) < eps, jnp.logical_not(
        jnp.logical_and(c % 1 == 0, jnp.logical_and(c <= 0, c > b)))))
    orig_a = a
    a = jnp.where(mask, b, a)
    b = jnp.where(mask, orig_a, b)
    a = jnp.abs(a)

    def body(i, state):
        serie, term = state
        term *= -(a - i + 1) / (c + i - 1) * (b + i - 1) / i * x
        serie += term
        return serie, term

    init = (jnp.array(1, dtype=x.dtype), jnp.array(1, dtype=x.dtype))
    lower, init = vary_like((jnp.array(1, dtype=a.dtype), init), a, b, c, x)
    return lax.fori_loop(lower, a + 1, body, init)[0]


def _hyp2f1_serie(a, b, c, x):
    rtol = dtypes.finfo(x.dtype).eps

    def body(state):
        serie, k, term = state
        serie += term
        term *= (a + k - 1) * (b + k - 1) / (c + k - 1) / k * x
        k += 1
        return serie, k, term

    def cond(state):
        serie, k, term = state
        return (k < _MAX_TERMS) & (lax.abs(term) > rtol * lax.abs(serie))

    init = (jnp.array(0, dtype=x.dtype), jnp.array(1, dtype=x.dtype), jnp.array(1, dtype=x.dtype))
    return lax.while_loop(cond, body, vary_like(init, a, b, c, x))[0]


def _hyp2f1_terminal_or_serie(a, b, c, x):
    eps = dtypes.finfo(x.dtype).eps * 50
    d = c - a - b
    ia = jnp.round(a)
    ib = jnp.round(b)
    id_ = jnp.round(d)
    neg_int_a = jnp.logical_and(a <= 0, jnp.abs(a - ia) < eps)
    neg_int_b = jnp.logical_and(b <= 0, jnp.abs(b - ib) < eps)
    neg_int_a_or_b = jnp.logical_or(neg_int_a, neg_int_b)
    not_neg_int_a_or_b = jnp.logical_not(neg_int_a_or_b)
    index = jnp.where(jnp.logical_and(x > 0.9, not_neg_int_a_or_b),
                      jnp.where(jnp.abs(d - id_) >= eps, 0, 1),
                      jnp.where(neg_int_a_or_b, 2, 0))
    return lax.select_n(index, _hyp2f1_serie(a, b, c, x), _hyp2f1_digamma_transform(a, b, c, x),
                        _hyp2f1_terminal(a, b, c, x))


def _hyp2f1_digamma_transform(a, b, c, x):
    """Near x = 1 with c - a - b an integer: the limit of the 1 - x transformation, whose terms
    carry digammas (Abramowitz and Stegun 15.3.10-12, as Cephes); JAX's loops carry the values
    they read."""
    rtol = dtypes.finfo(x.dtype).eps
    d = c - a - b
    s = 1 - x
    rd = jnp.round(d)
    e = jnp.where(rd >= 0, d, -d)
    d1 = jnp.where(rd >= 0, d, jnp.array(0, dtype=d.dtype))
    d2 = jnp.where(rd >= 0, jnp.array(0, dtype=d.dtype), d)
    ard = jnp.where(rd >= 0, rd, -rd).astype("int32")
    ax = jnp.log(s)
    y = digamma(1.0) + digamma(1.0 + e) - digamma(a + d1) - digamma(b + d1) - ax
    y /= gamma(e + 1.0)
    p = (a + d1) * (b + d1) * s / gamma(e + 2.0)

    def cond(state):
        q, t, y = state[6], state[9], state[10]
        return jnp.logical_and(t < _MAX_TERMS, jnp.abs(q) >= rtol * jnp.abs(y))

    def body(state):
        a, ax, b, d1, e, p, q, r, s, t, y = state
        r = digamma(1.0 + t) + digamma(1.0 + t + e) - digamma(a + t + d1) \
            - digamma(b + t + d1) - ax
        q = p * r
        y += q
        p *= s * (a + t + d1) / (t + 1.0)
        p *= (b + t + d1) / (t + 1.0 + e)
        t += 1.0
        return a, ax, b, d1, e, p, q, r, s, t, y

    init = (a, ax, b, d1, e, p, y, jnp.array(0, dtype=x.dtype), s, jnp.array(1, dtype=x.dtype), y)
    y = lax.while_loop(cond, body, vary_like(init))[10]

    def compute_sum(y):
        y1 = jnp.array(1, dtype=x.dtype)
        t = jnp.array(0, dtype=x.dtype)
        p = jnp.array(1, dtype=x.dtype)

        def for_body(i, state):
            a, b, d2, e, p, s, t, y1 = state
            r = 1.0 - e + t
            p *= s * (a + t + d2) * (b + t + d2) / r
            t += 1.0
            p /= t
            y1 += p
            return a, b, d2, e, p, s, t, y1

        lower, init_val = vary_like((1, (a, b, d2, e, p, s, t, y1)), ard)
        y1 = lax.fori_loop(lower, ard, for_body, init_val)[-1]
        p = gamma(c)
        y1 *= gamma(e) * p / (gamma(a + d1) * gamma(b + d1))
        y *= p / (gamma(a + d2) * gamma(b + d2))
        y = jnp.where((ard & 1) != 0, -y, y)
        q = s ** rd
        return jnp.where(rd > 0, y * q + y1, y + y1 * q)

    return jnp.where(rd == 0, y * gamma(c) / (gamma(a) * gamma(b)), compute_sum(y))


def _hyp2f1_d_scalar(which, a, b, c, x):
    dg = lax.digamma
    weight = {"a": lambda k: dg(a + k) - dg(a), "b": lambda k: dg(b + k) - dg(b),
              "c": lambda k: dg(c) - dg(c + k)}[which]
    return _sum_series(a * b / c * x, lambda k: (a + k) * (b + k) / (c + k) / (k + 1) * x,
                       weight)


def _named_jit(name, fn):
    """``fn`` as a jit named ``name`` (JAX jits 2F1 and its derivatives: one compiled program
    eagerly, whose fusions round as JAX's, and a jit equation under staging)."""
    fn.__name__ = fn.__qualname__ = name
    return eager_jit(inline=False)(fn)


# JAX's hyp2f1: a custom_jvp of a jit named hyp2f1 of jnp.vectorize, promoting inside
@custom_jvp
@eager_jit(inline=False)
@jnp.vectorize
def hyp2f1(a, b, c, x):
    """The Gauss hypergeometric function 2F1(a, b; c; x) for real x < 1 (and its continuation
    values at x = 1 where it converges); inf for x > 1, as JAX."""
    a, b, c, x = promote_args_inexact("hyp2f1", a, b, c, x)
    eps = dtypes.finfo(x.dtype).eps * 50
    d = c - a - b
    s = 1 - x
    ca = c - a
    cb = c - b
    id_ = jnp.round(d)
    land, lor = jnp.logical_and, jnp.logical_or
    index = jnp.where(lor(x == 0, land(lor(a == 0, b == 0), c != 0)), 0,
            jnp.where(lor(c == 0, land(c < 0, c % 1 == 0)), 1,
            jnp.where(land(d <= -1, jnp.logical_not(land(jnp.abs(d - id_) >= eps, s < 0))), 2,
            jnp.where(land(d <= 0, x == 1), 1,
            jnp.where(land(x < 1, b == c), 3,
            jnp.where(land(x < 1, a == c), 4,
            jnp.where(x > 1, 1,
            jnp.where(x == 1, 5, 6))))))))
    return lax.select_n(index, jnp.array(1, dtype=x.dtype), jnp.array(np.inf, dtype=x.dtype),
                        s ** d * _hyp2f1_terminal_or_serie(ca, cb, c, x), s ** (-a), s ** (-b),
                        gamma(c) * gamma(d) / (gamma(ca) * gamma(cb)),
                        _hyp2f1_terminal_or_serie(a, b, c, x))


def _hyp2f1_d(which):
    vec = jnp.vectorize(lambda a, b, c, x: _hyp2f1_d_scalar(which, a, b, c, x))
    return _named_jit(f"_hyp2f1_{which}_derivative", lambda a, b, c, x: vec(a, b, c, x))


_hyp2f1_x_derivative = _named_jit(
    "_hyp2f1_x_derivative", lambda a, b, c, x: a * b / c * hyp2f1(a + 1, b + 1, c + 1, x))
hyp2f1.defjvps(*(lambda t, ans, a, b, c, x, d=d: d(a, b, c, x) * t
                 for d in (_hyp2f1_d("a"), _hyp2f1_d("b"), _hyp2f1_d("c"), _hyp2f1_x_derivative)))
