"""``copy_p``: JAX's primitive for an explicit copy of an array (``jnp.array(x, copy=True)``
in JAX): the identity on values, linear, its own transpose. Outside ``jit`` it runs as its own
program, so the result is a new buffer."""

from __future__ import annotations

from minijax.core import Primitive
from minijax.interpreters import ad, batching
from minijax.lax import sharding_rules

__all__ = ["copy_p"]

copy_p = Primitive("copy")
copy_p.def_abstract_eval(lambda x: x)
copy_p.def_lowering(lambda ctx, x: x)
copy_p.def_batching(batching.elementwise_rule(copy_p))
ad.deflinear(copy_p, lambda ct, x: [copy_p.bind(ad.instantiate_zeros(ct))])

copy_p.sharding_rule = sharding_rules.operand(0)  # (operands split over Explicit mesh axes)
