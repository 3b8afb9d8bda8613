"""The dtype names of ``minijax.numpy`` (``jnp.float32``, ``jnp.bfloat16``, ``jnp.int_`` ...)
and NumPy's data type routines (``finfo``, ``iinfo``, ``promote_types``, ``result_type``,
``can_cast``, ``issubdtype``, ``isdtype``).

As in JAX, ``jnp.float32`` is not NumPy's scalar type but a class whose call builds an Array
(``jnp.float32(3)`` is ``Array(3., dtype=float32)``) and which still works everywhere a dtype
is expected: ``np.dtype(jnp.float32)`` reads its ``dtype`` attribute, and it compares equal to
``np.float32``.
"""

from __future__ import annotations

import numpy as np

from minijax import dtypes
from minijax.numpy import creation


class _ScalarMeta(type):
    def __hash__(cls):
        return hash(cls.dtype.type)

    def __eq__(cls, other):
        return cls is other or cls.dtype.type == other

    def __ne__(cls, other):
        return not cls == other

    def __call__(cls, x):
        return creation.asarray(x, dtype=cls.dtype)

    def __instancecheck__(cls, instance):
        return isinstance(instance, cls.dtype.type)

    def __repr__(cls):
        return f"<class 'minijax.numpy.{cls.__name__}'>"


def _make_scalar_type(name, np_dtype):
    np_dtype = np.dtype(np_dtype)
    return _ScalarMeta(name, (object,), {"dtype": np_dtype, "__module__": "minijax.numpy"})


bool_ = _make_scalar_type("bool_", dtypes.bool_)
int8 = _make_scalar_type("int8", dtypes.int8)
int16 = _make_scalar_type("int16", dtypes.int16)
int32 = _make_scalar_type("int32", dtypes.int32)
int64 = _make_scalar_type("int64", dtypes.int64)
uint8 = _make_scalar_type("uint8", dtypes.uint8)
uint16 = _make_scalar_type("uint16", dtypes.uint16)
uint32 = _make_scalar_type("uint32", dtypes.uint32)
uint64 = _make_scalar_type("uint64", dtypes.uint64)
float16 = _make_scalar_type("float16", dtypes.float16)
bfloat16 = _make_scalar_type("bfloat16", dtypes.bfloat16)
float32 = _make_scalar_type("float32", dtypes.float32)
float64 = _make_scalar_type("float64", dtypes.float64)
complex64 = _make_scalar_type("complex64", dtypes.complex64)
complex128 = _make_scalar_type("complex128", dtypes.complex128)
float8_e4m3fn = _make_scalar_type("float8_e4m3fn", dtypes.float8_e4m3fn)
float8_e5m2 = _make_scalar_type("float8_e5m2", dtypes.float8_e5m2)
float8_e4m3b11fnuz = _make_scalar_type("float8_e4m3b11fnuz", dtypes.float8_e4m3b11fnuz)
float8_e4m3fnuz = _make_scalar_type("float8_e4m3fnuz", dtypes.float8_e4m3fnuz)
float8_e5m2fnuz = _make_scalar_type("float8_e5m2fnuz", dtypes.float8_e5m2fnuz)
float8_e3m4 = _make_scalar_type("float8_e3m4", dtypes.float8_e3m4)
float8_e4m3 = _make_scalar_type("float8_e4m3", dtypes.float8_e4m3)
float8_e8m0fnu = _make_scalar_type("float8_e8m0fnu", dtypes.float8_e8m0fnu)
float6_e2m3fn = _make_scalar_type("float6_e2m3fn", dtypes.float6_e2m3fn)
float6_e3m2fn = _make_scalar_type("float6_e3m2fn", dtypes.float6_e3m2fn)
float4_e2m1fn = _make_scalar_type("float4_e2m1fn", dtypes.float4_e2m1fn)
int1 = _make_scalar_type("int1", dtypes.int1)
int2 = _make_scalar_type("int2", dtypes.int2)
int4 = _make_scalar_type("int4", dtypes.int4)
uint1 = _make_scalar_type("uint1", dtypes.uint1)
uint2 = _make_scalar_type("uint2", dtypes.uint2)
uint4 = _make_scalar_type("uint4", dtypes.uint4)

# JAX's aliases: the 64-bit names, canonicalized to 32 bits when the value is made (x64 off).
int_ = int64
uint = uint64
float_ = float64
complex_ = complex128
single, double = float32, float64
csingle, cdouble = complex64, complex128

# The abstract scalar hierarchy is NumPy's (``jnp.issubdtype(x.dtype, jnp.floating)``).
generic = np.generic
number = np.number
inexact = np.inexact
floating = np.floating
complexfloating = np.complexfloating
integer = np.integer
signedinteger = np.signedinteger
unsignedinteger = np.unsignedinteger
character = np.character
flexible = np.flexible
object_ = np.object_

# Warned when a complex value is cast to a real dtype (``lax.convert_element_type``).
ComplexWarning = np.exceptions.ComplexWarning

dtype = np.dtype
finfo = dtypes.finfo
iinfo = dtypes.iinfo
promote_types = dtypes.promote_types
issubdtype = dtypes.issubdtype


def result_type(*args):
    """``jnp.result_type``: the promoted, canonical dtype of values and dtypes."""
    return dtypes.result_type(*args)


def can_cast(from_, to, casting="safe"):
    return np.can_cast(np.dtype(from_), np.dtype(to), casting=casting)


__all__ = [
    "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64", "complex64", "complex128", "float8_e4m3fn",
    "float8_e5m2", "float8_e4m3b11fnuz", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e3m4",
    "float8_e4m3", "float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn", "int1",
    "int2", "int4", "uint1", "uint2", "uint4", "int_", "uint",
    "float_", "complex_", "single", "double", "csingle", "cdouble", "generic", "number",
    "inexact", "floating", "complexfloating", "integer", "signedinteger", "unsignedinteger",
    "character", "flexible", "object_", "ComplexWarning",
    "dtype", "finfo", "iinfo", "promote_types", "issubdtype", "result_type", "can_cast",
    "isdtype",
]


def isdtype(dtype, kind):
    """The array API's dtype-kind test (``'real floating'``, ``'integral'``, a dtype, a tuple)."""
    dtype = np.dtype(dtype)
    if isinstance(kind, tuple):
        return any(isdtype(dtype, k) for k in kind)
    if not isinstance(kind, str):
        return dtype == np.dtype(kind)
    kinds = {
        "bool": dtype == np.bool_,
        "signed integer": dtypes.is_int(dtype) and dtypes.issubdtype(dtype, np.signedinteger),
        "unsigned integer": dtypes.is_int(dtype) and dtypes.issubdtype(dtype, np.unsignedinteger),
        "integral": dtypes.is_int(dtype),
        "real floating": dtypes.is_float(dtype),
        "complex floating": dtype.kind == "c",
    }
    kinds["numeric"] = kinds["integral"] or kinds["real floating"] or kinds["complex floating"]
    if kind not in kinds:
        raise ValueError(f"Unrecognized kind {kind!r}; expected one of {sorted(kinds)}")
    return kinds[kind]
