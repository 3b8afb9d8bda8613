"""``minijax.extend`` (``jax.extend``): the names libraries use to extend JAX.

``core`` defines primitives and reads jaxprs, ``random`` names PRNG implementations,
``linear_util`` wraps functions for the partial-evaluation entry points, ``source_info_util``
tells which user line is running. A
primitive's rules are registered through ``minijax.interpreters.{ad,batching,mlir}``, whose
registries are views onto the rules each ``Primitive`` carries (docs/extending.md).
"""

from minijax.extend import core, linear_util, random, source_info_util

__all__ = ["core", "linear_util", "random", "source_info_util"]
