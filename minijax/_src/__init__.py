"""Stand-ins for the JAX-internal modules (``jax._src.*``) that libraries built on JAX import.

Under the opt-in (``minijax.compat``) ``jax._src.x`` is ``minijax._src.x`` unless
``compat._RENAMED`` maps it onto the minijax module that does that job. Each module here is a
thin adapter over minijax's own machinery, holding only the names libraries reach for;
docs/compat.md lists every such name, what stands behind it and which library needs it.
"""
