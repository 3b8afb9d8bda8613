"""jax_check_tracer_leaks (``checking_leaks``), jax_numpy_dtype_promotion='strict' and
jax_numpy_rank_promotion='warn'/'raise', against JAX 0.10.2.

The promotion cases live in tests/data/promotion_modes_cases.py; their outcomes on JAX are
recorded in tests/data/promotion_modes_jax.json by tests/data/record_promotion_modes.py. The
leak cases were run on JAX 0.10.2: which transformations report a leak (jit, make_jaxpr, vmap,
scan/cond/while bodies, checkpoint; not eager grad/jvp) and the error's shape are JAX's.
"""

import json
import os
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax import dtypes, lax
from minijax.errors import UnexpectedTracerError

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "data"))
from promotion_modes_cases import dtype_cases, rank_cases  # noqa: E402

with open(os.path.join(os.path.dirname(__file__), "data", "promotion_modes_jax.json")) as _f:
    JAX = json.load(_f)

# ------------------------------------------------------------------------------------------------
# Tracer leaks

_store = []


def _leaky(x):
    y = x * 2.0
    _store.append(y)
    return x + 1.0


@pytest.fixture(autouse=True)
def _clean_store():
    _store.clear()
    yield
    _store.clear()


_LEAKY_TRANSFORMS = {
    "jit": lambda: minijax.jit(_leaky)(jnp.ones(3)),
    "make_jaxpr": lambda: minijax.make_jaxpr(_leaky)(jnp.ones(3)),
    "vmap": lambda: minijax.vmap(_leaky)(jnp.ones(3)),
    "scan": lambda: lax.scan(lambda c, x: (_leaky(c), x), jnp.ones(3), jnp.arange(2.0)),
    "cond": lambda: lax.cond(True, _leaky, _leaky, jnp.ones(3)),
    "fori_loop": lambda: lax.fori_loop(0, 2, lambda i, c: _leaky(c), jnp.ones(3)),
    "checkpoint": lambda: minijax.grad(lambda x: minijax.checkpoint(_leaky)(x).sum())(
        jnp.ones(3)),
    "jit_of_grad": lambda: minijax.jit(minijax.grad(lambda x: _leaky(x).sum()))(jnp.ones(3)),
}


@pytest.mark.parametrize("name", sorted(_LEAKY_TRANSFORMS))
def test_leak_is_reported_when_the_trace_ends(name):
    with minijax.checking_leaks():
        with pytest.raises(Exception, match=r"^Leaked trace \w+Trace\. Leaked tracer\(s\):") as e:
            _LEAKY_TRANSFORMS[name]()
    msg = str(e.value)
    assert type(e.value) is Exception  # JAX raises a plain Exception
    # what keeps it alive: the list, held by this module's global
    assert re.search(r"<list \d+>\[0\]\n<list \d+> is referred to by [\w.]*test_leaks_promotion"
                     r"\._store", msg), msg
    if name != "vmap":  # a staged tracer knows the line of the operation that made it
        assert f"at {__file__}:" in msg and "(_leaky)" in msg, msg


def test_leak_names_the_line_the_attribute_and_the_transformation():
    class Model:
        def apply(self, x):
            self.hidden = jnp.sin(x)
            return x

    model = Model()
    with minijax.checking_leaks():
        with pytest.raises(Exception) as e:
            minijax.jit(model.apply)(jnp.ones(2))
    msg = str(e.value)
    assert msg.startswith("Leaked trace DynamicJaxprTrace. Leaked tracer(s):\n\n"
                          "JitTracer(float32[2])\n"), msg  # JAX 0.10.2's tracer repr
    line = model.apply.__code__.co_firstlineno + 1
    assert f"It was computed by 'sin' at {__file__}:{line} (apply) and depends on x." in msg
    assert re.search(r"<DynamicJaxprTracer \d+> is referred to by <Model \d+>\.hidden", msg), msg


def test_vmap_leak_names_the_batch_trace():
    with minijax.checking_leaks():
        with pytest.raises(Exception, match=r"^Leaked trace BatchTrace\.") as e:
            minijax.vmap(_leaky)(jnp.ones(3))
    assert "\n\nVmapTracer(aval=float32[], batched=float32[3])\n" in str(e.value)  # as JAX's


