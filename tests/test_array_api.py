"""The ``jax.Array`` surface of ``minijax.Array`` and of tracers, ``isinstance`` of tracers,
``lax.broadcast_shapes`` and the ``jax.dtypes`` names. Values are checked against NumPy; the
name lists and error kinds are JAX 0.10.2's (``dir(jax.Array)``, its Tracer)."""

import copy
import pickle

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import dtypes, lax
from minijax.errors import ConcretizationTypeError, TracerIntegerConversionError
from minijax.experimental.layout import Format, Layout

# dir(jax.Array) of JAX 0.10.2, public names.
JAX_ARRAY_NAMES = [
    "T", "addressable_data", "addressable_shards", "all", "any", "argmax", "argmin",
    "argpartition", "argsort", "astype", "at", "byteswap", "choose", "clip", "committed",
    "compress", "conj", "conjugate", "copy", "copy_to_host_async", "cumprod", "cumsum", "device",
    "diagonal", "dot", "dtype", "flat", "flatten", "global_shards", "imag", "is_fully_addressable",
    "is_fully_replicated", "item", "itemsize", "mT", "max", "mean", "min", "nbytes", "ndim",
    "nonzero", "prod", "ptp", "ravel", "real", "repeat", "reshape", "round", "searchsorted",
    "shape", "sharding", "size", "sort", "squeeze", "std", "sum", "swapaxes", "take", "to_device",
    "trace", "transpose", "var", "view",
]
# What JAX's concrete ArrayImpl adds.
JAX_ARRAY_IMPL_NAMES = [
    "__array__", "__array_namespace__", "__bool__", "__complex__", "__contains__", "__copy__",
    "__deepcopy__", "__dlpack__", "__dlpack_device__", "__float__", "__format__", "__hex__",
    "__index__", "__int__", "__iter__", "__len__", "__oct__", "__round__", "__abs__", "__pos__",
    "__matmul__", "__rmatmul__", "__divmod__", "__rdivmod__", "__setitem__", "__reduce__", "aval",
    "block_until_ready", "clone", "delete", "devices", "format", "is_deleted", "is_ready",
    "on_device_size_in_bytes", "platform", "tobytes", "tolist", "traceback",
    "unsafe_buffer_pointer", "weak_type",
]

A = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5


def x():
    return jnp.asarray(A)


def check(got, want):
    got = np.asarray(got)
    assert got.shape == np.shape(want) and got.dtype == np.asarray(want).dtype, (got, want)
    np.testing.assert_array_equal(got, want)


# ------------------------------------------------------------------------------------------------
# The names


def test_array_and_tracer_have_every_jax_array_name():
    concrete = x()
    missing = [n for n in JAX_ARRAY_NAMES + JAX_ARRAY_IMPL_NAMES if n not in dir(concrete)]
    assert not missing
    assert not [n for n in JAX_ARRAY_NAMES if n not in dir(minijax.Array)]
    # The tracer class has every method (buffer-only ones raise when called, tested below).
    tracer_names = [n for n in JAX_ARRAY_NAMES if n not in ("sharding", "device",
                                                            "copy_to_host_async")]
    assert not [n for n in tracer_names if not hasattr(minijax.core.Tracer, n)]


def test_tracers_are_arrays_under_every_transformation():
    seen = []

    def f(v):
        seen.append((isinstance(v, minijax.Array), isinstance(v, jnp.ndarray)))
        return (v * v).sum()

    f(x())
    minijax.jit(f)(x())
    minijax.grad(f)(x())
    minijax.vmap(f)(x())
    minijax.jit(minijax.vmap(minijax.grad(f)))(x())
    assert seen == [(True, True)] * 5
    for other in (1.0, np.ones(2), [1.0], minijax.ShapeDtypeStruct((2,), np.float32)):
        assert not isinstance(other, minijax.Array)
    assert issubclass(type(x()), minijax.Array)
    assert not issubclass(minijax.core.Tracer, minijax.Array)  # the check is per instance


