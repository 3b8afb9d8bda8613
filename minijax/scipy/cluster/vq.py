"""``jax.scipy.cluster.vq``: vector quantization against a code book."""

import operator

from minijax import numpy as jnp
from minijax.numpy._util import check_arraylike, promote_dtypes_inexact
from minijax.vmapping import vmap


def vq(obs, code_book, check_finite=True):
    """For each observation (row of ``obs``), the index of the nearest code (row of
    ``code_book``, Euclidean distance) and that distance. ``check_finite`` is ignored."""
    del check_finite  # no value-dependent checks under jit
    check_arraylike("scipy.cluster.vq.vq", obs, code_book)
    obs, code_book = promote_dtypes_inexact(jnp.asarray(obs), jnp.asarray(code_book))
    if obs.ndim != code_book.ndim:
        raise ValueError("Observation and code_book should have the same rank")
    if obs.ndim == 1:
        obs, code_book = obs[..., None], code_book[..., None]
    if obs.ndim != 2:
        raise ValueError("ndim different than 1 or 2 are not supported")
    dist = vmap(lambda ob: jnp.linalg.norm(ob[None] - code_book, axis=-1))(obs)
    code = jnp.argmin(dist, axis=-1)
    return code, vmap(operator.getitem)(dist, code)
