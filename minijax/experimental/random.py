"""``minijax.experimental.random`` (``jax.experimental.random``): JAX 0.10.2's stateful PRNG,
``stateful_rng(seed)``, whose draws update a counter held in a ``Ref`` (key ``i`` is the base
key folded with ``i``), as ``numpy.random.default_rng`` does implicitly."""

from __future__ import annotations

import dataclasses
import operator

import numpy as np

from minijax import core, dtypes, random
from minijax import numpy as jnp
from minijax.lowering.array import BaseArray
from minijax.refs import Ref, new_ref
from minijax.tree_util import register_dataclass
from minijax.vmapping import SENTINEL

__all__ = ["StatefulPRNG", "stateful_rng"]


def _canonicalize_size(size, *args):
    if size is None:
        return np.broadcast_shapes(*(np.shape(arg) for arg in args))
    if isinstance(size, (int, np.number)):
        return (operator.index(size),)
    return tuple(map(operator.index, size))


@register_dataclass
@dataclasses.dataclass(frozen=True, slots=True)
class StatefulPRNG:
    """A stateful generator: a typed base key and a counter Ref (see :func:`stateful_rng`)."""

    _base_key: BaseArray
    _counter: Ref

    def __post_init__(self):
        # vmap's in_axes matching builds a placeholder tree (JAX checks its base key for the
        # sentinel; here a key is a node over its data, so the counter, a leaf, is checked)
        if self._counter is SENTINEL:
            return
        if not (isinstance(self._base_key, BaseArray)
                and dtypes.issubdtype(self._base_key.dtype, dtypes.prng_key)):
            raise ValueError(f"Expected base_key to be a typed PRNG key; got {self._base_key}")
        if not isinstance(self._counter, (Ref, core.Tracer)):
            raise ValueError(f"Expected counter to be a scalar integer ref; got {self._counter}")

    def key(self, shape=()):
        """A new key (or keys of ``shape``) of the base key's impl; advances the counter."""
        if self._base_key.shape:
            raise ValueError("cannot operate on split stateful generator")
        key = random.fold_in(self._base_key, self._counter[...])
        self._counter[...] += 1
        shape = _canonicalize_size(shape)
        return random.split(key, shape) if shape else key

    def random(self, size=None, dtype=float):
        """Floats in [0, 1)."""
        return random.uniform(self.key(), shape=_canonicalize_size(size), dtype=dtype)

    def uniform(self, low=0, high=1, size=None, *, dtype=float):
        return random.uniform(self.key(), _canonicalize_size(size, low, high), minval=low,
                              maxval=high, dtype=dtype)

    def normal(self, loc=0, scale=1, size=None, *, dtype=float):
        norm = random.normal(self.key(), _canonicalize_size(size, loc, scale), dtype)
        return (jnp.asarray(loc) + jnp.asarray(scale) * norm).astype(dtype)

    def integers(self, low, high=None, size=None, *, dtype=int):
        if high is None:
            low, high = 0, low
        return random.randint(self.key(), _canonicalize_size(size, low, high), minval=low,
                              maxval=high, dtype=dtype)

    def split(self, num):
        """One generator over ``num`` keys and counters, for ``vmap``."""
        return StatefulPRNG(self.key(num), new_ref(jnp.zeros(num, dtype=int)))

    def spawn(self, n_children):
        """A list of ``n_children`` independent generators."""
        return [self.__class__(key, new_ref(0)) for key in self.key(n_children)]


def stateful_rng(seed=None, *, impl=None):
    """A :class:`StatefulPRNG` seeded with ``seed`` (NumPy's entropy when None, at top level)."""
    if seed is None:
        if not core.is_eval_trace_current():
            raise TypeError(
                "When used within transformed code, jax.experimental.random.stateful_rng()"
                " requires an explicit seed to be set.")
        seed = np.int64(np.random.SeedSequence().entropy & np.iinfo(np.int64).max)
    return StatefulPRNG(random.key(seed, impl=impl), new_ref(0))
