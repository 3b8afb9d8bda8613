"""jnp names of JAX 0.10.2 added in round 12: mgrid/ogrid/r_/c_/s_/index_exp (against JAX's
recorded results, tests/data/record_numpy_names_r12.py), print options, array_str/repr,
frombuffer/fromstring/fromiter/from_dlpack, savez and NumPy's abstract scalar types."""

import json
import pathlib
import warnings

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp

_DATA = json.loads(pathlib.Path(__file__).with_name("data").joinpath(
    "numpy_names_r12.json").read_text())


def _check(out, want):
    if "list" in want:
        assert isinstance(out, list) and len(out) == len(want["list"])
        for o, w in zip(out, want["list"]):
            _check(o, w)
        return
    assert isinstance(out, minijax.Array)
    assert (list(out.shape), str(out.dtype), out.weak_type) == (
        want["shape"], want["dtype"], want["weak_type"])
    np.testing.assert_allclose(np.asarray(out, np.float64), np.array(want["value"]),
                               rtol=1e-6)


@pytest.mark.parametrize("case", sorted(_DATA["cases"]))
def test_index_tricks_match_jax(case):
    _check(eval(case), _DATA["cases"][case])


@pytest.mark.parametrize("case", sorted(_DATA["errors"]))
def test_index_tricks_errors_match_jax(case):
    kind, message = _DATA["errors"][case]
    with pytest.raises(Exception) as info:
        eval(case)
    assert type(info.value).__name__ == kind
    if kind == "ValueError":  # the TypeError is jnp.concatenate's, worded as minijax's own
        assert str(info.value).split("\n")[0] == message


def test_index_tricks_under_jit_and_concreteness():
    f = minijax.jit(lambda x: jnp.r_[x, 0:2, x * 2])
    np.testing.assert_array_equal(f(jnp.arange(2.)), [0, 1, 0, 1, 0, 2])
    with pytest.raises(minijax.errors.ConcretizationTypeError):
        minijax.jit(lambda n: jnp.mgrid[0:n])(3)
    assert len(jnp.r_) == 0 and len(jnp.c_) == 0


def test_s_and_index_exp_are_numpys():
    assert jnp.s_ is np.s_ and jnp.index_exp is np.index_exp
    x = jnp.arange(10)
    np.testing.assert_array_equal(x[jnp.s_[2:8:3]], [2, 5])
    assert jnp.index_exp[1:2] == (slice(1, 2),)


def test_print_options():
    x = jnp.array([1 / 3, 2 / 3])
    with jnp.printoptions(precision=2):
        assert jnp.get_printoptions()["precision"] == 2
        assert repr(x) == "Array([0.33, 0.67], dtype=float32)"
        assert jnp.array_str(x) == "[0.33 0.67]"
    assert jnp.get_printoptions() == np.get_printoptions()
    old = jnp.get_printoptions()
    try:
        jnp.set_printoptions(precision=3)
        assert str(x) == "[0.333 0.667]"
    finally:
        np.set_printoptions(**old)
    assert jnp.array_repr is np.array_repr and jnp.array_str is np.array_str


def test_frombuffer_fromstring():
    out = jnp.frombuffer(np.arange(3, dtype=np.float32).tobytes() + b"\0\0\0\0", count=2,
                         dtype=jnp.float32, offset=4)
    assert out.dtype == np.float32 and not out.weak_type
    np.testing.assert_array_equal(out, [1, 2])
    out = jnp.frombuffer(np.arange(2.).tobytes())  # float64 data, canonicalized (x64 off)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(jnp.frombuffer(b"ab", dtype=jnp.uint8), [97, 98])
    out = jnp.fromstring("1, 2, 3", dtype=int, sep=",")
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [1, 2, 3])
    with pytest.raises(TypeError):
        jnp.fromstring("1 2")  # sep is keyword-only and required, as in JAX


def test_fromiter_is_refused_as_in_jax():
    with pytest.raises(NotImplementedError, match="may be non-pure"):
        jnp.fromiter(iter([1, 2]), dtype=float)


def test_from_dlpack():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = jnp.from_dlpack(a)
    assert isinstance(out, minijax.Array) and out.committed and not out.weak_type
    np.testing.assert_array_equal(out, a)
    assert jnp.from_dlpack(np.arange(3)).dtype == np.int32  # canonicalized
    back = jnp.from_dlpack(jnp.arange(3.), copy=True)
    np.testing.assert_array_equal(back, [0, 1, 2])
    np.testing.assert_array_equal(jnp.from_dlpack(np.array([True, False])), [True, False])
    out = jnp.from_dlpack(a, device=minijax.devices()[0])
    assert out.devices() == {minijax.devices()[0]}
    with pytest.raises(TypeError, match="must have __dlpack__ and __dlpack_device__"):
        jnp.from_dlpack([1, 2])


def test_savez_roundtrip(tmp_path):
    path = tmp_path / "arrays.npz"
    jnp.savez(path, a=jnp.arange(3), b=jnp.ones((2,), jnp.float32))
    with np.load(path) as f:
        np.testing.assert_array_equal(f["a"], [0, 1, 2])
        assert f["b"].dtype == np.float32


def test_scalar_type_names():
    assert jnp.character is np.character and jnp.flexible is np.flexible
    assert jnp.object_ is np.object_ and jnp.ComplexWarning is np.exceptions.ComplexWarning
    assert jnp.issubdtype(np.str_, jnp.character) and jnp.issubdtype(np.str_, jnp.flexible)
    assert not jnp.issubdtype(jnp.float32, jnp.flexible)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        jnp.array(1 + 2j).astype(jnp.float32)
    assert any(issubclass(w.category, jnp.ComplexWarning) for w in caught)
