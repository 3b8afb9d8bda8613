"""PRNG keys: seeding, typed key arrays, split, fold_in and raw bits (JAX's threefry impl).

Two key forms are accepted everywhere, as in JAX:

- *raw* keys, ``PRNGKey(seed)``: a ``uint32[..., 2]`` array (the legacy form);
- *typed* keys, ``key(seed)``: a ``PRNGKeyArray`` whose ``shape`` excludes the trailing 2.

``PRNGKeyArray`` is a pytree leaf for users (``tree.leaves``, ``tree.map``), as JAX's key arrays
are, but a node over its uint32 key data in the internal pytree registry, so ``jit``, ``vmap``,
``grad``, ``scan`` ... trace that data and hand keys back. It is not a new dtype of the core
(JAX's ``key<fry>`` extended dtype is): jnp functions do not accept it; unwrap with ``key_data``.
Functions return keys in the form they were given.

Bits follow ``jax_threefry_partitionable=True`` (JAX's default): element ``i`` (row-major) of
a ``shape`` request is threefry of the counter ``(hi(i), lo(i))`` under the key.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from minijax import dtypes, lax
from minijax import numpy as jnp
from minijax.config import config
from minijax.core import Tracer, get_aval
from minijax.lowering.array import BaseArray
from minijax.numpy._eager import eager_jit
from minijax.random._threefry import iota_2x32_shape, threefry2x32_p, threefry_2x32
from minijax.tree_util import _registry

__all__ = ["PRNGKey", "key", "key_data", "wrap_key_data", "key_impl", "key_dtype", "split",
           "fold_in", "bits", "clone", "PRNGKeyArray"]

_U32 = np.dtype(np.uint32)
_UINT_DTYPES = {8: np.dtype(np.uint8), 16: np.dtype(np.uint16), 32: _U32,
                64: np.dtype(np.uint64)}


class KeyDtype(dtypes.ExtendedDType):
    """JAX's ``key<fry>`` dtype: in reprs, ``dtype`` checks and
    ``jnp.issubdtype(k.dtype, dtypes.prng_key)``."""

    name = "key<fry>"
    type = dtypes.prng_key

    def __repr__(self):
        return self.name

    def __eq__(self, other):
        return isinstance(other, KeyDtype)

    def __hash__(self):
        return hash(self.name)


_KEY_DTYPE = KeyDtype()


class PRNGKeyArray(BaseArray):
    """A typed array of threefry keys: ``key_data(k)`` has shape ``k.shape + (2,)``. Like JAX's,
    it is a ``minijax.Array`` (``isinstance(k, jax.Array)``: flax.nnx checks its keys so)."""

    __slots__ = ("_data",)

    def __init__(self, data):
        self._data = data  # unchecked: pytree unflattening passes arbitrary leaves

    shape = property(lambda self: tuple(get_aval(self._data).shape[:-1]))
    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))
    dtype = property(lambda self: _KEY_DTYPE)

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized key array")
        return self.shape[0]

    def __getitem__(self, idx):
        if not isinstance(idx, tuple):
            idx = (idx,)
        if any(i is Ellipsis for i in idx):
            raise IndexError("Ellipsis indexing of key arrays is not supported; use key_data")
        if len(idx) > self.ndim:
            raise IndexError(f"too many indices for key array of shape {self.shape}")
        return PRNGKeyArray(self._data[idx])

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def reshape(self, *shape):
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        return PRNGKeyArray(jnp.reshape(self._data, tuple(shape) + (2,)))

    def __eq__(self, other):
        return _keys_equal(self, other)

    def __ne__(self, other):
        return lax.bitwise_not(_keys_equal(self, other))

    __hash__ = None  # an array: unhashable, as JAX's keys

    def __repr__(self):
        if isinstance(self._data, Tracer):
            return f"PRNGKeyArray(shape={self.shape}, dtype=key<fry>, traced)"
        if isinstance(self._data, str):  # a type string: transformations' error messages
            return f"PRNGKeyArray({self._data})"
        return f"Array({self.shape}, dtype=key<fry>) overlaying:\n{np.asarray(self._data)}"

    # As JAX: str() is the repr, and format() takes no format spec.
    __str__ = __repr__
    __format__ = object.__format__


_registry.register_node(
    PRNGKeyArray, lambda k: ((k._data,), None), lambda _, leaves: PRNGKeyArray(leaves[0])
)


def _keys_equal(a, b):
    """Elementwise equality of two typed key arrays (broadcast by their key shapes)."""
    if not isinstance(b, PRNGKeyArray):
        raise TypeError(f"equal does not accept dtypes key<fry>, {get_aval(b).dtype}.")
    return jnp.all(jnp.equal(a._data, b._data), axis=-1)


def _is_raw_key_aval(aval):
    return aval.dtype == _U32 and aval.ndim >= 1 and aval.shape[-1] == 2


def _unwrap(name, key):
    """(key data uint32[..., 2], whether ``key`` was typed), or a TypeError naming ``name``."""
    if isinstance(key, PRNGKeyArray):
        return key._data, True
    try:
        aval = get_aval(key)
    except TypeError:
        aval = None
    if aval is None or not _is_raw_key_aval(aval):
        got = aval.str_short() if aval is not None else type(key).__name__
        raise TypeError(
            f"{name} requires a PRNG key: a typed key from random.key(seed) or a raw key "
            f"uint32[..., 2] from random.PRNGKey(seed); got {got}."
        )
    return key, False


def _single(name, key):
    """The data uint32[2] of a single key (batches of keys go through vmap, as in JAX)."""
    data, typed = _unwrap(name, key)
    shape = get_aval(data).shape[:-1]
    if shape:
        raise TypeError(
            f"{name} accepts a single key, but was given a key array of shape {shape} != (). "
            "Use minijax.vmap for batching."
        )
    return data, typed


def _rewrap(data, typed):
    return PRNGKeyArray(data) if typed else data


# ------------------------------------------------------------------------------------------------
# Seeding


def _seed_array(seed):
    if isinstance(seed, (bool, np.bool_)):
        raise TypeError(f"PRNG key seed must be an integer; got {seed!r}")
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, Tracer):
        # JAX: Python ints go through int64 (an OverflowError beyond it), then, with x64 off,
        # the int32 canonicalization keeps the low 32 bits.
        s = np.asarray(np.int64(int(seed)))
        return s if config.jax_enable_x64 else s.astype(np.int32)
    aval = get_aval(seed)
    if aval.shape:
        raise TypeError(f"PRNG key seed must be a scalar; got shape {aval.shape}.")
    if not dtypes.issubdtype(aval.dtype, np.integer):
        raise TypeError(f"PRNG key seed must be an integer; got {aval.str_short()}")
    return seed


@eager_jit
def _threefry_seed(seed):
    """uint32[2] (hi, lo) words of an integer seed; lo is two's complement for negatives."""
    dtype = get_aval(seed).dtype
    if dtype.itemsize > 4:
        hi = lax.shift_right_logical(seed, np.asarray(32, dtype))
        lo = lax.bitwise_and(seed, np.asarray(0xFFFFFFFF, dtype))
    else:
        hi, lo = lax.full((), 0, dtype), seed
    words = [lax.expand_dims(lax.convert_element_type(w, _U32), [0]) for w in (hi, lo)]
    return lax.concatenate(words, 0)


