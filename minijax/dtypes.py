"""The dtype set, JAX's type-promotion lattice with weak types, and x64 canonicalization.

A *weak* type is the type of a Python scalar (``2.0``, ``3``): it adopts the dtype of whatever
it meets, so ``f32_array + 1.0`` stays float32 and ``bf16_array * 2`` stays bfloat16. The
lattice below is JAX's "standard" lattice; promotion is a lookup of the least upper bound.

With x64 off (the default) 64-bit dtypes are canonicalized to 32-bit *before* values reach the
device, so an Array's dtype always matches its buffer.
"""

from __future__ import annotations

import functools
import sys
import warnings

import ml_dtypes
import numpy as np

from minijax.config import config
from minijax.source_info import user_stacklevel

bool_ = np.dtype(np.bool_)
int8, int16, int32, int64 = (np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64))
uint8, uint16, uint32, uint64 = (np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64))
float16, float32, float64 = (np.dtype(t) for t in (np.float16, np.float32, np.float64))
# As in JAX, the public ``bfloat16`` is ml_dtypes' scalar type (``bfloat16(1.5)`` is a scalar,
# ``isinstance(x, bfloat16)`` tests for one); the tables below hold its np.dtype.
bfloat16 = ml_dtypes.bfloat16
_bf16 = np.dtype(bfloat16)
complex64, complex128 = np.dtype(np.complex64), np.dtype(np.complex128)
float8_e4m3fn = np.dtype(ml_dtypes.float8_e4m3fn)
float8_e5m2 = np.dtype(ml_dtypes.float8_e5m2)
float8_e4m3b11fnuz = np.dtype(ml_dtypes.float8_e4m3b11fnuz)
float8_e4m3fnuz = np.dtype(ml_dtypes.float8_e4m3fnuz)
float8_e5m2fnuz = np.dtype(ml_dtypes.float8_e5m2fnuz)
float8_types = (float8_e4m3fn, float8_e5m2, float8_e4m3b11fnuz, float8_e4m3fnuz, float8_e5m2fnuz)
# JAX's narrow types (ml_dtypes'): like float8, none of them promotes implicitly to any other
# dtype; a Python scalar adopts them. int1/uint1 have no XLA CPU arrays (as in JAX).
float8_e3m4 = np.dtype(ml_dtypes.float8_e3m4)
float8_e4m3 = np.dtype(ml_dtypes.float8_e4m3)
float8_e8m0fnu = np.dtype(ml_dtypes.float8_e8m0fnu)
float6_e2m3fn = np.dtype(ml_dtypes.float6_e2m3fn)
float6_e3m2fn = np.dtype(ml_dtypes.float6_e3m2fn)
float4_e2m1fn = np.dtype(ml_dtypes.float4_e2m1fn)
int1, int2, int4 = (np.dtype(getattr(ml_dtypes, n)) for n in ("int1", "int2", "int4"))
uint1, uint2, uint4 = (np.dtype(getattr(ml_dtypes, n)) for n in ("uint1", "uint2", "uint4"))
narrow_float8_types = (float8_e3m4, float8_e4m3, float8_e8m0fnu)
float6_types = (float6_e2m3fn, float6_e3m2fn)
float4_types = (float4_e2m1fn,)
intn_types = (int1, int2, int4, uint1, uint2, uint4)

narrow_types = (*narrow_float8_types, *float6_types, *float4_types, *intn_types)

int_types = (int8, int16, int32, int64, *intn_types[:3])
uint_types = (uint8, uint16, uint32, uint64, *intn_types[3:])
float_types = (*float8_types, *narrow_float8_types, *float6_types, *float4_types, _bf16, float16,
               float32, float64)
complex_types = (complex64, complex128)
# The everyday dtypes; the narrow ones (whose arrays XLA CPU may not even hold) come apart.
all_dtypes = tuple(t for t in (bool_, *int_types, *uint_types, *float_types, *complex_types)
                   if t not in narrow_types)

