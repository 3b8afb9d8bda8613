"""PRNG keys: seeding, typed key arrays, split, fold_in and raw bits, for each of JAX 0.10.2's
PRNG implementations (``threefry2x32``, the default, ``threefry4x32``, ``philox2x32``,
``philox4x32``, ``rbg``, ``unsafe_rbg``; ``jax_default_prng_impl`` picks the default).

Two key forms are accepted everywhere, as in JAX:

- *raw* keys, ``PRNGKey(seed)``: a ``uint32[..., *key_shape]`` array of the default impl
  (``uint32[..., 2]`` for threefry2x32; the legacy form);
- *typed* keys, ``key(seed)``: a ``PRNGKeyArray`` whose ``shape`` excludes the key words.

Inside the samplers a key is its data (``uint32[2]``) for threefry2x32, so the default path
carries plain arrays, and a ``PRNGKeyArray`` for the other impls; ``_split``, ``_fold_in``
and ``random_bits`` take either and run the key's impl.

``PRNGKeyArray`` is a pytree leaf for users (``tree.leaves``, ``tree.map``), as JAX's key arrays
are, but a node over its uint32 key data in the internal pytree registry, so ``jit``, ``vmap``,
``grad``, ``scan`` ... trace that data and hand keys back. It is not a new dtype of the core
(JAX's ``key<fry>`` extended dtype is): the lax and jnp functions JAX 0.10.2 runs on keys run
on each key word's plane (``lax.extended.on_planes``): the structural lax functions (reshape,
slice, concatenate, select_n, eq, ...) look for keys themselves, the jnp ones (take, reshape,
stack, where, pad's moving modes, isin ...) are wrapped by ``numpy._util.on_extended_arrays``;
``keys.at[]``'s get/set run jnp's indexing on the planes. The others, and the operators, refuse
keys in JAX's words (``_refusal``). Functions return keys in the form they were given.

Bits follow ``jax_threefry_partitionable=True`` (JAX's default): element ``i`` (row-major) of
a ``shape`` request is threefry of the counter ``(hi(i), lo(i))`` under the key.
"""

from __future__ import annotations

import functools
import math
import operator
import warnings

import numpy as np

from minijax import dtypes, lax
from minijax import numpy as jnp
from minijax.config import config
from minijax.core import ShapedArray, Tracer, get_aval
from minijax.lowering.array import Array, BaseArray, Shard, named_results
from minijax.numpy import indexing as jnp_indexing
from minijax.numpy._eager import eager_jit
from minijax.numpy._util import canonicalize_axis
from minijax.numpy.array_methods import _METHODS
from minijax.numpy.manipulation import _resolve_shape
from minijax.lax.extended import extended_array_types
from minijax.lax.rng import rng_bit_generator
from minijax.lax.sharding_constraint import lay_out
from minijax.random._philox import philox2x32_p, philox4x32_p
from minijax.random._threefry import (iota_2x32_shape, threefry2x32_p, threefry4x32_p,
                                      threefry_2x32)
from minijax.sharding_types import NamedSharding, PartitionSpec
from minijax.tree_util import _registry

__all__ = ["PRNGKey", "key", "key_data", "wrap_key_data", "key_impl", "key_dtype", "split",
           "fold_in", "bits", "clone", "PRNGKeyArray"]

_U32 = np.dtype(np.uint32)
_UINT_DTYPES = {8: np.dtype(np.uint8), 16: np.dtype(np.uint16), 32: _U32,
                64: np.dtype(np.uint64)}


class KeyDtype(dtypes.ExtendedDType):
    """JAX's ``key<fry>`` (``key<phx4>``, ``key<rbg>`` ...) dtype of an impl's typed keys: in
    reprs, ``dtype`` checks and ``jnp.issubdtype(k.dtype, dtypes.prng_key)``."""

    type = dtypes.prng_key

    def __init__(self, impl):
        self._impl = impl
        self.name = f"key<{impl.tag}>"
        self.itemsize = 4 * math.prod(impl.key_shape)  # its uint32 words' bytes, as JAX's

    def __repr__(self):
        return self.name

    def __eq__(self, other):
        return isinstance(other, KeyDtype) and other._impl is self._impl

    def __hash__(self):
        return hash(self.name)

    def _full(self, shape, fill_value, sharding):
        """``lax.full`` of keys (JAX's extended dtype ``full`` rule): each key's words are the
        integer ``fill_value`` (NumPy's cast to uint32), or the key ``fill_value``'s."""
        if not isinstance(fill_value, PRNGKeyArray):
            words = [fill_value] * self._impl.key_shape[0]
        elif fill_value.dtype == self:
            words = fill_value._planes()
        else:
            raise TypeError(f"lax.full requires fill_value of dtype {self}, got "
                            f"{fill_value.dtype}.")
        keys = PRNGKeyArray(None, self._impl)
        return keys._from_planes([lax.full(shape, w, _U32, sharding=sharding) for w in words])