def test_concrete_checks_still_mean_a_buffer():
    """A traced value passed where minijax asks for a concrete array keeps its old meaning."""
    assert np.asarray(minijax.device_get({"a": x()})["a"]).shape == (2, 3)

    def f(v):
        put = minijax.device_put(v)  # staged as JAX's device_put equation: a new tracer
        assert put is not v and minijax.typeof(put) == minijax.typeof(v)
        return v + 1

    check(minijax.jit(f)(x()), A + 1)


# ------------------------------------------------------------------------------------------------
# Methods, eager and traced, against NumPy

IDX = np.array([2, 0, 1])
ROW = np.array([-1.0, 0.5, 2.0], np.float32)


METHODS = {
    "sort": (lambda v: v.sort(axis=0), lambda a: np.sort(a, axis=0)),
    "sort_desc": (lambda v: v.sort(descending=True), lambda a: -np.sort(-a)),
    "argsort": (lambda v: v.argsort(axis=1), lambda a: np.argsort(a, axis=1).astype(np.int32)),
    "searchsorted": (lambda v: v[0].searchsorted(ROW),
                     lambda a: np.searchsorted(a[0], ROW).astype(np.int32)),
    "take": (lambda v: v.take(IDX), lambda a: a.take(IDX)),
    "take_axis": (lambda v: v.take(IDX, axis=1), lambda a: a.take(IDX, axis=1)),
    "compress": (lambda v: v.compress(np.array([False, True]), axis=0),
                 lambda a: a.compress([False, True], axis=0)),
    "choose": (lambda v: jnp.asarray(np.array([1, 0, 1])).choose(v),
               lambda a: np.array([1, 0, 1]).choose(a)),
    "diagonal": (lambda v: v.diagonal(1), lambda a: a.diagonal(1)),
    "trace": (lambda v: v.trace(), lambda a: a.trace()),
    "nonzero": (lambda v: v.nonzero(size=6)[1], lambda a: a.nonzero()[1].astype(np.int32)),
    "view_i32": (lambda v: v.view(jnp.int32), lambda a: a.view(np.int32)),
    "view_u8": (lambda v: v.view(jnp.uint8), lambda a: a.view(np.uint8)),
    "view_u16": (lambda v: v.view(jnp.uint16), lambda a: a.view(np.uint16)),
    "view_c64": (lambda v: v[:, :2].view(jnp.complex64),
                 lambda a: a[:, :2].copy().view(np.complex64)),
    "view_bool": (lambda v: (v > 0).view(jnp.uint8), lambda a: (a > 0).view(np.uint8)),
    "byteswap": (lambda v: v.byteswap(), lambda a: a.byteswap()),
    "reshape_F": (lambda v: v.reshape((3, 2), order="F"), lambda a: a.reshape((3, 2), order="F")),
    "reshape_args": (lambda v: v.reshape(3, 2), lambda a: a.reshape(3, 2)),
    "ravel_F": (lambda v: v.ravel("F"), lambda a: a.ravel("F")),
    "flatten": (lambda v: v.flatten(), lambda a: a.flatten()),
    "copy": (lambda v: v.copy(), lambda a: a.copy()),
    "copy.copy": (lambda v: copy.copy(v), lambda a: a.copy()),
    "deepcopy": (lambda v: copy.deepcopy(v), lambda a: a.copy()),
    "astype": (lambda v: v.astype(jnp.int32, copy=True), lambda a: a.astype(np.int32)),
    "contains": (lambda v: jnp.asarray(-0.5 in v[0]), lambda a: np.asarray(-0.5 in a[0])),
    "swapaxes": (lambda v: v.swapaxes(0, 1), lambda a: a.swapaxes(0, 1)),
    "cumsum": (lambda v: v.cumsum(1), lambda a: a.cumsum(1)),
    "ptp": (lambda v: v.ptp(0), lambda a: np.ptp(a, 0)),
}


@pytest.mark.parametrize("name", METHODS)
def test_methods_match_numpy_eager_and_under_jit(name):
    method, expected = METHODS[name]
    check(method(x()), expected(A))
    if name != "contains":  # `in` calls bool() on its result: concrete values only
        check(minijax.jit(method)(x()), expected(A))


