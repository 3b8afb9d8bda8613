"""``minijax.experimental``: the names JAX keeps under ``jax.experimental``."""

from minijax.callbacks import io_callback  # noqa: E402,F401
