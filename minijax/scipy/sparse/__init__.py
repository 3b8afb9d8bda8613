"""``jax.scipy.sparse``: iterative solvers for linear systems given as matrices or functions."""

from minijax.scipy.sparse import linalg  # noqa: F401
