"""Neural-network functions of ``jax.nn``, written with ``minijax.numpy`` and ``lax``.

The normalizing functions (``softmax``, ``log_softmax``, ``logsumexp``) subtract the maximum
before exponentiating, so large inputs do not overflow. That maximum is wrapped in
``stop_gradient``, as in JAX: its contribution to the derivative cancels out mathematically, so
differentiating it would only cost work (and split ties between equal maxima).
"""

from __future__ import annotations

import operator

import numpy as np

from minijax import dtypes, lax
from minijax import numpy as jnp
from minijax.custom_derivatives import custom_jvp
from minijax.lax.families import const
from minijax.numpy._eager import eager_jit
from minijax.numpy._util import canonicalize_axes, check_arraylike, promote_args_inexact
from minijax.numpy.creation import to_array
from minijax.numpy.reductions import _reduction_dims

__all__ = [
    "relu", "relu6", "sigmoid", "log_sigmoid", "log1mexp", "silu", "swish", "gelu", "softplus",
    "soft_sign", "tanh", "elu", "celu", "selu", "leaky_relu", "hard_tanh", "hard_sigmoid",
    "hard_silu", "hard_swish", "glu", "softmax", "log_softmax", "logsumexp", "one_hot",
    "standardize", "identity", "sparse_plus", "sparse_sigmoid", "mish", "squareplus",
    "logmeanexp",
]

tanh = jnp.tanh


def _inexact(name, x):
    (x,) = promote_args_inexact(name, x)
    return to_array(x)


def _make_relus():
    """``relu``/``relu6`` with custom JVPs, as in JAX: their derivative at the kinks (0, and 6
    for relu6) is 0, not the 1/2 that ``max``'s tie-splitting rule would give. As JAX's, each
    is a custom_jvp of a jit named ``relu``/``relu6`` (a jit equation under staging)."""

    @eager_jit(inline=False)
    def relu(x):
        return jnp.maximum(x, 0)

    @eager_jit(inline=False)
    def relu6(x):
        return jnp.minimum(jnp.maximum(x, 0), 6.0)

    relu_fn = custom_jvp(relu)
    # lax.select, as JAX: jnp.where would skip the select for a zero-size x, and the
    # program would then not read x (so a sharded jit would drop its placement).
    relu_fn.defjvps(lambda g, ans, x: lax.select(x > 0, g, lax.full_like(g, 0)))
    relu6_fn = custom_jvp(relu6)
    relu6_fn.defjvps(lambda g, ans, x: lax.select((x > 0) & (x < 6), g, lax.full_like(g, 0)))
    return relu_fn, relu6_fn


_relu, _relu6 = _make_relus()


def relu(x):
    """``max(x, 0)``; its derivative at 0 is 0 (as in JAX)."""
    check_arraylike("relu", x)
    return _relu(to_array(x))


def relu6(x):
    """``min(max(x, 0), 6)``; its derivative at 0 and 6 is 0 (as in JAX)."""
    check_arraylike("relu6", x)
    return _relu6(to_array(x))


def sigmoid(x):
    """``1 / (1 + exp(-x))`` (``lax.logistic``: integer and bool inputs are refused, as in
    JAX)."""
    check_arraylike("sigmoid", x)
    return lax.logistic(to_array(x))


@eager_jit(inline=False)
def silu(x):
    """``x * sigmoid(x)``."""
    check_arraylike("silu", x)
    x = to_array(x)
    return lax.mul(x, lax.logistic(x))


swish = silu


@eager_jit(inline=False)
def softplus(x):
    """``log(1 + exp(x))`` without overflow (``logaddexp(x, 0)``; an integer or bool input is
    promoted there, beside the weak 0, so its result is weak as in JAX)."""
    check_arraylike("softplus", x)
    return jnp.logaddexp(x, 0)


@eager_jit(inline=False)
def log_sigmoid(x):
    """``log(sigmoid(x)) = -softplus(-x)`` (negated before promotion: bool is refused, as
    in JAX)."""
    check_arraylike("log_sigmoid", x)
    return lax.neg(softplus(lax.neg(to_array(x))))


def _make_log1mexp():
    """A custom_jvp of a jit named ``log1mexp``, as JAX's (its derivative 1/expm1(x) stays
    finite where the two branches' would not)."""

    @eager_jit(inline=False)
    def log1mexp(x):
        # log(-expm1(-x)) is accurate for small x, log1p(-exp(-x)) for large (Maechler, 2012)
        return jnp.where(x < jnp.log(2.0), jnp.log(-jnp.expm1(-x)), jnp.log1p(-jnp.exp(-x)))

    fn = custom_jvp(log1mexp)
    fn.defjvps(lambda g, ans, x: g / jnp.expm1(x))
    return fn


_log1mexp = _make_log1mexp()


