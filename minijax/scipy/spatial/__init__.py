"""``jax.scipy.spatial``."""

from minijax.scipy.spatial import transform  # noqa: F401