class PRNGImpl:
    """One PRNG implementation: its key data's trailing ``key_shape`` and the functions on
    single keys' data (``seed(int array)``, ``split(data, shape)``, ``fold_in(data, uint32)``,
    ``random_bits(data, bit_width, shape)``), as JAX's ``prng.PRNGImpl``."""

    def __init__(self, name, tag, key_shape, seed, split, fold_in, random_bits):
        self.name, self.tag, self.key_shape = name, tag, key_shape
        self.seed, self.split, self.fold_in, self.random_bits = seed, split, fold_in, random_bits
        self.dtype = KeyDtype(self)

    def __repr__(self):  # JAX's lists its functions too (by address: no two runs agree)
        return f"PRNGImpl(key_shape={self.key_shape}, name={self.name!r}, tag={self.tag!r})"

    def __str__(self):
        return self.tag


class PRNGKeyArray(BaseArray):
    """A typed array of keys of one impl: ``key_data(k)`` has shape ``k.shape + key_shape``.
    Like JAX's, it is a ``minijax.Array`` (``isinstance(k, jax.Array)``: flax.nnx checks its
    keys so). The buffer and placement API is its key data's (JAX's forwards to its
    ``_base_array`` so), its sharding and aval dropping the trailing key dimensions; shape
    methods run the jnp op on the data with those dimensions kept last."""

    __slots__ = ("_data", "_impl")

    def __init__(self, data, impl=None):
        self._data = data  # unchecked: pytree unflattening passes arbitrary leaves
        self._impl = _THREEFRY if impl is None else impl

    shape = property(lambda self: tuple(get_aval(self._data).shape[:-1]))
    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))
    dtype = property(lambda self: self._impl.dtype)

    @property
    def aval(self):
        """``key<fry>[4]``: the data's type less its key dimensions (``key<fry>[4@x]`` split
        over Explicit mesh axes)."""
        data = get_aval(self._data)
        explicit = data.explicit and (data.explicit[0], data.explicit[1][:self.ndim])
        return ShapedArray(self.shape, self.dtype, vma=data.vma, memory_space=data.memory_space,
                           explicit=explicit if explicit and any(explicit[1]) else None)

    # BaseArray's itemsize and nbytes read the aval; JAX's key arrays have no weak_type nor
    # format (an AttributeError, as a missing attribute's).
    weak_type = property(lambda self: _no_attribute(self, "weak_type"))
    format = property(lambda self: _no_attribute(self, "format"))

    # --- the key data's buffer and placement ---------------------------------------------
    device = property(lambda self: self._data.device)  # the data's sharding when several
    is_fully_addressable = property(lambda self: self._data.is_fully_addressable)
    is_fully_replicated = property(lambda self: self._data.is_fully_replicated)
    committed = property(lambda self: self._data.committed)

    def devices(self):
        return self._data.devices()

    def delete(self):
        self._data.delete()

    def is_deleted(self):
        return self._data.is_deleted()

    def on_device_size_in_bytes(self):
        return self._data.on_device_size_in_bytes()

    def unsafe_buffer_pointer(self):
        return self._data.unsafe_buffer_pointer()

    def copy_to_host_async(self):
        self._data.copy_to_host_async()

    def block_until_ready(self):
        self._data.block_until_ready()
        return self  # JAX's returns the keys

    def copy(self):
        return PRNGKeyArray(self._data.copy(), self._impl)

    @property
    def sharding(self):
        """The data's sharding without the key dimensions (always replicated): on a mesh, its
        spec (padded to the data's rank) less the trailing entries, as JAX's
        ``logical_sharding``; one device's is the data's."""
        sharding = self._data.sharding
        if not isinstance(sharding, NamedSharding):
            return sharding
        spec = tuple(sharding.spec) + (None,) * (get_aval(self._data).ndim - len(sharding.spec))
        return sharding.update(spec=PartitionSpec(*spec[:self.ndim]))

    @property
    def addressable_shards(self):
        """The data's shards (their ``index`` the data's, as JAX's), each holding keys."""
        return [Shard(s.device, s.index, s.replica_id, PRNGKeyArray(s.data, self._impl))
                for s in self._data.addressable_shards]

    global_shards = addressable_shards

    def addressable_data(self, i):
        return PRNGKeyArray(self._data.addressable_data(i), self._impl)

    def __array__(self, dtype=None, copy=None):
        raise TypeError("JAX array with PRNGKey dtype cannot be converted to a NumPy array. Use "
                        "jax.random.key_data(arr) if you wish to extract the underlying integer "
                        "array.")

    def __bool__(self):
        raise TypeError("key array cannot be converted to boolean.")

    # --- shape ---------------------------------------------------------------------------
    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __getitem__(self, idx):
        if not isinstance(idx, tuple):
            idx = (idx,)
        indexed = sum(i is not None and i is not Ellipsis for i in idx)
        if indexed > self.ndim:
            raise IndexError(f"Too many indices: array is {self.ndim}-dimensional, but "
                             f"{indexed} were indexed")
        # full slices of the key dimensions after the user's indices (an Ellipsis among them
        # then spans the keys' own dimensions only)
        return self._keys(self._data[idx + (slice(None),) * len(self._impl.key_shape)])

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d key array")
        return (self[i] for i in range(len(self)))

    def _keys(self, data):
        return PRNGKeyArray(data, self._impl)

    # The jnp structural functions' view of the keys (numpy._util.on_extended_arrays): one
    # uint32 array of the keys' shape per key word, and keys back from such planes.
    def _planes(self):
        return [self._data[..., j] for j in range(self._impl.key_shape[0])]

    def _from_planes(self, planes):
        return self._keys(jnp.stack(planes, axis=-1))

    def reshape(self, *shape):
        new = _resolve_shape(self.shape, shape[0] if len(shape) == 1 else shape)  # jnp's
        return self._keys(jnp.reshape(self._data, new + self._impl.key_shape))

    def ravel(self):
        return self.reshape(-1)

    flatten = ravel

    def transpose(self, *axes):
        axes = axes[0] if len(axes) == 1 and not hasattr(axes[0], "__index__") else axes
        if not axes:  # () or None: reversed
            perm = tuple(range(self.ndim))[::-1]
        else:
            perm = tuple(canonicalize_axis(ax, self.ndim) for ax in axes)
        key_axes = range(self.ndim, get_aval(self._data).ndim)
        return self._keys(jnp.transpose(self._data, (*perm, *key_axes)))

    T = property(transpose)

    def swapaxes(self, axis1, axis2):
        # jnp.swapaxes's NumPy swap (its IndexError for a bad axis), over the keys' axes
        perm = np.arange(self.ndim)
        perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
        return self.transpose(perm.tolist())

    def squeeze(self, axis=None):
        if axis is None:  # the keys' size-1 axes (never a key dimension: philox2x32's is 1)
            axis = tuple(i for i, d in enumerate(self.shape) if d == 1)
        else:
            axis = tuple(canonicalize_axis(ax, self.ndim) for ax in np.atleast_1d(axis))
            if any(self.shape[ax] != 1 for ax in axis):  # jnp.squeeze's words, the keys' shape
                raise ValueError(
                    "cannot select an axis to squeeze out which has size not equal to one, got "
                    f"shape={self.shape} and dimensions={axis}")
        return self._keys(jnp.squeeze(self._data, axis))

    def take(self, indices, axis=None, **kwargs):
        keys, axis = (self.ravel(), 0) if axis is None else (self, axis)
        return self._keys(jnp.take(keys._data, indices, canonicalize_axis(axis, keys.ndim),
                                   **kwargs))

    # jnp's (its key form: equal where all words are; its words for keys with other values)
    def __eq__(self, other):
        return jnp.equal(self, other)

    def __ne__(self, other):
        return jnp.not_equal(self, other)

    __hash__ = None  # an array: unhashable, as JAX's keys

    def __pos__(self):
        return self  # JAX's jnp.positive hands keys back

    def __neg__(self):
        raise _lax_error("neg", "integer, floating, complexfloating", self.dtype)

    def __abs__(self):
        raise _lax_error("abs", "floating, complexfloating, signedinteger", self.dtype)

    def __invert__(self):
        raise _lax_error("not", "integer, bool", self.dtype)

    def __round__(self, ndigits=None):
        raise _uninterpretable(self)

    def __matmul__(self, other):
        return _matmul_error(self, other)

    def __rmatmul__(self, other):
        return _matmul_error(other, self)

    # JAX's key arrays lack these: Python's own refusals
    def __int__(self):
        raise TypeError("int() argument must be a string, a bytes-like object or a real "
                        f"number, not '{type(self).__name__}'")

    def __float__(self):
        raise TypeError("float() argument must be a string or a real number, not "
                        f"'{type(self).__name__}'")

    def __complex__(self):
        raise TypeError("complex() first argument must be a string or a number, not "
                        f"'{type(self).__name__}'")

    def __index__(self):
        raise TypeError(f"'{type(self).__name__}' object cannot be interpreted as an integer")

    def _refusal(self, name, operands):
        """JAX's error for keys among a jnp function's ``operands`` (numpy._util's
        check_arraylike asks: the structural functions accept keys before it)."""
        if name in _JNP_REFUSALS:
            return _JNP_REFUSALS[name](self)
        mixed = len(operands) == 2 and not all(
            isinstance(x, PRNGKeyArray) and x.dtype == self.dtype for x in operands)
        if mixed and name == "fmod":
            return _promotion_error(self)
        if mixed and not (name == "power" and operands[0] is self and _int_exponent(operands[1])):
            return _mixed_error(name, *operands)  # JAX's promotion of a key with another
        lax_rule = _LAX_RULES.get(name)
        if lax_rule is None:
            return _uninterpretable(self)
        return _lax_error(*lax_rule, self.dtype, 0 if len(operands) == 2 else None)

    # --- .at[] -----------------------------------------------------------------------------
    at = property(lambda self: _KeyIndexUpdateHelper(self))

    # --- JAX's other public and private key array attributes ------------------------------
    def __dir__(self):  # without the Array attributes JAX's keys lack (AttributeErrors here)
        return sorted(set(super().__dir__()) - {"format", "tobytes", "tolist", "weak_type"})

    _base_array = property(lambda self: self._data)
    _committed = property(lambda self: self._data.committed)

    def pprint(self):
        """JAX's listing of the keys' shape and impl (its functions by address)."""
        if isinstance(self._data, Tracer):  # JAX's keys are tracers there
            raise AttributeError(f"{type(self._data).__name__} has no attribute pprint")
        impl = self._impl
        lines = ["PRNGKeyArray:", f"  shape = {self.shape}",
                 f"  impl = PRNGImpl [{impl.tag}] {{{impl.name}}}:",
                 f"    key_shape = {impl.key_shape}"]
        for field in ("seed", "split", "random_bits", "fold_in"):
            fn = getattr(impl, field)
            lines.append(f"    {field} = <function {getattr(fn, '__name__', field)} at "
                         f"{hex(id(fn))}>")
        lines += [f"    name = {impl.name}", f"    tag = {impl.tag}"]
        return "\n".join(lines)

    def __repr__(self):
        if isinstance(self._data, Tracer):
            return f"PRNGKeyArray(shape={self.shape}, dtype={self.dtype}, traced)"
        if isinstance(self._data, str):  # a type string: transformations' error messages
            return f"PRNGKeyArray({self._data})"
        return f"Array({self.shape}, dtype={self.dtype}) overlaying:\n{np.asarray(self._data)}"

    # As JAX: str() is the repr, and format() takes no format spec.
    __str__ = __repr__
    __format__ = object.__format__