def test_closure_leak_names_the_variable():
    keep = []

    def f(x):
        def inner():
            return x

        keep.append(inner)
        return x

    with minijax.checking_leaks():
        with pytest.raises(Exception, match=r"\(inner\) closed-over variable x"):
            minijax.jit(f)(1.0)


def test_no_leak_no_error_and_same_results():
    def f(x):
        tmp = [x * 2.0]  # a local list dies with the call: not a leak
        _store.append(1.0)
        return tmp[0] + lax.scan(lambda c, y: (c + y, c), 0.0, x)[0]

    x = jnp.arange(3.0)
    want = np.asarray(minijax.jit(f)(x))
    with minijax.checking_leaks():
        got = minijax.jit(f)(x)
        got_v = minijax.vmap(lambda r: minijax.jit(f)(r))(jnp.stack([x, x]))
        popped = minijax.jit(lambda x: (_store.append(x), _store.pop(), x * 3.0)[2])(x)
    np.testing.assert_allclose(got, want)
    np.testing.assert_allclose(got_v, np.stack([want, want]))
    np.testing.assert_allclose(popped, np.arange(3.0) * 3)


def test_eager_autodiff_is_not_checked_as_in_jax():
    # JAX 0.10.2 reports no leak for eager grad/jvp (their traces are not leak-checked)
    with minijax.checking_leaks():
        minijax.grad(lambda x: _leaky(x).sum())(jnp.ones(3))
        minijax.jvp(_leaky, (jnp.ones(3),), (jnp.ones(3),))
    assert len(_store) == 2


def test_a_cached_trace_is_not_checked_again():
    f = minijax.jit(_leaky)
    f(jnp.ones(4))
    _store.clear()
    with minijax.checking_leaks():
        f(jnp.ones(4))  # no trace: nothing runs the leaky Python code
    assert _store == []


def test_flag_off_leak_surfaces_as_unexpected_tracer_error_with_the_hint():
    minijax.jit(_leaky)(jnp.ones(5))
    with pytest.raises(UnexpectedTracerError, match="checking_leaks"):
        _store[0] + 1.0


def test_check_tracer_leaks_is_a_state():
    state = minijax.check_tracer_leaks
    assert state.value is False and minijax.config.jax_check_tracer_leaks is False
    with state(True):
        assert state.value is True
    assert state.value is False

    @minijax.checking_leaks()
    def traced():
        return minijax.config.jax_check_tracer_leaks

    assert traced() is True and state.value is False
    minijax.config.update("jax_check_tracer_leaks", True)
    try:
        with pytest.raises(Exception, match="Leaked trace"):
            minijax.jit(_leaky)(jnp.ones(6))
    finally:
        minijax.config.update("jax_check_tracer_leaks", False)


def test_flags_from_the_environment():
    code = (
        "import minijax, minijax.numpy as jnp\n"
        "c = minijax.config\n"
        "print(c.jax_check_tracer_leaks, c.jax_numpy_rank_promotion, "
        "c.jax_numpy_dtype_promotion)\n"
        "store = []\n"
        "try:\n"
        "    minijax.jit(lambda x: store.append(x) or x)(1.0)\n"
        "except Exception as e:\n"
        "    print(str(e).split('.')[0])\n"
    )
    env = dict(os.environ, MINIJAX_CHECK_TRACER_LEAKS="1", JAX_NUMPY_RANK_PROMOTION="raise",
               MINIJAX_NUMPY_DTYPE_PROMOTION="strict")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    assert out.stdout.splitlines() == ["True raise strict", "Leaked trace DynamicJaxprTrace"]


# ------------------------------------------------------------------------------------------------
# jax_numpy_dtype_promotion


def _outcome(thunk):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            r = thunk()
        except Exception as e:  # noqa: BLE001 - compared with what JAX raised
            return ["error", type(e).__name__, str(e)]
    messages = [str(w.message) for w in caught]
    if messages:
        return ["warn", messages]
    if isinstance(r, (list, tuple)):
        r = r[0]
    return ["ok", str(getattr(r, "dtype", r)), bool(getattr(getattr(r, "aval", None),
                                                            "weak_type", False))]


