"""``jax.scipy.cluster``."""

from minijax.scipy.cluster import vq  # noqa: F401
