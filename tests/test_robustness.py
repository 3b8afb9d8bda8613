"""Robustness of the public API on odd inputs, thread safety of the jit cache, and a soak test.

Regressions found here: big-endian NumPy inputs were rejected ("minijax does not support dtype
>f4") instead of converted; ``jnp.asarray(2**40)`` silently wrapped to 0 instead of raising
OverflowError.
"""

import os
import threading
import tracemalloc

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minijax
import minijax.numpy as jnp

_DTYPES = [np.float32, np.int32, np.int16, np.uint8, np.float16, np.bool_]


@given(
    x=hnp.arrays(
        st.sampled_from(_DTYPES),
        hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4),
    ),
    big_endian=st.booleans(),
    transpose=st.booleans(),
)
def test_odd_numpy_inputs_roundtrip_eager_and_jit(x, big_endian, transpose):
    if transpose and x.ndim >= 2:
        x = x.T  # non-contiguous
    if big_endian and x.dtype.itemsize > 1:
        x = x.astype(x.dtype.newbyteorder(">"))
    want = np.asarray(x, dtype=x.dtype.newbyteorder("="))
    np.testing.assert_array_equal(np.asarray(jnp.asarray(x)), want)
    np.testing.assert_array_equal(np.asarray(minijax.jit(lambda a: a)(x)), want)
    np.testing.assert_array_equal(np.asarray(minijax.device_put(x)), want)
    if x.dtype.kind in "fiu" and x.dtype != np.float16:
        np.testing.assert_array_equal(
            np.asarray(minijax.jit(lambda a: a * 1 + 0)(x)), (want * 1 + 0).astype(want.dtype))


def test_big_endian_values_are_converted_not_reinterpreted():
    x = np.array([1.5, -2.0, 3.25], dtype=">f4")
    np.testing.assert_allclose(np.asarray(jnp.sin(x)), np.sin(x.astype("<f4")), rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(minijax.jit(lambda a: a + 1)(x)), [2.5, -1.0, 4.25])
    np.testing.assert_array_equal(np.asarray(jnp.asarray(np.arange(3, dtype=">i4")) + 0), [0, 1, 2])


def test_big_endian_after_a_cached_native_call():
    """jaxlib's C++ fast path keys a NumPy argument on (kind, itemsize) and copies its raw
    bytes, so once a native-order call is cached, a big-endian array of the same shape would
    be read as garbage (JAX 0.10 does this). Found by CI running the test above after other
    tests had cached jnp.sin for f32[3]."""
    native = np.array([1.5, -2.0, 3.25], np.float32)
    big = native.astype(">f4")
    f = minijax.jit(lambda a: a * 2 + 1)
    for x in (native, native, big, native, big):
        np.testing.assert_array_equal(np.asarray(f(x)), native * 2 + 1)
    cos_native = np.asarray(jnp.cos(native))
    np.testing.assert_allclose(cos_native, np.cos(native), rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(jnp.cos(big)), cos_native)  # the same program
    ints = np.arange(4, dtype=np.int32)
    g = minijax.jit(lambda a: a - 1)
    for x in (ints, ints.astype(">i4")):
        np.testing.assert_array_equal(np.asarray(g(x)), ints - 1)


def test_nan_inf_zero_size_and_scalars():
    v = np.array([np.nan, np.inf, -np.inf, 0.0], np.float32)
    np.testing.assert_array_equal(np.asarray(minijax.jit(lambda a: a + 1)(v)), v + 1)
    assert float(minijax.jit(lambda a: a.sum())(np.zeros((0, 3), np.float32))) == 0.0
    assert minijax.jit(lambda a: a * 2)(np.zeros((0,), np.int32)).shape == (0,)
    assert int(minijax.jit(lambda a: a * 2)(3)) == 6
    assert jnp.zeros((2, 0, 3)).sum(axis=1).shape == (2, 3)


def test_huge_python_ints_raise_instead_of_wrapping():
    with pytest.raises(OverflowError, match="1099511627776"):
        jnp.asarray(2**40)
    with pytest.raises(OverflowError):
        minijax.jit(lambda a: a * 2)(2**40)
    assert int(jnp.asarray(2**31 - 1)) == 2**31 - 1