def _unordered_dtypes(outcome):
    """JAX lists the input dtypes of a failed promotion in set order: compare them as a set."""
    if outcome[0] != "error":
        return outcome
    msg = re.sub(r"Input dtypes \(([^)]*)\)",
                 lambda m: "Input dtypes " + repr(sorted(m.group(1).split(", "))), outcome[2])
    return [outcome[0], outcome[1], msg]


@pytest.mark.parametrize("mode", ["standard", "strict"])
@pytest.mark.parametrize("case", sorted(JAX["dtype"]["strict"]))
def test_dtype_promotion_matches_jax(mode, case):
    with minijax.numpy_dtype_promotion(mode):
        got = _outcome(dtype_cases(minijax)[case])
    assert _unordered_dtypes(got) == _unordered_dtypes(JAX["dtype"][mode][case])


def test_strict_promotion_retraces_a_cached_program():
    f = minijax.jit(lambda x, y: x * y)
    i32, f32 = jnp.ones(2, jnp.int32), jnp.ones(2)
    assert f(i32, f32).dtype == np.float32
    with minijax.numpy_dtype_promotion("strict"):
        with pytest.raises(dtypes.TypePromotionError, match="jax_numpy_dtype_promotion=strict"):
            f(i32, f32)
        with pytest.raises(dtypes.TypePromotionError):
            i32 * f32  # the eagerly jitted jnp.multiply too
    assert f(i32, f32).dtype == np.float32 and (i32 * f32).dtype == np.float32


def test_type_promotion_error_is_jax_s_value_error():
    assert issubclass(dtypes.TypePromotionError, ValueError)
    with minijax.numpy_dtype_promotion("strict"):
        with pytest.raises(ValueError, match=r"Input dtypes \('int32', 'int8'\)"):
            jnp.concatenate([jnp.ones(2, jnp.int32), jnp.ones(2, jnp.int32),
                             jnp.ones(2, jnp.int8)])


def test_dtype_promotion_flag_values():
    assert minijax.numpy_dtype_promotion.value == "standard"
    with pytest.raises(ValueError, match=r"must be in \['standard', 'strict'\], got loose"):
        minijax.config.update("jax_numpy_dtype_promotion", "loose")
    with pytest.raises(ValueError, match=r"must be in \['allow', 'warn', 'raise'\], got None"):
        minijax.config.update("jax_numpy_rank_promotion", None)
    assert minijax.config.jax_numpy_dtype_promotion == "standard"
    assert minijax.config.jax_numpy_rank_promotion == "allow"


# ------------------------------------------------------------------------------------------------
# jax_numpy_rank_promotion


@pytest.mark.parametrize("mode", ["allow", "raise"])
@pytest.mark.parametrize("case", sorted(JAX["rank"]["raise"]))
def test_rank_promotion_matches_jax(mode, case):
    with minijax.numpy_rank_promotion(mode):
        got = _outcome(rank_cases(minijax)[case])
    assert got == JAX["rank"][mode][case]


@pytest.mark.parametrize("case", sorted(JAX["rank"]["warn"]))
def test_rank_promotion_warnings_match_jax(case):
    thunk = rank_cases(minijax)[case]
    with minijax.numpy_rank_promotion("warn"):
        # A fresh jit traces the jnp code every time (eager calls warn once per signature,
        # when their program is traced, as in JAX).
        got = _outcome(lambda: minijax.jit(lambda: thunk())())
    assert got == JAX["rank"]["warn"][case]


def test_rank_promotion_warns_when_an_eager_program_is_traced():
    a, b = jnp.ones((4, 7)), jnp.ones(7)  # a signature no other test uses
    with minijax.numpy_rank_promotion("warn"):
        with pytest.warns(UserWarning, match=r"rank promotion for subtract on shapes \(4, 7\) "
                                             r"\(7,\)"):
            r = a - b
    np.testing.assert_array_equal(r, np.zeros((4, 7)))
    with minijax.numpy_rank_promotion("raise"):
        with pytest.raises(ValueError, match="jax_numpy_rank_promotion='raise'"):
            a - b  # the program compiled under 'allow'/'warn' is not reused