def test_argpartition_partitions():
    out = np.asarray(x().argpartition(1))
    part = np.take_along_axis(A, out, axis=-1)
    assert (part[:, :1] <= part[:, 1:2]).all() and (part[:, 1:2] <= part[:, 2:]).all()
    np.testing.assert_array_equal(np.sort(out, axis=-1), np.tile(np.arange(3), (2, 1)))


def test_methods_under_vmap_and_grad():
    rows = minijax.vmap(lambda r: r.sort())(x())
    check(rows, np.sort(A, axis=1))
    check(minijax.vmap(lambda r: r.take(np.array([2, 0])))(x()), A[:, [2, 0]])
    # d/dX of trace(X[:, :2]) + sum(X.take([2, 0], axis=1)): the identity plus the taken columns.
    g = minijax.grad(lambda v: v[:, :2].trace() + v.take(np.array([2, 0]), axis=1).sum())(x())
    want = np.zeros_like(A)
    want[[0, 1], [0, 1]] += 1
    want[:, [2, 0]] += 1
    check(g, want)


def test_byteswap_and_view_of_complex_and_scalars():
    c = np.array([1 + 2j, -3.5 + 0.25j], np.complex64)
    check(jnp.asarray(c).byteswap(), c.byteswap())
    check(jnp.asarray(c).view(jnp.float32), c.view(np.float32))
    check(jnp.float32(1.5).view(jnp.int32), np.float32(1.5).view(np.int32))
    check(jnp.asarray(np.array([1, 0, 1], np.uint8)).view(jnp.bool_), np.array([True, False, True]))
    with pytest.raises(ValueError, match="0d array"):
        jnp.float32(1.5).view(jnp.uint8)
    with pytest.raises(ValueError, match="divisor"):
        jnp.ones(3, jnp.uint8).view(jnp.uint16)
    with pytest.raises(NotImplementedError):
        x().view(jnp.int32, type=np.ndarray)


# ------------------------------------------------------------------------------------------------
# Concrete-only parts


def test_host_conversions():
    v = x()
    assert v.tolist() == A.tolist()
    assert v.tobytes() == A.tobytes() and v.tobytes("F") == A.tobytes("F")
    assert v[1, 2].item() == A[1, 2].item() and v.item(4) == A.item(4)
    with pytest.raises(ValueError):
        v.item()
    i = jnp.int32(255)
    assert hex(i) == "0xff" and oct(i) == "0o377" and i.__hex__() == "0xff"
    assert f"{v[0, 1]:.2f}" == f"{A[0, 1]:.2f}" and f"{v}" == f"{A}"
    with pytest.raises(TypeError):
        f"{v:>10}"  # noqa: B018 - NumPy refuses a non-empty spec for an n-d array
    assert v.nbytes == A.nbytes and v.itemsize == 4 and v.size == 6 and v.ndim == 2
    assert v.on_device_size_in_bytes() >= A.nbytes
    assert isinstance(v.unsafe_buffer_pointer(), int)
    assert v.block_until_ready() is v and v.is_ready()
    back = pickle.loads(pickle.dumps(v))
    check(back, A)
    assert v.__array_namespace__() is jnp and v.__array_namespace__(api_version="2024.12") is jnp
    with pytest.raises(ValueError, match="api_version"):
        v.__array_namespace__(api_version="2021.12")


def test_immutability_errors():
    v = x()
    with pytest.raises(TypeError, match="immutable"):
        v[0] = 1.0
    with pytest.raises(NotImplementedError, match="flatten"):
        v.flat  # noqa: B018
    with pytest.raises(ValueError, match="one-dimensional"):
        1.0 in v  # noqa: B015
    with pytest.raises(TypeError, match="unsupported operand"):
        "a" in v[0]  # noqa: B015
    with pytest.raises(NotImplementedError, match="order=A"):
        v.reshape(3, 2, order="A")


def test_copy_is_a_new_buffer_that_survives_donation():
    v = x()
    for c in (v.copy(), copy.copy(v), copy.deepcopy(v), v.astype(v.dtype, copy=True)):
        assert c.unsafe_buffer_pointer() != v.unsafe_buffer_pointer()
    keep = v.copy()
    minijax.jit(lambda a: a + 1, donate_argnums=0)(v)
    check(keep, A)