def _no_attribute(keys, name):
    raise AttributeError(f"'{type(keys).__name__}' object has no attribute '{name}'")


def _abstract(name):
    def method(self, *args, **kwargs):
        # JAX 0.10.2 refuses it too, in these words (jax.Array's abstract methods)
        raise NotImplementedError(f"Cannot call abstract method {name}")
    return method


# The jnp methods (and ``item``) JAX's key arrays leave to jax.Array, where they are abstract:
# all but ``at`` and those defined above. ``tolist``/``tobytes`` they lack.
for _name, _value in [*_METHODS.items(), ("item", None)]:
    if not _name.startswith("__") and _name != "at" and _name not in vars(PRNGKeyArray):
        _method = _abstract(_name)
        setattr(PRNGKeyArray, _name, property(_method) if isinstance(_value, property) else _method)
PRNGKeyArray.tolist = property(lambda self: _no_attribute(self, "tolist"))
PRNGKeyArray.tobytes = property(lambda self: _no_attribute(self, "tobytes"))


extended_array_types.add(PRNGKeyArray)

def _unflatten_keys(impl, leaves):
    data = leaves[0]
    if type(data) is Array and "_keys_given" not in vars(data):  # once per data Array
        given = data._given_sharding  # device_put's (a class attribute's None on the others)
        if given is None:
            given = named_results.get(id(data.aval), (None, None))[1]  # jit's out_shardings'
        data._keys_given = given
        if type(given) is NamedSharding:
            # the keys were placed as given: their data reports the physical sharding, the
            # keys' spec and a None per key dimension (P('x', None); P() gives P(None,)), as
            # JAX's key_data does
            data._given_sharding = given.update(
                spec=PartitionSpec(*given.spec, *(None,) * len(impl.key_shape)))
    return PRNGKeyArray(data, impl)


