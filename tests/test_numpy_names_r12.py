"""jnp names of JAX 0.10.2 added in round 12: mgrid/ogrid/r_/c_/s_/index_exp and the narrow
dtypes (int2/int4/uint2/uint4, float4/float6/float8 variants: arrays, arithmetic, casts, jit,
promotion; against JAX's recorded results, tests/data/record_numpy_names_r12.py), print
options, array_str/repr, frombuffer/fromstring/fromiter/from_dlpack, savez and NumPy's abstract
scalar types."""

import json
import pathlib
import warnings

import ml_dtypes
import numpy as np
import pytest

import minijax
import minijax.numpy as jnp

jax = minijax  # the recorded cases are spelled with jax.jit

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
def test_cases_match_jax(case):
    _check(eval(case), _DATA["cases"][case])


# Failures of JAX 0.10.2 inside NumPy/ml_dtypes that minijax does not copy: the sum of a
# 2-/4-bit integer array (np.iinfo of a 'V' dtype; minijax sums in the array's dtype) and
# jnp.int2(2.5) (ml_dtypes' float-to-int2 cast reports an int4 overflow; minijax casts to -2).
_JAX_CRASHES = {c for c, (kind, msg) in _DATA["errors"].items()
                if msg == "Invalid integer data type 'V'."} | {"jnp.int2(2.5)"}


@pytest.mark.parametrize("case", sorted(set(_DATA["errors"]) - _JAX_CRASHES))
def test_errors_match_jax(case):
    kind, message = _DATA["errors"][case]
    with pytest.raises(Exception) as info:
        eval(case)
    assert type(info.value).__name__ == kind
    got = str(info.value).split("\n")[0]
    if kind in ("ValueError", "NotImplementedError"):
        assert got == message  # (the TypeError is jnp.concatenate's, worded as minijax's own)
    if kind == "TypePromotionError":  # JAX lists the dtypes of a binary op in another order
        assert got.split(") have")[1] == message.split(") have")[1]
        if case.startswith("jnp.promote_types"):
            assert got == message


@pytest.mark.parametrize("case", sorted(_DATA["promotions"]))
def test_narrow_promotions_match_jax(case):
    assert str(eval(case)) == _DATA["promotions"][case]


def test_narrow_dtypes_are_jnp_scalar_types():
    for name in ("int1", "int2", "int4", "uint1", "uint2", "uint4", "float4_e2m1fn",
                 "float6_e2m3fn", "float6_e3m2fn", "float8_e3m4", "float8_e4m3",
                 "float8_e8m0fnu"):
        t = getattr(jnp, name)
        assert np.dtype(t) == np.dtype(getattr(ml_dtypes, name)) and t == getattr(ml_dtypes, name)
    assert jnp.issubdtype(jnp.int4, jnp.signedinteger)
    assert jnp.issubdtype(jnp.uint2, jnp.unsignedinteger)
    assert not jnp.issubdtype(jnp.uint4, jnp.signedinteger)
    assert jnp.issubdtype(jnp.float4_e2m1fn, jnp.floating)
    assert jnp.isdtype(jnp.int4, "signed integer") and jnp.isdtype(jnp.uint4, "integral")
    assert jnp.isdtype(jnp.float8_e3m4, "real floating")
    assert jnp.iinfo(jnp.int4).min == -8 and jnp.finfo(jnp.float4_e2m1fn).max == 6
    jaxpr = minijax.make_jaxpr(lambda x: x * x)(jnp.ones(2, jnp.int4))
    assert "a:i4[2]" in str(jaxpr)
    jaxpr = minijax.make_jaxpr(lambda x: x * x)(jnp.ones(2, jnp.float4_e2m1fn))
    assert "a:f4_e2m1fn[2]" in str(jaxpr)


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
        minijax.lax.convert_element_type(jnp.array(1 + 2j), jnp.float32)
    # (jnp's astype warns otherwise, as JAX's: test_fidelity_r30_lead)
    assert any(issubclass(w.category, jnp.ComplexWarning) for w in caught)


def test_ufunc_names_and_attributes_match_jax():
    names = sorted(n for n in dir(jnp) if isinstance(getattr(jnp, n), jnp.ufunc))
    assert names == _DATA["ufuncs"]
    for name, (nin, nout, nargs, identity, text) in _DATA["ufunc_attrs"].items():
        f = getattr(jnp, name)
        assert (f.nin, f.nout, f.nargs, repr(f.identity), repr(f)) == (
            nin, nout, nargs, identity, text)
        assert f.__name__ == name and f == getattr(jnp, name) and hash(f) == hash(f)
    assert jnp.add != jnp.multiply
    f = jnp.frompyfunc(lambda a, b: a + b, 2, 1, identity=0)
    assert (f.nin, f.nout, f.identity, f.__name__) == (2, 1, 0, "<lambda>")
    with pytest.raises(AttributeError):
        f.nin = 3  # read-only, so a ufunc is a safe static argument
    # a ufunc is a static argument of jit
    g = minijax.jit(lambda op, x: op.reduce(x), static_argnums=0)
    assert float(g(jnp.multiply, jnp.arange(1., 4.))) == 6.0


def test_ufunc_call_matches_plain_function():
    from minijax.numpy import math as jnp_math

    x, y = jnp.arange(3.), jnp.ones(3)
    for name in ("add", "subtract", "multiply", "maximum", "minimum", "logaddexp"):
        np.testing.assert_array_equal(getattr(jnp, name)(x, y), getattr(jnp_math, name)(x, y))
    assert jnp.add(1, 2).weak_type and jnp.add(jnp.int8(1), 2).dtype == np.int8
    with pytest.raises(TypeError):
        jnp.add(x)