def PRNGKey(seed, *, impl=None):  # noqa: N802 (JAX's name)
    """A raw threefry key ``uint32[2]`` from an integer seed (JAX's legacy key form)."""
    _check_impl(impl)
    return _threefry_seed(_seed_array(seed))


def key(seed, *, impl=None):
    """A typed threefry key (shape ``()``) from an integer seed."""
    return PRNGKeyArray(PRNGKey(seed, impl=impl))


def _check_impl(impl):
    if impl not in (None, "threefry2x32", "threefry"):
        raise ValueError(f"unsupported PRNG implementation {impl!r}: minijax has threefry2x32")


def key_data(keys):
    """The uint32 data of typed keys (``keys.shape + (2,)``); raw keys are returned as is."""
    data, _ = _unwrap("key_data", keys)
    return data


def wrap_key_data(key_bits_array, *, impl=None):
    """Typed keys over ``uint32[..., 2]`` data (the inverse of ``key_data``)."""
    _check_impl(impl)
    if isinstance(key_bits_array, PRNGKeyArray):
        raise TypeError("wrap_key_data expects uint32 key data, got a typed key array")
    data = key_bits_array if isinstance(key_bits_array, Tracer) else jnp.asarray(key_bits_array)
    aval = get_aval(data)
    if not _is_raw_key_aval(aval):
        raise TypeError(f"wrap_key_data expects uint32[..., 2] key data, got {aval.str_short()}")
    return PRNGKeyArray(data)