def log1mexp(x):
    """``log(1 - exp(-x))``, accurate for small and large ``x`` (undefined for ``x < 0``)."""
    check_arraylike("log1mexp", x)
    return _log1mexp(to_array(x))


@eager_jit(inline=False)
def soft_sign(x):
    x = _inexact("soft_sign", x)
    return lax.div(x, lax.add(lax.abs(x), const(x, 1)))


def gelu(x, approximate=True):
    """Gaussian error linear unit: ``x * Phi(x)``; ``approximate`` uses the tanh formula."""
    x = _inexact("gelu", x)
    # JAX's formula, written with jnp's operators as JAX's is: each is a jitted ufunc, so an
    # eager jvp runs each one's derivative as one compiled program (tanh's fused formula rounds
    # differently from its ops run one by one). The scale factors are NumPy scalars of x's
    # dtype, strong, so the result is never weak.
    if approximate:
        sqrt_2_over_pi = np.sqrt(2 / np.pi).astype(x.dtype)
        cdf = 0.5 * (1.0 + jnp.tanh(sqrt_2_over_pi * (x + 0.044715 * (x ** 3))))
        return x * cdf
    # JAX's form: 0.5 * x * erfc(-x / sqrt(2)) stays finite at the largest floats
    sqrt_half = np.sqrt(0.5).astype(x.dtype)
    return jnp.array(0.5 * x * lax.erfc(-x * sqrt_half), dtype=x.dtype)  # a copy, as JAX


@eager_jit(inline=False)  # a jit in JAX: a default alpha of 1 is a constant XLA folds
def elu(x, alpha=1.0):
    check_arraylike("elu", x)
    x = to_array(x)  # not promoted first: as JAX's, an integer input gives a weak float
    # expm1 of large x would overflow unused, so it sees 0 there; x > 0 is computed twice, as
    # JAX's expression does (its jaxprs show both comparisons)
    return jnp.where(x > 0, x, alpha * jnp.expm1(jnp.where(x > 0, 0.0, x)))


@eager_jit(inline=False)
def celu(x, alpha=1.0):
    check_arraylike("celu", x)
    x = to_array(x)  # not promoted first: as JAX's, an integer input gives a weak float
    return jnp.maximum(x, 0.0) + alpha * lax.expm1(jnp.minimum(x, 0.0) / alpha)


@eager_jit(inline=False)
def selu(x):
    alpha = 1.6732632423543772848170429916717
    scale = 1.0507009873554804934193349852946
    return scale * elu(x, alpha)


@eager_jit(inline=False)
def leaky_relu(x, negative_slope=1e-2):
    # not promoted first: an integer input meets the Python slope and becomes weak, as in JAX
    check_arraylike("leaky_relu", x)
    x = to_array(x)
    # jnp's >= orders complex numbers lexicographically, as JAX's leaky_relu relies on
    return jnp.where(x >= 0, x, negative_slope * x)


@eager_jit(inline=False)
def mish(x):
    """``x * tanh(softplus(x))``."""
    check_arraylike("mish", x)
    x = to_array(x)
    return x * jnp.tanh(softplus(x))


@eager_jit(inline=False)
def hard_tanh(x):
    """``x`` clipped to [-1, 1], written with ``where`` as in JAX (derivative 1 at +-1)."""
    check_arraylike("hard_tanh", x)
    x = to_array(x)  # not promoted: an integer input gives integers, as in JAX
    return jnp.where(x > 1, 1, jnp.where(x < -1, -1, x))


@eager_jit(inline=False)
def hard_sigmoid(x):
    check_arraylike("hard_sigmoid", x)
    return relu6(to_array(x) + 3.0) / 6.0  # an integer input gives a weak float, as JAX's


@eager_jit(inline=False)
def hard_silu(x):
    check_arraylike("hard_silu", x)
    x = to_array(x)
    return x * hard_sigmoid(x)  # promoted as JAX's: an integer input gives a weak float


hard_swish = hard_silu


@eager_jit(inline=False)
def squareplus(x, b=4):
    """``(x + sqrt(x**2 + b)) / 2``: a smooth ReLU (arXiv:2112.11687)."""
    check_arraylike("squareplus", x, b)
    x, b = to_array(x), to_array(b)
    return (x + jnp.sqrt(jnp.square(x) + b)) / 2


@eager_jit(inline=False)
def identity(x):
    """``x`` unchanged (as an array): the identity activation."""
    check_arraylike("identity", x)
    return to_array(x)