_registry.register_node(PRNGKeyArray, lambda k: ((k._data,), k._impl), _unflatten_keys)


def _dtype_name(x):
    """The dtype JAX's promotion names for an operand (a Python int as int32 ...)."""
    return x.dtype if isinstance(x, PRNGKeyArray) else dtypes.dtype_of(x)[0]


def _mixed_error(name, a, b):
    """JAX's jnp refusal of keys with another operand, in operand order."""
    return TypeError(f"{name} does not accept dtypes {_dtype_name(a)}, {_dtype_name(b)}.")


def _lax_error(name, accepted, dtype, position=None):
    """JAX's lax refusal of a key operand (``add`` of two keys, ``neg`` of one)."""
    at = "" if position is None else f" at position {position}"
    return TypeError(f"{name} does not accept dtype {dtype}{at}. Accepted dtypes{at} are "
                     f"subtypes of {accepted}.")


def _uninterpretable(keys):
    """JAX's error where its jnp reads the key dtype as a NumPy one."""
    return TypeError(f"Cannot interpret '{keys.dtype}' as a data type")


def _is_operand(x):
    try:
        dtypes.dtype_of(x)
    except TypeError:
        return False
    return True


_NUMBERS, _BITS = "integer, floating, complexfloating", "integer, bool"
# Keys' binary operators and the jnp functions JAX's run (their refusals are those functions').
_BINARY_OPS = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide",
    "floordiv": "floor_divide", "mod": "remainder", "pow": "power", "and": "bitwise_and",
    "or": "bitwise_or", "xor": "bitwise_xor", "lshift": "left_shift", "rshift": "right_shift",
    "divmod": "divmod",
    # no reflected forms: Python tries `k > 0` for `0 < k`, as JAX's error says
    "lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal",
}


# The lax primitive (and its accepted dtypes) JAX's jnp functions name for key operands.
_LAX_RULES = {
    "add": ("add", _NUMBERS), "subtract": ("sub", _NUMBERS), "multiply": ("mul", _NUMBERS),
    "bitwise_and": ("and", _BITS), "bitwise_or": ("or", _BITS), "bitwise_xor": ("xor", _BITS),
    "less": ("lt", "integer, floating, bool"), "less_equal": ("le", "integer, floating, bool"),
    "greater": ("gt", "integer, floating, bool"),
    "greater_equal": ("ge", "integer, floating, bool"),
    "maximum": ("max", "integer, bool, floating, complexfloating"),
    "minimum": ("min", "integer, bool, floating, complexfloating"),
    "negative": ("neg", _NUMBERS), "abs": ("abs", "floating, complexfloating, signedinteger"),
    "absolute": ("abs", "floating, complexfloating, signedinteger"),
    "invert": ("not", _BITS), "bitwise_not": ("not", _BITS), "sign": ("sign", _NUMBERS),
}


