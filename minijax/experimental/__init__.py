"""``minijax.experimental``: the names JAX keeps under ``jax.experimental``."""

from minijax.callbacks import io_callback  # noqa: E402,F401
from minijax.experimental.hijax import cur_qdd  # noqa: E402,F401
