"""``minijax.experimental.layout`` (JAX's ``jax.experimental.layout``)."""

from minijax.layout import Format, Layout

__all__ = ["Format", "Layout"]