# The tangent dtype of integer and boolean values (JAX's float0): a zero-width structured dtype,
# so a float0 array of any shape holds no data. Only autodiff creates values of it.
float0 = np.dtype([("float0", np.void, 0)])
_dtype_set = frozenset((*all_dtypes, *narrow_types))


class extended(np.generic):  # noqa: N801 - JAX's name
    """Scalar class of the extended dtypes (PRNG keys): abstract, it exists for ``issubdtype``,
    e.g. ``jnp.issubdtype(random.key(0).dtype, dtypes.extended)``."""


class prng_key(extended):  # noqa: N801 - JAX's name
    """Scalar class of PRNG key dtypes: ``jnp.issubdtype(random.key(0).dtype, dtypes.prng_key)``
    holds for typed keys (not for raw ``uint32[2]`` keys)."""


class ExtendedDType:
    """Base class of dtypes that are not NumPy's (a typed key's ``key<fry>``); ``type`` is its
    scalar class in the ``extended`` hierarchy."""

    type = extended

# The nodes of the lattice that stand for Python scalars (weak types).
_weak_int, _weak_float, _weak_complex = "int*", "float*", "complex*"

_LATTICE = {
    bool_: [_weak_int],
    _weak_int: [uint8, int8, *intn_types],
    uint8: [int16, uint16], uint16: [int32, uint32], uint32: [int64, uint64], uint64: [_weak_float],
    int8: [int16], int16: [int32], int32: [int64], int64: [_weak_float],
    _weak_float: [*float8_types, *narrow_float8_types, *float6_types, *float4_types, _bf16,
                  float16, _weak_complex],
    **{t: [] for t in (*float8_types, *narrow_types)},
    _bf16: [float32], float16: [float32], float32: [float64, complex64], float64: [complex128],
    _weak_complex: [complex64], complex64: [complex128], complex128: [],
}


# jax_numpy_dtype_promotion='strict': a weak type (Python scalar) still adopts any dtype of its
# kind or above, but two different dtypes never promote implicitly (not even bool and int).
_STRICT_LATTICE = {
    _weak_int: [_weak_float, *int_types, *uint_types],
    _weak_float: [_weak_complex, *float_types],
    _weak_complex: list(complex_types),
    **{t: [] for t in (*all_dtypes, *narrow_types)},
}


