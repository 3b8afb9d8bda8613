"""Errors at trace time name the problem and the user's line; the process keeps working."""

import numpy as np
import pytest

import minijax
from minijax import lax
from minijax.errors import (
    ConcretizationTypeError,
    TracerArrayConversionError,
    UnexpectedTracerError,
)


def _text(e):
    """An error's message (JAX's) and the notes minijax adds to it (the user's line)."""
    return "\n".join([str(e), *getattr(e, "__notes__", ())])


def test_dtype_mismatch_names_primitive_shapes_and_line():
    def f(x, y):
        return lax.add(x, y)  # the offending line

    with pytest.raises(TypeError) as e:
        minijax.jit(f)(np.zeros(3, np.float32), np.zeros(3, np.int32))
    msg = _text(e.value)
    assert "lax.add requires arguments to have the same dtypes, got float32, int32." in msg
    assert f"{__file__}:" in msg and "the offending line" in msg


def test_shape_mismatch_names_primitive_shapes_and_line():
    with pytest.raises(TypeError) as e:
        minijax.jit(lambda x, y: lax.mul(x, y))(
            np.zeros((2, 3), np.float32), np.zeros((2, 2), np.float32)
        )
    msg = _text(e.value)
    assert "mul got incompatible shapes" in msg and "f32[2,3], f32[2,2]" in msg
    assert __file__ in msg
    with pytest.raises(TypeError, match=r"mul got operands of different ranks: f32\[2,3\]"):
        minijax.jit(lambda x, y: lax.mul(x, y))(
            np.zeros((2, 3), np.float32), np.zeros(3, np.float32)
        )


def test_shape_mismatch_eagerly_too():
    with pytest.raises(TypeError, match="incompatible shapes") as e:
        lax.add(np.zeros(2, np.float32), np.zeros(3, np.float32))
    assert __file__ in _text(e.value)


def test_if_on_tracer_is_a_concretization_error_with_advice():
    def f(x):
        if lax.sin(x):  # python control flow on a traced value
            return x
        return lax.neg(x)

    with pytest.raises(ConcretizationTypeError) as e:
        minijax.jit(f)(np.float32(1.0))
    msg = str(e.value)
    assert "lax.cond" in msg and "static_argnums" in msg
    assert "python control flow on a traced value" in msg


def test_int_and_float_of_tracer():
    with pytest.raises(TypeError, match="int()"):
        minijax.jit(lambda x: int(x))(np.int32(1))
    with pytest.raises(ConcretizationTypeError):
        minijax.jit(lambda x: float(x))(np.float32(1))


def test_numpy_conversion_of_tracer():
    with pytest.raises(TracerArrayConversionError, match="minijax.numpy"):
        minijax.jit(lambda x: np.sin(np.asarray(x)))(np.float32(1.0))


def test_escaped_tracer_is_unexpected_tracer_error_when_used():
    leaked = []

    def f(x):
        leaked.append(x)
        return lax.sin(x)

    minijax.jit(f)(np.float32(1.0))
    with pytest.raises(UnexpectedTracerError, match="escaped"):
        lax.neg(leaked[0])  # eagerly
    with pytest.raises(UnexpectedTracerError):
        minijax.jit(lambda y: lax.add(y, leaked[0]))(np.float32(1.0))  # inside another trace
    with pytest.raises(UnexpectedTracerError):
        minijax.jit(lambda y: y)(leaked[0])  # as an argument
    # and everything still works afterwards
    np.testing.assert_allclose(
        np.asarray(minijax.jit(lax.sin)(np.float32(0.5))), np.sin(0.5), rtol=1e-6
    )


def test_invalid_argument_type_names_the_argument():
    # JAX 0.10.2's words (pjit's _infer_input_type)
    with pytest.raises(TypeError, match="Error interpreting argument to <function .*<lambda> "
                       r"at 0x\w+> as an abstract array. The problematic value is of type "
                       "<class 'str'> and was passed to the function at path x.\n"):
        minijax.jit(lambda x: x)("a string")


def test_xla_runtime_errors_become_python_exceptions_and_process_survives():
    from jaxlib.mlir import ir

    from minijax.core import ShapedArray
    from minijax.errors import XlaRuntimeError
    from minijax.lowering import backends
    from minijax.lowering import compile as _compile
    from minijax.lowering.stablehlo import LoweredModule, context

    # A valid module XLA cannot compile: a custom call to a target nothing registered.
    bad = (
        "module @bad { func.func public @main(%a: tensor<3xf32>) -> tensor<3xf32> { "
        "%0 = stablehlo.custom_call @minijax_no_such_target(%a) : (tensor<3xf32>) -> "
        "tensor<3xf32>\n return %0 : tensor<3xf32> } }"
    )
    with context():
        module = ir.Module.parse(bad)
    dev = minijax.devices()[0]
    aval = ShapedArray((3,), np.float32)
    with pytest.raises(XlaRuntimeError, match="failed to compile 'bad'"):
        _compile.compile_module(LoweredModule(module), "bad", [dev], [aval], [aval])
    assert backends.get_backend() is not None
    np.testing.assert_array_equal(np.asarray(lax.neg(np.float32([1]))), [-1])
