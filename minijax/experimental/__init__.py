"""``minijax.experimental``: the names JAX keeps under ``jax.experimental``."""