def _promotion_error(keys):
    return ValueError(f"dtype={keys.dtype} is not a valid dtype for JAX type promotion.")


def _not_equal_zero_error(keys):
    return TypeError(f"not_equal does not accept dtypes {keys.dtype}, int32.")


# jnp functions whose refusal of keys reads otherwise (JAX 0.10.2's words, each)
_JNP_REFUSALS = {
    "select": _promotion_error,
    "sort": lambda k: _lax_error("lt_to", "integer, floating, bool", k.dtype, 0),
    "argsort": lambda k: _lax_error("lt_to", "integer, floating, bool", k.dtype, 0),
    "searchsorted": lambda k: _lax_error("le_to", "integer, floating, bool", k.dtype, 0),
    "clip": lambda k: _lax_error("max", "integer, bool, floating, complexfloating", k.dtype, 0),
    "nonzero": _not_equal_zero_error, "flatnonzero": _not_equal_zero_error,
    "argwhere": _not_equal_zero_error,
    "any": lambda k: ValueError(f"Cannot convert_element_type from {k.dtype} to bool"),
    "all": lambda k: ValueError(f"Cannot convert_element_type from {k.dtype} to bool"),
    "argmax": lambda k: ValueError(f"Unsupported dtype for max: {k.dtype}"),
    "argmin": lambda k: ValueError(f"Unsupported dtype for min: {k.dtype}"),
    "pad": lambda k: ValueError(f"Cannot convert_element_type from int32 to {k.dtype}"),
}


def _int_exponent(x):
    """A concrete integer scalar: JAX's jnp.power takes its integer_pow path, which reads the
    key dtype as a NumPy one."""
    return (not isinstance(x, Tracer) and dtypes.is_int(dtypes.dtype_of(x)[0])
            and np.ndim(x) == 0)


def _binary_operator(op, reflected):
    name = _BINARY_OPS[op]

    def method(self, other):
        if not isinstance(other, PRNGKeyArray) and not _is_operand(other):
            return NotImplemented
        raise self._refusal(name, (other, self) if reflected else (self, other))

    method.__name__ = f"__{'r' if reflected else ''}{op}__"
    return method


for _op in _BINARY_OPS:
    setattr(PRNGKeyArray, f"__{_op}__", _binary_operator(_op, False))
    if _op not in ("lt", "le", "gt", "ge"):
        setattr(PRNGKeyArray, f"__r{_op}__", _binary_operator(_op, True))


def _matmul_error(a, b):
    """JAX's errors of ``@`` on keys: its rank check first, then its promotion's."""
    for i, x in enumerate((a, b)):
        if not isinstance(x, PRNGKeyArray) and not _is_operand(x):
            return NotImplemented
        if np.ndim(x) == 0:
            raise ValueError(f"matmul input operand {i} must have ndim at least 1, but it has "
                             "ndim 0")
    if isinstance(a, PRNGKeyArray) and isinstance(b, PRNGKeyArray):
        raise AssertionError(str(a.dtype))
    key = a if isinstance(a, PRNGKeyArray) else b
    raise ValueError(f"dtype={key.dtype} is not a valid dtype for JAX type promotion.")


class _KeyIndexUpdateHelper:
    """``keys.at[idx]``: JAX's ``get`` and ``set`` on keys (each key word's plane through
    jnp's own indexing); the arithmetic updates refuse keys, as JAX's."""

    __slots__ = ("keys",)

    def __init__(self, keys):
        self.keys = keys

    def __getitem__(self, index):
        return _KeyIndexUpdateRef(self.keys, index)


class _KeyIndexUpdateRef:
    __slots__ = ("keys", "index")

    def __init__(self, keys, index):
        self.keys, self.index = keys, index

    def get(self, **kwargs):
        planes = [jnp_indexing._IndexUpdateRef(p, self.index).get(**kwargs)
                  for p in self.keys._planes()]
        return self.keys._from_planes(planes)

    def set(self, values, **kwargs):
        if not isinstance(values, PRNGKeyArray) or values.dtype != self.keys.dtype:
            if dtypes.is_python_scalar(values):
                raise _uninterpretable(self.keys)
            raise TypeError(f"Cannot determine dtype of {self.keys.dtype}")
        planes = [jnp_indexing._IndexUpdateRef(p, self.index).set(v, **kwargs)
                  for p, v in zip(self.keys._planes(), values._planes())]
        return self.keys._from_planes(planes)

    def apply(self, func, **kwargs):
        # func over the indexed keys, written back: a key indexed twice gets func once (JAX's
        # scatter applies it per occurrence)
        return self.set(func(self.get(**kwargs)), **kwargs)

    def _refuse(self, *args, **kwargs):
        raise _uninterpretable(self.keys)

    add = subtract = multiply = mul = divide = power = min = max = _refuse