def key_impl(keys):
    _unwrap("key_impl", keys)
    return "threefry2x32"


def key_dtype(impl_spec=None):
    """The dtype of typed keys of ``impl_spec`` (threefry2x32, minijax's only one)."""
    _check_impl(impl_spec)
    return _KEY_DTYPE


def clone(key):
    return key


# ------------------------------------------------------------------------------------------------
# split, fold_in, bits


def _shape_tuple(name, shape):
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    try:
        shape = tuple(operator.index(d) for d in shape)
    except TypeError:
        raise TypeError(f"{name}: shape must be a sequence of integers, got {shape!r}") from None
    if any(d < 0 for d in shape):
        raise ValueError(f"{name}: shape must have nonnegative dimensions, got {shape}")
    return shape


@eager_jit(static_argnames=("shape",))
def _split(data, shape):
    counts_hi, counts_lo = iota_2x32_shape(shape)
    b1, b2 = threefry2x32_p.bind(data[0], data[1], counts_hi, counts_lo)
    return jnp.stack([b1, b2], axis=len(shape))


def split(key, num=2):
    """``num`` new keys from ``key`` (``num`` may be a shape): shape ``(num, 2)`` raw keys or
    ``(num,)`` typed keys."""
    data, typed = _single("split", key)
    shape = _shape_tuple("split", num)
    return _rewrap(_split(data, shape), typed)


@eager_jit
def _fold_in(data, d):
    return threefry_2x32((data[0], data[1]), _threefry_seed(d))


def fold_in(key, data):
    """A new key from ``key`` and the integer ``data`` (its low 32 bits, as JAX)."""
    kdata, typed = _single("fold_in", key)
    if jnp.ndim(data):
        raise TypeError("fold_in accepts a scalar, but was given an array of"
                        f"shape {jnp.shape(data)} != (). Use jax.vmap for batching.")
    # JAX's jnp.asarray(data, dtype='uint32'): a Python int out of uint32's range (-1) is
    # NumPy's OverflowError; arrays of any dtype convert as convert_element_type does
    return _rewrap(_fold_in(kdata, jnp.asarray(data, dtype=_U32)), typed)


@eager_jit(static_argnames=("bit_width", "shape"))
def random_bits(data, bit_width, shape):
    """Raw bits from key data uint32[2]: JAX's ``_threefry_random_bits_partitionable``."""
    if math.prod(shape) > 2**64:
        # JAX 0.10.2 raises the same: the 64-bit counters would repeat
        raise NotImplementedError("random bits array of size exceeding 2 ** 64")
    hi, lo = iota_2x32_shape(shape)
    b1, b2 = threefry2x32_p.bind(data[0], data[1], hi, lo)
    dtype = _UINT_DTYPES[bit_width]
    if bit_width == 64:
        b1, b2 = (lax.convert_element_type(b, dtype) for b in (b1, b2))
        return lax.bitwise_or(lax.shift_left(b1, np.asarray(32, dtype)), b2)
    out = lax.bitwise_xor(b1, b2)
    return out if bit_width == 32 else lax.convert_element_type(out, dtype)


def bits(key, shape=(), dtype=None):
    """Uniform random bits of an unsigned integer ``dtype`` (default uint32)."""
    data, _ = _single("bits", key)
    dtype = _U32 if dtype is None else np.dtype(dtype)
    if dtype.kind != "u":
        raise ValueError(f"dtype argument to `bits` must be an unsigned int dtype, got {dtype}")
    if dtype.itemsize == 8 and not config.jax_enable_x64:
        raise TypeError("bits with dtype uint64 requires jax_enable_x64")
    return random_bits(data, dtype.itemsize * 8, _shape_tuple("bits", shape))