def test_dlpack_round_trip_and_device():
    v = x()
    check(np.from_dlpack(v), A)
    dev_type, dev_id = v.__dlpack_device__()
    assert (int(dev_type), dev_id) == ((1, 0) if v.platform() == "cpu" else (2, dev_id))
    assert type(v.__dlpack__(copy=True)).__name__ == "PyCapsule"
    with pytest.raises(BufferError, match="dl_device"):
        v.__dlpack__(dl_device=(99, 0))


def test_placement_and_deletion():
    v = x()
    dev = minijax.devices()[0]
    assert v.devices() == {dev} and v.device == dev
    assert v.is_fully_addressable and v.is_fully_replicated
    moved = v.to_device(dev)
    check(moved, A)
    assert moved.astype(jnp.int32, device=dev).devices() == {dev}
    (shard,) = v.addressable_shards
    check(shard.data, A)
    check(v.addressable_data(0), A)
    assert v.global_shards[0].device == dev
    fmt = v.format
    assert isinstance(fmt, Format) and fmt.layout == Layout((0, 1), ())
    assert fmt.sharding == v.sharding
    v.copy_to_host_async()
    check(v, A)
    w = x()
    w.delete()
    assert w.is_deleted()
    with pytest.raises(RuntimeError, match="deleted"):
        np.asarray(w)


@pytest.mark.devices(2)
def test_sharded_array_parts():
    from minijax.sharding import Mesh, NamedSharding, PartitionSpec

    mesh = Mesh(np.array(minijax.devices()[:2]), ("x",))
    s = NamedSharding(mesh, PartitionSpec("x"))
    v = jnp.arange(4.0).to_device(s)
    assert v.sharding == s and not v.is_fully_replicated and v.is_fully_addressable
    assert len(v.addressable_shards) == 2
    check(v.addressable_data(1), np.array([2.0, 3.0], np.float32))
    with pytest.raises(BufferError):
        v.__dlpack__()
    check(v.copy(), np.arange(4.0, dtype=np.float32))
    assert v.copy().sharding == s


# ------------------------------------------------------------------------------------------------
# Tracers: the buffer-only parts raise as in JAX, naming the user's line


@pytest.mark.parametrize("use", [
    lambda t: t.tolist(), lambda t: t.item(), lambda t: t.tobytes(), lambda t: t.devices(),
    lambda t: t.delete(), lambda t: t.is_deleted(), lambda t: t.on_device_size_in_bytes(),
    lambda t: t.unsafe_buffer_pointer(), lambda t: t.addressable_data(0),
    lambda t: t.addressable_shards, lambda t: t.global_shards, lambda t: t.committed,
    lambda t: t.is_fully_addressable, lambda t: t.is_fully_replicated, lambda t: t.__dlpack__(),
    lambda t: pickle.dumps(t), lambda t: t.traceback,
])
def test_tracer_concretization_errors(use):
    def f(t):
        use(t)
        return t

    for transform in (minijax.jit, minijax.vmap):
        with pytest.raises(ConcretizationTypeError, match="test_array_api.py"):
            transform(f)(x())


def test_tracer_attribute_errors_and_index_error():
    def f(t):
        for name in ("sharding", "device", "block_until_ready", "copy_to_host_async"):
            assert not hasattr(t, name)
        assert getattr(t, "sharding", None) is None
        with pytest.raises(TracerIntegerConversionError):
            hex(t[0, 0].astype(jnp.int32))
        with pytest.raises(TypeError, match="immutable"):
            t[0] = 1.0
        with pytest.raises(NotImplementedError):
            t.flat  # noqa: B018
        assert t.nbytes == A.nbytes and t.itemsize == 4
        return t.to_device(minijax.devices()[0]) + t.__array_namespace__().ones(3)

    check(minijax.jit(f)(x()), A + 1)


# ------------------------------------------------------------------------------------------------
# lax.broadcast_shapes


@pytest.mark.parametrize("shapes", [
    [(2, 1), (3,)], [(3, 1), (1, 4), (5, 1, 1)], [(1,), (0,)], [(), ()], [(), (2, 3)],
    [(2, 3), (3,)], [(4, 1, 2), (3, 1), (1,)], [(2,)],
])
def test_broadcast_shapes_matches_numpy(shapes):
    out = lax.broadcast_shapes(*shapes)
    assert tuple(out) == np.broadcast_shapes(*shapes)