def _unwrap(name, key):
    """(key data uint32[..., *key_shape], its impl, whether ``key`` was typed), or a TypeError
    naming ``name``. A raw key is one of the default impl, as in JAX."""
    if isinstance(key, PRNGKeyArray):
        return key._data, key._impl, True
    impl = _default_impl()
    try:
        aval = get_aval(key)
    except TypeError:
        raise TypeError(f"{name} requires a PRNG key: a typed key from random.key(seed) or a "
                        f"raw key from random.PRNGKey(seed); got {type(key).__name__}.") from None
    _check_key_data(aval, impl)
    return key, impl, False


def _check_key_data(aval, impl):
    """JAX's ``random_wrap`` checks of raw key data for ``impl``, with its messages."""
    if aval.ndim < 1:
        error = f"expected key_data.ndim >= 1; got ndim={aval.ndim}"
    elif aval.shape[-1:] != impl.key_shape:
        error = (f"expected key_data.shape to end with {impl.key_shape}; got "
                 f"shape={aval.shape} for impl={impl!r}")
    elif aval.dtype != _U32:
        error = f"expected key_data.dtype = uint32; got dtype={aval.dtype}"
    else:
        return
    raise TypeError(f"JAX encountered invalid PRNG key data: {error}")


def _single(name, key):
    """A single key as the samplers carry it (its data uint32[2] for threefry2x32, a typed key
    otherwise; batches of keys go through vmap, as in JAX), and whether it was typed."""
    data, impl, typed = _unwrap(name, key)
    shape = get_aval(data).shape[:-1]
    if shape:
        raise TypeError(
            f"{name} accepts a single key, but was given a key array of shape {shape} != (). "
            "Use minijax.vmap for batching."
        )
    return _carried(data, impl), typed


def _carried(data, impl):
    """Keys of ``impl`` over ``data`` as the samplers carry them (see the module doc)."""
    return data if impl is _THREEFRY else PRNGKeyArray(data, impl)


def _data_of(key):
    """The data of a key as the samplers carry it."""
    return key._data if isinstance(key, PRNGKeyArray) else key


def _rewrap(key, typed):
    """``key`` (as the samplers carry it) in the form the user gave: typed or raw data."""
    if isinstance(key, PRNGKeyArray):
        return key if typed else key._data
    return PRNGKeyArray(key) if typed else key


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
        raise TypeError(f"PRNG key seed must be an integer; got {aval.str_short(True)}")
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
    """A raw key ``uint32[*key_shape]`` of ``impl`` from an integer seed (JAX's legacy form)."""
    return _resolve_impl(impl).seed(_seed_array(seed))


def key(seed, *, impl=None):
    """A typed key of ``impl`` (shape ``()``) from an integer seed."""
    impl = _resolve_impl(impl)
    return PRNGKeyArray(impl.seed(_seed_array(seed)), impl)


def _resolve_impl(impl_spec):
    """The PRNGImpl named by ``impl_spec`` (a name, a key dtype, a PRNGImpl, None: the
    default), as JAX's ``resolve_prng_impl``."""
    if impl_spec is None:
        return _default_impl()
    if isinstance(impl_spec, PRNGImpl):
        return impl_spec
    if isinstance(impl_spec, KeyDtype):
        return impl_spec._impl
    if isinstance(impl_spec, str) and impl_spec in _IMPLS:
        return _IMPLS[impl_spec]
    if isinstance(impl_spec, str):
        names = ", ".join(f'"{n}"' for n in _IMPLS)
        raise ValueError(f'unrecognized PRNG implementation "{impl_spec}". '
                         f"Did you mean one of: {names}?")
    raise TypeError(f"unrecognized type {type(impl_spec)} for specifying PRNG implementation.")


def _default_impl():
    return _IMPLS[config.jax_default_prng_impl]


def key_data(keys):
    """The uint32 data of typed keys (``keys.shape + key_shape``); raw keys are returned as is."""
    data, _, _ = _unwrap("key_data", keys)
    return data


def wrap_key_data(key_bits_array, *, impl=None):
    """Typed keys of ``impl`` over ``uint32[..., *key_shape]`` data (the inverse of
    ``key_data``)."""
    impl = _resolve_impl(impl)
    if isinstance(key_bits_array, PRNGKeyArray):
        raise TypeError("wrap_key_data expects uint32 key data, got a typed key array")
    data = key_bits_array if isinstance(key_bits_array, Tracer) else jnp.asarray(key_bits_array)
    _check_key_data(get_aval(data), impl)
    return PRNGKeyArray(data, impl)


def key_impl(keys):
    """The name of the keys' impl (``"threefry2x32"`` ...)."""
    return _unwrap("key_impl", keys)[1].name


def key_dtype(impl_spec=None):
    """The dtype of typed keys of ``impl_spec`` (default: ``jax_default_prng_impl``)."""
    return _resolve_impl(impl_spec).dtype


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


def _split(key, shape):
    """Keys of ``shape`` split from one key as the samplers carry it (see the module doc)."""
    if isinstance(key, PRNGKeyArray):
        return PRNGKeyArray(key._impl.split(key._data, shape), key._impl)
    return _threefry_split(key, shape)


def split(key, num=2):
    """``num`` new keys from ``key`` (``num`` may be a shape): shape ``(num, *key_shape)``
    raw keys or ``(num,)`` typed keys."""
    k, typed = _single("split", key)
    return _rewrap(_split(k, _shape_tuple("split", num)), typed)


def _fold_in(key, d):
    if isinstance(key, PRNGKeyArray):
        return PRNGKeyArray(key._impl.fold_in(key._data, d), key._impl)
    return _threefry_fold_in(key, d)