def _upper_bounds(lattice):
    bounds = {}
    for node in lattice:
        seen, todo = {node}, [node]
        while todo:
            for nxt in lattice[todo.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        bounds[node] = seen
    return bounds


_UPPER = {"standard": _upper_bounds(_LATTICE), "strict": _upper_bounds(_STRICT_LATTICE)}


class TypePromotionError(ValueError, TypeError):
    """No implicit promotion between the dtypes. A ValueError as in JAX, and a TypeError too,
    as the array API (and minijax before JAX's class was matched) raises for a bad promotion."""


def _lattice_node(dtype, weak):
    if not weak or dtype == bool_:
        return dtype
    if is_int(dtype):
        return _weak_int
    if is_float(dtype):
        return _weak_float
    return _weak_complex


@functools.lru_cache(maxsize=4096)
def _join(mode, a, b):
    """The least upper bound of two lattice nodes; ``mode`` is jax_numpy_dtype_promotion."""
    upper = _UPPER[mode]
    common = upper[a] & upper[b]
    least = [n for n in common if common <= upper[n]]
    if not least:
        raise TypePromotionError(_no_promotion_message(mode, (a, b)))
    return least[0]


_WEAK_NODE_NAMES = {_weak_int: str(int), _weak_float: str(float), _weak_complex: str(complex)}


def _no_promotion_message(mode, nodes):
    names = tuple(_WEAK_NODE_NAMES.get(n) or n.name for n in dict.fromkeys(nodes))
    if mode == "strict":
        return (f"Input dtypes {names} have no available implicit dtype promotion path when "
                "jax_numpy_dtype_promotion=strict. Try explicitly casting inputs to the desired "
                "output type, or set jax_numpy_dtype_promotion=standard.")
    for types, what in ((float8_types + narrow_float8_types, "8-bit floats"),
                        (float6_types, "6-bit floats"), (float4_types, "4-bit floats")):
        if any(n in types for n in nodes):
            return (f"Input dtypes {names} have no available implicit dtype promotion path. To "
                    f"avoid unintended promotion, {what} do not support implicit promotion. If "
                    "you'd like your inputs to be promoted to another type, you can do so "
                    "explicitly using e.g. x.astype('float32')")
    if any(n in intn_types for n in nodes):
        return (f"Input dtypes {names} have no available implicit dtype promotion path. To avoid "
                "unintended promotion, 1-bit, 2-bit and 4-bit integers do not support implicit "
                "promotion. If you'd like your inputs to be promoted to another type, you can do "
                "so explicitly using e.g. x.astype('int32')")
    return (f"Input dtypes {names} have no available implicit dtype promotion path. Try "
            "explicitly casting inputs to the desired output type.")


def is_weak_node(node):
    return isinstance(node, str)


def default_int_dtype():
    return int64 if config.jax_enable_x64 else int32


def default_float_dtype():
    return float64 if config.jax_enable_x64 else float32


def default_complex_dtype():
    return complex128 if config.jax_enable_x64 else complex64


_X64_NARROW = {int64: int32, uint64: uint32, float64: float32, complex128: complex64}


_canonical_cache = {}


def canonicalize_dtype(dtype, allow_extended_dtype=False):
    """The dtype values of ``dtype`` really get: 64-bit narrowed to 32-bit unless x64 is on.
    An extended dtype is returned as it is when ``allow_extended_dtype``, else refused."""
    if isinstance(dtype, ExtendedDType) or (isinstance(dtype, type)
                                            and issubclass(dtype, extended)):
        if not allow_extended_dtype:
            raise ValueError(f"Internal: canonicalize_dtype called on extended dtype {dtype} "
                             "with allow_extended_dtype=False")
        return dtype
    try:
        return _canonical_cache[dtype, config.jax_enable_x64]
    except (KeyError, TypeError):  # TypeError: an unhashable dtype-like, e.g. a list spec
        pass
    result = _canonicalize_dtype(dtype)
    try:
        _canonical_cache[dtype, config.jax_enable_x64] = result
    except TypeError:
        pass
    return result


_PYTHON_TYPES = (bool, int, float, complex)  # stand for the default dtypes: no warning


def check_user_dtype(dtype, fun_name):
    """``dtype`` as a user gave it to ``fun_name``, canonical. As JAX's
    ``check_and_canonicalize_user_dtype``: a 64-bit dtype asked for with x64 off is narrowed
    with a UserWarning pointing at the user's line (a Python type is the default dtype).
    ``fun_name`` None: the message names no function (as jax.random's and cumulative_sum's)."""
    canonical = canonicalize_dtype(dtype)
    if (not config.jax_enable_x64 and not any(dtype is t for t in _PYTHON_TYPES)
            and np.dtype(dtype) != canonical):  # ``is``: np.dtype('float64') == float
        warnings.warn(
            f"Explicitly requested dtype {np.dtype(dtype)}"
            + ("" if fun_name is None else f" requested in {fun_name}")
            + f" is not available, and will be truncated to dtype {canonical.name}. To enable "
            "more dtypes, set the jax_enable_x64 configuration option or the JAX_ENABLE_X64 "
            "shell environment variable. See https://github.com/jax-ml/jax#current-gotchas for "
            "more.",
            stacklevel=user_stacklevel(sys._getframe()))
    return canonical


def _canonicalize_dtype(dtype):
    dtype = np.dtype(dtype)
    if not dtype.isnative:  # big-endian NumPy data: values are converted when copied
        dtype = dtype.newbyteorder("=")
    if dtype == float0:
        return float0
    if dtype not in _dtype_set:
        raise TypeError(f"minijax does not support dtype {dtype}")
    if config.jax_enable_x64:
        return dtype
    return _X64_NARROW.get(dtype, dtype)


def promote_types(a, b):
    """``jnp.promote_types``: the least upper bound of two (strong) dtypes, not canonicalized
    (as in JAX: ``promote_types(float32, float64)`` is float64 even with x64 off)."""
    node = _join(config.jax_numpy_dtype_promotion, _promote_types_node(a), _promote_types_node(b))
    if is_weak_node(node):  # uint64 with int64 meets at the weak float: the widest float
        return {_weak_int: int64, _weak_float: float64, _weak_complex: complex128}[node]
    return node


def _promote_types_node(x):
    """The Python types ``int``, ``float``, ``complex`` stand for weak types, as in JAX
    (``promote_types('uint8', int)`` is uint8)."""
    return _PY_TYPE_NODES.get(x) or np.dtype(x)


def promote_dtypes_weak(pairs):
    """Joins ``(dtype, weak_type)`` pairs; returns the ``(dtype, weak_type)`` of the result."""
    mode = config.jax_numpy_dtype_promotion
    node = None
    try:
        for dtype, weak in pairs:
            n = _lattice_node(dtype, weak)
            node = n if node is None else _join(mode, node, n)
    except TypePromotionError:  # name every input, not the partial join that failed
        nodes = [_lattice_node(dtype, weak) for dtype, weak in pairs]
        raise TypePromotionError(_no_promotion_message(mode, nodes)) from None
    if is_weak_node(node):
        # All inputs weak: keep the widest *actual* dtype of the same kind so weak bf16 stays bf16.
        widest = None
        for dtype, _weak in pairs:
            if _lattice_node(dtype, True) == node:
                widest = dtype if widest is None or dtype.itemsize > widest.itemsize else widest
        return canonicalize_dtype(widest), True
    return canonicalize_dtype(node), False


class _TypedScalar:
    """A Python scalar that carries its dtype, as JAX's ``TypedInt``/``TypedFloat``/
    ``TypedComplex`` (jax/_src/literals.py): what ``checkpoint`` returns for a Python scalar the
    function returned. Still weakly typed; ``.dtype`` is the default dtype when it was made."""

    __slots__ = ()
    _base = None  # the builtin type it extends

    def __new__(cls, value, dtype):
        v = cls._base.__new__(cls, value)
        v.dtype = np.dtype(dtype)
        return v

    def __repr__(self):
        return f"{type(self).__name__}({self._base(self)!r}, dtype={self.dtype.name})"

    def __str__(self):
        return str(self._base(self))

    def __getnewargs__(self):
        return (self._base(self), self.dtype)


class TypedInt(_TypedScalar, int):
    _base = int  # no __slots__: an int subclass keeps its dtype in a __dict__


class TypedFloat(_TypedScalar, float):
    __slots__ = ("dtype",)
    _base = float


class TypedComplex(_TypedScalar, complex):
    __slots__ = ("dtype",)
    _base = complex


def typed_scalar(x, dtype):
    """A Python int/float/complex as its typed twin of ``dtype`` (a bool stays a bool, as in
    JAX)."""
    cls = {int: TypedInt, float: TypedFloat, complex: TypedComplex}.get(type(x))
    return x if cls is None else cls(x, dtype)


def canonical_scalar(x):
    """``x`` as JAX's canonicalization of a value passed to a primitive leaves it: a Python
    int/float/complex as its typed twin of the default dtype, anything else as it is."""
    return typed_scalar(x, python_scalar_dtype(x)) if type(x) in (int, float, complex) else x


shaped_array = None  # core.ShapedArray, which core installs (it imports this module)


class TypedNdArray(np.ndarray):
    """A host NumPy array that carries its JAX type, as JAX 0.10.2's
    ``jax._src.literals.TypedNdArray``: what JAX gives for float0 values (the gradient of an
    integer input, an integer output's tangent, a float0 value put on a device) and for a
    NumPy value ``stop_gradient`` or ``checkpoint`` returns eagerly. Its type (``aval``, made
    on first use unless given) is not canonicalized again; NumPy functions on it give plain
    NumPy arrays."""

    __slots__ = ("_aval", "_weak_type")

    def __new__(cls, val, aval=None):
        obj = np.asarray(val).view(cls)
        if aval is not None:
            obj._aval = aval
        return obj

    def __array_finalize__(self, obj):  # a view or slice keeps the weak type, not the aval
        self._aval = None
        self._weak_type = obj.aval.weak_type if isinstance(obj, TypedNdArray) else False

    @property
    def aval(self):
        if self._aval is None:
            self._aval = shaped_array(self.shape, self.dtype, weak_type=self._weak_type)
        return self._aval

    @property
    def weak_type(self):
        return self.aval.weak_type

    @property
    def val(self):
        return np.asarray(self)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        inputs = tuple(np.asarray(x) if isinstance(x, TypedNdArray) else x for x in inputs)
        if "out" in kwargs:
            kwargs["out"] = tuple(np.asarray(x) if isinstance(x, TypedNdArray) else x
                                  for x in kwargs["out"])
        return getattr(ufunc, method)(*inputs, **kwargs)

    def __repr__(self):  # JAX's layout: TypedNdArray([0., 1.], dtype=float32)
        prefix = "TypedNdArray("
        dtype_str = f"dtype={self.dtype.name}" + (", weak_type=True)" if self.aval.weak_type
                                                  else ")")
        width = np.get_printoptions()["linewidth"]
        if self.size == 0:
            s = f"[], shape={self.shape}"
        else:
            s = np.array2string(np.asarray(self), prefix=prefix, suffix=",", separator=", ",
                                max_line_width=width)
        last_line = len(s) - s.rfind("\n") + 1
        sep = " " * len(prefix) if last_line + len(dtype_str) + 1 > width else " "
        return f"{prefix}{s},{sep}{dtype_str}"

    # Beyond JAX on purpose (docs/sharp_bits.md): JAX 0.10.2's pickling passes the weak type
    # where the constructor takes the aval, so its copy is broken; this one round-trips.
    def __reduce__(self):
        return (TypedNdArray, (np.asarray(self), self.aval))

    def __getnewargs__(self):
        return (np.asarray(self), self.aval)


def float0_zeros(shape, aval=None):
    """Zeros of dtype float0, as JAX returns them (a :class:`TypedNdArray`, of type ``aval``
    where given)."""
    return TypedNdArray(np.zeros(shape, float0), aval)


def canonical_value(x):
    """``x`` as JAX's bind canonicalizes an operand held on the host: a Python scalar typed
    (``canonical_scalar``), a NumPy value a :class:`TypedNdArray` of its canonical dtype;
    anything else (an Array, a tracer) as it is."""
    if type(x) in (int, float, complex):
        return typed_scalar(x, python_scalar_dtype(x))
    if isinstance(x, (np.ndarray, np.generic)) and type(x) is not TypedNdArray:
        return TypedNdArray(np.asarray(x, canonicalize_dtype(x.dtype)))
    return x


_PY_SCALAR = {bool: bool_, int: None, float: None, complex: None,
              TypedInt: None, TypedFloat: None, TypedComplex: None}
# the types that are Python scalars to minijax: the builtins and their typed twins
python_scalar_types = tuple(_PY_SCALAR)
_PY_TYPE_NODES = {int: _weak_int, float: _weak_float, complex: _weak_complex}


def python_scalar_dtype(x):
    """dtype of a Python scalar: bool → bool, int → default int, float → default float."""
    if isinstance(x, _TypedScalar):
        return x.dtype
    t = type(x)
    if t is bool:
        return bool_
    if t is int:
        return default_int_dtype()
    if t is float:
        return default_float_dtype()
    if t is complex:
        return default_complex_dtype()
    raise TypeError(f"not a Python scalar: {x!r}")


def is_python_scalar(x):
    return type(x) in _PY_SCALAR


def python_scalar_as(x, dtype):
    """A Python scalar as a 0-d NumPy value of ``dtype``, with JAX's integer rule: the int must
    fit the default int type (int32, or int64 under x64) and then wraps into narrower types
    (``uint8_array + 300`` adds 44, as JAX and as C)."""
    dtype = np.dtype(dtype)
    if type(x) is int:
        default = default_int_dtype()
        info = np.iinfo(default)
        if not info.min <= x <= info.max:
            raise OverflowError(f"Python int {x} too large to convert to {default.name}")
        if dtype.kind in "iu":
            return np.asarray(x, default).astype(dtype)
    return np.asarray(x, dtype)


def dtype_of(x):
    """dtype (canonical) and weak_type of any value a user may pass: Array, numpy, scalar."""
    aval = getattr(x, "aval", None)
    if aval is not None:
        return aval.dtype, aval.weak_type
    if type(x) in _PY_SCALAR:
        return python_scalar_dtype(x), type(x) is not bool
    if hasattr(x, "dtype"):
        if isinstance(x.dtype, ExtendedDType):  # typed keys: result_type answers their dtype
            return x.dtype, False
        return canonicalize_dtype(x.dtype), False
    raise TypeError(f"Value {x!r} of type {type(x).__name__} is not a valid minijax type")


def result_type(*args, return_weak_type_flag=False):
    """``jnp.result_type``: promotion of values and dtypes, weak types included."""
    pairs = []
    for a in args:
        if isinstance(a, (np.dtype, type, str)) and not is_python_scalar(a):
            # Identity, not ==: np.dtype('float64') == float is True in NumPy.
            if any(a is t for t in (int, float, complex)):
                pairs.append((python_scalar_dtype(a(0)), True))
            else:
                pairs.append((np.dtype(a), False))
        else:
            pairs.append(dtype_of(a))
    if not pairs:
        raise ValueError("at least one array or dtype is required")
    extended_ = next((d for d, _ in pairs if isinstance(d, ExtendedDType)), None)
    if extended_ is not None:  # as JAX: only values of that one extended dtype together
        if any(d != extended_ for d, _ in pairs):
            raise ValueError(f"dtype={extended_} is not a valid dtype for JAX type promotion.")
        return (extended_, False) if return_weak_type_flag else extended_
    try:
        dtype, weak = promote_dtypes_weak(pairs)
    except KeyError as e:  # a dtype outside the lattice (float0): only with itself, as JAX's
        dtype, weak = pairs[0][0], False
        if any(d != dtype for d, _ in pairs):
            raise ValueError(
                f"dtype={e.args[0]!r} is not a valid dtype for JAX type promotion.") from None
    return (dtype, weak) if return_weak_type_flag else dtype


def issubdtype(a, b):
    """``np.issubdtype`` that also places bfloat16/float8 under ``np.floating`` (their scalar
    types are not NumPy's subclasses) and extended dtypes under ``extended``/``prng_key``."""
    if isinstance(b, type) and issubclass(b, extended):
        if isinstance(a, ExtendedDType):
            return issubclass(a.type, b)
        if isinstance(a, type) and issubclass(a, np.generic):
            return issubclass(a, b)
        return issubclass(np.dtype(a).type, b)
    if isinstance(b, ExtendedDType):
        return isinstance(a, ExtendedDType) and a == b
    if isinstance(a, ExtendedDType):
        return issubclass(a.type, b if isinstance(b, type) else np.dtype(b).type)
    a_type = _scalar_class(a)
    if a_type in _custom_float_types:
        return _scalar_class(b) in (a_type, np.floating, np.inexact, np.number, np.generic)
    if a_type in _intn_scalar_types:
        kind = np.signedinteger if np.dtype(a_type) in intn_types[:3] else np.unsignedinteger
        return _scalar_class(b) in (a_type, kind, np.integer, np.number, np.generic)
    return bool(np.issubdtype(a_type, _scalar_class(b)))


def _scalar_class(x):
    return x if isinstance(x, type) and issubclass(x, np.generic) else np.dtype(x).type


_custom_floats = frozenset((_bf16, *float8_types, *narrow_float8_types, *float6_types,
                            *float4_types))
_custom_float_types = frozenset(t.type for t in _custom_floats)
_intn_scalar_types = frozenset(t.type for t in intn_types)
_intn_set = frozenset(intn_types)
_float_set = frozenset(float_types)


def scalar_type_of(x):
    """The Python scalar type (bool, int, float, complex) of a value's dtype."""
    dtype = dtype_of(x)[0] if not isinstance(x, (np.dtype, type, str)) else np.dtype(x)
    if isinstance(dtype, ExtendedDType):
        raise TypeError(f"Cannot interpret '{dtype}' as a data type")
    if dtype in _custom_floats:
        return float
    if dtype in _intn_set:
        return int
    for kind, scalar in ((np.bool_, bool), (np.integer, int), (np.floating, float),
                         (np.complexfloating, complex)):
        if np.issubdtype(dtype, kind):
            return scalar
    raise TypeError(f"Invalid scalar value {x}")


def itemsize_bits(dtype):
    """Bits per element of ``dtype`` (8 for bool, its physical layout)."""
    if dtype is None:
        raise ValueError("dtype cannot be None.")
    if isinstance(dtype, ExtendedDType):
        raise ValueError(f"unexpected input: dtype={dtype}")
    dtype = np.dtype(dtype)
    if dtype == bool_:
        return 8
    if issubdtype(dtype, np.integer):
        return iinfo(dtype).bits
    if issubdtype(dtype, np.floating):
        return finfo(dtype).bits
    if issubdtype(dtype, np.complexfloating):
        return 2 * finfo(dtype).bits
    raise ValueError(f"unexpected input: dtype={dtype!r}")


def is_float(dtype):
    return np.dtype(dtype) in _float_set


def is_int(dtype):
    dtype = np.dtype(dtype)
    return dtype.kind in "iu" or dtype in _intn_set


def is_complex(dtype):
    return np.dtype(dtype).kind == "c"


def is_inexact(dtype):
    return is_float(dtype) or is_complex(dtype)


_SHORT = {"bool": "bool", "bfloat16": "bf16"}


@functools.cache
def long_name(dtype):
    """JAX's printed type spelling (``str(jax.typeof(x))``): float32, bfloat16, float0, key<fry>."""
    if isinstance(dtype, ExtendedDType):
        return dtype.name
    return "float0" if np.dtype(dtype) == float0 else np.dtype(dtype).name


def short_name(dtype):
    """The jaxpr spelling: f32, i32, u8, bf16, c64, bool, f8_e4m3fn ..."""
    if np.dtype(dtype) == float0:
        return "float0"
    name = np.dtype(dtype).name
    if name in _SHORT:
        return _SHORT[name]
    for bits in ("8", "6", "4"):
        if name.startswith(f"float{bits}_"):
            return f"f{bits}_" + name[len(f"float{bits}_"):]
    for long, short in (("complex", "c"), ("float", "f"), ("uint", "u"), ("int", "i")):
        if name.startswith(long):
            return short + name[len(long):]
    return name


class finfo(ml_dtypes.finfo):
    pass


class iinfo(ml_dtypes.iinfo):
    pass
