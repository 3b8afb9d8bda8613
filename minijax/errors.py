"""Exceptions users see; names follow ``jax.errors``."""

from jaxlib import _jax


class JAXTypeError(TypeError):
    pass


class ConcretizationTypeError(JAXTypeError):
    """A traced (abstract) value was used where Python needs a concrete one."""


class TracerArrayConversionError(JAXTypeError):
    """A traced value was turned into a NumPy array (``np.asarray(tracer)``)."""


class TracerBoolConversionError(ConcretizationTypeError):
    """A traced value was used as a Python bool (``if tracer:``, ``bool(tracer)``)."""


class KeyReuseError(JAXTypeError):
    """A PRNG key was consumed twice while the key-reuse checker was on."""


class JaxprTypeError(TypeError):
    """A jaxpr failed its type check (an equation's inputs do not match its rule)."""


class InconclusiveDimensionOperation(Exception):
    """A comparison or arithmetic on symbolic dimensions has no single answer."""


class TracerIntegerConversionError(JAXTypeError):
    """A traced value was used as a Python int (``range(tracer)``, list index ...)."""


class JAXIndexError(IndexError):
    pass


class NonConcreteBooleanIndexError(JAXIndexError):
    """A traced boolean mask was used as an index: the result's shape would depend on its
    values (``jit(lambda x: x[x > 0])``)."""


class UnexpectedTracerError(Exception):
    """A tracer escaped the transformation that made it and was used afterwards."""


# jaxlib's own class (JAX's ``jax.errors.JaxRuntimeError`` is the same one): errors minijax
# raises with context (a failed compile, a failed launch) and errors XLA raises later on its
# own (a GPU allocation failing when the result is awaited) are caught by one ``except``.
JaxRuntimeError = _jax.JaxRuntimeError
XlaRuntimeError = JaxRuntimeError  # JAX's older name for it
