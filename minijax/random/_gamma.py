"""gamma, loggamma, beta, dirichlet: Marsaglia-Tsang rejection sampling in ``lax.while_loop``,
JAX's algorithm step for step, so the samples are JAX's.

Each element of ``a`` gets its own key (``split(key, a.size)``) and runs its own rejection loop;
the elements run together under ``vmap`` (one batched while loop). ``random_gamma`` is the
primitive, as JAX's ``random_gamma_p``: under vmap an unbatched key is copied across the batch.
A sample's derivative with respect to ``a`` is the implicit reparameterization gradient
(``random_gamma_grad``, from the regularized incomplete gamma function).
"""

from __future__ import annotations

import math

import numpy as np

from minijax import lax
from minijax import numpy as jnp
from minijax.core import Primitive, ShapedArray, get_aval
from minijax.interpreters import ad, batching
from minijax.interpreters.mlir import lower_traced
from minijax.numpy._eager import eager_jit
from minijax.lax.control_flow.common import vary_like
from minijax.random._distributions import (
    _as_array,
    _check_shape,
    _exponential,
    _float_dtype,
    _normal_real,
    _shape,
    _uniform,
)
from minijax.random._keys import (_THREEFRY, PRNGKeyArray, _carried, _data_of, _rewrap,
                                  _shape_tuple, _single, _split)
from minijax.source_info import with_user_line
from minijax.vmapping import vmap

__all__ = ["gamma", "loggamma", "beta", "dirichlet", "random_gamma_p"]


def _gamma_one(data, alpha, log_space):
    """One Gamma(alpha, 1) sample (or its log) from key data uint32[2]."""
    dtype = alpha.dtype
    c_ = lambda v: np.array(v, dtype)  # noqa: E731
    zero, one, minus_one = c_(0), c_(1), c_(-1)
    # alpha < 1: sample Gamma(alpha + 1) and scale by U**(1/alpha) (in log space if asked,
    # where tiny alpha would underflow).
    boost_mask = lax.ge(alpha, one)
    alpha_orig = alpha
    alpha = lax.select(boost_mask, alpha, lax.add(alpha, one))
    d = lax.sub(alpha, c_(1.0 / 3.0))
    c = lax.div(c_(1.0 / 3.0), lax.sqrt(d))

    def cond_fn(state):
        _, X, V, U = state
        # keep going while U rejects the candidate (squeeze test, then the log test)
        return lax.bitwise_and(
            lax.ge(U, lax.sub(one, lax.mul(c_(0.0331), lax.mul(X, X)))),
            lax.ge(lax.log(U), lax.add(lax.mul(X, c_(0.5)),
                                       lax.mul(d, lax.add(lax.sub(one, V), lax.log(V))))))

    def body_fn(state):
        def next_kxv(kxv):
            k = _split(kxv[0], (2,))
            x = _normal_real(k[1], (), dtype)
            return k[0], x, lax.add(one, lax.mul(x, c))

        keys = _split(state[0], (3,))
        _, x, v = lax.while_loop(lambda kxv: lax.le(kxv[2], zero), next_kxv,
                                 vary_like((keys[1], zero, minus_one), c))
        X = lax.mul(x, x)
        V = lax.mul(lax.mul(v, v), v)
        U = _uniform(keys[2], 0.0, 1.0, (), dtype)
        return keys[0], X, V, U

    keys = _split(data, (2,))
    # the initial state makes cond_fn true, so the body runs at least once
    _, _, V, _ = lax.while_loop(cond_fn, body_fn, vary_like((keys[0], zero, one, c_(2)), alpha))
    if log_space:
        log_samples = lax.neg(_exponential(keys[1], (), dtype))
        log_boost = lax.select(lax.bitwise_or(boost_mask, lax.eq(log_samples, zero)), zero,
                               lax.mul(log_samples, lax.div(one, alpha_orig)))
        return lax.add(lax.add(lax.log(d), lax.log(V)), log_boost)
    samples = lax.sub(one, _uniform(keys[1], 0.0, 1.0, (), dtype))
    boost = lax.select(boost_mask, one, lax.pow(samples, lax.div(one, alpha_orig)))
    return lax.mul(lax.mul(d, V), boost)