@eager_jit(inline=False)
def sparse_plus(x):
    """0 for x <= -1, (x + 1)**2 / 4 between, x for x >= 1: a softplus with exact zeros."""
    check_arraylike("sparse_plus", x)
    x = to_array(x)
    return jnp.where(x <= -1.0, 0.0, jnp.where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


@eager_jit(inline=False)
def sparse_sigmoid(x):
    """(x + 1) / 2 clipped to [0, 1]: the derivative of ``sparse_plus``."""
    return 0.5 * jnp.clip(x + 1.0, 0.0, 2.0)


@eager_jit(static_argnames=("axis",), inline=False)
def glu(x, axis=-1):
    """Gated linear unit: the first half of ``axis`` times the sigmoid of the second half."""
    x = to_array(x)
    size = x.shape[axis]
    if size % 2:
        raise AssertionError("axis size must be divisible by 2")
    x1, x2 = jnp.split(x, 2, axis)
    return x1 * sigmoid(x2)


# ------------------------------------------------------------------------------------------------
# Normalizing functions


def _no_bool(name, x):
    # JAX computes ``x - max(x)`` before any promotion, and subtracting bools is refused.
    check_arraylike(name, x)
    if dtypes.dtype_of(x)[0] == np.bool_:
        raise TypeError("sub does not accept dtype bool at position 0. Accepted dtypes at "
                        "position 0 are subtypes of integer, floating, complexfloating.")
    return x


def _reduce_axes(x, axis):
    return canonicalize_axes(axis, x.ndim)


def _stable_shift(x, axes, where, initial=-np.inf):
    """The maximum over ``axes`` (keepdims): what softmax subtracts, under stop_gradient.

    No guard for a non-finite maximum (JAX has none either): a row whose maximum is +-inf gives
    NaN with or without one, and a select between the reduction and the subtraction keeps XLA
    from fusing the softmax into one kernel (measured on an H100: a GPT step 2% slower)."""
    # JAX's sequence: the max of x itself with ``initial`` (so a zero-size x gives an empty
    # softmax, and a host-memory x's max is in device memory, as JAX's); the callers stop its
    # gradient where they subtract it. Under grad this stages reduce_max's JVP (a tie count
    # nothing uses), as JAX's does.
    return jnp.max(x, axis=axes, keepdims=True, where=where, initial=initial)


def softmax(x, axis=-1, where=None):
    """``exp(x) / sum(exp(x))`` along ``axis``, shifted by the maximum for stability. Masked-out
    elements (``where`` False) are 0, and get no gradient, even in a row masked entirely."""
    # The shift is taken in x's own dtype, as JAX's: an unsigned x - max(x) wraps around, so
    # JAX's softmax of unsigned integers is NaN/0 (log_softmax -inf) unless a row is constant
    x = to_array(_no_bool("softmax", x))
    axes = _reduce_axes(x, axis)
    # Masked elements enter as -inf (JAX's ``initial``, no longer an argument in 0.10.2)
    # through a select, so whatever NaN an all-masked row
    # makes below (-inf - -inf) never reaches x's gradient: the select sends them zero.
    shift = _stable_shift(x, axes, where)  # before x_safe, as JAX's order of equations
    x_safe = x if where is None else jnp.where(where, x, -np.inf)
    unnormalized = jnp.exp(x_safe - lax.stop_gradient(shift))
    out = unnormalized / jnp.sum(unnormalized, axes, keepdims=True, where=where)
    return out if where is None else jnp.where(where, out, 0)


@eager_jit(static_argnames=("axis",), inline=False)
def log_softmax(x, axis=-1, where=None):
    """``x - logsumexp(x)`` along ``axis``; masked-out elements are ``-inf`` (see softmax)."""
    x = to_array(_no_bool("log_softmax", x))  # shifted in x's dtype, as softmax
    axes = _reduce_axes(x, axis)
    shift = _stable_shift(x, axes, where)
    x_safe = x if where is None else jnp.where(where, x, -np.inf)
    shifted = x_safe - lax.stop_gradient(shift)
    shifted_logsumexp = jnp.log(jnp.sum(jnp.exp(shifted), axes, keepdims=True, where=where))
    out = shifted - shifted_logsumexp
    return out if where is None else jnp.where(where, out, -np.inf)


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False, where=None):
    """``log(sum(b * exp(a)))`` along ``axis``, computed as ``max + log(sum(b * exp(a - max)))``.

    A max of ``+-inf`` is replaced by 0 before subtracting (so an all ``-inf`` row gives
    ``-inf``, not NaN). With ``b``, a negative sum gives NaN unless ``return_sign``.
    """
    check_arraylike("logsumexp", a)
    if where is not None:  # masked-out terms never reach the result or its derivatives
        a = jnp.where(where, a, 0)
    if b is not None:
        a, b = promote_args_inexact("logsumexp", a, b)
        a, b = to_array(a), to_array(b)
        # A zero weight drops its term entirely: 0 * exp(a) would still let an overflowing
        # a (or its higher derivatives) make NaN.
        a = jnp.where(b != 0, a, -np.inf)
    else:
        a = _inexact("logsumexp", a)
    # the names of vmap/shard_map axes too (JAX's): reduced by pmax and psum, no array axis
    pos_axes, axes = _reduction_dims(axis, a.ndim)
    amax = jnp.max(jnp.real(a), axis=axes, keepdims=keepdims, where=where, initial=-np.inf)
    amax = lax.stop_gradient(lax.select(jnp.isfinite(amax), amax, lax.full_like(amax, 0)))
    amax_with_dims = amax if keepdims else jnp.expand_dims(amax, pos_axes)
    # lax.sub, as JAX's: no promotion converts a weak ``a`` first, so its derivative is strong
    exp_a = jnp.exp(lax.sub(a, amax_with_dims.astype(a.dtype)))
    if b is not None:
        exp_a = exp_a * b
    sumexp = jnp.sum(exp_a, axis=axes, keepdims=keepdims, where=where)
    sign = jnp.sign(sumexp)
    if return_sign or not dtypes.is_complex(a.dtype):
        sumexp = jnp.abs(sumexp)
    out = jnp.log(sumexp) + amax.astype(sumexp.dtype)
    if return_sign:
        return out, sign
    if b is not None and not dtypes.is_complex(out.dtype):
        out = jnp.where(sign < 0, jnp.array(np.nan, dtype=out.dtype), out)
    return out


