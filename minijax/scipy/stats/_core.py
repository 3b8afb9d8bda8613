"""Sample statistics: ``mode``, ``rankdata`` and ``sem`` (nan_policy as JAX: only 'propagate',
plus 'omit' for ``sem``)."""

import math
from functools import partial
from typing import NamedTuple

import numpy as np

from minijax import dtypes, lax
from minijax import numpy as jnp
from minijax.jitting import jit
from minijax.numpy._util import canonicalize_axis, check_arraylike, promote_args_inexact
from minijax.vmapping import vmap

_NAN_POLICIES = ("propagate", "omit", "raise")


def _check_nan_policy(nan_policy, name):
    if nan_policy not in _NAN_POLICIES:
        raise ValueError(f"Illegal nan_policy value {nan_policy!r}; expected one of "
                         "{'propagate', 'omit', 'raise'}")
    if nan_policy == "omit":
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError(f"Logic for `nan_policy` of {nan_policy} is not implemented")
    if nan_policy == "raise":
        # JAX 0.10.2 refuses it too, in these words
        raise NotImplementedError(
            f"In order to best JIT compile `{name}`, we cannot know whether `x` contains nans. "
            f"Please check if nans exist in `x` outside of the `{name}` function.")


class ModeResult(NamedTuple):
    mode: jnp.ndarray
    count: jnp.ndarray


def _mode_of_column(x):
    if x.size == 0:
        nan = jnp.array(np.nan, dtype=dtypes.default_float_dtype())
        return nan, jnp.array(0, dtype=dtypes.default_float_dtype())
    vals, counts = jnp.unique(x, return_counts=True, size=x.size)
    return vals[jnp.argmax(counts)], counts.max()


@partial(jit, static_argnames=("axis", "nan_policy", "keepdims"))
def mode(a, axis=0, nan_policy="propagate", keepdims=False):
    """The most frequent value along ``axis`` (the smallest on ties) and its count."""
    check_arraylike("mode", a)
    x = jnp.atleast_1d(a)
    _check_nan_policy(nan_policy, "mode")
    if axis is not None:
        axis = canonicalize_axis(axis, x.ndim)
    if keepdims:
        out_shape = tuple(1 if axis is None or i == axis else s for i, s in enumerate(x.shape))
    elif axis is None:
        out_shape = ()
    else:
        out_shape = tuple(s for i, s in enumerate(x.shape) if i != axis)
    if axis is None:
        x, axis = x.ravel(), 0
    x = jnp.moveaxis(x, axis, 0)
    x = x.reshape(x.shape[0], math.prod(x.shape[1:]))
    vals, counts = vmap(_mode_of_column, in_axes=1)(x)
    return ModeResult(vals.reshape(out_shape), counts.reshape(out_shape))


def _invert_permutation(i):
    return jnp.empty_like(i).at[i].set(jnp.arange(i.size, dtype=i.dtype))


def _ranks(a, method, out_dtype):
    arr, sorter = lax.sort_key_val(a, jnp.arange(a.size))
    inv = _invert_permutation(sorter)
    if method == "ordinal":
        return (inv + 1).astype(out_dtype)
    first_of_run = jnp.concatenate([jnp.array([True]), arr[1:] != arr[:-1]])
    dense = first_of_run.cumsum()[inv]
    if method == "dense":
        return dense.astype(out_dtype)
    # count[r] = how many elements lie in the first r runs of equal values.
    count = jnp.nonzero(first_of_run, size=arr.size + 1,
                        fill_value=first_of_run.size)[0].astype(out_dtype)
    if method == "max":
        return count[dense]
    if method == "min":
        return count[dense - 1] + 1
    return 0.5 * (count[dense] + count[dense - 1] + 1)


@partial(jit, static_argnames=("method", "axis", "nan_policy"))
def rankdata(a, method="average", *, axis=None, nan_policy="propagate"):
    """Ranks from 1, ties resolved by ``method``; all NaN if ``a`` holds a NaN."""
    check_arraylike("rankdata", a)
    _check_nan_policy(nan_policy, "rankdata")
    if method not in ("average", "min", "max", "dense", "ordinal"):
        raise ValueError(f"unknown method '{method}'")
    if axis is not None:
        return jnp.apply_along_axis(rankdata, axis, a, method)
    a = jnp.ravel(a)
    out_dtype = dtypes.default_float_dtype()
    return lax.cond(jnp.any(jnp.isnan(a)), lambda a: jnp.full_like(a, np.nan, out_dtype),
                    lambda a: _ranks(a, method, out_dtype), a)


# ddof is static here (JAX traces it) because minijax's jnp.std takes ddof statically.
@partial(jit, static_argnames=("axis", "ddof", "nan_policy", "keepdims"))
def sem(a, axis=0, ddof=1, nan_policy="propagate", *, keepdims=False):
    """The standard error of the mean: std(ddof) / sqrt(count) along ``axis``."""
    (b,) = promote_args_inexact("sem", a)
    b = jnp.asarray(b)
    if nan_policy == "propagate":
        size = b.size if axis is None else b.shape[axis]
        return b.std(axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(size).astype(b.dtype)
    if nan_policy == "omit":
        count = (~jnp.isnan(b)).sum(axis, keepdims=keepdims)
        return jnp.nanstd(b, axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(count).astype(b.dtype)
    raise ValueError(f"{nan_policy} is not supported")
