"""``jax.image``: resampling images (:func:`resize`, :func:`scale_and_translate`)."""

from minijax.image.scale import ResizeMethod, resize, scale_and_translate

__all__ = ["ResizeMethod", "resize", "scale_and_translate"]