def test_broadcast_shapes_returns_input_when_no_broadcast_is_needed():
    first = [2, 1]
    assert lax.broadcast_shapes(first) is first
    longest = [2, 3]
    assert lax.broadcast_shapes(longest, (3,)) is longest
    assert lax.broadcast_shapes((1, 2), (np.int64(3), 1)) == (3, 2)


@pytest.mark.parametrize("shapes, error, match", [
    ([(2,), (3,)], ValueError, r"Incompatible shapes for broadcasting: shapes=\[\(2,\), \(3,\)\]"),
    ([(2, 3), (4, 2, 2)], ValueError, "Incompatible shapes"),
    ([(2.5,)], TypeError, "concrete values of integer type"),
    ([(-1,)], TypeError, "non-negative"),
])
def test_broadcast_shapes_errors(shapes, error, match):
    with pytest.raises(error, match=match):
        lax.broadcast_shapes(*shapes)


# ------------------------------------------------------------------------------------------------
# jax.dtypes names


def test_prng_key_dtype():
    typed, raw = minijax.random.key(0), minijax.random.PRNGKey(0)
    assert jnp.issubdtype(typed.dtype, dtypes.prng_key)
    assert jnp.issubdtype(typed.dtype, dtypes.extended)
    assert jnp.issubdtype(typed.dtype, np.generic)
    assert not jnp.issubdtype(raw.dtype, dtypes.prng_key)
    assert not jnp.issubdtype(typed.dtype, np.integer)
    assert not jnp.issubdtype(np.float32, dtypes.extended)
    assert dtypes.issubdtype(typed.dtype, typed.dtype)
    assert dtypes.canonicalize_dtype(typed.dtype, allow_extended_dtype=True) is typed.dtype
    with pytest.raises(ValueError, match="extended dtype"):
        dtypes.canonicalize_dtype(typed.dtype)
    assert issubclass(dtypes.prng_key, dtypes.extended) and issubclass(dtypes.extended, np.generic)


@pytest.mark.parametrize("a, b, want", [
    (dtypes.bfloat16, np.floating, True), (dtypes.bfloat16, np.number, True),
    (dtypes.bfloat16, np.generic, True), (dtypes.bfloat16, np.integer, False),
    (dtypes.float8_e4m3fn, np.inexact, True), (dtypes.float8_e4m3fn, dtypes.bfloat16, False),
    (np.int8, np.signedinteger, True), (np.floating, np.number, True),
    (np.uint8, np.signedinteger, False), (np.complex64, np.inexact, True),
])
def test_issubdtype_hierarchy(a, b, want):
    assert dtypes.issubdtype(a, b) is want


def test_scalar_type_of_and_itemsize_bits():
    assert dtypes.scalar_type_of(1) is int and dtypes.scalar_type_of(True) is bool
    assert dtypes.scalar_type_of(1j) is complex and dtypes.scalar_type_of(np.float16(1)) is float
    assert dtypes.scalar_type_of(jnp.ones(2, jnp.bfloat16)) is float
    assert dtypes.scalar_type_of(jnp.uint8(1)) is int
    for dt in (np.int8, np.uint16, np.float32, np.complex64, np.float64, dtypes.bfloat16):
        assert dtypes.itemsize_bits(dt) == 8 * np.dtype(dt).itemsize
    assert dtypes.itemsize_bits(np.bool_) == 8
    with pytest.raises(ValueError, match="None"):
        dtypes.itemsize_bits(None)
    with pytest.raises(ValueError, match="unexpected input"):
        dtypes.itemsize_bits(minijax.random.key(0).dtype)
    assert dtypes.canonicalize_dtype(np.int64) == np.int32
    assert dtypes.float0.itemsize == 0
    assert dtypes.result_type(1, 2.0) == np.float32
    assert issubclass(dtypes.TypePromotionError, TypeError)
    assert dtypes.finfo(dtypes.bfloat16).bits == 16 and dtypes.iinfo(np.int8).max == 127