def _gamma_flat(data, a, *, log_space, impl):
    """JAX's ``_gamma_impl``: the keys of ``impl`` over ``data`` (batch shape ``a.shape[:k]``)
    are each split into ``prod(a.shape[k:])`` keys, and the flat vector of alphas is sampled
    at once."""
    if math.prod(a.shape) == 0:
        return jnp.zeros(a.shape, a.dtype)
    count = math.prod(a.shape[data.ndim - 1:])
    flat_shape = (-1, *impl.key_shape)
    keys = vmap(lambda k: _data_of(_split(_carried(k, impl), (count,))))(
        jnp.reshape(data, flat_shape))
    keys, alphas = jnp.reshape(keys, flat_shape), jnp.reshape(a, (-1,))
    if impl is _THREEFRY:
        samples = vmap(lambda k, al: _gamma_one(k, al, log_space))(keys, alphas)
    else:  # as JAX 0.10.2: other impls' keys sample one alpha at a time, in a lax.map
        samples = lax.map(lambda ka: _gamma_one(_carried(ka[0], impl), ka[1], log_space),
                          (keys, alphas))
    return jnp.reshape(samples, a.shape)


def _gamma_lowering(ctx, data, a, *, log_space, impl):
    return lower_traced(ctx.module_ctx,
                        lambda d, al: [_gamma_flat(d, al, log_space=log_space, impl=impl)],
                        ctx.avals_in, [data, a])[0]


def _gamma_grad(g, ans, data, a, *, log_space, impl):
    """The implicit reparameterization gradient d sample / d a (JAX's rule):
    ``random_gamma_grad(a, sample)``, divided by the sample in log space, one element at a time
    in a ``lax.map`` as JAX on CPU (so it rounds as JAX's)."""
    samples = jnp.reshape(ans, (-1,))
    if log_space:
        # d log(sample) = d sample / sample; exp(log_sample) may round to 0: use the tiniest
        samples = lax.exp(samples)
        samples = jnp.where(samples == 0, jnp.finfo(samples.dtype).tiny, samples)
        one_grad = lambda al, s: lax.div(lax.random_gamma_grad(al, s), s)  # noqa: E731
    else:
        one_grad = lax.random_gamma_grad
    grads = lax.map(lambda args: one_grad(*args), (jnp.reshape(a, (-1,)), samples))
    return lax.mul(g, jnp.reshape(grads, a.shape))


def _gamma_batching(args, dims, *, log_space, impl):
    """JAX's: key and alphas batched at the front, an unbatched key broadcast (every example
    splits the same key)."""
    size = batching.axis_size(args, dims)
    data, a = (batching.bdim_at_front(x, d, size) for x, d in zip(args, dims))
    return random_gamma_p.bind(data, a, log_space=log_space, impl=impl), 0


class _GammaPrimitive(Primitive):
    """JAX's public ``random.random_gamma_p`` binds typed keys (``key<fry>[...]``); here a key is
    its uint32 data underneath, so a typed key given to ``bind`` is unwrapped and its impl
    becomes the ``impl`` param (JAX's key type carries it; jaxprs do not show it). Raw data is
    of threefry2x32, as the samplers carry its keys."""

    def bind(self, key, a, **params):
        if isinstance(key, PRNGKeyArray):
            params.setdefault("impl", key._impl)
            key = key._data
        params.setdefault("impl", _THREEFRY)
        return super().bind(key, a, **params)


# JAX's random_gamma_p: keys of batch shape a.shape[:k] (k = 0 unless batched by vmap)
random_gamma_p = _GammaPrimitive("random_gamma")
random_gamma_p.def_abstract_eval(lambda data, a, **_: ShapedArray(a.shape, a.dtype))
random_gamma_p.def_lowering(_gamma_lowering)
random_gamma_p.pp_params = lambda p: {k: v for k, v in p.items() if k != "impl"}
random_gamma_p.def_batching(_gamma_batching)
ad.defjvp2(random_gamma_p, None, _gamma_grad)


def _match_key_vma(name, data, *args):
    """Inside ``shard_map``, as JAX's ``random_insert_pvary``: an argument varying over fewer
    manual axes than the key is cast to varying over the key's; one varying over axes the key
    does not is a TypeError (casting the key would reuse it on every device)."""
    key_vma = get_aval(_data_of(data)).vma
    out = []
    for a in args:
        missing = key_vma - get_aval(a).vma
        if missing:
            a = lax.pcast(a, tuple(sorted(missing, key=str)), to="varying")
        aval = get_aval(a)
        if aval.vma != key_vma:
            key_type = f"{_rewrap(data, True).dtype}[]" + ("{V:" + ",".join(sorted(map(str, key_vma))) + "}"
                                       if key_vma else "")
            arg_type = (f"{aval.dtype.name}[{','.join(map(str, aval.shape))}]"
                        "{V:" + ",".join(sorted(map(str, aval.vma))) + "}")
            raise TypeError(with_user_line(
                f"{name} requires all arguments to have matching type. Got key type: {key_type}"
                f" vs arg type: {arg_type}. Use jax.lax.pcast(..., to='varying') to make them "
                "match. If your key is less varying than arg, watch out for key-reuse problems."))
        out.append(a)
    return out