def test_threads_share_one_jit_cache_and_first_call_races():
    for trial in range(3):
        f = minijax.jit(lambda a, k=trial: jnp.sin(a) * 2 + k)
        x = np.linspace(-1, 1, 16, dtype=np.float32)
        want = np.sin(x) * 2 + trial
        errors, barrier = [], threading.Barrier(4)

        def worker(f=f, x=x, want=want, barrier=barrier, errors=errors):
            try:
                barrier.wait()  # all threads make the first (compiling) call together
                for i in range(25):
                    out = np.asarray(f(x + 0 * i))
                    np.testing.assert_allclose(out, want, rtol=1e-6)
            except Exception as e:  # noqa: BLE001
                errors.append(e)

        threads = [threading.Thread(target=worker) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors
        assert f._cache_size() == 1


@pytest.mark.long
def test_soak_cached_calls_in_threads_keep_memory_stable():
    scale = float(os.environ.get("MINIJAX_LONG_SCALE", "1"))
    n = max(400, int(10_000 * scale))
    f = minijax.jit(lambda a, b: (a * b + 1.0).sum())
    a = jnp.arange(64, dtype=jnp.float32)
    b = jnp.ones(64, jnp.float32)
    want = float(np.arange(64).sum() + 64)
    for _ in range(200):  # warm up caches and allocator
        f(a, b)
    errors = []

    def worker(count):
        try:
            for _ in range(count):
                out = f(a, b)
                if float(out) != want:
                    errors.append(float(out))
                    return
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    def run(total):
        threads = [threading.Thread(target=worker, args=(total // 4,)) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    tracemalloc.start()
    run(n // 2)
    first = tracemalloc.get_traced_memory()[0]
    run(n // 2)
    second = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert not errors, errors[:3]
    # Python-side allocations must not grow with the number of calls
    assert second - first < 256 * 1024, (first, second)
    assert f._cache_size() == 1


def test_numpy_arguments_take_the_device_path_in_every_position():
    """NumPy leaves are put on the device and the call re-enters the C++ path: top-level,
    keyword, nested, donated, next to static arguments, with x64 narrowing and big-endian
    data, and into a program whose input is sharded (placed by the Python path)."""
    traces = []

    def f(params, x, scale, *, y):
        traces.append(1)
        return {"w": params["w"] * scale + x.sum() + y["b"].sum()}

    jf = minijax.jit(f, static_argnums=2, donate_argnums=0)
    rng = np.random.default_rng(0)
    for order in ("<", ">", "<"):
        w = rng.normal(size=(3, 4))  # float64: narrowed to float32 with x64 off
        x = rng.normal(size=(2,)).astype(np.dtype(np.float32).newbyteorder(order))
        b = np.arange(3, dtype=np.int32)
        params = {"w": minijax.device_put(w)}
        out = jf(params, x, 2.0, y={"b": b})
        want = w.astype(np.float32) * 2.0 + x.astype(np.float32).sum() + b.sum()
        np.testing.assert_allclose(np.asarray(out["w"]), want, rtol=1e-6)
        assert out["w"].dtype == np.float32
        nested = jf({"w": w.astype(np.float32)}, x, 2.0, y={"b": b})  # a nested NumPy leaf
        np.testing.assert_allclose(np.asarray(nested["w"]), want, rtol=1e-6)
    assert len(traces) == 1
    from minijax.sharding import NamedSharding, PartitionSpec

    mesh = minijax.make_mesh((len(minijax.devices()),), ("d",))
    sharded = minijax.jit(lambda a: a * 3, in_shardings=NamedSharding(mesh, PartitionSpec("d")))
    a = np.arange(8 * len(minijax.devices()), dtype=np.float32)
    for _ in range(2):
        out = sharded(a)
        np.testing.assert_array_equal(np.asarray(out), a * 3)
        if len(minijax.devices()) > 1:  # on one device (a 1-GPU run) it is that device's
            assert out.sharding.spec == PartitionSpec("d")


def test_a_numpy_argument_of_an_unsupported_dtype_names_its_path():
    f = minijax.jit(lambda a, b: a)
    # JAX 0.10.2's words (recorded from it), the leaf named by its parameter path
    with pytest.raises(TypeError, match=r"as an abstract array\. The problematic value is of "
                                        r"type <class 'numpy\.ndarray'> and was passed to the "
                                        r"function at path a\.\n"):
        f(np.array(["a", "b"]), 1.0)
    with pytest.raises(TypeError, match=r"was passed to the function at path a\['x'\]\.\n"):
        f({"x": np.array([object()])}, 1.0)
    np.testing.assert_array_equal(f(np.ones(2, np.float32), 1.0), [1.0, 1.0])  # still works
