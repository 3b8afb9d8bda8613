"""``jax.scipy.optimize``: unconstrained minimization by BFGS, jittable."""

from minijax.scipy.optimize._minimize import OptimizeResults, minimize

__all__ = ["OptimizeResults", "minimize"]
