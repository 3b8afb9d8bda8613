"""Exceptions users see; names follow ``jax.errors``."""


class JAXTypeError(TypeError):
    pass


class ConcretizationTypeError(JAXTypeError):
    """A traced (abstract) value was used where Python needs a concrete one."""


class TracerArrayConversionError(JAXTypeError):
    """A traced value was turned into a NumPy array (``np.asarray(tracer)``)."""


class TracerIntegerConversionError(JAXTypeError):
    """A traced value was used as a Python int (``range(tracer)``, list index ...)."""


class UnexpectedTracerError(Exception):
    """A tracer escaped the transformation that made it and was used afterwards."""


class XlaRuntimeError(RuntimeError):
    """An error raised by XLA while compiling or running a program, with minijax's context."""
