"""Errors that teach: each asserts the exception type and that the message names the culprit
(argument path, value, shape, jnp function, primitive or line). The process keeps working."""

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp
from minijax.errors import (
    ConcretizationTypeError,
    TracerIntegerConversionError,
    UnexpectedTracerError,
    XlaRuntimeError,
)


def _still_works():
    np.testing.assert_allclose(np.asarray(minijax.jit(lambda v: v * 2)(np.float32(3))), 6.0)


def test_wrong_number_of_arguments_names_the_function_and_parameter():
    def add_xy(x, y):
        return x + y

    f = minijax.jit(add_xy)
    with pytest.raises(TypeError, match=r"add_xy\(\) missing 1 required positional argument: 'y'"):
        f(np.float32(1))
    with pytest.raises(TypeError, match=r"add_xy\(\) takes 2 positional arguments but 3"):
        f(1.0, 2.0, 3.0)
    _still_works()


def test_non_array_leaves_name_their_pytree_path():
    f = minijax.jit(lambda d: d["a"])
    with pytest.raises(TypeError) as e:
        f({"a": 1.0, "b": [2.0, "hello"]})
    msg = str(e.value)  # JAX 0.10.2's words: the path by the parameter's name
    assert "path d['b'][1]" in msg and "<class 'str'>" in msg and "static_argnums" in msg
    with pytest.raises(TypeError, match=r"<class 'object'> and was passed to the function at "
                       r"path t\[1\]\."):
        minijax.jit(lambda t: t[0])((1.0, object()))
    _still_works()


def test_unhashable_static_argument_names_the_value():
    f = minijax.jit(lambda x, n: x, static_argnums=1)
    with pytest.raises(ValueError) as e:
        f(1.0, [1, 2])
    msg = str(e.value)
    assert "Non-hashable static arguments" in msg and "[1, 2]" in msg and "list" in msg


def test_donated_array_used_again_is_jaxs_runtime_error():
    g = minijax.jit(lambda x: x * 2, donate_argnums=0)
    x = jnp.ones(3)
    np.testing.assert_allclose(np.asarray(g(x)), 2.0)
    assert x.is_deleted()
    gone = r"^Array has been deleted with shape=float32\[3\]\.$"  # JAX 0.10.2's words
    # eagerly: JAX's words on the op's first call (its Python path); once another test in this
    # process has run the same op on f32[3], jaxlib's C++ fast path may answer with its
    # ValueError
    with pytest.raises((RuntimeError, ValueError), match="deleted") as e:
        x + 1
    assert e.type is ValueError or "float32[3]" in str(e.value)
    with pytest.raises(RuntimeError, match=gone):
        np.asarray(x)
    h = minijax.jit(lambda v: v - 1)  # first call of another jitted function: Python path
    with pytest.raises(RuntimeError, match=gone):
        h(x)
    # the C++ fast path of an already-cached function reports it too
    y = jnp.ones(3)
    h(y)
    with pytest.raises((RuntimeError, ValueError), match="deleted"):
        h(x)
    _still_works()


def test_deleted_array():
    y = jnp.arange(4.0)
    y.delete()
    assert y.is_deleted()
    gone = r"^Array has been deleted with shape=float32\[4\]\.$"  # JAX 0.10.2's words
    with pytest.raises(RuntimeError, match=gone):
        repr(y)
    with pytest.raises(RuntimeError, match=gone):
        y * 2
    with pytest.raises(RuntimeError, match=gone):
        minijax.jit(lambda a: a + 1)(y)
    _still_works()


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: jnp.dot(jnp.ones((2, 3)), jnp.ones((4,))), "jnp.dot"),
        (lambda: jnp.add(jnp.ones((2, 3)), jnp.ones((4,))), "jnp.add"),
        (lambda: jnp.where(jnp.ones((2,)) > 0, jnp.ones((3,)), 0.0), "jnp.where"),
        (lambda: jnp.concatenate([jnp.ones((2, 3)), jnp.ones((2, 4))], axis=0), "jnp.concatenate"),
    ],
)
def test_shape_errors_in_jnp_name_the_jnp_function_and_line(call, name):
    # the message is JAX's; a note (printed under the traceback) names the jnp function and
    # the user's line
    with pytest.raises((TypeError, ValueError)) as e:
        call()
    note = "\n".join(getattr(e.value, "__notes__", ()))
    assert note.startswith(f"  in {name} at {__file__}:"), note


def test_jnp_shape_error_under_jit_names_function():
    with pytest.raises(TypeError, match="^dot_general") as e:
        minijax.jit(lambda a, b: jnp.dot(a, b))(np.ones((2, 3), np.float32), np.ones(4, np.float32))
    assert e.value.__notes__[0].startswith("  in jnp.dot at ")


def test_leaked_tracer_says_where_it_was_created():
    leak = []

    def f(a):
        leak.append(a * 2)  # the leak
        return a

    minijax.jit(f)(1.0)
    with pytest.raises(UnexpectedTracerError) as e:
        leak[0] + 1
    msg = str(e.value)
    assert "It was created at" in msg and f"{__file__}:" in msg


def test_concretization_names_the_argument_and_the_line():
    def make(x, n):
        total = n.sum()  # total depends on n
        return jnp.zeros(int(total)) + x

    with pytest.raises(ConcretizationTypeError) as e:  # JAX's class for int() of a tracer
        minijax.jit(make)(1.0, jnp.ones(3))
    msg = str(e.value)
    assert "depends on n" in msg and f"It was computed by 'reduce_sum' at {__file__}:" in msg

    def branch(x, k):
        if k > 0:
            return x
        return -x

    with pytest.raises(ConcretizationTypeError, match="depends on k"):
        minijax.jit(branch)(1.0, 2)
    with pytest.raises(ConcretizationTypeError, match="It is the argument flag"):
        minijax.jit(lambda flag: 1 if flag else 0)(True)
    with pytest.raises(TracerIntegerConversionError, match="It is the argument i"):
        minijax.jit(lambda i: [1, 2][i])(1)


def test_out_of_memory_is_an_exception_and_the_next_call_works():
    # XLA CPU refuses a 4 TiB allocation with RESOURCE_EXHAUSTED (no host memory is touched)
    with pytest.raises(XlaRuntimeError, match="RESOURCE_EXHAUSTED|[Oo]ut of memory"):
        jnp.zeros((1 << 40,), jnp.float32).block_until_ready()
    with pytest.raises(XlaRuntimeError, match="RESOURCE_EXHAUSTED|[Oo]ut of memory"):
        # (awaited: a GPU raises when the result is, a CPU already when the call is made)
        minijax.jit(lambda v: jnp.broadcast_to(v, (1 << 20, 1 << 20)))(
            np.float32(1)).block_until_ready()
    _still_works()
