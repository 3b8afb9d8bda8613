"""``minijax.nn``: activation functions and friends, as ``jax.nn``."""

from minijax.nn import initializers  # noqa: F401
from minijax.nn.attention import dot_product_attention  # noqa: F401
from minijax.nn.functions import *
from minijax.nn.scaled_matmul import *  # noqa: F401,F403