@eager_jit(static_argnames=("axis", "keepdims"), inline=False)
def logmeanexp(x, axis=None, where=None, keepdims=False):
    """``log(mean(exp(x)))`` along ``axis``: ``logsumexp`` minus the log of the count (of the
    ``where``-selected elements, if given)."""
    lse = logsumexp(x, axis=axis, where=where, keepdims=keepdims)
    if where is None:
        shape = np.shape(x)
        count = lax.convert_element_type(
            int(np.prod([shape[ax] for ax in canonicalize_axes(axis, len(shape))])), lse.dtype)
    else:
        count = jnp.sum(jnp.broadcast_to(where, np.shape(x)), axis, dtype=lse.dtype,
                        keepdims=keepdims)
    return lse - jnp.log(count)


def one_hot(x, num_classes, *, dtype=None, axis=-1):
    """``x[..., None] == arange(num_classes)`` as ``dtype`` (the default float: float64 under
    x64); the class axis goes at ``axis``, or is the mapped axis named ``axis``."""
    num_classes = operator.index(num_classes)
    x = to_array(x)
    dtype = dtypes.default_float_dtype() if dtype is None else dtype
    return _one_hot(x, num_classes, dtype=dtype, axis=axis)


@eager_jit(static_argnames=("num_classes", "dtype", "axis"), inline=False)
def _one_hot(x, num_classes, *, dtype, axis):
    if not isinstance(axis, (int, np.integer)):
        axis_size = lax.axis_size(axis)
        if num_classes != axis_size:
            raise ValueError(f"Expected num_classes to match the size of axis {axis}, "
                             f"but {num_classes} != {axis_size}")
        return (x == lax.axis_index(axis)).astype(dtype)
    out_ndim = x.ndim + 1
    axis = canonicalize_axes(axis, out_ndim)[0]
    lhs = lax.expand_dims(x, (axis,))
    rhs_shape = [1] * x.ndim
    rhs_shape.insert(axis, num_classes)
    rhs = lax.broadcasted_iota(x.dtype, tuple(rhs_shape), axis)
    return (lhs == rhs).astype(dtype)


@eager_jit(static_argnames=("axis", "algorithm"), inline=False)
def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None, *,
                algorithm="fast"):
    """``(x - mean) / sqrt(variance + epsilon)`` along ``axis`` (statistics computed if not
    given). ``algorithm="fast"`` computes the variance as ``E[x**2] - E[x]**2`` clipped at 0,
    ``"stable"`` as ``E[(x - mean)**2]``, like JAX. An integer ``x`` is squared in its own
    dtype (wrapping), as JAX does."""
    check_arraylike("standardize", x)
    x = to_array(x)
    axes = _reduce_axes(x, axis)
    if mean is None:
        mean = jnp.mean(x, axes, keepdims=True, where=where)
    if variance is None:
        if algorithm == "stable":
            variance = jnp.mean(jnp.square(x - mean), axes, keepdims=True, where=where)
        elif algorithm == "fast":
            variance = jnp.mean(jnp.square(x), axes, keepdims=True, where=where) - jnp.square(mean)
            # cancellation can make it negative, which rsqrt would turn into NaN
            variance = jnp.clip(variance, 0)
        else:
            raise ValueError(f"Unknown algorithm '{algorithm}'. Expected 'fast' or 'stable'.")
    return (x - mean) * lax.rsqrt(variance + epsilon)
