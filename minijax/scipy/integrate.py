"""``jax.scipy.integrate``: SciPy's integration of sampled data."""

from minijax.jitting import jit
from minijax.numpy.math import trapezoid as _np_trapezoid

__all__ = ["trapezoid"]


@jit(static_argnames=("axis",))
def trapezoid(y, x=None, dx=1.0, axis: int = -1):
    """The composite trapezoidal rule along ``axis``: sample points ``x`` when given, else
    the uniform spacing ``dx`` (one implementation with ``jnp.trapezoid``)."""
    return _np_trapezoid(y, x, dx, axis)