def fold_in(key, data):
    """A new key from ``key`` and the integer ``data`` (its low 32 bits, as JAX)."""
    k, typed = _single("fold_in", key)
    if jnp.ndim(data):
        raise TypeError("fold_in accepts a scalar, but was given an array of"
                        f"shape {jnp.shape(data)} != (). Use jax.vmap for batching.")
    # JAX's jnp.asarray(data, dtype='uint32'): a Python int out of uint32's range (-1) is
    # NumPy's OverflowError; arrays of any dtype convert as convert_element_type does
    return _rewrap(_fold_in(k, jnp.asarray(data, dtype=_U32)), typed)


def random_bits(key, bit_width, shape):
    """Raw bits of ``bit_width`` and ``shape`` from one key as the samplers carry it."""
    if isinstance(key, PRNGKeyArray):
        return key._impl.random_bits(key._data, bit_width, shape)
    return _threefry_random_bits(key, bit_width, shape)


def _check_bits_size(shape):
    if math.prod(shape) > 2**64:
        # JAX 0.10.2 raises the same: the 64-bit counters would repeat
        raise NotImplementedError("random bits array of size exceeding 2 ** 64")


def _bits_of_words(bit_width, hi, lo, mixed):
    """JAX's bits of a counter hash: 64-bit ones are ``hi:lo``, narrower ones ``mixed``
    (the xor of the hash's words) truncated."""
    dtype = _UINT_DTYPES[bit_width]
    if bit_width == 64:
        hi, lo = (lax.convert_element_type(b, dtype) for b in (hi, lo))
        return lax.bitwise_or(lax.shift_left(hi, np.asarray(32, dtype)), lo)
    return mixed if bit_width == 32 else lax.convert_element_type(mixed, dtype)


def _xor(*words):
    return functools.reduce(lax.bitwise_xor, words)


# ------------------------------------------------------------------------------------------------
# The impls' functions on a single key's data (JAX 0.10.2's jax/_src/random/*.py). Each seed
# hashes the seed's (hi, lo) uint32 words, which threefry2x32's seed makes.


@eager_jit(static_argnames=("shape",))
def _threefry_split(data, shape):
    counts_hi, counts_lo = iota_2x32_shape(shape)
    b1, b2 = threefry2x32_p.bind(data[0], data[1], counts_hi, counts_lo)
    return jnp.stack([b1, b2], axis=len(shape))


@eager_jit
def _threefry_fold_in(data, d):
    return threefry_2x32((data[0], data[1]), _threefry_seed(d))


@eager_jit(static_argnames=("bit_width", "shape"))
def _threefry_random_bits(data, bit_width, shape):
    """JAX's ``_threefry_random_bits_partitionable``: element ``i`` hashes the counter
    ``(hi(i), lo(i))``."""
    _check_bits_size(shape)
    hi, lo = iota_2x32_shape(shape)
    b1, b2 = threefry2x32_p.bind(data[0], data[1], hi, lo)
    return _bits_of_words(bit_width, b1, b2, lax.bitwise_xor(b1, b2))


def _stack_words(words):
    return jnp.stack([jnp.asarray(w) for w in words], axis=-1)


@eager_jit
def _threefry4x32_seed(seed):
    words = _threefry_seed(seed)
    return _stack_words(threefry4x32_p.bind(words[0], words[1], *[np.uint32(0)] * 6))


@eager_jit(static_argnames=("shape",))
def _threefry4x32_split(data, shape):
    hi, lo = iota_2x32_shape(shape)
    zeros = jnp.zeros(shape, _U32)
    return _stack_words(threefry4x32_p.bind(*(data[i] for i in range(4)), zeros, zeros, hi, lo))


@eager_jit
def _threefry4x32_fold_in(data, d):
    zero = np.uint32(0)
    return _stack_words(threefry4x32_p.bind(*(data[i] for i in range(4)), zero, zero, zero, d))


@eager_jit(static_argnames=("bit_width", "shape"))
def _threefry4x32_random_bits(data, bit_width, shape):
    _check_bits_size(shape)
    hi, lo = iota_2x32_shape(shape)
    zeros = jnp.zeros(shape, _U32)
    w = threefry4x32_p.bind(*(data[i] for i in range(4)), hi, lo, zeros, zeros)
    return _bits_of_words(bit_width, _xor(w[0], w[2]), _xor(w[1], w[3]), _xor(*w))


@eager_jit
def _philox2x32_seed(seed):
    words = _threefry_seed(seed)
    return _stack_words(philox2x32_p.bind(np.uint32(0), words[0], words[1])[:1])


@eager_jit(static_argnames=("shape",))
def _philox2x32_split(data, shape):
    hi, lo = iota_2x32_shape(shape)
    return _stack_words(philox2x32_p.bind(data[0], hi, lo)[:1])


@eager_jit
def _philox2x32_fold_in(data, d):
    return _stack_words(philox2x32_p.bind(data[0], np.uint32(0), d)[:1])


@eager_jit(static_argnames=("bit_width", "shape"))
def _philox2x32_random_bits(data, bit_width, shape):
    _check_bits_size(shape)
    hi, lo = iota_2x32_shape(shape)
    w0, w1 = philox2x32_p.bind(data[0], hi, lo)
    return _bits_of_words(bit_width, w0, w1, _xor(w0, w1))