# gamma, loggamma, beta and dirichlet run their bodies in a jit named as JAX's (``_gamma``,
# ``_beta``, ``_dirichlet``), the shape parameter passed in as an argument: XLA then keeps a
# constant alpha out of the sampling loop as in JAX's program, so the samples round as JAX's.
@eager_jit(static_argnames=("shape", "dtype", "log_space"), inline=False)
def _gamma(data, a, shape, dtype, log_space=False):
    if shape is None:
        shape = tuple(_shape(a))
    else:
        _check_shape("gamma", shape, _shape(a))
    a = lax.convert_element_type(a, dtype)
    if a.shape != shape:
        a = jnp.broadcast_to(a, shape)
    (a,) = _match_key_vma("gamma", data, a)
    return random_gamma_p.bind(data, a, log_space=log_space)


def gamma(key, a, shape=None, dtype=None):
    """Gamma(a, 1) samples (Marsaglia-Tsang), one per element of ``shape``."""
    data, _ = _single("gamma", key)
    dtype = _float_dtype("gamma", dtype)
    shape = None if shape is None else _shape_tuple("gamma", shape)
    return _gamma(data, _as_array(a), shape, dtype)


def loggamma(key, a, shape=None, dtype=None):
    """log of Gamma(a, 1) samples, accurate for tiny ``a`` (where the samples underflow)."""
    data, _ = _single("loggamma", key)
    dtype = _float_dtype("gamma", dtype)  # JAX names gamma in loggamma's error
    shape = None if shape is None else _shape_tuple("loggamma", shape)
    return _gamma(data, _as_array(a), shape, dtype, log_space=True)


@eager_jit(static_argnames=("shape", "dtype"), inline=False)
def _beta(data, a, b, shape, dtype):
    a, b = _match_key_vma("jax.random.beta", data, a, b)
    a, b = (lax.convert_element_type(x, dtype) for x in (a, b))
    key_a, key_b = (_rewrap(k, True) for k in _split(data, (2,)))
    a, b = jnp.broadcast_to(a, shape), jnp.broadcast_to(b, shape)
    log_ga = loggamma(key_a, a, shape, dtype)
    log_gb = loggamma(key_b, b, shape, dtype)
    # Ga / (Ga + Gb) without overflow or underflow: scale both by the larger one
    log_max = lax.max(log_ga, log_gb)
    ga = jnp.exp(log_ga - log_max)
    gb = jnp.exp(log_gb - log_max)
    return ga / (ga + gb)


def beta(key, a, b, shape=None, dtype=None):
    """Beta(a, b) samples, as Ga / (Ga + Gb) computed from log-gamma samples."""
    data, _ = _single("beta", key)
    dtype = _float_dtype("beta", dtype)
    if shape is None:
        shape = tuple(np.broadcast_shapes(_shape(a), _shape(b)))
    else:
        shape = _shape_tuple("beta", shape)
        _check_shape("beta", shape, _shape(a), _shape(b))
    return _beta(data, _as_array(a), _as_array(b), shape, dtype)


@eager_jit(static_argnames=("shape", "dtype"), inline=False)
def _dirichlet(data, alpha, shape, dtype):
    alpha = lax.convert_element_type(alpha, dtype)
    log_g = loggamma(_rewrap(data, True), alpha, shape + alpha.shape[-1:], dtype)
    unnormalized = jnp.exp(log_g - lax.stop_gradient(jnp.max(log_g, axis=-1, keepdims=True)))
    return unnormalized / jnp.sum(unnormalized, axis=-1, keepdims=True)


def dirichlet(key, alpha, shape=None, dtype=None):
    """Dirichlet(alpha) samples over alpha's last axis: normalized gamma samples (in log space,
    so small alphas behave)."""
    data, _ = _single("dirichlet", key)
    dtype = _float_dtype("dirichlet", dtype)
    alpha_shape = tuple(_shape(alpha))
    if len(alpha_shape) < 1:
        raise ValueError(f"dirichlet requires alpha.ndim >= 1, got alpha.ndim == "
                         f"{len(alpha_shape)}")
    if shape is None:
        shape = alpha_shape[:-1]
    else:
        shape = _shape_tuple("dirichlet", shape)
        _check_shape("dirichlet", shape, alpha_shape[:-1])
    return _dirichlet(data, _as_array(alpha), shape, dtype)
