"""``minijax.nn``: activation functions and friends, as ``jax.nn``."""

from minijax.nn.functions import *