@eager_jit
def _philox4x32_seed(seed):
    words = _threefry_seed(seed)
    zero = np.uint32(0)
    return _stack_words(philox4x32_p.bind(zero, zero, words[0], words[1], zero, zero)[:2])


@eager_jit(static_argnames=("shape",))
def _philox4x32_split(data, shape):
    hi, lo = iota_2x32_shape(shape)
    zeros = jnp.zeros(shape, _U32)
    return _stack_words(philox4x32_p.bind(data[0], data[1], zeros, zeros, hi, lo)[:2])


@eager_jit
def _philox4x32_fold_in(data, d):
    zero = np.uint32(0)
    return _stack_words(philox4x32_p.bind(data[0], data[1], zero, zero, zero, d)[:2])


@eager_jit(static_argnames=("bit_width", "shape"))
def _philox4x32_random_bits(data, bit_width, shape):
    _check_bits_size(shape)
    hi, lo = iota_2x32_shape(shape)
    zeros = jnp.zeros(shape, _U32)
    w = philox4x32_p.bind(data[0], data[1], hi, lo, zeros, zeros)
    return _bits_of_words(bit_width, w[0], w[1], _xor(*w))


# rbg: a key is two threefry2x32 keys (split and folded each), bits come from XLA's
# RngBitGenerator (its default algorithm: backend-dependent bits, as in JAX).
@eager_jit
def _rbg_seed(seed):
    half = _threefry_seed(seed)
    return lax.concatenate([half, half], 0)


@eager_jit(static_argnames=("shape",))
def _rbg_split(data, shape):
    return lax.concatenate([_threefry_split(data[:2], shape), _threefry_split(data[2:], shape)],
                           len(shape))


@eager_jit
def _rbg_fold_in(data, d):
    return lax.concatenate([_threefry_fold_in(data[:2], d), _threefry_fold_in(data[2:], d)], 0)


@eager_jit(static_argnames=("bit_width", "shape"))
def _rbg_random_bits(data, bit_width, shape):
    return rng_bit_generator(data, shape, dtype=_UINT_DTYPES[bit_width])[1]


@eager_jit(static_argnames=("shape",))
def _unsafe_rbg_split(data, shape):
    # JAX's: ten draws of bits as a 'hash function', every tenth row a key
    num = math.prod(shape)
    _, rows = rng_bit_generator(data, (10 * num, 4), dtype=_U32)
    return lax.reshape(lax.slice(rows, (0, 0), (10 * num, 4), (10, 1)), (*shape, 4))


@eager_jit
def _unsafe_rbg_fold_in(data, d):
    _, rows = rng_bit_generator(_rbg_seed(d), (10, 4), dtype=_U32)
    return lax.bitwise_xor(data, rows[-1])


_THREEFRY = PRNGImpl("threefry2x32", "fry", (2,), _threefry_seed, _threefry_split,
                     _threefry_fold_in, _threefry_random_bits)
# In JAX 0.10.2's registration order (its error messages list them so).
_IMPLS = {impl.name: impl for impl in (
    PRNGImpl("philox2x32", "phx2", (1,), _philox2x32_seed, _philox2x32_split,
             _philox2x32_fold_in, _philox2x32_random_bits),
    PRNGImpl("philox4x32", "phx4", (2,), _philox4x32_seed, _philox4x32_split,
             _philox4x32_fold_in, _philox4x32_random_bits),
    _THREEFRY,
    PRNGImpl("rbg", "rbg", (4,), _rbg_seed, _rbg_split, _rbg_fold_in, _rbg_random_bits),
    PRNGImpl("unsafe_rbg", "urbg", (4,), _rbg_seed, _unsafe_rbg_split, _unsafe_rbg_fold_in,
             _rbg_random_bits),
    PRNGImpl("threefry4x32", "fry4", (4,), _threefry4x32_seed, _threefry4x32_split,
             _threefry4x32_fold_in, _threefry4x32_random_bits),
)}


def bits(key, shape=(), dtype=None, *, out_sharding=None):
    """Uniform random bits of an unsigned integer ``dtype`` (default jnp.uint), laid out (over
    Explicit mesh axes: typed) as ``out_sharding``."""
    requested = dtype
    k, _ = _single("bits", key)
    # JAX's default is jnp.uint: uint64 under x64; a uint64 asked for without x64 is uint32,
    # with JAX's warning
    dtype = np.dtype(np.uint64) if dtype is None else np.dtype(dtype)
    if dtype.kind != "u":
        raise ValueError(f"dtype argument to `bits` must be an unsigned int dtype, got {dtype}")
    if dtype.itemsize == 8 and not config.jax_enable_x64:
        if requested is not None:
            warnings.warn(
                "Explicitly requested dtype uint64 is not available, and will be truncated to "
                "dtype uint32. To enable more dtypes, set the jax_enable_x64 configuration "
                "option or the JAX_ENABLE_X64 shell environment variable. See "
                "https://github.com/jax-ml/jax#current-gotchas for more.", stacklevel=2)
        dtype = _U32
    return lay_out(random_bits(k, dtype.itemsize * 8, _shape_tuple("bits", shape)),
                   out_sharding)

